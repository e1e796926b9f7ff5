// `sluice diff OLD NEW`: what changed between two schema versions, in any two languages.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "sluice/base/json_writer.h"
#include "sluice/evolution/diff.h"

namespace sluice::cli {

namespace {

using evolution::Change;
using evolution::ChangeKind;
using evolution::ChangeSeverity;
using evolution::SchemaDiff;

struct DiffOptions {
  std::string old_file;
  std::string new_file;
  std::string old_from;
  std::string new_from;
  std::string format = "text";
  bool case_sensitive = false;
  bool quiet = false;
};

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

std::string Describe(const Change& c) {
  if (c.kind == ChangeKind::kFieldAdded) return c.to.value_or("");
  if (c.kind == ChangeKind::kFieldRemoved) return c.from.value_or("");
  return c.from.value_or("(none)") + " -> " + c.to.value_or("(none)");
}

std::string SummaryLine(const SchemaDiff& d) {
  if (d.empty()) return "no changes";
  return fmt::format("{} change{}: {} breaking, {} compatible, {} cosmetic", d.changes.size(),
                     d.changes.size() == 1 ? "" : "s", d.CountBySeverity(ChangeSeverity::kBreaking),
                     d.CountBySeverity(ChangeSeverity::kCompatible),
                     d.CountBySeverity(ChangeSeverity::kCosmetic));
}

std::string RenderText(const SchemaDiff& d, const DiffOptions& opt) {
  std::string out = fmt::format("{} -> {}\n", opt.old_file, opt.new_file);
  size_t path_w = 4;
  size_t kind_w = 4;
  size_t desc_w = 4;
  for (const Change& c : d.changes) {
    path_w = std::max(path_w, c.path.ToString().size());
    kind_w = std::max(kind_w, evolution::ChangeKindName(c.kind).size());
    desc_w = std::max(desc_w, Describe(c).size());
  }
  desc_w = std::min<size_t>(desc_w, 60);
  for (const Change& c : d.changes) {
    out += fmt::format("  {} {:<{}}  {:<{}}  {:<{}}  [{}]\n", Marker(c.kind), c.path.ToString(),
                       path_w, evolution::ChangeKindName(c.kind), kind_w, Describe(c), desc_w,
                       evolution::ChangeSeverityName(c.severity()));
  }
  for (const auto& h : d.hints) {
    out += fmt::format("  hint: {} may have been renamed to {} ({})\n", h.from.ToString(),
                       h.to.ToString(), h.reason);
  }
  out += SummaryLine(d) + "\n";
  return out;
}

void OptionalString(JsonWriter& w, const std::optional<std::string>& s) {
  if (s.has_value()) {
    w.String(*s);
  } else {
    w.Null();
  }
}

std::string RenderJson(const SchemaDiff& d, const DiffOptions& opt) {
  JsonFormat f;
  f.indent = 2;
  JsonWriter w(f);
  w.BeginObject();
  w.Key("old").String(opt.old_file);
  w.Key("new").String(opt.new_file);
  w.Key("identical").Bool(d.empty());
  w.Key("changes").BeginArray();
  for (const Change& c : d.changes) {
    w.BeginObject();
    w.Key("path").String(c.path.ToString());
    w.Key("kind").String(evolution::ChangeKindName(c.kind));
    w.Key("from");
    OptionalString(w, c.from);
    w.Key("to");
    OptionalString(w, c.to);
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
  w.EndObject();
  return w.Take() + "\n";
}

std::string RenderGithub(const SchemaDiff& d, const DiffOptions& opt) {
  std::string out;
  for (const Change& c : d.changes) {
    std::string_view level = c.severity() == ChangeSeverity::kBreaking     ? "error"
                             : c.severity() == ChangeSeverity::kCompatible ? "warning"
                                                                           : "notice";
    out += fmt::format(
        "::{} file={},title={}::{}: {} {}\n", level, GithubProperty(opt.new_file),
        GithubProperty("sluice diff " + std::string(evolution::ChangeKindName(c.kind))),
        GithubData(c.path.ToString()), evolution::ChangeKindName(c.kind), GithubData(Describe(c)));
  }
  for (const auto& h : d.hints) {
    out += fmt::format(
        "::notice file={},title=sluice diff rename candidate::{} may have been "
        "renamed to {} ({})\n",
        GithubProperty(opt.new_file), GithubData(h.from.ToString()), GithubData(h.to.ToString()),
        h.reason);
  }
  out += SummaryLine(d) + "\n";
  return out;
}

int RunDiff(const DiffOptions& opt) {
  auto before = LoadSchema(opt.old_file, opt.old_from);
  if (!before.has_value()) return ReportError(before.error());
  auto after = LoadSchema(opt.new_file, opt.new_from);
  if (!after.has_value()) return ReportError(after.error());
  if (!opt.quiet) {
    PrintNotes(before->notes, opt.old_file);
    PrintNotes(after->notes, opt.new_file);
  }
  evolution::DiffOptions dopt;
  dopt.case_sensitive = opt.case_sensitive;
  SchemaDiff d = evolution::Diff(*before->schema, *after->schema, dopt);
  std::string text = opt.format == "json"     ? RenderJson(d, opt)
                     : opt.format == "github" ? RenderGithub(d, opt)
                                              : RenderText(d, opt);
  std::cout << text;
  return d.empty() ? kExitOk : kExitFindings;
}

}  // namespace

void RegisterDiffCommand(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<DiffOptions>();
  CLI::App* diff = app.add_subcommand(
      "diff",
      "Compare two schema versions (in any two languages) down to nested paths. Exit 0 when "
      "identical, 1 when changes were found, 2 on usage or input errors");
  diff->add_option("old", opt->old_file, "The earlier schema")->required();
  diff->add_option("new", opt->new_file, "The later schema")->required();
  diff->add_option("--format", opt->format, "Output: text, json or github (annotations)")
      ->check(CLI::IsMember({"text", "json", "github"}));
  diff->add_flag("--case-sensitive", opt->case_sensitive,
                 "Match field names exactly (default: ignoring case, as Spark does)");
  diff->add_option("--old-from", opt->old_from, "Format of OLD (default: detected)");
  diff->add_option("--new-from", opt->new_from, "Format of NEW (default: detected)");
  diff->add_flag("-q,--quiet", opt->quiet, "Do not print notes about lossy conversion");
  diff->callback([opt, &exit_code] { exit_code = RunDiff(*opt); });
}

}  // namespace sluice::cli
