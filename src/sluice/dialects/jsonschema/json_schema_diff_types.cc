// The difference types of the JSON Schema comparison: their names, their verdicts under STRICT
// and LENIENT, the sentence Confluent describes each with, and a fix for the incompatible ones.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "sluice/dialects/jsonschema/json_schema_diff.h"

namespace sluice::dialects::jsonschema {
namespace {

// ---------------------------------------------------------------------------------------------
// The difference types: Confluent's name, its STRICT and LENIENT verdicts
// (SchemaDiff.COMPATIBLE_CHANGES_STRICT / _LENIENT) and the family of its description.

enum class Message : uint8_t {
  kAdded,                  // a keyword the new schema has and the old lacks
  kAddedCovered,           // property/item added, covered by the old partially open model
  kAddedNotCovered,        // ... not covered
  kAddedToOpen,            // property/item added to an open content model
  kChanged,                // a value differs
  kExtended,               // a list or combined type has more elements
  kFalseRemoved,           // a `false` property/item dropped from a closed model
  kLess,                   // a value decreased
  kMore,                   // a value increased
  kNarrowed,               // a list or combined type has fewer elements
  kOptionalAddedToUnopen,  // property/item added to a closed or partially open model
  kRemoved,                // a keyword the old schema has and the new lacks
  kRemovedCovered,         // property/item removed, covered by the new partially open model
  kRemovedFromClosed,      // property/item removed from a closed model
  kRemovedFromOpen,        // property/item removed from an open model
  kRemovedNotCovered,      // ... not covered
  kRequiredAddedToUnopen,  // required property added to a closed or partially open model
  kReservedConflict,       // a property uses a reserved name
  kReservedRemoved,        // a reserved name was dropped from the metadata
  kType,                   // a type differs
};

struct TypeInfo {
  std::string_view name;
  bool strict;   // in COMPATIBLE_CHANGES_STRICT
  bool lenient;  // in COMPATIBLE_CHANGES_LENIENT
  Message message;
};

// In DifferenceType order. UNEVALUATED_* and *_CONTAINS are not in the Confluent release whose
// code was read; they follow registry.md §4 (checked against upstream master) and the
// additionalProperties/minItems analogues they mirror.
constexpr TypeInfo kTypeTable[] = {
    {"ID_CHANGED", true, true, Message::kChanged},
    {"DESCRIPTION_CHANGED", true, true, Message::kChanged},
    {"TITLE_CHANGED", true, true, Message::kChanged},
    {"DEFAULT_CHANGED", true, true, Message::kChanged},
    {"SCHEMA_ADDED", false, false, Message::kAdded},
    {"SCHEMA_REMOVED", true, true, Message::kRemoved},
    {"TYPE_EXTENDED", true, true, Message::kType},
    {"TYPE_NARROWED", false, false, Message::kType},
    {"TYPE_CHANGED", false, false, Message::kType},
    {"MAX_LENGTH_ADDED", false, false, Message::kAdded},
    {"MAX_LENGTH_REMOVED", true, true, Message::kRemoved},
    {"MAX_LENGTH_INCREASED", true, true, Message::kMore},
    {"MAX_LENGTH_DECREASED", false, false, Message::kLess},
    {"MIN_LENGTH_ADDED", false, false, Message::kAdded},
    {"MIN_LENGTH_REMOVED", true, true, Message::kRemoved},
    {"MIN_LENGTH_INCREASED", false, false, Message::kMore},
    {"MIN_LENGTH_DECREASED", true, true, Message::kLess},
    {"PATTERN_ADDED", false, false, Message::kAdded},
    {"PATTERN_REMOVED", true, true, Message::kRemoved},
    {"PATTERN_CHANGED", false, false, Message::kChanged},
    {"MAXIMUM_ADDED", false, false, Message::kAdded},
    {"MAXIMUM_REMOVED", true, true, Message::kRemoved},
    {"MAXIMUM_INCREASED", true, true, Message::kMore},
    {"MAXIMUM_DECREASED", false, false, Message::kLess},
    {"MINIMUM_ADDED", false, false, Message::kAdded},
    {"MINIMUM_REMOVED", true, true, Message::kRemoved},
    {"MINIMUM_INCREASED", false, false, Message::kMore},
    {"MINIMUM_DECREASED", true, true, Message::kLess},
    {"EXCLUSIVE_MAXIMUM_ADDED", false, false, Message::kAdded},
    {"EXCLUSIVE_MAXIMUM_REMOVED", true, true, Message::kRemoved},
    {"EXCLUSIVE_MAXIMUM_INCREASED", true, true, Message::kMore},
    {"EXCLUSIVE_MAXIMUM_DECREASED", false, false, Message::kLess},
    {"EXCLUSIVE_MINIMUM_ADDED", false, false, Message::kAdded},
    {"EXCLUSIVE_MINIMUM_REMOVED", true, true, Message::kRemoved},
    {"EXCLUSIVE_MINIMUM_INCREASED", false, false, Message::kMore},
    {"EXCLUSIVE_MINIMUM_DECREASED", true, true, Message::kLess},
    {"MULTIPLE_OF_ADDED", false, false, Message::kAdded},
    {"MULTIPLE_OF_REMOVED", true, true, Message::kRemoved},
    {"MULTIPLE_OF_EXPANDED", false, false, Message::kMore},
    {"MULTIPLE_OF_REDUCED", true, true, Message::kLess},
    {"MULTIPLE_OF_CHANGED", false, false, Message::kChanged},
    {"REQUIRED_ATTRIBUTE_ADDED", false, false, Message::kAdded},
    {"REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED", true, true, Message::kAdded},
    {"REQUIRED_ATTRIBUTE_REMOVED", true, true, Message::kRemoved},
    {"MAX_PROPERTIES_ADDED", false, false, Message::kAdded},
    {"MAX_PROPERTIES_REMOVED", true, true, Message::kRemoved},
    {"MAX_PROPERTIES_INCREASED", true, true, Message::kMore},
    {"MAX_PROPERTIES_DECREASED", false, false, Message::kLess},
    {"MIN_PROPERTIES_ADDED", false, false, Message::kAdded},
    {"MIN_PROPERTIES_REMOVED", true, true, Message::kRemoved},
    {"MIN_PROPERTIES_INCREASED", false, false, Message::kMore},
    {"MIN_PROPERTIES_DECREASED", true, true, Message::kLess},
    {"ADDITIONAL_PROPERTIES_ADDED", true, true, Message::kRemoved},
    {"ADDITIONAL_PROPERTIES_REMOVED", false, true, Message::kAdded},
    {"ADDITIONAL_PROPERTIES_EXTENDED", true, true, Message::kExtended},
    {"ADDITIONAL_PROPERTIES_NARROWED", false, true, Message::kNarrowed},
    {"UNEVALUATED_PROPERTIES_ADDED", true, true, Message::kRemoved},
    {"UNEVALUATED_PROPERTIES_REMOVED", false, true, Message::kAdded},
    {"UNEVALUATED_PROPERTIES_EXTENDED", true, true, Message::kExtended},
    {"UNEVALUATED_PROPERTIES_NARROWED", false, true, Message::kNarrowed},
    {"DEPENDENCY_ARRAY_ADDED", false, false, Message::kAdded},
    {"DEPENDENCY_ARRAY_REMOVED", true, true, Message::kRemoved},
    {"DEPENDENCY_ARRAY_EXTENDED", false, false, Message::kExtended},
    {"DEPENDENCY_ARRAY_NARROWED", true, true, Message::kNarrowed},
    {"DEPENDENCY_ARRAY_CHANGED", false, false, Message::kChanged},
    {"DEPENDENCY_SCHEMA_ADDED", false, false, Message::kAdded},
    {"DEPENDENCY_SCHEMA_REMOVED", true, true, Message::kRemoved},
    {"PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL", true, true, Message::kAddedToOpen},
    {"REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", false, false, Message::kAddedToOpen},
    {"REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL", false, true,
     Message::kAddedToOpen},
    {"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", false, true, Message::kAddedToOpen},
    {"REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", false, false,
     Message::kRequiredAddedToUnopen},
    {"REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL", true, true,
     Message::kOptionalAddedToUnopen},
    {"OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", true, true,
     Message::kOptionalAddedToUnopen},
    {"PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL", true, true, Message::kRemovedFromOpen},
    {"PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL", true, true, Message::kFalseRemoved},
    {"PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", false, true, Message::kRemovedFromClosed},
    {"PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", true, true,
     Message::kRemovedCovered},
    {"PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", false, true,
     Message::kRemovedNotCovered},
    {"PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", true, true,
     Message::kAddedCovered},
    {"PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", false, true,
     Message::kAddedNotCovered},
    {"RESERVED_PROPERTY_REMOVED", false, false, Message::kReservedRemoved},
    {"RESERVED_PROPERTY_CONFLICTS_WITH_PROPERTY", false, false, Message::kReservedConflict},
    {"MAX_ITEMS_ADDED", false, false, Message::kAdded},
    {"MAX_ITEMS_REMOVED", true, true, Message::kRemoved},
    {"MAX_ITEMS_INCREASED", true, true, Message::kMore},
    {"MAX_ITEMS_DECREASED", false, false, Message::kLess},
    {"MIN_ITEMS_ADDED", false, false, Message::kAdded},
    {"MIN_ITEMS_REMOVED", true, true, Message::kRemoved},
    {"MIN_ITEMS_INCREASED", false, false, Message::kMore},
    {"MIN_ITEMS_DECREASED", true, true, Message::kLess},
    {"MAX_CONTAINS_ADDED", false, false, Message::kAdded},
    {"MAX_CONTAINS_REMOVED", true, true, Message::kRemoved},
    {"MAX_CONTAINS_INCREASED", true, true, Message::kMore},
    {"MAX_CONTAINS_DECREASED", false, false, Message::kLess},
    {"MIN_CONTAINS_ADDED", false, false, Message::kAdded},
    {"MIN_CONTAINS_REMOVED", true, true, Message::kRemoved},
    {"MIN_CONTAINS_INCREASED", false, false, Message::kMore},
    {"MIN_CONTAINS_DECREASED", true, true, Message::kLess},
    {"UNIQUE_ITEMS_ADDED", false, false, Message::kAdded},
    {"UNIQUE_ITEMS_REMOVED", true, true, Message::kRemoved},
    {"ADDITIONAL_ITEMS_ADDED", true, true, Message::kRemoved},
    {"ADDITIONAL_ITEMS_REMOVED", false, false, Message::kAdded},
    {"ADDITIONAL_ITEMS_EXTENDED", true, true, Message::kExtended},
    {"ADDITIONAL_ITEMS_NARROWED", false, false, Message::kNarrowed},
    {"UNEVALUATED_ITEMS_ADDED", true, true, Message::kRemoved},
    {"UNEVALUATED_ITEMS_REMOVED", false, false, Message::kAdded},
    {"UNEVALUATED_ITEMS_EXTENDED", true, true, Message::kExtended},
    {"UNEVALUATED_ITEMS_NARROWED", false, false, Message::kNarrowed},
    {"ITEM_ADDED_TO_OPEN_CONTENT_MODEL", false, false, Message::kAddedToOpen},
    {"ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL", true, true, Message::kAddedToOpen},
    {"ITEM_ADDED_TO_CLOSED_CONTENT_MODEL", true, true, Message::kOptionalAddedToUnopen},
    {"ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL", true, true, Message::kRemovedFromOpen},
    {"ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL", true, true, Message::kFalseRemoved},
    {"ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL", false, false, Message::kRemovedFromClosed},
    {"ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", true, true,
     Message::kRemovedCovered},
    {"ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", false, false,
     Message::kRemovedNotCovered},
    {"ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", true, true, Message::kAddedCovered},
    {"ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", false, false,
     Message::kAddedNotCovered},
    {"ENUM_ARRAY_EXTENDED", true, true, Message::kExtended},
    {"ENUM_ARRAY_NARROWED", false, false, Message::kNarrowed},
    {"ENUM_ARRAY_CHANGED", false, false, Message::kType},
    {"COMBINED_TYPE_EXTENDED", true, true, Message::kType},
    {"COMBINED_TYPE_CHANGED", false, false, Message::kType},
    {"PRODUCT_TYPE_EXTENDED", false, false, Message::kExtended},
    {"PRODUCT_TYPE_NARROWED", true, true, Message::kNarrowed},
    {"SUM_TYPE_EXTENDED", true, true, Message::kExtended},
    {"SUM_TYPE_NARROWED", false, false, Message::kNarrowed},
    {"COMBINED_TYPE_SUBSCHEMAS_CHANGED", false, false, Message::kType},
    {"NOT_TYPE_EXTENDED", false, false, Message::kExtended},
    {"NOT_TYPE_NARROWED", true, true, Message::kNarrowed},
};
static_assert(std::size(kTypeTable) == kDifferenceTypeCount);

const TypeInfo& Info(DifferenceType type) { return kTypeTable[static_cast<size_t>(type)]; }

// The last step of a JSON path: the property a property-level difference is about.
std::string_view LastStep(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

struct Hint {
  DifferenceType type;
  std::string_view text;  // "{}" stands for the property name
};

constexpr Hint kHints[] = {
    {DifferenceType::kSchemaAdded,
     "the new subschema constrains values the old schema left open: drop it, or make it accept "
     "everything (true or {})"},
    {DifferenceType::kTypeNarrowed,
     "keep \"number\": old data may hold numbers with a fraction, which \"integer\" rejects"},
    {DifferenceType::kTypeChanged,
     "keep the old type, or widen to an anyOf/oneOf that still includes it"},
    {DifferenceType::kMaxLengthAdded, "drop the new maxLength: old strings may be longer"},
    {DifferenceType::kMaxLengthDecreased, "keep the old maxLength or raise it"},
    {DifferenceType::kMinLengthAdded, "drop the new minLength: old strings may be shorter"},
    {DifferenceType::kMinLengthIncreased, "keep the old minLength or lower it"},
    {DifferenceType::kPatternAdded, "drop the new pattern: old strings need not match it"},
    {DifferenceType::kPatternChanged,
     "keep the old pattern, or use one that accepts every string the old one accepts"},
    {DifferenceType::kMaximumAdded, "drop the new maximum: old numbers may be larger"},
    {DifferenceType::kMaximumDecreased, "keep the old maximum or raise it"},
    {DifferenceType::kMinimumAdded, "drop the new minimum: old numbers may be smaller"},
    {DifferenceType::kMinimumIncreased, "keep the old minimum or lower it"},
    {DifferenceType::kExclusiveMaximumAdded,
     "drop the new exclusiveMaximum: old numbers may be larger"},
    {DifferenceType::kExclusiveMaximumDecreased, "keep the old exclusiveMaximum or raise it"},
    {DifferenceType::kExclusiveMinimumAdded,
     "drop the new exclusiveMinimum: old numbers may be smaller"},
    {DifferenceType::kExclusiveMinimumIncreased, "keep the old exclusiveMinimum or lower it"},
    {DifferenceType::kMultipleOfAdded, "drop the new multipleOf: old numbers need not divide"},
    {DifferenceType::kMultipleOfExpanded, "use the old multipleOf or a divisor of it"},
    {DifferenceType::kMultipleOfChanged, "use the old multipleOf or a divisor of it"},
    {DifferenceType::kRequiredAttributeAdded,
     "keep `{}` optional, or give it a default: old data may lack it"},
    {DifferenceType::kMaxPropertiesAdded, "drop the new maxProperties"},
    {DifferenceType::kMaxPropertiesDecreased, "keep the old maxProperties or raise it"},
    {DifferenceType::kMinPropertiesAdded, "drop the new minProperties"},
    {DifferenceType::kMinPropertiesIncreased, "keep the old minProperties or lower it"},
    {DifferenceType::kAdditionalPropertiesRemoved,
     "loosen additionalProperties (leave it out or set it to true); LENIENT accepts this if "
     "producers never wrote undeclared properties"},
    {DifferenceType::kAdditionalPropertiesNarrowed,
     "loosen additionalProperties (leave it out or set it to true); LENIENT accepts this if "
     "producers never wrote undeclared properties"},
    {DifferenceType::kUnevaluatedPropertiesRemoved,
     "loosen unevaluatedProperties (leave it out or set it to true)"},
    {DifferenceType::kUnevaluatedPropertiesNarrowed,
     "loosen unevaluatedProperties (leave it out or set it to true)"},
    {DifferenceType::kDependencyArrayAdded,
     "drop the new dependency of `{}`: old data may have it without the others"},
    {DifferenceType::kDependencyArrayExtended,
     "don't make more properties depend on `{}`: old data may lack them"},
    {DifferenceType::kDependencyArrayChanged,
     "keep the old dependencies of `{}`, or a subset of them"},
    {DifferenceType::kDependencySchemaAdded,
     "drop the new dependent schema of `{}`, or make it accept everything"},
    {DifferenceType::kRequiredPropertyAddedToOpenContentModel,
     "make `{}` optional with a default: old data may lack it, and may already carry it with "
     "any value"},
    {DifferenceType::kRequiredPropertyWithDefaultAddedToOpenContentModel,
     "old data may already carry `{}` with any value: give it an empty schema ({} or true), "
     "or close the old schema (additionalProperties: false) before adding properties; LENIENT "
     "accepts it"},
    {DifferenceType::kOptionalPropertyAddedToOpenContentModel,
     "old data may already carry `{}` with any value: give it an empty schema ({} or true), "
     "or close the old schema (additionalProperties: false) before adding properties; LENIENT "
     "accepts it"},
    {DifferenceType::kRequiredPropertyAddedToUnopenContentModel,
     "make `{}` optional, or give it a default: old data may lack it"},
    {DifferenceType::kPropertyRemovedFromClosedContentModel,
     "keep `{}` in the schema (as false if it must not be written any more), or loosen "
     "additionalProperties; LENIENT accepts this"},
    {DifferenceType::kPropertyRemovedNotCoveredByPartiallyOpenContentModel,
     "keep `{}`, or make the patternProperties/additionalProperties schema that now covers it "
     "accept everything its old schema accepted"},
    {DifferenceType::kPropertyAddedNotCoveredByPartiallyOpenContentModel,
     "make `{}` accept everything the old patternProperties/additionalProperties schema "
     "accepted for it"},
    {DifferenceType::kReservedPropertyRemoved,
     "keep `{}` in confluent:reserved: reserved names stay reserved"},
    {DifferenceType::kReservedPropertyConflictsWithProperty,
     "rename or drop `{}`: the name is reserved"},
    {DifferenceType::kMaxItemsAdded, "drop the new maxItems: old arrays may be longer"},
    {DifferenceType::kMaxItemsDecreased, "keep the old maxItems or raise it"},
    {DifferenceType::kMinItemsAdded, "drop the new minItems: old arrays may be shorter"},
    {DifferenceType::kMinItemsIncreased, "keep the old minItems or lower it"},
    {DifferenceType::kMaxContainsAdded, "drop the new maxContains"},
    {DifferenceType::kMaxContainsDecreased, "keep the old maxContains or raise it"},
    {DifferenceType::kMinContainsAdded, "drop the new minContains"},
    {DifferenceType::kMinContainsIncreased, "keep the old minContains or lower it"},
    {DifferenceType::kUniqueItemsAdded, "drop uniqueItems: old arrays may repeat values"},
    {DifferenceType::kAdditionalItemsRemoved,
     "loosen the schema of the items after the tuple (leave it out or set it to true)"},
    {DifferenceType::kAdditionalItemsNarrowed,
     "loosen the schema of the items after the tuple (leave it out or set it to true)"},
    {DifferenceType::kUnevaluatedItemsRemoved,
     "loosen unevaluatedItems (leave it out or set it to true)"},
    {DifferenceType::kUnevaluatedItemsNarrowed,
     "loosen unevaluatedItems (leave it out or set it to true)"},
    {DifferenceType::kItemAddedToOpenContentModel,
     "old arrays may hold any value at this position: give the new tuple item an empty schema, "
     "or close the old tuple before adding items"},
    {DifferenceType::kItemRemovedFromClosedContentModel,
     "keep the tuple item, or allow additional items"},
    {DifferenceType::kItemRemovedNotCoveredByPartiallyOpenContentModel,
     "keep the tuple item, or make the schema of the items after the tuple accept what it "
     "accepted"},
    {DifferenceType::kItemAddedNotCoveredByPartiallyOpenContentModel,
     "make the new tuple item accept everything the old schema of the items after the tuple "
     "accepted"},
    {DifferenceType::kEnumArrayNarrowed, "keep every old enum value; adding values is fine"},
    {DifferenceType::kEnumArrayChanged,
     "keep every old value (for const, the old value); adding enum values is fine"},
    {DifferenceType::kCombinedTypeChanged, "keep the old allOf/anyOf/oneOf, or change it to anyOf"},
    {DifferenceType::kProductTypeExtended,
     "don't add allOf members: each one restricts what old data may be"},
    {DifferenceType::kSumTypeNarrowed, "keep every old anyOf/oneOf alternative"},
    {DifferenceType::kCombinedTypeSubschemasChanged,
     "each old alternative needs a new one that accepts at least what it accepted"},
    {DifferenceType::kNotTypeExtended,
     "the not schema now excludes values the old one allowed: narrow it back"},
};

}  // namespace

std::string_view DifferenceTypeName(DifferenceType type) { return Info(type).name; }

std::optional<DifferenceType> DifferenceTypeFromName(std::string_view name) {
  for (size_t i = 0; i < kDifferenceTypeCount; ++i) {
    if (kTypeTable[i].name == name) return static_cast<DifferenceType>(i);
  }
  return std::nullopt;
}

std::string_view CompatibilityPolicyName(CompatibilityPolicy policy) {
  switch (policy) {
    case CompatibilityPolicy::kStrict:
      return "STRICT";
    case CompatibilityPolicy::kLenient:
      return "LENIENT";
  }
  return "STRICT";
}

bool IsCompatibleChange(DifferenceType type, CompatibilityPolicy policy) {
  const TypeInfo& info = Info(type);
  return policy == CompatibilityPolicy::kStrict ? info.strict : info.lenient;
}

bool IsCompatible(const std::vector<Difference>& differences, CompatibilityPolicy policy) {
  return std::all_of(differences.begin(), differences.end(),
                     [&](const Difference& d) { return IsCompatibleChange(d.type, policy); });
}

std::string DescribeDifference(const Difference& d) {
  const std::string& p = d.json_path;
  switch (Info(d.type).message) {
    case Message::kAdded:
      return fmt::format(
          "The keyword at path '{}' in the new schema is not present in the old "
          "schema",
          p);
    case Message::kRemoved:
      return fmt::format(
          "The keyword at path '{}' in the old schema is not present in the new "
          "schema",
          p);
    case Message::kMore:
      return fmt::format(
          "The value at path '{}' in the new schema is more than its value in the "
          "old schema",
          p);
    case Message::kLess:
      return fmt::format(
          "The value at path '{}' in the new schema is less than its value in the "
          "old schema",
          p);
    case Message::kChanged:
      return fmt::format("The value at path '{}' is different between the new and old schema", p);
    case Message::kNarrowed:
      return fmt::format(
          "An array or combined type at path '{}' has fewer elements in the new "
          "schema than the old schema",
          p);
    case Message::kExtended:
      return fmt::format(
          "An array or combined type at path '{}' has more elements in the new "
          "schema than the old schema",
          p);
    case Message::kType:
      return fmt::format(
          "A type at path '{}' is different between the new schema and the old "
          "schema",
          p);
    case Message::kAddedToOpen:
      return fmt::format(
          "The new schema has an open content model and has a property or item at "
          "path '{}' which is missing in the old schema",
          p);
    case Message::kRequiredAddedToUnopen:
      return fmt::format(
          "The new schema has an unopen content model and has a required property "
          "at path '{}' which is missing in the old schema",
          p);
    case Message::kOptionalAddedToUnopen:
      return fmt::format(
          "The new schema has an unopen content model and has an optional property "
          "or item at path '{}' which is missing in the old schema",
          p);
    case Message::kRemovedFromOpen:
      return fmt::format(
          "The new schema has an open content model and is missing a property or "
          "item present at path '{}' in the old schema",
          p);
    case Message::kFalseRemoved:
      return fmt::format(
          "The new schema has a closed content model and is missing a property or "
          "item at path '{}' that the old schema did not allow",
          p);
    case Message::kRemovedFromClosed:
      // Confluent's wording, "The new has", kept so the text matches the registry's.
      return fmt::format(
          "The new has a closed content model and is missing a property or item "
          "present at path '{}' in the old schema",
          p);
    case Message::kRemovedCovered:
      return fmt::format(
          "A property or item is missing in the new schema but present at path '{}' "
          "in the old schema and is covered by its partially open content model",
          p);
    case Message::kRemovedNotCovered:
      return fmt::format(
          "A property or item is missing in the new schema but present at path '{}' "
          "in the old schema and is not covered by its partially open content "
          "model",
          p);
    case Message::kAddedCovered:
      return fmt::format(
          "The new schema has a property or item at path '{}' which is missing in "
          "the old schema and is covered by its partially open content model",
          p);
    case Message::kAddedNotCovered:
      return fmt::format(
          "The new schema has a property or item at path '{}' which is missing in "
          "the old schema and is not covered by its partially open content model",
          p);
    case Message::kReservedRemoved:
      return fmt::format(
          "The new schema has reserved property '{}' removed from its metadata "
          "which is present in the old schema.",
          p);
    case Message::kReservedConflict:
      return fmt::format(
          "The new schema has property at path '{}' that conflicts with the "
          "reserved properties which is missing in the old schema.",
          p);
  }
  return "";
}

std::string FormatConfluentError(const Difference& d) {
  return fmt::format("{{errorType:\"{}\", description:\"{}'}}", DifferenceTypeName(d.type),
                     DescribeDifference(d));
}

std::string FixHint(const Difference& d) {
  if (IsCompatibleChange(d.type, CompatibilityPolicy::kStrict)) return "";
  for (const Hint& h : kHints) {
    if (h.type != d.type) continue;
    std::string out(h.text);
    size_t at = out.find("{}");
    if (at != std::string::npos) out.replace(at, 2, LastStep(d.json_path));
    return out;
  }
  return "";
}

}  // namespace sluice::dialects::jsonschema
