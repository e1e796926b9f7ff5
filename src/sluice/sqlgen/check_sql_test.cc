#include "sluice/sqlgen/check_sql.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sluice/dialects/contract/contract.h"
#include "sluice/dialects/contract/dcs.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice_test_paths.h"

namespace sluice::sqlgen {
namespace {

namespace fs = std::filesystem;
using dialects::contract::Contract;

const fs::path kCases = fs::path(SLUICE_SOURCE_DIR) / "src/sluice/sqlgen/testdata/check";

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<Contract> ParseAnyContract(std::string_view text) {
  if (dialects::contract::LooksLikeDcs(text)) return dialects::contract::ParseDcs(text);
  if (dialects::contract::LooksLikeOdcs(text)) return dialects::contract::ParseOdcs(text);
  return dialects::contract::ParseSeedContract(text);
}

Contract MustParse(std::string_view text) {
  auto c = ParseAnyContract(text);
  EXPECT_TRUE(c.has_value()) << c.error().message();
  return c.has_value() ? *c : Contract{};
}

// Everything a case renders, in one text: the two queries, the dbt files and the notes.
std::string RenderCase(const std::string& name, const Contract& contract,
                       const CheckOptions& options) {
  std::string out;
  for (Dialect d : {Dialect::kSpark, Dialect::kDuckDb}) {
    auto q = RenderContractCheck(contract, "", "bronze." + name, d, options);
    if (!q.has_value()) return "error: " + q.error().message() + "\n";
    out += "==> " + std::string(DialectName(d)) + ".sql <==\n" + q->sql;
    if (d == Dialect::kSpark) {
      out += "==> rules <==\n";
      for (const CheckedRule& r : q->rules) out += r.rule + " " + r.column + "\n";
      out += "==> missing columns <==\n";
      for (const std::string& m : q->missing_columns) out += m + "\n";
      out += "==> notes <==\n";
      for (const std::string& m : q->notes) out += m + "\n";
    }
  }
  auto dbt = RenderDbtChecks(contract, "", name, Dialect::kSpark, options);
  if (!dbt.has_value()) return out + "error: " + dbt.error().message() + "\n";
  for (const auto& [path, content] : dbt->files) out += "==> dbt " + path + " <==\n" + content;
  return out;
}

// One case a `<name>.contract.yaml` in testdata/check, with the relation's schema in
// `<name>.relation.ddl` when there is one; the expected output is `<name>.expected`
// (SLUICE_UPDATE_GOLDEN=1 rewrites it).
TEST(ContractCheckGoldenTest, EveryCaseRendersItsExpectedSql) {
  std::vector<fs::path> contracts;
  for (const auto& entry : fs::directory_iterator(kCases)) {
    std::string file = entry.path().filename().string();
    if (file.ends_with(".contract.yaml")) contracts.push_back(entry.path());
  }
  std::sort(contracts.begin(), contracts.end());
  ASSERT_GE(contracts.size(), 4u) << kCases;
  bool update = std::getenv("SLUICE_UPDATE_GOLDEN") != nullptr;
  for (const fs::path& path : contracts) {
    std::string file = path.filename().string();
    std::string name = file.substr(0, file.size() - std::string(".contract.yaml").size());
    std::replace(name.begin(), name.end(), '.', '_');
    SCOPED_TRACE(file);
    Contract contract = MustParse(Slurp(path));
    CheckOptions options;
    fs::path ddl = kCases / (name + ".relation.ddl");
    if (fs::exists(ddl)) {
      auto relation = dialects::spark::ReadDdl(Slurp(ddl));
      ASSERT_TRUE(relation.has_value()) << relation.error().message();
      options.relation_schema = relation->value;
    }
    std::string actual = RenderCase(name, contract, options);
    fs::path expected_path = kCases / (name + ".expected");
    if (update) {
      std::ofstream(expected_path, std::ios::binary) << actual;
      continue;
    }
    EXPECT_EQ(actual, Slurp(expected_path)) << "rerun with SLUICE_UPDATE_GOLDEN=1 to accept";
  }
}

constexpr std::string_view kSeed = R"(name: orders
version: 1.0
required_columns:
  - name: order_id
    type: long
    nullable: false
  - name: note
    type: string
allowed_new_columns: false
)";

TEST(ContractCheckTest, RequiredColumnTheRelationLacksBreaksNotNullInEveryRow) {
  Contract c = MustParse(kSeed);
  CheckOptions options;
  options.relation_schema = dialects::spark::ReadDdl("note STRING")->value;
  auto q = RenderContractCheck(c, "", "t", Dialect::kDuckDb, options);
  ASSERT_TRUE(q.has_value()) << q.error().message();
  EXPECT_EQ(q->missing_columns, std::vector<std::string>{"order_id"});
  ASSERT_EQ(q->rules.size(), 1u);
  EXPECT_EQ(q->rules[0].rule, "not_null");
  EXPECT_NE(q->sql.find("COUNT(*) FILTER (WHERE TRUE) AS v0"), std::string::npos) << q->sql;
  EXPECT_EQ(q->sql.find("order_id IS NULL"), std::string::npos) << q->sql;
}

TEST(ContractCheckTest, TypedColumnsGetNoTypeRule) {
  Contract c = MustParse(kSeed);
  CheckOptions options;
  options.relation_schema = dialects::spark::ReadDdl("order_id BIGINT, note STRING")->value;
  auto q = RenderContractCheck(c, "", "t", Dialect::kSpark, options);
  ASSERT_TRUE(q.has_value());
  ASSERT_EQ(q->rules.size(), 1u);
  EXPECT_EQ(q->rules[0].rule, "not_null");
  options.relation_schema = dialects::spark::ReadDdl("order_id STRING, note STRING")->value;
  q = RenderContractCheck(c, "", "t", Dialect::kSpark, options);
  ASSERT_EQ(q->rules.size(), 2u);
  EXPECT_EQ(q->rules[1].rule, "type");
}

TEST(ContractCheckTest, UnknownColumnsOnlyWhenTheContractAllowsNone) {
  Contract c = MustParse(kSeed);
  CheckOptions options;
  options.relation_schema =
      dialects::spark::ReadDdl("ORDER_ID BIGINT, note STRING, extra INT, _rescued_data STRING")
          ->value;
  auto q = RenderContractCheck(c, "", "t", Dialect::kSpark, options);
  ASSERT_TRUE(q.has_value());
  ASSERT_EQ(q->rules.size(), 2u);
  EXPECT_EQ(q->rules[1].rule, "unknown_column");
  EXPECT_EQ(q->rules[1].column, "extra");
  c.policy.allow_new_columns = true;
  q = RenderContractCheck(c, "", "t", Dialect::kSpark, options);
  ASSERT_EQ(q->rules.size(), 1u);
}

TEST(ContractCheckTest, IdentifiersAndLiteralsCannotEscape) {
  Contract c = MustParse(R"(version: 1
required_columns:
  - name: "a`b"
    type: long
    nullable: false
)");
  auto q = RenderContractCheck(c, "", "db.my table", Dialect::kSpark, {});
  ASSERT_TRUE(q.has_value());
  EXPECT_NE(q->sql.find("`a``b` IS NULL"), std::string::npos) << q->sql;
  EXPECT_NE(q->sql.find("'a`b' AS column_path"), std::string::npos) << q->sql;
  EXPECT_NE(q->sql.find("FROM db.`my table`"), std::string::npos) << q->sql;
  auto line = RenderContractCheck(c, "", "t\nDROP TABLE x", Dialect::kSpark, {});
  ASSERT_FALSE(line.has_value());
  EXPECT_EQ(line.error().code(), ErrorCode::kInvalidArgument);
}

TEST(ContractCheckTest, DbtKeepsHostileNamesAndPatternsInert) {
  Contract c = MustParse(R"(apiVersion: v3.1.0
kind: DataContract
id: x
version: 1.0.0
status: active
schema:
  - name: "t\nDROP"
    properties:
      - name: "a\"b\n-- c"
        logicalType: string
        required: true
        logicalTypeOptions:
          pattern: "^{{ x }}'$"
)");
  auto dbt = RenderDbtChecks(c, "", "model_1", Dialect::kDuckDb, {});
  ASSERT_TRUE(dbt.has_value()) << dbt.error().message();
  ASSERT_EQ(dbt->files.size(), 2u);
  const std::string& yml = dbt->files[0].second;
  EXPECT_NE(yml.find("- name: \"a\\\"b\\n-- c\"\n        quote: true"), std::string::npos) << yml;
  EXPECT_EQ(yml.find("\nDROP"), std::string::npos) << yml;
  EXPECT_EQ(dbt->files[1].first, "tests/model_1_a_b____c_pattern.sql");
  const std::string& sql = dbt->files[1].second;
  EXPECT_NE(sql.find("{% raw %}\"a\"\"b\n-- c\" IS NOT NULL AND (NOT regexp_matches("),
            std::string::npos)
      << sql;
  EXPECT_NE(sql.find("'^{{ x }}''$')){% endraw %}"), std::string::npos) << sql;
  EXPECT_EQ(sql.find("\n-- c,"), std::string::npos) << sql;  // the header comment stays one line
}

TEST(ContractCheckTest, DbtLeavesOutARuleThatWouldEndItsRawBlock) {
  Contract c = MustParse(R"(dataContractSpecification: 1.2.1
id: x
info:
  title: x
  version: 1.0.0
models:
  m:
    fields:
      code:
        type: string
        pattern: "{% endraw %}"
)");
  auto dbt = RenderDbtChecks(c, "", "m", Dialect::kSpark, {});
  ASSERT_TRUE(dbt.has_value()) << dbt.error().message();
  EXPECT_EQ(dbt->files.size(), 1u);
  ASSERT_FALSE(dbt->notes.empty());
  EXPECT_NE(dbt->notes.back().find("endraw"), std::string::npos);
}

TEST(ContractCheckTest, BadArgumentsAreErrors) {
  Contract c = MustParse(kSeed);
  EXPECT_EQ(RenderContractCheck(c, "", "", Dialect::kSpark, {}).error().code(),
            ErrorCode::kInvalidArgument);
  CheckOptions options;
  options.samples = 1001;
  EXPECT_EQ(RenderContractCheck(c, "", "t", Dialect::kSpark, options).error().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(RenderContractCheck(c, "nope", "t", Dialect::kSpark, {}).error().code(),
            ErrorCode::kNotFound);
  EXPECT_EQ(RenderDbtChecks(c, "", "db.t", Dialect::kSpark, {}).error().code(),
            ErrorCode::kInvalidArgument);
}

TEST(ContractCheckTest, NoSamplesMeansEmptyLists) {
  Contract c = MustParse(kSeed);
  CheckOptions options;
  options.samples = 0;
  auto q = RenderContractCheck(c, "", "t", Dialect::kDuckDb, options);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->sql.find("list("), std::string::npos) << q->sql;
}

}  // namespace
}  // namespace sluice::sqlgen
