// The Kafka source end to end in this process: librdkafka's mock cluster, sluice's own registry
// on a loopback port, RunKafkaIngest into a Delta table on disk. Runs killed at a crash point
// (SLUICE_INGEST_CRASH_AT) are the sluice binary, against the same mock cluster.
#include "sluice/ingest/kafka_ingest.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/base/temp_dir_testing.h"
#include "sluice/data/avro_binary.h"
#include "sluice/data/wire_format.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/ingest/kafka_client.h"
#include "sluice/registry/client.h"
#include "sluice/registry/server.h"
#include "sluice/registry/store.h"
#include "sluice/table/history.h"
#include "sluice/table/scan.h"
#include "sluice/table/snapshot.h"
#include "sluice_test_paths.h"

namespace sluice::ingest {
namespace {

namespace fs = std::filesystem;

constexpr const char* kOrderV1 =
    R"({"type":"record","name":"Order","fields":[{"name":"id","type":"long"},)"
    R"({"name":"amt","type":"double"}]})";
constexpr const char* kOrderV2 =
    R"({"type":"record","name":"Order","fields":[{"name":"id","type":"long"},)"
    R"({"name":"amt","type":"double"},)"
    R"({"name":"coupon","type":["null","string"],"default":null}]})";

// An HTTP server on a loopback port: sluice's registry, or (registry null) a web server that
// answers every request with `status` and an HTML page.
class HttpServerForTest {
 public:
  explicit HttpServerForTest(bool registry, int status = 404) {
    std::unique_ptr<registry::Registry> reg;
    if (registry) {
      auto store = registry::Store::Open("sqlite::memory:");
      EXPECT_TRUE(store.has_value()) << store.error().message();
      if (!store) return;
      reg = std::make_unique<registry::Registry>(std::move(*store));
    }
    registry::ServerOptions so;
    so.port = 0;
    so.threads = 2;
    if (!registry) {
      so.handler = [status](registry::HttpRequest&, const registry::UserPolicy*) {
        registry::HttpResponse r;
        r.status = status;
        r.content_type = "text/html";
        r.body = "<html><body><h1>Not Found</h1></body></html>";
        return std::optional<registry::HttpResponse>(std::move(r));
      };
    }
    auto server = registry::Server::Create(std::move(reg), nullptr, so);
    EXPECT_TRUE(server.has_value()) << server.error().message();
    if (!server) return;
    server_ = std::move(*server);
    EXPECT_TRUE(server_->Bind().has_value());
    thread_ = std::thread([this] { (void)server_->Run(); });
  }
  ~HttpServerForTest() {
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }

  // Register `schema` under `subject`; the id.
  int32_t Register(const std::string& subject, const std::string& schema) {
    registry::ClientOptions co;
    co.url = url();
    auto client = registry::Client::Create(co);
    EXPECT_TRUE(client.has_value());
    JsonValue body = JsonValue::Object();
    body.Set("schema", JsonValue::String(schema));
    auto reply = (*client)->Call("POST", "/subjects/" + subject + "/versions", ToJson(body));
    EXPECT_TRUE(reply.has_value() && reply->status == 200)
        << (reply.has_value() ? reply->body : reply.error().message());
    if (!reply.has_value()) return -1;
    auto parsed = ParseJson(reply->body);
    const JsonValue* id = parsed.has_value() ? parsed->Find("id") : nullptr;
    return id != nullptr ? static_cast<int32_t>(id->as_int64().value_or(-1)) : -1;
  }

 private:
  std::unique_ptr<registry::Server> server_;
  std::thread thread_;
};

class KafkaIngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto mock = MockKafkaCluster::Start(1);
    ASSERT_TRUE(mock.has_value()) << mock.error().message();
    mock_ = std::move(*mock);
    auto producer = KafkaProducer::Create(mock_->bootstrap(), {{"linger.ms", "1"}});
    ASSERT_TRUE(producer.has_value()) << producer.error().message();
    producer_ = std::move(*producer);
    options_.table = (root_ / "table").string();
    options_.checkpoint = (root_ / "ckpt").string();
    options_.threads = 1;
    kafka_.brokers = mock_->bootstrap();
    kafka_.group_id = "g";
    kafka_.start_at_earliest = true;
    kafka_.idle_ms = 200;
    // The mock waits out a session for a member that left without a word (a killed run).
    kafka_.config = {{"session.timeout.ms", "3000"}, {"heartbeat.interval.ms", "300"}};
  }

  void Topic(const std::string& topic) {
    ASSERT_TRUE(mock_->CreateTopic(topic, 1).has_value());
    kafka_.topic = topic;
    options_.source = "kafka://" + mock_->bootstrap() + "/" + topic;
  }

  void Produce(std::optional<std::string_view> value, std::optional<std::string_view> key = {}) {
    ASSERT_TRUE(producer_->Produce(kafka_.topic, 0, key, value).has_value());
    ASSERT_TRUE(producer_->Flush(10000).has_value());
  }

  // An Avro record in Confluent's wire format.
  std::string Avro(int32_t id, const std::string& schema, const std::string& datum) {
    auto parsed = dialects::avro::Parse(schema);
    EXPECT_TRUE(parsed.has_value()) << parsed.error().message();
    auto json = ParseJson(datum);
    EXPECT_TRUE(json.has_value());
    auto bytes = data::EncodeAvro(*parsed, *json);
    EXPECT_TRUE(bytes.has_value()) << bytes.error().message();
    return data::FrameMessage(id, bytes.value_or(""));
  }

  Result<IngestRun> Run(const IngestOptions& options) {
    return RunKafkaIngest(options, kafka_, {});
  }
  IngestRun RunOk(const IngestOptions& options) {
    auto run = Run(options);
    EXPECT_TRUE(run.has_value()) << run.error().message();
    return run.has_value() ? *run : IngestRun{};
  }
  IngestRun RunOk() { return RunOk(options_); }

  // The sluice binary on this topic, killed at crash point `crash_at` (0: none); its exit code
  // (-1 when killed).
  int RunBinary(int crash_at, const std::vector<std::string>& extra) {
    std::string cmd;
    if (crash_at > 0) cmd += "SLUICE_INGEST_CRASH_AT=" + std::to_string(crash_at) + " ";
    cmd += "timeout 120 " + std::string(SLUICE_BINARY) + " ingest " + options_.source + " --to " +
           options_.table + " --checkpoint " + options_.checkpoint + " --group-id " +
           kafka_.group_id +
           " --starting-offsets earliest --kafka-option session.timeout.ms=3000"
           " --kafka-option heartbeat.interval.ms=300 -q";
    for (const std::string& e : extra) cmd += " " + e;
    cmd += " >/dev/null 2>" + (root_ / "stderr.txt").string();
    const int status = std::system(cmd.c_str());
    if (WIFSIGNALED(status)) return -1;
    const int code = WEXITSTATUS(status);
    return code == 128 + 9 ? -1 : code;  // the shell reports a killed child as 137
  }

  std::vector<JsonValue> ReadLines(const fs::path& path) {
    std::vector<JsonValue> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      auto parsed = ParseJson(line);
      EXPECT_TRUE(parsed.has_value()) << line;
      if (parsed.has_value()) out.push_back(std::move(*parsed));
    }
    return out;
  }

  // The table's rows as JSON objects.
  std::vector<JsonValue> Rows() {
    std::vector<JsonValue> out;
    auto scanned = table::ScanTable(LocalFileSystem(), options_.table, {},
                                    [&](std::string_view row) -> Status {
                                      SLUICE_ASSIGN_OR_RETURN(JsonValue json, ParseJson(row));
                                      out.push_back(std::move(json));
                                      return Ok();
                                    });
    EXPECT_TRUE(scanned.has_value()) << scanned.error().message();
    return out;
  }

  std::vector<std::string> Columns() {
    auto snapshot = table::LoadSnapshot(*LocalFileSystem(), options_.table);
    std::vector<std::string> out;
    if (!snapshot.has_value()) return out;
    for (const schema::Field& f : snapshot->schema->fields()) out.push_back(f.name());
    return out;
  }

  static std::string Text(const JsonValue& v) {
    return v.is_string() ? v.as_string() : v.is_null() ? "null" : ToJson(v);
  }
  static std::string Member(const JsonValue& v, std::string_view key) {
    const JsonValue* m = v.Find(key);
    return m == nullptr ? "<absent>" : Text(*m);
  }

  sluice::testing::ScopedTempDir tmp_{"sluice_kafka"};
  const fs::path& root_ = tmp_.path();
  std::unique_ptr<MockKafkaCluster> mock_;
  std::unique_ptr<KafkaProducer> producer_;
  IngestOptions options_;
  KafkaIngestOptions kafka_;
};

TEST_F(KafkaIngestTest, ARegistryThatIsNotOneStopsTheRunAndNothingIsRead) {
  HttpServerForTest registry(/*registry=*/true);
  HttpServerForTest web(/*registry=*/false);
  Topic("orders");
  const int32_t id = registry.Register("orders-value", kOrderV1);
  ASSERT_GT(id, 0);
  Produce(Avro(id, kOrderV1, R"({"id":1,"amt":1.5})"));
  Produce(Avro(id, kOrderV1, R"({"id":2,"amt":2.5})"));
  Produce(Avro(id + 100, kOrderV1, R"({"id":3,"amt":3.5})"));  // an id the registry lacks

  // A wrong path on the registry (its 404 is not "schema not found"), and a web server's 404.
  for (const std::string& url : {registry.url() + "/api/registry", web.url()}) {
    kafka_.registry_url = url;
    auto run = Run(options_);
    ASSERT_FALSE(run.has_value()) << url << ": " << run->batches.size() << " batches";
    EXPECT_EQ(run.error().code(), ErrorCode::kIoError);
    EXPECT_NE(run.error().message().find("is not a schema registry"), std::string::npos)
        << run.error().message();
    EXPECT_NE(run.error().message().find("404"), std::string::npos) << run.error().message();
    EXPECT_FALSE(fs::exists(options_.table)) << url;
    EXPECT_FALSE(fs::exists(root_ / "ckpt" / "quarantine.jsonl")) << url;
  }

  // The registry itself: the good records land, the unknown id alone is poison.
  kafka_.registry_url = registry.url();
  IngestRun run = RunOk();
  ASSERT_EQ(run.batches.size(), 1u);
  EXPECT_EQ(run.batches[0].records_in, 3u);
  EXPECT_EQ(run.batches[0].written, 2u);
  EXPECT_EQ(run.batches[0].quarantined, 1u);
  EXPECT_EQ(Rows().size(), 2u);
  auto q = ReadLines(root_ / "ckpt" / "quarantine.jsonl");
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(Member(q[0], "offset"), "2");
  EXPECT_NE(Member(q[0], "error").find("is not in the registry"), std::string::npos);
}

TEST_F(KafkaIngestTest, ANewMemberWithItsOwnCheckpointReadsWithTheTablesSchema) {
  HttpServerForTest registry(/*registry=*/true);
  Topic("orders");
  const int32_t v1 = registry.Register("orders-value", kOrderV1);
  const int32_t v2 = registry.Register("orders-value", kOrderV2);
  ASSERT_GT(v1, 0);
  ASSERT_GT(v2, v1);
  kafka_.registry_url = registry.url();
  Produce(Avro(v1, kOrderV1, R"({"id":1,"amt":1.5})"));
  IngestOptions a = options_;
  a.evolution_mode = EvolutionMode::kRescue;
  a.checkpoint = (root_ / "ckpt-a").string();
  ASSERT_EQ(RunOk(a).batches.size(), 1u);
  EXPECT_EQ(Columns(), (std::vector<std::string>{"id", "amt", "_rescued_data"}));

  // The producer added coupon since; each new member (its own new checkpoint) meets it in its
  // first batch. (Rescue needs the table's rescued-data column: Delta refuses a column the
  // table lacks without mergeSchema.)
  struct Joiner {
    std::string checkpoint;
    EvolutionMode mode;
    std::vector<std::string> columns;
    std::string rescued;  // of the member's row
  };
  const std::vector<Joiner> members = {
      {"ckpt-b", EvolutionMode::kNone, {"id", "amt", "_rescued_data"}, "null"},
      {"ckpt-c", EvolutionMode::kRescue, {"id", "amt", "_rescued_data"}, "SAVE"},
      {"ckpt-d", EvolutionMode::kAddNewColumns, {"id", "amt", "_rescued_data", "coupon"}, "null"},
  };
  int64_t next_id = 2;
  for (const Joiner& m : members) {
    SCOPED_TRACE(m.checkpoint);
    const int64_t id = next_id++;
    Produce(
        Avro(v2, kOrderV2, R"({"id":)" + std::to_string(id) + R"(,"amt":2.5,"coupon":"SAVE"})"));
    IngestOptions o = options_;
    o.evolution_mode = m.mode;
    o.checkpoint = (root_ / m.checkpoint).string();
    auto run = Run(o);
    ASSERT_TRUE(run.has_value()) << run.error().message();
    ASSERT_FALSE(run->stopped) << run->stopped->message;
    ASSERT_EQ(run->batches.size(), 1u);
    EXPECT_EQ(run->batches[0].written, 1u);
    EXPECT_EQ(run->batches[0].quarantined, 0u);
    EXPECT_EQ(Columns(), m.columns);
    for (const JsonValue& r : Rows()) {
      if (Member(r, "id") != std::to_string(id)) continue;
      const std::string rescued = Member(r, "_rescued_data");
      if (m.rescued == "null") {
        EXPECT_EQ(rescued, "null");
      } else {
        EXPECT_NE(rescued.find("\"coupon\":\"SAVE\""), std::string::npos) << rescued;
      }
      EXPECT_EQ(Member(r, "coupon"), m.mode == EvolutionMode::kAddNewColumns ? "SAVE" : "<absent>");
    }
  }
  EXPECT_EQ(Rows().size(), 4u);
}

TEST_F(KafkaIngestTest, AValueFieldTakesTheMetadataColumnOfItsNameIgnoringCase) {
  HttpServerForTest registry(/*registry=*/true);
  kafka_.with_metadata = true;
  // Avro: a field `Topic` and the metadata column `topic` are one column, the value's.
  Topic("avro");
  const std::string schema = R"({"type":"record","name":"E","fields":[{"name":"id","type":"long"},)"
                             R"({"name":"Topic","type":"string"}]})";
  const int32_t id = registry.Register("avro-value", schema);
  kafka_.registry_url = registry.url();
  Produce(Avro(id, schema, R"({"id":1,"Topic":"mine"})"), "k1");
  IngestRun avro = RunOk();
  ASSERT_EQ(avro.batches.size(), 1u);
  EXPECT_EQ(avro.batches[0].written, 1u);
  EXPECT_EQ(Columns(),
            (std::vector<std::string>{"id", "Topic", "key", "partition", "offset", "timestamp",
                                      "timestampType", "headers", "_rescued_data"}));
  std::vector<JsonValue> rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(Member(rows[0], "Topic"), "mine");

  // JSON: a value's `Key` replaces the metadata `key` in every row of the batch; nothing of the
  // message's key is rescued.
  options_.table = (root_ / "json-table").string();
  options_.checkpoint = (root_ / "json-ckpt").string();
  kafka_.value_format = ValueFormat::kJson;
  Topic("json");
  Produce(R"({"id":1,"Key":"a"})", "k1");
  Produce(R"({"id":2})", "k2");
  IngestRun json = RunOk();
  ASSERT_EQ(json.batches.size(), 1u);
  EXPECT_EQ(json.batches[0].written, 2u);
  EXPECT_EQ(json.batches[0].rescued, 0u);
  const std::vector<std::string> columns = Columns();
  EXPECT_EQ(std::count(columns.begin(), columns.end(), "Key"), 1);
  EXPECT_EQ(std::count(columns.begin(), columns.end(), "key"), 0);
  EXPECT_EQ(std::count(columns.begin(), columns.end(), "topic"), 1);
  rows = Rows();
  ASSERT_EQ(rows.size(), 2u);
  std::set<std::string> keys;
  for (const JsonValue& r : rows) {
    keys.insert(Member(r, "Key"));
    EXPECT_EQ(Member(r, "_rescued_data"), "null");
  }
  EXPECT_EQ(keys, (std::set<std::string>{"a", "null"}));
}

TEST_F(KafkaIngestTest, StringValuesKeepInvalidUtf8AsReplacementCharacters) {
  kafka_.value_format = ValueFormat::kString;
  Topic("text");
  Produce("plain");
  Produce(std::string("bad\xff\xc3(end\xe2\x82", 11));
  IngestRun run = RunOk();
  ASSERT_EQ(run.batches.size(), 1u);
  EXPECT_EQ(run.batches[0].written, 2u);
  EXPECT_EQ(run.batches[0].quarantined, 0u);
  std::set<std::string> values;
  for (const JsonValue& r : Rows()) values.insert(Member(r, "value"));
  EXPECT_EQ(values, (std::set<std::string>{"plain", "bad\uFFFD\uFFFD(end\uFFFD"}));
}

TEST_F(KafkaIngestTest, BatchReportsCountMessagesAndQuarantineLinesHoldTheMessagesBytes) {
  kafka_.value_format = ValueFormat::kJson;
  auto given = schema::Schema::Make({schema::Field("id", schema::Type::Int64())});
  ASSERT_TRUE(given.has_value());
  options_.schema = *given;  // mode none: a mismatch without a rescued column is quarantined
  options_.quarantine = (root_ / "not" / "yet" / "q.jsonl").string();
  Topic("orders");
  const std::string good = R"({"id":1})";
  const std::string mismatch = R"({"id":"x"})";
  const std::string junk = "\x05junk";
  Produce(good);
  Produce(mismatch);
  Produce(junk);
  IngestRun run = RunOk();
  ASSERT_EQ(run.batches.size(), 1u);
  const BatchReport& b = run.batches[0];
  EXPECT_EQ(b.records_in, 3u);
  EXPECT_EQ(b.written, 1u);
  EXPECT_EQ(b.quarantined, 2u);
  EXPECT_EQ(b.malformed, 1u);  // the value that is not JSON
  EXPECT_EQ(b.bytes, good.size() + mismatch.size() + junk.size());
  auto q = ReadLines(options_.quarantine);
  ASSERT_EQ(q.size(), 2u);
  std::map<std::string, const JsonValue*> by_offset;
  for (const JsonValue& line : q) by_offset[Member(line, "offset")] = &line;
  ASSERT_EQ(by_offset.size(), 2u);
  ASSERT_TRUE(by_offset.contains("1"));
  const JsonValue& refused = *by_offset["1"];
  EXPECT_EQ(Member(refused, "topic"), "orders");
  EXPECT_EQ(Member(refused, "partition"), "0");
  EXPECT_EQ(Member(refused, "raw"), Base64Encode(mismatch));
  EXPECT_EQ(Member(refused, "raw_encoding"), "base64");
  EXPECT_EQ(Member(refused, "file"), "<absent>");
  EXPECT_EQ(Member(*by_offset["2"], "raw"), Base64Encode(junk));

  // Poison alone: a commit of offsets, with every metric a batch's commit has.
  Produce(junk);
  Produce(std::nullopt);
  IngestRun poison = RunOk();
  ASSERT_EQ(poison.batches.size(), 1u);
  EXPECT_EQ(poison.batches[0].malformed, 2u);
  EXPECT_EQ(poison.batches[0].bytes, junk.size());
  auto history = table::TableHistory(*LocalFileSystem(), options_.table);
  ASSERT_TRUE(history.has_value());
  ASSERT_EQ(history->size(), 2u);
  const table::HistoryEntry& newest =
      history->front().version > history->back().version ? history->front() : history->back();
  for (const char* metric : {"numFiles", "numOutputRows", "numOutputBytes", "numRescuedRows"}) {
    EXPECT_EQ(Member(newest.operation_metrics, metric), "0") << metric;
  }
  EXPECT_EQ(Member(newest.operation_metrics, "numSourceRows"), "2");
  EXPECT_EQ(Member(newest.operation_metrics, "numQuarantinedRows"), "2");
  EXPECT_EQ(ReadLines(options_.quarantine).size(), 4u);
}

// Killed runs: the sluice binary with SLUICE_INGEST_CRASH_AT=k, then the same command without it.
class KafkaIngestCrashTest : public KafkaIngestTest, public ::testing::WithParamInterface<int> {};

TEST_P(KafkaIngestCrashTest, PoisonOnlyFirstBatchIsQuarantinedOnce) {
  Topic("poison");
  Produce("\x05junk");
  Produce(std::nullopt);
  const std::string q = (root_ / "q.jsonl").string();
  const std::vector<std::string> extra = {"--value-format", "json", "--quarantine", q};
  EXPECT_EQ(RunBinary(GetParam(), extra), -1) << "crash point " << GetParam() << " not reached";
  for (int i = 0; i < 2; ++i) EXPECT_EQ(RunBinary(0, extra), 0);
  std::map<std::string, int> seen;
  for (const JsonValue& line : ReadLines(q)) ++seen[Member(line, "offset")];
  EXPECT_EQ(seen, (std::map<std::string, int>{{"0", 1}, {"1", 1}}));
  EXPECT_FALSE(fs::exists(options_.table));
}

TEST_P(KafkaIngestCrashTest, ARecoveredBatchLeavesNoStagedLinesAndItsRowsOnce) {
  Topic("orders");
  Produce(R"({"id":1})");
  Produce(R"({"id":2})");
  const std::vector<std::string> extra = {"--value-format", "json"};
  EXPECT_EQ(RunBinary(GetParam(), extra), -1) << "crash point " << GetParam() << " not reached";
  EXPECT_EQ(RunBinary(0, extra), 0);
  EXPECT_EQ(Rows().size(), 2u);
  std::vector<std::string> staged;
  if (fs::exists(root_ / "ckpt" / "staging")) {
    for (const auto& e : fs::directory_iterator(root_ / "ckpt" / "staging")) {
      staged.push_back(e.path().filename().string());
    }
  }
  EXPECT_TRUE(staged.empty()) << staged.front();
}

// 3: after the batch is marked committed; 4: after its quarantine lines were delivered (poison
// only) or after it is marked committed (rows).
INSTANTIATE_TEST_SUITE_P(CrashPoints, KafkaIngestCrashTest, ::testing::Values(3, 4));

}  // namespace
}  // namespace sluice::ingest
