// The SQL that picks the rows breaking one rule, in Spark SQL and DuckDB. Values are read as
// their text (`CAST(c AS STRING)`), so one condition works on a raw relation of strings and on a
// typed one alike.
#include <string>

#include "sluice/sqlgen/check_plan_internal.h"

namespace sluice::sqlgen::internal {
namespace {

bool Spark(Dialect d) { return d == Dialect::kSpark; }

// The cast target for a scalar type, or "" when the dialect has none.
std::string CastType(const schema::Type& type, Dialect d) {
  switch (type.kind()) {
    case schema::TypeKind::kBoolean:
      return "BOOLEAN";
    case schema::TypeKind::kInt8:
      return "TINYINT";
    case schema::TypeKind::kInt16:
      return "SMALLINT";
    case schema::TypeKind::kInt32:
      return Spark(d) ? "INT" : "INTEGER";
    case schema::TypeKind::kInt64:
      return "BIGINT";
    case schema::TypeKind::kFloat32:
      return "FLOAT";
    case schema::TypeKind::kFloat64:
      return "DOUBLE";
    case schema::TypeKind::kDecimal:
      return "DECIMAL(" + std::to_string(type.precision()) + ", " + std::to_string(type.scale()) +
             ")";
    case schema::TypeKind::kDate:
      return "DATE";
    case schema::TypeKind::kTimestamp:
      return Spark(d) ? "TIMESTAMP" : "TIMESTAMPTZ";
    case schema::TypeKind::kTimestampNtz:
      return Spark(d) ? "TIMESTAMP_NTZ" : "TIMESTAMP";
    case schema::TypeKind::kTime:
      return Spark(d) ? "" : "TIME";
    case schema::TypeKind::kUuid:
      return Spark(d) ? "" : "UUID";
    case schema::TypeKind::kNull:
    case schema::TypeKind::kString:
    case schema::TypeKind::kBinary:
    case schema::TypeKind::kStruct:
    case schema::TypeKind::kArray:
    case schema::TypeKind::kMap:
      return "";
  }
  return "";
}

std::string TryCast(const std::string& expr, const std::string& type) {
  return "try_cast(" + expr + " AS " + type + ")";
}

// Spark's RLIKE and DuckDB's regexp_matches both find a match anywhere, as JSON Schema and ODCS
// patterns do; a pattern that must match whole says so with ^ and $.
std::string Matches(Dialect d, const std::string& text, const std::string& regex) {
  if (Spark(d)) return text + " RLIKE " + QuoteString(d, regex);
  return "regexp_matches(" + text + ", " + QuoteString(d, regex) + ")";
}

std::string TypeCondition(const PlannedRule& rule, Dialect d, const std::string& text) {
  const schema::Type& type = *rule.type;
  switch (type.kind()) {
    case schema::TypeKind::kBoolean:
      // JSON's true and false only, as Spark's JSON reader takes them.
      return text + " NOT IN ('true', 'false')";
    case schema::TypeKind::kInt8:
    case schema::TypeKind::kInt16:
    case schema::TypeKind::kInt32:
    case schema::TypeKind::kInt64:
      // Integer tokens only: both engines would cast '12.0' or ' 12' to an integer.
      return "NOT " + Matches(d, text, "^-?[0-9]+$") + " OR " + TryCast(text, CastType(type, d)) +
             " IS NULL";
    case schema::TypeKind::kUuid:
      if (Spark(d)) {
        return "NOT " + Matches(d, text,
                                "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                                "[0-9a-fA-F]{12}$");
      }
      return TryCast(text, CastType(type, d)) + " IS NULL";
    case schema::TypeKind::kString:
      if (type.string_length() == schema::StringLength::kUnbounded) return "";
      return "length(" + text + ") > " + std::to_string(type.length());
    case schema::TypeKind::kFloat32:
    case schema::TypeKind::kFloat64:
    case schema::TypeKind::kDecimal:
    case schema::TypeKind::kDate:
    case schema::TypeKind::kTimestamp:
    case schema::TypeKind::kTimestampNtz:
    case schema::TypeKind::kTime: {
      std::string cast = CastType(type, d);
      if (cast.empty()) return "";
      return TryCast(text, cast) + " IS NULL";
    }
    case schema::TypeKind::kNull:
    case schema::TypeKind::kBinary:
    case schema::TypeKind::kStruct:
    case schema::TypeKind::kArray:
    case schema::TypeKind::kMap:
      return "";
  }
  return "";
}

bool IsNumeric(const schema::Type& t) {
  return t.is_integer() || t.is_floating() || t.kind() == schema::TypeKind::kDecimal;
}

std::string BoundLiteral(const JsonValue& v, const std::string& cast, Dialect d) {
  if (v.is_number()) return v.number_text();
  std::string text = v.is_string() ? v.as_string() : v.is_bool() ? (v.as_bool() ? "1" : "0") : "";
  return "CAST(" + QuoteString(d, text) + " AS " + cast + ")";
}

std::string RangeCondition(const PlannedRule& rule, Dialect d, const std::string& col,
                           const std::string& text) {
  const schema::Type& type = *rule.type;
  std::string cast = CastType(type, d);
  bool numeric_bounds = (!rule.minimum || rule.minimum->value.is_number()) &&
                        (!rule.maximum || rule.maximum->value.is_number());
  // Numeric bounds on a column whose type is not a number, date or time compare as numbers.
  if (cast.empty() || (numeric_bounds && !IsNumeric(type))) cast = "DOUBLE";
  // A typed column compares as it is: through text, a timestamp would meet the session's zone.
  std::string value = rule.typed ? col : TryCast(text, cast);
  std::string out;
  if (rule.minimum) {
    out += value + (rule.minimum->exclusive ? " <= " : " < ") +
           BoundLiteral(rule.minimum->value, cast, d);
  }
  if (rule.maximum) {
    if (!out.empty()) out += " OR ";
    out += value + (rule.maximum->exclusive ? " >= " : " > ") +
           BoundLiteral(rule.maximum->value, cast, d);
  }
  return out;
}

std::string LengthCondition(const PlannedRule& rule, const std::string& text) {
  std::string out;
  if (rule.minimum) out += "length(" + text + ") < " + rule.minimum->value.number_text();
  if (rule.maximum) {
    if (!out.empty()) out += " OR ";
    out += "length(" + text + ") > " + rule.maximum->value.number_text();
  }
  return out;
}

std::string EnumCondition(const PlannedRule& rule, Dialect d, const std::string& text) {
  if (rule.values.empty()) return "TRUE";
  std::string list;
  for (const std::string& v : rule.values) {
    if (!list.empty()) list += ", ";
    list += QuoteString(d, v);
  }
  return text + " NOT IN (" + list + ")";
}

}  // namespace

std::string Column(Dialect dialect, const std::string& name) {
  return QuoteIdentifier(dialect, name);
}

std::string AsText(Dialect dialect, const std::string& expr) {
  return "CAST(" + expr + (Spark(dialect) ? " AS STRING)" : " AS VARCHAR)");
}

std::string ViolationCondition(const PlannedRule& rule, Dialect dialect) {
  std::string col = Column(dialect, rule.column);
  std::string text = AsText(dialect, col);
  std::string cond;
  switch (rule.kind) {
    case RuleKind::kNotNull:
      return rule.column_absent ? "TRUE" : col + " IS NULL";
    case RuleKind::kUnknownColumn:
      return col + " IS NOT NULL";
    case RuleKind::kType:
      cond = TypeCondition(rule, dialect, text);
      break;
    case RuleKind::kEnum:
      cond = EnumCondition(rule, dialect, text);
      break;
    case RuleKind::kRange:
      cond = RangeCondition(rule, dialect, col, text);
      break;
    case RuleKind::kLength:
      cond = LengthCondition(rule, text);
      break;
    case RuleKind::kPattern:
      cond = "NOT " + Matches(dialect, text, rule.pattern);
      break;
    case RuleKind::kUnique:
      return "";
  }
  if (cond.empty()) return "";
  return col + " IS NOT NULL AND (" + cond + ")";
}

}  // namespace sluice::sqlgen::internal
