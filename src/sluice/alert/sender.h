// Delivering one rendered alert to one target, once: HTTP POST for Slack, Teams and webhooks
// (TLS verified by default, webhooks signed with HMAC-SHA256), SMTP for email (STARTTLS), an
// append for files. A Sender never retries: it says whether to retry, and when; the outbox
// (outbox.h) owns retries, backoff, ordering and rate limits.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sluice/alert/target.h"
#include "sluice/base/file_system.h"

namespace sluice::alert {

/// An alert rendered for one kind of target (report/drift_render.h makes them).
struct Message {
  std::string id;            // the alert's id (DriftReport::alert_id): sent as X-Sluice-Delivery
  std::string content_type;  // "application/json", "text/plain; charset=utf-8"
  std::string subject;       // email subject; empty for the others
  std::string body;
};

enum class SendOutcome : uint8_t {
  kDelivered,  // accepted (2xx, SMTP 250 after DATA, the line appended)
  kRetry,      // 5xx, 429, a timeout, a reset or refused connection, SMTP 4xx
  kPermanent,  // 4xx other than 408/429, SMTP 5xx, a bad address, TLS verification failure
};

/// "delivered", "retry", "permanent".
std::string_view SendOutcomeName(SendOutcome outcome);

struct SendResult {
  SendOutcome outcome = SendOutcome::kRetry;
  int status = 0;  // the HTTP status or SMTP reply code, 0 when none came
  /// 429/503 `Retry-After` (seconds or an HTTP date), in milliseconds from now.
  std::optional<int64_t> retry_after_ms;
  /// What happened, for logs and the outbox: never a URL's path or query, never a secret.
  std::string detail;
};

struct SendOptions {
  int timeout_ms = 10000;  // connect, send and each read
  /// PEM file of CAs to trust instead of the system's (tests; private CAs). TLS peers are always
  /// verified; SSL_CERT_FILE is honoured as OpenSSL does.
  std::string ca_cert;
};

class Sender {
 public:
  virtual ~Sender() = default;
  virtual SendResult Send(const Target& target, const Message& message) = 0;
};

/// The sender for every kind of target: HTTP, SMTP and files (through `fs`, which must outlive it).
std::unique_ptr<Sender> MakeSender(FileSystem& fs, const SendOptions& options);

}  // namespace sluice::alert
