// Runs the Spark inference cases published in ../shared/conformance/spark-inference-cases/ (see
// its README): every case must pass, or be listed below with the Spark source rule it follows.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/data/csv_infer.h"
#include "sluice/data/inferred_type.h"
#include "sluice/data/json_infer.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice_test_paths.h"

namespace sluice::data {
namespace {

const std::string kDir = std::string(SLUICE_SHARED_DIR) + "/conformance/spark-inference-cases/";

// Read one case file, or skip the test when the folder is absent.
Result<JsonValue> LoadCases(const std::string& name) {
  auto fs = NewLocalFileSystem();
  SLUICE_ASSIGN_OR_RETURN(std::string text, fs->ReadFile(kDir + name));
  return ParseJson(text);
}

bool CasesPresent() {
  auto fs = NewLocalFileSystem();
  auto exists = fs->Exists(kDir + "README.md");
  return exists.has_value() && *exists;
}

// A Spark simpleString parsed with the Spark dialect. Two forms it does not take are handled
// here: the table's "array<T,containsNull=false>" notation and negative decimal scales.
Result<InferredType> ParseExpected(std::string text) {
  bool no_nulls = false;
  const std::string marker = ",containsNull=false>";
  if (text.size() > marker.size() && text.ends_with(marker)) {
    text = text.substr(0, text.size() - marker.size()) + ">";
    no_nulls = true;
  }
  int p = 0;
  int s = 0;
  if (std::sscanf(text.c_str(), "decimal(%d,%d)", &p, &s) == 2 && s < 0) {
    return InferredType::Decimal(p, s);
  }
  SLUICE_ASSIGN_OR_RETURN(schema::TypePtr t, dialects::spark::ParseDataType(text));
  SLUICE_ASSIGN_OR_RETURN(InferredType out, FromSchemaType(*t));
  if (no_nulls) out.set_contains_null(false);
  return out;
}

std::vector<std::pair<std::string, std::string>> OptionsOf(const JsonValue& obj) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!obj.is_object()) return out;
  for (const JsonMember& m : obj.members()) {
    out.emplace_back(m.key, m.value.is_string() ? m.value.as_string() : "");
  }
  return out;
}

TEST(InferenceConformanceTest, SparkJsonInferCases) {
  if (!CasesPresent()) GTEST_SKIP() << "no conformance folder at " << kDir;
  auto file = LoadCases("spark-json-infer-cases.json");
  ASSERT_TRUE(file.has_value()) << file.error().message();
  const JsonValue* cases = file->Find("cases");
  ASSERT_NE(cases, nullptr);
  int passed = 0;
  for (const JsonValue& c : cases->items()) {
    const std::string id = c.Find("id")->as_string();
    // Spark's options start from the defaults the file states, then the case's own.
    auto options = OptionsOf(*file->Find("default_options_assumed"));
    for (auto& kv : OptionsOf(*c.Find("options"))) options.push_back(kv);
    if (id == "empty_structs_erased") {
      // The Spark test calls JsonInferSchema with JSONOptions(Map.empty), whose corrupt-record
      // column name is "" (see the case's notes); through spark.read the name is
      // _corrupt_record, checked in JsonInferTest.EmptyStructsErasedThroughSparkRead.
      options.emplace_back("columnNameOfCorruptRecord", "");
    }
    auto opts = JsonInferOptions::FromMap(options);
    ASSERT_TRUE(opts.has_value()) << id << ": " << opts.error().message();
    auto inferrer = JsonInferrer::Make(*opts);
    ASSERT_TRUE(inferrer.has_value()) << id << ": " << inferrer.error().message();
    bool ok = true;
    for (const JsonValue& r : c.Find("records")->items()) {
      Status st = inferrer->AddRecord(r.as_string());
      if (!st.has_value()) {
        ADD_FAILURE() << id << ": " << st.error().message();
        ok = false;
      }
    }
    auto got = inferrer->Finish();
    ASSERT_TRUE(got.has_value()) << id << ": " << got.error().message();
    auto expected = ParseExpected(c.Find("expected_schema")->as_string());
    ASSERT_TRUE(expected.has_value()) << id << ": " << expected.error().message();
    auto got_type = FromSchemaType(*(*got)->struct_type());
    ASSERT_TRUE(got_type.has_value()) << id;
    if (!(*got_type == *expected)) {
      ADD_FAILURE() << id << ": got " << got_type->ToString() << "\n want " << expected->ToString();
      ok = false;
    }
    // The printed form must be Spark's simpleString too.
    EXPECT_EQ(inferrer->FinishType().ToString(), c.Find("expected_schema")->as_string()) << id;
    if (ok) ++passed;
  }
  std::printf("[ conformance ] spark-json-infer-cases.json: %d/%zu\n", passed,
              cases->items().size());
  EXPECT_EQ(passed, static_cast<int>(cases->items().size()));
}

TEST(InferenceConformanceTest, SparkJsonCompatibleType) {
  if (!CasesPresent()) GTEST_SKIP() << "no conformance folder at " << kDir;
  auto file = LoadCases("spark-json-compatible-type.json");
  ASSERT_TRUE(file.has_value()) << file.error().message();
  const JsonValue* rows = file->Find("rows");
  ASSERT_NE(rows, nullptr);
  int passed = 0;
  for (const JsonValue& row : rows->items()) {
    const std::string a_text = row.items()[0].as_string();
    const std::string b_text = row.items()[1].as_string();
    const std::string want_text = row.items()[2].as_string();
    auto a = ParseExpected(a_text);
    auto b = ParseExpected(b_text);
    auto want = ParseExpected(want_text);
    ASSERT_TRUE(a.has_value() && b.has_value() && want.has_value()) << a_text << " " << b_text;
    const InferredType ab = CompatibleType(*a, *b);
    const InferredType ba = CompatibleType(*b, *a);
    const bool ok = ab == *want && ba == *want;
    EXPECT_TRUE(ok) << a_text << " + " << b_text << ": got " << ab.ToString() << " / "
                    << ba.ToString() << ", want " << want_text;
    if (ok) ++passed;
  }
  std::printf("[ conformance ] spark-json-compatible-type.json: %d/%zu\n", passed,
              rows->items().size());
  EXPECT_EQ(passed, static_cast<int>(rows->items().size()));
}

// Rows whose expectation contradicts CSVInferSchema.compatibleType in both stored versions of
// the source (0394030e, the commit the suite was copied from, and the newest 8ba85666): there a
// date column meeting a timestamp parsed with an explicit timestampFormat / timestampNTZFormat
// becomes StringType. The case file itself flags these rows ("re-check against the Spark version
// you target"). We follow the source and check that we do.
struct SourceRuleOverride {
  const char* type_so_far;
  const char* field;
  const char* source_rule_result;
};
constexpr SourceRuleOverride kCsvOverrides[] = {
    {"date", "2003|01|01", "string"},
    {"date", "2003/02/05", "string"},
};

TEST(InferenceConformanceTest, SparkCsvInferCases) {
  if (!CasesPresent()) GTEST_SKIP() << "no conformance folder at " << kDir;
  auto file = LoadCases("spark-csv-infer-cases.json");
  ASSERT_TRUE(file.has_value()) << file.error().message();
  const JsonValue* rows = file->Find("inferField");
  ASSERT_NE(rows, nullptr);
  int passed = 0;
  int overridden = 0;
  for (const JsonValue& row : rows->items()) {
    auto opts = CsvInferOptions::FromMap(OptionsOf(*row.Find("options")));
    ASSERT_TRUE(opts.has_value()) << opts.error().message();
    auto rules = CsvTypeRules::Make(*opts);
    ASSERT_TRUE(rules.has_value()) << rules.error().message();
    const std::string so_far_text = row.Find("typeSoFar")->as_string();
    auto so_far = ParseExpected(so_far_text);
    ASSERT_TRUE(so_far.has_value()) << so_far_text << ": " << so_far.error().message();
    std::optional<std::string_view> field;
    const JsonValue* f = row.Find("field");
    if (f->is_string()) field = f->as_string();
    std::string want_text = row.Find("expected")->as_string();
    for (const SourceRuleOverride& o : kCsvOverrides) {
      if (so_far_text == o.type_so_far && field && *field == o.field) {
        want_text = o.source_rule_result;
        ++overridden;
      }
    }
    auto want = ParseExpected(want_text);
    ASSERT_TRUE(want.has_value()) << want_text;
    const InferredType got = rules->InferField(*so_far, field);
    const bool ok = got == *want;
    EXPECT_TRUE(ok) << row.Find("test")->as_string() << ": inferField(" << so_far_text << ", "
                    << (field ? std::string(*field) : "null") << ") = " << got.ToString()
                    << ", want " << want_text;
    if (ok) ++passed;
  }
  EXPECT_EQ(overridden, 2) << "the override list no longer matches the case file";

  const JsonValue* merges = file->Find("mergeRowTypes");
  ASSERT_NE(merges, nullptr);
  auto rules = CsvTypeRules::Make(CsvInferOptions{});
  ASSERT_TRUE(rules.has_value());
  int merged_ok = 0;
  for (const JsonValue& row : merges->items()) {
    auto a = ParseExpected(row.items()[0].as_string());
    auto b = ParseExpected(row.items()[1].as_string());
    auto want = ParseExpected(row.items()[2].as_string());
    ASSERT_TRUE(a.has_value() && b.has_value() && want.has_value());
    const auto got = rules->MergeRowTypes({*a}, {*b});
    const bool ok = got.size() == 1 && got[0] == *want;
    EXPECT_TRUE(ok) << row.items()[0].as_string() << " + " << row.items()[1].as_string() << " = "
                    << (got.empty() ? "" : got[0].ToString());
    if (ok) ++merged_ok;
  }
  std::printf(
      "[ conformance ] spark-csv-infer-cases.json: inferField %d/%zu (%d follow the source rule, "
      "see kCsvOverrides), mergeRowTypes %d/%zu\n",
      passed, rows->items().size(), overridden, merged_ok, merges->items().size());
  EXPECT_EQ(passed, static_cast<int>(rows->items().size()));
  EXPECT_EQ(merged_ok, static_cast<int>(merges->items().size()));
}

}  // namespace
}  // namespace sluice::data
