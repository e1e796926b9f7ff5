#include "sluice/registry/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>

namespace sluice::registry {
namespace {

constexpr const char* kContentType = "application/vnd.schemaregistry.v1+json";
// Latency histogram bucket bounds, in seconds.
constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                             0.05,   0.1,   0.25,   0.5,   1.0,  2.5};

std::string ErrorBody(int code, std::string_view message) {
  std::string b = "{\"error_code\":" + std::to_string(code) + ",\"message\":\"";
  b += message;  // fixed ASCII texts only
  b += "\"}";
  return b;
}

std::string LabelValue(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

class Server::Impl {
 public:
  Impl(std::unique_ptr<Registry> registry, std::unique_ptr<Users> users, ServerOptions options)
      : registry_(std::move(registry)), users_(std::move(users)), options_(std::move(options)) {}

  Status Setup() {
    if (!options_.tls_cert.empty() || !options_.tls_key.empty()) {
      if (options_.tls_cert.empty() || options_.tls_key.empty()) {
        return InvalidArgument("--tls-cert and --tls-key go together");
      }
      auto ssl =
          std::make_unique<httplib::SSLServer>(options_.tls_cert.c_str(), options_.tls_key.c_str());
      if (!ssl->is_valid()) {
        return InvalidArgument("cannot load the TLS certificate " + options_.tls_cert +
                               " and key " + options_.tls_key);
      }
      http_ = std::move(ssl);
    } else {
      http_ = std::make_unique<httplib::Server>();
    }
    const int threads = std::max(1, options_.threads);
    http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    http_->set_payload_max_length(options_.max_body_bytes);
    http_->set_read_timeout(options_.read_timeout_seconds, 0);
    http_->set_write_timeout(options_.read_timeout_seconds, 0);
    http_->set_keep_alive_max_count(100000);
    // cpp-httplib writes the headers and the body separately; with Nagle's algorithm on, the
    // body would wait for the client's delayed ACK (about 40 ms on Linux) on every answer.
    http_->set_tcp_nodelay(true);
    // cpp-httplib's own options set SO_REUSEPORT, which lets a second server bind a port that is
    // in use and silently share it; SO_REUSEADDR alone still allows a quick restart. The
    // listening socket is kept to raise its backlog after the bind (below).
    http_->set_socket_options([this](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
      listen_fd_ = sock;
    });
    http_->set_keep_alive_timeout(options_.keep_alive_timeout_seconds);
    // Every path goes to Serve, which routes itself (httplib reads the body first).
    auto serve = [this](const httplib::Request& req, httplib::Response& res) { Serve(req, res); };
    http_->Get(".*", serve);
    http_->Post(".*", serve);
    http_->Put(".*", serve);
    http_->Delete(".*", serve);
    http_->Patch(".*", serve);
    http_->Options(".*", serve);
    // Errors httplib answers itself (413 for a body over the limit, 400 for a bad request
    // line) get Confluent's error body too.
    http_->set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (!res.body.empty()) return;
      const char* text = res.status == 413   ? "Request body too large"
                         : res.status == 414 ? "Request URI too long"
                         : res.status == 400 ? "Bad request"
                                             : "Request failed";
      res.set_content(ErrorBody(res.status, text), kContentType);
    });
    return Ok();
  }

  void Serve(const httplib::Request& req, httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    std::string route;
    const UserPolicy* user = nullptr;
    if (users_) {
      user = users_->Authenticate(req.get_header_value("Authorization"));
      if (!user) {
        res.status = 401;
        res.set_header("WWW-Authenticate", "Basic realm=\"sluice schema registry\"");
        res.set_content(ErrorBody(401, "Unauthorized"), kContentType);
        Record("unauthenticated", 401, start);
        return;
      }
    }
    if (req.method == "GET" && (req.path == "/metrics" || req.target == "/metrics")) {
      res.set_content(MetricsText(), "text/plain; version=0.0.4");
      Record("GET /metrics", 200, start);
      return;
    }
    Response r = registry_->Handle({req.method, req.target, req.body}, user);
    res.status = r.status;
    res.set_content(std::move(r.body), kContentType);
    Record(r.route, r.status, start);
  }

  void Record(const std::string& route, int status, std::chrono::steady_clock::time_point start) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::lock_guard<std::mutex> lock(mu_);
    ++requests_[{route, status}];
    Histogram& h = latency_[route];
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      if (secs <= kBuckets[i]) ++h.buckets[i];
    }
    ++h.count;
    h.sum += secs;
  }

  std::string MetricsText() {
    std::string out;
    out += "# HELP sluice_registry_requests_total Requests served, by route and status.\n";
    out += "# TYPE sluice_registry_requests_total counter\n";
    char buf[64];
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [key, n] : requests_) {
        out += "sluice_registry_requests_total{route=\"" + LabelValue(key.first) + "\",status=\"" +
               std::to_string(key.second) + "\"} " + std::to_string(n) + "\n";
      }
      out += "# HELP sluice_registry_request_seconds Time to answer a request, by route.\n";
      out += "# TYPE sluice_registry_request_seconds histogram\n";
      for (const auto& [route, h] : latency_) {
        const std::string label = "route=\"" + LabelValue(route) + "\"";
        for (size_t i = 0; i < kBuckets.size(); ++i) {
          std::snprintf(buf, sizeof buf, "%g", kBuckets[i]);
          out += "sluice_registry_request_seconds_bucket{" + label + ",le=\"" + buf + "\"} " +
                 std::to_string(h.buckets[i]) + "\n";
        }
        out += "sluice_registry_request_seconds_bucket{" + label + ",le=\"+Inf\"} " +
               std::to_string(h.count) + "\n";
        std::snprintf(buf, sizeof buf, "%.9g", h.sum);
        out += "sluice_registry_request_seconds_sum{" + label + "} " + buf + "\n";
        out += "sluice_registry_request_seconds_count{" + label + "} " + std::to_string(h.count) +
               "\n";
      }
    }
    auto counts = registry_->CountObjects();
    out += "# HELP sluice_registry_subjects Subjects with at least one live version.\n";
    out += "# TYPE sluice_registry_subjects gauge\n";
    out += "sluice_registry_subjects " +
           std::to_string(counts.has_value() ? counts->subjects : -1) + "\n";
    out += "# HELP sluice_registry_schemas Schema ids that resolve.\n";
    out += "# TYPE sluice_registry_schemas gauge\n";
    out += "sluice_registry_schemas " + std::to_string(counts.has_value() ? counts->schemas : -1) +
           "\n";
    return out;
  }

  Status Bind() {
    if (options_.port == 0) {
      port_ = http_->bind_to_any_port(options_.host);
      if (port_ <= 0) return IoError("cannot bind to " + options_.host);
    } else {
      if (!http_->bind_to_port(options_.host, options_.port)) {
        return IoError("cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                       " (in use, or not an address of this machine)");
      }
      port_ = options_.port;
    }
    // cpp-httplib 0.11 listens with a backlog of 5: with more clients connecting at once the
    // rest are dropped and wait for a SYN retransmit (a second). Listening again on the bound
    // socket raises the backlog.
    if (listen_fd_ >= 0) ::listen(listen_fd_, SOMAXCONN);
    return Ok();
  }

  Status Run() {
    if (!http_->listen_after_bind()) return IoError("the server stopped with an error");
    return Ok();
  }

  std::unique_ptr<Registry> registry_;
  std::unique_ptr<Users> users_;
  ServerOptions options_;
  std::unique_ptr<httplib::Server> http_;
  int listen_fd_ = -1;  // the listening socket, once created
  int port_ = 0;

  struct Histogram {
    std::array<uint64_t, kBuckets.size()> buckets{};
    uint64_t count = 0;
    double sum = 0;
  };
  std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  std::map<std::string, Histogram> latency_;
};

Result<std::unique_ptr<Server>> Server::Create(std::unique_ptr<Registry> registry,
                                               std::unique_ptr<Users> users,
                                               const ServerOptions& options) {
  auto impl = std::make_unique<Impl>(std::move(registry), std::move(users), options);
  SLUICE_TRY(impl->Setup());
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;
Status Server::Bind() { return impl_->Bind(); }
int Server::port() const { return impl_->port_; }
Status Server::Run() { return impl_->Run(); }
void Server::Stop() { impl_->http_->stop(); }
std::string Server::MetricsText() { return impl_->MetricsText(); }

}  // namespace sluice::registry
