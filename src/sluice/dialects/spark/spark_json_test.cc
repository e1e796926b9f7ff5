#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sluice/base/json.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/schema/canonical.h"
#include "sluice_test_paths.h"

namespace sluice::dialects::spark {
namespace {

using schema::Type;
using schema::TypeKind;

constexpr const char* kMovieV1 =
    R"({"type":"struct","fields":[{"name":"user_id","type":"long","nullable":false,"metadata":{}},)"
    R"({"name":"session_id","type":"string","nullable":true,"metadata":{}},)"
    R"({"name":"movies_watched","type":{"type":"array","elementType":{"type":"struct","fields":[)"
    R"({"name":"movie_id","type":"integer","nullable":true,"metadata":{}},)"
    R"({"name":"title","type":"string","nullable":true,"metadata":{}},)"
    R"({"name":"duration_seconds","type":"long","nullable":true,"metadata":{}},)"
    R"({"name":"completed","type":"boolean","nullable":true,"metadata":{}}]},"containsNull":true},)"
    R"("nullable":true,"metadata":{}}]})";

TEST(SparkJsonTest, ReadsNestedArrayOfStructs) {
  auto r = ReadJson(kMovieV1);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const auto& s = *r->value;
  ASSERT_EQ(s.fields().size(), 3u);
  EXPECT_FALSE(s.fields()[0].nullable());
  EXPECT_EQ(s.fields()[0].type()->kind(), TypeKind::kInt64);
  const auto* movie_id = s.FindField(*schema::FieldPath::Parse("movies_watched[].movie_id"));
  ASSERT_NE(movie_id, nullptr);
  EXPECT_EQ(movie_id->type()->kind(), TypeKind::kInt32);
  EXPECT_TRUE(r->notes.empty());
}

TEST(SparkJsonTest, WritesExactlyWhatSparkWrites) {
  auto r = ReadJson(kMovieV1);
  ASSERT_TRUE(r.has_value());
  auto w = WriteJson(*r->value);
  EXPECT_EQ(w.value, kMovieV1);
  EXPECT_TRUE(w.notes.empty());
}

TEST(SparkJsonTest, AcceptsKeysInAnyOrderAndOptionalNullableMetadata) {
  auto r = ReadJson(R"j({"fields":[{"type":"decimal(10, 2)","name":"amount"}],"type":"struct"})j");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const auto& f = r->value->fields()[0];
  EXPECT_TRUE(f.nullable());
  EXPECT_EQ(f.type()->ToString(), "decimal(10,2)");
  auto bare = ReadJson(R"({"type":"struct","fields":[{"name":"d","type":"decimal"}]})");
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->value->fields()[0].type()->ToString(), "decimal(10,0)");
}

TEST(SparkJsonTest, CommentCharVarcharAndDefaultMetadataBecomeModelSlots) {
  const char* text =
      R"({"type":"struct","fields":[{"name":"v","type":"string","nullable":true,)"
      R"j("metadata":{"comment":"the code","__CHAR_VARCHAR_TYPE_STRING":"varchar(10)","other":1}},)j"
      R"({"name":"n","type":"integer","nullable":true,"metadata":{"CURRENT_DEFAULT":"42"}},)"
      R"({"name":"tags","type":{"type":"array","elementType":"string","containsNull":true},)"
      R"("nullable":true,"metadata":{"__CHAR_VARCHAR_TYPE_STRING":"array<char(3)>"}}]})";
  auto r = ReadJson(text);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const auto& v = r->value->fields()[0];
  EXPECT_EQ(v.type()->ToString(), "varchar(10)");
  EXPECT_EQ(v.doc(), "the code");
  ASSERT_EQ(v.metadata().size(), 1u);
  EXPECT_NE(v.metadata().Find("other"), nullptr);
  const auto& n = r->value->fields()[1];
  ASSERT_TRUE(n.default_value().has_value());
  EXPECT_EQ(n.default_value()->as_int64(), 42);
  EXPECT_EQ(r->value->fields()[2].type()->ToString(), "array<char(3)>");

  // And back: Spark's table-schema convention (string + metadata), parsing to the same model.
  auto w = WriteJson(*r->value);
  auto again = ReadJson(w.value);
  ASSERT_TRUE(again.has_value()) << w.value;
  EXPECT_TRUE(again->value->Equals(*r->value)) << w.value;
  EXPECT_NE(w.value.find(R"("type":"string")"), std::string::npos);
  EXPECT_NE(w.value.find(R"j("__CHAR_VARCHAR_TYPE_STRING":"varchar(10)")j"), std::string::npos);
}

TEST(SparkJsonTest, MapsTimestampsAndVoid) {
  auto r =
      ReadJson(R"({"type":"struct","fields":[{"name":"m","type":{"type":"map","keyType":"string",)"
               R"("valueType":"double","valueContainsNull":false},"nullable":true,"metadata":{}},)"
               R"({"name":"t","type":"timestamp_ntz","nullable":true,"metadata":{}},)"
               R"({"name":"l","type":"timestamp_ltz","nullable":true,"metadata":{}},)"
               R"({"name":"z","type":"void","nullable":true,"metadata":{}}]})");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const auto& f = r->value->fields();
  EXPECT_EQ(f[0].type()->ToString(), "map<string, float64 not null>");
  EXPECT_EQ(f[1].type()->kind(), TypeKind::kTimestampNtz);
  EXPECT_EQ(f[2].type()->kind(), TypeKind::kTimestamp);
  EXPECT_EQ(f[3].type()->kind(), TypeKind::kNull);
}

TEST(SparkJsonTest, ReportsTypesSparkLacksWhenWriting) {
  auto s = schema::Schema::Make({schema::Field("id", Type::Uuid()),
                                 schema::Field("at", Type::Timestamp(schema::TimeUnit::kNanos)),
                                 schema::Field("tod", Type::Time())});
  ASSERT_TRUE(s.has_value());
  auto w = WriteJson(**s);
  ASSERT_EQ(w.notes.size(), 3u);
  EXPECT_EQ(w.notes[0].path.ToString(), "id");
  EXPECT_NE(w.notes[0].message.find("uuid written as string"), std::string::npos);
  EXPECT_NE(w.value.find(R"("name":"tod","type":"long")"), std::string::npos);
}

TEST(SparkJsonTest, ErrorsNameOffsetAndFieldPath) {
  auto r = ReadJson(R"({"type":"struct","fields":[{"name":"a","type":{"type":"struct","fields":[)"
                    R"({"name":"b","type":"strin","nullable":true,"metadata":{}}]}}]})");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kParseError);
  EXPECT_NE(r.error().message().find("field a.b: unknown type \"strin\""), std::string::npos)
      << r.error().message();
  EXPECT_NE(r.error().message().find("line 1, column 93 (offset 92)"), std::string::npos)
      << r.error().message();
}

TEST(SparkJsonTest, RejectsHostileInput) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += R"({"type":"array","elementType":)";
  const std::string cases[] = {
      "",
      "{",
      "[]",
      R"({"type":"struct"})",
      R"({"type":"struct","fields":[{"type":"long"}]})",
      R"({"type":"struct","fields":[{"name":"a","type":"long"},{"name":"a","type":"long"}]})",
      R"j({"type":"struct","fields":[{"name":"a","type":"decimal(40,2)"}]})j",
      R"j({"type":"struct","fields":[{"name":"a","type":"decimal(99999999999,2)"}]})j",
      R"({"type":"struct","fields":[{"name":"a","type":"long","nullable":"yes"}]})",
      R"({"type":"struct","fields":[{"name":"a","type":{"type":"map","keyType":"void","valueType":"long"}}]})",
      R"({"type":"struct","fields":[{"name":"a","type":"interval day"}]})",
      std::string(R"({"type":"struct","fields":[{"name":"a)") + "\xff" + R"(","type":"long"}]})",
      R"({"type":"struct","fields":[{"name":"a","type":)" + deep,
  };
  for (const auto& c : cases) {
    auto r = ReadJson(c);
    EXPECT_FALSE(r.has_value()) << "accepted: " << c.substr(0, 120);
  }
  // 200 levels: deeper than the model allows, shallower than the JSON parser's limit.
  std::string nested = R"({"type":"struct","fields":[{"name":"a","type":)";
  for (int i = 0; i < 200; ++i) nested += R"({"type":"array","elementType":)";
  nested += "\"long\"";
  for (int i = 0; i < 200; ++i) nested += R"(,"containsNull":true})";
  nested += "}]}";
  auto r = ReadJson(nested);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("deeper than"), std::string::npos);
}

TEST(SparkJsonTest, SparkMd5MatchesPySparkSchemaJson) {
  // Seed 000's original_schema; PySpark's schema.json() is
  // json.dumps(jsonValue, separators=(",", ":"), sort_keys=True), whose MD5 this is
  // (computed with Python's hashlib on that exact text).
  auto s = schema::Schema::Make({schema::Field("transaction_id", Type::Int64(), false),
                                 schema::Field("amount", Type::Int64(), false),
                                 schema::Field("timestamp", Type::Int64(), false)});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(SparkMd5(**s), "dc6e5acd2e39a9919c67c0babf33a75f");
}

// Every schemaString in the Delta golden tables was written by Spark's StructType.json: reading
// and writing it again must give the same bytes.
TEST(SparkJsonTest, DeltaGoldenSchemaStringsRoundTripByteForByte) {
  std::filesystem::path root =
      std::filesystem::path(SLUICE_SHARED_DIR) / "conformance/delta-golden";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "no " << root;
  int checked = 0;
  for (const auto& table : std::filesystem::directory_iterator(root)) {
    std::filesystem::path log = table.path() / "_delta_log";
    if (!std::filesystem::exists(log)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(log)) {
      if (entry.path().extension() != ".json") continue;
      std::ifstream in(entry.path());
      std::string line;
      while (std::getline(in, line)) {
        auto action = ParseJson(line);
        ASSERT_TRUE(action.has_value()) << entry.path();
        const JsonValue* md = action->Find("metaData");
        if (md == nullptr || md->Find("schemaString") == nullptr) continue;
        const std::string& ss = md->Find("schemaString")->as_string();
        auto r = ReadJson(ss);
        ASSERT_TRUE(r.has_value()) << entry.path() << ": " << r.error().ToString();
        EXPECT_EQ(WriteJson(*r->value).value, ss) << entry.path();
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 9);
}

}  // namespace
}  // namespace sluice::dialects::spark
