#include "sluice/dialects/avro/avro_schema.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "sluice/base/hash.h"

namespace sluice::dialects::avro {
namespace {

AvroSchema MustParse(std::string_view text) {
  auto r = Parse(text);
  EXPECT_TRUE(r.has_value()) << (r.has_value() ? "" : r.error().ToString()) << "\n" << text;
  if (!r.has_value()) return std::move(Parse("\"null\"").value());
  return std::move(r).value();
}

// The error for `text`, checked for its code and for the substrings a user needs to see.
::testing::AssertionResult FailsWith(std::string_view text, ErrorCode code,
                                     std::initializer_list<std::string_view> needles) {
  auto r = Parse(text);
  if (r.has_value()) {
    return ::testing::AssertionFailure() << "parsed, PCF " << ParsingCanonicalForm(*r);
  }
  if (r.error().code() != code) {
    return ::testing::AssertionFailure() << "wrong code: " << r.error().ToString();
  }
  for (std::string_view n : needles) {
    if (r.error().message().find(n) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "message lacks \"" << n << "\": " << r.error().ToString();
    }
  }
  return ::testing::AssertionSuccess();
}

constexpr ErrorCode kInvalid = ErrorCode::kInvalidArgument;
constexpr ErrorCode kParse = ErrorCode::kParseError;

std::string Record(std::string_view fields) {
  return fmt::format(R"({{"type":"record","name":"R","fields":[{}]}})", fields);
}

std::string FieldWithDefault(std::string_view type, std::string_view def) {
  return Record(fmt::format(R"({{"name":"f","type":{},"default":{}}})", type, def));
}

constexpr std::string_view kUserMovieActivity = R"({
  "type": "record", "name": "user_movie_activity", "namespace": "com.example.streaming",
  "doc": "One viewing session",
  "fields": [
    {"name": "user_id", "type": "long"},
    {"name": "session_id", "type": "string"},
    {"name": "movies_watched", "type": {"type": "array", "items": {
      "type": "record", "name": "Movie", "fields": [
        {"name": "movie_id", "type": "int"},
        {"name": "title", "type": "string"},
        {"name": "duration_seconds", "type": "long"},
        {"name": "completed", "type": "boolean"}]}}}
  ]})";

TEST(AvroParseTest, ReadsPrimitivesBareOrAsObjects) {
  for (std::string_view name :
       {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}) {
    AvroSchema bare = MustParse(fmt::format("\"{}\"", name));
    AvroSchema object = MustParse(fmt::format(R"({{"type":"{}"}})", name));
    EXPECT_EQ(AvroTypeName(bare.root().type()), name);
    EXPECT_TRUE(bare.root().is_primitive());
    EXPECT_EQ(object.root().type(), bare.root().type());
    EXPECT_EQ(ParsingCanonicalForm(object), fmt::format("\"{}\"", name));
  }
}

TEST(AvroParseTest, ReadsTheSeedRecordWithFullNames) {
  AvroSchema s = MustParse(kUserMovieActivity);
  const AvroNode& root = s.root();
  ASSERT_EQ(root.type(), AvroType::kRecord);
  EXPECT_EQ(root.name(), "user_movie_activity");
  EXPECT_EQ(root.namespace_name(), "com.example.streaming");
  EXPECT_EQ(root.full_name(), "com.example.streaming.user_movie_activity");
  EXPECT_EQ(root.doc(), "One viewing session");
  ASSERT_EQ(root.fields().size(), 3u);
  EXPECT_EQ(root.fields()[0].type().type(), AvroType::kLong);
  const AvroNode& movies = root.fields()[2].type();
  ASSERT_EQ(movies.type(), AvroType::kArray);
  const AvroNode& movie = movies.items();
  EXPECT_EQ(movie.full_name(), "com.example.streaming.Movie");  // inherits the namespace
  EXPECT_EQ(movie.fields()[3].name(), "completed");
  EXPECT_EQ(movie.fields()[3].position(), 3u);
  EXPECT_EQ(s.FindNamed("com.example.streaming.Movie"), &movie);
  EXPECT_EQ(s.named_types().size(), 2u);
  EXPECT_EQ(root.FindField("session_id")->type().type(), AvroType::kString);
  EXPECT_EQ(root.FindField("nope"), nullptr);
}

TEST(AvroParseTest, DottedNameWinsOverNamespaceAttribute) {
  AvroSchema s = MustParse(R"({"type":"record","name":"a.b.R","namespace":"x.y","fields":[
      {"name":"e","type":{"type":"enum","name":"E","symbols":["A"]}}]})");
  EXPECT_EQ(s.root().namespace_name(), "a.b");
  EXPECT_EQ(s.root().name(), "R");
  // Nested types inherit the namespace of the dotted name, not the ignored attribute.
  EXPECT_EQ(s.root().fields()[0].type().full_name(), "a.b.E");
}

TEST(AvroParseTest, EmptyNamespaceIsTheNullNamespace) {
  AvroSchema s = MustParse(R"({"type":"record","name":"R","namespace":"outer","fields":[
      {"name":"f","type":{"type":"fixed","name":"F","namespace":"","size":2}},
      {"name":"g","type":"F"}]})");
  const AvroNode& f = s.root().fields()[0].type();
  EXPECT_EQ(f.full_name(), "F");
  // "F" from namespace "outer" is not outer.F; Java then looks in the null namespace.
  EXPECT_EQ(&s.root().fields()[1].type(), &f);
}

TEST(AvroParseTest, ReferencesResolveByShortOrFullName) {
  AvroSchema s = MustParse(R"({"type":"record","name":"R","namespace":"n","fields":[
      {"name":"a","type":{"type":"enum","name":"E","symbols":["X"]}},
      {"name":"b","type":"E"},
      {"name":"c","type":"n.E"},
      {"name":"d","type":{"type":"E"}},
      {"name":"e","type":{"type":"map","values":"E"}}]})");
  const AvroNode* e = s.FindNamed("n.E");
  ASSERT_NE(e, nullptr);
  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(&s.root().fields()[i].type(), e) << i;
  EXPECT_EQ(&s.root().fields()[4].type().values(), e);
}

TEST(AvroParseTest, ResolvesAliasesAgainstTheTypesNamespace) {
  AvroSchema s = MustParse(R"({"type":"record","name":"R","namespace":"n",
      "aliases":["Old","other.Older"],
      "fields":[{"name":"f","type":"int","aliases":["g","h"]}]})");
  EXPECT_EQ(s.root().aliases(), (std::vector<std::string>{"n.Old", "other.Older"}));
  EXPECT_EQ(s.root().fields()[0].aliases(), (std::vector<std::string>{"g", "h"}));
}

TEST(AvroParseTest, RecordMayReferToItself) {
  AvroSchema s = MustParse(R"({"type":"record","name":"LinkedList","fields":[
      {"name":"value","type":"int"},
      {"name":"next","type":["null","LinkedList"],"default":null}]})");
  const AvroNode& next = s.root().fields()[1].type();
  ASSERT_TRUE(next.is_union());
  EXPECT_EQ(next.branches()[1], &s.root());
  EXPECT_EQ(next.NullBranch(), 0u);
  EXPECT_EQ(ParsingCanonicalForm(s),
            R"({"name":"LinkedList","type":"record","fields":[{"name":"value","type":"int"},)"
            R"({"name":"next","type":["null","LinkedList"]}]})");
}

TEST(AvroParseTest, MutuallyRecursiveRecords) {
  AvroSchema s = MustParse(R"({"type":"record","name":"A","fields":[
      {"name":"b","type":{"type":"record","name":"B","fields":[
          {"name":"a","type":["null","A"]}]}}]})");
  const AvroNode& b = s.root().fields()[0].type();
  EXPECT_EQ(b.fields()[0].type().branches()[1], &s.root());
}

TEST(AvroParseTest, ForwardReferenceToALaterDefinedType) {
  AvroSchema s = MustParse(R"({"type":"record","name":"A","namespace":"n","fields":[
      {"name":"early","type":"B"},
      {"name":"def","type":{"type":"record","name":"B","fields":[{"name":"x","type":"int"}]}}]})");
  EXPECT_EQ(&s.root().fields()[0].type(), s.FindNamed("n.B"));
  // Written in full where a depth-first walk meets it first (Java's SchemaNormalization walk).
  EXPECT_EQ(
      ParsingCanonicalForm(s),
      R"({"name":"n.A","type":"record","fields":[{"name":"early","type":{"name":"n.B",)"
      R"("type":"record","fields":[{"name":"x","type":"int"}]}},{"name":"def","type":"n.B"}]})");
  AvroSchema again = MustParse(WriteJson(s));
  EXPECT_EQ(ParsingCanonicalForm(again), ParsingCanonicalForm(s));
}

TEST(AvroParseTest, RejectsForwardReferencesThatWouldNestTooDeeply) {
  // Each record's only field refers to the next record, all defined side by side: written depth
  // first they would nest 300 records deep.
  std::string fields;
  for (int i = 0; i < 300; ++i) {
    if (i > 0) fields += ",";
    fields += fmt::format(
        R"({{"name":"f{0}","type":{{"type":"record","name":"T{0}","fields":[{{"name":"x","type":["null","T{1}"]}}]}}}})",
        i, i + 1);
  }
  fields += R"(,{"name":"last","type":{"type":"record","name":"T300","fields":[]}})";
  EXPECT_TRUE(FailsWith(Record(fields), kInvalid, {"forward references", "deeper than 512"}));
}

TEST(AvroParseTest, RejectsRedefinitionOfAName) {
  EXPECT_TRUE(FailsWith(Record(R"({"name":"a","type":{"type":"fixed","name":"F","size":1}},
                                  {"name":"b","type":{"type":"enum","name":"F","symbols":["X"]}})"),
                        kInvalid, {"/fields/1/type/name", "redefinition of type \"F\""}));
  // The same short name in two namespaces is fine.
  MustParse(Record(R"({"name":"a","type":{"type":"fixed","name":"F","size":1}},
                      {"name":"b","type":{"type":"fixed","name":"F","namespace":"x","size":1}})"));
}

TEST(AvroParseTest, RejectsInvalidNames) {
  EXPECT_TRUE(FailsWith(R"({"type":"record","name":"1abc","fields":[]})", kInvalid,
                        {"/name", "invalid name \"1abc\""}));
  EXPECT_TRUE(FailsWith(R"({"type":"record","name":"a..b","fields":[]})", kInvalid, {"a..b"}));
  EXPECT_TRUE(FailsWith(R"({"type":"record","name":"R","namespace":"x-y","fields":[]})", kInvalid,
                        {"/namespace", "invalid namespace"}));
  EXPECT_TRUE(FailsWith(Record(R"({"name":"my field","type":"int"})"), kInvalid,
                        {"/fields/0/name", "invalid field name \"my field\""}));
  EXPECT_TRUE(FailsWith(R"({"type":"enum","name":"E","symbols":["ok","not-ok"]})", kInvalid,
                        {"/symbols/1", "enum symbol"}));
  EXPECT_TRUE(FailsWith(R"({"type":"record","name":"int","fields":[]})", kInvalid,
                        {"primitive type name"}));
  EXPECT_TRUE(FailsWith(R"({"type":"record","name":"R","aliases":["a b"],"fields":[]})", kInvalid,
                        {"/aliases/0"}));
}

TEST(AvroParseTest, RejectsDuplicateFieldsAndSymbols) {
  EXPECT_TRUE(FailsWith(Record(R"({"name":"a","type":"int"},{"name":"a","type":"long"})"), kInvalid,
                        {"/fields/1/name", "duplicate field name \"a\""}));
  EXPECT_TRUE(FailsWith(R"({"type":"enum","name":"E","symbols":["A","B","A"]})", kInvalid,
                        {"/symbols/2", "duplicate enum symbol \"A\""}));
}

TEST(AvroParseTest, EnforcesUnionRules) {
  EXPECT_TRUE(FailsWith(R"(["int",["string"]])", kInvalid, {"/1", "another union"}));
  EXPECT_TRUE(
      FailsWith(R"(["int","string","int"])", kInvalid, {"/2", "more than one branch of type int"}));
  // A logical type does not make a second int distinct.
  EXPECT_TRUE(FailsWith(R"(["int",{"type":"int","logicalType":"date"}])", kInvalid,
                        {"branch of type int"}));
  EXPECT_TRUE(FailsWith(R"([{"type":"array","items":"int"},{"type":"array","items":"long"}])",
                        kInvalid, {"branch of type array"}));
  EXPECT_TRUE(
      FailsWith(R"([{"type":"fixed","name":"F","size":1},"F"])", kInvalid, {"branch of type F"}));
  // Named types with different names, and one array beside one map, are fine.
  AvroSchema s = MustParse(R"([{"type":"fixed","name":"F","size":1},
      {"type":"fixed","name":"G","size":1},{"type":"array","items":"int"},
      {"type":"map","values":"int"},"null"])");
  EXPECT_EQ(s.root().branches().size(), 5u);
  EXPECT_EQ(s.root().NullBranch(), 4u);
  EXPECT_EQ(MustParse("[]").root().branches().size(), 0u);
}

TEST(AvroParseTest, ChecksFixedSize) {
  EXPECT_EQ(MustParse(R"({"type":"fixed","name":"F","size":0})").root().size(), 0);
  EXPECT_EQ(MustParse(R"({"type":"fixed","name":"F","size":2147483647})").root().size(),
            2147483647);
  for (std::string_view bad :
       {"-1", "1.5", "1e3", "\"16\"", "2147483648", "123456789012345678901234567890"}) {
    EXPECT_TRUE(FailsWith(fmt::format(R"({{"type":"fixed","name":"F","size":{}}})", bad), kInvalid,
                          {"/size", "\"size\" must be an integer"}))
        << bad;
  }
  EXPECT_TRUE(FailsWith(R"({"type":"fixed","name":"F"})", kInvalid, {"needs a \"size\""}));
}

TEST(AvroParseTest, RecognisesValidLogicalTypes) {
  struct Case {
    std::string_view json;
    LogicalKind kind;
  };
  const Case cases[] = {
      {R"({"type":"int","logicalType":"date"})", LogicalKind::kDate},
      {R"({"type":"int","logicalType":"time-millis"})", LogicalKind::kTimeMillis},
      {R"({"type":"long","logicalType":"time-micros"})", LogicalKind::kTimeMicros},
      {R"({"type":"long","logicalType":"timestamp-millis"})", LogicalKind::kTimestampMillis},
      {R"({"type":"long","logicalType":"timestamp-micros"})", LogicalKind::kTimestampMicros},
      {R"({"type":"long","logicalType":"timestamp-nanos"})", LogicalKind::kTimestampNanos},
      {R"({"type":"long","logicalType":"local-timestamp-millis"})",
       LogicalKind::kLocalTimestampMillis},
      {R"({"type":"long","logicalType":"local-timestamp-micros"})",
       LogicalKind::kLocalTimestampMicros},
      {R"({"type":"long","logicalType":"local-timestamp-nanos"})",
       LogicalKind::kLocalTimestampNanos},
      {R"({"type":"string","logicalType":"uuid"})", LogicalKind::kUuid},
      {R"({"type":"fixed","name":"U","size":16,"logicalType":"uuid"})", LogicalKind::kUuid},
      {R"({"type":"fixed","name":"D","size":12,"logicalType":"duration"})", LogicalKind::kDuration},
      {R"({"type":"bytes","logicalType":"decimal","precision":10,"scale":2})",
       LogicalKind::kDecimal},
  };
  for (const Case& c : cases) {
    AvroSchema s = MustParse(c.json);
    EXPECT_EQ(s.root().logical_type().kind, c.kind) << c.json;
    EXPECT_TRUE(s.root().props().members().empty()) << c.json;
  }
  AvroSchema d = MustParse(R"({"type":"bytes","logicalType":"decimal","precision":10,"scale":2})");
  EXPECT_EQ(d.root().logical_type(), (LogicalType{LogicalKind::kDecimal, 10, 2}));
  // Scale defaults to 0.
  EXPECT_EQ(
      MustParse(R"({"type":"bytes","logicalType":"decimal","precision":5})").root().logical_type(),
      (LogicalType{LogicalKind::kDecimal, 5, 0}));
}

TEST(AvroParseTest, IgnoresInvalidLogicalTypesAndKeepsThemAsProps) {
  const std::string_view invalid[] = {
      R"({"type":"string","logicalType":"date"})",
      R"({"type":"int","logicalType":"timestamp-millis"})",
      R"({"type":"long","logicalType":"time-millis"})",
      R"({"type":"bytes","logicalType":"decimal","precision":4,"scale":5})",
      R"({"type":"bytes","logicalType":"decimal","precision":0})",
      R"({"type":"bytes","logicalType":"decimal"})",
      R"({"type":"bytes","logicalType":"decimal","precision":"10"})",
      R"({"type":"bytes","logicalType":"decimal","precision":4,"scale":-1})",
      R"({"type":"string","logicalType":"decimal","precision":4})",
      R"({"type":"fixed","name":"F","size":2,"logicalType":"decimal","precision":5})",
      R"({"type":"fixed","name":"F","size":15,"logicalType":"uuid"})",
      R"({"type":"fixed","name":"F","size":11,"logicalType":"duration"})",
      R"({"type":"string","logicalType":"no-such-type"})",
      R"({"type":"int","logicalType":7})",
  };
  for (std::string_view json : invalid) {
    AvroSchema s = MustParse(json);
    EXPECT_EQ(s.root().logical_type().kind, LogicalKind::kNone) << json;
    ASSERT_NE(s.root().props().Find("logicalType"), nullptr) << json;
    // Written back as it came.
    EXPECT_NE(WriteJson(s).find("\"logicalType\""), std::string::npos) << json;
  }
  AvroSchema p = MustParse(R"({"type":"bytes","logicalType":"decimal","precision":4,"scale":5})");
  EXPECT_EQ(p.root().props().Find("precision")->number_text(), "4");
  EXPECT_EQ(p.root().props().Find("scale")->number_text(), "5");
  EXPECT_EQ(ParsingCanonicalForm(p), "\"bytes\"");
}

TEST(AvroParseTest, DecimalInFixedNeedsEnoughBytes) {
  EXPECT_EQ(MaxDecimalPrecisionForFixedSize(1), 2);
  EXPECT_EQ(MaxDecimalPrecisionForFixedSize(2), 4);
  EXPECT_EQ(MaxDecimalPrecisionForFixedSize(5), 11);
  EXPECT_EQ(MaxDecimalPrecisionForFixedSize(8), 18);
  EXPECT_EQ(MaxDecimalPrecisionForFixedSize(16), 38);
  EXPECT_EQ(MaxDecimalPrecisionForFixedSize(0), 0);
  AvroSchema ok = MustParse(
      R"({"type":"fixed","name":"F","size":5,"logicalType":"decimal","precision":11,"scale":2})");
  EXPECT_EQ(ok.root().logical_type().kind, LogicalKind::kDecimal);
  AvroSchema too_small = MustParse(
      R"({"type":"fixed","name":"F","size":5,"logicalType":"decimal","precision":12,"scale":2})");
  EXPECT_EQ(too_small.root().logical_type().kind, LogicalKind::kNone);
}

TEST(AvroParseTest, KeepsCustomPropertiesInOrder) {
  AvroSchema s = MustParse(R"({"type":"record","name":"R","zeta":1,"alpha":{"x":[1,2]},
      "fields":[{"name":"f","type":{"type":"string","avro.java.string":"String"},
                 "pii":true,"classification":"secret"}]})");
  const JsonValue& props = s.root().props();
  ASSERT_EQ(props.members().size(), 2u);
  EXPECT_EQ(props.members()[0].key, "zeta");
  EXPECT_EQ(props.members()[1].key, "alpha");
  const AvroField& f = s.root().fields()[0];
  ASSERT_EQ(f.props().members().size(), 2u);
  EXPECT_EQ(f.props().members()[0].key, "pii");
  EXPECT_EQ(f.props().members()[1].key, "classification");
  EXPECT_EQ(f.type().props().Find("avro.java.string")->as_string(), "String");
  // Stripped from the canonical form, kept in the full form.
  EXPECT_EQ(ParsingCanonicalForm(s),
            R"({"name":"R","type":"record","fields":[{"name":"f","type":"string"}]})");
  std::string json = WriteJson(s);
  EXPECT_NE(json.find(R"("zeta":1,"alpha":{"x":[1,2]})"), std::string::npos) << json;
  EXPECT_NE(json.find(R"({"type":"string","avro.java.string":"String"})"), std::string::npos);
  EXPECT_NE(json.find(R"("pii":true,"classification":"secret")"), std::string::npos);
}

TEST(AvroParseTest, ReadsFieldAttributes) {
  AvroSchema s = MustParse(Record(
      R"({"name":"a","type":"int","doc":"the a","order":"descending","default":3},
         {"name":"b","type":"int","order":"ignore"},{"name":"c","type":"int"})"));
  const auto& fields = s.root().fields();
  EXPECT_EQ(fields[0].doc(), "the a");
  EXPECT_EQ(fields[0].order(), SortOrder::kDescending);
  EXPECT_EQ(fields[0].default_value()->number_text(), "3");
  EXPECT_EQ(fields[1].order(), SortOrder::kIgnore);
  EXPECT_EQ(fields[2].order(), SortOrder::kAscending);
  EXPECT_FALSE(fields[2].default_value().has_value());
  EXPECT_TRUE(FailsWith(Record(R"({"name":"a","type":"int","order":"up"})"), kInvalid,
                        {"/fields/0/order"}));
  EXPECT_TRUE(FailsWith(Record(R"({"name":"a","type":"int","doc":5})"), kInvalid,
                        {"\"doc\" must be a string"}));
}

TEST(AvroParseTest, ReadsEnumDefault) {
  AvroSchema s = MustParse(R"({"type":"enum","name":"E","symbols":["A","B"],"default":"B"})");
  EXPECT_EQ(s.root().symbols(), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(s.root().enum_default(), "B");
  EXPECT_TRUE(FailsWith(R"({"type":"enum","name":"E","symbols":["A"],"default":"C"})", kInvalid,
                        {"/default", "enum default \"C\" is not one of the symbols"}));
}

TEST(AvroDefaultTest, AcceptsDefaultsOfEveryType) {
  const std::pair<std::string_view, std::string_view> valid[] = {
      {R"("null")", "null"},
      {R"("boolean")", "true"},
      {R"("int")", "-2147483648"},
      {R"("int")", "2147483647"},
      {R"("long")", "9223372036854775807"},
      {R"("float")", "1.5"},
      {R"("double")", "-1e300"},
      {R"("double")", R"("NaN")"},
      {R"("bytes")", R"("\u00ff\u0000abc")"},
      {R"("string")", R"("héllo")"},
      {R"({"type":"fixed","name":"F","size":2})", R"("\u00ffa")"},
      {R"({"type":"enum","name":"E","symbols":["A","B"]})", R"("B")"},
      {R"({"type":"array","items":"int"})", "[1,2,3]"},
      {R"({"type":"map","values":"long"})", R"({"a":1,"b":2})"},
      {R"({"type":"record","name":"S","fields":[{"name":"x","type":"int"},
          {"name":"y","type":"string","default":"d"}]})",
       R"({"x":1})"},
      {R"(["null","int"])", "null"},
      {R"(["int","null"])", "5"},
      {R"({"type":"int","logicalType":"date"})", "19000"},
      {R"({"type":"bytes","logicalType":"decimal","precision":4,"scale":2})", R"("\u0004\u00d2")"},
  };
  for (const auto& [type, def] : valid) {
    auto r = Parse(FieldWithDefault(type, def));
    EXPECT_TRUE(r.has_value()) << type << " default " << def << ": "
                               << (r ? "" : r.error().ToString());
  }
}

TEST(AvroDefaultTest, RejectsDefaultsThatDoNotMatchTheType) {
  struct Case {
    std::string_view type;
    std::string_view def;
    std::string_view says;
  };
  const Case invalid[] = {
      {R"("null")", "0", "expected null"},
      {R"("boolean")", R"("true")", "expected true or false"},
      {R"("int")", "2147483648", "32-bit range"},
      {R"("int")", "1.0", "32-bit range"},
      {R"("int")", R"("1")", "32-bit range"},
      {R"("long")", "9223372036854775808", "64-bit range"},
      {R"("long")", "1e3", "64-bit range"},
      {R"("float")", R"("1.5")", "a number"},
      {R"("bytes")", R"("\u0100")", "U+0000..U+00FF"},
      {R"("bytes")", "[1,2]", "U+0000..U+00FF"},
      {R"("string")", "1", "a string"},
      {R"({"type":"fixed","name":"F","size":2})", R"("abc")", "exactly 2 code points"},
      {R"({"type":"enum","name":"E","symbols":["A"]})", R"("Z")", "one of the enum's symbols"},
      {R"({"type":"array","items":"int"})", R"([1,"x"])", "[1]: expected an integer"},
      {R"({"type":"map","values":"int"})", R"({"k":true})", "{k}: expected an integer"},
      {R"({"type":"record","name":"S","fields":[{"name":"x","type":"int"}]})", "{}",
       "x: missing, and field x of S has no default"},
      {R"({"type":"record","name":"S","fields":[{"name":"x","type":"int"}]})", "[]",
       "expected an object"},
      {R"(["null","int"])", "5", "first branch"},
      {R"(["int","null"])", "null", "first branch"},
      {R"([])", "null", "the union is empty"},
  };
  for (const Case& c : invalid) {
    EXPECT_TRUE(FailsWith(FieldWithDefault(c.type, c.def), kInvalid,
                          {"/fields/0/default", "invalid default for field f", c.says}))
        << c.type << " default " << c.def;
  }
}

TEST(AvroDefaultTest, ErrorNamesTheNestedFieldPath) {
  std::string text = R"({"type":"record","name":"R","fields":[
      {"name":"movies","type":{"type":"array","items":{"type":"record","name":"M","fields":[
          {"name":"id","type":"int"},
          {"name":"rating","type":["null","float"],"default":1.5}]}}}]})";
  EXPECT_TRUE(
      FailsWith(text, kInvalid,
                {"/fields/0/type/items/fields/1/default", "field movies[].rating", "line 4"}));
}

TEST(AvroDefaultTest, RecursiveRecordDefaultTerminates) {
  // The member default falls back to the field's own default, which is checked where it stands.
  AvroSchema s = MustParse(R"({"type":"record","name":"N","fields":[
      {"name":"v","type":"int","default":0},
      {"name":"kids","type":{"type":"array","items":"N"},"default":[{"v":1,"kids":[]},{}]}]})");
  EXPECT_EQ(s.root().fields()[1].default_value()->items().size(), 2u);
}

TEST(AvroHostileInputTest, FailsCleanlyOnMalformedJson) {
  EXPECT_TRUE(FailsWith("", kParse, {"unexpected end of input"}));
  EXPECT_TRUE(FailsWith("   ", kParse, {}));
  EXPECT_TRUE(FailsWith(R"({"type":"record","name":"R","fields":[)", kParse, {"offset"}));
  EXPECT_TRUE(FailsWith("{\"type\":\"str\xff\xfeing\"}", kParse, {"invalid UTF-8"}));
  EXPECT_TRUE(FailsWith(R"({"type":"fixed","name":"F","size":015})", kParse, {}));
  EXPECT_TRUE(FailsWith(R"({"type":"int","type":"long"})", kParse, {}));
}

TEST(AvroHostileInputTest, FailsCleanlyOnWrongShapes) {
  EXPECT_TRUE(FailsWith("42", kInvalid, {"a schema must be"}));
  EXPECT_TRUE(FailsWith("true", kInvalid, {"a schema must be"}));
  EXPECT_TRUE(FailsWith("{}", kInvalid, {"missing \"type\""}));
  EXPECT_TRUE(FailsWith(R"({"type":{"type":"int"}})", kInvalid, {"/type", "must be a string"}));
  EXPECT_TRUE(FailsWith(R"({"type":"union"})", kInvalid, {"JSON array"}));
  EXPECT_TRUE(
      FailsWith(R"("record")", kInvalid, {"unknown type \"record\"", "written as an object"}));
  EXPECT_TRUE(FailsWith(R"("Nope")", kInvalid, {"unknown type \"Nope\""}));
  EXPECT_TRUE(FailsWith(R"({"type":"record","name":"R"})", kInvalid, {"needs \"fields\""}));
  EXPECT_TRUE(FailsWith(R"({"type":"record","name":"R","fields":{}})", kInvalid,
                        {"/fields", "must be an array"}));
  EXPECT_TRUE(FailsWith(R"({"type":"record","name":"R","fields":[1]})", kInvalid,
                        {"/fields/0", "must be an object"}));
  EXPECT_TRUE(FailsWith(R"({"type":"record","name":"R","fields":[{"name":"a"}]})", kInvalid,
                        {"needs a \"type\""}));
  EXPECT_TRUE(FailsWith(R"({"type":"record","name":5,"fields":[]})", kInvalid,
                        {"\"name\" must be a string"}));
  EXPECT_TRUE(FailsWith(R"({"type":"record","fields":[]})", kInvalid, {"needs a \"name\""}));
  EXPECT_TRUE(FailsWith(R"({"type":"enum","name":"E"})", kInvalid, {"needs \"symbols\""}));
  EXPECT_TRUE(
      FailsWith(R"({"type":"enum","name":"E","symbols":"A"})", kInvalid, {"must be an array"}));
  EXPECT_TRUE(FailsWith(R"({"type":"map"})", kInvalid, {"needs \"values\""}));
  EXPECT_TRUE(FailsWith(R"({"type":"array","items":null})", kInvalid, {"/items"}));
}

TEST(AvroHostileInputTest, ErrorsPointAtTheBadPlace) {
  std::string text = Record(R"({"name":"a","type":"int"},{"name":"b","type":"long"},
                               {"name":"c","type":{"type":"array","items":"strin"}})");
  EXPECT_TRUE(FailsWith(text, kInvalid, {"/fields/2/type/items", "line 2", "strin"}));
}

TEST(AvroHostileInputTest, DeepNestingIsAnErrorNotACrash) {
  std::string arrays;
  for (int i = 0; i < 2000; ++i) arrays += R"({"type":"array","items":)";
  arrays += "\"int\"";
  for (int i = 0; i < 2000; ++i) arrays += "}";
  EXPECT_TRUE(FailsWith(arrays, kParse, {"nesting deeper"}));
  std::string unions(100000, '[');
  EXPECT_TRUE(FailsWith(unions, kParse, {}));
  // Just inside the JSON limit: parses, and writes back within it.
  std::string ok;
  for (int i = 0; i < 500; ++i) ok += R"({"type":"array","items":)";
  ok += "\"int\"";
  for (int i = 0; i < 500; ++i) ok += "}";
  AvroSchema s = MustParse(ok);
  EXPECT_TRUE(Parse(WriteJson(s)).has_value());
  EXPECT_EQ(ParsingCanonicalForm(MustParse(WriteJson(s))), ParsingCanonicalForm(s));
}

TEST(AvroHostileInputTest, HugeNumbersAreKeptOrRejectedNotMangled) {
  AvroSchema s = MustParse(R"({"type":"record","name":"R","big":123456789012345678901234567890,
      "fields":[{"name":"d","type":"double","default":1e400}]})");
  EXPECT_EQ(s.root().props().Find("big")->number_text(), "123456789012345678901234567890");
  EXPECT_NE(WriteJson(s).find("123456789012345678901234567890"), std::string::npos);
  EXPECT_NE(WriteJson(s).find("1e400"), std::string::npos);
  EXPECT_TRUE(FailsWith(FieldWithDefault("\"long\"", "123456789012345678901234567890"), kInvalid,
                        {"64-bit range"}));
}

TEST(AvroHostileInputTest, ManyBranchesAndFieldsAreFine) {
  std::string fields;
  for (int i = 0; i < 5000; ++i) {
    if (i > 0) fields += ",";
    fields += fmt::format(R"({{"name":"f{}","type":"int"}})", i);
  }
  EXPECT_EQ(MustParse(Record(fields)).root().fields().size(), 5000u);
}

TEST(AvroWriteJsonTest, WritesNamedTypesOnceThenByFullName) {
  AvroSchema s = MustParse(R"({"type":"record","name":"R","namespace":"n","fields":[
      {"name":"a","type":{"type":"fixed","name":"F","size":4}},
      {"name":"b","type":"F"},
      {"name":"c","type":{"type":"record","name":"S","namespace":"m","fields":[
          {"name":"d","type":"n.F"}]}}]})");
  EXPECT_EQ(WriteJson(s),
            R"({"type":"record","name":"R","namespace":"n","fields":[)"
            R"({"name":"a","type":{"type":"fixed","name":"F","size":4}},)"
            R"({"name":"b","type":"n.F"},)"
            R"({"name":"c","type":{"type":"record","name":"S","namespace":"m","fields":[)"
            R"({"name":"d","type":"n.F"}]}}]})");
}

TEST(AvroWriteJsonTest, RoundTripsThroughParse) {
  const std::string_view schemas[] = {
      kUserMovieActivity,
      R"("string")",
      R"(["null",{"type":"long","logicalType":"timestamp-micros"},{"type":"map","values":"int"}])",
      R"({"type":"record","name":"a.b.R","doc":"d","aliases":["x.Old","Older"],"custom":[1,{"k":null}],
          "fields":[
            {"name":"e","type":{"type":"enum","name":"E","namespace":"","symbols":["A","B"],
                                "default":"A","doc":"an enum","aliases":["E0"]},"default":"B",
             "aliases":["e0"],"order":"descending","doc":"field e"},
            {"name":"f","type":{"type":"fixed","name":"F","size":5,"logicalType":"decimal",
                                "precision":11,"scale":3}},
            {"name":"g","type":["null","E","F","a.b.R"],"default":null},
            {"name":"h","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":9}},
            {"name":"i","type":{"type":"error","name":"Oops","fields":[]}}]})",
  };
  for (std::string_view text : schemas) {
    AvroSchema s = MustParse(text);
    std::string once = WriteJson(s);
    AvroSchema again = MustParse(once);
    EXPECT_EQ(WriteJson(again), once) << text;
    EXPECT_EQ(ParsingCanonicalForm(again), ParsingCanonicalForm(s)) << text;
    EXPECT_EQ(WriteJson(MustParse(WriteJson(s, 2))), once) << "indented form of " << text;
  }
}

TEST(AvroWriteJsonTest, IndentedFormIsReadable) {
  AvroSchema s = MustParse(R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})");
  EXPECT_EQ(WriteJson(s, 2),
            "{\n  \"type\": \"record\",\n  \"name\": \"R\",\n  \"fields\": [\n    {\n"
            "      \"name\": \"a\",\n      \"type\": \"int\"\n    }\n  ]\n}");
}

TEST(AvroCanonicalFormTest, FollowsTheSpecTransformations) {
  AvroSchema s = MustParse(R"({"namespace":"x.y","type":"record","name":"R","doc":"strip me",
      "fields":[
        {"doc":"x","type":{"type":"array","items":{"type":"enum","symbols":["A"],"name":"E"}},
         "name":"a","default":[]},
        {"name":"b","type":{"values":"x.y.E","type":"map"}},
        {"name":"c","type":{"size":8,"type":"fixed","name":"q.F","logicalType":"decimal",
                            "precision":3}}]})");
  EXPECT_EQ(
      ParsingCanonicalForm(s),
      R"({"name":"x.y.R","type":"record","fields":[)"
      R"({"name":"a","type":{"type":"array","items":{"name":"x.y.E","type":"enum","symbols":["A"]}}},)"
      R"({"name":"b","type":{"type":"map","values":"x.y.E"}},)"
      R"({"name":"c","type":{"name":"q.F","type":"fixed","size":8}}]})");
  // An error record is canonicalised as a record, as Java does.
  EXPECT_EQ(ParsingCanonicalForm(MustParse(R"({"type":"error","name":"E","fields":[]})")),
            R"({"name":"E","type":"record","fields":[]})");
  // Escaped characters in names come out unescaped (STRINGS).
  EXPECT_EQ(
      ParsingCanonicalForm(MustParse(R"({"type":"enum","name":"\u0045","symbols":["\u0041"]})")),
      R"({"name":"E","type":"enum","symbols":["A"]})");
}

TEST(AvroFingerprintTest, MatchesTheSpecVectorsAndDigestsOfThePcf) {
  AvroSchema null_schema = MustParse("\"null\"");
  EXPECT_EQ(static_cast<int64_t>(Crc64Fingerprint(null_schema)), 7195948357588979594);
  EXPECT_EQ(fmt::format("{:016x}", Crc64Fingerprint(null_schema)), "63dd24e7cc258f8a");
  EXPECT_EQ(static_cast<int64_t>(Crc64Fingerprint(MustParse(R"({"type":"boolean"})"))),
            -6970731678124411036);
  AvroSchema s = MustParse(kUserMovieActivity);
  std::string pcf = ParsingCanonicalForm(s);
  EXPECT_EQ(Sha256Fingerprint(s), Sha256Hex(pcf));
  EXPECT_EQ(Md5Fingerprint(s), Md5Hex(pcf));
  EXPECT_EQ(Sha256Fingerprint(MustParse("\"int\"")),
            "3f2b87a9fe7cc9b13835598c3981cd45e3e355309e5090aa0933d7becb6fba45");
  // Docs, aliases and field order attributes do not change the fingerprint.
  AvroSchema annotated = MustParse(R"({"type":"record","name":"user_movie_activity",
      "namespace":"com.example.streaming","doc":"other","aliases":["x"],"fields":[
      {"name":"user_id","type":"long","doc":"who"},
      {"name":"session_id","type":"string","order":"ignore"},
      {"name":"movies_watched","type":{"type":"array","items":{
        "type":"record","name":"Movie","fields":[
          {"name":"movie_id","type":"int","default":0},
          {"name":"title","type":"string"},
          {"name":"duration_seconds","type":"long"},
          {"name":"completed","type":"boolean"}]}}}]})");
  EXPECT_EQ(Crc64Fingerprint(annotated), Crc64Fingerprint(s));
}

TEST(AvroSchemaTest, StaysValidWhenMoved) {
  auto parsed =
      Parse(R"({"type":"record","name":"L","fields":[{"name":"n","type":["null","L"]}]})");
  ASSERT_TRUE(parsed.has_value());
  AvroSchema moved = std::move(parsed).value();
  AvroSchema target = MustParse("\"int\"");
  target = std::move(moved);
  EXPECT_EQ(target.root().fields()[0].type().branches()[1], &target.root());
  EXPECT_EQ(target.FindNamed("L"), &target.root());
  EXPECT_EQ(DescribeNode(target.root()), "L");
  EXPECT_EQ(DescribeNode(MustParse(R"({"type":"long","logicalType":"timestamp-millis"})").root()),
            "long (timestamp-millis)");
}

// A registry's schema references: named types defined in other schemas, used by name.
TEST(AvroParseTest, ParsesWithReferencedSchemas) {
  const std::string_view address =
      R"({"type":"record","name":"Address","namespace":"geo","fields":[{"name":"city","type":"string"}]})";
  const std::string_view country = R"({"type":"enum","name":"geo.Country","symbols":["FR","NO"]})";
  const std::string_view customer =
      R"({"type":"record","name":"Customer","namespace":"geo","fields":[{"name":"home","type":"Address"},{"name":"work","type":["null","geo.Address"]},{"name":"c","type":"Country"}]})";
  std::vector<std::string_view> refs = {address, country};
  auto s = Parse(customer, refs);
  ASSERT_TRUE(s.has_value()) << s.error().message();
  EXPECT_EQ(s->root().full_name(), "geo.Customer");
  EXPECT_EQ(s->root().fields()[0].type().full_name(), "geo.Address");
  // Written standalone: the referenced types in full at their first use, then by name.
  auto again = Parse(WriteJson(*s));
  ASSERT_TRUE(again.has_value()) << again.error().message();
  EXPECT_EQ(ParsingCanonicalForm(*again), ParsingCanonicalForm(*s));
  EXPECT_NE(WriteJson(*s).find("\"city\""), std::string::npos);

  // Without them the names are unknown; an error in a reference says which one.
  EXPECT_FALSE(Parse(customer).has_value());
  std::vector<std::string_view> bad = {address, R"({"type":"enum","name":"X","symbols":[1]})"};
  auto e = Parse(customer, bad);
  ASSERT_FALSE(e.has_value());
  EXPECT_NE(e.error().message().find("referenced schema 2"), std::string::npos)
      << e.error().message();
  // A type defined both in a reference and in the schema is a redefinition.
  std::vector<std::string_view> twice = {address};
  EXPECT_FALSE(Parse(address, twice).has_value());
}

}  // namespace
}  // namespace sluice::dialects::avro
