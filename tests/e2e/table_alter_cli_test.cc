// End-to-end: in-place changes (`sluice table alter`), partial overwrites (--replace-where) and
// idempotent writers (--txn-app-id/--txn-version), each checked in the log and, where node and
// DuckDB are there, by the independent checker.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "e2e/run.h"
#include "e2e/table_testing.h"
#include "sluice/base/json.h"

namespace sluice::e2e {
namespace {

namespace fs = std::filesystem;

TEST(TableAlterCliTest, RenameAndDropTurnOnColumnMappingAndLaterFilesUsePhysicalNames) {
  const std::string dir = FreshFolder("mapping");
  const std::string table = dir + "/t";
  std::string v1 = WriteText(dir, "v1.jsonl", "{\"id\": 1, \"code\": 7, \"tmp\": \"x\"}\n");
  ASSERT_EQ(RunSluice({"table", "append", table, v1, "-q"}).exit_code, 0);
  RunResult renamed = RunSluice({"table", "alter", table, "--rename-column", "code", "kind"});
  ASSERT_EQ(renamed.exit_code, 0) << renamed.err;
  EXPECT_TRUE(Contains(renamed.out, "turned on column mapping")) << renamed.out;
  std::string log = CommitText(table, 1);
  EXPECT_TRUE(Contains(log, R"(\"name\":\"kind\")")) << log;
  EXPECT_TRUE(Contains(log, R"(\"delta.columnMapping.physicalName\":\"code\")")) << log;
  EXPECT_TRUE(Contains(log, "\"delta.columnMapping.mode\":\"name\"")) << log;
  EXPECT_TRUE(Contains(log, "\"minReaderVersion\":2")) << log;
  EXPECT_TRUE(Contains(log, "\"operation\":\"RENAME COLUMN\"")) << log;

  ASSERT_EQ(RunSluice({"table", "alter", table, "--drop-column", "tmp", "-q"}).exit_code, 0);
  ASSERT_EQ(
      RunSluice({"table", "alter", table, "--add-column", "note STRING AFTER id", "-q"}).exit_code,
      0);
  std::string added = CommitText(table, 3);
  EXPECT_TRUE(Contains(added, R"(\"delta.columnMapping.physicalName\":\"col-)")) << added;
  // New data under logical names lands in files under physical names.
  std::string v2 = WriteText(dir, "v2.jsonl", "{\"id\": 2, \"note\": \"n\", \"kind\": 8}\n");
  RunResult appended = RunSluice({"table", "append", table, v2});
  ASSERT_EQ(appended.exit_code, 0) << appended.err << appended.out;
  EXPECT_EQ(CheckTableIndependently(table), "");
  // History shows the rename as one (the same column id under a new name), not as a removal
  // and an addition; the drop as a removal.
  RunResult history = RunSluice({"table", "history", table});
  EXPECT_TRUE(Contains(history.out, "renamed code -> kind\n")) << history.out;
  EXPECT_FALSE(Contains(history.out, "- code")) << history.out;
  EXPECT_TRUE(Contains(history.out, "- tmp ")) << history.out;
  // The old name is gone: data holding it is a new column Delta's enforcement refuses.
  std::string old = WriteText(dir, "old.jsonl", "{\"id\": 3, \"code\": 9}\n");
  EXPECT_EQ(RunSluice({"table", "append", table, old}).exit_code, 1);
}

TEST(TableAlterCliTest, RefusesWhatDeltaRefuses) {
  const std::string dir = FreshFolder("refuse");
  const std::string table = dir + "/t";
  std::string schema = WriteText(dir, "t.ddl", "id INT, day STRING, amount DOUBLE");
  ASSERT_EQ(RunSluice({"table", "create", table, "--schema", schema, "--partition-by", "day",
                       "--constraint", "positive=amount > 0", "-q"})
                .exit_code,
            0);
  auto refused = [&](std::vector<std::string> args, const std::string& error_class) {
    std::vector<std::string> cmd = {"table", "alter", table};
    cmd.insert(cmd.end(), args.begin(), args.end());
    RunResult r = RunSluice(cmd);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(Contains(r.err, error_class)) << r.err;
  };
  refused({"--drop-column", "day"}, "DELTA_UNSUPPORTED_DROP_PARTITION_COLUMN");
  refused({"--widen", "amount INT"}, "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP");
  refused({"--add-column", "id BIGINT"}, "DELTA_DUPLICATE_COLUMNS_FOUND");
  refused({"--set", "delta.notAThing=1"}, "DELTA_UNKNOWN_CONFIGURATION");
  refused({"--unset", "delta.appendOnly"}, "DELTA_UNSET_NON_EXISTENT_PROPERTY");
  refused({"--drop-constraint", "nope"}, "DELTA_CONSTRAINT_DOES_NOT_EXIST");
  refused({"--add-constraint", "positive", "amount > 1"}, "DELTA_CONSTRAINT_ALREADY_EXISTS");
  refused({"--drop-column", "amount"}, "DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE");
  RunResult unknown = RunSluice({"table", "alter", table, "--add-constraint", "c", "nosuch > 1"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  // Nothing above was committed.
  EXPECT_FALSE(fs::exists(table + "/_delta_log/00000000000000000001.json"));
}

TEST(TableAlterCliTest, WideningRecordsTheTypeChangeAndNewConstraintsCheckTheRows) {
  const std::string dir = FreshFolder("alter_widen");
  const std::string table = dir + "/t";
  std::string rows =
      WriteText(dir, "rows.jsonl", "{\"id\": 1, \"amount\": 5}\n{\"id\": 2, \"amount\": -3}\n");
  std::string schema = WriteText(dir, "t.ddl", "id INT, amount INT");
  ASSERT_EQ(RunSluice({"table", "create", table, "--schema", schema, "-q"}).exit_code, 0);
  ASSERT_EQ(RunSluice({"table", "append", table, rows, "-q"}).exit_code, 0);
  RunResult widened = RunSluice({"table", "alter", table, "--widen", "amount BIGINT"});
  ASSERT_EQ(widened.exit_code, 0) << widened.err;
  EXPECT_TRUE(Contains(CommitText(table, 2),
                       R"(\"delta.typeChanges\":[{\"fromType\":\"integer\",\"toType\":\"long\"}])"))
      << CommitText(table, 2);
  RunResult broken = RunSluice({"table", "alter", table, "--add-constraint", "pos", "amount > 0"});
  EXPECT_EQ(broken.exit_code, 1) << broken.err;
  EXPECT_TRUE(Contains(broken.err, "DELTA_NEW_CHECK_CONSTRAINT_VIOLATION")) << broken.err;
  EXPECT_TRUE(Contains(broken.err, "1 rows")) << broken.err;
  RunResult fine =
      RunSluice({"table", "alter", table, "--add-constraint", "known", "id IS NOT NULL"});
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
  EXPECT_TRUE(Contains(CommitText(table, 3), "\"delta.constraints.known\":\"id IS NOT NULL\""));
  EXPECT_TRUE(Contains(CommitText(table, 3), "\"checkConstraints\""));
  // The widened column reads in its new type from the file written before the widening.
  RunResult read = RunSluice({"table", "cat", table});
  EXPECT_TRUE(Contains(read.out, "\"amount\":-3")) << read.out;
  EXPECT_EQ(CheckTableIndependently(table), "");
}

TEST(TableAlterCliTest, ReplaceWhereOverwritesOnlyMatchingPartitions) {
  const std::string dir = FreshFolder("replace");
  const std::string table = dir + "/t";
  std::string first =
      WriteText(dir, "a.jsonl", "{\"day\": \"a\", \"n\": 1}\n{\"day\": \"b\", \"n\": 2}\n");
  ASSERT_EQ(RunSluice({"table", "append", table, first, "--partition-by", "day", "-q"}).exit_code,
            0);
  std::string again = WriteText(dir, "a2.jsonl", "{\"day\": \"a\", \"n\": 10}\n");
  RunResult replaced =
      RunSluice({"table", "overwrite", table, again, "--replace-where", "day = 'a'"});
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_TRUE(Contains(replaced.out, "1 files removed")) << replaced.out;
  std::string log = CommitText(table, 1);
  EXPECT_TRUE(Contains(log, "day=a")) << log;
  EXPECT_FALSE(Contains(log, "\"remove\":{\"path\":\"day=b")) << log;
  std::string outside = WriteText(dir, "c.jsonl", "{\"day\": \"c\", \"n\": 3}\n");
  RunResult mismatch =
      RunSluice({"table", "overwrite", table, outside, "--replace-where", "day = 'a'"});
  EXPECT_EQ(mismatch.exit_code, 1);
  EXPECT_TRUE(Contains(mismatch.err, "DELTA_REPLACE_WHERE_MISMATCH")) << mismatch.err;
  EXPECT_EQ(CheckTableIndependently(table), "");
}

TEST(TableAlterCliTest, AnIdempotentWriterSkipsABatchTheTableHolds) {
  const std::string dir = FreshFolder("txn");
  const std::string table = dir + "/t";
  std::string rows = WriteText(dir, "rows.jsonl", "{\"id\": 1}\n");
  std::vector<std::string> cmd = {"table",        "append",   table,           rows,
                                  "--txn-app-id", "stream-1", "--txn-version", "7"};
  RunResult first = RunSluice(cmd);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(Contains(CommitText(table, 0), "\"txn\":{\"appId\":\"stream-1\",\"version\":7"));
  RunResult again = RunSluice(cmd);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(Contains(again.out, "skipped")) << again.out;
  EXPECT_FALSE(fs::exists(table + "/_delta_log/00000000000000000001.json"));
}

// Features whose duties sluice does not perform are refused when a property or the schema turns
// them on, at creation and by a change, the way a table whose protocol lists them is refused.
TEST(TableAlterCliTest, FeaturesSluiceDoesNotHonourAreRefusedWhenTurnedOn) {
  const std::string dir = FreshFolder("features");
  std::string schema = WriteText(dir, "rn.ddl", "id INT, name STRING, amount INT");
  std::string rows = WriteText(dir, "rows.jsonl", "{\"id\":1,\"name\":\"n1\",\"amount\":1}\n");
  // `next`: the commit the command must not have made.
  auto refused = [&](const std::string& table, std::vector<std::string> args,
                     const std::string& feature, int next = 0) {
    RunResult r = RunSluice(args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_TRUE(Contains(r.err, "writer feature '" + feature + "'")) << r.err;
    EXPECT_FALSE(fs::exists(fmt::format("{}/_delta_log/{:020}.json", table, next)));
  };
  const std::string cdf = dir + "/cdf";
  refused(
      cdf,
      {"table", "create", cdf, "--schema", schema, "--property", "delta.enableChangeDataFeed=true"},
      "changeDataFeed");
  EXPECT_FALSE(fs::exists(cdf + "/_delta_log/00000000000000000000.json"));
  // Properties of Delta's that turn on features sluice does not write: named as features, not
  // as unknown configurations.
  for (const auto& [property, feature] : std::vector<std::pair<std::string, std::string>>{
           {"delta.enableRowTracking=true", "rowTracking"},
           {"delta.enableInCommitTimestamps=true", "inCommitTimestamp"},
           {"delta.enableIcebergCompatV2=true", "icebergCompatV2"},
           {"delta.universalFormat.enabledFormats=iceberg", "icebergCompatV2"}}) {
    const std::string t = dir + "/by_property";
    refused(t, {"table", "create", t, "--schema", schema, "--property", property}, feature);
  }
  const std::string tracking_off = dir + "/off";
  EXPECT_EQ(RunSluice({"table", "create", tracking_off, "--schema", schema, "--property",
                       "delta.enableRowTracking=false", "-q"})
                .exit_code,
            0);
  const std::string created = dir + "/created";
  refused(created,
          {"table", "append", created, rows, "--property", "delta.enableChangeDataFeed=true"},
          "changeDataFeed");
  EXPECT_FALSE(fs::exists(created));
  const std::string generated = dir + "/generated";
  std::string gen = WriteText(
      dir, "gen.json",
      R"({"type":"struct","fields":[{"name":"id","type":"integer","nullable":true,"metadata":{}},)"
      R"({"name":"id2","type":"integer","nullable":true,"metadata":{"delta.generationExpression":"id * 2"}}]})");
  refused(generated, {"table", "create", generated, "--schema", gen, "--from", "spark-json"},
          "generatedColumns");
  std::string identity = WriteText(
      dir, "identity.json",
      R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":)"
      R"({"delta.identity.start":1,"delta.identity.step":1,"delta.identity.allowExplicitInsert":false}}]})");

  const std::string table = dir + "/t";
  ASSERT_EQ(RunSluice({"table", "create", table, "--schema", schema, "-q"}).exit_code, 0);
  ASSERT_EQ(RunSluice({"table", "append", table, rows, "-q"}).exit_code, 0);
  refused(table, {"table", "alter", table, "--set", "delta.enableChangeDataFeed=true"},
          "changeDataFeed", 2);
  refused(table, {"table", "alter", table, "--add-column", "x INT DEFAULT 1"},
          "allowColumnDefaults", 2);
  refused(table,
          {"table", "overwrite", table, rows, "--overwrite-schema", "--schema", identity, "--from",
           "spark-json"},
          "identityColumns", 2);
  // Turned off, the feature asks nothing.
  RunResult off = RunSluice({"table", "alter", table, "--set", "delta.enableChangeDataFeed=false"});
  EXPECT_EQ(off.exit_code, 0) << off.err;

  // A table another writer made with change data feed on: sluice refuses to write to it, but
  // may turn the feature off (a change that leaves a table it honours), and then write.
  const std::string spark = dir + "/spark";
  fs::create_directories(spark + "/_delta_log");
  WriteText(
      spark + "/_delta_log", "00000000000000000000.json",
      R"({"protocol":{"minReaderVersion":1,"minWriterVersion":4}})"
      "\n"
      R"({"metaData":{"id":"7b3c1f1e-0000-4000-8000-000000000001","format":{"provider":"parquet","options":{}},)"
      R"("schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"integer\",)"
      R"(\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],)"
      R"("configuration":{"delta.enableChangeDataFeed":"true"},"createdTime":1700000000000}})"
      "\n");
  std::string ids = WriteText(dir, "ids.jsonl", "{\"id\":1}\n");
  refused(spark, {"table", "append", spark, ids}, "changeDataFeed", 1);
  refused(spark, {"table", "alter", spark, "--set", "delta.appendOnly=true"}, "changeDataFeed", 1);
  RunResult unset = RunSluice({"table", "alter", spark, "--unset", "delta.enableChangeDataFeed"});
  EXPECT_EQ(unset.exit_code, 0) << unset.err;
  RunResult append = RunSluice({"table", "append", spark, ids});
  EXPECT_EQ(append.exit_code, 0) << append.err;
}

TEST(TableAlterCliTest, PropertiesAreCheckedAlikeAndProtocolVersionsRaiseTheProtocol) {
  const std::string dir = FreshFolder("properties");
  std::string schema = WriteText(dir, "rn.ddl", "id INT, name STRING, amount INT");
  std::string rows = WriteText(dir, "rows.jsonl", "{\"id\":1,\"name\":\"n1\",\"amount\":1}\n");
  const std::string table = dir + "/t";
  // The same check for create, a write that creates, an overwrite and alter --set.
  for (const std::string& property : std::vector<std::string>{
           "delta.foo=bar", "delta.appendOnly=yes", "delta.checkpointInterval=abc"}) {
    std::string key = property.substr(0, property.find('='));
    RunResult create =
        RunSluice({"table", "create", table, "--schema", schema, "--property", property});
    EXPECT_EQ(create.exit_code, 2) << property << create.err;
    EXPECT_TRUE(Contains(create.err, key)) << create.err;
    RunResult append = RunSluice({"table", "append", table, rows, "--property", property});
    EXPECT_EQ(append.exit_code, 2) << property << append.err;
    EXPECT_FALSE(fs::exists(table));
  }
  ASSERT_EQ(RunSluice({"table", "create", table, "--schema", schema, "-q"}).exit_code, 0);
  RunResult overwrite =
      RunSluice({"table", "overwrite", table, rows, "--property", "delta.appendOnly=yes"});
  EXPECT_EQ(overwrite.exit_code, 2) << overwrite.err;
  EXPECT_TRUE(Contains(overwrite.err, "delta.appendOnly needs to be a boolean")) << overwrite.err;
  RunResult unknown = RunSluice({"table", "alter", table, "--set", "delta.foo=bar"});
  EXPECT_EQ(unknown.exit_code, 1) << unknown.err;
  EXPECT_TRUE(Contains(unknown.err, "DELTA_UNKNOWN_CONFIGURATION")) << unknown.err;
  RunResult bad_value = RunSluice({"table", "alter", table, "--set", "delta.appendOnly=yes"});
  EXPECT_EQ(bad_value.exit_code, 2) << bad_value.err;
  EXPECT_FALSE(fs::exists(table + "/_delta_log/00000000000000000001.json"));

  // Protocol versions asked for raise the protocol and are not stored as properties.
  RunResult raised = RunSluice({"table", "alter", table, "--set", "delta.minWriterVersion=4"});
  ASSERT_EQ(raised.exit_code, 0) << raised.err;
  std::string v1 = CommitText(table, 1);
  EXPECT_TRUE(Contains(v1, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":4}}")) << v1;
  EXPECT_FALSE(Contains(v1, "\"configuration\":{\"delta.minWriterVersion\"")) << v1;
  // Never lowered.
  RunResult lower = RunSluice({"table", "alter", table, "--set", "delta.minWriterVersion=2"});
  ASSERT_EQ(lower.exit_code, 0) << lower.err;
  EXPECT_TRUE(Contains(lower.out, "never downgraded")) << lower.out;
  EXPECT_FALSE(Contains(CommitText(table, 2), "\"minWriterVersion\":2")) << CommitText(table, 2);
  RunResult reader = RunSluice({"table", "alter", table, "--set", "delta.minReaderVersion=3"});
  ASSERT_EQ(reader.exit_code, 0) << reader.err;
  std::string v3 = CommitText(table, 3);
  EXPECT_TRUE(Contains(v3, "\"minReaderVersion\":3,\"minWriterVersion\":7")) << v3;
  RunResult appended = RunSluice({"table", "append", table, rows, "-q"});
  EXPECT_EQ(appended.exit_code, 0) << appended.err;
  EXPECT_EQ(CheckTableIndependently(table), "");
  // The same at creation.
  const std::string created = dir + "/created";
  RunResult create = RunSluice(
      {"table", "create", created, "--schema", schema, "--property", "delta.minWriterVersion=4"});
  ASSERT_EQ(create.exit_code, 0) << create.err;
  EXPECT_TRUE(Contains(create.out, "(protocol 1,4)")) << create.out;
  EXPECT_TRUE(Contains(CommitText(created, 0), "\"configuration\":{}")) << CommitText(created, 0);
}

TEST(TableAlterCliTest, ARenameTakesOneNameNotAPath) {
  const std::string dir = FreshFolder("rename_name");
  const std::string table = dir + "/t";
  std::string schema = WriteText(dir, "t.ddl", "id INT, info STRUCT<a: INT, b: STRING>");
  ASSERT_EQ(RunSluice({"table", "create", table, "--schema", schema, "-q"}).exit_code, 0);
  RunResult dotted = RunSluice({"table", "alter", table, "--rename-column", "info.a", "info.aa"});
  EXPECT_EQ(dotted.exit_code, 2) << dotted.err;
  EXPECT_TRUE(Contains(dotted.err, "give 'aa'")) << dotted.err;
  EXPECT_FALSE(fs::exists(table + "/_delta_log/00000000000000000001.json"));
  RunResult renamed = RunSluice({"table", "alter", table, "--rename-column", "info.a", "aa", "-q"});
  ASSERT_EQ(renamed.exit_code, 0) << renamed.err;
  std::string rows = WriteText(dir, "rows.jsonl", "{\"id\":1,\"info\":{\"aa\":1,\"b\":\"x\"}}\n");
  ASSERT_EQ(RunSluice({"table", "append", table, rows, "-q"}).exit_code, 0);
  RunResult where = RunSluice({"table", "cat", table, "--where", "info.aa = 1"});
  EXPECT_EQ(where.exit_code, 0) << where.err;
  EXPECT_TRUE(Contains(where.out, "\"aa\":1")) << where.out;
  // Quoted, a name may hold a dot.
  RunResult quoted = RunSluice({"table", "alter", table, "--rename-column", "info.b", "`b.c`"});
  ASSERT_EQ(quoted.exit_code, 0) << quoted.err;
  RunResult ddl = RunSluice({"table", "schema", table, "--as", "spark-ddl"});
  EXPECT_TRUE(Contains(ddl.out, "`b.c`: STRING")) << ddl.out;
}

}  // namespace
}  // namespace sluice::e2e
