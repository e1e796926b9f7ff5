// A Delta table's state at one version, rebuilt from its log (PROTOCOL.md "Action
// Reconciliation"): start at the newest usable checkpoint at or below the version, apply the
// commits after it in order. The last protocol and metaData win, txn keeps the newest version
// per appId, and files are known by FileKey (the canonical path and the deletion vector): the
// newest add or remove wins.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"
#include "sluice/table/actions.h"
#include "sluice/table/log_path.h"

namespace sluice::table {

/// What `_delta_log/` holds, from one listing.
struct LogListing {
  struct Commit {
    int64_t version = 0;
    /// The file's modification time (ms since the epoch).
    int64_t modified_ms = 0;
    uint64_t size = 0;
  };
  /// Commit files, by version.
  std::vector<Commit> commits;
  /// Checkpoints that can be read: classic, multi-part with every part, V2; by version, each
  /// version's file names (one, the parts in order, or a V2 file).
  std::map<int64_t, std::vector<LogFileName>> checkpoints;
  /// The newest version a commit or checkpoint exists for; -1 when there is none.
  int64_t latest_version = -1;
  /// Whether commits carry their sizes and modification times (ListLog with_times).
  bool has_times = false;
};

/// List `root/_delta_log`. With `with_times`, each commit's size and modification time too (a
/// stat per file: what history and time travel by timestamp need; a plain load does without).
/// kNotFound "no Delta table at ..." when it does not exist or holds no commit and no
/// checkpoint.
Result<LogListing> ListLog(FileSystem& fs, std::string_view root, bool with_times = true);

/// Read commit `version` of the table. Errors name the file and line.
Result<std::vector<Action>> ReadCommit(FileSystem& fs, std::string_view root, int64_t version);

struct SnapshotOptions {
  /// The version to load; the latest when neither this nor timestamp_ms is set.
  std::optional<int64_t> version;
  /// Load the newest version committed at or before this time (ms since the epoch).
  std::optional<int64_t> timestamp_ms;
};

struct Snapshot {
  std::string root;
  int64_t version = -1;
  /// When `version` was committed (CommitTimestamps; a load that did not search by time
  /// applies the rule with this snapshot's own metaData, as Delta's Snapshot.timestamp does).
  int64_t timestamp_ms = 0;
  Protocol protocol;
  Metadata metadata;
  /// The logical schema, read from metadata.schema_string.
  schema::SchemaPtr schema;
  /// The live files, sorted by path.
  std::vector<AddFile> files;
  /// Removed files still in the log (tombstones), sorted by path.
  std::vector<RemoveFile> tombstones;
  /// The newest txn version of each appId.
  std::map<std::string, int64_t, std::less<>> app_versions;
  /// Domains not removed.
  std::map<std::string, DomainMetadata, std::less<>> domains;
  /// The checkpoint replay started from; -1 when it read every commit from 0.
  int64_t checkpoint_version = -1;

  /// A table property, or nullopt.
  std::optional<std::string> Property(std::string_view key) const;
  /// Rows in the live files, summed from their stats; nullopt when a file has none.
  std::optional<int64_t> NumRecords() const;
};

/// Load the table at `root`. kNotFound when there is no table or the version does not exist;
/// kInvalidArgument naming the file for a malformed log (a missing version in the sequence, a
/// commit that does not parse, no protocol or metaData, a schema that does not parse);
/// kUnimplemented naming the feature when the protocol needs a reader feature sluice lacks.
Result<Snapshot> LoadSnapshot(FileSystem& fs, std::string_view root,
                              const SnapshotOptions& options = {});

/// Same, from a listing made before (one listing serves several loads).
Result<Snapshot> LoadSnapshot(FileSystem& fs, std::string_view root, const LogListing& listing,
                              const SnapshotOptions& options);

/// When each commit in `listing` was made, by version: the one rule for `table history`, time
/// travel by timestamp and a snapshot's time (PROTOCOL.md "In-Commit Timestamps"). Where the
/// table's latest metaData (`latest`; read from the log when null) sets
/// delta.enableInCommitTimestamps, the versions from delta.inCommitTimestampEnablementVersion on
/// (all of them when it is not set) are dated by their commitInfo.inCommitTimestamp; the
/// others, and a commit that lacks one, by the commit file's modification time, raised where
/// needed so that times grow with versions (as Delta's DeltaHistoryManager does). A table that
/// cannot be replayed at its latest version is dated by file times alone.
Result<std::map<int64_t, int64_t>> CommitTimestamps(FileSystem& fs, std::string_view root,
                                                    const LogListing& listing,
                                                    const Metadata* latest = nullptr);

/// The first version the in-commit timestamps of a table with this metaData date: nullopt when
/// delta.enableInCommitTimestamps is not true, else delta.inCommitTimestampEnablementVersion
/// (0 when absent or not a version).
std::optional<int64_t> InCommitTimestampsFrom(const Metadata& metadata);

}  // namespace sluice::table
