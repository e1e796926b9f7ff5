#include "sluice/dialects/avro/avro_convert.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "sluice/base/json_writer.h"

namespace sluice::dialects::avro {
namespace {

using schema::Converted;
using schema::Field;
using schema::FieldPath;
using schema::Schema;
using schema::SchemaInfo;
using schema::SchemaPtr;
using schema::TimeUnit;
using schema::Type;
using schema::TypePtr;

Converted<SchemaPtr> MustRead(std::string_view text) {
  auto r = ReadSchema(text);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().ToString()) << "\n" << text;
  if (!r) return Converted<SchemaPtr>{Schema::Make({}).value(), {}};
  return std::move(r).value();
}

Converted<std::string> MustWrite(const Schema& s, int indent = 0) {
  auto r = WriteSchema(s, indent);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().ToString());
  if (!r) return Converted<std::string>{};
  return std::move(r).value();
}

// The model type a single field of Avro type `avro_type` reads as.
std::string FieldType(std::string_view avro_type) {
  Converted<SchemaPtr> c = MustRead(fmt::format(
      R"({{"type":"record","name":"R","fields":[{{"name":"f","type":{}}}]}})", avro_type));
  const Field& f = c.value->fields()[0];
  return schema::TypeWithNullability(*f.type(), f.nullable());
}

std::vector<std::string> NoteTexts(const std::vector<schema::LossyNote>& notes) {
  std::vector<std::string> out;
  for (const auto& n : notes) out.push_back(n.ToString());
  return out;
}

bool HasNote(const std::vector<schema::LossyNote>& notes, std::string_view path,
             std::string_view part) {
  for (const auto& n : notes) {
    if (n.path.ToString() == path && n.message.find(part) != std::string::npos) return true;
  }
  return false;
}

Field F(std::string name, TypePtr type, bool nullable = true) {
  return Field(std::move(name), std::move(type), nullable);
}

constexpr std::string_view kMovieActivityV1 = R"({
  "type": "record", "name": "user_movie_activity", "namespace": "com.example",
  "doc": "Viewing sessions",
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

constexpr std::string_view kMovieActivityV2 = R"({
  "type": "record", "name": "user_movie_activity", "namespace": "com.example",
  "fields": [
    {"name": "user_id", "type": "long"},
    {"name": "session_id", "type": "string"},
    {"name": "movies_watched", "type": {"type": "array", "items": {
      "type": "record", "name": "Movie", "fields": [
        {"name": "movie_id", "type": "string"},
        {"name": "title", "type": "string"},
        {"name": "duration_seconds", "type": "long"},
        {"name": "completed", "type": "boolean"},
        {"name": "rating", "type": ["null", "float"], "default": null}]}}}
  ]})";

TEST(AvroToModelTest, ReadsTheSeedScenarioV1) {
  Converted<SchemaPtr> c = MustRead(kMovieActivityV1);
  EXPECT_EQ(c.value->struct_type()->ToString(),
            "struct<user_id: int64 not null, session_id: string not null, movies_watched: "
            "array<struct<movie_id: int32 not null, title: string not null, duration_seconds: "
            "int64 not null, completed: boolean not null> not null> not null>");
  EXPECT_EQ(c.value->info().name, "user_movie_activity");
  EXPECT_EQ(c.value->info().namespace_name, "com.example");
  EXPECT_EQ(c.value->info().doc, "Viewing sessions");
  EXPECT_TRUE(HasNote(c.notes, "movies_watched[]", "record com.example.Movie read as a struct"))
      << ::testing::PrintToString(NoteTexts(c.notes));
}

TEST(AvroToModelTest, ReadsTheSeedScenarioV2) {
  Converted<SchemaPtr> c = MustRead(kMovieActivityV2);
  const Field* movie_id = c.value->FindField(FieldPath::Parse("movies_watched[].movie_id").value());
  ASSERT_NE(movie_id, nullptr);
  EXPECT_EQ(movie_id->type()->kind(), schema::TypeKind::kString);
  const Field* rating = c.value->FindField(FieldPath::Parse("movies_watched[].rating").value());
  ASSERT_NE(rating, nullptr);
  EXPECT_EQ(rating->type()->kind(), schema::TypeKind::kFloat32);
  EXPECT_TRUE(rating->nullable());
  // "default": null on an optional field is the model's implicit null: not stored.
  EXPECT_FALSE(rating->default_value().has_value());
}

TEST(AvroToModelTest, MapsPrimitivesAndLogicalTypesAsSparkAvro) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {R"("null")", "null"},
      {R"("boolean")", "boolean not null"},
      {R"("int")", "int32 not null"},
      {R"("long")", "int64 not null"},
      {R"("float")", "float32 not null"},
      {R"("double")", "float64 not null"},
      {R"("bytes")", "binary not null"},
      {R"("string")", "string not null"},
      {R"({"type":"int","logicalType":"date"})", "date not null"},
      {R"({"type":"int","logicalType":"time-millis"})", "time(3) not null"},
      {R"({"type":"long","logicalType":"time-micros"})", "time not null"},
      {R"({"type":"long","logicalType":"timestamp-millis"})", "timestamp(3) not null"},
      {R"({"type":"long","logicalType":"timestamp-micros"})", "timestamp not null"},
      {R"({"type":"long","logicalType":"timestamp-nanos"})", "timestamp(9) not null"},
      {R"({"type":"long","logicalType":"local-timestamp-millis"})", "timestamp_ntz(3) not null"},
      {R"({"type":"long","logicalType":"local-timestamp-micros"})", "timestamp_ntz not null"},
      {R"({"type":"long","logicalType":"local-timestamp-nanos"})", "timestamp_ntz(9) not null"},
      {R"({"type":"string","logicalType":"uuid"})", "uuid not null"},
      {R"({"type":"bytes","logicalType":"decimal","precision":10,"scale":2})",
       "decimal(10,2) not null"},
      {R"({"type":"fixed","name":"D","size":16,"logicalType":"decimal","precision":38,"scale":4})",
       "decimal(38,4) not null"},
      {R"({"type":"fixed","name":"F","size":3})", "binary not null"},
      {R"({"type":"fixed","name":"U","size":16,"logicalType":"uuid"})", "uuid not null"},
      {R"({"type":"enum","name":"E","symbols":["A","B"]})", "string not null"},
      {R"({"type":"array","items":"int"})", "array<int32 not null> not null"},
      {R"({"type":"array","items":["null","int"]})", "array<int32> not null"},
      {R"({"type":"map","values":["long","null"]})", "map<string, int64> not null"},
      // An invalid logical type is ignored: the base type stands.
      {R"({"type":"string","logicalType":"date"})", "string not null"},
  };
  for (const auto& [avro, model] : cases) EXPECT_EQ(FieldType(avro), model) << avro;
}

TEST(AvroToModelTest, MapsUnionsAsSparkAvro) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {R"(["null","string"])", "string"},
      {R"(["string","null"])", "string"},
      {R"(["int"])", "int32 not null"},
      {R"(["null"])", "null"},
      {R"(["int","long"])", "int64 not null"},
      {R"(["null","long","int"])", "int64"},
      {R"(["float","double"])", "float64 not null"},
      {R"(["double","null","float"])", "float64"},
      {R"(["int","string"])", "struct<member0: int32, member1: string> not null"},
      {R"(["null","int","string",{"type":"record","name":"S","fields":[]}])",
       "struct<member0: int32, member1: string, member2: struct<>>"},
  };
  for (const auto& [avro, model] : cases) EXPECT_EQ(FieldType(avro), model) << avro;
}

TEST(AvroToModelTest, NotesEveryLossyStep) {
  Converted<SchemaPtr> c = MustRead(R"({"type":"record","name":"R","aliases":["Old"],"team":"x",
      "fields":[
        {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"],"default":"A"}},
        {"name":"f","type":{"type":"fixed","name":"F","size":3}},
        {"name":"u","type":["int","string"]},
        {"name":"n","type":["int","long"]},
        {"name":"one","type":["int"]},
        {"name":"s","type":{"type":"string","avro.java.string":"String"}},
        {"name":"o","type":"int","order":"descending"},
        {"name":"r","type":{"type":"record","name":"Inner","doc":"inner doc","fields":[]}},
        {"name":"d","type":{"type":"fixed","name":"Dur","size":12,"logicalType":"duration"}}]})");
  const auto& n = c.notes;
  EXPECT_TRUE(HasNote(n, "", "aliases of record R are not kept: Old"));
  EXPECT_TRUE(HasNote(n, "", "attributes of R are not kept: team"));
  EXPECT_TRUE(HasNote(n, "e",
                      "enum E read as string: its symbols are not kept (A, B), nor its "
                      "default A"));
  EXPECT_TRUE(HasNote(n, "f", "fixed F read as binary: its name and size (3 bytes)"));
  EXPECT_TRUE(HasNote(n, "u", "union [int, string] read as a struct"));
  EXPECT_TRUE(HasNote(n, "n", "union [int, long] read as int64"));
  EXPECT_TRUE(HasNote(n, "one", "union [int] of one branch read as that branch"));
  EXPECT_TRUE(HasNote(n, "s", "attributes of string are not kept: avro.java.string"));
  EXPECT_TRUE(HasNote(n, "o", "sort order \"descending\" is not kept"));
  EXPECT_TRUE(HasNote(n, "r", "record Inner read as a struct"));
  EXPECT_TRUE(HasNote(n, "r", "doc of record Inner is not kept"));
  EXPECT_TRUE(HasNote(n, "d", "duration"));
  // The plain nullable union is Spark's nullable column, not a loss.
  Converted<SchemaPtr> plain =
      MustRead(R"({"type":"record","name":"R","fields":[{"name":"a","type":["null","int"]}]})");
  EXPECT_TRUE(plain.notes.empty()) << ::testing::PrintToString(NoteTexts(plain.notes));
}

TEST(AvroToModelTest, KeepsDocsDefaultsAliasesAndFieldProps) {
  Converted<SchemaPtr> c = MustRead(R"({"type":"record","name":"R","fields":[
      {"name":"a","type":"int","doc":"the a","default":7,"aliases":["old_a"],"pii":true},
      {"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":6,"scale":2},
       "default":"\u0004\u00d2"},
      {"name":"neg","type":{"type":"fixed","name":"F","size":2,"logicalType":"decimal",
                            "precision":4,"scale":1},"default":"\u00ff\u00ff"},
      {"name":"u","type":["int","string"],"default":3}]})");
  const auto& fields = c.value->fields();
  EXPECT_EQ(fields[0].doc(), "the a");
  EXPECT_EQ(ToJson(*fields[0].default_value()), "7");
  EXPECT_EQ(ToJson(fields[0].metadata()), R"({"pii":true,"avro.aliases":["old_a"]})");
  // Decimal defaults are the unscaled two's-complement bytes in Avro, numbers in the model.
  EXPECT_EQ(ToJson(*fields[1].default_value()), "12.34");
  EXPECT_EQ(ToJson(*fields[2].default_value()), "-0.1");
  // A union read as a member struct: its default belongs to member0.
  EXPECT_EQ(ToJson(*fields[3].default_value()), R"({"member0":3})");
}

TEST(AvroToModelTest, WrapsANonRecordTopLevelInAValueField) {
  Converted<SchemaPtr> c = MustRead(R"(["null",{"type":"array","items":"string"}])");
  ASSERT_EQ(c.value->fields().size(), 1u);
  EXPECT_EQ(c.value->fields()[0].name(), "value");
  EXPECT_EQ(c.value->struct_type()->ToString(), "struct<value: array<string not null>>");
  EXPECT_TRUE(HasNote(c.notes, "", "top-level union is not a record: read as a single field"));
}

TEST(AvroToModelTest, RefusesRecursiveRecords) {
  auto r = ReadSchema(R"({"type":"record","name":"com.x.Node","fields":[
      {"name":"children","type":{"type":"array","items":"com.x.Node"}}]})");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kUnimplemented);
  EXPECT_NE(r.error().message().find("record com.x.Node refers to itself"), std::string::npos)
      << r.error().message();
  EXPECT_NE(r.error().message().find("children[]"), std::string::npos) << r.error().message();
  // Sharing a record without recursion is fine.
  Converted<SchemaPtr> shared = MustRead(R"({"type":"record","name":"R","fields":[
      {"name":"home","type":{"type":"record","name":"Addr","fields":[{"name":"zip","type":"string"}]}},
      {"name":"work","type":["null","Addr"]}]})");
  EXPECT_EQ(shared.value->struct_type()->ToString(),
            "struct<home: struct<zip: string not null> not null, work: struct<zip: string not "
            "null>>");
}

TEST(AvroToModelTest, RefusesDecimalsBeyondTheModel) {
  auto r = ReadSchema(R"({"type":"record","name":"R","fields":[{"name":"d","type":
      {"type":"bytes","logicalType":"decimal","precision":40,"scale":2}}]})");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kUnimplemented);
  EXPECT_NE(r.error().message().find("d: decimal(40,2)"), std::string::npos);
}

TEST(AvroToModelTest, ExponentialSharingIsBoundedNotAHang) {
  // T{i} has two fields of T{i-1}: 2^40 leaves when expanded without references.
  std::string fields = R"({"name":"t0","type":{"type":"record","name":"T0","fields":[]}})";
  for (int i = 1; i <= 40; ++i) {
    fields += fmt::format(
        R"(,{{"name":"t{0}","type":{{"type":"record","name":"T{0}","fields":[{{"name":"a","type":"T{1}"}},{{"name":"b","type":"T{1}"}}]}}}})",
        i, i - 1);
  }
  auto r = ReadSchema(fmt::format(R"({{"type":"record","name":"R","fields":[{}]}})", fields));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
}

TEST(AvroToModelTest, DeepButValidAvroFailsOnTheModelDepthLimit) {
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += R"({"type":"array","items":)";
  deep += "\"int\"";
  for (int i = 0; i < 200; ++i) deep += "}";
  auto r = ReadSchema(deep);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message().find("deeper than"), std::string::npos);
}

TEST(AvroFromModelTest, WritesTheSeedModelLikeSparkAvro) {
  auto movie = Type::Struct({F("movie_id", Type::Int32(), false), F("title", Type::String(), false),
                             F("duration_seconds", Type::Int64(), false),
                             F("completed", Type::Boolean(), false)})
                   .value();
  auto schema =
      Schema::Make({F("user_id", Type::Int64(), false), F("session_id", Type::String(), false),
                    F("movies_watched", Type::Array(movie, false).value(), true)})
          .value();
  Converted<std::string> c = MustWrite(*schema);
  EXPECT_EQ(
      c.value,
      R"({"type":"record","name":"topLevelRecord","fields":[)"
      R"({"name":"user_id","type":"long"},{"name":"session_id","type":"string"},)"
      R"({"name":"movies_watched","type":["null",{"type":"array","items":{"type":"record",)"
      R"("name":"movies_watched","namespace":"topLevelRecord","fields":[)"
      R"({"name":"movie_id","type":"int"},{"name":"title","type":"string"},)"
      R"({"name":"duration_seconds","type":"long"},{"name":"completed","type":"boolean"}]}}],)"
      R"("default":null}]})");
  EXPECT_TRUE(c.notes.empty());
}

TEST(AvroFromModelTest, UsesSchemaInfoAndNestsNamespaces) {
  auto addr =
      Type::Struct({F("geo", Type::Struct({F("lat", Type::Float64(), false)}).value(), false)})
          .value();
  auto schema = Schema::Make({F("address", addr, false)},
                             SchemaInfo{"Customer", "com.shop", std::string("A customer")})
                    .value();
  AvroSchema avro = Parse(MustWrite(*schema).value).value();
  EXPECT_EQ(avro.root().full_name(), "com.shop.Customer");
  EXPECT_EQ(avro.root().doc(), "A customer");
  EXPECT_NE(avro.FindNamed("com.shop.Customer.address"), nullptr);
  EXPECT_NE(avro.FindNamed("com.shop.Customer.address.geo"), nullptr);
}

TEST(AvroFromModelTest, WritesNullableFieldsNullFirstWithDefaultNull) {
  auto schema =
      Schema::Make(
          {F("a", Type::Int32()), F("b", Type::Int32()).set_default_value(JsonValue::Int(5)),
           F("c", Type::Int32(), false).set_default_value(JsonValue::Int(1)), F("z", Type::Null())})
          .value();
  EXPECT_EQ(MustWrite(*schema).value,
            R"({"type":"record","name":"topLevelRecord","fields":[)"
            R"({"name":"a","type":["null","int"],"default":null},)"
            R"({"name":"b","type":["int","null"],"default":5},)"
            R"({"name":"c","type":"int","default":1},{"name":"z","type":"null"}]})");
}

TEST(AvroFromModelTest, WritesDecimalsAsMinimalFixedAndLogicalTypes) {
  auto schema =
      Schema::Make({F("price", Type::Decimal(10, 2).value(), false),
                    F("big", Type::Decimal(38, 0).value(), false),
                    F("small", Type::Decimal(2, 1).value(), false), F("day", Type::Date(), false),
                    F("at", Type::Timestamp(TimeUnit::kMillis), false),
                    F("local", Type::TimestampNtz(TimeUnit::kNanos), false),
                    F("t3", Type::Time(TimeUnit::kMillis), false),
                    F("t6", Type::Time(TimeUnit::kMicros), false), F("id", Type::Uuid(), false),
                    F("raw", Type::Binary(), false)})
          .value();
  Converted<std::string> c = MustWrite(*schema);
  AvroSchema avro = Parse(c.value).value();
  const auto& f = avro.root().fields();
  EXPECT_EQ(f[0].type().type(), AvroType::kFixed);
  EXPECT_EQ(f[0].type().size(), 5);
  EXPECT_EQ(f[0].type().full_name(), "topLevelRecord.price.fixed");
  EXPECT_EQ(f[0].type().logical_type(), (LogicalType{LogicalKind::kDecimal, 10, 2}));
  EXPECT_EQ(f[1].type().size(), 16);
  EXPECT_EQ(f[2].type().size(), 1);
  EXPECT_EQ(f[3].type().logical_type().kind, LogicalKind::kDate);
  EXPECT_EQ(f[4].type().logical_type().kind, LogicalKind::kTimestampMillis);
  EXPECT_EQ(f[5].type().logical_type().kind, LogicalKind::kLocalTimestampNanos);
  EXPECT_EQ(f[6].type().type(), AvroType::kInt);
  EXPECT_EQ(f[6].type().logical_type().kind, LogicalKind::kTimeMillis);
  EXPECT_EQ(f[7].type().logical_type().kind, LogicalKind::kTimeMicros);
  EXPECT_EQ(f[8].type().type(), AvroType::kString);
  EXPECT_EQ(f[8].type().logical_type().kind, LogicalKind::kUuid);
  EXPECT_EQ(f[9].type().type(), AvroType::kBytes);
  EXPECT_TRUE(c.notes.empty()) << ::testing::PrintToString(NoteTexts(c.notes));
}

TEST(AvroFromModelTest, NotesWhatAvroCannotHold) {
  auto schema =
      Schema::Make({F("tiny", Type::Int8(), false), F("short", Type::Int16(), false),
                    F("code", Type::Char(3).value(), false),
                    F("name", Type::Varchar(20).value(), false),
                    F("ns", Type::Time(TimeUnit::kNanos), false),
                    F("by_id", Type::Map(Type::Int64(), Type::String(), false).value(), false),
                    F("bad_default", Type::Int32(), false)
                        .set_default_value(JsonValue::String("not a number"))})
          .value();
  Converted<std::string> c = MustWrite(*schema);
  const auto& n = c.notes;
  EXPECT_TRUE(HasNote(n, "tiny", "int8 written as Avro int"));
  EXPECT_TRUE(HasNote(n, "short", "int16 written as Avro int"));
  EXPECT_TRUE(HasNote(n, "code", "char(3) written as Avro string"));
  EXPECT_TRUE(HasNote(n, "name", "varchar(20) written as Avro string"));
  EXPECT_TRUE(HasNote(n, "ns", "Avro has no time-nanos"));
  EXPECT_TRUE(HasNote(n, "by_id", "map keys of type int64 written as strings"));
  EXPECT_TRUE(HasNote(n, "bad_default", "default \"not a number\" is not kept"));
  AvroSchema avro = Parse(c.value).value();
  EXPECT_EQ(avro.root().FindField("by_id")->type().values().type(), AvroType::kString);
  EXPECT_FALSE(avro.root().FindField("bad_default")->default_value().has_value());
}

TEST(AvroFromModelTest, ConvertsDefaultsToAvroEncoding) {
  auto schema = Schema::Make({F("price", Type::Decimal(6, 2).value(), false)
                                  .set_default_value(JsonValue::NumberText("12.34")),
                              F("neg", Type::Decimal(4, 1).value(), false)
                                  .set_default_value(JsonValue::NumberText("-0.1")),
                              F("inexact", Type::Decimal(4, 1).value(), false)
                                  .set_default_value(JsonValue::NumberText("1.25"))})
                    .value();
  Converted<std::string> c = MustWrite(*schema);
  AvroSchema avro = Parse(c.value).value();
  // 1234 = 0x0004d2 in the 3 bytes of a decimal(6,2) fixed.
  EXPECT_EQ(avro.root().fields()[0].default_value()->as_string(), std::string("\0\x04\xc3\x92", 4));
  EXPECT_EQ(avro.root().fields()[1].default_value()->as_string(), "\u00ff\u00ff");
  EXPECT_FALSE(avro.root().fields()[2].default_value().has_value());
  EXPECT_TRUE(HasNote(c.notes, "inexact", "default 1.25 is not kept"));
  // And back.
  Converted<SchemaPtr> back = MustRead(c.value);
  EXPECT_EQ(ToJson(*back.value->fields()[0].default_value()), "12.34");
  EXPECT_EQ(ToJson(*back.value->fields()[1].default_value()), "-0.1");
}

TEST(AvroFromModelTest, StructDefaultsFollowAvroUnionRules) {
  // Nested nullable fields are written ["null", T], so inside a record default they take only
  // null; a default that needs another value there is dropped with a note.
  auto inner = Type::Struct({F("x", Type::Int32()), F("y", Type::Int32(), false)}).value();
  auto schema =
      Schema::Make(
          {F("ok", inner, false).set_default_value(ParseJson(R"({"x":null,"y":2})").value()),
           F("missing_ok", inner, false).set_default_value(ParseJson(R"({"y":2})").value()),
           F("not_ok", inner, false).set_default_value(ParseJson(R"({"x":1,"y":2})").value())})
          .value();
  Converted<std::string> c = MustWrite(*schema);
  AvroSchema avro = Parse(c.value).value();
  EXPECT_TRUE(avro.root().fields()[0].default_value().has_value());
  EXPECT_TRUE(avro.root().fields()[1].default_value().has_value());
  EXPECT_FALSE(avro.root().fields()[2].default_value().has_value());
  EXPECT_TRUE(HasNote(c.notes, "not_ok", "is not kept"));
}

TEST(AvroFromModelTest, MetadataBecomesFieldAttributesAndAliases) {
  JsonValue meta = ParseJson(R"({"pii":true,"avro.aliases":["old"],"type":"x"})").value();
  auto schema = Schema::Make({F("a", Type::Int32(), false).set_metadata(meta)}).value();
  Converted<std::string> c = MustWrite(*schema);
  EXPECT_EQ(c.value, R"({"type":"record","name":"topLevelRecord","fields":[)"
                     R"({"name":"a","type":"int","pii":true,"aliases":["old"]}]})");
  EXPECT_TRUE(HasNote(c.notes, "a", "metadata key \"type\" is not kept"));
}

TEST(AvroFromModelTest, RejectsNamesAvroDoesNotAllow) {
  auto bad_field = Schema::Make({F("my field", Type::Int32())}).value();
  auto r = WriteSchema(*bad_field);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message().find("\"my field\""), std::string::npos);
  auto bad_name = Schema::Make({F("a", Type::Int32())}, SchemaInfo{"9lives", "", {}}).value();
  EXPECT_FALSE(WriteSchema(*bad_name).has_value());
}

TEST(AvroFromModelTest, MakesNestedRecordNamesValidAndUnique) {
  // Records are named after their field, but a primitive type name cannot name a record.
  auto schema =
      Schema::Make({F("string", Type::Struct({F("x", Type::Int32(), false)}).value(), false),
                    F("record", Type::Struct({F("y", Type::Int32(), false)}).value(), false)})
          .value();
  Converted<std::string> c = MustWrite(*schema);
  AvroSchema avro = Parse(c.value).value();
  EXPECT_EQ(avro.root().FindField("string")->type().name(), "string_2");
  EXPECT_EQ(avro.root().FindField("record")->type().name(), "record");
}

TEST(AvroRoundTripTest, AvroToModelToAvroToModelIsStable) {
  for (std::string_view text : {kMovieActivityV1, kMovieActivityV2}) {
    Converted<SchemaPtr> first = MustRead(text);
    Converted<std::string> written = MustWrite(*first.value);
    Converted<SchemaPtr> second = MustRead(written.value);
    EXPECT_TRUE(second.value->Equals(*first.value))
        << first.value->struct_type()->ToString() << "\n"
        << second.value->struct_type()->ToString();
    EXPECT_EQ(second.value->info().name, first.value->info().name);
    EXPECT_EQ(second.value->info().namespace_name, first.value->info().namespace_name);
  }
}

TEST(AvroRoundTripTest, ModelToAvroToModelKeepsWhatAvroHolds) {
  auto item = Type::Struct({F("sku", Type::String(), false), F("qty", Type::Int32()),
                            F("price", Type::Decimal(12, 3).value(), false)})
                  .value();
  auto schema =
      Schema::Make(
          {F("order_id", Type::Int64(), false).set_doc("primary key"),
           F("placed_at", Type::Timestamp(TimeUnit::kMicros), false),
           F("local", Type::TimestampNtz(TimeUnit::kMillis)), F("day", Type::Date(), false),
           F("tod", Type::Time(TimeUnit::kMillis), false), F("id", Type::Uuid(), false),
           F("blob", Type::Binary(), false), F("ratio", Type::Float32(), false),
           F("amount", Type::Float64(), false),
           F("flag", Type::Boolean(), false).set_default_value(JsonValue::Bool(true)),
           F("items", Type::Array(item, true).value(), false),
           F("tags", Type::Map(Type::String(), Type::String(), false).value(), false),
           F("count", Type::Int32()).set_default_value(JsonValue::Int(0)),
           F("note", Type::String(), false)
               .set_metadata(ParseJson(R"({"avro.aliases":["remark"],"pii":false})").value())},
          SchemaInfo{"Order", "com.shop", std::string("An order")})
          .value();
  Converted<std::string> written = MustWrite(*schema, 2);
  EXPECT_TRUE(written.notes.empty()) << ::testing::PrintToString(NoteTexts(written.notes));
  Converted<SchemaPtr> back = MustRead(written.value);
  EXPECT_TRUE(back.value->Equals(*schema)) << schema->struct_type()->ToString() << "\n"
                                           << back.value->struct_type()->ToString() << "\n"
                                           << written.value;
  EXPECT_EQ(back.value->info().name, "Order");
  EXPECT_EQ(back.value->info().namespace_name, "com.shop");
  EXPECT_EQ(back.value->info().doc, "An order");
}

TEST(AvroRoundTripTest, NullableFieldsWriteDefaultNullAndReadBackWithout) {
  // Avro gives every nullable field "default": null, so a reader can drop it; reading it back
  // gives the model's implicit null again, so the round trip is exact.
  auto schema = Schema::Make({F("a", Type::Int32())}).value();
  Converted<std::string> written = MustWrite(*schema);
  EXPECT_NE(written.value.find(R"("default":null)"), std::string::npos) << written.value;
  Converted<SchemaPtr> back = MustRead(written.value);
  EXPECT_FALSE(back.value->fields()[0].default_value().has_value());
  EXPECT_TRUE(back.value->Equals(*schema));
}

}  // namespace
}  // namespace sluice::dialects::avro
