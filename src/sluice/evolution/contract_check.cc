#include "sluice/evolution/contract_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/evolution/diff.h"

namespace sluice::evolution {
namespace {

using dialects::contract::ColumnSpec;
using dialects::contract::Contract;
using dialects::contract::ContractFormat;
using dialects::contract::ContractObject;
using schema::Field;
using schema::FieldPath;
using schema::PathSegment;
using schema::Schema;
using schema::Type;
using schema::TypeKind;

// ---------------------------------------------------------------------------------------------
// CheckContract

// Whether every value of `actual` is a value of `expected`. Nested types fit member by member,
// so a struct of an int column fits a struct of a long one; a nullable member never fits a NOT
// NULL one.
bool Fits(const Type& actual, const Type& expected, bool exact) {
  if (actual.Equals(expected, /*compare_details=*/false)) return true;
  if (exact) return false;
  if (IsWidening(actual, expected)) return true;
  if (actual.kind() != expected.kind()) return false;
  if (actual.is_array()) {
    return Fits(*actual.element_type(), *expected.element_type(), exact) &&
           (expected.contains_null() || !actual.contains_null());
  }
  if (actual.is_map()) {
    return Fits(*actual.key_type(), *expected.key_type(), exact) &&
           Fits(*actual.value_type(), *expected.value_type(), exact) &&
           (expected.value_contains_null() || !actual.value_contains_null());
  }
  if (actual.is_struct()) {
    const std::vector<Field>& fields = actual.fields();
    if (fields.size() != expected.fields().size()) return false;
    // Members mostly keep their places; the others are found by name, through an index when the
    // struct is wide.
    std::unordered_map<std::string_view, const Field*> by_name;
    for (size_t i = 0; i < expected.fields().size(); ++i) {
      const Field& e = expected.fields()[i];
      const Field* a = nullptr;
      if (fields[i].name() == e.name()) {
        a = &fields[i];
      } else if (fields.size() < 32) {
        a = actual.FindField(e.name());
      } else {
        if (by_name.empty()) {
          for (const Field& f : fields) by_name.emplace(f.name(), &f);
        }
        auto it = by_name.find(e.name());
        a = it == by_name.end() ? nullptr : it->second;
      }
      if (a == nullptr || !Fits(*a->type(), *e.type(), exact)) return false;
      if (a->nullable() && !e.nullable()) return false;
    }
    return true;
  }
  return false;
}

bool IsTimestamp(const Type& t) {
  return t.kind() == TypeKind::kTimestamp || t.kind() == TypeKind::kTimestampNtz;
}

// Name lookups in structs, indexed on first use: Type::FindField scans, and a contract or a
// schema may have tens of thousands of columns.
class FieldFinder {
 public:
  const Field* Find(const Type& s, std::string_view name) {
    if (s.fields().size() < 32) return s.FindField(name);
    auto [it, inserted] = index_.try_emplace(&s);
    if (inserted) {
      for (const Field& f : s.fields()) it->second.emplace(f.name(), &f);
    }
    auto found = it->second.find(name);
    return found == it->second.end() ? nullptr : found->second;
  }

 private:
  std::unordered_map<const Type*, std::unordered_map<std::string_view, const Field*>> index_;
};

// The fields of a struct whose names equal a name ignoring ASCII case, as
// Type::FindFieldsIgnoreCase returns them, from an index built on first use.
class CaseFolder {
 public:
  explicit CaseFolder(const Type& s) : struct_(s) {}
  std::vector<size_t> FindIgnoreCase(std::string_view name) {
    if (struct_.fields().size() < 32) return struct_.FindFieldsIgnoreCase(name);
    if (index_.empty()) {
      for (size_t i = 0; i < struct_.fields().size(); ++i) {
        index_[AsciiLower(struct_.fields()[i].name())].push_back(i);
      }
    }
    auto it = index_.find(AsciiLower(name));
    return it == index_.end() ? std::vector<size_t>() : it->second;
  }

 private:
  const Type& struct_;
  std::unordered_map<std::string, std::vector<size_t>> index_;
};

// Where a contract path lands in a schema.
struct Located {
  enum class State : uint8_t { kFound, kMissing, kUnreachable };
  State state = State::kUnreachable;
  const Type* type = nullptr;
  bool nullable = true;
};

Located Locate(const Schema& schema, const FieldPath& path, FieldFinder& finder) {
  Located out;
  const Type* current = schema.struct_type().get();
  const auto& segments = path.segments();
  for (size_t i = 0; i < segments.size(); ++i) {
    const PathSegment& seg = segments[i];
    bool last = i + 1 == segments.size();
    const Type* next = nullptr;
    bool nullable = true;
    if (seg.kind == PathSegment::Kind::kField) {
      if (!current->is_struct()) return out;
      const Field* f = finder.Find(*current, seg.name);
      if (f == nullptr) {
        if (last) out.state = Located::State::kMissing;
        return out;
      }
      next = f->type().get();
      nullable = f->nullable();
    } else if (seg.kind == PathSegment::Kind::kElement) {
      if (!current->is_array()) return out;
      next = current->element_type().get();
      nullable = current->contains_null();
    } else if (seg.kind == PathSegment::Kind::kKey) {
      if (!current->is_map()) return out;
      next = current->key_type().get();
      nullable = false;
    } else {
      if (!current->is_map()) return out;
      next = current->value_type().get();
      nullable = current->value_contains_null();
    }
    current = next;
    out.nullable = nullable;
  }
  out.state = Located::State::kFound;
  out.type = current;
  return out;
}

std::string Quoted(const FieldPath& path) { return "`" + path.ToString() + "`"; }

class Checker {
 public:
  Checker(const Schema& schema, const Contract& contract, const ContractObject& object,
          const Schema* previous, const ContractCheckOptions& options)
      : schema_(schema),
        contract_(contract),
        object_(object),
        previous_(previous),
        options_(options),
        policy_(contract.policy) {
    // DCS models say whether they take fields they do not list.
    if (const JsonValue* extra = object.other.Find("additionalFields");
        extra != nullptr && extra->is_bool() && !extra->as_bool()) {
      policy_.allow_new_columns = false;
    }
    // Indexes, so a contract with many columns costs no more than a pass over them.
    for (const ColumnSpec& c : object.columns) {
      if (c.path.empty()) continue;
      specs_.emplace(c.path.ToString(), &c);
      parents_.insert(c.path.Parent().ToString());
    }
  }

  std::vector<ContractViolation> Run() {
    if (contract_.format == ContractFormat::kSeed) {
      CheckSeedColumns();
    } else {
      CheckDeclaredColumns();
    }
    if (!policy_.allow_new_columns) CheckExtraColumns();
    if (previous_ != nullptr) CheckChangesSincePrevious();
    return std::move(violations_);
  }

 private:
  void Add(const FieldPath& path, ViolationRule rule, std::string message, std::string fix) {
    if (!seen_.insert({rule, path.ToString()}).second) return;
    violations_.push_back(ContractViolation{path, rule, std::move(message), std::move(fix)});
  }

  // The seed's columns are top-level and typed in Spark's syntax, so messages speak Spark.
  void CheckSeedColumns() {
    const Type& actual_struct = *schema_.struct_type();
    CaseFolder folded(actual_struct);
    for (const Field& expected : object_.schema->fields()) {
      FieldPath path = FieldPath::Of(expected.name());
      const ColumnSpec* spec = FindSpec(path);
      std::string expected_type = spec != nullptr && spec->physical_type.has_value()
                                      ? *spec->physical_type
                                      : dialects::spark::DataTypeName(*expected.type());
      const Field* actual = finder_.Find(actual_struct, expected.name());
      if (actual == nullptr) {
        std::string hint;
        for (size_t i : folded.FindIgnoreCase(expected.name())) {
          hint = fmt::format("; the schema has `{}`, which differs only in case",
                             actual_struct.fields()[i].name());
        }
        Add(path, ViolationRule::kRequiredColumnMissing,
            fmt::format("required column {} ({}{}) is missing{}", Quoted(path), expected_type,
                        expected.nullable() ? "" : ", not null", hint),
            expected.nullable()
                ? fmt::format("write {} as {} (CAST(NULL AS {}) when the source lacks it), or "
                              "drop it from required_columns in a new contract version",
                              Quoted(path), expected_type, expected_type)
                : fmt::format("write {} as {} with a value in every row (it is not nullable, so "
                              "a NULL placeholder breaks the contract too), or drop it from "
                              "required_columns in a new contract version",
                              Quoted(path), expected_type));
        continue;
      }
      if (!Fits(*actual->type(), *expected.type(), options_.exact_types)) {
        std::string actual_type = dialects::spark::DataTypeName(*actual->type());
        Add(path, ViolationRule::kRequiredColumnType,
            fmt::format("column {} is {}, the contract requires {}{}", Quoted(path), actual_type,
                        expected_type,
                        options_.exact_types ? "" : " (or a type that widens losslessly to it)"),
            fmt::format("cast {} to {} before writing, or publish a contract version with type "
                        "{}",
                        Quoted(path), expected_type, actual_type));
      }
      bool mismatch = options_.exact_nullability ? actual->nullable() != expected.nullable()
                                                 : actual->nullable() && !expected.nullable();
      if (mismatch) {
        Add(path, ViolationRule::kRequiredColumnNullability,
            fmt::format("column {} nullability mismatch: the contract says nullable: {}, the "
                        "schema's column is {}",
                        Quoted(path), expected.nullable() ? "true" : "false",
                        actual->nullable() ? "nullable" : "NOT NULL"),
            expected.nullable()
                ? fmt::format("set nullable: false for {} in the contract (the data never holds "
                              "null), or declare the column nullable",
                              Quoted(path))
                : fmt::format("declare {} NOT NULL and fill or filter its nulls before writing "
                              "(coalesce), or set nullable: true in the contract",
                              Quoted(path)));
      }
    }
  }

  const ColumnSpec* FindSpec(const FieldPath& path) const {
    auto it = specs_.find(path.ToString());
    return it == specs_.end() ? nullptr : it->second;
  }

  bool HasChildSpec(const FieldPath& path) const { return parents_.count(path.ToString()) > 0; }

  // ODCS and DCS: each property (and array items) in document order, parents first, so a
  // missing or mistyped parent silences its children.
  void CheckDeclaredColumns() {
    std::unordered_set<std::string> dead;
    auto under_dead = [&](const FieldPath& p) {
      if (dead.empty()) return false;  // the usual case: no walk up long paths
      FieldPath ancestor = p.Parent();
      while (!ancestor.empty()) {
        if (dead.count(ancestor.ToString())) return true;
        ancestor = ancestor.Parent();
      }
      return false;
    };
    for (const ColumnSpec& spec : object_.columns) {
      const FieldPath& path = spec.path;
      if (path.empty() || under_dead(path)) continue;
      Located at = Locate(schema_, path, finder_);
      if (at.state != Located::State::kFound) {
        dead.insert(path.ToString());
        if (at.state == Located::State::kMissing) {
          Add(path, ViolationRule::kColumnMissing,
              fmt::format("column {} declared by the contract{} is missing", Quoted(path),
                          spec.required ? " (required: true)" : ""),
              spec.required
                  ? fmt::format("write {} with a value in every row (it is required, so a NULL "
                                "placeholder breaks the contract too), or remove the property in "
                                "a new contract version",
                                Quoted(path))
                  : fmt::format("write {} (a typed NULL when the source lacks it), or remove the "
                                "property in a new contract version",
                                Quoted(path)));
        }
        continue;
      }
      const Type& actual = *at.type;
      bool element = path.back().kind != PathSegment::Kind::kField;
      if (spec.required && at.nullable) {
        Add(path, ViolationRule::kRequiredNotNull,
            element ? fmt::format("{} is required (not null), but the array may hold null "
                                  "elements",
                                  Quoted(path))
                    : fmt::format("column {} is required (not null), but the schema's column is "
                                  "nullable",
                                  Quoted(path)),
            fmt::format("declare {} NOT NULL and fill or filter its nulls before writing, or set "
                        "required: false in the contract",
                        Quoted(path)));
      }
      if (!CheckLogicalType(spec, actual)) {
        dead.insert(path.ToString());
        continue;
      }
      CheckPhysicalType(spec, actual);
    }
  }

  bool CheckLogicalType(const ColumnSpec& spec, const Type& actual) {
    if (!spec.logical_type.has_value() || actual.kind() == TypeKind::kNull) return true;
    const std::string& logical = *spec.logical_type;
    std::string_view family = dialects::contract::OdcsLogicalType(actual);
    if (family == logical || (logical == "number" && family == "integer")) return true;
    Add(spec.path, ViolationRule::kLogicalTypeMismatch,
        fmt::format("column {} is {} ({}), the contract's logicalType is {}", Quoted(spec.path),
                    actual.ToString(), family, logical),
        fmt::format("cast {} to a {} type before writing, or change its logicalType in a new "
                    "contract version",
                    Quoted(spec.path), logical));
    return false;
  }

  // The type the column must fit: a recognised physicalType (DCS: the type with its precision
  // and scale), or, without one, what logicalTypeOptions pin down (an integer `format`, a
  // timestamp's `timezone`), as ParseOdcs reads them.
  void CheckPhysicalType(const ColumnSpec& spec, const Type& actual) {
    if (actual.kind() == TypeKind::kNull) return;
    const Type* expected = nullptr;
    bool zone_explicit = true;
    ViolationRule rule = ViolationRule::kPhysicalTypeMismatch;
    std::string named;
    dialects::contract::OdcsPhysicalType pt;
    auto resolved = [&]() -> const Type* {
      Located at = Locate(*object_.schema, spec.path, finder_);
      return at.state == Located::State::kFound ? at.type : nullptr;
    };
    if (contract_.format == ContractFormat::kDcs) {
      if (!spec.physical_type.has_value() || !spec.logical_type.has_value()) return;
      expected = resolved();
      named = fmt::format("type {}", *spec.physical_type);
    } else {
      const JsonValue* tz = spec.logical_type_options.Find("timezone");
      const JsonValue* format = spec.logical_type_options.Find("format");
      bool pinned = (tz != nullptr && tz->is_bool()) ||
                    (format != nullptr && format->is_string() &&
                     (spec.logical_type == "integer" || spec.logical_type == "number"));
      if (spec.physical_type.has_value()) {
        pt = dialects::contract::ReadOdcsPhysicalType(*spec.physical_type);
        expected = pt.type.get();
        zone_explicit = pt.zone_explicit;
        named = fmt::format("physicalType {}", *spec.physical_type);
      }
      if (pinned && (expected == nullptr || IsTimestamp(*expected))) {
        if (expected == nullptr) rule = ViolationRule::kLogicalTypeMismatch;
        expected = resolved();
        zone_explicit = true;
        named = fmt::format("logicalType {} with logicalTypeOptions {}",
                            spec.logical_type.value_or(""), ToJson(spec.logical_type_options));
      }
    }
    if (expected == nullptr) return;
    // Nested shapes are checked property by property.
    if (expected->is_nested() && HasChildSpec(spec.path)) return;
    if (!zone_explicit && IsTimestamp(actual) && IsTimestamp(*expected)) return;
    if (Fits(actual, *expected, /*exact=*/false)) return;
    Add(spec.path, rule,
        fmt::format("column {} is {}, which does not fit the contract's {} ({})", Quoted(spec.path),
                    actual.ToString(), named, expected->ToString()),
        fmt::format("cast {} to {} before writing, or change the contract's type in a new "
                    "version",
                    Quoted(spec.path), expected->ToString()));
  }

  bool Declared(const FieldPath& path) const {
    if (contract_.format == ContractFormat::kSeed) {
      return path.size() == 1 &&
             finder_.Find(*object_.schema->struct_type(), path.back().name) != nullptr;
    }
    return FindSpec(path) != nullptr;
  }

  // allowed_new_columns: false. Seed contracts list top-level columns only; ODCS and DCS list
  // nested ones too, so a field under a declared parent with declared children counts.
  void CheckExtraColumns() {
    schema::VisitFields(schema_, [&](const FieldPath& path, const Field&) {
      if (Declared(path)) return;
      if (path.size() > 1) {
        if (contract_.format == ContractFormat::kSeed) return;
        FieldPath parent = path.Parent();
        if (!Declared(parent) || !HasChildSpec(parent)) return;
      }
      bool in_previous =
          previous_ != nullptr && Locate(*previous_, path, finder_).state == Located::State::kFound;
      Add(path, ViolationRule::kNewColumnNotAllowed,
          fmt::format("column {} is not in the contract, which allows no new columns{}",
                      Quoted(path),
                      previous_ == nullptr ? ""
                      : in_previous        ? " (it was in the previous schema too)"
                                           : " (it is new since the previous schema)"),
          fmt::format("drop {} before writing (select the contract's columns only), or add it "
                      "to the contract in a new version",
                      Quoted(path)));
    });
  }

  void CheckChangesSincePrevious() {
    SchemaDiff diff = Diff(*previous_, schema_);
    for (const Change& c : diff.changes) {
      std::string from = c.from.value_or("");
      std::string to = c.to.value_or("");
      if (c.kind == ChangeKind::kFieldAdded && !policy_.allow_new_columns && !Declared(c.path)) {
        Add(c.path, ViolationRule::kNewColumnNotAllowed,
            fmt::format("column {} ({}) is new since the previous schema, and the contract "
                        "allows no new columns",
                        Quoted(c.path), to),
            fmt::format("drop {} before writing, or add it to the contract in a new version",
                        Quoted(c.path)));
      } else if (c.kind == ChangeKind::kFieldRemoved && !policy_.allow_column_removal) {
        Add(c.path, ViolationRule::kColumnRemovalNotAllowed,
            fmt::format("column {} ({}) was removed since the previous schema, and the contract "
                        "allows no removals",
                        Quoted(c.path), from),
            fmt::format("keep writing {} (CAST(NULL AS <type>) if there is no data for it), or "
                        "allow removals in a new contract version",
                        Quoted(c.path)));
      } else if ((c.kind == ChangeKind::kTypeWidened || c.kind == ChangeKind::kTypeNarrowed ||
                  c.kind == ChangeKind::kTypeChanged) &&
                 !policy_.allow_type_changes) {
        Add(c.path, ViolationRule::kTypeChangeNotAllowed,
            fmt::format("column {} changed type from {} to {}{}, and the contract allows no type "
                        "changes",
                        Quoted(c.path), from, to,
                        c.kind == ChangeKind::kTypeWidened ? " (a lossless widening)" : ""),
            fmt::format("cast {} back to {} before writing, or allow type changes in a new "
                        "contract version",
                        Quoted(c.path), from));
      }
    }
  }

  const Schema& schema_;
  const Contract& contract_;
  const ContractObject& object_;
  const Schema* previous_;
  const ContractCheckOptions& options_;
  dialects::contract::ChangePolicy policy_;
  std::vector<ContractViolation> violations_;
  std::set<std::pair<ViolationRule, std::string>> seen_;
  std::unordered_map<std::string, const ColumnSpec*> specs_;
  std::unordered_set<std::string> parents_;
  mutable FieldFinder finder_;
};

Result<const ContractObject*> SelectObject(const Contract& contract, const Schema& schema,
                                           const ContractCheckOptions& options) {
  if (!options.object_name.empty() || contract.objects.empty()) {
    return contract.Object(options.object_name);
  }
  const std::string& name = schema.info().name;
  if (!name.empty()) {
    for (const ContractObject& o : contract.objects) {
      if (o.name == name) return &o;
    }
    for (const ContractObject& o : contract.objects) {
      if (o.physical_name.has_value() && *o.physical_name == name) return &o;
    }
  }
  return &contract.objects.front();
}

// ---------------------------------------------------------------------------------------------
// BreakingChanges: both contracts are first turned into views in DCS terms, then compared the
// way datacontract-cli v0.10.41 compared its pydantic models.

// What an attribute that is not written reads as: pydantic gave lists a default of [].
enum class Default : uint8_t { kNone, kEmptyList };

struct Attr {
  std::string_view name;           // static text, or a key held by the contract
  std::optional<JsonValue> value;  // nullopt: not written, or null
  Default fallback = Default::kNone;
  int rank = 0;  // position among all the attributes the view knows, for the output's order
};

// Keeps what is written (and the structural markers), so a wide contract's view stays small.
std::vector<Attr> Compact(std::vector<Attr> all) {
  std::vector<Attr> out;
  for (size_t i = 0; i < all.size(); ++i) {
    Attr& a = all[i];
    if (!a.value.has_value() && a.name != "fields" && a.name != "items") continue;
    a.rank = static_cast<int>(i);
    out.push_back(std::move(a));
  }
  return out;
}

struct FieldView {
  std::string name;
  std::vector<Attr> attrs;  // declared attributes in a fixed order, then extension keys
  std::vector<FieldView> fields;
  std::vector<FieldView> items;  // zero or one
  bool has_items = false;

  const Attr* Find(std::string_view key) const {
    for (const Attr& a : attrs) {
      if (a.name == key) return &a;
    }
    return nullptr;
  }
  std::string type() const {
    const Attr* t = Find("type");
    return t != nullptr && t->value.has_value() && t->value->is_string() ? t->value->as_string()
                                                                         : std::string();
  }
};

struct ModelView {
  std::string name;
  std::vector<Attr> attrs;
  std::vector<FieldView> fields;
};

struct ContractView {
  std::optional<std::vector<Attr>> info;
  std::optional<std::vector<Attr>> terms;
  std::optional<JsonValue> quality;  // DCS's deprecated top-level quality
  std::vector<Attr> other;           // ODCS top-level keys, compared as contract_<key>
  std::vector<ModelView> models;
};

std::optional<JsonValue> Member(const JsonValue& object, std::string_view key) {
  const JsonValue* v = object.Find(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return *v;
}

std::optional<JsonValue> OptString(const std::optional<std::string>& s) {
  if (!s.has_value()) return std::nullopt;
  return JsonValue::String(*s);
}

std::optional<JsonValue> OptJson(const JsonValue& v) {
  if (v.is_null()) return std::nullopt;
  return v;
}

bool Wrote(const ColumnSpec& spec, std::string_view key) {
  return std::find(spec.keys.begin(), spec.keys.end(), key) != spec.keys.end();
}

std::optional<JsonValue> WrittenBool(const ColumnSpec& spec, std::string_view key, bool value) {
  if (!Wrote(spec, key)) return std::nullopt;
  return JsonValue::Bool(value);
}

JsonValue TagsJson(const std::vector<std::string>& tags) {
  JsonValue out = JsonValue::Array();
  for (const std::string& t : tags) out.Append(JsonValue::String(t));
  return out;
}

std::optional<JsonValue> Option(const ColumnSpec& spec, std::string_view key) {
  if (!spec.logical_type_options.is_object()) return std::nullopt;
  return Member(spec.logical_type_options, key);
}

constexpr std::string_view kConstraintKeys[] = {"pattern",         "minLength",        "maxLength",
                                                "minimum",         "exclusiveMinimum", "maximum",
                                                "exclusiveMaximum"};

// DCS field attributes in the order datacontract-cli's Field model declares them; `fields` and
// `items` are compared where they stand.
constexpr std::string_view kDcsFieldOrder[] = {"$ref",
                                               "title",
                                               "type",
                                               "format",
                                               "required",
                                               "primary",
                                               "primaryKey",
                                               "unique",
                                               "references",
                                               "description",
                                               "pii",
                                               "classification",
                                               "pattern",
                                               "minLength",
                                               "maxLength",
                                               "minimum",
                                               "exclusiveMinimum",
                                               "maximum",
                                               "exclusiveMaximum",
                                               "enum",
                                               "tags",
                                               "links",
                                               "fields",
                                               "items",
                                               "keys",
                                               "values",
                                               "precision",
                                               "scale",
                                               "example",
                                               "examples",
                                               "quality",
                                               "lineage",
                                               "config"};

template <size_t N>
bool In(const std::string_view (&list)[N], std::string_view key) {
  return std::find(std::begin(list), std::end(list), key) != std::end(list);
}

// The attributes of one DCS field as datacontract-cli's model held them.
std::vector<Attr> DcsFieldAttrs(const ColumnSpec& spec) {
  std::vector<Attr> attrs;
  for (std::string_view key : kDcsFieldOrder) {
    Attr a{key, std::nullopt, Default::kNone};
    if (key == "title") {
      a.value = OptString(spec.business_name);
    } else if (key == "type") {
      a.value = OptString(spec.physical_type);
    } else if (key == "format" || In(kConstraintKeys, key)) {
      a.value = Option(spec, key);
    } else if (key == "required") {
      a.value = WrittenBool(spec, key, spec.required);
    } else if (key == "primaryKey") {
      a.value = WrittenBool(spec, key, spec.primary_key);
    } else if (key == "unique") {
      a.value = WrittenBool(spec, key, spec.unique);
    } else if (key == "description") {
      a.value = OptString(spec.description);
    } else if (key == "classification") {
      a.value = OptString(spec.classification);
    } else if (key == "tags") {
      a.value = TagsJson(spec.tags);
      a.fallback = Default::kEmptyList;
    } else if (key == "quality") {
      a.value = OptJson(spec.quality);
      a.fallback = Default::kEmptyList;
    } else if (key == "enum") {
      a.value = Member(spec.other, key);
      a.fallback = Default::kEmptyList;
    } else if (key == "fields" || key == "items") {
      // structural: compared by the caller
    } else {
      a.value = Member(spec.other, key);
    }
    attrs.push_back(std::move(a));
  }
  for (const JsonMember& m : spec.other.members()) {
    if (!In(kDcsFieldOrder, m.key)) attrs.push_back(Attr{m.key, OptJson(m.value)});
  }
  return Compact(std::move(attrs));
}

// An ODCS property in DCS terms: the reverse of datacontract-cli's DCS-to-ODCS export, which
// wrote type as logicalType, title as businessName, the constraints into logicalTypeOptions, pii
// and extension keys as customProperties and enum as a validValues quality rule.
std::vector<Attr> OdcsFieldAttrs(const ColumnSpec& spec, bool physical) {
  std::vector<Attr> attrs;
  std::optional<JsonValue> pii;
  std::vector<Attr> custom;
  if (const JsonValue* cps = spec.other.Find("customProperties"); cps && cps->is_array()) {
    for (const JsonValue& cp : cps->items()) {
      const JsonValue* p = cp.Find("property");
      if (p == nullptr || !p->is_string()) continue;
      std::optional<JsonValue> value = Member(cp, "value");
      if (p->as_string() == "pii") {
        pii = value;
      } else {
        custom.push_back(Attr{p->as_string(), value});
      }
    }
  }
  std::optional<JsonValue> enum_values;
  if (spec.quality.is_array()) {
    for (const JsonValue& rule : spec.quality.items()) {
      const JsonValue* valid = rule.Find("validValues");
      if (const JsonValue* args = rule.Find("arguments"); args != nullptr && valid == nullptr) {
        valid = args->Find("validValues");
      }
      if (valid != nullptr && valid->is_array()) enum_values = *valid;
    }
  }
  std::optional<JsonValue> type = OptString(spec.logical_type);
  if (!type.has_value() && spec.physical_type.has_value()) {
    std::string family = dialects::contract::ReadOdcsPhysicalType(*spec.physical_type).logical_type;
    if (!family.empty()) type = JsonValue::String(family);
  }
  attrs.push_back(Attr{"title", OptString(spec.business_name)});
  attrs.push_back(Attr{"type", type});
  attrs.push_back(Attr{"format", Option(spec, "format")});
  attrs.push_back(Attr{"required", WrittenBool(spec, "required", spec.required)});
  attrs.push_back(Attr{"primaryKey", WrittenBool(spec, "primaryKey", spec.primary_key)});
  attrs.push_back(Attr{"unique", WrittenBool(spec, "unique", spec.unique)});
  attrs.push_back(Attr{"references", Member(spec.other, "relationships")});
  attrs.push_back(Attr{"description", OptString(spec.description)});
  attrs.push_back(Attr{"pii", pii});
  attrs.push_back(Attr{"classification", OptString(spec.classification)});
  for (std::string_view key : kConstraintKeys) {
    attrs.push_back(Attr{key, Option(spec, key)});
  }
  attrs.push_back(Attr{"enum", enum_values, Default::kEmptyList});
  attrs.push_back(Attr{"tags", TagsJson(spec.tags), Default::kEmptyList});
  attrs.push_back(Attr{"fields", std::nullopt});
  attrs.push_back(Attr{"items", std::nullopt});
  attrs.push_back(Attr{"examples", Member(spec.other, "examples")});
  attrs.push_back(Attr{"quality", OptJson(spec.quality), Default::kEmptyList});
  // Not compared by v0.10.41 (it kept physicalType in `config`); see docs/contracts.md. A DCS
  // contract has no such attribute, so it is compared between ODCS contracts only.
  if (physical) attrs.push_back(Attr{"physicalType", OptString(spec.physical_type)});
  auto written_int = [&](std::string_view key, const std::optional<int64_t>& v) {
    if (Wrote(spec, key) && v.has_value()) attrs.push_back(Attr{key, JsonValue::Int(*v)});
  };
  written_int("primaryKeyPosition", spec.primary_key_position);
  written_int("partitionKeyPosition", spec.partition_key_position);
  if (Wrote(spec, "partitioned"))
    attrs.push_back(Attr{"partitioned", JsonValue::Bool(spec.partitioned)});
  if (Wrote(spec, "criticalDataElement")) {
    attrs.push_back(Attr{"criticalDataElement", JsonValue::Bool(spec.critical_data_element)});
  }
  if (spec.physical_name.has_value())
    attrs.push_back(Attr{"physicalName", OptString(spec.physical_name)});
  if (spec.logical_type_options.is_object()) {
    for (const JsonMember& m : spec.logical_type_options.members()) {
      if (m.key != "format" && !In(kConstraintKeys, m.key)) {
        attrs.push_back(Attr{m.key, OptJson(m.value)});
      }
    }
  }
  for (const JsonMember& m : spec.other.members()) {
    if (m.key != "customProperties" && m.key != "examples" && m.key != "relationships") {
      attrs.push_back(Attr{m.key, OptJson(m.value)});
    }
  }
  for (Attr& a : custom) attrs.push_back(std::move(a));
  return Compact(std::move(attrs));
}

std::vector<Attr> SeedFieldAttrs(const ColumnSpec& spec, const ContractObject& object,
                                 FieldFinder& finder) {
  std::optional<JsonValue> type;
  // Normalised, so `decimal(10, 2)` and `decimal(10,2)` are one type.
  if (Located at = Locate(*object.schema, spec.path, finder); at.state == Located::State::kFound) {
    type = JsonValue::String(dialects::spark::DataTypeName(*at.type));
  }
  return Compact({Attr{"type", type}, Attr{"required", JsonValue::Bool(spec.required)},
                  Attr{"description", OptString(spec.description)}});
}

class ViewBuilder {
 public:
  ViewBuilder(const Contract& contract, const ContractObject& object, bool physical)
      : contract_(contract), object_(object), physical_(physical) {
    for (size_t i = 0; i < object.columns.size(); ++i) {
      const FieldPath& p = object.columns[i].path;
      if (p.empty()) continue;
      PathSegment::Kind kind = p.back().kind;
      if (kind != PathSegment::Kind::kField && kind != PathSegment::Kind::kElement) continue;
      children_[p.Parent().ToString()].push_back(i);
    }
  }

  std::vector<FieldView> Fields(const FieldPath& parent) const {
    std::vector<FieldView> out;
    auto it = children_.find(parent.ToString());
    if (it == children_.end()) return out;
    for (size_t i : it->second) {
      const ColumnSpec& spec = object_.columns[i];
      if (spec.path.back().kind != PathSegment::Kind::kField) continue;
      out.push_back(Build(spec, spec.path.back().name));
    }
    return out;
  }

 private:
  FieldView Build(const ColumnSpec& spec, std::string name) const {
    FieldView view;
    view.name = std::move(name);
    if (contract_.format == ContractFormat::kDcs) {
      view.attrs = DcsFieldAttrs(spec);
    } else if (contract_.format == ContractFormat::kOdcs) {
      view.attrs = OdcsFieldAttrs(spec, physical_);
    } else {
      view.attrs = SeedFieldAttrs(spec, object_, finder_);
    }
    view.fields = Fields(spec.path);
    auto it = children_.find(spec.path.ToString());
    if (it != children_.end()) {
      for (size_t i : it->second) {
        const ColumnSpec& child = object_.columns[i];
        if (child.path.back().kind == PathSegment::Kind::kElement) {
          view.items.push_back(Build(child, ""));
          view.has_items = true;
          break;
        }
      }
    }
    return view;
  }

  const Contract& contract_;
  const ContractObject& object_;
  bool physical_;
  std::unordered_map<std::string, std::vector<size_t>> children_;
  mutable FieldFinder finder_;
};

std::vector<Attr> ModelAttrs(const Contract& contract, const ContractObject& object,
                             bool physical) {
  std::vector<Attr> attrs;
  if (contract.format == ContractFormat::kSeed) {
    attrs.push_back(Attr{"description", OptString(object.description)});
    return Compact(std::move(attrs));
  }
  if (contract.format == ContractFormat::kDcs) {
    attrs.push_back(Attr{"description", OptString(object.description)});
    attrs.push_back(Attr{"type", OptString(object.physical_type)});
    attrs.push_back(Attr{"namespace", Member(object.other, "namespace")});
    attrs.push_back(Attr{"title", OptString(object.business_name)});
    attrs.push_back(Attr{"quality", OptJson(object.quality), Default::kEmptyList});
    attrs.push_back(Attr{"primaryKey", Member(object.other, "primaryKey"), Default::kEmptyList});
    for (std::string_view key : {"examples", "additionalFields", "config", "tags"}) {
      attrs.push_back(Attr{key, Member(object.other, key)});
    }
    for (const JsonMember& m : object.other.members()) {
      if (m.key != "namespace" && m.key != "primaryKey" && m.key != "examples" &&
          m.key != "additionalFields" && m.key != "config" && m.key != "tags") {
        attrs.push_back(Attr{m.key, OptJson(m.value)});
      }
    }
    return Compact(std::move(attrs));
  }
  // ODCS: the object's physicalType (table, view, topic) is the DCS model type, as the export
  // wrote it; physicalName is where consumers read, compared by sluice (docs/contracts.md).
  attrs.push_back(Attr{"description", OptString(object.description)});
  attrs.push_back(Attr{"type", OptString(object.physical_type)});
  attrs.push_back(Attr{"title", OptString(object.business_name)});
  attrs.push_back(Attr{"quality", OptJson(object.quality), Default::kEmptyList});
  if (physical) attrs.push_back(Attr{"physicalName", OptString(object.physical_name)});
  for (const JsonMember& m : object.other.members()) {
    attrs.push_back(Attr{m.key, OptJson(m.value)});
  }
  return Compact(std::move(attrs));
}

std::vector<Attr> ObjectAttrs(const JsonValue& object) {
  std::vector<Attr> attrs;
  for (const JsonMember& m : object.members()) attrs.push_back(Attr{m.key, OptJson(m.value)});
  return Compact(std::move(attrs));
}

// `physical`: compare ODCS physicalType and physicalName, which DCS does not have.
ContractView MakeView(const Contract& contract, bool physical) {
  ContractView view;
  if (contract.format == ContractFormat::kDcs) {
    if (const JsonValue* info = contract.other.Find("info"); info && info->is_object()) {
      view.info = ObjectAttrs(*info);
    }
    if (const JsonValue* terms = contract.other.Find("terms"); terms && terms->is_object()) {
      view.terms = ObjectAttrs(*terms);
    }
    view.quality = Member(contract.other, "quality");
  } else if (contract.format == ContractFormat::kOdcs) {
    std::vector<Attr> info;
    info.push_back(Attr{"title", contract.name.empty() ? std::nullopt : OptString(contract.name)});
    info.push_back(Attr{"version", OptString(contract.version)});
    info.push_back(Attr{"status", OptString(contract.status)});
    view.info = Compact(std::move(info));
    view.other = ObjectAttrs(contract.other);
  }
  for (const ContractObject& o : contract.objects) {
    ModelView m;
    m.name = o.name;
    m.attrs = ModelAttrs(contract, o, physical);
    m.fields = ViewBuilder(contract, o, physical).Fields(FieldPath());
    view.models.push_back(std::move(m));
  }
  return view;
}

// Severities of datacontract-cli v0.10.41 (datacontract/breaking/breaking_rules.py), plus the
// rules sluice adds for what that version did not compare (marked).
struct RuleSeverity {
  std::string_view rule;
  BreakingSeverity severity;
};

constexpr BreakingSeverity kE = BreakingSeverity::kError;
constexpr BreakingSeverity kW = BreakingSeverity::kWarning;
constexpr BreakingSeverity kI = BreakingSeverity::kInfo;

constexpr RuleSeverity kRules[] = {
    {"model_added", kI},
    {"model_removed", kE},
    {"model_description_added", kI},
    {"model_description_removed", kI},
    {"model_description_updated", kI},
    {"model_type_updated", kE},
    {"model__removed", kI},
    {"model__added", kI},
    {"model__updated", kI},
    {"field_added", kI},
    {"field_removed", kE},
    {"field_ref_added", kW},
    {"field_ref_removed", kW},
    {"field_ref_updated", kW},
    {"field_title_added", kI},
    {"field_title_removed", kI},
    {"field_title_updated", kI},
    {"field_type_added", kW},
    {"field_type_removed", kW},
    {"field_type_updated", kE},
    {"field_format_added", kW},
    {"field_format_removed", kW},
    {"field_format_updated", kE},
    {"field_required_updated", kE},
    {"field_primary_added", kW},
    {"field_primary_removed", kW},
    {"field_primary_updated", kW},
    {"field_primary_key_added", kW},
    {"field_primary_key_removed", kW},
    {"field_primary_key_updated", kW},
    {"field_references_added", kW},
    {"field_references_removed", kW},
    {"field_references_updated", kW},
    {"field_unique_updated", kE},
    {"field_description_added", kI},
    {"field_description_removed", kI},
    {"field_description_updated", kI},
    {"field_pii_added", kW},
    {"field_pii_removed", kE},
    {"field_pii_updated", kE},
    {"field_classification_added", kW},
    {"field_classification_removed", kE},
    {"field_classification_updated", kE},
    {"field_pattern_added", kW},
    {"field_pattern_removed", kE},
    {"field_pattern_updated", kE},
    {"field_min_length_added", kW},
    {"field_min_length_removed", kW},
    {"field_min_length_updated", kE},
    {"field_max_length_added", kW},
    {"field_max_length_removed", kW},
    {"field_max_length_updated", kE},
    {"field_minimum_added", kW},
    {"field_minimum_removed", kW},
    {"field_minimum_updated", kE},
    {"field_exclusive_minimum_added", kW},
    {"field_exclusive_minimum_removed", kW},
    {"field_exclusive_minimum_updated", kE},
    {"field_maximum_added", kW},
    {"field_maximum_removed", kW},
    {"field_maximum_updated", kE},
    {"field_exclusive_maximum_added", kW},
    {"field_exclusive_maximum_removed", kW},
    {"field_exclusive_maximum_updated", kE},
    {"field_enum_added", kW},
    {"field_enum_removed", kI},
    {"field_enum_updated", kE},
    {"field_tags_added", kI},
    {"field_tags_removed", kI},
    {"field_tags_updated", kI},
    {"field_example_added", kI},
    {"field_example_updated", kI},
    {"field_example_removed", kI},
    {"field__removed", kI},
    {"field__added", kI},
    {"field__updated", kI},
    {"quality_added", kI},
    {"quality_removed", kW},
    {"quality_type_updated", kW},
    {"quality_specification_updated", kW},
    {"info__added", kI},
    {"info__removed", kI},
    {"info__updated", kI},
    {"contact__added", kI},
    {"contact__removed", kI},
    {"contact__updated", kI},
    {"terms__added", kI},
    {"terms__removed", kI},
    {"terms__updated", kI},
    // sluice: ODCS physicalType is the column's storage type; a change is a type change.
    {"field_physical_type_added", kW},
    {"field_physical_type_removed", kW},
    {"field_physical_type_updated", kE},
    // sluice: a new ODCS physicalName moves the table; v0.10.41 keyed models by it, so the
    // same change read as the model removed (an error) and another added.
    {"model_physicalName_updated", kE},
    // sluice: the other top-level ODCS keys (servers, slaProperties, team, ...).
    {"contract__added", kI},
    {"contract__removed", kI},
    {"contract__updated", kI},
};

std::optional<BreakingSeverity> FindRule(std::string_view rule) {
  for (const RuleSeverity& r : kRules) {
    if (r.rule == rule) return r.severity;
  }
  return std::nullopt;
}

// Exact rule, else `<first>__<last>` (v0.10.41's catch-all for extension keys), else error.
BreakingSeverity SeverityOf(std::string_view rule) {
  if (auto s = FindRule(rule)) return *s;
  size_t first = rule.find('_');
  size_t last = rule.rfind('_');
  if (first != std::string_view::npos && last != first) {
    std::string shortened = fmt::format("{}__{}", rule.substr(0, first), rule.substr(last + 1));
    if (auto s = FindRule(shortened)) return *s;
  }
  return BreakingSeverity::kError;
}

// `primaryKey` -> `primary_key`, `custom-key` -> `custom_key`, as datacontract-cli names rules.
std::string CamelToSnake(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '-') {
      out += '_';
    } else if (c >= 'A' && c <= 'Z') {
      out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  size_t start = out.find_first_not_of('_');
  return start == std::string::npos ? std::string() : out.substr(start);
}

// Python's str() of the value, as the descriptions print it; `lower_bools` as fields print them.
void AppendPython(std::string& out, const JsonValue& v, bool top, bool lower_bools) {
  switch (v.kind()) {
    case JsonValue::Kind::kNull:
      out += "None";
      return;
    case JsonValue::Kind::kBool:
      out +=
          lower_bools && top ? (v.as_bool() ? "true" : "false") : (v.as_bool() ? "True" : "False");
      return;
    case JsonValue::Kind::kNumber:
      out += v.number_text();
      return;
    case JsonValue::Kind::kString:
      if (top) {
        out += v.as_string();
      } else {
        out += '\'';
        out += v.as_string();
        out += '\'';
      }
      return;
    case JsonValue::Kind::kArray: {
      out += '[';
      bool first = true;
      for (const JsonValue& item : v.items()) {
        if (!first) out += ", ";
        first = false;
        AppendPython(out, item, false, lower_bools);
      }
      out += ']';
      return;
    }
    case JsonValue::Kind::kObject: {
      out += '{';
      bool first = true;
      for (const JsonMember& m : v.members()) {
        if (!first) out += ", ";
        first = false;
        out += '\'' + m.key + "': ";
        AppendPython(out, m.value, false, lower_bools);
      }
      out += '}';
      return;
    }
  }
}

std::string Py(const JsonValue& v, bool lower_bools) {
  std::string out;
  AppendPython(out, v, true, lower_bools);
  return out;
}

// Python's sorted(a) == sorted(b): the same items, order aside.
bool SameItems(const JsonValue& a, const JsonValue& b) {
  if (a.items().size() != b.items().size()) return false;
  JsonFormat canonical;
  canonical.sort_keys = true;
  std::vector<std::string> x;
  std::vector<std::string> y;
  for (const JsonValue& v : a.items()) x.push_back(ToJson(v, canonical));
  for (const JsonValue& v : b.items()) y.push_back(ToJson(v, canonical));
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y;
}

JsonValue FieldJson(const FieldView& f) {
  JsonValue out = JsonValue::Object();
  for (const Attr& a : f.attrs) {
    if (a.value.has_value()) out.Set(std::string(a.name), *a.value);
  }
  if (!f.fields.empty()) {
    JsonValue fields = JsonValue::Object();
    for (const FieldView& child : f.fields) fields.Set(child.name, FieldJson(child));
    out.Set("fields", std::move(fields));
  }
  if (f.has_items) out.Set("items", FieldJson(f.items.front()));
  return out;
}

// The union of two attribute lists: the new side's order, then what only the old side has (the
// order of v0.10.41's `vars(new) | new.model_extra | old.model_extra`). First name wins.
struct AttrPair {
  std::string_view name;
  const Attr* old_attr;
  const Attr* new_attr;
};

std::vector<AttrPair> UnionOf(const std::vector<Attr>& old_attrs,
                              const std::vector<Attr>& new_attrs) {
  std::unordered_map<std::string_view, const Attr*> old_by_name;
  for (const Attr& a : old_attrs) old_by_name.emplace(a.name, &a);
  std::vector<AttrPair> out;
  std::unordered_set<std::string_view> done;
  for (const Attr& a : new_attrs) {
    if (!done.insert(a.name).second) continue;
    auto it = old_by_name.find(a.name);
    out.push_back(AttrPair{a.name, it == old_by_name.end() ? nullptr : it->second, &a});
  }
  for (const Attr& a : old_attrs) {
    if (done.insert(a.name).second) out.push_back(AttrPair{a.name, &a, nullptr});
  }
  std::stable_sort(out.begin(), out.end(), [](const AttrPair& x, const AttrPair& y) {
    const Attr* a = x.new_attr != nullptr ? x.new_attr : x.old_attr;
    const Attr* b = y.new_attr != nullptr ? y.new_attr : y.old_attr;
    return a->rank < b->rank;
  });
  return out;
}

template <class T>
std::unordered_map<std::string_view, const T*> ByName(const std::vector<T>& items) {
  std::unordered_map<std::string_view, const T*> out;
  for (const T& item : items) out.emplace(item.name, &item);
  return out;
}

template <class T>
const T* Lookup(const std::unordered_map<std::string_view, const T*>& map, std::string_view name) {
  auto it = map.find(name);
  return it == map.end() ? nullptr : it->second;
}

class Comparer {
 public:
  BreakingChangeReport Run(const ContractView& old_view, const ContractView& new_view) {
    if (old_view.info.has_value() && new_view.info.has_value()) {
      CompareAttrs("info", {"info"}, *old_view.info, *new_view.info, false, false);
    }
    CompareTerms(old_view.terms, new_view.terms);
    CompareQuality(old_view.quality, new_view.quality);
    CompareAttrs("contract", {}, old_view.other, new_view.other, false, false);
    CompareModels(old_view.models, new_view.models);
    return std::move(report_);
  }

 private:
  void Emit(std::string rule, const std::vector<std::string>& location, std::string description) {
    BreakingSeverity severity = SeverityOf(rule);
    report_.changes.push_back(BreakingChange{std::move(rule), severity, JoinStrings(location, "."),
                                             std::move(description)});
  }

  static std::vector<std::string> With(std::vector<std::string> base, std::string_view more) {
    base.emplace_back(more);
    return base;
  }

  // One attribute, the way v0.10.41 compared it: for fields, lists on both sides by their items
  // (added when they gain their first, removed when they lose their last); everything else
  // added, removed or updated by value.
  void CompareValue(std::string_view scope, const std::vector<std::string>& location,
                    std::string_view name, std::optional<JsonValue> old_value,
                    std::optional<JsonValue> new_value, Default fallback, bool field_level) {
    if (fallback == Default::kEmptyList) {
      if (!old_value.has_value()) old_value = JsonValue::Array();
      if (!new_value.has_value()) new_value = JsonValue::Array();
    }
    // The model's attribute is `ref`, written `$ref`: rules say the one, locations the other.
    std::string attr = name == "$ref"                    ? std::string("ref")
                       : field_level || scope != "model" ? CamelToSnake(name)
                                                         : std::string(name);
    std::string prefix = fmt::format("{}_{}", scope, attr);
    bool lower = field_level;
    // v0.10.41 said "removed info property" for terms too.
    std::string_view what = scope == "model" || scope == "field" ? scope : "info";
    if (field_level && old_value && new_value && old_value->is_array() && new_value->is_array()) {
      bool old_empty = old_value->items().empty();
      bool new_empty = new_value->items().empty();
      if (old_empty && !new_empty) {
        Emit(prefix + "_added", With(location, name),
             fmt::format("added with value: `{}`", Py(*new_value, false)));
      } else if (!old_empty && new_empty) {
        Emit(prefix + "_removed", With(location, name), "removed field property");
      } else if (!SameItems(*old_value, *new_value)) {
        Emit(
            prefix + "_updated", With(location, name),
            fmt::format("changed from `{}` to `{}`", Py(*old_value, false), Py(*new_value, false)));
      }
      return;
    }
    if (!old_value.has_value() && new_value.has_value()) {
      Emit(prefix + "_added", With(location, name),
           fmt::format("added with value: `{}`", Py(*new_value, lower)));
    } else if (old_value.has_value() && !new_value.has_value()) {
      Emit(prefix + "_removed", With(location, name), fmt::format("removed {} property", what));
    } else if (old_value.has_value() && !old_value->Equals(*new_value)) {
      Emit(prefix + "_updated", With(location, name),
           fmt::format("changed from `{}` to `{}`", Py(*old_value, lower), Py(*new_value, lower)));
    }
  }

  void CompareAttrs(std::string_view scope, const std::vector<std::string>& location,
                    const std::vector<Attr>& old_attrs, const std::vector<Attr>& new_attrs,
                    bool field_level, bool skip_structure) {
    for (const AttrPair& a : UnionOf(old_attrs, new_attrs)) {
      if (skip_structure && (a.name == "fields" || a.name == "items")) continue;
      CompareAttr(scope, location, a, field_level);
    }
  }

  void CompareAttr(std::string_view scope, const std::vector<std::string>& location,
                   const AttrPair& a, bool field_level) {
    Default fallback = a.old_attr != nullptr ? a.old_attr->fallback : a.new_attr->fallback;
    CompareValue(scope, location, a.name, a.old_attr != nullptr ? a.old_attr->value : std::nullopt,
                 a.new_attr != nullptr ? a.new_attr->value : std::nullopt, fallback, field_level);
  }

  void CompareTerms(const std::optional<std::vector<Attr>>& old_terms,
                    const std::optional<std::vector<Attr>>& new_terms) {
    if (!old_terms.has_value() && new_terms.has_value()) {
      Emit("terms_added", {"terms"}, "added terms");
    } else if (old_terms.has_value() && !new_terms.has_value()) {
      Emit("terms_removed", {"terms"}, "removed terms");
    } else if (old_terms.has_value()) {
      CompareAttrs("terms", {"terms"}, *old_terms, *new_terms, false, false);
    }
  }

  void CompareQuality(const std::optional<JsonValue>& old_q,
                      const std::optional<JsonValue>& new_q) {
    if (!old_q.has_value() && new_q.has_value()) {
      Emit("quality_added", {"quality"}, "added quality");
    } else if (old_q.has_value() && !new_q.has_value()) {
      Emit("quality_removed", {"quality"}, "removed quality");
    } else if (old_q.has_value()) {
      for (std::string_view key : {"type", "specification"}) {
        std::optional<JsonValue> a = old_q->is_object() ? Member(*old_q, key) : std::nullopt;
        std::optional<JsonValue> b = new_q->is_object() ? Member(*new_q, key) : std::nullopt;
        bool same = a.has_value() == b.has_value() && (!a.has_value() || a->Equals(*b));
        if (!same) {
          Emit(fmt::format("quality_{}_updated", key), {"quality", std::string(key)},
               fmt::format("changed from `{}` to `{}`", a ? Py(*a, false) : "None",
                           b ? Py(*b, false) : "None"));
        }
      }
    }
  }

  void CompareModels(const std::vector<ModelView>& old_models,
                     const std::vector<ModelView>& new_models) {
    auto old_by_name = ByName(old_models);
    auto new_by_name = ByName(new_models);
    for (const ModelView& m : new_models) {
      if (Lookup(old_by_name, m.name) == nullptr) {
        Emit("model_added", {"models", m.name}, "added the model");
      }
    }
    for (const ModelView& old_model : old_models) {
      const ModelView* new_model = Lookup(new_by_name, old_model.name);
      if (new_model == nullptr) {
        Emit("model_removed", {"models", old_model.name}, "removed the model");
        continue;
      }
      std::vector<std::string> location = {"models", old_model.name};
      CompareAttrs("model", location, old_model.attrs, new_model->attrs, false, true);
      CompareFields(old_model.fields, new_model->fields, With(location, "fields"));
    }
  }

  void CompareFields(const std::vector<FieldView>& old_fields,
                     const std::vector<FieldView>& new_fields,
                     const std::vector<std::string>& location) {
    auto old_by_name = ByName(old_fields);
    auto new_by_name = ByName(new_fields);
    for (const FieldView& f : new_fields) {
      if (Lookup(old_by_name, f.name) == nullptr) {
        Emit("field_added", With(location, f.name), "added the field");
      }
    }
    for (const FieldView& old_field : old_fields) {
      const FieldView* new_field = Lookup(new_by_name, old_field.name);
      if (new_field == nullptr) {
        Emit("field_removed", With(location, old_field.name), "removed the field");
        continue;
      }
      CompareField(old_field, *new_field, With(location, old_field.name));
    }
  }

  void CompareField(const FieldView& old_field, const FieldView& new_field,
                    const std::vector<std::string>& location) {
    for (const AttrPair& a : UnionOf(old_field.attrs, new_field.attrs)) {
      if (a.name == "fields") {
        CompareFields(old_field.fields, new_field.fields, With(location, "fields"));
      } else if (a.name == "items") {
        CompareItems(old_field, new_field, location);
      } else {
        CompareAttr("field", location, a, true);
      }
    }
  }

  // Arrays on both sides compare their items as a field; otherwise `items` is a value.
  void CompareItems(const FieldView& old_field, const FieldView& new_field,
                    const std::vector<std::string>& location) {
    if (old_field.type() == "array" && new_field.type() == "array") {
      FieldView none;
      CompareField(old_field.has_items ? old_field.items.front() : none,
                   new_field.has_items ? new_field.items.front() : none, With(location, "items"));
      return;
    }
    std::optional<JsonValue> a;
    std::optional<JsonValue> b;
    if (old_field.has_items) a = FieldJson(old_field.items.front());
    if (new_field.has_items) b = FieldJson(new_field.items.front());
    CompareValue("field", location, "items", a, b, Default::kNone, true);
  }

  BreakingChangeReport report_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public functions.

std::string_view ViolationRuleName(ViolationRule rule) {
  switch (rule) {
    case ViolationRule::kRequiredColumnMissing:
      return "required_column_missing";
    case ViolationRule::kRequiredColumnType:
      return "required_column_type";
    case ViolationRule::kRequiredColumnNullability:
      return "required_column_nullability";
    case ViolationRule::kNewColumnNotAllowed:
      return "new_column_not_allowed";
    case ViolationRule::kTypeChangeNotAllowed:
      return "type_change_not_allowed";
    case ViolationRule::kColumnRemovalNotAllowed:
      return "column_removal_not_allowed";
    case ViolationRule::kColumnMissing:
      return "column_missing";
    case ViolationRule::kRequiredNotNull:
      return "required_not_null";
    case ViolationRule::kLogicalTypeMismatch:
      return "logical_type_mismatch";
    case ViolationRule::kPhysicalTypeMismatch:
      return "physical_type_mismatch";
  }
  return "unknown";
}

int ContractCheckReport::Count(ViolationRule rule) const {
  return static_cast<int>(
      std::count_if(violations.begin(), violations.end(),
                    [&](const ContractViolation& v) { return v.rule == rule; }));
}

Result<ContractCheckReport> CheckContract(const Schema& schema, const Contract& contract,
                                          const Schema* previous,
                                          const ContractCheckOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(const ContractObject* object, SelectObject(contract, schema, options));
  ContractCheckReport report;
  report.object = object->name;
  report.violations = Checker(schema, contract, *object, previous, options).Run();
  return report;
}

std::string_view BreakingSeverityName(BreakingSeverity severity) {
  switch (severity) {
    case BreakingSeverity::kError:
      return "error";
    case BreakingSeverity::kWarning:
      return "warning";
    case BreakingSeverity::kInfo:
      return "info";
  }
  return "unknown";
}

int BreakingChangeReport::Count(BreakingSeverity severity) const {
  return static_cast<int>(
      std::count_if(changes.begin(), changes.end(),
                    [&](const BreakingChange& c) { return c.severity == severity; }));
}

BreakingChangeReport BreakingChanges(const Contract& old_contract, const Contract& new_contract) {
  bool physical =
      old_contract.format == ContractFormat::kOdcs && new_contract.format == ContractFormat::kOdcs;
  return Comparer().Run(MakeView(old_contract, physical), MakeView(new_contract, physical));
}

}  // namespace sluice::evolution
