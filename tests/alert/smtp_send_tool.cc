// A test tool: send one email alert through SendSmtp and print the outcome, so the end-to-end
// tests (smtp_e2e.py) can drive the SMTP sender against real servers.
//
//   smtp_send_tool --url URL --subject S --body-file F [--ca-cert PEM] [--timeout-ms N]
//       [--id ID] [--content-type TYPE]
//
// Prints {"outcome":"delivered|retry|permanent","status":N,"detail":"..."} on one line. Exit 0
// when the message was delivered, 1 when not, 2 for usage or an unreadable body file.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sluice/alert/senders_internal.h"
#include "sluice/base/file_system.h"
#include "sluice/base/json_writer.h"

namespace {

using namespace sluice;  // NOLINT: a test tool

std::string_view OutcomeText(alert::SendOutcome outcome) {
  switch (outcome) {
    case alert::SendOutcome::kDelivered:
      return "delivered";
    case alert::SendOutcome::kRetry:
      return "retry";
    case alert::SendOutcome::kPermanent:
      return "permanent";
  }
  return "unknown";
}

int Usage() {
  std::fputs(
      "usage: smtp_send_tool --url URL --subject S --body-file F [--ca-cert PEM] "
      "[--timeout-ms N] [--id ID] [--content-type TYPE]\n",
      stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string url;
  std::string body_file;
  alert::Message message;
  message.id = "test-alert";
  message.content_type = "text/plain; charset=utf-8";
  alert::SendOptions options;
  bool have_subject = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i + 1 >= argc) return Usage();
    const std::string value = argv[++i];
    if (arg == "--url") {
      url = value;
    } else if (arg == "--subject") {
      message.subject = value;
      have_subject = true;
    } else if (arg == "--body-file") {
      body_file = value;
    } else if (arg == "--ca-cert") {
      options.ca_cert = value;
    } else if (arg == "--timeout-ms") {
      options.timeout_ms = std::atoi(value.c_str());
      if (options.timeout_ms <= 0) return Usage();
    } else if (arg == "--id") {
      message.id = value;
    } else if (arg == "--content-type") {
      message.content_type = value;
    } else {
      return Usage();
    }
  }
  if (url.empty() || body_file.empty() || !have_subject) return Usage();
  auto body = LocalFileSystem()->ReadFile(body_file);
  if (!body) {
    std::fprintf(stderr, "smtp_send_tool: %s\n", body.error().ToString().c_str());
    return 2;
  }
  message.body = std::move(*body);
  const alert::SendResult result = alert::internal::SendSmtp(url, message, options);
  JsonWriter out;
  out.BeginObject()
      .Key("outcome")
      .String(OutcomeText(result.outcome))
      .Key("status")
      .Int(result.status)
      .Key("detail")
      .String(result.detail)
      .EndObject();
  std::printf("%s\n", out.str().c_str());
  return result.outcome == alert::SendOutcome::kDelivered ? 0 : 1;
}
