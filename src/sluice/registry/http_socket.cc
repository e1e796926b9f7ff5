#include <openssl/err.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "sluice/registry/http_socket_internal.h"

namespace sluice::registry::internal {

Result<std::unique_ptr<TlsContext>> TlsContext::Load(const std::string& cert_path,
                                                     const std::string& key_path) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) return Internal("OpenSSL cannot make a TLS context");
  auto context = std::unique_ptr<TlsContext>(new TlsContext(ctx));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  // Partial writes and a moving buffer suit a write loop that resumes where it stopped; idle
  // connections give their buffers back, which matters with thousands of them open.
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                            SSL_MODE_RELEASE_BUFFERS);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_path.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, key_path.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx) != 1) {
    ERR_clear_error();
    return InvalidArgument("cannot load the TLS certificate " + cert_path + " and key " + key_path);
  }
  return context;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

SSL* TlsContext::NewSession(int fd) const {
  SSL* ssl = SSL_new(ctx_);
  if (!ssl) return nullptr;
  if (SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    return nullptr;
  }
  SSL_set_accept_state(ssl);
  return ssl;
}

Socket::~Socket() { Close(); }

void Socket::Close() {
  if (tls_) SSL_free(tls_);
  tls_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

IoResult Socket::TlsResult(int ret) {
  const int error = SSL_get_error(tls_, ret);
  // The error queue is per thread and shared by every session on it: leave nothing behind.
  ERR_clear_error();
  switch (error) {
    case SSL_ERROR_WANT_READ:
      return {IoStatus::kWantRead, 0};
    case SSL_ERROR_WANT_WRITE:
      return {IoStatus::kWantWrite, 0};
    case SSL_ERROR_ZERO_RETURN:
      return {IoStatus::kEof, 0};
    default:
      return {IoStatus::kError, 0};
  }
}

IoResult Socket::Handshake() {
  if (!tls_) return {IoStatus::kDone, 0};
  const int ret = SSL_do_handshake(tls_);
  if (ret == 1) return {IoStatus::kDone, 0};
  return TlsResult(ret);
}

IoResult Socket::Read(char* buf, size_t capacity) {
  if (tls_) {
    const int ret = SSL_read(tls_, buf, static_cast<int>(std::min<size_t>(capacity, INT_MAX)));
    if (ret > 0) return {IoStatus::kDone, static_cast<size_t>(ret)};
    return TlsResult(ret);
  }
  while (true) {
    const ssize_t n = ::recv(fd_, buf, capacity, 0);
    if (n > 0) return {IoStatus::kDone, static_cast<size_t>(n)};
    if (n == 0) return {IoStatus::kEof, 0};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {IoStatus::kWantRead, 0};
    return {IoStatus::kError, 0};
  }
}

IoResult Socket::Write(const char* data, size_t size) {
  if (tls_) {
    const int ret = SSL_write(tls_, data, static_cast<int>(std::min<size_t>(size, INT_MAX)));
    if (ret > 0) return {IoStatus::kDone, static_cast<size_t>(ret)};
    return TlsResult(ret);
  }
  while (true) {
    // MSG_NOSIGNAL: a peer that went away is an error here, not a SIGPIPE for the process.
    const ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL);
    if (n >= 0) return {IoStatus::kDone, static_cast<size_t>(n)};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {IoStatus::kWantWrite, 0};
    return {IoStatus::kError, 0};
  }
}

IoResult Socket::Discard(char* scratch, size_t capacity) {
  while (true) {
    const ssize_t n = ::recv(fd_, scratch, capacity, 0);
    if (n > 0) return {IoStatus::kDone, static_cast<size_t>(n)};
    if (n == 0) return {IoStatus::kEof, 0};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {IoStatus::kWantRead, 0};
    return {IoStatus::kError, 0};
  }
}

void Socket::ShutdownWrite() {
  if (tls_) {
    // One non-blocking attempt: the alert goes out if the socket has room, and the client
    // learns of the close from the FIN either way.
    SSL_shutdown(tls_);
    ERR_clear_error();
  }
  ::shutdown(fd_, SHUT_WR);
}

}  // namespace sluice::registry::internal
