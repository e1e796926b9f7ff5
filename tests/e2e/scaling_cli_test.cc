// End-to-end: the commands of the wide-schema issue, run as a user runs them, take time linear
// in the width of their schemas (the headline cases: compat of a wide DDL with itself, Iceberg
// against the reversed order, a merge of two wide DDLs, schema show of a JSON Schema whose every
// property is required, check with a wide contract and --previous).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "e2e/run.h"
#include "sluice/schema/scaling_testing.h"

namespace sluice::e2e {
namespace {

using scaling::ScalesLinearly;

// Each command once per size, on files written once per size.
struct Files {
  std::string ddl, reversed, json_schema, contract;
};

Files Write(size_t n) {
  return Files{TempFile(".ddl", scaling::WideDdl(n)),
               TempFile(".ddl", scaling::WideDdl(n, /*reversed=*/true)),
               TempFile(".schema.json", scaling::WideJsonSchema(n, /*required=*/true)),
               TempFile(".yaml", scaling::WideSeedContract(n))};
}

// Starting `count` processes, which costs the same at every size and is not compared.
double StartSeconds(int count) {
  return count * scaling::BestSeconds([](size_t) { RunSluice({"--version"}); }, 0, 5);
}

TEST(ScalingCliTest, WideSchemaCommandsTakeLinearTime) {
  std::map<size_t, Files> files;
  EXPECT_TRUE(ScalesLinearly(
      [&](size_t n) {
        auto it = files.find(n);
        if (it == files.end()) it = files.emplace(n, Write(n)).first;
        const Files& f = it->second;
        EXPECT_EQ(RunSluice({"compat", "--type", "table", f.ddl, f.ddl}).exit_code, 0);
        EXPECT_EQ(RunSluice({"compat", "--type", "iceberg", "--mode", "FULL", f.ddl, f.reversed})
                      .exit_code,
                  0);
        EXPECT_EQ(RunSluice({"check", f.reversed, "--contract", f.contract, "--previous", f.ddl})
                      .exit_code,
                  0);
      },
      2000, /*max_seconds=*/10, /*max_ratio=*/12, StartSeconds(3)));
}

TEST(ScalingCliTest, JsonSchemaWithEveryPropertyRequiredShowsInLinearTime) {
  std::map<size_t, std::string> files;
  EXPECT_TRUE(ScalesLinearly(
      [&](size_t n) {
        std::string& file = files[n];
        if (file.empty()) file = TempFile(".schema.json", scaling::WideJsonSchema(n, true));
        EXPECT_EQ(RunSluice({"schema", "show", "--as", "spark-ddl", file}).exit_code, 0);
      },
      8000, /*max_seconds=*/10, /*max_ratio=*/12, StartSeconds(1)));
}

TEST(ScalingCliTest, IcebergMergeOfReversedColumnsInLinearTime) {
  std::map<size_t, Files> files;
  EXPECT_TRUE(ScalesLinearly(
      [&](size_t n) {
        auto it = files.find(n);
        if (it == files.end()) it = files.emplace(n, Write(n)).first;
        EXPECT_EQ(RunSluice({"merge", "--table-format", "iceberg", "--mode", "merge",
                             it->second.ddl, it->second.reversed})
                      .exit_code,
                  0);
      },
      8000, /*max_seconds=*/10, /*max_ratio=*/12, StartSeconds(1)));
}

}  // namespace
}  // namespace sluice::e2e
