// The contract checks as dbt tests: the generic tests dbt ships (not_null, unique,
// accepted_values) in models/schema.yml, and a singular test (a query selecting the offending
// rows) for each rule dbt has no generic test for without packages.
#include <cctype>
#include <optional>
#include <set>
#include <string>

#include "sluice/base/json_writer.h"
#include "sluice/sqlgen/check_plan_internal.h"
#include "sluice/sqlgen/check_sql.h"

namespace sluice::sqlgen {
namespace {

using internal::PlannedRule;
using internal::RuleKind;

// JSON strings are YAML flow scalars, so names and values need no YAML-specific escaping.
std::string YamlString(std::string_view s) {
  std::string out;
  AppendJsonString(out, s);
  return out;
}

std::string FileStem(std::string_view name) {
  std::string out;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    out += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '_';
  }
  return out.empty() ? "_" : out;
}

bool PlainName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '_') return false;
  }
  return true;
}

// A name, pattern or value holding Jinja's delimiters must reach the SQL as written.
std::string JinjaRaw(const std::string& sql) {
  if (sql.find("{{") == std::string::npos && sql.find("{%") == std::string::npos &&
      sql.find("{#") == std::string::npos) {
    return sql;
  }
  return "{% raw %}" + sql + "{% endraw %}";
}

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

// The schema.yml entry of a rule dbt has a generic test for; nullopt for the others.
std::optional<std::string> GenericTest(const PlannedRule& rule) {
  switch (rule.kind) {
    case RuleKind::kNotNull:
      return "          - not_null\n";
    case RuleKind::kUnique:
      return "          - unique\n";
    case RuleKind::kEnum: {
      std::string values;
      for (const std::string& v : rule.values) {
        values += (values.empty() ? "" : ", ") + YamlString(v);
      }
      return "          - accepted_values:\n              values: [" + values + "]\n";
    }
    case RuleKind::kType:
    case RuleKind::kRange:
    case RuleKind::kLength:
    case RuleKind::kPattern:
    case RuleKind::kUnknownColumn:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

Result<DbtChecks> RenderDbtChecks(const dialects::contract::Contract& contract,
                                  const std::string& object, const std::string& relation,
                                  Dialect dialect, const CheckOptions& options) {
  if (!PlainName(relation)) {
    return InvalidArgument("dbt checks need a model name of letters, digits and '_', not '" +
                           relation + "'");
  }
  SLUICE_ASSIGN_OR_RETURN(internal::CheckPlan plan,
                          internal::BuildCheckPlan(contract, object, options));
  DbtChecks out;
  out.missing_columns = plan.missing_columns;
  out.notes = plan.notes;

  std::string columns;  // the schema.yml column entries
  std::string current;  // the column whose entry is open
  std::set<std::string> stems;
  std::vector<std::pair<std::string, std::string>> singular;
  auto open_column = [&](const std::string& column) {
    if (current == column) return;
    current = column;
    columns += "      - name: " + YamlString(column) + "\n";
    // dbt quotes a column in its generic tests only when told to.
    if (internal::Column(dialect, column) != column) columns += "        quote: true\n";
    columns += "        tests:\n";
  };
  for (const PlannedRule& rule : plan.rules) {
    if (rule.kind == RuleKind::kNotNull && rule.column_absent) continue;  // a missing column
    if (std::optional<std::string> test = GenericTest(rule); test.has_value()) {
      open_column(rule.column);
      columns += *test;
      continue;
    }
    std::string cond = internal::ViolationCondition(rule, dialect);
    if (cond.empty()) {
      if (rule.type != nullptr && rule.type->kind() != schema::TypeKind::kString) {
        out.notes.push_back(rule.column + ": values of type " + rule.type->ToString() +
                            " are not checked against the type");
      }
      continue;
    }
    std::string kind(internal::RuleKindName(rule.kind));
    // Nothing can stand inside a Jinja raw block that ends it.
    if (cond.find("endraw") != std::string::npos) {
      out.notes.push_back(rule.column + ": the " + kind +
                          " rule holds `endraw` and cannot be written as a dbt test");
      continue;
    }
    std::string stem = FileStem(relation) + "_" + FileStem(rule.column) + "_" + kind;
    for (int i = 2; stems.contains(stem); ++i) {
      stem =
          FileStem(relation) + "_" + FileStem(rule.column) + "_" + kind + "_" + std::to_string(i);
    }
    stems.insert(stem);
    std::string sql = "-- " + kind + " of " + OneLine(rule.column) +
                      ", from the data contract (sluice sqlgen check): the rows that break it.\n"
                      "SELECT " +
                      JinjaRaw(internal::Column(dialect, rule.column)) +
                      " AS value\nFROM {{ ref('" + relation + "') }}\nWHERE " + JinjaRaw(cond) +
                      "\n";
    singular.emplace_back("tests/" + stem + ".sql", std::move(sql));
  }

  std::string yml = "# Contract checks";
  if (!plan.object.empty()) yml += " of " + OneLine(plan.object);
  yml +=
      ", generated by sluice sqlgen check; the rules dbt has no generic test for are the "
      "singular tests in tests/.\nversion: 2\n\nmodels:\n  - name: " +
      relation + "\n";
  if (!columns.empty()) yml += "    columns:\n" + columns;
  out.files.emplace_back("models/schema.yml", std::move(yml));
  for (auto& f : singular) out.files.push_back(std::move(f));
  return out;
}

}  // namespace sluice::sqlgen
