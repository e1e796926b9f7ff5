#include "sluice/ingest/kafka_ingest.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <set>
#include <thread>
#include <utility>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/data/avro_binary.h"
#include "sluice/data/avro_container.h"
#include "sluice/data/wire_format.h"
#include "sluice/dialects/avro/avro_convert.h"
#include "sluice/ingest/batch_internal.h"
#include "sluice/ingest/inference.h"
#include "sluice/ingest/kafka_client.h"
#include "sluice/ingest/schema_evolution.h"
#include "sluice/ingest/source_internal.h"
#include "sluice/registry/client.h"
#include "sluice/table/snapshot.h"

namespace sluice::ingest {
namespace {

using schema::Field;
using schema::Type;

std::string AppId(const std::string& group, const TopicPartition& tp) {
  return "kafka:" + group + ":" + tp.topic + ":" + std::to_string(tp.partition);
}

// Spark's Kafka source columns (key and header values as binary, base64 in the records).
std::vector<Field> MetadataFields() {
  auto header = Type::Struct({Field("key", Type::String()), Field("value", Type::Binary())});
  return {Field("key", Type::Binary()),           Field("topic", Type::String()),
          Field("partition", Type::Int32()),      Field("offset", Type::Int64()),
          Field("timestamp", Type::Timestamp()),  Field("timestampType", Type::Int32()),
          Field("headers", *Type::Array(*header))};
}

std::string Base64(std::string_view bytes) { return Base64Encode(bytes); }

// A Kafka timestamp (ms since the epoch) as the ISO 8601 instant the validator reads.
std::string IsoInstant(int64_t ms) {
  int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  const int64_t millis = ms - secs * 1000;
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("\"{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z\"", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
}

// Appends Spark's Kafka columns to a record's JSON object text (`{...}`), but for those named in
// `taken` (ASCII lower case): names a field of the batch's values holds, which wins.
void AppendMetadata(const KafkaMessage& m, const std::set<std::string>& taken, std::string& line) {
  line.pop_back();  // the closing brace
  auto add = [&](std::string_view key, const std::string& json) {
    if (taken.contains(AsciiLower(key))) return;
    if (line.size() > 1) line += ',';
    JsonWriter w;
    w.String(key);
    line += w.str();
    line += ':';
    line += json;
  };
  auto str = [](std::string_view s) {
    JsonWriter w;
    w.String(s);
    return w.str();
  };
  add("key", m.key ? str(Base64(*m.key)) : "null");
  add("topic", str(m.topic));
  add("partition", std::to_string(m.partition));
  add("offset", std::to_string(m.offset));
  add("timestamp", m.timestamp_type < 0 ? "null" : IsoInstant(m.timestamp_ms));
  add("timestampType", std::to_string(m.timestamp_type));
  std::string headers = "[";
  for (const KafkaHeader& h : m.headers) {
    if (headers.size() > 1) headers += ',';
    headers +=
        "{\"key\":" + str(h.key) + ",\"value\":" + (h.value ? str(Base64(*h.value)) : "null") + "}";
  }
  add("headers", headers + "]");
  line += '}';
}

std::string PoisonLine(const KafkaMessage& m, const std::string& reason) {
  JsonValue line = JsonValue::Object();
  line.Set("topic", JsonValue::String(m.topic));
  line.Set("partition", JsonValue::Int(m.partition));
  line.Set("offset", JsonValue::Int(m.offset));
  line.Set("error", JsonValue::String(reason));
  JsonValue violation = JsonValue::Object();
  violation.Set("path", JsonValue::String(""));
  violation.Set("kind", JsonValue::String("undecodable"));
  JsonValue violations = JsonValue::Array();
  violations.Append(std::move(violation));
  line.Set("violations", std::move(violations));
  line.Set("raw", m.value ? JsonValue::String(Base64(*m.value)) : JsonValue::Null());
  line.Set("raw_encoding", JsonValue::String("base64"));
  return ToJson(line) + "\n";
}

// Whether a 404's body is Confluent's "schema not found" (error_code 40403): the one answer that
// says the id is unknown. Any other 404 (a wrong path, a web server that is not a registry)
// says nothing about the id.
bool IsSchemaNotFound(std::string_view body) {
  auto parsed = ParseJson(body);
  if (!parsed.has_value() || !parsed->is_object()) return false;
  const JsonValue* code = parsed->Find("error_code");
  return code != nullptr && code->is_number() && code->as_int64() == 40403;
}

// The writer schemas of a topic, fetched from the registry once each.
class WriterSchemas {
 public:
  WriterSchemas(std::unique_ptr<registry::Client> client, std::string url)
      : client_(std::move(client)),
        url_(std::move(url)),
        cache_([this](int32_t id) -> Result<std::string> { return Fetch(id); }) {}

  struct Writer {
    std::shared_ptr<const dialects::avro::AvroSchema> schema;
    std::shared_ptr<const data::AvroDecoder> decoder;
    schema::SchemaPtr model;
  };

  /// The writer of `id`. kNotFound when the registry says the id is unknown (the message is
  /// poison); kIoError when the registry cannot be asked or does not answer as one (the run
  /// stops: every message would be quarantined for the registry's fault).
  Result<const Writer*> Get(int32_t id) {
    if (auto it = writers_.find(id); it != writers_.end()) return &it->second;
    SLUICE_ASSIGN_OR_RETURN(auto parsed, cache_.Get(id));
    SLUICE_ASSIGN_OR_RETURN(data::AvroDecoder decoder, data::AvroDecoder::Make(*parsed));
    SLUICE_ASSIGN_OR_RETURN(auto model, dialects::avro::ToModel(*parsed));
    Writer w{parsed, std::make_shared<const data::AvroDecoder>(std::move(decoder)), model.value};
    return &writers_.emplace(id, std::move(w)).first->second;
  }

 private:
  Result<std::string> Fetch(int32_t id) {
    if (client_ == nullptr) return InvalidArgument("no --registry to look schema ids up in");
    const std::string path = "/schemas/ids/" + std::to_string(id);
    SLUICE_ASSIGN_OR_RETURN(registry::HttpReply reply, client_->Call("GET", path));
    auto broken = [&](std::string_view what) {
      return IoError(fmt::format(
          "the registry at {} is not a schema registry: GET {} answered {}{} (is --registry the "
          "registry's base URL?); nothing was read",
          url_, path, reply.status, what));
    };
    if (reply.status == 404) {
      if (IsSchemaNotFound(reply.body)) {
        return NotFound(fmt::format("schema id {} is not in the registry", id));
      }
      return broken(" without Confluent's \"schema not found\" (error_code 40403): " +
                    EscapeForMessage(registry::Client::ErrorMessage(reply), 120));
    }
    if (reply.status != 200) {
      return IoError(fmt::format("the registry answered {} for schema id {}: {}", reply.status, id,
                                 registry::Client::ErrorMessage(reply)));
    }
    auto body = ParseJson(reply.body);
    const JsonValue* text = body.has_value() && body->is_object() ? body->Find("schema") : nullptr;
    if (text == nullptr || !text->is_string()) {
      return broken(" with a body that is not a schema (no \"schema\" string)");
    }
    if (const JsonValue* t = body->Find("schemaType");
        t != nullptr && t->is_string() && t->as_string() != "AVRO") {
      return InvalidArgument(fmt::format("schema id {} is {}, not Avro", id, t->as_string()));
    }
    return text->as_string();
  }

  std::unique_ptr<registry::Client> client_;
  std::string url_;
  data::SchemaCache cache_;
  std::map<int32_t, Writer> writers_;
};

class KafkaIngest {
 public:
  KafkaIngest(const IngestOptions& options, const KafkaIngestOptions& kafka,
              const RunControl& control, Checkpoint& checkpoint,
              std::unique_ptr<registry::Client> registry)
      : options_(options),
        kafka_(kafka),
        control_(control),
        checkpoint_(checkpoint),
        location_(options.fs,
                  options.schema_location.empty() ? options.checkpoint : options.schema_location),
        writers_(std::move(registry), kafka.registry_url) {}

  Result<IngestRun> Run() {
    run_.checkpoint_id = checkpoint_.id();
    SLUICE_TRY(RecoverOpenBatch());
    SLUICE_ASSIGN_OR_RETURN(delivered_, checkpoint_.OffsetsOutsideTable());
    KafkaConsumerOptions co;
    co.brokers = kafka_.brokers;
    co.group_id = kafka_.group_id;
    co.topics = {kafka_.topic};
    co.config = kafka_.config;
    SLUICE_ASSIGN_OR_RETURN(
        consumer_, KafkaConsumer::Create(
                       co, [this](const std::vector<TopicPartition>& tps) { return Assign(tps); },
                       [this](const std::vector<TopicPartition>& tps) { Revoke(tps); }));
    Status loop = Loop();
    Status closed = consumer_->Close();
    SLUICE_TRY(loop);
    (void)closed;  // leaving the group cleanly is best effort: the table holds the offsets
    if (runner_) run_.schema_version = runner_->schema().version;
    return std::move(run_);
  }

 private:
  bool Stopping() const { return control_.stop != nullptr && control_.stop->load(); }

  // A batch a crashed run left: finished when its commit is in the table, else forgotten (its
  // messages are read again from the offsets the table holds).
  Status RecoverOpenBatch() {
    SLUICE_ASSIGN_OR_RETURN(std::optional<Batch> open, checkpoint_.OpenBatch());
    if (open) {
      SLUICE_TRY(Ready(nullptr));
      SLUICE_ASSIGN_OR_RETURN(std::optional<BatchReport> recovered, runner_->Recover(*open));
      if (recovered) {
        Report(std::move(*recovered));
      } else {
        SLUICE_TRY(checkpoint_.Drop(open->id));
      }
    }
    // Staged lines serve only the write of their own batch, and no batch is being written now:
    // whatever a crash left in the staging folder is never read again.
    return RemoveStaged();
  }

  Status RemoveStaged() {
    const std::string dir = options_.checkpoint + "/staging";
    auto names = options_.fs->ListDir(dir);
    if (!names.has_value()) {
      if (names.error().code() == ErrorCode::kNotFound) return Ok();
      return Fail(names.error());
    }
    for (const std::string& name : *names) {
      if (name.starts_with("batch-") && name.ends_with(".jsonl")) {
        SLUICE_TRY(options_.fs->RemoveFile(dir + "/" + name));
      }
    }
    return Ok();
  }

  // The table's schema; null when there is no table yet.
  Result<schema::SchemaPtr> TableSchema() {
    auto snapshot = table::LoadSnapshot(*options_.fs, options_.table);
    if (!snapshot.has_value()) {
      if (snapshot.error().code() == ErrorCode::kNotFound) return schema::SchemaPtr();
      return Fail(snapshot.error());
    }
    return snapshot->schema;
  }

  Result<std::map<std::string, int64_t, std::less<>>> TableOffsets() {
    auto snapshot = table::LoadSnapshot(*options_.fs, options_.table);
    if (!snapshot.has_value()) {
      if (snapshot.error().code() == ErrorCode::kNotFound) {
        return std::map<std::string, int64_t, std::less<>>();
      }
      return Fail(snapshot.error());
    }
    return std::move(snapshot->app_versions);
  }

  Result<std::map<TopicPartition, int64_t>> Assign(const std::vector<TopicPartition>& tps) {
    SLUICE_ASSIGN_OR_RETURN(auto held, TableOffsets());
    // Where the table holds no offset yet, the group's committed one: a start resolved from
    // --starting-offsets is committed to the group at once (below), so a restart or another
    // member goes on from it rather than from a new "latest".
    SLUICE_ASSIGN_OR_RETURN(auto committed, consumer_->Committed(tps, 10000));
    std::map<TopicPartition, int64_t> start;
    for (const TopicPartition& tp : tps) {
      Drop(tp);
      ever_assigned_ = true;
      SLUICE_ASSIGN_OR_RETURN(auto marks, consumer_->Watermarks(tp, 10000));
      auto it = held.find(AppId(kafka_.group_id, tp));
      int64_t from = 0;
      if (it != held.end()) {
        from = it->second;
        // As Spark's failOnDataLoss: offsets the table expects that the partition no longer
        // has (retention, a topic created again) stop the run rather than skip silently.
        if (from < marks.first || from > marks.second) {
          return Fail(ErrorCode::kConflict,
                      fmt::format("{}: the table goes on from offset {}, but the partition holds "
                                  "offsets {} to {}: messages were lost (retention) or the topic "
                                  "was created again",
                                  ToString(tp), from, marks.first, marks.second));
        }
      } else {
        // A batch of poison messages only, read before the table existed, has its offsets in
        // the group and in this checkpoint: the group's commit follows the batch's delivery, so
        // a crash between the two leaves them in the checkpoint alone.
        auto c = committed.find(tp);
        auto d = delivered_.find({tp.topic, tp.partition});
        if (d != delivered_.end() && (c == committed.end() || c->second < d->second)) {
          from = std::clamp(d->second, marks.first, marks.second);
          pending_starts_[tp] = from;
        } else if (c != committed.end()) {
          from = std::clamp(c->second, marks.first, marks.second);
        } else {
          from = kafka_.start_at_earliest ? marks.first : marks.second;
          pending_starts_[tp] = from;
        }
      }
      start[tp] = from;
      next_[tp] = from;
      end_[tp] = marks.second;
    }
    return start;
  }

  void Revoke(const std::vector<TopicPartition>& tps) {
    for (const TopicPartition& tp : tps) {
      Drop(tp);
      next_.erase(tp);
      end_.erase(tp);
    }
  }

  // Forget buffered messages of `tp`: its next owner reads them from the table's offset.
  void Drop(const TopicPartition& tp) {
    std::erase_if(buffer_, [&](const KafkaMessage& m) {
      return m.topic == tp.topic && m.partition == tp.partition;
    });
  }

  bool AllAtEnd() const {
    if (next_.empty()) return false;
    for (const auto& [tp, next] : next_) {
      auto it = end_.find(tp);
      if (it != end_.end() && next < it->second && !consumer_->AtEnd(tp)) return false;
    }
    return true;
  }

  Status Loop() {
    const auto started = std::chrono::steady_clock::now();
    auto last_message = std::chrono::steady_clock::now();
    for (;;) {
      if (Stopping() || run_.stopped) break;
      SLUICE_ASSIGN_OR_RETURN(std::vector<KafkaMessage> got,
                              consumer_->Poll(kafka_.max_messages_per_batch - buffer_.size(), 200));
      const auto now = std::chrono::steady_clock::now();
      for (KafkaMessage& m : got) {
        next_[{m.topic, m.partition}] = m.offset + 1;
        buffer_.push_back(std::move(m));
      }
      if (!got.empty()) last_message = now;
      if (!pending_starts_.empty()) {
        // Outside the rebalance callback: the start offsets resolved for new partitions.
        std::map<TopicPartition, int64_t> starts;
        for (const auto& [tp, offset] : pending_starts_) {
          if (next_.contains(tp)) starts[tp] = offset;
        }
        pending_starts_.clear();
        // A rebalance in progress refuses commits for a moment: tried again on the next turn
        // (for the partitions still ours).
        if (!consumer_->CommitOffsets(starts).has_value()) pending_starts_ = std::move(starts);
      }
      const bool full = buffer_.size() >= kafka_.max_messages_per_batch;
      const bool idle = now - last_message >= std::chrono::milliseconds(kafka_.idle_ms);
      const bool done = !control_.watch && AllAtEnd();
      if (!buffer_.empty() && (full || idle || done)) SLUICE_TRY(WriteBatch());
      if (!control_.watch) {
        // Asked again: a batch that lost a race was dropped and its partitions rewound.
        if (buffer_.empty() && AllAtEnd()) break;
        // A member the group gives no partition has nothing to read.
        if (!ever_assigned_ && now - started > std::chrono::seconds(30)) break;
      }
    }
    if (!buffer_.empty() && !run_.stopped) SLUICE_TRY(WriteBatch());
    return Ok();
  }

  // The runner, with the schema to read with: stored, given, or `first` (the first batch's).
  // Without any (a first batch of poison messages only), a provisional one that can only
  // deliver quarantine lines, replaced once a batch has records.
  Status Ready(schema::SchemaPtr first) {
    if (runner_ && !provisional_) return Ok();
    SLUICE_ASSIGN_OR_RETURN(std::optional<SchemaVersion> stored, location_.Latest());
    if (!stored && options_.schema == nullptr) {
      // A new checkpoint on a table that exists (a new member of the group) starts from the
      // table's schema, not from its first batch's: the batch's own fields are then judged by
      // the mode, as in any later batch (dropped in none, rescued in rescue, added in
      // addNewColumns), rather than refused by the table as columns it does not have.
      SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr table_schema, TableSchema());
      if (table_schema != nullptr) first = std::move(table_schema);
    }
    if (first == nullptr && !stored && options_.schema == nullptr) {
      if (!runner_) {
        SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr none, schema::Schema::Make({}));
        runner_.emplace(options_, checkpoint_, location_, SchemaVersion{-1, none, 0, ""});
        provisional_ = true;
      }
      return Ok();
    }
    SLUICE_ASSIGN_OR_RETURN(
        SchemaVersion current,
        EnsureSchema(options_, location_, [&]() -> Result<schema::SchemaPtr> { return first; }));
    runner_.reset();
    runner_.emplace(options_, checkpoint_, location_, std::move(current));
    provisional_ = false;
    return Ok();
  }

  // The validation's quarantine lines name the staged file and its line: they get the
  // message's topic, partition and offset instead.
  std::string Annotate(std::string_view lines) const {
    std::string out;
    size_t start = 0;
    while (start < lines.size()) {
      size_t end = lines.find('\n', start);
      if (end == std::string_view::npos) end = lines.size();
      std::string_view text = lines.substr(start, end - start);
      start = end + 1;
      auto parsed = ParseJson(text);
      const JsonValue* line = parsed.has_value() ? parsed->Find("line") : nullptr;
      if (line == nullptr || !line->is_number() || !line->as_int64() || *line->as_int64() < 1 ||
          static_cast<size_t>(*line->as_int64()) > staged_messages_.size()) {
        out.append(text);
        out += '\n';
        continue;
      }
      const KafkaMessage& m = *staged_messages_[static_cast<size_t>(*line->as_int64()) - 1];
      for (const char* key : {"file", "line", "offset", "error_offset"}) parsed->Remove(key);
      JsonValue annotated = JsonValue::Object();
      annotated.Set("topic", JsonValue::String(m.topic));
      annotated.Set("partition", JsonValue::Int(m.partition));
      annotated.Set("offset", JsonValue::Int(m.offset));
      for (const JsonMember& member : parsed->members()) annotated.Set(member.key, member.value);
      // The message's own bytes, as a poison message's line holds them, not the staged line.
      annotated.Set("raw", m.value ? JsonValue::String(Base64(*m.value)) : JsonValue::Null());
      annotated.Set("raw_encoding", JsonValue::String("base64"));
      out += ToJson(annotated);
      out += '\n';
    }
    return out;
  }

  // The metadata columns a batch writes: Spark's, but for those a field of the values takes
  // (names compared ignoring ASCII case, as Delta compares them): the batch's values' own
  // fields, and the fields of the schema read with whose names differ from a metadata column's
  // in case only (a value field that won in an earlier batch).
  std::set<std::string> TakenMetadataNames() const {
    std::set<std::string> taken = value_keys_;
    if (runner_ && !provisional_) {
      for (const Field& f : runner_->schema().schema->fields()) {
        for (const Field& meta : MetadataFields()) {
          if (f.name() != meta.name() && EqualsIgnoreCase(f.name(), meta.name())) {
            taken.insert(AsciiLower(meta.name()));
          }
        }
      }
    }
    return taken;
  }

  // The batch's value schema (Avro: its writers', merged) with the metadata columns not taken.
  Result<schema::SchemaPtr> WithMetadata(schema::SchemaPtr value_schema,
                                         const std::set<std::string>& taken) {
    if (!kafka_.with_metadata || value_schema == nullptr) return value_schema;
    std::vector<Field> fields = value_schema->fields();
    for (Field& f : MetadataFields()) {
      if (!taken.contains(AsciiLower(f.name()))) fields.push_back(f);
    }
    return schema::Schema::Make(std::move(fields));
  }

  // An inferred schema (JSON values) with the metadata columns typed as Spark's Kafka source
  // types them, where the values themselves have no field of that name.
  Result<schema::SchemaPtr> TypedMetadata(const schema::Schema& inferred) {
    if (!kafka_.with_metadata) return schema::Schema::FromStruct(inferred.struct_type());
    std::map<std::string, Field> typed;
    for (Field& f : MetadataFields()) typed.emplace(f.name(), f);
    std::vector<Field> fields;
    for (const Field& f : inferred.fields()) {
      auto it = typed.find(f.name());
      fields.push_back(it != typed.end() && !value_keys_.contains(AsciiLower(f.name())) ? it->second
                                                                                        : f);
    }
    return schema::Schema::Make(std::move(fields));
  }

  // Decode one message's value into `line` (a JSON object) and, when the format carries one,
  // `value_schema`; false with `reason` when it cannot be. The value's field names join
  // value_keys_.
  Result<bool> Decode(const KafkaMessage& m, std::string& line, schema::SchemaPtr& value_schema,
                      std::string& reason) {
    if (!m.value) {
      reason = "a null value (tombstone)";
      return false;
    }
    std::string_view payload = *m.value;
    if (kafka_.value_format == ValueFormat::kAvro ||
        kafka_.value_format == ValueFormat::kJsonSchema) {
      auto frame = data::ParseFrame(payload);
      if (!frame.has_value()) {
        reason = frame.error().message();
        return false;
      }
      payload = frame->payload;
      if (kafka_.value_format == ValueFormat::kAvro) {
        auto writer = writers_.Get(frame->schema_id);
        if (!writer.has_value()) {
          if (writer.error().code() == ErrorCode::kIoError) return Fail(writer.error());
          reason = writer.error().message();
          return false;
        }
        auto datum = (*writer)->decoder->Decode(payload);
        if (!datum.has_value()) {
          reason = fmt::format("schema id {}: {}", frame->schema_id, datum.error().message());
          return false;
        }
        data::AppendSparkAvroRow(*(*writer)->schema, *datum, line);
        value_schema = (*writer)->model;
        for (const Field& f : value_schema->fields()) value_keys_.insert(AsciiLower(f.name()));
        return true;
      }
    }
    if (kafka_.value_format == ValueFormat::kString) {
      JsonWriter w;
      // Spark's CAST(value AS STRING): each ill-formed sequence one U+FFFD, as Java decodes.
      w.String(ReplaceInvalidUtf8(payload));
      line = "{\"value\":" + w.str() + "}";
      value_schema = *schema::Schema::Make({Field("value", Type::String())});
      value_keys_.insert("value");
      return true;
    }
    auto parsed = ParseJson(payload);
    if (!parsed.has_value() || !parsed->is_object()) {
      reason = parsed.has_value() ? "the value is not a JSON object" : parsed.error().message();
      return false;
    }
    line = ToJson(*parsed);
    for (const JsonMember& member : parsed->members()) value_keys_.insert(AsciiLower(member.key));
    return true;
  }

  // The buffered messages decoded into a batch: its ranges and txns, the records staged as
  // JSON lines in the checkpoint folder, poison messages as quarantine lines.
  Result<BatchInput> Stage(Batch& batch, std::map<TopicPartition, PartitionRange>& ranges,
                           const std::string& staged) {
    BatchInput input;
    input.format = data::RecordFormat::kJsonLines;
    input.bytes = 0;
    std::vector<std::string> decoded;
    schema::SchemaPtr batch_schema;
    for (const KafkaMessage& m : buffer_) {
      TopicPartition tp{m.topic, m.partition};
      auto [it, fresh] = ranges.try_emplace(tp, PartitionRange{m.topic, m.partition, m.offset, 0});
      it->second.until = m.offset + 1;
      *input.bytes += (m.key ? m.key->size() : 0) + (m.value ? m.value->size() : 0);
      std::string line;
      schema::SchemaPtr value_schema;
      std::string reason;
      SLUICE_ASSIGN_OR_RETURN(bool ok, Decode(m, line, value_schema, reason));
      if (!ok) {
        input.source_quarantine += PoisonLine(m, reason);
        ++input.source_quarantined;
        ++input.source_malformed;
        continue;
      }
      decoded.push_back(std::move(line));
      staged_messages_.push_back(&m);
      if (value_schema == nullptr) continue;
      if (batch_schema == nullptr) {
        batch_schema = std::move(value_schema);
      } else if (!batch_schema->Equals(*value_schema)) {
        EvolveOptions eo;
        eo.widen = true;
        SLUICE_ASSIGN_OR_RETURN(SchemaEvolution merged,
                                EvolveSchema(*batch_schema, *value_schema, eo));
        batch_schema = merged.schema;
      }
    }
    std::string lines;
    if (kafka_.with_metadata) {
      // After every value is decoded: a field one value holds takes the metadata column's
      // place in every row of the batch.
      const std::set<std::string> taken = TakenMetadataNames();
      for (size_t i = 0; i < decoded.size(); ++i) {
        AppendMetadata(*staged_messages_[i], taken, decoded[i]);
      }
      SLUICE_ASSIGN_OR_RETURN(batch_schema, WithMetadata(std::move(batch_schema), taken));
    }
    for (const std::string& line : decoded) {
      lines += line;
      lines += '\n';
    }
    for (auto& [tp, range] : ranges) {
      batch.ranges.push_back(range);
      input.txns.push_back(table::Txn{AppId(kafka_.group_id, tp), range.until, std::nullopt});
    }
    if (!lines.empty()) {
      SLUICE_TRY(options_.fs->CreateDirs(options_.checkpoint + "/staging"));
      SLUICE_TRY(options_.fs->WriteFile(staged, lines));
      input.paths.push_back(staged);
      if (batch_schema == nullptr) {
        // JSON values: Auto Loader's inference over the batch, metadata columns typed.
        SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr inferred,
                                InferSchemaOf(options_, input.paths, input.format));
        SLUICE_ASSIGN_OR_RETURN(batch_schema, TypedMetadata(*inferred));
      }
    }
    SLUICE_TRY(Ready(batch_schema));
    input.batch_schema = batch_schema;
    input.annotate_quarantine = [this](std::string_view q) { return Annotate(q); };
    // No other member may have written these offsets since the partitions were assigned.
    input.check_snapshot = [this, ranges](const table::Snapshot* snapshot) -> Status {
      if (snapshot == nullptr) return Ok();
      for (const auto& [tp, range] : ranges) {
        auto it = snapshot->app_versions.find(AppId(kafka_.group_id, tp));
        if (it != snapshot->app_versions.end() && it->second > range.from) {
          return Fail(ErrorCode::kConflict,
                      fmt::format("{} was written up to offset {} by another member of group {}",
                                  ToString(tp), it->second, kafka_.group_id));
        }
      }
      return Ok();
    };
    return input;
  }

  // A concurrent commit won (another member wrote some of these offsets after a rebalance, or
  // created the table first): read each partition again from what the table holds, else from
  // the batch's first offset.
  Status Rewind(const std::map<TopicPartition, PartitionRange>& ranges) {
    SLUICE_ASSIGN_OR_RETURN(auto held, TableOffsets());
    for (const auto& [tp, range] : ranges) {
      if (!next_.contains(tp)) continue;  // no longer ours
      auto it = held.find(AppId(kafka_.group_id, tp));
      const int64_t from = it != held.end() ? std::max(it->second, range.from) : range.from;
      next_[tp] = from;
      SLUICE_TRY(consumer_->Seek(tp, from, 10000));
    }
    return Ok();
  }

  Status WriteBatch() {
    SLUICE_ASSIGN_OR_RETURN(int64_t id, checkpoint_.NextBatchId());
    Batch batch;
    batch.id = id;
    batch.started_ms = NowMs();
    std::map<TopicPartition, PartitionRange> ranges;
    const std::string staged =
        options_.checkpoint + "/staging/batch-" + std::to_string(id) + ".jsonl";
    SLUICE_ASSIGN_OR_RETURN(BatchInput input, Stage(batch, ranges, staged));
    SLUICE_TRY(checkpoint_.Plan(batch));
    CrashPoint("batch planned");
    auto outcome = runner_->Write(batch, input);
    buffer_.clear();
    staged_messages_.clear();
    value_keys_.clear();
    (void)options_.fs->RemoveFile(staged);
    if (!outcome.has_value()) {
      if (outcome.error().code() != ErrorCode::kConflict) return Fail(outcome.error());
      SLUICE_TRY(checkpoint_.Drop(batch.id));
      return Rewind(ranges);
    }
    if (outcome->stop) {
      run_.stopped = std::move(outcome->stop);
      return Ok();
    }
    std::map<TopicPartition, int64_t> commit;
    for (const auto& [tp, range] : ranges) {
      commit[tp] = range.until;
      if (outcome->report && outcome->report->table_version < 0) {
        delivered_[{tp.topic, tp.partition}] = range.until;  // the table holds none of these
      }
    }
    (void)consumer_->CommitOffsets(commit);  // informational: the table holds the offsets
    if (outcome->report) Report(std::move(*outcome->report));
    return Ok();
  }

  void Report(BatchReport report) {
    if (control_.on_batch) control_.on_batch(report);
    run_.batches.push_back(std::move(report));
  }

  const IngestOptions& options_;
  const KafkaIngestOptions& kafka_;
  const RunControl& control_;
  Checkpoint& checkpoint_;
  SchemaLocation location_;
  WriterSchemas writers_;
  std::unique_ptr<KafkaConsumer> consumer_;
  std::optional<BatchRunner> runner_;
  std::vector<KafkaMessage> buffer_;
  std::map<TopicPartition, int64_t> next_;
  std::map<TopicPartition, int64_t> end_;
  // Keys the batch's JSON values had, and the message of each staged line.
  std::set<std::string> value_keys_;
  std::vector<const KafkaMessage*> staged_messages_;
  bool provisional_ = false;
  bool ever_assigned_ = false;
  std::map<TopicPartition, int64_t> pending_starts_;
  // Next offsets of this checkpoint's batches that committed nothing to the table.
  std::map<std::pair<std::string, int32_t>, int64_t> delivered_;
  IngestRun run_;
};

}  // namespace

Result<ValueFormat> ParseValueFormat(std::string_view name) {
  if (name == "avro") return ValueFormat::kAvro;
  if (name == "json") return ValueFormat::kJson;
  if (name == "json-schema") return ValueFormat::kJsonSchema;
  if (name == "string") return ValueFormat::kString;
  return InvalidArgument("unknown value format '" + std::string(name) +
                         "' (avro, json, json-schema, string)");
}

Result<std::pair<std::string, std::string>> ParseKafkaSource(std::string_view source) {
  constexpr std::string_view kScheme = "kafka://";
  if (!source.starts_with(kScheme)) return InvalidArgument("not a kafka:// source");
  std::string_view rest = source.substr(kScheme.size());
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == rest.size()) {
    return InvalidArgument("a Kafka source is kafka://BROKERS/TOPIC, not '" + std::string(source) +
                           "'");
  }
  return std::pair<std::string, std::string>(std::string(rest.substr(0, slash)),
                                             std::string(rest.substr(slash + 1)));
}

Result<IngestRun> RunKafkaIngest(const IngestOptions& options, const KafkaIngestOptions& kafka,
                                 const RunControl& control) {
  if (kafka.group_id.empty()) return InvalidArgument("a Kafka ingest needs a --group-id");
  if (kafka.value_format == ValueFormat::kAvro && kafka.registry_url.empty()) {
    return InvalidArgument("Avro values need the --registry that holds their schemas");
  }
  std::unique_ptr<registry::Client> client;
  if (!kafka.registry_url.empty()) {
    registry::ClientOptions co;
    co.url = kafka.registry_url;
    co.user_info = kafka.registry_user_info;
    SLUICE_ASSIGN_OR_RETURN(client, registry::Client::Create(co));
  }
  const IngestOptions normal = WithNormalPaths(options);
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<Checkpoint> checkpoint, OpenCheckpoint(normal, "kafka"));
  KafkaIngest ingest(normal, kafka, control, *checkpoint, std::move(client));
  return ingest.Run();
}

}  // namespace sluice::ingest
