// The endpoints' shared pieces, the session endpoint, and the two ways of reaching a registry.
#include <algorithm>
#include <charconv>
#include <utility>

#include "sluice/base/json_writer.h"
#include "sluice/ui/api_internal.h"

namespace sluice::ui {

using registry::HttpRequest;
using registry::HttpResponse;

Result<NamedPath> ParseNamedPath(std::string_view flag) {
  NamedPath out;
  const size_t eq = flag.find('=');
  if (eq != std::string_view::npos) {
    out.name = std::string(flag.substr(0, eq));
    out.path = std::string(flag.substr(eq + 1));
  } else {
    out.path = std::string(flag);
    std::string_view p = flag;
    while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
    const size_t slash = p.rfind('/');
    out.name = std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
  }
  if (out.name.empty() || out.path.empty() || out.name == "/") {
    return InvalidArgument("expected NAME=PATH or a PATH with a folder name: " + std::string(flag));
  }
  return out;
}

RegistryCall LocalRegistry(registry::Registry* registry) {
  return [registry](std::string_view method, std::string_view target, std::string_view body,
                    const HttpRequest&, const registry::UserPolicy* user) -> Result<RegistryReply> {
    registry::Response r = registry->Handle({method, target, body}, user);
    return RegistryReply{r.status, std::move(r.body)};
  };
}

RegistryCall RemoteRegistry(std::shared_ptr<registry::Client> client) {
  return [client](std::string_view method, std::string_view target, std::string_view body,
                  const HttpRequest& request,
                  const registry::UserPolicy*) -> Result<RegistryReply> {
    std::vector<std::pair<std::string, std::string>> headers;
    if (const std::string* auth = request.Header("Authorization")) {
      headers.emplace_back("Authorization", *auth);
    }
    SLUICE_ASSIGN_OR_RETURN(registry::HttpReply reply, client->Call(method, target, body, headers));
    return RegistryReply{reply.status, std::move(reply.body)};
  };
}

namespace internal {

std::optional<int64_t> ApiRequest::Count(std::string_view name, int64_t fallback,
                                         int64_t max) const {
  auto it = query.find(std::string(name));
  if (it == query.end() || it->second.empty()) return fallback;
  int64_t n = 0;
  const char* end = it->second.data() + it->second.size();
  auto [ptr, ec] = std::from_chars(it->second.data(), end, n);
  if (ec != std::errc() || ptr != end || n < 0) return std::nullopt;
  return std::min(n, max);
}

HttpResponse Json(int status, std::string body) {
  return HttpResponse{status, "application/json", std::move(body), {}};
}

HttpResponse ApiError(int status, int code, std::string_view message) {
  JsonWriter w;
  w.BeginObject().Key("error_code").Int(code).Key("message").String(message).EndObject();
  return Json(status, w.Take());
}

HttpResponse NotFound(std::string_view message) { return ApiError(404, 40401, message); }

HttpResponse FromError(const Error& error) {
  if (error.code() == ErrorCode::kNotFound) return NotFound(error.message());
  if (error.code() == ErrorCode::kInvalidArgument || error.code() == ErrorCode::kParseError) {
    return ApiError(422, 42201, error.message());
  }
  return ApiError(500, 50001, error.message());
}

bool MayRead(const registry::UserPolicy* user) { return !user || !user->grants().empty(); }

const NamedPath* FindNamed(const std::vector<NamedPath>& list, std::string_view name) {
  for (const NamedPath& n : list) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

namespace {

void NamedList(JsonWriter& w, std::string_view key, const std::vector<NamedPath>& list) {
  w.Key(key).BeginArray();
  for (const NamedPath& n : list) {
    w.BeginObject().Key("name").String(n.name).Key("path").String(n.path).EndObject();
  }
  w.EndArray();
}

}  // namespace

HttpResponse Session(const UiOptions& options, const ApiRequest& request) {
  JsonWriter w;
  w.BeginObject().Key("user");
  if (request.user) {
    w.String(request.user->name());
  } else {
    w.Null();
  }
  w.Key("grants").BeginArray();
  if (request.user) {
    for (const registry::Grant& g : request.user->grants()) {
      w.BeginObject().Key("prefix").String(g.prefix);
      w.Key("permission").String(registry::PermissionName(g.permission)).EndObject();
    }
  } else {
    w.BeginObject().Key("prefix").String("").Key("permission").String("admin").EndObject();
  }
  w.EndArray();
  w.Key("csrfToken").String(options.csrf_token);
  w.Key("registry").Bool(static_cast<bool>(options.registry));
  // Paths only for a reader: a user with no grant sees the names of nothing.
  const bool may_read = MayRead(request.user);
  NamedList(w, "tables", may_read ? options.tables : std::vector<NamedPath>{});
  NamedList(w, "ingest", may_read ? options.ingest : std::vector<NamedPath>{});
  NamedList(w, "alerts", may_read ? options.alerts : std::vector<NamedPath>{});
  w.EndObject();
  return Json(200, w.Take());
}

}  // namespace internal
}  // namespace sluice::ui
