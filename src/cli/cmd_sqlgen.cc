// `sluice sqlgen check --contract C --relation R --dialect spark|duckdb|dbt|dbt-duckdb`: a data
// contract's record checks as one SQL query (a row per broken rule), or as dbt tests, so the
// contract follows the data onto the engine that holds it.
#include <iostream>
#include <memory>
#include <string>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "sluice/base/file_system.h"
#include "sluice/sqlgen/check_sql.h"

namespace sluice::cli {

namespace {

struct SqlCheckOptions {
  std::string contract;
  std::string object;
  std::string relation;
  std::string dialect = "spark";
  std::string schema;
  int samples = 5;
  std::string output;
  bool quiet = false;
};

void PrintFindings(const std::vector<std::string>& missing, const std::vector<std::string>& notes,
                   bool have_schema, bool quiet) {
  for (const std::string& m : missing) {
    std::cerr << "missing column: " << m << " (the contract's, absent from the relation)\n";
  }
  if (quiet) return;
  for (const std::string& n : notes) std::cerr << "note: " << n << "\n";
  if (!have_schema) {
    std::cerr << "note: no --schema: columns assumed present and held as strings; missing "
                 "columns are not checked\n";
  }
}

// dbt writes a folder of files: models/schema.yml and tests/*.sql under `dir`.
Status WriteDbtFiles(const std::string& dir,
                     const std::vector<std::pair<std::string, std::string>>& files) {
  FileSystem& fs = *LocalFileSystem();
  for (const auto& [path, content] : files) {
    std::string full = dir + "/" + path;
    SLUICE_TRY(fs.CreateDirs(full.substr(0, full.rfind('/'))));
    SLUICE_TRY(WriteOutput(full, content));
  }
  return Ok();
}

int RunSqlCheck(const SqlCheckOptions& opt) {
  bool dbt = opt.dialect == "dbt" || opt.dialect == "dbt-duckdb";
  sqlgen::Dialect dialect = opt.dialect == "duckdb" || opt.dialect == "dbt-duckdb"
                                ? sqlgen::Dialect::kDuckDb
                                : sqlgen::Dialect::kSpark;
  if (dbt && (opt.output.empty() || opt.output == "-")) {
    return ReportError(Error(ErrorCode::kInvalidArgument,
                             "--dialect " + opt.dialect + " writes a folder: give it with -o DIR"));
  }
  auto contract = LoadContract(opt.contract);
  if (!contract.has_value()) return ReportError(contract.error());
  sqlgen::CheckOptions options;
  options.samples = opt.samples;
  if (!opt.schema.empty()) {
    auto relation = LoadSchema(opt.schema, "");
    if (!relation.has_value()) return ReportError(relation.error());
    options.relation_schema = relation->schema;
  }
  std::vector<std::string> missing;
  if (dbt) {
    auto checks = sqlgen::RenderDbtChecks(*contract, opt.object, opt.relation, dialect, options);
    if (!checks.has_value()) return ReportError(checks.error().WithContext(opt.contract));
    if (Status st = WriteDbtFiles(opt.output, checks->files); !st.has_value()) {
      return ReportError(st.error());
    }
    PrintFindings(checks->missing_columns, checks->notes, !opt.schema.empty(), opt.quiet);
    if (!opt.quiet) {
      std::cerr << checks->files.size() << " file(s) written under " << opt.output << "\n";
    }
    missing = checks->missing_columns;
  } else {
    auto query = sqlgen::RenderContractCheck(*contract, opt.object, opt.relation, dialect, options);
    if (!query.has_value()) return ReportError(query.error().WithContext(opt.contract));
    if (Status st = WriteOutput(opt.output, query->sql); !st.has_value()) {
      return ReportError(st.error());
    }
    PrintFindings(query->missing_columns, query->notes, !opt.schema.empty(), opt.quiet);
    missing = query->missing_columns;
  }
  // A column the relation lacks breaks the contract before any row is read.
  return missing.empty() ? kExitOk : kExitFindings;
}

}  // namespace

void RegisterSqlgenCommand(CLI::App& app, int& exit_code) {
  CLI::App* sqlgen = app.add_subcommand("sqlgen", "Generate SQL from schemas and contracts");
  sqlgen->require_subcommand(1);
  auto opt = std::make_shared<SqlCheckOptions>();
  CLI::App* check = sqlgen->add_subcommand(
      "check",
      "A data contract's record checks (not null, type, enum, range, length, pattern, unique, "
      "unknown columns) as one SQL query returning a row per broken rule with its count and "
      "sample values, or as dbt tests. Exit 0 when written, 1 when --schema shows a contract "
      "column missing (the SQL is written all the same), 2 on usage or input errors");
  check->add_option("--contract", opt->contract, "The contract (seed YAML, ODCS v3 or DCS)")
      ->required();
  check->add_option("--object", opt->object, "The contract's schema object (default: the first)");
  check
      ->add_option("--relation", opt->relation,
                   "The table or view to check (db.table); for dbt, the model's name")
      ->required();
  check
      ->add_option("--dialect", opt->dialect,
                   "spark (default), duckdb, dbt (dbt tests in Spark SQL) or dbt-duckdb")
      ->transform(OneOf({"spark", "duckdb", "dbt", "dbt-duckdb"}));
  check->add_option("--schema", opt->schema,
                    "The relation's schema (any schema language): finds missing columns, skips "
                    "type checks on typed columns, checks columns the contract lacks");
  check->add_option("--samples", opt->samples, "Sample values a rule's row carries (0 to 1000)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  check->add_option("-o,--output", opt->output,
                    "Write the query here (default: standard output); for dbt, the folder that "
                    "gets models/schema.yml and tests/");
  check->add_flag("-q,--quiet", opt->quiet, "No notes on standard error");
  check->callback([opt, &exit_code] { exit_code = RunSqlCheck(*opt); });
}

}  // namespace sluice::cli
