// Rendering a schema diff (`sluice diff`): text, JSON (docs/formats/diff-report.md) and GitHub
// annotations.
#pragma once

#include <string>

#include "sluice/base/result.h"
#include "sluice/evolution/diff.h"
#include "sluice/report/format.h"

namespace sluice::report {

/// What the diff compared, as the user named it.
struct DiffContext {
  std::string old_name;
  std::string new_name;
};

/// Render `diff` in `format`: kText, kJson, kGithub (annotations on the new file; breaking
/// changes are errors, compatible ones warnings, the rest notices). kUnimplemented otherwise.
Result<std::string> Render(const evolution::SchemaDiff& diff, const DiffContext& context,
                           Format format, const RenderOptions& options = {});

}  // namespace sluice::report
