// The SQLite store's group commit: concurrent writers share commits, each is answered only
// after its own work is durable, and a writer that fails or rolls back takes nobody else's work
// with it.
#include "sluice/registry/store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "sluice/base/temp_dir_testing.h"

namespace sluice::registry {
namespace {

class StoreGroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = OpenStore(); }
  void TearDown() override { store_.reset(); }
  std::unique_ptr<Store> OpenStore() {
    auto s = Store::Open("sqlite:" + (dir_ / "registry.db").string());
    EXPECT_TRUE(s.has_value()) << s.error().message();
    return s.has_value() ? std::move(*s) : nullptr;
  }

  // One write transaction inserting config row `scope`; kept or rolled back.
  static Status Write(Store& store, const std::string& scope, bool keep,
                      std::chrono::milliseconds hold = std::chrono::milliseconds(0)) {
    SLUICE_ASSIGN_OR_RETURN(Store::Lease c, store.Acquire());
    SLUICE_TRY(c->BeginWrite());
    auto r = c->Query("INSERT INTO configs (scope, compatibility) VALUES (?, 'NONE')", {scope});
    if (!r.has_value()) {
      c->Rollback();
      return Fail(r.error());
    }
    if (hold.count() > 0) std::this_thread::sleep_for(hold);
    if (!keep) {
      c->Rollback();
      return Ok();
    }
    return c->Commit();
  }

  static std::set<std::string> Scopes(Store& store) {
    std::set<std::string> out;
    auto c = store.Acquire();
    EXPECT_TRUE(c.has_value());
    auto rows = (*c)->Query("SELECT scope FROM configs");
    EXPECT_TRUE(rows.has_value()) << rows.error().message();
    for (const SqlRow& r : *rows) out.insert(r[0].value_or(""));
    return out;
  }

  sluice::testing::ScopedTempDir tmp_{"sluice_store_test"};
  const std::filesystem::path& dir_ = tmp_.path();
  std::unique_ptr<Store> store_;
};

TEST_F(StoreGroupCommitTest, EveryAcknowledgedWriteOfConcurrentWritersSurvivesAReopen) {
  constexpr int kThreads = 8, kEach = 40;
  const Store::Stats before = store_->stats();  // opening the store wrote its tables
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        if (!Write(*store_, std::to_string(t) + "-" + std::to_string(i), true).has_value()) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  const Store::Stats stats = store_->stats();
  EXPECT_EQ(stats.transactions - before.transactions, static_cast<uint64_t>(kThreads * kEach));
  EXPECT_LE(stats.commits - before.commits, stats.transactions - before.transactions);
  store_ = OpenStore();
  EXPECT_EQ(Scopes(*store_).size(), static_cast<size_t>(kThreads * kEach));
}

TEST_F(StoreGroupCommitTest, WritersWaitingTogetherShareOneCommit) {
  // The first writer holds its turn while seven others queue behind it: they form the next
  // batch and are made durable by one commit.
  const Store::Stats before = store_->stats();
  std::thread first([&] {
    EXPECT_TRUE(Write(*store_, "first", true, std::chrono::milliseconds(300)).has_value());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::vector<std::thread> queued;
  for (int t = 0; t < 7; ++t) {
    queued.emplace_back(
        [&, t] { EXPECT_TRUE(Write(*store_, "queued-" + std::to_string(t), true).has_value()); });
  }
  first.join();
  for (auto& th : queued) th.join();
  const Store::Stats stats = store_->stats();
  EXPECT_EQ(stats.transactions - before.transactions, 8u);
  EXPECT_LE(stats.commits - before.commits,
            3u);  // the first alone, then the seven (at most split once)
  EXPECT_EQ(Scopes(*store_).size(), 8u);
}

TEST_F(StoreGroupCommitTest, ARolledBackOrFailingWriterTakesNobodyElsesWork) {
  ASSERT_TRUE(Write(*store_, "taken", true).has_value());
  std::vector<std::thread> threads;
  std::atomic<int> kept_ok{0}, duplicate_failed{0};
  for (int t = 0; t < 12; ++t) {
    threads.emplace_back([&, t] {
      const auto hold = std::chrono::milliseconds(t % 3 == 0 ? 20 : 0);
      if (t % 3 == 0) {
        EXPECT_TRUE(Write(*store_, "rolled-back-" + std::to_string(t), false, hold).has_value());
      } else if (t % 3 == 1) {
        // A primary-key violation: this writer's statement fails and it rolls back.
        if (!Write(*store_, "taken", true).has_value()) ++duplicate_failed;
      } else if (Write(*store_, "kept-" + std::to_string(t), true).has_value()) {
        ++kept_ok;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(kept_ok.load(), 4);
  EXPECT_EQ(duplicate_failed.load(), 4);
  std::set<std::string> want = {"taken"};
  for (int t = 2; t < 12; t += 3) want.insert("kept-" + std::to_string(t));
  store_ = OpenStore();
  EXPECT_EQ(Scopes(*store_), want);
}

TEST_F(StoreGroupCommitTest, ReadsOutsideAWriteSeeOnlyCommittedWork) {
  auto reader = store_->Acquire();
  ASSERT_TRUE(reader.has_value());
  std::thread writer([&] {
    EXPECT_TRUE(Write(*store_, "slow", true, std::chrono::milliseconds(200)).has_value());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto during = (*reader)->Query("SELECT COUNT(*) FROM configs");
  ASSERT_TRUE(during.has_value());
  EXPECT_EQ((*during)[0][0].value_or(""), "0");
  writer.join();
  auto after = (*reader)->Query("SELECT COUNT(*) FROM configs");
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ((*after)[0][0].value_or(""), "1");
}

}  // namespace
}  // namespace sluice::registry
