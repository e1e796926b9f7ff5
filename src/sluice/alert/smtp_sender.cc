// Email alerts over SMTP (RFC 5321), spoken directly on a socket with OpenSSL for TLS.
//
// URL: `smtp://[USER@]HOST[:PORT]?to=ADDR[,ADDR...][&from=ADDR][&starttls=MODE][&password-env=VAR]`
// or `smtps://...` (TLS from the first byte). Port 25 for smtp, 465 for smtps; `from` defaults to
// `sluice@<this host's name>`. USER and the values may be percent-encoded (`alice%40corp.com`).
//
// Choices made for safety:
// - starttls defaults to `required`: a server (or anything in the path) that does not offer
//   STARTTLS gets nothing, because silently falling back to clear text is exactly what an attacker
//   who strips the STARTTLS line wants. Only for a loopback host (127.0.0.0/8, ::1, localhost),
//   where the bytes never leave the machine, the default is `auto`: STARTTLS when offered.
//   `starttls=off` must be asked for.
// - A password is never sent in clear text to a host that is not loopback, whatever starttls
//   says; a password in the URL itself (`USER:PASS@`) is refused: it comes from password-env,
//   read when the alert is sent.
// - TLS always verifies the certificate chain and the host name (or IP address); there is no
//   switch to turn that off. A verification failure is permanent: retrying will not fix it.
// - Any plain-text bytes that follow the server's 220 to STARTTLS are refused rather than read
//   after the handshake (a man in the middle could otherwise inject commands).
// - A recipient refused aborts the whole transaction before DATA, so a retry never sends the
//   alert twice to the recipients that were accepted.
// - Replies are capped at 64 KiB; a malformed or oversized reply is a permanent error (it is a
//   server that does not speak SMTP, which retrying will not change).
// Every detail string names the server as HOST:PORT and quotes at most 200 escaped bytes of the
// server's text, from which the password and its base64 forms are removed.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "sluice/alert/senders_internal.h"
#include "sluice/alert/smtp_internal.h"
#include "sluice/base/strings.h"

namespace sluice::alert {
namespace {

using internal::SmtpConnection;
using internal::SmtpReply;
using internal::SmtpStep;
using internal::SmtpStop;
using internal::SmtpTls;
using internal::SmtpUrl;

constexpr size_t kMaxDetailQuote = 200;

struct SslCtxFree {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;

struct ServerFeatures {
  bool starttls = false;
  bool auth_plain = false;
  bool auth_login = false;
  bool auth = false;
};

class Session {
 public:
  Session(const SmtpUrl& url, const SendOptions& options)
      : url_(url), options_(options), conn_(url.where, options.timeout_ms) {}
  ~Session() { OPENSSL_cleanse(password_.data(), password_.size()); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  SmtpStep<SendResult> Run(const Message& message);
  /// After a refusal the dialogue is still in step: say goodbye (best effort, bounded by the
  /// timeout) rather than drop the connection.
  void QuitAfterRefusal();
  /// The password and its base64 forms, to remove from any text that leaves this file.
  std::vector<std::string> Secrets() const;

 private:
  SmtpStep<void> Hello();
  SmtpStep<void> SecureChannel(SSL_CTX* ctx);
  SmtpStep<void> LoadPassword();
  SmtpStep<void> Authenticate();
  SmtpStep<SmtpReply> Command(std::string_view line, std::string_view what, int expected);
  Unexpected<SendResult> Refused(const SmtpReply& reply, std::string_view what);
  SmtpStep<SslCtxPtr> MakeTlsContext() const;

  const SmtpUrl& url_;
  const SendOptions& options_;
  SmtpConnection conn_;
  ServerFeatures features_;
  std::string password_;
  bool refused_ = false;
};

Unexpected<SendResult> Session::Refused(const SmtpReply& reply, std::string_view what) {
  refused_ = true;
  const int first = reply.code / 100;
  const SendOutcome outcome = first == 4 ? SendOutcome::kRetry : SendOutcome::kPermanent;
  std::string detail =
      "smtp " + url_.where + ": " + std::string(what) + " refused: " + std::to_string(reply.code);
  if (first != 4 && first != 5) detail += " (unexpected)";
  if (!reply.Text().empty()) detail += " " + EscapeForMessage(reply.Text(), kMaxDetailQuote);
  return SmtpStop(outcome, reply.code, std::move(detail));
}

// Send one command line and read its reply; any code but `expected` ends the dialogue. `what`
// names the command in messages, so an AUTH line's credentials never reach one.
SmtpStep<SmtpReply> Session::Command(std::string_view line, std::string_view what, int expected) {
  std::string bytes(line);
  bytes += "\r\n";
  auto written = conn_.Write(bytes);
  OPENSSL_cleanse(bytes.data(), bytes.size());
  SLUICE_SMTP_TRY(written);
  SLUICE_SMTP_ASSIGN(SmtpReply reply, conn_.ReadReply());
  if (reply.code != expected) return Refused(reply, what);
  return reply;
}

SmtpStep<void> Session::Hello() {
  const std::string name = internal::LocalHostName();
  SLUICE_SMTP_TRY(conn_.Write("EHLO " + name + "\r\n"));
  SLUICE_SMTP_ASSIGN(SmtpReply reply, conn_.ReadReply());
  features_ = ServerFeatures{};
  if (reply.code == 500 || reply.code == 502) {
    // An old server without ESMTP: HELO, and no extensions at all.
    SLUICE_SMTP_TRY(Command("HELO " + name, "HELO", 250));
    return {};
  }
  if (reply.code != 250) return Refused(reply, "EHLO");
  for (size_t i = 1; i < reply.lines.size(); ++i) {
    const std::string upper = AsciiUpper(reply.lines[i]);
    std::vector<std::string_view> words = SplitString(upper, ' ');
    if (words.empty()) continue;
    if (words[0] == "STARTTLS") features_.starttls = true;
    if (words[0] == "AUTH" || StartsWith(words[0], "AUTH=")) {
      features_.auth = true;
      if (StartsWith(words[0], "AUTH=")) words.push_back(words[0].substr(5));
      for (std::string_view w : words) {
        if (w == "PLAIN") features_.auth_plain = true;
        if (w == "LOGIN") features_.auth_login = true;
      }
    }
  }
  return {};
}

SmtpStep<SslCtxPtr> Session::MakeTlsContext() const {
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) {
    return SmtpStop(SendOutcome::kPermanent, 0, "smtp: TLS: " + internal::OpenSslErrorText());
  }
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  if (!options_.ca_cert.empty()) {
    if (SSL_CTX_load_verify_locations(ctx.get(), options_.ca_cert.c_str(), nullptr) != 1) {
      ERR_clear_error();
      return SmtpStop(SendOutcome::kPermanent, 0,
                      "smtp: cannot load CA certificates from " + options_.ca_cert);
    }
  } else if (SSL_CTX_set_default_verify_paths(ctx.get()) != 1) {
    return SmtpStop(SendOutcome::kPermanent, 0,
                    "smtp: TLS: no CA certificates: " + internal::OpenSslErrorText());
  }
  return ctx;
}

// STARTTLS when the mode and the server call for it, then EHLO again: what the server said
// before TLS is not to be trusted.
SmtpStep<void> Session::SecureChannel(SSL_CTX* ctx) {
  if (conn_.tls() || url_.tls == SmtpTls::kOff) return {};
  if (!features_.starttls) {
    if (url_.tls == SmtpTls::kAuto) return {};
    return SmtpStop(
        SendOutcome::kPermanent, 0,
        "smtp " + url_.where +
            ": the server does not offer STARTTLS (starttls=required); nothing was sent");
  }
  SLUICE_SMTP_TRY(Command("STARTTLS", "STARTTLS", 220));
  if (conn_.HasBufferedInput()) {
    return SmtpStop(SendOutcome::kPermanent, 0,
                    "smtp " + url_.where + ": bytes after the reply to STARTTLS (an injection?)");
  }
  auto secured = conn_.StartTls(ctx, url_.host);
  if (!secured && url_.tls == SmtpTls::kAuto && url_.loopback) {
    // The usual cause: a local relay with a self-signed certificate (Debian's snakeoil one).
    secured.error().detail +=
        " (a local relay with its own certificate: trust its CA, or set starttls=off)";
  }
  SLUICE_SMTP_TRY(secured);
  return Hello();
}

// Read before connecting, so that a missing password costs the server nothing.
SmtpStep<void> Session::LoadPassword() {
  if (url_.user.empty()) return {};
  const char* value = std::getenv(url_.password_env.c_str());
  if (value == nullptr || *value == '\0') {
    return SmtpStop(SendOutcome::kPermanent, 0,
                    "smtp " + url_.where + ": the password variable " + url_.password_env +
                        " is unset or empty");
  }
  password_ = value;
  return {};
}

SmtpStep<void> Session::Authenticate() {
  if (url_.user.empty()) return {};
  if (!conn_.tls() && !url_.loopback) {
    return SmtpStop(SendOutcome::kPermanent, 0,
                    "smtp " + url_.where + ": refusing to send a password without TLS");
  }
  if (!features_.auth) {
    return SmtpStop(SendOutcome::kPermanent, 0,
                    "smtp " + url_.where + ": the server offers no AUTH");
  }
  if (features_.auth_plain) {
    std::string token;
    token += '\0';
    token += url_.user;
    token += '\0';
    token += password_;
    std::string line = "AUTH PLAIN " + Base64Encode(token);
    OPENSSL_cleanse(token.data(), token.size());
    auto reply = Command(line, "AUTH PLAIN", 235);
    OPENSSL_cleanse(line.data(), line.size());
    SLUICE_SMTP_TRY(reply);
    return {};
  }
  if (features_.auth_login) {
    SLUICE_SMTP_TRY(Command("AUTH LOGIN", "AUTH LOGIN", 334));
    SLUICE_SMTP_TRY(Command(Base64Encode(url_.user), "AUTH LOGIN user", 334));
    std::string line = Base64Encode(password_);
    auto reply = Command(line, "AUTH LOGIN password", 235);
    OPENSSL_cleanse(line.data(), line.size());
    SLUICE_SMTP_TRY(reply);
    return {};
  }
  return SmtpStop(SendOutcome::kPermanent, 0,
                  "smtp " + url_.where + ": the server offers neither AUTH PLAIN nor AUTH LOGIN");
}

SmtpStep<SendResult> Session::Run(const Message& message) {
  SslCtxPtr ctx;
  if (url_.tls != SmtpTls::kOff) {
    SLUICE_SMTP_ASSIGN(ctx, MakeTlsContext());
  }
  SLUICE_SMTP_TRY(LoadPassword());
  SLUICE_SMTP_TRY(conn_.Connect(url_.host, url_.port));
  if (url_.tls == SmtpTls::kImplicit) SLUICE_SMTP_TRY(conn_.StartTls(ctx.get(), url_.host));
  SLUICE_SMTP_ASSIGN(SmtpReply greeting, conn_.ReadReply());
  if (greeting.code != 220) return Refused(greeting, "the greeting");
  SLUICE_SMTP_TRY(Hello());
  SLUICE_SMTP_TRY(SecureChannel(ctx.get()));
  SLUICE_SMTP_TRY(Authenticate());
  SLUICE_SMTP_TRY(Command("MAIL FROM:<" + url_.from + ">", "MAIL FROM", 250));
  for (const std::string& to : url_.to) {
    SLUICE_SMTP_TRY(conn_.Write("RCPT TO:<" + to + ">\r\n"));
    SLUICE_SMTP_ASSIGN(SmtpReply reply, conn_.ReadReply());
    if (reply.code != 250 && reply.code != 251) return Refused(reply, "RCPT TO <" + to + ">");
  }
  SLUICE_SMTP_TRY(Command("DATA", "DATA", 354));
  SLUICE_SMTP_TRY(conn_.Write(internal::BuildSmtpData(url_, message, std::time(nullptr))));
  SLUICE_SMTP_ASSIGN(SmtpReply accepted, conn_.ReadReply());
  if (accepted.code != 250) return Refused(accepted, "the message");
  // Delivered whatever QUIT brings: the server has taken responsibility for the message.
  if (conn_.Write("QUIT\r\n")) (void)conn_.ReadReply();
  SendResult done;
  done.outcome = SendOutcome::kDelivered;
  done.status = accepted.code;
  done.detail = "smtp " + url_.where + ": accepted for " + std::to_string(url_.to.size()) +
                " recipient" + (url_.to.size() == 1 ? "" : "s");
  return done;
}

void Session::QuitAfterRefusal() {
  if (refused_ && conn_.Write("QUIT\r\n")) (void)conn_.ReadReply();
}

std::vector<std::string> Session::Secrets() const {
  if (password_.empty()) return {};
  std::string plain;
  plain += '\0';
  plain += url_.user;
  plain += '\0';
  plain += password_;
  return {password_, Base64Encode(password_), Base64Encode(plain)};
}

void Redact(std::string& text, const std::vector<std::string>& secrets) {
  for (const std::string& secret : secrets) {
    if (secret.empty()) continue;
    for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
      text.replace(at, secret.size(), "***");
    }
  }
}

}  // namespace

namespace internal {

SendResult SendSmtp(std::string_view smtp_url, const Message& message, const SendOptions& options) {
  auto url = internal::ParseSmtpUrl(smtp_url);
  if (!url) {
    SendResult bad;
    bad.outcome = SendOutcome::kPermanent;
    bad.detail = "smtp: " + url.error().message();
    return bad;
  }
  Session session(*url, options);
  auto ran = session.Run(message);
  if (!ran) session.QuitAfterRefusal();
  SendResult result = ran ? std::move(*ran) : std::move(ran).error();
  Redact(result.detail, session.Secrets());
  return result;
}

}  // namespace internal
}  // namespace sluice::alert
