#include "sluice/parquet/schema_text.h"

#include <gtest/gtest.h>

#include "sluice/parquet/schema_map.h"

namespace sluice::parquet {
namespace {

using schema::Field;
using schema::Type;

std::string ErrorOf(std::string_view text) {
  auto r = ParseMessageType(text);
  if (r.has_value()) return "accepted";
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  return r.error().message();
}

TEST(SchemaTextTest, ParsesParquetMrOutput) {
  auto r = ParseMessageType(
      "message spark_schema {\n"
      "  required int64 id = 1;\n"
      "  optional binary name (STRING) = 2;\n"
      "  optional int32 small (INTEGER(8,true));\n"
      "  optional fixed_len_byte_array(9) amount (DECIMAL(20,2));\n"
      "  optional int64 at (TIMESTAMP(MICROS,true));\n"
      "  optional group tags (LIST) = 3 {\n"
      "    repeated group list {\n"
      "      optional binary element (STRING);\n"
      "    }\n"
      "  }\n"
      "}\n");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const std::vector<SchemaElement>& e = *r;
  ASSERT_EQ(e.size(), 9u);
  EXPECT_EQ(e[0].name, "spark_schema");
  EXPECT_EQ(e[0].num_children, 6);
  EXPECT_FALSE(e[0].repetition.has_value());
  EXPECT_EQ(e[1].name, "id");
  EXPECT_EQ(e[1].type, PhysicalType::kInt64);
  EXPECT_EQ(e[1].repetition, Repetition::kRequired);
  EXPECT_EQ(e[1].field_id, 1);
  EXPECT_FALSE(e[1].logical_type.has_value());
  EXPECT_EQ(e[2].logical_type->kind, LogicalType::Kind::kString);
  EXPECT_EQ(e[2].converted_type, ConvertedType::kUtf8);
  EXPECT_EQ(e[2].field_id, 2);
  EXPECT_EQ(e[3].logical_type->bit_width, 8);
  EXPECT_TRUE(e[3].logical_type->is_signed);
  EXPECT_EQ(e[3].converted_type, ConvertedType::kInt8);
  EXPECT_EQ(e[4].type, PhysicalType::kFixedLenByteArray);
  EXPECT_EQ(e[4].type_length, 9);
  EXPECT_EQ(e[4].logical_type->decimal_precision, 20);
  EXPECT_EQ(e[4].logical_type->decimal_scale, 2);
  EXPECT_EQ(e[4].precision, 20);
  EXPECT_EQ(e[4].scale, 2);
  EXPECT_EQ(e[4].converted_type, ConvertedType::kDecimal);
  EXPECT_EQ(e[5].logical_type->unit, TimeUnit::kMicros);
  EXPECT_TRUE(e[5].logical_type->adjusted_to_utc);
  EXPECT_EQ(e[5].converted_type, ConvertedType::kTimestampMicros);
  EXPECT_FALSE(e[6].type.has_value());
  EXPECT_EQ(e[6].num_children, 1);
  EXPECT_EQ(e[6].field_id, 3);
  EXPECT_EQ(e[6].converted_type, ConvertedType::kList);
  EXPECT_EQ(e[7].repetition, Repetition::kRepeated);
  EXPECT_EQ(e[8].repetition, Repetition::kOptional);
}

TEST(SchemaTextTest, ConvertedTypesAloneStayAlone) {
  auto r = ParseMessageType(
      "message m {\n"
      "  optional binary s (UTF8);\n"
      "  optional int32 b (INT_8);\n"
      "  optional int64 u (UINT_64);\n"
      "  optional int64 t (TIMESTAMP_MILLIS);\n"
      "  optional int32 tm (TIME_MILLIS);\n"
      "  optional fixed_len_byte_array(12) i (INTERVAL);\n"
      "  optional group m (MAP) {\n"
      "    repeated group map (MAP_KEY_VALUE) {\n"
      "      required binary key (UTF8);\n"
      "    }\n"
      "  }\n"
      "}\n");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const std::vector<ConvertedType> expected = {
      ConvertedType::kUtf8,       ConvertedType::kInt8,
      ConvertedType::kUint64,     ConvertedType::kTimestampMillis,
      ConvertedType::kTimeMillis, ConvertedType::kInterval};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*r)[i + 1].converted_type, expected[i]) << i;
    EXPECT_FALSE((*r)[i + 1].logical_type.has_value()) << i;
  }
  EXPECT_EQ((*r)[8].converted_type, ConvertedType::kMapKeyValue);
  // Printed back the same way.
  EXPECT_EQ(MessageTypeText(*r),
            "message m {\n"
            "  optional binary s (UTF8);\n"
            "  optional int32 b (INT_8);\n"
            "  optional int64 u (UINT_64);\n"
            "  optional int64 t (TIMESTAMP_MILLIS);\n"
            "  optional int32 tm (TIME_MILLIS);\n"
            "  optional fixed_len_byte_array(12) i (INTERVAL);\n"
            "  optional group m (MAP) {\n"
            "    repeated group map (MAP_KEY_VALUE) {\n"
            "      required binary key (UTF8);\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(SchemaTextTest, EveryAnnotationRoundTrips) {
  const std::string text =
      "message spark_schema {\n"
      "  required boolean a;\n"
      "  optional int32 b (INTEGER(16,false)) = 5;\n"
      "  optional int64 c (INTEGER(64,true));\n"
      "  required int96 d;\n"
      "  optional float e;\n"
      "  optional double f;\n"
      "  optional binary g (DECIMAL(40,3));\n"
      "  optional int32 h (DATE);\n"
      "  optional int64 i (TIME(NANOS,true));\n"
      "  optional int64 j (TIMESTAMP(NANOS,false));\n"
      "  optional binary k (ENUM);\n"
      "  optional binary l (JSON);\n"
      "  optional binary m (BSON);\n"
      "  optional fixed_len_byte_array(16) n (UUID);\n"
      "  optional fixed_len_byte_array(2) o (FLOAT16);\n"
      "  optional int32 p (UNKNOWN);\n"
      "  optional binary q (GEOMETRY);\n"
      "  optional binary r (GEOGRAPHY);\n"
      "  optional group s (VARIANT) {\n"
      "    required binary metadata;\n"
      "    required binary value;\n"
      "  }\n"
      "  repeated group t = -3 {\n"
      "    required group u (LIST) {\n"
      "      repeated int32 v;\n"
      "    }\n"
      "  }\n"
      "}\n";
  auto r = ParseMessageType(text);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(MessageTypeText(*r), text);
  auto again = ParseMessageType(MessageTypeText(*r));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, *r);
}

TEST(SchemaTextTest, ElementsSluiceWritesRoundTripExactly) {
  auto model = schema::Schema::Make({
      Field("b", Type::Boolean()),
      Field("i8", Type::Int8(), false),
      Field("d", *Type::Decimal(30, 9)),
      Field("ts", Type::Timestamp()),
      Field("ntz", Type::TimestampNtz()),
      Field("t", Type::Time(schema::TimeUnit::kMillis)),
      Field("u", Type::Uuid()),
      Field("odd name", *Type::Array(*Type::Map(Type::String(), Type::Date(), false))),
      Field("s", *Type::Struct({Field("x`y", Type::Binary()), Field("{", Type::Float64())})),
  });
  ASSERT_TRUE(model.has_value());
  auto written = ParquetSchema::FromModel(*model);
  ASSERT_TRUE(written.has_value()) << written.error().ToString();
  const std::string text = MessageTypeText(written->value.elements());
  auto parsed = ParseMessageType(text);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString() << "\n" << text;
  EXPECT_EQ(*parsed, written->value.elements()) << text;
  EXPECT_NE(text.find("  optional group `odd name` (LIST) {\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    optional binary `x``y`;\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    optional double `{`;\n"), std::string::npos) << text;
}

TEST(SchemaTextTest, QuotesNamesABareWordCannotCarry) {
  for (std::string name :
       {"a b", "x`y", "(", "a;b", "=", "a,b", "//c", "tab\there", "é ü", "`", "line\nbreak"}) {
    std::vector<SchemaElement> elements(2);
    elements[0].name = "m";
    elements[0].num_children = 1;
    elements[1].name = name;
    elements[1].type = PhysicalType::kInt32;
    elements[1].repetition = Repetition::kOptional;
    auto parsed = ParseMessageType(MessageTypeText(elements));
    ASSERT_TRUE(parsed.has_value()) << name << ": " << parsed.error().ToString();
    EXPECT_EQ((*parsed)[1].name, name);
  }
  std::vector<SchemaElement> bare(2);
  bare[0].name = "m";
  bare[0].num_children = 1;
  bare[1].name = "a/b.c-d:é";
  bare[1].type = PhysicalType::kInt32;
  bare[1].repetition = Repetition::kOptional;
  EXPECT_EQ(MessageTypeText(bare), "message m {\n  optional int32 a/b.c-d:é;\n}\n");
}

TEST(SchemaTextTest, AcceptsCommentsAndTheSpecificationsSemicolonsAfterGroups) {
  auto r = ParseMessageType(
      "// Rule 4: List<OneTuple<String>> (nullable list, non-null elements)\n"
      "message m {\n"
      "  optional group my_list (LIST) {  // the list\n"
      "    repeated group array {\n"
      "      required binary str (STRING);\n"
      "    };\n"
      "  }\n"
      "}");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[2].name, "array");
}

TEST(SchemaTextTest, KeywordsAndAnnotationsIgnoreCase) {
  auto r = ParseMessageType(
      "MESSAGE m { OPTIONAL INT64 a (timestamp(millis,TRUE)); Required Group g { repeated "
      "BINARY s (string); } }");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ((*r)[1].logical_type->unit, TimeUnit::kMillis);
  EXPECT_EQ((*r)[3].logical_type->kind, LogicalType::Kind::kString);
}

TEST(SchemaTextTest, ErrorsNameTheOffset) {
  EXPECT_EQ(ErrorOf(""), "Parquet message type, offset 0 (line 1, column 1): expected 'message'");
  EXPECT_EQ(ErrorOf("schema m {}"),
            "Parquet message type, offset 0 (line 1, column 1): expected 'message'");
  EXPECT_EQ(ErrorOf("message m {\n  optional int32 a\n}"),
            "Parquet message type, offset 31 (line 3, column 1): expected ';'");
  EXPECT_EQ(ErrorOf("message m {\n  optional int33 a;\n}"),
            "Parquet message type, offset 23 (line 2, column 12): unknown type \"int33\"");
  EXPECT_EQ(ErrorOf("message m {\n  sometimes int32 a;\n}"),
            "Parquet message type, offset 14 (line 2, column 3): expected required, optional "
            "or repeated");
  EXPECT_EQ(ErrorOf("message m { optional int32 a (STRANGE); }"),
            "Parquet message type, offset 30 (line 1, column 31): unknown annotation "
            "\"STRANGE\"");
  EXPECT_EQ(ErrorOf("message m { optional int32 a (INTEGER(12,true)); }"),
            "Parquet message type, offset 38 (line 1, column 39): the bit width must be 8, 16, "
            "32 or 64");
  EXPECT_EQ(ErrorOf("message m { optional int64 a (TIMESTAMP(SECONDS,true)); }"),
            "Parquet message type, offset 40 (line 1, column 41): expected MILLIS, MICROS or "
            "NANOS");
  EXPECT_EQ(ErrorOf("message m { optional int64 a (TIME(MILLIS,yes)); }"),
            "Parquet message type, offset 42 (line 1, column 43): expected isAdjustedToUTC: "
            "true or false");
  EXPECT_EQ(ErrorOf("message m { optional int64 a = 99999999999; }"),
            "Parquet message type, offset 31 (line 1, column 32): expected a field id: an "
            "integer that fits in 32 bits");
  EXPECT_EQ(ErrorOf("message m { optional fixed_len_byte_array a; }"),
            "Parquet message type, offset 42 (line 1, column 43): expected '(' and the length "
            "of a fixed_len_byte_array");
  EXPECT_EQ(ErrorOf("message m { optional int32 `a; }"),
            "Parquet message type, offset 27 (line 1, column 28): unterminated quoted name");
  EXPECT_EQ(ErrorOf("message m { optional int32 a; } trailing"),
            "Parquet message type, offset 32 (line 1, column 33): unexpected text after the "
            "message");
  EXPECT_EQ(ErrorOf("message m { optional group g { optional int32 a; }"),
            "Parquet message type, offset 50 (line 1, column 51): expected '}' or a field");
  EXPECT_EQ(ErrorOf("message m { optional int32 ; }"),
            "Parquet message type, offset 27 (line 1, column 28): expected a name");
}

TEST(SchemaTextTest, BoundsNestingWithoutRecursingFurther) {
  std::string deep = "message m {";
  for (int i = 0; i < 100'000; ++i) deep += "required group g {";
  const std::string message = ErrorOf(deep);
  EXPECT_NE(message.find("groups nest deeper than 258 levels"), std::string::npos) << message;
}

TEST(SchemaTextTest, EveryPrefixOfAValidTextFailsCleanly) {
  const std::string text =
      "message m {\n"
      "  optional group l (LIST) = 4 {\n"
      "    repeated group list {\n"
      "      optional fixed_len_byte_array(9) element (DECIMAL(20,2));\n"
      "    }\n"
      "  }\n"
      "  required int64 `a b` (TIMESTAMP(MICROS,false));\n"
      "}";
  ASSERT_TRUE(ParseMessageType(text).has_value());
  for (size_t n = 0; n < text.size(); ++n) {
    auto r = ParseMessageType(std::string_view(text).substr(0, n));
    EXPECT_FALSE(r.has_value()) << n;
  }
}

TEST(SchemaTextTest, PrintsMalformedTreesAsFarAsTheyGo) {
  std::vector<SchemaElement> elements(3);
  elements[0].name = "m";
  elements[0].num_children = 5;  // more than there are
  elements[1].name = "g";
  elements[1].repetition = Repetition::kOptional;
  elements[1].num_children = 4;
  elements[2].name = "x";
  elements[2].type = PhysicalType::kInt32;
  elements[2].repetition = Repetition::kRequired;
  EXPECT_EQ(MessageTypeText(elements),
            "message m {\n"
            "  optional group g {\n"
            "    required int32 x;\n"
            "  }\n"
            "}\n");
  elements[0].num_children = 1;
  elements[1].num_children = 0;  // an empty group, then an element outside the root
  EXPECT_EQ(MessageTypeText(elements),
            "message m {\n"
            "  optional group g {\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(MessageTypeText({}), "");
}

TEST(SchemaTextTest, CutsOffTreesDeeperThanTheLimit) {
  std::vector<SchemaElement> chain(1);
  chain[0].name = "m";
  chain[0].num_children = 1;
  for (int i = 0; i < 10'000; ++i) {
    SchemaElement g;
    g.name = "g";
    g.repetition = Repetition::kRequired;
    g.num_children = 1;
    chain.push_back(g);
  }
  const std::string text = MessageTypeText(chain);
  EXPECT_NE(text.find("...\n"), std::string::npos);
  EXPECT_LT(text.size(), 200'000u);
}

}  // namespace
}  // namespace sluice::parquet
