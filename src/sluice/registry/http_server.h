// An HTTP/1.1 server on an epoll event loop: one I/O thread accepts connections, reads and parses
// requests (http_parser.h) and writes answers, plain or TLS; a pool of handler threads turns
// complete requests into answers. Slow clients cost a descriptor and a few hundred bytes each,
// never a handler thread, and every phase of a connection has a deadline.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/registry/http_parser.h"

namespace sluice::registry {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 8081;       // 0: any free port (see HttpServer::port)
  std::string tls_cert;  // PEM files; both set for HTTPS
  std::string tls_key;
  int threads = 64;  // handler threads: requests answered at once
  HttpLimits limits;
  /// The whole request, head and body (and the TLS handshake of a new connection), must
  /// arrive within this, counted from its first byte (from the accept for a new connection).
  std::chrono::milliseconds request_timeout{10000};
  /// A client silent this long in the middle of a request, or not taking any of an answer for
  /// this long, is dropped.
  std::chrono::milliseconds idle_timeout{10000};
  /// A connection with no request under way is closed after this long.
  std::chrono::milliseconds keep_alive_timeout{5000};
  /// After Stop(), requests already received get this long to be answered.
  std::chrono::milliseconds shutdown_grace{5000};
  /// After an answer that closes the connection (an error, or a stop), what the client still
  /// sends is read and dropped for up to this long, so that a client that sends a whole body
  /// before reading sees the answer rather than a reset.
  std::chrono::milliseconds linger{2000};
  /// Open connections in all, and from one client address; more are refused (503 on plain
  /// HTTP, closed on TLS). The total is also held below the process's descriptor limit.
  size_t max_connections = 10000;
  size_t max_connections_per_client = 128;
};

struct HttpResponse {
  int status = 200;
  std::string content_type;
  std::string body;
  /// Further headers, e.g. WWW-Authenticate. The server writes Content-Length, Connection and
  /// Keep-Alive itself.
  std::vector<std::pair<std::string, std::string>> headers;
};

class HttpServer {
 public:
  /// Answers one complete request. Called on a handler thread, several at once; must not throw.
  using Handler = std::function<HttpResponse(HttpRequest& request)>;
  /// The answer to a request the server refuses itself (400, 408, 413, 414, 431, 501, 503, and
  /// 500 if a handler throws), with a short fixed text. Called on any of the server's threads;
  /// must be quick and not throw.
  using ErrorAnswer = std::function<HttpResponse(int status, std::string_view message)>;

  /// Check the options and load the TLS files. kInvalidArgument names what is wrong.
  static Result<std::unique_ptr<HttpServer>> Create(HttpServerOptions options, Handler handler,
                                                    ErrorAnswer error_answer);
  /// Stops and joins the threads if Run is still going (call Stop and wait for Run first).
  ~HttpServer();

  /// Bind and listen; afterwards port() is the bound port. Raises the process's soft limit on
  /// open files to its hard limit, so that connections are bounded by max_connections.
  Status Bind();
  int port() const;
  /// Serve on the calling thread until Stop(); returns once every connection is closed and the
  /// handler threads have finished.
  Status Run();
  /// Stop accepting at once, close connections with no request under way, let requests already
  /// received be answered within shutdown_grace, then close the rest. Safe to call from any
  /// thread and from a signal handler; later calls do nothing.
  void Stop();

  class Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::registry
