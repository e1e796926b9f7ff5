// An alignment as a dbt model: models/<name>.sql (the versions in a Jinja loop, one macro per
// version's SELECT, rows read through source()), models/schema.yml (an enforced model contract
// with every column's data_type, and tests) and models/sources.yml.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/dialects/contract/contract.h"
#include "sluice/schema/schema.h"
#include "sluice/sqlgen/align_sql.h"

namespace sluice::sqlgen {

struct DbtOptions {
  /// The model's name: models/<model_name>.sql.
  std::string model_name = "aligned";
  /// The dbt source the versions' relations are tables of.
  std::string source_name = "raw";
  /// As AlignOptions::explode.
  std::string explode;
  /// When set, the contract object the model keeps (not owned): schema.yml adds its tests,
  /// not_null for required columns, unique for unique columns and a sole primary key column,
  /// accepted_values for columns with an enum.
  const dialects::contract::ContractObject* contract = nullptr;
};

/// The files of the model, as (path under the project folder, content) pairs: models/<name>.sql,
/// models/schema.yml, models/sources.yml. The SQL inside is `adapter`'s (Spark or DuckDB).
/// schema.yml sets `contract: {enforced: true}`, gives every column its data_type in the
/// adapter's types, a not_null test for each column no version leaves NULL (and with a contract
/// its tests, see DbtOptions::contract) and an accepted_values test on _schema_version.
/// kInvalidArgument for a model name that is not [A-Za-z_][A-Za-z0-9_]*, or SQL that would contain
/// Jinja delimiters.
Result<std::vector<std::pair<std::string, std::string>>> RenderDbtProject(
    const std::vector<VersionInput>& versions, const schema::Schema& target, Dialect adapter,
    const DbtOptions& options);

}  // namespace sluice::sqlgen
