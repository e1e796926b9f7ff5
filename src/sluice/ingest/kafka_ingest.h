// The Kafka source of `sluice ingest`: a topic read by a member of a consumer group (so several
// processes split its partitions), values decoded from Confluent's wire format with the
// registry's writer schemas (from_avro semantics) or read as JSON or text, landed into a Delta
// table batch by batch. The table holds each partition's next offset in a `txn` action (appId
// `kafka:<group>:<topic>:<partition>`), committed with the batch's rows: a partition's offsets
// are written once, whichever member of the group wrote them and across rebalances.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/ingest/ingest.h"

namespace sluice::ingest {

enum class ValueFormat : uint8_t {
  /// Confluent framing (magic 0, schema id) and Avro binary, writer schema from the registry.
  kAvro,
  /// A JSON object, unframed.
  kJson,
  /// Confluent framing and a JSON object (JSON Schema serializers).
  kJsonSchema,
  /// The value's bytes as the string column `value`.
  kString,
};

/// "avro", "json", "json-schema", "string"; kInvalidArgument otherwise.
Result<ValueFormat> ParseValueFormat(std::string_view name);

struct KafkaIngestOptions {
  /// kafka.bootstrap.servers and subscribe.
  std::string brokers;
  std::string topic;
  /// group.id: members of one group share the topic's partitions.
  std::string group_id;
  /// schema.registry.url (and basic auth "USER:PASSWORD"), needed for avro and json-schema.
  std::string registry_url;
  std::string registry_user_info;
  ValueFormat value_format = ValueFormat::kAvro;
  /// startingOffsets for partitions the table holds no offset of: earliest or latest.
  bool start_at_earliest = false;
  /// Spark's Kafka columns beside the value's: key, topic, partition, offset, timestamp,
  /// timestampType, headers (a value field of the same name wins).
  bool with_metadata = false;
  /// maxOffsetsPerTrigger: messages a batch holds at most.
  size_t max_messages_per_batch = 100000;
  /// A batch is cut when no message came for this long (and at the end with --once).
  int idle_ms = 500;
  /// Raw librdkafka properties (--kafka-option KEY=VALUE).
  std::vector<std::pair<std::string, std::string>> config;
};

/// kafka://BROKERS/TOPIC into (brokers, topic). kInvalidArgument otherwise.
Result<std::pair<std::string, std::string>> ParseKafkaSource(std::string_view source);

/// Land the topic into the table. With control.watch false (--once), reads up to the end
/// offsets each partition had when it was assigned, then returns. Errors for what stops the
/// run (brokers unreachable for long, the registry down, a checkpoint of another source).
Result<IngestRun> RunKafkaIngest(const IngestOptions& options, const KafkaIngestOptions& kafka,
                                 const RunControl& control);

}  // namespace sluice::ingest
