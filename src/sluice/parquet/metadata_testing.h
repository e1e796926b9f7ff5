// For tests only: footers and page headers with every field set, and a footer written field by
// field through CompactWriter, so that tests can add unknown or bad fields where they like.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sluice/parquet/metadata.h"
#include "sluice/parquet/thrift_compact.h"

namespace sluice::parquet::testing {

/// A SchemaElement for a leaf of `type` named `name`, optional.
inline SchemaElement Leaf(std::string name, PhysicalType type) {
  SchemaElement e;
  e.type = type;
  e.repetition = Repetition::kOptional;
  e.name = std::move(name);
  return e;
}

/// A leaf annotated with each LogicalType member the model has, with parameters.
inline std::vector<SchemaElement> LeavesOfEveryLogicalType() {
  using K = LogicalType::Kind;
  std::vector<SchemaElement> leaves;
  const K kinds[] = {K::kString, K::kMap,       K::kList,    K::kEnum,     K::kDecimal,  K::kDate,
                     K::kTime,   K::kTimestamp, K::kInteger, K::kUnknown,  K::kJson,     K::kBson,
                     K::kUuid,   K::kFloat16,   K::kVariant, K::kGeometry, K::kGeography};
  int i = 0;
  for (K kind : kinds) {
    SchemaElement e = Leaf("l" + std::to_string(i++), PhysicalType::kByteArray);
    LogicalType t;
    t.kind = kind;
    if (kind == K::kDecimal) {
      t.decimal_scale = 2;
      t.decimal_precision = 9;
    } else if (kind == K::kTime) {
      t.adjusted_to_utc = true;
      t.unit = TimeUnit::kMillis;
    } else if (kind == K::kTimestamp) {
      t.adjusted_to_utc = false;
      t.unit = TimeUnit::kNanos;
    } else if (kind == K::kInteger) {
      t.bit_width = 16;
      t.is_signed = false;
    }
    e.logical_type = t;
    leaves.push_back(std::move(e));
  }
  return leaves;
}

inline Statistics FullStatistics() {
  Statistics s;
  s.max = std::string("\xff\x00", 2);
  s.min = "";
  s.null_count = 3;
  s.distinct_count = 17;
  s.max_value = "zzz";
  s.min_value = "aaa";
  s.is_max_value_exact = true;
  s.is_min_value_exact = false;
  return s;
}

/// A footer with every field of every struct set (two row groups, all logical types, converted
/// types, statistics, key-value metadata, encoding stats, sorting columns, column orders).
inline FileMetaData FullFooter() {
  FileMetaData m;
  m.version = 2;
  SchemaElement root;
  root.name = "spark_schema";
  SchemaElement fixed = Leaf("fixed", PhysicalType::kFixedLenByteArray);
  fixed.type_length = 16;
  fixed.repetition = Repetition::kRequired;
  fixed.converted_type = ConvertedType::kDecimal;
  fixed.scale = 4;
  fixed.precision = 30;
  fixed.field_id = 7;
  SchemaElement group;
  group.repetition = Repetition::kRepeated;
  group.name = "group";
  group.num_children = 1;
  group.converted_type = ConvertedType::kList;
  SchemaElement inner = Leaf("inner", PhysicalType::kInt96);
  std::vector<SchemaElement> leaves = LeavesOfEveryLogicalType();
  root.num_children = static_cast<int32_t>(2 + leaves.size());
  m.schema = {root, fixed, group, inner};
  m.schema.insert(m.schema.end(), leaves.begin(), leaves.end());
  m.num_rows = 1'000'000'000'000;
  for (int g = 0; g < 2; ++g) {
    RowGroup rg;
    for (int c = 0; c < 3; ++c) {
      ColumnChunk chunk;
      if (c == 1) chunk.file_path = "other.parquet";
      chunk.file_offset = 4 + c * 1000 + g * 100000;
      ColumnMetaData meta;
      meta.type = c == 0 ? PhysicalType::kDouble : PhysicalType::kBoolean;
      meta.encodings = {
          Encoding::kPlain,          Encoding::kPlainDictionary,   Encoding::kRle,
          Encoding::kBitPacked,      Encoding::kDeltaBinaryPacked, Encoding::kDeltaLengthByteArray,
          Encoding::kDeltaByteArray, Encoding::kRleDictionary,     Encoding::kByteStreamSplit};
      meta.path_in_schema = {"group", "inner" + std::to_string(c)};
      meta.codec = static_cast<Codec>(c + 5 * g);
      meta.num_values = -1;
      meta.total_uncompressed_size = int64_t{1} << 40;
      meta.total_compressed_size = 99;
      meta.key_value_metadata = {{"k", "v"}, {"no value", std::nullopt}};
      meta.data_page_offset = chunk.file_offset;
      meta.index_page_offset = 12;
      meta.dictionary_page_offset = 13;
      meta.statistics = FullStatistics();
      meta.encoding_stats = {{PageType::kDictionaryPage, Encoding::kPlain, 1},
                             {PageType::kDataPageV2, Encoding::kRleDictionary, 250}};
      if (c != 2) chunk.meta_data = meta;
      rg.columns.push_back(chunk);
    }
    rg.total_byte_size = 123456;
    rg.num_rows = 500'000'000'000;
    rg.sorting_columns = {{0, true, false}, {2, false, true}};
    rg.file_offset = 4;
    rg.total_compressed_size = 9999;
    rg.ordinal = static_cast<int16_t>(g);
    m.row_groups.push_back(std::move(rg));
  }
  m.key_value_metadata = {{"org.apache.spark.sql.parquet.row.metadata", "{\"type\":\"struct\"}"},
                          {"empty", ""}};
  m.created_by = "parquet-mr version 1.12.3 (build x)";
  m.column_orders = {true, false, true};
  return m;
}

/// Page headers of every kind, every field set.
inline std::vector<PageHeader> PageHeadersOfEveryKind() {
  std::vector<PageHeader> headers;
  PageHeader v1;
  v1.type = PageType::kDataPage;
  v1.uncompressed_page_size = 1 << 20;
  v1.compressed_page_size = 4096;
  v1.crc = -123456789;
  v1.data_page_header = DataPageHeader{1000, Encoding::kRleDictionary, Encoding::kRle,
                                       Encoding::kBitPacked, FullStatistics()};
  headers.push_back(v1);
  PageHeader dict;
  dict.type = PageType::kDictionaryPage;
  dict.uncompressed_page_size = 10;
  dict.compressed_page_size = 10;
  dict.dictionary_page_header = DictionaryPageHeader{3, Encoding::kPlainDictionary, true};
  headers.push_back(dict);
  PageHeader v2;
  v2.type = PageType::kDataPageV2;
  v2.uncompressed_page_size = 0;
  v2.compressed_page_size = 0;
  v2.data_page_header_v2 =
      DataPageHeaderV2{7, 2, 5, Encoding::kDeltaBinaryPacked, 3, 4, false, FullStatistics()};
  headers.push_back(v2);
  PageHeader v2_minimal;
  v2_minimal.type = PageType::kDataPageV2;
  v2_minimal.uncompressed_page_size = 20;
  v2_minimal.compressed_page_size = 10;
  v2_minimal.data_page_header_v2 =
      DataPageHeaderV2{7, 2, 5, Encoding::kPlain, 0, 0, true, std::nullopt};
  headers.push_back(v2_minimal);
  PageHeader index;
  index.type = PageType::kIndexPage;
  index.uncompressed_page_size = 5;
  index.compressed_page_size = 5;
  headers.push_back(index);
  return headers;
}

/// Hooks to add fields at the end of pieces of a small footer (one leaf INT32 column "a", one
/// row group). A field written again with an id the struct already has replaces its value.
struct FooterEdits {
  std::function<void(thrift::CompactWriter&)> file;
  std::function<void(thrift::CompactWriter&)> leaf;
  std::function<void(thrift::CompactWriter&)> column_meta;
  std::function<void(thrift::CompactWriter&)> column_chunk;
};

/// The small footer with `edits`, written field by field.
inline std::string SmallFooter(const FooterEdits& edits = {}) {
  using thrift::Type;
  std::string out;
  thrift::CompactWriter w(out);
  w.BeginStruct();
  w.I32Field(1, 1);
  w.BeginField(Type::kList, 2);
  w.BeginList(Type::kStruct, 2);
  w.BeginStruct();
  w.BinaryField(4, "root");
  w.I32Field(5, 1);
  w.EndStruct();
  w.BeginStruct();
  w.I32Field(1, 1);  // INT32
  w.I32Field(3, 1);  // OPTIONAL
  w.BinaryField(4, "a");
  if (edits.leaf) edits.leaf(w);
  w.EndStruct();
  w.I64Field(3, 5);
  w.BeginField(Type::kList, 4);
  w.BeginList(Type::kStruct, 1);
  w.BeginStruct();
  w.BeginField(Type::kList, 1);
  w.BeginList(Type::kStruct, 1);
  w.BeginStruct();
  w.I64Field(2, 4);
  w.BeginField(Type::kStruct, 3);
  w.BeginStruct();
  w.I32Field(1, 1);
  w.BeginField(Type::kList, 2);
  w.BeginList(Type::kI32, 2);
  w.I32(0);
  w.I32(3);
  w.BeginField(Type::kList, 3);
  w.BeginList(Type::kBinary, 1);
  w.Binary("a");
  w.I32Field(4, 1);  // SNAPPY
  w.I64Field(5, 5);
  w.I64Field(6, 40);
  w.I64Field(7, 30);
  w.I64Field(9, 4);
  if (edits.column_meta) edits.column_meta(w);
  w.EndStruct();
  if (edits.column_chunk) edits.column_chunk(w);
  w.EndStruct();
  w.I64Field(2, 40);
  w.I64Field(3, 5);
  w.EndStruct();
  if (edits.file) edits.file(w);
  w.EndStruct();
  return out;
}

/// What SmallFooter() without edits decodes to.
inline FileMetaData SmallFooterValue() {
  FileMetaData m;
  m.version = 1;
  SchemaElement root;
  root.name = "root";
  root.num_children = 1;
  SchemaElement leaf = Leaf("a", PhysicalType::kInt32);
  m.schema = {root, leaf};
  m.num_rows = 5;
  RowGroup rg;
  ColumnChunk chunk;
  chunk.file_offset = 4;
  ColumnMetaData meta;
  meta.type = PhysicalType::kInt32;
  meta.encodings = {Encoding::kPlain, Encoding::kRle};
  meta.path_in_schema = {"a"};
  meta.codec = Codec::kSnappy;
  meta.num_values = 5;
  meta.total_uncompressed_size = 40;
  meta.total_compressed_size = 30;
  meta.data_page_offset = 4;
  chunk.meta_data = meta;
  rg.columns = {chunk};
  rg.total_byte_size = 40;
  rg.num_rows = 5;
  m.row_groups = {rg};
  return m;
}

}  // namespace sluice::parquet::testing
