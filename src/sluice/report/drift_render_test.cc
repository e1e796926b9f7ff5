#include "sluice/report/drift_render.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/report/diff_render.h"
#include "sluice_test_paths.h"

namespace sluice::report {
namespace {

namespace fs = std::filesystem;
using evolution::Change;
using evolution::ChangeKind;
using evolution::DriftReport;
using evolution::DriftRules;
using evolution::DriftVerdict;

const fs::path kGolden = fs::path(SLUICE_SOURCE_DIR) / "src/sluice/report/testdata/drift";
constexpr int64_t kCheckedMs = 1700000000123;  // 2023-11-14T22:13:20.123Z

// The seed 000 payments schemas: v1 as first seen, v2 with the new nullable settlement_method,
// v3 where amount became a string.
constexpr std::string_view kV1 =
    "transaction_id BIGINT NOT NULL, amount BIGINT NOT NULL, `timestamp` BIGINT NOT NULL";
constexpr std::string_view kV2 =
    "transaction_id BIGINT NOT NULL, amount BIGINT NOT NULL, `timestamp` BIGINT NOT NULL, "
    "settlement_method STRING";
constexpr std::string_view kV3 =
    "transaction_id BIGINT NOT NULL, amount STRING NOT NULL, `timestamp` BIGINT NOT NULL, "
    "settlement_method STRING";

schema::SchemaPtr Ddl(std::string_view ddl) {
  auto s = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return s->value;
}

// A report as `sluice drift check` fills it; the verdict and reasons are set by hand here.
DriftReport Check(std::string_view before_ddl, std::string_view after_ddl, DriftVerdict verdict) {
  schema::SchemaPtr before = Ddl(before_ddl);
  schema::SchemaPtr after = Ddl(after_ddl);
  DriftReport r;
  r.source = "s3://data/payments/";
  r.source_kind = "data";
  r.baseline = "payments.baseline.json";
  r.baseline_kind = "file";
  r.before = evolution::FingerprintsOf(*before);
  r.after = evolution::FingerprintsOf(*after);
  r.verdict = verdict;
  r.rules = DriftRules::kSeverity;
  r.rules_detail = "change severity";
  r.diff = evolution::Diff(*before, *after);
  r.fields = evolution::DriftFieldsOf(*after);
  r.checked_ms = kCheckedMs;
  r.alert_id = evolution::DriftAlertId(r.source, r.before.sha256, r.after.sha256);
  r.link = "https://runbooks.example.com/payments?alert=" + r.alert_id;
  return r;
}

DriftReport Compatible() { return Check(kV1, kV2, DriftVerdict::kCompatible); }

DriftReport Breaking() {
  DriftReport r = Check(kV2, kV3, DriftVerdict::kBreaking);
  r.reasons.push_back({"amount", "type_changed",
                       "amount changed from int64 to string: readers of int64 cannot read it"});
  return r;
}

// The seed's own baseline: a bare MD5, so only the new schema's fields can be shown.
DriftReport Unknown() {
  DriftReport r = Check(kV1, kV2, DriftVerdict::kUnknown);
  r.baseline = "/tmp/last_schema.txt";
  r.baseline_kind = "md5";
  r.before.sha256.clear();
  r.diff = {};
  r.reasons.push_back({"", "baseline_is_hash", "the baseline holds only an MD5 of the schema"});
  return r;
}

std::string MustRender(const DriftReport& r, Format f, RenderOptions options = {}) {
  auto text = Render(r, f, options);
  EXPECT_TRUE(text.has_value()) << text.error().ToString();
  return text.value_or("");
}

JsonValue MustParse(std::string_view text) {
  EXPECT_TRUE(IsValidUtf8(text));
  auto v = ParseJson(text);
  EXPECT_TRUE(v.has_value()) << v.error().ToString() << "\n" << text.substr(0, 2000);
  return v.value_or(JsonValue());
}

const JsonValue& At(const JsonValue& v, std::string_view key) {
  static const JsonValue kNull;
  const JsonValue* m = v.Find(key);
  EXPECT_NE(m, nullptr) << "no member " << key;
  return m == nullptr ? kNull : *m;
}

std::string Str(const JsonValue& v, std::string_view key) {
  const JsonValue& m = At(v, key);
  EXPECT_TRUE(m.is_string()) << key;
  return m.is_string() ? m.as_string() : "";
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Compare with testdata/drift/<name>; SLUICE_UPDATE_GOLDEN=1 rewrites the file instead.
void ExpectGolden(const std::string& name, const std::string& actual) {
  fs::path path = kGolden / name;
  if (std::getenv("SLUICE_UPDATE_GOLDEN") != nullptr) {
    fs::create_directories(kGolden);
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing; run with SLUICE_UPDATE_GOLDEN=1";
  EXPECT_EQ(actual, Slurp(path)) << "rerun with SLUICE_UPDATE_GOLDEN=1 to accept " << name;
}

// Slack goldens are kept indented so a change reads as a diff; the message itself is one line.
std::string Indented(const std::string& json) {
  JsonFormat f;
  f.indent = 2;
  return ToJson(MustParse(json), f) + "\n";
}

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Every text object in a Slack message, with its limit: 150 in a header, 3000 elsewhere.
void ForEachSlackText(const JsonValue& v, bool in_header,
                      const std::function<void(const std::string&, size_t)>& visit) {
  if (v.is_array()) {
    for (const JsonValue& item : v.items()) ForEachSlackText(item, in_header, visit);
    return;
  }
  if (!v.is_object()) return;
  const JsonValue* type = v.Find("type");
  bool header = type != nullptr && type->is_string() && type->as_string() == "header";
  if (type != nullptr && type->is_string() &&
      (type->as_string() == "mrkdwn" || type->as_string() == "plain_text")) {
    const JsonValue* text = v.Find("text");
    ASSERT_TRUE(text != nullptr && text->is_string());
    visit(text->as_string(), in_header ? 150 : 3000);
  }
  for (const JsonMember& m : v.members()) ForEachSlackText(m.value, in_header || header, visit);
}

// --- text

TEST(DriftRenderTest, TextShowsHeaderChangesAndFingerprints) {
  DriftReport r = Compatible();
  std::string text = MustRender(r, Format::kText);
  EXPECT_TRUE(
      text.starts_with("source:   s3://data/payments/ (data)\n"
                       "baseline: payments.baseline.json (file)\n"
                       "verdict:  compatible\n"
                       "rules:    change severity\n"))
      << text;
  // The change lines are exactly those of `sluice diff`.
  std::string lines = RenderChangeLines(r.diff, "  ");
  EXPECT_NE(lines.find("settlement_method"), std::string::npos);
  EXPECT_NE(text.find(lines + RenderDiffSummary(r.diff) + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("sha256:    " + r.before.sha256 + " -> " + r.after.sha256 + "\n"),
            std::string::npos);
  EXPECT_NE(text.find("spark-md5: " + r.before.spark_md5 + " -> " + r.after.spark_md5 + "\n"),
            std::string::npos);
  ExpectGolden("compatible.txt", text);
}

TEST(DriftRenderTest, TextOfBreakingChangeGivesTheReasons) {
  std::string text = MustRender(Breaking(), Format::kText);
  EXPECT_NE(text.find("verdict:  breaking\n"), std::string::npos);
  EXPECT_NE(text.find("why it breaks:\n  amount: amount changed from int64 to string"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[type_changed]\n"), std::string::npos);
  ExpectGolden("breaking.txt", text);
}

TEST(DriftRenderTest, TextColorsTheVerdictOnlyWhenAsked) {
  RenderOptions color;
  color.color = true;
  EXPECT_NE(MustRender(Breaking(), Format::kText, color).find("\x1b[31mbreaking\x1b[0m"),
            std::string::npos);
  EXPECT_EQ(MustRender(Breaking(), Format::kText).find('\x1b'), std::string::npos);
}

TEST(DriftRenderTest, TextOfRecordedAndUnchangedIsOneLine) {
  DriftReport r = Compatible();
  r.verdict = DriftVerdict::kRecorded;
  r.before = {};
  r.diff = {};
  EXPECT_EQ(MustRender(r, Format::kText), "baseline recorded: " + r.after.sha256 + "\n");
  r.verdict = DriftVerdict::kUnchanged;
  r.before = r.after;
  EXPECT_EQ(MustRender(r, Format::kText),
            "unchanged: s3://data/payments/ matches its baseline (" + r.after.sha256 + ")\n");
}

TEST(DriftRenderTest, TextOfMd5BaselineListsTheFieldsAsTheSeedDoes) {
  DriftReport r = Unknown();
  std::string text = MustRender(r, Format::kText);
  EXPECT_NE(text.find("verdict:  unknown\n"), std::string::npos);
  EXPECT_NE(text.find("fields now:\n"
                      "  - transaction_id: long\n"
                      "  - amount: long\n"
                      "  - timestamp: long\n"
                      "  - settlement_method: string\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("sha256:    (none) -> " + r.after.sha256), std::string::npos);
  EXPECT_NE(text.find("spark-md5: " + r.before.spark_md5 + " -> " + r.after.spark_md5),
            std::string::npos);
  ExpectGolden("unknown.txt", text);
}

TEST(DriftRenderTest, TextSaysWhoMovedTheBaseline) {
  DriftReport r = Compatible();
  r.baseline_moved = true;
  r.accepted_by = "alice";
  EXPECT_NE(
      MustRender(r, Format::kText).find("baseline moved to the new schema, accepted by alice"),
      std::string::npos);
}

TEST(DriftRenderTest, HtmlIsNotSupported) {
  auto html = Render(Compatible(), Format::kHtml);
  ASSERT_FALSE(html.has_value());
  EXPECT_EQ(html.error().code(), ErrorCode::kUnimplemented);
}

// --- JSON (the webhook body)

TEST(DriftRenderTest, JsonIsTheDocumentedWebhookBody) {
  DriftReport r = Compatible();
  std::string body = WebhookBody(r);
  EXPECT_EQ(body.find('\n'), std::string::npos) << "one line, no trailing newline";
  EXPECT_EQ(MustRender(r, Format::kJson), body + "\n");
  EXPECT_EQ(AlertLogLine(r), body + "\n");

  JsonValue v = MustParse(body);
  std::vector<std::string> keys;
  for (const JsonMember& m : v.members()) keys.push_back(m.key);
  EXPECT_EQ(JoinStrings(keys, ","),
            "alertId,source,sourceKind,baseline,baselineKind,verdict,rules,rulesDetail,checkedAt,"
            "before,after,changes,hints,summary,reasons,fields,baselineMoved,acceptedBy,link");
  EXPECT_EQ(Str(v, "alertId"), r.alert_id);
  EXPECT_EQ(Str(v, "alertId").size(), 32u);
  EXPECT_EQ(Str(v, "source"), "s3://data/payments/");
  EXPECT_EQ(Str(v, "sourceKind"), "data");
  EXPECT_EQ(Str(v, "baselineKind"), "file");
  EXPECT_EQ(Str(v, "verdict"), "compatible");
  EXPECT_EQ(Str(v, "rules"), "severity");
  EXPECT_EQ(Str(v, "rulesDetail"), "change severity");
  EXPECT_EQ(Str(v, "checkedAt"), "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(Str(At(v, "before"), "sha256"), r.before.sha256);
  EXPECT_EQ(Str(At(v, "before"), "sparkMd5"), r.before.spark_md5);
  EXPECT_EQ(Str(At(v, "after"), "sha256"), r.after.sha256);
  EXPECT_NE(r.before.sha256, r.after.sha256);

  const JsonValue& changes = At(v, "changes");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(Str(changes.items()[0], "path"), "settlement_method");
  EXPECT_EQ(Str(changes.items()[0], "kind"), "field_added");
  EXPECT_EQ(Str(changes.items()[0], "severity"), "compatible");
  EXPECT_TRUE(At(changes.items()[0], "from").is_null());
  EXPECT_TRUE(At(changes.items()[0], "to").is_string());
  EXPECT_EQ(At(At(v, "summary"), "total").as_int64(), 1);
  EXPECT_EQ(At(v, "reasons").size(), 0u);

  const JsonValue& fields = At(v, "fields");
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(Str(fields.items()[1], "name"), "amount");
  EXPECT_EQ(Str(fields.items()[1], "type"), "long");
  EXPECT_FALSE(At(fields.items()[1], "nullable").as_bool());
  EXPECT_TRUE(At(fields.items()[3], "nullable").as_bool());
  EXPECT_FALSE(At(v, "baselineMoved").as_bool());
  EXPECT_TRUE(At(v, "acceptedBy").is_null());
  EXPECT_EQ(Str(v, "link"), r.link);
}

TEST(DriftRenderTest, JsonOfBreakingChangeCarriesReasonsAndTheTypeChange) {
  JsonValue v = MustParse(WebhookBody(Breaking()));
  EXPECT_EQ(Str(v, "verdict"), "breaking");
  const JsonValue& changes = At(v, "changes");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(Str(changes.items()[0], "path"), "amount");
  EXPECT_EQ(Str(changes.items()[0], "kind"), "type_changed");
  EXPECT_EQ(Str(changes.items()[0], "severity"), "breaking");
  const JsonValue& reasons = At(v, "reasons");
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_EQ(Str(reasons.items()[0], "path"), "amount");
  EXPECT_EQ(Str(reasons.items()[0], "rule"), "type_changed");
  EXPECT_NE(Str(reasons.items()[0], "message").find("int64 to string"), std::string::npos);
  // The example in docs/formats/drift-alert.md.
  ExpectGolden("breaking.webhook.json", Indented(WebhookBody(Breaking())));
}

TEST(DriftRenderTest, JsonGivesNullForMissingFingerprintsAndWhoAccepted) {
  DriftReport r = Unknown();
  r.baseline_moved = true;
  r.accepted_by = "alice";
  JsonValue v = MustParse(WebhookBody(r));
  EXPECT_TRUE(At(At(v, "before"), "sha256").is_null());
  EXPECT_EQ(Str(At(v, "before"), "sparkMd5"), r.before.spark_md5);
  EXPECT_EQ(Str(v, "verdict"), "unknown");
  EXPECT_EQ(Str(v, "baselineKind"), "md5");
  EXPECT_TRUE(At(v, "baselineMoved").as_bool());
  EXPECT_EQ(Str(v, "acceptedBy"), "alice");
  r.link.clear();
  EXPECT_TRUE(At(MustParse(WebhookBody(r)), "link").is_null());
}

// --- GitHub

TEST(DriftRenderTest, GithubAnnotatesBreakingAsErrorsAndCompatibleAsWarnings) {
  std::string breaking = MustRender(Breaking(), Format::kGithub);
  EXPECT_NE(breaking.find("::error file=s3%3A//data/payments/,title=sluice drift "
                          "type_changed::amount: amount changed from int64 to string"),
            std::string::npos)
      << breaking;
  EXPECT_NE(breaking.find("::error file=s3%3A//data/payments/,title=sluice drift "
                          "type_changed::amount: type_changed "),
            std::string::npos)
      << breaking;
  EXPECT_TRUE(
      breaking.ends_with("drift: breaking (change severity), 1 change: 1 breaking, "
                         "0 compatible, 0 cosmetic\n"))
      << breaking;

  std::string compatible = MustRender(Compatible(), Format::kGithub);
  EXPECT_NE(compatible.find("::warning file=s3%3A//data/payments/,title=sluice drift "
                            "field_added::settlement_method: field_added string"),
            std::string::npos)
      << compatible;
  EXPECT_EQ(compatible.find("::error"), std::string::npos);
}

TEST(DriftRenderTest, GithubBreakingChangeAllowedByTheRulesIsAWarning) {
  DriftReport r = Breaking();
  r.verdict = DriftVerdict::kCompatible;  // e.g. a subject in mode NONE
  r.reasons.clear();
  std::string out = MustRender(r, Format::kGithub);
  EXPECT_EQ(out.find("::error"), std::string::npos) << out;
  EXPECT_NE(out.find("::warning"), std::string::npos);
}

// --- Slack

TEST(DriftRenderTest, SlackMessageOfCompatibleChange) {
  DriftReport r = Compatible();
  std::string message = SlackMessage(r);
  EXPECT_EQ(MustRender(r, Format::kSlack), message + "\n");
  JsonValue v = MustParse(message);
  EXPECT_NE(Str(v, "text").find("Schema change: s3://data/payments/ (compatible, 1 change)"),
            std::string::npos);
  const JsonValue& blocks = At(v, "blocks");
  ASSERT_GE(blocks.size(), 4u);
  EXPECT_EQ(Str(blocks.items()[0], "type"), "header");
  EXPECT_EQ(Str(At(blocks.items()[0], "text"), "text"), "Schema change: s3://data/payments/");
  EXPECT_EQ(Str(At(blocks.items()[0], "text"), "type"), "plain_text");
  std::string verdict = Str(At(blocks.items()[1], "text"), "text");
  EXPECT_NE(verdict.find(":white_check_mark: compatible"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("change severity"), std::string::npos);

  std::string all = ToJson(blocks);
  EXPECT_NE(all.find("`settlement_method` field_added: `string`"), std::string::npos) << all;
  EXPECT_NE(all.find("sha256 `" + r.before.sha256 + "` \xE2\x86\x92 `" + r.after.sha256 + "`"),
            std::string::npos);
  const JsonValue& last = blocks.items().back();
  EXPECT_EQ(Str(last, "type"), "actions");
  EXPECT_EQ(Str(At(last, "elements").items()[0], "url"), r.link);
  ExpectGolden("compatible.slack.json", Indented(message));
}

TEST(DriftRenderTest, SlackMessageOfBreakingChange) {
  std::string message = SlackMessage(Breaking());
  JsonValue v = MustParse(message);
  std::string all = ToJson(At(v, "blocks"));
  EXPECT_NE(all.find(":rotating_light: breaking"), std::string::npos);
  EXPECT_NE(all.find("*Why it breaks*"), std::string::npos);
  EXPECT_NE(all.find(":red_circle: `amount` type_changed: `"), std::string::npos) << all;
  ExpectGolden("breaking.slack.json", Indented(message));
}

TEST(DriftRenderTest, SlackMessageOfMd5BaselineListsFields) {
  JsonValue v = MustParse(SlackMessage(Unknown()));
  std::string all = ToJson(At(v, "blocks"));
  EXPECT_NE(all.find(":grey_question: unknown"), std::string::npos);
  EXPECT_NE(all.find("`amount`: `long` not null"), std::string::npos) << all;
  EXPECT_NE(all.find("sha256 (none) \xE2\x86\x92 `"), std::string::npos) << all;
}

TEST(DriftRenderTest, SlackLinkThatIsNotAUrlIsShownNotLinked) {
  DriftReport r = Compatible();
  r.link = "javascript:alert(1)";
  JsonValue v = MustParse(SlackMessage(r));
  std::string all = ToJson(At(v, "blocks"));
  EXPECT_EQ(all.find("\"actions\""), std::string::npos);
  EXPECT_NE(all.find("link: `javascript:alert(1)`"), std::string::npos) << all;
}

// --- Teams and email

TEST(DriftRenderTest, TeamsMessageIsAnAdaptiveCard) {
  DriftReport r = Breaking();
  std::string message = TeamsMessage(r);
  EXPECT_EQ(message.find('\n'), std::string::npos);
  JsonValue v = MustParse(message);
  EXPECT_EQ(Str(v, "type"), "message");
  const JsonValue& attachments = At(v, "attachments");
  ASSERT_EQ(attachments.size(), 1u);
  EXPECT_EQ(Str(attachments.items()[0], "contentType"), "application/vnd.microsoft.card.adaptive");
  const JsonValue& card = At(attachments.items()[0], "content");
  EXPECT_EQ(Str(card, "type"), "AdaptiveCard");
  EXPECT_EQ(Str(card, "version"), "1.4");
  const JsonValue& body = At(card, "body");
  ASSERT_GE(body.size(), 3u);
  EXPECT_EQ(Str(body.items()[0], "text"), "Schema change: s3://data/payments/");
  EXPECT_EQ(Str(body.items()[1], "color"), "Attention");
  std::string all = ToJson(body);
  EXPECT_NE(all.find("{\"title\":\"sha256\",\"value\":\"" + r.before.sha256), std::string::npos);
  EXPECT_NE(all.find("{\"title\":\"amount\",\"value\":\"type_changed: "), std::string::npos) << all;
  EXPECT_NE(all.find("Why it breaks"), std::string::npos);
  const JsonValue& actions = At(card, "actions");
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(Str(actions.items()[0], "type"), "Action.OpenUrl");
  EXPECT_EQ(Str(actions.items()[0], "url"), r.link);
}

TEST(DriftRenderTest, EmailIsTheTextAndTheLink) {
  DriftReport r = Breaking();
  EmailText mail = EmailMessage(r);
  EXPECT_EQ(mail.subject, "[sluice] breaking schema change: s3://data/payments/");
  EXPECT_EQ(mail.body, MustRender(r, Format::kText) + "\nlink: " + r.link + "\n");
  EXPECT_EQ(EmailMessage(Compatible()).subject,
            "[sluice] compatible schema change: s3://data/payments/");
}

TEST(DriftRenderTest, EmailSubjectCannotCarryAnotherHeader) {
  DriftReport r = Breaking();
  r.source = "payments\r\nBcc: everyone@example.com";
  EmailText mail = EmailMessage(r);
  EXPECT_EQ(mail.subject.find_first_of("\r\n"), std::string::npos) << mail.subject;
}

// --- hostile names and sizes

// Field names a producer can send: quotes, a newline, a Slack broadcast, an emoji, a
// backquote, an entity, a terminal escape and bytes that are not UTF-8.
const std::vector<std::string>& HostileNames() {
  static const std::vector<std::string> names = {"say \"hi\"",
                                                 "line\nbreak",
                                                 "<!channel>",
                                                 "party \xF0\x9F\x8E\x89",
                                                 "back`tick",
                                                 "&amp;",
                                                 "\x1b[31mred\x1b[0m",
                                                 "bad \xFF\xFE bytes",
                                                 "*bold* _it_",
                                                 "<https://evil.example|click>",
                                                 "[click](https://evil.example)"};
  return names;
}

DriftReport Hostile() {
  DriftReport r = Breaking();
  r.source = "<!channel> \"payments\"\n";
  r.rules_detail = "contract <!here>";
  for (const std::string& name : HostileNames()) {
    r.diff.changes.push_back(
        Change{schema::FieldPath::Of(name), ChangeKind::kFieldAdded, std::nullopt, name});
    r.reasons.push_back({name, "rule\n", name});
    r.fields.push_back({name, "string", true});
  }
  return r;
}

TEST(DriftRenderTest, HostileNamesGiveValidJsonThatKeepsThem) {
  JsonValue v = MustParse(WebhookBody(Hostile()));
  const JsonValue& changes = At(v, "changes");
  ASSERT_EQ(changes.size(), 1 + HostileNames().size());
  EXPECT_EQ(Str(changes.items()[1], "to"), "say \"hi\"");
  EXPECT_EQ(Str(changes.items()[2], "to"), "line\nbreak");
  EXPECT_EQ(Str(changes.items()[4], "to"), "party \xF0\x9F\x8E\x89");
  EXPECT_EQ(Str(changes.items()[8], "to"), "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes");
  EXPECT_EQ(Str(v, "source"), "<!channel> \"payments\"\n");
}

TEST(DriftRenderTest, HostileNamesGiveInertSlackMrkdwn) {
  std::string message = SlackMessage(Hostile());
  JsonValue v = MustParse(message);
  ForEachSlackText(v, false, [](const std::string& text, size_t limit) {
    EXPECT_LE(CodePoints(text), limit) << text;
    // No raw <...> at all: no mention, no link, no broadcast can come from a name.
    EXPECT_EQ(text.find('<'), std::string::npos) << text;
    EXPECT_EQ(text.find('>'), std::string::npos) << text;
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    // Every & starts one of the three entities.
    for (size_t at = text.find('&'); at != std::string::npos; at = text.find('&', at + 1)) {
      std::string_view rest = std::string_view(text).substr(at);
      EXPECT_TRUE(rest.starts_with("&amp;") || rest.starts_with("&lt;") || rest.starts_with("&gt;"))
          << text;
    }
  });
  std::string all = ToJson(At(v, "blocks"));
  EXPECT_NE(all.find("`&lt;!channel&gt;`"), std::string::npos) << all;
  EXPECT_NE(all.find("`back\xCB\x8Btick`"), std::string::npos) << all;
  EXPECT_NE(all.find("`line\\\\nbreak`"), std::string::npos) << all;
  EXPECT_NE(all.find("`*bold* _it_`"), std::string::npos) << all;
  EXPECT_EQ(Str(At(At(v, "blocks").items()[0], "text"), "text").find('\n'), std::string::npos);
}

// A long source full of characters Slack needs as entities: the header is cut to 150
// characters, never inside an entity.
TEST(DriftRenderTest, SlackCutsLongTextBetweenEntities) {
  DriftReport r = Compatible();
  for (int i = 0; i < 100; ++i) r.source += "a<&>";
  JsonValue v = MustParse(SlackMessage(r));
  std::string header = Str(At(At(v, "blocks").items()[0], "text"), "text");
  EXPECT_TRUE(header.ends_with("...")) << header;
  EXPECT_GT(header.size(), 140u);
  ForEachSlackText(v, false, [](const std::string& text, size_t limit) {
    EXPECT_LE(CodePoints(text), limit) << text;
    for (size_t at = text.find('&'); at != std::string::npos; at = text.find('&', at + 1)) {
      std::string_view rest = std::string_view(text).substr(at);
      EXPECT_TRUE(rest.starts_with("&amp;") || rest.starts_with("&lt;") || rest.starts_with("&gt;"))
          << text;
    }
  });
}

TEST(DriftRenderTest, HostileNamesGiveValidTeamsTextAndGithubLines) {
  DriftReport r = Hostile();
  JsonValue v = MustParse(TeamsMessage(r));
  EXPECT_EQ(ToJson(v).find("\\u001b"), std::string::npos);
  // Teams reads Markdown: no name becomes a link or bold text.
  std::string teams = ToJson(At(At(At(v, "attachments").items()[0], "content"), "body"));
  EXPECT_EQ(teams.find("](https"), std::string::npos) << teams;
  EXPECT_NE(teams.find("[click]\\\\(https://evil.example)"), std::string::npos) << teams;
  EXPECT_NE(teams.find("\\\\*bold\\\\* _it_"), std::string::npos) << teams;
  std::string github = MustRender(r, Format::kGithub);
  EXPECT_TRUE(IsValidUtf8(github));
  EXPECT_EQ(github.find('\x1b'), std::string::npos);
  // One annotation per reason and change, and the summary: no name may start a new command.
  size_t lines = 0;
  for (char c : github) lines += c == '\n';
  EXPECT_EQ(lines, r.reasons.size() + r.diff.changes.size() + 1) << github;
  std::string text = MustRender(r, Format::kText);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  // The change lines too: a name cannot split a line or paint the terminal.
  EXPECT_NE(text.find("+ `line\\nbreak`"), std::string::npos) << text;
}

DriftReport Huge(size_t n, size_t name_length) {
  DriftReport r = Breaking();
  for (size_t i = 0; i < n; ++i) {
    std::string name = fmt::format("f{:05d}_", i) + std::string(name_length, '<');
    r.diff.changes.push_back(Change{schema::FieldPath::Of(name), ChangeKind::kTypeChanged,
                                    std::string(name_length, '&'), "string"});
    r.reasons.push_back({name, "type_changed", std::string(name_length, '>')});
    r.fields.push_back({name, "string", false});
  }
  r.verdict = DriftVerdict::kBreaking;
  return r;
}

TEST(DriftRenderTest, SlackMessageStaysWithinSlackLimitsForTenThousandChanges) {
  for (size_t name_length : {size_t{8}, size_t{5000}}) {
    SCOPED_TRACE(name_length);
    DriftReport r = Huge(10000, name_length);
    std::string message = SlackMessage(r);
    EXPECT_LT(message.size(), 40000u);
    JsonValue v = MustParse(message);
    EXPECT_LE(At(v, "blocks").size(), 50u);
    EXPECT_LE(CodePoints(Str(v, "text")), 3000u);
    size_t texts = 0;
    ForEachSlackText(v, false, [&](const std::string& text, size_t limit) {
      ++texts;
      EXPECT_LE(CodePoints(text), limit);
    });
    EXPECT_GT(texts, 5u);
    std::string all = ToJson(At(v, "blocks"));
    EXPECT_NE(all.find("\xE2\x80\xA6 and 9981 more changes"), std::string::npos);
    EXPECT_NE(all.find("\xE2\x80\xA6 and 9991 more reasons"), std::string::npos);
  }
}

TEST(DriftRenderTest, TeamsMessageStaysSmallForTenThousandChanges) {
  // Teams refuses cards over about 28 KB.
  std::string message = TeamsMessage(Huge(10000, 5000));
  EXPECT_LT(message.size(), 28000u);
  JsonValue v = MustParse(message);
  EXPECT_NE(ToJson(v).find("and 9981 more changes"), std::string::npos);
}

TEST(DriftRenderTest, WebhookBodyKeepsEveryChange) {
  JsonValue v = MustParse(WebhookBody(Huge(10000, 8)));
  EXPECT_EQ(At(v, "changes").size(), 10001u);
  EXPECT_EQ(At(At(v, "summary"), "total").as_int64(), 10001);
}

}  // namespace
}  // namespace sluice::report
