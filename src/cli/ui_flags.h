// The web UI's flags, shared by `sluice ui` and `sluice registry serve --ui`: the tables,
// ingest checkpoints and alert outboxes it shows.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/ui/ui.h"

namespace sluice::cli {

struct UiFlags {
  std::vector<std::string> tables;
  std::vector<std::string> ingest;
  std::vector<std::string> alerts;
};

/// Add the three repeatable flags, each NAME=PATH or a bare PATH, as `prefix` + table|ingest|
/// alerts (`--ui-table` for registry serve, `--table` for sluice ui).
void AddUiFlags(CLI::App* cmd, UiFlags& flags, const std::string& prefix);

/// The flags as UiOptions (paths made absolute); kInvalidArgument names a bad flag or a name
/// given twice.
Result<ui::UiOptions> UiOptionsFromFlags(const UiFlags& flags);

}  // namespace sluice::cli
