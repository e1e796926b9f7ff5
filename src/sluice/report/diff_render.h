// Rendering a schema diff (`sluice diff`): text, JSON (docs/formats/diff-report.md) and GitHub
// annotations.
#pragma once

#include <string>
#include <string_view>

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

/// The change and rename-hint lines of the text rendering, each starting with `indent`: what
/// `sluice diff` prints between its header and its summary, for reports that show a diff
/// inside something larger (a table's history).
std::string RenderChangeLines(const evolution::SchemaDiff& diff, std::string_view indent,
                              const RenderOptions& options = {});

/// The summary line of the text rendering, without its newline: "no changes", or
/// "2 changes: 1 breaking, 1 compatible, 0 cosmetic".
std::string RenderDiffSummary(const evolution::SchemaDiff& diff, const RenderOptions& options = {});

}  // namespace sluice::report
