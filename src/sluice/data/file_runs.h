// Whole-file runs over record files: validation (valid records out, bad ones to quarantine, a
// report that accounts for every record) and inference. Files are read in blocks cut on line
// boundaries and checked on worker threads; results are merged in file order, so the output,
// the quarantine and the report are the same for any thread count. Memory stays flat: at most
// a few blocks per thread are in flight (a single line longer than a block is read whole).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/data/csv_infer.h"
#include "sluice/data/csv_reader.h"
#include "sluice/data/json_infer.h"
#include "sluice/data/validator.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::data {

/// jsonl: one JSON object per line (Spark's default). json: each file is one JSON document, an
/// object or an array of objects (Spark's multiLine). csv: see CsvRunOptions.
/// kParquet: Parquet files, whose rows are read as JSON lines (data/parquet_source.h).
/// kAvro: Avro object container files, whose records are read as JSON lines
/// (data/avro_container.h).
enum class RecordFormat : uint8_t { kJsonLines, kJson, kCsv, kParquet, kAvro };

/// "jsonl", "json", "csv", "parquet", "avro"; kInvalidArgument otherwise.
Result<RecordFormat> ParseRecordFormat(std::string_view name);
/// The format a file name suggests: .csv/.tsv -> csv, .parquet (or the magic "PAR1" first) ->
/// parquet, .avro (or the magic "Obj\x01" first) -> avro, .json -> json when the file's first
/// non-blank byte is '[', else jsonl.
RecordFormat GuessRecordFormat(const std::string& path, std::string_view head);

struct CsvRunOptions {
  CsvOptions reader;
  /// The first record of each file names the columns (Spark's header=true). Without a header
  /// the columns are _c0, _c1, ... and map to the schema's fields by position.
  bool header = true;
  /// An unquoted value equal to this is null (Spark's nullValue).
  std::string null_value;
  /// What a quoted empty value ("") reads as (Spark's emptyValue).
  std::string empty_value;
};

/// How much of a file a worker takes at a time (a block ends at a line break; a longer line is
/// read whole).
inline constexpr size_t kDefaultBlockBytes = size_t{512} << 10;

/// Where output goes. Writes happen on the thread that called the run, in file order.
using ByteSink = sluice::ByteSink;

struct Progress {
  uint64_t bytes_done = 0;
  uint64_t bytes_total = 0;
  uint64_t records = 0;
};

/// Valid records in the form an output takes them (see RecordStage).
class StagedRecords {
 public:
  virtual ~StagedRecords() = default;
};

/// An output that takes the valid records in another form than their JSON lines, made on the
/// worker that checked them: the Parquet output shreds each block's lines into column buffers
/// there (ParquetFragment), rather than parsing every line again on one thread.
class RecordStage {
 public:
  virtual ~RecordStage() = default;
  /// The tape map for records checked with `plan` (ParquetRecordPlan::TapeMapFor), asked once
  /// per run; null (the default) when the stage reads lines from their text only.
  virtual std::shared_ptr<const TapeMap> TapeMapFor(const ValidationPlan& plan) {
    (void)plan;
    return nullptr;
  }
  /// On worker threads, several at once: the valid records of a block (or of part of one), as
  /// the JSON lines `out` would be given, and where their values lie when TapeMapFor gave a
  /// map (`tape` is then the lines' tape, else null). An error stops the run.
  virtual Result<std::unique_ptr<StagedRecords>> Stage(std::string_view lines,
                                                       const LeafTape* tape) = 0;
  /// On the thread that called the run, in file order. An error stops the run.
  virtual Status Take(std::unique_ptr<StagedRecords> staged) = 0;
};

struct ValidateRunOptions {
  /// Where the files are read from ("-" is standard input on any file system).
  std::shared_ptr<FileSystem> fs = LocalFileSystem();
  RecordFormat format = RecordFormat::kJsonLines;
  ParseMode mode = ParseMode::kPermissive;
  /// Worker threads; 0 means one per core. 1 runs everything on the calling thread.
  unsigned threads = 0;
  /// Block size for splitting files. Small enough that the blocks in flight (two per worker
  /// and two more) and their output stay in the caches: with 4 MiB blocks, handing blocks
  /// between threads cost more than scanning them (bench/README.md, the data plane).
  size_t block_bytes = kDefaultBlockBytes;
  CsvRunOptions csv;
  /// The rescued-data column in permissive mode (empty: none, rescue-worthy records are bad).
  std::string rescued_column = "_rescued_data";
  /// Keys outside the schema are new columns the caller allows (a contract's
  /// allowed_new_columns): kept in the rescued column, the record valid (ValidatorOptions).
  bool allow_new_columns = false;
  /// Keys outside the schema are dropped (ValidatorOptions::ignore_unknown_fields).
  bool ignore_unknown_fields = false;
  /// Keys and CSV columns that name a field ignoring case are that field
  /// (ValidatorOptions::match_fields_ignoring_case).
  bool match_fields_ignoring_case = false;
  /// Line numbers kept per violation in the report.
  size_t example_lines = 5;
  /// Parquet inputs: judge rows against the schema's types while they are decoded and check
  /// only those that do not pass (parquet/row_screen.h). The results are the same either way;
  /// off, every row is checked as JSON (tests compare the two).
  bool screen_parquet_rows = true;
  /// The valid records are not wanted (no output, or `-o /dev/null`): `out` is not written,
  /// and the Parquet rows the screen passes are not even printed as JSON.
  bool discard_valid = false;
  /// Valid records go to this stage rather than to `out` (which is then not written).
  RecordStage* stage = nullptr;
  std::function<void(const Progress&)> progress;
};

struct ViolationCount {
  std::string path;
  ViolationKind kind;
  uint64_t count = 0;
  /// The first few places, as (file index, line).
  std::vector<std::pair<uint32_t, uint64_t>> lines;
  bool operator==(const ViolationCount&) const = default;
};

/// Where a failfast run stopped.
struct FailFastStop {
  std::string file;
  uint64_t line = 0;
  uint64_t offset = 0;
  std::string path;
  std::string message;
  bool operator==(const FailFastStop&) const = default;
};

/// What a validation run did with every record; sluice::report renders it (JSON in
/// docs/formats/validation-report.md).
struct ValidateReport {
  std::vector<std::string> files;
  std::string format;
  std::string mode;
  uint64_t records_in = 0;
  uint64_t valid = 0;
  uint64_t rescued = 0;
  /// Valid records (not rescued) that carried allowed new columns, kept in the rescued column.
  uint64_t with_new_columns = 0;
  uint64_t quarantined = 0;
  uint64_t malformed = 0;
  uint64_t bytes = 0;
  /// Sorted by path, then kind.
  std::vector<ViolationCount> violations;
  std::optional<FailFastStop> stopped;
  /// records_in == valid + quarantined and rescued <= valid.
  bool invariant_holds() const { return records_in == valid + quarantined && rescued <= valid; }
  /// Clean: every record valid as it came.
  bool clean() const { return rescued == 0 && quarantined == 0; }
  bool operator==(const ValidateReport&) const = default;
};

/// Validate `files` against `schema` ("-" is standard input). Valid records (rescued ones
/// included) go to `out` as JSON lines, bad and malformed ones to `quarantine` as JSON lines
/// (docs/formats/quarantine.md). Errors only for what stops the run: unreadable files, a sink
/// that fails, a CSV run over a nested schema. A failfast stop is not an error: the report
/// says where.
Result<ValidateReport> ValidateFiles(const std::vector<std::string>& files,
                                     const schema::SchemaPtr& schema,
                                     const ValidateRunOptions& options, ByteSink& out,
                                     ByteSink& quarantine);

struct InferRunOptions {
  std::shared_ptr<FileSystem> fs = LocalFileSystem();
  RecordFormat format = RecordFormat::kJsonLines;
  unsigned threads = 0;
  size_t block_bytes = kDefaultBlockBytes;
  /// Spark's samplingRatio: each record is kept with this probability, decided by a hash of
  /// its position (deterministic, but not the rows Spark's sampler picks).
  double sampling_ratio = 1.0;
  JsonInferOptions json;
  CsvRunOptions csv;
  CsvInferOptions csv_infer;
  std::function<void(const Progress&)> progress;
};

struct InferResult {
  schema::SchemaPtr schema;
  uint64_t records = 0;
  uint64_t malformed = 0;
  /// What reading the inputs' own schemas could not carry over (Parquet footers, Avro writer
  /// schemas).
  std::vector<schema::LossyNote> notes;
};

/// Parquet inputs are not inferred from their rows: their footers' schemas are merged as Spark's
/// mergeSchema does (MergeParquetSchemas). Nor are Avro container files: their writer schemas
/// are merged as Auto Loader merges them (MergeAvroSchemas).
Result<InferResult> InferFiles(const std::vector<std::string>& files,
                               const InferRunOptions& options);

}  // namespace sluice::data
