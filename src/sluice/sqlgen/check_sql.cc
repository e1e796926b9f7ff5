// One query for every rule: the row-level rules are aggregated in a single scan of the relation
// (the `counts` CTE), each uniqueness rule in a GROUP BY of its own, and the results unpivoted
// into one row per rule.
#include "sluice/sqlgen/check_sql.h"

#include <string>

#include "sluice/sqlgen/check_plan_internal.h"

namespace sluice::sqlgen {
namespace {

using internal::CheckPlan;
using internal::PlannedRule;
using internal::RuleKind;

bool Spark(Dialect d) { return d == Dialect::kSpark; }

std::string EmptyList(Dialect d) {
  return Spark(d) ? "CAST(array() AS ARRAY<STRING>)" : "CAST([] AS VARCHAR[])";
}

// The relation name, each dotted part an identifier of its own.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

std::string RelationName(Dialect d, const std::string& relation) {
  std::string out;
  size_t start = 0;
  while (true) {
    size_t dot = relation.find('.', start);
    if (!out.empty()) out += '.';
    out += QuoteIdentifier(d, relation.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

std::string CountIf(Dialect d, const std::string& cond) {
  if (Spark(d)) return "SUM(CASE WHEN " + cond + " THEN 1 ELSE 0 END)";
  return "COUNT(*) FILTER (WHERE " + cond + ")";
}

// Distinct values, smallest first; the caller keeps the first N.
std::string CollectIf(Dialect d, const std::string& value, const std::string& cond) {
  if (Spark(d)) return "array_sort(collect_set(CASE WHEN " + cond + " THEN " + value + " END))";
  return "list_sort(list_distinct(list(" + value + ") FILTER (WHERE " + cond + ")))";
}

std::string FirstN(Dialect d, const std::string& list, int n) {
  if (n == 0) return EmptyList(d);
  if (Spark(d)) return "slice(" + list + ", 1, " + std::to_string(n) + ")";
  return "coalesce(" + list + "[1:" + std::to_string(n) + "], " + EmptyList(d) + ")";
}

// What a violating row shows as a sample: the value itself, or for not_null the row's key.
std::string SampleValue(const CheckPlan& plan, const PlannedRule& rule, Dialect d) {
  if (rule.kind != RuleKind::kNotNull) return internal::AsText(d, internal::Column(d, rule.column));
  if (plan.key_column.empty() || plan.key_column == rule.column) return "";
  return internal::AsText(d, internal::Column(d, plan.key_column));
}

struct RenderedRule {
  const PlannedRule* rule;
  std::string condition;  // row-level rules
};

// The CTEs and the unpivoting SELECT: one `counts` scan for the row-level rules, one GROUP BY
// for each uniqueness rule.
std::string QueryBody(const CheckPlan& plan, const std::vector<RenderedRule>& rules,
                      Dialect dialect, const std::string& rel, int n) {
  std::string ctes;
  std::string counts;
  std::string selects;
  for (size_t i = 0; i < rules.size(); ++i) {
    const PlannedRule& rule = *rules[i].rule;
    const std::string id = std::to_string(i);
    std::string head = "  SELECT " + id + " AS rule_order, " +
                       QuoteString(dialect, internal::RuleKindName(rule.kind)) + " AS rule, " +
                       QuoteString(dialect, rule.column) + " AS column_path, ";
    if (!selects.empty()) selects += "  UNION ALL\n";
    if (rule.kind == RuleKind::kUnique) {
      std::string col = internal::Column(dialect, rule.column);
      std::string cte = "duplicates_" + id;
      ctes += ",\n" + cte + " AS (\n  SELECT " + internal::AsText(dialect, col) +
              " AS value, COUNT(*) AS n\n  FROM " + rel + "\n  WHERE " + col +
              " IS NOT NULL\n  GROUP BY " + col + "\n  HAVING COUNT(*) > 1\n)";
      std::string list =
          Spark(dialect) ? "array_sort(collect_list(value))" : "list_sort(list(value))";
      selects += head + "CAST(coalesce(SUM(n - 1), 0) AS BIGINT) AS violations, " +
                 FirstN(dialect, list, n) + " AS sample_values FROM " + cte + "\n";
      continue;
    }
    counts += counts.empty() ? "    " : ",\n    ";
    counts += CountIf(dialect, rules[i].condition) + " AS v" + id;
    std::string sample = SampleValue(plan, rule, dialect);
    std::string samples = EmptyList(dialect);
    if (!sample.empty() && n > 0) {
      counts += ",\n    " + CollectIf(dialect, sample, rules[i].condition) + " AS s" + id;
      samples = FirstN(dialect, "s" + id, n);
    }
    selects += head + "CAST(v" + id + " AS BIGINT) AS violations, " + samples +
               " AS sample_values FROM counts\n";
  }
  std::string with;
  if (!counts.empty()) with = "counts AS (\n  SELECT\n" + counts + "\n  FROM " + rel + "\n)";
  if (with.empty()) ctes.erase(0, 2);  // no leading ",\n"
  return "WITH " + with + ctes + "\n" +
         "SELECT rule, column_path, violations, sample_values\nFROM (\n" + selects +
         ") AS checks\nWHERE violations > 0\nORDER BY rule_order\n";
}

}  // namespace

Result<ContractCheckQuery> RenderContractCheck(const dialects::contract::Contract& contract,
                                               const std::string& object,
                                               const std::string& relation, Dialect dialect,
                                               const CheckOptions& options) {
  if (relation.empty()) return InvalidArgument("no relation to check");
  for (char c : relation) {
    if (static_cast<unsigned char>(c) < 0x20) {
      return InvalidArgument("the relation name holds a control character");
    }
  }
  if (options.samples < 0 || options.samples > 1000) {
    return InvalidArgument("samples must be 0 to 1000, not " + std::to_string(options.samples));
  }
  SLUICE_ASSIGN_OR_RETURN(CheckPlan plan, internal::BuildCheckPlan(contract, object, options));
  ContractCheckQuery out;
  out.missing_columns = plan.missing_columns;
  out.notes = plan.notes;

  std::vector<RenderedRule> rules;
  for (const PlannedRule& rule : plan.rules) {
    std::string cond;
    if (rule.kind != RuleKind::kUnique) {
      cond = internal::ViolationCondition(rule, dialect);
      if (cond.empty()) {
        if (rule.type->kind() != schema::TypeKind::kString) {
          out.notes.push_back(rule.column + ": values of type " + rule.type->ToString() +
                              " are not checked against the type in " +
                              std::string(DialectName(dialect)));
        }
        continue;
      }
    }
    rules.push_back(RenderedRule{&rule, std::move(cond)});
    out.rules.push_back(CheckedRule{std::string(internal::RuleKindName(rule.kind)), rule.column});
  }

  const std::string rel = RelationName(dialect, relation);
  const int n = options.samples;
  std::string& sql = out.sql;
  sql = "-- Contract checks";
  if (!plan.object.empty()) sql += " of " + OneLine(plan.object);
  sql += " on " + OneLine(relation) + " (" + std::string(DialectName(dialect)) +
         "), generated by sluice sqlgen check.\n"
         "-- One row per broken rule: rule, column_path, violations, sample_values.\n";
  if (rules.empty()) {
    sql += "SELECT " + internal::AsText(dialect, "NULL") + " AS rule, " +
           internal::AsText(dialect, "NULL") + " AS column_path, CAST(0 AS BIGINT) AS " +
           "violations, " + EmptyList(dialect) + " AS sample_values\nWHERE FALSE\n";
    return out;
  }

  sql += QueryBody(plan, rules, dialect, rel, n);
  return out;
}

}  // namespace sluice::sqlgen
