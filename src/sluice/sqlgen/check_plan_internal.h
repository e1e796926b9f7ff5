// The rules of a contract check, independent of how they are rendered (one SQL query, or dbt
// tests), and the SQL condition that picks the rows breaking a row-level rule. Not for other
// modules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/dialects/contract/contract.h"
#include "sluice/schema/type.h"
#include "sluice/sqlgen/check_sql.h"
#include "sluice/sqlgen/sql_text.h"

namespace sluice::sqlgen::internal {

/// In the order a column's rules are checked.
enum class RuleKind : uint8_t {
  kNotNull,
  kType,
  kEnum,
  kRange,
  kLength,
  kPattern,
  kUnique,
  kUnknownColumn,
};

/// "not_null", "type", ...
std::string_view RuleKindName(RuleKind kind);

struct Bound {
  JsonValue value;
  bool exclusive = false;
};

struct PlannedRule {
  RuleKind kind = RuleKind::kNotNull;
  std::string column;
  /// The contract's type of the column (kType, kRange).
  schema::TypePtr type;
  /// kNotNull on a column the relation lacks: every row breaks it.
  bool column_absent = false;
  /// kRange: the relation's column is typed (not a string), so values compare as they are.
  bool typed = false;
  std::vector<std::string> values;  // kEnum, as text
  std::optional<Bound> minimum;     // kRange; kLength uses the integer values
  std::optional<Bound> maximum;
  std::string pattern;  // kPattern
};

struct CheckPlan {
  std::string object;  // the contract object's name
  std::vector<PlannedRule> rules;
  /// A one-column primary key, whose values identify rows in not_null samples; empty if none.
  std::string key_column;
  std::vector<std::string> missing_columns;
  std::vector<std::string> notes;
};

/// The rules of `object` (the first when empty), deterministic: columns in schema order, each
/// column's rules in RuleKind order, then unknown columns in relation order.
Result<CheckPlan> BuildCheckPlan(const dialects::contract::Contract& contract,
                                 const std::string& object, const CheckOptions& options);

/// The column as an identifier.
std::string Column(Dialect dialect, const std::string& name);

/// A boolean SQL expression true for the rows that break a row-level rule (not kUnique).
std::string ViolationCondition(const PlannedRule& rule, Dialect dialect);

/// The value of a sample: the column as a string.
std::string AsText(Dialect dialect, const std::string& expr);

}  // namespace sluice::sqlgen::internal
