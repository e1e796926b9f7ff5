#include "sluice/sqlgen/align_dbt.h"

#include <fmt/format.h>

#include <string_view>

#include "sluice/base/strings.h"

namespace sluice::sqlgen {

namespace {

// A Jinja (Python-like) string literal: single quotes, backslash and quote escaped.
std::string JinjaString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

// A YAML single-quoted scalar: the quote doubled, nothing else special.
std::string YamlString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

bool HasJinjaDelimiter(std::string_view sql) {
  return sql.find("{{") != std::string_view::npos || sql.find("{%") != std::string_view::npos ||
         sql.find("{#") != std::string_view::npos;
}

Result<std::string> ModelSql(const std::vector<VersionInput>& versions,
                             const schema::Schema& target, Dialect adapter,
                             const DbtOptions& options) {
  std::string list;
  std::string macros;
  std::string table;
  for (size_t i = 0; i < versions.size(); ++i) {
    const VersionInput& v = versions[i];
    std::string from = fmt::format("{{{{ source({}, {}) }}}}", JinjaString(options.source_name),
                                   JinjaString(v.relation));
    SLUICE_ASSIGN_OR_RETURN(std::string select,
                            RenderVersionSelect(v, target, adapter, options.explode,
                                                CountsCastFailures(versions), "@FROM@"));
    if (HasJinjaDelimiter(select)) {
      return InvalidArgument(fmt::format(
          "{}: the generated SQL contains a Jinja delimiter ({{{{, {{% or {{#)", v.label));
    }
    select.replace(select.rfind("@FROM@"), 6, from);
    macros += fmt::format("{{%- macro select_{}() %}}\n{}\n{{%- endmacro %}}\n", i, select);
    list += fmt::format("{}{}", i ? ", " : "", JinjaString(v.label));
    table += fmt::format("{}{}: select_{}", i ? ", " : "", JinjaString(v.label), i);
  }
  std::string out;
  out += "{{ config(materialized='view', contract={'enforced': true}) }}\n";
  out +=
      fmt::format("{{#- {} schema versions under one schema; {} names each row's version. -#}}\n",
                  versions.size(), kVersionColumn);
  out += fmt::format("{{%- set versions = [{}] -%}}\n", list);
  out += macros;
  out += fmt::format("{{%- set selects = {{{}}} -%}}\n", table);
  out +=
      "{% for v in versions %}\n{{ selects[v]() }}\n"
      "{% if not loop.last %}UNION ALL{% endif %}\n{%- endfor %}\n";
  return out;
}

// The values of a contract column's enum (DCS `enum`, or `enum` in ODCS logicalTypeOptions), as
// YAML scalars; empty when it has none.
std::vector<std::string> EnumValues(const dialects::contract::ColumnSpec& spec) {
  const JsonValue* list = spec.other.Find("enum");
  if ((list == nullptr || !list->is_array()) && spec.logical_type_options.is_object()) {
    list = spec.logical_type_options.Find("enum");
  }
  std::vector<std::string> out;
  if (list == nullptr || !list->is_array()) return out;
  for (const JsonValue& v : list->items()) {
    if (v.is_string()) out.push_back(YamlString(v.as_string()));
    if (v.is_number()) out.push_back(v.number_text());
  }
  return out;
}

// The dbt tests of one column: from its nullability, and from the contract when there is one.
std::vector<std::string> ColumnTests(const schema::Field& column, const DbtOptions& options) {
  const dialects::contract::ColumnSpec* spec =
      options.contract == nullptr
          ? nullptr
          : options.contract->FindColumn(schema::FieldPath::Of(column.name()));
  std::vector<std::string> tests;
  if (!column.nullable() || (spec != nullptr && spec->required)) {
    tests.push_back("          - not_null\n");
  }
  if (spec == nullptr) return tests;
  int keys = 0;
  for (const auto& c : options.contract->columns) keys += c.primary_key && c.path.size() == 1;
  if (spec->unique || (spec->primary_key && keys == 1)) tests.push_back("          - unique\n");
  std::vector<std::string> values = EnumValues(*spec);
  if (!values.empty()) {
    std::string list;
    for (size_t i = 0; i < values.size(); ++i) list += (i ? ", " : "") + values[i];
    tests.push_back(
        fmt::format("          - accepted_values:\n              values: [{}]\n", list));
  }
  return tests;
}

Result<std::string> SchemaYml(const std::vector<VersionInput>& versions,
                              const schema::Schema& target, Dialect adapter,
                              const DbtOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<schema::Field> columns,
                          OutputColumns(target, options.explode, CountsCastFailures(versions)));
  std::string out = "version: 2\n\nmodels:\n";
  out += fmt::format("  - name: {}\n", options.model_name);
  out += "    config:\n      contract:\n        enforced: true\n    columns:\n";
  for (const schema::Field& c : columns) {
    out += fmt::format("      - name: {}\n        data_type: {}\n", YamlString(c.name()),
                       YamlString(TypeSql(*c.type(), adapter)));
    std::vector<std::string> tests = ColumnTests(c, options);
    if (c.name() == kVersionColumn) {
      std::string values;
      for (size_t i = 0; i < versions.size(); ++i) {
        values += (i ? ", " : "") + YamlString(versions[i].label);
      }
      tests.push_back(
          fmt::format("          - accepted_values:\n              values: [{}]\n", values));
    }
    if (tests.empty()) continue;
    out += "        data_tests:\n";
    for (const std::string& t : tests) out += t;
  }
  return out;
}

std::string SourcesYml(const std::vector<VersionInput>& versions, const DbtOptions& options) {
  std::string out = "version: 2\n\nsources:\n";
  out += fmt::format("  - name: {}\n    tables:\n", YamlString(options.source_name));
  for (const VersionInput& v : versions) {
    out += fmt::format("      - name: {}\n", YamlString(v.relation));
  }
  return out;
}

}  // namespace

Result<std::vector<std::pair<std::string, std::string>>> RenderDbtProject(
    const std::vector<VersionInput>& versions, const schema::Schema& target, Dialect adapter,
    const DbtOptions& options) {
  if (!IsAsciiIdentifier(options.model_name)) {
    return InvalidArgument(fmt::format(
        "dbt model name '{}' must be letters, digits and underscores, not starting with a digit",
        options.model_name));
  }
  if (versions.empty()) return InvalidArgument("no schema versions to align");
  SLUICE_ASSIGN_OR_RETURN(std::string sql, ModelSql(versions, target, adapter, options));
  SLUICE_ASSIGN_OR_RETURN(std::string schema_yml, SchemaYml(versions, target, adapter, options));
  return std::vector<std::pair<std::string, std::string>>{
      {"models/" + options.model_name + ".sql", std::move(sql)},
      {"models/schema.yml", std::move(schema_yml)},
      {"models/sources.yml", SourcesYml(versions, options)}};
}

}  // namespace sluice::sqlgen
