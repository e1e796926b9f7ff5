// One SMTP connection (smtp_internal.h): a non-blocking socket, OpenSSL for TLS, poll(2) for
// every wait, and a reply reader that refuses what is not SMTP.
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "sluice/alert/smtp_internal.h"
#include "sluice/base/strings.h"

namespace sluice::alert::internal {
namespace {

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

}  // namespace

Unexpected<SendResult> SmtpStop(SendOutcome outcome, int status, std::string detail) {
  SendResult r;
  r.outcome = outcome;
  r.status = status;
  r.detail = std::move(detail);
  return Unexpected<SendResult>(std::move(r));
}

std::string OpenSslErrorText() {
  std::string out;
  while (const unsigned long e = ERR_get_error()) {
    std::array<char, 256> buf{};
    ERR_error_string_n(e, buf.data(), buf.size());
    if (!out.empty()) out += "; ";
    out += buf.data();
  }
  return out.empty() ? "no detail" : out;
}

SmtpConnection::SmtpConnection(std::string where, int timeout_ms)
    : where_(std::move(where)), timeout_ms_(timeout_ms > 0 ? timeout_ms : 10000) {}

SmtpConnection::~SmtpConnection() {
  if (ssl_ != nullptr) SSL_free(ssl_);
  if (fd_ >= 0) ::close(fd_);
}

SmtpConnection::Clock::time_point SmtpConnection::Deadline() const {
  return Clock::now() + std::chrono::milliseconds(timeout_ms_);
}

Unexpected<SendResult> SmtpConnection::Broken(std::string what) const {
  return SmtpStop(SendOutcome::kRetry, 0, "smtp " + where_ + ": " + what);
}

SmtpStep<void> SmtpConnection::Wait(short events, Clock::time_point deadline,
                                    std::string_view doing) {
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      return Broken("timed out after " + std::to_string(timeout_ms_) + " ms " + std::string(doing));
    }
    pollfd p{fd_, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n > 0) return {};
    if (n < 0 && errno != EINTR) return Broken(std::string("poll: ") + std::strerror(errno));
  }
}

SmtpStep<void> SmtpConnection::Connect(const std::string& host, uint16_t port) {
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

SmtpStep<void> SmtpConnection::StartTls(SSL_CTX* ctx, const std::string& host) {
  ERR_clear_error();
  ssl_ = SSL_new(ctx);
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1) {
    return SmtpStop(SendOutcome::kPermanent, 0, "smtp " + where_ + ": TLS: " + OpenSslErrorText());
  }
  // An IP address is checked against the certificate's IP entries; a name against its DNS
  // names, and sent as SNI.
  in6_addr scratch{};
  const bool is_ip = inet_pton(AF_INET, host.c_str(), &scratch) == 1 ||
                     inet_pton(AF_INET6, host.c_str(), &scratch) == 1;
  bool set = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str()) == 1
                   : SSL_set_tlsext_host_name(ssl_, host.c_str()) == 1 &&
                         SSL_set1_host(ssl_, host.c_str()) == 1;
  if (!set) return SmtpStop(SendOutcome::kPermanent, 0, "smtp " + where_ + ": TLS: bad host name");
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
      return SmtpStop(SendOutcome::kPermanent, 0,
                      "smtp " + where_ + ": TLS certificate verification failed: " +
                          X509_verify_cert_error_string(verify));
    }
    return Broken("TLS handshake failed: " + OpenSslErrorText());
  }
}

SmtpStep<void> SmtpConnection::Write(std::string_view bytes) {
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
    return Broken("TLS write failed: " + OpenSslErrorText());
  }
  return {};
}

// Read more bytes into the buffer; an orderly close before a full reply is a broken connection.
SmtpStep<void> SmtpConnection::Fill(Clock::time_point deadline) {
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
    // A TCP close without TLS's close_notify shows as SSL_ERROR_SYSCALL with nothing queued.
    if (err == SSL_ERROR_ZERO_RETURN || (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)) {
      ERR_clear_error();
      return Broken("the server closed the connection");
    }
    return Broken("TLS read failed: " + OpenSslErrorText());
  }
}

// One reply, single- or multi-line: "NNN-text" lines then "NNN text", all with the same code.
SmtpStep<SmtpReply> SmtpConnection::ReadReply() {
  const auto deadline = Deadline();
  SmtpReply reply;
  size_t taken = 0;
  auto malformed = [&](std::string why) {
    return SmtpStop(SendOutcome::kPermanent, reply.code, "smtp " + where_ + ": " + why);
  };
  while (true) {
    const size_t eol = in_.find('\n', pos_);
    if (eol == std::string::npos) {
      if (taken + (in_.size() - pos_) > kMaxSmtpReplyBytes) {
        return malformed("reply longer than 64 KiB");
      }
      SLUICE_SMTP_TRY(Fill(deadline));
      continue;
    }
    std::string_view line(in_.data() + pos_, eol - pos_);
    taken += line.size() + 1;
    pos_ = eol + 1;
    if (taken > kMaxSmtpReplyBytes) return malformed("reply longer than 64 KiB");
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

}  // namespace sluice::alert::internal
