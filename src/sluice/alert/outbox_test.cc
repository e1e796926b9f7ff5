#include "sluice/alert/outbox.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>

#include "sluice/alert/outbox_internal.h"
#include "sluice/base/temp_dir_testing.h"

namespace sluice::alert {
namespace {

// Answers from a script per message id (delivered once the script runs out) and records every
// call with its wall-clock time.
class ScriptedSender final : public Sender {
 public:
  struct Call {
    std::string id;
    std::string target;
    int64_t at_ms;
  };

  void Script(const std::string& id, std::vector<SendResult> answers) {
    for (auto& a : answers) script_[id].push_back(std::move(a));
  }
  SendResult Send(const Target& target, const Message& message) override {
    calls.push_back(Call{message.id, target.Spec(), internal::WallClockMs()});
    if (on_send) on_send(message);
    auto& queue = script_[message.id];
    if (queue.empty()) return Result(SendOutcome::kDelivered);
    SendResult r = queue.front();
    queue.pop_front();
    return r;
  }
  static SendResult Result(SendOutcome outcome, std::string detail = "",
                           std::optional<int64_t> retry_after = std::nullopt) {
    SendResult r;
    r.outcome = outcome;
    r.detail = std::move(detail);
    r.retry_after_ms = retry_after;
    return r;
  }
  std::vector<std::string> Ids() const {
    std::vector<std::string> out;
    for (const Call& c : calls) out.push_back(c.id);
    return out;
  }

  std::vector<Call> calls;
  std::function<void(const Message&)> on_send;

 private:
  std::map<std::string, std::deque<SendResult>> script_;
};

class OutboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (dir_ / "outbox.db").string();
    outbox_ = Outbox::Open(path_).value();
  }
  void TearDown() override { outbox_.reset(); }

  static OutboxItem Item(const std::string& spec, const std::string& id) {
    return OutboxItem{ParseTarget(spec).value(), Message{id, "application/json", "", "{}"}};
  }
  // One alert for source `source` from `old_fp` to `new_fp`, to `spec`, with message id `id`.
  int Add(const std::string& source, const std::string& new_fp, const std::string& id,
          const std::string& spec = "webhook:https://example.com/hook") {
    return outbox_->Enqueue(AlertKey{source, "old", new_fp}, {Item(spec, id)}, Now()).value();
  }
  static int64_t Now() { return internal::WallClockMs(); }
  static DeliveryPolicy Fast() {
    DeliveryPolicy p;
    p.initial_backoff_ms = 20;
    p.max_backoff_ms = 200;
    p.jitter = 0;
    p.min_interval_ms = 0;
    return p;
  }
  std::map<std::string, OutboxEntry> BySubject() {
    std::map<std::string, OutboxEntry> out;
    auto list = outbox_->List(1000).value();
    for (auto& e : list) out[e.subject] = e;
    return out;
  }

  sluice::testing::ScopedTempDir tmp_{"sluice_outbox_test"};
  const std::filesystem::path& dir_ = tmp_.path();
  std::string path_;
  std::unique_ptr<Outbox> outbox_;
};

TEST_F(OutboxTest, DeduplicatesByChangeAndTarget) {
  AlertKey key{"payments", "fp1", "fp2"};
  std::vector<OutboxItem> items = {Item("webhook:https://example.com/hook", "a"),
                                   Item("file:drift.jsonl", "a")};
  EXPECT_EQ(outbox_->Enqueue(key, items, Now()).value(), 2);
  EXPECT_EQ(outbox_->Enqueue(key, items, Now()).value(), 0);  // the same change again
  EXPECT_EQ(outbox_->Enqueue(key, {Item("slack:env:SLACK_URL", "a")}, Now()).value(), 1);
  EXPECT_EQ(outbox_->Enqueue(AlertKey{"payments", "fp2", "fp3"}, items, Now()).value(), 2);

  ScriptedSender sender;
  auto summary = outbox_->Deliver(sender, Fast(), 0).value();
  EXPECT_EQ(summary.delivered, 5);
  // Delivered alerts still deduplicate: a check that finds the change again sends nothing.
  EXPECT_EQ(outbox_->Enqueue(key, items, Now()).value(), 0);
  auto list = outbox_->List().value();
  ASSERT_EQ(list.size(), 5u);
  EXPECT_GT(list[0].id, list[4].id);  // newest first
  EXPECT_EQ(list[4].target, "webhook:https://example.com/…");
  EXPECT_EQ(list[4].kind, "webhook");
  EXPECT_EQ(list[4].state, DeliveryState::kDelivered);
  EXPECT_GT(list[4].delivered_ms, 0);
  EXPECT_EQ(outbox_->List(2).value().size(), 2u);
}

TEST_F(OutboxTest, KeepsEnqueueOrderPerSourceAndTarget) {
  Add("A", "1", "a1");
  Add("A", "2", "a2");
  Add("B", "1", "b1");
  Add("A", "3", "a3");
  Add("A", "1x", "a1-file", "file:log.jsonl");
  ScriptedSender sender;
  using O = SendOutcome;
  sender.Script(
      "a1", {ScriptedSender::Result(O::kRetry, "500"), ScriptedSender::Result(O::kRetry, "500")});
  DeliveryPolicy p = Fast();
  p.initial_backoff_ms = 150;  // ample time for b1 and a1-file between a1's tries
  auto summary = outbox_->Deliver(sender, p, Now() + 5000).value();
  EXPECT_EQ(summary.delivered, 5);
  EXPECT_EQ(summary.pending, 0);
  // a1 failing holds back a2 and a3 (same source, same target), not b1 nor A's file alert.
  EXPECT_EQ(sender.Ids(),
            (std::vector<std::string>{"a1", "b1", "a1-file", "a1", "a1", "a2", "a3"}));
  EXPECT_EQ(BySubject()["a1"].attempts, 3);
  EXPECT_EQ(BySubject()["a2"].attempts, 1);
}

TEST_F(OutboxTest, BacksOffExponentially) {
  Add("A", "1", "a");
  ScriptedSender sender;
  using O = SendOutcome;
  sender.Script("a", std::vector<SendResult>(4, ScriptedSender::Result(O::kRetry, "503")));
  DeliveryPolicy p = Fast();
  p.initial_backoff_ms = 40;
  p.max_backoff_ms = 10000;
  ASSERT_EQ(outbox_->Deliver(sender, p, Now() + 10000).value().delivered, 1);
  ASSERT_EQ(sender.calls.size(), 5u);
  for (size_t i = 1; i < sender.calls.size(); ++i) {
    int64_t gap = sender.calls[i].at_ms - sender.calls[i - 1].at_ms;
    int64_t want = int64_t{40} << (i - 1);  // 40, 80, 160, 320
    EXPECT_GE(gap, want) << "retry " << i;
    EXPECT_LT(gap, want * 3 / 2 + 300) << "retry " << i;  // commits take time on a busy disk
  }
}

TEST(BackoffTest, DoublesUpToTheCapWithJitter) {
  DeliveryPolicy p;
  p.initial_backoff_ms = 1000;
  p.max_backoff_ms = 5000;
  p.jitter = 0.2;
  EXPECT_EQ(internal::BackoffMs(p, 1, 0.5), 1000);
  EXPECT_EQ(internal::BackoffMs(p, 2, 0.5), 2000);
  EXPECT_EQ(internal::BackoffMs(p, 3, 0.5), 4000);
  EXPECT_EQ(internal::BackoffMs(p, 4, 0.5), 5000);
  EXPECT_EQ(internal::BackoffMs(p, 60, 0.5), 5000);
  EXPECT_EQ(internal::BackoffMs(p, 1, 0.0), 800);
  EXPECT_EQ(internal::BackoffMs(p, 2, 0.999999), 2400);
}

TEST_F(OutboxTest, RetryAfterWinsWhenLonger) {
  Add("A", "1", "a");
  ScriptedSender sender;
  sender.Script("a", {ScriptedSender::Result(SendOutcome::kRetry, "429", 300)});
  ASSERT_EQ(outbox_->Deliver(sender, Fast(), Now() + 5000).value().delivered, 1);
  ASSERT_EQ(sender.calls.size(), 2u);
  EXPECT_GE(sender.calls[1].at_ms - sender.calls[0].at_ms, 300);
}

TEST_F(OutboxTest, PermanentFailureIsReportedAndUnblocksTheNext) {
  Add("A", "1", "a1");
  Add("A", "2", "a2");
  ScriptedSender sender;
  sender.Script("a1", {ScriptedSender::Result(SendOutcome::kPermanent, "HTTP 400")});
  auto summary = outbox_->Deliver(sender, Fast(), 0).value();
  EXPECT_EQ(summary.failed, 1);
  EXPECT_EQ(summary.delivered, 1);
  ASSERT_EQ(summary.errors.size(), 1u);
  EXPECT_EQ(summary.errors[0], "A to webhook:https://example.com/…: HTTP 400");
  auto by = BySubject();
  EXPECT_EQ(by["a1"].state, DeliveryState::kFailed);
  EXPECT_EQ(by["a1"].last_error, "HTTP 400");
  EXPECT_EQ(DeliveryStateName(by["a1"].state), "failed");
  // Failed alerts are not tried again.
  ScriptedSender again;
  EXPECT_EQ(outbox_->Deliver(again, Fast(), 0).value().failed, 0);
  EXPECT_TRUE(again.calls.empty());
}

TEST_F(OutboxTest, GivesUpAfterMaxAttempts) {
  Add("A", "1", "a");
  ScriptedSender sender;
  sender.Script("a", std::vector<SendResult>(10, ScriptedSender::Result(SendOutcome::kRetry, "x")));
  DeliveryPolicy p = Fast();
  p.max_attempts = 3;
  auto summary = outbox_->Deliver(sender, p, Now() + 5000).value();
  EXPECT_EQ(sender.calls.size(), 3u);
  EXPECT_EQ(summary.failed, 1);
  EXPECT_EQ(summary.pending, 0);
  EXPECT_EQ(BySubject()["a"].attempts, 3);
  EXPECT_EQ(BySubject()["a"].state, DeliveryState::kFailed);
}

TEST_F(OutboxTest, WithoutDeadlineTriesEachDueAlertOnce) {
  Add("A", "1", "a");
  Add("B", "1", "b");
  ScriptedSender sender;
  sender.Script("a", {ScriptedSender::Result(SendOutcome::kRetry, "x", 0)});
  DeliveryPolicy p = Fast();
  p.initial_backoff_ms = 0;  // due again at once, still tried only once in this call
  auto summary = outbox_->Deliver(sender, p, 0).value();
  EXPECT_EQ(sender.Ids(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(summary.delivered, 1);
  EXPECT_EQ(summary.pending, 1);
  EXPECT_EQ(BySubject()["a"].last_error, "x");
  EXPECT_EQ(BySubject()["a"].state, DeliveryState::kPending);
}

TEST_F(OutboxTest, RateLimitsEachTarget) {
  Add("A", "1", "a");
  Add("B", "1", "b");
  Add("C", "1", "c");
  Add("D", "1", "d", "file:other.jsonl");
  DeliveryPolicy p = Fast();
  p.min_interval_ms = 150;
  ScriptedSender sender;
  ASSERT_EQ(outbox_->Deliver(sender, p, Now() + 5000).value().delivered, 4);
  std::vector<int64_t> webhook_times;
  for (const auto& c : sender.calls) {
    if (c.target.starts_with("webhook:")) webhook_times.push_back(c.at_ms);
  }
  ASSERT_EQ(webhook_times.size(), 3u);
  EXPECT_GE(webhook_times[1] - webhook_times[0], 150);
  EXPECT_GE(webhook_times[2] - webhook_times[1], 150);
  // Another target is not held back by this one's limit.
  EXPECT_EQ(sender.calls[1].id, "d");

  // Without a deadline, an alert held back by the limit waits for a later call.
  Add("E", "1", "e");
  ScriptedSender once;
  p.min_interval_ms = 60000;
  auto summary = outbox_->Deliver(once, p, 0).value();
  EXPECT_TRUE(once.calls.empty());
  EXPECT_EQ(summary.pending, 1);
}

TEST_F(OutboxTest, SurvivesCloseAndReopen) {
  Add("A", "1", "a");
  Add("A", "2", "b");
  outbox_.reset();  // the process ends between storing and delivering
  outbox_ = Outbox::Open(path_).value();
  ScriptedSender sender;
  EXPECT_EQ(outbox_->Deliver(sender, Fast(), 0).value().delivered, 2);
  EXPECT_EQ(sender.Ids(), (std::vector<std::string>{"a", "b"}));
  outbox_.reset();
  outbox_ = Outbox::Open(path_).value();
  ScriptedSender none;
  EXPECT_EQ(outbox_->Deliver(none, Fast(), 0).value().pending, 0);
  EXPECT_TRUE(none.calls.empty());
}

TEST_F(OutboxTest, AClaimedAlertIsNotSentByAnotherOutbox) {
  Add("A", "1", "a1");
  Add("A", "2", "a2");
  Add("B", "1", "b1");                      // the same target as a1
  Add("C", "1", "c1", "file:other.jsonl");  // another target
  auto other = Outbox::Open(path_).value();
  ScriptedSender second;
  ScriptedSender first;
  bool nested = false;
  // While the first outbox sends a1, a second one (another process) delivers: it must neither
  // send a1 again nor a2 ahead of it, nor anything else to a1's target while a1 is in flight,
  // but it may send c1.
  first.on_send = [&](const Message& m) {
    if (m.id != "a1" || nested) return;
    nested = true;
    auto s = other->Deliver(second, Fast(), 0).value();
    EXPECT_EQ(s.delivered, 1);
    EXPECT_EQ(s.pending, 3);  // a1 (in flight), a2, b1
  };
  EXPECT_EQ(outbox_->Deliver(first, Fast(), 0).value().delivered, 3);
  EXPECT_EQ(second.Ids(), (std::vector<std::string>{"c1"}));
  EXPECT_EQ(first.Ids(), (std::vector<std::string>{"a1", "a2", "b1"}));
}

TEST_F(OutboxTest, StopEndsDelivery) {
  Add("A", "1", "a");
  ScriptedSender sender;
  sender.Script("a", {ScriptedSender::Result(SendOutcome::kRetry, "x", 60000)});
  int polls = 0;
  auto start = Now();
  auto summary =
      outbox_->Deliver(sender, Fast(), Now() + 120000, [&] { return ++polls > 3; }).value();
  EXPECT_LT(Now() - start, 5000);
  EXPECT_EQ(summary.pending, 1);
}

TEST_F(OutboxTest, StoresSecretNamesNotValues) {
  Target t = ParseTarget("webhook:env:SLUICE_TEST_OUTBOX_URL").value();
  t.secret_env = "SLUICE_TEST_OUTBOX_SECRET";
  ::setenv("SLUICE_TEST_OUTBOX_URL", "https://example.com/VALUE", 1);
  ::setenv("SLUICE_TEST_OUTBOX_SECRET", "VALUE", 1);
  ASSERT_EQ(outbox_->Enqueue(AlertKey{"s", "o", "n"}, {OutboxItem{t, {"id", "", "", "{}"}}}, Now())
                .value(),
            1);
  struct Seen final : Sender {
    SendResult Send(const Target& target, const Message&) override {
      secret_env = target.secret_env;
      return SendResult{SendOutcome::kDelivered, 200, std::nullopt, ""};
    }
    std::string secret_env;
  } sender;
  ASSERT_EQ(outbox_->Deliver(sender, Fast(), 0).value().delivered, 1);
  EXPECT_EQ(sender.secret_env, "SLUICE_TEST_OUTBOX_SECRET");
  outbox_.reset();
  std::string bytes;
  for (const char* suffix : {"", "-wal"}) {
    auto read = LocalFileSystem()->ReadFile(path_ + suffix);
    if (read.has_value()) bytes += *read;
  }
  EXPECT_NE(bytes.find("SLUICE_TEST_OUTBOX_SECRET"), std::string::npos);
  EXPECT_EQ(bytes.find("VALUE"), std::string::npos);
  ::unsetenv("SLUICE_TEST_OUTBOX_URL");
  ::unsetenv("SLUICE_TEST_OUTBOX_SECRET");
}

TEST(OutboxOpenTest, NamesTheFileWhenItCannotOpen) {
  auto r = Outbox::Open("/nonexistent-folder/outbox.db");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("/nonexistent-folder/outbox.db"), std::string::npos);
}

TEST(OutboxOpenTest, RefusesAFileThatIsNotAnOutbox) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("sluice_outbox_garbage_" + std::to_string(::getpid()) + ".db"))
                               .string();
  ASSERT_TRUE(LocalFileSystem()->WriteFile(path, std::string(4096, 'x')).has_value());
  auto r = Outbox::Open(path);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find(path), std::string::npos) << r.error().message();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace sluice::alert
