#include "sluice/report/diff_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "sluice/base/strings.h"
#include "sluice/report/render_internal.h"

namespace sluice::report {
namespace {

using evolution::Change;
using evolution::ChangeKind;
using evolution::ChangeSeverity;
using evolution::SchemaDiff;
using internal::GithubData;
using internal::GithubProperty;
using internal::Paint;
using internal::Tone;

char Marker(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kFieldAdded:
      return '+';
    case ChangeKind::kFieldRemoved:
      return '-';
    case ChangeKind::kTypeWidened:
    case ChangeKind::kTypeNarrowed:
    case ChangeKind::kTypeChanged:
    case ChangeKind::kNullabilityRelaxed:
    case ChangeKind::kNullabilityTightened:
    case ChangeKind::kFieldMoved:
    case ChangeKind::kCaseChanged:
    case ChangeKind::kDocChanged:
    case ChangeKind::kDefaultChanged:
    case ChangeKind::kMetadataChanged:
      return '~';
  }
  return '~';
}

// Names and types come from files: a newline would split a change's line and an escape
// sequence would paint the terminal, so control characters and invalid UTF-8 are shown escaped.
std::string Printable(std::string_view s) {
  return EscapeForMessage(s, std::numeric_limits<size_t>::max());
}

// An added field shows its new side, a removed one its old side, anything else both.
std::string Describe(const Change& c) {
  if (c.kind == ChangeKind::kFieldAdded) return c.to.value_or("");
  if (c.kind == ChangeKind::kFieldRemoved) return c.from.value_or("");
  return c.from.value_or("(none)") + " -> " + c.to.value_or("(none)");
}

std::string SummaryLine(const SchemaDiff& d, bool color = false) {
  if (d.empty()) return "no changes";
  int breaking = d.CountBySeverity(ChangeSeverity::kBreaking);
  std::string breaking_text = fmt::format("{} breaking", breaking);
  if (breaking > 0) breaking_text = Paint(breaking_text, Tone::kBad, color);
  return fmt::format("{} change{}: {}, {} compatible, {} cosmetic", d.changes.size(),
                     d.changes.size() == 1 ? "" : "s", breaking_text,
                     d.CountBySeverity(ChangeSeverity::kCompatible),
                     d.CountBySeverity(ChangeSeverity::kCosmetic));
}

// The severity tag at the end of a change line: red when it breaks, green when compatible.
std::string SeverityTag(ChangeSeverity severity, bool color) {
  std::string tag = fmt::format("[{}]", evolution::ChangeSeverityName(severity));
  switch (severity) {
    case ChangeSeverity::kBreaking:
      return Paint(tag, Tone::kBad, color);
    case ChangeSeverity::kCompatible:
      return Paint(tag, Tone::kGood, color);
    case ChangeSeverity::kCosmetic:
      break;
  }
  return tag;
}

std::string ChangeLines(const SchemaDiff& d, std::string_view indent, bool color) {
  std::string out;
  size_t path_w = 4;
  size_t kind_w = 4;
  size_t desc_w = 4;
  for (const Change& c : d.changes) {
    path_w = std::max(path_w, Printable(c.path.ToString()).size());
    kind_w = std::max(kind_w, evolution::ChangeKindName(c.kind).size());
    desc_w = std::max(desc_w, Printable(Describe(c)).size());
  }
  // Long docs or defaults would push the severity column off the screen; they overflow instead.
  desc_w = std::min<size_t>(desc_w, 60);
  for (const Change& c : d.changes) {
    out += fmt::format("{}{} {:<{}}  {:<{}}  {:<{}}  {}\n", indent, Marker(c.kind),
                       Printable(c.path.ToString()), path_w, evolution::ChangeKindName(c.kind),
                       kind_w, Printable(Describe(c)), desc_w, SeverityTag(c.severity(), color));
  }
  for (const auto& h : d.hints) {
    out += fmt::format("{}hint: {} may have been renamed to {} ({})\n", indent,
                       Printable(h.from.ToString()), Printable(h.to.ToString()), h.reason);
  }
  return out;
}

std::string RenderText(const SchemaDiff& d, const DiffContext& ctx, bool color) {
  std::string out = fmt::format("{} -> {}\n", ctx.old_name, ctx.new_name);
  out += ChangeLines(d, "  ", color);
  out += SummaryLine(d, color) + "\n";
  return out;
}

std::string RenderJson(const SchemaDiff& d, const DiffContext& ctx) {
  JsonWriter w = internal::ReportWriter();
  w.BeginObject();
  w.Key("old").String(ctx.old_name);
  w.Key("new").String(ctx.new_name);
  w.Key("identical").Bool(d.empty());
  internal::WriteDiffMembers(w, d);
  w.EndObject();
  return internal::Finish(w);
}

std::string_view AnnotationLevel(ChangeSeverity severity) {
  switch (severity) {
    case ChangeSeverity::kBreaking:
      return "error";
    case ChangeSeverity::kCompatible:
      return "warning";
    case ChangeSeverity::kCosmetic:
      return "notice";
  }
  return "notice";
}

std::string RenderGithub(const SchemaDiff& d, const DiffContext& ctx) {
  std::string out;
  for (const Change& c : d.changes) {
    out += fmt::format(
        "::{} file={},title={}::{}: {} {}\n", AnnotationLevel(c.severity()),
        GithubProperty(ctx.new_name),
        GithubProperty("sluice diff " + std::string(evolution::ChangeKindName(c.kind))),
        GithubData(c.path.ToString()), evolution::ChangeKindName(c.kind), GithubData(Describe(c)));
  }
  for (const auto& h : d.hints) {
    out += fmt::format(
        "::notice file={},title=sluice diff rename candidate::{} may have been "
        "renamed to {} ({})\n",
        GithubProperty(ctx.new_name), GithubData(h.from.ToString()), GithubData(h.to.ToString()),
        h.reason);
  }
  out += SummaryLine(d) + "\n";
  return out;
}

}  // namespace

namespace internal {

void WriteDiffMembers(JsonWriter& w, const SchemaDiff& d) {
  w.Key("changes").BeginArray();
  for (const Change& c : d.changes) {
    w.BeginObject();
    w.Key("path").String(c.path.ToString());
    w.Key("kind").String(evolution::ChangeKindName(c.kind));
    w.Key("from");
    internal::OptionalString(w, c.from);
    w.Key("to");
    internal::OptionalString(w, c.to);
    w.Key("severity").String(evolution::ChangeSeverityName(c.severity()));
    w.EndObject();
  }
  w.EndArray();
  w.Key("hints").BeginArray();
  for (const auto& h : d.hints) {
    w.BeginObject();
    w.Key("kind").String("rename_candidate");
    w.Key("from").String(h.from.ToString());
    w.Key("to").String(h.to.ToString());
    w.Key("reason").String(h.reason);
    w.EndObject();
  }
  w.EndArray();
  w.Key("summary").BeginObject();
  w.Key("total").Int(static_cast<int64_t>(d.changes.size()));
  w.Key("breaking").Int(d.CountBySeverity(ChangeSeverity::kBreaking));
  w.Key("compatible").Int(d.CountBySeverity(ChangeSeverity::kCompatible));
  w.Key("cosmetic").Int(d.CountBySeverity(ChangeSeverity::kCosmetic));
  w.Key("by_kind").BeginObject();
  for (const auto& [kind, count] : d.CountByKind()) {
    w.Key(evolution::ChangeKindName(kind)).Int(count);
  }
  w.EndObject();
  w.EndObject();
}

}  // namespace internal

std::string RenderChangeLines(const SchemaDiff& diff, std::string_view indent,
                              const RenderOptions& options) {
  return ChangeLines(diff, indent, options.color);
}

std::string RenderDiffSummary(const SchemaDiff& diff, const RenderOptions& options) {
  return SummaryLine(diff, options.color);
}

Result<std::string> Render(const SchemaDiff& diff, const DiffContext& context, Format format,
                           const RenderOptions& options) {
  switch (format) {
    case Format::kText:
      return RenderText(diff, context, options.color);
    case Format::kJson:
      return RenderJson(diff, context);
    case Format::kGithub:
      return RenderGithub(diff, context);
    case Format::kSlack:
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("a schema diff", format));
}

}  // namespace sluice::report
