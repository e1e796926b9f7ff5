#include "sluice/report/contract_render.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>

#include "sluice/dialects/contract/contract.h"
#include "sluice/dialects/contract/dcs.h"
#include "sluice_test_paths.h"

namespace sluice::report {
namespace {

using evolution::BreakingChange;
using evolution::BreakingChangeReport;
using evolution::BreakingSeverity;
using evolution::ContractCheckReport;
using evolution::ContractViolation;
using evolution::ViolationRule;

// ---------------------------------------------------------------------------------------------
// Schema against contract.

const CheckContext kCheck{"orders.json", "orders.yaml", ""};

ContractCheckReport Violated() {
  ContractCheckReport r;
  r.object = "orders";
  r.violations.push_back(ContractViolation{
      *schema::FieldPath::Parse("order_amount"), ViolationRule::kRequiredColumnType,
      "expected double, got string", "write order_amount as double"});
  r.violations.push_back(ContractViolation{*schema::FieldPath::Parse("extra"),
                                           ViolationRule::kNewColumnNotAllowed,
                                           "new column, 100% unexpected", ""});
  return r;
}

std::string MustRender(const ContractCheckReport& r, const CheckContext& ctx, Format f) {
  auto text = Render(r, ctx, f);
  EXPECT_TRUE(text.has_value()) << text.error().ToString();
  return text.value_or("");
}

TEST(CheckRenderTest, Text) {
  EXPECT_EQ(MustRender(Violated(), kCheck, Format::kText),
            "orders.json against orders.yaml (orders): contract VIOLATED\n"
            "  order_amount  required_column_type: expected double, got string\n"
            "    fix: write order_amount as double\n"
            "  extra  new_column_not_allowed: new column, 100% unexpected\n"
            "2 violation(s)\n");
  EXPECT_EQ(MustRender(ContractCheckReport{}, kCheck, Format::kText),
            "orders.json against orders.yaml: contract kept\n");
}

TEST(CheckRenderTest, JsonNamesThePreviousVersionOnlyWhenChecked) {
  EXPECT_EQ(MustRender(Violated(), kCheck, Format::kJson),
            R"json({
  "schema": "orders.json",
  "contract": "orders.yaml",
  "object": "orders",
  "passed": false,
  "violations": [
    {
      "path": "order_amount",
      "rule": "required_column_type",
      "message": "expected double, got string",
      "fix": "write order_amount as double"
    },
    {
      "path": "extra",
      "rule": "new_column_not_allowed",
      "message": "new column, 100% unexpected",
      "fix": ""
    }
  ]
}
)json");
  CheckContext with_previous = kCheck;
  with_previous.previous_name = "orders_v1.json";
  EXPECT_EQ(MustRender(ContractCheckReport{}, with_previous, Format::kJson),
            R"json({
  "schema": "orders.json",
  "contract": "orders.yaml",
  "object": "",
  "previous": "orders_v1.json",
  "passed": true,
  "violations": []
}
)json");
}

TEST(CheckRenderTest, GithubAnnotatesTheSchema) {
  EXPECT_EQ(MustRender(Violated(), kCheck, Format::kGithub),
            "::error file=orders.json,title=sluice check required_column_type::order_amount: "
            "expected double, got string Fix: write order_amount as double\n"
            "::error file=orders.json,title=sluice check new_column_not_allowed::extra: new "
            "column, 100%25 unexpected\n"
            "2 violation(s)\n");
  EXPECT_EQ(MustRender(ContractCheckReport{}, kCheck, Format::kGithub), "contract kept\n");
}

TEST(CheckRenderTest, ReservedFormatsAreUnimplemented) {
  for (Format f : {Format::kSlack, Format::kHtml}) {
    auto text = Render(Violated(), kCheck, f);
    ASSERT_FALSE(text.has_value());
    EXPECT_EQ(text.error().code(), ErrorCode::kUnimplemented);
  }
}

// ---------------------------------------------------------------------------------------------
// Contract against contract.

BreakingChangeReport ThreeChanges() {
  BreakingChangeReport r;
  r.changes.push_back({"field_type_updated", BreakingSeverity::kError,
                       "models.orders.fields.amount.type", "changed from `string` to `integer`"});
  r.changes.push_back({"field_description_updated", BreakingSeverity::kInfo,
                       "models.orders.fields.amount.description", "changed from `a` to `b`"});
  r.changes.push_back({"field_primary_key_updated", BreakingSeverity::kWarning,
                       "models.orders.fields.id.primaryKey", "changed from `false` to `true`"});
  return r;
}

std::string MustRender(const BreakingChangeReport& r, bool include_info, Format f) {
  auto text = Render(r, BreakingContext{"v1.yaml", "v2.yaml", include_info}, f);
  EXPECT_TRUE(text.has_value()) << text.error().ToString();
  return text.value_or("");
}

TEST(BreakingRenderTest, TextIsDatacontractCliBreaking) {
  EXPECT_EQ(MustRender(ThreeChanges(), false, Format::kText),
            "2 breaking changes: 1 error, 1 warning\n"
            "error\t[field_type_updated] at v2.yaml\n"
            "        in models.orders.fields.amount.type\n"
            "            changed from `string` to `integer`\n"
            "\n"
            "warning\t[field_primary_key_updated] at v2.yaml\n"
            "        in models.orders.fields.id.primaryKey\n"
            "            changed from `false` to `true`");
  EXPECT_EQ(MustRender(BreakingChangeReport{}, false, Format::kText),
            "0 breaking changes: 0 error, 0 warning\n");
}

TEST(BreakingRenderTest, TextWithInfoIsDatacontractCliChangelog) {
  EXPECT_EQ(MustRender(ThreeChanges(), true, Format::kText),
            "3 changes: 1 error, 1 warning, 1 info\n"
            "\n"
            "error\t[field_type_updated] at v2.yaml\n"
            "        in models.orders.fields.amount.type\n"
            "            changed from `string` to `integer`\n"
            "\n"
            "info\t[field_description_updated] at v2.yaml\n"
            "        in models.orders.fields.amount.description\n"
            "            changed from `a` to `b`\n"
            "\n"
            "warning\t[field_primary_key_updated] at v2.yaml\n"
            "        in models.orders.fields.id.primaryKey\n"
            "            changed from `false` to `true`\n");
}

TEST(BreakingRenderTest, JsonCountsEverySeverityAndListsInfoOnlyWhenAsked) {
  BreakingChangeReport r = ThreeChanges();
  r.changes.erase(r.changes.begin() + 2);
  EXPECT_EQ(MustRender(r, false, Format::kJson),
            R"json({
  "old": "v1.yaml",
  "new": "v2.yaml",
  "summary": "1 breaking changes: 1 error, 0 warning",
  "errors": 1,
  "warnings": 0,
  "infos": 1,
  "changes": [
    {
      "rule": "field_type_updated",
      "severity": "error",
      "location": "models.orders.fields.amount.type",
      "description": "changed from `string` to `integer`"
    }
  ]
}
)json");
  EXPECT_EQ(MustRender(r, true, Format::kJson),
            R"json({
  "old": "v1.yaml",
  "new": "v2.yaml",
  "summary": "1 breaking changes: 1 error, 0 warning",
  "errors": 1,
  "warnings": 0,
  "infos": 1,
  "changes": [
    {
      "rule": "field_type_updated",
      "severity": "error",
      "location": "models.orders.fields.amount.type",
      "description": "changed from `string` to `integer`"
    },
    {
      "rule": "field_description_updated",
      "severity": "info",
      "location": "models.orders.fields.amount.description",
      "description": "changed from `a` to `b`"
    }
  ]
}
)json");
}

TEST(BreakingRenderTest, GithubAndReservedFormatsAreUnimplemented) {
  for (Format f : {Format::kGithub, Format::kSlack, Format::kHtml}) {
    auto text = Render(ThreeChanges(), BreakingContext{"v1.yaml", "v2.yaml"}, f);
    ASSERT_FALSE(text.has_value());
    EXPECT_EQ(text.error().code(), ErrorCode::kUnimplemented);
  }
}

// datacontract-cli v0.10.41's own fixtures: the headline `breaking` prints for each pair, and
// the info-level rules it leaves out. Skipped where the shared conformance data is absent.
std::optional<dialects::contract::Contract> LoadFixture(const std::string& name) {
  std::ifstream in(std::string(SLUICE_SHARED_DIR) +
                       "/conformance/datacontract-cli-fixtures/breaking-dcs-v0.10.41/" + name,
                   std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  auto contract = dialects::contract::ParseDcs(ss.str());
  EXPECT_TRUE(contract.has_value()) << name << ": " << contract.error().ToString();
  if (!contract.has_value()) return std::nullopt;
  return *contract;
}

TEST(BreakingRenderTest, MatchesDatacontractCliHeadlines) {
  struct Pair {
    const char* old_file;
    const char* new_file;
    const char* headline;
    std::vector<std::string> must_not_appear;
  };
  const Pair pairs[] = {
      {"models-v1",
       "models-v2",
       "0 breaking changes: 0 error, 0 warning",
       {"model_added", "model_description_added"}},
      {"models-v2",
       "models-v1",
       "1 breaking changes: 1 error, 0 warning",
       {"model_description_removed"}},
      {"models-v2",
       "models-v3",
       "1 breaking changes: 1 error, 0 warning",
       {"model_description_updated"}},
      {"fields-v1",
       "fields-v2",
       "15 breaking changes: 0 error, 15 warning",
       {"field_added", "field_description_added", "field_tags_added"}},
      {"fields-v2",
       "fields-v1",
       "16 breaking changes: 5 error, 11 warning",
       {"field_description_removed", "field_enum_removed", "field_tags_removed"}},
      {"fields-v2",
       "fields-v3",
       "18 breaking changes: 15 error, 3 warning",
       {"field_description_updated", "field_tags_updated"}},
      {"fields-v2", "fields-v2", "0 breaking changes: 0 error, 0 warning", {}},
  };
  for (const Pair& p : pairs) {
    std::string old_name = fmt::format("datacontract-{}.yaml", p.old_file);
    std::string new_name = fmt::format("datacontract-{}.yaml", p.new_file);
    SCOPED_TRACE(old_name + " -> " + new_name);
    auto old_contract = LoadFixture(old_name);
    auto new_contract = LoadFixture(new_name);
    if (!old_contract || !new_contract) GTEST_SKIP() << "fixtures not present";
    BreakingChangeReport report = evolution::BreakingChanges(*old_contract, *new_contract);
    auto printed = Render(report, BreakingContext{old_name, new_name}, Format::kText);
    ASSERT_TRUE(printed.has_value());
    EXPECT_TRUE(printed->starts_with(std::string(p.headline) + "\n")) << *printed;
    for (const std::string& rule : p.must_not_appear) {
      EXPECT_EQ(printed->find("[" + rule + "]"), std::string::npos) << rule << "\n" << *printed;
    }
  }
}

}  // namespace
}  // namespace sluice::report
