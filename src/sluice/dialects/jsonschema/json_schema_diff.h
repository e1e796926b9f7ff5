// Confluent-compatible compatibility checking for JSON Schema: the differences between an older
// and a newer schema, named and placed as Confluent Schema Registry's JSON Schema provider names
// them (`OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/bar`), and whether they are
// compatible under its STRICT or LENIENT policy.
//
// The rules follow confluentinc/schema-registry's json-schema-provider (`json/diff/*.java`) and
// how it loads a schema: drafts 4, 6 and 7 the way everit-json-schema models them (a `type`
// array is an anyOf, keywords of several kinds make an implicit allOf, `$ref` siblings are
// ignored), 2019-09 and 2020-12 the way Confluent's SchemaTranslator maps json-sKema's model
// (one partial schema per keyword, merged per kind; `$id` is not compared; `minContains`
// defaults to 1). The table of types, their STRICT/LENIENT verdicts and message families is
// kTypeTable in json_schema_diff_types.cc.
//
// Thread safety: the functions are pure; documents are only read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/dialects/jsonschema/json_schema.h"

namespace sluice::dialects::jsonschema {

/// Confluent's `Difference.Type`, one enumerator per name (kMaxLengthAdded is
/// "MAX_LENGTH_ADDED"). The deprecated PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL is never reported
/// by Confluent's current line and is left out.
enum class DifferenceType : uint8_t {
  kIdChanged,
  kDescriptionChanged,
  kTitleChanged,
  kDefaultChanged,
  kSchemaAdded,
  kSchemaRemoved,
  kTypeExtended,
  kTypeNarrowed,
  kTypeChanged,
  kMaxLengthAdded,
  kMaxLengthRemoved,
  kMaxLengthIncreased,
  kMaxLengthDecreased,
  kMinLengthAdded,
  kMinLengthRemoved,
  kMinLengthIncreased,
  kMinLengthDecreased,
  kPatternAdded,
  kPatternRemoved,
  kPatternChanged,
  kMaximumAdded,
  kMaximumRemoved,
  kMaximumIncreased,
  kMaximumDecreased,
  kMinimumAdded,
  kMinimumRemoved,
  kMinimumIncreased,
  kMinimumDecreased,
  kExclusiveMaximumAdded,
  kExclusiveMaximumRemoved,
  kExclusiveMaximumIncreased,
  kExclusiveMaximumDecreased,
  kExclusiveMinimumAdded,
  kExclusiveMinimumRemoved,
  kExclusiveMinimumIncreased,
  kExclusiveMinimumDecreased,
  kMultipleOfAdded,
  kMultipleOfRemoved,
  kMultipleOfExpanded,
  kMultipleOfReduced,
  kMultipleOfChanged,
  kRequiredAttributeAdded,
  kRequiredAttributeWithDefaultAdded,
  kRequiredAttributeRemoved,
  kMaxPropertiesAdded,
  kMaxPropertiesRemoved,
  kMaxPropertiesIncreased,
  kMaxPropertiesDecreased,
  kMinPropertiesAdded,
  kMinPropertiesRemoved,
  kMinPropertiesIncreased,
  kMinPropertiesDecreased,
  kAdditionalPropertiesAdded,
  kAdditionalPropertiesRemoved,
  kAdditionalPropertiesExtended,
  kAdditionalPropertiesNarrowed,
  kUnevaluatedPropertiesAdded,
  kUnevaluatedPropertiesRemoved,
  kUnevaluatedPropertiesExtended,
  kUnevaluatedPropertiesNarrowed,
  kDependencyArrayAdded,
  kDependencyArrayRemoved,
  kDependencyArrayExtended,
  kDependencyArrayNarrowed,
  kDependencyArrayChanged,
  kDependencySchemaAdded,
  kDependencySchemaRemoved,
  kPropertyWithEmptySchemaAddedToOpenContentModel,
  kRequiredPropertyAddedToOpenContentModel,
  kRequiredPropertyWithDefaultAddedToOpenContentModel,
  kOptionalPropertyAddedToOpenContentModel,
  kRequiredPropertyAddedToUnopenContentModel,
  kRequiredPropertyWithDefaultAddedToUnopenContentModel,
  kOptionalPropertyAddedToUnopenContentModel,
  kPropertyRemovedFromOpenContentModel,
  kPropertyWithFalseRemovedFromClosedContentModel,
  kPropertyRemovedFromClosedContentModel,
  kPropertyRemovedIsCoveredByPartiallyOpenContentModel,
  kPropertyRemovedNotCoveredByPartiallyOpenContentModel,
  kPropertyAddedIsCoveredByPartiallyOpenContentModel,
  kPropertyAddedNotCoveredByPartiallyOpenContentModel,
  kReservedPropertyRemoved,
  kReservedPropertyConflictsWithProperty,
  kMaxItemsAdded,
  kMaxItemsRemoved,
  kMaxItemsIncreased,
  kMaxItemsDecreased,
  kMinItemsAdded,
  kMinItemsRemoved,
  kMinItemsIncreased,
  kMinItemsDecreased,
  kMaxContainsAdded,
  kMaxContainsRemoved,
  kMaxContainsIncreased,
  kMaxContainsDecreased,
  kMinContainsAdded,
  kMinContainsRemoved,
  kMinContainsIncreased,
  kMinContainsDecreased,
  kUniqueItemsAdded,
  kUniqueItemsRemoved,
  kAdditionalItemsAdded,
  kAdditionalItemsRemoved,
  kAdditionalItemsExtended,
  kAdditionalItemsNarrowed,
  kUnevaluatedItemsAdded,
  kUnevaluatedItemsRemoved,
  kUnevaluatedItemsExtended,
  kUnevaluatedItemsNarrowed,
  kItemAddedToOpenContentModel,
  kItemWithEmptySchemaAddedToOpenContentModel,
  kItemAddedToClosedContentModel,
  kItemRemovedFromOpenContentModel,
  kItemWithFalseRemovedFromClosedContentModel,
  kItemRemovedFromClosedContentModel,
  kItemRemovedIsCoveredByPartiallyOpenContentModel,
  kItemRemovedNotCoveredByPartiallyOpenContentModel,
  kItemAddedIsCoveredByPartiallyOpenContentModel,
  kItemAddedNotCoveredByPartiallyOpenContentModel,
  kEnumArrayExtended,
  kEnumArrayNarrowed,
  kEnumArrayChanged,
  kCombinedTypeExtended,
  kCombinedTypeChanged,
  kProductTypeExtended,
  kProductTypeNarrowed,
  kSumTypeExtended,
  kSumTypeNarrowed,
  kCombinedTypeSubschemasChanged,
  kNotTypeExtended,
  kNotTypeNarrowed,
};

/// The number of DifferenceType enumerators.
inline constexpr size_t kDifferenceTypeCount =
    static_cast<size_t>(DifferenceType::kNotTypeNarrowed) + 1;

/// Confluent's name of `type`, e.g. "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL".
std::string_view DifferenceTypeName(DifferenceType type);
/// The type Confluent names `name`, or nullopt.
std::optional<DifferenceType> DifferenceTypeFromName(std::string_view name);

/// One difference: what changed and where, as Confluent's JSON path ("#/", "#/properties/a",
/// "#/items/2", "#/anyOf/0/maxLength"; property names are not escaped). For
/// RESERVED_PROPERTY_REMOVED the path is the property name itself, as Confluent has it.
struct Difference {
  DifferenceType type;
  std::string json_path;

  bool operator==(const Difference& other) const = default;
};

/// Confluent's `compatibilityPolicy`: STRICT (the default) or LENIENT, which also accepts
/// additionalProperties being tightened, properties added to an open content model and
/// properties removed from a closed one (changes that are only safe if producers never wrote
/// undeclared properties).
enum class CompatibilityPolicy : uint8_t { kStrict, kLenient };

/// "STRICT" or "LENIENT".
std::string_view CompatibilityPolicyName(CompatibilityPolicy policy);

/// Whether Confluent counts `type` as compatible under `policy`.
bool IsCompatibleChange(DifferenceType type, CompatibilityPolicy policy);

/// True when every difference is compatible under `policy`: the update can read every document
/// valid under the original.
bool IsCompatible(const std::vector<Difference>& differences,
                  CompatibilityPolicy policy = CompatibilityPolicy::kStrict);

struct CompareOptions {
  /// The policy decides more than the final verdict: Confluent asks it inside the comparison
  /// (does an anyOf branch accept the old schema, is a removed property covered by
  /// patternProperties), so the differences reported can depend on it.
  CompatibilityPolicy policy = CompatibilityPolicy::kStrict;

  /// Confluent's schema metadata `properties` of each version. Only "confluent:reserved" (a
  /// comma-separated list of property names) is read: a reserved name dropped from the update
  /// is RESERVED_PROPERTY_REMOVED, one the update's root object declares is
  /// RESERVED_PROPERTY_CONFLICTS_WITH_PROPERTY.
  std::map<std::string, std::string, std::less<>> original_metadata;
  std::map<std::string, std::string, std::less<>> update_metadata;

  /// Work bounds for hostile or pathological input; exceeding one is kInvalidArgument.
  /// Nesting of schema pairs being compared at once (the C++ stack grows with it).
  size_t max_depth = 512;
  /// Schema pairs compared plus regular-expression and matching steps.
  size_t max_steps = 20'000'000;
  /// Differences one comparison may report (a schema whose `$ref`s share subschemas can repeat
  /// a difference under exponentially many paths).
  size_t max_differences = 100'000;
};

/// Return every difference between `original` (the older schema, what data was written with)
/// and `update` (the newer, what readers will use), in Confluent's traversal order (property
/// order may differ: Confluent iterates a Java HashSet).
///
/// Recursive schemas are compared once per pair of subschemas; a pair met again while it is
/// being compared counts as compatible (Confluent's optimistic treatment of cycles), and
/// results that relied on such an assumption are dropped if it turns out false. anyOf/oneOf/
/// allOf lists are matched by maximum bipartite matching over compatible pairs, which stays
/// polynomial.
///
/// Errors: kUnimplemented for an external `$ref` the comparison has to follow (Confluent
/// refuses unresolvable references too), kInvalidArgument for a `patternProperties` pattern
/// that is not a valid regular expression (naming its pointer) or when a bound in `options` is
/// exceeded.
Result<std::vector<Difference>> Compare(const JsonSchemaDocument& original,
                                        const JsonSchemaDocument& update,
                                        const CompareOptions& options = {});

/// Parse both texts as Confluent reads schemas (draft 7 unless `$schema` says otherwise) and
/// Compare them. Parse errors are prefixed "original schema: " or "update schema: ".
Result<std::vector<Difference>> CompareSchemaTexts(std::string_view original,
                                                   std::string_view update,
                                                   const CompareOptions& options = {});

/// The description Confluent gives the difference in a BACKWARD check, where the update is
/// "the new schema": "The keyword at path '#/properties/a/maxLength' in the new schema is not
/// present in the old schema". Types Confluent never reports (compatible ones) get a sentence in
/// the same style.
std::string DescribeDifference(const Difference& difference);

/// The difference as Confluent's registry prints it in an incompatibility list:
/// `{errorType:"MAX_LENGTH_ADDED", description:"The keyword at path ...'}` (the closing quote
/// really is a single quote upstream).
std::string FormatConfluentError(const Difference& difference);

/// A fix in plain words for an incompatible difference ("make `bar` optional, or give it a
/// default"); empty for compatible types.
std::string FixHint(const Difference& difference);

namespace internal {
/// Whether ECMA-262 regular expression `pattern` matches somewhere in `text` (Java's
/// Matcher.find, which Confluent uses on patternProperties). Linear time (a Pike VM). Errors:
/// kInvalidArgument for a malformed pattern, kUnimplemented for lookaround, backreferences and
/// \p classes. `steps`, when given, is incremented by the work done. Exposed for tests.
Result<bool> RegexSearch(std::string_view pattern, std::string_view text, size_t* steps = nullptr);
}  // namespace internal

}  // namespace sluice::dialects::jsonschema
