#include "sluice/table/check.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "sluice/base/file_system.h"
#include "sluice/data/parquet_sink.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/table/actions.h"
#include "sluice/table/checkpoint.h"
#include "sluice/table/log_path.h"
#include "sluice_test_paths.h"

namespace sluice::table {
namespace {

constexpr std::string_view kSchema =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},)"
    R"({"name":"p","type":"string","nullable":true,"metadata":{}}]})";

// A Parquet file of `rows` rows of `id` at `path`; its size.
int64_t WriteDataFile(MemoryFileSystem& fs, const std::string& path, int rows) {
  auto schema = dialects::spark::ReadDdl("id BIGINT");
  EXPECT_TRUE(schema.has_value());
  auto plan = data::ParquetRecordPlan::Compile(schema->value);
  EXPECT_TRUE(plan.has_value());
  auto file = fs.OpenWritable(path);
  EXPECT_TRUE(file.has_value());
  auto sink = data::ParquetRecordSink::Open(*plan, std::move(*file));
  EXPECT_TRUE(sink.has_value());
  for (int i = 0; i < rows; ++i) {
    EXPECT_TRUE((*sink)->Append("{\"id\":" + std::to_string(i) + "}"));
  }
  EXPECT_TRUE((*sink)->Close());
  auto info = fs.Stat(path);
  EXPECT_TRUE(info.has_value());
  return info.has_value() ? static_cast<int64_t>(info->size) : 0;
}

Metadata TestMetadata(std::vector<std::string> partitions = {}) {
  Metadata m;
  m.id = "t1";
  m.schema_string = std::string(kSchema);
  m.partition_columns = std::move(partitions);
  return m;
}

// An add for a data file written at `t/<path>` with `rows` rows.
AddFile Add(MemoryFileSystem& fs, const std::string& path, int rows, PartitionValues values = {}) {
  AddFile a;
  a.path = path;
  a.size = WriteDataFile(fs, "t/" + path, rows);
  a.modification_time = 1;
  a.partition_values = std::move(values);
  a.stats = "{\"numRecords\":" + std::to_string(rows) + "}";
  return a;
}

CommitInfo Info() { return CommitInfo{*ParseJson(R"({"timestamp":1,"operation":"WRITE"})")}; }

void Put(MemoryFileSystem& fs, int64_t version, const std::vector<Action>& actions) {
  ASSERT_TRUE(fs.WriteFile(LogFilePath("t", CommitFileName(version)), CommitText(actions)));
}

void PutText(MemoryFileSystem& fs, int64_t version, std::string_view text) {
  ASSERT_TRUE(fs.WriteFile(LogFilePath("t", CommitFileName(version)), text));
}

// A clean table: three commits, three files, 6 rows.
void CleanTable(MemoryFileSystem& fs) {
  Put(fs, 0, {Info(), Protocol{}, TestMetadata(), Add(fs, "a.parquet", 1)});
  Put(fs, 1, {Info(), Add(fs, "b.parquet", 2)});
  Put(fs, 2, {Info(), Add(fs, "c.parquet", 3)});
}

TableCheckReport Check(MemoryFileSystem& fs) {
  auto r = CheckTable(fs, "t");
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() ? *r : TableCheckReport{};
}

std::string Describe(const TableCheckReport& r) {
  std::string out;
  for (const TableFinding& f : r.findings) {
    out += f.rule + " " + f.file + ": " + f.message + "\n";
  }
  return out;
}

// The one finding the report must hold (a copy: callers pass reports that are temporaries).
TableFinding Only(const TableCheckReport& r, std::string_view rule) {
  static const TableFinding none;
  EXPECT_EQ(r.findings.size(), 1u) << Describe(r);
  for (const TableFinding& f : r.findings) {
    if (f.rule == rule) return f;
  }
  ADD_FAILURE() << "no " << rule << " finding in:\n" << Describe(r);
  return none;
}

bool Has(const TableCheckReport& r, std::string_view rule) {
  return std::any_of(r.findings.begin(), r.findings.end(),
                     [&](const TableFinding& f) { return f.rule == rule; });
}

TEST(CheckTable, ACleanTableHasNoFindingsAndCountsItsRows) {
  MemoryFileSystem fs;
  CleanTable(fs);
  TableCheckReport r = Check(fs);
  EXPECT_TRUE(r.clean()) << Describe(r);
  EXPECT_EQ(r.version, 2);
  EXPECT_EQ(r.commits_checked, 3);
  EXPECT_EQ(r.live_files, 3);
  EXPECT_EQ(r.files_checked, 3);
  EXPECT_EQ(r.rows, 6);
}

TEST(CheckTable, AMissingVersionIsFound) {
  MemoryFileSystem fs;
  CleanTable(fs);
  ASSERT_TRUE(fs.RemoveFile(LogFilePath("t", CommitFileName(1))));
  TableCheckReport r = Check(fs);
  ASSERT_FALSE(r.findings.empty());
  const TableFinding& f = r.findings.front();
  EXPECT_EQ(f.rule, "missing_version");
  EXPECT_EQ(f.version, 1);
  EXPECT_NE(f.message.find("version 1 is missing"), std::string::npos) << f.message;
  // The table cannot be replayed; the finding says why, nothing else piles up.
  EXPECT_EQ(r.Count(FindingSeverity::kError), 1) << Describe(r);
  EXPECT_FALSE(r.notes.empty());
}

TEST(CheckTable, CommitsMissingUpToTheNewestCheckpointAreFound) {
  MemoryFileSystem fs;
  CleanTable(fs);
  Put(fs, 3, {Info(), Add(fs, "d.parquet", 1)});
  Put(fs, 4, {Info(), Add(fs, "e.parquet", 1)});
  ASSERT_TRUE(WriteCheckpointAt(fs, "t", 4));
  ASSERT_TRUE(fs.RemoveFile(LogFilePath("t", CommitFileName(3))));
  ASSERT_TRUE(fs.RemoveFile(LogFilePath("t", CommitFileName(4))));
  TableCheckReport r = Check(fs);
  const TableFinding& f = Only(r, "missing_version");
  EXPECT_EQ(f.version, 3);
  EXPECT_NE(f.message.find("versions 3 to 4 are missing"), std::string::npos) << f.message;
  // Readers start at the checkpoint, so the files are still checked.
  EXPECT_EQ(r.checkpoint_version, 4);
  EXPECT_EQ(r.files_checked, 5);
}

TEST(CheckTable, ACleanedUpLogStartsFromItsCheckpoint) {
  MemoryFileSystem fs;
  Put(fs, 0, {Info(), Protocol{}, TestMetadata({"p"}), Add(fs, "p=x/a.parquet", 1, {{"p", "x"}})});
  Put(fs, 1, {Info(), Add(fs, "p=y/b.parquet", 2, {{"p", "y"}})});
  ASSERT_TRUE(WriteCheckpointAt(fs, "t", 1));
  ASSERT_TRUE(fs.RemoveFile(LogFilePath("t", CommitFileName(0))));
  // The partition columns of the commits after the cleanup come from the checkpoint.
  Put(fs, 2, {Info(), Add(fs, "c.parquet", 3)});
  TableCheckReport r = Check(fs);
  const TableFinding& f = Only(r, "partition_values");
  EXPECT_EQ(f.version, 2);
  EXPECT_EQ(r.checkpoint_version, 1);
  EXPECT_EQ(r.rows, 6);
}

TEST(CheckTable, VersionsMissingAtTheStartWithoutACheckpointAreFound) {
  MemoryFileSystem fs;
  CleanTable(fs);
  ASSERT_TRUE(fs.RemoveFile(LogFilePath("t", CommitFileName(0))));
  TableCheckReport r = Check(fs);
  ASSERT_TRUE(Has(r, "missing_version")) << Describe(r);
  EXPECT_NE(r.findings.front().message.find("no checkpoint stands for them"), std::string::npos);
}

TEST(CheckTable, ATornLastCommitIsFound) {
  MemoryFileSystem fs;
  CleanTable(fs);
  auto text = fs.ReadFile(LogFilePath("t", CommitFileName(2)));
  ASSERT_TRUE(text.has_value());
  PutText(fs, 2, text->substr(0, text->size() - 20));  // cut inside the last line
  TableCheckReport r = Check(fs);
  const TableFinding& f = r.findings.front();
  EXPECT_EQ(f.rule, "bad_json") << Describe(r);
  EXPECT_EQ(f.version, 2);
  EXPECT_EQ(f.file, "_delta_log/00000000000000000002.json");
  EXPECT_NE(f.message.find("torn"), std::string::npos) << f.message;
}

TEST(CheckTable, AWrongSizeIsFound) {
  MemoryFileSystem fs;
  AddFile a = Add(fs, "a.parquet", 4);
  a.size += 1;
  Put(fs, 0, {Info(), Protocol{}, TestMetadata(), a});
  TableCheckReport r = Check(fs);
  const TableFinding& f = Only(r, "size_mismatch");
  EXPECT_EQ(f.file, "a.parquet");
  EXPECT_NE(f.message.find(std::to_string(a.size)), std::string::npos) << f.message;
}

TEST(CheckTable, AMissingFileIsFound) {
  MemoryFileSystem fs;
  CleanTable(fs);
  ASSERT_TRUE(fs.RemoveFile("t/b.parquet"));
  TableCheckReport r = Check(fs);
  EXPECT_EQ(Only(r, "missing_file").file, "b.parquet");
  EXPECT_FALSE(r.rows);  // not every file was read
}

TEST(CheckTable, AWrongNumRecordsIsFound) {
  MemoryFileSystem fs;
  AddFile a = Add(fs, "a.parquet", 4);
  a.stats = R"({"numRecords":5})";
  Put(fs, 0, {Info(), Protocol{}, TestMetadata(), a});
  TableCheckReport r = Check(fs);
  const TableFinding& f = Only(r, "row_count");
  EXPECT_NE(f.message.find("says 5 rows, the file's footer 4"), std::string::npos) << f.message;
}

TEST(CheckTable, ANonParquetFileIsFound) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("t/x.parquet", "not parquet at all"));
  AddFile a;
  a.path = "x.parquet";
  a.size = 18;
  a.modification_time = 1;
  Put(fs, 0, {Info(), Protocol{}, TestMetadata(), a});
  EXPECT_EQ(Only(Check(fs), "read_failed").file, "x.parquet");
}

TEST(CheckTable, ADuplicateMetadataIsFound) {
  MemoryFileSystem fs;
  CleanTable(fs);
  Put(fs, 3, {Info(), TestMetadata(), TestMetadata()});
  const TableFinding& f = Only(Check(fs), "duplicate_metadata");
  EXPECT_EQ(f.version, 3);
}

TEST(CheckTable, TwoActionsOnALineAndUnknownActionsAreFound) {
  MemoryFileSystem fs;
  CleanTable(fs);
  PutText(fs, 3,
          "{\"txn\":{\"appId\":\"a\",\"version\":1},\"commitInfo\":{}}\n"
          "{\"somethingNew\":{}}\n");
  TableCheckReport r = Check(fs);
  ASSERT_EQ(r.findings.size(), 2u) << Describe(r);
  EXPECT_EQ(r.findings[0].rule, "not_one_action");
  EXPECT_NE(r.findings[0].message.find("line 1 holds 2 actions"), std::string::npos);
  EXPECT_EQ(r.findings[1].rule, "unknown_action");
  EXPECT_EQ(r.findings[1].severity, FindingSeverity::kWarning);
}

TEST(CheckTable, AnAddWithoutRequiredFieldsOrWithBadStatsIsFound) {
  MemoryFileSystem fs;
  CleanTable(fs);
  PutText(fs, 3,
          "{\"add\":{\"path\":\"c.parquet\",\"partitionValues\":{},\"size\":1}}\n"
          "{\"add\":{\"path\":\"d.parquet\",\"partitionValues\":{},\"size\":1,"
          "\"modificationTime\":1,\"dataChange\":true,\"stats\":\"{nope\"}}\n");
  TableCheckReport r = Check(fs);
  EXPECT_TRUE(Has(r, "add")) << Describe(r);
  EXPECT_TRUE(Has(r, "stats")) << Describe(r);
  EXPECT_EQ(r.findings[0].message, "line 1: add c.parquet lacks modificationTime");
}

TEST(CheckTable, AMetadataWithoutItsRequiredFieldsIsFound) {
  MemoryFileSystem fs;
  CleanTable(fs);
  PutText(fs, 3,
          R"({"metaData":{"id":"t1","schemaString":"{\"type\":\"struct\",\"fields\":[]}",)"
          R"("partitionColumns":[]}})"
          "\n");
  TableCheckReport r = Check(fs);
  ASSERT_EQ(r.findings.size(), 2u) << Describe(r);
  EXPECT_EQ(r.findings[0].rule, "metadata");
  EXPECT_EQ(r.findings[0].message, "line 1: metaData t1 lacks format");
  EXPECT_EQ(r.findings[1].message, "line 1: metaData t1 lacks configuration");
}

TEST(CheckTable, AnAddedPathTwiceInACommitIsFound) {
  MemoryFileSystem fs;
  AddFile a = Add(fs, "a.parquet", 1);
  Put(fs, 0, {Info(), Protocol{}, TestMetadata(), a, a});
  EXPECT_EQ(Only(Check(fs), "duplicate_add").version, 0);
}

TEST(CheckTable, PartitionValuesMustHoldExactlyThePartitionColumns) {
  MemoryFileSystem fs;
  Put(fs, 0,
      {Info(), Protocol{}, TestMetadata({"p"}), Add(fs, "p=x/a.parquet", 1, {{"p", "x"}}),
       Add(fs, "b.parquet", 1), Add(fs, "p=y/c.parquet", 1, {{"p", "y"}, {"q", "z"}})});
  TableCheckReport r = Check(fs);
  ASSERT_EQ(r.findings.size(), 2u) << Describe(r);
  EXPECT_EQ(r.findings[0].rule, "partition_values");
  EXPECT_NE(r.findings[0].message.find("b.parquet: partitionValues lacks the partition column p"),
            std::string::npos)
      << r.findings[0].message;
  EXPECT_NE(r.findings[1].message.find("holds q, not a partition column"), std::string::npos)
      << r.findings[1].message;
}

TEST(CheckTable, AFirstCommitWithoutMetadataIsFound) {
  MemoryFileSystem fs;
  Put(fs, 0, {Info(), Protocol{}});
  TableCheckReport r = Check(fs);
  EXPECT_EQ(r.findings.front().rule, "first_commit_incomplete") << Describe(r);
  EXPECT_EQ(r.Count(FindingSeverity::kError), 1) << Describe(r);  // replay says nothing more
}

TEST(CheckTable, ProtocolRulesAreChecked) {
  MemoryFileSystem fs;
  Protocol p{.min_reader_version = 1,
             .min_writer_version = 7,
             .reader_features = std::vector<std::string>{"columnMapping"},
             .writer_features = std::vector<std::string>{"appendOnly"}};
  Put(fs, 0, {Info(), p, TestMetadata()});
  TableCheckReport r = Check(fs);
  std::vector<std::string> messages;
  for (const TableFinding& f : r.findings) {
    if (f.rule == "protocol") messages.push_back(f.message);
  }
  EXPECT_EQ(messages,
            (std::vector<std::string>{"readerFeatures with minReaderVersion 1 (only 3 lists them)",
                                      "reader feature columnMapping is not also a writer feature"}))
      << Describe(r);
}

TEST(CheckTable, AFeatureSluiceCannotReadIsAWarning) {
  MemoryFileSystem fs;
  Protocol p{.min_reader_version = 3,
             .min_writer_version = 7,
             .reader_features = std::vector<std::string>{"someFutureFeature"},
             .writer_features = std::vector<std::string>{"someFutureFeature"}};
  Put(fs, 0, {Info(), p, TestMetadata()});
  const TableFinding& f = Only(Check(fs), "unsupported_feature");
  EXPECT_EQ(f.severity, FindingSeverity::kWarning);
  EXPECT_NE(f.message.find("someFutureFeature"), std::string::npos) << f.message;
}

TEST(CheckTable, UsingAFeatureTheProtocolLacksIsFound) {
  MemoryFileSystem fs;
  Metadata m = TestMetadata();
  m.configuration["delta.constraints.positive"] = "id > 0";
  Put(fs, 0, {Info(), Protocol{}, m});
  const TableFinding& f = Only(Check(fs), "feature_missing");
  EXPECT_NE(f.message.find("checkConstraints"), std::string::npos) << f.message;
}

TEST(CheckTable, ALastCheckpointNamingAMissingCheckpointWarns) {
  MemoryFileSystem fs;
  CleanTable(fs);
  ASSERT_TRUE(fs.WriteFile(LogFilePath("t", kLastCheckpoint), R"({"version":2,"size":4})"));
  TableCheckReport r = Check(fs);
  const TableFinding& f = Only(r, "missing_checkpoint");
  EXPECT_EQ(f.severity, FindingSeverity::kWarning);
  EXPECT_EQ(f.version, 2);
  EXPECT_EQ(r.files_checked, 3);  // not fatal: the rest is checked
}

TEST(CheckTable, PathsAreUriDecodedOnce) {
  MemoryFileSystem fs;
  AddFile a = Add(fs, "p=a b%3A1/x.parquet", 2, {{"p", "a b:1"}});
  a.path = "p=a%20b%253A1/x.parquet";
  AddFile bad = Add(fs, "y.parquet", 1, {{"p", "z"}});
  bad.path = "y%zz.parquet";
  Put(fs, 0, {Info(), Protocol{}, TestMetadata({"p"}), a});
  TableCheckReport r = Check(fs);
  EXPECT_TRUE(r.clean()) << Describe(r);
  EXPECT_EQ(r.files_checked, 1);
  Put(fs, 1, {Info(), bad});
  const TableFinding& f = Only(Check(fs), "add");
  EXPECT_NE(f.message.find("not URI-encoded"), std::string::npos) << f.message;
}

TEST(CheckTable, CharactersAUriMustEncodeMakeAnAddPathAnError) {
  // Edited by hand: the file is there under the decoded name, but a reader parsing the path as
  // a URI fails on the space, and reads '#' as the start of a fragment.
  for (std::string_view path :
       {"a b/x.parquet", "x#y/x.parquet", "q?r/x.parquet", "t\tu.parquet"}) {
    MemoryFileSystem fs;
    AddFile a = Add(fs, std::string(path), 1);
    Put(fs, 0, {Info(), Protocol{}, TestMetadata(), a});
    TableCheckReport r = Check(fs);
    const TableFinding& f = Only(r, "add");
    EXPECT_NE(f.message.find("not URI-encoded"), std::string::npos) << path << ": " << f.message;
    EXPECT_NE(f.message.find(fmt::format("offset {}", path.find_first_of(" #?\t"))),
              std::string::npos)
        << f.message;
    EXPECT_EQ(r.findings.size(), 1u) << Describe(r);
  }
  // Characters java.net.URI takes in a path stay fine, encoded ones too.
  MemoryFileSystem fs;
  AddFile ok = Add(fs, "p=a:b@c;d&e+f$g,h=i/é(1)!~*'.parquet", 1);
  AddFile encoded = Add(fs, "a b#c/x.parquet", 1);
  encoded.path = "a%20b%23c/x.parquet";
  Put(fs, 0, {Info(), Protocol{}, TestMetadata(), ok, encoded});
  TableCheckReport r = Check(fs);
  EXPECT_TRUE(r.clean()) << Describe(r);
  EXPECT_EQ(r.files_checked, 2);
}

TEST(CheckTable, NoTableIsAnError) {
  MemoryFileSystem fs;
  auto r = CheckTable(fs, "nothing");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kNotFound);
}

// The Delta golden tables, read where the shared conformance data is.
std::string GoldenDir() { return std::string(SLUICE_SHARED_DIR) + "/conformance/delta-golden"; }

TEST(CheckTableGolden, EveryGoldenTableChecksCleanButTheSyntheticCheckpointTable) {
  if (!std::filesystem::exists(GoldenDir())) GTEST_SKIP() << "no golden tables";
  int tables = 0;
  for (const auto& entry : std::filesystem::directory_iterator(GoldenDir())) {
    if (!entry.is_directory()) continue;
    ++tables;
    const std::string name = entry.path().filename().string();
    auto r = CheckTable(*LocalFileSystem(), entry.path().string());
    ASSERT_TRUE(r.has_value()) << name << ": " << r.error().ToString();
    if (name == "checkpoint") {
      // Its commits add and remove made-up files named "1" to "15" (log replay only), so the
      // one live file at version 14, "15", is not there: the finding is right.
      ASSERT_EQ(r->findings.size(), 1u) << Describe(*r);
      EXPECT_EQ(r->findings[0].rule, "missing_file");
      EXPECT_EQ(r->findings[0].file, "15");
      EXPECT_EQ(r->checkpoint_version, 10);
      EXPECT_EQ(r->commits_checked, 15);
      continue;
    }
    EXPECT_TRUE(r->clean()) << name << ":\n" << Describe(*r);
    EXPECT_EQ(r->files_checked, r->live_files) << name;
    EXPECT_TRUE(r->rows) << name;
  }
  EXPECT_EQ(tables, 10);
}

}  // namespace
}  // namespace sluice::table
