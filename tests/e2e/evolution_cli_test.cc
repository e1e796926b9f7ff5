// End-to-end: `sluice compat`, `sluice merge` and `sluice check` on the seed scenarios.
#include <gtest/gtest.h>

#include <string>

#include "e2e/run.h"
#include "sluice/base/json.h"

namespace sluice::e2e {
namespace {

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

constexpr const char* kV1 = "examples/user_movie_activity_v1.avsc";
constexpr const char* kV2 = "examples/user_movie_activity_v2.avsc";

TEST(CompatCliTest, Seed001MovieIdRetypeIsNotBackwardCompatible) {
  RunResult r = RunSluice({"compat", kV1, kV2});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(
      Contains(r.out, "BACKWARD (avro): examples/user_movie_activity_v2.avsc is NOT compatible"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "TYPE_MISMATCH at /fields/2/type/items/fields/0/type")) << r.out;
  EXPECT_TRUE(Contains(r.out, "fix: ")) << r.out;
}

TEST(CompatCliTest, AddingAFieldWithADefaultIsFullyCompatible) {
  std::string v1 =
      TempFile(".avsc", R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"}]})");
  std::string v2 =
      TempFile(".avsc", R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},)"
                        R"({"name":"rating","type":["null","float"],"default":null}]})");
  std::string v3 =
      TempFile(".avsc", R"({"type":"record","name":"r","fields":[{"name":"a","type":"long"},)"
                        R"({"name":"rating","type":["null","float"],"default":null}]})");
  RunResult full = RunSluice({"compat", "--mode", "FULL", v1, v2});
  EXPECT_EQ(full.exit_code, 0) << full.out;
  EXPECT_TRUE(Contains(full.out, "is compatible")) << full.out;
  // int -> long reads old data (BACKWARD) but old readers cannot read longs (FORWARD).
  EXPECT_EQ(RunSluice({"compat", "--mode", "BACKWARD", v1, v2, v3}).exit_code, 0);
  RunResult fwd = RunSluice({"compat", "--mode", "FORWARD_TRANSITIVE", v1, v2, v3});
  EXPECT_EQ(fwd.exit_code, 1);
  EXPECT_TRUE(Contains(fwd.out, "checked against " + v2 + ", " + v1)) << fwd.out;
}

TEST(CompatCliTest, MissingDefaultNamesTheField) {
  std::string v1 =
      TempFile(".avsc", R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"}]})");
  std::string v2 =
      TempFile(".avsc", R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},)"
                        R"({"name":"rating","type":"float"}]})");
  RunResult r = RunSluice({"compat", "--format", "json", v1, v2});
  EXPECT_EQ(r.exit_code, 1);
  auto doc = ParseJson(r.out);
  ASSERT_TRUE(doc.has_value()) << r.out;
  EXPECT_FALSE(doc->Find("compatible")->as_bool());
  const JsonValue& inc = doc->Find("incompatibilities")->items().at(0);
  EXPECT_EQ(inc.Find("kind")->as_string(), "READER_FIELD_MISSING_DEFAULT_VALUE");
  EXPECT_EQ(inc.Find("location")->as_string(), "/fields/1");
  EXPECT_TRUE(Contains(inc.Find("hint")->as_string(), "rating")) << r.out;
  EXPECT_EQ(inc.Find("against")->as_string(), v1);
}

TEST(CompatCliTest, JsonSchemaUsesConfluentRules) {
  std::string v1 = TempFile(".json", R"({"type":"object","properties":{"a":{"type":"string"}}})");
  std::string v2 = TempFile(
      ".json", R"({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}})");
  // An optional property added to an open content model: STRICT rejects it, LENIENT allows it.
  RunResult strict = RunSluice({"compat", v1, v2});
  EXPECT_EQ(strict.exit_code, 1) << strict.out << strict.err;
  EXPECT_TRUE(Contains(strict.out, "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL")) << strict.out;
  EXPECT_EQ(RunSluice({"compat", "--policy", "lenient", v1, v2}).exit_code, 0);
}

TEST(CompatCliTest, TableTypeFollowsDelta) {
  RunResult r = RunSluice({"compat", "examples/orders_v1.json", "examples/orders_v2.json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.out, "BACKWARD (table)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "at order_amount")) << r.out;
  EXPECT_EQ(RunSluice({"compat", "examples/payments_v1.ddl", "examples/payments_v2.ddl"}).exit_code,
            0);
  EXPECT_EQ(
      RunSluice({"compat", "--mode", "NONE", "examples/orders_v1.json", "examples/orders_v2.json"})
          .exit_code,
      0);
}

TEST(CompatCliTest, GithubAnnotationsAndUsageErrors) {
  RunResult g = RunSluice({"compat", "--format", "github", kV1, kV2});
  EXPECT_EQ(g.exit_code, 1);
  EXPECT_TRUE(Contains(
      g.out,
      "::error file=examples/user_movie_activity_v2.avsc,title=sluice compat TYPE_MISMATCH::"))
      << g.out;
  EXPECT_EQ(RunSluice({"compat", kV1}).exit_code, 2);
  EXPECT_EQ(RunSluice({"compat", "--mode", "SIDEWAYS", kV1, kV2}).exit_code, 2);
  RunResult bad = RunSluice({"compat", kV1, "no/such.avsc"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Contains(bad.err, "no/such.avsc")) << bad.err;
}

TEST(MergeCliTest, Seed000LoyaltyTierAddedUnderMergeSchemaOnly) {
  std::string table = TempFile(".ddl", "user_id long, email string, age int");
  RunResult enforce = RunSluice({"merge", table, "examples/users.ddl"});
  EXPECT_EQ(enforce.exit_code, 1);
  EXPECT_TRUE(Contains(enforce.out, "rejected")) << enforce.out;
  EXPECT_TRUE(Contains(enforce.out, "mergeSchema")) << enforce.out;
  RunResult merge =
      RunSluice({"merge", table, "examples/users.ddl", "--mode", "merge", "--as", "spark-ddl"});
  EXPECT_EQ(merge.exit_code, 0) << merge.out;
  EXPECT_TRUE(Contains(merge.out, "user_id BIGINT,email STRING,age INT,loyalty_tier STRING\n"))
      << merge.out;
}

TEST(MergeCliTest, Seed002AmountRetypeRejectedUnlessOverwrite) {
  for (const char* mode : {"enforce", "merge"}) {
    for (bool widening : {false, true}) {
      std::vector<std::string> args = {
          "merge", "examples/orders_v1.json", "examples/orders_v2.json", "--mode", mode, "--format",
          "json"};
      if (widening) args.push_back("--type-widening");
      RunResult r = RunSluice(args);
      EXPECT_EQ(r.exit_code, 1) << mode << widening << r.out;
      auto doc = ParseJson(r.out);
      ASSERT_TRUE(doc.has_value()) << r.out;
      EXPECT_EQ(doc->Find("verdict")->as_string(), "rejected");
      bool names_amount = false;
      for (const auto& v : doc->Find("violations")->items()) {
        if (v.Find("path")->as_string() == "order_amount") names_amount = true;
      }
      EXPECT_TRUE(names_amount) << r.out;
    }
  }
  RunResult over = RunSluice({"merge", "examples/orders_v1.json", "examples/orders_v2.json",
                              "--mode", "overwrite", "--as", "spark-ddl"});
  EXPECT_EQ(over.exit_code, 0) << over.out;
  EXPECT_TRUE(Contains(over.out, "order_amount STRING")) << over.out;
}

}  // namespace
}  // namespace sluice::e2e
