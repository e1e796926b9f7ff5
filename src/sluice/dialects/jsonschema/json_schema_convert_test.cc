#include "sluice/dialects/jsonschema/json_schema_convert.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"

namespace sluice::dialects::jsonschema {
namespace {

using schema::Converted;
using schema::Field;
using schema::FieldPath;
using schema::Schema;
using schema::SchemaPtr;
using schema::TimeUnit;
using schema::Type;
using schema::TypePtr;

Converted<SchemaPtr> MustRead(std::string_view text) {
  auto r = ReadSchema(text);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  if (!r.has_value()) std::abort();
  return std::move(r).value();
}

std::string TypeOf(const Converted<SchemaPtr>& c) { return c.value->struct_type()->ToString(); }

// True if some note at `path` contains `text`.
bool HasNote(const std::vector<schema::LossyNote>& notes, std::string_view path,
             std::string_view text) {
  for (const auto& n : notes) {
    if (n.path.ToString() == path && n.message.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string AllNotes(const std::vector<schema::LossyNote>& notes) {
  std::string out;
  for (const auto& n : notes) out += n.ToString() + "\n";
  return out;
}

TypePtr Must(Result<TypePtr> t) {
  EXPECT_TRUE(t.has_value()) << t.error().ToString();
  return *t;
}

SchemaPtr MustMake(std::vector<Field> fields, schema::SchemaInfo info = {}) {
  auto s = Schema::Make(std::move(fields), std::move(info));
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return *s;
}

JsonValue MustWrite(const Schema& s, WriteOptions options = {}) {
  auto w = FromSchema(s, options);
  EXPECT_TRUE(w.has_value()) << w.error().ToString();
  return w->value;
}

// --- seed scenario ------------------------------------------------------------------------------

constexpr const char* kUserMovieActivityV1 = R"({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "user_movie_activity",
  "type": "object",
  "properties": {
    "user_id": {"type": "integer"},
    "session_id": {"type": "string"},
    "movies_watched": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "movie_id": {"type": "integer"},
          "title": {"type": "string"},
          "duration_seconds": {"type": "integer"},
          "completed": {"type": "boolean"}
        }
      }
    }
  },
  "required": ["user_id"]
})";

constexpr const char* kUserMovieActivityV2 = R"({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "user_movie_activity",
  "type": "object",
  "properties": {
    "user_id": {"type": "integer"},
    "session_id": {"type": "string"},
    "movies_watched": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "movie_id": {"type": "string"},
          "title": {"type": "string"},
          "duration_seconds": {"type": "integer"},
          "completed": {"type": "boolean"},
          "rating": {"type": "number"}
        }
      }
    }
  },
  "required": ["user_id"]
})";

TEST(JsonSchemaToModelTest, ReadsTheSeedScenario) {
  auto v1 = MustRead(kUserMovieActivityV1);
  EXPECT_EQ(TypeOf(v1),
            "struct<user_id: int64 not null, session_id: string, movies_watched: "
            "array<struct<movie_id: int64, title: string, duration_seconds: int64, completed: "
            "boolean> not null>>");
  EXPECT_EQ(v1.value->info().name, "user_movie_activity");
  EXPECT_TRUE(v1.notes.empty()) << AllNotes(v1.notes);

  auto v2 = MustRead(kUserMovieActivityV2);
  EXPECT_EQ(TypeOf(v2),
            "struct<user_id: int64 not null, session_id: string, movies_watched: "
            "array<struct<movie_id: string, title: string, duration_seconds: int64, completed: "
            "boolean, rating: float64> not null>>");
  const Field* movie_id = v2.value->FindField(*FieldPath::Parse("movies_watched[].movie_id"));
  ASSERT_NE(movie_id, nullptr);
  EXPECT_EQ(movie_id->type()->kind(), schema::TypeKind::kString);
  EXPECT_TRUE(v2.notes.empty()) << AllNotes(v2.notes);
}

TEST(JsonSchemaToModelTest, SeedScenarioRoundTripsThroughTheModel) {
  for (const char* text : {kUserMovieActivityV1, kUserMovieActivityV2}) {
    auto read = MustRead(text);
    auto written = WriteSchema(*read.value);
    ASSERT_TRUE(written.has_value());
    EXPECT_TRUE(written->notes.empty());
    auto again = MustRead(written->value);
    EXPECT_TRUE(again.value->Equals(*read.value)) << written->value;
  }
}

// --- nullability -------------------------------------------------------------------------------

TEST(JsonSchemaToModelTest, FieldIsNotNullOnlyWhenRequiredAndNullIsNotAllowed) {
  auto c = MustRead(R"({"type": "object", "properties": {
      "req": {"type": "string"},
      "req_null": {"type": ["string", "null"]},
      "opt": {"type": "string"},
      "any_of_null": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
      "one_of_null": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/d"}]}},
    "required": ["req", "req_null", "any_of_null", "one_of_null"],
    "$defs": {"d": {"type": "string", "format": "date"}}})");
  EXPECT_EQ(TypeOf(c),
            "struct<req: string not null, req_null: string, opt: string, any_of_null: int64, "
            "one_of_null: date>");
  EXPECT_TRUE(c.notes.empty()) << AllNotes(c.notes);
}

// --- scalar types -------------------------------------------------------------------------------

TEST(JsonSchemaToModelTest, MapsScalarTypesAndFormats) {
  auto c = MustRead(R"({"type": "object", "properties": {
      "i": {"type": "integer"}, "n": {"type": "number"}, "b": {"type": "boolean"},
      "z": {"type": "null"}, "s": {"type": "string"},
      "d": {"type": "string", "format": "date"},
      "ts": {"type": "string", "format": "date-time"},
      "t": {"type": "string", "format": "time"},
      "u": {"type": "string", "format": "uuid"},
      "bin": {"type": "string", "contentEncoding": "base64"},
      "in": {"type": ["integer", "number"]}}})");
  EXPECT_EQ(TypeOf(c),
            "struct<i: int64, n: float64, b: boolean, z: null, s: string, d: date, ts: "
            "timestamp, t: time, u: uuid, bin: binary, in: float64>");
  EXPECT_TRUE(c.notes.empty()) << AllNotes(c.notes);
}

TEST(JsonSchemaToModelTest, ReadsIntegerWidthsFromExactBounds) {
  auto c = MustRead(R"({"type": "object", "properties": {
      "i8": {"type": "integer", "minimum": -128, "maximum": 127},
      "i16": {"type": "integer", "minimum": -32768, "maximum": 32767},
      "i32": {"type": "integer", "minimum": -2147483648, "maximum": 2147483647},
      "other": {"type": "integer", "minimum": 0, "maximum": 100}}})");
  EXPECT_EQ(TypeOf(c), "struct<i8: int8, i16: int16, i32: int32, other: int64>");
  EXPECT_TRUE(HasNote(c.notes, "other", "minimum 0 not kept (#/properties/other/minimum)"))
      << AllNotes(c.notes);
  EXPECT_TRUE(HasNote(c.notes, "other", "maximum 100 not kept"));
  EXPECT_EQ(c.notes.size(), 2u) << AllNotes(c.notes);
}

TEST(JsonSchemaToModelTest, HonoursKafkaConnectTypes) {
  auto c = MustRead(R"({"type": "object", "properties": {
      "i": {"type": "integer", "connect.type": "int16"},
      "f": {"type": "number", "connect.type": "float32"},
      "b": {"type": "string", "connect.type": "bytes"},
      "odd": {"type": "string", "connect.type": "int32"}}})");
  EXPECT_EQ(TypeOf(c), "struct<i: int16, f: float32, b: binary, odd: string>");
  EXPECT_TRUE(HasNote(c.notes, "odd", "connect.type \"int32\" not kept")) << AllNotes(c.notes);
  EXPECT_EQ(c.notes.size(), 1u) << AllNotes(c.notes);
}

TEST(JsonSchemaToModelTest, ReadsLengthBoundsAsCharAndVarchar) {
  auto c = MustRead(R"({"type": "object", "properties": {
      "v": {"type": "string", "maxLength": 20},
      "ch": {"type": "string", "minLength": 2, "maxLength": 2},
      "mixed": {"type": "string", "minLength": 1, "maxLength": 9},
      "min_only": {"type": "string", "minLength": 1}}})");
  EXPECT_EQ(TypeOf(c), "struct<v: varchar(20), ch: char(2), mixed: varchar(9), min_only: string>");
  EXPECT_TRUE(HasNote(c.notes, "mixed", "minLength 1 not kept"));
  EXPECT_TRUE(HasNote(c.notes, "min_only", "minLength 1 not kept"));
  EXPECT_EQ(c.notes.size(), 2u) << AllNotes(c.notes);
}

TEST(JsonSchemaToModelTest, NotesConstraintsTheModelCannotHold) {
  auto c = MustRead(R"({"type": "object", "properties": {
      "email": {"type": "string", "format": "email", "pattern": "@"},
      "price": {"type": "number", "multipleOf": 0.01, "exclusiveMinimum": 0},
      "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1,
               "uniqueItems": true},
      "vendor": {"type": "string", "x-vendor": true}}})");
  EXPECT_EQ(TypeOf(c),
            "struct<email: string, price: float64, tags: array<string not null>, vendor: "
            "string>");
  EXPECT_TRUE(HasNote(c.notes, "email", "format \"email\" not kept"));
  EXPECT_TRUE(HasNote(c.notes, "email", "pattern \"@\" not kept (#/properties/email/pattern)"));
  EXPECT_TRUE(HasNote(c.notes, "price", "multipleOf 0.01 not kept"));
  EXPECT_TRUE(HasNote(c.notes, "price", "exclusiveMinimum 0 not kept"));
  EXPECT_TRUE(HasNote(c.notes, "tags", "minItems 1 not kept"));
  EXPECT_TRUE(HasNote(c.notes, "tags", "uniqueItems true not kept"));
  EXPECT_TRUE(HasNote(c.notes, "vendor", "unknown keyword \"x-vendor\" not kept"));
}

TEST(JsonSchemaToModelTest, ReadsEnumAndConstAsTheirValuesType) {
  auto c = MustRead(R"({"type": "object", "properties": {
      "color": {"enum": ["red", "green"]},
      "level": {"enum": [1, 2, 3]},
      "ratio": {"enum": [1, 2.5]},
      "maybe": {"enum": ["a", null]},
      "fixed": {"const": true},
      "mixed": {"enum": ["a", 1]}}})");
  EXPECT_EQ(TypeOf(c),
            "struct<color: string, level: int64, ratio: float64, maybe: string, fixed: boolean, "
            "mixed: string>");
  EXPECT_TRUE(HasNote(c.notes, "color", "enum [\"red\",\"green\"] not kept"));
  EXPECT_TRUE(HasNote(c.notes, "fixed", "const true not kept"));
  EXPECT_TRUE(HasNote(c.notes, "mixed", "no single model type"));
}

TEST(JsonSchemaToModelTest, ReadsUnionsAndAnyValueAsJsonText) {
  auto c = MustRead(R"({"type": "object", "properties": {
      "union": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
      "types": {"type": ["string", "boolean"]},
      "any": {},
      "yes": true}})");
  EXPECT_EQ(TypeOf(c), "struct<union: string, types: string, any: string, yes: string>");
  EXPECT_TRUE(HasNote(c.notes, "union", "anyOf with 2 alternatives has no single model type"));
  EXPECT_TRUE(HasNote(c.notes, "types", "type boolean | string has no single model type"));
  EXPECT_TRUE(HasNote(c.notes, "any", "accepts any JSON value"));
  EXPECT_TRUE(HasNote(c.notes, "yes", "accepts any JSON value"));
}

TEST(JsonSchemaToModelTest, IgnoresConstraintOnlyAlternativesWithANote) {
  auto c = MustRead(R"({"type": "object", "properties": {"a": {"type": "string"},
      "b": {"type": "string"}}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]})");
  EXPECT_EQ(TypeOf(c), "struct<a: string, b: string>");
  EXPECT_TRUE(HasNote(c.notes, "", "2 of 2 oneOf alternatives without a type"))
      << AllNotes(c.notes);
}

// --- annotations --------------------------------------------------------------------------------

TEST(JsonSchemaToModelTest, KeepsDescriptionDefaultAndTitle) {
  auto c = MustRead(R"({"title": "Order", "description": "An order", "type": "object",
    "properties": {"qty": {"type": "integer", "description": "How many", "default": 1,
                           "title": "Quantity"}}})");
  EXPECT_EQ(c.value->info().name, "Order");
  EXPECT_EQ(c.value->info().doc, "An order");
  const Field& qty = c.value->fields()[0];
  EXPECT_EQ(qty.doc(), "How many");
  ASSERT_TRUE(qty.default_value().has_value());
  EXPECT_TRUE(qty.default_value()->Equals(JsonValue::Int(1)));
  EXPECT_EQ(qty.metadata().Find("title")->as_string(), "Quantity");
  EXPECT_TRUE(c.notes.empty()) << AllNotes(c.notes);
}

TEST(JsonSchemaToModelTest, NotesAnnotationsOnValuesThatAreNotFields) {
  auto c = MustRead(R"({"type": "object", "properties": {"xs": {"type": "array",
      "items": {"type": "string", "description": "one x"}}}})");
  EXPECT_TRUE(HasNote(c.notes, "xs[]", "description \"one x\" not kept")) << AllNotes(c.notes);
}

// --- objects, arrays, maps ----------------------------------------------------------------------

TEST(JsonSchemaToModelTest, ReadsMapsFromAdditionalProperties) {
  auto c = MustRead(R"({"type": "object", "properties": {
      "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
      "nullable_values": {"type": "object", "additionalProperties": {"type": ["string", "null"]}},
      "open": {"type": "object"},
      "by_pattern": {"type": "object", "patternProperties": {"^x-": {"type": "boolean"}}}}})");
  EXPECT_EQ(TypeOf(c),
            "struct<counts: map<string, int64 not null>, nullable_values: map<string, string>, "
            "open: map<string, string>, by_pattern: map<string, boolean not null>>");
  EXPECT_TRUE(HasNote(c.notes, "open", "without declared properties read as map<string, string>"));
  EXPECT_TRUE(HasNote(c.notes, "by_pattern", "keys match \"^x-\""));
}

TEST(JsonSchemaToModelTest, NotesWhatAStructCannotSayAboutOtherProperties) {
  auto c = MustRead(R"({"type": "object", "properties": {"a": {"type": "string"}},
      "additionalProperties": false, "required": ["a", "ghost"]})");
  EXPECT_EQ(TypeOf(c), "struct<a: string not null>");
  EXPECT_TRUE(HasNote(c.notes, "", "additionalProperties false (a closed object) not kept"));
  EXPECT_TRUE(HasNote(c.notes, "", "required property \"ghost\" is not declared"));
}

TEST(JsonSchemaToModelTest, InfersObjectAndArrayWithoutType) {
  auto c = MustRead(R"({"properties": {"o": {"properties": {"x": {"type": "integer"}}},
                                       "a": {"items": {"type": "string"}}}})");
  EXPECT_EQ(TypeOf(c), "struct<o: struct<x: int64>, a: array<string not null>>");
}

TEST(JsonSchemaToModelTest, ReadsTuplesAsTheirCommonTypeOrJsonText) {
  auto c = MustRead(R"({"type": "object", "properties": {
      "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}]},
      "mixed": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
      "bare": {"type": "array"}}})");
  EXPECT_EQ(TypeOf(c),
            "struct<pair: array<int64 not null>, mixed: array<string>, bare: array<string>>");
  EXPECT_TRUE(HasNote(c.notes, "pair", "read as array<int64>")) << AllNotes(c.notes);
  EXPECT_TRUE(HasNote(c.notes, "mixed", "with different types read as array<string>"));
  EXPECT_TRUE(HasNote(c.notes, "bare", "without items"));

  auto draft7 = MustRead(R"({"$schema": "http://json-schema.org/draft-07/schema#",
      "type": "object", "properties": {"t": {"type": "array",
      "items": [{"type": "string"}], "additionalItems": {"type": "string"}}}})");
  EXPECT_EQ(TypeOf(draft7), "struct<t: array<string not null>>");
  EXPECT_TRUE(HasNote(draft7.notes, "t", "a tuple (items of 1 positions)"));
}

TEST(JsonSchemaToModelTest, MergesAllOfObjects) {
  auto c = MustRead(R"({"allOf": [
      {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
      {"type": "object", "properties": {"b": {"type": "integer"},
                                        "a": {"maxLength": 5}}}]})");
  EXPECT_EQ(TypeOf(c), "struct<a: varchar(5) not null, b: int64>");
  EXPECT_TRUE(HasNote(c.notes, "", "allOf of 2 schemas merged into one type (#/allOf)"));
}

TEST(JsonSchemaToModelTest, DropsPropertiesThatCanNeverBePresent) {
  auto c = MustRead(R"({"type": "object", "properties": {"a": {"type": "string"}, "gone": false,
      "impossible": {"allOf": [{"type": "string"}, {"type": "integer"}]}}})");
  EXPECT_EQ(TypeOf(c), "struct<a: string>");
  EXPECT_TRUE(HasNote(c.notes, "gone", "can never be present"));
  EXPECT_TRUE(HasNote(c.notes, "impossible", "admit no type at all"));
}

TEST(JsonSchemaToModelTest, WrapsANonObjectRootAsValue) {
  auto c = MustRead(R"({"type": "array", "items": {"type": "integer"}})");
  EXPECT_EQ(TypeOf(c), "struct<value: array<int64 not null> not null>");
  EXPECT_TRUE(HasNote(c.notes, "", "wrapped as the single field `value`"));
  auto any = MustRead("true");
  EXPECT_EQ(TypeOf(any), "struct<value: string>");
  auto never = ReadSchema("false");
  ASSERT_FALSE(never.has_value());
  EXPECT_EQ(never.error().code(), ErrorCode::kInvalidArgument);
}

// --- $ref ---------------------------------------------------------------------------------------

TEST(JsonSchemaToModelTest, InlinesRefsAndPrefersTheReferringDescription) {
  auto c = MustRead(R"({"type": "object", "properties": {
      "home": {"$ref": "#/$defs/address", "description": "where they live"},
      "work": {"$ref": "#/$defs/address"}},
    "$defs": {"address": {"type": "object", "description": "an address",
                          "properties": {"city": {"type": "string"}}}}})");
  EXPECT_EQ(TypeOf(c), "struct<home: struct<city: string>, work: struct<city: string>>");
  EXPECT_EQ(c.value->fields()[0].doc(), "where they live");
  EXPECT_EQ(c.value->fields()[1].doc(), "an address");
}

TEST(JsonSchemaToModelTest, IgnoresDraft7KeywordsBesideRefWithANote) {
  auto c = MustRead(R"({"$schema": "http://json-schema.org/draft-07/schema#",
      "properties": {"a": {"$ref": "#/definitions/s", "maxLength": 3}},
      "definitions": {"s": {"type": "string"}}})");
  EXPECT_EQ(TypeOf(c), "struct<a: string>");
  EXPECT_TRUE(HasNote(c.notes, "a", "maxLength beside $ref ignored"));
  // 2020-12 applies them.
  auto modern = MustRead(R"({"properties": {"a": {"$ref": "#/$defs/s", "maxLength": 3}},
      "$defs": {"s": {"type": "string"}}})");
  EXPECT_EQ(TypeOf(modern), "struct<a: varchar(3)>");
}

TEST(JsonSchemaToModelTest, RefusesRecursiveAndExternalRefs) {
  auto recursive = ReadSchema(R"({"$defs": {"node": {"type": "object", "properties": {
      "next": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"})");
  ASSERT_FALSE(recursive.has_value());
  EXPECT_EQ(recursive.error().code(), ErrorCode::kUnimplemented);
  EXPECT_NE(recursive.error().message().find("#/$defs/node/properties/next/$ref"),
            std::string::npos)
      << recursive.error().message();
  EXPECT_NE(recursive.error().message().find("recursive"), std::string::npos);

  auto external = ReadSchema(R"({"properties": {"a": {"$ref": "common.json#/$defs/id"}}})");
  ASSERT_FALSE(external.has_value());
  EXPECT_EQ(external.error().code(), ErrorCode::kUnimplemented);
  EXPECT_NE(external.error().message().find("external"), std::string::npos);
}

TEST(JsonSchemaToModelTest, RefusesDeepAndExplodingExpansionsCleanly) {
  // Each definition nests the next: deeper than the model allows.
  std::string deep = R"({"$ref": "#/$defs/d0", "$defs": {)";
  for (int i = 0; i < 300; ++i) {
    deep += "\"d" + std::to_string(i) +
            "\": {\"type\": \"object\", \"properties\": {\"x\": " + "{\"$ref\": \"#/$defs/d" +
            std::to_string(i + 1) + "\"}}},";
  }
  deep += "\"d300\": {\"type\": \"string\"}}}";
  auto d = ReadSchema(deep);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().code(), ErrorCode::kInvalidArgument);

  // Each definition uses the next twice: 2^40 nodes once inlined.
  std::string wide = R"({"$ref": "#/$defs/d0", "$defs": {)";
  for (int i = 0; i < 40; ++i) {
    std::string next = "{\"$ref\": \"#/$defs/d" + std::to_string(i + 1) + "\"}";
    wide += "\"d" + std::to_string(i) +
            "\": {\"type\": \"object\", \"properties\": {\"a\": " + next + ", \"b\": " + next +
            "}},";
  }
  wide += "\"d40\": {\"type\": \"string\"}}}";
  auto w = ReadSchema(wide);
  ASSERT_FALSE(w.has_value());
  EXPECT_EQ(w.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(w.error().message().find("expands"), std::string::npos) << w.error().message();
}

TEST(JsonSchemaToModelTest, HandlesNestingAtTheJsonDepthLimitWithoutCrashing) {
  // 250 levels of allOf (two JSON levels each) stay under the parser's 512-level limit.
  std::string all_of;
  for (int i = 0; i < 250; ++i) all_of += "{\"allOf\": [";
  all_of += "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}}";
  for (int i = 0; i < 250; ++i) all_of += "]}";
  auto merged = ReadSchema(all_of);
  ASSERT_TRUE(merged.has_value()) << merged.error().ToString();
  EXPECT_EQ(TypeOf(*merged), "struct<a: string>");

  // 250 nested objects: deeper than the model's 128 levels, refused with the pointer.
  std::string objects;
  for (int i = 0; i < 250; ++i) objects += "{\"properties\": {\"x\": ";
  objects += "true";
  for (int i = 0; i < 250; ++i) objects += "}}";
  auto deep = ReadSchema(objects);
  ASSERT_FALSE(deep.has_value());
  EXPECT_EQ(deep.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(deep.error().message().find("#/properties/x/properties/x"), std::string::npos)
      << deep.error().message();
}

TEST(JsonSchemaToModelTest, ReportsParseWarningsAsNotes) {
  auto c = MustRead(R"({"type": "object", "properties": {"t": {"type": "array",
      "items": [{"type": "string"}]}}})");
  EXPECT_TRUE(HasNote(c.notes, "",
                      "#/properties/t/items: an array of schemas is the "
                      "pre-2020-12 tuple form"))
      << AllNotes(c.notes);
}

// --- model -> JSON Schema ----------------------------------------------------------------------

TEST(JsonSchemaFromModelTest, WritesStructsWithRequiredNonNullableFields) {
  auto s = MustMake({Field("id", Type::Int64(), false), Field("name", Type::String(), true)},
                    {"person", "", std::string("A person")});
  JsonValue out = MustWrite(*s);
  auto expected = ParseJson(R"({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "person", "description": "A person", "type": "object",
    "properties": {"id": {"type": "integer"}, "name": {"type": ["string", "null"]}},
    "required": ["id"]})");
  EXPECT_TRUE(out.Equals(*expected)) << ToJson(out);
  EXPECT_EQ(out.Find("additionalProperties"), nullptr);
  // Key order: $schema first, properties in field order.
  EXPECT_EQ(out.members()[0].key, "$schema");
  EXPECT_EQ(out.Find("properties")->members()[0].key, "id");
}

TEST(JsonSchemaFromModelTest, WritesEveryTypeKind) {
  auto s = MustMake({
      Field("i8", Type::Int8(), false),
      Field("i16", Type::Int16(), false),
      Field("i32", Type::Int32(), false),
      Field("f64", Type::Float64(), false),
      Field("b", Type::Boolean(), false),
      Field("bin", Type::Binary(), false),
      Field("d", Type::Date(), false),
      Field("ts", Type::Timestamp(), false),
      Field("t", Type::Time(), false),
      Field("u", Type::Uuid(), false),
      Field("c", Must(Type::Char(3)), false),
      Field("v", Must(Type::Varchar(10)), false),
      Field("n", Type::Null(), true),
      Field("arr", Must(Type::Array(Type::String(), true)), false),
      Field("m", Must(Type::Map(Type::String(), Type::Int64(), false)), false),
  });
  auto w = FromSchema(*s);
  ASSERT_TRUE(w.has_value());
  EXPECT_TRUE(w->notes.empty()) << AllNotes(w->notes);
  const JsonValue& p = *w->value.Find("properties");
  auto expect = [&](const char* name, const char* json) {
    auto e = ParseJson(json);
    ASSERT_TRUE(e.has_value()) << json;
    EXPECT_TRUE(p.Find(name)->Equals(*e)) << name << ": " << ToJson(*p.Find(name));
  };
  expect("i8", R"({"type": "integer", "minimum": -128, "maximum": 127})");
  expect("i16", R"({"type": "integer", "minimum": -32768, "maximum": 32767})");
  expect("i32", R"({"type": "integer", "minimum": -2147483648, "maximum": 2147483647})");
  expect("f64", R"({"type": "number"})");
  expect("b", R"({"type": "boolean"})");
  expect("bin", R"({"type": "string", "contentEncoding": "base64"})");
  expect("d", R"({"type": "string", "format": "date"})");
  expect("ts", R"({"type": "string", "format": "date-time"})");
  expect("t", R"({"type": "string", "format": "time"})");
  expect("u", R"({"type": "string", "format": "uuid"})");
  expect("c", R"({"type": "string", "minLength": 3, "maxLength": 3})");
  expect("v", R"({"type": "string", "maxLength": 10})");
  expect("n", R"({"type": "null"})");
  expect("arr", R"({"type": "array", "items": {"type": ["string", "null"]}})");
  expect("m", R"({"type": "object", "additionalProperties": {"type": "integer"}})");
}

TEST(JsonSchemaFromModelTest, NotesWhatJsonSchemaCannotHold) {
  auto s =
      MustMake({Field("f", Type::Float32()), Field("dec", Must(Type::Decimal(10, 2))),
                Field("ntz", Type::TimestampNtz()), Field("ms", Type::Timestamp(TimeUnit::kMillis)),
                Field("ns", Type::Time(TimeUnit::kNanos)),
                Field("m", Must(Type::Map(Type::Int32(), Type::String()))),
                Field("meta", Type::String()).set_metadata(*ParseJson(R"({"comment": "x"})"))},
               {"r", "com.example", std::nullopt});
  auto w = FromSchema(*s);
  ASSERT_TRUE(w.has_value());
  const auto& n = w->notes;
  EXPECT_TRUE(HasNote(n, "f", "float32 written as number")) << AllNotes(n);
  EXPECT_TRUE(HasNote(n, "dec", "decimal(10,2) written as number"));
  EXPECT_TRUE(HasNote(n, "ntz", "reads back as timestamp"));
  EXPECT_TRUE(HasNote(n, "ms", "does not carry the fractional-second precision"));
  EXPECT_TRUE(HasNote(n, "ns", "does not carry the fractional-second precision"));
  EXPECT_TRUE(HasNote(n, "m{key}", "map keys of type int32"));
  EXPECT_TRUE(HasNote(n, "meta", "field metadata \"comment\" not written"));
  EXPECT_TRUE(HasNote(n, "", "namespace \"com.example\" not written"));
  EXPECT_EQ(n.size(), 8u) << AllNotes(n);
}

TEST(JsonSchemaFromModelTest, WritesTheRequestedDraft) {
  auto s = MustMake({Field("a", Type::String())});
  EXPECT_EQ(MustWrite(*s, {Draft::kDraft7}).Find("$schema")->as_string(),
            "http://json-schema.org/draft-07/schema#");
  EXPECT_EQ(MustWrite(*s, {Draft::k2019_09}).Find("$schema")->as_string(),
            "https://json-schema.org/draft/2019-09/schema");
  auto old = FromSchema(*s, {Draft::kDraft4});
  ASSERT_FALSE(old.has_value());
  EXPECT_EQ(old.error().code(), ErrorCode::kInvalidArgument);
}

TEST(JsonSchemaFromModelTest, ClosesObjectsOnlyWhenAsked) {
  auto inner = Must(Type::Struct({Field("x", Type::Int64())}));
  auto s = MustMake({Field("o", inner)});
  EXPECT_EQ(MustWrite(*s).Find("additionalProperties"), nullptr);
  WriteOptions closed;
  closed.close_objects = true;
  JsonValue out = MustWrite(*s, closed);
  EXPECT_FALSE(out.Find("additionalProperties")->as_bool());
  EXPECT_FALSE(out.Find("properties")->Find("o")->Find("additionalProperties")->as_bool());
}

TEST(JsonSchemaFromModelTest, WriteSchemaIndentsAsAsked) {
  auto s = MustMake({Field("a", Type::Boolean(), false)});
  auto compact = WriteSchema(*s, Draft::k2020_12, 0);
  ASSERT_TRUE(compact.has_value());
  EXPECT_EQ(compact->value,
            R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",)"
            R"("properties":{"a":{"type":"boolean"}},"required":["a"]})");
  auto pretty = WriteSchema(*s);
  ASSERT_TRUE(pretty.has_value());
  EXPECT_NE(pretty->value.find("\n  \"type\": \"object\""), std::string::npos) << pretty->value;
}

TEST(JsonSchemaRoundTripTest, ModelSurvivesJsonSchemaOnTheSubsetItHolds) {
  Field with_details("qty", Type::Int32(), false);
  with_details.set_doc("How many").set_default_value(JsonValue::Int(1));
  with_details.set_metadata(*ParseJson(R"({"title": "Quantity"})"));
  auto address =
      Must(Type::Struct({Field("city", Type::String(), false), Field("zip", Must(Type::Char(5)))}));
  auto s = MustMake(
      {
          with_details,
          Field("i8", Type::Int8()),
          Field("i16", Type::Int16()),
          Field("i64", Type::Int64(), false),
          Field("f", Type::Float64()),
          Field("b", Type::Boolean()),
          Field("s", Type::String()),
          Field("v", Must(Type::Varchar(40))),
          Field("bin", Type::Binary()),
          Field("d", Type::Date()),
          Field("ts", Type::Timestamp()),
          Field("t", Type::Time()),
          Field("u", Type::Uuid(), false),
          Field("address", address),
          Field("tags", Must(Type::Array(Type::String(), false))),
          Field("nullable_items", Must(Type::Array(Type::Int64(), true)), false),
          Field("counts", Must(Type::Map(Type::String(), Type::Int64(), false))),
          Field("lists", Must(Type::Map(Type::String(), Must(Type::Array(address, true))))),
      },
      {"everything", "", std::string("all kinds")});
  for (Draft draft : {Draft::kDraft7, Draft::k2019_09, Draft::k2020_12}) {
    auto written = WriteSchema(*s, draft);
    ASSERT_TRUE(written.has_value());
    EXPECT_TRUE(written->notes.empty()) << AllNotes(written->notes);
    auto read = MustRead(written->value);
    EXPECT_TRUE(read.notes.empty()) << AllNotes(read.notes);
    EXPECT_TRUE(read.value->Equals(*s)) << written->value << "\n"
                                        << read.value->struct_type()->ToString();
    EXPECT_EQ(read.value->info().name, "everything");
    EXPECT_EQ(read.value->info().doc, "all kinds");
  }
}

}  // namespace
}  // namespace sluice::dialects::jsonschema
