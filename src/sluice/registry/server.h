// The registry's HTTP(S) server: the event-loop HTTP server (http_server.h) carrying requests to
// Registry::Handle, with basic auth, Prometheus metrics, and the limits that keep slow, huge and
// many clients from taking it down (body size, request deadlines, connection caps).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/registry/auth.h"
#include "sluice/registry/http_server.h"
#include "sluice/registry/registry.h"

namespace sluice::registry {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8081;       // 0: any free port (see Server::port)
  std::string tls_cert;  // PEM files; both set for HTTPS
  std::string tls_key;
  size_t max_body_bytes = 16u << 20;  // larger bodies get 413, whatever their framing
  int threads = 64;                   // requests served at once
  /// A request's head and body must arrive within this many seconds of its first byte (408).
  int request_timeout_seconds = 10;
  /// A client silent this long mid-request, or not reading its answer, is dropped.
  int read_timeout_seconds = 10;
  /// An idle keep-alive connection is closed after this long.
  int keep_alive_timeout_seconds = 5;
  /// After Stop (SIGTERM), requests already received get this long to be answered.
  int shutdown_grace_seconds = 5;
  size_t max_connections = 10000;
  size_t max_connections_per_client = 128;  // per client IP address
  /// Sees every request after authentication (`user` is null without a users file) and after
  /// the CSRF check, before the REST API: a response answers the request, nullopt passes it
  /// on. Called on handler threads, several at once; must not throw.
  std::function<std::optional<HttpResponse>(HttpRequest& request, const UserPolicy* user)> handler;
  /// A last look at every answer the server gives, its own refusals (401, 403) included, e.g.
  /// to add the UI's security headers on its paths. Same threading rules as `handler`.
  std::function<void(const HttpRequest& request, HttpResponse& response)> finish;
  /// The token a browser's mutating request must carry in `X-Sluice-CSRF` (see CsrfCheck);
  /// empty: the server makes a random one (Server::csrf_token).
  std::string csrf_token;
};

/// A random token of 32 lowercase hex digits, for ServerOptions::csrf_token.
std::string NewCsrfToken();

/// Whether a request passes the CSRF rule: a POST, PUT, DELETE or PATCH that comes from a
/// browser (it carries an `Origin`, `Sec-Fetch-Site` or `Cookie` header) must carry
/// `X-Sluice-CSRF: <token>`, and its `Origin`, when present, must be the server's own
/// (`http[s]://` + the request's `Host`). Requests without those headers (curl, Confluent's
/// clients) and safe methods always pass.
bool CsrfCheck(const HttpRequest& request, std::string_view token, bool tls);

class Server {
 public:
  /// `users` may be null: no authentication. `registry` may be null: only options.handler
  /// answers, and what it passes on gets 404.
  static Result<std::unique_ptr<Server>> Create(std::unique_ptr<Registry> registry,
                                                std::unique_ptr<Users> users,
                                                const ServerOptions& options);
  ~Server();

  /// Bind the socket; afterwards port() is the bound port.
  Status Bind();
  int port() const;
  /// Serve until Stop(); returns when the server has stopped.
  Status Run();
  /// Stop accepting and shut down within the grace period; safe from a signal handler.
  void Stop();

  /// The token of ServerOptions::csrf_token (made at Create when none was given).
  const std::string& csrf_token() const;

  /// The text /metrics returns.
  std::string MetricsText();

  class Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::registry
