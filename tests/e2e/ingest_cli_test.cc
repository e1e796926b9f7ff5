// End-to-end: `sluice ingest` as a user runs it. Paths given with trailing slashes, limits out of
// range, and a Parquet landing whose files disagree on a column's type, which ingest merges as
// Auto Loader does while `sluice infer` keeps Spark's mergeSchema.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "e2e/run.h"
#include "e2e/table_testing.h"

namespace sluice::e2e {
namespace {

TEST(IngestCliTest, NegativeLimitsAreUsageErrors) {
  const std::string dir = FreshFolder("ingest_limits");
  std::filesystem::create_directories(dir + "/landing");
  WriteText(dir + "/landing", "a.json", "{\"id\":1}\n");
  const std::vector<std::string> base = {"ingest",   dir + "/landing", "--to",
                                         dir + "/t", "--checkpoint",   dir + "/ck"};
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"--max-files-per-batch", "-1"},   {"--max-files-per-batch", "0"},
      {"--max-bytes-per-batch", "-1"},   {"--min-file-age", "-1"},
      {"--min-file-age", "nan"},         {"--interval", "-0.5"},
      {"--max-messages-per-batch", "-1"}};
  for (const auto& [flag, value] : refused) {
    std::vector<std::string> args = base;
    args.push_back(flag);
    args.push_back(value);
    RunResult r = RunSluice(args);
    EXPECT_EQ(r.exit_code, 2) << flag << " " << value << ": " << r.out << r.err;
    EXPECT_TRUE(Contains(r.err, flag)) << r.err;
    EXPECT_FALSE(Contains(r.out, "batch 0")) << flag << " " << value << ": " << r.out;
  }
  // 0 bytes is the default, no limit; 0 seconds is no wait.
  std::vector<std::string> args = base;
  for (const char* a : {"--max-bytes-per-batch", "0", "--min-file-age", "0", "-q"}) {
    args.push_back(a);
  }
  RunResult ok = RunSluice(args);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(IngestCliTest, TrailingSlashesNameTheSameTableAndCheckpoint) {
  const std::string dir = FreshFolder("ingest_slashes");
  std::filesystem::create_directories(dir + "/landing");
  WriteText(dir + "/landing", "a.json", "{\"id\":1}\n");
  // The table inside the folder, named with a trailing slash, is not read as input (its data
  // file was, in a batch 1). A checkpoint named so inside the folder is the unit tests' case:
  // there the run never ended.
  RunResult first =
      RunSluice({"ingest", dir + "/landing", "--to", dir + "/landing/t/", "--checkpoint",
                 dir + "/ck/", "--report", dir + "/landing/rep.jsonl"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out,
            "batch 0: 1 file, 1 records in, 1 written (0 rescued), 0 quarantined, table version "
            "0\n");
  WriteText(dir + "/landing", "b.json", "{\"id\":2}\n");
  RunResult second =
      RunSluice({"ingest", dir + "/landing/", "--to", dir + "/landing/t", "--checkpoint",
                 dir + "/./ck", "--report", dir + "/landing/rep.jsonl"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(Contains(second.out, "batch 1: 1 file,")) << second.out;
  RunResult third =
      RunSluice({"ingest", dir + "/landing", "--to", dir + "/landing/t/", "--checkpoint",
                 dir + "/ck", "--report", dir + "/landing/rep.jsonl"});
  EXPECT_EQ(third.exit_code, 0) << third.err;
  EXPECT_TRUE(Contains(third.err, "nothing new")) << third.err;
}

TEST(IngestCliTest, ParquetFilesOfOtherTypesIngestAsTheWidestButInferRefusesThem) {
  const std::string dir = FreshFolder("ingest_parquet_types");
  std::filesystem::create_directories(dir + "/landing");
  auto write = [&](const std::string& name, const std::string& ddl, const std::string& rows) {
    RunResult r = RunSluice({"validate", WriteText(dir, name + ".jsonl", rows), "--schema",
                             WriteText(dir, name + ".ddl", ddl), "-o",
                             dir + "/landing/" + name + ".parquet", "--rescued-column", "", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  };
  write("a", "id INT", "{\"id\":1}\n");
  write("b", "id BIGINT", "{\"id\":5000000000}\n");
  RunResult infer = RunSluice({"infer", dir + "/landing/a.parquet", dir + "/landing/b.parquet"});
  EXPECT_EQ(infer.exit_code, 2);
  EXPECT_TRUE(Contains(infer.err, "cannot merge the types")) << infer.err;
  RunResult ingest = RunSluice(
      {"ingest", dir + "/landing", "--to", dir + "/t", "--checkpoint", dir + "/ck", "-q"});
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  EXPECT_TRUE(Contains(ReadText(dir + "/ck/_schemas/0"), "{\"name\":\"id\",\"type\":\"long\""));
  RunResult hinted = RunSluice({"ingest", dir + "/landing", "--to", dir + "/t2", "--checkpoint",
                                dir + "/ck2", "--schema-hints", "id DECIMAL(20,0)", "-q"});
  ASSERT_EQ(hinted.exit_code, 0) << hinted.err;
  EXPECT_TRUE(Contains(ReadText(dir + "/ck2/_schemas/0"), "\"type\":\"decimal(20,0)\""));
}

}  // namespace
}  // namespace sluice::e2e
