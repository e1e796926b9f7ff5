#include "sluice/report/contract_render.h"

#include <fmt/format.h>

#include "sluice/report/render_internal.h"

namespace sluice::report {
namespace {

using evolution::BreakingChange;
using evolution::BreakingChangeReport;
using evolution::BreakingSeverity;
using evolution::ContractCheckReport;
using evolution::ContractViolation;
using internal::GithubData;
using internal::GithubProperty;

// ---------------------------------------------------------------------------------------------
// Schema against contract.

std::string RenderCheckText(const ContractCheckReport& r, const CheckContext& ctx, bool color) {
  std::string out =
      fmt::format("{} against {}{}: {}\n", ctx.schema_name, ctx.contract_name,
                  r.object.empty() ? "" : " (" + r.object + ")",
                  r.ok() ? internal::Paint("contract kept", internal::Tone::kGood, color)
                         : internal::Paint("contract VIOLATED", internal::Tone::kBad, color));
  for (const ContractViolation& v : r.violations) {
    out += fmt::format("  {}  {}: {}\n", v.path.ToString(), evolution::ViolationRuleName(v.rule),
                       v.message);
    if (!v.fix.empty()) out += fmt::format("    fix: {}\n", v.fix);
  }
  if (!r.ok()) out += fmt::format("{} violation(s)\n", r.violations.size());
  return out;
}

std::string RenderCheckJson(const ContractCheckReport& r, const CheckContext& ctx) {
  JsonWriter w = internal::ReportWriter();
  w.BeginObject();
  w.Key("schema").String(ctx.schema_name);
  w.Key("contract").String(ctx.contract_name);
  w.Key("object").String(r.object);
  if (!ctx.previous_name.empty()) w.Key("previous").String(ctx.previous_name);
  w.Key("passed").Bool(r.ok());
  w.Key("violations").BeginArray();
  for (const ContractViolation& v : r.violations) {
    w.BeginObject();
    w.Key("path").String(v.path.ToString());
    w.Key("rule").String(evolution::ViolationRuleName(v.rule));
    w.Key("message").String(v.message);
    w.Key("fix").String(v.fix);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return internal::Finish(w);
}

std::string RenderCheckGithub(const ContractCheckReport& r, const CheckContext& ctx) {
  std::string out;
  for (const ContractViolation& v : r.violations) {
    out += fmt::format(
        "::error file={},title={}::{}: {}{}\n", GithubProperty(ctx.schema_name),
        GithubProperty("sluice check " + std::string(evolution::ViolationRuleName(v.rule))),
        GithubData(v.path.ToString()), GithubData(v.message),
        v.fix.empty() ? "" : GithubData(" Fix: " + v.fix));
  }
  out += r.ok() ? "contract kept\n" : fmt::format("{} violation(s)\n", r.violations.size());
  return out;
}

// ---------------------------------------------------------------------------------------------
// Contract against contract, in datacontract-cli's wording.

// "18 breaking changes: 15 error, 3 warning": the first line `datacontract breaking` prints.
std::string BreakingHeadline(const BreakingChangeReport& r) {
  int errors = r.Count(BreakingSeverity::kError);
  int warnings = r.Count(BreakingSeverity::kWarning);
  return fmt::format("{} breaking changes: {} error, {} warning", errors + warnings, errors,
                     warnings);
}

// "21 changes: 15 error, 3 warning, 3 info": the first line of `datacontract changelog`.
std::string ChangelogHeadline(const BreakingChangeReport& r) {
  return fmt::format("{} changes: {} error, {} warning, {} info", r.changes.size(),
                     r.Count(BreakingSeverity::kError), r.Count(BreakingSeverity::kWarning),
                     r.Count(BreakingSeverity::kInfo));
}

// "error\t[field_type_updated] at <file>\n        in <location>\n            <description>".
std::string ChangeText(const BreakingChange& c, std::string_view new_file) {
  return fmt::format("{}\t[{}] at {}\n        in {}\n            {}",
                     evolution::BreakingSeverityName(c.severity), c.rule, new_file, c.location,
                     c.description);
}

std::string RenderBreakingText(const BreakingChangeReport& r, const BreakingContext& ctx) {
  if (ctx.include_info) {
    std::string out = ChangelogHeadline(r) + "\n";
    for (const BreakingChange& c : r.changes) out += "\n" + ChangeText(c, ctx.new_name) + "\n";
    return out;
  }
  // datacontract-cli ends the last change without a newline; so does sluice.
  std::string out = BreakingHeadline(r) + "\n";
  bool first = true;
  for (const BreakingChange& c : r.changes) {
    if (c.severity == BreakingSeverity::kInfo) continue;
    if (!first) out += "\n\n";
    first = false;
    out += ChangeText(c, ctx.new_name);
  }
  return out;
}

std::string RenderBreakingJson(const BreakingChangeReport& r, const BreakingContext& ctx) {
  JsonWriter w = internal::ReportWriter();
  w.BeginObject();
  w.Key("old").String(ctx.old_name);
  w.Key("new").String(ctx.new_name);
  w.Key("summary").String(BreakingHeadline(r));
  w.Key("errors").Int(r.Count(BreakingSeverity::kError));
  w.Key("warnings").Int(r.Count(BreakingSeverity::kWarning));
  w.Key("infos").Int(r.Count(BreakingSeverity::kInfo));
  w.Key("changes").BeginArray();
  for (const BreakingChange& c : r.changes) {
    if (!ctx.include_info && c.severity == BreakingSeverity::kInfo) continue;
    w.BeginObject();
    w.Key("rule").String(c.rule);
    w.Key("severity").String(evolution::BreakingSeverityName(c.severity));
    w.Key("location").String(c.location);
    w.Key("description").String(c.description);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return internal::Finish(w);
}

}  // namespace

Result<std::string> Render(const ContractCheckReport& report, const CheckContext& context,
                           Format format, const RenderOptions& options) {
  switch (format) {
    case Format::kText:
      return RenderCheckText(report, context, options.color);
    case Format::kJson:
      return RenderCheckJson(report, context);
    case Format::kGithub:
      return RenderCheckGithub(report, context);
    case Format::kSlack:
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("a contract check report", format));
}

Result<std::string> Render(const BreakingChangeReport& report, const BreakingContext& context,
                           Format format, const RenderOptions&) {
  switch (format) {
    case Format::kText:
      // datacontract-cli's own words, unpainted: scripts compare them.
      return RenderBreakingText(report, context);
    case Format::kJson:
      return RenderBreakingJson(report, context);
    case Format::kGithub:
    case Format::kSlack:
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("a breaking-change report", format));
}

}  // namespace sluice::report
