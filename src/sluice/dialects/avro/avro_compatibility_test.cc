// Avro schema compatibility as Java's SchemaCompatibility reports it. The data-driven cases in
// avro_compat_cases.json are Apache Avro's Java tests (TestSchemaCompatibility*.java, ported as
// data: reader, writer, the verdict and every incompatibility's kind, message and location) and
// sluice's own cases for the rules those tests leave out, each worked out from the Java source.
#include "sluice/dialects/avro/avro_compatibility.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice_test_paths.h"

namespace sluice::dialects::avro {
namespace {

constexpr const char* kCasesFile =
    SLUICE_SOURCE_DIR "/src/sluice/dialects/avro/avro_compat_cases.json";

AvroSchema MustParse(std::string_view text) {
  auto parsed = Parse(text);
  EXPECT_TRUE(parsed.has_value()) << (parsed ? "" : parsed.error().ToString()) << "\n" << text;
  if (!parsed) return std::move(Parse("\"null\"").value());
  return std::move(parsed).value();
}

AvroCompatibility MustCheck(const AvroSchema& reader, const AvroSchema& writer,
                            const AvroCompatibilityOptions& options = {}) {
  auto result = CheckCompatibility(reader, writer, options);
  EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().ToString());
  if (!result) return AvroCompatibility{};
  return std::move(result).value();
}

std::string Summary(const AvroCompatibility& c) {
  std::string out = c.compatible ? "compatible\n" : "incompatible\n";
  for (const AvroIncompatibility& i : c.incompatibilities) {
    out += std::string(AvroIncompatibilityKindName(i.kind)) + " | " + i.message + " | " +
           i.location + "\n";
  }
  return out;
}

TEST(AvroCompatibilityTest, JavaAndSluiceCasesFromTheCaseFile) {
  std::ifstream in(kCasesFile);
  ASSERT_TRUE(in) << kCasesFile;
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto cases = ParseJson(buffer.str());
  ASSERT_TRUE(cases.has_value()) << cases.error().ToString();
  ASSERT_TRUE(cases->is_array());
  ASSERT_GE(cases->items().size(), 150u);
  int java_cases = 0;
  for (const JsonValue& c : cases->items()) {
    const std::string& name = c.Find("name")->as_string();
    SCOPED_TRACE(name);
    if (c.Find("source")->as_string().starts_with("Test")) ++java_cases;
    AvroSchema reader = MustParse(ToJson(*c.Find("reader")));
    AvroSchema writer = MustParse(ToJson(*c.Find("writer")));
    auto result = CheckCompatibility(reader, writer);
    if (const JsonValue* error = c.Find("error")) {
      ASSERT_FALSE(result.has_value()) << Summary(*result);
      EXPECT_EQ(result.error().code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(result.error().message().find(error->as_string()), std::string::npos)
          << result.error().message();
      continue;
    }
    ASSERT_TRUE(result.has_value()) << result.error().ToString();
    std::string expected = c.Find("compatible")->as_bool() ? "compatible\n" : "incompatible\n";
    if (const JsonValue* list = c.Find("incompatibilities")) {
      for (const JsonValue& i : list->items()) {
        expected += i.Find("kind")->as_string() + " | " + i.Find("message")->as_string() + " | " +
                    i.Find("location")->as_string() + "\n";
      }
    }
    EXPECT_EQ(Summary(*result), expected);
    EXPECT_EQ(result->incompatibility_count, result->incompatibilities.size());
  }
  EXPECT_GE(java_cases, 120);
}

TEST(AvroCompatibilityTest, ReaderFieldWithoutDefaultIsIncompatible) {
  AvroSchema writer = MustParse(R"({"type":"record","name":"Movie","fields":[
      {"name":"title","type":"string"}]})");
  AvroSchema reader = MustParse(R"({"type":"record","name":"Movie","fields":[
      {"name":"title","type":"string"},{"name":"rating","type":"int"}]})");
  AvroCompatibility c = MustCheck(reader, writer);
  ASSERT_FALSE(c.compatible);
  ASSERT_EQ(c.incompatibilities.size(), 1u);
  const AvroIncompatibility& i = c.incompatibilities[0];
  EXPECT_EQ(i.kind, AvroIncompatibilityKind::kReaderFieldMissingDefaultValue);
  EXPECT_EQ(i.location, "/fields/1");
  EXPECT_EQ(i.message, "rating");
  EXPECT_EQ(i.reader, &reader.root());
  EXPECT_EQ(i.writer, &writer.root());
  EXPECT_EQ(i.reader_type, "record Movie");
  EXPECT_NE(i.hint.find("give `rating` a default"), std::string::npos) << i.hint;
  EXPECT_NE(i.hint.find("[\"null\", int]"), std::string::npos) << i.hint;
}

TEST(AvroCompatibilityTest, NullableFieldHintSuggestsNullDefault) {
  AvroSchema writer = MustParse(R"({"type":"record","name":"R","fields":[]})");
  AvroSchema reader = MustParse(R"({"type":"record","name":"R","fields":[
      {"name":"note","type":["null","string"]},{"name":"tag","type":["string","null"]}]})");
  AvroCompatibility c = MustCheck(reader, writer);
  ASSERT_EQ(c.incompatibilities.size(), 2u);
  EXPECT_NE(c.incompatibilities[0].hint.find("\"default\": null"), std::string::npos);
  EXPECT_NE(c.incompatibilities[1].hint.find("move \"null\" first"), std::string::npos)
      << c.incompatibilities[1].hint;
}

TEST(AvroCompatibilityTest, MissingEnumSymbolHintNamesTheSymbolAndTheDefault) {
  AvroSchema writer =
      MustParse(R"({"type":"enum","name":"Tier","symbols":["BRONZE","SILVER","GOLD"]})");
  AvroSchema reader = MustParse(R"({"type":"enum","name":"Tier","symbols":["BRONZE","SILVER"]})");
  AvroCompatibility c = MustCheck(reader, writer);
  ASSERT_EQ(c.incompatibilities.size(), 1u);
  EXPECT_EQ(c.incompatibilities[0].message, "[GOLD]");
  EXPECT_NE(c.incompatibilities[0].hint.find("add the symbol GOLD to the reader enum `Tier`"),
            std::string::npos)
      << c.incompatibilities[0].hint;
  EXPECT_NE(c.incompatibilities[0].hint.find("give the enum a default"), std::string::npos);
}

TEST(AvroCompatibilityTest, TypeMismatchHintListsThePromotions) {
  AvroSchema writer = MustParse(R"({"type":"record","name":"R","fields":[
      {"name":"id","type":"int"}]})");
  AvroSchema reader = MustParse(R"({"type":"record","name":"R","fields":[
      {"name":"id","type":"string"}]})");
  AvroCompatibility c = MustCheck(reader, writer);
  ASSERT_EQ(c.incompatibilities.size(), 1u);
  const AvroIncompatibility& i = c.incompatibilities[0];
  EXPECT_EQ(i.message, "reader type: STRING not compatible with writer type: INT");
  EXPECT_EQ(i.location, "/fields/0/type");
  EXPECT_EQ(i.reader, &reader.root().fields()[0].type());
  EXPECT_EQ(i.writer, &writer.root().fields()[0].type());
  EXPECT_EQ(i.hint.rfind("int cannot be read as string; Avro promotes only int to long", 0), 0u)
      << i.hint;
}

TEST(AvroCompatibilityTest, EnumDefaultWithoutFieldDefaultHintExplainsJavasMismatch) {
  AvroSchema writer = MustParse(R"({"type":"record","name":"R","fields":[]})");
  AvroSchema reader = MustParse(R"({"type":"record","name":"R","fields":[
      {"name":"tier","type":{"type":"enum","name":"T","symbols":["A","B"],"default":"A"}}]})");
  AvroCompatibility c = MustCheck(reader, writer);
  ASSERT_EQ(c.incompatibilities.size(), 1u);
  EXPECT_EQ(c.incompatibilities[0].kind, AvroIncompatibilityKind::kTypeMismatch);
  EXPECT_EQ(c.incompatibilities[0].message,
            "reader type: ENUM not compatible with writer type: RECORD");
  EXPECT_NE(c.incompatibilities[0].hint.find("give `tier` a field default"), std::string::npos)
      << c.incompatibilities[0].hint;
}

TEST(AvroCompatibilityTest, NameMismatchHintSuggestsAnAlias) {
  AvroSchema writer = MustParse(R"({"type":"record","name":"Old","namespace":"acme","fields":[]})");
  AvroSchema reader = MustParse(R"({"type":"record","name":"New","namespace":"acme","fields":[]})");
  AvroCompatibility c = MustCheck(reader, writer);
  ASSERT_EQ(c.incompatibilities.size(), 1u);
  EXPECT_EQ(c.incompatibilities[0].message, "expected: acme.Old");
  EXPECT_NE(c.incompatibilities[0].hint.find("\"aliases\": [\"acme.Old\"]"), std::string::npos)
      << c.incompatibilities[0].hint;
}

TEST(AvroCompatibilityTest, NodeLevelCheckReportsLocationsFromThoseNodes) {
  AvroSchema writer = MustParse(R"({"type":"record","name":"R","fields":[
      {"name":"tags","type":{"type":"array","items":"long"}}]})");
  AvroSchema reader = MustParse(R"({"type":"record","name":"R","fields":[
      {"name":"tags","type":{"type":"array","items":"int"}}]})");
  auto c = CheckCompatibility(reader.root().fields()[0].type(), writer.root().fields()[0].type());
  ASSERT_TRUE(c.has_value());
  ASSERT_EQ(c->incompatibilities.size(), 1u);
  EXPECT_EQ(c->incompatibilities[0].location, "/items");
}

TEST(AvroCompatibilityTest, SchemaNameEqualsUsesShortNamesAndReaderAliases) {
  AvroSchema a = MustParse(R"({"type":"fixed","name":"x.F","size":1})");
  AvroSchema b = MustParse(R"({"type":"fixed","name":"y.F","size":1})");
  AvroSchema c = MustParse(R"({"type":"fixed","name":"y.G","aliases":["x.F"],"size":1})");
  EXPECT_TRUE(AvroSchemaNameEquals(a.root(), b.root()));
  EXPECT_TRUE(AvroSchemaNameEquals(c.root(), a.root()));
  EXPECT_FALSE(AvroSchemaNameEquals(a.root(), c.root()));  // Only the reader's aliases count.
}

// R0 has two fields of type R1, R1 two of type R2, ...: every level doubles Java's list of
// incompatibilities, since the memoised result of each pair is merged in twice.
std::string DoublingChain(int levels, std::string_view leaf_type) {
  std::string out;
  for (int i = 0; i < levels; ++i) {
    std::string next = "R" + std::to_string(i + 1);
    out +=
        R"({"type":"record","name":"R)" + std::to_string(i) + R"(","fields":[{"name":"a","type":)";
    if (i + 1 == levels) {
      out += R"({"type":"record","name":")" + next + R"(","fields":[{"name":"v","type":")" +
             std::string(leaf_type) + R"("}]})";
    }
  }
  for (int i = levels - 1; i >= 0; --i) {
    out += R"(},{"name":"b","type":"R)" + std::to_string(i + 1) + R"("}]})";
  }
  return out;
}

TEST(AvroCompatibilityTest, ExponentialIncompatibilityListsAreCountedAndCut) {
  AvroSchema reader = MustParse(DoublingChain(40, "int"));
  AvroSchema writer = MustParse(DoublingChain(40, "string"));
  AvroCompatibilityOptions options;
  options.max_incompatibilities = 100;
  AvroCompatibility c = MustCheck(reader, writer, options);
  EXPECT_FALSE(c.compatible);
  EXPECT_EQ(c.incompatibility_count, uint64_t{1} << 40);
  EXPECT_EQ(c.incompatibilities.size(), 100u);
  EXPECT_TRUE(c.truncated());
  std::string first;
  for (int i = 0; i < 40; ++i) first += "/fields/0/type";
  EXPECT_EQ(c.incompatibilities[0].location, first + "/fields/0/type");

  AvroSchema deep_reader = MustParse(DoublingChain(70, "int"));
  AvroSchema deep_writer = MustParse(DoublingChain(70, "string"));
  AvroCompatibility saturated = MustCheck(deep_reader, deep_writer, options);
  EXPECT_EQ(saturated.incompatibility_count, UINT64_MAX);
}

TEST(AvroCompatibilityTest, RecursiveSchemasTerminate) {
  const char* list = R"({"type":"record","name":"Node","fields":[
      {"name":"value","type":"%s"},
      {"name":"children","type":{"type":"array","items":"Node"}},
      {"name":"next","type":["null","Node"],"default":null}]})";
  auto with = [&](const char* type) {
    std::string s = list;
    s.replace(s.find("%s"), 2, type);
    return s;
  };
  AvroSchema ints = MustParse(with("int"));
  AvroSchema longs = MustParse(with("long"));
  EXPECT_TRUE(MustCheck(longs, ints).compatible);
  AvroCompatibility narrowed = MustCheck(ints, longs);
  EXPECT_FALSE(narrowed.compatible);
  EXPECT_EQ(narrowed.incompatibilities[0].location, "/fields/0/type");
}

TEST(AvroCompatibilityTest, DepthAndPairBoundsAreErrors) {
  std::string deep = "\"int\"";
  for (int i = 0; i < 50; ++i) deep = R"({"type":"array","items":)" + deep + "}";
  AvroSchema reader = MustParse(deep);
  AvroSchema writer = MustParse(deep);
  EXPECT_TRUE(MustCheck(reader, writer).compatible);

  AvroCompatibilityOptions shallow;
  shallow.max_depth = 10;
  auto too_deep = CheckCompatibility(reader, writer, shallow);
  ASSERT_FALSE(too_deep.has_value());
  EXPECT_EQ(too_deep.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(too_deep.error().message().find("more than 10 levels deep"), std::string::npos);
  EXPECT_NE(too_deep.error().message().find("/items/items"), std::string::npos)
      << too_deep.error().message();

  AvroCompatibilityOptions few;
  few.max_pairs = 20;
  auto too_many = CheckCompatibility(reader, writer, few);
  ASSERT_FALSE(too_many.has_value());
  EXPECT_NE(too_many.error().message().find("more than 20 reader/writer type pairs"),
            std::string::npos);
}

TEST(AvroCompatibilityTest, WideRecordsMatchFieldsByNameWhereverTheyMoved) {
  std::string writer = R"({"type":"record","name":"W","fields":[)";
  std::string reader = writer;
  for (int i = 0; i < 300; ++i) {
    writer +=
        (i ? "," : "") + std::string(R"({"name":"f)") + std::to_string(i) + R"(","type":"int"})";
    // The reader lists the fields backwards and widens every third one.
    int j = 299 - i;
    reader += (i ? "," : "") + std::string(R"({"name":"f)") + std::to_string(j) + R"(","type":")" +
              (j % 3 == 0 ? "long" : "int") + R"("})";
  }
  writer += "]}";
  reader += R"(,{"name":"extra","type":"string"}]})";
  AvroCompatibility c = MustCheck(MustParse(reader), MustParse(writer));
  ASSERT_EQ(c.incompatibilities.size(), 1u) << Summary(c);
  EXPECT_EQ(c.incompatibilities[0].location, "/fields/300");
}

}  // namespace
}  // namespace sluice::dialects::avro
