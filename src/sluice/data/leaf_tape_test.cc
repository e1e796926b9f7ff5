// The tape hand-over from the validator to the Parquet fragment (leaf_tape.h): a record stored
// from its tape must give the file its output line gives, whatever the record holds.
#include "sluice/data/leaf_tape.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "sluice/base/string_sink_testing.h"
#include "sluice/data/parquet_sink.h"
#include "sluice/data/validator.h"

namespace sluice::data {
namespace {

using schema::Field;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;
using ::sluice::testing::StringSink;

TypePtr Struct(std::vector<Field> fields) { return Type::Struct(std::move(fields)).value(); }
TypePtr Array(TypePtr element, bool contains_null = true) {
  return Type::Array(std::move(element), contains_null).value();
}
TypePtr Map(TypePtr key, TypePtr value) {
  return Type::Map(std::move(key), std::move(value)).value();
}

// Every kind of place: each leaf type, structs in arrays in structs, maps keyed by several
// types, a non-nullable field, elements that may not be null, and null-typed places (a field,
// a map's values).
std::vector<Field> EveryPlace() {
  return {
      Field("i8", Type::Int8()),
      Field("i16", Type::Int16()),
      Field("i32", Type::Int32()),
      Field("id", Type::Int64(), /*nullable=*/false),
      Field("f", Type::Float32()),
      Field("d", Type::Float64()),
      Field("dec", Type::Decimal(9, 2).value()),
      Field("big", Type::Decimal(30, 4).value()),
      Field("s", Type::String()),
      Field("vc", Type::Varchar(5).value()),
      Field("b", Type::Boolean()),
      Field("dt", Type::Date()),
      Field("ts", Type::Timestamp()),
      Field("ntz", Type::TimestampNtz()),
      Field("ms", Type::Timestamp(schema::TimeUnit::kMillis)),
      Field("bin", Type::Binary()),
      Field("t", Type::Time()),
      Field("u", Type::Uuid()),
      Field("gone", Type::Null()),
      Field("st", Struct({Field("a", Type::Int32()), Field("tags", Array(Type::String())),
                          Field("in", Struct({Field("x", Type::Float64()),
                                              Field("when", Type::Date())}))})),
      Field("grid", Array(Array(Type::Int32(), /*contains_null=*/false))),
      Field("items", Array(Struct({Field("sku", Type::String()),
                                   Field("qty", Type::Int32(), /*nullable=*/false),
                                   Field("price", Type::Decimal(7, 1).value())}))),
      Field("m", Map(Type::String(), Type::Int64())),
      Field("mi", Map(Type::Int32(), Array(Type::String()))),
      Field("md", Map(Type::Date(), Struct({Field("n", Type::Int16())}))),
      Field("mb", Map(Type::Boolean(), Type::Null())),
  };
}

// Records for a type, mostly fitting, some not: nulls, absent and unknown keys, duplicates,
// case variants, escapes, whitespace, numbers as strings and strings as numbers.
class RecordMaker {
 public:
  explicit RecordMaker(uint32_t seed) : rng_(seed) {}

  std::string Record(const Type& root, const std::string& rescued_column) {
    clean_ = Chance(50);  // every value fits
    std::string out;
    Object(root, out, 0);
    if (!rescued_column.empty() && Chance(8)) {
      out.pop_back();
      out += out.size() > 1 ? "," : "";
      out += "\"" + rescued_column + "\":";
      out += Pick({"null", "\"earlier\"", "{\"a\":1}", "7"});
      out += "}";
    }
    return out;
  }

 private:
  bool Chance(int percent) { return static_cast<int>(rng_() % 100) < percent; }
  // A flaw, in a record that may have them.
  bool Flaw(int percent) { return !clean_ && Chance(percent); }
  // A value of `fits`, or in a record that may have flaws now and then one of `misfits`.
  std::string Of(std::initializer_list<const char*> fits,
                 std::initializer_list<const char*> misfits) {
    return Flaw(15) ? Pick(misfits) : Pick(fits);
  }
  std::string Pick(std::initializer_list<const char*> options) {
    return *(options.begin() + rng_() % options.size());
  }
  void Space(std::string& out) {
    if (Chance(5)) out += Pick({" ", "\t", "\n"});
  }

  void Object(const Type& t, std::string& out, int depth) {
    out += '{';
    bool first = true;
    auto member = [&](const std::string& key, const Type* type, bool nullable) {
      if (!first) out += ',';
      first = false;
      Space(out);
      out += "\"" + key + "\"";
      Space(out);
      out += ':';
      Space(out);
      if (type == nullptr) {
        out += Pick({"1", "\"x\"", "[true]", "{\"k\":null}"});
      } else {
        Value(*type, out, depth + 1, nullable);
      }
    };
    std::vector<size_t> order(t.fields().size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    if (Chance(30)) std::shuffle(order.begin(), order.end(), rng_);
    for (size_t i : order) {
      const Field& f = t.fields()[i];
      if ((f.nullable() && Chance(12)) || Flaw(2)) continue;  // absent
      std::string key = f.name();
      if (Flaw(2)) key[0] = static_cast<char>(std::toupper(key[0]));  // a case variant
      member(key, f.type().get(), f.nullable());
      if (Flaw(2)) member(f.name(), f.type().get(), f.nullable());  // a duplicate
    }
    if (Flaw(4)) member("zz_new", nullptr, true);
    if (Flaw(2)) member("esc\\u0061ped", nullptr, true);
    Space(out);
    out += '}';
  }

  void Value(const Type& t, std::string& out, int depth, bool nullable) {
    if ((nullable && Chance(8)) || Flaw(2)) {
      out += "null";
      return;
    }
    if (Flaw(4)) {  // something of another shape
      out += Pick({"\"text\"", "12", "1.5e3", "true", "[1,2]", "{\"a\":1}", "NaN", "-Infinity"});
      return;
    }
    if (t.kind() == TypeKind::kStruct) {
      Object(t, out, depth);
    } else if (t.kind() == TypeKind::kArray) {
      out += '[';
      for (int n = static_cast<int>(rng_() % 4); n > 0; --n) {
        Space(out);
        Value(*t.element_type(), out, depth + 1, t.contains_null());
        if (n > 1) out += ',';
      }
      out += ']';
    } else if (t.kind() == TypeKind::kMap) {
      out += '{';
      const int count = static_cast<int>(rng_() % 3);
      for (int n = count; n > 0; --n) {
        out += Key(*t.key_type(), count - n);
        out += ':';
        Value(*t.value_type(), out, depth + 1, t.value_contains_null());
        if (n > 1) out += ',';
      }
      out += '}';
    } else {
      out += Leaf(t);
    }
  }

  // The key of entry `i` of a map: distinct within the map unless the record has flaws.
  std::string Key(const Type& t, int i) {
    if (Flaw(5)) return "\"not a key\"";
    if (Flaw(5)) i = 0;  // a key seen before
    if (t.kind() == TypeKind::kInt32) {
      return "\"" + std::to_string(static_cast<int>(rng_() % 100) * 3 + i - 150) + "\"";
    }
    if (t.kind() == TypeKind::kDate) {
      return std::string(Pick({"\"2024-02-2", "\"2024-1-", "\"1999-12-1"})) + std::to_string(i) +
             "\"";
    }
    if (t.kind() == TypeKind::kBoolean) return i % 2 ? "\"true\"" : "\"false\"";
    return std::string(Pick({"\"a", "\"b", "\"k\\u00e9y", "\"", "\"a\\\"q"})) + std::to_string(i) +
           "\"";
  }

  std::string Leaf(const Type& t) {
    switch (t.kind()) {
      case TypeKind::kBoolean:
        return Of({"true", "false"}, {"\"true\"", "1"});
      case TypeKind::kInt8:
        return Of({"-128", "127", "0", "-7"}, {"128", "1.0"});
      case TypeKind::kInt16:
        return Of({"32767", "-32768", "5"}, {"40000"});
      case TypeKind::kInt32:
        return Of({"2147483647", "-2147483648", "-1", "0"}, {"2147483648", "1.0"});
      case TypeKind::kInt64:
        return Of({"9223372036854775807", "-9223372036854775808", "12", "-0"},
                  {"9223372036854775808", "\"12\""});
      case TypeKind::kFloat32:
        return Of({"1.5", "3.4e38", "-0.0", "\"NaN\"", "\"-INF\"", "1e-50", "7", "NaN"},
                  {"3.5e38", "\"1.5\""});
      case TypeKind::kFloat64:
        return Of({"2.5", "1e308", "-4.9e-324", "\"Infinity\"", "NaN", "0.1", "9", "-Infinity"},
                  {"1e309", "\"2.5\""});
      case TypeKind::kDecimal:
        return t.precision() > 20 ? Of({"123456789012345678901234.5678", "-1.00005", "\"1,234.5\"",
                                        "12", "1e3", "0.00001", "\"-7\""},
                                       {"1234567890123456789012345678.5", "\"x\""})
                                  : Of({"12345.6", "-0.5", "0.125", "\"12.3\"", "3", "1.2e2",
                                        "0.5e-1", "1234.56", "-0.05", "0.10", "-12.30", "99999.99"},
                                       {"12345678.9", "\"twelve\""});
      case TypeKind::kString:
        return t.string_length() == schema::StringLength::kUnbounded
                   ? Of({"\"plain\"", "\"with \\\"quotes\\\" and \\\\ and \\n\"",
                         "\"\\u00e9t\\u00e9\"", "\"caf\xc3\xa9\"", "\"\"", "42", "-1.5e3", "true"},
                        {"\"plain\""})
                   : Of({"\"abc\"", "\"\\u00e9\"", "\"\"", "12"}, {"\"longer than five\""});
      case TypeKind::kDate:
        return Of({"\"2024-02-29\"", "\"2024\"", "\"2024-3\"", "\"2024-03-01T10:00\"",
                   "\"2024-03-0\\u0031\""},
                  {"\"2024-02-30\"", "20240301"});
      case TypeKind::kTimestamp:
        return Of({"\"2024-05-06T09:08:09.5+02:00\"", "\"2024-05-06 09:08:09\"",
                   "\"2024-05-06T09:08:09.123456Z\"", "1714979289", "-5",
                   "\"2024-05-06\\u0054\\u0030\\u0031:00:00Z\""},
                  {"\"not a time\"", "9223372036854775807"});
      case TypeKind::kTimestampNtz:
        return Of({"\"2024-05-06 07:08:09\"", "\"2024-05-06T07:08:09.000001\""},
                  {"\"2024-05-06T07:08:09Z\"", "1714979289"});
      case TypeKind::kBinary:
        return Of({"\"AAH/\"", "\"aGVsbG8=\"", "\"\"", "\"AA\\u003d\\u003d\""},
                  {"\"not base64!\""});
      case TypeKind::kTime:
        return Of({"\"01:02:03.000004\"", "\"23:59\"", "\"1:02:03\""}, {"\"24:00:00\""});
      case TypeKind::kUuid:
        return Of({"\"00112233-4455-6677-8899-aabbccddeeff\"",
                   "\"00112233-4455-6677-8899-AABBCCDDEEFF\""},
                  {"\"0011\""});
      case TypeKind::kNull:
        return Of({"null"}, {"1"});
      case TypeKind::kStruct:
      case TypeKind::kArray:
      case TypeKind::kMap:
        break;
    }
    return "null";
  }

  std::mt19937 rng_;
  bool clean_ = false;
};

// A fragment's rows written to a file, as bytes.
std::string FileOf(const std::shared_ptr<const ParquetRecordPlan>& plan,
                   const ParquetFragment& fragment) {
  StringSink out;
  auto sink = ParquetRecordSink::Open(plan, out);
  EXPECT_TRUE(sink.has_value()) << sink.error().message();
  if (!sink) return {};
  Status s = (*sink)->AppendFragment(fragment);
  EXPECT_TRUE(s.has_value()) << s.error().message();
  s = (*sink)->Close();
  EXPECT_TRUE(s.has_value()) << s.error().message();
  return out.text;
}

struct LineShape {
  const char* name;
  ValidatorOptions options;
  bool schema_holds_rescued = false;
};

// Random records of every place, under each way the validator's lines can be shaped: the file
// the tape makes is the file the lines make, byte for byte, and every kept record is taped.
TEST(LeafTapeTest, TapedRecordsMakeTheFileTheirLinesMake) {
  std::vector<LineShape> setups = {
      {"rescue", {}, false},
      {"no rescued column", {.rescued_column = ""}, false},
      {"new fields allowed", {.allow_new_fields = true}, false},
      {"unknown keys ignored", {.ignore_unknown_fields = true}, false},
      {"rescued column in the schema", {}, true},
  };
  for (const LineShape& setup : setups) {
    SCOPED_TRACE(setup.name);
    std::vector<Field> fields = EveryPlace();
    if (setup.schema_holds_rescued) fields.push_back(Field("_rescued_data", Type::String()));
    auto schema = schema::Schema::Make(fields).value();
    auto vplan = ValidationPlan::Compile(schema, setup.options);
    ASSERT_TRUE(vplan.has_value()) << vplan.error().message();
    auto pplan =
        ParquetRecordPlan::Compile(schema, {.rescued_column = setup.options.rescued_column});
    ASSERT_TRUE(pplan.has_value()) << pplan.error().message();
    LeafTape tape;
    tape.map = (*pplan)->TapeMapFor(**vplan);
    ASSERT_NE(tape.map, nullptr);

    RecordValidator validator(*vplan);
    RecordMaker maker(static_cast<uint32_t>(std::hash<std::string>{}(setup.name)));
    ParquetFragment by_tape(*pplan);
    ParquetFragment by_line(*pplan);
    int64_t kept = 0;
    int64_t taped = 0;
    for (int block = 0; block < 40; ++block) {
      std::string out;
      tape.Clear();
      std::vector<std::string> records;  // alive while the tape points into them
      records.reserve(100);
      for (int i = 0; i < 100; ++i) {
        records.push_back(maker.Record(*schema->struct_type(), setup.options.rescued_column));
        records.back().append(64, ' ');  // the validator's padding
        const std::string& r = records.back();
        const RecordStatus status =
            validator.CheckJson(std::string_view(r.data(), r.size() - 64), "f.jsonl", out, &tape)
                .status;
        kept += status == RecordStatus::kValid || status == RecordStatus::kRescued;
      }
      taped += static_cast<int64_t>(tape.records.size());
      Status s = by_tape.AppendLines(out, tape);
      ASSERT_TRUE(s.has_value()) << s.error().message();
      s = by_line.AppendLines(out);
      ASSERT_TRUE(s.has_value()) << s.error().message();
    }
    EXPECT_GT(kept, 1000);
    EXPECT_EQ(taped, kept);
    ASSERT_EQ(by_tape.num_rows(), by_line.num_rows());
    EXPECT_EQ(FileOf(*pplan, by_tape), FileOf(*pplan, by_line));
  }
}

// Lines without a tape record (written some other way) are read from their text, among taped
// ones; a validator with no tape writes the same lines.
TEST(LeafTapeTest, LinesWithoutATapeRecordAreReadFromTheirText) {
  auto schema =
      schema::Schema::Make({Field("a", Type::Int32()), Field("l", Array(Type::String()))}).value();
  auto vplan = ValidationPlan::Compile(schema);
  auto pplan = ParquetRecordPlan::Compile(schema, {.rescued_column = "_rescued_data"});
  ASSERT_TRUE(vplan.has_value() && pplan.has_value());
  LeafTape tape;
  tape.map = (*pplan)->TapeMapFor(**vplan);
  ASSERT_NE(tape.map, nullptr);
  RecordValidator validator(*vplan);
  std::string out;
  const std::string r1 = std::string(R"({"a":1,"l":["x","y"]})") + std::string(64, ' ');
  const std::string r2 = std::string(R"({"l":[],"a":"no"})") + std::string(64, ' ');
  validator.CheckJson(std::string_view(r1.data(), r1.size() - 64), "f", out, &tape);
  out += "{\"a\":7,\"l\":null,\"_rescued_data\":null}\n";  // a line of another writer
  validator.CheckJson(std::string_view(r2.data(), r2.size() - 64), "f", out, &tape);
  EXPECT_EQ(tape.records.size(), 2u);
  std::string plain;
  validator.CheckJson(std::string_view(r1.data(), r1.size() - 64), "f", plain);
  plain += "{\"a\":7,\"l\":null,\"_rescued_data\":null}\n";
  validator.CheckJson(std::string_view(r2.data(), r2.size() - 64), "f", plain);
  EXPECT_EQ(out, plain);
  ParquetFragment by_tape(*pplan);
  ParquetFragment by_line(*pplan);
  ASSERT_TRUE(by_tape.AppendLines(out, tape).has_value());
  ASSERT_TRUE(by_line.AppendLines(out).has_value());
  EXPECT_EQ(by_tape.num_rows(), 3);
  EXPECT_EQ(FileOf(*pplan, by_tape), FileOf(*pplan, by_line));
}

// The map binds only plans of one schema and one rescued column; a tape whose map is for
// another plan is not written; a tape that points outside its line is an error, not a crash.
TEST(LeafTapeTest, MapsBindOnlyCorrespondingPlansAndBadTapesAreRefused) {
  auto schema = schema::Schema::Make({Field("a", Type::Int32())}).value();
  auto other = schema::Schema::Make({Field("b", Type::Int32())}).value();
  auto vplan = ValidationPlan::Compile(schema);
  auto no_rescue = ValidationPlan::Compile(schema, {.rescued_column = ""});
  auto pplan = ParquetRecordPlan::Compile(schema, {.rescued_column = "_rescued_data"});
  auto pother = ParquetRecordPlan::Compile(other, {.rescued_column = "_rescued_data"});
  auto pbare = ParquetRecordPlan::Compile(schema);
  ASSERT_TRUE(vplan && no_rescue && pplan && pother && pbare);
  EXPECT_NE((*pplan)->TapeMapFor(**vplan), nullptr);
  EXPECT_EQ((*pother)->TapeMapFor(**vplan), nullptr);
  EXPECT_EQ((*pplan)->TapeMapFor(**no_rescue), nullptr);
  EXPECT_EQ((*pbare)->TapeMapFor(**vplan), nullptr);
  EXPECT_NE((*pbare)->TapeMapFor(**no_rescue), nullptr);

  // A map for a plan of another size is ignored: the record is checked, nothing is taped.
  auto wide = ValidationPlan::Compile(
      schema::Schema::Make({Field("a", Type::Int32()), Field("c", Type::Int32())}).value());
  ASSERT_TRUE(wide.has_value());
  LeafTape foreign;
  foreign.map = (*pplan)->TapeMapFor(**vplan);
  RecordValidator wide_validator(*wide);
  std::string out;
  const std::string r = std::string(R"({"a":1})") + std::string(64, ' ');
  EXPECT_EQ(wide_validator.CheckJson(std::string_view(r.data(), 7), "f", out, &foreign).status,
            RecordStatus::kValid);
  EXPECT_TRUE(foreign.records.empty());

  LeafTape bad;
  bad.map = (*pplan)->TapeMapFor(**vplan);
  const std::string line = R"({"a":1,"_rescued_data":null})";
  TapeEntry e;
  e.node = 1;
  e.op = TapeOp::kValue;
  e.begin = 5;
  e.size = 1000;  // past the line
  bad.Push(e);
  bad.records.push_back({0, line.data(), line.size(), 0, 1});
  ParquetFragment fragment(*pplan);
  Status s = fragment.AppendLines(line, bad);
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().message().find("outside the line"), std::string::npos) << s.error().message();
  EXPECT_TRUE(fragment.failed());
  fragment.Clear();
  LeafTape past;
  past.map = bad.map;
  past.records.push_back({0, line.data(), line.size(), 0, 3});  // more entries than it holds
  EXPECT_FALSE(fragment.AppendLines(line, past).has_value());
}

}  // namespace
}  // namespace sluice::data
