// The registry's HTTP(S) server: cpp-httplib carrying requests to Registry::Handle, with basic
// auth, a body size limit, read timeouts for slow clients and Prometheus metrics.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "sluice/base/result.h"
#include "sluice/registry/auth.h"
#include "sluice/registry/registry.h"

namespace sluice::registry {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8081;       // 0: any free port (see Server::port)
  std::string tls_cert;  // PEM files; both set for HTTPS
  std::string tls_key;
  size_t max_body_bytes = 16u << 20;  // larger bodies get 413
  int threads = 64;                   // requests served at once
  int read_timeout_seconds = 10;      // a client slower than this is dropped
  /// An idle keep-alive connection is closed after this long. A stop (SIGTERM) waits for idle
  /// connections up to this long, so it bounds the shutdown time too.
  int keep_alive_timeout_seconds = 5;
};

class Server {
 public:
  /// `users` may be null: no authentication.
  static Result<std::unique_ptr<Server>> Create(std::unique_ptr<Registry> registry,
                                                std::unique_ptr<Users> users,
                                                const ServerOptions& options);
  ~Server();

  /// Bind the socket; afterwards port() is the bound port.
  Status Bind();
  int port() const;
  /// Serve until Stop(); returns when the server has stopped.
  Status Run();
  void Stop();

  /// The text /metrics returns.
  std::string MetricsText();

  class Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::registry
