#include "sluice/registry/server.h"

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>

#include "sluice/base/strings.h"
#include "sluice/registry/http_server.h"

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

// Whether a target names /metrics: its path, percent-decoded, with any query.
bool IsMetricsPath(std::string_view target) {
  return PercentDecode(target.substr(0, target.find('?'))) == "/metrics";
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

bool IsMutating(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "DELETE" || method == "PATCH";
}

// Whether two ASCII strings are equal ignoring case (host names are).
bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Compares in time independent of where the strings differ, so the token cannot be guessed
// byte by byte from answer times.
bool SameToken(std::string_view a, std::string_view b) {
  if (a.size() != b.size() || a.empty()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

std::string NewCsrfToken() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    // Without OpenSSL's generator, fall back to the clock and the address space: still unknown
    // to a page on another origin, which is all the token has to be.
    const uint64_t a =
        static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
    const uint64_t b = reinterpret_cast<uintptr_t>(&bytes) * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 8; ++i) {
      bytes[i] = static_cast<unsigned char>(a >> (8 * i));
      bytes[8 + i] = static_cast<unsigned char>(b >> (8 * i));
    }
  }
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

bool CsrfCheck(const HttpRequest& request, std::string_view token, bool tls) {
  if (!IsMutating(request.method)) return true;
  const std::string* origin = request.Header("Origin");
  const bool from_browser = origin || request.Header("Sec-Fetch-Site") || request.Header("Cookie");
  if (!from_browser) return true;
  const std::string* sent = request.Header("X-Sluice-CSRF");
  if (!sent || !SameToken(*sent, token)) return false;
  if (origin) {
    const std::string* host = request.Header("Host");
    if (!host || host->empty()) return false;
    const std::string own = std::string(tls ? "https://" : "http://") + *host;
    if (!EqualsIgnoreCase(*origin, own)) return false;
  }
  return true;
}

class Server::Impl {
 public:
  Impl(std::unique_ptr<Registry> registry, std::unique_ptr<Users> users, ServerOptions options)
      : registry_(std::move(registry)), users_(std::move(users)), options_(std::move(options)) {}

  Status Setup() {
    if (options_.csrf_token.empty()) options_.csrf_token = NewCsrfToken();
    HttpServerOptions o;
    o.host = options_.host;
    o.port = options_.port;
    o.tls_cert = options_.tls_cert;
    o.tls_key = options_.tls_key;
    o.threads = std::max(1, options_.threads);
    o.limits.max_body_bytes = options_.max_body_bytes;
    o.request_timeout = std::chrono::seconds(options_.request_timeout_seconds);
    o.idle_timeout = std::chrono::seconds(options_.read_timeout_seconds);
    o.keep_alive_timeout = std::chrono::seconds(options_.keep_alive_timeout_seconds);
    o.shutdown_grace = std::chrono::seconds(options_.shutdown_grace_seconds);
    o.max_connections = options_.max_connections;
    o.max_connections_per_client = options_.max_connections_per_client;
    // Errors the HTTP layer answers itself (413 for a body over the limit, 400 for a bad
    // request line, 408 for a slow client) get Confluent's error body too.
    auto error_answer = [](int status, std::string_view message) {
      return HttpResponse{status, kContentType, ErrorBody(status, message), {}};
    };
    SLUICE_ASSIGN_OR_RETURN(http_, HttpServer::Create(
                                       std::move(o),
                                       [this](HttpRequest& req) {
                                         HttpResponse r = Serve(req);
                                         if (options_.finish) options_.finish(req, r);
                                         return r;
                                       },
                                       error_answer));
    return Ok();
  }

  HttpResponse Serve(HttpRequest& req) {
    const auto start = std::chrono::steady_clock::now();
    const UserPolicy* user = nullptr;
    if (users_) {
      const std::string* authorization = req.Header("Authorization");
      user = users_->Authenticate(authorization ? *authorization : std::string_view());
      if (!user) {
        Record("unauthenticated", 401, start);
        return {401,
                kContentType,
                ErrorBody(401, "Unauthorized"),
                {{"WWW-Authenticate", "Basic realm=\"sluice schema registry\""}}};
      }
    }
    // Before anything can change: a page on another origin must not be able to make a
    // logged-in browser register or delete (its basic-auth credentials are sent along).
    if (!CsrfCheck(req, options_.csrf_token, !options_.tls_cert.empty())) {
      Record("csrf", 403, start);
      return {403, kContentType, ErrorBody(40301, "CSRF check failed"), {}};
    }
    if (options_.handler) {
      std::optional<HttpResponse> answer = options_.handler(req, user);
      if (answer) {
        Record("ui", answer->status, start);
        return std::move(*answer);
      }
    }
    if (req.method == "GET" && IsMetricsPath(req.target)) {
      HttpResponse metrics{200, "text/plain; version=0.0.4", MetricsText(), {}};
      Record("GET /metrics", 200, start);
      return metrics;
    }
    if (!registry_) {
      Record("unmatched", 404, start);
      return {404, kContentType, ErrorBody(404, "HTTP 404 Not Found"), {}};
    }
    Response r = registry_->Handle({req.method, req.target, req.body}, user);
    Record(r.route, r.status, start);
    return {r.status, kContentType, std::move(r.body), {}};
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
    if (!registry_) return out;
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

  std::unique_ptr<Registry> registry_;
  std::unique_ptr<Users> users_;
  ServerOptions options_;

  struct Histogram {
    std::array<uint64_t, kBuckets.size()> buckets{};
    uint64_t count = 0;
    double sum = 0;
  };
  std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  std::map<std::string, Histogram> latency_;
  // Last: its handler threads use everything above, so it stops and goes first.
  std::unique_ptr<HttpServer> http_;
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
Status Server::Bind() { return impl_->http_->Bind(); }
int Server::port() const { return impl_->http_->port(); }
Status Server::Run() { return impl_->http_->Run(); }
void Server::Stop() { impl_->http_->Stop(); }
std::string Server::MetricsText() { return impl_->MetricsText(); }
const std::string& Server::csrf_token() const { return impl_->options_.csrf_token; }

}  // namespace sluice::registry
