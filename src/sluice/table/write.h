// Writing records into a Delta table as Delta Spark's DataFrame writer does: append or
// overwrite, with schema enforcement by default, mergeSchema, type widening and overwriteSchema
// decided by `evolution`'s Delta rules, every record validated on the way in (rescue and
// quarantine as `sluice validate`), CHECK constraints and NOT NULL honoured, and one atomic
// commit. A write the rules reject is a result, not an error: nothing is committed and the
// result says why, in Delta's words.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/data/file_runs.h"
#include "sluice/evolution/table_merge.h"
#include "sluice/parquet/metadata.h"
#include "sluice/schema/schema.h"
#include "sluice/table/actions.h"
#include "sluice/table/constraints.h"
#include "sluice/table/data_files.h"
#include "sluice/table/transaction.h"

namespace sluice::table {

enum class WriteMode : uint8_t { kAppend, kOverwrite };

struct TableWriteOptions {
  WriteMode mode = WriteMode::kAppend;
  /// mergeSchema: new columns (nested too) join the table.
  bool merge_schema = false;
  /// Turn delta.enableTypeWidening on (if it is not) and let mergeSchema widen types.
  bool type_widening = false;
  /// overwriteSchema (with kOverwrite): the data's schema and partitioning replace the table's.
  bool overwrite_schema = false;
  /// Overwrite only the rows this predicate holds for (Delta's replaceWhere); the written rows
  /// must all hold it. Only predicates over partition columns are supported.
  std::optional<std::string> replace_where;
  /// The data's schema, as a DataFrame's (`--schema`); else Parquet inputs' footers, Avro
  /// inputs' writer schemas, or, for JSON and CSV, the fields the records hold.
  schema::SchemaPtr data_schema;
  /// A new table's (or, with overwrite_schema, the new) partition columns.
  std::vector<std::string> partition_by;
  /// A new table's properties and CHECK constraints (name, expression).
  StringMap properties;
  std::vector<std::pair<std::string, std::string>> constraints;

  data::RecordFormat format = data::RecordFormat::kJsonLines;
  data::ParseMode parse_mode = data::ParseMode::kPermissive;
  data::CsvRunOptions csv;
  unsigned threads = 0;
  /// Used when the table has a column of this name: rescued values go there.
  std::string rescued_column = "_rescued_data";
  OnViolation on_violation = OnViolation::kFail;

  /// The files' codec; default: the table's delta.parquet.compression.codec, else snappy.
  std::optional<parquet::Codec> codec;
  size_t row_group_bytes = size_t{128} << 20;
  uint64_t max_rows_per_file = 0;
  /// An idempotent writer's (appId, version) pairs: when the table holds every appId at or
  /// above its version the write is skipped; otherwise they are committed with the data.
  std::vector<Txn> txns;
  /// Keys the schema lacks are dropped, not rescued nor quarantined (Spark's reader with a
  /// schema; Auto Loader's `none` mode without a rescued-data column).
  bool ignore_unknown_fields = false;
  /// Whether the data's keys and columns must match the table's names exactly. Delta matches
  /// them ignoring case (spark.sql.caseSensitive=false) and writes the table's spelling; Auto
  /// Loader reads case-sensitively (readerCaseSensitive), rescuing a key of another case.
  bool case_sensitive = false;
  /// A value that does not fit its column's type, with no rescued-data column to keep it: the
  /// record is quarantined (true) or the whole write refused, as a DataFrame write is (false).
  bool quarantine_mismatches = false;
  /// commitInfo: the operation (default "WRITE") and parameters and metrics added to the
  /// writer's own (strings, as Delta writes them).
  std::string operation;
  std::vector<std::pair<std::string, std::string>> operation_parameters;
  std::vector<std::pair<std::string, std::string>> operation_metrics;
  /// Called once the data files are written and the commit is about to be attempted, with the
  /// quarantine lines and the validation report of the write: a caller that must not lose them
  /// keeps them durably first. An error stops the write before the commit.
  std::function<Status(std::string_view quarantine, const data::ValidateReport& report)>
      before_commit;
  /// Called with the snapshot the write reads (nullptr for a new table) before anything is
  /// written: an error (a precondition the caller's state needs) stops the write.
  std::function<Status(const Snapshot* snapshot)> check_snapshot;
  /// operationMetrics also account for the records read: numSourceRows, numRescuedRows,
  /// numQuarantinedRows.
  bool validation_metrics = false;
  std::function<void(const data::Progress&)> progress;
};

enum class WriteOutcome : uint8_t {
  kCommitted,
  /// The rules refused it (enforcement, constraints, NOT NULL, failfast): nothing committed.
  kRejected,
  /// The txn version was already committed: nothing to do.
  kSkipped,
};

struct TableWriteResult {
  WriteOutcome outcome = WriteOutcome::kCommitted;
  bool created = false;
  int64_t read_version = -1;
  int64_t version = -1;
  /// What the write did to the schema (Delta's rules), and why it was refused if it was.
  evolution::MergeVerdict verdict = evolution::MergeVerdict::kUnchanged;
  std::vector<evolution::TableChange> changes;
  std::vector<evolution::TableViolation> violations;
  std::optional<ConstraintViolation> constraint_failure;
  /// Why the write was refused, in Delta's words (the first reason), when it was.
  std::string rejection;
  /// The validation of the records written (the last pass, when a schema change made a second).
  data::ValidateReport report;
  uint64_t rows_written = 0;
  uint64_t files_added = 0;
  uint64_t files_removed = 0;
  uint64_t bytes_written = 0;
  /// Rows sent to quarantine for breaking a CHECK constraint (--on-violation quarantine).
  uint64_t constraint_quarantined = 0;
  CommitResult commit;
  schema::SchemaPtr schema;
};

/// Write `inputs` to the table at `root` (created when there is none, as df.write.save does).
/// Bad records go to `quarantine`. Errors for what stops the write from running (unreadable
/// input, I/O, a table whose protocol sluice cannot honour, a conflicting concurrent commit);
/// everything Delta would refuse is a kRejected result.
Result<TableWriteResult> WriteTable(std::shared_ptr<FileSystem> fs, const std::string& root,
                                    const std::vector<std::string>& inputs,
                                    const TableWriteOptions& options, ByteSink& quarantine);

/// The metadata and protocol of a new table of `schema`: a fresh id, the properties and
/// constraints as configuration, column mapping assigned when the properties ask for it, the
/// lowest protocol its features need (raised to delta.minReaderVersion/minWriterVersion, which
/// are not stored). kInvalidArgument for a partition column the schema lacks, named twice or
/// taking every column, a property Delta refuses (properties.h), a constraint that does not
/// compile; kUnimplemented for a feature sluice does not honour that the properties or schema
/// turn on (CheckWritable).
Result<std::pair<Protocol, Metadata>> NewTableMetadata(
    const schema::Schema& schema, const std::vector<std::string>& partition_by,
    const StringMap& properties,
    const std::vector<std::pair<std::string, std::string>>& constraints);

/// The metadata after a schema change: the new schema (column mapping ids and physical names
/// given to new fields, delta.typeChanges recorded on widened ones, maxColumnId moved on), and
/// the protocol it needs from `current`.
Result<std::pair<Protocol, Metadata>> EvolvedMetadata(const Protocol& current,
                                                      const Metadata& metadata,
                                                      const schema::Schema& before,
                                                      const schema::Schema& after, int64_t version);

}  // namespace sluice::table
