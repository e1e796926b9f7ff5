#include "sluice/report/drift_render.h"

#include <fmt/format.h>

#include <string_view>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/report/diff_render.h"
#include "sluice/report/render_internal.h"
#include "sluice/table/time_travel.h"

namespace sluice::report {
namespace {

using evolution::Change;
using evolution::ChangeKind;
using evolution::ChangeSeverity;
using evolution::DriftFingerprints;
using evolution::DriftReport;
using evolution::DriftVerdict;
using internal::GithubData;
using internal::GithubProperty;
using internal::Paint;
using internal::Tone;
using internal::ValidUtf8;

// Sources, baselines and reasons come from users and files: a control character in them would
// move a terminal's cursor or split a line, so they are shown escaped.
std::string Clean(std::string_view s) { return EscapeForMessage(s, 1000); }

std::string RulesText(const DriftReport& r) {
  if (!r.rules_detail.empty()) return Clean(r.rules_detail);
  return std::string(evolution::DriftRulesName(r.rules));
}

std::string VerdictText(DriftVerdict verdict, bool color) {
  std::string_view name = evolution::DriftVerdictName(verdict);
  switch (verdict) {
    case DriftVerdict::kBreaking:
      return Paint(name, Tone::kBad, color);
    case DriftVerdict::kUnknown:
      return Paint(name, Tone::kWarn, color);
    case DriftVerdict::kCompatible:
      return Paint(name, Tone::kGood, color);
    case DriftVerdict::kRecorded:
    case DriftVerdict::kUnchanged:
      break;
  }
  return std::string(name);
}

std::string OrNone(std::string_view hash) { return hash.empty() ? "(none)" : std::string(hash); }

// An added field shows its new side, a removed one its old side, anything else both, as
// `sluice diff` describes a change.
std::string Describe(const Change& c) {
  if (c.kind == ChangeKind::kFieldAdded) return c.to.value_or("");
  if (c.kind == ChangeKind::kFieldRemoved) return c.from.value_or("");
  return c.from.value_or("(none)") + " -> " + c.to.value_or("(none)");
}

std::string TextHeader(const DriftReport& r, bool color) {
  return fmt::format("source:   {} ({})\nbaseline: {} ({})\nverdict:  {}\nrules:    {}\n",
                     Clean(r.source), Clean(r.source_kind), Clean(r.baseline),
                     Clean(r.baseline_kind), VerdictText(r.verdict, color), RulesText(r));
}

std::string TextReasons(const DriftReport& r, std::string_view title) {
  if (r.reasons.empty()) return "";
  std::string out = fmt::format("{}:\n", title);
  for (const auto& reason : r.reasons) {
    out += "  ";
    if (!reason.path.empty()) out += Clean(reason.path) + ": ";
    out += Clean(reason.message);
    if (!reason.rule.empty()) out += " [" + Clean(reason.rule) + "]";
    out += "\n";
  }
  return out;
}

std::string TextFingerprints(const DriftReport& r) {
  return fmt::format("sha256:    {} -> {}\nspark-md5: {} -> {}\n", OrNone(r.before.sha256),
                     OrNone(r.after.sha256), OrNone(r.before.spark_md5), OrNone(r.after.spark_md5));
}

std::string TextMoved(const DriftReport& r) {
  if (!r.baseline_moved) return "";
  if (r.accepted_by.empty()) return "baseline moved to the new schema\n";
  return fmt::format("baseline moved to the new schema, accepted by {}\n", Clean(r.accepted_by));
}

std::string RenderText(const DriftReport& r, const RenderOptions& options) {
  switch (r.verdict) {
    case DriftVerdict::kRecorded:
      return fmt::format("baseline recorded: {}\n", OrNone(r.after.sha256));
    case DriftVerdict::kUnchanged:
      return fmt::format("unchanged: {} matches its baseline ({})\n", Clean(r.source),
                         OrNone(r.after.sha256.empty() ? r.after.spark_md5 : r.after.sha256));
    case DriftVerdict::kUnknown: {
      // The seed's alert: the baseline is a bare hash, so the best we can say is what the
      // schema is now, field by field, as the seed lists them.
      std::string out = TextHeader(r, options.color);
      out += TextReasons(r, "why it cannot be judged");
      out += "fields now:\n";
      for (const auto& f : r.fields) {
        out += fmt::format("  - {}: {}\n", Clean(f.name), Clean(f.type));
      }
      out += TextFingerprints(r);
      out += TextMoved(r);
      return out;
    }
    case DriftVerdict::kCompatible:
    case DriftVerdict::kBreaking:
      break;
  }
  std::string out = TextHeader(r, options.color);
  out += RenderChangeLines(r.diff, "  ", options);
  out += RenderDiffSummary(r.diff, options) + "\n";
  out += TextReasons(r, "why it breaks");
  out += TextFingerprints(r);
  out += TextMoved(r);
  return out;
}

std::string_view ChangeLevel(const DriftReport& r, ChangeSeverity severity) {
  switch (severity) {
    case ChangeSeverity::kBreaking:
      // The rules may allow a change that breaks some readers (a NONE subject): a warning then.
      return r.verdict == DriftVerdict::kBreaking ? "error" : "warning";
    case ChangeSeverity::kCompatible:
      return "warning";
    case ChangeSeverity::kCosmetic:
      return "notice";
  }
  return "notice";
}

// A log viewer shows annotations as they are: control characters and bad bytes are escaped
// before the workflow-command escaping.
std::string Data(std::string_view s) { return GithubData(Clean(s)); }

std::string RenderGithub(const DriftReport& r) {
  std::string file = GithubProperty(Clean(r.source));
  std::string out;
  switch (r.verdict) {
    case DriftVerdict::kRecorded:
      out += fmt::format("::notice file={},title=sluice drift baseline recorded::{}\n", file,
                         OrNone(r.after.sha256));
      return out;
    case DriftVerdict::kUnchanged:
      return fmt::format("drift: {} unchanged\n", Data(r.source));
    case DriftVerdict::kUnknown:
      out += fmt::format(
          "::warning file={},title=sluice drift unknown::the baseline holds only a hash "
          "(spark-md5 {}); the schema now has {} fields\n",
          file, Data(OrNone(r.before.spark_md5)), r.fields.size());
      break;
    case DriftVerdict::kCompatible:
    case DriftVerdict::kBreaking:
      break;
  }
  for (const auto& reason : r.reasons) {
    std::string title = "sluice drift " + (reason.rule.empty() ? "breaking" : Clean(reason.rule));
    std::string where = reason.path.empty() ? "" : reason.path + ": ";
    out += fmt::format("::error file={},title={}::{}{}\n", file, GithubProperty(title), Data(where),
                       Data(reason.message));
  }
  for (const Change& c : r.diff.changes) {
    std::string_view kind = evolution::ChangeKindName(c.kind);
    out += fmt::format("::{} file={},title={}::{}: {} {}\n", ChangeLevel(r, c.severity()), file,
                       GithubProperty("sluice drift " + std::string(kind)), Data(c.path.ToString()),
                       kind, Data(Describe(c)));
  }
  out += fmt::format("drift: {} ({}), {}\n", evolution::DriftVerdictName(r.verdict),
                     GithubData(RulesText(r)), RenderDiffSummary(r.diff));
  return out;
}

// Strings in the body are what the report holds, made valid UTF-8; an empty optional string is
// null so receivers can tell "none" from a value.
void Str(JsonWriter& w, std::string_view key, std::string_view value) {
  w.Key(key).String(ValidUtf8(value));
}

void StrOrNull(JsonWriter& w, std::string_view key, std::string_view value) {
  w.Key(key);
  if (value.empty()) {
    w.Null();
  } else {
    w.String(ValidUtf8(value));
  }
}

void OptStr(JsonWriter& w, std::string_view key, const std::optional<std::string>& value) {
  w.Key(key);
  if (value.has_value()) {
    w.String(ValidUtf8(*value));
  } else {
    w.Null();
  }
}

void WriteFingerprints(JsonWriter& w, std::string_view key, const DriftFingerprints& f) {
  w.Key(key).BeginObject();
  StrOrNull(w, "sha256", f.sha256);
  StrOrNull(w, "sparkMd5", f.spark_md5);
  w.EndObject();
}

void WriteChanges(JsonWriter& w, const evolution::SchemaDiff& diff) {
  w.Key("changes").BeginArray();
  for (const Change& c : diff.changes) {
    w.BeginObject();
    Str(w, "path", c.path.ToString());
    w.Key("kind").String(evolution::ChangeKindName(c.kind));
    w.Key("severity").String(evolution::ChangeSeverityName(c.severity()));
    OptStr(w, "from", c.from);
    OptStr(w, "to", c.to);
    w.EndObject();
  }
  w.EndArray();
  w.Key("hints").BeginArray();
  for (const auto& h : diff.hints) {
    w.BeginObject();
    Str(w, "from", h.from.ToString());
    Str(w, "to", h.to.ToString());
    Str(w, "reason", h.reason);
    w.EndObject();
  }
  w.EndArray();
  w.Key("summary").BeginObject();
  w.Key("total").Int(static_cast<int64_t>(diff.changes.size()));
  w.Key("breaking").Int(diff.CountBySeverity(ChangeSeverity::kBreaking));
  w.Key("compatible").Int(diff.CountBySeverity(ChangeSeverity::kCompatible));
  w.Key("cosmetic").Int(diff.CountBySeverity(ChangeSeverity::kCosmetic));
  w.EndObject();
}

}  // namespace

std::string WebhookBody(const DriftReport& r) {
  JsonWriter w;
  w.BeginObject();
  Str(w, "alertId", r.alert_id);
  Str(w, "source", r.source);
  Str(w, "sourceKind", r.source_kind);
  Str(w, "baseline", r.baseline);
  Str(w, "baselineKind", r.baseline_kind);
  w.Key("verdict").String(evolution::DriftVerdictName(r.verdict));
  w.Key("rules").String(evolution::DriftRulesName(r.rules));
  Str(w, "rulesDetail", r.rules_detail);
  w.Key("checkedAt").String(table::FormatTimestampMs(r.checked_ms));
  WriteFingerprints(w, "before", r.before);
  WriteFingerprints(w, "after", r.after);
  WriteChanges(w, r.diff);
  w.Key("reasons").BeginArray();
  for (const auto& reason : r.reasons) {
    w.BeginObject();
    Str(w, "path", reason.path);
    Str(w, "rule", reason.rule);
    Str(w, "message", reason.message);
    w.EndObject();
  }
  w.EndArray();
  w.Key("fields").BeginArray();
  for (const auto& f : r.fields) {
    w.BeginObject();
    Str(w, "name", f.name);
    Str(w, "type", f.type);
    w.Key("nullable").Bool(f.nullable);
    w.EndObject();
  }
  w.EndArray();
  w.Key("baselineMoved").Bool(r.baseline_moved);
  StrOrNull(w, "acceptedBy", r.accepted_by);
  StrOrNull(w, "link", r.link);
  w.EndObject();
  return w.Take();
}

std::string AlertLogLine(const DriftReport& report) { return WebhookBody(report) + "\n"; }

EmailText EmailMessage(const DriftReport& r) {
  // The subject is a mail header: EscapeForMessage leaves no CR or LF to inject another header.
  std::string source = EscapeForMessage(r.source, 200);
  EmailText mail;
  switch (r.verdict) {
    case DriftVerdict::kRecorded:
      mail.subject = "[sluice] schema baseline recorded: " + source;
      break;
    case DriftVerdict::kUnchanged:
      mail.subject = "[sluice] schema unchanged: " + source;
      break;
    case DriftVerdict::kCompatible:
      mail.subject = "[sluice] compatible schema change: " + source;
      break;
    case DriftVerdict::kBreaking:
      mail.subject = "[sluice] breaking schema change: " + source;
      break;
    case DriftVerdict::kUnknown:
      mail.subject = "[sluice] schema change of unknown impact: " + source;
      break;
  }
  mail.body = RenderText(r, RenderOptions{});
  if (!r.link.empty()) mail.body += "\nlink: " + Clean(r.link) + "\n";
  return mail;
}

Result<std::string> Render(const DriftReport& report, Format format, const RenderOptions& options) {
  switch (format) {
    case Format::kText:
      return RenderText(report, options);
    case Format::kJson:
      return AlertLogLine(report);
    case Format::kGithub:
      return RenderGithub(report);
    case Format::kSlack:
      return SlackMessage(report) + "\n";
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("a drift report", format));
}

}  // namespace sluice::report
