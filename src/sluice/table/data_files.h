// The data files of one write: validated records (JSON lines, as the validator writes them, with
// the table's logical names) shredded into Parquet files under the table's root, one set per
// partition directory, partition columns left out of the files as Delta and Spark leave them;
// rows that break a CHECK constraint stop the write or go to quarantine; each finished file
// becomes an add action with its stats.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/data/parquet_sink.h"
#include "sluice/data/parquet_stage.h"
#include "sluice/parquet/file_writer.h"
#include "sluice/schema/schema.h"
#include "sluice/table/actions.h"
#include "sluice/table/constraints.h"

namespace sluice::table {

enum class OnViolation : uint8_t { kFail, kQuarantine };

struct DataFileOptions {
  std::shared_ptr<FileSystem> fs;
  std::string root;
  /// The table's logical schema after the write (column mapping metadata included).
  schema::SchemaPtr schema;
  std::vector<std::string> partition_columns;
  /// Name the files' columns by their physical names (column mapping name or id mode).
  bool physical_names = false;
  parquet::WriterOptions writer;
  /// The table's configuration (stats options: delta.dataSkipping*).
  StringMap configuration;
  /// Write "tightBounds" in the stats (Delta Spark does on tables that support deletion
  /// vectors).
  bool tight_bounds = false;
  /// A file is closed after this many rows (0: one file per partition).
  uint64_t max_rows_per_file = 0;
  /// Unpartitioned tables without constraints: write this many files at once, each on a thread
  /// of its own, the validator's output blocks dealt to them in turn (as Spark writes a file
  /// per task). 1: one file, written on the caller's thread.
  unsigned parallel_files = 1;
  const TableConstraints* constraints = nullptr;
  /// replaceWhere: every row must hold this predicate (a constraint named "replaceWhere"); a
  /// row that does not stops the write whatever on_violation says.
  const TableConstraints* replace_where = nullptr;
  OnViolation on_violation = OnViolation::kFail;
  /// Where rows that break a constraint go under kQuarantine, as quarantine JSON lines.
  ByteSink* quarantine = nullptr;
};

/// A ByteSink for the validator's output. Not thread-safe (the validator writes in order).
class DataFileSink final : public ByteSink, public data::ParquetStage {
 public:
  static Result<std::unique_ptr<DataFileSink>> Open(DataFileOptions options);
  ~DataFileSink() override;

  Status Write(std::string_view bytes) override;
  /// The validator's stage (data::ParquetStage) on the fast path (unpartitioned, no
  /// constraints, no file size limit): the valid records of each block become a column
  /// fragment on the worker that checked them, and fragments are appended to the files whole.
  /// Null otherwise: records come through Write.
  data::RecordStage* stage();
  Status Take(std::unique_ptr<data::StagedRecords> staged) override;
  /// Close every file; the add actions are then in adds().
  Status Finish();
  /// Remove every file written so far (a rejected or failed write).
  void Abort();

  const std::vector<AddFile>& adds() const { return adds_; }
  uint64_t rows() const { return rows_; }
  uint64_t bytes() const { return bytes_; }
  /// Rows sent to quarantine for breaking a constraint.
  uint64_t quarantined() const { return quarantined_; }
  /// The first violation, which stopped the write under OnViolation::kFail.
  const std::optional<ConstraintViolation>& failure() const { return failure_; }

 private:
  struct Open_;
  struct Worker;
  DataFileSink(DataFileOptions options, std::shared_ptr<const data::ParquetRecordPlan> plan);
  Status StartWorkers();
  Status StopWorkers();
  Status WriteLine(std::string_view line);
  Result<Open_*> FileFor(const std::string& directory, const PartitionValues& values);
  Status CloseFile(Open_& file);

  DataFileOptions options_;
  bool slow_path_ = false;  // partitions or constraints: each line parsed
  std::string pending_;
  std::map<std::string, std::unique_ptr<Open_>> open_;
  std::vector<std::unique_ptr<Worker>> workers_;
  size_t next_worker_ = 0;
  std::vector<std::string> written_;
  std::vector<AddFile> adds_;
  uint64_t rows_ = 0;
  uint64_t bytes_ = 0;
  uint64_t quarantined_ = 0;
  std::optional<ConstraintViolation> failure_;
  int file_counter_ = 0;
};

/// A data file's name as Spark names them: "part-00000-<uuid>-c000.snappy.parquet".
std::string DataFileName(int index, std::string_view codec_suffix);

}  // namespace sluice::table
