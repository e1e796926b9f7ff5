#include <algorithm>
#include <cctype>
#include <string>

#include "sluice/base/json_writer.h"
#include "sluice/schema/field_path.h"
#include "sluice/sqlgen/check_plan_internal.h"

namespace sluice::sqlgen::internal {
namespace {

using dialects::contract::ColumnSpec;
using dialects::contract::ContractObject;

bool SameName(std::string_view a, std::string_view b) {
  // SQL engines resolve column names without regard to ASCII case.
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

const schema::Field* FindRelationColumn(const schema::Schema& relation, std::string_view name) {
  for (const schema::Field& f : relation.fields()) {
    if (SameName(f.name(), name)) return &f;
  }
  return nullptr;
}

std::string ValueText(const JsonValue& v) {
  if (v.is_string()) return v.as_string();
  if (v.is_number()) return v.number_text();
  if (v.is_bool()) return v.as_bool() ? "true" : "false";
  return ToJson(v);
}

const JsonValue* Option(const ColumnSpec& spec, std::string_view key) {
  const JsonValue* v = spec.logical_type_options.Find(key);
  return v != nullptr && !v->is_null() ? v : nullptr;
}

// ODCS puts allowed values in a quality rule (`validValues`, at the rule or in its `arguments`);
// DCS has `enum`. Other quality rules are library- or SQL-specific and are reported as notes.
std::optional<std::vector<std::string>> EnumValues(const ColumnSpec& spec,
                                                   std::vector<std::string>& notes,
                                                   const std::string& column) {
  std::optional<std::vector<std::string>> values;
  auto take = [&](const JsonValue& list) {
    values.emplace();
    for (const JsonValue& v : list.items()) {
      if (!v.is_null()) values->push_back(ValueText(v));
    }
  };
  if (const JsonValue* e = spec.other.Find("enum"); e != nullptr && e->is_array()) take(*e);
  if (spec.quality.is_array()) {
    for (const JsonValue& rule : spec.quality.items()) {
      const JsonValue* valid = rule.Find("validValues");
      if (const JsonValue* args = rule.Find("arguments"); valid == nullptr && args != nullptr) {
        valid = args->Find("validValues");
      }
      if (valid != nullptr && valid->is_array()) {
        take(*valid);
      } else {
        notes.push_back(column + ": quality rule " + ToJson(rule) + " is not checked");
      }
    }
  }
  return values;
}

bool HasConstraints(const ColumnSpec& spec) {
  return spec.required || spec.unique || spec.logical_type_options.is_object() ||
         spec.quality.is_array() || spec.other.Find("enum") != nullptr;
}

// The rules of one contract column that the relation holds.
void PlanColumn(const schema::Field& field, const ColumnSpec* spec,
                const schema::Field* relation_column, bool unique, CheckPlan& plan) {
  const std::string& name = field.name();
  const schema::Type& type = *field.type();
  if (!field.nullable() || (spec != nullptr && spec->required)) {
    plan.rules.push_back(PlannedRule{.kind = RuleKind::kNotNull, .column = name});
  }
  // A typed column cannot hold a value of another type: only a string column can be wrong.
  bool raw =
      relation_column == nullptr || relation_column->type()->kind() == schema::TypeKind::kString;
  if (type.is_nested()) {
    plan.notes.push_back(name + ": values of nested type " + type.ToString() +
                         " are not checked against the type (only null)");
  } else if (raw) {
    plan.rules.push_back(
        PlannedRule{.kind = RuleKind::kType, .column = name, .type = field.type()});
  }
  if (spec == nullptr) return;
  if (auto values = EnumValues(*spec, plan.notes, name); values.has_value()) {
    plan.rules.push_back(PlannedRule{.kind = RuleKind::kEnum, .column = name, .values = *values});
  }
  PlannedRule range{.kind = RuleKind::kRange, .column = name, .type = field.type(), .typed = !raw};
  // Bounds are numbers, or strings for dates and timestamps; anything else is reported.
  auto bound = [&](std::string_view key, bool exclusive, std::optional<Bound>& slot) {
    const JsonValue* v = Option(*spec, key);
    if (v == nullptr) return;
    if (v->is_number() || v->is_string()) {
      slot = Bound{*v, exclusive};
    } else {
      plan.notes.push_back(name + ": " + std::string(key) + " " + ToJson(*v) +
                           " is not a number or a string and is not checked");
    }
  };
  bound("minimum", false, range.minimum);
  bound("exclusiveMinimum", true, range.minimum);
  bound("maximum", false, range.maximum);
  bound("exclusiveMaximum", true, range.maximum);
  if (range.minimum || range.maximum) plan.rules.push_back(std::move(range));
  PlannedRule length{.kind = RuleKind::kLength, .column = name};
  auto length_bound = [&](std::string_view key, std::optional<Bound>& slot) {
    const JsonValue* v = Option(*spec, key);
    if (v == nullptr) return;
    if (v->is_number() && v->as_int64().has_value() && *v->as_int64() >= 0) {
      slot = Bound{*v, false};
    } else {
      plan.notes.push_back(name + ": " + std::string(key) + " " + ToJson(*v) +
                           " is not a count and is not checked");
    }
  };
  length_bound("minLength", length.minimum);
  length_bound("maxLength", length.maximum);
  if (length.minimum || length.maximum) plan.rules.push_back(std::move(length));
  const JsonValue* pattern = Option(*spec, "pattern");
  if (pattern == nullptr) pattern = spec->other.Find("pattern");
  if (pattern != nullptr && pattern->is_string()) {
    plan.rules.push_back(
        PlannedRule{.kind = RuleKind::kPattern, .column = name, .pattern = pattern->as_string()});
  }
  if (unique) plan.rules.push_back(PlannedRule{.kind = RuleKind::kUnique, .column = name});
}

}  // namespace

std::string_view RuleKindName(RuleKind kind) {
  switch (kind) {
    case RuleKind::kNotNull:
      return "not_null";
    case RuleKind::kType:
      return "type";
    case RuleKind::kEnum:
      return "enum";
    case RuleKind::kRange:
      return "range";
    case RuleKind::kLength:
      return "length";
    case RuleKind::kPattern:
      return "pattern";
    case RuleKind::kUnique:
      return "unique";
    case RuleKind::kUnknownColumn:
      return "unknown_column";
  }
  return "unknown";
}

Result<CheckPlan> BuildCheckPlan(const dialects::contract::Contract& contract,
                                 const std::string& object, const CheckOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(const ContractObject* obj, contract.Object(object));
  CheckPlan plan;
  plan.object = obj->name;
  if (obj->schema == nullptr) return InvalidArgument("contract object has no schema");
  const schema::Schema* relation = options.relation_schema.get();

  std::vector<std::string> keys;
  for (const ColumnSpec& spec : obj->columns) {
    if (spec.path.size() == 1 && spec.primary_key) keys.push_back(spec.path.back().name);
    if (spec.path.size() > 1 && HasConstraints(spec)) {
      plan.notes.push_back(spec.path.ToString() + ": nested columns are not checked");
    }
  }
  if (keys.size() == 1) plan.key_column = keys[0];
  if (keys.size() > 1) {
    plan.notes.push_back("the primary key of " + std::to_string(keys.size()) +
                         " columns is not checked for uniqueness");
  }

  for (const schema::Field& field : obj->schema->fields()) {
    const ColumnSpec* spec = obj->FindColumn(schema::FieldPath::Of(field.name()));
    const schema::Field* relation_column = nullptr;
    if (relation != nullptr) {
      relation_column = FindRelationColumn(*relation, field.name());
      if (relation_column == nullptr) {
        plan.missing_columns.push_back(field.name());
        // Absent is null in every row, as `sluice validate` counts a missing key.
        if (!field.nullable() || (spec != nullptr && spec->required)) {
          plan.rules.push_back(PlannedRule{
              .kind = RuleKind::kNotNull, .column = field.name(), .column_absent = true});
        }
        if (field.name() == plan.key_column) plan.key_column.clear();
        continue;
      }
    }
    bool unique = spec != nullptr && (spec->unique || (spec->primary_key && keys.size() == 1));
    PlanColumn(field, spec, relation_column, unique, plan);
  }

  if (relation != nullptr && !contract.policy.allow_new_columns) {
    for (const schema::Field& f : relation->fields()) {
      if (SameName(f.name(), options.rescued_column)) continue;
      if (obj->schema->struct_type()->FindFieldsIgnoreCase(f.name()).empty()) {
        plan.rules.push_back(PlannedRule{.kind = RuleKind::kUnknownColumn, .column = f.name()});
      }
    }
  } else if (relation == nullptr && !contract.policy.allow_new_columns) {
    plan.notes.push_back(
        "columns the contract lacks (allowed_new_columns: false) are checked only with the "
        "relation's schema");
  }
  if (obj->quality.is_array() && obj->quality.size() > 0) {
    plan.notes.push_back("object-level quality rules are not checked");
  }
  return plan;
}

}  // namespace sluice::sqlgen::internal
