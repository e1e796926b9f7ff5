// Confluent's own JSON Schema diff cases (json-schema-provider's SchemaDiffTest data): for every
// case, sluice must report the same differences (as a multiset; Confluent's order comes from a
// Java HashSet) and the same STRICT and LENIENT verdicts. The cases live outside the repository
// (they are under the Confluent Community License); without them the test skips.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/dialects/jsonschema/json_schema.h"
#include "sluice/dialects/jsonschema/json_schema_diff.h"
#include "sluice_test_paths.h"

namespace sluice::dialects::jsonschema {
namespace {

namespace fs = std::filesystem;

const std::string kCasesDir =
    std::string(SLUICE_SHARED_DIR) + "/conformance/confluent-json-diff-cases";

struct CaseFile {
  const char* name;
  size_t cases;
};

// The four files and their case counts (registry.md §4).
constexpr CaseFile kFiles[] = {
    {"diff-schema-examples.json", 104},
    {"diff-schema-examples-2020-12.json", 113},
    {"diff-combined-schema-examples.json", 28},
    {"diff-combined-schema-examples-2020-12.json", 18},
};

std::map<std::string, std::string, std::less<>> MetadataProperties(const JsonValue* metadata) {
  std::map<std::string, std::string, std::less<>> out;
  const JsonValue* props = metadata != nullptr ? metadata->Find("properties") : nullptr;
  if (props == nullptr || !props->is_object()) return out;
  for (const JsonMember& m : props->members()) {
    if (m.value.is_string()) out[m.key] = m.value.as_string();
  }
  return out;
}

std::vector<std::string> Render(const std::vector<Difference>& diffs) {
  std::vector<std::string> out;
  for (const Difference& d : diffs) {
    out.push_back(std::string(DifferenceTypeName(d.type)) + " " + d.json_path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += "\n    " + l;
  return out.empty() ? "\n    (none)" : out;
}

// Run one file; return the number of cases that passed. Failures are reported by description.
size_t RunFile(const CaseFile& file, size_t* total) {
  std::ifstream in(kCasesDir + "/" + file.name, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  JsonParseOptions lenient;
  lenient.allow_trailing_commas = true;  // the 2020-12 files have them (org.json accepts them)
  auto json = ParseJson(buffer.str(), lenient);
  EXPECT_TRUE(json.has_value()) << file.name << ": " << json.error().ToString();
  if (!json.has_value() || !json->is_array()) return 0;
  EXPECT_EQ(json->items().size(), file.cases) << file.name;
  *total += json->items().size();

  ParseOptions parse;
  parse.default_draft = Draft::kDraft7;  // Confluent reads a schema without $schema as draft 7
  size_t passed = 0;
  for (size_t i = 0; i < json->items().size(); ++i) {
    const JsonValue& c = json->items()[i];
    const JsonValue* description = c.Find("description");
    std::string where = std::string(file.name) + " #" + std::to_string(i) + " \"" +
                        (description ? description->as_string() : "") + "\"";
    const JsonValue* original = c.Find("original_schema");
    const JsonValue* update = c.Find("update_schema");
    const JsonValue* changes = c.Find("changes");
    const JsonValue* compatible = c.Find("compatible");
    if (!original || !update || !changes || !compatible) {
      ADD_FAILURE() << where << ": malformed case";
      continue;
    }
    const JsonValue* lenient_verdict = c.Find("compatible_lenient");
    const bool expect_strict = compatible->as_bool();
    const bool expect_lenient = lenient_verdict ? lenient_verdict->as_bool() : expect_strict;

    auto a = Parse(ToJson(*original), parse);
    auto b = Parse(ToJson(*update), parse);
    if (!a.has_value() || !b.has_value()) {
      ADD_FAILURE() << where << ": "
                    << (!a.has_value() ? a.error().ToString() : b.error().ToString());
      continue;
    }
    CompareOptions options;
    options.original_metadata = MetadataProperties(c.Find("original_metadata"));
    options.update_metadata = MetadataProperties(c.Find("update_metadata"));
    auto diffs = Compare(*a, *b, options);
    if (!diffs.has_value()) {
      ADD_FAILURE() << where << ": " << diffs.error().ToString();
      continue;
    }
    std::vector<std::string> expected;
    for (const JsonValue& ch : changes->items()) expected.push_back(ch.as_string());
    std::sort(expected.begin(), expected.end());
    const std::vector<std::string> actual = Render(*diffs);

    bool ok = true;
    if (actual != expected) {
      ok = false;
      ADD_FAILURE() << where << ": differences\n  expected:" << Join(expected)
                    << "\n  actual:" << Join(actual);
    }
    // As Confluent's SchemaDiffTest checks it: the STRICT differences against each set.
    if (IsCompatible(*diffs, CompatibilityPolicy::kStrict) != expect_strict) {
      ok = false;
      ADD_FAILURE() << where << ": STRICT verdict should be " << expect_strict;
    }
    if (IsCompatible(*diffs, CompatibilityPolicy::kLenient) != expect_lenient) {
      ok = false;
      ADD_FAILURE() << where << ": LENIENT verdict should be " << expect_lenient;
    }
    // As the registry decides it: a LENIENT comparison judged by the LENIENT set.
    options.policy = CompatibilityPolicy::kLenient;
    auto lenient_diffs = Compare(*a, *b, options);
    if (!lenient_diffs.has_value() ||
        IsCompatible(*lenient_diffs, CompatibilityPolicy::kLenient) != expect_lenient) {
      ok = false;
      ADD_FAILURE() << where << ": a LENIENT comparison should give " << expect_lenient;
    }
    if (ok) ++passed;
  }
  return passed;
}

TEST(JsonSchemaDiffConformanceTest, MatchesEveryConfluentCase) {
  if (!fs::is_directory(kCasesDir)) GTEST_SKIP() << kCasesDir << " is absent";
  size_t total = 0;
  size_t passed = 0;
  for (const CaseFile& file : kFiles) {
    size_t before = total;
    size_t ok = RunFile(file, &total);
    passed += ok;
    std::printf("[ conformance ] %s: %zu/%zu\n", file.name, ok, total - before);
  }
  EXPECT_EQ(total, 263u);
  EXPECT_EQ(passed, total);
  std::printf("[ conformance ] confluent-json-diff-cases: %zu/%zu passed\n", passed, total);
}

}  // namespace
}  // namespace sluice::dialects::jsonschema
