// The registry and the promise every dialect makes: a conversion either round-trips exactly or
// says what it lost. For each readable format and a set of schemas, write then read back; when
// neither step reports a note, `sluice diff` must find no change between the two.
#include "sluice/dialects/format.h"

#include <gtest/gtest.h>

#include "sluice/dialects/spark/spark.h"
#include "sluice/evolution/diff.h"
#include "sluice/schema/canonical.h"

namespace sluice::dialects {
namespace {

using schema::SchemaPtr;

SchemaPtr FromDdl(const char* ddl) {
  auto r = spark::ReadDdl(ddl);
  EXPECT_TRUE(r.has_value()) << ddl;
  return r->value;
}

std::vector<std::pair<std::string, SchemaPtr>> Schemas() {
  return {
      {"seed 001 v1",
       FromDdl("user_id BIGINT NOT NULL, session_id STRING, movies_watched ARRAY<STRUCT<movie_id: "
               "INT, title: STRING, duration_seconds BIGINT, completed BOOLEAN>>")},
      {"seed 001 v2",
       FromDdl(
           "user_id BIGINT NOT NULL, session_id STRING, movies_watched ARRAY<STRUCT<movie_id: "
           "STRING, title: STRING, duration_seconds BIGINT, completed BOOLEAN, rating FLOAT>>")},
      {"seed 000 contract",
       FromDdl("order_id BIGINT NOT NULL, customer_id BIGINT NOT NULL, total_amount DECIMAL(10,2) "
               "NOT NULL, created_at TIMESTAMP NOT NULL")},
      {"seed 002 orders",
       FromDdl("order_id INT, customer_id INT, order_amount DOUBLE, order_date STRING")},
      {"every primitive",
       FromDdl("a BOOLEAN, b TINYINT, c SMALLINT, d INT, e BIGINT, f FLOAT, g DOUBLE, h "
               "DECIMAL(38,10), i STRING, j BINARY, k DATE, l TIMESTAMP, m TIMESTAMP_NTZ, "
               "n VARCHAR(12), o CHAR(3)")},
      {"nesting",
       FromDdl("s STRUCT<a: STRUCT<b: ARRAY<STRUCT<c: INT NOT NULL>>>> NOT NULL COMMENT 'deep', "
               "m MAP<STRING, STRUCT<x: DOUBLE>>, tags ARRAY<STRING>")},
  };
}

TEST(FormatTest, NamesRoundTripAndUnknownNamesAreRejected) {
  for (const auto& f : AllFormats()) {
    auto parsed = ParseFormatName(f.name);
    ASSERT_TRUE(parsed.has_value()) << f.name;
    EXPECT_EQ(*parsed, f.format);
    EXPECT_EQ(FormatName(f.format), f.name);
  }
  auto bad = ParseFormatName("xml");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("spark-json"), std::string::npos);
}

TEST(FormatTest, EveryConversionIsExactOrSaysWhatItLost) {
  for (const auto& [label, s] : Schemas()) {
    for (const auto& f : AllFormats()) {
      if (!f.readable || !f.writable) continue;
      auto written = WriteSchema(*s, f.format);
      ASSERT_TRUE(written.has_value())
          << label << " -> " << f.name << ": " << written.error().ToString();
      auto back = ReadSchema(written->value, f.format);
      ASSERT_TRUE(back.has_value())
          << label << " -> " << f.name << " -> back: " << back.error().ToString() << "\n"
          << written->value;
      if (written->notes.empty() && back->notes.empty()) {
        EXPECT_TRUE(evolution::Diff(*s, *back->value, {.case_sensitive = true}).empty())
            << label << " via " << f.name << " changed without a note:\n"
            << schema::CanonicalForm(*s) << "\n"
            << schema::CanonicalForm(*back->value) << "\n"
            << written->value;
      }
    }
  }
}

TEST(FormatTest, DetectsEachLanguage) {
  struct Case {
    const char* path;
    const char* content;
    Format want;
  } cases[] = {
      {"x.json", R"({"type":"struct","fields":[]})", Format::kSparkJson},
      {"x.json", R"({"type":"record","name":"r","fields":[]})", Format::kAvro},
      {"x.avsc", R"("string")", Format::kAvro},
      {"x.json", R"(["null","string"])", Format::kAvro},
      {"x.json", R"({"$schema":"https://json-schema.org/draft/2020-12/schema"})",
       Format::kJsonSchema},
      {"x.json", R"({"type":"object","properties":{"a":{"type":"integer"}}})", Format::kJsonSchema},
      {"x.schema.json", R"({"type":"array","items":{"type":"integer"}})", Format::kJsonSchema},
      {"x.ddl", "a INT", Format::kSparkDdl},
      {"x.txt", "a INT, b STRING", Format::kSparkDdl},
      {"c.yaml", "version: 1.0\nrequired_columns:\n  - name: a\n    type: long\n",
       Format::kContract},
      {"c.yaml", "apiVersion: v3.1.0\nkind: DataContract\nid: x\n", Format::kOdcs},
  };
  for (const auto& c : cases) {
    auto f = DetectFormat(c.path, c.content);
    ASSERT_TRUE(f.has_value()) << c.path << " " << c.content << ": " << f.error().ToString();
    EXPECT_EQ(FormatName(*f), FormatName(c.want)) << c.content;
  }
  EXPECT_FALSE(DetectFormat("x.json", "").has_value());
  EXPECT_FALSE(DetectFormat("x.json", R"({"hello":"world"})").has_value());
  EXPECT_FALSE(DetectFormat("x.yaml", "just: yaml\n").has_value());
}

TEST(FormatTest, OutputOnlyFormatsCannotBeRead) {
  for (const auto& f : AllFormats()) {
    if (f.readable) continue;
    auto r = ReadSchema("a INT", f.format);
    ASSERT_FALSE(r.has_value()) << f.name;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  }
}

TEST(FormatTest, AvroToAvroKeepsEnums) {
  const char* avsc =
      R"({"type":"record","name":"r","fields":[{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}}]})";
  auto same = Convert(avsc, Format::kAvro, Format::kAvroCanonical);
  ASSERT_TRUE(same.has_value()) << same.error().ToString();
  EXPECT_EQ(
      same->value,
      R"({"name":"r","type":"record","fields":[{"name":"e","type":{"name":"E","type":"enum","symbols":["A","B"]}}]})");
  EXPECT_TRUE(same->notes.empty());
  auto via_model = Convert(avsc, Format::kAvro, Format::kSparkJson);
  ASSERT_TRUE(via_model.has_value());
  EXPECT_FALSE(via_model->notes.empty());  // enum symbols are lost in the model
}

}  // namespace
}  // namespace sluice::dialects
