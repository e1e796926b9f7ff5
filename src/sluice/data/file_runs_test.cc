#include "sluice/data/file_runs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/string_sink_testing.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"

namespace sluice::data {
namespace {

using ::sluice::testing::StringSink;

namespace fs = std::filesystem;

schema::SchemaPtr Schema(std::string_view ddl) {
  auto s = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(s.has_value()) << (s.has_value() ? "" : s.error().message());
  return s->value;
}

// The lines a sink holds, without their line breaks.
std::vector<std::string> Lines(const StringSink& sink) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < sink.text.size()) {
    size_t nl = sink.text.find('\n', pos);
    out.push_back(sink.text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

// Each line a sink holds, parsed as JSON.
std::vector<JsonValue> JsonLines(const StringSink& sink) {
  std::vector<JsonValue> out;
  for (const std::string& l : Lines(sink)) {
    auto v = ParseJson(l);
    EXPECT_TRUE(v.has_value()) << l;
    if (v.has_value()) out.push_back(std::move(*v));
  }
  return out;
}

// Test files live in memory: the runs read them through the FileSystem in their options.
const std::shared_ptr<MemoryFileSystem>& MemFs() {
  static const auto fs = std::make_shared<MemoryFileSystem>();
  return fs;
}

// A folder of its own in the in-memory file system.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> next{0};
    path_ = "/tmp/runs-" + std::to_string(next++);
  }
  std::string Write(const std::string& name, std::string_view bytes) const {
    std::string p = path_ + "/" + name;
    EXPECT_TRUE(MemFs()->WriteFile(p, bytes).has_value());
    return p;
  }

 private:
  std::string path_;
};

struct RunResult {
  ValidateReport report;
  StringSink out;
  StringSink quarantine;
};

RunResult Validate(const std::vector<std::string>& files, const schema::SchemaPtr& schema,
                   ValidateRunOptions options) {
  RunResult r;
  options.fs = MemFs();
  auto report = ValidateFiles(files, schema, options, r.out, r.quarantine);
  EXPECT_TRUE(report.has_value()) << (report.has_value() ? "" : report.error().message());
  if (report.has_value()) r.report = std::move(*report);
  return r;
}

std::string Raw(const JsonValue& q) {
  const JsonValue* raw = q.Find("raw");
  const JsonValue* enc = q.Find("raw_encoding");
  if (raw == nullptr || enc == nullptr) return "<missing>";
  return enc->as_string() == "base64" ? Base64Decode(raw->as_string()).value_or("<bad base64>")
                                      : raw->as_string();
}

int64_t Int(const JsonValue& v, std::string_view key) {
  const JsonValue* x = v.Find(key);
  return x == nullptr ? -1 : x->as_int64().value_or(-1);
}

// The report's tally for `path` and `kind`, or null.
const ViolationCount* FindViolation(const ValidateReport& report, std::string_view path,
                                    ViolationKind kind) {
  for (const ViolationCount& v : report.violations) {
    if (v.path == path && v.kind == kind) return &v;
  }
  return nullptr;
}

// The line numbers a tally keeps, whichever file they are in.
std::vector<uint64_t> LineNumbers(const ViolationCount& v) {
  std::vector<uint64_t> out;
  for (const auto& [file, line] : v.lines) out.push_back(line);
  return out;
}

const char* kOrders =
    "order_id BIGINT NOT NULL, customer_id BIGINT NOT NULL, order_amount DOUBLE, "
    "order_date DATE";

// The seed's Bronze-to-Silver scenario: an extra field, a number sent as a string, a missing
// required field, a broken line.
TEST(ValidateFilesTest, SeedOrdersScenario) {
  TempDir dir;
  std::string file = dir.Write(
      "orders.jsonl",
      "{\"order_id\": 1001, \"customer_id\": 501, \"order_amount\": 4500.0, \"order_date\": "
      "\"2026-08-15\"}\n"
      "{\"order_id\": 1002, \"customer_id\": 502, \"order_amount\": 1.5, \"order_date\": "
      "\"2026-08-15\", \"unexpected_column\": \"extra_unexpected_field\"}\n"
      "{\"order_id\": 1003, \"customer_id\": 503, \"order_amount\": \"4500.00\"}\n"
      "{\"order_id\": 1004, \"order_amount\": 15.0}\n"
      "{\"order_id\": 1005, \"customer_id\": 505\n");
  RunResult r = Validate({file}, Schema(kOrders), {});
  EXPECT_EQ(r.report.records_in, 5u);
  EXPECT_EQ(r.report.valid, 3u);
  EXPECT_EQ(r.report.rescued, 2u);
  EXPECT_EQ(r.report.quarantined, 2u);
  EXPECT_EQ(r.report.malformed, 1u);
  EXPECT_TRUE(r.report.invariant_holds());
  std::vector<std::string> out = Lines(r.out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0],
            "{\"order_id\":1001,\"customer_id\":501,\"order_amount\":4500.0,\"order_date\":"
            "\"2026-08-15\",\"_rescued_data\":null}");
  EXPECT_EQ(out[2],
            "{\"order_id\":1003,\"customer_id\":503,\"order_amount\":null,\"order_date\":null,"
            "\"_rescued_data\":\"{\\\"order_amount\\\":\\\"4500.00\\\",\\\"_file_path\\\":\\\"" +
                file + "\\\"}\"}");
  std::vector<JsonValue> q = JsonLines(r.quarantine);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(Int(q[0], "line"), 4);
  EXPECT_EQ(q[0].Find("violations")->items()[0].Find("kind")->as_string(), "missing_required");
  EXPECT_EQ(q[0].Find("violations")->items()[0].Find("path")->as_string(), "customer_id");
  EXPECT_EQ(Int(q[1], "line"), 5);
  EXPECT_EQ(Raw(q[1]), "{\"order_id\": 1005, \"customer_id\": 505");
  // Every record's byte offset points at its first byte.
  std::string all = *MemFs()->ReadFile(file);
  for (const JsonValue& e : q) {
    std::string raw = Raw(e);
    EXPECT_EQ(all.substr(static_cast<size_t>(Int(e, "offset")), raw.size()), raw);
  }
  // The report lists each violation kind per path with its lines.
  const ViolationCount* amount =
      FindViolation(r.report, "order_amount", ViolationKind::kTypeMismatch);
  ASSERT_NE(amount, nullptr);
  EXPECT_EQ(amount->count, 1u);
  EXPECT_EQ(LineNumbers(*amount), std::vector<uint64_t>{3});
  const ViolationCount* extra =
      FindViolation(r.report, "unexpected_column", ViolationKind::kUnknownField);
  ASSERT_NE(extra, nullptr);
  EXPECT_EQ(extra->count, 1u);
  EXPECT_EQ(LineNumbers(*extra), std::vector<uint64_t>{2});
}

// A file with every kind of damage, and where each damaged record starts.
struct Corpus {
  std::string bytes;
  struct Bad {
    uint64_t line;
    uint64_t offset;
    std::string raw;
    bool needs_base64;
  };
  std::vector<Bad> malformed;          // quarantined in every mode
  std::vector<uint64_t> rescue_lines;  // rescued in permissive, quarantined otherwise
  uint64_t good = 0;
  uint64_t line = 1;

  void Add(std::string_view text, std::string_view end = "\n") {
    bytes.append(text);
    bytes.append(end);
    line += static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n')) +
            static_cast<uint64_t>(std::count(end.begin(), end.end(), '\n'));
  }
  void Good(std::string_view text, std::string_view end = "\n") {
    ++good;
    Add(text, end);
  }
  void Rescue(std::string_view text) {
    rescue_lines.push_back(line);
    Add(text);
  }
  void Malformed(std::string_view text, std::string_view end = "\n") {
    malformed.push_back({line, bytes.size(), std::string(text), false});
    Add(text, end);
  }
};

Corpus DamagedCorpus() {
  Corpus c;
  c.bytes = "\xEF\xBB\xBF";  // a byte order mark before the first record
  c.Good(R"({"id": 1, "name": "bom"})");
  c.Good(R"({"id": 2, "name": "crlf"})", "\r\n");
  c.Add("");
  c.Add("   \t ");
  c.Add("", "\r\n");
  c.Malformed(R"({"id": 3, "name": "trunc)");
  c.Malformed(R"({"id": 4, "na)");
  {
    Corpus::Bad b{c.line, c.bytes.size(), "{\"id\": 5, \"name\": \"\xC3\x28\"}", true};
    c.malformed.push_back(b);
    c.Add(b.raw);
  }
  {
    std::string nul = std::string("{\"id\": 6, \"name\": \"a") + '\0' + "b\"}";
    c.malformed.push_back({c.line, c.bytes.size(), nul, false});
    c.Add(nul);
  }
  c.Rescue(R"({"id": 7, "big": 123456789012345678901234567890})");
  c.Rescue(R"({"id": 8, "dbl": 1e400})");
  c.Good(R"({"id": 9, "big": 9223372036854775807, "dbl": -1.5e300})");
  {
    std::string deep(10000, '[');
    deep.append(10000, ']');
    c.Malformed("{\"id\": 10, \"nest\": " + deep + "}");
  }
  c.Rescue(R"({"id": 11, "name": "first", "name": "second"})");
  c.Malformed(R"([{"id": 12}])");
  c.Malformed(R"({"id": 13} trailing)");
  c.Good(R"({"id": 14, "name": "no newline at the end"})", "");
  return c;
}

const char* kDamagedSchema = "id BIGINT NOT NULL, name STRING, big BIGINT, dbl DOUBLE, nest STRING";

TEST(ValidateFilesTest, DamagedCorpusEveryModeKeepsTheInvariant) {
  TempDir dir;
  Corpus c = DamagedCorpus();
  std::string file = dir.Write("damaged.jsonl", c.bytes);
  for (ParseMode mode : {ParseMode::kPermissive, ParseMode::kDropMalformed, ParseMode::kFailFast}) {
    for (unsigned threads : {1u, 2u}) {
      SCOPED_TRACE(::testing::Message()
                   << "mode " << static_cast<int>(mode) << " threads " << threads);
      ValidateRunOptions o;
      o.mode = mode;
      o.threads = threads;
      o.block_bytes = 4096;
      RunResult r = Validate({file}, Schema(kDamagedSchema), o);
      EXPECT_TRUE(r.report.invariant_holds());
      EXPECT_EQ(Lines(r.out).size(), r.report.valid);
      std::vector<JsonValue> q = JsonLines(r.quarantine);
      EXPECT_EQ(q.size(), r.report.quarantined);
      if (mode == ParseMode::kFailFast) {
        ASSERT_TRUE(r.report.stopped.has_value());
        EXPECT_EQ(r.report.stopped->line, c.malformed[0].line);
        EXPECT_EQ(r.report.records_in, 3u);  // two good records, then the stop
        ASSERT_EQ(q.size(), 1u);
        EXPECT_EQ(Raw(q[0]), c.malformed[0].raw);
        continue;
      }
      const uint64_t total = c.good + c.malformed.size() + c.rescue_lines.size();
      EXPECT_EQ(r.report.records_in, total);
      EXPECT_EQ(r.report.malformed, c.malformed.size());
      const bool permissive = mode == ParseMode::kPermissive;
      EXPECT_EQ(r.report.quarantined,
                c.malformed.size() + (permissive ? 0 : c.rescue_lines.size()));
      EXPECT_EQ(r.report.rescued, permissive ? c.rescue_lines.size() : 0u);
      // Each malformed record is in the quarantine with its line, offset and exact bytes.
      for (const Corpus::Bad& b : c.malformed) {
        bool found = false;
        for (const JsonValue& e : q) {
          if (Int(e, "line") != static_cast<int64_t>(b.line)) continue;
          found = true;
          EXPECT_EQ(Int(e, "offset"), static_cast<int64_t>(b.offset)) << "line " << b.line;
          EXPECT_EQ(Raw(e), b.raw) << "line " << b.line;
          EXPECT_EQ(e.Find("raw_encoding")->as_string(), b.needs_base64 ? "base64" : "utf8");
          EXPECT_FALSE(e.Find("error")->as_string().empty());
        }
        EXPECT_TRUE(found) << "line " << b.line << " not in quarantine";
      }
    }
  }
}

TEST(ValidateFilesTest, RescuedValuesKeepTheirOriginalText) {
  TempDir dir;
  Corpus c = DamagedCorpus();
  std::string file = dir.Write("damaged.jsonl", c.bytes);
  RunResult r = Validate({file}, Schema(kDamagedSchema), {});
  std::string text = r.out.text;
  // The number beyond int64 and the one beyond double are rescued digit for digit; the
  // duplicate key's second value too, while the first one is kept.
  EXPECT_NE(text.find("\\\"big\\\":123456789012345678901234567890"), std::string::npos) << text;
  EXPECT_NE(text.find("\\\"dbl\\\":1e400"), std::string::npos) << text;
  EXPECT_NE(text.find("\"name\":\"first\""), std::string::npos) << text;
  EXPECT_NE(text.find("\\\"name\\\":\\\"second\\\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"big\":9223372036854775807"), std::string::npos) << text;
}

std::string GeneratedJsonl(int n, int every_bad) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (every_bad > 0 && i % every_bad == 7) {
      s += "{\"order_id\": " + std::to_string(i) + ", \"customer_id\": \"oops\"}\n";
    } else if (every_bad > 0 && i % every_bad == 11) {
      s += "{\"order_id\": " + std::to_string(i) +
           ", \"customer_id\": 3, \"order_amount\": 1.0, broken\n";
    } else if (i % 13 == 5) {
      s += "\n";
    } else {
      s += "{\"order_id\": " + std::to_string(i) + ", \"customer_id\": " + std::to_string(i * 7) +
           ", \"order_amount\": " + std::to_string(i) + ".25, \"order_date\": \"2026-01-0" +
           std::to_string(1 + i % 9) + "\", \"extra\": " + std::to_string(i % 3) + "}\n";
    }
  }
  return s;
}

TEST(ValidateFilesTest, SameResultsForAnyThreadCountAndBlockSize) {
  TempDir dir;
  std::string a = dir.Write("a.jsonl", GeneratedJsonl(3000, 50));
  std::string b = dir.Write("b.jsonl", GeneratedJsonl(1000, 37));
  ValidateRunOptions one;
  one.fs = MemFs();
  one.threads = 1;
  RunResult base = Validate({a, b}, Schema(kOrders), one);
  EXPECT_TRUE(base.report.invariant_holds());
  EXPECT_GT(base.report.quarantined, 0u);
  EXPECT_GT(base.report.rescued, 0u);
  for (unsigned threads : {1u, 2u, 4u}) {
    for (size_t block : {size_t{4096}, size_t{10000}, size_t{1} << 20}) {
      ValidateRunOptions o;
      o.threads = threads;
      o.block_bytes = block;
      RunResult r = Validate({a, b}, Schema(kOrders), o);
      EXPECT_EQ(r.out.text, base.out.text) << threads << " " << block;
      EXPECT_EQ(r.quarantine.text, base.quarantine.text) << threads << " " << block;
      EXPECT_EQ(r.report, base.report) << threads << " " << block;
    }
  }
  // Line numbers restart in each file and name it.
  std::vector<JsonValue> q = JsonLines(base.quarantine);
  bool saw_b = false;
  for (const JsonValue& e : q) {
    if (e.Find("file")->as_string() == b) {
      saw_b = true;
      EXPECT_LE(Int(e, "line"), 1000);
    }
  }
  EXPECT_TRUE(saw_b);
}

// A stage that keeps the lines it is given, to compare with what `out` would have received.
class TextStage final : public RecordStage {
 public:
  struct Piece final : StagedRecords {
    std::string lines;
  };
  Result<std::unique_ptr<StagedRecords>> Stage(std::string_view lines,
                                               const LeafTape* tape) override {
    EXPECT_EQ(tape, nullptr);
    if (staged.fetch_add(1) + 1 == fail_at) return InvalidArgument("the stage failed");
    auto piece = std::make_unique<Piece>();
    piece->lines = std::string(lines);
    return std::unique_ptr<StagedRecords>(std::move(piece));
  }
  Status Take(std::unique_ptr<StagedRecords> piece) override {
    text += static_cast<Piece&>(*piece).lines;
    return Ok();
  }
  std::atomic<int> staged{0};
  int fail_at = -1;
  std::string text;
};

// With a stage, the valid records reach it in file order, as `out` would have had them, on any
// threads and blocks, and from a document long enough to be merged in parts; `out` is not
// written. A stage that fails stops the run with its error.
TEST(ValidateFilesTest, AStageTakesTheValidRecordsInFileOrder) {
  TempDir dir;
  std::string a = dir.Write("a.jsonl", GeneratedJsonl(3000, 50));
  std::string doc = "[";
  for (int i = 0; i < 60000; ++i) {
    doc += (i ? "," : "") + std::string("{\"order_id\": ") + std::to_string(i) +
           ", \"customer_id\": 7, \"order_amount\": 1.5, \"order_date\": \"2026-01-02\"}";
  }
  std::string b = dir.Write("b.json", doc + "]");
  for (auto [file, format] : {std::pair{a, RecordFormat::kJsonLines}, {b, RecordFormat::kJson}}) {
    ValidateRunOptions plain;
    plain.format = format;
    plain.threads = 1;
    RunResult base = Validate({file}, Schema(kOrders), plain);
    ASSERT_GT(base.out.text.size(), 0u);
    for (unsigned threads : {1u, 2u, 4u}) {
      for (size_t block : {size_t{4096}, size_t{1} << 20}) {
        TextStage stage;
        ValidateRunOptions o = plain;
        o.threads = threads;
        o.block_bytes = block;
        o.stage = &stage;
        RunResult r = Validate({file}, Schema(kOrders), o);
        EXPECT_EQ(stage.text, base.out.text) << threads << " " << block;
        EXPECT_EQ(r.out.text, "");
        EXPECT_EQ(r.quarantine.text, base.quarantine.text);
        EXPECT_EQ(r.report, base.report);
        // The document is one block: merged in parts when it runs alone, beside no pool or
        // past what a pool's blocks in flight may hold.
        const bool parts = format == RecordFormat::kJson && (threads == 1 || block == 4096);
        EXPECT_GT(stage.staged.load(), parts ? 1 : 0) << threads << " " << block;
      }
    }
  }
  TextStage failing;
  failing.fail_at = 3;
  ValidateRunOptions o;
  o.fs = MemFs();
  o.threads = 2;
  o.block_bytes = 4096;
  o.stage = &failing;
  StringSink out;
  StringSink quarantine;
  auto report = ValidateFiles({a}, Schema(kOrders), o, out, quarantine);
  ASSERT_FALSE(report.has_value());
  EXPECT_EQ(report.error().message(), "the stage failed");
}

TEST(ValidateFilesTest, FailFastStopsAtTheFirstBadRecordInFileOrder) {
  TempDir dir;
  std::string a = dir.Write(
      "a.jsonl", GeneratedJsonl(2000, 0) + "{\"order_id\": null}\n" + GeneratedJsonl(2000, 10));
  ValidateRunOptions o;
  o.fs = MemFs();
  o.mode = ParseMode::kFailFast;
  o.threads = 2;
  o.block_bytes = 4096;
  RunResult r = Validate({a}, Schema(std::string(kOrders) + ", extra INT"), o);
  ASSERT_TRUE(r.report.stopped.has_value());
  EXPECT_EQ(r.report.stopped->line, 2001u);
  EXPECT_EQ(r.report.stopped->path, "order_id");
  EXPECT_EQ(r.report.quarantined, 1u);
  EXPECT_EQ(r.report.valid, Lines(r.out).size());
  EXPECT_TRUE(r.report.invariant_holds());
  EXPECT_EQ(r.report.stopped->file, a);
}

TEST(ValidateFilesTest, LinesLongerThanABlock) {
  TempDir dir;
  std::string big(200000, 'x');
  std::string text = "{\"order_id\": 1, \"customer_id\": 2, \"note\": \"" + big + "\"}\n" +
                     "{\"order_id\": 2, \"customer_id\": 3}\n";
  std::string file = dir.Write("long.jsonl", text);
  ValidateRunOptions o;
  o.fs = MemFs();
  o.block_bytes = 4096;
  o.threads = 2;
  RunResult r = Validate({file}, Schema(kOrders), o);
  EXPECT_EQ(r.report.records_in, 2u);
  EXPECT_EQ(r.report.rescued, 1u);
  EXPECT_NE(r.out.text.find(big), std::string::npos);
}

// Blocks cut anywhere: lines of every length around the block sizes (longer than a block too),
// a BOM, CRLF, blank lines, a bad record and no line break at the end give the same records,
// quarantine, report and inferred schema on a pool of workers as on one thread.
TEST(ValidateFilesTest, BlocksCutAnywhereHoldEveryLine) {
  TempDir dir;
  std::string text = "\xEF\xBB\xBF";
  for (int i = 0; i < 400; ++i) {
    const size_t note = (i % 37 == 3)   ? 2000 + 700 * static_cast<size_t>(i % 5)
                        : (i % 53 == 9) ? 9000
                                        : static_cast<size_t>(i % 90);
    text += "{\"order_id\": " + std::to_string(i) + ", \"customer_id\": " + std::to_string(i) +
            ", \"note\": \"" + std::string(note, 'a' + static_cast<char>(i % 26)) + "\"}";
    text += (i % 11 == 4) ? "\r\n" : (i % 17 == 6) ? "\n\n" : "\n";
    if (i == 150) text += "{\"order_id\": 150, broken\n";
  }
  text += "{\"order_id\": 400, \"customer_id\": 1}";
  std::string file = dir.Write("mixed.jsonl", text);
  ValidateRunOptions one;
  one.threads = 1;
  RunResult base = Validate({file}, Schema(kOrders), one);
  EXPECT_EQ(base.report.records_in, 402u);
  EXPECT_EQ(base.report.malformed, 1u);
  InferRunOptions infer_one;
  infer_one.fs = MemFs();
  infer_one.threads = 1;
  auto inferred = InferFiles({file}, infer_one);
  ASSERT_TRUE(inferred.has_value());
  for (unsigned threads : {2u, 3u}) {
    for (size_t block : {size_t{4096}, size_t{5000}, size_t{70000}}) {
      ValidateRunOptions o;
      o.threads = threads;
      o.block_bytes = block;
      RunResult r = Validate({file}, Schema(kOrders), o);
      EXPECT_EQ(r.out.text, base.out.text) << threads << " " << block;
      EXPECT_EQ(r.quarantine.text, base.quarantine.text) << threads << " " << block;
      EXPECT_EQ(r.report, base.report) << threads << " " << block;
      InferRunOptions io = infer_one;
      io.threads = threads;
      io.block_bytes = block;
      auto r2 = InferFiles({file}, io);
      ASSERT_TRUE(r2.has_value());
      EXPECT_EQ(dialects::spark::WriteDdl(*r2->schema).value,
                dialects::spark::WriteDdl(*inferred->schema).value);
      EXPECT_EQ(r2->records, inferred->records);
    }
  }
}

TEST(ValidateFilesTest, DropMalformedHasNoRescuedColumn) {
  TempDir dir;
  std::string file = dir.Write("o.jsonl",
                               "{\"order_id\": 1, \"customer_id\": 2}\n"
                               "{\"order_id\": 2, \"customer_id\": 3, \"x\": 1}\n");
  ValidateRunOptions o;
  o.fs = MemFs();
  o.mode = ParseMode::kDropMalformed;
  RunResult r = Validate({file}, Schema(kOrders), o);
  EXPECT_EQ(r.out.text,
            "{\"order_id\":1,\"customer_id\":2,\"order_amount\":null,\"order_date\":null}\n");
  EXPECT_EQ(r.report.quarantined, 1u);
  EXPECT_EQ(r.report.rescued, 0u);
}

TEST(ValidateFilesTest, JsonDocumentsArraysAndSingleObjects) {
  TempDir dir;
  std::string arr = dir.Write("arr.json",
                              "[\n  {\"order_id\": 1, \"customer_id\": 2},\n"
                              "  {\"order_id\": \"x\", \"customer_id\": 3},\n"
                              "  {\"order_id\": 3, \"customer_id\": 4, \"s\": \"a]b,c\"}\n]\n");
  std::string one = dir.Write("one.json", "{\n \"order_id\": 9,\n \"customer_id\": 8\n}\n");
  std::string broken =
      dir.Write("broken.json", "[{\"order_id\": 1, \"customer_id\": 2},\n {\"order_id\": 2,");
  ValidateRunOptions o;
  o.fs = MemFs();
  o.format = RecordFormat::kJson;
  RunResult r = Validate({arr, one, broken}, Schema(kOrders), o);
  EXPECT_EQ(r.report.records_in, 6u);
  EXPECT_EQ(r.report.valid, 4u);
  EXPECT_EQ(r.report.quarantined, 2u);
  EXPECT_EQ(r.report.malformed, 1u);
  std::vector<JsonValue> q = JsonLines(r.quarantine);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(Int(q[0], "line"), 3);
  EXPECT_EQ(Raw(q[0]), "{\"order_id\": \"x\", \"customer_id\": 3}");
  EXPECT_EQ(Int(q[1], "line"), 2);
  EXPECT_EQ(q[1].Find("file")->as_string(), broken);
  EXPECT_EQ(Raw(q[1]), "{\"order_id\": 2,");
}

TEST(ValidateFilesTest, CsvHeadersMapByNameAndExtraColumnsAreRescued) {
  TempDir dir;
  std::string file = dir.Write("o.csv",
                               "\xEF\xBB\xBF"
                               "customer_id,order_id,Order_Amount,channel\r\n"
                               "501,1001,4500.0,web\r\n"
                               "\r\n"
                               "502,1002,\"12.5\",\"sh\"\"op\"\r\n"
                               "503,x,1.0,app\r\n"
                               "504,1004\r\n");
  ValidateRunOptions o;
  o.fs = MemFs();
  o.format = RecordFormat::kCsv;
  RunResult r = Validate({file}, Schema(kOrders), o);
  EXPECT_EQ(r.report.records_in, 4u);
  EXPECT_EQ(r.report.valid, 2u);
  EXPECT_EQ(r.report.rescued, 2u);
  EXPECT_EQ(r.report.quarantined, 2u);
  EXPECT_EQ(r.report.malformed, 1u);
  std::vector<std::string> out = Lines(r.out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].starts_with("{\"customer_id\":501,\"order_id\":1001,\"order_amount\":null"))
      << out[0];
  EXPECT_NE(out[1].find("\\\"channel\\\":\\\"sh\\\\\\\"op\\\""), std::string::npos) << out[1];
  EXPECT_NE(out[1].find("\\\"Order_Amount\\\":\\\"12.5\\\""), std::string::npos) << out[1];
  std::vector<JsonValue> q = JsonLines(r.quarantine);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(Int(q[0], "line"), 5);
  EXPECT_EQ(Int(q[1], "line"), 6);
  EXPECT_EQ(Raw(q[1]), "504,1004");
  std::string bytes =
      "\xEF\xBB\xBF"
      "customer_id,order_id,Order_Amount,channel\r\n"
      "501,1001,4500.0,web\r\n\r\n502,1002,\"12.5\",\"sh\"\"op\"\r\n";
  EXPECT_EQ(Int(q[0], "offset"), static_cast<int64_t>(bytes.size()));
}

TEST(ValidateFilesTest, CsvWithoutHeaderIsPositional) {
  TempDir dir;
  std::string file = dir.Write("o.csv", "1,2,3.5,2026-01-02\n4,NA,1,2026-13-01\n");
  ValidateRunOptions o;
  o.fs = MemFs();
  o.format = RecordFormat::kCsv;
  o.csv.header = false;
  o.csv.null_value = "NA";
  RunResult r = Validate({file}, Schema(kOrders), o);
  EXPECT_EQ(r.out.text,
            "{\"order_id\":1,\"customer_id\":2,\"order_amount\":3.5,\"order_date\":\"2026-01-02\","
            "\"_rescued_data\":null}\n");
  EXPECT_EQ(r.report.quarantined, 1u);  // customer_id NOT NULL
}

TEST(ValidateFilesTest, CsvRejectsNestedSchemas) {
  TempDir dir;
  std::string file = dir.Write("o.csv", "a\n1\n");
  StringSink out;
  StringSink q;
  ValidateRunOptions o;
  o.fs = MemFs();
  o.format = RecordFormat::kCsv;
  auto r = ValidateFiles({file}, Schema("a STRUCT<b: INT>"), o, out, q);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
}

TEST(ValidateFilesTest, CsvMultiLineQuotedValues) {
  TempDir dir;
  std::string file = dir.Write("o.csv", "order_id,customer_id,note\n1,2,\"two\nlines\"\nx,3,y\n");
  ValidateRunOptions o;
  o.fs = MemFs();
  o.format = RecordFormat::kCsv;
  o.csv.reader.multi_line = true;
  RunResult r = Validate({file}, Schema(kOrders), o);
  EXPECT_EQ(r.report.records_in, 2u);
  EXPECT_NE(r.out.text.find("two\\\\nlines"), std::string::npos) << r.out.text;
  std::vector<JsonValue> q = JsonLines(r.quarantine);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(Int(q[0], "line"), 4);
}

TEST(ValidateFilesTest, ErrorsStopTheRun) {
  StringSink out;
  StringSink q;
  ValidateRunOptions o;
  o.fs = MemFs();
  auto missing = ValidateFiles({"/nonexistent/x.jsonl"}, Schema(kOrders), o, out, q);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message().find("/nonexistent/x.jsonl"), std::string::npos);

  TempDir dir;
  std::string file = dir.Write("a.jsonl", GeneratedJsonl(5000, 0));
  StringSink full;
  full.fail_after = 1000;
  auto failed = ValidateFiles({file}, Schema(kOrders), o, full, q);
  ASSERT_FALSE(failed.has_value());
  EXPECT_NE(failed.error().message().find("disk full"), std::string::npos);
}

TEST(InferFilesTest, SameSchemaForAnyThreadCount) {
  TempDir dir;
  std::string a = dir.Write(
      "a.jsonl", GeneratedJsonl(4000, 0) + "{\"nested\": {\"z\": [1, 2.5], \"a\": null}}\n");
  InferRunOptions o;
  o.fs = MemFs();
  o.threads = 1;
  auto base = InferFiles({a}, o);
  ASSERT_TRUE(base.has_value());
  EXPECT_EQ(
      dialects::spark::WriteDdl(*base->schema).value,
      "customer_id BIGINT,extra BIGINT,nested STRUCT<a: STRING, z: ARRAY<DOUBLE>>,order_amount "
      "DOUBLE,order_date STRING,order_id BIGINT");
  for (unsigned threads : {2u, 3u}) {
    o.threads = threads;
    o.block_bytes = 4096;
    auto r = InferFiles({a}, o);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(dialects::spark::WriteDdl(*r->schema).value,
              dialects::spark::WriteDdl(*base->schema).value);
    EXPECT_EQ(r->records, base->records);
  }
}

TEST(InferFilesTest, SamplingIsDeterministicAndThreadIndependent) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "{\"a\": " + std::to_string(i) + "}\n";
  text += "{\"rare\": true}\n";
  std::string a = dir.Write("a.jsonl", text);
  InferRunOptions o;
  o.fs = MemFs();
  o.sampling_ratio = 0.1;
  o.threads = 1;
  auto r1 = InferFiles({a}, o);
  o.threads = 2;
  o.block_bytes = 4096;
  auto r2 = InferFiles({a}, o);
  ASSERT_TRUE(r1.has_value() && r2.has_value());
  EXPECT_EQ(r1->records, r2->records);
  EXPECT_GT(r1->records, 100u);
  EXPECT_LT(r1->records, 320u);
}

TEST(InferFilesTest, FailFastNamesTheFileAndLine) {
  TempDir dir;
  std::string a = dir.Write("a.jsonl", "{\"a\": 1}\n\n{\"a\": \n{\"a\": 2}\n");
  InferRunOptions o;
  o.fs = MemFs();
  o.json.mode = ParseMode::kFailFast;
  auto r = InferFiles({a}, o);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find(a + ":3:"), std::string::npos) << r.error().message();
}

TEST(InferFilesTest, CsvTypesAndHeaderFromTheFirstFile) {
  TempDir dir;
  std::string a = dir.Write("a.csv", "id,amount,day\n1,2.5,2026-01-01\n2,3,2026-01-02\n");
  std::string b = dir.Write("b.csv", "id,amount,day\n3000000000,x,2026-01-03\n");
  InferRunOptions o;
  o.fs = MemFs();
  o.format = RecordFormat::kCsv;
  auto r = InferFiles({a, b}, o);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(dialects::spark::WriteDdl(*r->schema).value, "id BIGINT,amount STRING,day DATE");
  EXPECT_EQ(r->records, 3u);
}

TEST(InferFilesTest, JsonDocuments) {
  TempDir dir;
  std::string a = dir.Write("a.json", "[{\"a\": 1}, {\"b\": \"x\"}]");
  InferRunOptions o;
  o.fs = MemFs();
  o.format = RecordFormat::kJson;
  auto r = InferFiles({a}, o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(dialects::spark::WriteDdl(*r->schema).value, "a BIGINT,b STRING");
}

// The default file system is the machine's: the same bytes read from a real file give the same
// run as from memory.
TEST(ValidateFilesTest, ReadsLocalFilesByDefault) {
  std::string dir =
      (fs::temp_directory_path() / ("sluice-runs-" + std::to_string(::getpid()))).string();
  ASSERT_TRUE(LocalFileSystem()->CreateDirs(dir).has_value());
  std::string bytes = GeneratedJsonl(3000, 50);
  std::string file = dir + "/a.jsonl";
  ASSERT_TRUE(LocalFileSystem()->WriteFile(file, bytes).has_value());
  ValidateRunOptions o;
  o.block_bytes = 4096;
  o.threads = 2;
  StringSink out;
  StringSink q;
  auto local = ValidateFiles({file}, Schema(kOrders), o, out, q);
  fs::remove_all(dir);
  ASSERT_TRUE(local.has_value()) << local.error().message();
  // The same path in memory, so the rescued column's _file_path is the same too.
  ASSERT_TRUE(MemFs()->WriteFile(file, bytes).has_value());
  RunResult r = Validate({file}, Schema(kOrders), o);
  EXPECT_EQ(local->records_in, r.report.records_in);
  EXPECT_EQ(local->quarantined, r.report.quarantined);
  EXPECT_GT(local->quarantined, 0u);
  EXPECT_EQ(out.text, r.out.text);
}

TEST(RecordFormatTest, NamesAndGuesses) {
  EXPECT_EQ(*ParseRecordFormat("JSONL"), RecordFormat::kJsonLines);
  EXPECT_EQ(*ParseRecordFormat("csv"), RecordFormat::kCsv);
  EXPECT_EQ(*ParseRecordFormat("Parquet"), RecordFormat::kParquet);
  EXPECT_FALSE(ParseRecordFormat("orc").has_value());
  EXPECT_EQ(GuessRecordFormat("x.parquet", ""), RecordFormat::kParquet);
  EXPECT_EQ(GuessRecordFormat("part-0", "PAR1\x15\x04"), RecordFormat::kParquet);
  EXPECT_EQ(GuessRecordFormat("x.csv", "a,b"), RecordFormat::kCsv);
  EXPECT_EQ(GuessRecordFormat("x.json", "  [ {"), RecordFormat::kJson);
  EXPECT_EQ(GuessRecordFormat("x.json", "{\"a\":1}\n{\"a\":2}"), RecordFormat::kJsonLines);
  EXPECT_EQ(GuessRecordFormat("x.ndjson", "["), RecordFormat::kJsonLines);
}

}  // namespace
}  // namespace sluice::data

namespace sluice::data {
namespace {

TEST(ValidateFilesTest, CsvRepeatedHeaderNamesAreRescued) {
  TempDir dir;
  std::string file = dir.Write("o.csv", "order_id,customer_id,order_id\n1,2,3\n");
  ValidateRunOptions o;
  o.fs = MemFs();
  o.format = RecordFormat::kCsv;
  RunResult r = Validate({file}, Schema(kOrders), o);
  EXPECT_EQ(r.report.rescued, 1u);
  EXPECT_NE(r.out.text.find("{\"order_id\":1,\"customer_id\":2,"), std::string::npos) << r.out.text;
  EXPECT_NE(r.out.text.find("\\\"order_id\\\":\\\"3\\\""), std::string::npos) << r.out.text;
  EXPECT_NE(FindViolation(r.report, "order_id", ViolationKind::kDuplicateKey), nullptr);
}

}  // namespace
}  // namespace sluice::data
