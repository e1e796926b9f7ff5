// Reading a Parquet file: open it through a FileSystem, check its frame ("PAR1" at both ends,
// the footer length), decode the footer, check every column chunk's place in the file, and read
// rows a row group at a time as canonical JSON objects (value_text.h for the values,
// record_assembler.h for the nesting).
//
// Memory: the footer, and while a row group is read its selected column chunks (mapped files
// are not copied) plus a few pages' decoded levels and text per column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/parquet/assembly_plan.h"
#include "sluice/parquet/column_reader.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/row_screen.h"

namespace sluice::parquet {

/// Receives each row's JSON text, valid during the call; an error stops the read and is
/// returned as it is.
using RowCallback = std::function<Status(std::string_view json_row)>;

/// Where one column chunk lies in the file.
struct ChunkRange {
  uint64_t offset = 0;  // its first page: the dictionary page when there is one
  uint64_t size = 0;
};

/// An open Parquet file. Reading is not thread-safe; open one reader per thread.
class FileReader {
 public:
  /// Open `path` on `fs` and check it: kInvalidArgument naming the file and byte offset for a
  /// file too short to be Parquet, a wrong magic number, a footer length past the file's start,
  /// a malformed footer or schema, a column chunk whose offsets run past the file or into the
  /// footer, a chunk that does not match its column; kUnimplemented for encrypted files and
  /// chunks stored in other files; the file system's error when it cannot be opened.
  static Result<std::unique_ptr<FileReader>> Open(std::shared_ptr<FileSystem> fs,
                                                  const std::string& path,
                                                  ReaderOptions options = {});
  ~FileReader();

  const std::string& path() const { return path_; }
  uint64_t file_size() const { return file_size_; }
  const FileMetaData& metadata() const { return meta_; }
  /// The file's schema in the model (schema_map.h), with what it could not hold in notes().
  const schema::SchemaPtr& schema() const { return schema_.parquet->model(); }
  const std::vector<schema::LossyNote>& notes() const { return schema_.notes; }
  /// The schema mapping: leaf descriptors and node tree.
  const ParquetSchema& parquet_schema() const { return *schema_.parquet; }
  /// Leaf columns and the assembly tree as the reader uses them.
  const ReadSchema& read_schema() const { return schema_; }
  int num_row_groups() const { return static_cast<int>(meta_.row_groups.size()); }
  /// Rows of all row groups (their num_rows summed; INT64_MAX if that overflows).
  int64_t num_rows() const;
  /// Where column `column` of row group `row_group` lies (both checked by Open).
  const ChunkRange& chunk_range(int row_group, size_t column) const {
    return chunks_[static_cast<size_t>(row_group)][column];
  }

  /// Read the rows of one row group, only the projection's columns, calling `each` per row.
  /// kInvalidArgument for a row group out of range, a projection path that names no column, or
  /// (naming the file, row group, column and byte offset) pages that cannot be decoded and
  /// columns whose levels disagree.
  Status ReadRows(int row_group, const Projection& projection, const RowCallback& each);
  /// Read every row group in order.
  Status ReadAllRows(const Projection& projection, const RowCallback& each);
  /// As ReadRows and ReadAllRows, with the rows a batch at a time (record_assembler.h): for
  /// callers that write the rows out as JSON lines, one call per few thousand rows.
  Status ReadRowBatches(int row_group, const Projection& projection, const RowBatchCallback& each);
  Status ReadAllRowBatches(const Projection& projection, const RowBatchCallback& each);
  /// Every column read with `screen`'s checks (row_screen.h), or nullopt when the screen does
  /// not apply to this file.
  std::optional<ScreenedPlan> PlanScreen(const RowScreen& screen) const {
    return PlanRowScreen(schema_, screen);
  }
  /// As ReadRowBatches, by a plan from PlanScreen: each batch comes with its rows that did not
  /// pass the screen. `text_free`: values are screened without being printed, and the batches'
  /// text means nothing (for a caller that only needs the verdicts).
  Status ReadScreenedRowBatches(int row_group, const AssemblyPlan& plan,
                                const ScreenedBatchCallback& each, bool text_free = false);

 private:
  FileReader() = default;
  Status ReadFrame();
  Status CheckRowGroups();
  Status ReadRowGroup(int row_group, const AssemblyPlan& plan, const ScreenedBatchCallback& each,
                      bool text_free = false);
  Result<std::string_view> Bytes(uint64_t offset, uint64_t size, std::string& buffer) const;

  std::shared_ptr<FileSystem> fs_;
  std::string path_;
  ReaderOptions options_;
  std::unique_ptr<RandomAccessFile> file_;
  std::optional<std::string_view> mapped_;
  uint64_t file_size_ = 0;
  uint64_t footer_start_ = 0;  // first byte of the footer
  FileMetaData meta_;
  ReadSchema schema_;
  std::vector<std::vector<ChunkRange>> chunks_;
  std::vector<ColumnBuffers> buffers_;  // per column, reused by each row group's readers
};

}  // namespace sluice::parquet
