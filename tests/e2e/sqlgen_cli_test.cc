// End-to-end: `sluice sqlgen check` on the seed 002 orders contract.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "e2e/run.h"

namespace sluice::e2e {
namespace {

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

constexpr const char* kContract = "examples/orders_silver_contract.yaml";

TEST(SqlgenCheckCliTest, WritesOneQueryOnStandardOutput) {
  RunResult r = RunSluice({"sqlgen", "check", "--contract", kContract, "--relation",
                           "bronze.orders", "--dialect", "spark"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "SELECT rule, column_path, violations, sample_values")) << r.out;
  EXPECT_TRUE(Contains(r.out, "FROM bronze.orders")) << r.out;
  EXPECT_TRUE(Contains(r.out, "'not_null' AS rule, 'customer_id' AS column_path")) << r.out;
  EXPECT_TRUE(Contains(r.err, "note: no --schema")) << r.err;
}

TEST(SqlgenCheckCliTest, AColumnTheRelationLacksExitsOneAndStillWritesTheQuery) {
  std::string ddl = TempFile(".ddl", "order_id STRING, customer_id STRING, extra STRING\n");
  RunResult r = RunSluice({"sqlgen", "check", "--contract", kContract, "--relation", "orders",
                           "--dialect", "duckdb", "--schema", ddl, "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(Contains(r.err, "missing column: order_amount")) << r.err;
  EXPECT_TRUE(Contains(r.err, "missing column: order_date")) << r.err;
  EXPECT_TRUE(Contains(r.out, "'unknown_column' AS rule, 'extra' AS column_path")) << r.out;
}

TEST(SqlgenCheckCliTest, DbtWritesAFolderAndNeedsOne) {
  RunResult none = RunSluice(
      {"sqlgen", "check", "--contract", kContract, "--relation", "orders", "--dialect", "dbt"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(Contains(none.err, "-o DIR")) << none.err;

  std::filesystem::path dir = std::filesystem::path(TempFile(".d", "")).replace_extension(".dbt");
  RunResult r = RunSluice({"sqlgen", "check", "--contract", kContract, "--relation", "orders",
                           "--dialect", "dbt", "-o", dir.string(), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "models/schema.yml"));
  EXPECT_TRUE(std::filesystem::exists(dir / "tests/orders_customer_id_type.sql"));
  std::filesystem::remove_all(dir);
}

TEST(SqlgenCheckCliTest, BadInputsExitTwo) {
  EXPECT_EQ(RunSluice({"sqlgen", "check", "--contract", "nope.yaml", "--relation", "t"}).exit_code,
            2);
  EXPECT_EQ(
      RunSluice({"sqlgen", "check", "--contract", kContract, "--relation", "t", "--object", "nope"})
          .exit_code,
      2);
  EXPECT_EQ(RunSluice({"sqlgen", "check", "--contract", kContract, "--relation", "t", "--dialect",
                       "mysql"})
                .exit_code,
            2);
}

}  // namespace
}  // namespace sluice::e2e
