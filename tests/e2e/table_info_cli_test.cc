// End-to-end: `sluice table history|check|schema` on the Delta golden tables (skipped where the
// shared conformance data is absent) and on broken copies of them: exit codes, and the lines a
// user reads.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "e2e/run.h"
#include "sluice/base/json.h"
#include "sluice_test_paths.h"

namespace sluice::e2e {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string Golden(const std::string& name) {
  return (fs::path(SLUICE_SHARED_DIR) / "conformance" / "delta-golden" / name).string();
}

#define REQUIRE_GOLDEN(name)              \
  const std::string table = Golden(name); \
  if (!fs::exists(table)) GTEST_SKIP() << table << " is absent (no golden tables)"

// A writable copy of a golden table in a fresh folder.
std::string CopyOf(const std::string& source, const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("sluice_table_info_cli_" + name);
  fs::remove_all(dir);
  fs::copy(source, dir, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  }
  fs::permissions(dir, fs::perms::owner_write, fs::perm_options::add);
  return dir.string();
}

std::string Commit(const std::string& table, int version) {
  char name[32];
  std::snprintf(name, sizeof(name), "%020d.json", version);
  return table + "/_delta_log/" + name;
}

TEST(TableInfoCliTest, HistoryShowsTheColumnMergeSchemaAdded) {
  REQUIRE_GOLDEN("time-travel-schema-changes-b");
  RunResult r = RunSluice({"table", "history", table});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, ": 2 versions\n")) << r.out;
  // Newest first; version 1's block holds the change as `sluice diff` prints it.
  size_t v1 = r.out.find("version 1  ");
  size_t v0 = r.out.find("version 0  ");
  ASSERT_NE(v1, std::string::npos) << r.out;
  ASSERT_NE(v0, std::string::npos) << r.out;
  EXPECT_LT(v1, v0);
  std::string block = r.out.substr(v1, v0 - v1);
  EXPECT_TRUE(Contains(block, "WRITE (Append)  2 files\n")) << block;
  EXPECT_TRUE(Contains(block, "  schema: 1 change: 0 breaking, 1 compatible, 0 cosmetic\n"))
      << block;
  EXPECT_TRUE(Contains(block, "    + part  field_added  int64  [compatible]\n")) << block;
  EXPECT_TRUE(Contains(r.out.substr(v0), "  schema: created with 1 column\n")) << r.out;

  RunResult json = RunSluice({"table", "history", table, "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto doc = ParseJson(json.out);
  ASSERT_TRUE(doc.has_value()) << json.out;
  const auto& versions = doc->Find("versions")->items();
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].Find("version")->as_int64(), 1);
  EXPECT_EQ(versions[0].Find("commit_info_timestamp_ms")->as_int64(), 1603724024783);
  const JsonValue& change = versions[0].Find("schema_change")->Find("changes")->items()[0];
  EXPECT_EQ(change.Find("path")->as_string(), "part");
  EXPECT_EQ(change.Find("kind")->as_string(), "field_added");
}

TEST(TableInfoCliTest, HistoryShowsTypeWideningAndTheProtocolUpgrade) {
  REQUIRE_GOLDEN("type-widening");
  RunResult r = RunSluice({"table", "history", table});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out,
                       "SET TBLPROPERTIES\n"
                       "  protocol: (1,2) -> (3,7) reader features timestampNtz, "
                       "typeWidening-preview; writer features timestampNtz, "
                       "typeWidening-preview, appendOnly, invariants\n"
                       "  set delta.enableTypeWidening = true\n"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "WRITE (Append)  +1 row  1 file\n")) << r.out;
  // The change lines of the widened columns (their delta.typeChanges metadata is storage, not
  // shown), whatever the column padding.
  auto line_of = [&](const std::string& column) {
    size_t at = r.out.find("~ " + column + " ");
    return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('\n', at) - at);
  };
  EXPECT_TRUE(Contains(line_of("byte_long"), "type_widened")) << r.out;
  EXPECT_TRUE(Contains(line_of("byte_long"), "int8 -> int64")) << r.out;
  EXPECT_TRUE(Contains(line_of("date_timestamp_ntz"), "date -> timestamp_ntz")) << r.out;
  EXPECT_FALSE(Contains(r.out, "delta.typeChanges")) << r.out;
}

TEST(TableInfoCliTest, CheckPassesAGoldenTableAndFindsTheMadeUpFilesOfAnother) {
  REQUIRE_GOLDEN("data-reader-partition-values");
  RunResult ok = RunSluice({"table", "check", table});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_TRUE(Contains(ok.out, "3 live files (3 read), 3 rows\nclean: no findings\n")) << ok.out;

  // The checkpoint table's commits add files named "1" to "15" that were never written.
  RunResult synthetic = RunSluice({"table", "check", Golden("checkpoint"), "--format", "json"});
  EXPECT_EQ(synthetic.exit_code, 1) << synthetic.err;
  auto doc = ParseJson(synthetic.out);
  ASSERT_TRUE(doc.has_value()) << synthetic.out;
  EXPECT_EQ(doc->Find("checkpoint_version")->as_int64(), 10);
  const auto& findings = doc->Find("findings")->items();
  ASSERT_EQ(findings.size(), 1u) << synthetic.out;
  EXPECT_EQ(findings[0].Find("rule")->as_string(), "missing_file");
  EXPECT_EQ(findings[0].Find("file")->as_string(), "15");
}

TEST(TableInfoCliTest, CheckFindsATornCommitAndAMissingFile) {
  REQUIRE_GOLDEN("time-travel-schema-changes-b");
  const std::string copy = CopyOf(table, "broken");
  { std::ofstream(Commit(copy, 1), std::ios::app) << "{\"add\":{\"path\":\"x"; }
  RunResult torn = RunSluice({"table", "check", copy});
  EXPECT_EQ(torn.exit_code, 1) << torn.err;
  EXPECT_TRUE(Contains(torn.out,
                       "error   bad_json  _delta_log/00000000000000000001.json: line 5 "
                       "(the last line, torn: it has no newline) is not JSON"))
      << torn.out;

  const std::string copy2 = CopyOf(table, "missing");
  fs::remove(copy2 + "/part-00000-a830a49c-6cc8-4caf-80a5-7ff8a959bd53-c000.snappy.parquet");
  RunResult missing = RunSluice({"table", "check", copy2});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_TRUE(Contains(missing.out, "error   missing_file  part-00000-a830a49c")) << missing.out;
  EXPECT_TRUE(Contains(missing.out, "1 finding: 1 error, 0 warnings\n")) << missing.out;
}

TEST(TableInfoCliTest, SchemaAtTheLatestVersionAVersionAndATime) {
  REQUIRE_GOLDEN("time-travel-schema-changes-b");
  RunResult latest = RunSluice({"table", "schema", table, "--as", "spark-ddl"});
  EXPECT_EQ(latest.exit_code, 0) << latest.err;
  EXPECT_EQ(latest.out, "id BIGINT,part BIGINT\n");
  RunResult v0 = RunSluice({"table", "schema", table, "--version", "0", "--as", "spark-ddl"});
  EXPECT_EQ(v0.exit_code, 0) << v0.err;
  EXPECT_EQ(v0.out, "id BIGINT\n");
  // In a pipe the default is Spark JSON, as `sluice schema show` does.
  RunResult json = RunSluice({"table", "schema", table});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(json.out.starts_with("{\"type\":\"struct\"")) << json.out;
  // On a terminal, a tree.
  RunResult tree = RunSluiceOnTerminal({"table", "schema", table});
  EXPECT_EQ(tree.exit_code, 0) << tree.out;
  EXPECT_TRUE(Contains(tree.out, "part")) << tree.out;
  EXPECT_FALSE(Contains(tree.out, "\"type\"")) << tree.out;

  // Time travel by commit time: the file times of a copy, set to known instants.
  const std::string copy = CopyOf(table, "times");
  auto at = [](int64_t ms) {
    return fs::file_time_type::clock::now() +
           std::chrono::duration_cast<fs::file_time_type::duration>(
               std::chrono::milliseconds(ms) -
               std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch()));
  };
  fs::last_write_time(Commit(copy, 0), at(1603724023000));  // 2020-10-26T14:53:43Z
  fs::last_write_time(Commit(copy, 1), at(1603724025000));  // 2020-10-26T14:53:45Z
  RunResult before = RunSluice(
      {"table", "schema", copy, "--timestamp", "2020-10-26T14:53:44Z", "--as", "spark-ddl"});
  EXPECT_EQ(before.exit_code, 0) << before.err;
  EXPECT_EQ(before.out, "id BIGINT\n");
  RunResult after =
      RunSluice({"table", "schema", copy, "--timestamp", "1603724025000", "--as", "spark-ddl"});
  EXPECT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.out, "id BIGINT,part BIGINT\n");
  RunResult too_early =
      RunSluice({"table", "schema", copy, "--timestamp", "2020-10-26", "--as", "spark-ddl"});
  EXPECT_EQ(too_early.exit_code, 2);
  EXPECT_TRUE(Contains(too_early.err, "no version was committed at or before")) << too_early.err;
}

// Two commits of a table with in-commit timestamps, in 2001 and 2004, whose files are dated
// whenever they were copied.
std::string InCommitTimestampTable() {
  fs::path dir = fs::temp_directory_path() / "sluice_table_info_cli_ict";
  fs::remove_all(dir);
  fs::create_directories(dir / "_delta_log");
  auto schema = [](const std::string& fields) {
    return R"({"metaData":{"id":"t","format":{"provider":"parquet","options":{}},)"
           R"("schemaString":"{\"type\":\"struct\",\"fields\":[)" +
           fields +
           R"(]}","partitionColumns":[],)"
           R"("configuration":{"delta.enableInCommitTimestamps":"true"},"createdTime":1}})";
  };
  const std::string id =
      R"({\"name\":\"id\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}})";
  const std::string b = R"({\"name\":\"b\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}})";
  std::ofstream(Commit(dir.string(), 0))
      << R"({"commitInfo":{"timestamp":1000000000000,"inCommitTimestamp":1000000000000,)"
      << R"("operation":"CREATE TABLE"}})"
      << "\n"
      << R"({"protocol":{"minReaderVersion":1,"minWriterVersion":7,)"
      << R"("writerFeatures":["inCommitTimestamp","appendOnly","invariants"]}})"
      << "\n"
      << schema(id) << "\n";
  std::ofstream(Commit(dir.string(), 1))
      << R"({"commitInfo":{"timestamp":1100000000000,"inCommitTimestamp":1100000000000,)"
      << R"("operation":"ADD COLUMNS"}})"
      << "\n"
      << schema(id + "," + b) << "\n";
  return dir.string();
}

TEST(TableInfoCliTest, TimeTravelGoesByInCommitTimestampsAsHistoryShowsThem) {
  const std::string table = InCommitTimestampTable();
  RunResult latest =
      RunSluice({"table", "schema", table, "--timestamp", "2005-01-01", "--as", "spark-ddl"});
  EXPECT_EQ(latest.exit_code, 0) << latest.err;
  EXPECT_EQ(latest.out, "id INT,b STRING\n");
  RunResult first = RunSluice(
      {"table", "schema", table, "--timestamp", "2003-01-01T00:00:00Z", "--as", "spark-ddl"});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "id INT\n");
  RunResult before = RunSluice({"table", "schema", table, "--timestamp", "2001-09-09"});
  EXPECT_EQ(before.exit_code, 2);
  EXPECT_TRUE(Contains(before.err, "no version was committed at or before")) << before.err;
  RunResult cat = RunSluice({"table", "cat", table, "--timestamp", "2001-09-09T01:46:40Z"});
  EXPECT_EQ(cat.exit_code, 0) << cat.err;
  RunResult history = RunSluice({"table", "history", table});
  EXPECT_EQ(history.exit_code, 0) << history.err;
  EXPECT_TRUE(Contains(history.out, "version 1  2004-11-09 11:33:20Z")) << history.out;
  EXPECT_TRUE(Contains(history.out, "version 0  2001-09-09 01:46:40Z")) << history.out;
}

TEST(TableInfoCliTest, UsageAndInputErrorsExitTwo) {
  RunResult none = RunSluice({"table", "history", "/nonexistent/table"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(Contains(none.err, "sluice: error: no Delta table at /nonexistent/table"))
      << none.err;
  RunResult check = RunSluice({"table", "check", "/nonexistent/table"});
  EXPECT_EQ(check.exit_code, 2);
  RunResult bad_time =
      RunSluice({"table", "schema", "/nonexistent/table", "--timestamp", "yesterday"});
  EXPECT_EQ(bad_time.exit_code, 2);
  EXPECT_TRUE(Contains(bad_time.err, "--timestamp: 'yesterday' is not a timestamp"))
      << bad_time.err;
  RunResult both = RunSluice({"table", "schema", "t", "--version", "1", "--timestamp", "5"});
  EXPECT_EQ(both.exit_code, 2);
  RunResult format = RunSluice({"table", "history", "t", "--format", "github"});
  EXPECT_EQ(format.exit_code, 2);
}

TEST(TableInfoCliTest, SchemaOfAVersionThatDoesNotExistExitsTwo) {
  REQUIRE_GOLDEN("type-widening");
  RunResult r = RunSluice({"table", "schema", table, "--version", "9"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "version 9 does not exist (the latest is 2)")) << r.err;
}

}  // namespace
}  // namespace sluice::e2e
