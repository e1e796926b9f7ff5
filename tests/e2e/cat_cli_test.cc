// `sluice cat`: records of any format as JSON lines, with a projection and a limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>

#include "e2e/run.h"

namespace sluice::e2e {
namespace {

TEST(CatCliTest, JsonLinesPassThroughAndProject) {
  RunResult all = RunSluice({"cat", "examples/orders_landing.jsonl", "--limit", "2"});
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out,
            "{\"order_id\": 1001, \"customer_id\": 501, \"order_amount\": 4500.0, \"order_date\": "
            "\"2026-08-15\"}\n"
            "{\"order_id\": 1002, \"customer_id\": 502, \"order_amount\": 120.5, \"order_date\": "
            "\"2026-08-15\", \"unexpected_column\": \"extra_unexpected_field\"}\n");
  std::string nested = TempFile(
      ".jsonl",
      "{\"a\":1,\"b\":{\"c\":12.50,\"d\":[1]}}\n\n{\"b\":null}\n{\"a\":3,\"b\":{\"d\":2}}\n");
  RunResult projected = RunSluice({"cat", nested, "--columns", "b.c,a"});
  EXPECT_EQ(projected.exit_code, 0) << projected.err;
  EXPECT_EQ(
      projected.out,
      "{\"b\":{\"c\":12.50},\"a\":1}\n{\"b\":null,\"a\":null}\n{\"b\":{\"c\":null},\"a\":3}\n");
  EXPECT_EQ(RunSluice({"cat", nested, "--columns", "b.d[]"}).exit_code, 2);
}

TEST(CatCliTest, CsvRowsAndJsonDocuments) {
  std::string csv = TempFile(".csv", "id,name\n1,\"Ann, A\"\n2,\n");
  RunResult rows = RunSluice({"cat", csv});
  EXPECT_EQ(rows.exit_code, 0) << rows.err;
  EXPECT_EQ(rows.out, "{\"id\":\"1\",\"name\":\"Ann, A\"}\n{\"id\":\"2\",\"name\":null}\n");
  std::string doc = TempFile(".json", "[{\"a\":1},{\"a\":2},{\"a\":3}]");
  RunResult items = RunSluice({"cat", doc, "--limit", "2"});
  EXPECT_EQ(items.exit_code, 0) << items.err;
  EXPECT_EQ(items.out, "{\"a\":1}\n{\"a\":2}\n");
}

TEST(CatCliTest, ABadLineStopsWithItsPlaceAfterTheRecordsBeforeIt) {
  RunResult r = RunSluice({"cat", "examples/orders_landing.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("examples/orders_landing.jsonl:6: not a JSON object"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 5);
}

// A Parquet file on standard input is read whole (its footer is at the end); bytes that only
// start like one are an error, not an empty result.
TEST(CatCliTest, ParquetOnStandardInput) {
  const std::string file = TempFile(".parquet", "");
  ASSERT_EQ(RunSluice({"validate", TempFile(".jsonl", "{\"a\":1}\n{\"a\":2}\n"), "--schema",
                       TempFile(".ddl", "a INT"), "-o", file, "--rescued-column", "", "-q"})
                .exit_code,
            0);
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.substr(0, 4), "PAR1");
  RunResult guessed = RunSluice({"cat", "-"}, bytes);
  EXPECT_EQ(guessed.exit_code, 0) << guessed.err;
  EXPECT_EQ(guessed.out, "{\"a\":1}\n{\"a\":2}\n");
  RunResult named = RunSluice({"cat", "-", "--input-format", "parquet", "--limit", "1"}, bytes);
  EXPECT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(named.out, "{\"a\":1}\n");
  RunResult junk = RunSluice({"cat", "-"}, "PAR1 junk\n");
  EXPECT_EQ(junk.exit_code, 2);
  EXPECT_NE(junk.err.find("-: not a Parquet file"), std::string::npos) << junk.err;
  // validate and infer read Parquet from files only, and say so.
  RunResult validate =
      RunSluice({"validate", "-", "--input-format", "parquet", "--schema", file}, bytes);
  EXPECT_EQ(validate.exit_code, 2);
  EXPECT_NE(validate.err.find("not from standard input"), std::string::npos) << validate.err;
}

}  // namespace
}  // namespace sluice::e2e
