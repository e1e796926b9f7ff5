#include "sluice/table/snapshot.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "sluice/base/file_system.h"

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
