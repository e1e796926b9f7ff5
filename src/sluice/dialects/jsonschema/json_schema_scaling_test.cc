// Wide and hostile JSON Schemas (many properties, all required; many $defs and $refs,
// patternProperties, enum values) read, write and compare in time linear in their size.
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "sluice/dialects/jsonschema/json_schema.h"
#include "sluice/dialects/jsonschema/json_schema_convert.h"
#include "sluice/dialects/jsonschema/json_schema_diff.h"
#include "sluice/schema/scaling_testing.h"

namespace sluice::dialects::jsonschema {
namespace {

using sluice::scaling::ColumnName;
using sluice::scaling::ScalesLinearly;
using sluice::scaling::WideJsonSchema;

TEST(JsonSchemaScalingTest, WideRequiredObjectsReadAndWriteInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        auto read = ReadSchema(WideJsonSchema(n, /*required=*/true));
        ASSERT_TRUE(read.has_value()) << read.error().message();
        ASSERT_EQ(read->value->fields().size(), n);
        EXPECT_FALSE(read->value->fields().back().nullable());
        auto written = WriteSchema(*read->value);
        ASSERT_TRUE(written.has_value()) << written.error().message();
      },
      5000));
}

TEST(JsonSchemaScalingTest, WideObjectsCompareInLinearTime) {
  // The documents are parsed once per size (parsing is timed above); the comparison is timed.
  std::map<size_t, std::pair<JsonSchemaDocument, JsonSchemaDocument>> parsed;
  EXPECT_TRUE(ScalesLinearly(
      [&](size_t n) {
        auto it = parsed.find(n);
        if (it == parsed.end()) {
          auto a = Parse(WideJsonSchema(n, true));
          auto b = Parse(WideJsonSchema(n + n / 10, false));
          ASSERT_TRUE(a.has_value() && b.has_value());
          it = parsed.emplace(n, std::make_pair(std::move(*a), std::move(*b))).first;
        }
        auto diffs = Compare(it->second.first, it->second.second);
        ASSERT_TRUE(diffs.has_value()) << diffs.error().message();
        EXPECT_EQ(diffs->size(), n + n / 10);
      },
      8000));
}

TEST(JsonSchemaScalingTest, ManyDefsRefsPatternsAndEnumValuesInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        std::string defs;
        std::string props;
        std::string patterns;
        std::string values;
        for (size_t i = 0; i < n; ++i) {
          const char* sep = i > 0 ? "," : "";
          defs += fmt::format(R"({}"d{}":{{"type":"integer"}})", sep, i);
          props += fmt::format(R"({}"{}":{{"$ref":"#/$defs/d{}"}})", sep, ColumnName(i), i);
          patterns += fmt::format(R"({}"^p{}_":{{"type":"string"}})", sep, i);
          values += fmt::format(R"({}"v{}")", sep, i);
        }
        std::string refs = fmt::format(
            R"({{"type":"object","$defs":{{{}}},"properties":{{{},"e":{{"enum":[{}]}}}}}})", defs,
            props, values);
        auto read = ReadSchema(refs);
        ASSERT_TRUE(read.has_value()) << read.error().message();
        auto same = CompareSchemaTexts(refs, refs);
        ASSERT_TRUE(same.has_value()) << same.error().message();
        EXPECT_TRUE(same->empty());
        std::string pattern_object =
            fmt::format(R"({{"type":"object","patternProperties":{{{}}}}})", patterns);
        auto map = ReadSchema(pattern_object);
        ASSERT_TRUE(map.has_value()) << map.error().message();
        auto unchanged = CompareSchemaTexts(pattern_object, pattern_object);
        ASSERT_TRUE(unchanged.has_value()) << unchanged.error().message();
      },
      1000));
}

}  // namespace
}  // namespace sluice::dialects::jsonschema
