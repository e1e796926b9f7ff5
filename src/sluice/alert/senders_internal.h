// The senders behind MakeSender, one per transport. Internal to the alert module: other modules
// deliver through Sender.
#pragma once

#include <string_view>

#include "sluice/alert/sender.h"

namespace sluice::alert {

/// Deliver `message` over SMTP to the server and recipients that `smtp_url` names
/// (`smtp://[USER@]HOST[:PORT]?to=ADDR[,ADDR...][&from=ADDR][&starttls=required|auto|off]`
/// `[&password-env=VAR]`, or `smtps://` for TLS from the first byte). One attempt, never a retry;
/// the result's detail names host and port only, never the query or a password.
SendResult SendSmtp(std::string_view smtp_url, const Message& message, const SendOptions& options);

}  // namespace sluice::alert
