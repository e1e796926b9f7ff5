// End-to-end: `sluice compat`, `sluice merge` and `sluice check` on the seed scenarios.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "e2e/run.h"
#include "sluice/base/json.h"
#include "sluice_test_paths.h"

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

TEST(CheckCliTest, Seed002OrdersBreakTheContractWithPathsAndRules) {
  RunResult r =
      RunSluice({"check", "examples/orders_v2.json", "--contract", "examples/orders_contract.yaml",
                 "--previous", "examples/orders_v1.json", "--format", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto doc = ParseJson(r.out);
  ASSERT_TRUE(doc.has_value()) << r.out;
  EXPECT_FALSE(doc->Find("passed")->as_bool());
  std::string seen;
  for (const auto& v : doc->Find("violations")->items()) {
    seen += v.Find("path")->as_string() + ":" + v.Find("rule")->as_string() + "\n";
    EXPECT_FALSE(v.Find("fix")->as_string().empty());
  }
  EXPECT_TRUE(Contains(seen, "total_amount:required_column_missing\n")) << seen;
  EXPECT_TRUE(Contains(seen, "order_amount:type_change_not_allowed\n")) << seen;
  RunResult text =
      RunSluice({"check", "examples/orders_v2.json", "--contract", "examples/orders_contract.yaml",
                 "--previous", "examples/orders_v1.json"});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_TRUE(Contains(text.out, "contract VIOLATED")) << text.out;
  EXPECT_TRUE(Contains(text.out, "fix: ")) << text.out;
}

TEST(CheckCliTest, Seed000NewNullableColumnPassesAndRemovalFails) {
  const std::string base =
      "order_id long NOT NULL, customer_id long NOT NULL, total_amount decimal(10,2) NOT NULL, "
      "created_at timestamp NOT NULL";
  std::string v1 = TempFile(".ddl", base + ", coupon string");
  std::string v2 = TempFile(".ddl", base + ", coupon string, loyalty_tier string");
  RunResult ok =
      RunSluice({"check", v2, "--contract", "examples/orders_contract.yaml", "--previous", v1});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  // allowed_column_removal: false
  RunResult removed =
      RunSluice({"check", TempFile(".ddl", base), "--contract", "examples/orders_contract.yaml",
                 "--previous", v2, "--format", "github"});
  EXPECT_EQ(removed.exit_code, 1) << removed.out;
  EXPECT_TRUE(Contains(removed.out, "::error")) << removed.out;
  EXPECT_TRUE(Contains(removed.out, "loyalty_tier")) << removed.out;
  // A retype the contract does not allow, even a widening.
  RunResult retyped =
      RunSluice({"check",
                 TempFile(".ddl",
                          "order_id long NOT NULL, customer_id long NOT NULL, "
                          "total_amount decimal(10,2) NOT NULL, created_at string NOT NULL"),
                 "--contract", "examples/orders_contract.yaml"});
  EXPECT_EQ(retyped.exit_code, 1) << retyped.out;
  EXPECT_TRUE(Contains(retyped.out, "created_at")) << retyped.out;
  RunResult missing = RunSluice({"check", v1, "--contract", "no/such/contract.yaml"});
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(CheckCliTest, OdcsRequiredMeansNotNull) {
  const std::string contract = TempFile(".odcs.yaml", R"(apiVersion: v3.0.2
kind: DataContract
id: urn:test
version: 1.0.0
status: active
schema:
  - name: transactions
    logicalType: object
    properties:
      - name: txn_id
        logicalType: string
        required: true
      - name: amount_minor
        logicalType: integer
        physicalType: BIGINT
        required: true
)");
  RunResult ok =
      RunSluice({"check", TempFile(".ddl", "txn_id string NOT NULL, amount_minor bigint NOT NULL"),
                 "--contract", contract});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  RunResult nullable =
      RunSluice({"check", TempFile(".ddl", "txn_id string, amount_minor bigint NOT NULL"),
                 "--contract", contract, "--format", "json"});
  EXPECT_EQ(nullable.exit_code, 1) << nullable.out;
  auto doc = ParseJson(nullable.out);
  ASSERT_TRUE(doc.has_value()) << nullable.out;
  ASSERT_FALSE(doc->Find("violations")->items().empty());
  EXPECT_EQ(doc->Find("violations")->items().at(0).Find("path")->as_string(), "txn_id");
}

TEST(ContractBreakingCliTest, MatchesDatacontractCliHeadlinesAndExitCodes) {
  const std::filesystem::path dir = std::filesystem::path(SLUICE_SHARED_DIR) / "conformance" /
                                    "datacontract-cli-fixtures" / "breaking-dcs-v0.10.41";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " is absent";
  struct Case {
    const char* old_file;
    const char* new_file;
    int exit_code;
    const char* headline;
    const char* absent;
  };
  const Case cases[] = {
      {"models-v1", "models-v2", 0, "0 breaking changes: 0 error, 0 warning", "model_added"},
      {"models-v2", "models-v1", 1, "1 breaking changes: 1 error, 0 warning",
       "model_description_removed"},
      {"models-v2", "models-v3", 1, "1 breaking changes: 1 error, 0 warning",
       "model_description_updated"},
      {"fields-v1", "fields-v2", 0, "15 breaking changes: 0 error, 15 warning", "field_added"},
      {"fields-v2", "fields-v1", 1, "16 breaking changes: 5 error, 11 warning",
       "field_enum_removed"},
      {"fields-v2", "fields-v3", 1, "18 breaking changes: 15 error, 3 warning",
       "field_description_updated"},
  };
  for (const Case& c : cases) {
    auto file = [&](const char* v) {
      return (dir / (std::string("datacontract-") + v + ".yaml")).string();
    };
    RunResult r = RunSluice({"contract", "breaking", file(c.old_file), file(c.new_file)});
    EXPECT_EQ(r.exit_code, c.exit_code) << c.old_file << " -> " << c.new_file << r.out << r.err;
    EXPECT_TRUE(r.out.starts_with(std::string(c.headline) + "\n"))
        << c.old_file << " -> " << c.new_file << ":\n"
        << r.out;
    EXPECT_FALSE(Contains(r.out, c.absent)) << r.out;
  }
  RunResult all = RunSluice({"contract", "breaking", "--all", "--format", "json",
                             (dir / "datacontract-models-v1.yaml").string(),
                             (dir / "datacontract-models-v2.yaml").string()});
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_TRUE(Contains(all.out, "model_added")) << all.out;
  ASSERT_TRUE(ParseJson(all.out).has_value()) << all.out;
}

}  // namespace
}  // namespace sluice::e2e
