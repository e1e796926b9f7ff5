// `sluice align SCHEMA... --dialect spark|duckdb|dbt`: one query that reads every version's rows
// under one target schema (the merge of the versions, or --to), UNION ALL of one SELECT per
// version, with a _schema_version column.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/schema_versions.h"
#include "sluice/base/file_system.h"
#include "sluice/sqlgen/align_dbt.h"
#include "sluice/sqlgen/align_plan.h"
#include "sluice/sqlgen/align_sql.h"

namespace sluice::cli {

namespace {

struct AlignFlags {
  std::vector<std::string> schemas;
  std::vector<std::string> relations;
  std::vector<int64_t> table_versions;
  std::string to;
  std::string contract;
  std::string dialect;
  std::string adapter = "spark";
  std::string explode;
  std::string view;
  std::string output;
  bool allow_lossy = false;
  bool quiet = false;
};

Error WithPath(const std::string& path, const Error& e) {
  return Error(e.code(), path + ": " + e.message());
}

// Exit codes: 0 written, 2 for usage, input and refused casts.
int RunAlign(const AlignFlags& f) {
  if (f.schemas.size() < 2 && f.to.empty()) {
    return ReportError(Error(ErrorCode::kInvalidArgument,
                             "align needs two or more schema versions (or one with --to)"));
  }
  if (!f.relations.empty() && f.relations.size() != f.schemas.size()) {
    return ReportError(Error(ErrorCode::kInvalidArgument,
                             "give one --relation per schema, in the schemas' order (or none)"));
  }
  bool dbt = f.dialect == "dbt";
  if (dbt && f.output.empty()) {
    return ReportError(
        Error(ErrorCode::kInvalidArgument, "--dialect dbt writes a folder: give it with -o DIR"));
  }
  auto dialect = sqlgen::ParseDialect(dbt ? f.adapter : f.dialect);
  if (!dialect.has_value()) return ReportError(dialect.error());
  if (!dbt) {
    Status writable = CheckWritable("--output", f.output);
    if (!writable.has_value()) return ReportError(writable.error());
  }

  std::vector<schema::SchemaPtr> schemas;
  std::vector<std::string> labels;
  size_t table_versions_used = 0;
  for (const std::string& path : f.schemas) {
    // --version N, in order, for the Delta tables given without @vN.
    std::optional<int64_t> version;
    if (IsDeltaTable(path) && table_versions_used < f.table_versions.size()) {
      version = f.table_versions[table_versions_used++];
    }
    auto loaded = LoadSchemaVersion(path, version);
    if (!loaded.has_value()) return ReportError(loaded.error());
    if (!f.quiet) PrintNotes(loaded->notes, path);
    schemas.push_back(loaded->schema);
    labels.push_back(loaded->label);
  }
  schema::SchemaPtr target;
  std::optional<dialects::contract::Contract> contract;
  if (!f.to.empty() && !f.contract.empty()) {
    return ReportError(Error(ErrorCode::kInvalidArgument, "give --to or --contract, not both"));
  }
  if (!f.contract.empty()) {
    auto loaded = LoadContract(f.contract);
    if (!loaded.has_value()) return ReportError(loaded.error());
    if (loaded->objects.size() != 1) {
      return ReportError(Error(ErrorCode::kInvalidArgument,
                               f.contract + ": the contract has " +
                                   std::to_string(loaded->objects.size()) +
                                   " schema objects; align takes a contract with one"));
    }
    contract = std::move(*loaded);
    if (!f.quiet) PrintNotes(contract->objects[0].notes, f.contract);
    target = contract->objects[0].schema;
  } else if (!f.to.empty()) {
    auto loaded = LoadSchema(f.to, "");
    if (!loaded.has_value()) return ReportError(loaded.error());
    if (!f.quiet) PrintNotes(loaded->notes, f.to);
    target = loaded->schema;
  } else {
    auto merged = sqlgen::MergeTarget(schemas);
    if (!merged.has_value()) return ReportError(merged.error());
    if (!f.quiet) PrintNotes(merged->notes, "target");
    target = merged->value;
  }

  if (table_versions_used < f.table_versions.size()) {
    return ReportError(Error(ErrorCode::kInvalidArgument,
                             "more --version flags than Delta tables given without @vN"));
  }
  std::vector<sqlgen::VersionInput> versions;
  for (size_t i = 0; i < schemas.size(); ++i) {
    auto plan = sqlgen::PlanVersion(*schemas[i], *target, f.allow_lossy);
    if (!plan.has_value()) return ReportError(WithPath(f.schemas[i], plan.error()));
    if (!f.quiet) PrintNotes(plan->notes, f.schemas[i]);
    std::string label = labels[i];
    std::string relation = f.relations.empty() ? label : f.relations[i];
    versions.push_back({std::move(relation), std::move(label), std::move(*plan)});
  }

  sqlgen::AlignOptions options;
  options.view_name = f.view;
  options.explode = f.explode;
  if (!dbt) {
    auto sql = sqlgen::RenderAlign(versions, *target, *dialect, options);
    if (!sql.has_value()) return ReportError(sql.error());
    Status written = WriteOutput(f.output, *sql);
    if (!written.has_value()) return ReportError(written.error().WithContext("--output"));
    return kExitOk;
  }
  sqlgen::DbtOptions dbt_options;
  dbt_options.model_name = !f.view.empty()                ? f.view
                           : !target->info().name.empty() ? target->info().name
                                                          : std::string("aligned");
  dbt_options.explode = f.explode;
  if (contract.has_value()) dbt_options.contract = &contract->objects[0];
  auto files = sqlgen::RenderDbtProject(versions, *target, *dialect, dbt_options);
  if (!files.has_value()) return ReportError(files.error());
  for (const auto& [name, text] : *files) {
    std::string path = f.output + "/" + name;
    std::string dir = path.substr(0, path.find_last_of('/'));
    Status made = NewLocalFileSystem()->CreateDirs(dir);
    if (!made.has_value()) return ReportError(made.error().WithContext("--output"));
    Status written = WriteOutput(path, text);
    if (!written.has_value()) return ReportError(written.error().WithContext("--output"));
  }
  return kExitOk;
}

}  // namespace

void RegisterAlignCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<AlignFlags>();
  CLI::App* cmd = app.add_subcommand(
      "align",
      "Write SQL that reads the rows of every schema version under one target schema: one "
      "SELECT per version (casts, typed NULLs for missing fields, nested structs and arrays "
      "rebuilt in place) joined by UNION ALL, with a _schema_version column. The target is "
      "--to, else the merge of the versions (conflicts printed as notes). Exit 0 when written, "
      "2 on usage or input errors and for a lossy cast without --allow-lossy");
  cmd->add_option("schemas", f->schemas, "The schema versions, oldest first")->required();
  cmd->add_option("--relation", f->relations,
                  "The table or view holding the rows of the schema in the same position "
                  "(repeat; default: each schema file's name up to its first dot)");
  cmd->add_option("--to", f->to, "The target schema (default: the merge of the versions)");
  cmd->add_option("--version", f->table_versions,
                  "The version of a Delta table given as a schema (repeatable: the tables in "
                  "order; PATH@vN also works)")
      ->allow_extra_args(false);
  cmd->add_option("--contract", f->contract,
                  "A contract whose schema is the target (dbt: its tests go to schema.yml)");
  cmd->add_option("--dialect", f->dialect, "spark, duckdb or dbt")
      ->required()
      ->transform(OneOf({"spark", "duckdb", "dbt"}));
  cmd->add_option("--adapter", f->adapter, "The SQL inside a dbt model: spark (default) or duckdb")
      ->transform(OneOf({"spark", "duckdb"}));
  cmd->add_option("--explode", f->explode,
                  "A top-level array column: one row per element, its fields as columns");
  cmd->add_flag("--allow-lossy", f->allow_lossy,
                "Allow casts that may lose values (string to number, to a smaller decimal, "
                "timestamp to date): try_cast, NULL where a value does not fit");
  cmd->add_option("--view", f->view,
                  "CREATE OR REPLACE VIEW NAME AS the query (dbt: the model's name)");
  cmd->add_option("-o,--output", f->output,
                  "Write the SQL here instead of standard output (dbt: the project folder)");
  cmd->add_flag("-q,--quiet", f->quiet, "No notes on standard error");
  cmd->callback([f, &exit_code] { exit_code = RunAlign(*f); });
}

}  // namespace sluice::cli
