#include "sluice/data/json_infer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sluice/data/auto_loader.h"
#include "sluice/dialects/spark/spark.h"

namespace sluice::data {
namespace {

// Infer `records` with `options`; the simpleString of the result, or "error: ...".
std::string Infer(const std::vector<std::string>& records, JsonInferOptions options = {}) {
  auto inferrer = JsonInferrer::Make(std::move(options));
  if (!inferrer.has_value()) return "error: " + inferrer.error().message();
  for (const std::string& r : records) {
    Status st = inferrer->AddRecord(r);
    if (!st.has_value()) return "error: " + st.error().message();
  }
  return inferrer->FinishType().ToString();
}

TEST(JsonInferTest, FieldsSortLikeJavaStringCompareTo) {
  EXPECT_EQ(Infer({R"({"b":1,"a":2,"_":3,"A":4})"}), "struct<A:bigint,_:bigint,a:bigint,b:bigint>");
  // U+FFFD sorts after U+1F600 in UTF-16 (the pair starts with 0xD83D), unlike in UTF-8 bytes.
  EXPECT_LT(JavaStringCompare("\xF0\x9F\x98\x80", "\xEF\xBF\xBD"), 0);
  EXPECT_GT(JavaStringCompare("b", "a"), 0);
  EXPECT_EQ(JavaStringCompare("\xC3\xA9", "\xC3\xA9"), 0);
}

TEST(JsonInferTest, HugeNumbersFollowJacksonNumberTypes) {
  EXPECT_EQ(Infer({R"({"a":9223372036854775807,"b":-9223372036854775808})"}),
            "struct<a:bigint,b:bigint>");
  EXPECT_EQ(Infer({R"({"a":9223372036854775808})"}), "struct<a:decimal(19,0)>");
  EXPECT_EQ(Infer({"{\"a\":1" + std::string(400, '0') + "}"}), "struct<a:double>");
  EXPECT_EQ(Infer({R"({"a":1e400})"}), "struct<a:double>");
  JsonInferOptions dec;
  dec.prefers_decimal = true;
  EXPECT_EQ(Infer({R"({"a":0.01,"b":1.50})"}, dec), "struct<a:decimal(2,2),b:decimal(3,2)>");
  // Spark's DecimalType rejects the negative scale of 1E10 and fails the inference.
  EXPECT_NE(Infer({R"({"a":1E10})"}, dec).find("negative decimal scales"), std::string::npos);
}

TEST(JsonInferTest, NonNumericNumbersAreDoubles) {
  EXPECT_EQ(Infer({R"({"a":NaN,"b":-Infinity,"c":[Infinity]})"}),
            "struct<a:double,b:double,c:array<double>>");
  JsonInferOptions dec;
  dec.prefers_decimal = true;
  // getDecimalValue throws for NaN: a corrupt record.
  EXPECT_EQ(Infer({R"({"a":NaN})"}, dec), "struct<_corrupt_record:string>");
}

TEST(JsonInferTest, DeepNestingIsAClearMalformedRecord) {
  const std::string deep = std::string(10000, '[') + std::string(10000, ']');
  const std::string deep_obj = [] {
    std::string s;
    for (int i = 0; i < 10000; ++i) s += "{\"a\":";
    s += "1";
    s += std::string(10000, '}');
    return s;
  }();
  auto inferrer = JsonInferrer::Make();
  ASSERT_TRUE(inferrer.has_value());
  ASSERT_TRUE(inferrer->AddRecord("{\"x\":" + deep + "}").has_value());
  ASSERT_TRUE(inferrer->AddRecord(deep_obj).has_value());
  EXPECT_EQ(inferrer->malformed_records(), 2u);
  EXPECT_NE(inferrer->last_malformed_reason().find("nesting deeper than 1000"), std::string::npos)
      << inferrer->last_malformed_reason();
  EXPECT_EQ(inferrer->FinishType().ToString(), "struct<_corrupt_record:string>");

  JsonInferOptions fail_fast;
  fail_fast.mode = ParseMode::kFailFast;
  auto strict = JsonInferrer::Make(fail_fast);
  ASSERT_TRUE(strict.has_value());
  Status st = strict->AddRecord(deep_obj);
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().code(), ErrorCode::kParseError);
  EXPECT_NE(st.error().message().find("nesting deeper than 1000"), std::string::npos);
}

TEST(JsonInferTest, DeepButValidRecordsFailOnlyAtTheSchemaModelLimit) {
  std::string rec = std::string(200, '[') + "1" + std::string(200, ']');
  auto inferrer = JsonInferrer::Make();
  ASSERT_TRUE(inferrer.has_value());
  ASSERT_TRUE(inferrer->AddRecord("{\"a\":" + rec + "}").has_value());
  EXPECT_EQ(inferrer->malformed_records(), 0u);
  auto schema = inferrer->Finish();
  ASSERT_FALSE(schema.has_value());
  EXPECT_EQ(schema.error().code(), ErrorCode::kInvalidArgument);
}

TEST(JsonInferTest, InvalidUtf8AndBadEscapesAreCorrupt) {
  EXPECT_EQ(Infer({"{\"a\":\"\xFF\xFE\"}", R"({"b":1})"}),
            "struct<_corrupt_record:string,b:bigint>");
  EXPECT_EQ(Infer({R"({"a":"\x"})"}), "struct<_corrupt_record:string>");
  JsonInferOptions drop;
  drop.mode = ParseMode::kDropMalformed;
  EXPECT_EQ(Infer({"{\"\xC0\":1}", R"({"b":true})"}, drop), "struct<b:boolean>");
}

TEST(JsonInferTest, DuplicateKeysMergeIntoOneField) {
  // Deviation: Spark keeps both fields (and its read then fails on the duplicate column).
  EXPECT_EQ(Infer({R"({"a":1,"a":"x"})"}), "struct<a:string>");
  EXPECT_EQ(Infer({R"({"a":1,"a":2.5})"}), "struct<a:double>");
}

TEST(JsonInferTest, CorruptRecordLeavesNoPartialFields) {
  EXPECT_EQ(Infer({R"({"a":1,"b":tru})"}), "struct<_corrupt_record:string>");
  JsonInferOptions drop;
  drop.mode = ParseMode::kDropMalformed;
  EXPECT_EQ(Infer({R"({"a":1,"b":[1,2})", R"({"c":1})"}, drop), "struct<c:bigint>");
}

// A malformed record leaves no trace however far into it the fault lies: inferring every record,
// malformed ones dropped, equals inferring only the good ones. Faults come after new keys,
// nested values and type changes, in a stream where new keys keep coming and in a quiet one.
TEST(JsonInferTest, MalformedRecordsLeaveNoTraceAmongManyRecords) {
  uint64_t state = 7;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % n;
  };
  auto value = [&](int depth, auto& self) -> std::string {
    switch (next(depth > 2 ? 5 : 7)) {
      case 0:
        return std::to_string(next(1000));
      case 1:
        return "1.5";
      case 2:
        return "\"s\\u00e9" + std::to_string(next(9)) + "\"";
      case 3:
        return next(2) ? "true" : "null";
      case 4:
        return "\"\"";
      case 5:
        return "[" + self(depth + 1, self) + "," + self(depth + 1, self) + "]";
      default:
        return "{\"n" + std::to_string(next(4)) + "\":" + self(depth + 1, self) +
               ",\"m\":" + self(depth + 1, self) + "}";
    }
  };
  const char* faults[] = {"tru", "01",   "\"bad \\q escape\"", "[1,2", "{\"x\":}",
                          "-",   "1.e5", "\"\\ud83d\"x"};
  JsonInferOptions drop;
  drop.mode = ParseMode::kDropMalformed;
  auto all = JsonInferrer::Make(drop);
  auto good = JsonInferrer::Make(drop);
  ASSERT_TRUE(all.has_value() && good.has_value());
  uint64_t bad = 0;
  for (int i = 0; i < 6000; ++i) {
    const bool busy = i < 2500;  // a new key in every record
    std::string r = "{\"id\":" + std::to_string(i);
    if (busy || next(500) == 0) r += ",\"k" + std::to_string(i) + "\":" + value(1, value);
    for (int f = 0; f < 3; ++f) r += ",\"f" + std::to_string(next(6)) + "\":" + value(1, value);
    const bool corrupt = next(25) == 0;
    if (corrupt) {
      r += ",\"late" + std::to_string(i) + "\":{\"deep\":[" + value(2, value) + "," +
           faults[next(std::size(faults))] + "]}";
    }
    r += "}";
    ASSERT_TRUE(all->AddRecord(r).has_value()) << r;
    if (corrupt) {
      ++bad;
    } else {
      ASSERT_TRUE(good->AddRecord(r).has_value()) << r;
    }
  }
  EXPECT_EQ(all->malformed_records(), bad);
  EXPECT_GT(bad, 100u);
  EXPECT_EQ(all->FinishType().ToString(), good->FinishType().ToString());
}

// sluice's own scanner reads large records first and leaves to simdjson what it does not take;
// the result must be what simdjson alone gives, record by record (here every record goes
// through both): the same type, the same verdict (malformed or not) and, for a FAILFAST error,
// the same message. Seeded random records, valid and mutated (a byte deleted, replaced or
// inserted, the record cut short), under the options that change how tokens are read.
// Seeded random records for the differential tests: JSON atoms of every kind (and some that are
// not JSON), nested arrays and objects over a few keys, a third of the records mutated by a
// byte.
class RecordMaker {
 public:
  explicit RecordMaker(uint64_t seed) : state_(seed) {}
  uint64_t Next(uint64_t n) {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return (state_ >> 33) % n;
  }
  std::string Value(int depth) {
    static const char* const kAtoms[] = {"0",
                                         "-0",
                                         "17",
                                         "-42",
                                         "1.5",
                                         "-2.25e3",
                                         "1E400",
                                         "1e-400",
                                         "12345678901234567890",
                                         "0.1000",
                                         "NaN",
                                         "-Infinity",
                                         "true",
                                         "false",
                                         "null",
                                         "01",
                                         "1.",
                                         "+1",
                                         "\"\"",
                                         "\"a\"",
                                         "\"2024-01-02\"",
                                         "\"2024-01-02T03:04:05Z\"",
                                         "\"12.50\"",
                                         "\"x\\n\\u00e9\\ud83d\\ude00\"",
                                         "\"caf\xc3\xa9\"",
                                         "\"\\q\"",
                                         "\"\xff\"",
                                         "tru",
                                         "nul"};
    const uint64_t pick = Next(depth > 3 ? 10 : 14);
    if (pick < 10) return kAtoms[Next(std::size(kAtoms))];
    if (pick < 12) {
      std::string a = "[";
      for (uint64_t i = 0, n = Next(4); i < n; ++i) a += (i ? ", " : "") + Value(depth + 1);
      return a + "]";
    }
    std::string o = "{";
    for (uint64_t i = 0, n = Next(5); i < n; ++i) {
      o += (i ? "," : "") + std::string(Next(3) == 0 ? " " : "") + "\"k" + std::to_string(Next(6)) +
           (Next(20) == 0 ? "\\u0041" : "") + "\"" + (Next(3) == 0 ? " : " : ":") +
           Value(depth + 1);
    }
    return o + "}";
  }
  std::string Record() {
    static const char kMutations[] = {'"', '\\', '{', '}',    '[', ']',
                                      ',', ':',  ' ', '\x01', 'x', '0'};
    std::string r =
        Next(10) == 0 ? Value(1) : "{\"id\":" + Value(2) + "," + "\"v\":" + Value(1) + "}";
    if (Next(3) == 0 && !r.empty()) {
      const size_t at = Next(r.size());
      switch (Next(4)) {
        case 0:
          r.erase(at, 1);
          break;
        case 1:
          r[at] = kMutations[Next(std::size(kMutations))];
          break;
        case 2:
          r.insert(r.begin() + static_cast<std::ptrdiff_t>(at),
                   kMutations[Next(std::size(kMutations))]);
          break;
        default:
          r.resize(at);
      }
    }
    return r;
  }

 private:
  uint64_t state_;
};

struct InferVariant {
  const char* name;
  JsonInferOptions options;
};

// Two inferrers with `options`: one that reads every record with the scanner, one with simdjson.
std::pair<Result<JsonInferrer>, Result<JsonInferrer>> ScannerAndSimdjson(JsonInferOptions options) {
  JsonInferOptions scan = options;
  scan.scanner_min_record_bytes = 0;
  options.scanner_min_record_bytes = SIZE_MAX;
  return {JsonInferrer::Make(scan), JsonInferrer::Make(options)};
}

std::vector<InferVariant> InferVariants() {
  std::vector<InferVariant> variants(5);
  variants[0].name = "defaults";
  variants[1].name = "prefersDecimal";
  variants[1].options.prefers_decimal = true;
  variants[2].name = "primitivesAsString";
  variants[2].options.primitives_as_string = true;
  variants[3].name = "inferTimestamp";
  variants[3].options.infer_timestamp = true;
  variants[4].name = "FAILFAST";
  variants[4].options.mode = ParseMode::kFailFast;
  return variants;
}

TEST(JsonInferTest, TheScannerAndSimdjsonAgreeOnEveryRecord) {
  RecordMaker maker(11);
  uint64_t malformed = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string r = maker.Record();
    for (const InferVariant& v : InferVariants()) {
      auto [a, b] = ScannerAndSimdjson(v.options);
      ASSERT_TRUE(a.has_value() && b.has_value());
      // A first record gives the walk a type to merge into, so the merge shortcuts run too.
      const std::string warm = R"({"id":1,"v":"s"})";
      ASSERT_TRUE(a->AddRecord(warm).has_value() && b->AddRecord(warm).has_value());
      const Status sa = a->AddRecord(r);
      const Status sb = b->AddRecord(r);
      ASSERT_EQ(sa.has_value(), sb.has_value()) << v.name << ": " << r;
      if (!sa.has_value()) {
        EXPECT_EQ(sa.error().message(), sb.error().message()) << v.name << ": " << r;
        continue;
      }
      EXPECT_EQ(a->malformed_records(), b->malformed_records()) << v.name << ": " << r;
      EXPECT_EQ(a->FinishType().ToString(), b->FinishType().ToString()) << v.name << ": " << r;
      malformed += b->malformed_records();
    }
  }
  EXPECT_GT(malformed, 1000u);  // the mutations do reach the malformed paths
}

// The simdjson walk checks a record and merges it only when it would change the type so far
// ("covered" records are skipped); the scanner merges every record. Long runs of records over a
// few keys, where most records are covered and some are not (a key first seen, a long that
// becomes a double, a null that becomes a struct, a nested field), infer the same type after
// every record under every option set.
TEST(JsonInferTest, SkippingCoveredRecordsInfersWhatMergingEveryRecordDoes) {
  RecordMaker maker(29);
  uint64_t records = 0;
  for (int run = 0; run < 40; ++run) {
    std::vector<std::string> stream;
    for (int i = 0; i < 60; ++i) stream.push_back(maker.Record());
    for (const InferVariant& v : InferVariants()) {
      auto [a, b] = ScannerAndSimdjson(v.options);
      ASSERT_TRUE(a.has_value() && b.has_value());
      for (const std::string& r : stream) {
        const Status sa = a->AddRecord(r);
        const Status sb = b->AddRecord(r);
        ASSERT_EQ(sa.has_value(), sb.has_value()) << v.name << ": " << r;
        if (!sa.has_value()) break;  // FAILFAST
        ++records;
        ASSERT_EQ(a->FinishType().ToString(), b->FinishType().ToString()) << v.name << ": " << r;
      }
    }
  }
  EXPECT_GT(records, 7000u);
}

TEST(JsonInferTest, RootArraysMergeTheirElementsFirstAsSparkDoes) {
  // The elements fold with compatibleType before the root is unwrapped: struct + number is a
  // string, which is not a record, so the struct's fields are lost.
  EXPECT_EQ(Infer({R"([{"a":1}, 5])"}), "struct<_corrupt_record:string>");
  EXPECT_EQ(Infer({R"([[{"a":1}], [{"b":"x"}]])"}), "struct<a:bigint,b:string>");
  EXPECT_EQ(Infer({"null", "[]", "[null]", "  ", R"({"a":null})"}), "struct<a:string>");
}

TEST(JsonInferTest, FailFastRejectsNonObjectRoots) {
  JsonInferOptions o;
  o.mode = ParseMode::kFailFast;
  EXPECT_NE(Infer({R"({"a":1})", "42"}, o).find("error:"), std::string::npos);
  EXPECT_EQ(Infer({R"({"a":1})", "null"}, o), "struct<a:bigint>");
}

TEST(JsonInferTest, EmptyStructsErasedThroughSparkRead) {
  // What spark.read.json gives for JsonSuite's "SPARK-8093 Erase empty structs" records.
  EXPECT_EQ(Infer({"{", "", R"({"a": {}})", R"({"a": {"b": {}}})", R"({"b": [{"c": {}}]})", "]"}),
            "struct<_corrupt_record:string>");
}

TEST(JsonInferTest, DropFieldIfAllNull) {
  JsonInferOptions o;
  o.drop_field_if_all_null = true;
  EXPECT_EQ(Infer({R"({"a":null,"b":"","c":[],"d":{},"e":1,"f":[null]})"}, o), "struct<e:bigint>");
}

TEST(JsonInferTest, TimestampsOnlyWhenAsked) {
  EXPECT_EQ(Infer({R"({"t":"2015-08-20 15:57:00"})"}), "struct<t:string>");
  JsonInferOptions o;
  o.infer_timestamp = true;
  EXPECT_EQ(Infer({R"({"t":"2015-08-20T15:57:00.123Z","u":"2015-08-20","v":"soon"})"}, o),
            "struct<t:timestamp,u:timestamp,v:string>");
  o.timestamp_type_ntz = true;
  EXPECT_EQ(Infer({R"({"t":"2015-08-20T15:57:00","u":"2015-08-20T15:57:00+01:00"})"}, o),
            "struct<t:timestamp_ntz,u:timestamp>");
  JsonInferOptions bad;
  bad.infer_timestamp = true;
  bad.timestamp_format = "yyyy-MM-dd[ HH]";
  EXPECT_NE(Infer({}, bad).find("error:"), std::string::npos);
}

TEST(JsonInferTest, QuotedNumbersUnderPrefersDecimal) {
  JsonInferOptions o;
  o.prefers_decimal = true;
  // DecimalType(precision, scale) as BigDecimal gives them; 0.05 has scale > precision and
  // stays a string; en-US drops grouping commas.
  EXPECT_EQ(Infer({R"({"a":"1.5","b":"0.05","c":"1,000","d":"x"})"}, o),
            "struct<a:decimal(2,1),b:string,c:decimal(4,0),d:string>");
}

TEST(JsonInferTest, MergeEqualsOneInferrer) {
  const std::vector<std::string> records = {R"({"a":1,"b":{"x":[1,2]},"c":"s"})",
                                            R"({"a":2.5,"b":{"y":true}})",
                                            R"({"a":null,"d":[]})",
                                            R"({"b":{"x":[3.5]},"c":7})",
                                            "{bad",
                                            R"([{"e":1}])",
                                            "42"};
  auto whole = JsonInferrer::Make();
  ASSERT_TRUE(whole.has_value());
  for (const auto& r : records) ASSERT_TRUE(whole->AddRecord(r).has_value());
  for (size_t split = 0; split <= records.size(); ++split) {
    auto left = JsonInferrer::Make();
    auto right = JsonInferrer::Make();
    ASSERT_TRUE(left.has_value() && right.has_value());
    for (size_t i = 0; i < records.size(); ++i) {
      ASSERT_TRUE((i < split ? *left : *right).AddRecord(records[i]).has_value());
    }
    right->Merge(*left);
    EXPECT_EQ(right->FinishType(), whole->FinishType()) << "split at " << split;
    EXPECT_EQ(right->records(), whole->records());
  }
  EXPECT_EQ(whole->FinishType().ToString(),
            "struct<_corrupt_record:string,a:double,b:struct<x:array<double>,y:boolean>,c:string,"
            "d:array<string>,e:bigint>");
}

TEST(JsonInferTest, OptionsFromSparkStrings) {
  auto o = JsonInferOptions::FromMap({{"PrimitivesAsString", "TRUE"}, {"mode", "failfast"}});
  ASSERT_TRUE(o.has_value());
  EXPECT_TRUE(o->primitives_as_string);
  EXPECT_EQ(o->mode, ParseMode::kFailFast);
  EXPECT_FALSE(JsonInferOptions::FromMap({{"prefersDecimal", "yes"}}).has_value());
  EXPECT_FALSE(JsonInferOptions::FromMap({{"samplingRatio", "0.5"}}).has_value());
}

TEST(AutoLoaderInferTest, JsonLeavesAreStringsUnlessInferColumnTypes) {
  JsonInferOptions o;
  o.auto_loader = AutoLoaderOptions{};
  auto inferrer = JsonInferrer::Make(o);
  ASSERT_TRUE(inferrer.has_value());
  ASSERT_TRUE(inferrer->AddRecord(R"({"id":1,"tags":[1,2],"geo":{"lat":1.5},"Id":2})").has_value());
  auto schema = inferrer->Finish();
  ASSERT_TRUE(schema.has_value()) << schema.error().message();
  // Id and id are one column (the first in sort order is kept); _rescued_data comes last.
  EXPECT_EQ(dialects::spark::WriteDdl(**schema).value,
            "Id STRING,geo STRUCT<lat: STRING>,tags ARRAY<STRING>,_rescued_data STRING");

  o.auto_loader->infer_column_types = true;
  o.auto_loader->schema_hints = "geo.lat decimal(10,2), tags.element int, added timestamp";
  auto typed = JsonInferrer::Make(o);
  ASSERT_TRUE(typed.has_value());
  ASSERT_TRUE(typed->AddRecord(R"({"id":1,"tags":[1,2],"geo":{"lat":1.5}})").has_value());
  auto typed_schema = typed->Finish();
  ASSERT_TRUE(typed_schema.has_value()) << typed_schema.error().message();
  EXPECT_EQ(dialects::spark::WriteDdl(**typed_schema).value,
            "geo STRUCT<lat: DECIMAL(10,2)>,id BIGINT,tags ARRAY<INT>,added TIMESTAMP,"
            "_rescued_data STRING");
}

TEST(SchemaHintsInferTest, ParsesPathsAndTypes) {
  auto hints = ParseSchemaHints("amount decimal(10,2), items[].qty int, m map<string,int>");
  ASSERT_TRUE(hints.has_value()) << hints.error().message();
  ASSERT_EQ(hints->size(), 3u);
  EXPECT_EQ((*hints)[1].path.ToString(), "items[].qty");
  EXPECT_EQ((*hints)[2].type->ToString(), "map<string, int32>");
  EXPECT_FALSE(ParseSchemaHints("amount").has_value());
  EXPECT_FALSE(ParseSchemaHints("a int,, b int").has_value());
  EXPECT_FALSE(ParseSchemaHints("a notatype").has_value());
}

TEST(SchemaHintsInferTest, AppliesOverridesAddsColumnsAndPinsCase) {
  auto base = dialects::spark::ReadDdl("Amount STRING, items ARRAY<STRUCT<qty: STRING>>, s STRING");
  ASSERT_TRUE(base.has_value());
  auto hints = ParseSchemaHints(
      "amount decimal(10,2), items[].qty int, items[].sku string, "
      "new.x.y bigint, s.z int");
  ASSERT_TRUE(hints.has_value());
  // The last hint goes through a string: an error.
  auto bad = ApplySchemaHints(*base->value, *hints);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
  hints->pop_back();
  auto applied = ApplySchemaHints(*base->value, *hints);
  ASSERT_TRUE(applied.has_value()) << applied.error().message();
  EXPECT_EQ(dialects::spark::WriteDdl(**applied).value,
            "amount DECIMAL(10,2),items ARRAY<STRUCT<qty: INT, sku: STRING>>,s STRING,"
            "new STRUCT<x: STRUCT<y: BIGINT>>");
}

// Below a column the data lacks there is no type to resolve Databricks' steps against: they are
// its reserved words, so `x.element` builds an array as `x[]` does.
TEST(SchemaHintsInferTest, DatabricksStepsBuildArraysForAbsentColumns) {
  auto base = dialects::spark::ReadDdl("id STRING, s STRUCT<element: STRING>");
  ASSERT_TRUE(base.has_value());
  auto hints = ParseSchemaHints(
      "nev.element DATE, nev2[] DATE, nitems.element.qty INT, deep.x.element.element BIGINT, "
      "s.element INT");
  ASSERT_TRUE(hints.has_value()) << hints.error().message();
  auto applied = ApplySchemaHints(*base->value, *hints);
  ASSERT_TRUE(applied.has_value()) << applied.error().message();
  // A struct's own field named element (it exists) is still that field.
  EXPECT_EQ(dialects::spark::WriteDdl(**applied).value,
            "id STRING,s STRUCT<element: INT>,nev ARRAY<DATE>,nev2 ARRAY<DATE>,"
            "nitems ARRAY<STRUCT<qty: INT>>,deep STRUCT<x: ARRAY<ARRAY<BIGINT>>>");
  for (const char* map_step : {"nm.key INT", "nm.value INT", "nm{value} INT"}) {
    auto map_hint = ParseSchemaHints(map_step);
    ASSERT_TRUE(map_hint.has_value());
    auto refused = ApplySchemaHints(*base->value, *map_hint);
    ASSERT_FALSE(refused.has_value()) << map_step;
    EXPECT_NE(refused.error().message().find("give the whole map type"), std::string::npos);
  }
}

}  // namespace
}  // namespace sluice::data
