#include "sluice/parquet/metadata.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sluice/parquet/metadata_testing.h"
#include "sluice/parquet/thrift_compact.h"

namespace sluice::parquet {
namespace {

using testing::FooterEdits;
using testing::SmallFooter;
using testing::SmallFooterValue;
using thrift::CompactWriter;
using thrift::Type;

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

FileMetaData MustRead(std::string_view bytes) {
  auto meta = ReadFileMetaData(bytes);
  EXPECT_TRUE(meta.has_value()) << meta.error().message();
  return meta.has_value() ? *meta : FileMetaData{};
}

std::string ReadError(std::string_view bytes) {
  auto meta = ReadFileMetaData(bytes);
  if (meta.has_value()) return "(decoded)";
  EXPECT_EQ(meta.error().code(), ErrorCode::kInvalidArgument);
  return meta.error().message();
}

TEST(MetadataTest, FullFooterRoundTrips) {
  const FileMetaData full = testing::FullFooter();
  const std::string bytes = WriteFileMetaData(full);
  EXPECT_EQ(MustRead(bytes), full);
  // Decoding is a fixed point: what was read writes the same bytes.
  EXPECT_EQ(WriteFileMetaData(MustRead(bytes)), bytes);
}

TEST(MetadataTest, EveryLogicalTypeRoundTrips) {
  FileMetaData m = SmallFooterValue();
  const auto leaves = testing::LeavesOfEveryLogicalType();
  m.schema.insert(m.schema.end(), leaves.begin(), leaves.end());
  for (TimeUnit unit : {TimeUnit::kMillis, TimeUnit::kMicros, TimeUnit::kNanos}) {
    for (bool utc : {false, true}) {
      SchemaElement e = testing::Leaf("ts", PhysicalType::kInt64);
      e.logical_type = LogicalType{.kind = LogicalType::Kind::kTimestamp};
      e.logical_type->unit = unit;
      e.logical_type->adjusted_to_utc = utc;
      m.schema.push_back(e);
    }
  }
  const FileMetaData back = MustRead(WriteFileMetaData(m));
  ASSERT_EQ(back.schema.size(), m.schema.size());
  for (size_t i = 0; i < m.schema.size(); ++i) {
    EXPECT_EQ(back.schema[i], m.schema[i]) << m.schema[i].name;
  }
}

TEST(MetadataTest, PageHeadersOfEveryKindRoundTrip) {
  for (const PageHeader& header : testing::PageHeadersOfEveryKind()) {
    std::string bytes;
    WritePageHeader(header, bytes);
    const size_t encoded = bytes.size();
    bytes += "page data that follows the header";
    size_t header_size = 0;
    auto back = ReadPageHeader(bytes, &header_size);
    ASSERT_TRUE(back.has_value()) << back.error().message();
    EXPECT_EQ(*back, header);
    EXPECT_EQ(header_size, encoded);
  }
}

// The compact protocol by hand: FileMetaData{version 1, schema [root{name "schema",
// num_children 1}, {type INT32, repetition REQUIRED, name "a"}], num_rows 3, row_groups [],
// created_by "x"}.
const std::string kTinyFooter = Bytes({
    0x15, 0x02,                                // 1: i32 version = 1 (zigzag 2)
    0x19, 0x2c,                                // 2: list, 2 structs
    0x48, 0x06, 's', 'c', 'h', 'e', 'm', 'a',  //   4: binary name "schema"
    0x15, 0x02,                                //   5: i32 num_children = 1
    0x00,                                      //   end of element
    0x15, 0x02,                                //   1: i32 type = INT32
    0x25, 0x00,                                //   3: i32 repetition = REQUIRED
    0x18, 0x01, 'a',                           //   4: binary name "a"
    0x00,                                      //   end of element
    0x16, 0x06,                                // 3: i64 num_rows = 3
    0x19, 0x0c,                                // 4: list, 0 structs
    0x28, 0x01, 'x',                           // 6: binary created_by "x"
    0x00,                                      // end of FileMetaData
});

FileMetaData TinyFooterValue() {
  FileMetaData m;
  m.version = 1;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement a;
  a.type = PhysicalType::kInt32;
  a.repetition = Repetition::kRequired;
  a.name = "a";
  m.schema = {root, a};
  m.num_rows = 3;
  m.created_by = "x";
  return m;
}

TEST(MetadataTest, HandEncodedFooterMatchesTheSpec) {
  EXPECT_EQ(WriteFileMetaData(TinyFooterValue()), kTinyFooter);
  EXPECT_EQ(MustRead(kTinyFooter), TinyFooterValue());
}

TEST(MetadataTest, HandEncodedPageHeaderMatchesTheSpec) {
  // PageHeader{DATA_PAGE, 100, 50, data_page_header{10 values, PLAIN, RLE, RLE}}.
  const std::string bytes = Bytes({
      0x15, 0x00,        // 1: type = DATA_PAGE
      0x15, 0xc8, 0x01,  // 2: uncompressed_page_size = 100
      0x15, 0x64,        // 3: compressed_page_size = 50
      0x2c,              // 5: struct data_page_header
      0x15, 0x14,        //   1: num_values = 10
      0x15, 0x00,        //   2: encoding = PLAIN
      0x15, 0x06,        //   3: definition_level_encoding = RLE
      0x15, 0x06,        //   4: repetition_level_encoding = RLE
      0x00,              //   end of DataPageHeader
      0x00,              // end of PageHeader
  });
  PageHeader h;
  h.uncompressed_page_size = 100;
  h.compressed_page_size = 50;
  h.data_page_header = DataPageHeader{10, Encoding::kPlain, Encoding::kRle, Encoding::kRle, {}};
  std::string written;
  WritePageHeader(h, written);
  EXPECT_EQ(written, bytes);
  size_t size = 0;
  auto back = ReadPageHeader(bytes + "xyz", &size);
  ASSERT_TRUE(back.has_value()) << back.error().message();
  EXPECT_EQ(*back, h);
  EXPECT_EQ(size, bytes.size());
}

TEST(MetadataTest, SmallFooterBuilderMatchesItsValue) {
  EXPECT_EQ(MustRead(SmallFooter()), SmallFooterValue());
  EXPECT_EQ(WriteFileMetaData(SmallFooterValue()), SmallFooter());
}

// Fields of every type, with ids the format does not use (or uses for what sluice skips).
void UnknownFieldsOfEveryType(CompactWriter& w, int16_t first) {
  w.BoolField(first, true);
  w.BoolField(first + 1, false);
  w.I8Field(first + 2, 1);
  w.I16Field(first + 3, -2);
  w.I32Field(first + 4, 3);
  w.I64Field(first + 5, -4);
  w.DoubleField(first + 6, 5.5);
  w.BinaryField(first + 7, "six");
  w.BeginField(Type::kList, first + 8);
  w.BeginList(Type::kStruct, 2);
  for (int i = 0; i < 2; ++i) {
    w.BeginStruct();
    w.BinaryField(1, "nested");
    w.BoolField(2, true);
    w.EndStruct();
  }
  w.BeginField(Type::kSet, first + 9);
  w.BeginList(Type::kI64, 16);
  for (int i = 0; i < 16; ++i) w.I64(i);
  w.BeginField(Type::kMap, first + 10);
  w.BeginMap(Type::kBinary, Type::kMap, 1);
  w.Binary("outer");
  w.BeginMap(Type::kI32, Type::kBool, 2);
  w.I32(1);
  w.Bool(true);
  w.I32(2);
  w.Bool(false);
  w.BeginField(Type::kStruct, first + 11);
  w.BeginStruct();
  w.BeginField(Type::kStruct, 1);
  w.BeginStruct();
  w.BinaryField(1, "aad");
  w.EndStruct();
  w.EndStruct();
}

TEST(MetadataTest, UnknownFieldsOfEveryTypeAreSkipped) {
  FooterEdits edits;
  edits.file = [](CompactWriter& w) { UnknownFieldsOfEveryType(w, 8); };  // 8, 9: encryption
  edits.leaf = [](CompactWriter& w) { UnknownFieldsOfEveryType(w, 11); };
  edits.column_meta = [](CompactWriter& w) { UnknownFieldsOfEveryType(w, 14); };  // 14..17
  edits.column_chunk = [](CompactWriter& w) { UnknownFieldsOfEveryType(w, 4); };  // 4..9
  EXPECT_EQ(MustRead(SmallFooter(edits)), SmallFooterValue());

  // A page header with unknown fields before, between and inside the known ones, and the
  // index page header (6) that sluice skips.
  std::string bytes;
  CompactWriter w(bytes);
  w.BeginStruct();
  w.I32Field(1, 0);
  UnknownFieldsOfEveryType(w, 20);
  w.BeginField(Type::kStruct, 6);
  w.BeginStruct();
  w.EndStruct();
  w.I32Field(2, 100);
  w.I32Field(3, 50);
  w.BeginField(Type::kStruct, 5);
  w.BeginStruct();
  w.I32Field(1, 10);
  UnknownFieldsOfEveryType(w, 6);
  w.I32Field(2, 0);
  w.I32Field(3, 3);
  w.I32Field(4, 3);
  w.EndStruct();
  w.EndStruct();
  PageHeader h;
  h.uncompressed_page_size = 100;
  h.compressed_page_size = 50;
  h.data_page_header = DataPageHeader{10, Encoding::kPlain, Encoding::kRle, Encoding::kRle, {}};
  size_t size = 0;
  auto back = ReadPageHeader(bytes + "data", &size);
  ASSERT_TRUE(back.has_value()) << back.error().message();
  EXPECT_EQ(*back, h);
  EXPECT_EQ(size, bytes.size());
}

TEST(MetadataTest, MissingRequiredFieldsNameTheStructAndField) {
  EXPECT_EQ(ReadError(Bytes({0x15, 0x02, 0x00})),
            "parquet footer: byte 0: FileMetaData: required field schema (2) is missing");
  // A schema element without a name.
  EXPECT_EQ(
      ReadError(Bytes({0x15, 0x02, 0x19, 0x1c, 0x15, 0x02, 0x00, 0x16, 0x00, 0x19, 0x0c, 0x00})),
      "parquet footer: byte 4: SchemaElement: required field name (4) is missing");
  // ColumnMetaData without data_page_offset: rewrite the small footer's id 9 as id 19.
  std::string bytes = SmallFooter();
  const std::string field9 = Bytes({0x26, 0x08});  // delta 2 from 7, i64, value 4
  const size_t at = bytes.rfind(field9);           // file_offset (2) is the same bytes before it
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 2, Bytes({0x06, 0x26, 0x08}));  // long form: id 19 (zigzag 38)
  EXPECT_NE(ReadError(bytes).find("ColumnMetaData: required field data_page_offset (9) is "
                                  "missing"),
            std::string::npos)
      << ReadError(bytes);

  size_t size = 0;
  auto page = ReadPageHeader(Bytes({0x15, 0x00, 0x15, 0x02, 0x00}), &size);
  ASSERT_FALSE(page.has_value());
  EXPECT_EQ(page.error().message(),
            "parquet page header: byte 0: PageHeader: required field compressed_page_size (3) "
            "is missing");
}

TEST(MetadataTest, FieldsOfTheWrongTypeAreErrors) {
  // version as an i64.
  EXPECT_EQ(ReadError(Bytes({0x16, 0x02, 0x00})),
            "parquet footer: byte 0: FileMetaData.version (field 1) is i64, not i32");
  // row_groups as a list of i32.
  FooterEdits edits;
  edits.file = [](CompactWriter& w) {
    w.BeginField(Type::kList, 4);
    w.BeginList(Type::kI32, 1);
    w.I32(1);
  };
  EXPECT_NE(ReadError(SmallFooter(edits))
                .find("FileMetaData.row_groups: a list of i32, not of "
                      "struct"),
            std::string::npos);
}

TEST(MetadataTest, EnumValuesSluiceMustUnderstandAreChecked) {
  auto leaf = [](int16_t id, int32_t value) {
    FooterEdits edits;
    edits.leaf = [=](CompactWriter& w) { w.I32Field(id, value); };
    return ReadError(SmallFooter(edits));
  };
  EXPECT_NE(leaf(1, 8).find("SchemaElement.type: unknown value 8"), std::string::npos);
  EXPECT_NE(leaf(1, -1).find("SchemaElement.type: unknown value -1"), std::string::npos);
  EXPECT_NE(leaf(3, 3).find("SchemaElement.repetition_type: unknown value 3"), std::string::npos);
  EXPECT_NE(leaf(6, 22).find("SchemaElement.converted_type: unknown value 22"), std::string::npos);

  auto column = [](int16_t id, int32_t value) {
    FooterEdits edits;
    edits.column_meta = [=](CompactWriter& w) { w.I32Field(id, value); };
    return ReadError(SmallFooter(edits));
  };
  EXPECT_NE(column(1, 8).find("ColumnMetaData.type: unknown value 8"), std::string::npos);
  EXPECT_NE(column(4, 8).find("ColumnMetaData.codec: unknown value 8"), std::string::npos);

  PageHeader page = testing::PageHeadersOfEveryKind()[0];
  std::string bytes;
  WritePageHeader(page, bytes);
  ASSERT_EQ(bytes[1], 0x00);  // type DATA_PAGE
  bytes[1] = 0x08;            // 4: no such page type
  auto bad_type = ReadPageHeader(bytes, nullptr);
  ASSERT_FALSE(bad_type.has_value());
  EXPECT_EQ(bad_type.error().message(),
            "parquet page header: byte 1: PageHeader.type: unknown value 4");

  page.data_page_header->encoding = static_cast<Encoding>(10);  // ALP: not modelled
  bytes.clear();
  WritePageHeader(page, bytes);
  auto bad_encoding = ReadPageHeader(bytes, nullptr);
  ASSERT_FALSE(bad_encoding.has_value());
  EXPECT_NE(bad_encoding.error().message().find("DataPageHeader.encoding: unknown value 10"),
            std::string::npos);
}

TEST(MetadataTest, UnknownEncodingsInListsThatOnlyInformAreDropped) {
  FooterEdits edits;
  edits.column_meta = [](CompactWriter& w) {
    w.BeginField(Type::kList, 2);
    w.BeginList(Type::kI32, 4);
    for (int e : {0, 10, 1, 8}) w.I32(e);  // ALP (10) and the retired GROUP_VAR_INT (1)
    w.BeginField(Type::kList, 13);
    w.BeginList(Type::kStruct, 3);
    for (auto [type, encoding] : {std::pair{0, 8}, std::pair{0, 10}, std::pair{9, 0}}) {
      w.BeginStruct();
      w.I32Field(1, type);
      w.I32Field(2, encoding);
      w.I32Field(3, 4);
      w.EndStruct();
    }
  };
  const FileMetaData m = MustRead(SmallFooter(edits));
  const ColumnMetaData& meta = *m.row_groups[0].columns[0].meta_data;
  EXPECT_EQ(meta.encodings, (std::vector<Encoding>{Encoding::kPlain, Encoding::kRleDictionary}));
  EXPECT_EQ(meta.encoding_stats,
            (std::vector<PageEncodingStats>{{PageType::kDataPage, Encoding::kRleDictionary, 4}}));
}

TEST(MetadataTest, ColumnOrdersAreTypeOrderOrNot) {
  FooterEdits edits;
  edits.file = [](CompactWriter& w) {
    w.BeginField(Type::kList, 7);
    w.BeginList(Type::kStruct, 4);
    auto order = [&](int16_t member) {
      w.BeginStruct();
      if (member > 0) {
        w.BeginField(Type::kStruct, member);
        w.BeginStruct();
        w.EndStruct();
      }
      w.EndStruct();
    };
    order(1);  // TYPE_ORDER
    order(2);  // IEEE_754_TOTAL_ORDER
    order(0);  // an empty union
    order(30);
  };
  EXPECT_EQ(MustRead(SmallFooter(edits)).column_orders,
            (std::vector<bool>{true, false, false, false}));
}

TEST(MetadataTest, LogicalTypeUnions) {
  auto with_logical = [](const std::function<void(CompactWriter&)>& members) {
    FooterEdits edits;
    edits.leaf = [&](CompactWriter& w) {
      w.BeginField(Type::kStruct, 10);
      w.BeginStruct();
      members(w);
      w.EndStruct();
    };
    return SmallFooter(edits);
  };
  auto empty_member = [](CompactWriter& w, int16_t id) {
    w.BeginField(Type::kStruct, id);
    w.BeginStruct();
    w.EndStruct();
  };
  // FILE (19), unknown here: no logical type.
  EXPECT_EQ(
      MustRead(with_logical([&](CompactWriter& w) { empty_member(w, 19); })).schema[1].logical_type,
      std::nullopt);
  // An unknown member beside a known one: the known one.
  auto date = MustRead(with_logical([&](CompactWriter& w) {
                empty_member(w, 6);
                empty_member(w, 40);
              }))
                  .schema[1]
                  .logical_type;
  ASSERT_TRUE(date.has_value());
  EXPECT_EQ(date->kind, LogicalType::Kind::kDate);
  // Two known members.
  EXPECT_NE(ReadError(with_logical([&](CompactWriter& w) {
              empty_member(w, 1);
              empty_member(w, 6);
            })).find("LogicalType: a union with more than one member"),
            std::string::npos);
  // GEOGRAPHY with its parameters, which the model skips.
  auto geo = MustRead(with_logical([](CompactWriter& w) {
               w.BeginField(Type::kStruct, 18);
               w.BeginStruct();
               w.BinaryField(1, "OGC:CRS84");
               w.I32Field(2, 0);
               w.EndStruct();
             }))
                 .schema[1]
                 .logical_type;
  ASSERT_TRUE(geo.has_value());
  EXPECT_EQ(geo->kind, LogicalType::Kind::kGeography);
  // A timestamp whose unit union has no member the model knows.
  EXPECT_NE(ReadError(with_logical([&](CompactWriter& w) {
              w.BeginField(Type::kStruct, 8);
              w.BeginStruct();
              w.BoolField(1, true);
              w.BeginField(Type::kStruct, 2);
              w.BeginStruct();
              empty_member(w, 4);
              w.EndStruct();
              w.EndStruct();
            })).find("TimeUnit: none of MILLIS, MICROS or NANOS is set"),
            std::string::npos);
  // A decimal without its precision.
  EXPECT_NE(ReadError(with_logical([](CompactWriter& w) {
              w.BeginField(Type::kStruct, 5);
              w.BeginStruct();
              w.I32Field(1, 2);
              w.EndStruct();
            })).find("DecimalType: required field precision (2) is missing"),
            std::string::npos);
}

TEST(MetadataTest, PageHeadersMustBeUsable) {
  PageHeader h = testing::PageHeadersOfEveryKind()[0];
  h.compressed_page_size = -1;
  std::string bytes;
  WritePageHeader(h, bytes);
  auto negative = ReadPageHeader(bytes, nullptr);
  ASSERT_FALSE(negative.has_value());
  EXPECT_NE(negative.error().message().find("negative page size"), std::string::npos);

  h = testing::PageHeadersOfEveryKind()[0];
  h.data_page_header.reset();
  bytes.clear();
  WritePageHeader(h, bytes);
  auto headless = ReadPageHeader(bytes, nullptr);
  ASSERT_FALSE(headless.has_value());
  EXPECT_NE(headless.error().message().find("a page of type 0 without its header"),
            std::string::npos);
}

TEST(MetadataTest, NamesOfEnums) {
  EXPECT_EQ(PhysicalTypeName(PhysicalType::kFixedLenByteArray), "FIXED_LEN_BYTE_ARRAY");
  EXPECT_EQ(PhysicalTypeName(PhysicalType::kInt96), "INT96");
  EXPECT_EQ(EncodingName(Encoding::kRleDictionary), "RLE_DICTIONARY");
  EXPECT_EQ(EncodingName(Encoding::kByteStreamSplit), "BYTE_STREAM_SPLIT");
  EXPECT_EQ(CodecName(Codec::kLz4Raw), "LZ4_RAW");
  EXPECT_EQ(CodecName(Codec::kUncompressed), "UNCOMPRESSED");
  EXPECT_EQ(CodecName(static_cast<Codec>(42)), "UNKNOWN");
}

}  // namespace
}  // namespace sluice::parquet
