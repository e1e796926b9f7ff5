// End-to-end: the sluice binary on the bundled examples and on hostile files, checking output,
// exit codes (0 all holds, 1 changes found, 2 usage or input error) and that nothing crashes.
#include <gtest/gtest.h>

#include <string>

#include "e2e/run.h"
#include "sluice/base/json.h"

namespace sluice::e2e {
namespace {

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(CliTest, HelpListsCommands) {
  RunResult r = RunSluice({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(Contains(r.out, "schema")) << r.out;
  EXPECT_TRUE(Contains(r.out, "diff")) << r.out;
  for (const char* sub : {"show", "convert", "fingerprint", "formats"}) {
    RunResult h = RunSluice({"schema", sub, "--help"});
    EXPECT_EQ(h.exit_code, 0) << sub;
    EXPECT_TRUE(Contains(h.out, "Usage")) << sub << h.out;
  }
  EXPECT_EQ(RunSluice({"diff", "--help"}).exit_code, 0);
}

TEST(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(RunSluice({}).exit_code, 2);
  EXPECT_EQ(RunSluice({"nonsense"}).exit_code, 2);
  EXPECT_EQ(RunSluice({"diff", "examples/orders_v1.json"}).exit_code, 2);
  EXPECT_EQ(RunSluice({"schema", "show", "examples/orders_v1.json", "--as", "xml"}).exit_code, 2);
  EXPECT_EQ(RunSluice({"schema", "fingerprint", "--algo", "sha1", "examples/users.ddl"}).exit_code,
            2);
}

TEST(CliTest, SeedOrdersDiffFindsTheTypeChange) {
  RunResult r = RunSluice({"diff", "examples/orders_v1.json", "examples/orders_v2.json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(Contains(r.out, "order_amount       type_changed  float64 -> string  [breaking]"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "+ unexpected_column  field_added   string             [compatible]"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "2 changes: 1 breaking, 1 compatible, 0 cosmetic")) << r.out;
}

TEST(CliTest, DiffJsonIsMachineReadable) {
  RunResult r = RunSluice(
      {"diff", "--format", "json", "examples/payments_v1.ddl", "examples/payments_v2.ddl"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto doc = ParseJson(r.out);
  ASSERT_TRUE(doc.has_value()) << r.out;
  const JsonValue* changes = doc->Find("changes");
  ASSERT_NE(changes, nullptr);
  ASSERT_EQ(changes->size(), 1u);
  const JsonValue& c = changes->items()[0];
  EXPECT_EQ(c.Find("path")->as_string(), "settlement_method");
  EXPECT_EQ(c.Find("kind")->as_string(), "field_added");
  EXPECT_TRUE(c.Find("from")->is_null());
  EXPECT_EQ(c.Find("to")->as_string(), "string");
  EXPECT_EQ(doc->Find("summary")->Find("total")->as_int64(), 1);
  EXPECT_EQ(doc->Find("summary")->Find("by_kind")->Find("field_added")->as_int64(), 1);
}

TEST(CliTest, DiffGithubAnnotations) {
  RunResult r = RunSluice(
      {"diff", "--format", "github", "examples/orders_v1.json", "examples/orders_v2.json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.out,
                       "::error file=examples/orders_v2.json,title=sluice diff type_changed::"
                       "order_amount: type_changed float64 -> string\n"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "::warning file=examples/orders_v2.json")) << r.out;
}

TEST(CliTest, IdenticalSchemasExitZero) {
  RunResult r = RunSluice({"diff", "examples/users.ddl", "examples/users.ddl"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(Contains(r.out, "no changes"));
}

TEST(CliTest, DiffAcrossLanguages) {
  std::string json =
      TempFile(".json", R"({"type":"struct","fields":[{"name":"user_id","type":"long",)"
                        R"("nullable":true,"metadata":{}}]})");
  RunResult r = RunSluice({"diff", json, "examples/users.ddl"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.out, "+ email")) << r.out;
  EXPECT_TRUE(Contains(r.out, "+ loyalty_tier")) << r.out;
}

TEST(CliTest, ConvertSparkDdlToJsonAndBack) {
  RunResult j = RunSluice({"schema", "convert", "examples/users.ddl", "--to", "spark-json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(j.out,
            R"({"type":"struct","fields":[{"name":"user_id","type":"long","nullable":true,)"
            R"("metadata":{}},{"name":"email","type":"string","nullable":true,"metadata":{}},)"
            R"({"name":"age","type":"integer","nullable":true,"metadata":{}},)"
            R"({"name":"loyalty_tier","type":"string","nullable":true,"metadata":{}}]})"
            "\n");
  RunResult d =
      RunSluice({"schema", "convert", "-", "--from", "spark-json", "--to", "spark-ddl"}, j.out);
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(d.out, "user_id BIGINT,email STRING,age INT,loyalty_tier STRING\n");
}

TEST(CliTest, ConvertWritesOutputFile) {
  std::string out = TempFile(".json", "");
  RunResult r =
      RunSluice({"schema", "convert", "examples/users.ddl", "--to", "spark-json", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  RunResult back = RunSluice({"schema", "show", out, "--as", "spark-ddl"});
  EXPECT_EQ(back.out, "user_id BIGINT,email STRING,age INT,loyalty_tier STRING\n");
}

TEST(CliTest, FingerprintSparkMd5MatchesPySpark) {
  // MD5 of PySpark's schema.json() for the seed's original payments schema.
  RunResult r =
      RunSluice({"schema", "fingerprint", "--algo", "spark-md5", "examples/payments_v1.ddl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "dc6e5acd2e39a9919c67c0babf33a75f\n");
  RunResult sha = RunSluice({"schema", "fingerprint", "examples/payments_v1.ddl"});
  EXPECT_EQ(sha.out.size(), 65u);
  RunResult other = RunSluice({"schema", "fingerprint", "examples/payments_v2.ddl"});
  EXPECT_NE(sha.out, other.out);
}

TEST(CliTest, ShowTreeAndFormatsList) {
  RunResult r = RunSluice({"schema", "show", "examples/payments_v2.ddl", "--as", "tree"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "transaction_id: int64 not null")) << r.out;
  RunResult f = RunSluice({"schema", "formats"});
  EXPECT_EQ(f.exit_code, 0);
  for (const char* name : {"spark-json", "spark-ddl", "avro", "avro-canonical", "json-schema",
                           "contract", "odcs", "sql-spark", "sql-duckdb", "sql-postgres", "tree"}) {
    EXPECT_TRUE(Contains(f.out, name)) << name;
  }
}

TEST(CliTest, InputErrorsNameTheFileAndPlace) {
  RunResult missing = RunSluice({"schema", "show", "no/such/file.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(Contains(missing.err, "sluice: error: no/such/file.json")) << missing.err;

  std::string bad = TempFile(".json", "{\"type\":\"struct\",\n \"fields\": [1,]}");
  RunResult r = RunSluice({"schema", "show", bad, "--from", "spark-json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, bad + ": line 2, column")) << r.err;

  std::string ddl = TempFile(".ddl", "a INT, b STRNG");
  RunResult d = RunSluice({"diff", ddl, "examples/users.ddl"});
  EXPECT_EQ(d.exit_code, 2);
  EXPECT_TRUE(Contains(d.err, "unknown data type 'STRNG'")) << d.err;
}

TEST(CliTest, HostileFilesNeverCrash) {
  std::string deep_json(200000, '[');
  std::string deep_ddl = "a ";
  for (int i = 0; i < 50000; ++i) deep_ddl += "ARRAY<";
  const std::pair<std::string, std::string> files[] = {
      {".json", ""},
      {".json", deep_json},
      {".json", "{\"type\":\"struct\",\"fields\":[{\"name\":\"\xff\",\"type\":\"long\"}]}"},
      {".json", "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"decimal(1e99,2)\"}]}"},
      {".ddl", deep_ddl},
      {".ddl", std::string("a INT\0b INT", 11)},
      {".avsc", "{\"type\":\"record\""},
      {".yaml", "a: [[[[[[["},
      {".schema.json", "{\"$ref\":\"#\"}"},
  };
  for (const auto& [suffix, content] : files) {
    std::string path = TempFile(suffix, content);
    RunResult r = RunSluice({"schema", "show", path, "--as", "spark-json"});
    EXPECT_EQ(r.signal, 0) << path;
    EXPECT_EQ(r.exit_code, 2) << path << ": " << r.out;
    EXPECT_TRUE(Contains(r.err, "sluice: error:")) << path << ": " << r.err;
  }
}

}  // namespace
}  // namespace sluice::e2e
