// Parquet files as record input: a file's rows read as JSON lines, one row group at a time, so
// that validation runs over them exactly as over JSON lines (maps as JSON objects keyed by the
// key's text, the form the validator reads); and the schemas of several files merged as
// Spark's mergeSchema for Parquet merges them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/parquet/row_screen.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::data {

/// Whether `path` names a Parquet file: its name ends in .parquet, or `head` (its first bytes)
/// is Parquet's magic "PAR1".
bool IsParquetFile(const std::string& path, std::string_view head);

/// The lines of a Parquet file's JSON lines (OpenParquetRows) that did not pass a row screen
/// (parquet/row_screen.h), by their offsets in that text. The decoding thread records a line
/// before it hands the line on, so whoever reads the text finds its line's verdict here.
class ScreenedLines {
 public:
  explicit ScreenedLines(bool holds_null_only) : holds_null_only_(holds_null_only) {}
  /// Whether the file holds the screen's null-only field (RowScreen::null_only).
  bool holds_null_only() const { return holds_null_only_; }
  /// Record the line at `offset` as failed; offsets come in increasing order.
  void Fail(uint64_t offset) {
    std::lock_guard lock(mu_);
    failed_.push_back(offset);
  }
  /// The offsets of the failed lines in [begin, end), in order, into `out` (cleared first).
  void FailedIn(uint64_t begin, uint64_t end, std::vector<uint64_t>& out) const;

 private:
  const bool holds_null_only_;
  mutable std::mutex mu_;
  std::vector<uint64_t> failed_;
};

/// `path`'s rows as JSON lines, one per row, each ended by '\n'. Errors of the file (it is not
/// Parquet, a page does not decode) name the file and byte offset; they surface from Open or
/// from a Read.
Result<std::unique_ptr<SequentialFile>> OpenParquetRows(FileSystem& fs, const std::string& path);

/// As OpenParquetRows, with every row judged against `screen` as it is decoded. `*screened` is
/// set to the verdicts when the screen applies to the file, to null when it does not (then no
/// row is vouched for). `text_free`: the caller has no use for the text of the rows that pass,
/// and each comes as an empty line (the rows are screened without printing their values; a row
/// group with a row that fails is read again with text from there), and row groups are then
/// decoded on up to `threads` threads.
Result<std::unique_ptr<SequentialFile>> OpenParquetRows(
    FileSystem& fs, const std::string& path, const parquet::RowScreen& screen,
    std::shared_ptr<const ScreenedLines>* screened, bool text_free = false, int threads = 1);

/// How MergeParquetSchemas merges two files' types for one column.
enum class ParquetSchemaMerge : uint8_t {
  /// Spark's mergeSchema (StructType.merge): decimals of one scale take the larger precision;
  /// any other difference is kInvalidArgument. `sluice infer`, `validate`, `table append`.
  kSpark,
  /// Auto Loader's: the widest of the two types (internal::WiderAtomicType, the rule
  /// MergeAvroSchemas merges by: integers widen, to float64 beside a float, to a decimal
  /// holding both; decimals to one holding both; date to timestamp); two types with no wider
  /// one are kIncompatible. Ingest's inference, whose schema hints then win over the result.
  kAutoLoader,
};

/// The schema of each file's footer, merged in order as Spark's StructType.merge does for
/// Parquet's mergeSchema: fields matched by name, a field only some files have added at the
/// end (nullable), nullable where any file has it nullable, structs merged member by member,
/// array elements and map keys and values merged; atomic types that differ are merged by
/// `rule`, else an error naming the field and both files. `rows`, when given, gets the files'
/// rows summed.
Result<schema::Converted<schema::SchemaPtr>> MergeParquetSchemas(
    FileSystem& fs, const std::vector<std::string>& files, uint64_t* rows = nullptr,
    ParquetSchemaMerge rule = ParquetSchemaMerge::kSpark);

}  // namespace sluice::data
