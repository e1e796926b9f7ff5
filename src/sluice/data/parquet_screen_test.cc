// A Parquet input's rows are screened against the schema while decoded (parquet/row_screen.h):
// rows that pass skip the JSON check. Screening must never change a result: over random schemas
// and values (nulls where the schema forbids them, NaN, extreme numbers and decimals, escapes,
// non-ASCII, empty arrays), a run with the screen and one without give the same output,
// quarantine and report.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/string_sink_testing.h"
#include "sluice/data/file_runs.h"
#include "sluice/data/parquet_sink.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/parquet/file_reader.h"

namespace sluice::data {
namespace {

using ::sluice::testing::StringSink;

using schema::Field;
using schema::Type;
using schema::TypePtr;

const std::shared_ptr<MemoryFileSystem>& Fs() {
  static const auto fs = std::make_shared<MemoryFileSystem>();
  return fs;
}

schema::SchemaPtr Ddl(std::string_view ddl) {
  auto s = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(s.has_value()) << ddl << ": " << (s ? "" : s.error().message());
  return s ? s->value : nullptr;
}

// Random Spark DDL types and JSON values of them.
class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}

  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }
  bool Chance(int percent) { return Pick(100) < percent; }

  std::string TypeDdl(int depth) {
    const int k = Pick(depth < 3 ? 17 : 14);
    switch (k) {
      case 0:
        return "BOOLEAN";
      case 1:
        return "TINYINT";
      case 2:
        return "SMALLINT";
      case 3:
        return "INT";
      case 4:
        return "BIGINT";
      case 5:
        return "FLOAT";
      case 6:
        return "DOUBLE";
      case 7: {
        const int p = 1 + Pick(38);
        return "DECIMAL(" + std::to_string(p) + "," + std::to_string(Pick(p + 1)) + ")";
      }
      case 8:
      case 9:
        return "STRING";
      case 10:
        return "DATE";
      case 11:
        return "TIMESTAMP";
      case 12:
        return "TIMESTAMP_NTZ";
      case 13:
        // Types the screen does not vouch for: the whole file takes the JSON check.
        return Chance(50) ? "BINARY" : "MAP<STRING, INT>";
      case 14:
      case 15: {
        std::string s = "STRUCT<";
        const int n = 1 + Pick(3);
        for (int i = 0; i < n; ++i) {
          if (i > 0) s += ", ";
          s += "s" + std::to_string(i) + ": " + TypeDdl(depth + 1);
        }
        return s + ">";
      }
      default:
        return "ARRAY<" + TypeDdl(depth + 1) + ">";
    }
  }

  std::string Value(const Type& t) {
    if (Chance(12)) return "null";
    using schema::TypeKind;
    switch (t.kind()) {
      case TypeKind::kBoolean:
        return Chance(50) ? "true" : "false";
      case TypeKind::kInt8:
        return Of({"0", "-128", "127", "5"});
      case TypeKind::kInt16:
        return Of({"0", "-32768", "32767", "-7"});
      case TypeKind::kInt32:
        return Of({"0", "-2147483648", "2147483647", "42"});
      case TypeKind::kInt64:
        return Of({"0", "-9223372036854775808", "9223372036854775807", "123456789012"});
      case TypeKind::kFloat32:
        return Of(
            {"0", "1.5", "-3.25e10", "\"NaN\"", "\"Infinity\"", "3.4028235e38", "1e-45", "-0.0"});
      case TypeKind::kFloat64:
        return Of({"0.1", "-2.5e300", "\"NaN\"", "\"-Infinity\"", "1.7976931348623157e308",
                   "5e-324", "12"});
      case TypeKind::kDecimal: {
        std::string digits;
        const int whole = t.precision() - t.scale();
        const int n = Pick(whole + 1);
        for (int i = 0; i < n; ++i)
          digits += static_cast<char>('0' + (i == 0 ? 1 + Pick(9) : Pick(10)));
        if (digits.empty()) digits = "0";
        if (t.scale() > 0) {
          digits += '.';
          for (int i = 0; i < t.scale(); ++i) digits += static_cast<char>('0' + Pick(10));
        }
        return (Chance(30) ? "-" : "") + digits;
      }
      case TypeKind::kString:
        return Of({"\"\"", "\"plain\"", "\"caf\\u00e9 \xc3\xa9\"", "\"q\\\"uote\\\\\"",
                   "\"tab\\tnew\\nline\"", "\"\\u0001\"", "\"\xf0\x9f\x9a\x80\"",
                   "\"a longer string with several words in it\""});
      case TypeKind::kBinary:
        return Of({"\"AAEC\"", "\"\""});
      case TypeKind::kDate:
        return Of({"\"2026-07-20\"", "\"0001-01-01\"", "\"9999-12-31\"", "\"1970-01-01\""});
      case TypeKind::kTimestamp:
        return Of({"\"2026-07-20T10:42:25.908Z\"", "\"0001-01-01T00:00:00Z\"",
                   "\"9999-12-31T23:59:59.999999Z\"", "\"1969-12-31T23:59:59.5Z\""});
      case TypeKind::kTimestampNtz:
        return Of({"\"2026-07-20T10:42:25.908\"", "\"0001-01-01T00:00:00\"",
                   "\"9999-12-31T23:59:59.999999\""});
      case TypeKind::kStruct: {
        std::string s = "{";
        for (size_t i = 0; i < t.fields().size(); ++i) {
          if (i > 0) s += ',';
          s += "\"" + t.fields()[i].name() + "\":" + Value(*t.fields()[i].type());
        }
        return s + "}";
      }
      case TypeKind::kArray: {
        std::string s = "[";
        const int n = Pick(4);
        for (int i = 0; i < n; ++i) {
          if (i > 0) s += ',';
          s += Value(*t.element_type());
        }
        return s + "]";
      }
      case TypeKind::kMap:
        return Of({"{}", "{\"k\":1}", "{\"a\":null,\"b\":2}"});
      case TypeKind::kNull:
      case TypeKind::kTime:
      case TypeKind::kUuid:
        return "null";
    }
    return "null";
  }

  // `t` with some of its fields and arrays made not nullable: the target a file is read as.
  TypePtr Tighten(const TypePtr& t) {
    if (t->is_struct()) {
      std::vector<Field> fields;
      for (const Field& f : t->fields()) {
        Field g = f;
        g.set_type(Tighten(f.type()));
        if (Chance(25)) g.set_nullable(false);
        fields.push_back(std::move(g));
      }
      return *Type::Struct(std::move(fields));
    }
    if (t->is_array()) {
      return *Type::Array(Tighten(t->element_type()), t->contains_null() && !Chance(25));
    }
    return t;
  }

 private:
  std::string Of(std::initializer_list<const char*> options) {
    return *(options.begin() + Pick(static_cast<int>(options.size())));
  }

  std::mt19937 rng_;
};

// Write `lines` (validator output for `schema`) to a Parquet file in memory.
// Row groups of `rows_per_group` rows (0: one row group).
std::string WriteParquet(const schema::SchemaPtr& schema, const std::vector<std::string>& lines,
                         const std::string& path, int64_t rows_per_group = 0) {
  auto plan = ParquetRecordPlan::Compile(schema);
  EXPECT_TRUE(plan.has_value()) << plan.error().message();
  StringSink out;
  parquet::WriterOptions options;
  options.max_rows_per_row_group = rows_per_group;
  auto sink = ParquetRecordSink::Open(*plan, out, options);
  EXPECT_TRUE(sink.has_value()) << sink.error().message();
  for (const std::string& line : lines) {
    Status s = (*sink)->Append(line);
    EXPECT_TRUE(s.has_value()) << line << ": " << s.error().message();
  }
  EXPECT_TRUE((*sink)->Close().has_value());
  EXPECT_TRUE(Fs()->WriteFile(path, out.text).has_value());
  return path;
}

struct Outcome {
  ValidateReport report;
  StringSink out;
  StringSink quarantine;
};

Outcome Validate(const std::string& file, const schema::SchemaPtr& schema, bool screen,
                 ParseMode mode, unsigned threads, bool discard = false) {
  Outcome r;
  ValidateRunOptions options;
  options.fs = Fs();
  options.format = RecordFormat::kParquet;
  options.mode = mode;
  options.threads = threads;
  options.block_bytes = 4096;
  options.screen_parquet_rows = screen;
  options.discard_valid = discard;
  auto report = ValidateFiles({file}, schema, options, r.out, r.quarantine);
  EXPECT_TRUE(report.has_value()) << report.error().message();
  if (report) r.report = std::move(*report);
  return r;
}

// Whether the screen applies to `file` read as `schema` (with the rescued column `_rescued_data`
// appended, as the validator does).
bool ScreenApplies(const std::string& file, const schema::SchemaPtr& schema) {
  auto reader = parquet::FileReader::Open(Fs(), file);
  EXPECT_TRUE(reader.has_value());
  parquet::RowScreen screen;
  screen.type = schema->struct_type();
  screen.null_only = "_rescued_data";
  return (*reader)->PlanScreen(screen).has_value();
}

TEST(ParquetScreenTest, ScreeningNeverChangesAResult) {
  int screened = 0;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Gen g(seed);
    std::string ddl;
    const int n = 1 + g.Pick(5);
    for (int i = 0; i < n; ++i) {
      if (i > 0) ddl += ", ";
      ddl += "c" + std::to_string(i) + " " + g.TypeDdl(0);
    }
    // Half the files hold the rescued column a validating writer left (mostly null).
    const bool with_rescued = g.Chance(50);
    schema::SchemaPtr file_schema = Ddl(ddl + (with_rescued ? ", _rescued_data STRING" : ""));
    schema::SchemaPtr data_schema = Ddl(ddl);
    ASSERT_NE(file_schema, nullptr);
    std::vector<std::string> lines;
    const int rows = 1 + g.Pick(300);
    for (int r = 0; r < rows; ++r) {
      std::string line = g.Value(*data_schema->struct_type());
      if (line == "null") line = g.Value(*data_schema->struct_type());
      if (line == "null") continue;
      if (with_rescued) {
        line.pop_back();
        line += g.Chance(5) ? ",\"_rescued_data\":\"{\\\"x\\\":1}\"}" : ",\"_rescued_data\":null}";
      }
      lines.push_back(line);
    }
    // Several row groups in some files: with threads, each decoded on a thread of its own.
    const std::string file = WriteParquet(file_schema, lines, "/screen/" + std::to_string(seed),
                                          g.Chance(50) ? 1 + g.Pick(40) : 0);
    // Read as written, and as a tighter schema whose nulls are not allowed in places.
    const schema::SchemaPtr tight =
        *schema::Schema::FromStruct(g.Tighten(data_schema->struct_type()));
    for (const schema::SchemaPtr& target : {data_schema, tight}) {
      screened += ScreenApplies(file, target);
      for (ParseMode mode : {ParseMode::kPermissive, ParseMode::kDropMalformed}) {
        for (unsigned threads : {1u, 3u}) {
          const Outcome with = Validate(file, target, true, mode, threads);
          const Outcome without = Validate(file, target, false, mode, threads);
          EXPECT_EQ(with.out.text, without.out.text) << target->struct_type()->ToString();
          EXPECT_EQ(with.quarantine.text, without.quarantine.text);
          EXPECT_EQ(with.report, without.report);
          EXPECT_EQ(with.report.records_in, lines.size());
          // Without output, the rows that pass are screened without text: the same report.
          const Outcome discarded = Validate(file, target, true, mode, threads, true);
          EXPECT_EQ(discarded.out.text, "");
          EXPECT_EQ(discarded.quarantine.text, without.quarantine.text);
          EXPECT_EQ(discarded.report, without.report);
        }
      }
    }
  }
  // Most of the random files are ones the screen vouches for (the others hold a binary or map).
  EXPECT_GT(screened, 40);
}

TEST(ParquetScreenTest, ANullWhereTheSchemaForbidsItIsStillQuarantined) {
  const std::string file = WriteParquet(
      Ddl("id BIGINT, tags ARRAY<STRING>"),
      {R"({"id":1,"tags":["a"]})", R"({"id":null,"tags":["b"]})", R"({"id":3,"tags":[null]})"},
      "/screen/nulls");
  const schema::SchemaPtr target = Ddl("id BIGINT NOT NULL, tags ARRAY<STRING>");
  ASSERT_TRUE(ScreenApplies(file, target));
  const Outcome r = Validate(file, target, true, ParseMode::kPermissive, 1);
  EXPECT_EQ(r.report.records_in, 3u);
  EXPECT_EQ(r.report.valid, 2u);
  EXPECT_EQ(r.report.quarantined, 1u);
  EXPECT_NE(r.quarantine.text.find("null_not_allowed"), std::string::npos) << r.quarantine.text;
  EXPECT_EQ(r.out.text,
            "{\"id\":1,\"tags\":[\"a\"],\"_rescued_data\":null}\n"
            "{\"id\":3,\"tags\":[null],\"_rescued_data\":null}\n");
}

TEST(ParquetScreenTest, AFileWithOtherFieldsOrTypesIsNotScreened) {
  const std::string file =
      WriteParquet(Ddl("id BIGINT, name STRING"), {R"({"id":1,"name":"x"})"}, "/screen/other");
  EXPECT_TRUE(ScreenApplies(file, Ddl("name STRING, id BIGINT")));          // order does not matter
  EXPECT_FALSE(ScreenApplies(file, Ddl("id BIGINT")));                      // the file has more
  EXPECT_FALSE(ScreenApplies(file, Ddl("id BIGINT, name STRING, x INT")));  // and less
  EXPECT_FALSE(ScreenApplies(file, Ddl("id INT, name STRING")));            // another type
  EXPECT_FALSE(ScreenApplies(file, Ddl("ID BIGINT, name STRING")));         // another case
  EXPECT_FALSE(ScreenApplies(file, Ddl("id BIGINT, name VARCHAR(3)")));     // a length check
}

// Without output, a row group is screened without text until a batch holds a row that fails;
// it is then read again with text from that batch on, the rows before it counted once.
TEST(ParquetScreenTest, ARowThatFailsLateInARowGroupIsCheckedOnceWithItsText) {
  std::vector<std::string> lines;
  for (int i = 0; i < 10000; ++i) {
    lines.push_back(i == 7000 ? R"({"id":null,"s":"late"})"
                              : "{\"id\":" + std::to_string(i) + ",\"s\":\"v\"}");
  }
  const std::string file = WriteParquet(Ddl("id BIGINT, s STRING"), lines, "/screen/late");
  const schema::SchemaPtr target = Ddl("id BIGINT NOT NULL, s STRING");
  const Outcome discarded = Validate(file, target, true, ParseMode::kPermissive, 2, true);
  const Outcome checked = Validate(file, target, false, ParseMode::kPermissive, 2);
  EXPECT_EQ(discarded.report, checked.report);
  EXPECT_EQ(discarded.report.records_in, 10000u);
  EXPECT_EQ(discarded.report.quarantined, 1u);
  EXPECT_EQ(discarded.quarantine.text, checked.quarantine.text);
  EXPECT_NE(discarded.quarantine.text.find("\"line\":7001"), std::string::npos)
      << discarded.quarantine.text;
}

// Row groups are decoded on several threads but handed on in order: a damaged row group stops
// the run with the same error, after the same rows, however many threads decode.
TEST(ParquetScreenTest, ADamagedRowGroupFailsTheRunTheSameWayOnAnyThreads) {
  std::vector<std::string> lines;
  for (int i = 0; i < 100; ++i) lines.push_back("{\"id\":" + std::to_string(i) + ",\"s\":\"v\"}");
  const schema::SchemaPtr schema = Ddl("id BIGINT, s STRING");
  const std::string good = WriteParquet(schema, lines, "/screen/damaged-source", 10);
  auto reader = parquet::FileReader::Open(Fs(), good);
  ASSERT_TRUE(reader.has_value());
  ASSERT_EQ((*reader)->num_row_groups(), 10);
  std::string bytes = *Fs()->ReadFile(good);
  const parquet::ChunkRange& range = (*reader)->chunk_range(6, 0);
  for (uint64_t i = 0; i < 8; ++i) bytes[range.offset + i] = '\xff';
  ASSERT_TRUE(Fs()->WriteFile("/screen/damaged", bytes).has_value());
  std::optional<std::string> first, first_out;
  for (bool discard : {false, true}) {
    for (bool screen : {true, false}) {
      for (unsigned threads : {1u, 2u, 3u}) {
        StringSink out, quarantine;
        ValidateRunOptions options;
        options.fs = Fs();
        options.format = RecordFormat::kParquet;
        options.threads = threads;
        options.screen_parquet_rows = screen;
        options.discard_valid = discard;
        auto report = ValidateFiles({"/screen/damaged"}, schema, options, out, quarantine);
        ASSERT_FALSE(report.has_value());
        EXPECT_NE(report.error().message().find("row group 6"), std::string::npos)
            << report.error().message();
        if (!first) first = report.error().message();
        EXPECT_EQ(report.error().message(), *first);
        if (discard) continue;
        if (!first_out) first_out = out.text;
        EXPECT_EQ(out.text, *first_out) << "threads " << threads << ", screen " << screen;
      }
    }
  }
}

}  // namespace
}  // namespace sluice::data
