#include "sluice/dialects/jsonschema/json_schema.h"

#include <gtest/gtest.h>

#include <string>

#include "sluice/base/json_writer.h"

namespace sluice::dialects::jsonschema {
namespace {

JsonSchemaDocument MustParse(std::string_view text, const ParseOptions& options = {}) {
  auto doc = Parse(text, options);
  EXPECT_TRUE(doc.has_value()) << doc.error().ToString();
  if (!doc.has_value()) std::abort();
  return std::move(doc).value();
}

// The error message of a parse that must fail with `code`.
std::string ParseErrorOf(std::string_view text, ErrorCode code = ErrorCode::kInvalidArgument) {
  auto doc = Parse(text);
  EXPECT_FALSE(doc.has_value()) << text;
  if (doc.has_value()) return "";
  EXPECT_EQ(doc.error().code(), code) << doc.error().ToString();
  return doc.error().message();
}

const SchemaNode& Prop(const SchemaNode& node, std::string_view name) {
  const SchemaNode* p = FindSchema(*node.keywords().properties, name);
  EXPECT_NE(p, nullptr) << name;
  return *p;
}

TEST(JsonSchemaParseTest, ReadsBooleanSchemas) {
  auto t = MustParse("true");
  EXPECT_TRUE(t.root().is_boolean());
  EXPECT_TRUE(t.root().boolean_value());
  EXPECT_TRUE(t.root().accepts_everything());
  auto f = MustParse("false");
  EXPECT_TRUE(f.root().is_boolean());
  EXPECT_FALSE(f.root().boolean_value());
  EXPECT_FALSE(f.root().accepts_everything());
  auto e = MustParse("{}");
  EXPECT_TRUE(e.root().is_object());
  EXPECT_TRUE(e.root().is_empty_object());
  EXPECT_TRUE(e.root().accepts_everything());
}

TEST(JsonSchemaParseTest, KeepsCoreAndAnnotationKeywords) {
  auto doc = MustParse(R"({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://example.com/user.json",
    "$anchor": "top",
    "$comment": "for tests",
    "title": "User",
    "description": "A user",
    "default": {"a": 1},
    "examples": [{"a": 2}],
    "readOnly": true, "writeOnly": false, "deprecated": true,
    "$defs": {"x": {"type": "string"}},
    "definitions": {"y": true}
  })");
  const SchemaKeywords& k = doc.root().keywords();
  EXPECT_EQ(*k.schema_uri, "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(*k.id, "https://example.com/user.json");
  EXPECT_EQ(*k.anchor, "top");
  EXPECT_EQ(*k.comment, "for tests");
  EXPECT_EQ(*k.title, "User");
  EXPECT_EQ(*k.description, "A user");
  EXPECT_TRUE(k.default_value->Equals(*ParseJson(R"({"a":1})")));
  EXPECT_EQ(k.examples->size(), 1u);
  EXPECT_EQ(k.read_only, true);
  EXPECT_EQ(k.write_only, false);
  EXPECT_EQ(k.deprecated, true);
  ASSERT_EQ(k.defs->size(), 1u);
  EXPECT_EQ((*k.defs)[0].name, "x");
  EXPECT_EQ((*k.defs)[0].schema->pointer(), "#/$defs/x");
  ASSERT_EQ(k.definitions->size(), 1u);
  EXPECT_TRUE((*k.definitions)[0].schema->is_boolean());
  EXPECT_EQ(doc.root().base_uri(), "https://example.com/user.json");
}

TEST(JsonSchemaParseTest, KeepsTypeSingleAndArrayForm) {
  auto doc = MustParse(R"({"properties": {
      "a": {"type": "integer"},
      "b": {"type": ["string", "null"]},
      "c": {"type": ["number"]}}})");
  const TypeKeyword& a = *Prop(doc.root(), "a").keywords().type;
  EXPECT_FALSE(a.array_form);
  ASSERT_EQ(a.types.size(), 1u);
  EXPECT_EQ(a.types[0], InstanceType::kInteger);
  const TypeKeyword& b = *Prop(doc.root(), "b").keywords().type;
  EXPECT_TRUE(b.array_form);
  EXPECT_TRUE(b.Contains(InstanceType::kString));
  EXPECT_TRUE(b.Contains(InstanceType::kNull));
  EXPECT_FALSE(b.Contains(InstanceType::kInteger));
  EXPECT_TRUE(Prop(doc.root(), "c").keywords().type->array_form);
}

TEST(JsonSchemaParseTest, KeepsObjectKeywords) {
  auto doc = MustParse(R"({
    "type": "object",
    "properties": {"b": {"type": "string"}, "a": {"type": "number"}},
    "required": ["a"],
    "additionalProperties": {"type": "integer"},
    "patternProperties": {"^S_": {"type": "string"}, "^I_": false},
    "propertyNames": {"maxLength": 3},
    "unevaluatedProperties": false,
    "minProperties": 1, "maxProperties": 2.0,
    "dependentRequired": {"a": ["b"]},
    "dependentSchemas": {"b": {"required": ["a"]}}
  })");
  const SchemaKeywords& k = doc.root().keywords();
  ASSERT_EQ(k.properties->size(), 2u);
  // Document order, not sorted.
  EXPECT_EQ((*k.properties)[0].name, "b");
  EXPECT_EQ((*k.properties)[1].name, "a");
  EXPECT_EQ(*k.required, std::vector<std::string>{"a"});
  ASSERT_NE(k.additional_properties, nullptr);
  EXPECT_EQ(k.additional_properties->pointer(), "#/additionalProperties");
  ASSERT_EQ(k.pattern_properties->size(), 2u);
  EXPECT_TRUE((*k.pattern_properties)[1].schema->is_boolean());
  EXPECT_EQ(*k.property_names->keywords().max_length, 3u);
  EXPECT_FALSE(k.unevaluated_properties->boolean_value());
  EXPECT_EQ(k.min_properties, 1u);
  EXPECT_EQ(k.max_properties, 2u);
  ASSERT_EQ(k.dependent_required->size(), 1u);
  EXPECT_EQ((*k.dependent_required)[0].required, std::vector<std::string>{"b"});
  ASSERT_EQ(k.dependent_schemas->size(), 1u);
}

TEST(JsonSchemaParseTest, KeepsBothFormsOfDraft7Dependencies) {
  auto doc = MustParse(R"({"$schema": "http://json-schema.org/draft-07/schema#",
                           "dependencies": {"a": ["b", "c"], "d": {"type": "object"}}})");
  const auto& deps = *doc.root().keywords().dependencies;
  ASSERT_EQ(deps.size(), 2u);
  EXPECT_EQ(deps[0].property, "a");
  EXPECT_EQ(*deps[0].required, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(deps[0].schema, nullptr);
  EXPECT_FALSE(deps[1].required.has_value());
  ASSERT_NE(deps[1].schema, nullptr);
  EXPECT_EQ(deps[1].schema->pointer(), "#/dependencies/d");
}

TEST(JsonSchemaParseTest, KeepsArrayKeywords) {
  auto doc = MustParse(R"({
    "type": "array",
    "prefixItems": [{"type": "string"}, true],
    "items": {"type": "number"},
    "unevaluatedItems": false,
    "contains": {"const": 1}, "minContains": 1, "maxContains": 3,
    "minItems": 0, "maxItems": 10, "uniqueItems": true
  })");
  const SchemaKeywords& k = doc.root().keywords();
  ASSERT_EQ(k.prefix_items->size(), 2u);
  EXPECT_EQ((*k.prefix_items)[1]->pointer(), "#/prefixItems/1");
  ASSERT_NE(k.items, nullptr);
  EXPECT_FALSE(k.items_tuple.has_value());
  EXPECT_FALSE(k.unevaluated_items->boolean_value());
  EXPECT_TRUE(k.contains->keywords().const_value->Equals(JsonValue::Int(1)));
  EXPECT_EQ(k.min_contains, 1u);
  EXPECT_EQ(k.max_contains, 3u);
  EXPECT_EQ(k.min_items, 0u);
  EXPECT_EQ(k.max_items, 10u);
  EXPECT_EQ(k.unique_items, true);
  EXPECT_TRUE(doc.warnings().empty());
}

TEST(JsonSchemaParseTest, ReadsDraft7ItemsArrayAsTuple) {
  auto doc = MustParse(R"({"$schema": "http://json-schema.org/draft-07/schema#",
                           "items": [{"type": "string"}, {"type": "number"}],
                           "additionalItems": {"type": "string"}})");
  EXPECT_EQ(doc.draft(), Draft::kDraft7);
  EXPECT_TRUE(doc.draft_declared());
  const SchemaKeywords& k = doc.root().keywords();
  EXPECT_EQ(k.items, nullptr);
  ASSERT_EQ(k.items_tuple->size(), 2u);
  EXPECT_EQ((*k.items_tuple)[1]->pointer(), "#/items/1");
  EXPECT_EQ(k.additional_items->pointer(), "#/additionalItems");
  EXPECT_TRUE(doc.warnings().empty());
}

TEST(JsonSchemaParseTest, WarnsAboutItemsArrayIn2020_12) {
  // No $schema: read as 2020-12, where an items array is not defined; still kept as a tuple.
  auto doc = MustParse(R"({"items": [{"type": "string"}]})");
  EXPECT_EQ(doc.draft(), Draft::k2020_12);
  EXPECT_FALSE(doc.draft_declared());
  EXPECT_EQ(doc.root().keywords().items_tuple->size(), 1u);
  ASSERT_EQ(doc.warnings().size(), 1u);
  EXPECT_NE(doc.warnings()[0].find("#/items"), std::string::npos);

  ParseOptions draft7;
  draft7.default_draft = Draft::kDraft7;
  auto old = MustParse(R"({"items": [{"type": "string"}]})", draft7);
  EXPECT_EQ(old.draft(), Draft::kDraft7);
  EXPECT_TRUE(old.warnings().empty());
}

TEST(JsonSchemaParseTest, DetectsDraftFromSchemaUri) {
  EXPECT_EQ(MustParse(R"({"$schema":"http://json-schema.org/draft-04/schema#"})").draft(),
            Draft::kDraft4);
  EXPECT_EQ(MustParse(R"({"$schema":"http://json-schema.org/draft-06/schema"})").draft(),
            Draft::kDraft6);
  EXPECT_EQ(MustParse(R"({"$schema":"https://json-schema.org/draft-07/schema#"})").draft(),
            Draft::kDraft7);
  EXPECT_EQ(MustParse(R"({"$schema":"https://json-schema.org/draft/2019-09/schema"})").draft(),
            Draft::k2019_09);
  EXPECT_EQ(MustParse(R"({"$schema":"https://json-schema.org/draft/2020-12/schema"})").draft(),
            Draft::k2020_12);
  auto unknown = MustParse(R"({"$schema":"https://example.com/my-meta"})");
  EXPECT_EQ(unknown.draft(), Draft::k2020_12);
  EXPECT_FALSE(unknown.draft_declared());
  ASSERT_EQ(unknown.warnings().size(), 1u);
  EXPECT_NE(unknown.warnings()[0].find("unknown meta-schema"), std::string::npos);
}

TEST(JsonSchemaParseTest, KeepsStringAndNumberKeywords) {
  auto doc = MustParse(R"({
    "minLength": 1, "maxLength": 20, "pattern": "^[a-z]+$", "format": "email",
    "contentEncoding": "base64", "contentMediaType": "image/png",
    "contentSchema": {"type": "object"},
    "minimum": 0, "maximum": 1e3, "exclusiveMinimum": -1, "exclusiveMaximum": 1000.5,
    "multipleOf": 0.01
  })");
  const SchemaKeywords& k = doc.root().keywords();
  EXPECT_EQ(k.min_length, 1u);
  EXPECT_EQ(k.max_length, 20u);
  EXPECT_EQ(*k.pattern, "^[a-z]+$");
  EXPECT_EQ(*k.format, "email");
  EXPECT_EQ(*k.content_encoding, "base64");
  EXPECT_EQ(*k.content_media_type, "image/png");
  ASSERT_NE(k.content_schema, nullptr);
  EXPECT_EQ(k.minimum->AsInt64(), 0);
  // Numbers keep their source text.
  EXPECT_EQ(k.maximum->text, "1e3");
  EXPECT_EQ(k.maximum->value, 1000);
  EXPECT_EQ(k.exclusive_minimum->value, -1);
  EXPECT_EQ(k.exclusive_maximum->text, "1000.5");
  EXPECT_EQ(k.multiple_of->text, "0.01");
  EXPECT_FALSE(k.exclusive_minimum_flag.has_value());
}

TEST(JsonSchemaParseTest, KeepsDraft4BooleanExclusiveBounds) {
  auto doc = MustParse(R"({"$schema": "http://json-schema.org/draft-04/schema#",
                           "minimum": 0, "exclusiveMinimum": true,
                           "maximum": 5, "exclusiveMaximum": false})");
  const SchemaKeywords& k = doc.root().keywords();
  EXPECT_EQ(k.exclusive_minimum_flag, true);
  EXPECT_EQ(k.exclusive_maximum_flag, false);
  EXPECT_FALSE(k.exclusive_minimum.has_value());
  EXPECT_TRUE(doc.warnings().empty());
}

TEST(JsonSchemaParseTest, KeepsCombinatorsAndConditionals) {
  auto doc = MustParse(R"({
    "allOf": [{"type": "object"}], "anyOf": [{"type": "string"}, {"type": "null"}],
    "oneOf": [true, false], "not": {"const": 3},
    "if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": false,
    "enum": ["x", 1, null], "const": "x"
  })");
  const SchemaKeywords& k = doc.root().keywords();
  EXPECT_EQ(k.all_of->size(), 1u);
  EXPECT_EQ(k.any_of->size(), 2u);
  EXPECT_EQ((*k.any_of)[1]->pointer(), "#/anyOf/1");
  EXPECT_EQ(k.one_of->size(), 2u);
  EXPECT_TRUE(k.not_schema->keywords().const_value->Equals(JsonValue::Int(3)));
  ASSERT_NE(k.if_schema, nullptr);
  ASSERT_NE(k.then_schema, nullptr);
  EXPECT_TRUE(k.else_schema->is_boolean());
  EXPECT_EQ(k.enum_values->size(), 3u);
  EXPECT_TRUE(k.const_value->Equals(JsonValue::String("x")));
}

TEST(JsonSchemaParseTest, KeepsUnknownKeywordsInOrder) {
  auto doc = MustParse(R"({"type": "string", "connect.type": "bytes", "x-z": {"a": [1]},
                           "x-a": 1})");
  const auto& unknown = doc.root().keywords().unknown;
  ASSERT_EQ(unknown.size(), 3u);
  EXPECT_EQ(unknown[0]->key, "connect.type");
  EXPECT_EQ(unknown[1]->key, "x-z");
  EXPECT_EQ(unknown[2]->key, "x-a");
  EXPECT_EQ(doc.root().keywords().FindUnknown("connect.type")->as_string(), "bytes");
  EXPECT_EQ(doc.root().keywords().FindUnknown("nope"), nullptr);
}

TEST(JsonSchemaParseTest, KeepsRawJsonOfEachNode) {
  std::string text = R"({"properties": {"a": {"type": "string", "maxLength": 3}}})";
  auto doc = MustParse(text);
  const SchemaNode& a = Prop(doc.root(), "a");
  EXPECT_EQ(ToJson(a.raw()), R"({"type":"string","maxLength":3})");
  EXPECT_EQ(a.offset(), text.find("{\"type\""));
  EXPECT_EQ(a.pointer(), "#/properties/a");
  EXPECT_EQ(doc.FindByPointer("#/properties/a"), &a);
  EXPECT_EQ(&doc.node(a.index()), &a);
}

TEST(JsonSchemaParseTest, ListsSubschemasInDocumentOrder) {
  auto doc = MustParse(R"({"items": {"type": "string"},
                           "properties": {"x/y": true, "b": false},
                           "allOf": [{}]})");
  const auto& subs = doc.root().Subschemas();
  ASSERT_EQ(subs.size(), 4u);
  EXPECT_EQ(subs[0].location, "items");
  EXPECT_EQ(subs[1].location, "properties/x~1y");
  EXPECT_EQ(subs[1].node->pointer(), "#/properties/x~1y");
  EXPECT_EQ(subs[2].location, "properties/b");
  EXPECT_EQ(subs[3].location, "allOf/0");
}

TEST(JsonSchemaParseTest, ReadsTrailingCommasOnlyWhenAsked) {
  std::string text = R"({"type": "object", "properties": {"a": {"type": "string"},},})";
  EXPECT_FALSE(Parse(text).has_value());
  ParseOptions lenient;
  lenient.allow_trailing_commas = true;
  EXPECT_TRUE(Parse(text, lenient).has_value());
}

// --- $ref ---------------------------------------------------------------------------------------

TEST(JsonSchemaRefTest, ResolvesDefsAndDefinitions) {
  auto doc = MustParse(R"({
    "properties": {"a": {"$ref": "#/$defs/x"}, "b": {"$ref": "#/definitions/y"},
                   "c": {"$ref": "#"}},
    "$defs": {"x": {"type": "string"}}, "definitions": {"y": {"type": "integer"}}})");
  const SchemaNode& a = Prop(doc.root(), "a");
  ASSERT_NE(a.ref_target(), nullptr);
  EXPECT_EQ(a.ref_target()->pointer(), "#/$defs/x");
  EXPECT_EQ(*doc.ResolveRef(a), a.ref_target());
  EXPECT_EQ(Prop(doc.root(), "b").ref_target()->pointer(), "#/definitions/y");
  EXPECT_EQ(Prop(doc.root(), "c").ref_target(), &doc.root());
  EXPECT_FALSE(a.is_external_ref());
}

TEST(JsonSchemaRefTest, DecodesPointerEscapesAndPercentEncoding) {
  auto doc = MustParse(R"({
    "$defs": {"a/b": {"type": "string"}, "c~d": {"type": "integer"}, "e f": {"type": "null"},
              "%": {"type": "boolean"}},
    "properties": {
      "slash": {"$ref": "#/$defs/a~1b"},
      "tilde": {"$ref": "#/$defs/c~0d"},
      "space": {"$ref": "#/$defs/e%20f"},
      "percent": {"$ref": "#/$defs/%25"}}})");
  EXPECT_EQ(Prop(doc.root(), "slash").ref_target()->pointer(), "#/$defs/a~1b");
  EXPECT_EQ(Prop(doc.root(), "tilde").ref_target()->pointer(), "#/$defs/c~0d");
  EXPECT_EQ(Prop(doc.root(), "space").ref_target()->pointer(), "#/$defs/e f");
  EXPECT_EQ(Prop(doc.root(), "percent").ref_target()->pointer(), "#/$defs/%");
}

TEST(JsonSchemaRefTest, ResolvesPointersThroughArraysAndUnknownKeywords) {
  auto doc = MustParse(R"({
    "anyOf": [{"type": "string"}, {"type": "integer"}],
    "components": {"schemas": {"Pet": {"type": "object"}}},
    "properties": {"first": {"$ref": "#/anyOf/1"},
                   "pet": {"$ref": "#/components/schemas/Pet"}}})");
  EXPECT_EQ(Prop(doc.root(), "first").ref_target()->pointer(), "#/anyOf/1");
  const SchemaNode* pet = Prop(doc.root(), "pet").ref_target();
  ASSERT_NE(pet, nullptr);
  // A schema inside an unknown keyword is parsed when a $ref reaches it.
  EXPECT_EQ(pet->pointer(), "#/components/schemas/Pet");
  EXPECT_EQ(pet->keywords().type->types[0], InstanceType::kObject);
}

TEST(JsonSchemaRefTest, ResolvesAnchorsAndEmbeddedIds) {
  auto doc = MustParse(R"({
    "$id": "https://example.com/root.json",
    "$defs": {
      "name": {"$anchor": "name", "type": "string"},
      "address": {"$id": "address.json", "type": "object",
                  "properties": {"zip": {"$ref": "#/$defs/zip"}},
                  "$defs": {"zip": {"type": "string", "maxLength": 5}}},
      "old": {"$id": "#legacy", "type": "integer"}
    },
    "properties": {
      "n": {"$ref": "#name"},
      "a": {"$ref": "address.json"},
      "z": {"$ref": "https://example.com/address.json#/$defs/zip"},
      "l": {"$ref": "#legacy"}}})");
  EXPECT_EQ(Prop(doc.root(), "n").ref_target()->pointer(), "#/$defs/name");
  EXPECT_EQ(Prop(doc.root(), "a").ref_target()->pointer(), "#/$defs/address");
  EXPECT_EQ(Prop(doc.root(), "z").ref_target()->pointer(), "#/$defs/address/$defs/zip");
  EXPECT_EQ(Prop(doc.root(), "l").ref_target()->pointer(), "#/$defs/old");
  // Inside address.json, "#/$defs/zip" is relative to that resource.
  const SchemaNode& address = *doc.FindByPointer("#/$defs/address");
  EXPECT_EQ(address.base_uri(), "https://example.com/address.json");
  EXPECT_EQ(Prop(address, "zip").ref_target()->pointer(), "#/$defs/address/$defs/zip");
  EXPECT_EQ(Prop(address, "zip").ref_uri(), "https://example.com/address.json#/$defs/zip");
}

TEST(JsonSchemaRefTest, KeepsExternalRefsUnresolvedAndReportsThem) {
  auto doc = MustParse(R"({"$id": "https://example.com/a/root.json",
                           "properties": {"x": {"$ref": "../other.json#/$defs/y"}}})");
  const SchemaNode& x = Prop(doc.root(), "x");
  EXPECT_TRUE(x.is_external_ref());
  EXPECT_EQ(x.ref_target(), nullptr);
  EXPECT_EQ(x.ref_uri(), "https://example.com/other.json#/$defs/y");
  auto r = doc.ResolveRef(x);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kUnimplemented);
  EXPECT_NE(r.error().message().find("#/properties/x"), std::string::npos);
  EXPECT_NE(r.error().message().find("https://example.com/other.json#/$defs/y"), std::string::npos);
}

TEST(JsonSchemaRefTest, ResolvesArbitraryRefsFromANode) {
  auto doc = MustParse(R"({"$defs": {"a": {"type": "string"}}, "properties": {"p": true}})");
  const SchemaNode& p = Prop(doc.root(), "p");
  EXPECT_EQ((*doc.ResolveRef("#/$defs/a", p))->pointer(), "#/$defs/a");
  EXPECT_EQ(doc.ResolveRef("#/$defs/missing", p).error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(doc.ResolveRef("other.json", p).error().code(), ErrorCode::kUnimplemented);
  EXPECT_EQ(doc.ResolveRef("#/$defs/a~2", p).error().code(), ErrorCode::kInvalidArgument);
}

TEST(JsonSchemaRefTest, AllowsRecursiveSchemasThatDescend) {
  // A tree: the $ref is under properties/items, so each step consumes part of the value.
  auto doc = MustParse(R"({"$defs": {"node": {"type": "object", "properties": {
      "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
      "$ref": "#/$defs/node"})");
  const SchemaNode& node = *doc.FindByPointer("#/$defs/node");
  const SchemaNode& items = *Prop(node, "children").keywords().items;
  EXPECT_EQ(items.ref_target(), &node);
}

TEST(JsonSchemaRefTest, RejectsRefLoopsThatNeverDescend) {
  std::string m = ParseErrorOf(R"({"$defs": {"a": {"$ref": "#/$defs/b"},
                                             "b": {"$ref": "#/$defs/a"}}})");
  EXPECT_NE(m.find("$ref loop"), std::string::npos) << m;
  EXPECT_NE(m.find("#/$defs/a -> #/$defs/b -> #/$defs/a"), std::string::npos) << m;
  EXPECT_NE(ParseErrorOf(R"({"$ref": "#"})").find("$ref loop"), std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"anyOf": [{"type": "string"}, {"$ref": "#"}]})").find("$ref loop"),
            std::string::npos);
}

TEST(JsonSchemaRefTest, HandlesLongRefChainsWithoutRecursing) {
  std::string text = R"({"$ref": "#/$defs/d0", "$defs": {)";
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    text +=
        "\"d" + std::to_string(i) + "\": {\"$ref\": \"#/$defs/d" + std::to_string(i + 1) + "\"},";
  }
  text += "\"d" + std::to_string(n) + "\": {\"type\": \"string\"}}}";
  auto doc = MustParse(text);
  EXPECT_EQ(doc.root().ref_target()->pointer(), "#/$defs/d0");
  // Closing the chain into a loop is found, also without deep recursion.
  std::string loop = text;
  loop.replace(loop.rfind("{\"type\": \"string\"}"), 18, "{\"$ref\": \"#/$defs/d0\"}");
  EXPECT_NE(ParseErrorOf(loop).find("$ref loop"), std::string::npos);
}

TEST(JsonSchemaRefTest, RejectsRefsToNothing) {
  std::string m = ParseErrorOf(R"({"properties": {"a": {"$ref": "#/$defs/missing"}}})");
  EXPECT_NE(m.find("#/properties/a/$ref"), std::string::npos) << m;
  EXPECT_NE(m.find("points at nothing"), std::string::npos) << m;
  EXPECT_NE(ParseErrorOf(R"({"$ref": "#nope"})").find("points at nothing"), std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"required": ["a"], "$ref": "#/required"})").find("not a schema"),
            std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"$ref": "#/a~x"})").find("not a valid JSON pointer"),
            std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"$ref": "#/%zz"})").find("not a valid JSON pointer"),
            std::string::npos);
}

// --- hostile input ----------------------------------------------------------------------------

TEST(JsonSchemaHostileTest, RejectsEmptyAndTruncatedText) {
  EXPECT_FALSE(ParseErrorOf("", ErrorCode::kParseError).empty());
  std::string m =
      ParseErrorOf(R"({"type": "object", "properties": {"a": )", ErrorCode::kParseError);
  EXPECT_NE(m.find("offset"), std::string::npos) << m;
}

TEST(JsonSchemaHostileTest, RejectsDeepNestingWithoutCrashing) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"not\":";
  deep += "true";
  for (int i = 0; i < 100000; ++i) deep += "}";
  EXPECT_NE(ParseErrorOf(deep, ErrorCode::kParseError).find("nesting"), std::string::npos);
  std::string arrays(100000, '[');
  EXPECT_FALSE(Parse(arrays).has_value());
}

TEST(JsonSchemaHostileTest, NamesThePointerOfAKeywordOfTheWrongType) {
  std::string m = ParseErrorOf(R"({"properties": {"a": {"required": 5}}})");
  EXPECT_NE(m.find("#/properties/a/required"), std::string::npos) << m;
  EXPECT_NE(m.find("expected an array of strings, found integer"), std::string::npos) << m;
  EXPECT_NE(m.find("line 1"), std::string::npos) << m;

  EXPECT_NE(ParseErrorOf(R"({"items": {"properties": {"b": 3}}})").find("#/items/properties/b"),
            std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"required": ["a", 2]})").find("#/required/1"), std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"type": "strin"})").find("unknown type \"strin\""), std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"type": ["string", 1]})").find("#/type/1"), std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"minLength": -1})").find("non-negative integer"), std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"maxItems": 1.5})").find("#/maxItems"), std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"multipleOf": 0})").find("greater than 0"), std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"allOf": {}})").find("#/allOf"), std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"enum": "a"})").find("#/enum"), std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"$ref": 1})").find("#/$ref"), std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"$schema": 7})").find("#/$schema"), std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"dependencies": {"a": 1}})").find("#/dependencies/a"),
            std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"not": "x"})").find("a schema (object or boolean)"),
            std::string::npos);
  EXPECT_NE(ParseErrorOf(R"({"maxLength": 99999999999999999999999})").find("too large"),
            std::string::npos);
  EXPECT_NE(ParseErrorOf("[1, 2]").find("an object or a boolean"), std::string::npos);
  EXPECT_NE(ParseErrorOf("\"x\"").find("found string"), std::string::npos);
}

TEST(JsonSchemaHostileTest, RejectsInvalidUtf8) {
  std::string bad = "{\"title\": \"a\xff\"}";
  EXPECT_FALSE(ParseErrorOf(bad, ErrorCode::kParseError).empty());
  std::string bad_key = "{\"properties\": {\"\xc3\x28\": true}}";
  EXPECT_FALSE(ParseErrorOf(bad_key, ErrorCode::kParseError).empty());
}

}  // namespace
}  // namespace sluice::dialects::jsonschema
