#include "sluice/table/partition_values.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sluice/base/json_writer.h"
#include "sluice_test_paths.h"

namespace sluice::table {
namespace {

namespace fs = std::filesystem;
using schema::Type;
using schema::TypePtr;

TypePtr Decimal(int p, int s) {
  auto t = Type::Decimal(p, s);
  EXPECT_TRUE(t);
  return *t;
}

JsonValue Json(std::string_view text) {
  auto v = ParseJson(text);
  EXPECT_TRUE(v) << text;
  return v ? *v : JsonValue();
}

// The partitionValues entry, as JSON text, for the record value written as JSON `value`.
std::string Serialize(const TypePtr& type, std::string_view value) {
  auto r = SerializePartitionValue("c", *type, Json(value));
  EXPECT_TRUE(r) << type->ToString() << " " << value << ": " << r.error().ToString();
  return r ? ToJson(*r) : "";
}

std::string SerializeError(const TypePtr& type, std::string_view value) {
  auto r = SerializePartitionValue("col", *type, Json(value));
  if (r) return "";
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  return r.error().message();
}

// The record value, as JSON text, read from partitionValues text.
std::string Parse(const TypePtr& type, std::optional<std::string_view> text) {
  auto r = ParsePartitionValue("c", *type, text);
  EXPECT_TRUE(r) << type->ToString() << " " << text.value_or("<null>") << ": "
                 << r.error().ToString();
  return r ? ToJson(*r) : "";
}

std::string ParseError(const TypePtr& type, std::string_view text) {
  auto r = ParsePartitionValue("col", *type, text);
  if (r) return "";
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  return r.error().message();
}

TEST(PartitionValues, WritesEachTypeAsDeltaDoes) {
  EXPECT_EQ(Serialize(Type::String(), R"("a b/c")"), R"("a b/c")");
  EXPECT_EQ(Serialize(Type::String(), R"("null")"), R"("null")");
  EXPECT_EQ(Serialize(Type::String(), "12.50"), R"("12.50")");
  EXPECT_EQ(Serialize(Type::Int8(), "-128"), R"("-128")");
  EXPECT_EQ(Serialize(Type::Int16(), "0"), R"("0")");
  EXPECT_EQ(Serialize(Type::Int32(), "2147483647"), R"("2147483647")");
  EXPECT_EQ(Serialize(Type::Int64(), "-9223372036854775808"), R"("-9223372036854775808")");
  EXPECT_EQ(Serialize(Type::Int64(), R"("42")"), R"("42")");
  EXPECT_EQ(Serialize(Type::Boolean(), "true"), R"("true")");
  EXPECT_EQ(Serialize(Type::Boolean(), "false"), R"("false")");
  EXPECT_EQ(Serialize(Decimal(12, 5), "0.00004"), R"("0.00004")");
  EXPECT_EQ(Serialize(Decimal(12, 5), "234"), R"("234.00000")");
  EXPECT_EQ(Serialize(Decimal(12, 5), R"("-2342342.23423")"), R"("-2342342.23423")");
  EXPECT_EQ(Serialize(Decimal(1, 0), "1"), R"("1")");
  EXPECT_EQ(Serialize(Decimal(38, 10), "1e-10"), R"("0.0000000001")");
  EXPECT_EQ(Serialize(Type::Date(), R"("2021-09-08")"), R"("2021-09-08")");
  EXPECT_EQ(Serialize(Type::Date(), R"("0001-01-01")"), R"("0001-01-01")");
  EXPECT_EQ(Serialize(Type::Timestamp(), R"("2021-09-08 11:11:11")"),
            R"("2021-09-08T11:11:11.000000Z")");
  EXPECT_EQ(Serialize(Type::Timestamp(), R"("2021-09-08T13:11:11.5+02:00")"),
            R"("2021-09-08T11:11:11.500000Z")");
  EXPECT_EQ(Serialize(Type::Timestamp(), R"("1969-12-31T23:59:59.999999Z")"),
            R"("1969-12-31T23:59:59.999999Z")");
  EXPECT_EQ(Serialize(Type::Timestamp(), "1631099471"), R"("2021-09-08T11:11:11.000000Z")");
  EXPECT_EQ(Serialize(Type::TimestampNtz(), R"("2021-09-08T11:11:11")"),
            R"("2021-09-08 11:11:11")");
  EXPECT_EQ(Serialize(Type::TimestampNtz(), R"("2021-09-08 11:11:11.120")"),
            R"("2021-09-08 11:11:11.12")");
  EXPECT_EQ(Serialize(Type::Binary(), R"("aGk=")"), R"("hi")");
  EXPECT_EQ(Serialize(Type::Int32(), "null"), "null");
  EXPECT_EQ(Serialize(Type::Null(), "null"), "null");
  // Delta reads an empty string as null, so that is what it is written as.
  EXPECT_EQ(Serialize(Type::String(), R"("")"), "null");
  EXPECT_EQ(Serialize(Type::Binary(), R"("")"), "null");
}

TEST(PartitionValues, WritesFloatsAsJavaPrintsThem) {
  const std::vector<std::pair<std::string, std::string>> doubles = {
      {"1", "1.0"},
      {"0", "0.0"},
      {"-0.0", "-0.0"},
      {"1.5", "1.5"},
      {"0.1", "0.1"},
      {"100", "100.0"},
      {"1234567", "1234567.0"},
      {"1e7", "1.0E7"},
      {"12345678", "1.2345678E7"},
      {"0.001", "0.001"},
      {"0.0001", "1.0E-4"},
      {"-2.5e-5", "-2.5E-5"},
      {"1e300", "1.0E300"},
      {"4.9e-324", "4.9E-324"},
      {"1.7976931348623157e308", "1.7976931348623157E308"},
      {"\"NaN\"", "NaN"},
      {"\"Infinity\"", "Infinity"},
      {"\"-INF\"", "-Infinity"},
      {"0.30000000000000004", "0.30000000000000004"}};
  for (const auto& [in, out] : doubles) {
    EXPECT_EQ(Serialize(Type::Float64(), in), "\"" + out + "\"") << in;
  }
  const std::vector<std::pair<std::string, std::string>> floats = {{"1", "1.0"},
                                                                   {"0.1", "0.1"},
                                                                   {"3.4028235e38", "3.4028235E38"},
                                                                   {"1.4e-45", "1.4E-45"},
                                                                   {"16777216", "1.6777216E7"},
                                                                   {"0.33333334", "0.33333334"}};
  for (const auto& [in, out] : floats) {
    EXPECT_EQ(Serialize(Type::Float32(), in), "\"" + out + "\"") << in;
  }
}

TEST(PartitionValues, RefusesValuesThatDoNotFitNamingColumnAndValue) {
  EXPECT_NE(SerializeError(Type::Int8(), "128").find("partition column `col`: `128` is no int8"),
            std::string::npos)
      << SerializeError(Type::Int8(), "128");
  EXPECT_NE(SerializeError(Type::Int32(), "1.5").find("`1.5`"), std::string::npos);
  EXPECT_NE(SerializeError(Type::Int32(), "true"), "");
  EXPECT_NE(SerializeError(Type::Boolean(), R"("maybe")"), "");
  EXPECT_NE(SerializeError(Decimal(3, 1), "1234"), "");
  EXPECT_NE(SerializeError(Type::Date(), R"("2021-13-01")"), "");
  EXPECT_NE(SerializeError(Type::Date(), "20210908"), "");
  EXPECT_NE(SerializeError(Type::Timestamp(), R"("11:11:11")").find("it has no date"),
            std::string::npos);
  EXPECT_NE(SerializeError(Type::TimestampNtz(), R"("2021-09-08T11:11:11Z")"), "");
  EXPECT_NE(SerializeError(Type::Binary(), R"("not base64!")"), "");
  EXPECT_NE(SerializeError(Type::Binary(), R"("/w==")").find("not UTF-8"), std::string::npos);
  EXPECT_NE(SerializeError(Type::String(), "[1]").find("not an array"), std::string::npos);
  EXPECT_NE(SerializeError(Type::Null(), "1"), "");
  auto nested = Type::Array(Type::Int32());
  ASSERT_TRUE(nested);
  EXPECT_NE(SerializeError(*nested, "null").find("cannot be partitioned by"), std::string::npos);
  EXPECT_NE(SerializeError(Type::Time(), R"("11:11")"), "");
  EXPECT_NE(SerializeError(Type::Uuid(), R"("x")"), "");
}

TEST(PartitionValues, ReadsEachTypeIntoTheRecordForm) {
  EXPECT_EQ(Parse(Type::String(), "a b"), R"("a b")");
  EXPECT_EQ(Parse(Type::String(), "null"), R"("null")");
  EXPECT_EQ(Parse(Type::String(), " x "), R"(" x ")");
  EXPECT_EQ(Parse(Type::Int32(), "1"), "1");
  EXPECT_EQ(Parse(Type::Int64(), " -9223372036854775808 "), "-9223372036854775808");
  EXPECT_EQ(Parse(Type::Int8(), "+5"), "5");
  EXPECT_EQ(Parse(Type::Boolean(), "true"), "true");
  EXPECT_EQ(Parse(Type::Boolean(), "FALSE"), "false");
  EXPECT_EQ(Parse(Type::Float32(), "1.0"), "1");
  EXPECT_EQ(Parse(Type::Float64(), "0.0"), "0");
  // The shortest text, as rows read from Parquet carry doubles.
  EXPECT_EQ(Parse(Type::Float64(), "1.0E-4"), "1e-04");
  EXPECT_EQ(Parse(Type::Float64(), "NaN"), R"("NaN")");
  EXPECT_EQ(Parse(Type::Float64(), "-Infinity"), R"("-Infinity")");
  EXPECT_EQ(Parse(Decimal(12, 5), "0.00004"), "0.00004");
  EXPECT_EQ(Parse(Decimal(12, 5), "234.00000"), "234.00000");
  EXPECT_EQ(Parse(Decimal(1, 0), "1"), "1");
  EXPECT_EQ(Parse(Type::Date(), "2021-09-08"), R"("2021-09-08")");
  EXPECT_EQ(Parse(Type::Timestamp(), "2021-09-08 11:11:11"), R"("2021-09-08T11:11:11Z")");
  EXPECT_EQ(Parse(Type::Timestamp(), "2021-09-08 11:11:11.123456"),
            R"("2021-09-08T11:11:11.123456Z")");
  EXPECT_EQ(Parse(Type::Timestamp(), "2021-09-08T11:11:11.000000Z"), R"("2021-09-08T11:11:11Z")");
  EXPECT_EQ(Parse(Type::Timestamp(), "2021-09-08T13:11:11+02:00"), R"("2021-09-08T11:11:11Z")");
  EXPECT_EQ(Parse(Type::TimestampNtz(), "2021-09-08 11:11:11.5"), R"("2021-09-08T11:11:11.5")");
  EXPECT_EQ(Parse(Type::Binary(), "hi"), R"("aGk=")");
  // Null and the empty string are null for every type.
  for (const TypePtr& t : {Type::String(), Type::Int32(), Type::Date(), Type::Timestamp(),
                           Type::Boolean(), Type::Binary(), Decimal(5, 2)}) {
    EXPECT_EQ(Parse(t, std::nullopt), "null") << t->ToString();
    EXPECT_EQ(Parse(t, ""), "null") << t->ToString();
  }
  auto from_json = ParsePartitionValue("c", *Type::Int32(), Json("null"));
  ASSERT_TRUE(from_json);
  EXPECT_TRUE(from_json->is_null());
  auto number = ParsePartitionValue("c", *Type::Int32(), Json("1"));
  ASSERT_FALSE(number);
  EXPECT_NE(number.error().message().find("partitionValues.c at byte 0"), std::string::npos);
}

TEST(PartitionValues, RefusesTextThatIsNoValueNamingColumnAndText) {
  EXPECT_NE(ParseError(Type::Int32(), "abc").find("partition column `col`: `abc` is no int32"),
            std::string::npos)
      << ParseError(Type::Int32(), "abc");
  EXPECT_NE(ParseError(Type::Int8(), "300"), "");
  EXPECT_NE(ParseError(Type::Int64(), "9223372036854775808"), "");
  EXPECT_NE(ParseError(Type::Boolean(), "maybe"), "");
  EXPECT_NE(ParseError(Type::Float64(), "1,5"), "");
  EXPECT_NE(ParseError(Decimal(3, 1), "1234"), "");
  EXPECT_NE(ParseError(Type::Date(), "2021-02-30"), "");
  EXPECT_NE(ParseError(Type::Timestamp(), "noon"), "");
  EXPECT_NE(ParseError(Type::Timestamp(), "11:11:11"), "");
  EXPECT_NE(ParseError(Type::TimestampNtz(), "2021-09-08T11:11:11Z"), "");
  // Hostile text is quoted safely in the message.
  const std::string message = ParseError(Type::Int32(), "1\n2\x01");
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_NE(ParseError(Type::Uuid(), "x").find("cannot be partitioned by"), std::string::npos);
}

TEST(PartitionValues, RoundTripsThroughTheLog) {
  struct Case {
    TypePtr type;
    std::string value;  // JSON, in the record form
  };
  const std::vector<Case> cases = {
      {Type::String(), R"("%/=\n é")"},
      {Type::Int8(), "-7"},
      {Type::Int64(), "9223372036854775807"},
      {Type::Float32(), "0.1"},
      {Type::Float64(), "1e+300"},
      {Type::Float64(), R"("NaN")"},
      {Decimal(20, 10), "-1234567890.0123456789"},
      {Type::Date(), R"("9999-12-31")"},
      {Type::Timestamp(), R"("2021-09-08T11:11:11.000001Z")"},
      {Type::TimestampNtz(), R"("1900-01-01T00:00:00.25")"},
      {Type::Boolean(), "true"},
      {Type::Binary(), R"("aMOp")"},
      {Type::Int32(), "null"},
  };
  for (const Case& c : cases) {
    auto text = SerializePartitionValue("c", *c.type, Json(c.value));
    ASSERT_TRUE(text) << c.value << ": " << text.error().ToString();
    auto back = ParsePartitionValue("c", *c.type, *text);
    ASSERT_TRUE(back) << c.value << ": " << back.error().ToString();
    EXPECT_TRUE(back->Equals(Json(c.value))) << c.type->ToString() << " " << c.value << " -> "
                                             << ToJson(*text) << " -> " << ToJson(*back);
  }
}

// Every partition value of the golden tables reads as its type and, but for the legacy
// timestamp form, writes back to the same text.
TEST(PartitionValues, GoldenTablesValuesRoundTrip) {
  const fs::path golden = fs::path(SLUICE_SHARED_DIR) / "conformance" / "delta-golden";
  const fs::path log = golden / "data-reader-partition-values/_delta_log/00000000000000000000.json";
  if (!fs::exists(log)) GTEST_SKIP() << "no golden tables at " << golden;
  const std::vector<std::pair<std::string, TypePtr>> columns = {
      {"as_int", Type::Int32()},
      {"as_long", Type::Int64()},
      {"as_byte", Type::Int8()},
      {"as_short", Type::Int16()},
      {"as_boolean", Type::Boolean()},
      {"as_float", Type::Float32()},
      {"as_double", Type::Float64()},
      {"as_string", Type::String()},
      {"as_string_lit_null", Type::String()},
      {"as_date", Type::Date()},
      {"as_timestamp", Type::Timestamp()},
      {"as_big_decimal", Decimal(1, 0)}};
  std::ifstream in(log);
  int values = 0;
  for (std::string line; std::getline(in, line);) {
    const JsonValue action = Json(line);
    const JsonValue* add = action.Find("add");
    if (add == nullptr) continue;
    for (const auto& [name, type] : columns) {
      const JsonValue* logged = add->Find("partitionValues")->Find(name);
      ASSERT_NE(logged, nullptr) << name;
      auto value = ParsePartitionValue(name, *type, *logged);
      ASSERT_TRUE(value) << value.error().ToString();
      auto text = SerializePartitionValue(name, *type, *value);
      ASSERT_TRUE(text) << text.error().ToString();
      if (name == "as_timestamp" && logged->is_string()) {
        EXPECT_EQ(ToJson(*value), R"("2021-09-08T11:11:11Z")");
        EXPECT_EQ(ToJson(*text), R"("2021-09-08T11:11:11.000000Z")");
      } else {
        EXPECT_TRUE(text->Equals(*logged)) << name << ": " << ToJson(*text);
      }
      ++values;
    }
  }
  EXPECT_EQ(values, 3 * 12);

  const fs::path decimals = golden / "basic-decimal-table/_delta_log/00000000000000000000.json";
  std::ifstream din(decimals);
  int parts = 0;
  for (std::string line; std::getline(din, line);) {
    const JsonValue action = Json(line);
    const JsonValue* add = action.Find("add");
    if (add == nullptr) continue;
    const JsonValue* logged = add->Find("partitionValues")->Find("part");
    auto value = ParsePartitionValue("part", *Decimal(12, 5), *logged);
    ASSERT_TRUE(value) << value.error().ToString();
    EXPECT_TRUE(value->is_number());
    auto text = SerializePartitionValue("part", *Decimal(12, 5), *value);
    ASSERT_TRUE(text);
    EXPECT_TRUE(text->Equals(*logged)) << ToJson(*text);
    ++parts;
  }
  EXPECT_EQ(parts, 4);
}

}  // namespace
}  // namespace sluice::table
