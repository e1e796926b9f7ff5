// The per-class comparisons of the JSON Schema comparison: Confluent's StringSchemaDiff,
// NumberSchemaDiff, EnumSchemaDiff, NotSchemaDiff, CombinedSchemaDiff, ObjectSchemaDiff and
// ArraySchemaDiff, and the reserved names of SchemaDiff.compareMetadata.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "sluice/dialects/jsonschema/json_schema_diff_internal.h"
#include "sluice/dialects/jsonschema/json_schema_regex_internal.h"

namespace sluice::dialects::jsonschema::internal {
namespace {

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

bool HasDefault(const SchemaNode* node) {
  return node != nullptr && node->is_object() && node->keywords().default_value.has_value();
}

}  // namespace

template <class T>
void Differ::Bound(Frame& f, std::string_view keyword, const std::optional<T>& o,
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

std::optional<double> Differ::Value(const Boxed<Number>& n) {
  if (!n) return std::nullopt;
  return n->value;
}

void Differ::CompareString(const Model& o, const Model& u, Frame& f) {
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

void Differ::CompareNumber(const Model& o, const Model& u, Frame& f) {
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
bool Differ::IsMultiple(double a, double b) {
  if (!(a > 0) || !(b > 0)) return false;
  double r = a / b;
  if (!std::isfinite(r) || r < 1) return false;
  return std::fabs(r - std::round(r)) <= 1e-9 * r;
}

// A hash that agrees with JsonValue::Equals (equal values hash alike): numbers by their double
// value (Equals compares integers, texts and doubles, and equal ones have equal doubles),
// objects by size only (Equals ignores member order and tolerates repeated keys).
uint64_t Differ::EqualsHash(const JsonValue& v) {
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

Status Differ::CompareEnum(const Model& o, const Model& u, Frame& f) {
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

Status Differ::CompareNot(const Model& o, const Model& u, Frame& f) {
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

Status Differ::CompareCombined(const Model& o, const Model& u, Frame& f) {
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
Result<std::vector<size_t>> Differ::MaximumMatching(const Edges& edges, size_t right_count) {
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
bool Differ::IsOpen(const ObjectView& v) {
  return v.patterns == nullptr && v.additional == nullptr && v.permits_additional &&
         v.unevaluated == nullptr && v.permits_unevaluated;
}

Result<const SchemaNode*> Differ::PartialSchema(const ObjectView& v, std::string_view name) {
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
Result<bool> Differ::PatternFinds(const std::string& pattern, std::string_view name) {
  auto it = patterns_.find(pattern);
  if (it == patterns_.end()) {
    auto compiled = regex::Compile(pattern);
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

Status Differ::CompareObject(const Model& o, const Model& u, Frame& f) {
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
  SLUICE_TRY(CompareOpenness(f, o, u, "unevaluatedProperties", a.permits_unevaluated, a.unevaluated,
                             b.permits_unevaluated, b.unevaluated, T::kUnevaluatedPropertiesAdded,
                             T::kUnevaluatedPropertiesRemoved, T::kUnevaluatedPropertiesExtended,
                             T::kUnevaluatedPropertiesNarrowed));
  Bound(f, "maxProperties", a.max_properties, b.max_properties, T::kMaxPropertiesAdded,
        T::kMaxPropertiesRemoved, T::kMaxPropertiesIncreased, T::kMaxPropertiesDecreased);
  Bound(f, "minProperties", a.min_properties, b.min_properties, T::kMinPropertiesAdded,
        T::kMinPropertiesRemoved, T::kMinPropertiesIncreased, T::kMinPropertiesDecreased);
  return Ok();
}

// additionalProperties / unevaluatedProperties / additionalItems / unevaluatedItems.
Status Differ::CompareOpenness(Frame& f, const Model& o, const Model& u, std::string_view keyword,
                               bool o_permits, const SchemaNode* o_schema, bool u_permits,
                               const SchemaNode* u_schema, DifferenceType added,
                               DifferenceType removed, DifferenceType extended,
                               DifferenceType narrowed) {
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

bool Differ::IsOpen(const ArrayView& v) {
  return v.additional == nullptr && v.permits_additional && v.unevaluated == nullptr &&
         v.permits_unevaluated;
}

const SchemaNode* Differ::PartialSchema(const ArrayView& v) {
  if (v.additional != nullptr) return v.additional;
  if (v.permits_additional && v.unevaluated != nullptr) return v.unevaluated;
  return nullptr;
}

Status Differ::CompareArray(const Model& o, const Model& u, Frame& f) {
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
void Differ::CompareMetadata(const Model& root_u, std::vector<Difference>& out) const {
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

}  // namespace sluice::dialects::jsonschema::internal
