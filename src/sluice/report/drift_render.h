// Rendering a drift check's result (`sluice drift check`): text, JSON, GitHub annotations and a
// Slack message through Render, and the bodies of the other alert channels (Teams, email, the
// webhook body, a log line). The webhook body is described key by key in
// docs/formats/drift-alert.md. Every function here is pure: nothing is sent, printed or read.
#pragma once

#include <string>

#include "sluice/base/result.h"
#include "sluice/evolution/drift.h"
#include "sluice/report/format.h"

namespace sluice::report {

/// Render `report` in `format`:
/// - kText: for people. A header (source, baseline, verdict, rules), the change lines as
///   `sluice diff` prints them and its summary, why it breaks, and the fingerprints old -> new.
///   kRecorded and kUnchanged are one line each; kUnknown lists the new schema's fields.
/// - kJson: WebhookBody followed by a newline (the same as AlertLogLine).
/// - kGithub: workflow-command annotations on the source (reasons and breaking changes of a
///   breaking report are errors, other changes warnings or notices) and a summary line.
/// - kSlack: SlackMessage followed by a newline.
/// kUnimplemented for kHtml. Strings of any content (quotes, newlines, invalid UTF-8, Slack
/// control sequences) give valid JSON and inert Slack mrkdwn.
Result<std::string> Render(const evolution::DriftReport& report, Format format,
                           const RenderOptions& options = {});

/// The generic webhook's body: one JSON object on one line, no trailing newline
/// (docs/formats/drift-alert.md). Every change, reason and field is included; invalid UTF-8 in
/// a name becomes U+FFFD.
std::string WebhookBody(const evolution::DriftReport& report);

/// A Slack incoming-webhook message: `{"text": fallback, "blocks": [...]}` in Block Kit, one
/// line, no trailing newline. Bounded whatever the report holds: at most 20 change rows (then
/// "… and N more"), every text within Slack's limits (150 characters in the header, 3000 in a
/// section or context text, 50 blocks), user text escaped (&, <, >) and quoted in code spans so
/// a field name cannot mention a channel or format the message.
std::string SlackMessage(const evolution::DriftReport& report);

/// A Microsoft Teams message for incoming webhooks and Workflows: `{"type":"message",
/// "attachments":[...]}` holding an Adaptive Card 1.4 (title, verdict, a FactSet of source,
/// baseline, rules and fingerprints, the changes as a FactSet of at most 20 rows, an
/// Action.OpenUrl for the link). One line, no trailing newline.
std::string TeamsMessage(const evolution::DriftReport& report);

/// An email: the subject ("[sluice] breaking schema change: SOURCE", one line whatever the
/// source holds) and a plain-text body (the kText rendering, then the link).
struct EmailText {
  std::string subject;
  std::string body;
};
EmailText EmailMessage(const evolution::DriftReport& report);

/// One line of a JSON-lines alert log (`file:` targets): WebhookBody and a newline.
std::string AlertLogLine(const evolution::DriftReport& report);

}  // namespace sluice::report
