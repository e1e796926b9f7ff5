#include "sluice/base/strings.h"
#include "sluice/registry/router_internal.h"

namespace sluice::registry {

std::string PercentDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%' && i + 2 < s.size()) {
      int hi = hex(s[i + 1]);
      int lo = hex(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && c == '+') ? ' ' : c;
  }
  return out;
}

namespace internal {

Query::Query(std::string_view q) {
  while (!q.empty()) {
    size_t amp = q.find('&');
    std::string_view part = q.substr(0, amp);
    q = amp == std::string_view::npos ? std::string_view() : q.substr(amp + 1);
    if (part.empty()) continue;
    size_t eq = part.find('=');
    items_.emplace_back(
        PercentDecode(part.substr(0, eq), true),
        eq == std::string_view::npos ? std::string() : PercentDecode(part.substr(eq + 1), true));
  }
}

const std::string* Query::Get(std::string_view name) const {
  for (const auto& [k, v] : items_) {
    if (k == name) return &v;
  }
  return nullptr;
}

bool Query::Bool(std::string_view name) const {
  const std::string* v = Get(name);
  return v && EqualsIgnoreCase(*v, "true");
}

Target SplitTarget(std::string_view target) {
  Target t;
  if (size_t qm = target.find('?'); qm != std::string_view::npos) {
    t.query = target.substr(qm + 1);
    target = target.substr(0, qm);
  }
  while (!target.empty() && target.front() == '/') target.remove_prefix(1);
  while (!target.empty() && target.back() == '/') target.remove_suffix(1);
  while (!target.empty()) {
    size_t slash = target.find('/');
    t.segments.push_back(PercentDecode(target.substr(0, slash)));
    target = slash == std::string_view::npos ? std::string_view() : target.substr(slash + 1);
  }
  return t;
}

Router::Router(std::span<const Route> routes) {
  routes_.reserve(routes.size());
  for (const Route& r : routes) {
    Compiled c{&r, std::string(r.method) + " " + std::string(r.pattern), {}};
    std::string_view p = r.pattern;
    while (!p.empty() && p.front() == '/') p.remove_prefix(1);
    while (!p.empty()) {
      size_t slash = p.find('/');
      c.segments.push_back(p.substr(0, slash));
      p = slash == std::string_view::npos ? std::string_view() : p.substr(slash + 1);
    }
    routes_.push_back(std::move(c));
  }
}

bool Router::Matches(const Compiled& c, const std::vector<std::string>& segments,
                     PathParams* params) {
  if (c.segments.size() != segments.size()) return false;
  for (size_t i = 0; i < segments.size(); ++i) {
    const std::string_view want = c.segments[i];
    if (want.starts_with('{')) continue;
    if (want != segments[i]) return false;
  }
  if (params == nullptr) return true;
  for (size_t i = 0; i < segments.size(); ++i) {
    const std::string_view want = c.segments[i];
    if (want == "{subject}") {
      params->subject = segments[i];
    } else if (want == "{id}") {
      params->id = segments[i];
    } else if (want == "{version}") {
      params->version = segments[i];
    }
  }
  return true;
}

Router::Match Router::Find(std::string_view method,
                           const std::vector<std::string>& segments) const {
  Match m;
  for (const Compiled& c : routes_) {
    if (c.route->method != method) {
      m.path_known = m.path_known || Matches(c, segments, nullptr);
      continue;
    }
    if (Matches(c, segments, &m.params)) {
      m.route = c.route;
      m.name = &c.name;
      return m;
    }
  }
  return m;
}

}  // namespace internal
}  // namespace sluice::registry
