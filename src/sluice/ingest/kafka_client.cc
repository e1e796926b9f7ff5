#include "sluice/ingest/kafka_client.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>

namespace sluice::ingest {

std::string ToString(const TopicPartition& tp) {
  return tp.topic + "[" + std::to_string(tp.partition) + "]";
}

namespace {

using Clock = std::chrono::steady_clock;

// What every handle shares through librdkafka's opaque pointer: the last warning librdkafka
// logged, so a timeout can say why (refused connection, unknown host) without printing it.
struct HandleContext {
  std::mutex log_mu;
  std::string last_warning;

  std::string LastWarning() {
    std::lock_guard lock(log_mu);
    return last_warning;
  }
};

// librdkafka logs from its own threads; the library must not print, so the log is kept instead.
void KeepLog(const rd_kafka_t* rk, int level, const char* facility, const char* line) {
  if (level > 4) return;  // syslog levels: 4 is warning
  auto* context = static_cast<HandleContext*>(rd_kafka_opaque(rk));
  if (context == nullptr) return;
  std::lock_guard lock(context->log_mu);
  context->last_warning = std::string(facility) + ": " + line;
}

std::string WithLastWarning(std::string message, HandleContext& context) {
  std::string warning = context.LastWarning();
  if (!warning.empty()) message += " (librdkafka: " + warning + ")";
  return message;
}

struct ConfDeleter {
  void operator()(rd_kafka_conf_t* conf) const { rd_kafka_conf_destroy(conf); }
};
using ConfPtr = std::unique_ptr<rd_kafka_conf_t, ConfDeleter>;

struct ListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* list) const {
    rd_kafka_topic_partition_list_destroy(list);
  }
};
using ListPtr = std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter>;

struct ErrorDeleter {
  void operator()(rd_kafka_error_t* error) const { rd_kafka_error_destroy(error); }
};
using ErrorPtr = std::unique_ptr<rd_kafka_error_t, ErrorDeleter>;

Status SetAll(rd_kafka_conf_t* conf,
              const std::vector<std::pair<std::string, std::string>>& properties) {
  std::array<char, 512> errstr{};
  for (const auto& [name, value] : properties) {
    if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), errstr.data(), errstr.size()) !=
        RD_KAFKA_CONF_OK) {
      return InvalidArgument("Kafka property " + name + "=" + value + ": " + errstr.data());
    }
  }
  return Ok();
}

// A configured handle; `conf` is consumed either way, as rd_kafka_new takes it on success only.
Result<rd_kafka_t*> NewHandle(rd_kafka_type_t type, ConfPtr conf) {
  std::array<char, 512> errstr{};
  rd_kafka_t* rk = rd_kafka_new(type, conf.get(), errstr.data(), errstr.size());
  if (rk == nullptr) {
    return InvalidArgument(std::string("cannot create a Kafka client: ") + errstr.data());
  }
  (void)conf.release();
  return rk;
}

ConfPtr NewConf(HandleContext* context) {
  ConfPtr conf(rd_kafka_conf_new());
  rd_kafka_conf_set_opaque(conf.get(), context);
  rd_kafka_conf_set_log_cb(conf.get(), KeepLog);
  return conf;
}

std::vector<TopicPartition> ToVector(const rd_kafka_topic_partition_list_t* list) {
  std::vector<TopicPartition> out;
  if (list == nullptr) return out;
  out.reserve(static_cast<size_t>(list->cnt));
  for (int i = 0; i < list->cnt; ++i) {
    out.push_back({list->elems[i].topic, list->elems[i].partition});
  }
  std::sort(out.begin(), out.end());
  return out;
}

ListPtr ToList(const std::map<TopicPartition, int64_t>& offsets) {
  ListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& [tp, offset] : offsets) {
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition)->offset = offset;
  }
  return list;
}

int RemainingMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

std::optional<std::string> Bytes(const void* data, size_t size) {
  if (data == nullptr) return std::nullopt;
  return std::string(static_cast<const char*>(data), size);
}

KafkaMessage ToMessage(const rd_kafka_message_t& m) {
  KafkaMessage out;
  out.topic = rd_kafka_topic_name(m.rkt);
  out.partition = m.partition;
  out.offset = m.offset;
  out.key = Bytes(m.key, m.key_len);
  out.value = Bytes(m.payload, m.len);
  rd_kafka_timestamp_type_t type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
  int64_t timestamp = rd_kafka_message_timestamp(&m, &type);
  switch (type) {
    case RD_KAFKA_TIMESTAMP_CREATE_TIME:
      out.timestamp_type = 0;
      out.timestamp_ms = timestamp;
      break;
    case RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME:
      out.timestamp_type = 1;
      out.timestamp_ms = timestamp;
      break;
    case RD_KAFKA_TIMESTAMP_NOT_AVAILABLE:
      out.timestamp_type = -1;
      out.timestamp_ms = -1;
      break;
  }
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(&m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* name = nullptr;
    const void* value = nullptr;
    size_t size = 0;
    for (size_t i = 0;
         rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i) {
      out.headers.push_back({name, Bytes(value, size)});
    }
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// KafkaConsumer

struct KafkaConsumer::State : HandleContext {
  rd_kafka_t* rk = nullptr;
  OnAssign on_assign;
  OnRevoke on_revoke;
  // Set by callbacks (which cannot return an error to librdkafka), returned by Poll.
  std::optional<Error> pending;
  std::set<TopicPartition> assigned;
  std::set<TopicPartition> at_end;
  // The messages the running Poll has read; a revoke inside it drops those of the revoked
  // partitions, which their next owner reads from the offsets its OnAssign gives.
  std::vector<KafkaMessage> batch;

  void Defer(Error error) {
    if (!pending) pending = std::move(error);
  }
  void RefreshAssignment();
  void Assign(rd_kafka_topic_partition_list_t* partitions);
  void Revoke(rd_kafka_topic_partition_list_t* partitions);
  bool AllAtEnd() const {
    return !assigned.empty() &&
           std::includes(at_end.begin(), at_end.end(), assigned.begin(), assigned.end());
  }
  static void OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t* partitions, void* opaque);
  static void OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque);
};

namespace {

bool Cooperative(rd_kafka_t* rk) {
  return std::string_view(rd_kafka_rebalance_protocol(rk)) == "COOPERATIVE";
}

}  // namespace

void KafkaConsumer::State::OnRebalance(rd_kafka_t* /*rk*/, rd_kafka_resp_err_t err,
                                       rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  auto* state = static_cast<State*>(static_cast<HandleContext*>(opaque));
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    state->Assign(partitions);
  } else {
    if (err != RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
      state->Defer(Error(ErrorCode::kIoError,
                         std::string("Kafka rebalance failed: ") + rd_kafka_err2str(err)));
    }
    state->Revoke(partitions);
  }
}

// Generic errors: most are transient and librdkafka recovers by itself; only a fatal error and
// every broker being unreachable are worth stopping a Poll for.
void KafkaConsumer::State::OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  auto* state = static_cast<State*>(static_cast<HandleContext*>(opaque));
  if (err == RD_KAFKA_RESP_ERR__FATAL) {
    std::array<char, 512> errstr{};
    rd_kafka_fatal_error(rk, errstr.data(), errstr.size());
    state->Defer(Error(ErrorCode::kIoError, std::string("Kafka fatal error: ") + errstr.data()));
  } else if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) {
    state->Defer(
        Error(ErrorCode::kIoError,
              WithLastWarning(std::string("no Kafka broker reachable: ") + reason, *state)));
  }
}

void KafkaConsumer::State::RefreshAssignment() {
  assigned.clear();
  rd_kafka_topic_partition_list_t* list = nullptr;
  if (rd_kafka_assignment(rk, &list) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    for (const auto& tp : ToVector(list)) assigned.insert(tp);
    rd_kafka_topic_partition_list_destroy(list);
  }
}

namespace {

// The start offsets OnAssign gave, checked: each an offset, beginning or end.
Result<std::map<TopicPartition, int64_t>> CheckedStarts(
    Result<std::map<TopicPartition, int64_t>> starts) {
  if (!starts) return starts;
  for (const auto& [tp, offset] : *starts) {
    if (offset < 0 && offset != kOffsetBeginning && offset != kOffsetEnd) {
      return InvalidArgument("start offset " + std::to_string(offset) + " for " + ToString(tp) +
                             " is neither an offset nor beginning/end");
    }
  }
  return starts;
}

}  // namespace

void KafkaConsumer::State::Assign(rd_kafka_topic_partition_list_t* partitions) {
  std::vector<TopicPartition> tps = ToVector(partitions);
  Result<std::map<TopicPartition, int64_t>> starts = CheckedStarts(on_assign(tps));
  bool cooperative = Cooperative(rk);
  if (!starts) {
    Defer(std::move(starts).error());
    // Nothing of this assignment is read: the group still counts the partitions as ours until
    // the caller closes or the next rebalance.
    if (cooperative) {
      ErrorPtr(rd_kafka_incremental_assign(rk, nullptr));
    } else {
      rd_kafka_assign(rk, nullptr);
    }
    RefreshAssignment();
    return;
  }
  for (int i = 0; i < partitions->cnt; ++i) {
    rd_kafka_topic_partition_t& p = partitions->elems[i];
    auto it = starts->find({p.topic, p.partition});
    // Not given: the group's committed offset, else auto.offset.reset.
    p.offset = it == starts->end() ? RD_KAFKA_OFFSET_INVALID : it->second;
  }
  if (cooperative) {
    if (ErrorPtr error{rd_kafka_incremental_assign(rk, partitions)}) {
      Defer(Error(ErrorCode::kIoError,
                  std::string("Kafka assign failed: ") + rd_kafka_error_string(error.get())));
    }
  } else if (rd_kafka_resp_err_t err = rd_kafka_assign(rk, partitions)) {
    Defer(Error(ErrorCode::kIoError, std::string("Kafka assign failed: ") + rd_kafka_err2str(err)));
  }
  for (const auto& tp : tps) at_end.erase(tp);
  RefreshAssignment();
}

void KafkaConsumer::State::Revoke(rd_kafka_topic_partition_list_t* partitions) {
  std::vector<TopicPartition> tps = ToVector(partitions);
  if (!tps.empty() && on_revoke) on_revoke(tps);
  std::erase_if(batch, [&](const KafkaMessage& m) {
    return std::binary_search(tps.begin(), tps.end(), TopicPartition{m.topic, m.partition});
  });
  if (Cooperative(rk)) {
    ErrorPtr(rd_kafka_incremental_unassign(rk, partitions));
  } else {
    rd_kafka_assign(rk, nullptr);
  }
  for (const auto& tp : tps) at_end.erase(tp);
  RefreshAssignment();
}

KafkaConsumer::KafkaConsumer(std::unique_ptr<State> state) : state_(std::move(state)) {}

KafkaConsumer::~KafkaConsumer() { (void)Close(); }

Result<std::unique_ptr<KafkaConsumer>> KafkaConsumer::Create(const KafkaConsumerOptions& options,
                                                             OnAssign on_assign,
                                                             OnRevoke on_revoke) {
  if (options.brokers.empty()) return InvalidArgument("Kafka consumer: no brokers given");
  if (options.group_id.empty()) return InvalidArgument("Kafka consumer: no group id given");
  if (options.topics.empty()) return InvalidArgument("Kafka consumer: no topics given");
  if (!on_assign) return InvalidArgument("Kafka consumer: no OnAssign callback");
  auto state = std::make_unique<State>();
  state->on_assign = std::move(on_assign);
  state->on_revoke = std::move(on_revoke);

  ConfPtr conf = NewConf(state.get());
  rd_kafka_conf_set_rebalance_cb(conf.get(), State::OnRebalance);
  rd_kafka_conf_set_error_cb(conf.get(), State::OnError);
  SLUICE_TRY(
      SetAll(conf.get(), {
                             {"bootstrap.servers", options.brokers},
                             {"group.id", options.group_id},
                             {"client.id", options.client_id},
                             {"enable.auto.commit", "false"},
                             {"enable.auto.offset.store", "false"},
                             {"enable.partition.eof", "true"},
                             {"auto.offset.reset", "earliest"},
                             {"partition.assignment.strategy", "range"},
                             {"session.timeout.ms", std::to_string(options.session_timeout_ms)},
                         }));
  SLUICE_TRY(SetAll(conf.get(), options.config));
  SLUICE_ASSIGN_OR_RETURN(state->rk, NewHandle(RD_KAFKA_CONSUMER, std::move(conf)));
  // Every event, rebalances included, is served by Poll on the caller's thread.
  rd_kafka_poll_set_consumer(state->rk);

  ListPtr topics(rd_kafka_topic_partition_list_new(static_cast<int>(options.topics.size())));
  for (const auto& topic : options.topics) {
    rd_kafka_topic_partition_list_add(topics.get(), topic.c_str(), RD_KAFKA_PARTITION_UA);
  }
  std::unique_ptr<KafkaConsumer> consumer(new KafkaConsumer(std::move(state)));
  if (rd_kafka_resp_err_t err = rd_kafka_subscribe(consumer->state_->rk, topics.get())) {
    return InvalidArgument(std::string("Kafka subscribe failed: ") + rd_kafka_err2str(err));
  }
  return consumer;
}

Result<std::vector<KafkaMessage>> KafkaConsumer::Poll(size_t max_messages, int timeout_ms) {
  State& s = *state_;
  if (s.rk == nullptr) return InvalidArgument("Kafka consumer is closed");
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  s.batch.clear();
  while (!s.pending && s.batch.size() < max_messages) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(s.rk, RemainingMs(deadline));
    if (m == nullptr) {
      if (Clock::now() >= deadline) break;
      continue;
    }
    std::unique_ptr<rd_kafka_message_t, decltype(&rd_kafka_message_destroy)> owned(
        m, rd_kafka_message_destroy);
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      s.batch.push_back(ToMessage(*m));
      if (!s.at_end.empty()) s.at_end.erase({s.batch.back().topic, s.batch.back().partition});
      continue;
    }
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      s.at_end.insert({rd_kafka_topic_name(m->rkt), m->partition});
      if (s.AllAtEnd()) break;
      continue;
    }
    std::string where = m->rkt != nullptr ? ToString({rd_kafka_topic_name(m->rkt), m->partition})
                                          : std::string("Kafka consumer");
    std::string reason = rd_kafka_message_errstr(m);
    bool missing = m->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
                   m->err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
                   m->err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION;
    s.Defer(Error(missing ? ErrorCode::kNotFound : ErrorCode::kIoError, where + ": " + reason));
  }
  std::vector<KafkaMessage> out = std::exchange(s.batch, {});
  // Messages read before an error are returned first; the error comes with the next Poll.
  if (out.empty() && s.pending) {
    Error error = std::move(*s.pending);
    s.pending.reset();
    return Fail(std::move(error));
  }
  return out;
}

std::vector<TopicPartition> KafkaConsumer::Assignment() const {
  return {state_->assigned.begin(), state_->assigned.end()};
}

bool KafkaConsumer::AtEnd(const TopicPartition& tp) const { return state_->at_end.contains(tp); }

Result<std::pair<int64_t, int64_t>> KafkaConsumer::Watermarks(const TopicPartition& tp,
                                                              int timeout_ms) {
  if (state_->rk == nullptr) return InvalidArgument("Kafka consumer is closed");
  int64_t low = 0;
  int64_t high = 0;
  if (rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(
          state_->rk, tp.topic.c_str(), tp.partition, &low, &high, timeout_ms)) {
    std::string message = "watermarks of " + ToString(tp) + ": " + rd_kafka_err2str(err);
    if (err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) return NotFound(message);
    return IoError(WithLastWarning(std::move(message), *state_));
  }
  return std::pair{low, high};
}

Result<std::vector<int32_t>> KafkaConsumer::Partitions(const std::string& topic, int timeout_ms) {
  if (state_->rk == nullptr) return InvalidArgument("Kafka consumer is closed");
  // All topics rather than this one: a request naming a missing topic may create it (brokers
  // with auto-creation on and older protocol versions; librdkafka's mock always does).
  const rd_kafka_metadata_t* metadata = nullptr;
  if (rd_kafka_resp_err_t err = rd_kafka_metadata(state_->rk, 1, nullptr, &metadata, timeout_ms)) {
    return IoError(WithLastWarning(
        "metadata of Kafka topic '" + topic + "': " + rd_kafka_err2str(err), *state_));
  }
  std::unique_ptr<const rd_kafka_metadata_t, decltype(&rd_kafka_metadata_destroy)> owned(
      metadata, rd_kafka_metadata_destroy);
  for (int i = 0; i < metadata->topic_cnt; ++i) {
    const rd_kafka_metadata_topic_t& t = metadata->topics[i];
    if (topic != t.topic) continue;
    if (t.err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
      return NotFound("Kafka topic '" + topic + "' does not exist");
    }
    if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return IoError("metadata of Kafka topic '" + topic + "': " + rd_kafka_err2str(t.err));
    }
    std::vector<int32_t> ids;
    for (int p = 0; p < t.partition_cnt; ++p) ids.push_back(t.partitions[p].id);
    std::sort(ids.begin(), ids.end());
    return ids;
  }
  return NotFound("Kafka topic '" + topic + "' does not exist");
}

Status KafkaConsumer::CommitOffsets(const std::map<TopicPartition, int64_t>& next_offsets) {
  if (state_->rk == nullptr) return InvalidArgument("Kafka consumer is closed");
  // An empty list would mean "the current positions" to librdkafka; nothing to record here.
  if (next_offsets.empty()) return Ok();
  ListPtr list = ToList(next_offsets);
  if (rd_kafka_resp_err_t err = rd_kafka_commit(state_->rk, list.get(), 0)) {
    return IoError(WithLastWarning(
        std::string("Kafka offset commit failed: ") + rd_kafka_err2str(err), *state_));
  }
  for (int i = 0; i < list->cnt; ++i) {
    if (list->elems[i].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return IoError("Kafka offset commit of " +
                     ToString({list->elems[i].topic, list->elems[i].partition}) +
                     " failed: " + rd_kafka_err2str(list->elems[i].err));
    }
  }
  return Ok();
}

Result<std::map<TopicPartition, int64_t>> KafkaConsumer::Committed(
    const std::vector<TopicPartition>& tps, int timeout_ms) {
  if (state_->rk == nullptr) return InvalidArgument("Kafka consumer is closed");
  std::map<TopicPartition, int64_t> out;
  if (tps.empty()) return out;
  std::map<TopicPartition, int64_t> ask;
  for (const TopicPartition& tp : tps) ask[tp] = RD_KAFKA_OFFSET_INVALID;
  ListPtr list = ToList(ask);
  if (rd_kafka_resp_err_t err = rd_kafka_committed(state_->rk, list.get(), timeout_ms)) {
    return IoError(
        WithLastWarning(std::string("Kafka committed offsets: ") + rd_kafka_err2str(err), *state_));
  }
  for (int i = 0; i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& e = list->elems[i];
    if (e.err == RD_KAFKA_RESP_ERR_NO_ERROR && e.offset >= 0) {
      out[{e.topic, e.partition}] = e.offset;
    }
  }
  return out;
}

Status KafkaConsumer::Seek(const TopicPartition& tp, int64_t offset, int timeout_ms) {
  if (state_->rk == nullptr) return InvalidArgument("Kafka consumer is closed");
  if (!state_->assigned.contains(tp)) {
    return InvalidArgument("cannot seek " + ToString(tp) + ": not assigned to this consumer");
  }
  ListPtr list = ToList({{tp, offset}});
  if (ErrorPtr error{rd_kafka_seek_partitions(state_->rk, list.get(), timeout_ms)}) {
    return IoError("seek " + ToString(tp) + " to " + std::to_string(offset) + ": " +
                   rd_kafka_error_string(error.get()));
  }
  if (list->elems[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return IoError("seek " + ToString(tp) + " to " + std::to_string(offset) + ": " +
                   rd_kafka_err2str(list->elems[0].err));
  }
  state_->at_end.erase(tp);
  return Ok();
}

Status KafkaConsumer::Close() {
  if (!state_ || state_->rk == nullptr) return Ok();
  // Runs the revoke callback and sends LeaveGroup, so the group rebalances at once instead of
  // waiting out the session timeout.
  rd_kafka_resp_err_t err = rd_kafka_consumer_close(state_->rk);
  rd_kafka_destroy(state_->rk);
  state_->rk = nullptr;
  state_->assigned.clear();
  state_->at_end.clear();
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return IoError(std::string("Kafka consumer close: ") + rd_kafka_err2str(err));
  }
  return Ok();
}

// ---------------------------------------------------------------------------------------------
// KafkaProducer

struct KafkaProducer::State : HandleContext {
  rd_kafka_t* rk = nullptr;
  std::optional<std::string> delivery_error;
  int64_t failed = 0;

  static void OnDelivery(rd_kafka_t* rk, const rd_kafka_message_t* m, void* opaque);
};

void KafkaProducer::State::OnDelivery(rd_kafka_t* /*rk*/, const rd_kafka_message_t* m,
                                      void* opaque) {
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) return;
  auto* state = static_cast<State*>(static_cast<HandleContext*>(opaque));
  ++state->failed;
  if (!state->delivery_error) {
    state->delivery_error = "delivery to " + ToString({rd_kafka_topic_name(m->rkt), m->partition}) +
                            " failed: " + rd_kafka_err2str(m->err);
  }
}

KafkaProducer::KafkaProducer(std::unique_ptr<State> state) : state_(std::move(state)) {}

KafkaProducer::~KafkaProducer() {
  if (state_ && state_->rk != nullptr) rd_kafka_destroy(state_->rk);
}

Result<std::unique_ptr<KafkaProducer>> KafkaProducer::Create(
    const std::string& brokers, const std::vector<std::pair<std::string, std::string>>& config) {
  if (brokers.empty()) return InvalidArgument("Kafka producer: no brokers given");
  auto state = std::make_unique<State>();
  ConfPtr conf = NewConf(state.get());
  rd_kafka_conf_set_dr_msg_cb(conf.get(), State::OnDelivery);
  SLUICE_TRY(SetAll(conf.get(), {{"bootstrap.servers", brokers},
                                 {"client.id", "sluice-producer"},
                                 {"partitioner", "murmur2_random"}}));
  SLUICE_TRY(SetAll(conf.get(), config));
  SLUICE_ASSIGN_OR_RETURN(state->rk, NewHandle(RD_KAFKA_PRODUCER, std::move(conf)));
  return std::unique_ptr<KafkaProducer>(new KafkaProducer(std::move(state)));
}

Status KafkaProducer::Produce(const std::string& topic, int32_t partition,
                              std::optional<std::string_view> key,
                              std::optional<std::string_view> value,
                              const std::vector<KafkaHeader>& headers, int64_t timestamp_ms) {
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(10);
  while (true) {
    std::vector<rd_kafka_vu_t> vus(6);
    vus[0].vtype = RD_KAFKA_VTYPE_TOPIC;
    vus[0].u.cstr = topic.c_str();
    vus[1].vtype = RD_KAFKA_VTYPE_PARTITION;
    vus[1].u.i32 = partition < 0 ? RD_KAFKA_PARTITION_UA : partition;
    vus[2].vtype = RD_KAFKA_VTYPE_KEY;
    vus[2].u.mem = {key ? const_cast<char*>(key->data()) : nullptr, key ? key->size() : 0};
    vus[3].vtype = RD_KAFKA_VTYPE_VALUE;
    vus[3].u.mem = {value ? const_cast<char*>(value->data()) : nullptr, value ? value->size() : 0};
    vus[4].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
    vus[4].u.i = RD_KAFKA_MSG_F_COPY;
    vus[5].vtype = RD_KAFKA_VTYPE_TIMESTAMP;
    vus[5].u.i64 = timestamp_ms;
    // Each attempt builds its own header list: librdkafka owns it once the message is queued.
    rd_kafka_headers_t* hdrs = nullptr;
    if (!headers.empty()) {
      hdrs = rd_kafka_headers_new(headers.size());
      for (const auto& h : headers) {
        rd_kafka_header_add(hdrs, h.key.data(), static_cast<ssize_t>(h.key.size()),
                            h.value ? h.value->data() : nullptr,
                            h.value ? static_cast<ssize_t>(h.value->size()) : 0);
      }
      rd_kafka_vu_t v{};
      v.vtype = RD_KAFKA_VTYPE_HEADERS;
      v.u.headers = hdrs;
      vus.push_back(v);
    }
    ErrorPtr error{rd_kafka_produceva(state_->rk, vus.data(), vus.size())};
    if (!error) break;
    if (hdrs != nullptr) rd_kafka_headers_destroy(hdrs);
    if (rd_kafka_error_code(error.get()) != RD_KAFKA_RESP_ERR__QUEUE_FULL ||
        Clock::now() >= deadline) {
      return IoError("produce to " + ToString({topic, partition}) + ": " +
                     rd_kafka_error_string(error.get()));
    }
    rd_kafka_poll(state_->rk, 50);  // serve delivery reports to make room
  }
  rd_kafka_poll(state_->rk, 0);
  return Ok();
}

Status KafkaProducer::Flush(int timeout_ms) {
  rd_kafka_resp_err_t err = rd_kafka_flush(state_->rk, timeout_ms);
  std::optional<std::string> failure = std::exchange(state_->delivery_error, std::nullopt);
  int64_t failed = std::exchange(state_->failed, 0);
  if (failure) {
    return IoError(*failure + " (" + std::to_string(failed) + " message(s) not delivered)");
  }
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return IoError(WithLastWarning("Kafka flush: " + std::to_string(rd_kafka_outq_len(state_->rk)) +
                                       " message(s) still queued after " +
                                       std::to_string(timeout_ms) + " ms",
                                   *state_));
  }
  return Ok();
}

// ---------------------------------------------------------------------------------------------
// MockKafkaCluster

struct MockKafkaCluster::State : HandleContext {
  rd_kafka_t* rk = nullptr;  // hosts the cluster's threads
  rd_kafka_mock_cluster_t* cluster = nullptr;
};

MockKafkaCluster::MockKafkaCluster(std::unique_ptr<State> state) : state_(std::move(state)) {}

MockKafkaCluster::~MockKafkaCluster() {
  if (!state_) return;
  if (state_->cluster != nullptr) rd_kafka_mock_cluster_destroy(state_->cluster);
  if (state_->rk != nullptr) rd_kafka_destroy(state_->rk);
}

Result<std::unique_ptr<MockKafkaCluster>> MockKafkaCluster::Start(int brokers) {
  if (brokers < 1) return InvalidArgument("mock Kafka cluster needs at least one broker");
  auto state = std::make_unique<State>();
  SLUICE_ASSIGN_OR_RETURN(state->rk, NewHandle(RD_KAFKA_PRODUCER, NewConf(state.get())));
  std::unique_ptr<MockKafkaCluster> mock(new MockKafkaCluster(std::move(state)));
  mock->state_->cluster = rd_kafka_mock_cluster_new(mock->state_->rk, brokers);
  if (mock->state_->cluster == nullptr) {
    return Internal(WithLastWarning("cannot start a mock Kafka cluster", *mock->state_));
  }
  return mock;
}

std::string MockKafkaCluster::bootstrap() const {
  return rd_kafka_mock_cluster_bootstraps(state_->cluster);
}

Status MockKafkaCluster::CreateTopic(const std::string& topic, int partitions, int replication) {
  if (topic.empty()) return InvalidArgument("mock Kafka topic: empty name");
  if (partitions < 1 || replication < 1) {
    return InvalidArgument("mock Kafka topic '" + topic + "': needs at least one partition and " +
                           "one replica");
  }
  rd_kafka_resp_err_t err =
      rd_kafka_mock_topic_create(state_->cluster, topic.c_str(), partitions, replication);
  if (err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
    return AlreadyExists("mock Kafka topic '" + topic + "' already exists");
  }
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return InvalidArgument("mock Kafka topic '" + topic + "': " + rd_kafka_err2str(err));
  }
  return Ok();
}

}  // namespace sluice::ingest
