#include "sluice/alert/baseline.h"

#include <gtest/gtest.h>

#include "sluice/alert/watch_config.h"
#include "sluice/base/json.h"
#include "sluice/dialects/spark/spark.h"

namespace sluice::alert {
namespace {

schema::SchemaPtr Ddl(std::string_view ddl) {
  auto r = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(r.has_value()) << ddl;
  return r.has_value() ? r->value : nullptr;
}

constexpr char kPayments[] =
    "transaction_id BIGINT NOT NULL, amount BIGINT NOT NULL, timestamp BIGINT NOT NULL";

TEST(BaselineTest, AbsentFileIsNoBaseline) {
  auto fs = std::make_shared<MemoryFileSystem>();
  auto read = ReadBaselineFile(*fs, "/b/payments.json");
  ASSERT_TRUE(read.has_value()) << read.error().ToString();
  EXPECT_FALSE(read->has_value());
}

TEST(BaselineTest, SluiceBaselineRoundTrips) {
  auto fs = std::make_shared<MemoryFileSystem>();
  Baseline b;
  b.schema = Ddl(std::string(kPayments) + ", note STRING COMMENT 'free text'");
  b.fingerprints = evolution::FingerprintsOf(*b.schema);
  b.source = "landing/payments/";
  b.recorded_ms = 1764806400123;
  b.recorded_by = "ana";
  b.reason = "accepted";
  b.previous = evolution::DriftFingerprints{"aa", "bb"};
  b.previous_recorded_ms = 1764806000000;
  ASSERT_TRUE(WriteBaselineFile(*fs, "/b/x/payments.json", b).has_value());
  auto read = ReadBaselineFile(*fs, "/b/x/payments.json");
  ASSERT_TRUE(read.has_value()) << read.error().ToString();
  ASSERT_TRUE(read->has_value());
  const Baseline& r = **read;
  EXPECT_EQ(r.kind, "file");
  EXPECT_EQ(r.source, b.source);
  EXPECT_EQ(r.recorded_ms, b.recorded_ms);
  EXPECT_EQ(r.recorded_by, "ana");
  EXPECT_EQ(r.reason, "accepted");
  EXPECT_EQ(r.fingerprints.sha256, b.fingerprints.sha256);
  EXPECT_EQ(r.fingerprints.spark_md5, b.fingerprints.spark_md5);
  // The schema read back is the schema written: its fingerprint is the recorded one.
  EXPECT_EQ(evolution::FingerprintsOf(*r.schema).sha256, b.fingerprints.sha256);
  ASSERT_TRUE(r.previous.has_value());
  EXPECT_EQ(r.previous->sha256, "aa");
  EXPECT_EQ(r.previous_recorded_ms, b.previous_recorded_ms);
  // The file is readable JSON with the schema as Spark's StructType JSON.
  auto text = fs->ReadFile("/b/x/payments.json");
  auto doc = ParseJson(*text);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->Find("schema")->Find("type")->as_string(), "struct");
}

TEST(BaselineTest, SeedBareMd5FileIsReadAsIs) {
  auto fs = std::make_shared<MemoryFileSystem>();
  // The seed's check_schema_changes writes the hex digest with no newline; editors add one.
  ASSERT_TRUE(
      fs->WriteFile("/tmp/last_schema.txt", "DC6E5ACD2E39A9919C67C0BABF33A75F\n").has_value());
  auto read = ReadBaselineFile(*fs, "/tmp/last_schema.txt");
  ASSERT_TRUE(read.has_value()) << read.error().ToString();
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ((*read)->kind, "md5");
  EXPECT_EQ((*read)->schema, nullptr);
  EXPECT_EQ((*read)->fingerprints.spark_md5, "dc6e5acd2e39a9919c67c0babf33a75f");
  EXPECT_EQ((*read)->fingerprints.spark_md5, dialects::spark::SparkMd5(*Ddl(kPayments)));
}

TEST(BaselineTest, HostileFilesAreClearErrorsNamingThePath) {
  auto fs = std::make_shared<MemoryFileSystem>();
  for (const char* text : {"", "not json", "{\"sluiceBaseline\": 2, \"schema\": {}}",
                           "{\"sluiceBaseline\": 1}", "{\"sluiceBaseline\": 1, \"schema\": 5}",
                           "{\"sluiceBaseline\": 1, \"schema\": {\"type\": \"struct\", "
                           "\"fields\": [{\"name\": 1}]}}",
                           "0123456789abcdef0123456789abcdeX", "[[[[[[[[[[[[[[[["}) {
    ASSERT_TRUE(fs->WriteFile("/b.json", text).has_value());
    auto read = ReadBaselineFile(*fs, "/b.json");
    ASSERT_FALSE(read.has_value()) << text;
    EXPECT_NE(read.error().ToString().find("/b.json"), std::string::npos)
        << read.error().ToString();
  }
}

TEST(WatchConfigTest, SourcesTakeDefaultsAndResolvePaths) {
  auto config = ParseWatchConfig(R"(
defaults:
  interval: 5m
  notify: [slack:env:SLACK_URL]
sources:
  - name: payments
    source: landing/payments/
    baseline: baselines/payments.json
    mode: autoloader
  - source: registry://localhost:8081/orders-value
    baseline: registry://localhost:8081/orders-value
    interval: 30s
    notify:
      - webhook:env:HOOK
      - file:/var/log/alerts.jsonl
      - file:alerts.jsonl
    webhook_secret_env: HOOK_SECRET
    accept: true
)",
                                 "/etc/sluice");
  ASSERT_TRUE(config.has_value()) << config.error().ToString();
  EXPECT_EQ(config->outbox, "/etc/sluice/.sluice-alerts.db");
  ASSERT_EQ(config->sources.size(), 2u);
  const WatchSource& a = config->sources[0];
  EXPECT_EQ(a.name, "payments");
  EXPECT_EQ(a.source, "/etc/sluice/landing/payments/");
  EXPECT_EQ(a.baseline, "/etc/sluice/baselines/payments.json");
  EXPECT_EQ(a.mode, "autoloader");
  EXPECT_EQ(a.interval_ms, 300000);
  EXPECT_EQ(a.notify, std::vector<std::string>{"slack:env:SLACK_URL"});
  const WatchSource& b = config->sources[1];
  EXPECT_EQ(b.name, "registry://localhost:8081/orders-value");
  EXPECT_EQ(b.source, "registry://localhost:8081/orders-value");
  EXPECT_EQ(b.interval_ms, 30000);
  EXPECT_EQ(b.notify, (std::vector<std::string>{"webhook:env:HOOK", "file:/var/log/alerts.jsonl",
                                                "file:/etc/sluice/alerts.jsonl"}));
  EXPECT_EQ(b.webhook_secret_env, "HOOK_SECRET");
  EXPECT_TRUE(b.accept);
}

TEST(WatchConfigTest, MistakesNameTheKey) {
  struct Case {
    const char* yaml;
    const char* expected;
  };
  for (const Case& c : std::vector<Case>{
           {"sources: []", "sources"},
           {"sources:\n  - source: a\n", "sources[0]: `baseline` is required"},
           {"sources:\n  - source: a\n    baseline: b\n    interval: soon\n",
            "sources[0].interval"},
           {"sources:\n  - source: a\n    baseline: b\n    colour: red\n", "sources[0].colour"},
           {"sources:\n  - {source: a, baseline: b}\n  - {source: a, baseline: c}\n", "used twice"},
           {"sources:\n  - source: a\n    baseline: b\n    mode: guess\n", "sources[0].mode"},
           {"outbox: [1]\nsources: []", "outbox"},
           {"sources: [{source: a, baseline: b, accept: maybe}]", "sources[0].accept"},
           {"{unclosed", "YAML at line"},
           {"nosuch: 1\nsources: [{source: a, baseline: b}]", "nosuch"},
       }) {
    auto config = ParseWatchConfig(c.yaml, "");
    ASSERT_FALSE(config.has_value()) << c.yaml;
    EXPECT_NE(config.error().ToString().find(c.expected), std::string::npos)
        << c.yaml << " -> " << config.error().ToString();
  }
}

TEST(WatchConfigTest, Intervals) {
  EXPECT_EQ(*ParseInterval("30s"), 30000);
  EXPECT_EQ(*ParseInterval("2m"), 120000);
  EXPECT_EQ(*ParseInterval("1h"), 3600000);
  EXPECT_EQ(*ParseInterval("45"), 45000);
  EXPECT_EQ(*ParseInterval("1500ms"), 1500);
  EXPECT_FALSE(ParseInterval("500ms").has_value());
  EXPECT_FALSE(ParseInterval("0s").has_value());
  EXPECT_FALSE(ParseInterval("-5s").has_value());
  EXPECT_FALSE(ParseInterval("5d").has_value());
  EXPECT_FALSE(ParseInterval("99999999999999999999s").has_value());
}

}  // namespace
}  // namespace sluice::alert
