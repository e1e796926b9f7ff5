// The senders behind MakeSender, one per transport, dispatched by target kind (sender.cc).
#pragma once

#include <string>
#include <string_view>

#include "sluice/alert/sender.h"
#include "sluice/alert/target.h"
#include "sluice/base/file_system.h"

namespace sluice::alert::internal {

/// POST `message` to a Slack, Teams or webhook target (http_sender.cc): `env:VAR` resolved,
/// webhooks signed when they have a secret. Never retries; never puts the URL's path, query or
/// any secret in the result's detail.
SendResult SendHttp(const Target& target, const Message& message, const SendOptions& options);

/// Send `message` as an email through the SMTP server of `smtp_url` (already resolved), with
/// STARTTLS, to the URL's recipients (smtp_sender.cc).
SendResult SendSmtp(std::string_view smtp_url, const Message& message, const SendOptions& options);

/// Append `message.body` (one line) and a newline to the file at `path`, creating it and its
/// folder, synced before it returns (file_sender.cc).
SendResult AppendToFile(FileSystem& fs, const std::string& path, const Message& message);

}  // namespace sluice::alert::internal
