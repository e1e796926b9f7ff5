#include "sluice/ui/ui.h"

#include <initializer_list>
#include <map>
#include <utility>
#include <vector>

#include "sluice/base/json_writer.h"
#include "sluice/ui/api_internal.h"
#include "sluice/ui/assets.h"

namespace sluice::ui {
namespace {

using internal::ApiRequest;
using registry::HttpRequest;
using registry::HttpResponse;

constexpr std::string_view kCsp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// Every /ui answer, whatever it is: the page runs only its own files, is never framed, and
// leaks no URL to other sites.
void AddSecurityHeaders(HttpResponse& r) {
  for (const auto& [k, v] : r.headers) {
    if (k == "Content-Security-Policy") return;  // added already
  }
  r.headers.emplace_back("Content-Security-Policy", std::string(kCsp));
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  r.headers.emplace_back("X-Frame-Options", "DENY");
}

bool IsUiPath(std::string_view target) {
  std::string_view path = target.substr(0, target.find('?'));
  return path == "/ui" || path.starts_with("/ui/");
}

bool HasHeader(const HttpResponse& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return true;
  }
  return false;
}

// Split a raw path into segments and decode each one: %2F inside a segment stays in it.
std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    out.push_back(registry::PercentDecode(path.substr(start, slash - start)));
    start = slash + 1;
  }
  return out;
}

std::map<std::string, std::string> Query(std::string_view query) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start < query.size()) {
    size_t amp = query.find('&', start);
    if (amp == std::string_view::npos) amp = query.size();
    std::string_view pair = query.substr(start, amp - start);
    size_t eq = pair.find('=');
    std::string key = registry::PercentDecode(pair.substr(0, eq), true);
    std::string value =
        eq == std::string_view::npos ? "" : registry::PercentDecode(pair.substr(eq + 1), true);
    out.emplace(std::move(key), std::move(value));
    start = amp + 1;
  }
  return out;
}

HttpResponse ServeAsset(const Asset& asset, const HttpRequest& request, bool is_index) {
  HttpResponse r;
  r.headers.emplace_back("ETag", asset.etag);
  // index.html is the page itself: never stored, so a new binary's page is seen at once. The
  // other files are revalidated with their ETag.
  r.headers.emplace_back("Cache-Control", is_index ? "no-store" : "no-cache");
  const std::string* match = request.Header("If-None-Match");
  if (!is_index && match && *match == asset.etag) {
    r.status = 304;
    return r;
  }
  r.content_type = asset.content_type;
  r.body.assign(asset.data, asset.size);
  return r;
}

HttpResponse PlainError(int status, std::string_view text) {
  HttpResponse r{status, "text/plain; charset=utf-8", std::string(text) + "\n", {}};
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

}  // namespace

class Ui::Impl {
 public:
  explicit Impl(UiOptions options) : options_(std::move(options)) {
    if (!options_.fs) options_.fs = LocalFileSystem();
  }

  std::optional<HttpResponse> Handle(HttpRequest& request, const registry::UserPolicy* user) {
    std::string_view target = request.target;
    const size_t q = target.find('?');
    std::string_view path = target.substr(0, q);
    std::string_view query = q == std::string_view::npos ? "" : target.substr(q + 1);
    if (!IsUiPath(path)) {
      if (options_.forward_registry && options_.registry) return Forward(request, user);
      return std::nullopt;
    }
    HttpResponse r = Route(request, user, path, query);
    AddSecurityHeaders(r);
    return r;
  }

 private:
  HttpResponse Route(HttpRequest& request, const registry::UserPolicy* user, std::string_view path,
                     std::string_view query) {
    const bool read = request.method == "GET" || request.method == "HEAD";
    std::vector<std::string> segs = Segments(path.substr(1));  // "ui", ...
    if (segs.size() >= 2 && segs[1] == "api") {
      if (!read) {
        HttpResponse r = internal::ApiError(405, 405, "Method not allowed");
        r.headers.emplace_back("Allow", "GET, HEAD");
        return r;
      }
      ApiRequest api;
      api.segments.assign(segs.begin() + 2, segs.end());
      api.query = Query(query);
      api.http = &request;
      api.user = user;
      HttpResponse r = Api(api);
      if (!HasHeader(r, "Cache-Control")) r.headers.emplace_back("Cache-Control", "no-store");
      return r;
    }
    if (!read) {
      HttpResponse r = PlainError(405, "Method not allowed");
      r.headers.emplace_back("Allow", "GET, HEAD");
      return r;
    }
    if (segs.size() >= 2 && segs[1] == "assets") {
      std::string name;
      for (size_t i = 2; i < segs.size(); ++i) name += (i > 2 ? "/" : "") + segs[i];
      const Asset* asset = FindAsset(name);
      if (!asset) return PlainError(404, "Not found");
      return ServeAsset(*asset, request, name == "index.html");
    }
    // Any other page is a client-side route: the page reads its own URL.
    const Asset* index = FindAsset("index.html");
    if (!index) return PlainError(404, "Not found");
    return ServeAsset(*index, request, true);
  }

  HttpResponse Api(const ApiRequest& api) {
    const auto& s = api.segments;
    auto is = [&](std::initializer_list<std::string_view> shape) {
      if (s.size() != shape.size()) return false;
      size_t i = 0;
      for (std::string_view want : shape) {
        if (want != "*" && s[i] != want) return false;
        if (want == "*" && s[i].empty()) return false;
        ++i;
      }
      return true;
    };
    using namespace internal;
    if (is({"session"})) return Session(options_, api);
    if (is({"subjects"})) return SubjectList(options_, api);
    if (is({"subjects", "*", "versions", "*", "tree"})) return SubjectTree(options_, api);
    if (is({"subjects", "*", "diff"})) return SubjectDiff(options_, api);
    if (is({"subjects", "*", "verdicts"})) return SubjectVerdicts(options_, api);
    if (is({"tables"})) return TableList(options_, api);
    if (is({"tables", "*", "history"})) return TableHistory(options_, api);
    if (is({"tables", "*", "schema"})) return TableSchema(options_, api);
    if (is({"ingest"})) return IngestList(options_, api);
    if (is({"ingest", "*", "batches"})) return IngestBatches(options_, api);
    if (is({"ingest", "*", "quarantine"})) return IngestQuarantine(options_, api);
    if (is({"alerts"})) return AlertList(options_, api);
    return ApiError(404, 404, "HTTP 404 Not Found");
  }

  std::optional<HttpResponse> Forward(HttpRequest& request, const registry::UserPolicy* user) {
    auto reply = options_.registry(request.method, request.target, request.body, request, user);
    if (!reply.has_value()) {
      return internal::ApiError(502, 50201, reply.error().message());
    }
    HttpResponse r{
        reply->status, "application/vnd.schemaregistry.v1+json", std::move(reply->body), {}};
    // The registry asked for credentials: so does this server, so that the browser asks the
    // user and sends them along from then on.
    if (r.status == 401) {
      r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"sluice schema registry\"");
    }
    return r;
  }

  UiOptions options_;
};

Ui::Ui(UiOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Ui::~Ui() = default;

std::optional<HttpResponse> Ui::Handle(HttpRequest& request, const registry::UserPolicy* user) {
  return impl_->Handle(request, user);
}

void Ui::Finish(const HttpRequest& request, HttpResponse& response) const {
  if (IsUiPath(request.target)) AddSecurityHeaders(response);
}

void Install(std::shared_ptr<Ui> ui, registry::ServerOptions& options) {
  options.handler = [ui](HttpRequest& request, const registry::UserPolicy* user) {
    return ui->Handle(request, user);
  };
  options.finish = [ui](const HttpRequest& request, HttpResponse& response) {
    ui->Finish(request, response);
  };
}

}  // namespace sluice::ui
