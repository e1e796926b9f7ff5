// The actions of a Delta log (PROTOCOL.md "Actions"): what one line of a commit file, or one row
// of a checkpoint, says. Reading keeps what sluice needs and ignores unknown actions and fields,
// as the protocol requires; writing emits each action with Delta Spark's key order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"

namespace sluice::table {

using StringMap = std::map<std::string, std::string, std::less<>>;
/// partitionValues: a JSON null (or an empty string) is a null value.
using PartitionValues = std::map<std::string, std::optional<std::string>, std::less<>>;

struct Protocol {
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 2;
  /// Present iff min_reader_version is 3 / min_writer_version is 7.
  std::optional<std::vector<std::string>> reader_features;
  std::optional<std::vector<std::string>> writer_features;

  bool operator==(const Protocol&) const = default;
};

struct Metadata {
  std::string id;
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::string format_provider = "parquet";
  StringMap format_options;
  /// Spark StructType JSON.
  std::string schema_string;
  std::vector<std::string> partition_columns;
  /// Table properties; every value a string.
  StringMap configuration;
  std::optional<int64_t> created_time;

  bool operator==(const Metadata&) const = default;
};

struct AddFile {
  /// Relative to the table root and URI-encoded, or an absolute URI.
  std::string path;
  PartitionValues partition_values;
  int64_t size = 0;
  int64_t modification_time = 0;
  bool data_change = true;
  /// The stats JSON text, as logged.
  std::optional<std::string> stats;
  std::optional<StringMap> tags;
  /// The deletionVector descriptor object, as logged (deletion_vector.h reads it).
  std::optional<JsonValue> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  std::optional<std::string> clustering_provider;
};

struct RemoveFile {
  std::string path;
  std::optional<int64_t> deletion_timestamp;
  bool data_change = true;
  std::optional<bool> extended_file_metadata;
  std::optional<PartitionValues> partition_values;
  std::optional<int64_t> size;
  std::optional<std::string> stats;
  std::optional<StringMap> tags;
  std::optional<JsonValue> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
};

struct Txn {
  std::string app_id;
  int64_t version = 0;
  std::optional<int64_t> last_updated;
};

struct DomainMetadata {
  std::string domain;
  std::string configuration;
  bool removed = false;
};

/// commitInfo is free-form: kept as the JSON object it is.
struct CommitInfo {
  JsonValue value;

  std::optional<int64_t> timestamp() const;
  std::optional<int64_t> in_commit_timestamp() const;
  std::string operation() const;
};

/// A V2 checkpoint's own header, and the sidecar files it points to.
struct CheckpointMetadata {
  int64_t version = 0;
};
struct Sidecar {
  std::string path;
  int64_t size_in_bytes = 0;
  int64_t modification_time = 0;
};

/// Change data files (`cdc`): read so they are known, never applied to the table's state.
struct AddCdcFile {
  std::string path;
};

using Action = std::variant<Protocol, Metadata, AddFile, RemoveFile, Txn, DomainMetadata,
                            CommitInfo, CheckpointMetadata, Sidecar, AddCdcFile>;

/// The one spelling of a data file's `path` (an add's or remove's, URI-encoded) that replay
/// compares, as Delta canonicalizes paths: a path is a URI, so `file:/x`, `file:///x`,
/// `file://localhost/x` and `/x` are one file; percent-escapes are decoded once (`a%20b` is
/// `a b`; a malformed escape is kept as written); a relative path is put under `table_root`
/// (itself canonicalized; left relative when `table_root` is empty); `.`, `..` and repeated or
/// trailing slashes are dropped. A URI of another scheme or host keeps them (`s3://b/x`).
std::string CanonicalFilePath(std::string_view table_root, std::string_view path);

/// The key a file is known by in replay: CanonicalFilePath(table_root, path) and its deletion
/// vector's unique id (storageType + pathOrInlineDv, plus "@offset" when it has one).
/// `table_root` should be absolute (TableRootForKeys), so that a relative and an absolute path
/// of one file meet.
std::string FileKey(std::string_view table_root, std::string_view path,
                    const std::optional<JsonValue>& deletion_vector);

/// The table root FileKey resolves relative paths against: `root` as an absolute path (a
/// relative one lexically under the working directory) or a URI.
std::string TableRootForKeys(std::string_view root);

/// Read one action from a parsed JSON object (a commit line or a checkpoint row, whose other
/// action columns are null). nullopt for an action sluice does not know (ignored, as the
/// protocol says). kInvalidArgument, naming the action and field, when a known action lacks a
/// required field or holds a field of the wrong type.
Result<std::optional<Action>> ActionFromJson(const JsonValue& line);

/// Every action of one row of a checkpoint (a row may hold at most one, but be lenient).
Result<std::vector<Action>> ActionsFromCheckpointRow(const JsonValue& row);

/// Read a commit file (newline-delimited JSON, one action per line). Errors name `file` and the
/// line number. Blank lines are skipped; a last line without its newline is accepted when it
/// parses (Delta Spark writes one; other writers do not).
Result<std::vector<Action>> ParseCommit(std::string_view text, std::string_view file);

/// One action as its single JSON line, without the newline, keys in Delta Spark's order.
std::string ActionToJson(const Action& action);

/// A whole commit: each action on its own line, each line ended by '\n'.
std::string CommitText(const std::vector<Action>& actions);

/// The action's name in the log ("add", "metaData", ...).
std::string_view ActionName(const Action& action);

}  // namespace sluice::table
