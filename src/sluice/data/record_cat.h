// Printing records of any format as JSON lines (`sluice cat`): JSON lines and documents, CSV,
// Parquet and Avro container files, each record one compact JSON object per line, with a column
// projection and a row limit.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/data/file_runs.h"

namespace sluice::data {

struct CatOptions {
  std::shared_ptr<FileSystem> fs = LocalFileSystem();
  /// The input's format; nullopt: each file's own, from its name and first bytes.
  std::optional<RecordFormat> format;
  /// Columns to keep, as field paths (`a`, `b.c`): a nested path keeps that member inside its
  /// struct. Empty: every column.
  std::vector<std::string> columns;
  /// Stop after this many records in all (nullopt: no limit).
  std::optional<uint64_t> limit;
  /// CSV: header, separator, null and empty values.
  CsvRunOptions csv;
};

/// Write the records of `files` to `out`, in order. JSON lines pass through as written (blank
/// lines skipped) unless projected, when they are re-written compactly; CSV rows become objects
/// of strings named by the header (the null value reads as null); Parquet rows are written in
/// the form docs/formats/parquet.md gives, Avro records in the shape OpenAvroRows gives
/// (data/avro_container.h). A line that is not a JSON object is an error naming
/// its file and line. Returns the number of records written.
Result<uint64_t> CatFiles(const std::vector<std::string>& files, const CatOptions& options,
                          ByteSink& out);

}  // namespace sluice::data
