// An ingest's checkpoint: what it has read, batch by batch, in SQLite (CKPT/checkpoint.db), so a
// restart neither reads a file twice nor loses one. A batch is planned (its files or offset
// ranges recorded) before anything is written, its quarantine and report lines are staged here
// before the table commit, and it is marked committed, then done once those lines are delivered.
// The table's `txn` action (appId = the checkpoint's id, version = the batch number) says whether
// a planned batch committed, so a crash at any point is reconciled on the next start.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sluice/base/result.h"

namespace sluice {
class SqliteDb;
}  // namespace sluice

namespace sluice::ingest {

/// One input file of a batch, as it was when the batch was planned.
struct BatchFile {
  std::string path;
  uint64_t size = 0;
  int64_t modified_ms = 0;
  bool operator==(const BatchFile&) const = default;
};

/// Offsets [from, until) of one Kafka partition read by a batch.
struct PartitionRange {
  std::string topic;
  int32_t partition = 0;
  int64_t from = 0;
  int64_t until = 0;
  bool operator==(const PartitionRange&) const = default;
};

enum class BatchState : uint8_t {
  /// Inputs recorded; the table commit may or may not have happened.
  kPlanned,
  /// In the table at `table_version`; quarantine and report lines not yet all delivered.
  kCommitted,
  /// Finished.
  kDone,
};

struct Batch {
  int64_t id = 0;
  BatchState state = BatchState::kPlanned;
  std::vector<BatchFile> files;
  std::vector<PartitionRange> ranges;
  /// The schema version (schema location) the batch was written with; -1 before it is known.
  int64_t schema_version = -1;
  /// The table version the commit made; -1 when unknown.
  int64_t table_version = -1;
  /// Staged before the commit: the batch's quarantine lines and its report (a JSON object).
  std::string quarantine;
  std::string report;
  /// Sizes of the quarantine and report files before this batch's lines were appended, so a
  /// delivery cut short is redone exactly (-1: not started).
  int64_t quarantine_offset = -1;
  int64_t report_offset = -1;
  int64_t started_ms = 0;
};

/// A file that could not be read at all, kept out of every batch.
struct UnreadableFile {
  BatchFile file;
  std::string reason;
  int64_t batch = 0;
};

/// What a checkpoint belongs to; a checkpoint opened for another source or table is an error.
struct CheckpointIdentity {
  /// "folder" or "kafka".
  std::string kind;
  /// The source as given (a folder's absolute path, kafka://BROKERS/TOPIC).
  std::string source;
  /// The table's absolute path.
  std::string table;
};

/// What a checkpoint holds, as a report (the web UI) reads it while an ingest may be running.
struct CheckpointSummary {
  CheckpointIdentity identity;
  /// The last finished batches' reports (JSON objects, docs/ingest.md), newest last.
  std::vector<std::string> reports;
};

/// Read `dir`/checkpoint.db read-only, without its lock: the identity and the reports of the
/// last `max_reports` finished batches (a finished batch keeps its report). kNotFound when
/// there is no checkpoint database there; kIoError naming the file when it cannot be read.
Result<CheckpointSummary> ReadCheckpoint(const std::string& dir, size_t max_reports);

class Checkpoint {
 public:
  /// Open `dir`/checkpoint.db, creating the folder and the database when absent (`created()`
  /// then says so), and hold `dir`/lock for as long as the object lives. kInvalidArgument when
  /// the checkpoint belongs to another source or table; kConflict while another process holds
  /// it; kIoError for a database that cannot be opened (naming the file).
  static Result<std::unique_ptr<Checkpoint>> Open(const std::string& dir,
                                                  const CheckpointIdentity& identity);
  ~Checkpoint();

  /// A random id made when the checkpoint was created: the table `txn` appId of its batches.
  const std::string& id() const { return id_; }
  bool created() const { return created_; }
  const std::string& path() const { return path_; }

  /// Every file a batch holds or that was found unreadable.
  Result<std::set<std::string>> KnownFiles();
  /// The newest batch not yet done (at most one is ever open).
  Result<std::optional<Batch>> OpenBatch();
  /// The number the next batch gets (1 + the highest so far; batches start at 0).
  Result<int64_t> NextBatchId();
  /// Record a new batch, state kPlanned, with its files or ranges.
  Status Plan(const Batch& batch);
  /// Forget a planned batch (its files become new again): a batch stopped before its commit.
  Status Drop(int64_t batch);
  /// Stage the batch's quarantine lines and report before its commit.
  Status Stage(int64_t batch, int64_t schema_version, const std::string& quarantine,
               const std::string& report);
  /// The commit is in the table: remember where the quarantine and report files ended.
  Status MarkCommitted(int64_t batch, int64_t table_version, int64_t quarantine_offset,
                       int64_t report_offset);
  /// Everything delivered: the staged lines are dropped.
  Status MarkDone(int64_t batch);
  Status RecordUnreadable(const UnreadableFile& file);
  /// Take a file out of its batch: it is new again to discovery.
  Status Forget(const std::string& path);

  /// The next offset of each Kafka partition (topic, partition) read by the batches that were
  /// delivered without a table commit (poison messages only, before the table existed): the
  /// table holds no offset of theirs, and the group's commit of them may have been cut short.
  Result<std::map<std::pair<std::string, int32_t>, int64_t>> OffsetsOutsideTable();

  /// The last `n` finished batches' reports (JSON objects), newest last.
  Result<std::vector<std::string>> RecentReports(size_t n);

 private:
  Checkpoint() = default;
  int lock_fd_ = -1;
  std::unique_ptr<SqliteDb> db_;
  std::string id_;
  std::string path_;
  bool created_ = false;
};

}  // namespace sluice::ingest
