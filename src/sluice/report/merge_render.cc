#include "sluice/report/merge_render.h"

#include <fmt/format.h>

#include "sluice/report/render_internal.h"

namespace sluice::report {
namespace {

using evolution::MergeResult;
using evolution::TableChange;
using evolution::TableFormat;
using evolution::TableViolation;
using evolution::TableWriteMode;

// The names of `sluice merge --table-format` and `--mode`, which the JSON report echoes.
std::string_view TableFormatName(TableFormat format) {
  switch (format) {
    case TableFormat::kDelta:
      return "delta";
    case TableFormat::kIceberg:
      return "iceberg";
  }
  return "delta";
}

std::string_view WriteModeName(TableWriteMode mode) {
  switch (mode) {
    case TableWriteMode::kEnforce:
      return "enforce";
    case TableWriteMode::kMerge:
      return "merge";
    case TableWriteMode::kOverwrite:
      return "overwrite";
  }
  return "enforce";
}

// "Delta, mergeSchema, type widening": the rules in the words the table format uses.
std::string RulesInWords(const evolution::MergeOptions& o) {
  std::string words = o.format == TableFormat::kIceberg ? "Iceberg" : "Delta";
  switch (o.mode) {
    case TableWriteMode::kMerge:
      words += ", mergeSchema";
      break;
    case TableWriteMode::kOverwrite:
      words += ", overwriteSchema";
      break;
    case TableWriteMode::kEnforce:
      words += ", enforcement";
      break;
  }
  if (o.type_widening) words += ", type widening";
  return words;
}

std::string RenderText(const MergeResult& r, const MergeContext& ctx, bool color) {
  internal::Tone tone = r.verdict == evolution::MergeVerdict::kRejected  ? internal::Tone::kBad
                        : r.verdict == evolution::MergeVerdict::kEvolved ? internal::Tone::kWarn
                                                                         : internal::Tone::kGood;
  std::string out = fmt::format(
      "{} into {} ({}): {}\n", ctx.incoming_name, ctx.table_name, RulesInWords(ctx.options),
      internal::Paint(evolution::MergeVerdictName(r.verdict), tone, color));
  for (const TableViolation& v : r.violations) {
    out += fmt::format("  {} {}: {}{}\n", internal::Paint("!", internal::Tone::kBad, color),
                       v.path.empty() ? "(table)" : v.path.ToString(),
                       v.error_class.empty() ? "" : "[" + v.error_class + "] ", v.message);
    if (!v.hint.empty()) out += fmt::format("    fix: {}\n", v.hint);
  }
  for (const TableChange& c : r.changes) {
    std::string what = c.from.empty() ? c.to : c.to.empty() ? c.from : c.from + " -> " + c.to;
    out +=
        fmt::format("  ~ {}  {}  {}{}\n", c.path.ToString(), evolution::TableChangeKindName(c.kind),
                    what, c.note.empty() ? "" : "  (" + c.note + ")");
  }
  if (!r.ok()) return out;
  if (ctx.schema_in_text) out += "\n" + ctx.schema_text;
  return out;
}

std::string RenderJson(const MergeResult& r, const MergeContext& ctx) {
  JsonWriter w = internal::ReportWriter();
  w.BeginObject();
  w.Key("table").String(ctx.table_name);
  w.Key("incoming").String(ctx.incoming_name);
  w.Key("format").String(TableFormatName(ctx.options.format));
  w.Key("mode").String(WriteModeName(ctx.options.mode));
  w.Key("type_widening").Bool(ctx.options.type_widening);
  w.Key("verdict").String(evolution::MergeVerdictName(r.verdict));
  w.Key("violations").BeginArray();
  for (const TableViolation& v : r.violations) {
    w.BeginObject();
    w.Key("path").String(v.path.ToString());
    w.Key("error_class").String(v.error_class);
    w.Key("cause_class").String(v.cause_class);
    w.Key("message").String(v.message);
    w.Key("hint").String(v.hint);
    w.EndObject();
  }
  w.EndArray();
  w.Key("changes").BeginArray();
  for (const TableChange& c : r.changes) {
    w.BeginObject();
    w.Key("path").String(c.path.ToString());
    w.Key("kind").String(evolution::TableChangeKindName(c.kind));
    w.Key("from").String(c.from);
    w.Key("to").String(c.to);
    w.Key("note").String(c.note);
    w.EndObject();
  }
  w.EndArray();
  w.Key("schema_format").String(ctx.schema_format);
  w.Key("schema").String(ctx.schema_text);
  w.EndObject();
  return internal::Finish(w);
}

}  // namespace

Result<std::string> Render(const MergeResult& result, const MergeContext& context, Format format,
                           const RenderOptions& options) {
  switch (format) {
    case Format::kText:
      return RenderText(result, context, options.color);
    case Format::kJson:
      return RenderJson(result, context);
    case Format::kGithub:
    case Format::kSlack:
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("a table merge result", format));
}

}  // namespace sluice::report
