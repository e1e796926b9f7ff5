// Where an alert goes: `slack:URL`, `webhook:URL`, `teams:URL`,
// `email:smtp://HOST:PORT?to=ADDR[&from=ADDR]`, `file:PATH`. A URL may instead be
// `env:VAR` (`slack:env:SLACK_WEBHOOK_URL`), read when the alert is sent, so no secret sits in a
// command line, a config file or the outbox. Display() is the only form that is ever printed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/base/result.h"

namespace sluice::alert {

enum class TargetKind : uint8_t { kSlack, kWebhook, kTeams, kEmail, kFile };

/// "slack", "webhook", "teams", "email", "file".
std::string_view TargetKindName(TargetKind kind);

struct Target {
  TargetKind kind = TargetKind::kFile;
  /// Everything after `KIND:` as given: a URL, `env:VAR`, an smtp:// URL, a path.
  std::string address;
  /// Webhooks: where the HMAC-SHA256 signing secret comes from (an environment variable's name,
  /// or a file holding it); both empty means unsigned.
  std::string secret_env;
  std::string secret_file;

  /// The spec as given (`KIND:ADDRESS`): the key the outbox stores and deduplicates by.
  std::string Spec() const;
  /// Safe to print: `env:VAR` as is; a URL as scheme://host[:port]/… (no user, path, query);
  /// an SMTP URL keeps host, port and recipients; a file its path.
  std::string Display() const;
};

/// Parse `KIND:ADDRESS`. Checks the shape (a known kind, an http(s) URL or env:VAR for the
/// HTTP kinds, smtp:// or smtps:// with a `to` for email, a non-empty path for file) without
/// resolving environment variables. Errors show Display(), never the raw address.
Result<Target> ParseTarget(std::string_view spec);

/// The address to deliver to now: `env:VAR` resolved (kNotFound naming VAR, never a value, when
/// it is unset or empty), otherwise the address itself.
Result<std::string> ResolveAddress(const Target& target);

/// The webhook signing secret, from secret_env or secret_file (trailing newline dropped); empty
/// when neither is set. Errors name the variable or file, never the secret.
Result<std::string> ResolveSecret(const Target& target);

}  // namespace sluice::alert
