#include "sluice/alert/target.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "sluice/alert/http_internal.h"
#include "sluice/alert/smtp_internal.h"
#include "sluice/base/file_system.h"
#include "sluice/base/strings.h"

namespace sluice::alert {

namespace {

constexpr std::string_view kEnvPrefix = "env:";

std::optional<TargetKind> KindOf(std::string_view name) {
  if (name == "slack") return TargetKind::kSlack;
  if (name == "webhook") return TargetKind::kWebhook;
  if (name == "teams") return TargetKind::kTeams;
  if (name == "email") return TargetKind::kEmail;
  if (name == "file") return TargetKind::kFile;
  return std::nullopt;
}

bool IsHttpKind(TargetKind kind) {
  return kind == TargetKind::kSlack || kind == TargetKind::kWebhook || kind == TargetKind::kTeams;
}

}  // namespace

std::string_view TargetKindName(TargetKind kind) {
  switch (kind) {
    case TargetKind::kSlack:
      return "slack";
    case TargetKind::kWebhook:
      return "webhook";
    case TargetKind::kTeams:
      return "teams";
    case TargetKind::kEmail:
      return "email";
    case TargetKind::kFile:
      return "file";
  }
  return "file";
}

std::string Target::Spec() const { return std::string(TargetKindName(kind)) + ":" + address; }

std::string Target::Display() const {
  std::string out = std::string(TargetKindName(kind)) + ":";
  if (address.starts_with(kEnvPrefix)) return out + address;
  switch (kind) {
    case TargetKind::kSlack:
    case TargetKind::kWebhook:
    case TargetKind::kTeams: {
      auto url = internal::ParseHttpUrl(address);
      return out + (url ? url->display : std::string("<not an http(s) URL>"));
    }
    case TargetKind::kEmail: {
      auto url = internal::ParseSmtpUrl(address);
      if (!url) return out + "<not an smtp URL>";
      out += url->tls == internal::SmtpTls::kImplicit ? "smtps://" : "smtp://";
      out += url->where;
      if (!url->to.empty()) out += "?to=" + JoinStrings(url->to, ",");
      return out;
    }
    case TargetKind::kFile:
      return out + address;
  }
  return out;
}

Result<Target> ParseTarget(std::string_view spec) {
  size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    return InvalidArgument(
        "an alert target is KIND:ADDRESS with KIND one of slack, webhook, teams, email, file");
  }
  std::string_view kind_name = spec.substr(0, colon);
  auto kind = KindOf(kind_name);
  if (!kind) {
    // The part before the colon may be a URL's scheme followed by a secret: name it only when it
    // is a plain word.
    std::string shown = IsAsciiIdentifier(kind_name) ? " '" + std::string(kind_name) + "'" : "";
    return InvalidArgument("unknown alert target kind" + shown +
                           ": expected slack, webhook, teams, email or file before the colon");
  }
  Target target;
  target.kind = *kind;
  target.address = std::string(spec.substr(colon + 1));
  const std::string name(kind_name);
  if (target.address.starts_with(kEnvPrefix)) {
    if (target.kind == TargetKind::kFile) {
      return InvalidArgument("alert target " + target.Display() + ": a file target takes a path");
    }
    if (!IsAsciiIdentifier(std::string_view(target.address).substr(kEnvPrefix.size()))) {
      return InvalidArgument("alert target " + name +
                             ": env: must be followed by an environment variable's name");
    }
    return target;
  }
  if (IsHttpKind(target.kind)) {
    if (!internal::ParseHttpUrl(target.address)) {
      return InvalidArgument("alert target " + name +
                             ": the address must be an http:// or https:// URL with a host, or "
                             "env:VAR naming the variable that holds it");
    }
  } else if (target.kind == TargetKind::kEmail) {
    // The sender's own parser, so a URL it would refuse is refused here, before any alert.
    auto url = internal::ParseSmtpUrl(target.address);
    if (!url) {
      return InvalidArgument("alert target email: " + url.error().message() +
                             " (the address is smtp://HOST:PORT?to=ADDR, or smtps://, or env:VAR "
                             "naming the variable that holds it)");
    }
  } else if (target.address.empty()) {
    return InvalidArgument("alert target file: the path is empty");
  }
  return target;
}

Result<std::string> ResolveAddress(const Target& target) {
  if (!target.address.starts_with(kEnvPrefix)) return target.address;
  std::string var = target.address.substr(kEnvPrefix.size());
  const char* value = std::getenv(var.c_str());
  if (value == nullptr || *value == '\0') {
    return NotFound("the environment variable " + var + " of alert target " + target.Display() +
                    " is not set or empty");
  }
  return std::string(value);
}

Result<std::string> ResolveSecret(const Target& target) {
  if (!target.secret_env.empty() && !target.secret_file.empty()) {
    return InvalidArgument("alert target " + target.Display() +
                           ": give the signing secret as an environment variable or a file, not "
                           "both");
  }
  std::string secret;
  if (!target.secret_env.empty()) {
    const char* value = std::getenv(target.secret_env.c_str());
    if (value == nullptr || *value == '\0') {
      return NotFound("the signing secret's environment variable " + target.secret_env +
                      " of alert target " + target.Display() + " is not set or empty");
    }
    secret = value;
  } else if (!target.secret_file.empty()) {
    auto read = LocalFileSystem()->ReadFile(target.secret_file, 1 << 16);
    if (!read.has_value()) {
      // The error names the file and its cause; a read error never carries the contents.
      return Fail(read.error().code(), "cannot read the signing secret file " + target.secret_file +
                                           " of alert target " + target.Display() + ": " +
                                           read.error().message());
    }
    secret = std::move(*read);
    if (secret.ends_with('\n')) secret.pop_back();
    if (secret.ends_with('\r')) secret.pop_back();
    if (secret.empty()) {
      return NotFound("the signing secret file " + target.secret_file + " of alert target " +
                      target.Display() + " is empty");
    }
  }
  return secret;
}

}  // namespace sluice::alert
