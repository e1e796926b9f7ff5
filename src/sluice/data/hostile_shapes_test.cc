// Hostile shapes through the data plane run in time linear in their size: duplicate, unknown and
// case-variant keys, wide records against wide schemas, map keys, rescued objects, CSV headers,
// nesting at the depth limit, long lines, JSON documents, inference's new keys and its scanner
// for large records, and Avro's wide records, large enums and ambiguous unions.
//
// Each test times one operation on an input of size n and of size 4n (both made before the
// clock runs) and fails when the larger takes far more than four times as long: a path that is
// quadratic in the size takes sixteen times as long, which no machine's noise explains, and the
// ratio is the same in a sanitizer build. Times are CPU seconds, which other work on the machine
// does not inflate. The larger run must also finish within 10 s (ten times that in debug and
// sanitizer builds). The outputs are checked too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/string_sink_testing.h"
#include "sluice/data/avro_binary.h"
#include "sluice/data/file_runs.h"
#include "sluice/data/json_infer.h"
#include "sluice/data/validator.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/schema/scaling_testing.h"

namespace sluice::data {
namespace {

using ::sluice::testing::StringSink;

// The smaller size of every shape; the larger is four times it (100k keys or columns).
constexpr size_t kN = 25'000;
constexpr double kMaxRatio = 12.0;
constexpr double kMaxSeconds = 10.0;
// Below this a run is too short to time: the floor keeps the ratio from measuring noise.
constexpr double kFloorSeconds = 2e-3;

// CPU seconds, not wall time: other work on the machine does not count against a run.
double Seconds(const std::function<void()>& run) {
  const double start = scaling::CpuSeconds();
  run();
  return scaling::CpuSeconds() - start;
}

// Best of three runs of `run(make(n))` and of `run(make(4n))`, interleaved; a ratio over
// kMaxRatio is checked once more from 4n to 16n, out of the caches (see scaling::ScalesLinearly).
template <typename Input>
void ExpectLinear(const std::string& what, size_t n, const std::function<Input(size_t)>& make,
                  const std::function<void(const Input&)>& run) {
  const Input small = make(n);
  const Input large = make(4 * n);
  double t_small = 1e9;
  double t_large = 1e9;
  for (int round = 0; round < 3; ++round) {
    t_small = std::min(t_small, Seconds([&] { run(small); }));
    t_large = std::min(t_large, Seconds([&] { run(large); }));
  }
  EXPECT_LT(t_large, kMaxSeconds * scaling::kSlowdown) << what << " at n=" << 4 * n;
  if (t_large / std::max(t_small, kFloorSeconds) < kMaxRatio) return;
  const Input larger = make(16 * n);
  double t_larger = 1e9;
  for (int round = 0; round < 2; ++round) {
    t_larger = std::min(t_larger, Seconds([&] { run(larger); }));
  }
  EXPECT_LT(t_larger / std::max(t_large, kFloorSeconds), kMaxRatio)
      << what << ": " << t_small << " s at n=" << n << ", " << t_large << " s at 4n, " << t_larger
      << " s at 16n";
}

schema::SchemaPtr Ddl(std::string_view ddl) {
  auto s = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(s.has_value()) << (s.has_value() ? "" : s.error().message());
  return s.has_value() ? s->value : nullptr;
}

// `count` nullable bigint columns c0, c1, ...
schema::SchemaPtr WideSchema(size_t count) {
  std::vector<schema::Field> fields;
  fields.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    fields.emplace_back("c" + std::to_string(i), schema::Type::Int64(), true);
  }
  auto s = schema::Schema::Make(std::move(fields));
  EXPECT_TRUE(s.has_value());
  return *s;
}

std::shared_ptr<const ValidationPlan> Plan(schema::SchemaPtr schema) {
  auto plan = ValidationPlan::Compile(std::move(schema));
  EXPECT_TRUE(plan.has_value()) << (plan.has_value() ? "" : plan.error().message());
  return *plan;
}

// A record with the padding CheckJson reads past its end.
struct Record {
  std::string text;  // the record, then 64 bytes of padding
  size_t size = 0;
  std::string_view view() const { return std::string_view(text).substr(0, size); }
};
Record Padded(std::string json) {
  Record r;
  r.size = json.size();
  r.text = std::move(json) + std::string(64, ' ');
  return r;
}

// `{"<prefix>0":0,"<prefix>1":1,...}` members (no braces), in `order` when given.
std::string Members(std::string_view prefix, size_t count, const std::vector<size_t>* order = {}) {
  std::string s;
  for (size_t k = 0; k < count; ++k) {
    const size_t i = order != nullptr ? (*order)[k] : k;
    if (k > 0) s += ',';
    s += '"';
    s += prefix;
    s += std::to_string(i);
    s += "\":";
    s += std::to_string(i);
  }
  return s;
}

std::vector<size_t> Shuffled(size_t count) {
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), size_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  return order;
}

struct Checked {
  RecordStatus status = RecordStatus::kValid;
  size_t violations = 0;
  std::string line;
};
Checked Check(const std::shared_ptr<const ValidationPlan>& plan, const Record& record) {
  RecordValidator v(plan);
  std::string out;
  const RecordResult& r = v.CheckJson(record.view(), "f.jsonl", out);
  return Checked{r.status, r.violations.size(), out};
}

// A plan and a record, for shapes where both grow.
struct PlanAndRecord {
  std::shared_ptr<const ValidationPlan> plan;
  Record record;
};

// ---- the validator ----

TEST(HostileShapesTest, ValidatorDuplicateKeys) {
  const auto plan = Plan(Ddl("a BIGINT, b STRING, c BOOLEAN"));
  auto make = [](size_t n) {
    std::string s = R"({"a":1,"b":"x","c":true)";
    for (size_t i = 0; i < n; ++i) s += ",\"a\":" + std::to_string(i);
    return Padded(s + "}");
  };
  ExpectLinear<Record>("duplicate keys", kN, make, [&](const Record& r) { Check(plan, r); });
  // The first value stands; every repeat is rescued under a name of its own: a, a#2, ... a#n.
  const Checked c = Check(plan, make(1000));
  EXPECT_EQ(c.status, RecordStatus::kRescued);
  EXPECT_NE(c.line.find(R"(\"a#1000\":999)"), std::string::npos);
  EXPECT_EQ(c.line.find(R"(\"a#1001\")"), std::string::npos);
}

TEST(HostileShapesTest, ValidatorUnknownKeysAgainstThreeColumns) {
  const auto plan = Plan(Ddl("a BIGINT, b STRING, c BOOLEAN"));
  auto make = [](size_t n) { return Padded("{" + Members("k", n) + "}"); };
  ExpectLinear<Record>("unknown keys", kN, make, [&](const Record& r) { Check(plan, r); });
  const Checked c = Check(plan, make(4 * kN));
  EXPECT_EQ(c.status, RecordStatus::kRescued);
  EXPECT_EQ(c.violations, 64u);  // the cap
  EXPECT_NE(c.line.find(R"(\"k99999\":99999,\"_file_path\":\"f.jsonl\"})"), std::string::npos);
}

TEST(HostileShapesTest, ValidatorUnknownAndCaseVariantKeysAgainstAsManyColumns) {
  for (const char* prefix : {"k", "C"}) {
    auto make = [&](size_t n) {
      return PlanAndRecord{Plan(WideSchema(n)), Padded("{" + Members(prefix, n) + "}")};
    };
    ExpectLinear<PlanAndRecord>(std::string("keys ") + prefix + "... against as many columns", kN,
                                make, [&](const PlanAndRecord& in) { Check(in.plan, in.record); });
  }
  const auto plan = Plan(WideSchema(10));
  const Checked c = Check(plan, Padded(R"({"C3":1,"c3":2,"x":3})"));
  EXPECT_EQ(c.status, RecordStatus::kRescued);
  EXPECT_NE(c.line.find(R"({\"C3\":1,\"x\":3,)"), std::string::npos) << c.line;
}

TEST(HostileShapesTest, ValidatorWideRecordInAnyOrder) {
  auto make = [](size_t n) {
    const std::vector<size_t> order = Shuffled(n);
    return PlanAndRecord{Plan(WideSchema(n)), Padded("{" + Members("c", n, &order) + "}")};
  };
  ExpectLinear<PlanAndRecord>("a shuffled record of every column", kN, make,
                              [&](const PlanAndRecord& in) {
                                EXPECT_EQ(Check(in.plan, in.record).status, RecordStatus::kValid);
                              });
}

TEST(HostileShapesTest, ValidatorMapKeys) {
  const auto plan = Plan(Ddl("m MAP<STRING, BIGINT>, ms ARRAY<MAP<STRING, BIGINT>>"));
  auto distinct = [](size_t n) { return Padded(R"({"m":{)" + Members("k", n) + "}}"); };
  ExpectLinear<Record>("distinct map keys", kN, distinct, [&](const Record& r) {
    EXPECT_EQ(Check(plan, r).status, RecordStatus::kValid);
  });
  auto repeated = [](size_t n) {
    std::string s = R"({"m":{"k":0)";
    for (size_t i = 1; i <= n; ++i) s += R"(,"k":)" + std::to_string(i);
    return Padded(s + "}}");
  };
  ExpectLinear<Record>("one map key repeated", kN, repeated, [&](const Record& r) {
    EXPECT_EQ(Check(plan, r).status, RecordStatus::kRescued);
  });
  // After a map of many keys, many small maps at the same depth: each starts from an empty set.
  auto after_large = [](size_t n) {
    std::string s = R"({"ms":[{)" + Members("k", n) + "}";
    for (size_t i = 0; i < n; ++i) s += R"(,{"a":1})";
    return Padded(s + "]}");
  };
  ExpectLinear<Record>("small maps after a large one", kN, after_large, [&](const Record& r) {
    EXPECT_EQ(Check(plan, r).status, RecordStatus::kValid);
  });
  const Checked c = Check(plan, repeated(3));
  EXPECT_NE(c.line.find(R"({\"m.k\":1,\"m.k#2\":2,\"m.k#3\":3,)"), std::string::npos) << c.line;
}

TEST(HostileShapesTest, ValidatorNestingAtTheDepthLimit) {
  const auto plan = Plan(Ddl("a BIGINT, b STRING, c BOOLEAN"));
  // Values nested to 999 levels (the record itself is the 1000th), each one rescued.
  const std::string deep = std::string(998, '[') + "1" + std::string(998, ']');
  auto make = [&](size_t n) {
    std::string s = "{";
    for (size_t i = 0; i < n; ++i) s += (i > 0 ? ",\"d" : "\"d") + std::to_string(i) + "\":" + deep;
    return Padded(s + "}");
  };
  ExpectLinear<Record>("values at the depth limit", 250, make, [&](const Record& r) {
    EXPECT_EQ(Check(plan, r).status, RecordStatus::kRescued);
  });
  EXPECT_EQ(Check(plan, Padded(R"({"d":[)" + deep + "]}")).status, RecordStatus::kRescued);
  EXPECT_EQ(Check(plan, Padded(R"({"d":[[)" + deep + "]]}")).status, RecordStatus::kMalformed);
}

// ---- whole-file runs ----

struct FileRun {
  std::shared_ptr<MemoryFileSystem> fs = std::make_shared<MemoryFileSystem>();
  std::string path;
  schema::SchemaPtr schema;
  ValidateRunOptions options;
};

ValidateReport RunValidate(const FileRun& in, StringSink* out = nullptr) {
  StringSink sink;
  StringSink quarantine;
  ValidateRunOptions options = in.options;
  options.fs = in.fs;
  auto report =
      ValidateFiles({in.path}, in.schema, options, out != nullptr ? *out : sink, quarantine);
  EXPECT_TRUE(report.has_value()) << (report.has_value() ? "" : report.error().message());
  return report.has_value() ? *report : ValidateReport{};
}

TEST(HostileShapesTest, CsvHeaderOfManyColumnsWithRepeatsAndCaseVariants) {
  auto make = [](size_t n) {
    FileRun in;
    in.path = "/wide.csv";
    in.schema = WideSchema(n);
    in.options.format = RecordFormat::kCsv;
    in.options.threads = 1;
    std::string header;
    std::string row;
    for (size_t i = 0; i < n; ++i) {
      std::string name = "c" + std::to_string(i % 10 == 9 ? i - 1 : i);  // every 10th repeats
      if (i % 7 == 3) name[0] = 'C';                                     // every 7th: case
      header += (i > 0 ? "," : "") + name;
      row += (i > 0 ? "," : "") + std::to_string(i);
    }
    EXPECT_TRUE(in.fs->WriteFile(in.path, header + "\n" + row + "\n").has_value());
    return in;
  };
  ExpectLinear<FileRun>("a CSV row of as many columns as the schema", kN, make,
                        [&](const FileRun& in) {
                          const ValidateReport r = RunValidate(in);
                          EXPECT_EQ(r.records_in, 1u);
                          EXPECT_EQ(r.rescued, 1u);
                        });
}

TEST(HostileShapesTest, LongLineAndLargeDocument) {
  // One line of n KB read in 4 KB blocks, and a JSON document of n records.
  auto line = [](size_t n) {
    FileRun in;
    in.path = "/long.jsonl";
    in.schema = Ddl("a BIGINT, b STRING, c BOOLEAN");
    in.options.block_bytes = 4096;
    std::string text = R"({"a":1,"b":")" + std::string(n * 1000, 'x') + "\",\"c\":true}\n";
    EXPECT_TRUE(in.fs->WriteFile(in.path, text + text).has_value());
    return in;
  };
  ExpectLinear<FileRun>("a long line", 5'000, line,
                        [&](const FileRun& in) { EXPECT_EQ(RunValidate(in).valid, 2u); });
  auto document = [](size_t n) {
    FileRun in;
    in.path = "/doc.json";
    in.schema = Ddl("a BIGINT NOT NULL, b STRING, c BOOLEAN");
    in.options.format = RecordFormat::kJson;
    std::string text = "[";
    for (size_t i = 0; i < n; ++i) {
      text += i % 5 == 4 ? R"({"a":"bad"},)" : R"({"a":1,"b":"x","c":true,"d":0},)";
    }
    text.back() = ']';
    EXPECT_TRUE(in.fs->WriteFile(in.path, text).has_value());
    return in;
  };
  ExpectLinear<FileRun>("a JSON document of many records", 4 * kN, document,
                        [&](const FileRun& in) {
                          const ValidateReport r = RunValidate(in);
                          EXPECT_EQ(r.quarantined, r.records_in / 5);
                        });
}

// ---- inference ----

JsonInferrer Inferrer(JsonInferOptions options = {}) {
  auto inf = JsonInferrer::Make(std::move(options));
  EXPECT_TRUE(inf.has_value());
  return std::move(*inf);
}

// A record and the number of fields its inference gives.
struct Inferable {
  std::string text;
  size_t fields = 0;
};

void ExpectInferredFields(const std::string& what, JsonInferOptions options) {
  auto run = [&](const Inferable& in) {
    JsonInferrer inf = Inferrer(options);
    ASSERT_TRUE(inf.AddRecord(in.text).has_value());
    EXPECT_EQ(inf.malformed_records(), 0u);
    EXPECT_EQ(inf.root().fields().size(), in.fields);
  };
  ExpectLinear<Inferable>(
      what + ": new keys in any order", kN,
      [](size_t n) {
        const std::vector<size_t> order = Shuffled(n);
        return Inferable{"{" + Members("k", n, &order) + "}", n};
      },
      run);
  ExpectLinear<Inferable>(
      what + ": repeated keys", kN,
      [](size_t n) {
        std::string s = R"({"a":1)";
        for (size_t i = 0; i < n; ++i) s += R"(,"a":)" + std::to_string(i) + R"(,"b":"x")";
        return Inferable{s + "}", 2};
      },
      run);
  ExpectLinear<Inferable>(
      what + ": a dense array", kN,
      [](size_t n) {
        std::string s = R"({"a":[)";
        for (size_t i = 0; i < 40 * n; ++i) s += i > 0 ? ",1" : "1";
        return Inferable{s + "]}", 1};
      },
      run);
  const std::string deep = std::string(998, '[') + "1" + std::string(998, ']');
  ExpectLinear<Inferable>(
      what + ": values at the depth limit", 100,
      [&](size_t n) {
        std::string s = "{";
        for (size_t i = 0; i < n; ++i) {
          s += (i > 0 ? ",\"d" : "\"d") + std::to_string(i) + "\":" + deep;
        }
        return Inferable{s + "}", n};
      },
      run);
}

TEST(HostileShapesTest, Inference) {
  JsonInferOptions options;
  options.scanner_min_record_bytes = SIZE_MAX;  // every record through simdjson
  ExpectInferredFields("simdjson", options);
}

TEST(HostileShapesTest, InferenceWithTheScanner) {
  JsonInferOptions options;
  options.scanner_min_record_bytes = 0;  // every record through the scanner for large ones
  ExpectInferredFields("the scanner", options);
}

// ---- Avro ----

dialects::avro::AvroSchema Avro(const std::string& text) {
  auto s = dialects::avro::Parse(text);
  EXPECT_TRUE(s.has_value()) << (s.has_value() ? "" : s.error().message());
  return std::move(*s);
}

JsonValue Json(const std::string& text) {
  auto v = ParseJson(text);
  EXPECT_TRUE(v.has_value());
  return std::move(*v);
}

struct AvroInput {
  std::shared_ptr<dialects::avro::AvroSchema> schema;
  JsonValue datum;
};

// Encode and decode; `same` when the decoded datum is written as the input was (no unions).
void ExpectRoundTrip(const AvroInput& in, bool same = true) {
  auto bytes = EncodeAvro(*in.schema, in.datum);
  ASSERT_TRUE(bytes.has_value()) << bytes.error().message();
  auto decoded = DecodeAvro(*in.schema, *bytes);
  ASSERT_TRUE(decoded.has_value()) << decoded.error().message();
  if (same) {
    EXPECT_EQ(ToJson(*decoded), ToJson(in.datum));
  }
}

TEST(HostileShapesTest, AvroWideRecordAndLargeEnum) {
  auto wide = [](size_t n) {
    std::string fields;
    for (size_t i = 0; i < n; ++i) {
      fields += (i > 0 ? "," : "") + std::string(R"({"name":"c)") + std::to_string(i) +
                R"(","type":"long"})";
    }
    return AvroInput{std::make_shared<dialects::avro::AvroSchema>(
                         Avro(R"({"type":"record","name":"W","fields":[)" + fields + "]}")),
                     Json("{" + Members("c", n) + "}")};
  };
  ExpectLinear<AvroInput>("a record of many fields", kN, wide,
                          [](const AvroInput& in) { ExpectRoundTrip(in); });
  auto symbols = [](size_t n) {
    std::string list;
    std::string values;
    const std::vector<size_t> order = Shuffled(n);
    for (size_t i = 0; i < n; ++i) {
      list += (i > 0 ? ",\"S" : "\"S") + std::to_string(i) + "\"";
      values += (i > 0 ? ",\"S" : "\"S") + std::to_string(order[i]) + "\"";
    }
    return AvroInput{
        std::make_shared<dialects::avro::AvroSchema>(Avro(
            R"({"type":"array","items":{"type":"enum","name":"E","symbols":[)" + list + "]}}")),
        Json("[" + values + "]")};
  };
  ExpectLinear<AvroInput>("every symbol of a large enum", kN, symbols,
                          [](const AvroInput& in) { ExpectRoundTrip(in); });
}

TEST(HostileShapesTest, AvroUnionsThatTwoBranchesTake) {
  // A record whose field is [null, map<R>, R]: an object fits the map and the record, and each
  // of them reaches the next level's union, so trying both at every level without keeping what
  // was found takes time exponential in the nesting (seconds at 32 levels). At 3k+2 levels
  // exactly one branch takes the value at the top, and the datum encodes.
  const auto schema = std::make_shared<dialects::avro::AvroSchema>(
      Avro(R"({"type":"record","name":"R","fields":[{"name":"a","type":["null",)"
           R"({"type":"map","values":"R"},"R"]}]})"));
  auto make = [&](size_t levels) {
    std::string s;
    for (size_t i = 0; i < levels; ++i) s += R"({"a":)";
    s += "null";
    s += std::string(levels, '}');
    return AvroInput{schema, Json(s)};
  };
  auto round_trip = [](const AvroInput& in) { ExpectRoundTrip(in, /*same=*/false); };
  ExpectLinear<AvroInput>("unions that two branches take, nested", 8, make, round_trip);
  const AvroInput deep = make(128);
  const double seconds = Seconds([&] { round_trip(deep); });
  EXPECT_LT(seconds, kMaxSeconds * scaling::kSlowdown);
  // At 3k levels both branches take it.
  auto ambiguous = EncodeAvro(*schema, make(9).datum);
  ASSERT_FALSE(ambiguous.has_value());
  EXPECT_NE(ambiguous.error().message().find("fits branches map and R"), std::string::npos)
      << ambiguous.error().message();
}

}  // namespace
}  // namespace sluice::data
