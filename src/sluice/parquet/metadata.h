// Parquet's file metadata: the footer (FileMetaData) and page headers as plain structs, with
// the Thrift field ids of parquet.thrift in comments. Reading and writing them in Thrift's
// compact protocol is metadata.cc and metadata_writer.cc over thrift_compact.h; nothing here
// knows the encoding.
//
// Optional Thrift fields are std::optional; fields sluice neither reads nor writes (encryption,
// bloom filters, page indexes, size statistics, geospatial statistics, Statistics.nan_count) are
// skipped on read and never written. Members of parquet.thrift the enums here leave out on
// purpose: the ALP encoding (10; dropped from ColumnMetaData.encodings, an error in a page
// header) and the FILE logical type (19; like any LogicalType member unknown here, it reads as
// no logical type). The parameters of VARIANT, GEOMETRY and GEOGRAPHY are skipped.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"

namespace sluice::parquet {

/// Physical types (parquet.thrift `Type`).
enum class PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};
std::string_view PhysicalTypeName(PhysicalType t);  // "BOOLEAN", "INT32", ...

/// The legacy annotations (`ConvertedType`), still written beside LogicalType for old readers.
enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

enum class TimeUnit : uint8_t { kMillis = 1, kMicros = 2, kNanos = 3 };  // union field ids

/// The `LogicalType` union: which member is set, and its parameters.
struct LogicalType {
  enum class Kind : uint8_t {
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,  // always null
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
    kVariant = 16,
    kGeometry = 17,
    kGeography = 18,
  };
  Kind kind = Kind::kString;
  int32_t decimal_scale = 0;          // kDecimal: DecimalType.1
  int32_t decimal_precision = 0;      // kDecimal: DecimalType.2
  bool adjusted_to_utc = false;       // kTime, kTimestamp: .1
  TimeUnit unit = TimeUnit::kMicros;  // kTime, kTimestamp: .2
  int8_t bit_width = 32;              // kInteger: IntType.1
  bool is_signed = true;              // kInteger: IntType.2
  bool operator==(const LogicalType&) const = default;
};

/// One node of the flattened schema tree (depth-first, children counted by num_children).
struct SchemaElement {
  std::optional<PhysicalType> type;             // 1; absent for groups
  std::optional<int32_t> type_length;           // 2; FIXED_LEN_BYTE_ARRAY width
  std::optional<Repetition> repetition;         // 3; absent only for the root
  std::string name;                             // 4
  std::optional<int32_t> num_children;          // 5; set for groups
  std::optional<ConvertedType> converted_type;  // 6
  std::optional<int32_t> scale;                 // 7
  std::optional<int32_t> precision;             // 8
  std::optional<int32_t> field_id;              // 9
  std::optional<LogicalType> logical_type;      // 10
  bool operator==(const SchemaElement&) const = default;
};

enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};
std::string_view EncodingName(Encoding e);  // "PLAIN", "RLE_DICTIONARY", ...

enum class Codec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,  // the deprecated Hadoop framing
  kZstd = 6,
  kLz4Raw = 7,
};
std::string_view CodecName(Codec c);  // "UNCOMPRESSED", "SNAPPY", ...

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

/// Column or page statistics. min_value/max_value (5, 6) are the current fields, compared by
/// the column's logical order; min/max (2, 1) are the deprecated signed-byte-order ones, to be
/// trusted only when the type's order makes them so. The codec reads and writes whatever is set;
/// sluice's file writer never sets min/max.
struct Statistics {
  std::optional<std::string> max;          // 1 (deprecated)
  std::optional<std::string> min;          // 2 (deprecated)
  std::optional<int64_t> null_count;       // 3
  std::optional<int64_t> distinct_count;   // 4
  std::optional<std::string> max_value;    // 5
  std::optional<std::string> min_value;    // 6
  std::optional<bool> is_max_value_exact;  // 7
  std::optional<bool> is_min_value_exact;  // 8
  bool operator==(const Statistics&) const = default;
};

struct DataPageHeader {
  int32_t num_values = 0;                               // 1
  Encoding encoding = Encoding::kPlain;                 // 2
  Encoding definition_level_encoding = Encoding::kRle;  // 3
  Encoding repetition_level_encoding = Encoding::kRle;  // 4
  std::optional<Statistics> statistics;                 // 5
  bool operator==(const DataPageHeader&) const = default;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;                // 1
  Encoding encoding = Encoding::kPlain;  // 2
  std::optional<bool> is_sorted;         // 3
  bool operator==(const DictionaryPageHeader&) const = default;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;                     // 1
  int32_t num_nulls = 0;                      // 2
  int32_t num_rows = 0;                       // 3
  Encoding encoding = Encoding::kPlain;       // 4
  int32_t definition_levels_byte_length = 0;  // 5
  int32_t repetition_levels_byte_length = 0;  // 6
  bool is_compressed = true;                  // 7 (default true)
  std::optional<Statistics> statistics;       // 8
  bool operator==(const DataPageHeaderV2&) const = default;
};

struct PageHeader {
  PageType type = PageType::kDataPage;                         // 1
  int32_t uncompressed_page_size = 0;                          // 2
  int32_t compressed_page_size = 0;                            // 3
  std::optional<int32_t> crc;                                  // 4
  std::optional<DataPageHeader> data_page_header;              // 5
  std::optional<DictionaryPageHeader> dictionary_page_header;  // 7
  std::optional<DataPageHeaderV2> data_page_header_v2;         // 8
  bool operator==(const PageHeader&) const = default;
};

struct KeyValue {
  std::string key;                   // 1
  std::optional<std::string> value;  // 2
  bool operator==(const KeyValue&) const = default;
};

struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;  // 1
  Encoding encoding = Encoding::kPlain;      // 2
  int32_t count = 0;                         // 3
  bool operator==(const PageEncodingStats&) const = default;
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::kInt32;       // 1
  std::vector<Encoding> encodings;                // 2
  std::vector<std::string> path_in_schema;        // 3
  Codec codec = Codec::kUncompressed;             // 4
  int64_t num_values = 0;                         // 5
  int64_t total_uncompressed_size = 0;            // 6
  int64_t total_compressed_size = 0;              // 7
  std::vector<KeyValue> key_value_metadata;       // 8
  int64_t data_page_offset = 0;                   // 9
  std::optional<int64_t> index_page_offset;       // 10
  std::optional<int64_t> dictionary_page_offset;  // 11
  std::optional<Statistics> statistics;           // 12
  std::vector<PageEncodingStats> encoding_stats;  // 13
  bool operator==(const ColumnMetaData&) const = default;
};

struct ColumnChunk {
  std::optional<std::string> file_path;     // 1; sluice reads only chunks in the same file
  int64_t file_offset = 0;                  // 2 (deprecated; written as the chunk's start)
  std::optional<ColumnMetaData> meta_data;  // 3
  bool operator==(const ColumnChunk&) const = default;
};

struct SortingColumn {
  int32_t column_idx = 0;    // 1
  bool descending = false;   // 2
  bool nulls_first = false;  // 3
  bool operator==(const SortingColumn&) const = default;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;              // 1
  int64_t total_byte_size = 0;                   // 2 (uncompressed)
  int64_t num_rows = 0;                          // 3
  std::vector<SortingColumn> sorting_columns;    // 4
  std::optional<int64_t> file_offset;            // 5
  std::optional<int64_t> total_compressed_size;  // 6
  std::optional<int16_t> ordinal;                // 7
  bool operator==(const RowGroup&) const = default;
};

struct FileMetaData {
  int32_t version = 1;                       // 1
  std::vector<SchemaElement> schema;         // 2
  int64_t num_rows = 0;                      // 3
  std::vector<RowGroup> row_groups;          // 4
  std::vector<KeyValue> key_value_metadata;  // 5
  std::optional<std::string> created_by;     // 6
  /// 7: one entry per leaf column; true = TYPE_ORDER, false = any other member of the
  /// ColumnOrder union or none (false is written as an empty union).
  std::vector<bool> column_orders;
  bool operator==(const FileMetaData&) const = default;
};

/// Bounds on what a footer or page header may make sluice allocate, checked before use.
struct MetadataLimits {
  size_t max_list_size = size_t{1} << 24;    // elements in any one list
  size_t max_string_size = size_t{1} << 26;  // bytes in one string or binary
  size_t max_nesting = 64;                   // nested structs (and lists, maps when skipped)
  size_t max_total_bytes = size_t{1} << 30;  // strings and list elements in memory, summed
};

/// Decode a footer (the bytes between the data and the length + "PAR1"); bytes after the
/// struct (a signed footer's signature) are ignored. Errors are kInvalidArgument, "parquet
/// footer: byte N: ...", N the offset into `bytes`: truncation, a limit exceeded, a field of
/// the wrong type, a required field missing (naming the struct and field), a physical type,
/// repetition, converted type, codec or page encoding the enums here do not have.
Result<FileMetaData> ReadFileMetaData(std::string_view bytes, const MetadataLimits& limits = {});
/// Encode a footer.
std::string WriteFileMetaData(const FileMetaData& meta);

/// Decode a page header at the start of `bytes`; `*header_size` (if not null) gets its encoded
/// length. Besides ReadFileMetaData's errors ("parquet page header: byte N: ..."), negative page
/// sizes and a data, dictionary or v2 page without its own header are errors.
Result<PageHeader> ReadPageHeader(std::string_view bytes, size_t* header_size,
                                  const MetadataLimits& limits = {});
/// Append an encoded page header to `out`.
void WritePageHeader(const PageHeader& header, std::string& out);

}  // namespace sluice::parquet
