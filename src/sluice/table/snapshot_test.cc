#include "sluice/table/snapshot.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "sluice/base/file_system.h"
#include "sluice/table/checkpoint.h"
#include "sluice_test_paths.h"

namespace sluice::table {
namespace {

constexpr std::string_view kSchema =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";

Metadata TestMetadata() {
  Metadata m;
  m.id = "t1";
  m.schema_string = std::string(kSchema);
  m.created_time = 1;
  return m;
}

AddFile Add(std::string path, int64_t rows) {
  AddFile a;
  a.path = std::move(path);
  a.size = 10;
  a.modification_time = 1;
  a.stats = "{\"numRecords\":" + std::to_string(rows) + "}";
  return a;
}

RemoveFile Remove(std::string path) {
  RemoveFile r;
  r.path = std::move(path);
  r.deletion_timestamp = 2;
  return r;
}

void Put(MemoryFileSystem& fs, int64_t version, const std::vector<Action>& actions) {
  ASSERT_TRUE(fs.WriteFile(LogFilePath("t", CommitFileName(version)), CommitText(actions)));
}

std::vector<std::string> Paths(const Snapshot& s) {
  std::vector<std::string> out;
  for (const AddFile& f : s.files) out.push_back(f.path);
  return out;
}

TEST(Snapshot, ReplaysAddsRemovesTxnsAndTheLastMetadata) {
  MemoryFileSystem fs;
  Put(fs, 0, {CommitInfo{JsonValue::Object()}, Protocol{}, TestMetadata(), Add("a", 2)});
  Txn txn{"app", 3, std::nullopt};
  Put(fs, 1, {Add("b", 3), txn});
  Metadata renamed = TestMetadata();
  renamed.configuration["k"] = "v";
  Put(fs, 2, {Remove("a"), renamed, Add("c", 1), Txn{"app", 4, std::nullopt}});
  auto s = LoadSnapshot(fs, "t");
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  EXPECT_EQ(s->version, 2);
  EXPECT_EQ(Paths(*s), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(s->tombstones.size(), 1u);
  EXPECT_EQ(s->app_versions.at("app"), 4);
  EXPECT_EQ(s->Property("k"), "v");
  EXPECT_EQ(s->NumRecords(), 4);
  ASSERT_EQ(s->schema->fields().size(), 1u);

  auto v1 = LoadSnapshot(fs, "t", {.version = 1});
  ASSERT_TRUE(v1.has_value());
  EXPECT_EQ(Paths(*v1), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(v1->NumRecords(), 5);
  EXPECT_FALSE(v1->Property("k"));
}

TEST(Snapshot, ReAddingARemovedFileMakesItLiveAgain) {
  MemoryFileSystem fs;
  Put(fs, 0, {Protocol{}, TestMetadata(), Add("a", 1)});
  Put(fs, 1, {Remove("a")});
  Put(fs, 2, {Add("a", 1)});
  auto s = LoadSnapshot(fs, "t");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(Paths(*s), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(s->tombstones.empty());
}

TEST(Snapshot, IgnoresUnknownActionsAndFields) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile(
      LogFilePath("t", CommitFileName(0)),
      std::string(R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2,"future":1}})") + "\n" +
          ActionToJson(TestMetadata()) + "\n" + R"({"someFutureAction":{"x":1}})" + "\n"));
  auto s = LoadSnapshot(fs, "t");
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  EXPECT_EQ(s->version, 0);
}

TEST(Snapshot, NamesWhatIsWrongWithABrokenLog) {
  MemoryFileSystem fs;
  auto none = LoadSnapshot(fs, "t");
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(none.error().message().find("no Delta table at t"), std::string::npos);

  Put(fs, 0, {Protocol{}, TestMetadata()});
  Put(fs, 2, {Add("a", 1)});
  auto gap = LoadSnapshot(fs, "t");
  ASSERT_FALSE(gap.has_value());
  EXPECT_NE(gap.error().message().find("00000000000000000001.json"), std::string::npos)
      << gap.error().message();
  EXPECT_TRUE(LoadSnapshot(fs, "t", {.version = 0}).has_value());
  auto past = LoadSnapshot(fs, "t", {.version = 9});
  ASSERT_FALSE(past.has_value());
  EXPECT_EQ(past.error().code(), ErrorCode::kNotFound);

  ASSERT_TRUE(fs.WriteFile(LogFilePath("t", CommitFileName(1)), "{\"add\":{\"path\":\"x\",\"si"));
  auto torn = LoadSnapshot(fs, "t");
  ASSERT_FALSE(torn.has_value());
  EXPECT_NE(torn.error().message().find("00000000000000000001.json: line 1"), std::string::npos)
      << torn.error().message();
}

TEST(Snapshot, RefusesReaderFeaturesItDoesNotKnowAndNeedsProtocolAndMetadata) {
  MemoryFileSystem fs;
  Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"variantType"};
  p.writer_features = std::vector<std::string>{"variantType"};
  Put(fs, 0, {p, TestMetadata()});
  auto s = LoadSnapshot(fs, "t");
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code(), ErrorCode::kUnimplemented);
  EXPECT_NE(s.error().message().find("'variantType'"), std::string::npos);

  MemoryFileSystem fs2;
  Put(fs2, 0, {Protocol{}});
  auto no_meta = LoadSnapshot(fs2, "t");
  ASSERT_FALSE(no_meta.has_value());
  EXPECT_NE(no_meta.error().message().find("no metaData"), std::string::npos);
}

TEST(CanonicalFilePath, SpellingsOfOneFileMeet) {
  const std::string root = "/data/tbl";
  const std::string want = "/data/tbl/part 1@x.parquet";
  for (std::string_view spelling :
       {"part%201@x.parquet", "part%201%40x.parquet", "./part%201@x.parquet",
        "/data/tbl/part%201@x.parquet", "/data//tbl/./part%201@x.parquet",
        "/data/tbl/sub/../part%201@x.parquet", "file:/data/tbl/part%201@x.parquet",
        "file:///data/tbl/part%201@x.parquet", "FILE:///data/tbl/part%201@x.parquet",
        "file://localhost/data/tbl/part%201@x.parquet"}) {
    EXPECT_EQ(CanonicalFilePath(root, spelling), want) << spelling;
  }
  EXPECT_EQ(CanonicalFilePath("file:///data/tbl/", "a.parquet"), "/data/tbl/a.parquet");
  // The root is a folder's name, not a URI: its '%' is a character.
  EXPECT_EQ(CanonicalFilePath("/d/100%25", "a%25.parquet"), "/d/100%25/a%.parquet");
  // Decoded once only; other file systems and hosts are other files.
  EXPECT_EQ(CanonicalFilePath(root, "a%2520b"), "/data/tbl/a%20b");
  EXPECT_EQ(CanonicalFilePath(root, "s3://bucket/data/tbl/a"), "s3://bucket/data/tbl/a");
  EXPECT_EQ(CanonicalFilePath(root, "S3://bucket/x/../a%20b"), "s3://bucket/a b");
  EXPECT_EQ(CanonicalFilePath(root, "file://host/data/tbl/a"), "file://host/data/tbl/a");
  EXPECT_EQ(CanonicalFilePath(root, "bad%zz"), "/data/tbl/bad%zz");
  EXPECT_EQ(CanonicalFilePath("", "x/./y"), "x/y");  // no root: a relative path stays one
}

TEST(Snapshot, ARemoveCancelsTheAddOfTheSameFileHoweverItIsSpelled) {
  // Delta's golden tables canonicalized-paths-normal-a/b and -special-a/b, and their kin.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/some/unqualified/absolute/path", "file:/some/unqualified/absolute/path"},
      {"file:/some/unqualified/absolute/path", "/some/unqualified/absolute/path"},
      {"file:///some/unqualified/absolute/path", "/some/unqualified/absolute/path"},
      {"/some/unqualified/with%20space/p@%23h", "file:/some/unqualified/with%20space/p@%23h"},
      {"file:///some/unqualified/with%20space/p@%23h", "/some/unqualified/with%20space/p@%23h"},
      {"part-0.parquet", "file:///t/part-0.parquet"},
      {"file://localhost/t/part-0.parquet", "part-0.parquet"},
      {"y%3D1/part%200.parquet", "/t/y=1/part 0.parquet"},
  };
  for (const auto& [added, removed] : cases) {
    MemoryFileSystem fs;
    std::string commit0 = LogFilePath("/t", CommitFileName(0));
    std::string commit1 = LogFilePath("/t", CommitFileName(1));
    ASSERT_TRUE(fs.WriteFile(
        commit0, CommitText({Protocol{}, TestMetadata(), Add(added, 1), Add("other.parquet", 2)})));
    ASSERT_TRUE(fs.WriteFile(commit1, CommitText({Remove(removed)})));
    auto s = LoadSnapshot(fs, "/t");
    ASSERT_TRUE(s.has_value()) << s.error().ToString();
    EXPECT_EQ(Paths(*s), (std::vector<std::string>{"other.parquet"}))
        << added << " removed as " << removed;
    EXPECT_EQ(s->tombstones.size(), 1u);
  }
}

TEST(Snapshot, FilesOnOtherFileSystemsOrHostsAreOtherFiles) {
  MemoryFileSystem fs;
  Put(fs, 0, {Protocol{}, TestMetadata(), Add("/x/a", 1), Add("/x/b", 1)});
  Put(fs, 1, {Remove("s3://bucket/x/a"), Remove("file://elsewhere/x/b")});
  auto s = LoadSnapshot(fs, "t");
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  EXPECT_EQ(Paths(*s), (std::vector<std::string>{"/x/a", "/x/b"}));
}

// A commit whose commitInfo carries an in-commit timestamp, and whose file is dated `file_ms`.
void PutDated(MemoryFileSystem& fs, int64_t version, std::optional<int64_t> ict, int64_t file_ms,
              std::vector<Action> actions) {
  std::string info = ict ? R"({"timestamp":1,"inCommitTimestamp":)" + std::to_string(*ict) + "}"
                         : std::string(R"({"timestamp":1})");
  actions.insert(actions.begin(), CommitInfo{*ParseJson(info)});
  std::string path = LogFilePath("t", CommitFileName(version));
  ASSERT_TRUE(fs.WriteFile(path, CommitText(actions)));
  ASSERT_TRUE(fs.SetModifiedTime(path, file_ms));
}

Metadata WithIct(StringMap extra = {}) {
  Metadata m = TestMetadata();
  m.configuration["delta.enableInCommitTimestamps"] = "true";
  for (auto& [k, v] : extra) m.configuration[k] = v;
  return m;
}

TEST(SnapshotTime, TravelsByInCommitTimestampsNotTheFilesTimes) {
  // A copied table: its files are dated now, its commits say when they were made.
  constexpr int64_t kNow = 1750000000000;
  MemoryFileSystem fs;
  PutDated(fs, 0, 1000000000000, kNow, {Protocol{}, WithIct()});
  PutDated(fs, 1, 1100000000000, kNow, {Add("a", 1)});
  PutDated(fs, 2, 1200000000000, kNow - 5, {Add("b", 1)});

  auto at = [&](int64_t ms) { return LoadSnapshot(fs, "t", {.timestamp_ms = ms}); };
  auto v1 = at(1150000000000);
  ASSERT_TRUE(v1.has_value()) << v1.error().ToString();
  EXPECT_EQ(v1->version, 1);
  EXPECT_EQ(v1->timestamp_ms, 1100000000000);
  EXPECT_EQ(at(1000000000000)->version, 0);
  EXPECT_EQ(at(1300000000000)->version, 2);
  ASSERT_FALSE(at(999999999999).has_value());
  EXPECT_EQ(at(999999999999).error().code(), ErrorCode::kNotFound);

  auto latest = LoadSnapshot(fs, "t");
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->timestamp_ms, 1200000000000);
  auto times = CommitTimestamps(fs, "t", *ListLog(fs, "t"));
  ASSERT_TRUE(times.has_value());
  EXPECT_EQ(*times, (std::map<int64_t, int64_t>{
                        {0, 1000000000000}, {1, 1100000000000}, {2, 1200000000000}}));
}

TEST(SnapshotTime, VersionsBeforeTheEnablementKeepTheirFileTimes) {
  MemoryFileSystem fs;
  PutDated(fs, 0, std::nullopt, 1000, {Protocol{}, TestMetadata()});
  // A writer that logged an in-commit timestamp before the table enabled them: not its time.
  PutDated(fs, 1, 900, 2000, {Add("a", 1)});
  PutDated(fs, 2, 5000, 1500,
           {WithIct({{"delta.inCommitTimestampEnablementVersion", "2"},
                     {"delta.inCommitTimestampEnablementTimestamp", "5000"}})});
  PutDated(fs, 3, 6000, 1600, {Add("b", 1)});
  auto times = CommitTimestamps(fs, "t", *ListLog(fs, "t"));
  ASSERT_TRUE(times.has_value());
  EXPECT_EQ(*times, (std::map<int64_t, int64_t>{{0, 1000}, {1, 2000}, {2, 5000}, {3, 6000}}));
  EXPECT_EQ(LoadSnapshot(fs, "t", {.timestamp_ms = 2500})->version, 1);
  EXPECT_EQ(LoadSnapshot(fs, "t", {.timestamp_ms = 5999})->version, 2);
  EXPECT_EQ(LoadSnapshot(fs, "t", {.version = 1})->timestamp_ms, 2000);
  EXPECT_EQ(LoadSnapshot(fs, "t", {.version = 3})->timestamp_ms, 6000);
}

TEST(SnapshotTime, ATableWithoutInCommitTimestampsIsDatedByItsFiles) {
  MemoryFileSystem fs;
  PutDated(fs, 0, 5000, 1000, {Protocol{}, TestMetadata()});
  PutDated(fs, 1, 6000, 900, {Add("a", 1)});  // an older file time: raised to grow
  auto times = CommitTimestamps(fs, "t", *ListLog(fs, "t"));
  ASSERT_TRUE(times.has_value());
  EXPECT_EQ(*times, (std::map<int64_t, int64_t>{{0, 1000}, {1, 1001}}));
  EXPECT_EQ(LoadSnapshot(fs, "t", {.timestamp_ms = 1000})->version, 0);
}

std::filesystem::path Golden(std::string_view table) {
  return std::filesystem::path(SLUICE_SHARED_DIR) / "conformance" / "delta-golden" /
         std::string(table);
}

TEST(SnapshotGolden, CheckpointReplayAgreesWithReplayingEveryCommit) {
  auto root = Golden("checkpoint");
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "no delta-golden data";
  auto fs = NewLocalFileSystem();
  auto latest = LoadSnapshot(*fs, root.string());
  ASSERT_TRUE(latest.has_value()) << latest.error().ToString();
  EXPECT_EQ(latest->version, 14);
  EXPECT_EQ(latest->checkpoint_version, 10);

  // The same table with its checkpoint left out of the listing: every commit replayed.
  auto listing = ListLog(*fs, root.string());
  ASSERT_TRUE(listing.has_value());
  LogListing commits_only = *listing;
  commits_only.checkpoints.clear();
  for (int64_t v = 0; v <= 14; ++v) {
    auto a = LoadSnapshot(*fs, root.string(), *listing, {.version = v});
    auto b = LoadSnapshot(*fs, root.string(), commits_only, {.version = v});
    ASSERT_TRUE(a.has_value()) << a.error().ToString();
    ASSERT_TRUE(b.has_value()) << b.error().ToString();
    EXPECT_EQ(Paths(*a), Paths(*b)) << "version " << v;
    EXPECT_EQ(a->protocol, b->protocol);
    EXPECT_EQ(a->metadata, b->metadata);
    EXPECT_EQ(a->checkpoint_version, v >= 10 ? 10 : -1);
  }
}

TEST(SnapshotGolden, ReadsEveryGoldenTable) {
  if (!std::filesystem::exists(Golden(""))) GTEST_SKIP() << "no delta-golden data";
  auto fs = NewLocalFileSystem();
  for (const auto& entry : std::filesystem::directory_iterator(Golden(""))) {
    if (!entry.is_directory()) continue;
    auto s = LoadSnapshot(*fs, entry.path().string());
    ASSERT_TRUE(s.has_value()) << entry.path() << ": " << s.error().ToString();
    EXPECT_FALSE(s->files.empty()) << entry.path();
    EXPECT_FALSE(s->schema->fields().empty()) << entry.path();
  }
  auto widened = LoadSnapshot(*fs, Golden("type-widening").string());
  ASSERT_TRUE(widened.has_value());
  EXPECT_EQ(widened->version, 2);
  EXPECT_EQ(widened->protocol.min_reader_version, 3);
  auto cm = LoadSnapshot(*fs, Golden("table-with-columnmapping-mode-name").string());
  ASSERT_TRUE(cm.has_value());
  EXPECT_EQ(cm->Property("delta.columnMapping.mode"), "name");
}

}  // namespace
}  // namespace sluice::table

namespace sluice::table {
namespace {

// A table of 12 commits whose state at version 10 is also written as a multi-part checkpoint
// (two parts) or as a V2 checkpoint (JSON, its files in two Parquet sidecars): a load from
// either equals a replay of every commit.
class CheckpointKinds : public ::testing::Test {
 protected:
  void SetUp() override {
    Put(fs_, 0, {Protocol{}, TestMetadata(), Add("f0", 1)});
    for (int v = 1; v <= 11; ++v) {
      std::vector<Action> actions = {Add("f" + std::to_string(v), v)};
      if (v % 4 == 0) actions.push_back(Remove("f" + std::to_string(v - 1)));
      actions.push_back(Txn{"app", v, std::nullopt});
      Put(fs_, v, actions);
    }
    auto at10 = LoadSnapshot(fs_, "t", {.version = 10});
    ASSERT_TRUE(at10.has_value());
    state_.push_back(at10->protocol);
    state_.push_back(at10->metadata);
    for (const auto& [app, version] : at10->app_versions) {
      state_.push_back(Txn{app, version, std::nullopt});
    }
    for (const RemoveFile& r : at10->tombstones) state_.push_back(r);
    for (const AddFile& a : at10->files) files_.push_back(a);
  }

  void ExpectSameAsCommits(int64_t checkpoint) {
    auto listing = ListLog(fs_, "t");
    ASSERT_TRUE(listing.has_value());
    ASSERT_TRUE(listing->checkpoints.contains(10));
    LogListing commits_only = *listing;
    commits_only.checkpoints.clear();
    for (int64_t v : {10, 11}) {
      auto a = LoadSnapshot(fs_, "t", *listing, {.version = v});
      auto b = LoadSnapshot(fs_, "t", commits_only, {.version = v});
      ASSERT_TRUE(a.has_value()) << a.error().ToString();
      ASSERT_TRUE(b.has_value());
      EXPECT_EQ(a->checkpoint_version, checkpoint);
      EXPECT_EQ(Paths(*a), Paths(*b));
      EXPECT_EQ(a->app_versions, b->app_versions);
      EXPECT_EQ(a->tombstones.size(), b->tombstones.size());
      EXPECT_EQ(a->metadata, b->metadata);
    }
  }

  MemoryFileSystem fs_;
  std::vector<Action> state_;
  std::vector<Action> files_;
};

TEST_F(CheckpointKinds, AMultiPartCheckpointIsReadWhenEveryPartIsThere) {
  std::vector<Action> part1 = state_;
  part1.insert(part1.end(), files_.begin(), files_.begin() + 3);
  std::vector<Action> part2(files_.begin() + 3, files_.end());
  ASSERT_TRUE(WriteCheckpointFile(
      fs_, LogFilePath("t", "00000000000000000010.checkpoint.0000000001.0000000002.parquet"),
      part1));
  // One part alone is no checkpoint: the commits are read.
  auto incomplete = ListLog(fs_, "t");
  ASSERT_TRUE(incomplete.has_value());
  EXPECT_FALSE(incomplete->checkpoints.contains(10));
  ASSERT_TRUE(WriteCheckpointFile(
      fs_, LogFilePath("t", "00000000000000000010.checkpoint.0000000002.0000000002.parquet"),
      part2));
  ExpectSameAsCommits(10);
}

TEST_F(CheckpointKinds, AV2CheckpointIsReadWithItsSidecars) {
  std::vector<Action> first(files_.begin(), files_.begin() + 4);
  std::vector<Action> second(files_.begin() + 4, files_.end());
  ASSERT_TRUE(WriteCheckpointFile(fs_, LogFilePath("t", "_sidecars/a.parquet"), first));
  ASSERT_TRUE(WriteCheckpointFile(fs_, LogFilePath("t", "_sidecars/b.parquet"), second));
  std::vector<Action> top = {CheckpointMetadata{10}};
  top.insert(top.end(), state_.begin(), state_.end());
  top.push_back(Sidecar{"a.parquet", 1, 1});
  top.push_back(Sidecar{"b.parquet", 1, 1});
  ASSERT_TRUE(fs_.WriteFile(
      LogFilePath("t", "00000000000000000010.checkpoint.3a0d65cd-4056-49b8-937b-95f9e3ee90e5.json"),
      CommitText(top)));
  ExpectSameAsCommits(10);
}

}  // namespace
}  // namespace sluice::table
