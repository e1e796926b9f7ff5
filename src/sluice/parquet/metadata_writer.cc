// Encoding FileMetaData and PageHeader (metadata.h); reading them is metadata.cc. Fields are
// written in ascending id order, so every header takes the one-byte form; optional fields that
// are absent and optional lists that are empty are left out.
#include <utility>

#include "sluice/parquet/metadata.h"
#include "sluice/parquet/thrift_compact.h"

namespace sluice::parquet {
namespace {

using thrift::CompactWriter;
using thrift::Type;

int32_t Int(auto e) { return static_cast<int32_t>(e); }

void WriteOptionalBinary(CompactWriter& w, int16_t id, const std::optional<std::string>& v) {
  if (v) w.BinaryField(id, *v);
}
void WriteOptionalI32(CompactWriter& w, int16_t id, const std::optional<int32_t>& v) {
  if (v) w.I32Field(id, *v);
}
void WriteOptionalI64(CompactWriter& w, int16_t id, const std::optional<int64_t>& v) {
  if (v) w.I64Field(id, *v);
}
void WriteOptionalBool(CompactWriter& w, int16_t id, const std::optional<bool>& v) {
  if (v) w.BoolField(id, *v);
}

// A list field of structs, each written by `write_one(w, item)`.
template <class T, class WriteOne>
void WriteStructList(CompactWriter& w, int16_t id, const std::vector<T>& items,
                     WriteOne write_one) {
  w.BeginField(Type::kList, id);
  w.BeginList(Type::kStruct, items.size());
  for (const T& item : items) write_one(w, item);
}

void WriteStatistics(CompactWriter& w, const Statistics& s) {
  w.BeginStruct();
  WriteOptionalBinary(w, 1, s.max);
  WriteOptionalBinary(w, 2, s.min);
  WriteOptionalI64(w, 3, s.null_count);
  WriteOptionalI64(w, 4, s.distinct_count);
  WriteOptionalBinary(w, 5, s.max_value);
  WriteOptionalBinary(w, 6, s.min_value);
  WriteOptionalBool(w, 7, s.is_max_value_exact);
  WriteOptionalBool(w, 8, s.is_min_value_exact);
  w.EndStruct();
}

void WriteStatisticsField(CompactWriter& w, int16_t id, const std::optional<Statistics>& s) {
  if (!s) return;
  w.BeginField(Type::kStruct, id);
  WriteStatistics(w, *s);
}

void WriteKeyValue(CompactWriter& w, const KeyValue& kv) {
  w.BeginStruct();
  w.BinaryField(1, kv.key);
  WriteOptionalBinary(w, 2, kv.value);
  w.EndStruct();
}

void WriteEmptyStruct(CompactWriter& w, int16_t id) {
  w.BeginField(Type::kStruct, id);
  w.BeginStruct();
  w.EndStruct();
}

void WriteLogicalType(CompactWriter& w, const LogicalType& t) {
  w.BeginStruct();
  // The union's member id is the kind's value.
  w.BeginField(Type::kStruct, static_cast<int16_t>(t.kind));
  w.BeginStruct();
  switch (t.kind) {
    case LogicalType::Kind::kDecimal:
      w.I32Field(1, t.decimal_scale);
      w.I32Field(2, t.decimal_precision);
      break;
    case LogicalType::Kind::kTime:
    case LogicalType::Kind::kTimestamp:
      w.BoolField(1, t.adjusted_to_utc);
      w.BeginField(Type::kStruct, 2);
      w.BeginStruct();
      WriteEmptyStruct(w, static_cast<int16_t>(t.unit));
      w.EndStruct();
      break;
    case LogicalType::Kind::kInteger:
      w.I8Field(1, t.bit_width);
      w.BoolField(2, t.is_signed);
      break;
    case LogicalType::Kind::kString:
    case LogicalType::Kind::kMap:
    case LogicalType::Kind::kList:
    case LogicalType::Kind::kEnum:
    case LogicalType::Kind::kDate:
    case LogicalType::Kind::kUnknown:
    case LogicalType::Kind::kJson:
    case LogicalType::Kind::kBson:
    case LogicalType::Kind::kUuid:
    case LogicalType::Kind::kFloat16:
    case LogicalType::Kind::kVariant:
    case LogicalType::Kind::kGeometry:
    case LogicalType::Kind::kGeography:
      break;
  }
  w.EndStruct();
  w.EndStruct();
}

void WriteSchemaElement(CompactWriter& w, const SchemaElement& e) {
  w.BeginStruct();
  if (e.type) w.I32Field(1, Int(*e.type));
  WriteOptionalI32(w, 2, e.type_length);
  if (e.repetition) w.I32Field(3, Int(*e.repetition));
  w.BinaryField(4, e.name);
  WriteOptionalI32(w, 5, e.num_children);
  if (e.converted_type) w.I32Field(6, Int(*e.converted_type));
  WriteOptionalI32(w, 7, e.scale);
  WriteOptionalI32(w, 8, e.precision);
  WriteOptionalI32(w, 9, e.field_id);
  if (e.logical_type) {
    w.BeginField(Type::kStruct, 10);
    WriteLogicalType(w, *e.logical_type);
  }
  w.EndStruct();
}

void WriteColumnMetaData(CompactWriter& w, const ColumnMetaData& m) {
  w.BeginStruct();
  w.I32Field(1, Int(m.type));
  w.BeginField(Type::kList, 2);
  w.BeginList(Type::kI32, m.encodings.size());
  for (Encoding e : m.encodings) w.I32(Int(e));
  w.BeginField(Type::kList, 3);
  w.BeginList(Type::kBinary, m.path_in_schema.size());
  for (const std::string& name : m.path_in_schema) w.Binary(name);
  w.I32Field(4, Int(m.codec));
  w.I64Field(5, m.num_values);
  w.I64Field(6, m.total_uncompressed_size);
  w.I64Field(7, m.total_compressed_size);
  if (!m.key_value_metadata.empty()) WriteStructList(w, 8, m.key_value_metadata, WriteKeyValue);
  w.I64Field(9, m.data_page_offset);
  WriteOptionalI64(w, 10, m.index_page_offset);
  WriteOptionalI64(w, 11, m.dictionary_page_offset);
  WriteStatisticsField(w, 12, m.statistics);
  if (!m.encoding_stats.empty()) {
    WriteStructList(w, 13, m.encoding_stats, [](CompactWriter& w, const PageEncodingStats& s) {
      w.BeginStruct();
      w.I32Field(1, Int(s.page_type));
      w.I32Field(2, Int(s.encoding));
      w.I32Field(3, s.count);
      w.EndStruct();
    });
  }
  w.EndStruct();
}

void WriteColumnChunk(CompactWriter& w, const ColumnChunk& c) {
  w.BeginStruct();
  WriteOptionalBinary(w, 1, c.file_path);
  w.I64Field(2, c.file_offset);
  if (c.meta_data) {
    w.BeginField(Type::kStruct, 3);
    WriteColumnMetaData(w, *c.meta_data);
  }
  w.EndStruct();
}

void WriteRowGroup(CompactWriter& w, const RowGroup& g) {
  w.BeginStruct();
  WriteStructList(w, 1, g.columns, WriteColumnChunk);
  w.I64Field(2, g.total_byte_size);
  w.I64Field(3, g.num_rows);
  if (!g.sorting_columns.empty()) {
    WriteStructList(w, 4, g.sorting_columns, [](CompactWriter& w, const SortingColumn& s) {
      w.BeginStruct();
      w.I32Field(1, s.column_idx);
      w.BoolField(2, s.descending);
      w.BoolField(3, s.nulls_first);
      w.EndStruct();
    });
  }
  WriteOptionalI64(w, 5, g.file_offset);
  WriteOptionalI64(w, 6, g.total_compressed_size);
  if (g.ordinal) w.I16Field(7, *g.ordinal);
  w.EndStruct();
}

}  // namespace

std::string WriteFileMetaData(const FileMetaData& meta) {
  std::string out;
  CompactWriter w(out);
  w.BeginStruct();
  w.I32Field(1, meta.version);
  WriteStructList(w, 2, meta.schema, WriteSchemaElement);
  w.I64Field(3, meta.num_rows);
  WriteStructList(w, 4, meta.row_groups, WriteRowGroup);
  if (!meta.key_value_metadata.empty()) {
    WriteStructList(w, 5, meta.key_value_metadata, WriteKeyValue);
  }
  WriteOptionalBinary(w, 6, meta.created_by);
  if (!meta.column_orders.empty()) {
    w.BeginField(Type::kList, 7);
    w.BeginList(Type::kStruct, meta.column_orders.size());
    for (const bool type_order : meta.column_orders) {
      // false has no member of its own: an empty union, which reads back as false.
      w.BeginStruct();
      if (type_order) WriteEmptyStruct(w, 1);
      w.EndStruct();
    }
  }
  w.EndStruct();
  return out;
}

void WritePageHeader(const PageHeader& header, std::string& out) {
  CompactWriter w(out);
  w.BeginStruct();
  w.I32Field(1, Int(header.type));
  w.I32Field(2, header.uncompressed_page_size);
  w.I32Field(3, header.compressed_page_size);
  WriteOptionalI32(w, 4, header.crc);
  if (const auto& h = header.data_page_header) {
    w.BeginField(Type::kStruct, 5);
    w.BeginStruct();
    w.I32Field(1, h->num_values);
    w.I32Field(2, Int(h->encoding));
    w.I32Field(3, Int(h->definition_level_encoding));
    w.I32Field(4, Int(h->repetition_level_encoding));
    WriteStatisticsField(w, 5, h->statistics);
    w.EndStruct();
  }
  if (const auto& h = header.dictionary_page_header) {
    w.BeginField(Type::kStruct, 7);
    w.BeginStruct();
    w.I32Field(1, h->num_values);
    w.I32Field(2, Int(h->encoding));
    WriteOptionalBool(w, 3, h->is_sorted);
    w.EndStruct();
  }
  if (const auto& h = header.data_page_header_v2) {
    w.BeginField(Type::kStruct, 8);
    w.BeginStruct();
    w.I32Field(1, h->num_values);
    w.I32Field(2, h->num_nulls);
    w.I32Field(3, h->num_rows);
    w.I32Field(4, Int(h->encoding));
    w.I32Field(5, h->definition_levels_byte_length);
    w.I32Field(6, h->repetition_levels_byte_length);
    w.BoolField(7, h->is_compressed);
    WriteStatisticsField(w, 8, h->statistics);
    w.EndStruct();
  }
  w.EndStruct();
}

}  // namespace sluice::parquet
