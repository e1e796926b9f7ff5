// One accepted connection's byte stream, plain TCP or TLS (OpenSSL in non-blocking mode), for
// the HTTP server's event loop: every call returns at once, saying whether it needs the socket
// to become readable or writable first.
#pragma once

#include <openssl/ssl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "sluice/base/result.h"

namespace sluice::registry::internal {

enum class IoStatus : uint8_t {
  kDone,       // `bytes` were moved (for a handshake: it is finished)
  kWantRead,   // try again once the socket is readable
  kWantWrite,  // try again once the socket is writable
  kEof,        // the peer closed its side
  kError,      // the connection is unusable
};

struct IoResult {
  IoStatus status = IoStatus::kDone;
  size_t bytes = 0;
};

/// The server's certificate and key, shared by every TLS connection. Thread-safe.
class TlsContext {
 public:
  /// Load a PEM certificate chain and private key; errors name the files.
  static Result<std::unique_ptr<TlsContext>> Load(const std::string& cert_path,
                                                  const std::string& key_path);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  /// A server-side session on `fd`, or nullptr when OpenSSL cannot make one.
  SSL* NewSession(int fd) const;

 private:
  explicit TlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  SSL_CTX* ctx_;
};

/// A non-blocking stream socket, with TLS when made with a session. Owns the descriptor and the
/// session; closes both when destroyed. Used by one thread at a time.
class Socket {
 public:
  Socket(int fd, SSL* tls) : fd_(fd), tls_(tls) {}
  ~Socket();
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  /// Continue the TLS handshake (kDone at once for plain TCP).
  IoResult Handshake();
  /// Read decrypted bytes into `buf`. kDone with bytes > 0, or why not.
  IoResult Read(char* buf, size_t capacity);
  /// Write up to `size` bytes; kDone with the count written (perhaps fewer), or why not.
  IoResult Write(const char* data, size_t size);
  /// Read raw bytes from the descriptor and drop them (a closing connection's unread input).
  IoResult Discard(char* scratch, size_t capacity);
  /// Say the server will send no more: TLS close_notify (best effort), then a TCP FIN.
  void ShutdownWrite();
  /// Free the session and close the descriptor now; later calls fail with kError.
  void Close();

  int fd() const { return fd_; }
  bool tls() const { return tls_ != nullptr; }

 private:
  IoResult TlsResult(int ret);

  int fd_;
  SSL* tls_;
};

}  // namespace sluice::registry::internal
