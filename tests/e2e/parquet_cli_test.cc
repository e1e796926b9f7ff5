// End-to-end: Parquet where users meet it. validate writes it (one file, rolled files, every
// codec), reads it back (the same records, the same report), infer merges footers, schema show
// and diff read footers, cat prints rows and --meta the layout; broken files exit 2 with the
// byte offset.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "e2e/run.h"
#include "sluice/base/json.h"

namespace sluice::e2e {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A fresh folder for one test's files.
std::string Folder(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("sluice_parquet_cli_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

constexpr const char* kLanding = "examples/orders_landing.jsonl";
constexpr const char* kContract = "examples/orders_silver_contract.yaml";

TEST(ParquetCliTest, ValidRecordsGoToParquetAndReadBackAsTheyWereWritten) {
  const std::string dir = Folder("roundtrip");
  const std::string out = dir + "/silver.parquet";
  RunResult jsonl =
      RunSluice({"validate", kLanding, "--contract", kContract, "--quarantine", "/dev/null", "-q"});
  RunResult written = RunSluice({"validate", kLanding, "--contract", kContract, "-o", out,
                                 "--quarantine", "/dev/null", "--format", "json"});
  EXPECT_EQ(written.exit_code, 1) << written.err;  // two records rescued, two quarantined
  auto report = ParseJson(written.out);
  ASSERT_TRUE(report.has_value()) << written.out;
  EXPECT_EQ(report->Find("valid")->as_int64(), 5);
  ASSERT_TRUE(fs::exists(out));

  // The file's rows are the valid records, values as the validator wrote them.
  RunResult rows = RunSluice({"cat", out});
  EXPECT_EQ(rows.exit_code, 0) << rows.err;
  EXPECT_TRUE(Contains(rows.out,
                       "{\"order_id\":1001,\"customer_id\":501,\"order_amount\":4500,\"order_"
                       "date\":\"2026-08-15\",\"_rescued_data\":null}\n"))
      << rows.out;
  EXPECT_TRUE(Contains(rows.out,
                       "\"order_amount\":null,\"order_date\":\"2026-08-16\",\"_rescued_"
                       "data\":\"{\\\"order_amount\\\":\\\"4500.00\\\""))
      << rows.out;
  EXPECT_EQ(std::count(rows.out.begin(), rows.out.end(), '\n'), 5);

  // Validating the file again against the same contract gives the same records: the rescued
  // column of the first pass is kept, not rescued again.
  RunResult again =
      RunSluice({"validate", out, "--contract", kContract, "--quarantine", "/dev/null", "-q"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  // The one difference: a double's text is Parquet's shortest form (4500), not the producer's.
  std::string expected = jsonl.out;
  expected.replace(expected.find("4500.0,"), 7, "4500,");
  EXPECT_EQ(again.out, expected);

  // Its schema, from the footer.
  RunResult ddl = RunSluice({"schema", "show", out, "--as", "spark-ddl"});
  EXPECT_EQ(ddl.exit_code, 0) << ddl.err;
  EXPECT_EQ(ddl.out,
            "order_id BIGINT NOT NULL,customer_id BIGINT NOT NULL,order_amount DOUBLE,order_date "
            "DATE,_rescued_data STRING\n");
  RunResult meta = RunSluice({"cat", "--meta", out});
  EXPECT_EQ(meta.exit_code, 0) << meta.err;
  EXPECT_TRUE(Contains(meta.out, "rows:        5 in 1 row group")) << meta.out;
  EXPECT_TRUE(Contains(meta.out, "order_id: INT64, SNAPPY")) << meta.out;
  EXPECT_TRUE(Contains(meta.out, "min 1001, max 1007")) << meta.out;
}

// With several threads, records are shredded on the workers that checked them: the file holds
// the same rows in the same order as with one thread, over several row groups, and the report
// is the same.
TEST(ParquetCliTest, AnyThreadCountWritesTheSameRows) {
  const std::string dir = Folder("threads");
  const std::string input = dir + "/orders.jsonl";
  {
    std::ofstream f(input);
    for (int i = 0; i < 40000; ++i) {
      f << "{\"order_id\":" << i << ",\"customer_id\":" << (i % 11 == 3 ? "\"x\"" : "7")
        << ",\"order_amount\":" << i << ".5,\"order_date\":\"2026-08-1" << i % 10
        << "\",\"note\":\"" << std::string(static_cast<size_t>(i % 50), 'n') << "\"}\n";
      if (i % 997 == 5) f << "{broken\n";
    }
  }
  std::string first_rows;
  std::string first_report;
  for (const char* threads : {"1", "2", "3"}) {
    const std::string out = dir + "/t" + threads + ".parquet";
    RunResult run =
        RunSluice({"validate", input, "--contract", kContract, "-o", out, "--threads", threads,
                   "--row-group-size", "1", "--quarantine", "/dev/null", "--format", "json"});
    EXPECT_EQ(run.exit_code, 1) << run.err;
    RunResult rows = RunSluice({"cat", out});
    ASSERT_EQ(rows.exit_code, 0) << rows.err;
    RunResult meta = RunSluice({"cat", "--meta", out});
    EXPECT_FALSE(Contains(meta.out, "in 1 row group")) << meta.out;
    if (first_rows.empty()) {
      first_rows = rows.out;
      first_report = run.out;
      EXPECT_GT(std::count(rows.out.begin(), rows.out.end(), '\n'), 30000);
      continue;
    }
    EXPECT_EQ(rows.out, first_rows) << threads;
    EXPECT_EQ(run.out, first_report) << threads;
  }
}

TEST(ParquetCliTest, CodecsRolledFilesAndProjection) {
  const std::string dir = Folder("codecs");
  std::string records;
  for (int i = 0; i < 25; ++i) {
    records += "{\"id\":" + std::to_string(i) + ",\"tags\":[\"a\",\"b\"],\"m\":{\"k" +
               std::to_string(i % 3) + "\":" + std::to_string(i) +
               "},\"at\":\"2026-03-14T09:26:53.5Z\",\"d\":\"12.5\"}\n";
  }
  const std::string input = TempFile(".jsonl", records);
  const std::string schema =
      TempFile(".ddl",
               "id BIGINT, tags ARRAY<STRING>, m MAP<STRING, INT>, at TIMESTAMP, "
               "d DECIMAL(20,3)");
  std::string reference;
  for (const char* codec : {"snappy", "zstd", "gzip", "lz4_raw", "none"}) {
    const std::string out = dir + "/" + codec + ".parquet";
    RunResult r =
        RunSluice({"validate", input, "--schema", schema, "-o", out, "--compression", codec, "-q"});
    ASSERT_EQ(r.exit_code, 0) << codec << ": " << r.err;
    RunResult rows = RunSluice({"cat", out});
    ASSERT_EQ(rows.exit_code, 0) << rows.err;
    if (reference.empty()) reference = rows.out;
    EXPECT_EQ(rows.out, reference) << codec;
  }
  EXPECT_TRUE(Contains(reference,
                       "{\"id\":4,\"tags\":[\"a\",\"b\"],\"m\":[{\"key\":\"k1\",\"value\":4}],"
                       "\"at\":\"2026-03-14T09:26:53.5Z\",\"d\":12.500,\"_rescued_data\":null}"))
      << reference;

  RunResult rolled = RunSluice({"validate", input, "--schema", schema, "-o", dir + "/part.parquet",
                                "--max-rows-per-file", "10", "-q"});
  ASSERT_EQ(rolled.exit_code, 0) << rolled.err;
  for (const char* name : {"part-00000.parquet", "part-00001.parquet", "part-00002.parquet"}) {
    EXPECT_TRUE(fs::exists(dir + "/" + name)) << name;
  }
  EXPECT_FALSE(fs::exists(dir + "/part-00003.parquet"));
  RunResult all = RunSluice({"cat", dir, "--pattern", "part-*.parquet", "--columns", "id,d"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(std::count(all.out.begin(), all.out.end(), '\n'), 25);
  EXPECT_TRUE(Contains(all.out, "{\"id\":24,\"d\":12.500}\n")) << all.out;
  RunResult limited = RunSluice({"cat", dir + "/part-00001.parquet", "--limit", "2"});
  EXPECT_EQ(limited.exit_code, 0);
  EXPECT_EQ(std::count(limited.out.begin(), limited.out.end(), '\n'), 2);

  // Parquet needs a file; --max-rows-per-file needs Parquet.
  EXPECT_EQ(RunSluice({"validate", input, "--schema", schema, "--out-format", "parquet"}).exit_code,
            2);
  EXPECT_EQ(RunSluice({"validate", input, "--schema", schema, "-o", dir + "/x.jsonl",
                       "--max-rows-per-file", "3"})
                .exit_code,
            2);
}

TEST(ParquetCliTest, InferMergesFootersAndDiffComparesThem) {
  const std::string dir = Folder("merge");
  const std::string v1 = TempFile(".ddl", "id BIGINT NOT NULL, name STRING");
  const std::string v2 = TempFile(".ddl", "id BIGINT, name STRING, tier STRING");
  const std::string a = dir + "/a.parquet";
  const std::string b = dir + "/b.parquet";
  ASSERT_EQ(RunSluice({"validate", TempFile(".jsonl", "{\"id\":1,\"name\":\"x\"}\n"), "--schema",
                       v1, "-o", a, "--rescued-column", "", "--mode", "failfast", "-q"})
                .exit_code,
            0);
  ASSERT_EQ(RunSluice({"validate", TempFile(".jsonl", "{\"id\":2,\"tier\":\"gold\"}\n"), "--schema",
                       v2, "-o", b, "--mode", "failfast", "-q"})
                .exit_code,
            0);
  RunResult merged = RunSluice({"infer", a, b, "--as", "spark-ddl"});
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.out, "id BIGINT,name STRING,tier STRING\n");
  RunResult diff = RunSluice({"diff", a, b});
  EXPECT_EQ(diff.exit_code, 1) << diff.err;
  EXPECT_TRUE(Contains(diff.out, "tier")) << diff.out;

  // A type that differs cannot be merged, as in Spark.
  const std::string c = dir + "/c.parquet";
  ASSERT_EQ(RunSluice({"validate", TempFile(".jsonl", "{\"id\":\"s\"}\n"), "--schema",
                       TempFile(".ddl", "id STRING"), "-o", c, "-q"})
                .exit_code,
            0);
  RunResult conflict = RunSluice({"infer", a, c});
  EXPECT_EQ(conflict.exit_code, 2);
  EXPECT_TRUE(Contains(conflict.err, "cannot merge the types")) << conflict.err;
}

// Decimals of one scale merge to the larger precision (StructType.merge); other scales do not.
TEST(ParquetCliTest, InferMergesDecimalsOfOneScale) {
  const std::string dir = Folder("decimals");
  auto write = [&](const std::string& name, const std::string& ddl) {
    const std::string path = dir + "/" + name;
    EXPECT_EQ(RunSluice({"validate", TempFile(".jsonl", "{\"d\":1.5}\n"), "--schema",
                         TempFile(".ddl", ddl), "-o", path, "--rescued-column", "", "-q"})
                  .exit_code,
              0);
    return path;
  };
  const std::string a = write("a.parquet", "d DECIMAL(10,2)");
  const std::string b = write("b.parquet", "d DECIMAL(12,2)");
  const std::string c = write("c.parquet", "d DECIMAL(12,3)");
  RunResult merged = RunSluice({"infer", a, b, "--as", "spark-ddl"});
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.out, "d DECIMAL(12,2)\n");
  merged = RunSluice({"infer", b, a, "--as", "spark-ddl"});
  EXPECT_EQ(merged.out, "d DECIMAL(12,2)\n");
  RunResult conflict = RunSluice({"infer", a, c});
  EXPECT_EQ(conflict.exit_code, 2);
  EXPECT_TRUE(Contains(conflict.err, "cannot merge the types")) << conflict.err;
}

TEST(ParquetCliTest, BrokenFilesAreErrorsWithTheirPlace) {
  const std::string dir = Folder("broken");
  const std::string good = dir + "/good.parquet";
  ASSERT_EQ(RunSluice({"validate", kLanding, "--contract", kContract, "-o", good, "--quarantine",
                       "/dev/null", "-q"})
                .exit_code,
            1);
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 100u);
  const std::string truncated = TempFile(".parquet", bytes.substr(0, bytes.size() - 30));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"cat", truncated},
        std::vector<std::string>{"validate", truncated, "--contract", kContract},
        std::vector<std::string>{"schema", "show", truncated},
        std::vector<std::string>{"cat", "--meta", truncated}}) {
    RunResult r = RunSluice(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_TRUE(Contains(r.err, "sluice: error:")) << r.err;
    EXPECT_TRUE(Contains(r.err, truncated)) << r.err;
  }
  // A footer length that runs past the file's start.
  std::string lying = bytes;
  lying[lying.size() - 5] = '\x7f';
  RunResult past = RunSluice({"cat", TempFile(".parquet", lying)});
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_TRUE(Contains(past.err, "byte")) << past.err;
  // A page whose bytes are scrambled: an error, never a crash.
  std::string scrambled = bytes;
  for (size_t i = 8; i < 200 && i < scrambled.size(); i += 7) scrambled[i] ^= 0x5a;
  RunResult bad = RunSluice({"cat", TempFile(".parquet", scrambled)});
  EXPECT_TRUE(bad.exit_code == 2 || bad.exit_code == 0) << bad.err;
  EXPECT_NE(bad.exit_code, 0) << "scrambled pages read without an error: " << bad.out;
}

// A Parquet column whose type the schema reads only with loss (a timestamp for a date, a
// decimal of a larger scale) has every value rescued as type_mismatch, as Spark's Parquet
// reader refuses the column; a file of the schema's own types in the same run is not touched,
// and widening reads (decimal(9,2) as decimal(12,3), int as bigint) keep their values.
TEST(ParquetCliTest, ColumnsReadOnlyWithLossAreRescued) {
  const std::string dir = Folder("lossy");
  auto write = [&](const std::string& name, const std::string& ddl, const std::string& rows) {
    const std::string path = dir + "/" + name;
    EXPECT_EQ(RunSluice({"validate", TempFile(".jsonl", rows), "--schema", TempFile(".ddl", ddl),
                         "-o", path, "--rescued-column", "", "-q"})
                  .exit_code,
              0);
    return path;
  };
  const std::string wide = write("wide.parquet", "id INT, d TIMESTAMP, amt DECIMAL(12,3)",
                                 "{\"id\":1,\"d\":\"2026-01-02T03:04:05Z\",\"amt\":2.555}\n"
                                 "{\"id\":2,\"d\":null,\"amt\":null}\n");
  const std::string own = write("own.parquet", "id INT, d DATE, amt DECIMAL(9,2)",
                                "{\"id\":3,\"d\":\"2026-01-03\",\"amt\":1.50}\n");
  const std::string schema = TempFile(".ddl", "id BIGINT, d DATE, amt DECIMAL(9,2)");
  const std::string report = dir + "/report.json";
  RunResult r = RunSluice({"validate", wide, own, "--schema", schema, "--report", report});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(Contains(r.out,
                       "{\"id\":1,\"d\":null,\"amt\":null,\"_rescued_data\":\"{\\\"d\\\":"
                       "\\\"2026-01-02T03:04:05Z\\\",\\\"amt\\\":2.555,"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "{\"id\":2,\"d\":null,\"amt\":null,\"_rescued_data\":null}"))
      << r.out;
  EXPECT_TRUE(Contains(r.out,
                       "{\"id\":3,\"d\":\"2026-01-03\",\"amt\":1.50,"
                       "\"_rescued_data\":null}"))
      << r.out;
  std::ifstream in(report);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto parsed = ParseJson(text);
  ASSERT_TRUE(parsed.has_value()) << text;
  std::vector<std::string> mismatched;
  for (const JsonValue& v : parsed->Find("violations")->items()) {
    mismatched.push_back(v.Find("path")->as_string() + ":" + v.Find("kind")->as_string());
  }
  EXPECT_EQ(mismatched, (std::vector<std::string>{"amt:type_mismatch", "d:type_mismatch"}));
  // The other way round every read widens: nothing is rescued.
  RunResult widening =
      RunSluice({"validate", own, "--schema",
                 TempFile(".ddl", "id BIGINT, d TIMESTAMP, amt DECIMAL(12,3)"), "-o", "/dev/null"});
  EXPECT_EQ(widening.exit_code, 0) << widening.err;
}

// Every command that reads a Parquet file's schema says the same of a broken one, with the
// byte offset in the file: `schema show`, `schema fingerprint` and `diff` (which read only the
// footer) as `cat` and `validate` (which open the whole file).
TEST(ParquetCliTest, SchemaCommandsNameTheSameFaultAsTheReaders) {
  const std::string dir = Folder("schema-faults");
  const std::string good = dir + "/good.parquet";
  ASSERT_EQ(RunSluice({"validate", TempFile(".jsonl", "{\"a\":1}\n"), "--schema",
                       TempFile(".ddl", "a INT"), "-o", good, "-q"})
                .exit_code,
            0);
  std::ifstream in(good, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint32_t footer_length = 0;
  std::memcpy(&footer_length, bytes.data() + bytes.size() - 8, 4);
  const size_t footer = bytes.size() - 8 - footer_length;
  std::string garbled = bytes;
  for (size_t i = footer; i < bytes.size() - 8; ++i) garbled[i] = '\xff';
  std::string encrypted = bytes;
  encrypted.replace(encrypted.size() - 4, 4, "PARE");
  struct Case {
    std::string file;
    std::string says;
  };
  const std::vector<Case> cases = {
      {TempFile(".parquet", garbled), "footer at byte " + std::to_string(footer)},
      {TempFile(".parquet", encrypted),
       "byte " + std::to_string(bytes.size() - 4) + ": an encrypted Parquet file"},
      {TempFile(".parquet", ""), "not a Parquet file: 0 bytes"},
  };
  for (const Case& c : cases) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"schema", "show", c.file},
          std::vector<std::string>{"schema", "fingerprint", c.file},
          std::vector<std::string>{"diff", good, c.file},
          std::vector<std::string>{"cat", c.file}}) {
      RunResult r = RunSluice(args);
      EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[1] << ": " << r.err;
      EXPECT_TRUE(Contains(r.err, c.file + ": ") && Contains(r.err, c.says))
          << args[0] << " " << args[1] << ": " << r.err;
    }
  }
}

}  // namespace
}  // namespace sluice::e2e
