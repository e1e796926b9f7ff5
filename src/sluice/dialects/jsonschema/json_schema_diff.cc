#include "sluice/dialects/jsonschema/json_schema_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>

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

// ---------------------------------------------------------------------------------------------
// Regular expressions for patternProperties: an ECMA-262 subset compiled for a Pike VM, so a
// hostile pattern costs time linear in the subject, never exponential, and no recursion on the
// subject's length.

namespace regex {

constexpr uint32_t kMaxCodePoint = 0x10FFFF;
constexpr uint32_t kUnbounded = std::numeric_limits<uint32_t>::max();
constexpr size_t kMaxProgram = 20000;  // instructions, after expanding {n,m}
constexpr size_t kMaxNesting = 200;    // group depth: the parser recurses on it
constexpr uint32_t kMaxRepeat = 1000;  // the largest n or m of {n,m}

// UTF-8 to code points; a byte that does not start a valid sequence stands for itself.
std::vector<uint32_t> Decode(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<uint8_t>(s[i]);
    int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    bool ok = len > 0 && i + len <= s.size();
    for (int j = 1; ok && j < len; ++j) {
      auto c = static_cast<uint8_t>(s[i + j]);
      if ((c >> 6) != 2) ok = false;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (!ok || cp > kMaxCodePoint) {
      out.push_back(b);
      ++i;
    } else {
      out.push_back(cp);
      i += len;
    }
  }
  return out;
}

struct Range {
  uint32_t lo;
  uint32_t hi;
};

struct CharSet {
  std::vector<Range> ranges;  // sorted and merged once Normalize ran

  void Add(uint32_t lo, uint32_t hi) { ranges.push_back({lo, hi}); }
  void AddAll(const CharSet& other) {
    ranges.insert(ranges.end(), other.ranges.begin(), other.ranges.end());
  }
  void Normalize() {
    std::sort(ranges.begin(), ranges.end(),
              [](const Range& a, const Range& b) { return a.lo < b.lo; });
    std::vector<Range> merged;
    for (const Range& r : ranges) {
      if (!merged.empty() && r.lo <= merged.back().hi + 1) {
        merged.back().hi = std::max(merged.back().hi, r.hi);
      } else {
        merged.push_back(r);
      }
    }
    ranges = std::move(merged);
  }
  void Negate() {
    Normalize();
    std::vector<Range> out;
    uint32_t next = 0;
    for (const Range& r : ranges) {
      if (r.lo > next) out.push_back({next, r.lo - 1});
      next = r.hi + 1;
    }
    if (next <= kMaxCodePoint) out.push_back({next, kMaxCodePoint});
    ranges = std::move(out);
  }
  bool Contains(uint32_t c) const {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), c,
                               [](uint32_t v, const Range& r) { return v < r.lo; });
    return it != ranges.begin() && c <= std::prev(it)->hi;
  }
};

CharSet Digits() {
  CharSet s;
  s.Add('0', '9');
  return s;
}
CharSet WordChars() {
  CharSet s;
  s.Add('0', '9');
  s.Add('A', 'Z');
  s.Add('_', '_');
  s.Add('a', 'z');
  return s;
}
CharSet Spaces() {
  CharSet s;
  for (uint32_t c : {0x09u, 0x0Au, 0x0Bu, 0x0Cu, 0x0Du, 0x20u, 0xA0u, 0x1680u, 0x2028u, 0x2029u,
                     0x202Fu, 0x205Fu, 0x3000u, 0xFEFFu}) {
    s.Add(c, c);
  }
  s.Add(0x2000, 0x200A);
  return s;
}
bool IsWordChar(uint32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

enum class NodeKind : uint8_t {
  kSet,
  kBegin,
  kEnd,
  kWordBoundary,
  kNotWordBoundary,
  kConcat,
  kAlternate,
  kRepeat,
};

struct Node {
  NodeKind kind;
  std::vector<size_t> children;
  size_t set = 0;
  uint32_t min = 0;
  uint32_t max = 0;
};

enum class Op : uint8_t { kChar, kSplit, kJump, kMatch, kBegin, kEnd, kWordBoundary, kNotWord };

struct Inst {
  Op op;
  uint32_t x = 0;  // kChar: the set; kSplit/kJump: a target
  uint32_t y = 0;  // kSplit: the other target
};

struct Program {
  std::vector<Inst> insts;
  std::vector<CharSet> sets;
};

class Compiler {
 public:
  explicit Compiler(std::string_view pattern) : p_(Decode(pattern)) {}

  Result<Program> Compile() {
    size_t root = 0;
    SLUICE_TRY(Alternation(0, &root));
    if (pos_ < p_.size()) return Invalid("unmatched ')'");
    SLUICE_TRY(Emit(root, 0));
    SLUICE_TRY(Push({Op::kMatch}));
    program_.sets = std::move(sets_);
    return std::move(program_);
  }

 private:
  Unexpected<Error> Invalid(std::string_view what) {
    return InvalidArgument(
        fmt::format("invalid regular expression: {} at character {}", what, pos_));
  }
  Unexpected<Error> Unsupported(std::string_view what) {
    return Unimplemented(fmt::format("unsupported regular expression feature: {}", what));
  }

  bool AtEnd() const { return pos_ >= p_.size(); }
  uint32_t Peek(size_t ahead = 0) const {
    return pos_ + ahead < p_.size() ? p_[pos_ + ahead] : 0xFFFFFFFF;
  }

  size_t NewNode(Node n) {
    nodes_.push_back(std::move(n));
    return nodes_.size() - 1;
  }
  size_t NewSet(CharSet s) {
    s.Normalize();
    sets_.push_back(std::move(s));
    return NewNode(Node{NodeKind::kSet, {}, sets_.size() - 1});
  }

  Status Alternation(size_t depth, size_t* out) {
    if (depth > kMaxNesting) return Unsupported("groups nested too deeply");
    std::vector<size_t> alternatives;
    size_t first = 0;
    SLUICE_TRY(Concat(depth, &first));
    alternatives.push_back(first);
    while (Peek() == '|') {
      ++pos_;
      size_t next = 0;
      SLUICE_TRY(Concat(depth, &next));
      alternatives.push_back(next);
    }
    *out = alternatives.size() == 1 ? alternatives[0]
                                    : NewNode(Node{NodeKind::kAlternate, std::move(alternatives)});
    return Ok();
  }

  Status Concat(size_t depth, size_t* out) {
    std::vector<size_t> items;
    while (!AtEnd() && Peek() != '|' && Peek() != ')') {
      size_t item = 0;
      SLUICE_TRY(Repeat(depth, &item));
      items.push_back(item);
    }
    *out = NewNode(Node{NodeKind::kConcat, std::move(items)});
    return Ok();
  }

  // Read `{n}`, `{n,}` or `{n,m}` at pos_ without consuming it unless it is one.
  bool ReadBraces(uint32_t* min, uint32_t* max) {
    size_t at = pos_ + 1;
    auto number = [&](uint32_t* v) {
      size_t start = at;
      uint64_t n = 0;
      while (at < p_.size() && p_[at] >= '0' && p_[at] <= '9') {
        n = std::min<uint64_t>(n * 10 + (p_[at] - '0'), uint64_t{kUnbounded} - 1);
        ++at;
      }
      *v = static_cast<uint32_t>(n);
      return at > start;
    };
    if (!number(min)) return false;
    *max = *min;
    if (at < p_.size() && p_[at] == ',') {
      ++at;
      if (!number(max)) *max = kUnbounded;
    }
    if (at >= p_.size() || p_[at] != '}') return false;
    pos_ = at + 1;
    return true;
  }

  Status Repeat(size_t depth, size_t* out) {
    size_t atom = 0;
    bool assertion = false;
    SLUICE_TRY(Atom(depth, &atom, &assertion));
    uint32_t min = 0;
    uint32_t max = 0;
    uint32_t c = Peek();
    if (c == '*') {
      min = 0, max = kUnbounded, ++pos_;
    } else if (c == '+') {
      min = 1, max = kUnbounded, ++pos_;
    } else if (c == '?') {
      min = 0, max = 1, ++pos_;
    } else if (c == '{' && ReadBraces(&min, &max)) {
      if (max < min) return Invalid("numbers out of order in {} quantifier");
    } else {
      *out = atom;
      return Ok();
    }
    if (assertion) return Invalid("nothing to repeat");
    if (Peek() == '?') ++pos_;  // lazy: whether a match exists does not depend on it
    uint32_t save = static_cast<uint32_t>(pos_);
    uint32_t m1 = 0;
    uint32_t m2 = 0;
    if (Peek() == '*' || Peek() == '+' || Peek() == '?' ||
        (Peek() == '{' && ReadBraces(&m1, &m2))) {
      pos_ = save;
      return Invalid("nothing to repeat");
    }
    if (min > kMaxRepeat || (max != kUnbounded && max > kMaxRepeat)) {
      return Unsupported("a repetition count above 1000");
    }
    *out = NewNode(Node{NodeKind::kRepeat, {atom}, 0, min, max});
    return Ok();
  }

  Status Atom(size_t depth, size_t* out, bool* assertion) {
    uint32_t c = p_[pos_++];
    *assertion = false;
    if (c == '^' || c == '$') {
      *assertion = true;
      *out = NewNode(Node{c == '^' ? NodeKind::kBegin : NodeKind::kEnd});
      return Ok();
    }
    if (c == '.') {
      CharSet s;
      for (uint32_t t : {0x0Au, 0x0Du, 0x2028u, 0x2029u}) s.Add(t, t);
      s.Negate();
      *out = NewSet(std::move(s));
      return Ok();
    }
    if (c == '(') {
      if (Peek() == '?') {
        if (Peek(1) == ':') {
          pos_ += 2;
        } else if (Peek(1) == '<' && Peek(2) != '=' && Peek(2) != '!') {
          pos_ += 2;  // a named group: skip the name
          while (!AtEnd() && Peek() != '>') ++pos_;
          if (AtEnd()) return Invalid("unterminated group name");
          ++pos_;
        } else {
          return Unsupported("lookahead and lookbehind");
        }
      }
      SLUICE_TRY(Alternation(depth + 1, out));
      if (Peek() != ')') return Invalid("missing ')'");
      ++pos_;
      return Ok();
    }
    if (c == '[') return Class(out);
    if (c == '\\') return Escape(out, assertion);
    if (c == '*' || c == '+' || c == '?') return Invalid("nothing to repeat");
    if (c == '{') {
      --pos_;
      uint32_t a = 0;
      uint32_t b = 0;
      if (ReadBraces(&a, &b)) return Invalid("nothing to repeat");
      ++pos_;  // a lone '{' is a literal (ECMA-262 Annex B)
    }
    CharSet s;
    s.Add(c, c);
    *out = NewSet(std::move(s));
    return Ok();
  }

  // Hex digits at pos_: consume `count` of them, or none.
  bool ReadHex(size_t count, uint32_t* value) {
    if (pos_ + count > p_.size()) return false;
    uint32_t v = 0;
    for (size_t i = 0; i < count; ++i) {
      uint32_t d = p_[pos_ + i];
      int digit = d >= '0' && d <= '9'   ? int(d - '0')
                  : d >= 'a' && d <= 'f' ? int(d - 'a' + 10)
                  : d >= 'A' && d <= 'F' ? int(d - 'A' + 10)
                                         : -1;
      if (digit < 0) return false;
      v = v * 16 + static_cast<uint32_t>(digit);
    }
    pos_ += count;
    *value = v;
    return true;
  }

  // An escape after '\': a class (\d), an assertion (\b, outside classes) or one code point.
  // Returns the class in `set` when it is one, else the code point in `cp`.
  Status EscapeAtom(bool in_class, CharSet* set, bool* is_set, uint32_t* cp, int* assertion) {
    if (AtEnd()) return Invalid("\\ at end of pattern");
    uint32_t c = p_[pos_++];
    *is_set = false;
    *assertion = 0;
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 's':
      case 'S': {
        *set = c == 'd' || c == 'D' ? Digits() : c == 'w' || c == 'W' ? WordChars() : Spaces();
        if (c == 'D' || c == 'W' || c == 'S') set->Negate();
        *is_set = true;
        return Ok();
      }
      case 'b':
        if (in_class) {
          *cp = 0x08;
        } else {
          *assertion = 1;
        }
        return Ok();
      case 'B':
        if (in_class) return Invalid("\\B in a class");
        *assertion = 2;
        return Ok();
      case 't':
        *cp = 0x09;
        return Ok();
      case 'n':
        *cp = 0x0A;
        return Ok();
      case 'v':
        *cp = 0x0B;
        return Ok();
      case 'f':
        *cp = 0x0C;
        return Ok();
      case 'r':
        *cp = 0x0D;
        return Ok();
      case '0':
        *cp = 0;
        return Ok();
      case 'x':
        if (!ReadHex(2, cp)) *cp = 'x';
        return Ok();
      case 'u':
        if (Peek() == '{') {
          size_t save = pos_++;
          uint32_t v = 0;
          size_t digits = 0;
          uint32_t one = 0;
          while (ReadHex(1, &one)) {
            v = std::min<uint32_t>(v * 16 + one, kMaxCodePoint + 1);
            ++digits;
          }
          if (digits > 0 && Peek() == '}' && v <= kMaxCodePoint) {
            ++pos_;
            *cp = v;
            return Ok();
          }
          pos_ = save;
          *cp = 'u';
          return Ok();
        }
        if (!ReadHex(4, cp)) *cp = 'u';
        return Ok();
      case 'c':
        if ((Peek() >= 'a' && Peek() <= 'z') || (Peek() >= 'A' && Peek() <= 'Z')) {
          *cp = p_[pos_++] % 32;
        } else {
          --pos_;
          *cp = '\\';  // Annex B: "\c" not followed by a letter is a backslash and a 'c'
        }
        return Ok();
      case 'p':
      case 'P':
      case 'k':
        return Unsupported("\\p, \\P and \\k");
      default:
        if (c >= '1' && c <= '9') return Unsupported("backreferences");
        *cp = c;  // an identity escape: \. \\ \/ \- ...
        return Ok();
    }
  }

  Status Escape(size_t* out, bool* assertion) {
    CharSet set;
    bool is_set = false;
    uint32_t cp = 0;
    int which = 0;
    SLUICE_TRY(EscapeAtom(false, &set, &is_set, &cp, &which));
    if (which != 0) {
      *assertion = true;
      *out = NewNode(Node{which == 1 ? NodeKind::kWordBoundary : NodeKind::kNotWordBoundary});
      return Ok();
    }
    if (!is_set) set.Add(cp, cp);
    *out = NewSet(std::move(set));
    return Ok();
  }

  Status ClassAtom(CharSet* set, bool* is_set, uint32_t* cp) {
    uint32_t c = p_[pos_++];
    *is_set = false;
    if (c != '\\') {
      *cp = c;
      return Ok();
    }
    int which = 0;
    return EscapeAtom(true, set, is_set, cp, &which);
  }

  Status Class(size_t* out) {
    bool negated = Peek() == '^';
    if (negated) ++pos_;
    CharSet s;
    while (true) {
      if (AtEnd()) return Invalid("missing ']'");
      if (Peek() == ']') {
        ++pos_;
        break;
      }
      CharSet a_set;
      bool a_is_set = false;
      uint32_t a = 0;
      SLUICE_TRY(ClassAtom(&a_set, &a_is_set, &a));
      if (Peek() == '-' && Peek(1) != ']' && pos_ + 1 < p_.size()) {
        ++pos_;
        CharSet b_set;
        bool b_is_set = false;
        uint32_t b = 0;
        SLUICE_TRY(ClassAtom(&b_set, &b_is_set, &b));
        if (a_is_set || b_is_set) {
          // Annex B: a class escape beside '-' makes the '-' literal.
          if (a_is_set)
            s.AddAll(a_set);
          else
            s.Add(a, a);
          s.Add('-', '-');
          if (b_is_set)
            s.AddAll(b_set);
          else
            s.Add(b, b);
          continue;
        }
        if (a > b) return Invalid("range out of order in character class");
        s.Add(a, b);
        continue;
      }
      if (a_is_set) {
        s.AddAll(a_set);
      } else {
        s.Add(a, a);
      }
    }
    if (negated) s.Negate();
    *out = NewSet(std::move(s));
    return Ok();
  }

  Status Push(Inst inst) {
    if (program_.insts.size() >= kMaxProgram) {
      return Unsupported("a pattern that expands to more than 20000 instructions");
    }
    program_.insts.push_back(inst);
    return Ok();
  }
  uint32_t Pc() const { return static_cast<uint32_t>(program_.insts.size()); }

  Status Emit(size_t index, size_t depth) {
    if (depth > 2 * kMaxNesting + 8) return Unsupported("groups nested too deeply");
    const Node& n = nodes_[index];
    switch (n.kind) {
      case NodeKind::kSet:
        return Push({Op::kChar, static_cast<uint32_t>(n.set)});
      case NodeKind::kBegin:
        return Push({Op::kBegin});
      case NodeKind::kEnd:
        return Push({Op::kEnd});
      case NodeKind::kWordBoundary:
        return Push({Op::kWordBoundary});
      case NodeKind::kNotWordBoundary:
        return Push({Op::kNotWord});
      case NodeKind::kConcat:
        for (size_t child : n.children) SLUICE_TRY(Emit(child, depth + 1));
        return Ok();
      case NodeKind::kAlternate: {
        std::vector<uint32_t> jumps;
        for (size_t i = 0; i < n.children.size(); ++i) {
          if (i + 1 < n.children.size()) {
            uint32_t split = Pc();
            SLUICE_TRY(Push({Op::kSplit, split + 1, 0}));
            SLUICE_TRY(Emit(n.children[i], depth + 1));
            jumps.push_back(Pc());
            SLUICE_TRY(Push({Op::kJump}));
            program_.insts[split].y = Pc();
          } else {
            SLUICE_TRY(Emit(n.children[i], depth + 1));
          }
        }
        for (uint32_t j : jumps) program_.insts[j].x = Pc();
        return Ok();
      }
      case NodeKind::kRepeat: {
        size_t child = n.children[0];
        uint32_t min = n.min;
        uint32_t max = n.max;
        for (uint32_t i = 0; i < min; ++i) SLUICE_TRY(Emit(child, depth + 1));
        if (max == kUnbounded) {
          uint32_t loop = Pc();
          SLUICE_TRY(Push({Op::kSplit, loop + 1, 0}));
          SLUICE_TRY(Emit(child, depth + 1));
          SLUICE_TRY(Push({Op::kJump, loop}));
          program_.insts[loop].y = Pc();
          return Ok();
        }
        std::vector<uint32_t> splits;
        for (uint32_t i = min; i < max; ++i) {
          splits.push_back(Pc());
          SLUICE_TRY(Push({Op::kSplit, Pc() + 1, 0}));
          SLUICE_TRY(Emit(child, depth + 1));
        }
        for (uint32_t s : splits) program_.insts[s].y = Pc();
        return Ok();
      }
    }
    return Ok();
  }

  std::vector<uint32_t> p_;
  size_t pos_ = 0;
  std::vector<Node> nodes_;
  std::vector<CharSet> sets_;
  Program program_;
};

// Whether `program` matches somewhere in `text` (unanchored search). Each step of the Pike VM
// adds to *steps; past `max_steps` it stops with kInvalidArgument.
Result<bool> Run(const Program& program, const std::vector<uint32_t>& text, size_t* steps,
                 size_t max_steps) {
  const size_t n = text.size();
  const size_t size = program.insts.size();
  std::vector<size_t> mark(size, 0);  // the generation (position + 1) a pc was last added at
  std::vector<uint32_t> current;
  std::vector<uint32_t> next;
  std::vector<uint32_t> stack;
  bool matched = false;
  // Follow jumps, splits and assertions from `pc` at position `pos`; collect kChar threads.
  auto add = [&](std::vector<uint32_t>& list, uint32_t start, size_t pos) {
    stack.push_back(start);
    while (!stack.empty()) {
      uint32_t pc = stack.back();
      stack.pop_back();
      if (mark[pc] == pos + 1) continue;
      mark[pc] = pos + 1;
      ++*steps;
      const Inst& in = program.insts[pc];
      switch (in.op) {
        case Op::kChar:
          list.push_back(pc);
          break;
        case Op::kSplit:
          stack.push_back(in.y);
          stack.push_back(in.x);
          break;
        case Op::kJump:
          stack.push_back(in.x);
          break;
        case Op::kMatch:
          matched = true;
          break;
        case Op::kBegin:
          if (pos == 0) stack.push_back(pc + 1);
          break;
        case Op::kEnd:
          if (pos == n) stack.push_back(pc + 1);
          break;
        case Op::kWordBoundary:
        case Op::kNotWord: {
          bool before = pos > 0 && IsWordChar(text[pos - 1]);
          bool after = pos < n && IsWordChar(text[pos]);
          if ((before != after) == (in.op == Op::kWordBoundary)) stack.push_back(pc + 1);
          break;
        }
      }
    }
  };
  for (size_t pos = 0; pos <= n; ++pos) {
    add(current, 0, pos);
    if (matched) return true;
    if (*steps > max_steps) return InvalidArgument("regular expression work bound exceeded");
    if (pos == n) break;
    next.clear();
    for (uint32_t pc : current) {
      ++*steps;
      if (program.sets[program.insts[pc].x].Contains(text[pos])) add(next, pc + 1, pos + 1);
      if (matched) return true;
    }
    current.swap(next);
  }
  return false;
}

}  // namespace regex

// ---------------------------------------------------------------------------------------------
// The schema model the comparison runs on: everit-json-schema's classes, as Confluent sees them.
// A Model reads its keywords from the SchemaNode it came from; one node can give several models
// (the branches of a `type` array, the parts of an implicit allOf).

enum class Kind : uint8_t {
  kEmpty,  // {} (everit EmptySchema), also a schema with no keyword the model knows
  kTrue,   // true (everit TrueSchema, a subclass of EmptySchema)
  kFalse,  // false
  kString,
  kNumber,  // number and integer (requires_integer)
  kBoolean,
  kNull,
  kObject,
  kArray,
  kEnum,
  kConst,
  kNot,
  kCombined,     // allOf / anyOf / oneOf, written or implicit
  kReference,    // $ref, followed before comparing
  kConditional,  // if/then/else: compared by annotations only, as Confluent does
};

enum class Criterion : uint8_t { kAllOf, kAnyOf, kOneOf };

std::string_view CriterionName(Criterion c) {
  switch (c) {
    case Criterion::kAllOf:
      return "allOf";
    case Criterion::kAnyOf:
      return "anyOf";
    case Criterion::kOneOf:
      return "oneOf";
  }
  return "allOf";
}

class Loader;

struct Model {
  Kind kind = Kind::kEmpty;
  const Loader* loader = nullptr;
  const SchemaNode* node = nullptr;
  uint32_t id = 0;
  // Carries the node's $id/title/description/default: the outermost model of a node only.
  bool annotated = false;
  // A branch of a 2019-09/2020-12 `type` array: the type alone, no keyword of the node.
  bool bare = false;
  bool requires_integer = false;  // kNumber
  Criterion criterion = Criterion::kAllOf;
  std::vector<const SchemaNode*> sub_nodes;  // kCombined from allOf/anyOf/oneOf
  std::vector<const Model*> sub_models;      // kCombined made by the loader
};

bool IsModern(Draft d) { return d == Draft::k2019_09 || d == Draft::k2020_12; }

bool HasAny(const JsonValue& raw, std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) {
    if (raw.Find(k) != nullptr) return true;
  }
  return false;
}

// Builds and owns-by-arena the models of one document, one node at a time and only when the
// comparison reaches it, so building never recurses.
class Loader {
 public:
  Loader(const JsonSchemaDocument& doc, std::deque<Model>& arena)
      : doc_(doc), arena_(arena), by_node_(doc.node_count(), nullptr) {}

  const JsonSchemaDocument& doc() const { return doc_; }
  Draft draft() const { return doc_.draft(); }
  bool modern() const { return IsModern(doc_.draft()); }

  const Model* ModelFor(const SchemaNode* node) {
    const Model*& slot = by_node_[node->index()];
    if (slot == nullptr) slot = modern() ? BuildModern(node) : BuildEverit(node);
    return slot;
  }

 private:
  Model* New(Kind kind, const SchemaNode* node) {
    Model& m = arena_.emplace_back();
    m.kind = kind;
    m.loader = this;
    m.node = node;
    m.id = static_cast<uint32_t>(arena_.size() - 1);
    return &m;
  }

  Model* Typed(InstanceType type, const SchemaNode* node) {
    switch (type) {
      case InstanceType::kNull:
        return New(Kind::kNull, node);
      case InstanceType::kBoolean:
        return New(Kind::kBoolean, node);
      case InstanceType::kObject:
        return New(Kind::kObject, node);
      case InstanceType::kArray:
        return New(Kind::kArray, node);
      case InstanceType::kNumber:
        return New(Kind::kNumber, node);
      case InstanceType::kInteger: {
        Model* m = New(Kind::kNumber, node);
        m->requires_integer = true;
        return m;
      }
      case InstanceType::kString:
        return New(Kind::kString, node);
    }
    return New(Kind::kEmpty, node);
  }

  // No part: an empty schema; one: that part; more: an implicit allOf. The annotations go on
  // the result, as both everit and Confluent's translator put them.
  const Model* Finish(std::vector<Model*>& parts, const SchemaNode* node) {
    Model* out = nullptr;
    if (parts.empty()) {
      out = New(Kind::kEmpty, node);
    } else if (parts.size() == 1) {
      out = parts[0];
    } else {
      out = New(Kind::kCombined, node);
      out->criterion = Criterion::kAllOf;
      out->sub_models.assign(parts.begin(), parts.end());
    }
    out->annotated = true;
    return out;
  }

  // Drafts 4-7 as everit's SchemaLoader reads them: `$ref` alone (siblings ignored), else the
  // extractors in everit's order (enum, combiners, not, const, type, then keywords sniffed from
  // what `type` did not consume).
  const Model* BuildEverit(const SchemaNode* node) {
    if (node->is_boolean()) return New(node->boolean_value() ? Kind::kTrue : Kind::kFalse, node);
    const SchemaKeywords& k = node->keywords();
    const JsonValue& raw = node->raw();
    if (k.ref) {
      Model* ref = New(Kind::kReference, node);
      ref->annotated = true;
      return ref;
    }
    const Draft draft = doc_.draft();
    std::vector<Model*> parts;
    if (k.enum_values) parts.push_back(New(Kind::kEnum, node));
    // everit collects the combiner keys into a HashSet: allOf, oneOf, anyOf is its order.
    const std::pair<Criterion, const Boxed<std::vector<const SchemaNode*>>*> combiners[] = {
        {Criterion::kAllOf, &k.all_of},
        {Criterion::kOneOf, &k.one_of},
        {Criterion::kAnyOf, &k.any_of}};
    for (const auto& [criterion, list] : combiners) {
      if (!*list) continue;
      Model* m = New(Kind::kCombined, node);
      m->criterion = criterion;
      m->sub_nodes = **list;
      parts.push_back(m);
    }
    if (k.not_schema) parts.push_back(New(Kind::kNot, node));
    if (draft != Draft::kDraft4 && k.const_value) parts.push_back(New(Kind::kConst, node));
    bool typed[4] = {false, false, false, false};  // array, object, number, string consumed
    auto consume = [&](InstanceType t) {
      if (t == InstanceType::kArray) typed[0] = true;
      if (t == InstanceType::kObject) typed[1] = true;
      if (t == InstanceType::kNumber || t == InstanceType::kInteger) typed[2] = true;
      if (t == InstanceType::kString) typed[3] = true;
    };
    if (k.type && !k.type->types.empty()) {
      if (k.type->array_form) {
        Model* any = New(Kind::kCombined, node);
        any->criterion = Criterion::kAnyOf;
        for (InstanceType t : k.type->types) {
          any->sub_models.push_back(Typed(t, node));
          consume(t);
        }
        parts.push_back(any);
      } else {
        parts.push_back(Typed(k.type->types[0], node));
        consume(k.type->types[0]);
      }
    }
    const bool draft6 = draft != Draft::kDraft4;
    if (!typed[0] &&
        (HasAny(raw, {"items", "additionalItems", "minItems", "maxItems", "uniqueItems"}) ||
         (draft6 && raw.Find("contains") != nullptr))) {
      parts.push_back(New(Kind::kArray, node));
    }
    if (!typed[1] && (HasAny(raw, {"properties", "required", "minProperties", "maxProperties",
                                   "dependencies", "patternProperties", "additionalProperties"}) ||
                      (draft6 && raw.Find("propertyNames") != nullptr))) {
      parts.push_back(New(Kind::kObject, node));
    }
    if (!typed[2] &&
        HasAny(raw, {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})) {
      parts.push_back(New(Kind::kNumber, node));
    }
    if (!typed[3] && HasAny(raw, {"minLength", "maxLength", "pattern", "format"})) {
      parts.push_back(New(Kind::kString, node));
    }
    if (draft == Draft::kDraft7 && HasAny(raw, {"if", "then", "else"})) {
      parts.push_back(New(Kind::kConditional, node));
    }
    return Finish(parts, node);
  }

  // 2019-09 and 2020-12 as Confluent's SchemaTranslator turns json-sKema's model into everit's:
  // every keyword is a partial schema, partials of one kind merge, the rest form an implicit
  // allOf in keyword order. A `type` array is an anyOf of bare types.
  const Model* BuildModern(const SchemaNode* node) {
    if (node->is_boolean()) return New(node->boolean_value() ? Kind::kTrue : Kind::kFalse, node);
    const SchemaKeywords& k = node->keywords();
    std::vector<Model*> parts;
    Model* slots[4] = {nullptr, nullptr, nullptr, nullptr};  // string, number, object, array
    auto merged = [&](int slot, Kind kind) {
      if (slots[slot] == nullptr) {
        slots[slot] = New(kind, node);
        parts.push_back(slots[slot]);
      }
      return slots[slot];
    };
    bool conditional = false;
    for (const JsonMember& m : node->raw().members()) {
      std::string_view key = m.key;
      if (key == "$ref") {
        if (k.ref) parts.push_back(New(Kind::kReference, node));
      } else if (key == "enum") {
        parts.push_back(New(Kind::kEnum, node));
      } else if (key == "const") {
        parts.push_back(New(Kind::kConst, node));
      } else if (key == "not") {
        parts.push_back(New(Kind::kNot, node));
      } else if (key == "allOf" || key == "anyOf" || key == "oneOf") {
        Model* c = New(Kind::kCombined, node);
        c->criterion = key == "allOf"   ? Criterion::kAllOf
                       : key == "anyOf" ? Criterion::kAnyOf
                                        : Criterion::kOneOf;
        const auto& list = key == "allOf" ? k.all_of : key == "anyOf" ? k.any_of : k.one_of;
        if (list) c->sub_nodes = *list;
        parts.push_back(c);
      } else if (key == "type") {
        if (!k.type || k.type->types.empty()) continue;
        if (k.type->array_form) {
          Model* any = New(Kind::kCombined, node);
          any->criterion = Criterion::kAnyOf;
          for (InstanceType t : k.type->types) {
            Model* bare = Typed(t, node);
            bare->bare = true;
            any->sub_models.push_back(bare);
          }
          parts.push_back(any);
          continue;
        }
        switch (k.type->types[0]) {
          case InstanceType::kString:
            merged(0, Kind::kString);
            break;
          case InstanceType::kNumber:
            merged(1, Kind::kNumber);
            break;
          case InstanceType::kInteger:
            merged(1, Kind::kNumber)->requires_integer = true;
            break;
          case InstanceType::kObject:
            merged(2, Kind::kObject);
            break;
          case InstanceType::kArray:
            merged(3, Kind::kArray);
            break;
          case InstanceType::kBoolean:
            parts.push_back(New(Kind::kBoolean, node));
            break;
          case InstanceType::kNull:
            parts.push_back(New(Kind::kNull, node));
            break;
        }
      } else if (key == "minLength" || key == "maxLength" || key == "pattern") {
        merged(0, Kind::kString);
      } else if (key == "minimum" || key == "maximum" || key == "exclusiveMinimum" ||
                 key == "exclusiveMaximum" || key == "multipleOf") {
        merged(1, Kind::kNumber);
      } else if ((key == "properties" || key == "patternProperties") && m.value.size() == 0) {
        // json-sKema keeps these as maps with one entry per name: empty, they add nothing.
      } else if (key == "properties" || key == "patternProperties" ||
                 key == "additionalProperties" || key == "required" || key == "minProperties" ||
                 key == "maxProperties" || key == "dependentRequired" ||
                 key == "dependentSchemas" || key == "propertyNames" ||
                 key == "unevaluatedProperties") {
        merged(2, Kind::kObject);
      } else if (key == "items" || key == "prefixItems" || key == "minItems" || key == "maxItems" ||
                 key == "uniqueItems" || key == "contains" || key == "unevaluatedItems" ||
                 (key == "additionalItems" && doc_.draft() == Draft::k2019_09)) {
        merged(3, Kind::kArray);
      } else if ((key == "if" || key == "then" || key == "else") && !conditional) {
        conditional = true;
        parts.push_back(New(Kind::kConditional, node));
      }
    }
    return Finish(parts, node);
  }

  const JsonSchemaDocument& doc_;
  std::deque<Model>& arena_;
  std::vector<const Model*> by_node_;
};

// ---------------------------------------------------------------------------------------------
// Views: what each everit class holds, read from the node as its draft defines it.

struct Annotations {
  const std::string* id = nullptr;
  const std::string* title = nullptr;
  const std::string* description = nullptr;
  const JsonValue* default_value = nullptr;
};

Annotations AnnotationsOf(const Model& m) {
  Annotations a;
  if (!m.annotated || m.node == nullptr || m.node->is_boolean()) return a;
  const SchemaKeywords& k = m.node->keywords();
  // Confluent's 2020-12 translation does not carry `$id` over: it is never compared there.
  if (!m.loader->modern() && k.id) a.id = &*k.id;
  if (k.title) a.title = &*k.title;
  if (k.description) a.description = &*k.description;
  if (k.default_value) a.default_value = &*k.default_value;
  return a;
}

struct ObjectView {
  const SchemaMap* properties = nullptr;
  const std::vector<std::string>* required = nullptr;
  bool permits_additional = true;
  const SchemaNode* additional = nullptr;
  const SchemaMap* patterns = nullptr;
  bool permits_unevaluated = true;
  const SchemaNode* unevaluated = nullptr;
  std::optional<uint64_t> min_properties;
  std::optional<uint64_t> max_properties;
  std::vector<std::pair<std::string_view, const std::vector<std::string>*>> property_deps;
  std::vector<std::pair<std::string_view, const SchemaNode*>> schema_deps;
};

// `true` permits without a schema, `false` forbids, anything else is the schema.
void ReadOpenness(const SchemaNode* node, bool* permits, const SchemaNode** schema) {
  if (node == nullptr) return;
  if (node->is_boolean()) {
    *permits = node->boolean_value();
  } else {
    *schema = node;
  }
}

ObjectView ViewObject(const Model& m) {
  ObjectView v;
  if (m.bare) return v;
  const SchemaKeywords& k = m.node->keywords();
  if (k.properties) v.properties = &*k.properties;
  if (k.required) v.required = &*k.required;
  ReadOpenness(k.additional_properties, &v.permits_additional, &v.additional);
  if (k.pattern_properties && !k.pattern_properties->empty()) v.patterns = &*k.pattern_properties;
  ReadOpenness(k.unevaluated_properties, &v.permits_unevaluated, &v.unevaluated);
  v.min_properties = k.min_properties;
  v.max_properties = k.max_properties;
  if (m.loader->modern()) {
    if (k.dependent_required) {
      for (const DependentRequired& d : *k.dependent_required) {
        if (!d.required.empty()) v.property_deps.emplace_back(d.property, &d.required);
      }
    }
    if (k.dependent_schemas) {
      for (const NamedSchema& s : *k.dependent_schemas)
        v.schema_deps.emplace_back(s.name, s.schema);
    }
  } else if (k.dependencies) {
    for (const Dependency& d : *k.dependencies) {
      // everit records a property dependency per listed name: an empty list records nothing.
      if (d.required) {
        if (!d.required->empty()) v.property_deps.emplace_back(d.property, &*d.required);
      } else if (d.schema != nullptr) {
        v.schema_deps.emplace_back(d.property, d.schema);
      }
    }
  }
  return v;
}

struct ArrayView {
  const SchemaNode* all_items = nullptr;
  const std::vector<const SchemaNode*>* tuple = nullptr;
  bool permits_additional = true;
  const SchemaNode* additional = nullptr;
  bool permits_unevaluated = true;
  const SchemaNode* unevaluated = nullptr;
  const SchemaNode* contains = nullptr;
  std::optional<uint64_t> min_items;
  std::optional<uint64_t> max_items;
  std::optional<uint64_t> min_contains;
  std::optional<uint64_t> max_contains;
  bool unique = false;
};

ArrayView ViewArray(const Model& m) {
  ArrayView v;
  if (m.bare) return v;
  const SchemaKeywords& k = m.node->keywords();
  const Draft draft = m.loader->draft();
  if (!IsModern(draft)) {
    // everit: `items` is the all-items schema (true and false included) or the tuple.
    v.all_items = k.items;
    if (k.items_tuple) v.tuple = &*k.items_tuple;
    ReadOpenness(k.additional_items, &v.permits_additional, &v.additional);
    if (draft != Draft::kDraft4) v.contains = k.contains;
  } else {
    // Confluent's translation: `items` after a tuple is the additional-items schema; alone it
    // is the all-items schema, except that true adds nothing and false forbids every item.
    const std::vector<const SchemaNode*>* tuple = nullptr;
    bool legacy_tuple = false;
    if (draft == Draft::k2020_12 && k.prefix_items) {
      tuple = &*k.prefix_items;
    } else if (k.items_tuple) {
      tuple = &*k.items_tuple;
      legacy_tuple = true;
    }
    v.tuple = tuple;
    if (legacy_tuple || draft == Draft::k2019_09) {
      ReadOpenness(k.additional_items, &v.permits_additional, &v.additional);
    }
    if (k.items != nullptr) {
      if (k.items->is_boolean()) {
        if (!k.items->boolean_value()) v.permits_additional = false;
      } else if (tuple == nullptr || tuple->empty() || draft == Draft::k2019_09) {
        v.all_items = k.items;
      } else {
        v.additional = k.items;
      }
    }
    v.contains = k.contains;
    if (k.contains != nullptr) {
      v.min_contains = k.min_contains.value_or(1);  // json-sKema's default
      v.max_contains = k.max_contains;
    }
  }
  ReadOpenness(k.unevaluated_items, &v.permits_unevaluated, &v.unevaluated);
  v.min_items = k.min_items;
  v.max_items = k.max_items;
  v.unique = k.unique_items.value_or(false);
  return v;
}

// An order-insensitive hash of a JSON value, for collapsing duplicate subschemas.
uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

uint64_t HashString(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ULL;
  return h;
}

uint64_t HashJson(const JsonValue& v) {
  switch (v.kind()) {
    case JsonValue::Kind::kNull:
      return 0x9e3779b97f4a7c15ULL;
    case JsonValue::Kind::kBool:
      return v.as_bool() ? 3 : 5;
    case JsonValue::Kind::kNumber: {
      double d = v.as_double();
      if (d == 0) d = 0;  // -0 equals 0
      uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof bits);
      return Mix(bits ^ 7);
    }
    case JsonValue::Kind::kString:
      return Mix(HashString(v.as_string()) ^ 11);
    case JsonValue::Kind::kArray: {
      uint64_t h = 13;
      for (const JsonValue& item : v.items()) h = Mix(h * 31 + HashJson(item));
      return h;
    }
    case JsonValue::Kind::kObject: {
      uint64_t h = 17;
      for (const JsonMember& m : v.members()) h += Mix(HashString(m.key) * 31 + HashJson(m.value));
      return Mix(h);
    }
  }
  return 0;
}

bool ConnectBytes(const Model& m) {
  if (!m.annotated || m.node == nullptr || m.node->is_boolean()) return false;
  const JsonValue* v = m.node->keywords().FindUnknown("connect.type");
  return v != nullptr && v->is_string() && v->as_string() == "bytes";
}

bool HasDefault(const SchemaNode* node) {
  return node != nullptr && node->is_object() && node->keywords().default_value.has_value();
}

bool SameOptional(const std::string* a, const std::string* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return *a == *b;
}

bool SameJson(const JsonValue* a, const JsonValue* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return a->Equals(*b);
}

// ---------------------------------------------------------------------------------------------
// The comparison: Confluent's SchemaDiff and the per-class *SchemaDiff, with each pair of
// schemas compared once.

struct PairResult {
  std::vector<Difference> diffs;  // json_path relative to the pair: "", "properties/a"
  bool compatible = true;
};
using PairPtr = std::shared_ptr<const PairResult>;

// Appends `step` to a relative path for as long as it lives.
class PathScope {
 public:
  PathScope(std::string& path, std::string_view step) : path_(path), size_(path.size()) {
    if (!path_.empty()) path_ += '/';
    path_ += step;
  }
  ~PathScope() { path_.resize(size_); }
  PathScope(const PathScope&) = delete;
  PathScope& operator=(const PathScope&) = delete;

 private:
  std::string& path_;
  size_t size_;
};

constexpr size_t kNoDependency = std::numeric_limits<size_t>::max();

class Differ {
 public:
  Differ(const JsonSchemaDocument& original, const JsonSchemaDocument& update,
         const CompareOptions& options)
      : options_(options),
        original_(original, arena_),
        update_(update, arena_),
        optimistic_(std::make_shared<PairResult>()) {}

  Result<std::vector<Difference>> Run() {
    std::vector<Difference> out;
    const Model* root_o = original_.ModelFor(&original_.doc().root());
    const Model* root_u = update_.ModelFor(&update_.doc().root());
    CompareMetadata(*root_u, out);
    Frame root;
    SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(root_o, root_u, root));
    out.reserve(out.size() + r->diffs.size());
    for (const Difference& d : r->diffs) out.push_back({d.type, "#/" + d.json_path});
    return out;
  }

 private:
  // One pair being compared: its differences so far, the path inside it, and the shallowest
  // in-progress pair its result assumed compatible.
  struct Frame {
    std::vector<Difference> diffs;
    std::string path;
    size_t dependency = kNoDependency;
  };

  enum class State : uint8_t { kInProgress, kProvisional, kFinal };
  struct Entry {
    PairPtr result;
    State state = State::kInProgress;
    size_t depth = 0;  // in progress: its stack depth; provisional: the depth it relies on
  };

  // --- Bookkeeping ---------------------------------------------------------------------------

  Status Step(size_t n = 1) {
    steps_ += n;
    if (steps_ > options_.max_steps) {
      return InvalidArgument(
          fmt::format("comparing the schemas takes more than {} steps (CompareOptions::max_steps)",
                      options_.max_steps));
    }
    return Ok();
  }

  static void Add(Frame& f, DifferenceType type) { f.diffs.push_back({type, f.path}); }
  static void AddAt(Frame& f, std::string_view step, DifferenceType type) {
    PathScope scope(f.path, step);
    Add(f, type);
  }

  // Confluent's ctx.addDifferences(subctx.getDifferences()): the pair's differences, placed
  // under the current path.
  Status Splice(Frame& f, const PairResult& r) {
    if (f.diffs.size() + r.diffs.size() > options_.max_differences) {
      return InvalidArgument(
          fmt::format("the schemas differ in more than {} places (CompareOptions::max_differences)",
                      options_.max_differences));
    }
    SLUICE_TRY(Step(r.diffs.size()));
    for (const Difference& d : r.diffs) {
      if (f.path.empty()) {
        f.diffs.push_back(d);
      } else if (d.json_path.empty()) {
        f.diffs.push_back({d.type, f.path});
      } else {
        f.diffs.push_back({d.type, f.path + "/" + d.json_path});
      }
    }
    return Ok();
  }

  const Model* Child(const Model& parent, const SchemaNode* node) {
    if (node == nullptr) return nullptr;
    // The loaders are members; a model's loader is one of them.
    Loader* loader = parent.loader == &original_ ? &original_ : &update_;
    return loader->ModelFor(node);
  }

  // Follow `$ref`s (Confluent follows one; a chain of them compares the targets here).
  Result<const Model*> Normalize(const Model* m) {
    for (size_t hops = 0; m->kind == Kind::kReference; ++hops) {
      const Loader* loader = m->loader;
      SLUICE_ASSIGN_OR_RETURN(const SchemaNode* target, loader->doc().ResolveRef(*m->node));
      if (hops > loader->doc().node_count()) {
        return InvalidArgument(fmt::format("{}: $ref chain does not end", m->node->pointer()));
      }
      m = Child(*m, target);
    }
    return m;
  }

  // The subschemas of a combined model, as listed and with duplicates collapsed (Confluent
  // puts them in a LinkedHashSet before matching).
  Result<const std::vector<const Model*>*> Subschemas(const Model& m, bool distinct) {
    auto& cache = distinct ? distinct_subs_ : raw_subs_;
    auto it = cache.find(m.id);
    if (it != cache.end()) return &it->second;
    std::vector<const Model*> out;
    if (!m.sub_nodes.empty()) {
      if (!distinct || m.sub_nodes.size() < 2) {
        for (const SchemaNode* n : m.sub_nodes) out.push_back(Child(m, n));
      } else {
        std::unordered_multimap<uint64_t, const SchemaNode*> seen;
        for (const SchemaNode* n : m.sub_nodes) {
          SLUICE_TRY(Step());
          uint64_t h = HashJson(n->raw());
          bool duplicate = false;
          auto [lo, hi] = seen.equal_range(h);
          for (auto s = lo; s != hi && !duplicate; ++s)
            duplicate = s->second->raw().Equals(n->raw());
          if (duplicate) continue;
          seen.emplace(h, n);
          out.push_back(Child(m, n));
        }
      }
    } else {
      for (const Model* s : m.sub_models) {
        bool duplicate = false;
        if (distinct) {
          for (const Model* t : out) {
            duplicate |= t->kind == s->kind && t->requires_integer == s->requires_integer &&
                         t->bare == s->bare;
          }
        }
        if (!duplicate) out.push_back(s);
      }
    }
    return &cache.emplace(m.id, std::move(out)).first->second;
  }

  // --- The pair comparison -------------------------------------------------------------------

  // Compare a pair once. A pair met again while it is being compared counts as compatible with
  // no differences (Confluent skips a schema already on its stack); a result that relied on
  // that stays provisional until the assumed pair is done, and is dropped if the assumption was
  // wrong.
  Result<PairPtr> Pair(const Model* o, const Model* u, Frame& caller) {
    SLUICE_ASSIGN_OR_RETURN(o, Normalize(o));
    SLUICE_ASSIGN_OR_RETURN(u, Normalize(u));
    const uint64_t key = (uint64_t{o->id} << 32) | u->id;
    auto it = memo_.find(key);
    if (it != memo_.end()) {
      const Entry& e = it->second;
      if (e.state == State::kInProgress) {
        caller.dependency = std::min(caller.dependency, e.depth);
        return optimistic_;
      }
      if (e.state == State::kProvisional) caller.dependency = std::min(caller.dependency, e.depth);
      return e.result;
    }
    const size_t depth = provisional_on_.size();
    if (depth >= options_.max_depth) {
      return InvalidArgument(
          fmt::format("{} / {}: subschemas nest deeper than {} levels (CompareOptions::max_depth)",
                      o->node->pointer(), u->node->pointer(), options_.max_depth));
    }
    SLUICE_TRY(Step());
    memo_.emplace(key, Entry{nullptr, State::kInProgress, depth});
    provisional_on_.emplace_back();
    Frame f;
    Status body = Body(*o, *u, f);
    std::vector<uint64_t> dependents = std::move(provisional_on_.back());
    provisional_on_.pop_back();
    if (!body.has_value()) return Fail(std::move(body).error());

    auto result = std::make_shared<PairResult>();
    result->compatible = IsCompatible(f.diffs, options_.policy);
    result->diffs = std::move(f.diffs);
    const bool settled = f.dependency >= depth;
    Entry& entry = memo_.find(key)->second;
    entry.result = result;
    if (settled) {
      entry.state = State::kFinal;
    } else {
      entry.state = State::kProvisional;
      entry.depth = f.dependency;
      provisional_on_[f.dependency].push_back(key);
      caller.dependency = std::min(caller.dependency, f.dependency);
    }
    for (uint64_t k : dependents) {
      auto d = memo_.find(k);
      if (d == memo_.end()) continue;
      if (!d->second.result->compatible) {
        // Assuming more compatibility never adds an incompatibility: this one stands.
        d->second.state = State::kFinal;
      } else if (!result->compatible) {
        memo_.erase(d);  // it assumed this pair compatible, which it is not
      } else if (settled) {
        d->second.state = State::kFinal;
      } else {
        d->second.depth = f.dependency;
        provisional_on_[f.dependency].push_back(k);
      }
    }
    return PairPtr(result);
  }

  // SchemaDiff.compare(ctx, original, update) with both present.
  Status Include(Frame& f, const Model* o, const Model* u) {
    if (o == nullptr && u == nullptr) return Ok();
    if (o == nullptr) {
      Add(f, DifferenceType::kSchemaAdded);
      return Ok();
    }
    if (u == nullptr) {
      Add(f, DifferenceType::kSchemaRemoved);
      return Ok();
    }
    SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(o, u, f));
    return Splice(f, *r);
  }

  Status Body(const Model& o, const Model& u, Frame& f) {
    const bool o_combined = o.kind == Kind::kCombined;
    const bool u_combined = u.kind == Kind::kCombined;
    if (!o_combined && u_combined) {
      SLUICE_ASSIGN_OR_RETURN(const auto* subs, Subschemas(u, false));
      if (subs->size() == 1) {
        SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(&o, (*subs)[0], f));
        if (r->compatible) return Splice(f, *r);
      } else if (u.criterion != Criterion::kAllOf) {
        for (const Model* s : *subs) {
          SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(&o, s, f));
          if (r->compatible) {
            SLUICE_TRY(Splice(f, *r));
            Add(f, DifferenceType::kSumTypeExtended);
            return Ok();
          }
        }
      }
    } else if (o_combined && !u_combined) {
      SLUICE_ASSIGN_OR_RETURN(const auto* subs, Subschemas(o, false));
      if (subs->size() == 1) {
        SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair((*subs)[0], &u, f));
        if (r->compatible) return Splice(f, *r);
      } else if (o.criterion == Criterion::kAllOf) {
        for (const Model* s : *subs) {
          SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(s, &u, f));
          if (r->compatible) {
            SLUICE_TRY(Splice(f, *r));
            Add(f, DifferenceType::kProductTypeNarrowed);
            return Ok();
          }
        }
      }
    }

    // Confluent compares Java classes; every combined schema is one class, as is every number.
    if (o.kind != u.kind) {
      if (o.kind == Kind::kFalse || u.kind == Kind::kEmpty || u.kind == Kind::kTrue) return Ok();
      if (ConnectBytes(o) && ConnectBytes(u)) return Ok();
      Add(f, DifferenceType::kTypeChanged);
      return Ok();
    }

    const Annotations ao = AnnotationsOf(o);
    const Annotations au = AnnotationsOf(u);
    if (!SameOptional(ao.id, au.id)) Add(f, DifferenceType::kIdChanged);
    if (!SameOptional(ao.title, au.title)) Add(f, DifferenceType::kTitleChanged);
    if (!SameOptional(ao.description, au.description)) Add(f, DifferenceType::kDescriptionChanged);
    if (!SameJson(ao.default_value, au.default_value)) Add(f, DifferenceType::kDefaultChanged);

    switch (o.kind) {
      case Kind::kString:
        CompareString(o, u, f);
        return Ok();
      case Kind::kNumber:
        CompareNumber(o, u, f);
        return Ok();
      case Kind::kEnum:
        return CompareEnum(o, u, f);
      case Kind::kConst:
        if (!o.node->keywords().const_value->Equals(*u.node->keywords().const_value)) {
          AddAt(f, "const", DifferenceType::kEnumArrayChanged);
        }
        return Ok();
      case Kind::kCombined:
        return CompareCombined(o, u, f);
      case Kind::kNot:
        return CompareNot(o, u, f);
      case Kind::kObject:
        return CompareObject(o, u, f);
      case Kind::kArray:
        return CompareArray(o, u, f);
      case Kind::kEmpty:
      case Kind::kTrue:
      case Kind::kFalse:
      case Kind::kBoolean:
      case Kind::kNull:
      case Kind::kReference:
      case Kind::kConditional:
        return Ok();
    }
    return Ok();
  }

  // --- Per class -----------------------------------------------------------------------------

  template <class T>
  static void Bound(Frame& f, std::string_view keyword, const std::optional<T>& o,
                    const std::optional<T>& u, DifferenceType added, DifferenceType removed,
                    DifferenceType increased, DifferenceType decreased) {
    if (!o && !u) return;
    if (!o) {
      AddAt(f, keyword, added);
    } else if (!u) {
      AddAt(f, keyword, removed);
    } else if (*o < *u) {
      AddAt(f, keyword, increased);
    } else if (*u < *o) {
      AddAt(f, keyword, decreased);
    }
  }

  static std::optional<double> Value(const Boxed<Number>& n) {
    if (!n) return std::nullopt;
    return n->value;
  }

  void CompareString(const Model& o, const Model& u, Frame& f) {
    if (o.bare && u.bare) return;
    static const SchemaKeywords kNone;
    const SchemaKeywords& a = o.bare ? kNone : o.node->keywords();
    const SchemaKeywords& b = u.bare ? kNone : u.node->keywords();
    using T = DifferenceType;
    Bound(f, "maxLength", a.max_length, b.max_length, T::kMaxLengthAdded, T::kMaxLengthRemoved,
          T::kMaxLengthIncreased, T::kMaxLengthDecreased);
    Bound(f, "minLength", a.min_length, b.min_length, T::kMinLengthAdded, T::kMinLengthRemoved,
          T::kMinLengthIncreased, T::kMinLengthDecreased);
    if (!a.pattern && b.pattern) {
      AddAt(f, "pattern", T::kPatternAdded);
    } else if (a.pattern && !b.pattern) {
      AddAt(f, "pattern", T::kPatternRemoved);
    } else if (a.pattern && *a.pattern != *b.pattern) {
      AddAt(f, "pattern", T::kPatternChanged);
    }
  }

  void CompareNumber(const Model& o, const Model& u, Frame& f) {
    static const SchemaKeywords kNone;
    const SchemaKeywords& a = o.bare ? kNone : o.node->keywords();
    const SchemaKeywords& b = u.bare ? kNone : u.node->keywords();
    using T = DifferenceType;
    Bound(f, "maximum", Value(a.maximum), Value(b.maximum), T::kMaximumAdded, T::kMaximumRemoved,
          T::kMaximumIncreased, T::kMaximumDecreased);
    Bound(f, "minimum", Value(a.minimum), Value(b.minimum), T::kMinimumAdded, T::kMinimumRemoved,
          T::kMinimumIncreased, T::kMinimumDecreased);
    Bound(f, "exclusiveMaximum", Value(a.exclusive_maximum), Value(b.exclusive_maximum),
          T::kExclusiveMaximumAdded, T::kExclusiveMaximumRemoved, T::kExclusiveMaximumIncreased,
          T::kExclusiveMaximumDecreased);
    Bound(f, "exclusiveMinimum", Value(a.exclusive_minimum), Value(b.exclusive_minimum),
          T::kExclusiveMinimumAdded, T::kExclusiveMinimumRemoved, T::kExclusiveMinimumIncreased,
          T::kExclusiveMinimumDecreased);
    std::optional<double> mo = Value(a.multiple_of);
    std::optional<double> mu = Value(b.multiple_of);
    if (mo != mu) {
      if (!mo) {
        AddAt(f, "multipleOf", T::kMultipleOfAdded);
      } else if (!mu) {
        AddAt(f, "multipleOf", T::kMultipleOfRemoved);
      } else if (IsMultiple(*mu, *mo)) {
        AddAt(f, "multipleOf", T::kMultipleOfExpanded);
      } else if (IsMultiple(*mo, *mu)) {
        AddAt(f, "multipleOf", T::kMultipleOfReduced);
      } else {
        AddAt(f, "multipleOf", T::kMultipleOfChanged);
      }
    }
    if (o.requires_integer != u.requires_integer) {
      Add(f, o.requires_integer ? T::kTypeExtended : T::kTypeNarrowed);
    }
  }

  // Whether `a` is a whole multiple of `b`. Confluent truncates both to int first (and divides
  // by zero on 0.5); the ratio is what the keyword means.
  static bool IsMultiple(double a, double b) {
    if (!(a > 0) || !(b > 0)) return false;
    double r = a / b;
    if (!std::isfinite(r) || r < 1) return false;
    return std::fabs(r - std::round(r)) <= 1e-9 * r;
  }

  // A hash that agrees with JsonValue::Equals (equal values hash alike): numbers by their double
  // value (Equals compares integers, texts and doubles, and equal ones have equal doubles),
  // objects by size only (Equals ignores member order and tolerates repeated keys).
  static uint64_t EqualsHash(const JsonValue& v) {
    auto mix = [](uint64_t h, uint64_t x) {
      h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      return h;
    };
    switch (v.kind()) {
      case JsonValue::Kind::kNull:
        return 1;
      case JsonValue::Kind::kBool:
        return v.as_bool() ? 2 : 3;
      case JsonValue::Kind::kNumber: {
        double d = v.as_double();
        return mix(4, d == 0 ? 0 : std::hash<double>()(d));
      }
      case JsonValue::Kind::kString:
        return mix(5, std::hash<std::string_view>()(v.as_string()));
      case JsonValue::Kind::kArray: {
        uint64_t h = mix(6, v.items().size());
        for (const JsonValue& item : v.items()) h = mix(h, EqualsHash(item));
        return h;
      }
      case JsonValue::Kind::kObject:
        return mix(7, v.members().size());
    }
    return 0;
  }

  Status CompareEnum(const Model& o, const Model& u, Frame& f) {
    const std::vector<JsonValue>& a = *o.node->keywords().enum_values;
    const std::vector<JsonValue>& b = *u.node->keywords().enum_values;
    SLUICE_TRY(Step((a.size() + b.size()) / 16 + 1));
    // Every value of x is a value of y: each looked up among y's values of the same hash.
    auto subset = [](const std::vector<JsonValue>& x, const std::vector<JsonValue>& y) {
      std::unordered_map<uint64_t, std::vector<const JsonValue*>> by_hash;
      by_hash.reserve(y.size());
      for (const JsonValue& w : y) by_hash[EqualsHash(w)].push_back(&w);
      for (const JsonValue& v : x) {
        auto it = by_hash.find(EqualsHash(v));
        if (it == by_hash.end()) return false;
        bool found = false;
        for (const JsonValue* w : it->second) {
          if (v.Equals(*w)) {
            found = true;
            break;
          }
        }
        if (!found) return false;
      }
      return true;
    };
    const bool a_in_b = subset(a, b);
    const bool b_in_a = subset(b, a);
    if (a_in_b && b_in_a) return Ok();
    if (a_in_b) {
      AddAt(f, "enum", DifferenceType::kEnumArrayExtended);
    } else if (b_in_a) {
      AddAt(f, "enum", DifferenceType::kEnumArrayNarrowed);
    } else {
      AddAt(f, "enum", DifferenceType::kEnumArrayChanged);
    }
    return Ok();
  }

  Status CompareNot(const Model& o, const Model& u, Frame& f) {
    PathScope scope(f.path, "not");
    // Reversed: the update may exclude less than the original did.
    SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(Child(u, u.node->keywords().not_schema),
                                            Child(o, o.node->keywords().not_schema), f));
    // Confluent reports NOT_TYPE_NARROWED even for an unchanged `not`; an unchanged one is no
    // difference here, so a schema never differs from itself.
    if (r->diffs.empty()) return Ok();
    Add(f, r->compatible ? DifferenceType::kNotTypeNarrowed : DifferenceType::kNotTypeExtended);
    return Ok();
  }

  Status CompareCombined(const Model& o, const Model& u, Frame& f) {
    SLUICE_ASSIGN_OR_RETURN(const auto* o_raw, Subschemas(o, false));
    SLUICE_ASSIGN_OR_RETURN(const auto* u_raw, Subschemas(u, false));
    const Criterion oc = o.criterion;
    const Criterion uc = u.criterion;
    if (oc != uc) {
      const bool o_single = o_raw->size() == 1;
      const bool u_single = u_raw->size() == 1;
      if (uc == Criterion::kAnyOf || (o_single && u_single) ||
          (o_single && uc == Criterion::kOneOf) || (u_single && oc == Criterion::kAllOf)) {
        Add(f, DifferenceType::kCombinedTypeExtended);
      } else {
        Add(f, DifferenceType::kCombinedTypeChanged);
        return Ok();
      }
    }
    SLUICE_ASSIGN_OR_RETURN(const auto* os, Subschemas(o, true));
    SLUICE_ASSIGN_OR_RETURN(const auto* us, Subschemas(u, true));
    const size_t n = os->size();
    const size_t m = us->size();
    if (n < m) {
      Add(f, uc == Criterion::kAllOf ? DifferenceType::kProductTypeExtended
                                     : DifferenceType::kSumTypeExtended);
    } else if (n > m) {
      Add(f, oc == Criterion::kAllOf ? DifferenceType::kProductTypeNarrowed
                                     : DifferenceType::kSumTypeNarrowed);
    }
    // Compatible (original, update) pairs, each side's neighbours closest first.
    struct Edge {
      size_t to;
      PairPtr result;
    };
    std::vector<std::vector<Edge>> edges(n);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < m; ++j) {
        SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair((*os)[i], (*us)[j], f));
        if (r->compatible) edges[i].push_back({j, std::move(r)});
      }
      std::stable_sort(edges[i].begin(), edges[i].end(), [](const Edge& a, const Edge& b) {
        return a.result->diffs.size() < b.result->diffs.size();
      });
    }
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> match, MaximumMatching(edges, m));
    size_t matched = 0;
    for (size_t i = 0; i < n; ++i) {
      if (match[i] == kNoDependency) continue;
      ++matched;
      PathScope scope(f.path, fmt::format("{}/{}", CriterionName(oc), i));
      for (const Edge& e : edges[i]) {
        if (e.to == match[i]) {
          SLUICE_TRY(Splice(f, *e.result));
          break;
        }
      }
    }
    if (matched < std::min(n, m)) Add(f, DifferenceType::kCombinedTypeSubschemasChanged);
    return Ok();
  }

  // Maximum-cardinality bipartite matching by augmenting paths found breadth first (no
  // recursion), O(V * E). Difference-free pairs are matched first, so identical alternatives
  // pair up and the report shows only what had to change. Returns, per left vertex, its right
  // partner or kNoDependency.
  template <class Edges>
  Result<std::vector<size_t>> MaximumMatching(const Edges& edges, size_t right_count) {
    const size_t n = edges.size();
    std::vector<size_t> left_of(right_count, kNoDependency);
    std::vector<size_t> right_of(n, kNoDependency);
    std::vector<size_t> parent(right_count);  // the left vertex a right one was reached from
    std::vector<size_t> seen(right_count, kNoDependency);
    std::vector<size_t> queue;
    size_t search = 0;
    for (int phase = 0; phase < 2; ++phase) {
      for (size_t start = 0; start < n; ++start) {
        if (right_of[start] != kNoDependency) continue;
        ++search;
        queue.assign(1, start);
        size_t free_right = kNoDependency;
        for (size_t q = 0; q < queue.size() && free_right == kNoDependency; ++q) {
          const size_t l = queue[q];
          SLUICE_TRY(Step(edges[l].size() / 8 + 1));
          for (const auto& e : edges[l]) {
            if (phase == 0 && !e.result->diffs.empty()) continue;
            const size_t r = e.to;
            if (seen[r] == search) continue;
            seen[r] = search;
            parent[r] = l;
            if (left_of[r] == kNoDependency) {
              free_right = r;
              break;
            }
            queue.push_back(left_of[r]);
          }
        }
        // Flip the path: each right vertex takes the left one that reached it.
        for (size_t r = free_right; r != kNoDependency;) {
          const size_t l = parent[r];
          const size_t previous = right_of[l];
          right_of[l] = r;
          left_of[r] = l;
          r = previous;
        }
      }
    }
    return right_of;
  }

  // Confluent's isOpenContentModel / schemaFromPartiallyOpenContentModel, for objects.
  static bool IsOpen(const ObjectView& v) {
    return v.patterns == nullptr && v.additional == nullptr && v.permits_additional &&
           v.unevaluated == nullptr && v.permits_unevaluated;
  }

  Result<const SchemaNode*> PartialSchema(const ObjectView& v, std::string_view name) {
    if (v.patterns != nullptr) {
      for (const NamedSchema& p : *v.patterns) {
        SLUICE_ASSIGN_OR_RETURN(bool hit, PatternFinds(p.name, name));
        if (hit) return p.schema;
      }
    }
    if (v.additional != nullptr) return v.additional;
    if (v.permits_additional && v.unevaluated != nullptr) return v.unevaluated;
    return static_cast<const SchemaNode*>(nullptr);
  }

  // A pattern this engine cannot read (lookaround, backreferences, or one that is not an
  // ECMA-262 pattern at all) matches no name: the property falls to additionalProperties.
  Result<bool> PatternFinds(const std::string& pattern, std::string_view name) {
    auto it = patterns_.find(pattern);
    if (it == patterns_.end()) {
      auto compiled = regex::Compiler(pattern).Compile();
      std::shared_ptr<regex::Program> program;
      if (compiled.has_value()) program = std::make_shared<regex::Program>(std::move(*compiled));
      it = patterns_.emplace(pattern, std::move(program)).first;
    }
    if (it->second == nullptr) return false;
    size_t before = steps_;
    auto hit = regex::Run(*it->second, regex::Decode(name), &steps_, options_.max_steps);
    if (!hit.has_value() || steps_ > options_.max_steps) {
      steps_ = std::max(steps_, before);
      return InvalidArgument(fmt::format(
          "matching patternProperties takes more than {} steps (CompareOptions::max_steps)",
          options_.max_steps));
    }
    return *hit;
  }

  Status CompareObject(const Model& o, const Model& u, Frame& f) {
    using T = DifferenceType;
    const ObjectView a = ViewObject(o);
    const ObjectView b = ViewObject(u);
    std::unordered_map<std::string_view, const SchemaNode*> a_props;
    std::unordered_map<std::string_view, const SchemaNode*> b_props;
    if (a.properties) {
      for (const NamedSchema& p : *a.properties) a_props.emplace(p.name, p.schema);
    }
    if (b.properties) {
      for (const NamedSchema& p : *b.properties) b_props.emplace(p.name, p.schema);
    }
    std::unordered_set<std::string_view> a_required;
    std::unordered_set<std::string_view> b_required;
    if (a.required) a_required.insert(a.required->begin(), a.required->end());
    if (b.required) b_required.insert(b.required->begin(), b.required->end());
    SLUICE_TRY(Step((a_props.size() + b_props.size()) / 8));

    // compareRequired: only properties both sides declare.
    if (a.properties) {
      PathScope scope(f.path, "required");
      for (const NamedSchema& p : *a.properties) {
        auto other = b_props.find(p.name);
        if (other == b_props.end()) continue;
        const bool was = a_required.count(p.name) > 0;
        const bool is = b_required.count(p.name) > 0;
        if (was && !is) {
          AddAt(f, p.name, T::kRequiredAttributeRemoved);
        } else if (!was && is) {
          AddAt(f, p.name,
                HasDefault(other->second) ? T::kRequiredAttributeWithDefaultAdded
                                          : T::kRequiredAttributeAdded);
        }
      }
    }

    // compareProperties.
    {
      PathScope scope(f.path, "properties");
      if (a.properties) {
        for (const NamedSchema& p : *a.properties) {
          PathScope name(f.path, p.name);
          auto other = b_props.find(p.name);
          if (other != b_props.end()) {
            SLUICE_TRY(Include(f, Child(o, p.schema), Child(u, other->second)));
            continue;
          }
          // Removed: only the update's content model matters.
          if (IsOpen(b)) {
            Add(f, T::kPropertyRemovedFromOpenContentModel);
            continue;
          }
          SLUICE_ASSIGN_OR_RETURN(const SchemaNode* partial, PartialSchema(b, p.name));
          if (partial != nullptr) {
            SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(Child(o, p.schema), Child(u, partial), f));
            SLUICE_TRY(Splice(f, *r));
            Add(f, r->compatible ? T::kPropertyRemovedIsCoveredByPartiallyOpenContentModel
                                 : T::kPropertyRemovedNotCoveredByPartiallyOpenContentModel);
          } else if (Child(o, p.schema)->kind == Kind::kFalse) {
            Add(f, T::kPropertyWithFalseRemovedFromClosedContentModel);
          } else {
            Add(f, T::kPropertyRemovedFromClosedContentModel);
          }
        }
      }
      if (b.properties) {
        for (const NamedSchema& p : *b.properties) {
          if (a_props.count(p.name) > 0) continue;
          PathScope name(f.path, p.name);
          // Added: only the original's content model matters.
          const bool required = b_required.count(p.name) > 0;
          const bool with_default = HasDefault(p.schema);
          if (IsOpen(a)) {
            const Kind kind = Child(u, p.schema)->kind;
            if (kind == Kind::kEmpty || kind == Kind::kTrue) {
              Add(f, T::kPropertyWithEmptySchemaAddedToOpenContentModel);
            } else if (required) {
              Add(f, with_default ? T::kRequiredPropertyWithDefaultAddedToOpenContentModel
                                  : T::kRequiredPropertyAddedToOpenContentModel);
            } else {
              Add(f, T::kOptionalPropertyAddedToOpenContentModel);
            }
            continue;
          }
          SLUICE_ASSIGN_OR_RETURN(const SchemaNode* partial, PartialSchema(a, p.name));
          if (partial != nullptr) {
            SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(Child(o, partial), Child(u, p.schema), f));
            SLUICE_TRY(Splice(f, *r));
            Add(f, r->compatible ? T::kPropertyAddedIsCoveredByPartiallyOpenContentModel
                                 : T::kPropertyAddedNotCoveredByPartiallyOpenContentModel);
          }
          if (required) {
            Add(f, with_default ? T::kRequiredPropertyWithDefaultAddedToUnopenContentModel
                                : T::kRequiredPropertyAddedToUnopenContentModel);
          } else {
            Add(f, T::kOptionalPropertyAddedToUnopenContentModel);
          }
        }
      }
    }

    // compareDependencies.
    {
      PathScope scope(f.path, "dependencies");
      auto find_array = [](const ObjectView& v,
                           std::string_view name) -> const std::vector<std::string>* {
        for (const auto& [k, list] : v.property_deps) {
          if (k == name) return list;
        }
        return nullptr;
      };
      auto as_set = [](const std::vector<std::string>& v) {
        return std::unordered_set<std::string_view>(v.begin(), v.end());
      };
      auto contains_all = [](const std::unordered_set<std::string_view>& x,
                             const std::unordered_set<std::string_view>& y) {
        for (std::string_view s : y) {
          if (x.count(s) == 0) return false;
        }
        return true;
      };
      for (const auto& [name, list] : a.property_deps) {
        PathScope at(f.path, name);
        const std::vector<std::string>* other = find_array(b, name);
        if (other == nullptr) {
          Add(f, T::kDependencyArrayRemoved);
          continue;
        }
        auto was = as_set(*list);
        auto is = as_set(*other);
        if (was == is) continue;
        if (contains_all(is, was)) {
          Add(f, T::kDependencyArrayExtended);
        } else if (contains_all(was, is)) {
          Add(f, T::kDependencyArrayNarrowed);
        } else {
          Add(f, T::kDependencyArrayChanged);
        }
      }
      for (const auto& [name, list] : b.property_deps) {
        if (find_array(a, name) == nullptr) AddAt(f, name, T::kDependencyArrayAdded);
      }
      auto find_schema = [](const ObjectView& v, std::string_view name) -> const SchemaNode* {
        for (const auto& [k, s] : v.schema_deps) {
          if (k == name) return s;
        }
        return nullptr;
      };
      for (const auto& [name, schema] : a.schema_deps) {
        PathScope at(f.path, name);
        const SchemaNode* other = find_schema(b, name);
        if (other == nullptr) {
          Add(f, T::kDependencySchemaRemoved);
        } else {
          SLUICE_TRY(Include(f, Child(o, schema), Child(u, other)));
        }
      }
      for (const auto& [name, schema] : b.schema_deps) {
        if (find_schema(a, name) == nullptr) AddAt(f, name, T::kDependencySchemaAdded);
      }
    }

    SLUICE_TRY(CompareOpenness(f, o, u, "additionalProperties", a.permits_additional, a.additional,
                               b.permits_additional, b.additional, T::kAdditionalPropertiesAdded,
                               T::kAdditionalPropertiesRemoved, T::kAdditionalPropertiesExtended,
                               T::kAdditionalPropertiesNarrowed));
    SLUICE_TRY(CompareOpenness(f, o, u, "unevaluatedProperties", a.permits_unevaluated,
                               a.unevaluated, b.permits_unevaluated, b.unevaluated,
                               T::kUnevaluatedPropertiesAdded, T::kUnevaluatedPropertiesRemoved,
                               T::kUnevaluatedPropertiesExtended,
                               T::kUnevaluatedPropertiesNarrowed));
    Bound(f, "maxProperties", a.max_properties, b.max_properties, T::kMaxPropertiesAdded,
          T::kMaxPropertiesRemoved, T::kMaxPropertiesIncreased, T::kMaxPropertiesDecreased);
    Bound(f, "minProperties", a.min_properties, b.min_properties, T::kMinPropertiesAdded,
          T::kMinPropertiesRemoved, T::kMinPropertiesIncreased, T::kMinPropertiesDecreased);
    return Ok();
  }

  // additionalProperties / unevaluatedProperties / additionalItems / unevaluatedItems.
  Status CompareOpenness(Frame& f, const Model& o, const Model& u, std::string_view keyword,
                         bool o_permits, const SchemaNode* o_schema, bool u_permits,
                         const SchemaNode* u_schema, DifferenceType added, DifferenceType removed,
                         DifferenceType extended, DifferenceType narrowed) {
    PathScope scope(f.path, keyword);
    if (o_permits != u_permits) {
      Add(f, u_permits ? added : removed);
    } else if (o_schema == nullptr && u_schema != nullptr) {
      Add(f, narrowed);
    } else if (o_schema != nullptr && u_schema == nullptr) {
      Add(f, extended);
    } else if (o_schema != nullptr) {
      SLUICE_TRY(Include(f, Child(o, o_schema), Child(u, u_schema)));
    }
    return Ok();
  }

  static bool IsOpen(const ArrayView& v) {
    return v.additional == nullptr && v.permits_additional && v.unevaluated == nullptr &&
           v.permits_unevaluated;
  }
  static const SchemaNode* PartialSchema(const ArrayView& v) {
    if (v.additional != nullptr) return v.additional;
    if (v.permits_additional && v.unevaluated != nullptr) return v.unevaluated;
    return nullptr;
  }

  Status CompareArray(const Model& o, const Model& u, Frame& f) {
    using T = DifferenceType;
    const ArrayView a = ViewArray(o);
    const ArrayView b = ViewArray(u);
    {
      PathScope scope(f.path, "items");
      SLUICE_TRY(Include(f, Child(o, a.all_items), Child(u, b.all_items)));
    }
    static const std::vector<const SchemaNode*> kNoItems;
    const auto& at = a.tuple ? *a.tuple : kNoItems;
    const auto& bt = b.tuple ? *b.tuple : kNoItems;
    const size_t common = std::min(at.size(), bt.size());
    for (size_t i = 0; i < std::max(at.size(), bt.size()); ++i) {
      PathScope scope(f.path, fmt::format("items/{}", i));
      if (i < common) {
        SLUICE_TRY(Include(f, Child(o, at[i]), Child(u, bt[i])));
      } else if (i < at.size()) {
        // Removed: only the update's content model matters.
        if (IsOpen(b)) {
          Add(f, T::kItemRemovedFromOpenContentModel);
        } else if (const SchemaNode* partial = PartialSchema(b)) {
          SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(Child(o, at[i]), Child(u, partial), f));
          SLUICE_TRY(Splice(f, *r));
          Add(f, r->compatible ? T::kItemRemovedIsCoveredByPartiallyOpenContentModel
                               : T::kItemRemovedNotCoveredByPartiallyOpenContentModel);
        } else if (Child(o, at[i])->kind == Kind::kFalse) {
          Add(f, T::kItemWithFalseRemovedFromClosedContentModel);
        } else {
          Add(f, T::kItemRemovedFromClosedContentModel);
        }
      } else {
        if (IsOpen(a)) {
          const Kind kind = Child(u, bt[i])->kind;
          Add(f, kind == Kind::kEmpty || kind == Kind::kTrue
                     ? T::kItemWithEmptySchemaAddedToOpenContentModel
                     : T::kItemAddedToOpenContentModel);
        } else if (const SchemaNode* partial = PartialSchema(a)) {
          SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(Child(o, partial), Child(u, bt[i]), f));
          SLUICE_TRY(Splice(f, *r));
          Add(f, r->compatible ? T::kItemAddedIsCoveredByPartiallyOpenContentModel
                               : T::kItemAddedNotCoveredByPartiallyOpenContentModel);
        } else {
          Add(f, T::kItemAddedToClosedContentModel);
        }
      }
    }
    SLUICE_TRY(CompareOpenness(f, o, u, "additionalItems", a.permits_additional, a.additional,
                               b.permits_additional, b.additional, T::kAdditionalItemsAdded,
                               T::kAdditionalItemsRemoved, T::kAdditionalItemsExtended,
                               T::kAdditionalItemsNarrowed));
    SLUICE_TRY(CompareOpenness(f, o, u, "unevaluatedItems", a.permits_unevaluated, a.unevaluated,
                               b.permits_unevaluated, b.unevaluated, T::kUnevaluatedItemsAdded,
                               T::kUnevaluatedItemsRemoved, T::kUnevaluatedItemsExtended,
                               T::kUnevaluatedItemsNarrowed));
    {
      PathScope scope(f.path, "contains");
      SLUICE_TRY(Include(f, Child(o, a.contains), Child(u, b.contains)));
    }
    Bound(f, "maxItems", a.max_items, b.max_items, T::kMaxItemsAdded, T::kMaxItemsRemoved,
          T::kMaxItemsIncreased, T::kMaxItemsDecreased);
    Bound(f, "minItems", a.min_items, b.min_items, T::kMinItemsAdded, T::kMinItemsRemoved,
          T::kMinItemsIncreased, T::kMinItemsDecreased);
    if (a.unique != b.unique) {
      AddAt(f, "uniqueItems", a.unique ? T::kUniqueItemsRemoved : T::kUniqueItemsAdded);
    }
    Bound(f, "maxContains", a.max_contains, b.max_contains, T::kMaxContainsAdded,
          T::kMaxContainsRemoved, T::kMaxContainsIncreased, T::kMaxContainsDecreased);
    Bound(f, "minContains", a.min_contains, b.min_contains, T::kMinContainsAdded,
          T::kMinContainsRemoved, T::kMinContainsIncreased, T::kMinContainsDecreased);
    return Ok();
  }

  // SchemaDiff.compareMetadata: the "confluent:reserved" names of each version.
  void CompareMetadata(const Model& root_u, std::vector<Difference>& out) const {
    auto reserved = [](const std::map<std::string, std::string, std::less<>>& metadata) {
      std::vector<std::string> names;
      auto it = metadata.find("confluent:reserved");
      if (it == metadata.end()) return names;
      std::string_view rest = it->second;
      while (true) {
        size_t comma = rest.find(',');
        std::string_view name = rest.substr(0, comma);
        while (!name.empty() && std::isspace(static_cast<unsigned char>(name.front()))) {
          name.remove_prefix(1);
        }
        while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) {
          name.remove_suffix(1);
        }
        if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
          names.emplace_back(name);
        }
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
      return names;
    };
    const std::vector<std::string> was = reserved(options_.original_metadata);
    const std::vector<std::string> is = reserved(options_.update_metadata);
    for (const std::string& name : was) {
      if (std::find(is.begin(), is.end(), name) == is.end()) {
        out.push_back({DifferenceType::kReservedPropertyRemoved, name});
      }
    }
    if (root_u.kind != Kind::kObject || is.empty()) return;
    const ObjectView v = ViewObject(root_u);
    if (v.properties == nullptr) return;
    for (const NamedSchema& p : *v.properties) {
      if (std::find(is.begin(), is.end(), p.name) != is.end()) {
        out.push_back(
            {DifferenceType::kReservedPropertyConflictsWithProperty, "#/properties/" + p.name});
      }
    }
  }

  const CompareOptions& options_;
  std::deque<Model> arena_;  // before the loaders, which hold a reference to it
  Loader original_;
  Loader update_;
  PairPtr optimistic_;
  std::unordered_map<uint64_t, Entry> memo_;
  std::vector<std::vector<uint64_t>> provisional_on_;  // per stack depth: entries relying on it
  std::unordered_map<uint32_t, std::vector<const Model*>> raw_subs_;
  std::unordered_map<uint32_t, std::vector<const Model*>> distinct_subs_;
  std::unordered_map<std::string, std::shared_ptr<regex::Program>> patterns_;
  size_t steps_ = 0;
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

Result<std::vector<Difference>> Compare(const JsonSchemaDocument& original,
                                        const JsonSchemaDocument& update,
                                        const CompareOptions& options) {
  return Differ(original, update, options).Run();
}

Result<std::vector<Difference>> CompareSchemaTexts(std::string_view original,
                                                   std::string_view update,
                                                   const CompareOptions& options) {
  ParseOptions parse;
  parse.default_draft = Draft::kDraft7;  // Confluent's reading of a schema without $schema
  auto a = Parse(original, parse);
  if (!a.has_value()) return Fail(a.error().WithContext("original schema"));
  auto b = Parse(update, parse);
  if (!b.has_value()) return Fail(b.error().WithContext("update schema"));
  return Compare(*a, *b, options);
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

namespace internal {

Result<bool> RegexSearch(std::string_view pattern, std::string_view text, size_t* steps) {
  SLUICE_ASSIGN_OR_RETURN(regex::Program program, regex::Compiler(pattern).Compile());
  size_t local = 0;
  size_t* counter = steps != nullptr ? steps : &local;
  return regex::Run(program, regex::Decode(text), counter, std::numeric_limits<size_t>::max());
}

}  // namespace internal

}  // namespace sluice::dialects::jsonschema
