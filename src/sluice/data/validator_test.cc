// The validator's code paths: reuse, plan compilation, generated inputs too large or too deep
// for a data file, and the CSV reader feeding the validator. The cases (a record and what comes
// of it) are data files in testdata/validator/, run by validator_cases_test.cc.
#include "sluice/data/validator.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/data/csv_reader.h"
#include "sluice/dialects/spark/spark.h"

namespace sluice::data {
namespace {

schema::SchemaPtr Ddl(std::string_view ddl) {
  auto s = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(s.has_value()) << (s.has_value() ? "" : s.error().message());
  return s.has_value() ? s->value : nullptr;
}

std::shared_ptr<const ValidationPlan> Plan(schema::SchemaPtr schema,
                                           ValidatorOptions options = {}) {
  auto plan = ValidationPlan::Compile(std::move(schema), std::move(options));
  EXPECT_TRUE(plan.has_value()) << (plan.has_value() ? "" : plan.error().message());
  return plan.has_value() ? *plan : nullptr;
}

// What one check gave, in a form tests compare directly.
struct Outcome {
  std::string status;
  std::string violations;  // "path:kind path:kind", in report order
  std::string line;        // what was appended to the output, without its newline
  std::string error;
  int64_t error_offset = -1;
  size_t violation_count = 0;
};

Outcome Collect(const RecordResult& r, const std::string& appended) {
  Outcome o;
  o.status = std::string(RecordStatusName(r.status));
  for (const RecordViolation& v : r.violations) {
    if (!o.violations.empty()) o.violations += ' ';
    o.violations += v.path;
    o.violations += ':';
    o.violations += ViolationKindName(v.kind);
  }
  o.violation_count = r.violations.size();
  o.error = r.error;
  o.error_offset = r.error_offset;
  o.line = appended;
  if (r.status == RecordStatus::kValid || r.status == RecordStatus::kRescued) {
    EXPECT_TRUE(!appended.empty() && appended.back() == '\n') << "no newline: " << appended;
    EXPECT_EQ(appended.find('\n'), appended.size() - 1) << "one line per record: " << appended;
    if (!appended.empty() && appended.back() == '\n') o.line.pop_back();
    // Every line written must be JSON a reader can load.
    auto parsed = ParseJson(o.line);
    EXPECT_TRUE(parsed.has_value()) << o.line;
  } else {
    EXPECT_EQ(appended, "") << "a " << o.status << " record must write nothing";
  }
  return o;
}

// Check `record` as JSON; the text sits in a buffer with simdjson's padding after it, and the
// output buffer already holds a line, which must survive untouched.
Outcome Json(RecordValidator& v, std::string_view record, std::string_view file = "f.jsonl") {
  std::string buffer(record);
  buffer.append(64, ' ');
  const std::string before = "previous line\n";
  std::string out = before;
  const RecordResult& r = v.CheckJson(std::string_view(buffer.data(), record.size()), file, out);
  EXPECT_EQ(out.substr(0, before.size()), before);
  return Collect(r, out.substr(before.size()));
}

Outcome Json(const std::shared_ptr<const ValidationPlan>& plan, std::string_view record,
             std::string_view file = "f.jsonl") {
  RecordValidator v(plan);
  return Json(v, record, file);
}

Outcome Csv(RecordValidator& v, const CsvRecord& record, const RecordValidator::CsvLayout& layout,
            std::string_view file = "f.csv") {
  std::string out;
  const RecordResult& r = v.CheckCsv(record, layout, file, out);
  return Collect(r, out);
}

// The rescued column's value in an output line: its string content, "null", or "<absent>".
std::string Rescued(const std::string& line, std::string_view column = "_rescued_data") {
  auto parsed = ParseJson(line);
  if (!parsed.has_value()) return "<not json>";
  const JsonValue* v = parsed->Find(column);
  if (v == nullptr) return "<absent>";
  if (v->is_null()) return "null";
  if (!v->is_string()) return "<not a string>";
  return v->as_string();
}

constexpr std::string_view kOrders =
    "order_id BIGINT NOT NULL, customer_id BIGINT NOT NULL, order_amount DOUBLE, order_date DATE";

constexpr std::string_view kCsvSchema =
    "id INT NOT NULL, amount DECIMAL(6,2), active BOOLEAN, day DATE, name STRING";

RecordValidator::CsvLayout Layout(std::vector<int> columns, std::vector<std::string> header,
                                  std::string null_value = "", std::string empty_value = "") {
  RecordValidator::CsvLayout l;
  l.columns = std::move(columns);
  l.header = std::move(header);
  l.null_value = std::move(null_value);
  l.empty_value = std::move(empty_value);
  return l;
}

TEST(ValidatorSeedTest, ValidatorIsReusableAcrossRecords) {
  auto plan = Plan(Ddl(kOrders));
  RecordValidator v(plan);
  EXPECT_EQ(Json(v, R"({"order_id":1,"x":1})").status, "bad");
  EXPECT_EQ(Json(v, "{").status, "malformed");
  Outcome ok = Json(v, R"({"order_id":1,"customer_id":2})");
  EXPECT_EQ(ok.status, "valid");
  EXPECT_EQ(ok.violations, "");
  EXPECT_EQ(ok.error, "");
  EXPECT_EQ(ok.error_offset, -1);
  EXPECT_EQ(Rescued(ok.line), "null");
  // A moved validator keeps working.
  RecordValidator moved = std::move(v);
  EXPECT_EQ(Json(moved, R"({"order_id":1,"customer_id":2,"z":3})").status, "rescued");
}

TEST(ValidatorRescueTest, RescuedColumnIsAppendedOnlyWhenTheSchemaLacksIt) {
  auto plan = Plan(Ddl(kOrders));
  ASSERT_NE(plan, nullptr);
  EXPECT_TRUE(plan->appends_rescued_column());
  auto in_schema = Plan(Ddl("id INT, _rescued_data STRING, name STRING"));
  ASSERT_NE(in_schema, nullptr);
  EXPECT_FALSE(in_schema->appends_rescued_column());
  ValidatorOptions none;
  none.rescued_column = "";
  auto without = Plan(Ddl("id INT, name STRING"), none);
  ASSERT_NE(without, nullptr);
  EXPECT_FALSE(without->appends_rescued_column());
}

TEST(ValidatorRescueTest, NonStringRescuedColumnIsRejected) {
  auto r = ValidationPlan::Compile(Ddl("id INT, _rescued_data INT"));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message().find("_rescued_data"), std::string::npos) << r.error().message();

  ValidatorOptions custom;
  custom.rescued_column = "_r";
  auto m = ValidationPlan::Compile(Ddl("id INT, _r MAP<STRING, STRING>"), custom);
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().code(), ErrorCode::kInvalidArgument);
  // The default name is then an ordinary column of any type.
  EXPECT_TRUE(ValidationPlan::Compile(Ddl("id INT, _rescued_data INT"), custom).has_value());

  auto none = ValidationPlan::Compile(nullptr);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code(), ErrorCode::kInvalidArgument);
}

TEST(ValidatorRescueTest, ViolationsAreCappedButEverythingIsRescued) {
  auto plan = Plan(Ddl("id INT"));
  std::string record = "{\"id\":1";
  for (int i = 0; i < 100; ++i) record += ",\"k" + std::to_string(i) + "\":" + std::to_string(i);
  record += "}";
  Outcome o = Json(plan, record);
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violation_count, 64u);
  EXPECT_EQ(o.violations.substr(0, 34), "k0:unknown_field k1:unknown_field ");
  auto rescued = ParseJson(Rescued(o.line));
  ASSERT_TRUE(rescued.has_value());
  ASSERT_EQ(rescued->members().size(), 101u);
  EXPECT_EQ(rescued->members()[99].key, "k99");
  EXPECT_EQ(rescued->members()[100].key, "_file_path");
}

TEST(ValidatorKeyTest, WideStructsMatchKeysInAnyOrder) {
  std::string ddl;
  for (int i = 0; i < 20; ++i) ddl += (i ? ", f" : "f") + std::to_string(i) + " INT";
  auto plan = Plan(Ddl(ddl));
  std::string record = "{";
  std::string expected = "{";
  for (int i = 19; i >= 0; i -= 2) {
    if (record.size() > 1) {
      record += ',';
      expected += ',';
    }
    record += "\"f" + std::to_string(i) + "\":" + std::to_string(i);
    expected += "\"f" + std::to_string(i) + "\":" + std::to_string(i);
  }
  record += ",\"F3\":3,\"zz\":0,\"f19\":1}";
  for (int i = 0; i < 20; i += 2) expected += ",\"f" + std::to_string(i) + "\":null";
  expected += ",\"_rescued_data\":";
  Outcome o = Json(plan, record);
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "F3:case_mismatch zz:unknown_field f19:duplicate_key");
  EXPECT_EQ(o.line.substr(0, expected.size()), expected);
  EXPECT_EQ(Rescued(o.line), R"({"F3":3,"zz":0,"f19":1,"_file_path":"f.jsonl"})");
}

TEST(ValidatorTextTest, ThousandsOfLevelsDoNotCrash) {
  auto plan = Plan(Ddl("s STRING, a ARRAY<INT>, t STRUCT<x: INT>"));
  const std::string arrays = std::string(5000, '[') + std::string(5000, ']');
  std::string objects;
  for (int i = 0; i < 5000; ++i) objects += "{\"x\":";
  objects += "1" + std::string(5000, '}');
  for (const std::string& value : {arrays, objects}) {
    EXPECT_EQ(Json(plan, "{\"s\":" + value + "}").status, "malformed");
    EXPECT_EQ(Json(plan, "{\"unknown\":" + value + "}").status, "malformed");
    EXPECT_EQ(Json(plan, "{\"a\":" + value + "}").status, "malformed");
    EXPECT_EQ(Json(plan, "{\"t\":" + value + "}").status, "malformed");
  }
  EXPECT_EQ(Json(plan, objects).status, "malformed");
  EXPECT_EQ(Json(plan, arrays).status, "malformed");
  // Unbalanced: many opening brackets, never closed.
  EXPECT_EQ(Json(plan, "{\"s\":" + std::string(100000, '[')).status, "malformed");
}

TEST(ValidatorCsvTest, RowsFromTheCsvReader) {
  auto plan = Plan(Ddl(kCsvSchema));
  RecordValidator v(plan);
  const std::string text = "7,\"1,234.5\",true,2026-08-15,\"say \"\"hi\"\"\"\n8,,,,\"\"\n";
  CsvReader reader(text, CsvOptions{});
  auto layout = Layout({0, 1, 2, 3, 4}, {"id", "amount", "active", "day", "name"});
  CsvRecord record;
  ASSERT_TRUE(reader.Next(record));
  // CSV decimals are plain BigDecimal text: the grouping comma does not parse.
  Outcome first = Csv(v, record, layout);
  EXPECT_EQ(first.status, "rescued");
  EXPECT_EQ(first.violations, "amount:type_mismatch");
  EXPECT_EQ(first.line.substr(0, first.line.find(",\"_rescued_data\"")),
            R"({"id":7,"amount":null,"active":true,"day":"2026-08-15","name":"say \"hi\"")");
  EXPECT_EQ(Rescued(first.line), R"({"amount":"1,234.5","_file_path":"f.csv"})");
  ASSERT_TRUE(reader.Next(record));
  EXPECT_EQ(Csv(v, record, layout).line,
            R"({"id":8,"amount":null,"active":null,"day":null,"name":"","_rescued_data":null})");
}

// A CSV double is written as to_chars writes the value Double.parseDouble reads (the text as it
// is when that is the same): random decimals of 1 to 17 digits, some negative, some with
// trailing zeros, leading zeros, a '+' or an exponent, and a float column beside.
TEST(ValidatorCsvTest, DoublesAreWrittenInTheirShortestForm) {
  auto plan = Plan(Ddl("d DOUBLE, f FLOAT"));
  RecordValidator v(plan);
  auto layout = Layout({0, 1}, {"d", "f"});
  std::mt19937_64 rng(20261206);
  auto shortest = [](double x) {
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
    std::string s(buf, end);
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    return s;
  };
  for (int round = 0; round < 20000; ++round) {
    std::string text = rng() % 4 == 0 ? "-" : (rng() % 16 == 0 ? "+" : "");
    if (rng() % 8 == 0) text += '0';
    const int int_digits = static_cast<int>(rng() % 9);
    for (int i = 0; i < int_digits; ++i) text += static_cast<char>('0' + rng() % 10);
    if (int_digits == 0 || rng() % 8 != 0) {
      text += '.';
      const int frac_digits = 1 + static_cast<int>(rng() % 9);
      for (int i = 0; i < frac_digits; ++i) text += static_cast<char>('0' + rng() % 10);
    }
    if (rng() % 16 == 0) text += "e" + std::to_string(static_cast<int>(rng() % 40) - 20);
    const std::string row = text + "," + text + "\n";
    CsvReader reader(row, CsvOptions{});
    CsvRecord record;
    ASSERT_TRUE(reader.Next(record));
    const Outcome o = Csv(v, record, layout);
    std::string_view t = text;
    if (t.front() == '+') t.remove_prefix(1);
    double value = 0;
    std::from_chars(t.data(), t.data() + t.size(), value);
    const std::string want = shortest(value);
    if (std::fabs(value) > std::numeric_limits<float>::max()) continue;
    ASSERT_EQ(o.line, R"({"d":)" + want + R"(,"f":)" + want + R"(,"_rescued_data":null})") << text;
  }
}

// Output far larger than the record (every element of a long array rescued under its own
// index) still comes out whole: the validator makes room and redoes the record.
TEST(ValidatorOutputTest, OutputMuchLargerThanTheRecord) {
  auto plan = Plan(Ddl("items ARRAY<STRUCT<a: INT>>"));
  std::string record = "{\"items\":[";
  for (int i = 0; i < 3000; ++i) record += i ? ",1" : "1";
  record += "]}";
  Outcome o = Json(plan, record);
  EXPECT_EQ(o.status, "rescued");
  auto rescued = ParseJson(Rescued(o.line));
  ASSERT_TRUE(rescued.has_value());
  ASSERT_NE(rescued->Find("items[2999]"), nullptr);
  EXPECT_EQ(rescued->Find("items[2999]")->number_text(), "1");
  EXPECT_EQ(rescued->members().size(), 3001u);  // 3000 elements and _file_path
}

}  // namespace
}  // namespace sluice::data
