// A data contract's record-level checks as SQL, so they run where the data is (a Spark cluster,
// DuckDB) instead of through `sluice validate`: one query that returns a row per broken rule with
// its count and sample values, or dbt tests (schema.yml entries and singular tests).
//
// The rules, per top-level column of the contract's schema object, in schema order:
//   not_null        the column is required (seed `nullable: false`, ODCS/DCS `required: true`)
//   type            a value does not read as the contract's type (string relations only matter:
//                   a typed column cannot hold a value of another type)
//   enum            a value outside ODCS quality `validValues` / DCS `enum`
//   range           a value below `minimum`/`exclusiveMinimum` or above `maximum`/...
//   length          a string shorter than `minLength` or longer than `maxLength`
//   pattern         a value the `pattern` regular expression does not find a match in
//   unique          a value held by more than one row (`unique: true`, a one-column primary key)
//   unknown_column  a value in a relation column the contract lacks, when the contract allows no
//                   new columns (needs the relation's schema)
// docs/sqlcheck.md is the user's version, with what SQL can and cannot see.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/dialects/contract/contract.h"
#include "sluice/schema/schema.h"
#include "sluice/sqlgen/sql_text.h"

namespace sluice::sqlgen {

struct CheckOptions {
  /// How many sample values each rule's row carries (distinct, smallest first); 0 to 1000.
  int samples = 5;
  /// The relation's columns as they are, when known. With it, contract columns the relation
  /// lacks are found before any data is read (ContractCheckQuery::missing_columns), columns
  /// already of the contract's type get no type rule, and columns the contract lacks get an
  /// unknown_column rule when the contract allows no new columns. Without it every contract
  /// column is assumed present and held as a string (a raw Bronze relation).
  schema::SchemaPtr relation_schema;
  /// The rescued-data column of the relation, never an unknown column.
  std::string rescued_column = "_rescued_data";
};

/// One rule the generated SQL checks.
struct CheckedRule {
  std::string rule;    // "not_null", "type", "enum", ...
  std::string column;  // the column's name
};

struct ContractCheckQuery {
  /// `SELECT rule, column_path, violations, sample_values FROM ...`: one row per rule with
  /// violations > 0, in the order of `rules`.
  std::string sql;
  /// Every rule the query checks, in order.
  std::vector<CheckedRule> rules;
  /// Contract columns absent from the relation (only with CheckOptions::relation_schema).
  std::vector<std::string> missing_columns;
  /// What the contract asks that the SQL does not check, one sentence each ("tags[]: nested
  /// columns are not checked").
  std::vector<std::string> notes;
};

/// Render the checks of `contract`'s object `object` (the first when empty) on `relation`
/// (a table or view name, `db.table` parts quoted one by one). kNotFound for an unknown object;
/// kInvalidArgument for an empty relation, one holding a control character, or samples outside
/// 0..1000.
Result<ContractCheckQuery> RenderContractCheck(const dialects::contract::Contract& contract,
                                               const std::string& object,
                                               const std::string& relation, Dialect dialect,
                                               const CheckOptions& options = {});

/// What RenderDbtChecks writes: (relative path, content) pairs, schema.yml first, and the
/// findings RenderContractCheck reports.
struct DbtChecks {
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::string> missing_columns;
  std::vector<std::string> notes;
};

/// dbt tests for the same rules on the model `relation` (a plain model name): `models/schema.yml`
/// with not_null, unique and accepted_values tests, and one singular test a rule for the others
/// (`tests/<model>_<column>_<rule>.sql`, selecting the rows that break it) in `dialect`'s SQL.
/// Returns (relative path, content) pairs, schema.yml first. The notes are those of
/// RenderContractCheck, plus missing columns. kInvalidArgument for a relation that is not a
/// plain name.
Result<DbtChecks> RenderDbtChecks(const dialects::contract::Contract& contract,
                                  const std::string& object, const std::string& relation,
                                  Dialect dialect, const CheckOptions& options = {});

}  // namespace sluice::sqlgen
