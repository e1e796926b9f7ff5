#include "sluice/ingest/evolution_mode.h"

#include <array>
#include <string>
#include <utility>

#include "sluice/base/strings.h"

namespace sluice::ingest {
namespace {

constexpr std::array<std::pair<EvolutionMode, std::string_view>, 5> kModes = {{
    {EvolutionMode::kAddNewColumns, "addNewColumns"},
    {EvolutionMode::kAddNewColumnsWithTypeWidening, "addNewColumnsWithTypeWidening"},
    {EvolutionMode::kRescue, "rescue"},
    {EvolutionMode::kFailOnNewColumns, "failOnNewColumns"},
    {EvolutionMode::kNone, "none"},
}};

}  // namespace

Result<EvolutionMode> ParseEvolutionMode(std::string_view name) {
  for (const auto& [mode, text] : kModes) {
    if (EqualsIgnoreCase(name, text)) return mode;
  }
  return Fail(ErrorCode::kInvalidArgument,
              "unknown schema evolution mode '" + std::string(name) +
                  "' (addNewColumns, addNewColumnsWithTypeWidening, rescue, failOnNewColumns, "
                  "none)");
}

std::string_view EvolutionModeName(EvolutionMode mode) {
  for (const auto& [m, text] : kModes) {
    if (m == mode) return text;
  }
  return "none";
}

}  // namespace sluice::ingest
