// The sluice binary: parses the command line and hands off to one subcommand.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/table_commands.h"
#include "cli/usage_errors.h"
#include "sluice/base/large_buffer.h"

namespace {
constexpr const char* kVersion = "0.1.0";
}

int main(int argc, char** argv) {
  sluice::KeepFreedMemoryForReuse();
  CLI::App app{
      "sluice: schema evolution for data pipelines. Reads every schema language a "
      "pipeline uses, converts between them, and says exactly what changed.",
      "sluice"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);
  int exit_code = sluice::cli::kExitOk;
  sluice::cli::RegisterSchemaCommand(app, exit_code);
  sluice::cli::RegisterDiffCommand(app, exit_code);
  sluice::cli::RegisterCompatCommand(app, exit_code);
  sluice::cli::RegisterMergeCommand(app, exit_code);
  sluice::cli::RegisterCheckCommand(app, exit_code);
  sluice::cli::RegisterValidateCommand(app, exit_code);
  sluice::cli::RegisterInferCommand(app, exit_code);
  sluice::cli::RegisterCatCommand(app, exit_code);
  sluice::cli::RegisterRegistryCommand(app, exit_code);
  sluice::cli::RegisterUiCommand(app, exit_code);
  sluice::cli::RegisterWireCommands(app, exit_code);
  sluice::cli::RegisterTableCommand(app, exit_code);
  sluice::cli::RegisterIngestCommand(app, exit_code);
  sluice::cli::RegisterSqlgenCommand(app, exit_code);
  sluice::cli::RegisterAlignCommand(app, exit_code);
  sluice::cli::RegisterDriftCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    // Every error starts with "sluice: error:" and names the word that is wrong.
    return sluice::cli::ReportError(sluice::cli::DescribeUsageError(app, argc, argv, e));
  }
  return exit_code;
}
