// What `sluice cat --meta` shows about a Parquet file: its footer in readable terms, one entry
// per row group and column chunk, with statistics rendered as canonical values (value_text.h).
// Rendering is the report module's (report/parquet_render.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/file_reader.h"
#include "sluice/parquet/metadata.h"

namespace sluice::parquet {

struct ColumnChunkSummary {
  std::string path;  // dotted element names (path_in_schema)
  PhysicalType physical_type = PhysicalType::kInt32;
  /// The annotation as the schema text writes it ("STRING", "DECIMAL(10,2)"); "" for none.
  std::string logical_type;
  Codec codec = Codec::kUncompressed;
  std::vector<Encoding> encodings;
  int64_t num_values = 0;
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  int64_t compressed_size = 0;
  int64_t uncompressed_size = 0;
  /// Statistics as canonical JSON values ("12.50", "\"abc\""); absent when the file has none
  /// the column's order makes trustworthy, or they do not decode.
  std::optional<std::string> min;
  std::optional<std::string> max;
  std::optional<int64_t> dictionary_page_offset;
  int64_t data_page_offset = 0;
};

struct RowGroupSummary {
  int64_t num_rows = 0;
  int64_t total_byte_size = 0;  // uncompressed
  std::optional<int64_t> total_compressed_size;
  std::vector<ColumnChunkSummary> columns;
};

struct ParquetFileSummary {
  std::string path;
  uint64_t file_size = 0;
  int32_t version = 0;
  int64_t num_rows = 0;
  std::optional<std::string> created_by;
  std::vector<KeyValue> key_value_metadata;
  /// The schema in parquet-mr's message type text (schema_text.h), ending in a newline.
  std::string schema_text;
  std::vector<RowGroupSummary> row_groups;
};

/// Summarize an open file (its footer only; no page is read).
ParquetFileSummary Summarize(const FileReader& reader);

}  // namespace sluice::parquet
