#include "sluice/registry/client.h"

#include <httplib.h>

#include "sluice/base/json.h"

namespace sluice::registry {

class Client::Impl {
 public:
  std::unique_ptr<httplib::Client> http;
  std::string base_path;  // the URL's path, prefixed to every request
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
  const std::string full = impl_->base_path + std::string(path);
  const char* type = "application/vnd.schemaregistry.v1+json";
  httplib::Headers headers = {
      {"Accept", "application/vnd.schemaregistry.v1+json, application/json"}};
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
    return IoError("cannot reach the registry: " + httplib::to_string(res.error()));
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
