// Writing a Parquet file: rows are appended to the current row group's column writers; each
// column's buffer is encoded into pages (dictionary, statistics, compression) segment by segment
// on worker threads while the row group fills; a cut row group is written to the sink in order
// once its chunks are finished; Close writes the footer.
//
// File layout (parquet-format README): "PAR1", each row group's column chunks one after the
// other, the FileMetaData in Thrift's compact protocol, its length as 4 little-endian bytes,
// "PAR1". Data pages are v1 with RLE levels; see column_writer.h for the pages of a chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/parquet/column_writer.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/schema_map.h"
#include "sluice/schema/schema.h"

namespace sluice::parquet {

/// "sluice version <the project's version>": the footer's created_by unless options say
/// otherwise.
std::string_view DefaultCreatedBy();

struct WriterOptions {
  /// Codec, level, dictionary and page sizes of every column chunk (SNAPPY by default).
  ColumnEncodeOptions columns;
  /// A row group is cut once the values and levels appended to it reach this many bytes (the
  /// default of parquet-mr's parquet.block.size, which counts encoded bytes instead), or once it
  /// holds max_rows_per_row_group rows (0: no row limit).
  size_t row_group_bytes = size_t{128} << 20;
  int64_t max_rows_per_row_group = 0;
  /// A row group is encoded while it fills: once a column buffers this many bytes, they are
  /// handed over as a segment and become data pages (the last page of a segment ends with it),
  /// so a row group in memory is mostly its compressed pages, not its values.
  size_t segment_bytes = size_t{1} << 20;
  /// With threads > 1, the caller encodes too (or waits) while the segments handed over and not
  /// yet encoded pass this many bytes.
  size_t max_pending_bytes = size_t{8} << 20;
  /// Threads that encode, the caller's included: 1 encodes each segment on the caller's thread
  /// where it is (one buffer per column); N > 1 starts N - 1 workers (segments of one column are
  /// encoded in order, columns side by side), keeps up to N - 1 cut row groups finishing while the
  /// caller fills the next, and writes row groups in order.
  int threads = 1;
  /// The footer's created_by; empty means DefaultCreatedBy().
  std::string created_by;
  /// The footer's key_value_metadata (Spark's `org.apache.spark.sql.parquet.row.metadata`, ...).
  std::vector<KeyValue> key_value_metadata;
};

/// A file's schema as the writer needs it: the flattened SchemaElement list of the footer (the
/// root first) and one ColumnSpec per leaf, in the list's depth-first leaf order.
struct FileSchema {
  std::vector<SchemaElement> elements;
  std::vector<ColumnSpec> columns;
};

/// The writer's view of a mapped schema: its elements, and a spec per leaf with the leaf's
/// statistics order (decimals stored as bytes compare by value).
FileSchema FileSchemaFor(const ParquetSchema& schema);

/// Writes one Parquet file. Use: Open, then for each row append each leaf's entries to
/// column(i) and call EndRow; then Close. Not thread-safe (its workers are internal).
class FileWriter {
 public:
  /// Start a file on `sink`, which must outlive the writer; "PAR1" is written at once.
  /// kInvalidArgument for a schema whose leaves and specs disagree in number, a codec the
  /// writer lacks, a FIXED_LEN_BYTE_ARRAY spec without a positive width or threads < 1; the
  /// sink's error if it fails.
  static Result<std::unique_ptr<FileWriter>> Open(FileSchema schema, ByteSink& sink,
                                                  WriterOptions options = {});
  /// The same on a file the writer owns: Close commits it; a writer destroyed without a
  /// successful Close leaves nothing under the file's name.
  static Result<std::unique_ptr<FileWriter>> Open(FileSchema schema,
                                                  std::unique_ptr<WritableFile> file,
                                                  WriterOptions options = {});
  /// Start a file for a model schema, mapped as ParquetSchema::FromModel maps it (its lossy
  /// notes, such as null-typed fields left out, are in notes()). Errors as FromModel's and the
  /// Open above.
  static Result<std::unique_ptr<FileWriter>> Open(schema::SchemaPtr schema, ByteSink& sink,
                                                  WriterOptions options = {});
  static Result<std::unique_ptr<FileWriter>> Open(schema::SchemaPtr schema,
                                                  std::unique_ptr<WritableFile> file,
                                                  WriterOptions options = {});

  /// What mapping the model schema to Parquet lost (only for the schema::SchemaPtr forms).
  const std::vector<schema::LossyNote>& notes() const;

  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  size_t num_columns() const;
  /// The current row group's writer of leaf `i`.
  ColumnWriter& column(size_t i) { return columns()[i]; }
  /// The current row group's writers, one per leaf; valid until the next EndRow,
  /// FlushRowGroup or Close (a cut row group moves to the encoders).
  ColumnWriter* columns();
  /// Finish a row: every column has its entries for it. May cut the row group, and then
  /// returns the first error of encoding or writing (the writer is then failed: every later
  /// call returns that error).
  Status EndRow();
  /// Append `rows` rows filled apart (on other threads) in column writers of this file's specs,
  /// one per leaf: their entries are copied to the current row group's, as if appended here.
  /// The row group is cut afterwards if it is full, so it ends on such a boundary.
  /// kInvalidArgument when a column does not hold `rows` rows, or with
  /// max_rows_per_row_group set (a row limit would have to cut inside the rows).
  Status AppendRows(const ColumnWriter* columns, int64_t rows);
  /// Cut the current row group now (no-op when it is empty).
  Status FlushRowGroup();
  /// Encode and write what is buffered, then the footer; commit an owned file. Call once.
  Status Close();

  /// Rows ended so far.
  int64_t num_rows() const;
  /// Bytes written to the sink so far (the file's size after Close).
  int64_t bytes_written() const;
  /// The footer, complete after Close.
  const FileMetaData& metadata() const;

  struct Impl;

 private:
  explicit FileWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Write the footer ("PAR1" excluded at the front: the metadata, its 4-byte length and "PAR1")
/// to `out`.
void AppendFooter(const FileMetaData& meta, std::string& out);

}  // namespace sluice::parquet
