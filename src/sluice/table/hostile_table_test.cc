// Hostile tables: a missing version, a torn last commit, a checkpoint pointing nowhere or
// holding garbage, features sluice does not know, huge and deeply nested logs. Each is a clear
// error (or a fallback Delta also takes), and a write attempted on a broken table changes
// nothing.
#include <gtest/gtest.h>

#include <chrono>

#include "sluice/base/file_system.h"
#include "sluice/table/checkpoint.h"
#include "sluice/table/snapshot.h"
#include "sluice/table/transaction.h"
#include "sluice/table/write.h"

namespace sluice::table {
namespace {

constexpr std::string_view kSchema =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";

Metadata TestMetadata() {
  Metadata m;
  m.id = "hostile";
  m.schema_string = std::string(kSchema);
  return m;
}

AddFile Add(std::string path) {
  AddFile a;
  a.path = std::move(path);
  a.size = 1;
  a.stats = R"({"numRecords":1})";
  return a;
}

void Put(MemoryFileSystem& fs, int64_t version, std::string_view text) {
  ASSERT_TRUE(fs.WriteFile(LogFilePath("t", CommitFileName(version)), text));
}

std::vector<std::string> LogFiles(FileSystem& fs) {
  auto names = fs.ListDir("t/_delta_log");
  return names.has_value() ? *names : std::vector<std::string>{};
}

// A write on a broken table fails, and leaves the log as it was.
void ExpectWriteChangesNothing(const std::shared_ptr<MemoryFileSystem>& fs,
                               std::string_view needle) {
  ASSERT_TRUE(fs->WriteFile("in.jsonl", "{\"id\": 1}\n"));
  std::vector<std::string> before = LogFiles(*fs);
  class Discard : public ByteSink {
   public:
    Status Write(std::string_view) override { return Ok(); }
  } quarantine;
  TableWriteOptions options;
  options.threads = 1;
  auto written = WriteTable(fs, "t", {"in.jsonl"}, options, quarantine);
  ASSERT_FALSE(written.has_value());
  EXPECT_NE(written.error().message().find(needle), std::string::npos) << written.error().message();
  EXPECT_EQ(LogFiles(*fs), before);
}

std::string Base() { return CommitText({Protocol{}, TestMetadata(), Add("a")}); }

TEST(HostileTable, AMissingVersionIsNamedAndNothingIsWritten) {
  auto fs = std::make_shared<MemoryFileSystem>();
  Put(*fs, 0, Base());
  Put(*fs, 1, CommitText({Add("b")}));
  Put(*fs, 3, CommitText({Add("d")}));
  auto s = LoadSnapshot(*fs, "t");
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().message().find("00000000000000000002.json"), std::string::npos);
  EXPECT_NE(s.error().message().find("contiguous"), std::string::npos);
  ExpectWriteChangesNothing(fs, "00000000000000000002.json");
}

TEST(HostileTable, ATornLastCommitIsNamedAndNothingIsWritten) {
  auto fs = std::make_shared<MemoryFileSystem>();
  Put(*fs, 0, Base());
  std::string torn = CommitText({Add("b"), Add("c")});
  torn.resize(torn.size() - 20);
  Put(*fs, 1, torn);
  auto s = LoadSnapshot(*fs, "t");
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().message().find("00000000000000000001.json: line 2"), std::string::npos)
      << s.error().message();
  ExpectWriteChangesNothing(fs, "00000000000000000001.json: line 2");
}

TEST(HostileTable, ACheckpointPointingNowhereFallsBackToTheCommits) {
  auto fs = std::make_shared<MemoryFileSystem>();
  Put(*fs, 0, Base());
  Put(*fs, 1, CommitText({Add("b")}));
  ASSERT_TRUE(fs->WriteFile(LogFilePath("t", kLastCheckpoint), R"({"version":20,"size":3})"));
  auto s = LoadSnapshot(*fs, "t");
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  EXPECT_EQ(s->version, 1);
  EXPECT_EQ(s->files.size(), 2u);
}

TEST(HostileTable, AGarbageCheckpointFallsBackOrSaysWhyItCannot) {
  auto fs = std::make_shared<MemoryFileSystem>();
  Put(*fs, 0, Base());
  Put(*fs, 1, CommitText({Add("b")}));
  Put(*fs, 2, CommitText({Add("c")}));
  ASSERT_TRUE(fs->WriteFile(LogFilePath("t", CheckpointFileName(1)), "PAR1 not parquet PAR1"));
  auto s = LoadSnapshot(*fs, "t");
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  EXPECT_EQ(s->files.size(), 3u);
  EXPECT_EQ(s->checkpoint_version, -1);
  // With the commits before it cleaned up, nothing can stand in for it.
  ASSERT_TRUE(fs->RemoveFile(LogFilePath("t", CommitFileName(0))));
  auto cleaned = LoadSnapshot(*fs, "t");
  ASSERT_FALSE(cleaned.has_value());
  EXPECT_NE(cleaned.error().message().find("checkpoint"), std::string::npos)
      << cleaned.error().message();
  EXPECT_NE(cleaned.error().message().find("00000000000000000001.checkpoint.parquet"),
            std::string::npos)
      << cleaned.error().message();
}

TEST(HostileTable, UnknownFeaturesAreRefusedByName) {
  auto fs = std::make_shared<MemoryFileSystem>();
  Protocol p;
  p.min_reader_version = 1;
  p.min_writer_version = 7;
  p.writer_features = std::vector<std::string>{"appendOnly", "rowTracking"};
  Put(*fs, 0, CommitText({p, TestMetadata(), Add("a")}));
  // rowTracking is a writer feature: the table reads, and is not written.
  ASSERT_TRUE(LoadSnapshot(*fs, "t").has_value());
  ExpectWriteChangesNothing(fs, "'rowTracking'");

  auto fs2 = std::make_shared<MemoryFileSystem>();
  Protocol q;
  q.min_reader_version = 3;
  q.min_writer_version = 7;
  q.reader_features = std::vector<std::string>{"futureFeature"};
  q.writer_features = std::vector<std::string>{"futureFeature"};
  Put(*fs2, 0, CommitText({q, TestMetadata()}));
  auto s = LoadSnapshot(*fs2, "t");
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code(), ErrorCode::kUnimplemented);
  EXPECT_NE(s.error().message().find("'futureFeature'"), std::string::npos);
  ExpectWriteChangesNothing(fs2, "'futureFeature'");

  auto fs3 = std::make_shared<MemoryFileSystem>();
  Protocol r;
  r.min_reader_version = 4;
  r.min_writer_version = 8;
  Put(*fs3, 0, CommitText({r, TestMetadata()}));
  auto v4 = LoadSnapshot(*fs3, "t");
  ASSERT_FALSE(v4.has_value());
  EXPECT_NE(v4.error().message().find("reader version 4"), std::string::npos);
}

TEST(HostileTable, DeeplyNestedOrMalformedActionsAreErrors) {
  auto fs = std::make_shared<MemoryFileSystem>();
  Put(*fs, 0, Base());
  Put(*fs, 1, std::string(100000, '[') + "\n");
  auto deep = LoadSnapshot(*fs, "t");
  ASSERT_FALSE(deep.has_value());
  EXPECT_NE(deep.error().message().find("00000000000000000001.json: line 1"), std::string::npos);
  Put(*fs, 1,
      R"({"add":{"path":7}})"
      "\n");
  auto typed = LoadSnapshot(*fs, "t");
  ASSERT_FALSE(typed.has_value());
  EXPECT_NE(typed.error().message().find("add.path: expected a string"), std::string::npos)
      << typed.error().message();
  Put(*fs, 1,
      R"({"protocol":{"minReaderVersion":-1,"minWriterVersion":2}})"
      "\n");
  EXPECT_FALSE(LoadSnapshot(*fs, "t").has_value());
  Put(*fs, 1,
      R"({"metaData":{"id":"x","schemaString":"{not json"}})"
      "\n");
  auto schema = LoadSnapshot(*fs, "t");
  ASSERT_FALSE(schema.has_value());
  EXPECT_NE(schema.error().message().find("schemaString"), std::string::npos);
}

double CpuSecondsToLoad(int adds) {
  MemoryFileSystem fs;
  std::vector<Action> actions = {Protocol{}, TestMetadata()};
  for (int i = 0; i < adds; ++i) actions.push_back(Add("part-" + std::to_string(i)));
  EXPECT_TRUE(fs.WriteFile(LogFilePath("t", CommitFileName(0)), CommitText(actions)));
  auto start = std::clock();
  auto s = LoadSnapshot(fs, "t");
  double secs = double(std::clock() - start) / CLOCKS_PER_SEC;
  EXPECT_TRUE(s.has_value());
  EXPECT_EQ(s->files.size(), static_cast<size_t>(adds));
  return secs;
}

TEST(HostileTable, AHugeCommitLoadsInLinearTime) {
  double small = CpuSecondsToLoad(25'000);
  double large = CpuSecondsToLoad(100'000);
  // 4x the actions may cost at most ~8x (allocator and cache effects), never quadratic (16x).
  EXPECT_LT(large, std::max(0.05, small) * 8) << small << " s vs " << large << " s";
}

}  // namespace
}  // namespace sluice::table
