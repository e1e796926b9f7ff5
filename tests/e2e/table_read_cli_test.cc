// End-to-end: `sluice table cat` on the Delta golden tables (Spark-written; skipped without
// the shared data) against the rows tests/table/golden/ expects, and on tables written with
// `sluice table append`, whose rows must read back as they went in and append again unchanged.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "e2e/run.h"
#include "e2e/table_testing.h"
#include "sluice/table/json_rows_testing.h"
#include "sluice_test_paths.h"

namespace sluice::e2e {
namespace {

namespace fs = std::filesystem;
using table::testing::CanonicalRows;
using table::testing::ReadLines;
using table::testing::SplitLines;

fs::path GoldenTables() { return fs::path(SLUICE_SHARED_DIR) / "conformance" / "delta-golden"; }
fs::path Expected() { return fs::path(SLUICE_SOURCE_DIR) / "tests" / "table" / "golden"; }

TEST(TableReadCliTest, GoldenTablesAtEveryVersion) {
  if (!fs::exists(GoldenTables())) GTEST_SKIP() << "no golden tables at " << GoldenTables();
  struct Case {
    std::string table;
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"basic-decimal-table", {}, "rows.jsonl"},
      {"data-reader-array-complex-objects", {}, "rows.jsonl"},
      {"data-reader-map", {}, "rows.jsonl"},
      {"data-reader-nested-struct", {}, "rows.jsonl"},
      {"data-reader-partition-values", {"--partition-timezone", "-07:00"}, "rows.jsonl"},
      {"data-reader-primitives", {}, "rows.jsonl"},
      {"table-with-columnmapping-mode-name", {}, "rows.jsonl"},
      {"time-travel-schema-changes-b", {"--version", "0"}, "rows@0.jsonl"},
      {"time-travel-schema-changes-b", {"--version", "1"}, "rows@1.jsonl"},
      {"type-widening", {"--version", "0"}, "rows@0.jsonl"},
      {"type-widening", {"--version", "1"}, "rows@1.jsonl"},
      {"type-widening", {"--version", "2"}, "rows@2.jsonl"},
      {"type-widening", {}, "rows.jsonl"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"table", "cat", (GoldenTables() / c.table).string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    RunResult r = RunSluice(args);
    ASSERT_EQ(r.exit_code, 0) << c.table << ": " << r.err;
    EXPECT_EQ(CanonicalRows(SplitLines(r.out)),
              CanonicalRows(ReadLines((Expected() / c.table / c.expected).string())))
        << c.table << " " << c.expected;
  }
}

TEST(TableReadCliTest, GoldenPartitionTablePrunesByPartitionAndStats) {
  if (!fs::exists(GoldenTables())) GTEST_SKIP() << "no golden tables at " << GoldenTables();
  RunResult r = RunSluice({"table", "cat", (GoldenTables() / "basic-decimal-table").string(),
                           "--where", "part > 0 AND col1 > 1", "--columns", "col1", "--stats"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"col1\":111.11}\n");
  EXPECT_TRUE(Contains(r.err, "\"files_read\":1,\"files_pruned\":3,\"files_pruned_by_stats\":2"))
      << r.err;
}

TEST(TableReadCliTest, ATableWrittenByAppendReadsBackAndAppendsAgain) {
  const std::string dir = FreshFolder("roundtrip");
  const std::string table = dir + "/orders";
  const std::string rows =
      "{\"id\":1,\"amount\":12.50,\"placed\":\"2024-09-09T12:34:56Z\",\"items\":[{\"sku\":\"a\","
      "\"qty\":2}],\"attrs\":{\"gift\":\"yes\"},\"region\":\"eu\"}\n"
      "{\"id\":2,\"amount\":null,\"placed\":null,\"items\":[],\"attrs\":{},\"region\":\"us\"}\n"
      "{\"id\":3,\"amount\":0.05,\"placed\":\"2024-09-10T00:00:00.25Z\",\"items\":null,"
      "\"attrs\":null,\"region\":null}\n";
  const std::string input = WriteText(dir, "orders.jsonl", rows);
  const std::string schema = WriteText(
      dir, "orders.ddl",
      "id BIGINT, amount DECIMAL(10,2), placed TIMESTAMP, items ARRAY<STRUCT<sku: STRING, "
      "qty: INT>>, attrs MAP<STRING, STRING>, region STRING");
  RunResult appended = RunSluice(
      {"table", "append", table, input, "--schema", schema, "--partition-by", "region", "-q"});
  ASSERT_EQ(appended.exit_code, 0) << appended.err << appended.out;

  RunResult cat = RunSluice({"table", "cat", table});
  ASSERT_EQ(cat.exit_code, 0) << cat.err;
  EXPECT_EQ(CanonicalRows(SplitLines(cat.out)), CanonicalRows(SplitLines(rows)));

  // What cat prints goes into another table unchanged (maps as objects, the record forms).
  const std::string printed = dir + "/printed.jsonl";
  RunResult to_file = RunSluice({"table", "cat", table, "-o", printed});
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  const std::string copy = dir + "/copy";
  RunResult again = RunSluice({"table", "append", copy, printed, "--schema", schema, "-q"});
  ASSERT_EQ(again.exit_code, 0) << again.err << again.out;
  RunResult copied = RunSluice({"table", "cat", copy});
  ASSERT_EQ(copied.exit_code, 0) << copied.err;
  EXPECT_EQ(CanonicalRows(SplitLines(copied.out)), CanonicalRows(SplitLines(rows)));

  RunResult where = RunSluice({"table", "cat", table, "--where", "region = 'eu' OR id = 3",
                               "--columns", "id,items.sku", "--stats"});
  ASSERT_EQ(where.exit_code, 0) << where.err;
  EXPECT_EQ(CanonicalRows(SplitLines(where.out)),
            CanonicalRows({"{\"id\":1,\"items\":[{\"sku\":\"a\"}]}", "{\"id\":3,\"items\":null}"}))
      << where.out;

  RunResult eu = RunSluice({"table", "cat", table, "--where", "region = 'eu'", "--stats"});
  ASSERT_EQ(eu.exit_code, 0) << eu.err;
  EXPECT_EQ(SplitLines(eu.out).size(), 1u);
  EXPECT_TRUE(Contains(eu.err, "\"files_read\":1,\"files_pruned\":2")) << eu.err;

  RunResult limited = RunSluice({"table", "cat", table, "--limit", "2"});
  ASSERT_EQ(limited.exit_code, 0) << limited.err;
  EXPECT_EQ(SplitLines(limited.out).size(), 2u);
}

TEST(TableReadCliTest, WhereCastsAZonedStringToTimestampNtzIgnoringTheZone) {
  const std::string dir = FreshFolder("ntz_where");
  const std::string table = dir + "/t";
  const std::string input =
      WriteText(dir, "rows.jsonl", "{\"id\":1,\"tn\":\"2024-09-09T12:34:56.123456\"}\n");
  const std::string schema = WriteText(dir, "t.ddl", "id INT, tn TIMESTAMP_NTZ");
  RunResult appended = RunSluice({"table", "append", table, input, "--schema", schema, "-q"});
  ASSERT_EQ(appended.exit_code, 0) << appended.err << appended.out;
  for (const char* where :
       {"cast('2021-09-08T11:11:11Z' as timestamp_ntz) IS NOT NULL",
        "tn = '2024-09-09T12:34:56.123456Z'", "tn > '2024-09-09T12:00:00+05:00'"}) {
    RunResult r = RunSluice({"table", "cat", table, "--where", where, "--stats"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "{\"id\":1,\"tn\":\"2024-09-09T12:34:56.123456\"}\n") << where;
    EXPECT_TRUE(Contains(r.err, "\"files_pruned_by_stats\":0")) << where << r.err;
  }
  // The zone is ignored by the file's statistics too: a later wall clock skips the file.
  RunResult later =
      RunSluice({"table", "cat", table, "--where", "tn > '2024-09-09T13:00:00-05:00'", "--stats"});
  ASSERT_EQ(later.exit_code, 0) << later.err;
  EXPECT_EQ(later.out, "");
  EXPECT_TRUE(Contains(later.err, "\"files_pruned_by_stats\":1")) << later.err;
}

TEST(TableReadCliTest, ARemoveSpelledAsAFileUriCancelsTheAdd) {
  const std::string dir = FreshFolder("canonical_paths");
  const std::string table = fs::absolute(dir + "/t").lexically_normal().string();
  const std::string input = WriteText(dir, "rows.jsonl", "{\"id\":1}\n");
  const std::string schema = WriteText(dir, "t.ddl", "id INT");
  RunResult appended = RunSluice({"table", "append", table, input, "--schema", schema, "-q"});
  ASSERT_EQ(appended.exit_code, 0) << appended.err << appended.out;
  std::string file;
  for (const auto& e : fs::directory_iterator(table)) {
    if (e.path().extension() == ".parquet") file = e.path().filename().string();
  }
  ASSERT_FALSE(file.empty());
  std::ofstream(table + "/_delta_log/00000000000000000001.json")
      << R"({"commitInfo":{"timestamp":1,"operation":"DELETE"}})"
      << "\n"
      << R"({"remove":{"path":"file:)" << table << "/" << file
      << R"(","deletionTimestamp":1,"dataChange":true}})"
      << "\n";
  RunResult cat = RunSluice({"table", "cat", table});
  ASSERT_EQ(cat.exit_code, 0) << cat.err;
  EXPECT_EQ(cat.out, "");
  RunResult check = RunSluice({"table", "check", table});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_TRUE(Contains(check.out, "0 live files")) << check.out;
}

TEST(TableReadCliTest, TimeTravelAndUsageErrors) {
  const std::string dir = FreshFolder("travel");
  const std::string table = dir + "/t";
  ASSERT_EQ(RunSluice({"table", "append", table, WriteText(dir, "a.jsonl", "{\"id\":1}\n"), "-q"})
                .exit_code,
            0);
  ASSERT_EQ(RunSluice({"table", "append", table, WriteText(dir, "b.jsonl", "{\"id\":2}\n"), "-q"})
                .exit_code,
            0);
  RunResult v0 = RunSluice({"table", "cat", table, "--version", "0"});
  ASSERT_EQ(v0.exit_code, 0) << v0.err;
  EXPECT_EQ(v0.out, "{\"id\":1}\n");
  RunResult now = RunSluice({"table", "cat", table, "--timestamp", "2999-01-01T00:00:00Z"});
  ASSERT_EQ(now.exit_code, 0) << now.err;
  EXPECT_EQ(SplitLines(now.out).size(), 2u);

  RunResult early = RunSluice({"table", "cat", table, "--timestamp", "1999-01-01"});
  EXPECT_EQ(early.exit_code, 2);
  RunResult both =
      RunSluice({"table", "cat", table, "--version", "0", "--timestamp", "2024-01-01"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(Contains(both.err, "--version excludes --timestamp")) << both.err;
  RunResult bad_ts = RunSluice({"table", "cat", table, "--timestamp", "yesterday"});
  EXPECT_EQ(bad_ts.exit_code, 2);
  EXPECT_TRUE(Contains(bad_ts.err, "--timestamp: 'yesterday' is not a timestamp")) << bad_ts.err;
  RunResult column = RunSluice({"table", "cat", table, "--columns", "nope"});
  EXPECT_EQ(column.exit_code, 2);
  EXPECT_TRUE(Contains(column.err, "no field 'nope'")) << column.err;
  RunResult none = RunSluice({"table", "cat", dir + "/absent"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(Contains(none.err, "sluice: error:")) << none.err;
}

}  // namespace
}  // namespace sluice::e2e
