#include "sluice/report/compat_render.h"

#include <fmt/format.h>

#include "sluice/base/strings.h"
#include "sluice/report/render_internal.h"

namespace sluice::report {
namespace {

using evolution::CompatibilityReport;
using evolution::Incompatibility;
using internal::GithubData;
using internal::GithubProperty;

// The name of history version `index`; "?" for an index the context does not cover.
std::string VersionName(const CompatContext& ctx, size_t index) {
  return index < ctx.history.size() ? ctx.history[index] : std::string("?");
}

std::string RenderText(const CompatibilityReport& r, const CompatContext& ctx, bool color) {
  std::string out;
  std::string mode(evolution::CompatibilityModeName(r.mode));
  if (r.checked_versions.empty()) {
    return fmt::format("{}: {} is {} ({})\n", mode, ctx.candidate,
                       internal::Paint("compatible", internal::Tone::kGood, color),
                       r.mode == evolution::CompatibilityMode::kNone ? "mode NONE checks nothing"
                                                                     : "no earlier versions");
  }
  out += fmt::format("{} ({}): {} is {}\n", mode, evolution::SchemaTypeName(r.type), ctx.candidate,
                     r.compatible ? internal::Paint("compatible", internal::Tone::kGood, color)
                                  : internal::Paint("NOT compatible", internal::Tone::kBad, color));
  for (const Incompatibility& inc : r.incompatibilities) {
    std::string against = VersionName(ctx, inc.version_index);
    std::string who = inc.direction == evolution::CheckDirection::kBackward
                          ? fmt::format("new schema reading data written with {}", against)
                          : fmt::format("{} reading data written with the new schema", against);
    out += fmt::format("  {} at {} ({})\n    {}\n",
                       internal::Paint(inc.kind, internal::Tone::kBad, color),
                       inc.location.empty() ? "the top level" : inc.location, who, inc.message);
    if (!inc.hint.empty()) out += fmt::format("    fix: {}\n", inc.hint);
  }
  std::vector<std::string> names;
  for (size_t i : r.checked_versions) names.push_back(VersionName(ctx, i));
  out += fmt::format("{} incompatibilit{}; checked against {}\n", r.incompatibilities.size(),
                     r.incompatibilities.size() == 1 ? "y" : "ies", JoinStrings(names, ", "));
  return out;
}

std::string RenderJson(const CompatibilityReport& r, const CompatContext& ctx) {
  JsonWriter w = internal::ReportWriter();
  w.BeginObject();
  w.Key("mode").String(evolution::CompatibilityModeName(r.mode));
  w.Key("type").String(evolution::SchemaTypeName(r.type));
  w.Key("candidate").String(ctx.candidate);
  w.Key("compatible").Bool(r.compatible);
  w.Key("checked").BeginArray();
  for (size_t i : r.checked_versions) w.String(VersionName(ctx, i));
  w.EndArray();
  w.Key("incompatibilities").BeginArray();
  for (const Incompatibility& inc : r.incompatibilities) {
    w.BeginObject();
    w.Key("kind").String(inc.kind);
    w.Key("location").String(inc.location);
    w.Key("message").String(inc.message);
    w.Key("hint").String(inc.hint);
    w.Key("direction").String(evolution::CheckDirectionName(inc.direction));
    w.Key("against").String(VersionName(ctx, inc.version_index));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return internal::Finish(w);
}

std::string RenderGithub(const CompatibilityReport& r, const CompatContext& ctx) {
  std::string out;
  for (const Incompatibility& inc : r.incompatibilities) {
    std::string msg = fmt::format("{} at {} (against {}, {}): {}", inc.kind, inc.location,
                                  VersionName(ctx, inc.version_index),
                                  evolution::CheckDirectionName(inc.direction), inc.message);
    if (!inc.hint.empty()) msg += " Fix: " + inc.hint;
    out += fmt::format("::error file={},title={}::{}\n", GithubProperty(ctx.candidate),
                       GithubProperty("sluice compat " + inc.kind), GithubData(msg));
  }
  out += fmt::format("{}: {}\n", evolution::CompatibilityModeName(r.mode),
                     r.compatible ? "compatible" : "NOT compatible");
  return out;
}

}  // namespace

Result<std::string> Render(const CompatibilityReport& report, const CompatContext& context,
                           Format format, const RenderOptions& options) {
  switch (format) {
    case Format::kText:
      return RenderText(report, context, options.color);
    case Format::kJson:
      return RenderJson(report, context);
    case Format::kGithub:
      return RenderGithub(report, context);
    case Format::kSlack:
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("a compatibility report", format));
}

}  // namespace sluice::report
