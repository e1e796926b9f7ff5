#include "sluice/report/format.h"

#include <fmt/format.h>

namespace sluice::report {

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kText:
      return "text";
    case Format::kJson:
      return "json";
    case Format::kGithub:
      return "github";
    case Format::kSlack:
      return "slack";
    case Format::kHtml:
      return "html";
  }
  return "unknown";
}

Result<Format> ParseFormat(std::string_view name) {
  for (Format f : {Format::kText, Format::kJson, Format::kGithub, Format::kSlack, Format::kHtml}) {
    if (name == FormatName(f)) return f;
  }
  return InvalidArgument(
      fmt::format("unknown report format '{}' (text, json, github, slack, html)", name));
}

Error Unsupported(std::string_view what, Format format) {
  return Error(
      ErrorCode::kUnimplemented,
      fmt::format("{} cannot be rendered as {}: not implemented", what, FormatName(format)));
}

}  // namespace sluice::report
