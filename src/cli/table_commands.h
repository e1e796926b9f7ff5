// `sluice table ...`: the subcommands on Delta tables, registered by the files that hold them.
#pragma once

#include <CLI/CLI.hpp>

namespace sluice::cli {

/// `sluice table create|append|overwrite|...`: registers `table` and every subcommand.
void RegisterTableCommand(CLI::App& app, int& exit_code);

/// `create`, `append`, `overwrite` (cmd_table.cc).
void RegisterTableWriteCommands(CLI::App* table, int& exit_code);
void RegisterTableReadCommands(CLI::App* table, int& exit_code);

/// `alter` (cmd_table_alter.cc).
void RegisterTableAlterCommand(CLI::App* table, int& exit_code);

/// `history`, `check`, `schema` (cmd_table_info.cc).
void RegisterTableInfoCommands(CLI::App* table, int& exit_code);

}  // namespace sluice::cli
