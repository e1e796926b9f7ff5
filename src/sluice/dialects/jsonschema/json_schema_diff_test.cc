#include "sluice/dialects/jsonschema/json_schema_diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "sluice/dialects/jsonschema/json_schema.h"

namespace sluice::dialects::jsonschema {
namespace {

using T = DifferenceType;

// "TYPE #/path" lines, sorted: the differences as a multiset.
std::vector<std::string> Lines(const std::vector<Difference>& diffs) {
  std::vector<std::string> out;
  for (const Difference& d : diffs) {
    out.push_back(std::string(DifferenceTypeName(d.type)) + " " + d.json_path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Difference> Diff(std::string_view original, std::string_view update,
                             const CompareOptions& options = {}) {
  auto diffs = CompareSchemaTexts(original, update, options);
  EXPECT_TRUE(diffs.has_value()) << diffs.error().ToString();
  return diffs.has_value() ? *diffs : std::vector<Difference>{};
}

std::vector<std::string> DiffLines(std::string_view original, std::string_view update,
                                   const CompareOptions& options = {}) {
  return Lines(Diff(original, update, options));
}

CompareOptions Lenient() {
  CompareOptions o;
  o.policy = CompatibilityPolicy::kLenient;
  return o;
}

using Lines_ = std::vector<std::string>;

// --- Content models -----------------------------------------------------------------------------

TEST(JsonSchemaDiffTest, OptionalPropertyAddedToOpenContentModelIsIncompatibleUnderStrict) {
  auto diffs = Diff(R"({"properties": {"foo": {"type": "string"}}})",
                    R"({"properties": {"foo": {"type": "string"}, "bar": {"type": "number"}}})");
  EXPECT_EQ(Lines(diffs), Lines_{"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/bar"});
  EXPECT_FALSE(IsCompatible(diffs, CompatibilityPolicy::kStrict));
  EXPECT_TRUE(IsCompatible(diffs, CompatibilityPolicy::kLenient));
}

TEST(JsonSchemaDiffTest, PropertyAddedToClosedContentModelIsCompatible) {
  auto diffs = Diff(R"({"properties": {"foo": {"type": "string"}}, "additionalProperties": false})",
                    R"({"properties": {"foo": {"type": "string"}, "bar": {"type": "number"}},
          "additionalProperties": false})");
  EXPECT_EQ(Lines(diffs),
            Lines_{"OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/bar"});
  EXPECT_TRUE(IsCompatible(diffs));
}

TEST(JsonSchemaDiffTest, RequiredPropertyAddedToOpenModelIsIncompatibleUnderBothPolicies) {
  const char* before = R"({"properties": {"a": {"type": "string"}}})";
  auto without_default =
      Diff(before, R"({"properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                       "required": ["b"]})");
  EXPECT_EQ(Lines(without_default),
            Lines_{"REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b"});
  EXPECT_FALSE(IsCompatible(without_default, CompatibilityPolicy::kLenient));

  auto with_default = Diff(
      before, R"({"properties": {"a": {"type": "string"}, "b": {"type": "string", "default": "x"}},
                  "required": ["b"]})");
  EXPECT_EQ(Lines(with_default),
            Lines_{"REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b"});
  EXPECT_FALSE(IsCompatible(with_default, CompatibilityPolicy::kStrict));
  EXPECT_TRUE(IsCompatible(with_default, CompatibilityPolicy::kLenient));
}

TEST(JsonSchemaDiffTest, RequiredPropertyAddedToClosedModelNeedsADefault) {
  const char* before = R"({"properties": {}, "additionalProperties": false})";
  EXPECT_EQ(DiffLines(before, R"({"properties": {"b": {"type": "string"}}, "required": ["b"],
                                  "additionalProperties": false})"),
            Lines_{"REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/b"});
  auto with_default = Diff(before, R"({"properties": {"b": {"type": "string", "default": ""}},
                                       "required": ["b"], "additionalProperties": false})");
  EXPECT_EQ(Lines(with_default),
            Lines_{"REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/b"});
  EXPECT_TRUE(IsCompatible(with_default));
}

TEST(JsonSchemaDiffTest, PropertyWithEmptySchemaAddedToOpenModelIsCompatible) {
  auto diffs = Diff(R"({"properties": {}})", R"({"properties": {"any": {}}})");
  EXPECT_EQ(Lines(diffs),
            Lines_{"PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL #/properties/any"});
  EXPECT_TRUE(IsCompatible(diffs));
}

TEST(JsonSchemaDiffTest, PropertyRemovedFromClosedModelIsIncompatibleUnlessItWasFalse) {
  auto removed = Diff(R"({"properties": {"a": {"type": "string"}}, "additionalProperties": false})",
                      R"({"properties": {}, "additionalProperties": false})");
  EXPECT_EQ(Lines(removed), Lines_{"PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/a"});
  EXPECT_FALSE(IsCompatible(removed));
  EXPECT_TRUE(IsCompatible(removed, CompatibilityPolicy::kLenient));
  EXPECT_EQ(DiffLines(R"({"properties": {"a": false}, "additionalProperties": false})",
                      R"({"properties": {}, "additionalProperties": false})"),
            Lines_{"PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/a"});
}

TEST(JsonSchemaDiffTest, PatternPropertiesDecideWhetherAnAddedPropertyIsCovered) {
  const char* before = R"({"properties": {}, "additionalProperties": false,
                           "patternProperties": {"^I_": {"type": "integer"}}})";
  // "I_count" matches ^I_: compared with the pattern's schema, and integer -> number widens.
  EXPECT_EQ(
      DiffLines(before, R"({"properties": {"I_count": {"type": "number"}},
                                  "additionalProperties": false,
                                  "patternProperties": {"^I_": {"type": "integer"}}})"),
      (Lines_{"OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/I_count",
              "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/I_count",
              "TYPE_EXTENDED #/properties/I_count"}));
  // "XI_count" does not (the pattern is anchored): the closed model takes it as a new property.
  EXPECT_EQ(DiffLines(before, R"({"properties": {"XI_count": {"type": "string"}},
                                  "additionalProperties": false,
                                  "patternProperties": {"^I_": {"type": "integer"}}})"),
            Lines_{"OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/XI_count"});
  // An unanchored pattern is found anywhere in the name, as Java's Matcher.find does.
  EXPECT_EQ(DiffLines(R"({"additionalProperties": false,
                          "patternProperties": {"_id": {"type": "string"}}})",
                      R"({"properties": {"user_id_x": {"type": "number"}},
                          "additionalProperties": false,
                          "patternProperties": {"_id": {"type": "string"}}})"),
            (Lines_{"OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/user_id_x",
                    "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL "
                    "#/properties/user_id_x",
                    "TYPE_CHANGED #/properties/user_id_x"}));
}

TEST(JsonSchemaDiffTest, UnevaluatedPropertiesCloseOrPartiallyOpenTheModel) {
  const char* schema = "https://json-schema.org/draft/2020-12/schema";
  auto with = [&](const char* tail) {
    return std::string(R"({"$schema": ")") + schema + R"(", "properties": {)" + tail + "}";
  };
  EXPECT_EQ(DiffLines(with(R"("a": {}}, "unevaluatedProperties": false)"),
                      with(R"("a": {}, "b": {"type": "string"}}, "unevaluatedProperties": false)")),
            Lines_{"OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/b"});
  EXPECT_EQ(DiffLines(with(R"("a": {}}, "unevaluatedProperties": {"type": "string"})"),
                      with(R"("a": {}}, "unevaluatedProperties": false)")),
            Lines_{"UNEVALUATED_PROPERTIES_REMOVED #/unevaluatedProperties"});
}

// --- The policy ---------------------------------------------------------------------------------

TEST(JsonSchemaDiffTest, LenientPolicyAlsoDecidesWhichAnyOfBranchAcceptsTheOldSchema) {
  const char* before = R"({"properties": {"a": {"type": "string"}}})";
  const char* after = R"({"anyOf": [{"type": "null"},
                          {"properties": {"a": {"type": "string"}, "b": {"type": "number"}}}]})";
  // STRICT: the object branch adds a property to an open model, so no branch takes the old
  // schema and the type changed.
  auto strict = Diff(before, after);
  EXPECT_EQ(Lines(strict), Lines_{"TYPE_CHANGED #/"});
  // LENIENT: that branch is compatible, so the union merely grew.
  auto lenient = Diff(before, after, Lenient());
  EXPECT_EQ(Lines(lenient), (Lines_{"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b",
                                    "SUM_TYPE_EXTENDED #/"}));
  EXPECT_TRUE(IsCompatible(lenient, CompatibilityPolicy::kLenient));
}

TEST(JsonSchemaDiffTest, LenientIsAStrictSuperset) {
  size_t strict = 0;
  size_t lenient = 0;
  for (size_t i = 0; i < kDifferenceTypeCount; ++i) {
    auto type = static_cast<DifferenceType>(i);
    if (IsCompatibleChange(type, CompatibilityPolicy::kStrict)) {
      ++strict;
      EXPECT_TRUE(IsCompatibleChange(type, CompatibilityPolicy::kLenient))
          << DifferenceTypeName(type);
    }
    if (IsCompatibleChange(type, CompatibilityPolicy::kLenient)) ++lenient;
  }
  // Confluent's LENIENT adds nine types to STRICT (registry.md §4 lists ten; PROPERTY_REMOVED_
  // FROM_OPEN_CONTENT_MODEL is in both).
  EXPECT_EQ(lenient - strict, 9u);
  EXPECT_FALSE(IsCompatibleChange(T::kTypeChanged, CompatibilityPolicy::kLenient));
  EXPECT_FALSE(IsCompatibleChange(T::kRequiredPropertyAddedToOpenContentModel,
                                  CompatibilityPolicy::kLenient));
}

// --- Types, numbers, strings, enums
// ---------------------------------------------------------------

TEST(JsonSchemaDiffTest, IntegerWidensToNumberButNotBack) {
  EXPECT_EQ(DiffLines(R"({"type": "integer"})", R"({"type": "number"})"),
            Lines_{"TYPE_EXTENDED #/"});
  auto narrowed = Diff(R"({"type": "number"})", R"({"type": "integer"})");
  EXPECT_EQ(Lines(narrowed), Lines_{"TYPE_NARROWED #/"});
  EXPECT_FALSE(IsCompatible(narrowed));
}

TEST(JsonSchemaDiffTest, TypeArraysAreUnions) {
  auto widened = Diff(R"({"type": ["string"]})", R"({"type": ["string", "null"]})");
  EXPECT_EQ(Lines(widened), Lines_{"SUM_TYPE_EXTENDED #/"});
  EXPECT_TRUE(IsCompatible(widened));
  auto narrowed = Diff(R"({"type": ["string", "null"]})", R"({"type": ["string"]})");
  EXPECT_EQ(Lines(narrowed), Lines_{"SUM_TYPE_NARROWED #/"});
  EXPECT_FALSE(IsCompatible(narrowed));
  // A plain type that becomes a union with it is compatible; the constraints travel with it.
  EXPECT_EQ(DiffLines(R"({"type": "string", "maxLength": 3})", R"({"type": ["null", "string"]})"),
            (Lines_{"MAX_LENGTH_REMOVED #/maxLength", "SUM_TYPE_EXTENDED #/"}));
}

TEST(JsonSchemaDiffTest, MultipleOfComparesByDivisibilityEvenForFractions) {
  EXPECT_EQ(DiffLines(R"({"type": "number", "multipleOf": 0.5})",
                      R"({"type": "number", "multipleOf": 0.25})"),
            Lines_{"MULTIPLE_OF_REDUCED #/multipleOf"});
  EXPECT_EQ(DiffLines(R"({"type": "number", "multipleOf": 0.25})",
                      R"({"type": "number", "multipleOf": 0.5})"),
            Lines_{"MULTIPLE_OF_EXPANDED #/multipleOf"});
  EXPECT_EQ(
      DiffLines(R"({"type": "number", "multipleOf": 4})", R"({"type": "number", "multipleOf": 6})"),
      Lines_{"MULTIPLE_OF_CHANGED #/multipleOf"});
  // The same value written differently is no change.
  EXPECT_TRUE(
      Diff(R"({"type": "number", "multipleOf": 10})", R"({"type": "number", "multipleOf": 1e1})")
          .empty());
}

TEST(JsonSchemaDiffTest, EnumsMayGrowButNotShrink) {
  EXPECT_EQ(DiffLines(R"({"enum": ["a", "b"]})", R"({"enum": ["b", "a", "c"]})"),
            Lines_{"ENUM_ARRAY_EXTENDED #/enum"});
  EXPECT_EQ(DiffLines(R"({"enum": ["a", "b"]})", R"({"enum": ["a"]})"),
            Lines_{"ENUM_ARRAY_NARROWED #/enum"});
  EXPECT_EQ(DiffLines(R"({"enum": [1, {"x": [true]}]})", R"({"enum": [{"x": [true]}, 1.0]})"),
            Lines_{});
}

TEST(JsonSchemaDiffTest, NotComparesItsSchemaTheOtherWayRound) {
  // Excluding less is compatible.
  EXPECT_EQ(DiffLines(R"({"not": {"type": "number"}})", R"({"not": {"type": "integer"}})"),
            Lines_{"NOT_TYPE_NARROWED #/not"});
  EXPECT_EQ(DiffLines(R"({"not": {"type": "integer"}})", R"({"not": {"type": "number"}})"),
            Lines_{"NOT_TYPE_EXTENDED #/not"});
  // Unchanged, it is no difference (Confluent would report NOT_TYPE_NARROWED).
  EXPECT_TRUE(Diff(R"({"not": {"type": "integer"}})", R"({"not": {"type": "integer"}})").empty());
}

TEST(JsonSchemaDiffTest, KafkaConnectBytesOnBothSidesIsNotATypeChange) {
  EXPECT_EQ(DiffLines(R"({"type": "string", "connect.type": "bytes"})",
                      R"({"type": "array", "connect.type": "bytes"})"),
            Lines_{});
  EXPECT_EQ(DiffLines(R"({"type": "string"})", R"({"type": "array", "connect.type": "bytes"})"),
            Lines_{"TYPE_CHANGED #/"});
}

TEST(JsonSchemaDiffTest, EmptyAndTrueAcceptEverythingSoAnythingMayBecomeThem) {
  EXPECT_TRUE(Diff(R"({"type": "object", "required": ["a"]})", "{}").empty());
  EXPECT_TRUE(Diff(R"({"type": "string", "title": "t"})", "true").empty());
  EXPECT_EQ(DiffLines("true", R"({"type": "string"})"), Lines_{"TYPE_CHANGED #/"});
  EXPECT_TRUE(Diff("false", R"({"type": "string"})").empty());
}

// --- Drafts
// ---------------------------------------------------------------------------------------

TEST(JsonSchemaDiffTest, SchemaWithoutDollarSchemaIsReadAsDraft7) {
  // Draft 7's array `items` is a tuple: removing a position from an open tuple is compatible.
  EXPECT_EQ(DiffLines(R"({"type": "array", "items": [{"type": "string"}, {"type": "number"}]})",
                      R"({"type": "array", "items": [{"type": "string"}]})"),
            Lines_{"ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL #/items/1"});
}

TEST(JsonSchemaDiffTest, Draft2020ReadsItemsAfterPrefixItemsAsTheAdditionalItems) {
  const char* before = R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "number"}})";
  const char* after = R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false})";
  EXPECT_EQ(DiffLines(before, after),
            (Lines_{"ADDITIONAL_ITEMS_REMOVED #/additionalItems",
                    "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/items/1"}));
}

TEST(JsonSchemaDiffTest, IdChangesAreReportedInDraft7ButNotIn2020) {
  EXPECT_EQ(
      DiffLines(R"({"$id": "urn:a", "type": "string"})", R"({"$id": "urn:b", "type": "string"})"),
      Lines_{"ID_CHANGED #/"});
  EXPECT_TRUE(Diff(R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:a"})",
                   R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:b"})")
                  .empty());
}

TEST(JsonSchemaDiffTest, Draft2020MinContainsDefaultsToOne) {
  const char* s = R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
                      "type": "array", "contains": {"type": "number"})";
  EXPECT_TRUE(Diff(std::string(s) + R"(, "minContains": 1})", std::string(s) + "}").empty());
  EXPECT_EQ(DiffLines(std::string(s) + "}", std::string(s) + R"(, "minContains": 2})"),
            Lines_{"MIN_CONTAINS_INCREASED #/minContains"});
}

// --- Combined schemas
// -----------------------------------------------------------------------------

TEST(JsonSchemaDiffTest, ReorderedAlternativesAreMatchedNotComparedByPosition) {
  auto diffs = Diff(R"({"oneOf": [{"type": "string", "maxLength": 5}, {"type": "number"}]})",
                    R"({"oneOf": [{"type": "number"}, {"type": "boolean"},
                                  {"type": "string", "maxLength": 8}]})");
  EXPECT_EQ(Lines(diffs),
            (Lines_{"MAX_LENGTH_INCREASED #/oneOf/0/maxLength", "SUM_TYPE_EXTENDED #/"}));
  EXPECT_TRUE(IsCompatible(diffs));
}

TEST(JsonSchemaDiffTest, AnAlternativeWithoutACounterpartChangesTheSubschemas) {
  auto diffs = Diff(R"({"anyOf": [{"type": "string"}, {"type": "number"}]})",
                    R"({"anyOf": [{"type": "string"}, {"type": "boolean"}]})");
  EXPECT_EQ(Lines(diffs), Lines_{"COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"});
}

TEST(JsonSchemaDiffTest, LargeUnionsAreMatchedInPolynomialTime) {
  // 300 distinct alternatives, reversed: every one needs its partner found by the matching.
  auto alternatives = [](bool reversed) {
    std::string s = R"({"anyOf": [)";
    for (int i = 0; i < 300; ++i) {
      int k = reversed ? 299 - i : i;
      if (i > 0) s += ",";
      s += R"({"type": "string", "const": "v)" + std::to_string(k) + R"("})";
    }
    return s + "]}";
  };
  auto start = std::chrono::steady_clock::now();
  auto diffs = Diff(alternatives(false), alternatives(true));
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(diffs.empty()) << Lines(diffs).size();
  EXPECT_LT(seconds, 20.0);
}

// --- References and recursion
// ----------------------------------------------------------------------

constexpr const char* kList = R"({
  "$ref": "#/definitions/node",
  "definitions": {"node": {"type": "object", "properties": {
    "value": {"type": "string"},
    "next": {"anyOf": [{"type": "null"}, {"$ref": "#/definitions/node"}]}}}}})";

TEST(JsonSchemaDiffTest, RecursiveSchemaComparedWithItselfHasNoDifferences) {
  EXPECT_TRUE(Diff(kList, kList).empty());
}

TEST(JsonSchemaDiffTest, ChangeInsideARecursiveSchemaIsReportedWhereItFirstAppears) {
  std::string changed = kList;
  changed.replace(changed.find(R"("value": {"type": "string"})"), 27,
                  R"("value": {"type": "number"})");
  EXPECT_EQ(DiffLines(kList, changed), Lines_{"TYPE_CHANGED #/properties/value"});
}

TEST(JsonSchemaDiffTest, RecursionsOfDifferentShapeTerminate) {
  // The original recurses every level, the update every second level.
  const char* one = R"({"$ref": "#/$defs/a", "$defs": {
      "a": {"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}}}}})";
  const char* two = R"({"$ref": "#/$defs/a", "$defs": {
      "a": {"type": "object", "properties": {"x": {"$ref": "#/$defs/b"}}},
      "b": {"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}, "y": {}}}}})";
  EXPECT_EQ(
      DiffLines(one, two),
      Lines_{"PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL #/properties/x/properties/y"});
  EXPECT_EQ(DiffLines(two, one),
            Lines_{"PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL #/properties/x/properties/y"});
}

TEST(JsonSchemaDiffTest, CycleAssumedCompatibleIsRecheckedWhenItIsNot) {
  // Comparing `first` (a with a') meets (a, a') again inside `self`'s anyOf, assumes it
  // compatible, and so matches the branch. a' narrows `tag`, so the assumption is false. `again`
  // then asks for the very same `self` pair: it must be compared afresh, not taken from the
  // first, optimistic answer.
  auto schema = [](const char* tag) {
    return std::string(R"({"properties": {
        "first": {"$ref": "#/$defs/a"}, "again": {"$ref": "#/$defs/a/properties/self"}},
      "$defs": {"a": {"properties": {"tag": {"type": ")") +
           tag + R"("}, "self": {"anyOf": [{"$ref": "#/$defs/a"}]}}}}})";
  };
  auto diffs = Diff(schema("number"), schema("integer"));
  EXPECT_EQ(Lines(diffs), (Lines_{"COMBINED_TYPE_SUBSCHEMAS_CHANGED #/properties/again",
                                  "TYPE_NARROWED #/properties/first/properties/tag"}));
  EXPECT_FALSE(IsCompatible(diffs));
}

TEST(JsonSchemaDiffTest, SharedSubschemasAreComparedOnce) {
  // Each level uses the next twice: 2^40 paths, 41 distinct pairs.
  auto chain = [](const char* leaf) {
    std::string defs = R"("d0": )" + std::string(leaf);
    for (int i = 1; i <= 40; ++i) {
      std::string prev = "#/$defs/d" + std::to_string(i - 1);
      defs += R"(, "d)" + std::to_string(i) + R"(": {"properties": {"l": {"$ref": ")" + prev +
              R"("}, "r": {"$ref": ")" + prev + R"("}}})";
    }
    return R"({"$ref": "#/$defs/d40", "$defs": {)" + defs + "}}";
  };
  std::string a = chain(R"({"type": "string"})");
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(Diff(a, a).empty());
  // A change at the bottom shows under every path: the difference bound stops it cleanly.
  auto blown = CompareSchemaTexts(a, chain(R"({"type": "number"})"));
  ASSERT_FALSE(blown.has_value());
  EXPECT_EQ(blown.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(blown.error().message().find("max_differences"), std::string::npos);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 20.0);
}

TEST(JsonSchemaDiffTest, ReferencesAreFollowedAndChainsOfThemToo) {
  EXPECT_TRUE(Diff(R"({"type": "string"})",
                   R"({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"},
                                                     "b": {"type": "string"}}})")
                  .empty());
}

TEST(JsonSchemaDiffTest, ExternalReferenceIsUnimplemented) {
  auto diffs = CompareSchemaTexts(R"({"type": "string"})", R"({"$ref": "other.json#/a"})");
  ASSERT_FALSE(diffs.has_value());
  EXPECT_EQ(diffs.error().code(), ErrorCode::kUnimplemented);
  EXPECT_NE(diffs.error().message().find("other.json"), std::string::npos);
}

TEST(JsonSchemaDiffTest, NestingBeyondTheDepthBoundIsAnError) {
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += R"({"type": "array", "items": )";
  deep += "{}";
  for (int i = 0; i < 300; ++i) deep += "}";
  EXPECT_TRUE(Diff(deep, deep).empty());  // within the default bound
  CompareOptions shallow;
  shallow.max_depth = 100;
  auto diffs = CompareSchemaTexts(deep, deep, shallow);
  ASSERT_FALSE(diffs.has_value());
  EXPECT_EQ(diffs.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(diffs.error().message().find("#/items/items"), std::string::npos);
}

TEST(JsonSchemaDiffTest, ParseErrorsNameTheSchema) {
  auto diffs = CompareSchemaTexts("{}", R"({"type": 5})");
  ASSERT_FALSE(diffs.has_value());
  EXPECT_NE(diffs.error().message().find("update schema"), std::string::npos);
}

// --- Metadata
// -------------------------------------------------------------------------------------

TEST(JsonSchemaDiffTest, ReservedPropertiesMustStayReservedAndUnused) {
  CompareOptions options;
  options.original_metadata["confluent:reserved"] = "cost, status";
  options.update_metadata["confluent:reserved"] = "cost,name";
  auto diffs =
      Diff(R"({"properties": {"a": {}}})", R"({"properties": {"a": {}, "name": {}}})", options);
  EXPECT_EQ(Lines(diffs),
            (Lines_{"PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL #/properties/name",
                    "RESERVED_PROPERTY_CONFLICTS_WITH_PROPERTY #/properties/name",
                    "RESERVED_PROPERTY_REMOVED status"}));
  EXPECT_FALSE(IsCompatible(diffs));
}

// --- Names, messages and hints
// ----------------------------------------------------------------------

TEST(JsonSchemaDiffTest, EveryTypeHasItsConfluentName) {
  for (size_t i = 0; i < kDifferenceTypeCount; ++i) {
    auto type = static_cast<DifferenceType>(i);
    std::string_view name = DifferenceTypeName(type);
    EXPECT_FALSE(name.empty());
    EXPECT_EQ(DifferenceTypeFromName(name), type) << name;
    EXPECT_FALSE(DescribeDifference({type, "#/x"}).empty()) << name;
  }
  EXPECT_EQ(DifferenceTypeName(T::kOptionalPropertyAddedToOpenContentModel),
            "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL");
  EXPECT_EQ(DifferenceTypeFromName("PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"), std::nullopt);
}

TEST(JsonSchemaDiffTest, MessagesReadAsConfluentWritesThem) {
  auto diffs = Diff(R"({"properties": {"a": {"type": "string"}}})",
                    R"({"properties": {"a": {"type": "string", "maxLength": 3}}})");
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(DescribeDifference(diffs[0]),
            "The keyword at path '#/properties/a/maxLength' in the new schema is not present in "
            "the old schema");
  EXPECT_EQ(FormatConfluentError(diffs[0]),
            "{errorType:\"MAX_LENGTH_ADDED\", description:\"The keyword at path "
            "'#/properties/a/maxLength' in the new schema is not present in the old schema'}");
  EXPECT_EQ(DescribeDifference({T::kRequiredPropertyAddedToUnopenContentModel, "#/properties/b"}),
            "The new schema has an unopen content model and has a required property at path "
            "'#/properties/b' which is missing in the old schema");
}

TEST(JsonSchemaDiffTest, HintsNameThePropertyAndOnlyIncompatibleChangesGetOne) {
  std::string hint = FixHint({T::kRequiredPropertyAddedToOpenContentModel, "#/properties/bar"});
  EXPECT_NE(hint.find("make `bar` optional with a default"), std::string::npos) << hint;
  EXPECT_NE(FixHint({T::kAdditionalPropertiesNarrowed, "#/additionalProperties"})
                .find("loosen additionalProperties"),
            std::string::npos);
  EXPECT_EQ(FixHint({T::kMaxLengthIncreased, "#/maxLength"}), "");
  for (size_t i = 0; i < kDifferenceTypeCount; ++i) {
    auto type = static_cast<DifferenceType>(i);
    if (!IsCompatibleChange(type, CompatibilityPolicy::kStrict)) {
      EXPECT_FALSE(FixHint({type, "#/properties/p"}).empty()) << DifferenceTypeName(type);
    }
  }
}

// --- The pattern engine
// ---------------------------------------------------------------------------

TEST(JsonSchemaRegexTest, FindsAsJavaMatcherFindDoes) {
  auto finds = [](std::string_view p, std::string_view s) {
    auto r = internal::RegexSearch(p, s);
    EXPECT_TRUE(r.has_value()) << p << ": " << r.error().ToString();
    return r.has_value() && *r;
  };
  EXPECT_TRUE(finds("^I_", "I_123"));
  EXPECT_FALSE(finds("^I_", "XI_1"));
  EXPECT_TRUE(finds("_id$", "user_id"));
  EXPECT_FALSE(finds("_id$", "user_idx"));
  EXPECT_TRUE(finds("^[a-z]+\\d{2,3}$", "abc12"));
  EXPECT_FALSE(finds("^[a-z]+\\d{2,3}$", "abc1234"));
  EXPECT_TRUE(finds("^(?:foo|ba[rz])$", "baz"));
  EXPECT_TRUE(finds("^[^\\s]+$", "no-space"));
  EXPECT_FALSE(finds("^[^\\s]+$", "a space"));
  EXPECT_TRUE(finds("^.{2}$", "\xc3\xa9\xc3\xa9"));  // two code points, four bytes
  EXPECT_TRUE(finds("\\bid\\b", "an id here"));
  EXPECT_FALSE(finds("\\bid\\b", "idle"));
  EXPECT_TRUE(finds("", "anything"));
  EXPECT_TRUE(finds("a{,}", "a{,}"));  // not a quantifier: literal braces
}

TEST(JsonSchemaRegexTest, CatastrophicPatternsRunInLinearTime) {
  std::string subject(20000, 'a');
  size_t steps = 0;
  auto start = std::chrono::steady_clock::now();
  auto r = internal::RegexSearch("^(a*)*b$", subject, &steps);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(*r);
  EXPECT_LT(steps, 10'000'000u);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

TEST(JsonSchemaRegexTest, RejectsMalformedAndUnsupportedPatterns) {
  EXPECT_EQ(internal::RegexSearch("(ab", "ab").error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(internal::RegexSearch("[z-a]", "b").error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(internal::RegexSearch("*a", "a").error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(internal::RegexSearch("a(?=b)", "ab").error().code(), ErrorCode::kUnimplemented);
  EXPECT_EQ(internal::RegexSearch("(a)\\1", "aa").error().code(), ErrorCode::kUnimplemented);
  EXPECT_EQ(internal::RegexSearch("((((a{1000}){1000}){1000}))", "a").error().code(),
            ErrorCode::kUnimplemented);
  std::string nested(100000, '(');
  EXPECT_FALSE(internal::RegexSearch(nested, "a").has_value());
}

TEST(JsonSchemaDiffTest, UnreadablePatternMatchesNoPropertyName) {
  // A lookahead is beyond the engine: the name falls to additionalProperties (false), as if the
  // pattern did not match.
  EXPECT_EQ(DiffLines(R"js({"additionalProperties": false,
                            "patternProperties": {"^(?=x)": {}}})js",
                      R"js({"properties": {"xy": {}}, "additionalProperties": false,
                            "patternProperties": {"^(?=x)": {}}})js"),
            Lines_{"OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/xy"});
}

}  // namespace
}  // namespace sluice::dialects::jsonschema
