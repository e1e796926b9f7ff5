// The chat messages of a drift alert: Slack (Block Kit) and Microsoft Teams (Adaptive Card).
// Both carry names from users' schemas to a shared channel, so every such name is shown inert
// (escaped, quoted, one line, bounded) and the message stays within the service's limits
// however many changes the report holds.
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/report/drift_render.h"
#include "sluice/table/time_travel.h"

namespace sluice::report {
namespace {

using evolution::Change;
using evolution::ChangeKind;
using evolution::ChangeSeverity;
using evolution::DriftReport;
using evolution::DriftVerdict;

constexpr size_t kMaxRows = 20;         // change rows and fields shown in a chat message
constexpr size_t kMaxReasons = 10;      // reasons shown in a chat message
constexpr size_t kCell = 80;            // bytes of one name or type before "..."
constexpr size_t kHeaderLimit = 150;    // Slack: a header block's text
constexpr size_t kTextLimit = 3000;     // Slack: a section's or context element's text
constexpr size_t kUrlLimit = 3000;      // Slack: a button's url
constexpr size_t kFallbackLimit = 300;  // the notification text: a line, not a document

// One line of at most about `max` bytes, control characters and invalid UTF-8 escaped.
std::string Line(std::string_view s, size_t max = kCell) { return EscapeForMessage(s, max); }

// Slack reads &, < and > as the start of an entity, a link or a mention (`<!channel>`).
std::string SlackEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// User text in a code span, where Slack applies no formatting (*bold*, _italic_, :emoji:). A
// backquote would close the span early, so it becomes a look-alike (U+02CB).
std::string SlackCode(std::string_view s, size_t max = kCell) {
  std::string line = Line(s, max);
  if (line.empty()) return "(empty)";
  std::string out = "`";
  for (char c : SlackEscape(line)) {
    if (c == '`') {
      out += "\xCB\x8B";
    } else {
      out += c;
    }
  }
  out += "`";
  return out;
}

// `text` cut to at most `limit` bytes (so at most `limit` characters), never inside a UTF-8
// sequence or an entity such as "&amp;", with "..." marking the cut.
std::string Fit(std::string text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t cut = limit - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  size_t amp = text.rfind('&', cut);
  if (amp != std::string::npos && cut - amp < 5 && text.find(';', amp) >= cut) cut = amp;
  text.resize(cut);
  return text + "...";
}

std::string_view VerdictBadge(DriftVerdict verdict) {
  switch (verdict) {
    case DriftVerdict::kBreaking:
      return ":rotating_light: breaking";
    case DriftVerdict::kCompatible:
      return ":white_check_mark: compatible";
    case DriftVerdict::kUnknown:
      return ":grey_question: unknown";
    case DriftVerdict::kRecorded:
      return ":pushpin: baseline recorded";
    case DriftVerdict::kUnchanged:
      return ":white_check_mark: unchanged";
  }
  return ":grey_question: unknown";
}

std::string_view SeverityDot(ChangeSeverity severity) {
  switch (severity) {
    case ChangeSeverity::kBreaking:
      return ":red_circle:";
    case ChangeSeverity::kCompatible:
      return ":large_green_circle:";
    case ChangeSeverity::kCosmetic:
      return ":white_circle:";
  }
  return ":white_circle:";
}

std::string Title(const DriftReport& r) {
  switch (r.verdict) {
    case DriftVerdict::kRecorded:
      return "Schema baseline recorded: " + Line(r.source, 200);
    case DriftVerdict::kUnchanged:
      return "Schema unchanged: " + Line(r.source, 200);
    case DriftVerdict::kCompatible:
    case DriftVerdict::kBreaking:
    case DriftVerdict::kUnknown:
      break;
  }
  return "Schema change: " + Line(r.source, 200);
}

std::string RulesText(const DriftReport& r) {
  if (!r.rules_detail.empty()) return Line(r.rules_detail, 300);
  return std::string(evolution::DriftRulesName(r.rules));
}

std::string CountText(const evolution::SchemaDiff& d) {
  return fmt::format("{} ({} breaking, {} compatible, {} cosmetic)", d.changes.size(),
                     d.CountBySeverity(ChangeSeverity::kBreaking),
                     d.CountBySeverity(ChangeSeverity::kCompatible),
                     d.CountBySeverity(ChangeSeverity::kCosmetic));
}

// A button needs a URL Slack accepts, or the whole message is refused: http(s), bounded, with
// nothing that ends or splits a link (ASCII only: a browser's IRI is Slack's problem, not ours).
bool IsPlainUrl(std::string_view url) {
  if (!url.starts_with("https://") && !url.starts_with("http://")) return false;
  if (url.size() > kUrlLimit) return false;
  for (char c : url) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == '<' || c == '>' || c == '|' || c == '"') return false;
  }
  return true;
}

// The from/to part of a change row, as `sluice diff` describes a change.
std::string SlackChangeSides(const Change& c) {
  if (c.kind == ChangeKind::kFieldAdded) return SlackCode(c.to.value_or(""));
  if (c.kind == ChangeKind::kFieldRemoved) return SlackCode(c.from.value_or(""));
  return SlackCode(c.from.value_or("(none)")) + " \xE2\x86\x92 " +
         SlackCode(c.to.value_or("(none)"));
}

// Lines packed into as few section texts as fit Slack's limit; the title starts the first.
std::vector<std::string> Pack(std::string_view title, const std::vector<std::string>& lines) {
  std::vector<std::string> texts{std::string(title)};
  for (const std::string& line : lines) {
    std::string fitted = Fit(line, kTextLimit - 1);
    if (texts.back().size() + 1 + fitted.size() > kTextLimit) texts.emplace_back();
    if (!texts.back().empty()) texts.back() += "\n";
    texts.back() += fitted;
  }
  return texts;
}

void PlainText(JsonWriter& w, std::string_view text) {
  w.BeginObject();
  w.Key("type").String("plain_text");
  w.Key("text").String(text);
  w.Key("emoji").Bool(true);
  w.EndObject();
}

void Mrkdwn(JsonWriter& w, std::string_view text) {
  w.BeginObject();
  w.Key("type").String("mrkdwn");
  w.Key("text").String(text);
  // Names are already quoted; verbatim also stops Slack linking channel names and URLs in them.
  w.Key("verbatim").Bool(true);
  w.EndObject();
}

void Section(JsonWriter& w, std::string_view text) {
  w.BeginObject();
  w.Key("type").String("section");
  w.Key("text");
  Mrkdwn(w, Fit(std::string(text), kTextLimit));
  w.EndObject();
}

void Context(JsonWriter& w, const std::vector<std::string>& texts) {
  w.BeginObject();
  w.Key("type").String("context");
  w.Key("elements").BeginArray();
  for (const std::string& t : texts) Mrkdwn(w, Fit(t, kTextLimit));
  w.EndArray();
  w.EndObject();
}

std::string More(size_t shown, size_t total, std::string_view what) {
  return fmt::format("\xE2\x80\xA6 and {} more {}", total - shown, what);
}

void SlackChanges(JsonWriter& w, const DriftReport& r) {
  const auto& changes = r.diff.changes;
  if (changes.empty()) return;
  std::vector<std::string> rows;
  for (size_t i = 0; i < changes.size() && i < kMaxRows; ++i) {
    const Change& c = changes[i];
    rows.push_back(fmt::format("{} {} {}: {}", SeverityDot(c.severity()),
                               SlackCode(c.path.ToString()), evolution::ChangeKindName(c.kind),
                               SlackChangeSides(c)));
  }
  for (const std::string& text : Pack("*Changes*", rows)) Section(w, text);
  if (changes.size() > kMaxRows) Context(w, {More(kMaxRows, changes.size(), "changes")});
}

void SlackReasons(JsonWriter& w, const DriftReport& r, std::string_view title) {
  if (r.reasons.empty()) return;
  std::vector<std::string> rows;
  for (size_t i = 0; i < r.reasons.size() && i < kMaxReasons; ++i) {
    const auto& reason = r.reasons[i];
    std::string row = "\xE2\x80\xA2 ";
    if (!reason.path.empty()) row += SlackCode(reason.path) + ": ";
    row += SlackEscape(Line(reason.message, 300));
    if (!reason.rule.empty()) row += " " + SlackCode(reason.rule, 60);
    rows.push_back(std::move(row));
  }
  for (const std::string& text : Pack(title, rows)) Section(w, text);
  if (r.reasons.size() > kMaxReasons) {
    Context(w, {More(kMaxReasons, r.reasons.size(), "reasons")});
  }
}

void SlackFields(JsonWriter& w, const DriftReport& r) {
  std::vector<std::string> rows;
  for (size_t i = 0; i < r.fields.size() && i < kMaxRows; ++i) {
    const auto& f = r.fields[i];
    rows.push_back(fmt::format("\xE2\x80\xA2 {}: {}{}", SlackCode(f.name), SlackCode(f.type),
                               f.nullable ? "" : " not null"));
  }
  for (const std::string& text : Pack("*Fields now*", rows)) Section(w, text);
  if (r.fields.size() > kMaxRows) Context(w, {More(kMaxRows, r.fields.size(), "fields")});
}

std::string HashPair(std::string_view name, std::string_view before, std::string_view after) {
  return fmt::format("{} {} \xE2\x86\x92 {}", name, before.empty() ? "(none)" : SlackCode(before),
                     after.empty() ? "(none)" : SlackCode(after));
}

std::string SlackFallback(const DriftReport& r) {
  std::string text = SlackEscape(Title(r));
  if (r.changed()) {
    text += fmt::format(" ({}", evolution::DriftVerdictName(r.verdict));
    if (!r.diff.empty()) {
      text += fmt::format(", {} change{}", r.diff.changes.size(),
                          r.diff.changes.size() == 1 ? "" : "s");
    }
    text += ")";
  }
  return Fit(std::move(text), kFallbackLimit);
}

// Teams reads every TextBlock and fact as Markdown: a name such as `[x](https://...)` would
// become a link and `*x*` bold. Escaping the two that matter keeps names inert; clients that
// ignore escapes show a stray backslash, which is harmless. Underscores are common in names and
// inside a word do not italicize, so they are left alone.
std::string TeamsInert(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '*') {
      out += "\\*";
    } else if (s[i] == '(' && i > 0 && s[i - 1] == ']') {
      out += "\\(";
    } else {
      out += s[i];
    }
  }
  return out;
}

// Teams: the fact titles and values.
struct Fact {
  std::string title;
  std::string value;
};

void FactSet(JsonWriter& w, const std::vector<Fact>& facts) {
  w.BeginObject();
  w.Key("type").String("FactSet");
  w.Key("facts").BeginArray();
  for (const Fact& f : facts) {
    w.BeginObject();
    w.Key("title").String(TeamsInert(f.title));
    w.Key("value").String(TeamsInert(f.value));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void TextBlock(JsonWriter& w, std::string_view text, std::string_view weight = "",
               std::string_view color = "", std::string_view size = "") {
  w.BeginObject();
  w.Key("type").String("TextBlock");
  w.Key("text").String(TeamsInert(text));
  w.Key("wrap").Bool(true);
  if (!weight.empty()) w.Key("weight").String(weight);
  if (!color.empty()) w.Key("color").String(color);
  if (!size.empty()) w.Key("size").String(size);
  w.EndObject();
}

std::string_view TeamsColor(DriftVerdict verdict) {
  switch (verdict) {
    case DriftVerdict::kBreaking:
      return "Attention";
    case DriftVerdict::kCompatible:
    case DriftVerdict::kUnchanged:
      return "Good";
    case DriftVerdict::kUnknown:
      return "Warning";
    case DriftVerdict::kRecorded:
      break;
  }
  return "Default";
}

std::string OrNone(std::string_view s) { return s.empty() ? "(none)" : std::string(s); }

std::string TeamsSides(const Change& c) {
  if (c.kind == ChangeKind::kFieldAdded) return Line(c.to.value_or(""));
  if (c.kind == ChangeKind::kFieldRemoved) return Line(c.from.value_or(""));
  return Line(c.from.value_or("(none)")) + " \xE2\x86\x92 " + Line(c.to.value_or("(none)"));
}

void TeamsBody(JsonWriter& w, const DriftReport& r) {
  TextBlock(w, Title(r), "Bolder", "", "Large");
  TextBlock(w, std::string("Verdict: ") + std::string(evolution::DriftVerdictName(r.verdict)),
            "Bolder", TeamsColor(r.verdict));
  std::vector<Fact> facts = {
      {"Source", Line(r.source, 200) + " (" + Line(r.source_kind, 40) + ")"},
      {"Baseline", Line(r.baseline, 200) + " (" + Line(r.baseline_kind, 40) + ")"},
      {"Rules", RulesText(r)},
      {"Checked at", table::FormatTimestampMs(r.checked_ms)},
      {"sha256", OrNone(r.before.sha256) + " \xE2\x86\x92 " + OrNone(r.after.sha256)},
      {"spark-md5", OrNone(r.before.spark_md5) + " \xE2\x86\x92 " + OrNone(r.after.spark_md5)},
  };
  if (r.baseline_moved) {
    facts.push_back({"Baseline moved", r.accepted_by.empty() ? "yes" : Line(r.accepted_by)});
  }
  FactSet(w, facts);
  if (!r.diff.empty()) {
    TextBlock(w, "Changes: " + CountText(r.diff), "Bolder");
    std::vector<Fact> rows;
    for (size_t i = 0; i < r.diff.changes.size() && i < kMaxRows; ++i) {
      const Change& c = r.diff.changes[i];
      rows.push_back({Line(c.path.ToString()),
                      fmt::format("{}: {} ({})", evolution::ChangeKindName(c.kind), TeamsSides(c),
                                  evolution::ChangeSeverityName(c.severity()))});
    }
    FactSet(w, rows);
    if (r.diff.changes.size() > kMaxRows) {
      TextBlock(w, More(kMaxRows, r.diff.changes.size(), "changes"));
    }
  }
  if (!r.reasons.empty()) {
    TextBlock(w, r.verdict == DriftVerdict::kBreaking ? "Why it breaks" : "Notes", "Bolder");
    for (size_t i = 0; i < r.reasons.size() && i < kMaxReasons; ++i) {
      const auto& reason = r.reasons[i];
      std::string where = reason.path.empty() ? "" : Line(reason.path) + ": ";
      TextBlock(w, "- " + where + Line(reason.message, 300));
    }
    if (r.reasons.size() > kMaxReasons) {
      TextBlock(w, More(kMaxReasons, r.reasons.size(), "reasons"));
    }
  }
  if (r.verdict == DriftVerdict::kUnknown) {
    TextBlock(w, "Fields now", "Bolder");
    std::vector<Fact> rows;
    for (size_t i = 0; i < r.fields.size() && i < kMaxRows; ++i) {
      const auto& f = r.fields[i];
      rows.push_back({Line(f.name), Line(f.type) + (f.nullable ? "" : " not null")});
    }
    FactSet(w, rows);
    if (r.fields.size() > kMaxRows) TextBlock(w, More(kMaxRows, r.fields.size(), "fields"));
  }
}

}  // namespace

std::string SlackMessage(const DriftReport& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("text").String(SlackFallback(r));
  w.Key("blocks").BeginArray();

  w.BeginObject();
  w.Key("type").String("header");
  w.Key("text");
  PlainText(w, Fit(SlackEscape(Title(r)), kHeaderLimit));
  w.EndObject();

  std::string summary = fmt::format(
      "*Verdict:* {}\n*Rules:* {}\n*Source:* {} ({})\n*Baseline:* {} ({})", VerdictBadge(r.verdict),
      SlackEscape(RulesText(r)), SlackCode(r.source, 200), SlackEscape(Line(r.source_kind, 40)),
      SlackCode(r.baseline, 200), SlackEscape(Line(r.baseline_kind, 40)));
  if (!r.diff.empty()) summary += "\n*Changes:* " + CountText(r.diff);
  Section(w, summary);

  SlackReasons(w, r, r.verdict == DriftVerdict::kBreaking ? "*Why it breaks*" : "*Notes*");
  SlackChanges(w, r);
  if (r.verdict == DriftVerdict::kUnknown) SlackFields(w, r);

  std::vector<std::string> context = {
      HashPair("sha256", r.before.sha256, r.after.sha256),
      HashPair("spark-md5", r.before.spark_md5, r.after.spark_md5),
      "checked " + table::FormatTimestampMs(r.checked_ms, false, ' '),
  };
  if (r.baseline_moved) {
    context.push_back(r.accepted_by.empty()
                          ? std::string("baseline moved")
                          : "baseline moved by " + SlackEscape(Line(r.accepted_by, 100)));
  }
  Context(w, context);

  if (IsPlainUrl(r.link)) {
    w.BeginObject();
    w.Key("type").String("actions");
    w.Key("elements").BeginArray();
    w.BeginObject();
    w.Key("type").String("button");
    w.Key("text");
    PlainText(w, "Open");
    w.Key("url").String(r.link);
    w.EndObject();
    w.EndArray();
    w.EndObject();
  } else if (!r.link.empty()) {
    Context(w, {"link: " + SlackCode(r.link, 500)});
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

std::string TeamsMessage(const DriftReport& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("type").String("message");
  w.Key("attachments").BeginArray();
  w.BeginObject();
  w.Key("contentType").String("application/vnd.microsoft.card.adaptive");
  w.Key("contentUrl").Null();
  w.Key("content").BeginObject();
  w.Key("$schema").String("http://adaptivecards.io/schemas/adaptive-card.json");
  w.Key("type").String("AdaptiveCard");
  w.Key("version").String("1.4");
  w.Key("msteams").BeginObject().Key("width").String("Full").EndObject();
  w.Key("body").BeginArray();
  TeamsBody(w, r);
  w.EndArray();
  if (IsPlainUrl(r.link)) {
    w.Key("actions").BeginArray();
    w.BeginObject();
    w.Key("type").String("Action.OpenUrl");
    w.Key("title").String("Open");
    w.Key("url").String(r.link);
    w.EndObject();
    w.EndArray();
  }
  w.EndObject();
  w.EndObject();
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace sluice::report
