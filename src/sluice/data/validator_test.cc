#include "sluice/data/validator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
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

// A schema from StructType JSON, for what DDL cannot say (containsNull, valueContainsNull).
schema::SchemaPtr SparkJson(std::string_view json) {
  auto s = dialects::spark::ReadJson(json);
  EXPECT_TRUE(s.has_value()) << (s.has_value() ? "" : s.error().message());
  return s.has_value() ? s->value : nullptr;
}

std::shared_ptr<const ValidationPlan> Plan(schema::SchemaPtr schema,
                                           ValidatorOptions options = {}) {
  auto plan = ValidationPlan::Compile(std::move(schema), std::move(options));
  EXPECT_TRUE(plan.has_value()) << (plan.has_value() ? "" : plan.error().message());
  return plan.has_value() ? *plan : nullptr;
}

std::string StatusName(RecordStatus s) {
  switch (s) {
    case RecordStatus::kValid:
      return "valid";
    case RecordStatus::kRescued:
      return "rescued";
    case RecordStatus::kBad:
      return "bad";
    case RecordStatus::kMalformed:
      return "malformed";
  }
  return "?";
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
  o.status = StatusName(r.status);
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

CsvRecord Row(std::initializer_list<CsvField> fields) {
  CsvRecord r;
  r.fields.assign(fields.begin(), fields.end());
  r.line = 2;
  return r;
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

// ---------------------------------------------------------------------------------------------
// The seed scenario: the Spark article on schema validation.

TEST(ValidatorSeedTest, ValidRecordIsCopiedWithANullRescuedColumn) {
  auto plan = Plan(Ddl(kOrders));
  ASSERT_NE(plan, nullptr);
  EXPECT_TRUE(plan->appends_rescued_column());
  Outcome o = Json(plan, R"({"order_id":1001,"customer_id":501,"order_amount":4500.0,)"
                         R"("order_date":"2026-08-15"})");
  EXPECT_EQ(o.status, "valid");
  EXPECT_EQ(o.violations, "");
  EXPECT_EQ(o.line, R"({"order_id":1001,"customer_id":501,"order_amount":4500.0,)"
                    R"("order_date":"2026-08-15","_rescued_data":null})");
}

TEST(ValidatorSeedTest, UnexpectedColumnIsRescuedWithTheFilePath) {
  auto plan = Plan(Ddl(kOrders));
  Outcome o =
      Json(plan, R"({"order_id":1001,"customer_id":501,"order_amount":4500.0,)"
                 R"("order_date":"2026-08-15","unexpected_column":"extra_unexpected_field"})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "unexpected_column:unknown_field");
  EXPECT_EQ(Rescued(o.line),
            R"({"unexpected_column":"extra_unexpected_field","_file_path":"f.jsonl"})");
  EXPECT_EQ(o.line, R"({"order_id":1001,"customer_id":501,"order_amount":4500.0,)"
                    R"("order_date":"2026-08-15","_rescued_data":"{\"unexpected_column\":)"
                    R"(\"extra_unexpected_field\",\"_file_path\":\"f.jsonl\"}"})");
}

TEST(ValidatorSeedTest, AmountAsStringBecomesNullAndIsRescued) {
  auto plan = Plan(Ddl(kOrders));
  Outcome o = Json(plan, R"({"order_id":1002,"customer_id":502,"order_amount":"4500.00",)"
                         R"("order_date":"2026-08-15"})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "order_amount:type_mismatch");
  EXPECT_EQ(Rescued(o.line), R"({"order_amount":"4500.00","_file_path":"f.jsonl"})");
  EXPECT_EQ(o.line.substr(0, o.line.find(",\"_rescued_data\"")),
            R"({"order_id":1002,"customer_id":502,"order_amount":null,)"
            R"("order_date":"2026-08-15")");
}

TEST(ValidatorSeedTest, MissingRequiredCustomerIsBad) {
  auto plan = Plan(Ddl(kOrders));
  Outcome o = Json(plan, R"({"order_id":1003,"order_amount":10.5,"order_date":"2026-08-15"})");
  EXPECT_EQ(o.status, "bad");
  EXPECT_EQ(o.violations, "customer_id:missing_required");
  EXPECT_EQ(o.line, "");
}

TEST(ValidatorSeedTest, MissingNullableDateIsNullAtTheEnd) {
  auto plan = Plan(Ddl(kOrders));
  // Keys stay in the record's order; the absent fields follow, in schema order.
  Outcome o = Json(plan, R"({"customer_id":504,"order_id":1004})");
  EXPECT_EQ(o.status, "valid");
  EXPECT_EQ(o.violations, "");
  EXPECT_EQ(o.line, R"({"customer_id":504,"order_id":1004,"order_amount":null,"order_date":null,)"
                    R"("_rescued_data":null})");
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

// ---------------------------------------------------------------------------------------------
// Types, one kind of violation at a time.

TEST(ValidatorTypeTest, IntegersAreIntegerTokensOnly) {
  auto plan = Plan(Ddl("a INT"));
  EXPECT_EQ(Json(plan, R"({"a":12})").line, R"({"a":12,"_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"a":-12})").line, R"({"a":-12,"_rescued_data":null})");
  // JSON's -0 is the integer 0 to Jackson.
  Outcome minus_zero = Json(plan, R"({"a":-0})");
  EXPECT_EQ(minus_zero.status, "valid") << minus_zero.violations;
  EXPECT_EQ(minus_zero.line, R"({"a":-0,"_rescued_data":null})");

  Outcome s = Json(plan, R"({"a":"12"})");
  EXPECT_EQ(s.status, "rescued");
  EXPECT_EQ(s.violations, "a:type_mismatch");
  EXPECT_EQ(s.line.substr(0, 9), R"({"a":null)");
  EXPECT_EQ(Rescued(s.line), R"({"a":"12","_file_path":"f.jsonl"})");

  Outcome f = Json(plan, R"({"a":1.0})");
  EXPECT_EQ(f.violations, "a:type_mismatch");
  EXPECT_EQ(Rescued(f.line), R"({"a":1.0,"_file_path":"f.jsonl"})");
  EXPECT_EQ(Json(plan, R"({"a":1e2})").violations, "a:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"a":true})").violations, "a:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"a":[1]})").violations, "a:type_mismatch");
  EXPECT_EQ(Rescued(Json(plan, R"({"a":[1, 2]})").line), R"({"a":[1, 2],"_file_path":"f.jsonl"})");
  EXPECT_EQ(Rescued(Json(plan, R"({"a":{"b":1}})").line),
            R"({"a":{"b":1},"_file_path":"f.jsonl"})");
  // Jackson's non-numeric numbers are not integers; rescued as text.
  Outcome nan = Json(plan, R"({"a":NaN})");
  EXPECT_EQ(nan.violations, "a:type_mismatch");
  EXPECT_EQ(Rescued(nan.line), R"({"a":"NaN","_file_path":"f.jsonl"})");
  EXPECT_EQ(Json(plan, R"({"a":-Infinity})").violations, "a:type_mismatch");
}

TEST(ValidatorTypeTest, IntegersOutOfTheirRange) {
  auto ints = Plan(Ddl("t TINYINT, s SMALLINT, i INT, l BIGINT"));
  EXPECT_EQ(
      Json(ints, R"({"t":-128,"s":-32768,"i":-2147483648,"l":-9223372036854775808})").line,
      R"({"t":-128,"s":-32768,"i":-2147483648,"l":-9223372036854775808,"_rescued_data":null})");
  EXPECT_EQ(Json(ints, R"({"t":127,"s":32767,"i":2147483647,"l":9223372036854775807})").status,
            "valid");
  EXPECT_EQ(Json(ints, R"({"t":128})").violations, "t:out_of_range");
  EXPECT_EQ(Json(ints, R"({"s":-32769})").violations, "s:out_of_range");
  Outcome i = Json(ints, R"({"i":2147483648})");
  EXPECT_EQ(i.status, "rescued");
  EXPECT_EQ(i.violations, "i:out_of_range");
  EXPECT_EQ(Rescued(i.line), R"({"i":2147483648,"_file_path":"f.jsonl"})");
  EXPECT_EQ(Json(ints, R"({"l":9223372036854775808})").violations, "l:out_of_range");
  EXPECT_EQ(Json(ints, R"({"l":-9223372036854775809})").violations, "l:out_of_range");
  Outcome big = Json(ints, R"({"l":123456789012345678901234567890})");
  EXPECT_EQ(big.violations, "l:out_of_range");
  EXPECT_EQ(Rescued(big.line), R"({"l":123456789012345678901234567890,"_file_path":"f.jsonl"})");
}

TEST(ValidatorTypeTest, BooleansAreTrueAndFalseOnly) {
  auto plan = Plan(Ddl("b BOOLEAN"));
  EXPECT_EQ(Json(plan, R"({"b":true})").line, R"({"b":true,"_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"b":false})").line, R"({"b":false,"_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"b":"true"})").violations, "b:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"b":1})").violations, "b:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"b":tru})").status, "malformed");
}

TEST(ValidatorTypeTest, StringsKeepAnyValueAsItsJsonText) {
  auto plan = Plan(Ddl("s STRING"));
  EXPECT_EQ(Json(plan, R"({"s":"x"})").line, R"({"s":"x","_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"s":true})").line, R"({"s":"true","_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"s":12})").line, R"({"s":"12","_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"s":-1.5e3})").line, R"({"s":"-1.5e3","_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"s":{"a":[1,"b"]}})").line,
            R"({"s":"{\"a\":[1,\"b\"]}","_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"s":[]})").line, R"({"s":"[]","_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"s":null})").line, R"({"s":null,"_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"s":""})").line, R"({"s":"","_rescued_data":null})");
  // A malformed value is still malformed, even where any value fits.
  EXPECT_EQ(Json(plan, R"({"s":{"a":}})").status, "malformed");
  EXPECT_EQ(Json(plan, R"({"s":[1,]})").status, "malformed");
  EXPECT_EQ(Json(plan, R"({"s":01})").status, "malformed");
}

TEST(ValidatorTypeTest, VarcharCountsCharactersNotBytes) {
  auto plan = Plan(Ddl("v VARCHAR(3), c CHAR(2)"));
  EXPECT_EQ(Json(plan, R"({"v":"abc","c":"ab"})").status, "valid");
  // Three code points, five bytes.
  EXPECT_EQ(Json(plan, "{\"v\":\"h\xC3\xA9\xC3\xA9\"}").status, "valid");
  Outcome o = Json(plan, R"({"v":"abcd"})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "v:string_too_long");
  EXPECT_EQ(o.line.substr(0, 9), R"({"v":null)");
  EXPECT_EQ(Rescued(o.line), R"({"v":"abcd","_file_path":"f.jsonl"})");
  EXPECT_EQ(Json(plan, R"({"c":"abc"})").violations, "c:string_too_long");
  // A non-string value is measured by its JSON text.
  EXPECT_EQ(Json(plan, R"({"v":123})").line, R"({"v":"123","c":null,"_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"v":1234})").violations, "v:string_too_long");
}

TEST(ValidatorTypeTest, FloatingPointNumbersAndSpecialStrings) {
  auto plan = Plan(Ddl("d DOUBLE, f FLOAT"));
  EXPECT_EQ(Json(plan, R"({"d":1.5,"f":7})").line, R"({"d":1.5,"f":7,"_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"d":-2.5E-3})").line, R"({"d":-2.5E-3,"f":null,"_rescued_data":null})");
  for (const char* special : {"NaN", "Infinity", "+Infinity", "-Infinity", "+INF", "-INF"}) {
    std::string record = std::string("{\"d\":\"") + special + "\",\"f\":\"" + special + "\"}";
    Outcome o = Json(plan, record);
    EXPECT_EQ(o.status, "valid") << special;
    EXPECT_EQ(o.line, record.substr(0, record.size() - 1) + ",\"_rescued_data\":null}");
  }
  // Jackson's non-numeric tokens (allowNonNumericNumbers is on by default in Spark).
  EXPECT_EQ(Json(plan, R"({"d":NaN,"f":-Infinity})").line,
            R"({"d":"NaN","f":"-Infinity","_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"d":"nan"})").violations, "d:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"d":"1.5"})").violations, "d:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"d":true})").violations, "d:type_mismatch");

  Outcome huge = Json(plan, R"({"d":1e400})");
  EXPECT_EQ(huge.status, "rescued");
  EXPECT_EQ(huge.violations, "d:out_of_range");
  EXPECT_EQ(Rescued(huge.line), R"({"d":1e400,"_file_path":"f.jsonl"})");
  EXPECT_EQ(Json(plan, R"({"d":-1e400})").violations, "d:out_of_range");
  EXPECT_EQ(Json(plan, R"({"f":1e39})").violations, "f:out_of_range");
  EXPECT_EQ(Json(plan, R"({"f":3.4e38,"d":1e308})").status, "valid");
  // Underflow is a number (Jackson reads 0.0), not an error.
  EXPECT_EQ(Json(plan, R"({"d":1e-400,"f":-1e-50})").line,
            R"({"d":1e-400,"f":-1e-50,"_rescued_data":null})");
}

TEST(ValidatorTypeTest, DecimalsRoundHalfUpAndCheckPrecision) {
  auto plan = Plan(Ddl("m DECIMAL(5,2)"));
  auto value = [&](std::string_view v) {
    Outcome o = Json(plan, "{\"m\":" + std::string(v) + "}");
    if (o.status != "valid") return o.status + " " + o.violations;
    return o.line;
  };
  auto line = [](std::string_view m) {
    return "{\"m\":" + std::string(m) + ",\"_rescued_data\":null}";
  };
  // BigDecimal.setScale(2, HALF_UP), as Spark's Decimal.set does.
  EXPECT_EQ(value("1.005"), line("1.01"));
  EXPECT_EQ(value("-1.005"), line("-1.01"));
  EXPECT_EQ(value("1.004"), line("1.00"));
  EXPECT_EQ(value("123.456"), line("123.46"));
  EXPECT_EQ(value("999.994"), line("999.99"));
  EXPECT_EQ(value("0.005"), line("0.01"));
  EXPECT_EQ(value("0.0049"), line("0.00"));
  EXPECT_EQ(value("-0.001"), line("0.00"));
  EXPECT_EQ(value("1"), line("1.00"));
  EXPECT_EQ(value("1.5e2"), line("150.00"));
  EXPECT_EQ(value("12345e-4"), line("1.23"));
  EXPECT_EQ(value("0"), line("0.00"));
  // A string holding a number; en-US grouping commas are removed.
  EXPECT_EQ(value("\"12.5\""), line("12.50"));
  EXPECT_EQ(value("\"1,2.5\""), line("12.50"));

  Outcome p = Json(plan, R"({"m":12345.678})");
  EXPECT_EQ(p.status, "rescued");
  EXPECT_EQ(p.violations, "m:decimal_precision");
  EXPECT_EQ(p.line.substr(0, 9), R"({"m":null)");
  EXPECT_EQ(Rescued(p.line), R"({"m":12345.678,"_file_path":"f.jsonl"})");
  // Rounding can carry into one digit too many.
  EXPECT_EQ(value("999.995"), "rescued m:decimal_precision");
  EXPECT_EQ(value("1000"), "rescued m:decimal_precision");
  EXPECT_EQ(value("\"abc\""), "rescued m:type_mismatch");
  EXPECT_EQ(value("true"), "rescued m:type_mismatch");
  EXPECT_EQ(value("NaN"), "rescued m:type_mismatch");

  auto whole = Plan(Ddl("n DECIMAL(3,0)"));
  EXPECT_EQ(Json(whole, R"({"n":2.5})").line, R"({"n":3,"_rescued_data":null})");
  EXPECT_EQ(Json(whole, R"({"n":-0.5})").line, R"({"n":-1,"_rescued_data":null})");
  EXPECT_EQ(Json(whole, R"({"n":999.4})").line, R"({"n":999,"_rescued_data":null})");
  EXPECT_EQ(Json(whole, R"({"n":999.5})").violations, "n:decimal_precision");

  auto wide = Plan(Ddl("w DECIMAL(38,10)"));
  EXPECT_EQ(Json(wide, R"({"w":1234567890123456789012345678.12345678905})").line,
            R"({"w":1234567890123456789012345678.1234567891,"_rescued_data":null})");
  EXPECT_EQ(Json(wide, R"({"w":12345678901234567890123456789})").violations, "w:decimal_precision");
}

TEST(ValidatorTypeTest, DatesTakeSparksLenientForms) {
  auto plan = Plan(Ddl("d DATE"));
  for (const char* ok : {"2026-08-15", "2026", "2026-8", "2026-8-5", "2026-08-15T10:00",
                         "2026-08-15 10:00:00", "2024-02-29"}) {
    std::string record = std::string("{\"d\":\"") + ok + "\"}";
    Outcome o = Json(plan, record);
    EXPECT_EQ(o.status, "valid") << ok << " " << o.violations;
    // The text is kept as written.
    EXPECT_EQ(o.line, std::string("{\"d\":\"") + ok + "\",\"_rescued_data\":null}");
  }
  for (const char* bad :
       {"2026-02-30", "2025-02-29", "2026-13-01", "08/15/2026", "", "x", "2026-08-15x"}) {
    Outcome o = Json(plan, std::string("{\"d\":\"") + bad + "\"}");
    EXPECT_EQ(o.violations, "d:invalid_date") << bad;
    EXPECT_EQ(o.status, "rescued") << bad;
  }
  EXPECT_EQ(Rescued(Json(plan, R"({"d":"2026-02-30"})").line),
            R"({"d":"2026-02-30","_file_path":"f.jsonl"})");
  // A number is not a date.
  EXPECT_EQ(Json(plan, R"({"d":20260815})").violations, "d:type_mismatch");
}

TEST(ValidatorTypeTest, TimestampsTakeStringsAndIntegerSeconds) {
  auto plan = Plan(Ddl("t TIMESTAMP, n TIMESTAMP_NTZ"));
  EXPECT_EQ(Json(plan, R"({"t":"2026-08-15T10:00:00Z","n":"2026-08-15 10:00:00"})").status,
            "valid");
  EXPECT_EQ(Json(plan, R"({"t":"2026-08-15T10:00:00.123+02:00"})").status, "valid");
  EXPECT_EQ(Json(plan, R"({"t":"2026-08-15"})").status, "valid");
  // Seconds since the epoch, as Spark reads an integer into a timestamp.
  EXPECT_EQ(Json(plan, R"({"t":1755252000})").line,
            R"({"t":1755252000,"n":null,"_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"t":-1})").status, "valid");
  // The microseconds must fit a long.
  EXPECT_EQ(Json(plan, R"({"t":9223372036854775807})").violations, "t:out_of_range");
  EXPECT_EQ(Json(plan, R"({"t":99999999999999999999})").violations, "t:out_of_range");
  EXPECT_EQ(Json(plan, R"({"t":1.5})").violations, "t:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"t":true})").violations, "t:type_mismatch");
  Outcome bad = Json(plan, R"({"t":"yesterday"})");
  EXPECT_EQ(bad.violations, "t:invalid_timestamp");
  EXPECT_EQ(Rescued(bad.line), R"({"t":"yesterday","_file_path":"f.jsonl"})");
  EXPECT_EQ(Json(plan, R"({"t":"2026-08-15T25:00:00"})").violations, "t:invalid_timestamp");
  // timestamp_ntz takes no zone, and no integers.
  EXPECT_EQ(Json(plan, R"({"n":"2026-08-15T10:00:00Z"})").violations, "n:invalid_timestamp");
  EXPECT_EQ(Json(plan, R"({"n":1755252000})").violations, "n:type_mismatch");
}

TEST(ValidatorTypeTest, BinaryIsBase64) {
  auto plan = Plan(Ddl("b BINARY"));
  EXPECT_EQ(Json(plan, R"({"b":"aGVsbG8="})").line, R"({"b":"aGVsbG8=","_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"b":""})").status, "valid");
  EXPECT_EQ(Json(plan, R"({"b":"a"})").violations, "b:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"b":"not base64!"})").violations, "b:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"b":12})").violations, "b:type_mismatch");
}

TEST(ValidatorTypeTest, TimesAndUuids) {
  // Neither is a Spark type; the model's own types.
  auto schema = schema::Schema::Make(
      {schema::Field("t", schema::Type::Time()), schema::Field("u", schema::Type::Uuid())});
  ASSERT_TRUE(schema.has_value());
  auto plan = Plan(*schema);
  EXPECT_EQ(Json(plan, R"({"t":"9:05","u":"123e4567-E89B-12d3-a456-426614174000"})").line,
            R"({"t":"9:05","u":"123e4567-E89B-12d3-a456-426614174000","_rescued_data":null})");
  EXPECT_EQ(Json(plan, R"({"t":"23:59:59.123456789"})").status, "valid");
  EXPECT_EQ(Json(plan, R"({"t":"24:00"})").violations, "t:invalid_timestamp");
  EXPECT_EQ(Json(plan, R"({"t":"10:5"})").violations, "t:invalid_timestamp");
  EXPECT_EQ(Json(plan, R"({"t":3600})").violations, "t:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"u":"123e4567e89b12d3a456426614174000"})").violations,
            "u:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"u":"123e4567-e89b-12d3-a456-42661417400g"})").violations,
            "u:type_mismatch");
}

TEST(ValidatorTypeTest, NullIsAllowedOnlyWhereTheSchemaSaysSo) {
  auto plan = Plan(Ddl(kOrders));
  Outcome o = Json(plan, R"({"order_id":null,"customer_id":1})");
  EXPECT_EQ(o.status, "bad");
  EXPECT_EQ(o.violations, "order_id:null_not_allowed");
  EXPECT_EQ(
      Json(plan, R"({"order_id":1,"customer_id":1,"order_amount":null,"order_date":null})").status,
      "valid");
  // A value that does not fit a non-nullable field would be null: fatal, not rescued.
  Outcome m = Json(plan, R"({"order_id":"1","customer_id":1})");
  EXPECT_EQ(m.status, "bad");
  EXPECT_EQ(m.violations, "order_id:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"order_id":1,"customer_id":1e30})").status, "bad");
}

// ---------------------------------------------------------------------------------------------
// Keys: unknown, case variants, duplicates, escapes.

TEST(ValidatorKeyTest, CaseMismatchIsRescuedUnderTheRecordsName) {
  auto plan = Plan(Ddl("name STRING, order_id BIGINT"));
  Outcome o = Json(plan, R"({"Name":"x","order_id":1})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "Name:case_mismatch");
  EXPECT_EQ(o.line.substr(0, o.line.find(",\"_rescued_data\"")), R"({"order_id":1,"name":null)");
  EXPECT_EQ(Rescued(o.line), R"({"Name":"x","_file_path":"f.jsonl"})");

  // For a required field the case variant leaves the field missing.
  auto orders = Plan(Ddl(kOrders));
  Outcome r = Json(orders, R"({"Order_Id":1,"customer_id":2})");
  EXPECT_EQ(r.status, "bad");
  EXPECT_EQ(r.violations, "Order_Id:case_mismatch order_id:missing_required");
}

TEST(ValidatorKeyTest, DuplicateKeysKeepTheFirstAndRescueTheRest) {
  auto plan = Plan(Ddl("a INT, b STRING"));
  Outcome o = Json(plan, R"({"a":1,"b":"x","a":2,"a":"three"})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "a:duplicate_key a:duplicate_key");
  EXPECT_EQ(o.line.substr(0, o.line.find(",\"_rescued_data\"")), R"({"a":1,"b":"x")");
  // Both copies are kept in the rescued object, under names that stay unique.
  EXPECT_EQ(Rescued(o.line), R"({"a":2,"a#2":"three","_file_path":"f.jsonl"})");
  // A duplicate whose value is broken still makes the record malformed.
  EXPECT_EQ(Json(plan, R"({"a":1,"a":[1,})").status, "malformed");
}

TEST(ValidatorKeyTest, UnknownKeysKeepTheirOriginalJson) {
  auto plan = Plan(Ddl("id INT"));
  Outcome o = Json(plan, R"({"id":1,"extra":{"x":[1,2.50,null]},"more":"caf\u00e9","n":-0.0})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "extra:unknown_field more:unknown_field n:unknown_field");
  EXPECT_EQ(o.line.substr(0, o.line.find(",\"_rescued_data\"")), R"({"id":1)");
  EXPECT_EQ(Rescued(o.line),
            R"({"extra":{"x":[1,2.50,null]},"more":"caf\u00e9","n":-0.0,"_file_path":"f.jsonl"})");
  // Names that need quoting in a field path are quoted in the violation, not in the rescued key.
  Outcome q = Json(plan, R"({"odd name":1})");
  EXPECT_EQ(q.violations, "`odd name`:unknown_field");
  EXPECT_EQ(Rescued(q.line), R"({"odd name":1,"_file_path":"f.jsonl"})");
}

TEST(ValidatorKeyTest, EscapedKeysMatchByTheirValue) {
  auto plan = Plan(Ddl("id INT, name STRING"));
  Outcome o = Json(plan, R"({"\u0069d":1,"na\u006de":"x"})");
  EXPECT_EQ(o.status, "valid") << o.violations;
  EXPECT_EQ(o.line, R"({"id":1,"name":"x","_rescued_data":null})");
  // An unknown escaped key is rescued under its unescaped name.
  Outcome u = Json(plan, R"({"id":1,"n\u00e4me":2})");
  EXPECT_EQ(u.status, "rescued");
  EXPECT_EQ(Rescued(u.line), "{\"n\xC3\xA4me\":2,\"_file_path\":\"f.jsonl\"}");
  // A key with a raw control character is malformed JSON.
  EXPECT_EQ(Json(plan, "{\"i\td\":1}").status, "malformed");
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

// ---------------------------------------------------------------------------------------------
// Nested places.

constexpr std::string_view kNested =
    "id BIGINT, shipping STRUCT<city: STRING, cost: DOUBLE>, "
    "items ARRAY<STRUCT<sku: STRING, qty: INT>>, tags MAP<STRING, INT>, counts MAP<INT, STRING>";

TEST(ValidatorNestedTest, ValidNestedRecordIsCopied) {
  auto plan = Plan(Ddl(kNested));
  Outcome o =
      Json(plan, R"({"id":1,"shipping":{"cost":4.5,"city":"Oslo"},"items":[{"sku":"a","qty":1},)"
                 R"({"qty":2}],"tags":{"x":1,"y":null},"counts":{"-7":"a","42":"b"}})");
  EXPECT_EQ(o.status, "valid") << o.violations;
  // Absent struct fields are null at the end of their own object.
  EXPECT_EQ(o.line, R"({"id":1,"shipping":{"cost":4.5,"city":"Oslo"},"items":[{"sku":"a","qty":1},)"
                    R"({"qty":2,"sku":null}],"tags":{"x":1,"y":null},"counts":{"-7":"a","42":"b"},)"
                    R"("_rescued_data":null})");
}

TEST(ValidatorNestedTest, StructFieldMismatchIsNamedByItsPath) {
  auto plan = Plan(Ddl(kNested));
  Outcome o = Json(plan, R"({"id":1,"shipping":{"city":"Oslo","cost":"free","zip":"0150"}})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "shipping.cost:type_mismatch shipping.zip:unknown_field");
  EXPECT_EQ(o.line.substr(0, o.line.find(",\"items\"")),
            R"({"id":1,"shipping":{"city":"Oslo","cost":null})");
  EXPECT_EQ(Rescued(o.line),
            R"({"shipping.cost":"free","shipping.zip":"0150","_file_path":"f.jsonl"})");
  // A struct given something else.
  Outcome s = Json(plan, R"({"shipping":[1, 2]})");
  EXPECT_EQ(s.violations, "shipping:type_mismatch");
  EXPECT_EQ(Rescued(s.line), R"({"shipping":[1, 2],"_file_path":"f.jsonl"})");
}

TEST(ValidatorNestedTest, ArrayElementsAreRescuedWithTheirIndex) {
  auto plan = Plan(Ddl(kNested));
  Outcome o = Json(
      plan, R"({"items":[{"sku":"a","qty":1},{"sku":"b","qty":2},{"sku":"c","qty":"three"}]})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "items[].qty:type_mismatch");
  EXPECT_EQ(o.line.substr(0, o.line.find(",\"id\"")),
            R"({"items":[{"sku":"a","qty":1},{"sku":"b","qty":2},{"sku":"c","qty":null}])");
  EXPECT_EQ(Rescued(o.line), R"({"items[2].qty":"three","_file_path":"f.jsonl"})");
  // A whole element that does not fit, and an array given an object.
  Outcome e = Json(plan, R"({"items":[{"sku":"a"},7]})");
  EXPECT_EQ(e.violations, "items[]:type_mismatch");
  EXPECT_EQ(Rescued(e.line), R"({"items[1]":7,"_file_path":"f.jsonl"})");
  EXPECT_EQ(Json(plan, R"({"items":{"sku":"a"}})").violations, "items:type_mismatch");
  // Unknown keys inside elements, and null elements of a nullable array.
  Outcome u = Json(plan, R"({"items":[null,{"sku":"a","extra":true}]})");
  EXPECT_EQ(u.violations, "items[].extra:unknown_field");
  EXPECT_EQ(Rescued(u.line), R"({"items[1].extra":true,"_file_path":"f.jsonl"})");
  EXPECT_EQ(u.line.substr(0, u.line.find(",\"id\"")), R"({"items":[null,{"sku":"a","qty":null}])");
}

TEST(ValidatorNestedTest, NonNullableElementsAndValuesMakeTheRecordBad) {
  auto plan = Plan(SparkJson(
      R"({"type":"struct","fields":[)"
      R"({"name":"a","type":{"type":"array","elementType":"integer","containsNull":false},)"
      R"("nullable":true,"metadata":{}},)"
      R"({"name":"m","type":{"type":"map","keyType":"string","valueType":"integer",)"
      R"("valueContainsNull":false},"nullable":true,"metadata":{}}]})"));
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(Json(plan, R"({"a":[1,2],"m":{"k":3}})").status, "valid");
  Outcome n = Json(plan, R"({"a":[1,null]})");
  EXPECT_EQ(n.status, "bad");
  EXPECT_EQ(n.violations, "a[]:null_not_allowed");
  Outcome t = Json(plan, R"({"a":[1,"2"]})");
  EXPECT_EQ(t.status, "bad");
  EXPECT_EQ(t.violations, "a[]:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"m":{"k":null}})").violations, "m{value}:null_not_allowed");
  EXPECT_EQ(Json(plan, R"({"m":{"k":null}})").status, "bad");
  EXPECT_EQ(Json(plan, R"({"m":{"k":1.5}})").status, "bad");
  // The array itself is nullable.
  EXPECT_EQ(Json(plan, R"({"a":null})").status, "valid");

  // Without containsNull=false the same values are rescued.
  auto loose = Plan(Ddl("a ARRAY<INT>"));
  Outcome l = Json(loose, R"({"a":[1,"2",null]})");
  EXPECT_EQ(l.status, "rescued");
  EXPECT_EQ(l.line,
            R"({"a":[1,null,null],"_rescued_data":"{\"a[1]\":\"2\",\"_file_path\":\"f.jsonl\"}"})");
}

TEST(ValidatorNestedTest, MapValuesAreCheckedAndRescuedByKey) {
  auto plan = Plan(Ddl(kNested));
  Outcome o = Json(plan, R"({"tags":{"x":1,"y":"2","z":3}})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "tags{value}:type_mismatch");
  EXPECT_EQ(o.line.substr(0, o.line.find(",\"id\"")), R"({"tags":{"x":1,"y":null,"z":3})");
  EXPECT_EQ(Rescued(o.line), R"({"tags.y":"2","_file_path":"f.jsonl"})");
  EXPECT_EQ(Json(plan, R"({"tags":[1]})").violations, "tags:type_mismatch");
  // Any string is a string key, escapes included.
  Outcome keys = Json(plan, R"({"tags":{"":1,"a\"b":2}})");
  EXPECT_EQ(keys.status, "valid");
  EXPECT_EQ(keys.line.substr(0, keys.line.find(",\"id\"")), R"({"tags":{"":1,"a\"b":2})");
}

TEST(ValidatorNestedTest, MapKeysMustParseAsTheKeyType) {
  auto plan = Plan(Ddl(kNested));
  EXPECT_EQ(Json(plan, R"({"counts":{"1":"a","-2147483648":"b"}})").status, "valid");
  // A key that does not parse cannot be represented: keys are never null.
  Outcome o = Json(plan, R"({"counts":{"1":"a","x":"b"}})");
  EXPECT_EQ(o.status, "bad");
  EXPECT_EQ(o.violations, "counts{key}:type_mismatch");
  EXPECT_EQ(Json(plan, R"({"counts":{"2147483648":"a"}})").status, "bad");
  EXPECT_EQ(Json(plan, R"({"counts":{"1.0":"a"}})").status, "bad");
  EXPECT_EQ(Json(plan, R"({"counts":{"":"a"}})").status, "bad");

  auto dates = Plan(Ddl("d MAP<DATE, INT>"));
  EXPECT_EQ(Json(dates, R"({"d":{"2026-08-15":1}})").status, "valid");
  EXPECT_EQ(Json(dates, R"({"d":{"2026-02-30":1}})").violations, "d{key}:type_mismatch");
}

// ---------------------------------------------------------------------------------------------
// The rescued column and its options.

TEST(ValidatorRescueTest, RescuedColumnInTheSchemaIsUsedNotAppended) {
  auto plan = Plan(Ddl("id INT, _rescued_data STRING, name STRING"));
  ASSERT_NE(plan, nullptr);
  EXPECT_FALSE(plan->appends_rescued_column());
  // The column is not duplicated and comes last, as the contract says.
  EXPECT_EQ(Json(plan, R"({"id":1,"name":"a"})").line,
            R"({"id":1,"name":"a","_rescued_data":null})");
  // The record's own value is kept when nothing is rescued...
  EXPECT_EQ(Json(plan, R"({"_rescued_data":"prior","id":1})").line,
            R"({"id":1,"name":null,"_rescued_data":"prior"})");
  // ...and nested in the new rescued object when something is.
  Outcome o = Json(plan, R"({"_rescued_data":"prior","id":1,"x":2})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(Rescued(o.line), R"({"x":2,"_rescued_data":"prior","_file_path":"f.jsonl"})");
  EXPECT_EQ(Json(plan, R"({"_rescued_data":null,"id":1})").line,
            R"({"id":1,"name":null,"_rescued_data":null})");
  // The column is a string: any other value is kept as its JSON text.
  EXPECT_EQ(Json(plan, R"({"_rescued_data":{"a":1},"id":1})").line,
            R"({"id":1,"name":null,"_rescued_data":"{\"a\":1}"})");
  EXPECT_EQ(Json(plan, R"({"_rescued_data":5,"id":1})").line,
            R"({"id":1,"name":null,"_rescued_data":"5"})");
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

TEST(ValidatorRescueTest, CustomColumnAndFilePathKey) {
  ValidatorOptions o;
  o.rescued_column = "rescue";
  o.file_path_key = "";
  auto plan = Plan(Ddl("id INT"), o);
  Outcome r = Json(plan, R"({"id":1,"x":2})", "ignored.json");
  EXPECT_EQ(r.status, "rescued");
  EXPECT_EQ(r.line, R"({"id":1,"rescue":"{\"x\":2}"})");

  ValidatorOptions k;
  k.file_path_key = "src";
  Outcome f = Json(Plan(Ddl("id INT"), k), R"({"x":2})", "dir/a \"b\".json");
  EXPECT_EQ(Rescued(f.line), R"({"x":2,"src":"dir/a \"b\".json"})");
}

TEST(ValidatorRescueTest, NoRescuedColumnMakesRescueWorthyRecordsBad) {
  ValidatorOptions o;
  o.rescued_column = "";
  auto plan = Plan(Ddl("id INT, name STRING"), o);
  EXPECT_FALSE(plan->appends_rescued_column());
  EXPECT_EQ(Json(plan, R"({"id":1,"name":"a"})").line, R"({"id":1,"name":"a"})");
  EXPECT_EQ(Json(plan, R"({"id":1})").line, R"({"id":1,"name":null})");
  for (const char* record :
       {R"({"id":1,"x":2})", R"({"id":"1"})", R"({"ID":1})", R"({"id":1,"id":2})"}) {
    Outcome r = Json(plan, record);
    EXPECT_EQ(r.status, "bad") << record;
    EXPECT_NE(r.violations, "") << record;
  }
  EXPECT_EQ(Json(plan, R"({"id":"1"})").violations, "id:type_mismatch");
  // With no rescued column, a field of that name is just a field.
  EXPECT_EQ(Json(plan, R"({"_rescued_data":1})").violations, "_rescued_data:unknown_field");
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

// ---------------------------------------------------------------------------------------------
// Text: escapes, Unicode, malformed input.

TEST(ValidatorTextTest, EscapesAndUnicodeArePreserved) {
  auto plan = Plan(Ddl("s STRING"));
  const std::string escaped = R"({"s":"caf\u00e9 \"q\" \\ \/ \n\t \ud83d\ude00"})";
  EXPECT_EQ(Json(plan, escaped).line,
            R"({"s":"caf\u00e9 \"q\" \\ \/ \n\t \ud83d\ude00","_rescued_data":null})");
  const std::string raw = "{\"s\":\"\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80\"}";
  EXPECT_EQ(Json(plan, raw).line,
            "{\"s\":\"\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80\",\"_rescued_data\":null}");
  // Rescued values keep their escapes too.
  auto ints = Plan(Ddl("i INT"));
  EXPECT_EQ(Rescued(Json(ints, R"({"i":"\u0031\n"})").line),
            R"({"i":"\u0031\n","_file_path":"f.jsonl"})");
}

TEST(ValidatorTextTest, BrokenStringsAreMalformed) {
  auto plan = Plan(Ddl("s STRING"));
  EXPECT_EQ(Json(plan, "{\"s\":\"\xFF\"}").status, "malformed");
  EXPECT_EQ(Json(plan, "{\"s\":\"\xC3\"}").status, "malformed");
  EXPECT_EQ(Json(plan, "{\"x\":\"\xED\xA0\x80\"}").status, "malformed");  // a UTF-8 surrogate
  EXPECT_EQ(Json(plan, "{\"s\":\"a\tb\"}").status, "malformed");          // raw control character
  EXPECT_EQ(Json(plan, R"({"s":"\x"})").status, "malformed");
  EXPECT_EQ(Json(plan, R"({"s":"\u12"})").status, "malformed");
  EXPECT_EQ(Json(plan, R"({"s":"abc)").status, "malformed");
}

TEST(ValidatorTextTest, MalformedRecords) {
  auto plan = Plan(Ddl("a INT, s STRING"));
  for (const char* record : {"",
                             " ",
                             "{",
                             R"({"a":)",
                             R"({"a":1,})",
                             R"({"a" 1})",
                             "[1]",
                             "42",
                             R"("str")",
                             "null",
                             "{} x",
                             R"({"a":1}{"a":2})",
                             R"({"a":1}])",
                             R"({"a":01})",
                             R"({"a":1.})",
                             R"({"a":+1})",
                             R"({"zz":[1,}})",
                             R"({"zz":nul})",
                             R"({"a":1,"zz":{"q":}})",
                             R"({a:1})",
                             R"({'a':1})"}) {
    Outcome o = Json(plan, record);
    EXPECT_EQ(o.status, "malformed") << record;
    EXPECT_EQ(o.violations, ":malformed") << record;
    EXPECT_NE(o.error, "") << record;
  }
  Outcome root = Json(plan, "[1]");
  EXPECT_EQ(root.error, "the record is not a JSON object");
  EXPECT_EQ(root.error_offset, 0);
  Outcome trailing = Json(plan, R"({"a":1} {})");
  EXPECT_EQ(trailing.error, "characters after the end of the record");
  EXPECT_EQ(trailing.error_offset, 8);
  // Whitespace around the object is fine.
  EXPECT_EQ(Json(plan, " {\"a\":1}\r\n ").line, R"({"a":1,"s":null,"_rescued_data":null})");
  EXPECT_EQ(Json(plan, "{}").line, R"({"a":null,"s":null,"_rescued_data":null})");
}

TEST(ValidatorTextTest, NestingBeyondTheLimitIsMalformed) {
  ValidatorOptions o;
  o.max_depth = 3;
  auto plan = Plan(Ddl("a STRUCT<b: STRUCT<c: STRUCT<d: INT>>>, l ARRAY<ARRAY<ARRAY<INT>>>"), o);
  EXPECT_EQ(Json(plan, R"({"a":{"b":{"c":null}}})").status, "valid");
  Outcome deep = Json(plan, R"({"a":{"b":{"c":{"d":1}}}})");
  EXPECT_EQ(deep.status, "malformed");
  EXPECT_EQ(deep.error, "nesting deeper than the limit");
  EXPECT_EQ(Json(plan, R"({"l":[[],[null]]})").status, "valid");
  EXPECT_EQ(Json(plan, R"({"l":[[[1]]]})").status, "malformed");
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

// ---------------------------------------------------------------------------------------------
// CSV rows.

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

TEST(ValidatorCsvTest, ColumnsMapByHeaderAndConvert) {
  auto plan = Plan(Ddl(kCsvSchema));
  RecordValidator v(plan);
  auto layout = Layout({4, 0, 3, 2, 1}, {"name", "id", "day", "active", "amount"});
  Outcome o = Csv(v,
                  Row({{"Ann \"A\"", true},
                       {"7", false},
                       {"2026-8-5", false},
                       {"TRUE", false},
                       {"12.345", false}}),
                  layout);
  EXPECT_EQ(o.status, "valid") << o.violations;
  EXPECT_EQ(o.line, R"({"name":"Ann \"A\"","id":7,"day":"2026-8-5","active":true,"amount":12.35,)"
                    R"("_rescued_data":null})");
  Outcome f = Csv(
      v, Row({{"", false}, {"+8", false}, {"2026", false}, {"fAlSe", false}, {"-0.005", false}}),
      layout);
  EXPECT_EQ(f.status, "valid") << f.violations;
  EXPECT_EQ(f.line, R"({"name":null,"id":8,"day":"2026","active":false,"amount":-0.01,)"
                    R"("_rescued_data":null})");
}

TEST(ValidatorCsvTest, ValuesThatDoNotFitAreRescuedAsText) {
  auto plan = Plan(Ddl(kCsvSchema));
  RecordValidator v(plan);
  auto layout = Layout({0, 1, 2, 3}, {"id", "amount", "active", "day"});
  Outcome o =
      Csv(v, Row({{"1", false}, {"abc", false}, {"yes", false}, {"2026-13-01", false}}), layout);
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "amount:type_mismatch active:type_mismatch day:invalid_date");
  EXPECT_EQ(o.line.substr(0, o.line.find(",\"_rescued_data\"")),
            R"({"id":1,"amount":null,"active":null,"day":null,"name":null)");
  EXPECT_EQ(Rescued(o.line),
            R"({"amount":"abc","active":"yes","day":"2026-13-01","_file_path":"f.csv"})");
  EXPECT_EQ(
      Csv(v, Row({{"1", false}, {"12345.6", false}, {"true", false}, {"2026", false}}), layout)
          .violations,
      "amount:decimal_precision");
  // Integers: Integer.parseInt rules.
  for (const char* bad : {"1.5", " 1", "1 ", "0x1", "", "-"}) {
    Outcome b = Csv(v, Row({{bad, true}, {"", false}, {"", false}, {"", false}}), layout);
    EXPECT_EQ(b.status, "bad") << bad;
    EXPECT_EQ(b.violations, "id:type_mismatch") << bad;
  }
  EXPECT_EQ(Csv(v, Row({{"2147483648", false}, {"", false}, {"", false}, {"", false}}), layout)
                .violations,
            "id:out_of_range");
  EXPECT_EQ(
      Csv(v, Row({{"99999999999999999999", false}, {"", false}, {"", false}, {"", false}}), layout)
          .violations,
      "id:out_of_range");
}

TEST(ValidatorCsvTest, FloatsAndTimes) {
  auto plan = Plan(Ddl("d DOUBLE, f FLOAT, t TIMESTAMP, v VARCHAR(2)"));
  RecordValidator v(plan);
  auto layout = Layout({0, 1, 2, 3}, {"d", "f", "t", "v"});
  Outcome o =
      Csv(v, Row({{"1.5d", false}, {"2", false}, {"2026-08-15 10:00:00", false}, {"ab", false}}),
          layout);
  EXPECT_EQ(o.status, "valid") << o.violations;
  EXPECT_EQ(o.line, R"({"d":1.5,"f":2.0,"t":"2026-08-15 10:00:00","v":"ab","_rescued_data":null})");
  EXPECT_EQ(
      Csv(v, Row({{"NaN", false}, {"-Infinity", false}, {"", false}, {"", false}}), layout).line,
      R"({"d":"NaN","f":"-Infinity","t":null,"v":null,"_rescued_data":null})");
  EXPECT_EQ(
      Csv(v, Row({{"1e400", false}, {"1e39", false}, {"never", false}, {"abc", false}}), layout)
          .violations,
      "d:out_of_range f:out_of_range t:invalid_timestamp v:string_too_long");
}

TEST(ValidatorCsvTest, UnknownAndCaseMismatchedColumnsAreRescuedByHeader) {
  auto plan = Plan(Ddl(kCsvSchema));
  RecordValidator v(plan);
  auto layout = Layout({0, -1, -2}, {"id", "extra col", "NAME"});
  Outcome o = Csv(v, Row({{"1", false}, {"x", false}, {"Ann", true}}), layout);
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "`extra col`:unknown_field NAME:case_mismatch");
  EXPECT_EQ(o.line.substr(0, o.line.find(",\"_rescued_data\"")),
            R"({"id":1,"amount":null,"active":null,"day":null,"name":null)");
  EXPECT_EQ(Rescued(o.line), R"({"extra col":"x","NAME":"Ann","_file_path":"f.csv"})");
}

TEST(ValidatorCsvTest, NullValueAndEmptyValue) {
  auto plan = Plan(Ddl("id INT NOT NULL, n INT, s STRING"));
  RecordValidator v(plan);
  // Default null_value "": an unquoted empty value is null; a quoted one is empty_value.
  auto layout = Layout({0, 1, 2}, {"id", "n", "s"}, "", "");
  EXPECT_EQ(Csv(v, Row({{"1", false}, {"", false}, {"", false}}), layout).line,
            R"({"id":1,"n":null,"s":null,"_rescued_data":null})");
  EXPECT_EQ(Csv(v, Row({{"1", false}, {"", false}, {"", true}}), layout).line,
            R"({"id":1,"n":null,"s":"","_rescued_data":null})");
  Outcome req = Csv(v, Row({{"", false}, {"", false}, {"", false}}), layout);
  EXPECT_EQ(req.status, "bad");
  EXPECT_EQ(req.violations, "id:null_not_allowed");

  // null_value "NA": only the unquoted text is null.
  auto na = Layout({0, 1, 2}, {"id", "n", "s"}, "NA", "<empty>");
  EXPECT_EQ(Csv(v, Row({{"1", false}, {"NA", false}, {"NA", false}}), na).line,
            R"({"id":1,"n":null,"s":null,"_rescued_data":null})");
  EXPECT_EQ(Csv(v, Row({{"1", false}, {"", false}, {"NA", true}}), na).violations,
            "n:type_mismatch");
  EXPECT_EQ(Csv(v, Row({{"1", false}, {"2", false}, {"NA", true}}), na).line,
            R"({"id":1,"n":2,"s":"NA","_rescued_data":null})");
  EXPECT_EQ(Csv(v, Row({{"1", false}, {"2", false}, {"", true}}), na).line,
            R"({"id":1,"n":2,"s":"<empty>","_rescued_data":null})");
  EXPECT_EQ(Csv(v, Row({{"1", false}, {"2", false}, {"", false}}), na).line,
            R"({"id":1,"n":2,"s":"","_rescued_data":null})");
}

TEST(ValidatorCsvTest, WrongFieldCountAndReaderErrorsAreMalformed) {
  auto plan = Plan(Ddl(kCsvSchema));
  RecordValidator v(plan);
  auto layout = Layout({0, 4}, {"id", "name"});
  Outcome few = Csv(v, Row({{"1", false}}), layout);
  EXPECT_EQ(few.status, "malformed");
  EXPECT_EQ(few.violations, ":malformed");
  EXPECT_EQ(few.error, "expected 2 fields, found 1");
  EXPECT_EQ(Csv(v, Row({{"1", false}, {"a", false}, {"b", false}}), layout).status, "malformed");
  CsvRecord broken = Row({{"1", false}, {"a", false}});
  broken.error = "unterminated quoted field";
  Outcome b = Csv(v, broken, layout);
  EXPECT_EQ(b.status, "malformed");
  EXPECT_EQ(b.error, "unterminated quoted field");
  // And the validator goes on.
  EXPECT_EQ(Csv(v, Row({{"1", false}, {"a", false}}), layout).status, "valid");
}

TEST(ValidatorCsvTest, MissingRequiredColumnAndTheRescuedColumn) {
  auto plan = Plan(Ddl("id INT NOT NULL, name STRING, _rescued_data STRING"));
  RecordValidator v(plan);
  Outcome missing = Csv(v, Row({{"Ann", false}}), Layout({1}, {"name"}));
  EXPECT_EQ(missing.status, "bad");
  EXPECT_EQ(missing.violations, "id:missing_required");

  auto layout = Layout({2, 0, -1}, {"_rescued_data", "id", "x"});
  EXPECT_EQ(Csv(v, Row({{"prior", false}, {"1", false}, {"", false}}), layout).status, "rescued");
  Outcome kept = Csv(v, Row({{"prior", false}, {"1", false}, {"", false}}), layout);
  EXPECT_EQ(Rescued(kept.line), R"({"x":"","_rescued_data":"prior","_file_path":"f.csv"})");
  auto own = Layout({2, 0}, {"_rescued_data", "id"});
  EXPECT_EQ(Csv(v, Row({{"prior", false}, {"1", false}}), own).line,
            R"({"id":1,"name":null,"_rescued_data":"prior"})");
  EXPECT_EQ(Csv(v, Row({{"", false}, {"1", false}}), own).line,
            R"({"id":1,"name":null,"_rescued_data":null})");
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

}  // namespace
}  // namespace sluice::data

namespace sluice::data {
namespace {

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

namespace sluice::data {
namespace {

TEST(ValidatorOutputTest, RescuedNamesStayUnique) {
  auto plan = Plan(Ddl("y DOUBLE, z TINYINT"));
  Outcome o = Json(plan, R"({"y": 1e400, "y": 2e400, "y": 3, "z": 1})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(Rescued(o.line), R"({"y":1e400,"y#2":2e400,"y#3":3,"_file_path":"f.jsonl"})");
}

TEST(ValidatorCsvTest, InvalidUtf8RowIsMalformed) {
  auto plan = Plan(Ddl("a STRING"));
  RecordValidator v(plan);
  RecordValidator::CsvLayout layout{{0}, {"a"}, "", ""};
  CsvRecord r = Row({CsvField{"\xff", false}});
  r.raw = "\xff";
  Outcome o = Csv(v, r, layout);
  EXPECT_EQ(o.status, "malformed");
  EXPECT_NE(o.error.find("UTF-8"), std::string::npos);
}

}  // namespace
}  // namespace sluice::data

namespace sluice::data {
namespace {

TEST(ValidatorNestedTest, DuplicateMapKeysKeepTheFirstEntry) {
  auto plan = Plan(Ddl("m MAP<STRING, INT>"));
  Outcome o = Json(plan, R"({"m": {"a": 1, "b": 2, "a": 3, "\u0061": 4}})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(o.violations, "m{key}:duplicate_key m{key}:duplicate_key");
  EXPECT_EQ(o.line.substr(0, o.line.find(",\"_rescued_data\"")), R"({"m":{"a":1,"b":2})");
  EXPECT_EQ(Rescued(o.line), R"({"m.a":3,"m.a#2":4,"_file_path":"f.jsonl"})");
}

}  // namespace
}  // namespace sluice::data

namespace sluice::data {
namespace {

TEST(ValidatorOutputTest, RescuedColumnRepeatedStaysUnique) {
  auto plan = Plan(Ddl("b STRING, _rescued_data STRING"));
  Outcome o = Json(plan, R"({"_rescued_data": "x", "b": "1", "_rescued_data": "y", "c": 1})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(Rescued(o.line),
            R"({"_rescued_data":"y","c":1,"_rescued_data#2":"x","_file_path":"f.jsonl"})");
}

}  // namespace
}  // namespace sluice::data

namespace sluice::data {
namespace {

// Jackson reads bare NaN and Infinity; inside rescued values they are written as strings so
// the rescued object stays JSON any reader takes.
TEST(ValidatorOutputTest, BareNonNumericTokensAreQuotedInRescuedData) {
  auto plan = Plan(Ddl("a INT"));
  Outcome o = Json(plan, R"({"a": 1, "x": NaN, "y": {"z": [Infinity, "NaN", -Infinity]}})");
  EXPECT_EQ(o.status, "rescued");
  EXPECT_EQ(Rescued(o.line),
            R"({"x":"NaN","y":{"z": ["Infinity", "NaN", "-Infinity"]},"_file_path":"f.jsonl"})");
}

}  // namespace
}  // namespace sluice::data
