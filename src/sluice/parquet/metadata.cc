// Decoding FileMetaData and PageHeader (metadata.h) from the compact protocol; encoding them is
// metadata_writer.cc, their names metadata_names.cc.
#include "sluice/parquet/metadata.h"

#include <fmt/format.h>

#include <initializer_list>
#include <utility>

#include "sluice/parquet/thrift_compact.h"

namespace sluice::parquet {
namespace {

using thrift::CompactReader;
using thrift::FieldHeader;
using thrift::Type;

// Which enum values the model has. Values outside them are errors where sluice must understand
// the value, and dropped where a list only informs (ColumnMetaData.encodings).
bool KnownPhysicalType(int32_t v) { return v >= 0 && v <= 7; }
bool KnownConvertedType(int32_t v) { return v >= 0 && v <= 21; }
bool KnownRepetition(int32_t v) { return v >= 0 && v <= 2; }
bool KnownEncoding(int32_t v) { return v == 0 || (v >= 2 && v <= 9); }
bool KnownCodec(int32_t v) { return v >= 0 && v <= 7; }
bool KnownPageType(int32_t v) { return v >= 0 && v <= 3; }
bool KnownLogicalKind(int32_t v) { return (v >= 1 && v <= 8) || (v >= 10 && v <= 18); }

struct RequiredField {
  int id;
  std::string_view name;
};

template <class T, class U>
Status Assign(T& slot, Result<U>&& value) {
  if (!value.has_value()) return Fail(std::move(value).error());
  slot = std::move(value).value();
  return Ok();
}

// Reads the structs of parquet.thrift from a CompactReader. Each ReadX reads one struct; the
// field helpers check the wire type against the one the field is declared with.
class Decoder {
 public:
  Decoder(std::string_view bytes, const MetadataLimits& limits) : r_(bytes, limits) {}

  size_t offset() const { return r_.offset(); }
  Result<FileMetaData> ReadFileMetaData();
  Result<PageHeader> ReadPageHeader();

 private:
  // Read one struct, handing each field to `on_field` (a function of FieldHeader -> Status);
  // `seen` gets a bit per known field id below 32, for Require.
  template <class OnField>
  Status Struct(OnField on_field) {
    SLUICE_TRY(r_.BeginStruct());
    while (true) {
      SLUICE_ASSIGN_OR_RETURN(const FieldHeader f, r_.ReadFieldHeader());
      if (f.type == Type::kStop) break;
      SLUICE_TRY(on_field(f));
    }
    r_.EndStruct();
    return Ok();
  }

  Status Require(uint32_t seen, size_t at, std::string_view strct,
                 std::initializer_list<RequiredField> fields) const {
    for (const RequiredField& field : fields) {
      if ((seen & (1u << field.id)) == 0) {
        return r_.Fail(
            at, fmt::format("{}: required field {} ({}) is missing", strct, field.name, field.id));
      }
    }
    return Ok();
  }

  Status Expect(const FieldHeader& f, Type type, std::string_view where) const {
    if (f.type == type) return Ok();
    return r_.Fail(f.offset, fmt::format("{} (field {}) is {}, not {}", where, f.id,
                                         TypeName(f.type), TypeName(type)));
  }

  Result<bool> Bool(const FieldHeader& f, std::string_view where) {
    SLUICE_TRY(Expect(f, Type::kBool, where));
    return r_.ReadBool();
  }
  Result<int8_t> I8(const FieldHeader& f, std::string_view where) {
    SLUICE_TRY(Expect(f, Type::kI8, where));
    return r_.ReadI8();
  }
  Result<int16_t> I16(const FieldHeader& f, std::string_view where) {
    SLUICE_TRY(Expect(f, Type::kI16, where));
    return r_.ReadI16();
  }
  Result<int32_t> I32(const FieldHeader& f, std::string_view where) {
    SLUICE_TRY(Expect(f, Type::kI32, where));
    return r_.ReadI32();
  }
  Result<int64_t> I64(const FieldHeader& f, std::string_view where) {
    SLUICE_TRY(Expect(f, Type::kI64, where));
    return r_.ReadI64();
  }
  Result<std::string> Binary(const FieldHeader& f, std::string_view where) {
    SLUICE_TRY(Expect(f, Type::kBinary, where));
    return r_.ReadBinary();
  }

  // An enum field (an i32 on the wire) whose value must be one the model has.
  template <class E>
  Result<E> Enum(const FieldHeader& f, std::string_view where, bool (*known)(int32_t)) {
    SLUICE_TRY(Expect(f, Type::kI32, where));
    const size_t at = r_.offset();
    SLUICE_ASSIGN_OR_RETURN(const int32_t v, r_.ReadI32());
    if (!known(v)) return r_.Fail(at, fmt::format("{}: unknown value {}", where, v));
    return static_cast<E>(v);
  }

  // A struct-typed field, read by `read` (a member function returning Result<T>).
  template <class Slot, class T>
  Status Sub(const FieldHeader& f, std::string_view where, Slot& slot,
             Result<T> (Decoder::*read)()) {
    SLUICE_TRY(Expect(f, Type::kStruct, where));
    return Assign(slot, (this->*read)());
  }

  // A list field of `element`s; `read_one(out)` reads one element and appends it (or drops
  // it). Memory for the elements is charged before it is reserved.
  template <class T, class ReadOne>
  Status List(const FieldHeader& f, std::string_view where, Type element, std::vector<T>& out,
              ReadOne read_one) {
    SLUICE_TRY(Expect(f, Type::kList, where));
    const size_t at = r_.offset();
    SLUICE_ASSIGN_OR_RETURN(const thrift::ListHeader list, r_.ReadListHeader());
    if (list.element != element) {
      return r_.Fail(at, fmt::format("{}: a list of {}, not of {}", where, TypeName(list.element),
                                     TypeName(element)));
    }
    SLUICE_TRY(r_.ChargeElements(list.size, sizeof(T)));
    out.clear();
    out.reserve(list.size);
    for (uint32_t i = 0; i < list.size; ++i) SLUICE_TRY(read_one(out));
    return Ok();
  }

  // A list of structs, each read by `read`.
  template <class T>
  Status StructList(const FieldHeader& f, std::string_view where, std::vector<T>& out,
                    Result<T> (Decoder::*read)()) {
    return List(f, where, Type::kStruct, out, [&](std::vector<T>& v) -> Status {
      SLUICE_ASSIGN_OR_RETURN(T item, (this->*read)());
      v.push_back(std::move(item));
      return Ok();
    });
  }

  Status StringList(const FieldHeader& f, std::string_view where, std::vector<std::string>& out) {
    return List(f, where, Type::kBinary, out, [&](std::vector<std::string>& v) -> Status {
      SLUICE_ASSIGN_OR_RETURN(std::string s, r_.ReadBinary());
      v.push_back(std::move(s));
      return Ok();
    });
  }

  Result<Statistics> ReadStatistics();
  Result<DataPageHeader> ReadDataPageHeader();
  Result<DictionaryPageHeader> ReadDictionaryPageHeader();
  Result<DataPageHeaderV2> ReadDataPageHeaderV2();
  Result<KeyValue> ReadKeyValue();
  Result<std::optional<PageEncodingStats>> ReadPageEncodingStats();
  Result<ColumnMetaData> ReadColumnMetaData();
  Result<ColumnChunk> ReadColumnChunk();
  Result<SortingColumn> ReadSortingColumn();
  Result<RowGroup> ReadRowGroup();
  Result<std::optional<LogicalType>> ReadLogicalType();
  Status ReadLogicalTypeMember(const FieldHeader& f, LogicalType& t);
  Result<TimeUnit> ReadTimeUnit();
  Result<SchemaElement> ReadSchemaElement();
  Result<bool> ReadColumnOrder();

  CompactReader r_;
};

Result<Statistics> Decoder::ReadStatistics() {
  Statistics s;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1:
        return Assign(s.max, Binary(f, "Statistics.max"));
      case 2:
        return Assign(s.min, Binary(f, "Statistics.min"));
      case 3:
        return Assign(s.null_count, I64(f, "Statistics.null_count"));
      case 4:
        return Assign(s.distinct_count, I64(f, "Statistics.distinct_count"));
      case 5:
        return Assign(s.max_value, Binary(f, "Statistics.max_value"));
      case 6:
        return Assign(s.min_value, Binary(f, "Statistics.min_value"));
      case 7:
        return Assign(s.is_max_value_exact, Bool(f, "Statistics.is_max_value_exact"));
      case 8:
        return Assign(s.is_min_value_exact, Bool(f, "Statistics.is_min_value_exact"));
      default:
        return r_.Skip(f.type);
    }
  }));
  return s;
}

Result<DataPageHeader> Decoder::ReadDataPageHeader() {
  DataPageHeader h;
  const size_t start = r_.offset();
  uint32_t seen = 0;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    if (f.id >= 1 && f.id <= 5) seen |= 1u << f.id;
    switch (f.id) {
      case 1:
        return Assign(h.num_values, I32(f, "DataPageHeader.num_values"));
      case 2:
        return Assign(h.encoding, Enum<Encoding>(f, "DataPageHeader.encoding", KnownEncoding));
      case 3:
        return Assign(h.definition_level_encoding,
                      Enum<Encoding>(f, "DataPageHeader.definition_level_encoding", KnownEncoding));
      case 4:
        return Assign(h.repetition_level_encoding,
                      Enum<Encoding>(f, "DataPageHeader.repetition_level_encoding", KnownEncoding));
      case 5:
        return Sub(f, "DataPageHeader.statistics", h.statistics, &Decoder::ReadStatistics);
      default:
        return r_.Skip(f.type);
    }
  }));
  SLUICE_TRY(Require(seen, start, "DataPageHeader",
                     {{1, "num_values"},
                      {2, "encoding"},
                      {3, "definition_level_encoding"},
                      {4, "repetition_level_encoding"}}));
  return h;
}

Result<DictionaryPageHeader> Decoder::ReadDictionaryPageHeader() {
  DictionaryPageHeader h;
  const size_t start = r_.offset();
  uint32_t seen = 0;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    if (f.id >= 1 && f.id <= 3) seen |= 1u << f.id;
    switch (f.id) {
      case 1:
        return Assign(h.num_values, I32(f, "DictionaryPageHeader.num_values"));
      case 2:
        return Assign(h.encoding,
                      Enum<Encoding>(f, "DictionaryPageHeader.encoding", KnownEncoding));
      case 3:
        return Assign(h.is_sorted, Bool(f, "DictionaryPageHeader.is_sorted"));
      default:
        return r_.Skip(f.type);
    }
  }));
  SLUICE_TRY(Require(seen, start, "DictionaryPageHeader", {{1, "num_values"}, {2, "encoding"}}));
  return h;
}

Result<DataPageHeaderV2> Decoder::ReadDataPageHeaderV2() {
  DataPageHeaderV2 h;
  const size_t start = r_.offset();
  uint32_t seen = 0;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    if (f.id >= 1 && f.id <= 8) seen |= 1u << f.id;
    switch (f.id) {
      case 1:
        return Assign(h.num_values, I32(f, "DataPageHeaderV2.num_values"));
      case 2:
        return Assign(h.num_nulls, I32(f, "DataPageHeaderV2.num_nulls"));
      case 3:
        return Assign(h.num_rows, I32(f, "DataPageHeaderV2.num_rows"));
      case 4:
        return Assign(h.encoding, Enum<Encoding>(f, "DataPageHeaderV2.encoding", KnownEncoding));
      case 5:
        return Assign(h.definition_levels_byte_length,
                      I32(f, "DataPageHeaderV2.definition_levels_byte_length"));
      case 6:
        return Assign(h.repetition_levels_byte_length,
                      I32(f, "DataPageHeaderV2.repetition_levels_byte_length"));
      case 7:
        return Assign(h.is_compressed, Bool(f, "DataPageHeaderV2.is_compressed"));
      case 8:
        return Sub(f, "DataPageHeaderV2.statistics", h.statistics, &Decoder::ReadStatistics);
      default:
        return r_.Skip(f.type);
    }
  }));
  SLUICE_TRY(Require(seen, start, "DataPageHeaderV2",
                     {{1, "num_values"},
                      {2, "num_nulls"},
                      {3, "num_rows"},
                      {4, "encoding"},
                      {5, "definition_levels_byte_length"},
                      {6, "repetition_levels_byte_length"}}));
  return h;
}

Result<PageHeader> Decoder::ReadPageHeader() {
  PageHeader h;
  const size_t start = r_.offset();
  uint32_t seen = 0;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    if (f.id >= 1 && f.id <= 8) seen |= 1u << f.id;
    switch (f.id) {
      case 1:
        return Assign(h.type, Enum<PageType>(f, "PageHeader.type", KnownPageType));
      case 2:
        return Assign(h.uncompressed_page_size, I32(f, "PageHeader.uncompressed_page_size"));
      case 3:
        return Assign(h.compressed_page_size, I32(f, "PageHeader.compressed_page_size"));
      case 4:
        return Assign(h.crc, I32(f, "PageHeader.crc"));
      case 5:
        return Sub(f, "PageHeader.data_page_header", h.data_page_header,
                   &Decoder::ReadDataPageHeader);
      case 7:
        return Sub(f, "PageHeader.dictionary_page_header", h.dictionary_page_header,
                   &Decoder::ReadDictionaryPageHeader);
      case 8:
        return Sub(f, "PageHeader.data_page_header_v2", h.data_page_header_v2,
                   &Decoder::ReadDataPageHeaderV2);
      default:
        return r_.Skip(f.type);
    }
  }));
  SLUICE_TRY(Require(seen, start, "PageHeader",
                     {{1, "type"}, {2, "uncompressed_page_size"}, {3, "compressed_page_size"}}));
  // The page reader sizes buffers from these and finds the page's own header by its type.
  if (h.uncompressed_page_size < 0 || h.compressed_page_size < 0) {
    return r_.Fail(start, fmt::format("PageHeader: negative page size ({} uncompressed, {} "
                                      "compressed)",
                                      h.uncompressed_page_size, h.compressed_page_size));
  }
  const bool has_own_header = [&] {
    switch (h.type) {
      case PageType::kDataPage:
        return h.data_page_header.has_value();
      case PageType::kDictionaryPage:
        return h.dictionary_page_header.has_value();
      case PageType::kDataPageV2:
        return h.data_page_header_v2.has_value();
      case PageType::kIndexPage:
        return true;
    }
    return false;
  }();
  if (!has_own_header) {
    return r_.Fail(start, fmt::format("PageHeader: a page of type {} without its header",
                                      static_cast<int32_t>(h.type)));
  }
  return h;
}

Result<KeyValue> Decoder::ReadKeyValue() {
  KeyValue kv;
  const size_t start = r_.offset();
  uint32_t seen = 0;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1:
        seen |= 1u << 1;
        return Assign(kv.key, Binary(f, "KeyValue.key"));
      case 2:
        return Assign(kv.value, Binary(f, "KeyValue.value"));
      default:
        return r_.Skip(f.type);
    }
  }));
  SLUICE_TRY(Require(seen, start, "KeyValue", {{1, "key"}}));
  return kv;
}

// An entry naming a page type or an encoding the model lacks only informs: it is dropped.
Result<std::optional<PageEncodingStats>> Decoder::ReadPageEncodingStats() {
  PageEncodingStats s;
  const size_t start = r_.offset();
  uint32_t seen = 0;
  bool known = true;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    if (f.id >= 1 && f.id <= 3) seen |= 1u << f.id;
    switch (f.id) {
      case 1:
      case 2: {
        SLUICE_ASSIGN_OR_RETURN(const int32_t v, I32(f, "PageEncodingStats"));
        if (f.id == 1) {
          known = known && KnownPageType(v);
          s.page_type = static_cast<PageType>(v);
        } else {
          known = known && KnownEncoding(v);
          s.encoding = static_cast<Encoding>(v);
        }
        return Ok();
      }
      case 3:
        return Assign(s.count, I32(f, "PageEncodingStats.count"));
      default:
        return r_.Skip(f.type);
    }
  }));
  SLUICE_TRY(
      Require(seen, start, "PageEncodingStats", {{1, "page_type"}, {2, "encoding"}, {3, "count"}}));
  if (!known) return std::optional<PageEncodingStats>();
  return std::optional<PageEncodingStats>(s);
}

Result<ColumnMetaData> Decoder::ReadColumnMetaData() {
  ColumnMetaData m;
  const size_t start = r_.offset();
  uint32_t seen = 0;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    if (f.id >= 1 && f.id <= 13) seen |= 1u << f.id;
    switch (f.id) {
      case 1:
        return Assign(m.type, Enum<PhysicalType>(f, "ColumnMetaData.type", KnownPhysicalType));
      case 2:
        return List(f, "ColumnMetaData.encodings", Type::kI32, m.encodings,
                    [&](std::vector<Encoding>& v) -> Status {
                      SLUICE_ASSIGN_OR_RETURN(const int32_t e, r_.ReadI32());
                      if (KnownEncoding(e)) v.push_back(static_cast<Encoding>(e));
                      return Ok();
                    });
      case 3:
        return StringList(f, "ColumnMetaData.path_in_schema", m.path_in_schema);
      case 4:
        return Assign(m.codec, Enum<Codec>(f, "ColumnMetaData.codec", KnownCodec));
      case 5:
        return Assign(m.num_values, I64(f, "ColumnMetaData.num_values"));
      case 6:
        return Assign(m.total_uncompressed_size, I64(f, "ColumnMetaData.total_uncompressed_size"));
      case 7:
        return Assign(m.total_compressed_size, I64(f, "ColumnMetaData.total_compressed_size"));
      case 8:
        return StructList(f, "ColumnMetaData.key_value_metadata", m.key_value_metadata,
                          &Decoder::ReadKeyValue);
      case 9:
        return Assign(m.data_page_offset, I64(f, "ColumnMetaData.data_page_offset"));
      case 10:
        return Assign(m.index_page_offset, I64(f, "ColumnMetaData.index_page_offset"));
      case 11:
        return Assign(m.dictionary_page_offset, I64(f, "ColumnMetaData.dictionary_page_offset"));
      case 12:
        return Sub(f, "ColumnMetaData.statistics", m.statistics, &Decoder::ReadStatistics);
      case 13:
        return List(f, "ColumnMetaData.encoding_stats", Type::kStruct, m.encoding_stats,
                    [&](std::vector<PageEncodingStats>& v) -> Status {
                      SLUICE_ASSIGN_OR_RETURN(auto s, ReadPageEncodingStats());
                      if (s) v.push_back(*s);
                      return Ok();
                    });
      default:
        return r_.Skip(f.type);
    }
  }));
  SLUICE_TRY(Require(seen, start, "ColumnMetaData",
                     {{1, "type"},
                      {2, "encodings"},
                      {3, "path_in_schema"},
                      {4, "codec"},
                      {5, "num_values"},
                      {6, "total_uncompressed_size"},
                      {7, "total_compressed_size"},
                      {9, "data_page_offset"}}));
  return m;
}

Result<ColumnChunk> Decoder::ReadColumnChunk() {
  ColumnChunk c;
  const size_t start = r_.offset();
  uint32_t seen = 0;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1:
        return Assign(c.file_path, Binary(f, "ColumnChunk.file_path"));
      case 2:
        seen |= 1u << 2;
        return Assign(c.file_offset, I64(f, "ColumnChunk.file_offset"));
      case 3:
        return Sub(f, "ColumnChunk.meta_data", c.meta_data, &Decoder::ReadColumnMetaData);
      default:
        return r_.Skip(f.type);
    }
  }));
  SLUICE_TRY(Require(seen, start, "ColumnChunk", {{2, "file_offset"}}));
  return c;
}

Result<SortingColumn> Decoder::ReadSortingColumn() {
  SortingColumn s;
  const size_t start = r_.offset();
  uint32_t seen = 0;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    if (f.id >= 1 && f.id <= 3) seen |= 1u << f.id;
    switch (f.id) {
      case 1:
        return Assign(s.column_idx, I32(f, "SortingColumn.column_idx"));
      case 2:
        return Assign(s.descending, Bool(f, "SortingColumn.descending"));
      case 3:
        return Assign(s.nulls_first, Bool(f, "SortingColumn.nulls_first"));
      default:
        return r_.Skip(f.type);
    }
  }));
  SLUICE_TRY(Require(seen, start, "SortingColumn",
                     {{1, "column_idx"}, {2, "descending"}, {3, "nulls_first"}}));
  return s;
}

Result<RowGroup> Decoder::ReadRowGroup() {
  RowGroup g;
  const size_t start = r_.offset();
  uint32_t seen = 0;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    if (f.id >= 1 && f.id <= 7) seen |= 1u << f.id;
    switch (f.id) {
      case 1:
        return StructList(f, "RowGroup.columns", g.columns, &Decoder::ReadColumnChunk);
      case 2:
        return Assign(g.total_byte_size, I64(f, "RowGroup.total_byte_size"));
      case 3:
        return Assign(g.num_rows, I64(f, "RowGroup.num_rows"));
      case 4:
        return StructList(f, "RowGroup.sorting_columns", g.sorting_columns,
                          &Decoder::ReadSortingColumn);
      case 5:
        return Assign(g.file_offset, I64(f, "RowGroup.file_offset"));
      case 6:
        return Assign(g.total_compressed_size, I64(f, "RowGroup.total_compressed_size"));
      case 7:
        return Assign(g.ordinal, I16(f, "RowGroup.ordinal"));
      default:
        return r_.Skip(f.type);
    }
  }));
  SLUICE_TRY(
      Require(seen, start, "RowGroup", {{1, "columns"}, {2, "total_byte_size"}, {3, "num_rows"}}));
  return g;
}

Result<TimeUnit> Decoder::ReadTimeUnit() {
  std::optional<TimeUnit> unit;
  const size_t start = r_.offset();
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    if (f.id < 1 || f.id > 3) return r_.Skip(f.type);
    if (unit) return r_.Fail(f.offset, "TimeUnit: a union with more than one member");
    SLUICE_TRY(Expect(f, Type::kStruct, "TimeUnit"));
    unit = static_cast<TimeUnit>(f.id);
    return r_.Skip(Type::kStruct);  // MilliSeconds, MicroSeconds, NanoSeconds: empty structs
  }));
  if (!unit) return r_.Fail(start, "TimeUnit: none of MILLIS, MICROS or NANOS is set");
  return *unit;
}

// The parameters of the union member `f` names; members without any are empty structs whose
// fields, if a newer writer added some (VARIANT, GEOMETRY, GEOGRAPHY have), are skipped.
Status Decoder::ReadLogicalTypeMember(const FieldHeader& member, LogicalType& t) {
  const size_t start = r_.offset();
  uint32_t seen = 0;
  switch (t.kind) {
    case LogicalType::Kind::kDecimal:
      SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
        switch (f.id) {
          case 1:
            seen |= 1u << 1;
            return Assign(t.decimal_scale, I32(f, "DecimalType.scale"));
          case 2:
            seen |= 1u << 2;
            return Assign(t.decimal_precision, I32(f, "DecimalType.precision"));
          default:
            return r_.Skip(f.type);
        }
      }));
      return Require(seen, start, "DecimalType", {{1, "scale"}, {2, "precision"}});
    case LogicalType::Kind::kTime:
    case LogicalType::Kind::kTimestamp: {
      const bool time = t.kind == LogicalType::Kind::kTime;
      SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
        switch (f.id) {
          case 1:
            seen |= 1u << 1;
            return Assign(t.adjusted_to_utc, Bool(f, time ? "TimeType.isAdjustedToUTC"
                                                          : "TimestampType.isAdjustedToUTC"));
          case 2:
            seen |= 1u << 2;
            return Sub(f, time ? "TimeType.unit" : "TimestampType.unit", t.unit,
                       &Decoder::ReadTimeUnit);
          default:
            return r_.Skip(f.type);
        }
      }));
      return Require(seen, start, time ? "TimeType" : "TimestampType",
                     {{1, "isAdjustedToUTC"}, {2, "unit"}});
    }
    case LogicalType::Kind::kInteger:
      SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
        switch (f.id) {
          case 1:
            seen |= 1u << 1;
            return Assign(t.bit_width, I8(f, "IntType.bitWidth"));
          case 2:
            seen |= 1u << 2;
            return Assign(t.is_signed, Bool(f, "IntType.isSigned"));
          default:
            return r_.Skip(f.type);
        }
      }));
      return Require(seen, start, "IntType", {{1, "bitWidth"}, {2, "isSigned"}});
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
      return r_.Skip(member.type);
  }
  return Ok();
}

// A union none of whose members the model has (a newer logical type) reads as no logical type:
// the converted type and the physical type still say how to read the column.
Result<std::optional<LogicalType>> Decoder::ReadLogicalType() {
  std::optional<LogicalType> result;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    if (!KnownLogicalKind(f.id)) return r_.Skip(f.type);
    if (result) return r_.Fail(f.offset, "LogicalType: a union with more than one member");
    SLUICE_TRY(Expect(f, Type::kStruct, "LogicalType"));
    LogicalType t;
    t.kind = static_cast<LogicalType::Kind>(f.id);
    SLUICE_TRY(ReadLogicalTypeMember(f, t));
    result = t;
    return Ok();
  }));
  return result;
}

Result<SchemaElement> Decoder::ReadSchemaElement() {
  SchemaElement e;
  const size_t start = r_.offset();
  uint32_t seen = 0;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1:
        return Assign(e.type, Enum<PhysicalType>(f, "SchemaElement.type", KnownPhysicalType));
      case 2:
        return Assign(e.type_length, I32(f, "SchemaElement.type_length"));
      case 3:
        return Assign(e.repetition,
                      Enum<Repetition>(f, "SchemaElement.repetition_type", KnownRepetition));
      case 4:
        seen |= 1u << 4;
        return Assign(e.name, Binary(f, "SchemaElement.name"));
      case 5:
        return Assign(e.num_children, I32(f, "SchemaElement.num_children"));
      case 6:
        return Assign(e.converted_type,
                      Enum<ConvertedType>(f, "SchemaElement.converted_type", KnownConvertedType));
      case 7:
        return Assign(e.scale, I32(f, "SchemaElement.scale"));
      case 8:
        return Assign(e.precision, I32(f, "SchemaElement.precision"));
      case 9:
        return Assign(e.field_id, I32(f, "SchemaElement.field_id"));
      case 10:
        return Sub(f, "SchemaElement.logicalType", e.logical_type, &Decoder::ReadLogicalType);
      default:
        return r_.Skip(f.type);
    }
  }));
  SLUICE_TRY(Require(seen, start, "SchemaElement", {{4, "name"}}));
  return e;
}

// TYPE_ORDER (member 1) is the order min_value and max_value follow; any other member (the
// IEEE 754 total order, newer ones) or none means "not that order".
Result<bool> Decoder::ReadColumnOrder() {
  bool type_order = false;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    if (f.id == 1 && f.type == Type::kStruct) type_order = true;
    return r_.Skip(f.type);
  }));
  return type_order;
}

Result<FileMetaData> Decoder::ReadFileMetaData() {
  FileMetaData m;
  const size_t start = r_.offset();
  uint32_t seen = 0;
  SLUICE_TRY(Struct([&](const FieldHeader& f) -> Status {
    if (f.id >= 1 && f.id <= 7) seen |= 1u << f.id;
    switch (f.id) {
      case 1:
        return Assign(m.version, I32(f, "FileMetaData.version"));
      case 2:
        return StructList(f, "FileMetaData.schema", m.schema, &Decoder::ReadSchemaElement);
      case 3:
        return Assign(m.num_rows, I64(f, "FileMetaData.num_rows"));
      case 4:
        return StructList(f, "FileMetaData.row_groups", m.row_groups, &Decoder::ReadRowGroup);
      case 5:
        return StructList(f, "FileMetaData.key_value_metadata", m.key_value_metadata,
                          &Decoder::ReadKeyValue);
      case 6:
        return Assign(m.created_by, Binary(f, "FileMetaData.created_by"));
      case 7:
        return List(f, "FileMetaData.column_orders", Type::kStruct, m.column_orders,
                    [&](std::vector<bool>& v) -> Status {
                      SLUICE_ASSIGN_OR_RETURN(const bool type_order, ReadColumnOrder());
                      v.push_back(type_order);
                      return Ok();
                    });
      default:
        return r_.Skip(f.type);
    }
  }));
  SLUICE_TRY(Require(seen, start, "FileMetaData",
                     {{1, "version"}, {2, "schema"}, {3, "num_rows"}, {4, "row_groups"}}));
  return m;
}

}  // namespace

Result<FileMetaData> ReadFileMetaData(std::string_view bytes, const MetadataLimits& limits) {
  Decoder decoder(bytes, limits);
  Result<FileMetaData> meta = decoder.ReadFileMetaData();
  if (!meta) return Fail(meta.error().WithContext("parquet footer"));
  return meta;
}

Result<PageHeader> ReadPageHeader(std::string_view bytes, size_t* header_size,
                                  const MetadataLimits& limits) {
  Decoder decoder(bytes, limits);
  Result<PageHeader> header = decoder.ReadPageHeader();
  if (!header) return Fail(header.error().WithContext("parquet page header"));
  if (header_size != nullptr) *header_size = decoder.offset();
  return header;
}

}  // namespace sluice::parquet
