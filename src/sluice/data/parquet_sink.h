// Writing validated records to Parquet: each JSON line the validator wrote (RecordValidator's
// output) is shredded into the columns of a parquet::FileWriter with Dremel's repetition and
// definition levels.
//
/// Contract:
/// - Lines are JSON objects as the validator writes them: a schema's fields by name, in any
///   order (an absent field is null), nested objects for structs, arrays, objects for maps
///   (keys as the key type's text), and the rescued-data column as a string.
/// - Values are converted from the validator's forms: integers; floats from numbers or "NaN",
///   "Infinity", "-Infinity", "INF"...; decimals to their unscaled value at the type's scale,
///   rounded half-up (INT32, INT64 or big-endian bytes as the Parquet schema says); dates and
///   timestamps with Spark's lenient parsers (a timestamp without a zone is UTC, an integer
///   timestamp is seconds since the epoch); times of day; binary from base64; uuids from text.
/// - A line that is not such a record (malformed JSON, a key outside the schema, a value the
///   validator would not have written) is an error naming the line and the field path; the sink
///   is then failed: the row group holds part of the line, so every later call returns the
///   error and nothing is committed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/data/leaf_tape.h"
#include "sluice/parquet/file_writer.h"
#include "sluice/parquet/schema_map.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::data {

class ValidationPlan;

struct ParquetPlanOptions {
  /// The rescued-data column the lines carry as a last field (RecordValidator's output with a
  /// rescued column); it is added to the file's schema as a nullable string when the schema
  /// lacks it. Empty: the lines have no such column.
  std::string rescued_column;
  /// How the schema maps to Parquet (physical names for Delta column mapping, root name).
  parquet::WriteSchemaOptions schema;
};

/// A schema compiled for writing records: the Parquet schema, the leaf columns and, per node,
/// what the shredder needs. Immutable; share it between sinks and threads, so that opening a
/// file (one per --max-rows-per-file roll) costs no schema work.
class ParquetRecordPlan {
 public:
  /// kInvalidArgument for a schema Parquet cannot hold (see ParquetSchema::FromModel), or a
  /// rescued column the schema holds with a type other than string.
  static Result<std::shared_ptr<const ParquetRecordPlan>> Compile(
      schema::SchemaPtr schema, const ParquetPlanOptions& options = {});

  /// The schema of the files: the given one, plus the rescued column when it was added.
  const schema::SchemaPtr& file_schema() const { return parquet_.model(); }
  const parquet::ParquetSchema& parquet_schema() const { return parquet_; }
  const parquet::FileSchema& writer_schema() const { return writer_schema_; }
  /// What the mapping to Parquet lost (null-typed fields are left out of the files).
  const std::vector<schema::LossyNote>& notes() const { return notes_; }

  /// How the nodes of `plan` (a validator's, for the same schema) correspond to this plan's,
  /// for lines the validator writes with a LeafTape; null when they do not correspond (another
  /// schema, or lines with a rescued column this plan lacks or without one it has): such lines
  /// are read from their text.
  std::shared_ptr<const TapeMap> TapeMapFor(const ValidationPlan& plan) const;

  struct Node;
  const std::vector<Node>& nodes() const { return nodes_; }
  ~ParquetRecordPlan();

 private:
  explicit ParquetRecordPlan(parquet::ParquetSchema parquet);

  parquet::ParquetSchema parquet_;
  parquet::FileSchema writer_schema_;
  std::vector<schema::LossyNote> notes_;
  std::vector<Node> nodes_;  // parallel to parquet_.nodes()
};

namespace internal {
class LineShredder;
}  // namespace internal

/// Records shredded apart from the file they go to: a validation worker shreds the valid lines
/// of its block into a fragment, and the file's thread appends fragments in order
/// (ParquetRecordSink::AppendFragment), which copies column buffers rather than parsing JSON.
/// Not thread-safe: one thread at a time; Clear it to fill it again.
class ParquetFragment {
 public:
  explicit ParquetFragment(std::shared_ptr<const ParquetRecordPlan> plan);
  ~ParquetFragment();
  ParquetFragment(const ParquetFragment&) = delete;
  ParquetFragment& operator=(const ParquetFragment&) = delete;

  /// Shred every '\n'-separated line of `lines` (empty lines are skipped) after the rows held.
  /// Errors as ParquetRecordSink::Append, lines numbered from the fragment's first; after an
  /// error the fragment holds part of a line and must be cleared before it is used again.
  Status AppendLines(std::string_view lines);
  /// The same for lines a validator wrote with `tape` (made with this plan's TapeMapFor): a line
  /// the tape has a record for is stored from its entries, any other from its text.
  Status AppendLines(std::string_view lines, const LeafTape& tape);
  /// Drop the rows, keeping the buffers' memory.
  void Clear();

  int64_t num_rows() const { return rows_; }
  /// An AppendLines failed since the last Clear.
  bool failed() const { return failed_; }
  const std::shared_ptr<const ParquetRecordPlan>& plan() const { return plan_; }
  /// One writer per leaf of the plan.
  const std::vector<parquet::ColumnWriter>& columns() const { return columns_; }

 private:
  std::shared_ptr<const ParquetRecordPlan> plan_;
  std::vector<parquet::ColumnWriter> columns_;
  std::unique_ptr<internal::LineShredder> shredder_;
  int64_t rows_ = 0;
  bool failed_ = false;
};

/// Writes records to one Parquet file. Not thread-safe (the file writer's encoder threads are
/// its own).
class ParquetRecordSink {
 public:
  /// Start a file on `sink` (which must outlive the sink). Errors as parquet::FileWriter::Open.
  static Result<std::unique_ptr<ParquetRecordSink>> Open(
      std::shared_ptr<const ParquetRecordPlan> plan, ByteSink& sink,
      parquet::WriterOptions options = {});
  /// The same on an owned file, committed by a successful Close.
  static Result<std::unique_ptr<ParquetRecordSink>> Open(
      std::shared_ptr<const ParquetRecordPlan> plan, std::unique_ptr<WritableFile> file,
      parquet::WriterOptions options = {});

  ~ParquetRecordSink();
  ParquetRecordSink(const ParquetRecordSink&) = delete;
  ParquetRecordSink& operator=(const ParquetRecordSink&) = delete;

  /// Shred one record (a JSON object; a trailing newline is allowed) into the file.
  /// kInvalidArgument for a line that is not a record of the schema, kInternal for a value the
  /// validator accepts but that does not convert; the writer's errors (I/O) as they come.
  Status Append(std::string_view json_line);
  /// Append every '\n'-separated line of `lines` (empty lines are skipped).
  Status AppendLines(std::string_view lines);
  /// Append the rows of a fragment of the same plan, after the rows appended so far. A row
  /// group is then cut only between fragments (parquet::FileWriter::AppendRows): the writer
  /// options must not set max_rows_per_row_group. kInvalidArgument for a fragment of another
  /// plan or one that failed.
  Status AppendFragment(const ParquetFragment& fragment);
  /// Write what is buffered and the footer; commit an owned file.
  Status Close();

  int64_t num_rows() const;
  int64_t bytes_written() const;
  /// The footer, complete after Close.
  const parquet::FileMetaData& metadata() const;

 private:
  struct Impl;
  explicit ParquetRecordSink(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::data
