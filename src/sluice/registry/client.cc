#include "sluice/registry/client.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "sluice/base/json.h"
#include "sluice/base/strings.h"

namespace sluice::registry {

namespace {

// Why a TCP connection to host:port fails: cpp-httplib says only "Connection", so connect once
// more and keep the system's reason ("connection refused", "no route to host", an unknown host).
std::string ConnectFailure(const std::string& host, int port, int timeout_seconds) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) return fmt::format("cannot resolve host '{}': {}", host, ::gai_strerror(rc));
  int err = 0;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      err = 0;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int ready = ::poll(&p, 1, timeout_seconds * 1000);
      socklen_t len = sizeof err;
      if (ready == 0) {
        err = ETIMEDOUT;
      } else if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno;
      }
    } else {
      err = errno;
    }
    ::close(fd);
    if (err == 0) break;
  }
  ::freeaddrinfo(found);
  if (err == 0) return "the connection failed, then succeeded when tried again";
  return AsciiLower(std::strerror(err));
}

}  // namespace

class Client::Impl {
 public:
  std::unique_ptr<httplib::Client> http;
  std::string url;        // as the user gave it, for messages
  std::string base_path;  // the URL's path, prefixed to every request
  int timeout_seconds = 10;
  bool has_ca_cert = false;

  std::string host;  // for a second connection attempt that says why the first failed
  int port = 80;

  // What went wrong, in words a user can act on.
  std::string Cause(httplib::Error e) const {
    using httplib::Error;
    if (e == Error::Connection) return ConnectFailure(host, port, timeout_seconds);
    if (e == Error::ConnectionTimeout) {
      return fmt::format("no connection within {} s", timeout_seconds);
    }
    if (e == Error::Read) return "the connection closed before the answer was read";
    if (e == Error::Write) return "the connection closed while the request was sent";
    if (e == Error::SSLConnection) return "the TLS handshake failed (is it an https server?)";
    if (e == Error::SSLLoadingCerts) return "cannot load the CA certificate given with --ca-cert";
    if (e == Error::SSLServerVerification) {
      return has_ca_cert ? "the server's certificate is not signed by --ca-cert"
                         : "the server's certificate cannot be verified (give --ca-cert)";
    }
    return AsciiLower(httplib::to_string(e));
  }
};

Result<std::unique_ptr<Client>> Client::Create(const ClientOptions& options) {
  std::string_view url = options.url;
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos ||
      (url.substr(0, scheme_end) != "http" && url.substr(0, scheme_end) != "https")) {
    return InvalidArgument("--url must start with http:// or https://: " + options.url);
  }
  size_t path_start = url.find('/', scheme_end + 3);
  std::string origin(url.substr(0, path_start));
  auto impl = std::make_unique<Impl>();
  impl->url = options.url;
  {
    // scheme://host[:port] or scheme://[v6]:port
    std::string_view authority = url.substr(scheme_end + 3, path_start == std::string_view::npos
                                                                ? std::string_view::npos
                                                                : path_start - scheme_end - 3);
    impl->port = url.substr(0, scheme_end) == "https" ? 443 : 80;
    size_t port_colon = authority.rfind(':');
    if (authority.starts_with('[')) {
      size_t close = authority.find(']');
      impl->host =
          std::string(authority.substr(1, close == std::string_view::npos ? 0 : close - 1));
      if (close == std::string_view::npos || port_colon < close)
        port_colon = std::string_view::npos;
    } else {
      impl->host = std::string(authority.substr(0, port_colon));
    }
    if (port_colon != std::string_view::npos) {
      impl->port = std::atoi(std::string(authority.substr(port_colon + 1)).c_str());
    }
  }
  impl->timeout_seconds = options.timeout_seconds;
  impl->has_ca_cert = !options.ca_cert.empty();
  if (path_start != std::string_view::npos) {
    impl->base_path = std::string(url.substr(path_start));
    while (!impl->base_path.empty() && impl->base_path.back() == '/') impl->base_path.pop_back();
  }
  impl->http = std::make_unique<httplib::Client>(origin);
  if (!impl->http->is_valid()) return InvalidArgument("invalid --url " + options.url);
  impl->http->set_connection_timeout(options.timeout_seconds, 0);
  impl->http->set_read_timeout(options.timeout_seconds, 0);
  impl->http->set_write_timeout(options.timeout_seconds, 0);
  impl->http->set_keep_alive(true);
  if (!options.ca_cert.empty()) impl->http->set_ca_cert_path(options.ca_cert);
  if (!options.user_info.empty()) {
    size_t colon = options.user_info.find(':');
    if (colon == std::string::npos) return InvalidArgument("--user must be USER:PASSWORD");
    impl->http->set_basic_auth(options.user_info.substr(0, colon),
                               options.user_info.substr(colon + 1));
  }
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

Result<HttpReply> Client::Call(std::string_view method, std::string_view path,
                               std::string_view body) {
  return Call(method, path, body, {});
}

Result<HttpReply> Client::Call(std::string_view method, std::string_view path,
                               std::string_view body,
                               const std::vector<std::pair<std::string, std::string>>& extra) {
  const std::string full = impl_->base_path + std::string(path);
  const char* type = "application/vnd.schemaregistry.v1+json";
  httplib::Headers headers = {
      {"Accept", "application/vnd.schemaregistry.v1+json, application/json"}};
  for (const auto& [name, value] : extra) headers.emplace(name, value);
  auto send = [&]() -> httplib::Result {
    if (method == "POST") {
      return impl_->http->Post(full.c_str(), headers, body.data(), body.size(), type);
    }
    if (method == "PUT") {
      return impl_->http->Put(full.c_str(), headers, body.data(), body.size(), type);
    }
    if (method == "DELETE") return impl_->http->Delete(full.c_str(), headers);
    return impl_->http->Get(full.c_str(), headers);
  };
  if (method != "GET" && method != "POST" && method != "PUT" && method != "DELETE") {
    return InvalidArgument("unsupported method " + std::string(method));
  }
  httplib::Result res = send();
  if (!res) {
    return IoError(
        fmt::format("cannot reach the registry at {}: {}", impl_->url, impl_->Cause(res.error())));
  }
  return HttpReply{res->status, res->body};
}

std::string Client::ErrorMessage(const HttpReply& reply) {
  auto v = ParseJson(reply.body);
  if (v.has_value() && v->is_object()) {
    const JsonValue* m = v->Find("message");
    const JsonValue* code = v->Find("error_code");
    if (m && m->is_string()) {
      std::string out = m->as_string();
      if (code && code->is_number()) out += " (error " + code->number_text() + ")";
      return out;
    }
  }
  return "HTTP " + std::to_string(reply.status) + ": " + reply.body;
}

std::string EncodeSegment(std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace sluice::registry
