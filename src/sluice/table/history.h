// A table's history, as Delta's DESCRIBE HISTORY gives it: one entry per version still in the
// log, newest first, with what the commit said of itself (commitInfo) and what it did (files,
// rows, protocol, and the schema, properties and partitioning its metaData changed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/evolution/diff.h"
#include "sluice/schema/schema.h"
#include "sluice/table/actions.h"
#include "sluice/table/column_mapping.h"

namespace sluice::table {

/// A table property a commit set, changed or unset.
struct PropertyChange {
  std::string key;
  /// nullopt: the property was not set before.
  std::optional<std::string> before;
  /// nullopt: the commit unset it.
  std::optional<std::string> after;
};

/// The schema a commit's metaData replaced, and with what.
struct SchemaChange {
  /// nullptr when the commit created the table, or when the metaData before it is no longer in
  /// the log (see HistoryEntry::previous_unknown).
  schema::SchemaPtr before;
  schema::SchemaPtr after;
  /// evolution::Diff(before, after); at the table's creation, every field added; empty when
  /// the schema before is unknown.
  evolution::SchemaDiff diff;
  /// Columns renamed under column mapping (same column id, new name); the diff is taken after
  /// them, so a rename is not a removal and an addition.
  std::vector<ColumnRename> renames;
};

/// One version of the table.
struct HistoryEntry {
  int64_t version = 0;
  /// When it was committed, as CommitTimestamps dates it (the in-commit timestamp where the
  /// table enables them, else the commit file's time): what Delta's history reports, and the
  /// time `--timestamp` travels by.
  int64_t timestamp_ms = 0;
  /// The commitInfo's own timestamp field, when there is one.
  std::optional<int64_t> commit_info_timestamp_ms;
  /// commitInfo.operation ("WRITE", "SET TBLPROPERTIES", ...); empty without a commitInfo.
  std::string operation;
  /// commitInfo.operationParameters and operationMetrics as logged (objects; empty when absent).
  JsonValue operation_parameters = JsonValue::Object();
  JsonValue operation_metrics = JsonValue::Object();
  std::optional<int64_t> read_version;
  std::optional<bool> is_blind_append;
  std::optional<std::string> engine_info;

  /// Rows in the files the commit added: the sum of their stats.numRecords when every add has
  /// one, else operationMetrics.numOutputRows; nullopt when neither says.
  std::optional<int64_t> rows_added;
  int64_t files_added = 0;
  int64_t files_removed = 0;
  /// The sizes of the added files, summed.
  int64_t bytes_added = 0;

  /// The commit holds a protocol / metaData action that differs from the one before it (or
  /// whose predecessor is unknown).
  bool protocol_changed = false;
  bool metadata_changed = false;
  /// The protocol before and after, when protocol_changed (before: nullopt at the creation or
  /// when unknown).
  std::optional<Protocol> protocol_before;
  std::optional<Protocol> protocol_after;
  /// The commit is the table's first metaData.
  bool created = false;
  /// The metaData (or protocol) before this commit lies in versions the log no longer holds, so
  /// what changed cannot be told: schema_change has no diff and property changes are not
  /// listed.
  bool previous_unknown = false;
  /// When the metaData changed the schema (or created it).
  std::optional<SchemaChange> schema_change;
  /// When the metaData's schemaString does not parse: why.
  std::optional<std::string> schema_error;
  /// Properties set, changed or unset, by key.
  std::vector<PropertyChange> property_changes;
  /// When the partition columns changed: before and after.
  std::optional<std::pair<std::vector<std::string>, std::vector<std::string>>> partition_change;
};

/// The history of the table at `root`: every version whose commit file is in the log (after a
/// log cleanup, only those), newest first. One pass over the commits, oldest first, tracking
/// the protocol and metaData; where the log starts after version 0, the state before is read
/// from a checkpoint at the version before the first commit present, or before the first
/// commit after a checkpoint. kNotFound when there is no table; kInvalidArgument naming the file
/// and line for a commit that does not parse.
Result<std::vector<HistoryEntry>> TableHistory(FileSystem& fs, std::string_view root);

}  // namespace sluice::table
