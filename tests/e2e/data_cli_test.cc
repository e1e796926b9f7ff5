// End-to-end: `sluice validate` and `sluice infer` on the bundled orders scenario and on
// hostile input: outputs, quarantine, report, exit codes, and files that appear only whole.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "e2e/run.h"
#include "sluice/base/json.h"
#include "sluice_test_paths.h"

namespace sluice::e2e {
namespace {

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string TempPath(const std::string& suffix) {
  std::string p = TempFile(suffix, "");
  std::filesystem::remove(p);
  return p;
}

TEST(DataCliTest, SeedOrdersRescueAndReport) {
  std::string out = TempPath(".jsonl");
  std::string quarantine = TempPath(".quarantine.jsonl");
  std::string report = TempPath(".json");
  RunResult r = RunSluice({"validate", "examples/orders_landing.jsonl", "--contract",
                           "examples/orders_silver_contract.yaml", "--out", out, "--quarantine",
                           quarantine, "--report", report, "--threads", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(Contains(r.err, "7 records: 5 valid (2 rescued), 2 quarantined (1 malformed)"))
      << r.err;
  std::string valid = Slurp(out);
  EXPECT_TRUE(Contains(valid,
                       "\"order_amount\":null,\"order_date\":\"2026-08-16\",\"_rescued_data\":"
                       "\"{\\\"order_amount\\\":\\\"4500.00\\\",\\\"_file_path\\\":\\\"examples/"
                       "orders_landing.jsonl\\\"}\""))
      << valid;
  EXPECT_TRUE(Contains(valid, "\\\"unexpected_column\\\":\\\"extra_unexpected_field\\\"")) << valid;
  auto rep = ParseJson(Slurp(report));
  ASSERT_TRUE(rep.has_value());
  EXPECT_EQ(rep->Find("records_in")->as_int64(), 7);
  EXPECT_EQ(rep->Find("valid")->as_int64(), 5);
  EXPECT_EQ(rep->Find("rescued")->as_int64(), 2);
  EXPECT_EQ(rep->Find("quarantined")->as_int64(), 2);
  EXPECT_TRUE(rep->Find("invariant")->Find("holds")->as_bool());
  bool saw_type = false;
  for (const JsonValue& v : rep->Find("violations")->items()) {
    if (v.Find("path")->as_string() == "order_amount") {
      saw_type = true;
      EXPECT_EQ(v.Find("kind")->as_string(), "type_mismatch");
      EXPECT_EQ(v.Find("lines")->items()[0].as_int64(), 3);
    }
  }
  EXPECT_TRUE(saw_type);
  std::string q = Slurp(quarantine);
  EXPECT_TRUE(Contains(q, "\"line\":5,")) << q;
  EXPECT_TRUE(Contains(q, "\"line\":6,")) << q;
  std::filesystem::remove(out);
  std::filesystem::remove(quarantine);
  std::filesystem::remove(report);
}

// The seed's unexpected column under the two policies a contract can state: with
// allowed_new_columns: true it is kept (in the rescued column) and the run is clean; with false
// it is an unknown_field, the record is rescued and the exit code says so.
TEST(DataCliTest, ContractPolicyForNewColumns) {
  const std::string records =
      TempFile(".jsonl",
               "{\"order_id\": 1001, \"customer_id\": 501, \"order_amount\": 4500.0}\n"
               "{\"order_id\": 1002, \"customer_id\": 502, \"order_amount\": 120.5, "
               "\"unexpected_column\": \"extra_unexpected_field\"}\n");
  std::string contract =
      Slurp(std::string(SLUICE_SOURCE_DIR) + "/examples/orders_silver_contract.yaml");
  const std::string denied = TempFile(".yaml", contract);
  const size_t at = contract.find("allowed_new_columns: false");
  ASSERT_NE(at, std::string::npos);
  contract.replace(at, 26, "allowed_new_columns: true");
  const std::string allowed = TempFile(".yaml", contract);

  RunResult ok = RunSluice({"validate", records, "--contract", allowed, "--format", "json", "-o",
                            "/dev/null", "--quarantine", "/dev/null"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  auto rep = ParseJson(ok.out);
  ASSERT_TRUE(rep.has_value()) << ok.out;
  EXPECT_EQ(rep->Find("valid")->as_int64(), 2);
  EXPECT_EQ(rep->Find("rescued")->as_int64(), 0);
  EXPECT_EQ(rep->Find("with_new_columns")->as_int64(), 1);
  ASSERT_EQ(rep->Find("violations")->items().size(), 1u);
  EXPECT_EQ(rep->Find("violations")->items()[0].Find("kind")->as_string(), "new_column");
  EXPECT_EQ(rep->Find("violations")->items()[0].Find("path")->as_string(), "unexpected_column");

  RunResult kept =
      RunSluice({"validate", records, "--contract", allowed, "--quarantine", "/dev/null"});
  EXPECT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_TRUE(Contains(kept.out, "\\\"unexpected_column\\\":\\\"extra_unexpected_field\\\""))
      << kept.out;
  EXPECT_TRUE(Contains(kept.err,
                       "1 valid records carry new columns the contract allows "
                       "(unexpected_column)"))
      << kept.err;

  RunResult no = RunSluice({"validate", records, "--contract", denied, "--format", "json", "-o",
                            "/dev/null", "--quarantine", "/dev/null"});
  EXPECT_EQ(no.exit_code, 1) << no.err;
  auto rep2 = ParseJson(no.out);
  ASSERT_TRUE(rep2.has_value()) << no.out;
  EXPECT_EQ(rep2->Find("rescued")->as_int64(), 1);
  EXPECT_EQ(rep2->Find("with_new_columns")->as_int64(), 0);
  EXPECT_EQ(rep2->Find("violations")->items()[0].Find("kind")->as_string(), "unknown_field");
}

TEST(DataCliTest, CleanInputExitsZeroAndFailFastExitsOne) {
  std::string file = TempFile(".jsonl", "{\"a\": 1}\n{\"a\": 2}\n{\"a\": \"x\"}\n{\"a\": 4}\n");
  std::string schema = TempFile(".ddl", "a INT");
  std::string clean = TempFile(".jsonl", "{\"a\": 1}\n");
  RunResult ok = RunSluice({"validate", clean, "--schema", schema, "-q"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "{\"a\":1,\"_rescued_data\":null}\n");
  EXPECT_EQ(ok.err, "");
  RunResult ff = RunSluice(
      {"validate", file, "--schema", schema, "--mode", "failfast", "--quarantine", "/dev/null"});
  EXPECT_EQ(ff.exit_code, 1);
  EXPECT_EQ(ff.out, "{\"a\":1}\n{\"a\":2}\n");
  EXPECT_TRUE(Contains(ff.err, "stopped (failfast) at " + file + ":3 (byte 18) field a")) << ff.err;
}

TEST(DataCliTest, QuarantineDefaultsToStandardError) {
  std::string file = TempFile(".jsonl", "{\"a\": 1}\nnot json\n");
  std::string schema = TempFile(".ddl", "a INT");
  RunResult r = RunSluice({"validate", file, "--schema", schema});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "\"raw\":\"not json\"")) << r.err;
}

TEST(DataCliTest, UsageAndInputErrorsExitTwo) {
  std::string schema = TempFile(".ddl", "a INT");
  std::string file = TempFile(".jsonl", "{\"a\": 1}\n");
  EXPECT_EQ(RunSluice({"validate", file}).exit_code, 2);
  EXPECT_EQ(RunSluice({"validate", file, "--schema", schema, "--contract", "x.yaml"}).exit_code, 2);
  EXPECT_EQ(RunSluice({"validate", "/nonexistent.jsonl", "--schema", schema}).exit_code, 2);
  EXPECT_EQ(RunSluice({"validate", file, "--schema", schema, "--mode", "lenient"}).exit_code, 2);
  EXPECT_EQ(
      RunSluice({"validate", file, "--schema", schema, "--format", "csv", "--sep", "ab"}).exit_code,
      2);
  EXPECT_EQ(RunSluice({"infer", file, "--sampling-ratio", "0"}).exit_code, 2);
  EXPECT_EQ(RunSluice({"infer", file, "--hints", "a int"}).exit_code, 2);
  EXPECT_EQ(RunSluice({"infer", file, "--mode", "autoloader", "--hints", "a nosuchtype"}).exit_code,
            2);
}

TEST(DataCliTest, FailedRunLeavesNoPartialOutput) {
  std::string schema = TempFile(".ddl", "a INT");
  std::string file = TempFile(".jsonl", "{\"a\": 1}\n");
  std::string out = TempPath(".jsonl");
  // The second input is missing: the run fails and --out never appears.
  RunResult r =
      RunSluice({"validate", file, "/nonexistent.jsonl", "--schema", schema, "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(out));
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(out).parent_path())) {
    EXPECT_FALSE(
        Contains(entry.path().string(), std::filesystem::path(out).filename().string() + ".tmp"))
        << entry.path();
  }
}

TEST(DataCliTest, CsvFlags) {
  std::string file = TempFile(".csv", "id;name\n1;'a;b'\n2;NA\n");
  std::string schema = TempFile(".ddl", "id INT NOT NULL, name STRING");
  RunResult r = RunSluice({"validate", file, "--schema", schema, "--sep", ";", "--quote", "'",
                           "--null-value", "NA", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"id\":1,\"name\":\"a;b\",\"_rescued_data\":null}\n"
            "{\"id\":2,\"name\":null,\"_rescued_data\":null}\n");
}

TEST(DataCliTest, InferSparkAndAutoLoader) {
  std::string file = TempFile(".jsonl",
                              "{\"id\": 1, \"amount\": 12.5, \"items\": [{\"qty\": 2}]}\n"
                              "{\"id\": 2, \"amount\": \"n/a\", \"Id\": 3}\n");
  RunResult spark = RunSluice({"infer", file, "--as", "spark-ddl", "-q"});
  EXPECT_EQ(spark.exit_code, 0) << spark.err;
  EXPECT_EQ(spark.out, "Id BIGINT,amount STRING,id BIGINT,items ARRAY<STRUCT<qty: BIGINT>>\n");
  RunResult al = RunSluice({"infer", file, "--mode", "autoloader", "--as", "spark-ddl", "-q"});
  EXPECT_EQ(al.exit_code, 0) << al.err;
  // Case variants of one name become one column (the first in Spark's name order, "Id");
  // nested leaves become strings.
  EXPECT_EQ(al.out,
            "Id STRING,amount STRING,items ARRAY<STRUCT<qty: STRING>>,_rescued_data STRING\n");
  RunResult hinted = RunSluice({"infer", file, "--mode", "autoloader", "--infer-column-types",
                                "--hints", "items[].qty int", "--as", "spark-ddl", "-q"});
  EXPECT_EQ(hinted.exit_code, 0) << hinted.err;
  EXPECT_EQ(hinted.out,
            "Id BIGINT,amount STRING,items ARRAY<STRUCT<qty: INT>>,_rescued_data STRING\n");
  RunResult pas =
      RunSluice({"infer", file, "--option", "primitivesAsString=true", "--as", "spark-ddl", "-q"});
  EXPECT_EQ(pas.out, "Id STRING,amount STRING,id STRING,items ARRAY<STRUCT<qty: STRING>>\n");
}

TEST(DataCliTest, InferCsv) {
  std::string file = TempFile(".csv", "id,amount,day\n1,2.50,2026-01-01\n2,3,2026-01-02\n");
  RunResult r = RunSluice({"infer", file, "--as", "spark-ddl"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "id INT,amount DOUBLE,day DATE\n");
  EXPECT_TRUE(Contains(r.err, "inferred from 2 records")) << r.err;
}

TEST(DataCliTest, HostileInputNeverCrashes) {
  std::string schema = TempFile(".ddl", "a INT, b STRUCT<c: ARRAY<STRING>>");
  std::string deep(100000, '[');
  std::vector<std::string> inputs = {
      std::string("\0\0\0\xff\xfe", 5),
      deep,
      "{\"a\":" + deep,
      std::string(70000, '{'),
      "{\"a\": 1e999999999}",
      "{\"b\": {\"c\": [\"\\ud800\"]}}",
      "\xEF\xBB\xBF\r\n\r\n",
  };
  for (const std::string& in : inputs) {
    std::string file = TempFile(".jsonl", in);
    RunResult r = RunSluice({"validate", file, "--schema", schema, "--quarantine", "/dev/null",
                             "--report", "/dev/null", "-q"});
    EXPECT_EQ(r.signal, 0) << in.substr(0, 40);
    EXPECT_LE(r.exit_code, 1) << in.substr(0, 40) << r.err;
    RunResult i = RunSluice({"infer", file, "-q"});
    EXPECT_EQ(i.signal, 0);
  }
}

}  // namespace
}  // namespace sluice::e2e

namespace sluice::e2e {
namespace {

TEST(DataCliTest, StandardInput) {
  std::string schema = TempFile(".ddl", "a INT");
  RunResult r =
      RunSluice({"validate", "-", "--schema", schema, "-q"}, "{\"a\": 1}\n{\"a\": \"x\"}\n");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(
      r.out,
      "{\"a\":1,\"_rescued_data\":null}\n"
      "{\"a\":null,\"_rescued_data\":\"{\\\"a\\\":\\\"x\\\",\\\"_file_path\\\":\\\"-\\\"}\"}\n");
  RunResult i = RunSluice({"infer", "-", "--as", "spark-ddl", "-q"}, "{\"b\": true}\n");
  EXPECT_EQ(i.out, "b BOOLEAN\n");
}

}  // namespace
}  // namespace sluice::e2e

namespace sluice::e2e {
namespace {

// Writing a report or output to a device writes into it; it must never replace the device
// with a file (run as root, a rename over /dev/null would succeed).
TEST(DataCliTest, DevicesAreWrittenNotReplaced) {
  ASSERT_TRUE(std::filesystem::is_character_file("/dev/null"));
  std::string schema = TempFile(".ddl", "a INT");
  std::string file = TempFile(".jsonl", "{\"a\": 1}\n{\"a\": \"x\"}\n");
  RunResult r = RunSluice({"validate", file, "--schema", schema, "--out", "/dev/null",
                           "--quarantine", "/dev/null", "--report", "/dev/null", "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
  RunResult c =
      RunSluice({"schema", "convert", "examples/users.ddl", "--to", "avro", "-o", "/dev/null"});
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
}

}  // namespace
}  // namespace sluice::e2e
