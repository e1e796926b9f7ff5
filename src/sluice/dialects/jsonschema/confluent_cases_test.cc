// Every schema of Confluent's published JSON Schema diff cases must load into the parsed form:
// a later compatibility diff runs on it. The cases live outside the repository; without them the
// test skips.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/dialects/jsonschema/json_schema.h"
#include "sluice/dialects/jsonschema/json_schema_convert.h"
#include "sluice_test_paths.h"

namespace sluice::dialects::jsonschema {
namespace {

namespace fs = std::filesystem;

const char* const kCasesDir = SLUICE_SHARED_DIR "/conformance/confluent-json-diff-cases";

struct CaseSchema {
  std::string where;  // "file.json #12 original_schema"
  std::string text;
};

std::vector<CaseSchema> LoadCaseSchemas(size_t* cases) {
  std::vector<CaseSchema> out;
  *cases = 0;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kCasesDir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    JsonParseOptions lenient;
    lenient.allow_trailing_commas = true;  // the 2020-12 files have them
    auto json = ParseJson(buffer.str(), lenient);
    EXPECT_TRUE(json.has_value()) << file << ": " << json.error().ToString();
    if (!json.has_value() || !json->is_array()) continue;
    for (size_t i = 0; i < json->items().size(); ++i) {
      const JsonValue& c = json->items()[i];
      ++*cases;
      for (const char* key : {"original_schema", "update_schema"}) {
        const JsonValue* s = c.Find(key);
        EXPECT_NE(s, nullptr) << file << " #" << i << " lacks " << key;
        if (s == nullptr) continue;
        out.push_back(CaseSchema{file.filename().string() + " #" + std::to_string(i) + " " + key,
                                 ToJson(*s)});
      }
    }
  }
  return out;
}

TEST(ConfluentCasesTest, EverySchemaLoadsIntoTheParsedForm) {
  if (!fs::is_directory(kCasesDir)) GTEST_SKIP() << kCasesDir << " is absent";
  size_t cases = 0;
  std::vector<CaseSchema> schemas = LoadCaseSchemas(&cases);
  EXPECT_EQ(cases, 263u);
  ASSERT_EQ(schemas.size(), 2 * cases);
  for (const CaseSchema& s : schemas) {
    auto doc = Parse(s.text);
    EXPECT_TRUE(doc.has_value()) << s.where << ": " << doc.error().ToString() << "\n" << s.text;
  }
}

TEST(ConfluentCasesTest, ParsedFormKeepsWhatTheDiffCompares) {
  // Spot checks on keywords the diff reads, in schemas like the cases'.
  auto refs = Parse(R"({"type": "array", "items": {"$ref": "#/definitions/someRef"},
                        "definitions": {"someRef": {"type": "string"}}})");
  ASSERT_TRUE(refs.has_value());
  EXPECT_EQ(refs->root().keywords().items->ref_target()->pointer(), "#/definitions/someRef");
  ParseOptions draft7;
  draft7.default_draft = Draft::kDraft7;  // Confluent reads a schema without $schema as draft 7
  auto tuple = Parse(R"({"type": "array", "items": [{"type": "string"}, {"type": "number"}],
                         "additionalItems": false})",
                     draft7);
  ASSERT_TRUE(tuple.has_value());
  EXPECT_EQ(tuple->root().keywords().items_tuple->size(), 2u);
  EXPECT_FALSE(tuple->root().keywords().additional_items->boolean_value());
}

TEST(ConfluentCasesTest, EverySchemaConvertsOrFailsCleanly) {
  if (!fs::is_directory(kCasesDir)) GTEST_SKIP() << kCasesDir << " is absent";
  size_t cases = 0;
  size_t converted = 0;
  for (const CaseSchema& s : LoadCaseSchemas(&cases)) {
    auto read = ReadSchema(s.text);
    if (read.has_value()) {
      ++converted;
      // What was read can be written back.
      auto written = WriteSchema(*read->value);
      EXPECT_TRUE(written.has_value()) << s.where;
    } else {
      // The only refusals expected on these cases: none are recursive or external.
      ADD_FAILURE() << s.where << ": " << read.error().ToString();
    }
  }
  EXPECT_EQ(converted, 2 * cases);
}

}  // namespace
}  // namespace sluice::dialects::jsonschema
