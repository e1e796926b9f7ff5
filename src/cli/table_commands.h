// The `sluice table` subcommands: `table` itself, and the verbs each file registers on it.
#pragma once

#include <CLI/CLI.hpp>

namespace sluice::cli {

/// `sluice table ...`: add the `table` subcommand to `app` with every verb below.
void RegisterTableCommand(CLI::App& app, int& exit_code);

/// `sluice table history|check|schema PATH`, on the `table` subcommand.
void RegisterTableInfoCommands(CLI::App* table, int& exit_code);

}  // namespace sluice::cli
