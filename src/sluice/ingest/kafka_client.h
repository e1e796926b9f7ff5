// Kafka for ingestion, over librdkafka: a group consumer whose start offsets come from the caller
// (the Delta table holds the real offsets), a producer for tests and benchmarks, and an in-process
// mock cluster that speaks the Kafka protocol on loopback. No librdkafka type leaks out of here.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/result.h"

namespace sluice::ingest {

/// Start offsets OnAssign may return besides a real offset: the partition's first message, or
/// the offset after its last one.
inline constexpr int64_t kOffsetBeginning = -2;
inline constexpr int64_t kOffsetEnd = -1;

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
};

/// "topic[partition]", for messages.
std::string ToString(const TopicPartition& tp);

struct KafkaHeader {
  std::string key;
  std::optional<std::string> value;  ///< nullopt: a null header value
};

struct KafkaMessage {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::optional<std::string> key;    ///< nullopt: a null key
  std::optional<std::string> value;  ///< nullopt: a null value (a tombstone)
  int64_t timestamp_ms = -1;         ///< -1 when timestamp_type is -1
  /// As Spark's timestampType: 0 create time, 1 log-append time, -1 none.
  int32_t timestamp_type = -1;
  std::vector<KafkaHeader> headers;  ///< in record order, duplicates kept
};

struct KafkaConsumerOptions {
  std::string brokers;  ///< bootstrap servers, "host:port,host:port"
  std::string group_id;
  std::vector<std::string> topics;
  std::string client_id = "sluice-ingest";
  /// Raw librdkafka properties, applied last (they override everything above).
  std::vector<std::pair<std::string, std::string>> config;
  int session_timeout_ms = 10000;
};

/// A member of a Kafka consumer group (subscribe, eager rebalances, no auto commit). Not thread
/// safe: one thread calls everything, and the callbacks run on that thread inside Poll or Close.
class KafkaConsumer {
 public:
  /// On a rebalance: the newly assigned partitions; returns each one's start offset (an offset,
  /// kOffsetBeginning or kOffsetEnd). A partition missing from the map starts at the group's
  /// committed offset, else at the earliest; so does an offset outside the partition's
  /// watermarks (auto.offset.reset=earliest): to fail on lost data instead, compare with
  /// Watermarks, which OnAssign may call. An error is returned by the Poll that ran it, and
  /// nothing of that assignment is read.
  using OnAssign =
      std::function<Result<std::map<TopicPartition, int64_t>>(const std::vector<TopicPartition>&)>;
  /// On a rebalance, and on Close: the partitions taken away. Messages of them returned by
  /// earlier Polls are the caller's to finish or drop; the Poll running this callback drops
  /// those it had read of them (their next owner starts where its OnAssign says), and none
  /// come after.
  using OnRevoke = std::function<void(const std::vector<TopicPartition>&)>;

  /// Join `options.group_id` subscribed to `options.topics` (the join itself happens in Poll).
  /// kInvalidArgument for missing brokers, group or topics, or a property librdkafka rejects.
  static Result<std::unique_ptr<KafkaConsumer>> Create(const KafkaConsumerOptions& options,
                                                       OnAssign on_assign, OnRevoke on_revoke);
  ~KafkaConsumer();
  KafkaConsumer(const KafkaConsumer&) = delete;
  KafkaConsumer& operator=(const KafkaConsumer&) = delete;

  /// Up to `max_messages` messages from the assigned partitions, in offset order per partition,
  /// waiting at most `timeout_ms` (returns sooner once every assigned partition is at its end).
  /// Rebalance callbacks run inside. Reaching a partition's end is not an error (see AtEnd).
  /// Errors: kIoError on a fatal librdkafka error, when every broker is unreachable (librdkafka
  /// keeps trying; Poll again to wait for them) or a partition error; kNotFound for a topic or
  /// partition the cluster lacks; a failed OnAssign's error as it returned it. Messages read
  /// before an error are returned first and the error by the next Poll, so none is skipped.
  Result<std::vector<KafkaMessage>> Poll(size_t max_messages, int timeout_ms);

  /// The partitions this member holds now, sorted.
  std::vector<TopicPartition> Assignment() const;

  /// Whether the last event seen of `tp` was its end: true after Poll read to the end of an
  /// assigned partition, until a message of it arrives, a Seek, or a new assignment.
  bool AtEnd(const TopicPartition& tp) const;

  /// The partition's low and high watermarks (first offset, offset after the last), asked of the
  /// broker. kIoError naming the partition on a timeout or broker error.
  Result<std::pair<int64_t, int64_t>> Watermarks(const TopicPartition& tp, int timeout_ms);

  /// The topic's partition ids, sorted, from the brokers' metadata. kNotFound for a topic the
  /// cluster does not have; kIoError on a timeout.
  Result<std::vector<int32_t>> Partitions(const std::string& topic, int timeout_ms);

  /// Record `next_offsets` (the offset of the next message to read) as the group's committed
  /// offsets, synchronously. Informational: the table is the source of truth. kIoError naming the
  /// first partition the broker refused.
  Status CommitOffsets(const std::map<TopicPartition, int64_t>& next_offsets);
  /// The group's committed next offsets of `tps`, asked of the coordinator; a partition
  /// without one is left out. kIoError on a timeout or broker error.
  Result<std::map<TopicPartition, int64_t>> Committed(const std::vector<TopicPartition>& tps,
                                                      int timeout_ms);

  /// Read `tp` (an assigned partition) from `offset` next, dropping what was fetched ahead;
  /// used to re-read after a failed batch. kInvalidArgument when `tp` is not assigned.
  Status Seek(const TopicPartition& tp, int64_t offset, int timeout_ms);

  /// Leave the group cleanly (OnRevoke runs for the partitions held). Idempotent; the destructor
  /// calls it, so whatever OnRevoke uses must outlive the consumer. kIoError when librdkafka
  /// could not leave cleanly (the handle is released anyway).
  Status Close();

 private:
  struct State;
  explicit KafkaConsumer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// A Kafka producer for tests and benchmarks. Not thread safe.
class KafkaProducer {
 public:
  /// `config`: raw librdkafka properties applied last. Keys without an explicit partition go to
  /// murmur2(key) mod partitions, as Java clients and kafkajs place them.
  static Result<std::unique_ptr<KafkaProducer>> Create(
      const std::string& brokers, const std::vector<std::pair<std::string, std::string>>& config);
  ~KafkaProducer();
  KafkaProducer(const KafkaProducer&) = delete;
  KafkaProducer& operator=(const KafkaProducer&) = delete;

  /// Queue one message. `partition` -1: chosen by the key's hash. `timestamp_ms` 0: now (create
  /// time). Delivery failures surface in Flush. kIoError when the queue stays full for 10 s or
  /// librdkafka refuses the message.
  Status Produce(const std::string& topic, int32_t partition, std::optional<std::string_view> key,
                 std::optional<std::string_view> value,
                 const std::vector<KafkaHeader>& headers = {}, int64_t timestamp_ms = 0);

  /// Wait until every queued message is delivered. kIoError on a timeout or with the first
  /// delivery error since the last Flush.
  Status Flush(int timeout_ms);

 private:
  struct State;
  explicit KafkaProducer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// librdkafka's mock Kafka cluster in this process: real brokers on loopback ports that hold
/// topics in memory and serve producers, consumers and consumer groups. For tests.
class MockKafkaCluster {
 public:
  /// Start `brokers` brokers (ids 1..brokers). kInternal when librdkafka cannot start them.
  static Result<std::unique_ptr<MockKafkaCluster>> Start(int brokers);
  ~MockKafkaCluster();
  MockKafkaCluster(const MockKafkaCluster&) = delete;
  MockKafkaCluster& operator=(const MockKafkaCluster&) = delete;

  /// The brokers' addresses, "127.0.0.1:PORT,...", for bootstrap.servers.
  std::string bootstrap() const;

  /// Create `topic`. kInvalidArgument for a bad name or count; kAlreadyExists.
  Status CreateTopic(const std::string& topic, int partitions, int replication = 1);

 private:
  struct State;
  explicit MockKafkaCluster(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace sluice::ingest
