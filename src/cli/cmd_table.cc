// `sluice table`: Delta Lake tables. Each group of verbs registers itself on this subcommand.
#include "cli/table_commands.h"

namespace sluice::cli {

void RegisterTableCommand(CLI::App& app, int& exit_code) {
  CLI::App* table = app.add_subcommand("table", "Read, check and inspect Delta Lake tables");
  table->require_subcommand(1);
  RegisterTableInfoCommands(table, exit_code);
}

}  // namespace sluice::cli
