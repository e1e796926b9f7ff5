#include <gtest/gtest.h>

#include "sluice/dialects/spark/spark.h"

namespace sluice::dialects::spark {
namespace {

using schema::Type;
using schema::TypeKind;

TEST(SparkDdlTest, ReadsSeedColumnList) {
  // Seed 000: createDataFrame(..., schema="user_id long, email string, age int, loyalty_tier
  // string")
  auto r = ReadDdl("user_id long, email string, age int, loyalty_tier string");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const auto& f = r->value->fields();
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].name(), "user_id");
  EXPECT_EQ(f[0].type()->kind(), TypeKind::kInt64);
  EXPECT_EQ(f[2].type()->kind(), TypeKind::kInt32);
  EXPECT_TRUE(f[3].nullable());
}

TEST(SparkDdlTest, EveryTypeAlias) {
  struct Case {
    const char* ddl;
    const char* model;
  } cases[] = {
      {"BIGINT", "int64"},
      {"LONG", "int64"},
      {"INT", "int32"},
      {"INTEGER", "int32"},
      {"SMALLINT", "int16"},
      {"SHORT", "int16"},
      {"TINYINT", "int8"},
      {"BYTE", "int8"},
      {"DOUBLE", "float64"},
      {"FLOAT", "float32"},
      {"REAL", "float32"},
      {"DECIMAL", "decimal(10,0)"},
      {"DECIMAL(5)", "decimal(5,0)"},
      {"DEC(12, 3)", "decimal(12,3)"},
      {"NUMERIC(38,38)", "decimal(38,38)"},
      {"BOOLEAN", "boolean"},
      {"STRING", "string"},
      {"VARCHAR(20)", "varchar(20)"},
      {"CHAR(2)", "char(2)"},
      {"CHARACTER(2)", "char(2)"},
      {"DATE", "date"},
      {"TIMESTAMP", "timestamp"},
      {"TIMESTAMP_LTZ", "timestamp"},
      {"TIMESTAMP_NTZ", "timestamp_ntz"},
      {"BINARY", "binary"},
      {"VOID", "null"},
      {"bigint", "int64"},
      {"Decimal(10,2)", "decimal(10,2)"},
      {"integer", "int32"},
  };
  for (const auto& c : cases) {
    auto t = ParseDataType(c.ddl);
    ASSERT_TRUE(t.has_value()) << c.ddl << ": " << t.error().ToString();
    EXPECT_EQ((*t)->ToString(), c.model) << c.ddl;
  }
}

TEST(SparkDdlTest, NestedTypesNotNullCommentsAndBackquotes) {
  auto r = ReadDdl(
      "`user id` BIGINT NOT NULL COMMENT 'the user\\'s id', "
      "s STRUCT<a: INT, b: ARRAY<STRING>, `c.d` MAP<STRING,INT> NOT NULL COMMENT \"x\">, "
      "m MAP<STRING, ARRAY<STRUCT<q:DOUBLE>>>, e STRUCT<>");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const auto& f = r->value->fields();
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].name(), "user id");
  EXPECT_FALSE(f[0].nullable());
  EXPECT_EQ(f[0].doc(), "the user's id");
  EXPECT_EQ(f[1].type()->ToString(),
            "struct<a: int32, b: array<string>, `c.d`: map<string, int32> not null>");
  EXPECT_EQ(f[1].type()->fields()[2].doc(), "x");
  EXPECT_EQ(f[2].type()->ToString(), "map<string, array<struct<q: float64>>>");
  EXPECT_EQ(f[3].type()->fields().size(), 0u);
}

TEST(SparkDdlTest, ReadsASingleStructType) {
  auto r = ReadDdl("STRUCT<a: INT, b: ARRAY<STRING>>");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ASSERT_EQ(r->value->fields().size(), 2u);
  EXPECT_EQ(r->value->fields()[1].type()->ToString(), "array<string>");
}

TEST(SparkDdlTest, WritesToDdlForm) {
  auto r = ReadDdl(
      "id BIGINT NOT NULL COMMENT 'it''s', `odd name` STRUCT<a: INT NOT NULL, b: MAP<STRING, "
      "DECIMAL(10,2)>>, v VARCHAR(10), t TIMESTAMP_NTZ");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  auto w = WriteDdl(*r->value);
  EXPECT_EQ(w.value,
            "id BIGINT NOT NULL COMMENT 'its',`odd name` STRUCT<a: INT NOT NULL, b: MAP<STRING, "
            "DECIMAL(10,2)>>,v VARCHAR(10),t TIMESTAMP_NTZ");
  EXPECT_TRUE(w.notes.empty());
  auto again = ReadDdl(w.value);
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(again->value->Equals(*r->value));
}

TEST(SparkDdlTest, CommentsWithQuotesAndBackslashesRoundTrip) {
  auto s = schema::Schema::Make(
      {schema::Field("a", Type::String()).set_doc(std::string("it's a \\ path\n"))});
  ASSERT_TRUE(s.has_value());
  auto w = WriteDdl(**s);
  EXPECT_EQ(w.value, "a STRING COMMENT 'it\\'s a \\\\ path\n'");
  auto back = ReadDdl(w.value);
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  EXPECT_EQ(back->value->fields()[0].doc(), "it's a \\ path\n");
}

TEST(SparkDdlTest, DefaultsRoundTripAsLiterals) {
  auto r = ReadDdl(
      "n INT DEFAULT 42, s STRING DEFAULT 'x', d DOUBLE DEFAULT -1.5, b BOOLEAN DEFAULT TRUE");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->value->fields()[0].default_value()->as_int64(), 42);
  EXPECT_EQ(r->value->fields()[1].default_value()->as_string(), "x");
  EXPECT_EQ(r->value->fields()[2].default_value()->as_double(), -1.5);
  EXPECT_EQ(WriteDdl(*r->value).value,
            "n INT DEFAULT 42,s STRING DEFAULT 'x',d DOUBLE DEFAULT -1.5,b BOOLEAN DEFAULT TRUE");
}

TEST(SparkDdlTest, NotesWhatDdlCannotSay) {
  auto arr = Type::Array(Type::Int32(), false);
  auto s = schema::Schema::Make({schema::Field("xs", *arr), schema::Field("id", Type::Uuid())});
  ASSERT_TRUE(s.has_value());
  auto w = WriteDdl(**s);
  EXPECT_EQ(w.value, "xs ARRAY<INT>,id STRING");
  ASSERT_EQ(w.notes.size(), 2u);
  EXPECT_EQ(w.notes[0].path.ToString(), "xs");
}

TEST(SparkDdlTest, EmptySchemaWritesEmptyDdlWithANote) {
  auto r = ReadDdl("STRUCT<>");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r->value->fields().empty());
  auto w = WriteDdl(*r->value);
  EXPECT_EQ(w.value, "");
  ASSERT_EQ(w.notes.size(), 1u);
  EXPECT_FALSE(ReadDdl(w.value).has_value());
}

TEST(SparkDdlTest, ErrorsPointAtTheOffendingToken) {
  auto r = ReadDdl("a INT, b STRNG");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kParseError);
  EXPECT_NE(r.error().message().find("offset 9"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("unknown data type 'STRNG'"), std::string::npos);
  auto u = ReadDdl("i INTERVAL DAY");
  ASSERT_FALSE(u.has_value());
  EXPECT_EQ(u.error().code(), ErrorCode::kUnimplemented);
}

TEST(SparkDdlTest, RejectsHostileInput) {
  std::string deep = "a ";
  for (int i = 0; i < 100000; ++i) deep += "ARRAY<";
  const std::string cases[] = {
      "",
      "   ",
      "a",
      "a INT,",
      ", a INT",
      "a INT b INT",
      "a ARRAY<INT",
      "a MAP<INT>",
      "a STRUCT<b INT",
      "a DECIMAL(40,1)",
      "a DECIMAL(5,6)",
      "a VARCHAR",
      "a VARCHAR(0)",
      "a INT(3)",
      "a DECIMAL(99999999999999)",
      "`unterminated INT",
      "a INT COMMENT",
      "a INT COMMENT 'x",
      "a INT, a INT",
      "a MAP<VOID, INT>",
      "a INT NOT",
      "\xff INT",
      "a @",
      "a INT /* open",
      deep,
  };
  for (const auto& c : cases) {
    auto r = ReadDdl(c);
    EXPECT_FALSE(r.has_value()) << "accepted: " << c.substr(0, 80);
  }
}

TEST(SparkDdlTest, DataTypeNameUsesSeedContractSpelling) {
  EXPECT_EQ(DataTypeName(*Type::Int64()), "long");
  EXPECT_EQ(DataTypeName(**Type::Decimal(10, 2)), "decimal(10,2)");
  auto t = ParseDataType("array<struct<movie_id:int,title:string not null>>");
  ASSERT_TRUE(t.has_value()) << t.error().ToString();
  EXPECT_EQ(DataTypeName(**t), "array<struct<movie_id: integer, title: string not null>>");
  auto back = ParseDataType(DataTypeName(**t));
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE((*back)->Equals(**t));
}

}  // namespace
}  // namespace sluice::dialects::spark
