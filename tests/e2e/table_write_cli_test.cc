// End-to-end: writes into Delta tables as the seed articles make them. Seed 000: users, where
// mergeSchema adds loyalty_tier and the plain append is refused. Seed 002: orders, where
// enforcement refuses an unexpected column and a retyped order_amount, validation first, then
// mergeSchema on purpose. Seed 004: overwriteSchema. Type widening int -> long. Every table
// written is read back by the independent checker (tests/table/delta_check.mjs) when node and
// DuckDB are there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "e2e/run.h"
#include "e2e/table_testing.h"
#include "sluice/base/json.h"
#include "sluice_test_paths.h"

namespace sluice::e2e {
namespace {

namespace fs = std::filesystem;

int CountLines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

TEST(TableWriteCliTest, Seed000MergeSchemaAddsLoyaltyTierAndThePlainAppendIsRefused) {
  const std::string dir = FreshFolder("seed000");
  const std::string table = dir + "/users";
  std::string v1 = WriteText(dir, "users_v1.jsonl",
                             "{\"user_id\": 121, \"email\": \"carol@example.com\", \"age\": 41}\n"
                             "{\"user_id\": 122, \"email\": \"dan@example.com\", \"age\": 19}\n");
  RunResult created = RunSluice({"table", "create", table, "--schema", "examples/users_table.ddl"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  RunResult first = RunSluice({"table", "append", table, v1});
  ASSERT_EQ(first.exit_code, 0) << first.err << first.out;
  EXPECT_TRUE(Contains(first.out, "committed version 1: 2 rows in 1 files")) << first.out;

  std::string v2 = WriteText(dir, "users_v2.jsonl",
                             "{\"user_id\": 123, \"email\": \"alice@example.com\", \"age\": 28, "
                             "\"loyalty_tier\": \"gold\"}\n"
                             "{\"user_id\": 124, \"email\": \"bob@example.com\", \"age\": 35, "
                             "\"loyalty_tier\": \"silver\"}\n");
  RunResult plain = RunSluice({"table", "append", table, v2});
  EXPECT_EQ(plain.exit_code, 1) << plain.out << plain.err;
  EXPECT_TRUE(Contains(plain.err, "write rejected, nothing committed")) << plain.err;
  EXPECT_TRUE(Contains(plain.err, "loyalty_tier")) << plain.err;
  EXPECT_FALSE(fs::exists(table + "/_delta_log/00000000000000000002.json"));

  RunResult merged = RunSluice({"table", "append", table, v2, "--merge-schema"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err << merged.out;
  EXPECT_TRUE(Contains(merged.out, "column_added loyalty_tier")) << merged.out;
  std::ifstream log(table + "/_delta_log/00000000000000000002.json");
  std::string merge_commit((std::istreambuf_iterator<char>(log)), {});
  EXPECT_TRUE(Contains(merge_commit, R"(\"name\":\"loyalty_tier\",\"type\":\"string\")"))
      << merge_commit;
  // Only what changed: no property appears that nobody set.
  EXPECT_TRUE(Contains(merge_commit, "\"configuration\":{}")) << merge_commit;
  RunResult schema = RunSluice({"table", "schema", table, "--as", "spark-ddl"});
  ASSERT_EQ(schema.exit_code, 0) << schema.err;
  EXPECT_TRUE(Contains(schema.out, "loyalty_tier STRING")) << schema.out;
  EXPECT_EQ(CheckTableIndependently(table), "");
}

TEST(TableWriteCliTest, Seed002EnforcementRefusesAnUnexpectedColumnAndARetypedAmount) {
  const std::string dir = FreshFolder("seed002");
  const std::string table = dir + "/orders";
  std::string schema = WriteText(
      dir, "orders.ddl", "order_id INT, customer_id INT, order_amount DOUBLE, order_date DATE");
  ASSERT_EQ(RunSluice({"table", "create", table, "--schema", schema}).exit_code, 0);
  std::string good =
      WriteText(dir, "good.jsonl",
                "{\"order_id\": 1001, \"customer_id\": 501, \"order_amount\": 4500.0, "
                "\"order_date\": \"2026-08-15\"}\n");
  ASSERT_EQ(RunSluice({"table", "append", table, good, "-q"}).exit_code, 0);

  std::string extra =
      WriteText(dir, "extra.jsonl",
                "{\"order_id\": 1002, \"customer_id\": 502, \"order_amount\": 120.5, "
                "\"order_date\": \"2026-08-15\", \"unexpected_column\": "
                "\"extra_unexpected_field\"}\n");
  RunResult refused = RunSluice({"table", "append", table, extra, "--format", "json"});
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  auto result = ParseJson(refused.out);
  ASSERT_TRUE(result.has_value()) << refused.out;
  EXPECT_EQ(result->Find("outcome")->as_string(), "rejected");
  ASSERT_FALSE(result->Find("violations")->items().empty());
  EXPECT_EQ(result->Find("violations")->items()[0].Find("path")->as_string(), "unexpected_column");
  EXPECT_FALSE(result->Find("violations")->items()[0].Find("error_class")->as_string().empty());

  std::string retyped = WriteText(dir, "retyped.jsonl",
                                  "{\"order_id\": 1003, \"customer_id\": 503, \"order_amount\": "
                                  "\"4500.00\", \"order_date\": \"2026-08-16\"}\n");
  RunResult string_amount = RunSluice({"table", "append", table, retyped});
  EXPECT_EQ(string_amount.exit_code, 1) << string_amount.out;
  EXPECT_TRUE(Contains(string_amount.err, "DELTA_FAILED_TO_MERGE_FIELDS")) << string_amount.err;
  EXPECT_TRUE(Contains(string_amount.err, "order_amount")) << string_amount.err;

  // Validation first, on the user's terms: the same records, against the table's schema.
  RunResult validated = RunSluice(
      {"validate", extra, "--schema", schema, "--quarantine", "/dev/null", "--format", "json"});
  EXPECT_EQ(validated.exit_code, 1);
  // Then the change on purpose.
  RunResult merged = RunSluice({"table", "append", table, extra, "--merge-schema", "-q"});
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  // A JSON 25 is a fine INT: integer amounts into the DOUBLE column change nothing.
  std::string ints = WriteText(dir, "ints.jsonl",
                               "{\"order_id\": 1004, \"customer_id\": 504, \"order_amount\": 25, "
                               "\"order_date\": \"2026-08-17\"}\n");
  RunResult fine = RunSluice({"table", "append", table, ints, "--format", "json"});
  EXPECT_EQ(fine.exit_code, 0) << fine.out << fine.err;
  EXPECT_TRUE(Contains(fine.out, "\"verdict\":\"unchanged\"")) << fine.out;
  EXPECT_EQ(CheckTableIndependently(table), "");
}

TEST(TableWriteCliTest, Seed004OverwriteSchemaReplacesTheSchema) {
  const std::string dir = FreshFolder("seed004");
  const std::string table = dir + "/events";
  std::string v1 =
      WriteText(dir, "v1.jsonl", "{\"id\": 1, \"code\": 7}\n{\"id\": 2, \"code\": 8}\n");
  ASSERT_EQ(RunSluice({"table", "append", table, v1, "-q"}).exit_code, 0);
  std::string v2 = WriteText(dir, "v2.jsonl", "{\"id\": 3, \"code\": \"A-7\", \"note\": \"x\"}\n");
  RunResult plain = RunSluice({"table", "overwrite", table, v2});
  EXPECT_EQ(plain.exit_code, 1) << plain.out;
  RunResult replaced = RunSluice({"table", "overwrite", table, v2, "--overwrite-schema"});
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err << replaced.out;
  EXPECT_TRUE(Contains(replaced.out, "2 files removed") ||
              Contains(replaced.out, "1 files removed"))
      << replaced.out;
  RunResult schema = RunSluice({"table", "schema", table, "--as", "spark-ddl"});
  ASSERT_EQ(schema.exit_code, 0) << schema.err;
  EXPECT_TRUE(Contains(schema.out, "code STRING")) << schema.out;
  EXPECT_TRUE(Contains(schema.out, "note STRING")) << schema.out;
  EXPECT_EQ(CheckTableIndependently(table), "");
}

TEST(TableWriteCliTest, TypeWideningTurnsAnIntColumnIntoALong) {
  const std::string dir = FreshFolder("widen");
  const std::string table = dir + "/t";
  std::string schema = WriteText(dir, "t.ddl", "id INT, amount INT");
  ASSERT_EQ(RunSluice({"table", "create", table, "--schema", schema, "-q"}).exit_code, 0);
  std::string big = WriteText(dir, "big.jsonl", "{\"id\": 1, \"amount\": 3000000000}\n");
  RunResult refused = RunSluice({"table", "append", table, big, "--merge-schema"});
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  RunResult widened =
      RunSluice({"table", "append", table, big, "--merge-schema", "--type-widening"});
  ASSERT_EQ(widened.exit_code, 0) << widened.err << widened.out;
  EXPECT_TRUE(Contains(widened.out, "type_widened amount: INT -> BIGINT")) << widened.out;
  std::ifstream log(table + "/_delta_log/00000000000000000001.json");
  std::string text((std::istreambuf_iterator<char>(log)), {});
  EXPECT_TRUE(
      Contains(text, R"(delta.typeChanges\":[{\"fromType\":\"integer\",\"toType\":\"long\"}])"))
      << text;
  EXPECT_TRUE(Contains(text, "\"typeWidening\"")) << text;
  // A typed write (--schema) widens the same way, the change recorded once.
  const std::string typed = dir + "/typed";
  ASSERT_EQ(RunSluice({"table", "create", typed, "--schema", schema, "-q"}).exit_code, 0);
  std::string wide = WriteText(dir, "wide.ddl", "id INT, amount BIGINT");
  ASSERT_EQ(RunSluice({"table", "append", typed, big, "--schema", wide, "--merge-schema",
                       "--type-widening", "-q"})
                .exit_code,
            0);
  std::ifstream typed_log(typed + "/_delta_log/00000000000000000001.json");
  std::string typed_text((std::istreambuf_iterator<char>(typed_log)), {});
  EXPECT_TRUE(Contains(typed_text,
                       R"(delta.typeChanges\":[{\"fromType\":\"integer\",\"toType\":\"long\"}])"))
      << typed_text;
  EXPECT_TRUE(Contains(text, "\"minReaderVersion\":3")) << text;
  EXPECT_EQ(CheckTableIndependently(table), "");
}

TEST(TableWriteCliTest, ConstraintsFailTheWriteOrQuarantineTheRows) {
  const std::string dir = FreshFolder("constraints");
  const std::string table = dir + "/t";
  std::string schema = WriteText(dir, "t.ddl", "id INT NOT NULL, amount DOUBLE");
  ASSERT_EQ(RunSluice({"table", "create", table, "--schema", schema, "--constraint",
                       "positive=amount > 0", "-q"})
                .exit_code,
            0);
  std::string rows = WriteText(dir, "rows.jsonl",
                               "{\"id\": 1, \"amount\": 5}\n{\"id\": 2, \"amount\": -1}\n"
                               "{\"id\": null, \"amount\": 3}\n{\"id\": 4, \"amount\": 2}\n");
  RunResult failed = RunSluice({"table", "append", table, rows, "--quarantine", "/dev/null"});
  EXPECT_EQ(failed.exit_code, 1) << failed.out;
  EXPECT_TRUE(Contains(failed.err, "DELTA_")) << failed.err;
  std::string quarantine = dir + "/q.jsonl";
  RunResult kept = RunSluice({"table", "append", table, rows, "--on-violation", "quarantine",
                              "--quarantine", quarantine, "--format", "json"});
  ASSERT_EQ(kept.exit_code, 0) << kept.out << kept.err;
  auto result = ParseJson(kept.out);
  ASSERT_TRUE(result.has_value()) << kept.out;
  EXPECT_EQ(result->Find("rows_written")->as_int64(), 2);
  std::ifstream q(quarantine);
  std::string qtext((std::istreambuf_iterator<char>(q)), {});
  EXPECT_EQ(CountLines(qtext), 2) << qtext;
  EXPECT_TRUE(Contains(qtext, "check_constraint")) << qtext;
  EXPECT_TRUE(Contains(qtext, "null_not_allowed")) << qtext;
  EXPECT_EQ(CheckTableIndependently(table), "");
}

TEST(TableWriteCliTest, MaxRowsPerFileRollsFiles) {
  const std::string dir = FreshFolder("rolled");
  const std::string table = dir + "/t";
  std::string rows;
  for (int i = 0; i < 10; ++i) rows += "{\"n\": " + std::to_string(i) + "}\n";
  std::string input = WriteText(dir, "rows.jsonl", rows);
  RunResult written =
      RunSluice({"table", "append", table, input, "--max-rows-per-file", "4", "--format", "json"});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_TRUE(Contains(written.out, "\"files_added\":3")) << written.out;
  EXPECT_EQ(CheckTableIndependently(table), "");
}

TEST(TableWriteCliTest, AppendCreatesATableFromTheDataAndPartitionsIt) {
  const std::string dir = FreshFolder("partitioned");
  const std::string table = dir + "/t";
  std::string rows =
      WriteText(dir, "rows.jsonl",
                "{\"day\": \"2026-08-15\", \"n\": 1}\n{\"day\": \"2026-08-16\", \"n\": 2}\n"
                "{\"day\": null, \"n\": 3}\n{\"day\": \"a b:c\", \"n\": 4}\n");
  RunResult created = RunSluice({"table", "append", table, rows, "--partition-by", "day"});
  ASSERT_EQ(created.exit_code, 0) << created.err << created.out;
  EXPECT_TRUE(Contains(created.out, "created at version 0: 4 rows in 4 files")) << created.out;
  EXPECT_TRUE(fs::exists(table + "/day=2026-08-15"));
  EXPECT_TRUE(fs::exists(table + "/day=__HIVE_DEFAULT_PARTITION__"));
  EXPECT_TRUE(fs::exists(table + "/day=a b%3Ac"));
  EXPECT_EQ(CheckTableIndependently(table), "");
}

TEST(TableWriteCliTest, PartitionColumnsAreResolvedAndRefusedAsDeltaRefusesThem) {
  const std::string dir = FreshFolder("partition_columns");
  std::string schema = WriteText(dir, "rn.ddl", "id INT, name STRING, amount INT");
  std::string rows = WriteText(dir, "rows.jsonl", "{\"id\":1,\"name\":\"n1\",\"amount\":1}\n");
  // A column named twice: refused, naming it, and nothing is written (it was null before).
  const std::string appended = dir + "/appended";
  RunResult twice = RunSluice({"table", "append", appended, rows, "--partition-by", "name,name"});
  EXPECT_EQ(twice.exit_code, 2) << twice.out << twice.err;
  EXPECT_TRUE(Contains(twice.err, "[DELTA_DUPLICATE_COLUMNS_FOUND]")) << twice.err;
  EXPECT_TRUE(Contains(twice.err, "`name`")) << twice.err;
  EXPECT_FALSE(fs::exists(appended));
  const std::string created = dir + "/created";
  RunResult create_twice =
      RunSluice({"table", "create", created, "--schema", schema, "--partition-by", "id,ID"});
  EXPECT_EQ(create_twice.exit_code, 2) << create_twice.err;
  EXPECT_TRUE(Contains(create_twice.err, "DELTA_DUPLICATE_COLUMNS_FOUND")) << create_twice.err;
  EXPECT_FALSE(fs::exists(created + "/_delta_log/00000000000000000000.json"));
  const std::string overwritten = dir + "/overwritten";
  ASSERT_EQ(RunSluice({"table", "append", overwritten, rows, "-q"}).exit_code, 0);
  RunResult overwrite_twice = RunSluice({"table", "overwrite", overwritten, rows,
                                         "--overwrite-schema", "--partition-by", "name,name"});
  EXPECT_EQ(overwrite_twice.exit_code, 2) << overwrite_twice.err;
  EXPECT_TRUE(Contains(overwrite_twice.err, "DELTA_DUPLICATE_COLUMNS_FOUND"))
      << overwrite_twice.err;
  EXPECT_FALSE(fs::exists(overwritten + "/_delta_log/00000000000000000001.json"));
  // Every column a partition column: no column would be left for the data files.
  RunResult all = RunSluice(
      {"table", "create", created, "--schema", schema, "--partition-by", "id,name,amount"});
  EXPECT_EQ(all.exit_code, 2) << all.err;
  EXPECT_TRUE(Contains(all.err, "[DELTA_CANNOT_USE_ALL_COLUMNS_FOR_PARTITION]")) << all.err;
  EXPECT_FALSE(fs::exists(created + "/_delta_log/00000000000000000000.json"));
  // Names resolve ignoring case, as Spark resolves them, and the schema's spelling is stored.
  RunResult upper =
      RunSluice({"table", "create", created, "--schema", schema, "--partition-by", "ID", "-q"});
  ASSERT_EQ(upper.exit_code, 0) << upper.err;
  EXPECT_TRUE(Contains(CommitText(created, 0), "\"partitionColumns\":[\"id\"]"))
      << CommitText(created, 0);
  RunResult append_upper =
      RunSluice({"table", "append", created, rows, "--partition-by", "Id", "-q"});
  EXPECT_EQ(append_upper.exit_code, 0) << append_upper.err;
  EXPECT_TRUE(fs::exists(created + "/id=1"));
  EXPECT_EQ(CheckTableIndependently(created), "");
}

TEST(TableWriteCliTest, JsonObjectsForAMapAddNewValueFieldsFromAnyKey) {
  const std::string dir = FreshFolder("map_merge");
  const std::string table = dir + "/mp";
  std::string schema = WriteText(dir, "mp.ddl", "id INT, tags MAP<STRING, STRUCT<v: INT>>");
  ASSERT_EQ(RunSluice({"table", "create", table, "--schema", schema, "-q"}).exit_code, 0);
  std::string rows = WriteText(
      dir, "mp1.jsonl", "{\"id\":1,\"tags\":{\"t\":{\"v\":2},\"u\":{\"v\":3,\"w\":\"z\"}}}\n");
  // Without mergeSchema: Delta's error class for a column the table lacks, with its path.
  RunResult enforced = RunSluice({"table", "append", table, rows});
  EXPECT_EQ(enforced.exit_code, 1) << enforced.out << enforced.err;
  EXPECT_TRUE(Contains(enforced.err, "_LEGACY_ERROR_TEMP_DELTA_0007")) << enforced.err;
  EXPECT_TRUE(Contains(enforced.err, "tags{value}.w")) << enforced.err;
  RunResult merged = RunSluice({"table", "append", table, rows, "--merge-schema"});
  ASSERT_EQ(merged.exit_code, 0) << merged.out << merged.err;
  EXPECT_TRUE(Contains(merged.out, "column_added tags{value}.w: STRING")) << merged.out;
  EXPECT_TRUE(Contains(merged.out, "1 rows")) << merged.out;
  RunResult cat = RunSluice({"table", "cat", table});
  EXPECT_TRUE(Contains(cat.out, "\"u\":{\"v\":3,\"w\":\"z\"}")) << cat.out;

  // New fields in a struct, an array's structs and a map's structs at once: all three are
  // added and the record is written (it was quarantined after a partial evolution before).
  const std::string nested = dir + "/nested";
  std::string wide = WriteText(dir, "w.ddl",
                               "id INT NOT NULL, info STRUCT<a: INT, b: STRING>, items "
                               "ARRAY<STRUCT<sku: STRING>>, tags MAP<STRING, STRUCT<v: INT>>");
  ASSERT_EQ(RunSluice({"table", "create", nested, "--schema", wide, "-q"}).exit_code, 0);
  std::string record =
      WriteText(dir, "w.jsonl",
                "{\"id\":2,\"info\":{\"a\":2,\"b\":\"y\",\"c\":true},\"items\":[{\"sku\":\"s2\","
                "\"qty\":3}],\"tags\":{\"t\":{\"v\":2,\"w\":\"z\"}}}\n");
  RunResult all =
      RunSluice({"table", "append", nested, record, "--merge-schema", "--format", "json"});
  ASSERT_EQ(all.exit_code, 0) << all.out << all.err;
  auto result = ParseJson(all.out);
  ASSERT_TRUE(result.has_value()) << all.out;
  EXPECT_EQ(result->Find("rows_written")->as_int64().value_or(-1), 1) << all.out;
  std::vector<std::string> added;
  for (const JsonValue& c : result->Find("changes")->items()) {
    added.push_back(c.Find("path")->as_string());
  }
  EXPECT_EQ(added, (std::vector<std::string>{"info.c", "items[].qty", "tags{value}.w"})) << all.out;
  EXPECT_EQ(CheckTableIndependently(nested), "");
}

// Delta matches the data's columns to the table's ignoring case and writes the table's
// spelling (spark.sql.caseSensitive=false): JSON keys, CSV headers and Parquet columns alike.
TEST(TableWriteCliTest, ColumnsMatchTheTablesIgnoringCase) {
  const std::string dir = FreshFolder("case");
  const std::string table = dir + "/t";
  std::string schema = WriteText(dir, "t.ddl", "id INT, name STRING");
  ASSERT_EQ(RunSluice({"table", "create", table, "--schema", schema, "-q"}).exit_code, 0);
  std::string json = WriteText(dir, "a.jsonl", "{\"ID\":1,\"Name\":\"a\"}\n");
  RunResult a = RunSluice({"table", "append", table, json});
  ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
  EXPECT_TRUE(Contains(a.out, "1 valid, 0 rescued, 0 quarantined")) << a.out;
  std::string csv = WriteText(dir, "b.csv", "NAME,Id\nb,2\n");
  RunResult b = RunSluice({"table", "append", table, csv});
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  const std::string parquet = dir + "/c.parquet";
  ASSERT_EQ(
      RunSluice({"validate", WriteText(dir, "c.jsonl", "{\"iD\":3}\n"), "--schema",
                 WriteText(dir, "c.ddl", "iD INT"), "-o", parquet, "--rescued-column", "", "-q"})
          .exit_code,
      0);
  RunResult c = RunSluice({"table", "append", table, parquet});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  RunResult cat = RunSluice({"table", "cat", table});
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = cat.out.find('\n', at)) != std::string::npos; at = nl + 1) {
    lines.push_back(cat.out.substr(at, nl - at));
  }
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{R"({"id":1,"name":"a"})", R"({"id":2,"name":"b"})",
                                             R"({"id":3,"name":null})"}))
      << cat.out;
  // The table's own spelling is kept: no schema change was made.
  RunResult history = RunSluice({"table", "history", table});
  EXPECT_FALSE(Contains(history.out, "column_added")) << history.out;
  EXPECT_EQ(CheckTableIndependently(table), "");

  // Nested fields too.
  const std::string nested = dir + "/n";
  ASSERT_EQ(RunSluice({"table", "create", nested, "--schema",
                       WriteText(dir, "n.ddl", "info STRUCT<Code: INT>"), "-q"})
                .exit_code,
            0);
  RunResult n = RunSluice(
      {"table", "append", nested, WriteText(dir, "n.jsonl", "{\"INFO\":{\"code\":7}}\n")});
  ASSERT_EQ(n.exit_code, 0) << n.out << n.err;
  EXPECT_EQ(RunSluice({"table", "cat", nested}).out, "{\"info\":{\"Code\":7}}\n");
}

TEST(TableWriteCliTest, AnOverwriteOfAnAppendOnlyTableIsARejectedWrite) {
  const std::string dir = FreshFolder("append_only");
  const std::string table = dir + "/ao";
  std::string schema = WriteText(dir, "rn.ddl", "id INT, name STRING, amount INT");
  std::string rows = WriteText(dir, "rows.jsonl", "{\"id\":1,\"name\":\"n1\",\"amount\":1}\n");
  ASSERT_EQ(RunSluice({"table", "create", table, "--schema", schema, "--property",
                       "delta.appendOnly=true", "-q"})
                .exit_code,
            0);
  ASSERT_EQ(RunSluice({"table", "append", table, rows, "-q"}).exit_code, 0);
  RunResult refused = RunSluice({"table", "overwrite", table, rows, "--format", "json"});
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  auto result = ParseJson(refused.out);
  ASSERT_TRUE(result.has_value()) << refused.out << refused.err;
  EXPECT_EQ(result->Find("outcome")->as_string(), "rejected");
  EXPECT_TRUE(Contains(result->Find("rejection")->as_string(), "DELTA_CANNOT_MODIFY_APPEND_ONLY"))
      << refused.out;
  EXPECT_FALSE(fs::exists(table + "/_delta_log/00000000000000000002.json"));
  // The text form says so on standard error, with the same exit code.
  RunResult text = RunSluice({"table", "overwrite", table, rows, "--overwrite-schema"});
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_TRUE(Contains(text.err, "DELTA_CANNOT_MODIFY_APPEND_ONLY")) << text.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(table), fs::directory_iterator()), 2)
      << "a data file was left behind";
}

}  // namespace
}  // namespace sluice::e2e

namespace sluice::e2e {
namespace {

// Tables Spark wrote (the Delta golden tables), copied and appended to: a plain one, one with
// column mapping (new files under the physical names Spark chose), one with type widening.
TEST(TableWriteCliTest, AppendsToTablesSparkWrote) {
  fs::path golden = fs::path(SLUICE_SHARED_DIR) / "conformance" / "delta-golden";
  if (!fs::exists(golden)) GTEST_SKIP() << "no delta-golden data";
  const std::string dir = FreshFolder("golden");
  auto copy = [&](const std::string& name) {
    fs::copy(golden / name, dir + "/" + name, fs::copy_options::recursive);
    return dir + "/" + name;
  };
  std::string plain = copy("time-travel-schema-changes-b");
  std::string rows = WriteText(dir, "rows.jsonl", "{\"id\": 100, \"part\": 7}\n");
  RunResult appended = RunSluice({"table", "append", plain, rows});
  ASSERT_EQ(appended.exit_code, 0) << appended.err << appended.out;
  EXPECT_TRUE(Contains(appended.out, "committed version 2")) << appended.out;
  EXPECT_EQ(CheckTableIndependently(plain), "");

  std::string mapped = copy("table-with-columnmapping-mode-name");
  std::string some =
      WriteText(dir, "mapped.jsonl",
                "{\"IntegerType\": 5, \"StringType\": \"five\", \"nested_struct\": "
                "{\"aa\": \"x\", \"ac\": {\"aca\": 1}}, \"array_of_prims\": [1, 2]}\n");
  RunResult mapped_append = RunSluice({"table", "append", mapped, some});
  ASSERT_EQ(mapped_append.exit_code, 0) << mapped_append.err << mapped_append.out;
  EXPECT_EQ(CheckTableIndependently(mapped), "");

  std::string widened = copy("type-widening");
  std::string wide = WriteText(dir, "wide.jsonl",
                               "{\"byte_long\": 9000000000, \"float_double\": 1.5, "
                               "\"date_timestamp_ntz\": \"2024-01-02T03:04:05\"}\n");
  RunResult widened_append = RunSluice({"table", "append", widened, wide});
  ASSERT_EQ(widened_append.exit_code, 0) << widened_append.err << widened_append.out;
  EXPECT_EQ(CheckTableIndependently(widened), "");
}

}  // namespace
}  // namespace sluice::e2e
