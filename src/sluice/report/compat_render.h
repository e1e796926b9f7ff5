// Rendering a compatibility check over a version history (`sluice compat`): text, JSON
// (docs/formats/compat-report.md) and GitHub annotations.
#pragma once

#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/evolution/compatibility.h"
#include "sluice/report/format.h"

namespace sluice::report {

/// The versions as the user named them.
struct CompatContext {
  /// The earlier versions, oldest first: CompatibilityReport's version indexes point here.
  std::vector<std::string> history;
  /// The candidate version.
  std::string candidate;
};

/// Render `report` in `format`: kText (the verdict, each incompatibility with the version it was
/// found against and its fix, the versions checked), kJson, kGithub (one error annotation on
/// the candidate per incompatibility, then the verdict). kUnimplemented otherwise.
Result<std::string> Render(const evolution::CompatibilityReport& report,
                           const CompatContext& context, Format format,
                           const RenderOptions& options = {});

}  // namespace sluice::report
