#include <gtest/gtest.h>

#include "sluice/dialects/contract/physical_type_internal.h"

namespace sluice::dialects::contract::internal {
namespace {

struct Case {
  const char* text;
  const char* type;  // schema::Type::ToString(), or "" for no type
  TypeFamily family;
};

TEST(PhysicalTypeTest, ReadsCommonSqlTypeNames) {
  const Case cases[] = {
      {"VARCHAR(36)", "varchar(36)", TypeFamily::kString},
      {"varchar", "string", TypeFamily::kString},
      {"character varying (10)", "varchar(10)", TypeFamily::kString},
      {"CHAR(2)", "char(2)", TypeFamily::kString},
      {"char", "char(1)", TypeFamily::kString},
      {"TEXT", "string", TypeFamily::kString},
      {"string", "string", TypeFamily::kString},
      {"VARCHAR(MAX)", "string", TypeFamily::kString},
      {"uuid", "uuid", TypeFamily::kString},
      {"BYTEA", "binary", TypeFamily::kString},
      {"BIGINT", "int64", TypeFamily::kInteger},
      {"int8", "int64", TypeFamily::kInteger},
      {"LONG", "int64", TypeFamily::kInteger},
      {"INT", "int32", TypeFamily::kInteger},
      {"integer", "int32", TypeFamily::kInteger},
      {"INT4", "int32", TypeFamily::kInteger},
      {"INT(11)", "int32", TypeFamily::kInteger},
      {"int unsigned", "int64", TypeFamily::kInteger},
      {"SMALLINT", "int16", TypeFamily::kInteger},
      {"TINYINT", "int8", TypeFamily::kInteger},
      {"DOUBLE", "float64", TypeFamily::kNumber},
      {"FLOAT8", "float64", TypeFamily::kNumber},
      {"double  precision", "float64", TypeFamily::kNumber},
      {"FLOAT", "float32", TypeFamily::kNumber},
      {"REAL", "float32", TypeFamily::kNumber},
      {"FLOAT(53)", "float64", TypeFamily::kNumber},
      {"DECIMAL(10, 2)", "decimal(10,2)", TypeFamily::kNumber},
      {"numeric(38,0)", "decimal(38,0)", TypeFamily::kNumber},
      {"NUMBER(5)", "decimal(5,0)", TypeFamily::kNumber},
      {"BOOLEAN", "boolean", TypeFamily::kBoolean},
      {"bool", "boolean", TypeFamily::kBoolean},
      {"DATE", "date", TypeFamily::kDate},
      {"TIMESTAMP", "timestamp", TypeFamily::kTimestamp},
      {"TIMESTAMP(3)", "timestamp(3)", TypeFamily::kTimestamp},
      {"TIMESTAMP_NTZ", "timestamp_ntz", TypeFamily::kTimestamp},
      {"timestamp without time zone", "timestamp_ntz", TypeFamily::kTimestamp},
      {"TIMESTAMPTZ", "timestamp", TypeFamily::kTimestamp},
      {"timestamp_tz", "timestamp", TypeFamily::kTimestamp},
      {"TIMESTAMP WITH TIME ZONE", "timestamp", TypeFamily::kTimestamp},
      {"timestamp(6) with time zone", "timestamp", TypeFamily::kTimestamp},
      {"DATETIME", "timestamp_ntz", TypeFamily::kTimestamp},
      {"TIME", "time", TypeFamily::kTime},
      {"ARRAY<STRING>", "array<string>", TypeFamily::kArray},
      {"array<struct<a:int>>", "array<struct<a: int32>>", TypeFamily::kArray},
      {"STRUCT<a: INT, b: STRING>", "struct<a: int32, b: string>", TypeFamily::kObject},
      {"MAP<STRING, BIGINT>", "map<string, int64>", TypeFamily::kObject},
      {"integer[]", "array<int32>", TypeFamily::kArray},
      {"text[][]", "array<array<string>>", TypeFamily::kArray},
      {"JSON", "", TypeFamily::kJson},
      {"jsonb", "", TypeFamily::kJson},
      {"VARIANT", "", TypeFamily::kJson},
      {"VOID", "null", TypeFamily::kNull},
      {"GEOGRAPHY", "", TypeFamily::kUnknown},
      {"VARCHAR(abc)", "", TypeFamily::kUnknown},
      {"", "", TypeFamily::kUnknown},
  };
  for (const Case& c : cases) {
    PhysicalType p = ParsePhysicalType(c.text);
    EXPECT_EQ(p.family, c.family) << c.text;
    if (std::string(c.type).empty()) {
      EXPECT_EQ(p.type, nullptr) << c.text;
    } else {
      ASSERT_NE(p.type, nullptr) << c.text;
      EXPECT_EQ(p.type->ToString(), c.type) << c.text;
    }
  }
}

TEST(PhysicalTypeTest, SaysWhetherTimestampNamesTheZone) {
  EXPECT_FALSE(ParsePhysicalType("TIMESTAMP").zone_explicit);
  EXPECT_TRUE(ParsePhysicalType("TIMESTAMPTZ").zone_explicit);
  EXPECT_TRUE(ParsePhysicalType("TIMESTAMP_NTZ").zone_explicit);
}

TEST(PhysicalTypeTest, ExplainsOutOfRangeParameters) {
  PhysicalType p = ParsePhysicalType("DECIMAL(50, 2)");
  EXPECT_EQ(p.type, nullptr);
  EXPECT_EQ(p.family, TypeFamily::kNumber);
  EXPECT_NE(p.problem.find("precision"), std::string::npos) << p.problem;
  PhysicalType bare = ParsePhysicalType("DECIMAL");
  ASSERT_NE(bare.type, nullptr);
  EXPECT_EQ(bare.type->ToString(), "decimal(10,0)");
  EXPECT_FALSE(bare.problem.empty());
}

TEST(PhysicalTypeTest, SurvivesHostileNames) {
  std::string deep;
  for (int i = 0; i < 10'000; ++i) deep += "ARRAY<";
  EXPECT_EQ(ParsePhysicalType(deep).type, nullptr);
  std::string brackets = "INT";
  for (int i = 0; i < 10'000; ++i) brackets += "[]";
  EXPECT_EQ(ParsePhysicalType(brackets).type, nullptr);
  EXPECT_EQ(ParsePhysicalType("VARCHAR(99999999999999999999)").type, nullptr);
  EXPECT_EQ(ParsePhysicalType("(((").type, nullptr);
}

}  // namespace
}  // namespace sluice::dialects::contract::internal
