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
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "sluice/alert/senders_internal.h"
#include "sluice/base/strings.h"

namespace sluice::alert {
namespace {

constexpr size_t kMaxReplyBytes = 64 * 1024;
constexpr size_t kMaxDetailQuote = 200;

template <class T>
using Step = Expected<T, SendResult>;

Unexpected<SendResult> Stop(SendOutcome outcome, int status, std::string detail) {
  SendResult r;
  r.outcome = outcome;
  r.status = status;
  r.detail = std::move(detail);
  return Unexpected<SendResult>(std::move(r));
}

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
#define SLUICE_SMTP_ASSIGN(lhs, expr) \
  SLUICE_SMTP_ASSIGN_IMPL_(SLUICE_CONCAT_(smtp_assign_, __LINE__), lhs, expr)

// ---- The URL ---------------------------------------------------------------------------------

enum class TlsMode : uint8_t { kImplicit, kRequired, kAuto, kOff };

struct SmtpUrl {
  TlsMode tls = TlsMode::kRequired;
  std::string user;
  std::string host;  // without brackets for IPv6
  uint16_t port = 25;
  std::vector<std::string> to;
  std::string from;
  std::string password_env;
  bool loopback = false;
  std::string where;  // HOST:PORT, the only part of the URL a message shows
};

std::optional<std::string> PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// An addr-spec as it goes between angle brackets and into headers: printable ASCII, one '@',
// nothing that could end the command or a header.
bool IsPlainAddress(std::string_view a) {
  if (a.empty() || a.size() > 254) return false;
  const size_t at = a.rfind('@');
  if (at == 0 || at == std::string_view::npos || at + 1 == a.size()) return false;
  for (char c : a) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == '<' || c == '>' || c == ',' || c == '(' || c == ')' ||
        c == ';' || c == '\\' || c == '"') {
      return false;
    }
  }
  return true;
}

bool IsLoopbackHost(const std::string& host) {
  if (EqualsIgnoreCase(host, "localhost") || EndsWith(AsciiLower(host), ".localhost")) return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

std::string LocalHostName() {
  std::array<char, 256> buf{};
  if (gethostname(buf.data(), buf.size() - 1) != 0) return "localhost";
  std::string name(buf.data());
  const bool ok = !name.empty() && name.find_first_not_of(
                                       "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789.-") == std::string::npos;
  return ok ? name : "localhost";
}

Result<SmtpUrl> ParseSmtpUrl(std::string_view url) {
  SmtpUrl u;
  std::string_view rest;
  if (StartsWith(AsciiLower(url.substr(0, 7)), "smtp://")) {
    rest = url.substr(7);
  } else if (StartsWith(AsciiLower(url.substr(0, 8)), "smtps://")) {
    u.tls = TlsMode::kImplicit;
    u.port = 465;
    rest = url.substr(8);
  } else {
    return InvalidArgument("not an smtp:// or smtps:// URL");
  }
  const size_t q = rest.find('?');
  std::string_view authority = rest.substr(0, q);
  const std::string_view query = q == std::string_view::npos ? "" : rest.substr(q + 1);
  if (EndsWith(authority, "/")) authority.remove_suffix(1);
  if (authority.find('/') != std::string_view::npos) {
    return InvalidArgument("an SMTP URL has no path");
  }
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    if (userinfo.find(':') != std::string_view::npos) {
      return InvalidArgument(
          "a password does not go in the URL; name a variable with password-env");
    }
    auto user = PercentDecode(userinfo);
    if (!user || user->empty() || user->find('\0') != std::string::npos) {
      return InvalidArgument("bad user name in the URL");
    }
    u.user = *user;
    authority = authority.substr(at + 1);
  }
  std::optional<std::string_view> port_text;
  if (StartsWith(authority, "[")) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return InvalidArgument("unclosed '[' in the host");
    u.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after[0] != ':') return InvalidArgument("bad host in the URL");
    if (!after.empty()) port_text = after.substr(1);
  } else {
    const size_t colon = authority.find(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (u.host.empty() || u.host.find_first_of(" \t\r\n%") != std::string::npos) {
    return InvalidArgument("no host in the URL");
  }
  if (port_text) {
    const int port = port_text->empty() || port_text->size() > 5 ||
                             port_text->find_first_not_of("0123456789") != std::string_view::npos
                         ? 0
                         : std::atoi(std::string(*port_text).c_str());
    if (port <= 0 || port > 65535) return InvalidArgument("bad port in the URL");
    u.port = static_cast<uint16_t>(port);
  }
  u.loopback = IsLoopbackHost(u.host);
  const bool v6 = u.host.find(':') != std::string::npos;
  u.where = (v6 ? "[" + u.host + "]" : u.host) + ":" + std::to_string(u.port);
  std::optional<TlsMode> starttls;
  for (std::string_view pair : SplitString(query, '&')) {
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const std::string_view key = pair.substr(0, eq);
    auto value = PercentDecode(eq == std::string_view::npos ? "" : pair.substr(eq + 1));
    if (!value) return InvalidArgument("bad percent-encoding in the value of " + std::string(key));
    if (key == "to") {
      for (std::string_view a : SplitString(*value, ',')) {
        a = TrimWhitespace(a);
        if (!IsPlainAddress(a)) return InvalidArgument("bad recipient address in 'to'");
        u.to.emplace_back(a);
      }
    } else if (key == "from") {
      if (!IsPlainAddress(*value)) return InvalidArgument("bad sender address in 'from'");
      u.from = *value;
    } else if (key == "starttls") {
      if (*value == "required") {
        starttls = TlsMode::kRequired;
      } else if (*value == "auto") {
        starttls = TlsMode::kAuto;
      } else if (*value == "off") {
        starttls = TlsMode::kOff;
      } else {
        return InvalidArgument("starttls must be required, auto or off");
      }
    } else if (key == "password-env") {
      if (value->empty()) return InvalidArgument("password-env names no variable");
      u.password_env = *value;
    } else {
      return InvalidArgument("unknown SMTP URL parameter '" + EscapeForMessage(key, 40) + "'");
    }
  }
  if (u.to.empty()) return InvalidArgument("no recipient: add to=ADDR to the query");
  if (starttls) {
    if (u.tls == TlsMode::kImplicit) return InvalidArgument("starttls does not apply to smtps://");
    u.tls = *starttls;
  } else if (u.tls != TlsMode::kImplicit && u.loopback) {
    u.tls = TlsMode::kAuto;
  }
  if (!u.user.empty() && u.password_env.empty()) {
    return InvalidArgument("a user is given but no password-env");
  }
  if (u.from.empty()) u.from = "sluice@" + LocalHostName();
  return u;
}

// ---- The connection --------------------------------------------------------------------------

using Clock = std::chrono::steady_clock;

struct SslCtxFree {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;

std::string OpenSslErrors() {
  std::string out;
  while (const unsigned long e = ERR_get_error()) {
    std::array<char, 256> buf{};
    ERR_error_string_n(e, buf.data(), buf.size());
    if (!out.empty()) out += "; ";
    out += buf.data();
  }
  return out.empty() ? "no detail" : out;
}

// OpenSSL writes to the socket with write(2), which raises SIGPIPE when the server has gone.
// Library code must not change the process's signal handling, so SIGPIPE is blocked in this
// thread for the write and a SIGPIPE it caused is consumed before unblocking.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    blocked_ = pthread_sigmask(SIG_BLOCK, &pipe_, &old_) == 0;
  }
  ~SigpipeGuard() {
    if (!blocked_) return;
    if (!was_pending_) {
      const timespec zero{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t old_{};
  bool was_pending_ = false;
  bool blocked_ = false;
};

struct Reply {
  int code = 0;
  std::vector<std::string> lines;  // the text after "NNN-" / "NNN "
  std::string Text() const { return lines.empty() ? "" : lines.front(); }
};

// One SMTP connection: a non-blocking socket, TLS once started, a read buffer. Every wait is
// bounded by the timeout, counted from the start of the read or write it serves.
class Connection {
 public:
  Connection(std::string where, int timeout_ms)
      : where_(std::move(where)), timeout_(timeout_ms > 0 ? timeout_ms : 10000) {}
  ~Connection() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    if (fd_ >= 0) ::close(fd_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool tls() const { return ssl_ != nullptr; }
  bool HasBufferedInput() const { return pos_ < in_.size(); }

  Step<void> Connect(const std::string& host, uint16_t port);
  Step<void> StartTls(SSL_CTX* ctx, const std::string& host);
  Step<void> Write(std::string_view bytes);
  Step<Reply> ReadReply();

 private:
  Clock::time_point Deadline() const { return Clock::now() + std::chrono::milliseconds(timeout_); }
  Step<void> Wait(short events, Clock::time_point deadline, std::string_view doing);
  Step<void> Fill(Clock::time_point deadline);
  Unexpected<SendResult> Broken(std::string what) const {
    return Stop(SendOutcome::kRetry, 0, "smtp " + where_ + ": " + what);
  }

  std::string where_;
  int timeout_;
  int fd_ = -1;
  SSL* ssl_ = nullptr;
  std::string in_;
  size_t pos_ = 0;
};

Step<void> Connection::Wait(short events, Clock::time_point deadline, std::string_view doing) {
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      return Broken("timed out after " + std::to_string(timeout_) + " ms " + std::string(doing));
    }
    pollfd p{fd_, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n > 0) return {};
    if (n < 0 && errno != EINTR) return Broken(std::string("poll: ") + std::strerror(errno));
  }
}

Step<void> Connection::Connect(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return Broken(std::string("cannot resolve the host: ") + gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> list(found, freeaddrinfo);
  std::string last = "no address";
  const auto deadline = Deadline();
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      last = std::strerror(errno);
      continue;
    }
    fd_ = fd;
    int err = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      auto waited = Wait(POLLOUT, deadline, "connecting");
      if (!waited) {
        ::close(fd);
        fd_ = -1;
        return waited;
      }
      socklen_t len = sizeof(err);
      if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    }
    if (err == 0) return {};
    last = std::strerror(err);
    ::close(fd);
    fd_ = -1;
  }
  return Broken("cannot connect: " + last);
}

Step<void> Connection::StartTls(SSL_CTX* ctx, const std::string& host) {
  ERR_clear_error();
  ssl_ = SSL_new(ctx);
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1) {
    return Stop(SendOutcome::kPermanent, 0, "smtp " + where_ + ": TLS: " + OpenSslErrors());
  }
  // An IP address is checked against the certificate's IP entries; a name against its DNS
  // names, and sent as SNI.
  in6_addr scratch{};
  const bool is_ip = inet_pton(AF_INET, host.c_str(), &scratch) == 1 ||
                     inet_pton(AF_INET6, host.c_str(), &scratch) == 1;
  bool set = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str()) == 1
                   : SSL_set_tlsext_host_name(ssl_, host.c_str()) == 1 &&
                         SSL_set1_host(ssl_, host.c_str()) == 1;
  if (!set) return Stop(SendOutcome::kPermanent, 0, "smtp " + where_ + ": TLS: bad host name");
  SSL_set_hostflags(ssl_, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  const auto deadline = Deadline();
  while (true) {
    SigpipeGuard guard;
    const int rc = SSL_connect(ssl_);
    if (rc == 1) return {};
    const int err = SSL_get_error(ssl_, rc);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      SLUICE_SMTP_TRY(
          Wait(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline, "in the TLS handshake"));
      continue;
    }
    const long verify = SSL_get_verify_result(ssl_);
    if (verify != X509_V_OK) {
      ERR_clear_error();
      return Stop(SendOutcome::kPermanent, 0,
                  "smtp " + where_ + ": TLS certificate verification failed: " +
                      X509_verify_cert_error_string(verify));
    }
    return Broken("TLS handshake failed: " + OpenSslErrors());
  }
}

Step<void> Connection::Write(std::string_view bytes) {
  const auto deadline = Deadline();
  while (!bytes.empty()) {
    if (ssl_ == nullptr) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n > 0) {
        bytes.remove_prefix(static_cast<size_t>(n));
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        SLUICE_SMTP_TRY(Wait(POLLOUT, deadline, "sending"));
      } else if (n < 0 && errno != EINTR) {
        return Broken(std::string("send: ") + std::strerror(errno));
      }
      continue;
    }
    ERR_clear_error();
    SigpipeGuard guard;
    const int n =
        SSL_write(ssl_, bytes.data(), static_cast<int>(std::min<size_t>(bytes.size(), 1 << 20)));
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    const int err = SSL_get_error(ssl_, n);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      SLUICE_SMTP_TRY(Wait(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline, "sending"));
      continue;
    }
    return Broken("TLS write failed: " + OpenSslErrors());
  }
  return {};
}

// Read more bytes into the buffer; an orderly close before a full reply is a broken connection.
Step<void> Connection::Fill(Clock::time_point deadline) {
  if (pos_ > 0) {
    in_.erase(0, pos_);
    pos_ = 0;
  }
  std::array<char, 16384> buf;
  while (true) {
    if (ssl_ == nullptr) {
      const ssize_t n = ::recv(fd_, buf.data(), buf.size(), 0);
      if (n > 0) {
        in_.append(buf.data(), static_cast<size_t>(n));
        return {};
      }
      if (n == 0) return Broken("the server closed the connection");
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        SLUICE_SMTP_TRY(Wait(POLLIN, deadline, "waiting for a reply"));
      } else if (errno != EINTR) {
        return Broken(std::string("recv: ") + std::strerror(errno));
      }
      continue;
    }
    ERR_clear_error();
    SigpipeGuard guard;  // a read may write too (a TLS alert, a key update)
    const int n = SSL_read(ssl_, buf.data(), static_cast<int>(buf.size()));
    if (n > 0) {
      in_.append(buf.data(), static_cast<size_t>(n));
      return {};
    }
    const int err = SSL_get_error(ssl_, n);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      SLUICE_SMTP_TRY(
          Wait(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline, "waiting for a reply"));
      continue;
    }
    if (err == SSL_ERROR_ZERO_RETURN) return Broken("the server closed the connection");
    return Broken("TLS read failed: " + OpenSslErrors());
  }
}

// One reply, single- or multi-line: "NNN-text" lines then "NNN text", all with the same code.
Step<Reply> Connection::ReadReply() {
  const auto deadline = Deadline();
  Reply reply;
  size_t taken = 0;
  auto malformed = [&](std::string why) {
    return Stop(SendOutcome::kPermanent, reply.code, "smtp " + where_ + ": " + why);
  };
  while (true) {
    const size_t eol = in_.find('\n', pos_);
    if (eol == std::string::npos) {
      if (taken + (in_.size() - pos_) > kMaxReplyBytes) {
        return malformed("reply longer than 64 KiB");
      }
      SLUICE_SMTP_TRY(Fill(deadline));
      continue;
    }
    std::string_view line(in_.data() + pos_, eol - pos_);
    taken += line.size() + 1;
    pos_ = eol + 1;
    if (taken > kMaxReplyBytes) return malformed("reply longer than 64 KiB");
    if (EndsWith(line, "\r")) line.remove_suffix(1);
    const bool shaped = line.size() >= 3 && line[0] >= '2' && line[0] <= '5' && line[1] >= '0' &&
                        line[1] <= '9' && line[2] >= '0' && line[2] <= '9' &&
                        (line.size() == 3 || line[3] == ' ' || line[3] == '-');
    if (!shaped) {
      return malformed("malformed reply: \"" + EscapeForMessage(line, 80) + "\"");
    }
    const int code = (line[0] - '0') * 100 + (line[1] - '0') * 10 + (line[2] - '0');
    if (reply.code != 0 && code != reply.code) {
      return malformed("reply lines with different codes");
    }
    reply.code = code;
    reply.lines.emplace_back(line.size() > 4 ? line.substr(4) : "");
    if (line.size() == 3 || line[3] == ' ') return reply;
  }
}

// ---- The message -----------------------------------------------------------------------------

std::string OneLine(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\r' || c == '\n' || c == '\t' || c == '\0') c = ' ';
  }
  return out;
}

bool IsPrintableAscii(std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return false;
  }
  return true;
}

// RFC 2047 encoded words for a non-ASCII (or very long) subject, each at most 75 characters and
// split between UTF-8 characters, folded onto continuation lines.
std::string EncodeSubject(std::string_view subject) {
  if (IsPrintableAscii(subject) && subject.size() <= 900) return std::string(subject);
  constexpr size_t kMaxRaw = 45;  // 60 base64 characters + "=?UTF-8?B?" + "?=" <= 75
  std::string out;
  size_t i = 0;
  while (i < subject.size()) {
    size_t end = std::min(subject.size(), i + kMaxRaw);
    while (end < subject.size() && end > i + 1 &&
           (static_cast<unsigned char>(subject[end]) & 0xC0) == 0x80) {
      --end;
    }
    if (!out.empty()) out += "\r\n ";
    out += "=?UTF-8?B?" + Base64Encode(subject.substr(i, end - i)) + "?=";
    i = end;
  }
  return out;
}

std::string RfcDate(std::time_t now) {
  static constexpr std::array<const char*, 7> kDays = {"Sun", "Mon", "Tue", "Wed",
                                                       "Thu", "Fri", "Sat"};
  static constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday],
                tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return buf.data();
}

// The id as a Message-ID's left part: letters, digits, '-', '_' and inner dots kept.
std::string MessageIdPart(std::string_view id) {
  std::string out;
  for (char c : id) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_';
    out += keep ? c : '-';
  }
  if (out.empty()) {
    std::array<unsigned char, 12> random{};
    RAND_bytes(random.data(), random.size());
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char b : random) {
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
  }
  return out.substr(0, 200);
}

// Quoted-printable (RFC 2045) for one line, with soft breaks to keep lines within 76 characters.
void AppendQuotedPrintable(std::string& out, std::string_view line) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  size_t width = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const auto u = static_cast<unsigned char>(line[i]);
    const bool last = i + 1 == line.size();
    const bool literal = (u >= 33 && u <= 126 && u != '=') || ((u == ' ' || u == '\t') && !last);
    const size_t need = literal ? 1 : 3;
    if (width + need > 75) {
      out += "=\r\n";
      width = 0;
    }
    if (literal) {
      out += static_cast<char>(u);
    } else {
      out += '=';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
    width += need;
  }
}

// Headers and body as DATA carries them: CRLF line endings, dot-stuffed, ending in "\r\n.\r\n".
std::string BuildData(const SmtpUrl& url, const Message& message, std::time_t now) {
  std::vector<std::string_view> lines = SplitString(message.body, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  bool seven_bit = true;
  for (std::string_view& line : lines) {
    if (EndsWith(line, "\r")) line.remove_suffix(1);
    for (char c : line) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u >= 0x7f) seven_bit = false;
    }
    if (line.size() > 998) seven_bit = false;
  }
  const std::string domain = url.from.substr(url.from.rfind('@') + 1);
  std::string content_type = OneLine(message.content_type);
  if (content_type.empty()) content_type = "text/plain; charset=utf-8";
  std::string head;
  head += "From: " + url.from + "\r\n";
  // Folded between addresses so that many recipients never make an over-long line.
  head += "To: ";
  size_t width = 4;
  for (size_t i = 0; i < url.to.size(); ++i) {
    if (i > 0) {
      const bool fold = width + url.to[i].size() + 2 > 78;
      head += fold ? ",\r\n " : ", ";
      width = fold ? 1 : width + 2;
    }
    head += url.to[i];
    width += url.to[i].size();
  }
  head += "\r\n";
  head += "Subject: " + EncodeSubject(OneLine(message.subject)) + "\r\n";
  head += "Date: " + RfcDate(now) + "\r\n";
  head += "Message-ID: <" + MessageIdPart(message.id) + "@" + domain + ">\r\n";
  if (!message.id.empty()) head += "X-Sluice-Delivery: " + MessageIdPart(message.id) + "\r\n";
  head += "MIME-Version: 1.0\r\n";
  head += "Content-Type: " + content_type + "\r\n";
  head += std::string("Content-Transfer-Encoding: ") + (seven_bit ? "7bit" : "quoted-printable") +
          "\r\n\r\n";
  std::string body;
  for (std::string_view line : lines) {
    if (seven_bit) {
      body += line;
    } else {
      AppendQuotedPrintable(body, line);
    }
    body += "\r\n";
  }
  // Dot-stuffing (RFC 5321 4.5.2): every line that starts with '.' gets one more.
  std::string data;
  data.reserve(head.size() + body.size() + body.size() / 64 + 8);
  data += head;
  bool line_start = true;
  for (char c : body) {
    if (line_start && c == '.') data += '.';
    data += c;
    line_start = c == '\n';
  }
  data += ".\r\n";
  return data;
}

// ---- The dialogue ----------------------------------------------------------------------------

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

  Step<SendResult> Run(const Message& message);
  /// After a refusal the dialogue is still in step: say goodbye (best effort, bounded by the
  /// timeout) rather than drop the connection.
  void QuitAfterRefusal();
  /// The password and its base64 forms, to remove from any text that leaves this file.
  std::vector<std::string> Secrets() const;

 private:
  Step<void> Hello();
  Step<void> SecureChannel(SSL_CTX* ctx);
  Step<void> Authenticate();
  Step<Reply> Command(std::string_view line, std::string_view what, int expected);
  Unexpected<SendResult> Refused(const Reply& reply, std::string_view what);
  Step<SslCtxPtr> MakeTlsContext() const;

  const SmtpUrl& url_;
  const SendOptions& options_;
  Connection conn_;
  ServerFeatures features_;
  std::string password_;
  bool refused_ = false;
};

Unexpected<SendResult> Session::Refused(const Reply& reply, std::string_view what) {
  refused_ = true;
  const int first = reply.code / 100;
  const SendOutcome outcome = first == 4 ? SendOutcome::kRetry : SendOutcome::kPermanent;
  std::string detail =
      "smtp " + url_.where + ": " + std::string(what) + " refused: " + std::to_string(reply.code);
  if (first != 4 && first != 5) detail += " (unexpected)";
  if (!reply.Text().empty()) detail += " " + EscapeForMessage(reply.Text(), kMaxDetailQuote);
  return Stop(outcome, reply.code, std::move(detail));
}

// Send one command line and read its reply; any code but `expected` ends the dialogue. `what`
// names the command in messages, so an AUTH line's credentials never reach one.
Step<Reply> Session::Command(std::string_view line, std::string_view what, int expected) {
  std::string bytes(line);
  bytes += "\r\n";
  auto written = conn_.Write(bytes);
  OPENSSL_cleanse(bytes.data(), bytes.size());
  SLUICE_SMTP_TRY(written);
  SLUICE_SMTP_ASSIGN(Reply reply, conn_.ReadReply());
  if (reply.code != expected) return Refused(reply, what);
  return reply;
}

Step<void> Session::Hello() {
  const std::string name = LocalHostName();
  SLUICE_SMTP_TRY(conn_.Write("EHLO " + name + "\r\n"));
  SLUICE_SMTP_ASSIGN(Reply reply, conn_.ReadReply());
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

Step<SslCtxPtr> Session::MakeTlsContext() const {
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return Stop(SendOutcome::kPermanent, 0, "smtp: TLS: " + OpenSslErrors());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  if (!options_.ca_cert.empty()) {
    if (SSL_CTX_load_verify_locations(ctx.get(), options_.ca_cert.c_str(), nullptr) != 1) {
      ERR_clear_error();
      return Stop(SendOutcome::kPermanent, 0,
                  "smtp: cannot load CA certificates from " + options_.ca_cert);
    }
  } else if (SSL_CTX_set_default_verify_paths(ctx.get()) != 1) {
    return Stop(SendOutcome::kPermanent, 0, "smtp: TLS: no CA certificates: " + OpenSslErrors());
  }
  return ctx;
}

// STARTTLS when the mode and the server call for it, then EHLO again: what the server said
// before TLS is not to be trusted.
Step<void> Session::SecureChannel(SSL_CTX* ctx) {
  if (conn_.tls() || url_.tls == TlsMode::kOff) return {};
  if (!features_.starttls) {
    if (url_.tls == TlsMode::kAuto) return {};
    return Stop(SendOutcome::kPermanent, 0,
                "smtp " + url_.where +
                    ": the server does not offer STARTTLS (starttls=required); nothing was sent");
  }
  SLUICE_SMTP_TRY(Command("STARTTLS", "STARTTLS", 220));
  if (conn_.HasBufferedInput()) {
    return Stop(SendOutcome::kPermanent, 0,
                "smtp " + url_.where + ": bytes after the reply to STARTTLS (an injection?)");
  }
  SLUICE_SMTP_TRY(conn_.StartTls(ctx, url_.host));
  return Hello();
}

Step<void> Session::Authenticate() {
  if (url_.user.empty()) return {};
  const char* value = std::getenv(url_.password_env.c_str());
  if (value == nullptr || *value == '\0') {
    return Stop(SendOutcome::kPermanent, 0,
                "smtp " + url_.where + ": the password variable " + url_.password_env +
                    " is unset or empty");
  }
  password_ = value;
  if (!conn_.tls() && !url_.loopback) {
    return Stop(SendOutcome::kPermanent, 0,
                "smtp " + url_.where + ": refusing to send a password without TLS");
  }
  if (!features_.auth) {
    return Stop(SendOutcome::kPermanent, 0, "smtp " + url_.where + ": the server offers no AUTH");
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
  return Stop(SendOutcome::kPermanent, 0,
              "smtp " + url_.where + ": the server offers neither AUTH PLAIN nor AUTH LOGIN");
}

Step<SendResult> Session::Run(const Message& message) {
  SslCtxPtr ctx;
  if (url_.tls != TlsMode::kOff) {
    SLUICE_SMTP_ASSIGN(ctx, MakeTlsContext());
  }
  SLUICE_SMTP_TRY(conn_.Connect(url_.host, url_.port));
  if (url_.tls == TlsMode::kImplicit) SLUICE_SMTP_TRY(conn_.StartTls(ctx.get(), url_.host));
  SLUICE_SMTP_ASSIGN(Reply greeting, conn_.ReadReply());
  if (greeting.code != 220) return Refused(greeting, "the greeting");
  SLUICE_SMTP_TRY(Hello());
  SLUICE_SMTP_TRY(SecureChannel(ctx.get()));
  SLUICE_SMTP_TRY(Authenticate());
  SLUICE_SMTP_TRY(Command("MAIL FROM:<" + url_.from + ">", "MAIL FROM", 250));
  for (const std::string& to : url_.to) {
    SLUICE_SMTP_TRY(conn_.Write("RCPT TO:<" + to + ">\r\n"));
    SLUICE_SMTP_ASSIGN(Reply reply, conn_.ReadReply());
    if (reply.code != 250 && reply.code != 251) return Refused(reply, "RCPT TO <" + to + ">");
  }
  SLUICE_SMTP_TRY(Command("DATA", "DATA", 354));
  SLUICE_SMTP_TRY(conn_.Write(BuildData(url_, message, std::time(nullptr))));
  SLUICE_SMTP_ASSIGN(Reply accepted, conn_.ReadReply());
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

SendResult SendSmtp(std::string_view smtp_url, const Message& message, const SendOptions& options) {
  auto url = ParseSmtpUrl(smtp_url);
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

}  // namespace sluice::alert
