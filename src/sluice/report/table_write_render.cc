#include "sluice/report/table_write_render.h"

#include <fmt/format.h>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/report/data_render.h"

namespace sluice::report {
namespace {

std::string_view OutcomeName(table::WriteOutcome o) {
  switch (o) {
    case table::WriteOutcome::kCommitted:
      return "committed";
    case table::WriteOutcome::kRejected:
      return "rejected";
    case table::WriteOutcome::kSkipped:
      return "skipped";
  }
  return "committed";
}

std::string Text(const table::TableWriteResult& r, std::string_view path) {
  std::string out;
  switch (r.outcome) {
    case table::WriteOutcome::kCommitted:
      out += fmt::format(
          "{}: {} version {}: {} rows in {} files ({} bytes){}\n", path,
          r.created ? "created at" : "committed", r.version, r.rows_written, r.files_added,
          r.bytes_written,
          r.files_removed > 0 ? fmt::format(", {} files removed", r.files_removed) : std::string());
      break;
    case table::WriteOutcome::kRejected:
      out += fmt::format("{}: write rejected, nothing committed (table at version {})\n", path,
                         r.read_version);
      out += fmt::format("  {}\n", r.rejection);
      for (size_t i = 1; i < r.violations.size(); ++i) {
        const auto& v = r.violations[i];
        out += fmt::format("  {}{}{}\n", v.error_class.empty() ? "" : "[" + v.error_class + "] ",
                           v.message, v.path.empty() ? "" : " (at " + v.path.ToString() + ")");
      }
      for (const auto& v : r.violations) {
        if (!v.hint.empty()) out += fmt::format("  hint: {}: {}\n", v.path.ToString(), v.hint);
      }
      break;
    case table::WriteOutcome::kSkipped:
      out += fmt::format(
          "{}: skipped: this transaction version is already in the table "
          "(version {})\n",
          path, r.version);
      return out;
  }
  if (r.outcome == table::WriteOutcome::kCommitted &&
      r.verdict == evolution::MergeVerdict::kEvolved && !r.created) {
    out += "  schema evolved:\n";
  }
  if (!r.created && r.outcome == table::WriteOutcome::kCommitted) {
    for (const auto& c : r.changes) {
      if (c.kind == evolution::TableChangeKind::kFilledWithNull ||
          c.kind == evolution::TableChangeKind::kValuesCast ||
          c.kind == evolution::TableChangeKind::kNameCaseNormalized) {
        continue;
      }
      std::string change = c.from.empty() ? c.to
                           : c.to.empty() ? c.from
                                          : fmt::format("{} -> {}", c.from, c.to);
      out += fmt::format("    {} {}: {}\n", evolution::TableChangeKindName(c.kind),
                         c.path.ToString(), change);
    }
  }
  const data::ValidateReport& v = r.report;
  // A refused write's records went nowhere: its pass was undone.
  if (r.outcome == table::WriteOutcome::kRejected) return out;
  out += fmt::format("  records: {} in, {} valid, {} rescued, {} quarantined", v.records_in,
                     v.valid, v.rescued, v.quarantined + r.constraint_quarantined);
  if (r.constraint_quarantined > 0) {
    out += fmt::format(" ({} for constraints)", r.constraint_quarantined);
  }
  out += "\n";
  if (r.commit.checkpoint_version) {
    out += fmt::format("  checkpoint written at version {}\n", *r.commit.checkpoint_version);
  }
  if (r.commit.checkpoint_warning) {
    out += fmt::format("  warning: no checkpoint: {}\n", *r.commit.checkpoint_warning);
  }
  return out;
}

Result<std::string> Json(const table::TableWriteResult& r, std::string_view path) {
  JsonWriter w;
  w.BeginObject();
  w.Key("table").String(path);
  w.Key("outcome").String(OutcomeName(r.outcome));
  w.Key("created").Bool(r.created);
  w.Key("read_version").Int(r.read_version);
  if (r.version >= 0 && r.outcome != table::WriteOutcome::kRejected) {
    w.Key("version").Int(r.version);
  } else {
    w.Key("version").Null();
  }
  w.Key("verdict").String(evolution::MergeVerdictName(r.verdict));
  if (r.outcome == table::WriteOutcome::kRejected) {
    w.Key("rejection").String(r.rejection);
  }
  w.Key("changes").BeginArray();
  for (const auto& c : r.changes) {
    w.BeginObject();
    w.Key("kind").String(evolution::TableChangeKindName(c.kind));
    w.Key("path").String(c.path.ToString());
    w.Key("from").String(c.from);
    w.Key("to").String(c.to);
    if (!c.note.empty()) w.Key("note").String(c.note);
    w.EndObject();
  }
  w.EndArray();
  w.Key("violations").BeginArray();
  for (const auto& v : r.violations) {
    w.BeginObject();
    w.Key("path").String(v.path.ToString());
    w.Key("error_class").String(v.error_class);
    w.Key("message").String(v.message);
    if (!v.hint.empty()) w.Key("hint").String(v.hint);
    w.EndObject();
  }
  w.EndArray();
  if (r.constraint_failure) {
    w.Key("constraint").BeginObject();
    w.Key("name").String(r.constraint_failure->name);
    w.Key("expression").String(r.constraint_failure->expression);
    w.Key("values").BeginObject();
    for (const auto& [column, value] : r.constraint_failure->values) w.Key(column).Raw(value);
    w.EndObject();
    w.EndObject();
  }
  w.Key("rows_written").Uint(r.rows_written);
  w.Key("files_added").Uint(r.files_added);
  w.Key("files_removed").Uint(r.files_removed);
  w.Key("bytes_written").Uint(r.bytes_written);
  w.Key("constraint_quarantined").Uint(r.constraint_quarantined);
  if (r.commit.checkpoint_version) w.Key("checkpoint_version").Int(*r.commit.checkpoint_version);
  w.Key("commit_attempts").Int(r.commit.attempts);
  SLUICE_ASSIGN_OR_RETURN(std::string report, Render(r.report, Format::kJson));
  w.Key("records").Raw(report);
  w.EndObject();
  std::string out = w.Take();
  out += '\n';
  return out;
}

}  // namespace

Result<std::string> Render(const table::TableWriteResult& result, std::string_view path,
                           Format format, const RenderOptions&) {
  switch (format) {
    case Format::kText:
      return Text(result, path);
    case Format::kJson:
      return Json(result, path);
    case Format::kGithub:
    case Format::kSlack:
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("a table write", format));
}

}  // namespace sluice::report
