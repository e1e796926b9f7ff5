// Routing a request: the target split into path segments (each percent-decoded) and a decoded
// query, matched against a table of routes, one row per endpoint.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/registry/api_error_internal.h"
#include "sluice/registry/registry.h"

namespace sluice::registry::internal {

/// The query string, decoded ('+' is a space).
class Query {
 public:
  explicit Query(std::string_view query_text);

  /// The first value of `name`, or nullptr.
  const std::string* Get(std::string_view name) const;
  /// Whether `name` is "true", ignoring case (Python's client sends `deleted=False`).
  bool Bool(std::string_view name) const;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

/// A request target's path as segments, each percent-decoded after splitting (so a subject may
/// hold an encoded '/'), and its query text. Leading and trailing slashes are ignored.
struct Target {
  std::vector<std::string> segments;
  std::string_view query;
};
Target SplitTarget(std::string_view target);

/// The parameters a route's pattern names: {subject}, {id} and {version}.
struct PathParams {
  std::optional<std::string> subject;
  std::string id;
  std::string version;
};

class Service;
struct Call;
/// A handler answers 200 with the JSON it returns, or the API error it fails with.
using Handler = Result<std::string> (Service::*)(const Call&);

/// Who may call a route.
enum class Access : uint8_t {
  kSubject,  // the route's permission on its {subject}, or on the registry without one
  kHandler,  // the handler shows only what the caller may read (listings, ids, fixed answers)
};

/// One endpoint.
struct Route {
  std::string_view method;
  /// Literal segments and parameters: "/subjects/{subject}/versions/{version}".
  std::string_view pattern;
  Permission permission;
  Access access;
  /// nullptr for a route that always answers `fixed_answer` without the store.
  Handler handler;
  std::string_view fixed_answer = {};
};

/// Matches targets against a route table. Immutable after construction; safe to share.
class Router {
 public:
  /// `routes` must outlive the router.
  explicit Router(std::span<const Route> routes);

  struct Match {
    /// nullptr when no route matches the path and method.
    const Route* route = nullptr;
    /// The metrics name of the route: "GET /schemas/ids/{id}".
    const std::string* name = nullptr;
    PathParams params;
    /// No route matched, but one matches the path with another method (405, not 404).
    bool path_known = false;
  };
  /// The first route whose method and pattern match.
  Match Find(std::string_view method, const std::vector<std::string>& segments) const;

 private:
  struct Compiled {
    const Route* route;
    std::string name;
    /// Literal segments as they are; parameters as "{name}".
    std::vector<std::string_view> segments;
  };
  static bool Matches(const Compiled& c, const std::vector<std::string>& segments,
                      PathParams* params);
  std::vector<Compiled> routes_;
};

}  // namespace sluice::registry::internal
