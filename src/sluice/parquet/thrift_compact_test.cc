#include "sluice/parquet/thrift_compact.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>

namespace sluice::parquet::thrift {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

const MetadataLimits kDefaultLimits;

TEST(CompactWriterTest, EncodesIntegersAsZigzagVarints) {
  std::string out;
  CompactWriter w(out);
  w.I32(0);
  w.I32(-1);
  w.I32(1);
  w.I32(150);  // zigzag 300 = 0b10'0101100
  w.I64(std::numeric_limits<int64_t>::min());
  EXPECT_EQ(out, Bytes({0x00, 0x01, 0x02, 0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                        0xff, 0xff, 0x01}));
}

TEST(CompactWriterTest, FieldHeadersUseDeltasThenTheLongForm) {
  std::string out;
  CompactWriter w(out);
  w.BeginStruct();
  w.I32Field(1, 7);        // delta 1: 0x15
  w.BoolField(2, true);    // delta 1, type 1: 0x11
  w.BoolField(3, false);   // delta 1, type 2: 0x12
  w.I64Field(18, 1);       // delta 15: 0xf6
  w.BinaryField(100, "");  // delta 82: long form, 0x08 then zigzag(100) = 200
  w.I8Field(50, -1);       // a smaller id: long form, 0x03 then zigzag(50) = 100
  w.EndStruct();
  EXPECT_EQ(out, Bytes({0x15, 0x0e, 0x11, 0x12, 0xf6, 0x02, 0x08, 0xc8, 0x01, 0x00, 0x03, 0x64,
                        0xff, 0x00}));
}

TEST(CompactWriterTest, ListsUseTheShortFormBelowFifteen) {
  std::string out;
  CompactWriter w(out);
  w.BeginList(Type::kI32, 14);
  EXPECT_EQ(out, Bytes({0xe5}));
  out.clear();
  w.BeginList(Type::kBinary, 15);
  EXPECT_EQ(out, Bytes({0xf8, 0x0f}));
  out.clear();
  w.BeginList(Type::kStruct, 300);
  EXPECT_EQ(out, Bytes({0xfc, 0xac, 0x02}));
  out.clear();
  w.BeginMap(Type::kBinary, Type::kI64, 2);
  w.BeginMap(Type::kI32, Type::kI32, 0);
  EXPECT_EQ(out, Bytes({0x02, 0x86, 0x00}));
}

TEST(CompactWriterTest, DoublesAreLittleEndian) {
  std::string out;
  CompactWriter w(out);
  w.Double(1.0);
  EXPECT_EQ(out, Bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
}

// Every type, written and read back through one struct with a nested struct, a list, a set and
// a map: field ids restart inside the nested struct and continue after it.
TEST(CompactReaderTest, ReadsBackEveryType) {
  std::string out;
  CompactWriter w(out);
  w.BeginStruct();
  w.BoolField(1, true);
  w.I8Field(2, -128);
  w.I16Field(3, -32768);
  w.I32Field(4, std::numeric_limits<int32_t>::min());
  w.I64Field(5, std::numeric_limits<int64_t>::max());
  w.DoubleField(6, -2.5);
  w.BinaryField(7, std::string("a\0b", 3));
  w.BeginField(Type::kStruct, 8);
  w.BeginStruct();
  w.I32Field(1, 42);
  w.EndStruct();
  w.BeginField(Type::kList, 9);
  w.BeginList(Type::kBool, 3);
  w.Bool(true);
  w.Bool(false);
  w.Bool(true);
  w.BeginField(Type::kSet, 10);
  w.BeginList(Type::kI64, 20);
  for (int i = 0; i < 20; ++i) w.I64(i * 1000);
  w.BeginField(Type::kMap, 11);
  w.BeginMap(Type::kBinary, Type::kI32, 1);
  w.Binary("k");
  w.I32(-5);
  w.BoolField(12, false);
  w.EndStruct();

  CompactReader r(out, kDefaultLimits);
  ASSERT_TRUE(r.BeginStruct().has_value());
  auto field = [&](Type type, int16_t id) {
    auto f = r.ReadFieldHeader();
    ASSERT_TRUE(f.has_value()) << f.error().message();
    EXPECT_EQ(f->type, type);
    EXPECT_EQ(f->id, id);
  };
  field(Type::kBool, 1);
  EXPECT_EQ(r.ReadBool().value(), true);
  field(Type::kI8, 2);
  EXPECT_EQ(r.ReadI8().value(), -128);
  field(Type::kI16, 3);
  EXPECT_EQ(r.ReadI16().value(), -32768);
  field(Type::kI32, 4);
  EXPECT_EQ(r.ReadI32().value(), std::numeric_limits<int32_t>::min());
  field(Type::kI64, 5);
  EXPECT_EQ(r.ReadI64().value(), std::numeric_limits<int64_t>::max());
  field(Type::kDouble, 6);
  EXPECT_EQ(r.ReadDouble().value(), -2.5);
  field(Type::kBinary, 7);
  EXPECT_EQ(r.ReadBinary().value(), std::string("a\0b", 3));
  field(Type::kStruct, 8);
  ASSERT_TRUE(r.BeginStruct().has_value());
  field(Type::kI32, 1);
  EXPECT_EQ(r.ReadI32().value(), 42);
  field(Type::kStop, 0);
  r.EndStruct();
  field(Type::kList, 9);
  auto list = r.ReadListHeader();
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(list->element, Type::kBool);
  EXPECT_EQ(list->size, 3u);
  EXPECT_EQ(r.ReadBool().value(), true);
  EXPECT_EQ(r.ReadBool().value(), false);
  EXPECT_EQ(r.ReadBool().value(), true);
  field(Type::kSet, 10);
  auto set = r.ReadListHeader();
  ASSERT_TRUE(set.has_value());
  EXPECT_EQ(set->size, 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(r.ReadI64().value(), i * 1000);
  field(Type::kMap, 11);
  auto map = r.ReadMapHeader();
  ASSERT_TRUE(map.has_value());
  EXPECT_EQ(map->key, Type::kBinary);
  EXPECT_EQ(map->value, Type::kI32);
  EXPECT_EQ(map->size, 1u);
  EXPECT_EQ(r.ReadBinary().value(), "k");
  EXPECT_EQ(r.ReadI32().value(), -5);
  field(Type::kBool, 12);
  EXPECT_EQ(r.ReadBool().value(), false);
  field(Type::kStop, 0);
  r.EndStruct();
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(CompactReaderTest, ReadsBoolElementsWrittenAsZeroForFalse) {
  // Older writers wrote false list elements as 0, and the element type of bool lists as 2.
  const std::string bytes = Bytes({0x22, 0x00, 0x01});
  CompactReader r(bytes, kDefaultLimits);
  auto list = r.ReadListHeader();
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(list->element, Type::kBool);
  EXPECT_EQ(r.ReadBool().value(), false);
  EXPECT_EQ(r.ReadBool().value(), true);
  const std::string bad = Bytes({0x03});
  CompactReader r2(bad, kDefaultLimits);
  EXPECT_FALSE(r2.ReadBool().has_value());
}

// A struct holding one unknown field of `type` (written by `write_value`) between two known
// fields: skipping it must land exactly on the second known field.
void ExpectSkips(Type type, const std::function<void(CompactWriter&)>& write_value) {
  std::string out;
  CompactWriter w(out);
  w.BeginStruct();
  w.I32Field(1, 11);
  if (type == Type::kBool) {
    w.BoolField(40, true);
  } else {
    w.BeginField(type, 40);
    write_value(w);
  }
  w.I32Field(41, 22);
  w.EndStruct();

  CompactReader r(out, kDefaultLimits);
  ASSERT_TRUE(r.BeginStruct().has_value());
  ASSERT_EQ(r.ReadFieldHeader()->id, 1);
  ASSERT_EQ(r.ReadI32().value(), 11);
  auto unknown = r.ReadFieldHeader();
  ASSERT_TRUE(unknown.has_value());
  ASSERT_EQ(unknown->type, type);
  auto skipped = r.Skip(unknown->type);
  ASSERT_TRUE(skipped.has_value()) << TypeName(type) << ": " << skipped.error().message();
  auto next = r.ReadFieldHeader();
  ASSERT_TRUE(next.has_value()) << TypeName(type);
  EXPECT_EQ(next->id, 41) << TypeName(type);
  EXPECT_EQ(r.ReadI32().value(), 22) << TypeName(type);
  EXPECT_EQ(r.ReadFieldHeader()->type, Type::kStop);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(CompactReaderTest, SkipsValuesOfEveryType) {
  ExpectSkips(Type::kBool, nullptr);
  ExpectSkips(Type::kI8, [](CompactWriter& w) { w.I8(-3); });
  ExpectSkips(Type::kI16, [](CompactWriter& w) { w.I16(-300); });
  ExpectSkips(Type::kI32, [](CompactWriter& w) { w.I32(1 << 30); });
  ExpectSkips(Type::kI64, [](CompactWriter& w) { w.I64(-(int64_t{1} << 62)); });
  ExpectSkips(Type::kDouble, [](CompactWriter& w) { w.Double(3.25); });
  ExpectSkips(Type::kBinary, [](CompactWriter& w) { w.Binary(std::string(300, 'x')); });
  ExpectSkips(Type::kList, [](CompactWriter& w) {
    w.BeginList(Type::kBool, 17);
    for (int i = 0; i < 17; ++i) w.Bool(i % 2 == 0);
  });
  ExpectSkips(Type::kSet, [](CompactWriter& w) {
    w.BeginList(Type::kDouble, 2);
    w.Double(1);
    w.Double(2);
  });
  ExpectSkips(Type::kMap, [](CompactWriter& w) {
    w.BeginMap(Type::kBinary, Type::kList, 2);
    for (int i = 0; i < 2; ++i) {
      w.Binary("key");
      w.BeginList(Type::kStruct, 1);
      w.BeginStruct();
      w.BoolField(3, false);
      w.BinaryField(300, "deep");  // long-form id inside a skipped struct
      w.EndStruct();
    }
  });
  ExpectSkips(Type::kMap, [](CompactWriter& w) { w.BeginMap(Type::kI32, Type::kI32, 0); });
  ExpectSkips(Type::kStruct, [](CompactWriter& w) {
    w.BeginStruct();
    w.BoolField(1, true);
    w.BeginField(Type::kStruct, 2);
    w.BeginStruct();
    w.DoubleField(1, 0.5);
    w.EndStruct();
    w.I64Field(-7, 9);  // a negative id, as Thrift gives fields without one
    w.EndStruct();
  });
}

Status ReadAll(std::string_view bytes, const MetadataLimits& limits = kDefaultLimits) {
  CompactReader r(bytes, limits);
  SLUICE_TRY(r.BeginStruct());
  while (true) {
    SLUICE_ASSIGN_OR_RETURN(FieldHeader f, r.ReadFieldHeader());
    if (f.type == Type::kStop) break;
    SLUICE_TRY(r.Skip(f.type));
  }
  return Ok();
}

TEST(CompactReaderTest, VarintsAreAtMostTenBytes) {
  // Ten bytes, the tenth holding the 64th bit: the largest i64 zigzag value.
  const std::string ten = Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  CompactReader r(ten, kDefaultLimits);
  EXPECT_EQ(r.ReadI64().value(), std::numeric_limits<int64_t>::min());

  const std::string eleven =
      Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x01});
  CompactReader r2(eleven, kDefaultLimits);
  auto v = r2.ReadI64();
  ASSERT_FALSE(v.has_value());
  EXPECT_EQ(v.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(v.error().message().find("byte 0:"), std::string::npos) << v.error().message();

  const std::string over = Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02});
  CompactReader r3(over, kDefaultLimits);
  EXPECT_FALSE(r3.ReadI64().has_value());
}

TEST(CompactReaderTest, NarrowIntegersOutOfRangeAreErrors) {
  const std::string big = Bytes({0x80, 0x80, 0x80, 0x80, 0x10});  // 2^32
  CompactReader r(big, kDefaultLimits);
  EXPECT_FALSE(r.ReadI32().has_value());
  const std::string wide = Bytes({0x80, 0x80, 0x04});  // 2^16
  CompactReader r2(wide, kDefaultLimits);
  EXPECT_FALSE(r2.ReadI16().has_value());
}

TEST(CompactReaderTest, TruncatedValuesAreErrorsWithTheirOffset) {
  // Field 1, binary of 5 bytes, only 2 there.
  auto st = ReadAll(Bytes({0x18, 0x05, 'a', 'b'}));
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message(), "byte 1: binary of 5 bytes but 2 bytes are left");
  EXPECT_FALSE(ReadAll(Bytes({0x17, 0, 0, 0})).has_value());  // a double cut short
  EXPECT_FALSE(ReadAll(Bytes({0x15, 0x80})).has_value());     // a varint cut short
  EXPECT_FALSE(ReadAll(Bytes({0x15, 0x02})).has_value());     // no stop byte
  EXPECT_FALSE(ReadAll(Bytes({0x1c, 0x15})).has_value());     // a nested struct cut short
  EXPECT_FALSE(ReadAll(Bytes({})).has_value());
}

TEST(CompactReaderTest, UnknownTypesAreErrors) {
  auto st = ReadAll(Bytes({0x1d, 0x00}));
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message(), "byte 0: unknown field type 13");
  EXPECT_FALSE(ReadAll(Bytes({0x19, 0x1e, 0x00, 0x00})).has_value());  // list of type 14
  EXPECT_FALSE(ReadAll(Bytes({0x1b, 0x01, 0xf5, 0x00})).has_value());  // map key type 15
}

TEST(CompactReaderTest, NegativeSizesAreErrors) {
  // 0xffffffff as an i32 is -1.
  auto binary = ReadAll(Bytes({0x18, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00}));
  ASSERT_FALSE(binary.has_value());
  EXPECT_EQ(binary.error().message(), "byte 1: negative or oversized binary size");
  EXPECT_FALSE(ReadAll(Bytes({0x19, 0xf5, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00})).has_value());
  EXPECT_FALSE(ReadAll(Bytes({0x1b, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x55, 0x00})).has_value());
}

TEST(CompactReaderTest, AbsurdSizesFailBeforeAnyAllocation) {
  // A list header claiming 2^31 - 1 elements in 6 bytes: fails on the bytes left at once.
  const std::string list = Bytes({0xfc, 0xff, 0xff, 0xff, 0xff, 0x07});
  CompactReader r(list, kDefaultLimits);
  const auto start = std::chrono::steady_clock::now();
  auto header = r.ReadListHeader();
  ASSERT_FALSE(header.has_value());
  EXPECT_EQ(header.error().message(), "byte 0: list of 2147483647 elements but 0 bytes are left");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));

  // A list of doubles needs 8 bytes each.
  const std::string doubles = Bytes({0x27, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7});
  CompactReader r2(doubles, kDefaultLimits);
  EXPECT_FALSE(r2.ReadListHeader().has_value());

  // Under the bytes left but over the limit on list sizes.
  MetadataLimits small;
  small.max_list_size = 2;
  const std::string three = Bytes({0x35, 0x00, 0x00, 0x00});
  CompactReader r3(three, small);
  auto over = r3.ReadListHeader();
  ASSERT_FALSE(over.has_value());
  EXPECT_EQ(over.error().message(), "byte 0: list of 3 elements is over the limit of 2");

  // A map of 2^30 entries in 7 bytes.
  const std::string map = Bytes({0x80, 0x80, 0x80, 0x80, 0x04, 0x88, 0x00});
  CompactReader r4(map, kDefaultLimits);
  EXPECT_FALSE(r4.ReadMapHeader().has_value());
}

TEST(CompactReaderTest, StringsAreBoundedBySizeAndTotal) {
  MetadataLimits small;
  small.max_string_size = 3;
  auto st = ReadAll(Bytes({0x18, 0x04, 'a', 'b', 'c', 'd', 0x00}), small);
  EXPECT_TRUE(st.has_value());  // skipping allocates nothing: only reading is bounded
  std::string four = Bytes({0x04, 'a', 'b', 'c', 'd'});
  CompactReader r(four, small);
  auto s = r.ReadBinary();
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().message(), "byte 0: binary of 4 bytes is over the limit of 3");

  MetadataLimits total;
  total.max_total_bytes = 5;
  std::string two = Bytes({0x03, 'a', 'b', 'c', 0x03, 'd', 'e', 'f'});
  CompactReader r2(two, total);
  EXPECT_EQ(r2.ReadBinary().value(), "abc");
  auto second = r2.ReadBinary();
  ASSERT_FALSE(second.has_value());
  EXPECT_NE(second.error().message().find("limit of 5 bytes"), std::string::npos);
  EXPECT_FALSE(r2.ChargeElements(std::numeric_limits<size_t>::max(), 16).has_value());
}

TEST(CompactReaderTest, NestingIsBoundedWhenSkipping) {
  // 10,000 structs, each the first field of the one around it, inside an unknown field.
  std::string deep = Bytes({0x1c});
  for (int i = 0; i < 10000; ++i) deep.push_back(0x1c);
  deep.append(10002, '\0');
  auto st = ReadAll(deep);
  ASSERT_FALSE(st.has_value());
  EXPECT_NE(st.error().message().find("nested deeper than 64"), std::string::npos)
      << st.error().message();

  // Lists of lists count too.
  std::string lists = Bytes({0x19});
  for (int i = 0; i < 10000; ++i) lists.push_back(0x19);
  lists.push_back(0x05);
  lists.push_back(0x00);
  EXPECT_FALSE(ReadAll(lists).has_value());

  // Within the limit, the same shape reads.
  std::string shallow = Bytes({0x1c});
  for (int i = 0; i < 60; ++i) shallow.push_back(0x1c);
  shallow.append(62, '\0');
  EXPECT_TRUE(ReadAll(shallow).has_value());
}

TEST(CompactReaderTest, NestingIsBoundedWhenDecoding) {
  MetadataLimits limits;
  limits.max_nesting = 3;
  const std::string empty;
  CompactReader r(empty, limits);
  EXPECT_TRUE(r.BeginStruct().has_value());
  EXPECT_TRUE(r.BeginStruct().has_value());
  EXPECT_TRUE(r.BeginStruct().has_value());
  EXPECT_FALSE(r.BeginStruct().has_value());
}

TEST(CompactReaderTest, FieldIdsPastInt16AreErrors) {
  // Long form 32767, then a delta of 1.
  auto st = ReadAll(Bytes({0x05, 0xfe, 0xff, 0x03, 0x00, 0x15, 0x00, 0x00}));
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message(), "byte 5: field id over 32767");
}

}  // namespace
}  // namespace sluice::parquet::thrift
