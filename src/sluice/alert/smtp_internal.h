// The parts of the SMTP sender (SendSmtp, smtp_sender.cc): its URL and the message as DATA
// carries it (smtp_message.cc), and one connection with its replies (smtp_connection.cc).
// Internal to the alert module; tests use them directly.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/alert/sender.h"
#include "sluice/base/result.h"

namespace sluice::alert::internal {

/// One step of an SMTP attempt: a value, or the SendResult that ends the attempt.
template <class T>
using SmtpStep = Expected<T, SendResult>;

/// End the attempt: `status` is the reply code (0 when none), `detail` holds no secret.
Unexpected<SendResult> SmtpStop(SendOutcome outcome, int status, std::string detail);

/// Evaluate `expr` (an SmtpStep); when it ended the attempt, return that from this function.
#define SLUICE_SMTP_TRY(expr)                                      \
  do {                                                             \
    auto&& smtp_try_ = (expr);                                     \
    if (!smtp_try_.has_value()) {                                  \
      return Unexpected<SendResult>(std::move(smtp_try_).error()); \
    }                                                              \
  } while (false)

#define SLUICE_SMTP_ASSIGN_IMPL_(tmp, lhs, expr)           \
  auto tmp = (expr);                                       \
  if (!tmp.has_value()) {                                  \
    return Unexpected<SendResult>(std::move(tmp).error()); \
  }                                                        \
  lhs = std::move(tmp).value()
/// Evaluate `expr` (an SmtpStep<T>); return its SendResult or assign its value to `lhs`.
#define SLUICE_SMTP_ASSIGN(lhs, expr) \
  SLUICE_SMTP_ASSIGN_IMPL_(SLUICE_CONCAT_(smtp_assign_, __LINE__), lhs, expr)

// ---- The URL and the message (smtp_message.cc) ----------------------------------------------

enum class SmtpTls : uint8_t {
  kImplicit,  // smtps://: TLS from the first byte
  kRequired,  // STARTTLS or nothing is sent
  kAuto,      // STARTTLS when the server offers it
  kOff,       // clear text
};

struct SmtpUrl {
  SmtpTls tls = SmtpTls::kRequired;
  std::string user;  // percent-decoded; empty: no AUTH
  std::string host;  // without the brackets of an IPv6 literal
  uint16_t port = 25;
  std::vector<std::string> to;
  std::string from;
  std::string password_env;
  bool loopback = false;
  std::string where;  // HOST:PORT, the only part of the URL a message shows
};

/// Parse an smtp:// or smtps:// URL and apply the defaults (smtp_sender.cc describes both).
/// kInvalidArgument names what is wrong, never a value from the query or the user part.
Result<SmtpUrl> ParseSmtpUrl(std::string_view url);

/// True for 127.0.0.0/8, ::1, localhost and *.localhost.
bool IsLoopbackHost(const std::string& host);

/// This machine's name for EHLO and the default sender ("localhost" when it is not a plain
/// domain name).
std::string LocalHostName();

/// The Subject header's value: as is when printable ASCII, else RFC 2047 encoded words of at
/// most 75 characters, split between UTF-8 characters, on folded lines.
std::string EncodeSubject(std::string_view subject);

/// The message as DATA carries it: headers, CRLF line endings, 7-bit (quoted-printable when the
/// body needs it), dot-stuffed, ending in "\r\n.\r\n". `now` is the Date header.
std::string BuildSmtpData(const SmtpUrl& url, const Message& message, std::time_t now);

// ---- One connection (smtp_connection.cc) ----------------------------------------------------

/// The most a reply, all its lines together, may take; more is a broken server.
inline constexpr size_t kMaxSmtpReplyBytes = 64 * 1024;

/// OpenSSL's queued errors as one line (the queue is emptied), "no detail" when there are none.
std::string OpenSslErrorText();

struct SmtpReply {
  int code = 0;
  std::vector<std::string> lines;  // the text after "NNN-" / "NNN "
  std::string Text() const { return lines.empty() ? "" : lines.front(); }
};

/// One SMTP connection: a non-blocking socket, TLS once started, a read buffer. Every connect,
/// write and reply read must finish within the timeout, counted from its start. A failure of the
/// connection is kRetry; a certificate that does not verify, a malformed or oversized reply are
/// kPermanent. Used by one thread at a time.
class SmtpConnection {
 public:
  /// `where` (HOST:PORT) starts every detail; a timeout <= 0 means 10 s.
  SmtpConnection(std::string where, int timeout_ms);
  ~SmtpConnection();
  SmtpConnection(const SmtpConnection&) = delete;
  SmtpConnection& operator=(const SmtpConnection&) = delete;

  bool tls() const { return ssl_ != nullptr; }
  /// Bytes received and not yet read as a reply (after STARTTLS's 220 there must be none).
  bool HasBufferedInput() const { return pos_ < in_.size(); }

  /// Connect to the first address of `host` that answers. Name resolution is bounded by the
  /// system resolver's own timeouts, not by this connection's.
  SmtpStep<void> Connect(const std::string& host, uint16_t port);
  /// TLS handshake, verifying the chain with `ctx` and `host` as a name or IP address.
  SmtpStep<void> StartTls(SSL_CTX* ctx, const std::string& host);
  SmtpStep<void> Write(std::string_view bytes);
  /// Read one reply, single- or multi-line.
  SmtpStep<SmtpReply> ReadReply();

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point Deadline() const;
  SmtpStep<void> Wait(short events, Clock::time_point deadline, std::string_view doing);
  SmtpStep<void> Fill(Clock::time_point deadline);
  Unexpected<SendResult> Broken(std::string what) const;

  std::string where_;
  int timeout_ms_;
  int fd_ = -1;
  SSL* ssl_ = nullptr;
  std::string in_;
  size_t pos_ = 0;
};

}  // namespace sluice::alert::internal
