// The forms a result can be rendered in, and the error a renderer gives for a form it lacks.
#pragma once

#include <cstdint>
#include <string_view>

#include "sluice/base/result.h"

namespace sluice::report {

/// Every form a report can take. kText is for people at a terminal, kJson for machines (the
/// shapes in docs/formats/), kGithub for GitHub Actions workflow commands (annotations on a pull
/// request). kSlack is a Slack incoming-webhook message (Block Kit); only drift reports
/// (drift_render.h) render it. kHtml is reserved for the UI; no renderer supports it yet.
enum class Format : uint8_t { kText, kJson, kGithub, kSlack, kHtml };

/// How a text report is painted. Colour is for people at a terminal: the caller decides (a
/// terminal, NO_COLOR unset); other formats ignore it.
struct RenderOptions {
  bool color = false;
};

/// "text", "json", "github", "slack", "html".
std::string_view FormatName(Format format);

/// Parse a name as FormatName spells it; kInvalidArgument otherwise.
Result<Format> ParseFormat(std::string_view name);

/// The error of a renderer asked for a format it does not support: kUnimplemented, naming the
/// result (`what`, e.g. "a schema diff") and the format.
Error Unsupported(std::string_view what, Format format);

}  // namespace sluice::report
