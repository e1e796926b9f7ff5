#include "sluice/table/transaction.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include "sluice/table/checkpoint.h"
#include "sluice/table/protocol.h"

namespace sluice::table {
namespace {

constexpr std::string_view kSchema =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";

Metadata TestMetadata() {
  Metadata m;
  m.id = RandomUuid();
  m.schema_string = std::string(kSchema);
  m.created_time = 1;
  return m;
}

AddFile Add(std::string path) {
  AddFile a;
  a.path = std::move(path);
  a.size = 10;
  a.modification_time = 1;
  a.stats = R"({"numRecords":1})";
  return a;
}

std::shared_ptr<FileSystem> Memory() { return std::make_shared<MemoryFileSystem>(); }

void Create(const std::shared_ptr<FileSystem>& fs) {
  auto txn = Transaction::Begin(fs, "t");
  ASSERT_TRUE(txn.has_value());
  txn->SetProtocol(Protocol{});
  txn->SetMetadata(TestMetadata());
  auto done = txn->Commit({.operation = "CREATE TABLE"});
  ASSERT_TRUE(done.has_value()) << done.error().ToString();
  EXPECT_EQ(done->version, 0);
}

TEST(Transaction, UuidsAreVersionFourAndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    std::string u = RandomUuid();
    ASSERT_EQ(u.size(), 36u);
    EXPECT_EQ(u[14], '4');
    EXPECT_TRUE(u[19] == '8' || u[19] == '9' || u[19] == 'a' || u[19] == 'b') << u;
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(Transaction, FirstCommitNeedsProtocolAndMetadata) {
  auto fs = Memory();
  auto txn = Transaction::Begin(fs, "t");
  ASSERT_TRUE(txn.has_value());
  EXPECT_EQ(txn->read_version(), -1);
  txn->AddFile(Add("a"));
  auto done = txn->Commit();
  ASSERT_FALSE(done.has_value());
  EXPECT_NE(done.error().message().find("needs a protocol and a metaData"), std::string::npos);
}

TEST(Transaction, CommitInfoComesFirstAndUnchangedMetadataIsNotRewritten) {
  auto fs = Memory();
  Create(fs);
  auto txn = Transaction::Begin(fs, "t");
  ASSERT_TRUE(txn.has_value());
  txn->SetMetadata(txn->snapshot()->metadata);
  txn->AddFile(Add("a"));
  auto done = txn->Commit();
  ASSERT_TRUE(done.has_value());
  auto actions = ReadCommit(*fs, "t", 1);
  ASSERT_TRUE(actions.has_value());
  ASSERT_EQ(actions->size(), 2u);
  auto* info = std::get_if<CommitInfo>(&(*actions)[0]);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->operation(), "WRITE");
  EXPECT_EQ(info->value.Find("readVersion")->as_int64(), 0);
  EXPECT_TRUE(info->value.Find("isBlindAppend")->as_bool());
  EXPECT_TRUE(std::holds_alternative<AddFile>((*actions)[1]));
}

TEST(Transaction, BlindAppendsRetryAfterLosingARace) {
  auto fs = Memory();
  Create(fs);
  auto slow = Transaction::Begin(fs, "t");
  auto fast = Transaction::Begin(fs, "t");
  ASSERT_TRUE(slow.has_value() && fast.has_value());
  slow->AddFile(Add("slow"));
  fast->AddFile(Add("fast"));
  ASSERT_TRUE(fast->Commit().has_value());
  auto done = slow->Commit();
  ASSERT_TRUE(done.has_value()) << done.error().ToString();
  EXPECT_EQ(done->version, 2);
  EXPECT_EQ(done->attempts, 2);
  auto s = LoadSnapshot(*fs, "t");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->files.size(), 2u);
}

TEST(Transaction, AConcurrentMetadataChangeFailsWithDeltasErrorClass) {
  auto fs = Memory();
  Create(fs);
  auto slow = Transaction::Begin(fs, "t");
  auto alter = Transaction::Begin(fs, "t");
  ASSERT_TRUE(slow.has_value() && alter.has_value());
  Metadata m = alter->snapshot()->metadata;
  m.configuration["delta.appendOnly"] = "false";
  alter->SetMetadata(m);
  ASSERT_TRUE(alter->Commit({.operation = "SET TBLPROPERTIES"}).has_value());
  slow->AddFile(Add("slow"));
  auto done = slow->Commit();
  ASSERT_FALSE(done.has_value());
  EXPECT_EQ(done.error().code(), ErrorCode::kConflict);
  EXPECT_NE(done.error().message().find("[DELTA_METADATA_CHANGED] MetadataChangedException"),
            std::string::npos)
      << done.error().message();
  // Nothing was written for the failed transaction.
  EXPECT_EQ(ListLog(*fs, "t")->latest_version, 1);
}

TEST(Transaction, AnOverwriteConflictsWithAConcurrentAppend) {
  auto fs = Memory();
  Create(fs);
  auto overwrite = Transaction::Begin(fs, "t");
  auto append = Transaction::Begin(fs, "t");
  ASSERT_TRUE(overwrite.has_value() && append.has_value());
  overwrite->ReadAllFiles();
  overwrite->AddFile(Add("new"));
  append->AddFile(Add("appended"));
  ASSERT_TRUE(append->Commit().has_value());
  auto done = overwrite->Commit();
  ASSERT_FALSE(done.has_value());
  EXPECT_NE(done.error().message().find("[DELTA_CONCURRENT_APPEND]"), std::string::npos);
}

TEST(Transaction, TwoCreatorsOfOneTableConflict) {
  auto fs = Memory();
  auto a = Transaction::Begin(fs, "t");
  auto b = Transaction::Begin(fs, "t");
  for (auto* t : {&*a, &*b}) {
    t->SetProtocol(Protocol{});
    t->SetMetadata(TestMetadata());
  }
  ASSERT_TRUE(a->Commit().has_value());
  auto done = b->Commit();
  ASSERT_FALSE(done.has_value());
  EXPECT_NE(done.error().message().find("writing to an empty directory"), std::string::npos);
}

TEST(Transaction, SameAppIdConflicts) {
  auto fs = Memory();
  Create(fs);
  auto a = Transaction::Begin(fs, "t");
  auto b = Transaction::Begin(fs, "t");
  a->SetTxn(Txn{"stream", 1, std::nullopt});
  b->SetTxn(Txn{"stream", 1, std::nullopt});
  ASSERT_TRUE(a->Commit().has_value());
  auto done = b->Commit();
  ASSERT_FALSE(done.has_value());
  EXPECT_NE(done.error().message().find("[DELTA_CONCURRENT_TRANSACTION]"), std::string::npos);
}

TEST(Transaction, AppendOnlyTablesRefuseRemoves) {
  auto fs = Memory();
  auto txn = Transaction::Begin(fs, "t");
  Metadata m = TestMetadata();
  m.configuration["delta.appendOnly"] = "true";
  txn->SetProtocol(Protocol{});
  txn->SetMetadata(m);
  txn->AddFile(Add("a"));
  ASSERT_TRUE(txn->Commit().has_value());
  auto del = Transaction::Begin(fs, "t");
  RemoveFile r;
  r.path = "a";
  del->RemoveFile(r);
  auto done = del->Commit();
  ASSERT_FALSE(done.has_value());
  EXPECT_NE(done.error().message().find("[DELTA_CANNOT_MODIFY_APPEND_ONLY]"), std::string::npos);
}

TEST(Transaction, ChecksEveryTenCommitsAndReplaysFromThem) {
  auto fs = Memory();
  Create(fs);
  for (int i = 1; i <= 25; ++i) {
    auto txn = Transaction::Begin(fs, "t");
    ASSERT_TRUE(txn.has_value());
    txn->AddFile(Add("f" + std::to_string(i)));
    if (i % 3 == 0) {
      RemoveFile r;
      r.path = "f" + std::to_string(i - 1);
      txn->RemoveFile(r);
    }
    txn->SetTxn(Txn{"app", i, std::nullopt});
    auto done = txn->Commit();
    ASSERT_TRUE(done.has_value()) << done.error().ToString();
    EXPECT_EQ(done->checkpoint_version.has_value(), i % 10 == 0) << i;
    EXPECT_FALSE(done->checkpoint_warning) << *done->checkpoint_warning;
  }
  auto last = fs->ReadFile(LogFilePath("t", kLastCheckpoint));
  ASSERT_TRUE(last.has_value());
  EXPECT_NE(last->find("\"version\":20"), std::string::npos) << *last;
  auto listing = ListLog(*fs, "t");
  ASSERT_TRUE(listing.has_value());
  EXPECT_EQ(listing->checkpoints.size(), 2u);
  LogListing commits_only = *listing;
  commits_only.checkpoints.clear();
  for (int64_t v : {10, 19, 20, 25}) {
    auto a = LoadSnapshot(*fs, "t", *listing, {.version = v});
    auto b = LoadSnapshot(*fs, "t", commits_only, {.version = v});
    ASSERT_TRUE(a.has_value()) << a.error().ToString();
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(a->checkpoint_version, v >= 20 ? 20 : 10);
    ASSERT_EQ(a->files.size(), b->files.size());
    for (size_t i = 0; i < a->files.size(); ++i) {
      EXPECT_EQ(a->files[i].path, b->files[i].path);
      EXPECT_EQ(a->files[i].stats, b->files[i].stats);
    }
    EXPECT_EQ(a->tombstones.size(), b->tombstones.size());
    EXPECT_EQ(a->app_versions, b->app_versions);
    EXPECT_EQ(a->metadata, b->metadata);
  }
}

TEST(Transaction, ManyThreadsAppendingGetContiguousVersions) {
  auto dir = std::filesystem::temp_directory_path() / ("sluice-txn-" + RandomUuid());
  std::shared_ptr<FileSystem> fs = LocalFileSystem();
  std::string root = dir.string();
  {
    auto txn = Transaction::Begin(fs, root);
    txn->SetProtocol(Protocol{});
    txn->SetMetadata(TestMetadata());
    ASSERT_TRUE(txn->Commit().has_value());
  }
  constexpr int kThreads = 4;
  constexpr int kEach = 10;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto txn = Transaction::Begin(fs, root);
        if (!txn.has_value()) {
          ADD_FAILURE() << txn.error().ToString();
          ++failures;
          continue;
        }
        txn->AddFile(Add(fmt::format("t{}-{}", t, i)));
        auto done = txn->Commit();
        if (!done.has_value()) {
          ADD_FAILURE() << done.error().ToString();
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto s = LoadSnapshot(*fs, root);
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  EXPECT_EQ(s->version, kThreads * kEach);
  EXPECT_EQ(s->files.size(), static_cast<size_t>(kThreads * kEach));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sluice::table
