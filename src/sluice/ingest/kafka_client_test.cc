// The Kafka client against librdkafka's mock cluster: the real Kafka protocol on loopback, with
// consumer groups, rebalances and offset commits.
#include "sluice/ingest/kafka_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace sluice::ingest {
namespace {

using Clock = std::chrono::steady_clock;
using Offsets = std::map<TopicPartition, int64_t>;

// The mock's group coordinator waits 3 s for more members on a first join and session - 1 s on
// later rebalances; short sessions and heartbeats keep the tests quick.
KafkaConsumerOptions Options(const MockKafkaCluster& mock, const std::string& group,
                             std::vector<std::string> topics) {
  KafkaConsumerOptions options;
  options.brokers = mock.bootstrap();
  options.group_id = group;
  options.topics = std::move(topics);
  options.session_timeout_ms = 3000;
  options.config = {{"heartbeat.interval.ms", "300"}};
  return options;
}

std::unique_ptr<MockKafkaCluster> StartMock(const std::string& topic, int partitions) {
  auto mock = MockKafkaCluster::Start(1);
  EXPECT_TRUE(mock.has_value()) << mock.error().ToString();
  if (!mock) return nullptr;
  auto created = (*mock)->CreateTopic(topic, partitions);
  EXPECT_TRUE(created.has_value()) << created.error().ToString();
  return std::move(*mock);
}

std::unique_ptr<KafkaProducer> NewProducer(const MockKafkaCluster& mock) {
  auto producer = KafkaProducer::Create(mock.bootstrap(), {{"linger.ms", "1"}});
  EXPECT_TRUE(producer.has_value()) << producer.error().ToString();
  return producer ? std::move(*producer) : nullptr;
}

void ProduceValues(KafkaProducer& producer, const std::string& topic, int32_t partition, int count,
                   const std::string& prefix) {
  for (int i = 0; i < count; ++i) {
    std::string value = prefix + std::to_string(i);
    ASSERT_TRUE(producer.Produce(topic, partition, std::nullopt, value).has_value());
  }
  auto flushed = producer.Flush(10000);
  ASSERT_TRUE(flushed.has_value()) << flushed.error().ToString();
}

// A consumer that records its callbacks; OnAssign answers from `starts` (beginning otherwise).
struct Member {
  std::vector<std::vector<TopicPartition>> assigned;
  std::vector<std::vector<TopicPartition>> revoked;
  const Offsets* starts = nullptr;
  // Last, so it closes (and calls OnRevoke) while the vectors above still exist.
  std::unique_ptr<KafkaConsumer> consumer;

  void Open(const KafkaConsumerOptions& options) {
    auto created = KafkaConsumer::Create(
        options,
        [this](const std::vector<TopicPartition>& tps) -> Result<Offsets> {
          assigned.push_back(tps);
          Offsets out;
          for (const auto& tp : tps) {
            auto it = starts != nullptr ? starts->find(tp) : Offsets::const_iterator();
            out[tp] = starts != nullptr && it != starts->end() ? it->second : kOffsetBeginning;
          }
          return out;
        },
        [this](const std::vector<TopicPartition>& tps) { revoked.push_back(tps); });
    ASSERT_TRUE(created.has_value()) << created.error().ToString();
    consumer = std::move(*created);
  }
};

// Poll until `done` holds or `seconds` pass; every message goes to `out`.
template <class Done>
void PollUntil(KafkaConsumer& consumer, std::vector<KafkaMessage>& out, Done done,
               int seconds = 20) {
  const auto deadline = Clock::now() + std::chrono::seconds(seconds);
  while (!done() && Clock::now() < deadline) {
    auto batch = consumer.Poll(100, 200);
    ASSERT_TRUE(batch.has_value()) << batch.error().ToString();
    out.insert(out.end(), batch->begin(), batch->end());
  }
  ASSERT_TRUE(done()) << "gave up after " << seconds << " s with " << out.size() << " messages";
}

bool AllAtEnd(const KafkaConsumer& consumer, const std::string& topic, int partitions) {
  for (int32_t p = 0; p < partitions; ++p) {
    if (!consumer.AtEnd({topic, p})) return false;
  }
  return true;
}

TEST(KafkaClientTest, ConsumesKeysHeadersTimestampsAndNullsAsProduced) {
  auto mock = StartMock("events", 2);
  ASSERT_TRUE(mock);
  auto producer = NewProducer(*mock);
  ASSERT_TRUE(producer);
  const std::string binary_key("k\0ey", 4);
  ASSERT_TRUE(
      producer
          ->Produce("events", 0, "user-1", "{\"a\":1}",
                    {{"trace", "abc"}, {"trace", "def"}, {"empty", ""}, {"nil", std::nullopt}},
                    1700000000123)
          .has_value());
  ASSERT_TRUE(producer->Produce("events", 0, std::nullopt, std::nullopt, {}, 1700000000124)
                  .has_value());  // a tombstone without a key
  ASSERT_TRUE(producer->Produce("events", 0, binary_key, "", {}, 1700000000125).has_value());
  ASSERT_TRUE(producer->Produce("events", 1, "", "p1", {}, 1700000000126).has_value());
  ASSERT_TRUE(producer->Flush(10000).has_value());

  Member member;
  member.Open(Options(*mock, "g", {"events"}));
  std::vector<KafkaMessage> got;
  PollUntil(*member.consumer, got, [&] { return AllAtEnd(*member.consumer, "events", 2); });
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(member.consumer->Assignment(),
            (std::vector<TopicPartition>{{"events", 0}, {"events", 1}}));

  std::map<TopicPartition, std::vector<KafkaMessage>> by_partition;
  for (auto& m : got) by_partition[{m.topic, m.partition}].push_back(m);
  const auto& p0 = by_partition[{"events", 0}];
  ASSERT_EQ(p0.size(), 3u);
  EXPECT_EQ(p0[0].offset, 0);
  EXPECT_EQ(p0[0].key, "user-1");
  EXPECT_EQ(p0[0].value, "{\"a\":1}");
  EXPECT_EQ(p0[0].timestamp_ms, 1700000000123);
  EXPECT_EQ(p0[0].timestamp_type, 0);  // create time
  ASSERT_EQ(p0[0].headers.size(), 4u);
  EXPECT_EQ(p0[0].headers[0].key, "trace");
  EXPECT_EQ(p0[0].headers[0].value, "abc");
  EXPECT_EQ(p0[0].headers[1].value, "def");
  EXPECT_EQ(p0[0].headers[2].key, "empty");
  EXPECT_EQ(p0[0].headers[2].value, "");
  EXPECT_EQ(p0[0].headers[3].key, "nil");
  EXPECT_EQ(p0[0].headers[3].value, std::nullopt);

  EXPECT_EQ(p0[1].offset, 1);
  EXPECT_EQ(p0[1].key, std::nullopt);
  EXPECT_EQ(p0[1].value, std::nullopt);
  EXPECT_TRUE(p0[1].headers.empty());
  EXPECT_EQ(p0[1].timestamp_ms, 1700000000124);

  EXPECT_EQ(p0[2].key, binary_key);
  EXPECT_EQ(p0[2].value, "");  // empty, not null

  const auto& p1 = by_partition[{"events", 1}];
  ASSERT_EQ(p1.size(), 1u);
  EXPECT_EQ(p1[0].offset, 0);
  EXPECT_EQ(p1[0].key, "");
  EXPECT_EQ(p1[0].value, "p1");

  // Messages that arrive after the end clear AtEnd for their partition only.
  ProduceValues(*producer, "events", 1, 1, "late");
  PollUntil(*member.consumer, got, [&] { return got.size() == 5; });
  EXPECT_EQ(got.back().value, "late0");
  EXPECT_EQ(got.back().offset, 1);
  EXPECT_TRUE(member.consumer->AtEnd({"events", 0}));
  EXPECT_TRUE(member.consumer->Close().has_value());
  ASSERT_EQ(member.revoked.size(), 1u);  // Close hands the partitions back
  EXPECT_EQ(member.revoked[0].size(), 2u);
}

TEST(KafkaClientTest, WatermarksAndPartitionsComeFromTheBroker) {
  auto mock = StartMock("wm", 3);
  ASSERT_TRUE(mock);
  auto producer = NewProducer(*mock);
  ASSERT_TRUE(producer);
  ProduceValues(*producer, "wm", 0, 5, "v");
  ProduceValues(*producer, "wm", 2, 2, "v");

  Member member;
  member.Open(Options(*mock, "g", {"wm"}));
  auto p0 = member.consumer->Watermarks({"wm", 0}, 5000);
  ASSERT_TRUE(p0.has_value()) << p0.error().ToString();
  EXPECT_EQ(*p0, (std::pair<int64_t, int64_t>{0, 5}));
  auto p1 = member.consumer->Watermarks({"wm", 1}, 5000);
  ASSERT_TRUE(p1.has_value()) << p1.error().ToString();
  EXPECT_EQ(*p1, (std::pair<int64_t, int64_t>{0, 0}));
  auto p2 = member.consumer->Watermarks({"wm", 2}, 5000);
  ASSERT_TRUE(p2.has_value()) << p2.error().ToString();
  EXPECT_EQ(p2->second, 2);

  auto partitions = member.consumer->Partitions("wm", 5000);
  ASSERT_TRUE(partitions.has_value()) << partitions.error().ToString();
  EXPECT_EQ(*partitions, (std::vector<int32_t>{0, 1, 2}));
  auto missing = member.consumer->Partitions("no-such-topic", 5000);
  ASSERT_FALSE(missing.has_value()) << missing->size();
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message().find("no-such-topic"), std::string::npos);
}

TEST(KafkaClientTest, StartsWhereOnAssignSaysAndSeeksBack) {
  auto mock = StartMock("orders", 2);
  ASSERT_TRUE(mock);
  auto producer = NewProducer(*mock);
  ASSERT_TRUE(producer);
  ProduceValues(*producer, "orders", 0, 10, "a");
  ProduceValues(*producer, "orders", 1, 10, "b");

  const Offsets starts = {{{"orders", 0}, 4}, {{"orders", 1}, kOffsetEnd}};
  Member member;
  member.starts = &starts;
  member.Open(Options(*mock, "g", {"orders"}));
  std::vector<KafkaMessage> got;
  PollUntil(*member.consumer, got, [&] { return AllAtEnd(*member.consumer, "orders", 2); });
  ASSERT_EQ(member.assigned.size(), 1u);
  ASSERT_EQ(got.size(), 6u);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].partition, 0);
    EXPECT_EQ(got[i].offset, static_cast<int64_t>(4 + i));
    EXPECT_EQ(got[i].value, "a" + std::to_string(4 + i));
  }

  // Partition 1 started at its end: only what comes later is read.
  ProduceValues(*producer, "orders", 1, 2, "c");
  got.clear();
  PollUntil(*member.consumer, got, [&] { return got.size() == 2; });
  EXPECT_EQ(got[0].partition, 1);
  EXPECT_EQ(got[0].offset, 10);
  EXPECT_EQ(got[1].value, "c1");

  // Re-read after a failed batch.
  auto sought = member.consumer->Seek({"orders", 0}, 8, 5000);
  ASSERT_TRUE(sought.has_value()) << sought.error().ToString();
  EXPECT_FALSE(member.consumer->AtEnd({"orders", 0}));
  got.clear();
  PollUntil(*member.consumer, got, [&] { return AllAtEnd(*member.consumer, "orders", 2); });
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].offset, 8);
  EXPECT_EQ(got[1].offset, 9);

  auto unassigned = member.consumer->Seek({"orders", 7}, 0, 1000);
  ASSERT_FALSE(unassigned.has_value());
  EXPECT_EQ(unassigned.error().code(), ErrorCode::kInvalidArgument);
}

TEST(KafkaClientTest, OnAssignMayAskForWatermarksAndOffsetsPastTheEndRestartAtTheStart) {
  auto mock = StartMock("wm2", 2);
  ASSERT_TRUE(mock);
  auto producer = NewProducer(*mock);
  ASSERT_TRUE(producer);
  ProduceValues(*producer, "wm2", 0, 10, "a");
  ProduceValues(*producer, "wm2", 1, 4, "b");
  KafkaConsumer* self = nullptr;
  std::vector<std::pair<int64_t, int64_t>> seen;
  auto created = KafkaConsumer::Create(
      Options(*mock, "g", {"wm2"}),
      [&](const std::vector<TopicPartition>& tps) -> Result<Offsets> {
        Offsets out;
        for (const auto& tp : tps) {
          SLUICE_ASSIGN_OR_RETURN(auto marks, self->Watermarks(tp, 5000));
          seen.push_back(marks);
          // The last three of partition 0; partition 1 from an offset it never had.
          out[tp] = tp.partition == 0 ? marks.second - 3 : 100;
        }
        return out;
      },
      nullptr);
  ASSERT_TRUE(created.has_value()) << created.error().ToString();
  self = created->get();
  std::vector<KafkaMessage> got;
  PollUntil(*self, got, [&] { return AllAtEnd(*self, "wm2", 2); });
  EXPECT_EQ(seen, (std::vector<std::pair<int64_t, int64_t>>{{0, 10}, {0, 4}}));
  std::map<int32_t, std::vector<int64_t>> offsets;
  for (const auto& m : got) offsets[m.partition].push_back(m.offset);
  EXPECT_EQ(offsets[0], (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(offsets[1], (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(KafkaClientTest, PartitionsOnAssignLeavesOutStartAtTheCommittedOffsets) {
  auto mock = StartMock("commits", 1);
  ASSERT_TRUE(mock);
  auto producer = NewProducer(*mock);
  ASSERT_TRUE(producer);
  ProduceValues(*producer, "commits", 0, 6, "v");
  {
    Member first;
    first.Open(Options(*mock, "g", {"commits"}));
    std::vector<KafkaMessage> got;
    PollUntil(*first.consumer, got, [&] { return first.consumer->AtEnd({"commits", 0}); });
    ASSERT_EQ(got.size(), 6u);
    auto committed = first.consumer->CommitOffsets({{{"commits", 0}, 3}});
    ASSERT_TRUE(committed.has_value()) << committed.error().ToString();
  }
  // OnAssign names no partition: the group's committed offset applies.
  auto created = KafkaConsumer::Create(
      Options(*mock, "g", {"commits"}),
      [](const std::vector<TopicPartition>&) -> Result<Offsets> { return Offsets{}; }, nullptr);
  ASSERT_TRUE(created.has_value()) << created.error().ToString();
  std::vector<KafkaMessage> got;
  PollUntil(**created, got, [&] { return (*created)->AtEnd({"commits", 0}); });
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].offset, 3);
}

TEST(KafkaClientTest, TwoMembersSplitPartitionsAndTheSurvivorTakesOverOnClose) {
  const std::string topic = "shared";
  auto mock = StartMock(topic, 4);
  ASSERT_TRUE(mock);
  auto producer = NewProducer(*mock);
  ASSERT_TRUE(producer);
  for (int32_t p = 0; p < 4; ++p) ProduceValues(*producer, topic, p, 10, "first");

  // The "table": next offset per partition, advanced as messages are taken, and the one source
  // of start offsets for both members.
  Offsets table;
  std::map<std::pair<TopicPartition, int64_t>, int> reader;  // message -> member index
  Member members[2];
  for (auto& m : members) {
    m.starts = &table;
    m.Open(Options(*mock, "split", {topic}));
  }
  auto poll_both = [&] {
    for (int i = 0; i < 2; ++i) {
      if (!members[i].consumer) continue;
      auto batch = members[i].consumer->Poll(100, 100);
      ASSERT_TRUE(batch.has_value()) << batch.error().ToString();
      for (const auto& msg : *batch) {
        TopicPartition tp{msg.topic, msg.partition};
        EXPECT_TRUE(reader.emplace(std::pair{tp, msg.offset}, i).second)
            << ToString(tp) << " offset " << msg.offset << " read twice";
        table[tp] = msg.offset + 1;
      }
    }
  };
  auto wait_for = [&](auto done, int seconds) {
    const auto deadline = Clock::now() + std::chrono::seconds(seconds);
    while (!done() && Clock::now() < deadline) poll_both();
    return done();
  };

  ASSERT_TRUE(wait_for(
      [&] {
        return !members[0].consumer->Assignment().empty() &&
               !members[1].consumer->Assignment().empty() && reader.size() == 40;
      },
      30))
      << "assigned " << members[0].consumer->Assignment().size() << " + "
      << members[1].consumer->Assignment().size() << ", read " << reader.size();
  std::set<TopicPartition> all;
  for (const auto& m : members) {
    for (const auto& tp : m.consumer->Assignment()) EXPECT_TRUE(all.insert(tp).second);
  }
  EXPECT_EQ(all.size(), 4u);
  // Each message was read by the member that holds its partition now, or (if the first
  // generation gave one member everything) before the split; never twice either way.
  std::vector<TopicPartition> leaving = members[1].consumer->Assignment();

  for (int32_t p = 0; p < 4; ++p) ProduceValues(*producer, topic, p, 10, "second");
  size_t revokes_before = members[0].revoked.size();
  size_t assigns_before = members[0].assigned.size();
  ASSERT_TRUE(members[1].consumer->Close().has_value());
  ASSERT_FALSE(members[1].revoked.empty());
  EXPECT_EQ(members[1].revoked.back(), leaving);
  members[1].consumer.reset();

  ASSERT_TRUE(wait_for(
      [&] { return members[0].consumer->Assignment().size() == 4 && reader.size() == 80; }, 30))
      << "survivor holds " << members[0].consumer->Assignment().size() << ", read "
      << reader.size();
  EXPECT_GT(members[0].revoked.size(), revokes_before);
  ASSERT_GT(members[0].assigned.size(), assigns_before);
  EXPECT_EQ(members[0].assigned.back().size(), 4u);
  for (const auto& tp : leaving) {
    for (int64_t offset = 10; offset < 20; ++offset) {
      auto key = std::pair{tp, offset};
      EXPECT_EQ(reader[key], 0) << ToString(tp) << " offset " << offset;
    }
  }
}

TEST(KafkaClientTest, OnAssignErrorsAndBadStartOffsetsAreReturnedByPoll) {
  auto mock = StartMock("t", 1);
  ASSERT_TRUE(mock);
  auto failing = KafkaConsumer::Create(
      Options(*mock, "g1", {"t"}),
      [](const std::vector<TopicPartition>&) -> Result<Offsets> {
        return Fail(ErrorCode::kConflict, "table offsets unreadable");
      },
      nullptr);
  ASSERT_TRUE(failing.has_value());
  auto negative = KafkaConsumer::Create(
      Options(*mock, "g2", {"t"}),
      [](const std::vector<TopicPartition>& tps) -> Result<Offsets> {
        return Offsets{{tps.at(0), -5}};
      },
      nullptr);
  ASSERT_TRUE(negative.has_value());

  // Both groups join at once, so the mock's join delay is paid once.
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  Result<std::vector<KafkaMessage>> first;
  Result<std::vector<KafkaMessage>> second;
  while (Clock::now() < deadline && (first.has_value() || second.has_value())) {
    if (first) first = (*failing)->Poll(10, 100);
    if (second) second = (*negative)->Poll(10, 100);
  }
  ASSERT_FALSE(first.has_value());
  EXPECT_EQ(first.error().code(), ErrorCode::kConflict);
  EXPECT_EQ(first.error().message(), "table offsets unreadable");
  EXPECT_TRUE((*failing)->Assignment().empty());
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(second.error().message().find("t[0]"), std::string::npos) << second.error().message();
  EXPECT_TRUE((*negative)->Assignment().empty());
}

TEST(KafkaClientTest, UnreachableBrokerGivesAnErrorNotAHang) {
  KafkaConsumerOptions options;
  options.brokers = "127.0.0.1:1";  // nothing listens on port 1
  options.group_id = "g";
  options.topics = {"t"};
  auto created = KafkaConsumer::Create(
      options, [](const std::vector<TopicPartition>&) -> Result<Offsets> { return Offsets{}; },
      nullptr);
  ASSERT_TRUE(created.has_value()) << created.error().ToString();
  KafkaConsumer& consumer = **created;

  auto start = Clock::now();
  Result<std::vector<KafkaMessage>> polled;
  while (Clock::now() - start < std::chrono::seconds(10)) {
    polled = consumer.Poll(10, 500);
    if (!polled) break;
  }
  ASSERT_FALSE(polled.has_value()) << "no error within 10 s";
  EXPECT_EQ(polled.error().code(), ErrorCode::kIoError);
  EXPECT_NE(polled.error().message().find("no Kafka broker reachable"), std::string::npos)
      << polled.error().message();

  auto partitions = consumer.Partitions("t", 1000);
  ASSERT_FALSE(partitions.has_value());
  EXPECT_EQ(partitions.error().code(), ErrorCode::kIoError);
  auto watermarks = consumer.Watermarks({"t", 0}, 1000);
  ASSERT_FALSE(watermarks.has_value());
  EXPECT_NE(watermarks.error().message().find("t[0]"), std::string::npos);
  (void)consumer.Close();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));
}

TEST(KafkaClientTest, CreateRejectsMissingSettingsAndUnknownProperties) {
  auto none = [](const std::vector<TopicPartition>&) -> Result<Offsets> { return Offsets{}; };
  KafkaConsumerOptions options;
  options.group_id = "g";
  options.topics = {"t"};
  auto no_brokers = KafkaConsumer::Create(options, none, nullptr);
  ASSERT_FALSE(no_brokers.has_value());
  EXPECT_EQ(no_brokers.error().code(), ErrorCode::kInvalidArgument);

  options.brokers = "127.0.0.1:1";
  options.config = {{"no.such.property", "1"}};
  auto bad = KafkaConsumer::Create(options, none, nullptr);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.error().message().find("no.such.property"), std::string::npos);

  auto producer = KafkaProducer::Create("127.0.0.1:1", {{"acks", "sometimes"}});
  ASSERT_FALSE(producer.has_value());
  EXPECT_NE(producer.error().message().find("acks"), std::string::npos);
}

TEST(KafkaClientTest, ProducerReportsUndeliverableMessagesAtFlush) {
  auto mock = StartMock("small", 1);
  ASSERT_TRUE(mock);
  auto producer = NewProducer(*mock);
  ASSERT_TRUE(producer);
  ASSERT_TRUE(producer->Produce("small", 5, "k", "v").has_value());  // no partition 5
  auto flushed = producer->Flush(10000);
  ASSERT_FALSE(flushed.has_value());
  EXPECT_EQ(flushed.error().code(), ErrorCode::kIoError);
  EXPECT_NE(flushed.error().message().find("small[5]"), std::string::npos)
      << flushed.error().message();
  // The failure is reported once; later messages flush cleanly.
  ASSERT_TRUE(producer->Produce("small", 0, "k", "v").has_value());
  EXPECT_TRUE(producer->Flush(10000).has_value());

  auto again = mock->CreateTopic("small", 1);
  EXPECT_FALSE(again.has_value());
  EXPECT_FALSE(mock->CreateTopic("", 1).has_value());
  EXPECT_FALSE(mock->CreateTopic("zero", 0).has_value());
}

TEST(KafkaClientTest, KeysWithoutAPartitionSpreadByHash) {
  auto mock = StartMock("keyed", 4);
  ASSERT_TRUE(mock);
  auto producer = NewProducer(*mock);
  ASSERT_TRUE(producer);
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(producer->Produce("keyed", -1, "key-" + std::to_string(i % 8), "v").has_value());
  }
  ASSERT_TRUE(producer->Flush(10000).has_value());
  Member member;
  member.Open(Options(*mock, "g", {"keyed"}));
  std::vector<KafkaMessage> got;
  PollUntil(*member.consumer, got, [&] { return AllAtEnd(*member.consumer, "keyed", 4); });
  ASSERT_EQ(got.size(), 40u);
  std::map<std::string, std::set<int32_t>> partitions_of_key;
  std::set<int32_t> used;
  for (const auto& m : got) {
    partitions_of_key[*m.key].insert(m.partition);
    used.insert(m.partition);
  }
  for (const auto& [key, partitions] : partitions_of_key) {
    EXPECT_EQ(partitions.size(), 1u) << key << " landed in more than one partition";
  }
  EXPECT_GT(used.size(), 1u);
}

}  // namespace
}  // namespace sluice::ingest
