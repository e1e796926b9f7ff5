// Wide and hostile Avro schemas (many fields, symbols, branches, aliases, default members; deep
// records with long names) parse, convert and check in time linear in their size.
#include <gtest/gtest.h>

#include "sluice/dialects/avro/avro_compat_internal.h"
#include "sluice/dialects/avro/avro_compatibility.h"
#include "sluice/dialects/avro/avro_convert.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/schema/scaling_testing.h"

namespace sluice::dialects::avro {
namespace {

using sluice::scaling::ColumnName;
using sluice::scaling::ScalesLinearly;
using sluice::scaling::WideAvro;

AvroSchema MustParse(const std::string& text) {
  auto parsed = Parse(text);
  EXPECT_TRUE(parsed.has_value()) << parsed.error().message();
  return std::move(parsed).value();
}

std::string Symbols(size_t n, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < n; ++i) out += fmt::format("{}\"S{}\"", i > from ? "," : "", i);
  return out;
}

TEST(AvroScalingTest, WideRecordsParseWriteConvertAndCheckInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        AvroSchema v1 = MustParse(WideAvro(n));
        AvroSchema v2 = MustParse(WideAvro(n + n / 10, /*optional_from=*/n));
        EXPECT_FALSE(WriteJson(v1).empty());
        EXPECT_FALSE(ParsingCanonicalForm(v2).empty());
        EXPECT_FALSE(Sha256Fingerprint(v2).empty());
        auto backward = CheckCompatibility(v2, v1);
        ASSERT_TRUE(backward.has_value());
        EXPECT_TRUE(backward->compatible);
        auto forward = CheckCompatibility(v1, v2);
        ASSERT_TRUE(forward.has_value());
        EXPECT_TRUE(forward->compatible);
        auto model = ToModel(v2);
        ASSERT_TRUE(model.has_value()) << model.error().message();
        auto written = WriteSchema(*model->value);
        ASSERT_TRUE(written.has_value()) << written.error().message();
      },
      3000));
}

TEST(AvroScalingTest, EnumsWithManySymbolsInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        auto record = [&](const std::string& symbols, const std::string& field_default) {
          return fmt::format(
              R"({{"type":"record","name":"r","fields":[{{"name":"e","type":{{"type":"enum",)"
              R"("name":"E","symbols":[{}]}}}},{{"name":"all","type":{{"type":"array",)"
              R"("items":"E"}},"default":[{}]}}]}})",
              symbols, field_default);
        };
        AvroSchema all = MustParse(record(Symbols(n), Symbols(n)));
        AvroSchema fewer = MustParse(record(Symbols(n, 1), Symbols(n, 1)));
        auto same = CheckCompatibility(all, all);
        ASSERT_TRUE(same.has_value());
        EXPECT_TRUE(same->compatible);
        auto missing = CheckCompatibility(fewer, all);  // the reader lacks S0
        ASSERT_TRUE(missing.has_value());
        EXPECT_FALSE(missing->compatible);
        auto model = ToModel(all);
        ASSERT_TRUE(model.has_value()) << model.error().message();
      },
      5000));
}

TEST(AvroScalingTest, UnionsWithManyBranchesInLinearTime) {
  auto union_of = [](size_t n, size_t from) {
    std::string branches = "\"null\"";
    for (size_t i = from; i < n; ++i) {
      branches += fmt::format(
          R"(,{{"type":"record","name":"B{}","fields":[{{"name":"v","type":"long"}}]}})", i);
    }
    return fmt::format(R"({{"type":"record","name":"r","fields":[{{"name":"u","type":[{}]}}]}})",
                       branches);
  };
  EXPECT_TRUE(ScalesLinearly(
      [&](size_t n) {
        AvroSchema all = MustParse(union_of(n, 0));
        AvroSchema fewer = MustParse(union_of(n, 1));
        auto same = CheckCompatibility(all, all);
        ASSERT_TRUE(same.has_value());
        EXPECT_TRUE(same->compatible);
        auto missing = CheckCompatibility(fewer, all);  // the reader lacks B0
        ASSERT_TRUE(missing.has_value());
        EXPECT_FALSE(missing->compatible);
        auto model = ToModel(all);
        ASSERT_TRUE(model.has_value()) << model.error().message();
        EXPECT_FALSE(ParsingCanonicalForm(all).empty());
      },
      2000));
}

TEST(AvroScalingTest, DeepRecordsWithLongNamesInLinearTime) {
  // 100 records nested in one another, `n` optional leaves spread over them, names 64 long.
  auto deep = [](size_t n) {
    const size_t depth = 100;
    const size_t per = std::max<size_t>(1, n / depth);
    const std::string pad(64, 'x');
    std::string inner;
    for (size_t d = depth; d-- > 0;) {
      std::string fields;
      for (size_t j = 0; j < per; ++j) {
        fields += fmt::format(R"({}{{"name":"l{}_{}_{}","type":["null","long"],"default":null}})",
                              j > 0 ? "," : "", d, pad, j);
      }
      if (!inner.empty()) fields += fmt::format(R"(,{{"name":"n{}_{}","type":{}}})", d, pad, inner);
      inner = fmt::format(R"({{"type":"record","name":"L{}","fields":[{}]}})", d, fields);
    }
    return inner;
  };
  EXPECT_TRUE(ScalesLinearly(
      [&](size_t n) {
        AvroSchema s = MustParse(deep(n));
        auto model = ToModel(s);
        ASSERT_TRUE(model.has_value()) << model.error().message();
        EXPECT_FALSE(ParsingCanonicalForm(s).empty());
        auto same = CheckCompatibility(s, s);
        ASSERT_TRUE(same.has_value());
        EXPECT_TRUE(same->compatible);
      },
      2000));
}

TEST(AvroScalingTest, WideRecordDefaultsAndManyAliasesInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        std::string fields;
        std::string value;
        std::string aliases;
        for (size_t i = 0; i < n; ++i) {
          fields +=
              fmt::format(R"({}{{"name":"{}","type":"long"}})", i > 0 ? "," : "", ColumnName(i));
          value += fmt::format(R"({}"{}":{})", i > 0 ? "," : "", ColumnName(i), i);
          aliases += fmt::format(R"({}"a{}")", i > 0 ? "," : "", i);
        }
        std::string text = fmt::format(
            R"({{"type":"record","name":"r","fields":[{{"name":"inner","type":{{"type":"record",)"
            R"("name":"I","fields":[{}]}},"default":{{{}}}}},{{"name":"x","type":"long",)"
            R"("aliases":[{}],"default":0}}]}})",
            fields, value, aliases);
        AvroSchema s = MustParse(text);
        auto same = CheckCompatibility(s, s);
        ASSERT_TRUE(same.has_value());
        EXPECT_TRUE(same->compatible);
        auto model = ToModel(s);
        ASSERT_TRUE(model.has_value()) << model.error().message();
        auto written = WriteSchema(*model->value);
        ASSERT_TRUE(written.has_value()) << written.error().message();
      },
      3000));
}

}  // namespace
}  // namespace sluice::dialects::avro

namespace sluice::dialects::avro {
namespace {

// Reader unions pass over branches that cannot read the writer's type; the answers must be
// those of Java's literal algorithm, which tries every branch.
TEST(AvroScalingTest, PassingOverUnionBranchesChangesNoAnswer) {
  const std::vector<std::string> schemas = {
      // Wide unions: records of distinct names (flat), enums, fixed, promotable primitives.
      R"(["null","int",{"type":"record","name":"A","fields":[{"name":"v","type":"long"}]},
         {"type":"record","name":"B","fields":[{"name":"v","type":"string"}]},
         {"type":"enum","name":"E","symbols":["X","Y"]},{"type":"fixed","name":"F","size":4},
         "string",{"type":"array","items":"int"},{"type":"map","values":"long"},
         {"type":"record","name":"C","aliases":["A"],"fields":[{"name":"w","type":"int",
          "default":1}]},"boolean"])",
      R"(["null",{"type":"record","name":"B","fields":[{"name":"v","type":"string"}]},"long",
         {"type":"record","name":"A","fields":[{"name":"v","type":"long"}]},
         {"type":"enum","name":"E","symbols":["X"]},{"type":"fixed","name":"F","size":8},
         "bytes",{"type":"array","items":"long"},{"type":"map","values":"double"},"float",
         {"type":"record","name":"D","fields":[{"name":"v","type":"long"}]}])",
      // Records holding records, one of them recursive, in wide unions.
      R"(["null","string",{"type":"record","name":"N","fields":[{"name":"next",
          "type":["null","N"],"default":null},{"name":"v","type":"int"}]},
         {"type":"record","name":"M","fields":[{"name":"n","type":["null","N"],"default":null}]},
         {"type":"record","name":"A","fields":[{"name":"v","type":"long"}]},"int","long",
         "float","double","bytes",{"type":"enum","name":"E","symbols":["X","Y","Z"]}])",
      R"(["null",{"type":"record","name":"M","fields":[{"name":"n","type":["null",
          {"type":"record","name":"N","fields":[{"name":"next","type":["null","N"],
          "default":null},{"name":"v","type":"long"}]}],"default":null}]},"string",
         {"type":"record","name":"A","fields":[{"name":"v","type":"long"}]},"int","long",
         "float","double","bytes","boolean",{"type":"enum","name":"E","symbols":["X","Y"]}])",
      R"("int")",
      R"({"type":"record","name":"A","fields":[{"name":"v","type":"int"}]})",
      R"({"type":"enum","name":"E","symbols":["X","Y"]})",
      R"({"type":"array","items":"int"})",
  };
  std::vector<AvroSchema> parsed;
  for (const std::string& s : schemas) parsed.push_back(MustParse(s));
  for (const AvroSchema& reader : parsed) {
    for (const AvroSchema& writer : parsed) {
      auto fast = CheckCompatibility(reader, writer);
      auto literal = internal::CheckCompatibilityMemoisingEveryPair(reader.root(), writer.root());
      ASSERT_EQ(fast.has_value(), literal.has_value());
      if (!fast.has_value()) {
        EXPECT_EQ(fast.error().message(), literal.error().message());
        continue;
      }
      EXPECT_EQ(fast->compatible, literal->compatible);
      EXPECT_EQ(fast->incompatibility_count, literal->incompatibility_count);
      ASSERT_EQ(fast->incompatibilities.size(), literal->incompatibilities.size());
      for (size_t i = 0; i < fast->incompatibilities.size(); ++i) {
        EXPECT_EQ(fast->incompatibilities[i].location, literal->incompatibilities[i].location);
        EXPECT_EQ(fast->incompatibilities[i].message, literal->incompatibilities[i].message);
        EXPECT_EQ(fast->incompatibilities[i].hint, literal->incompatibilities[i].hint);
      }
    }
  }
}

}  // namespace
}  // namespace sluice::dialects::avro
