// The edge of the API: route a request, check the subject and the caller's permission, run the
// handler on a store connection, and turn its result or error into an answer.
#include "sluice/registry/registry.h"

#include <charconv>

#include "sluice/registry/service_internal.h"

namespace sluice::registry {

using internal::ApiError;
using internal::HttpStatus;

std::string_view PermissionName(Permission p) {
  switch (p) {
    case Permission::kRead:
      return "read";
    case Permission::kWrite:
      return "write";
    case Permission::kAdmin:
      return "admin";
  }
  return "read";
}

class Registry::Impl {
 public:
  Impl(Store& store, const RegistryOptions& options)
      : store_(store), service_(options), router_(internal::RegistryRoutes()) {}

  Response Handle(const Request& req, const AccessPolicy* policy) {
    const internal::Target target = internal::SplitTarget(req.target);
    const internal::Query query(target.query);
    internal::Router::Match match = router_.Find(req.method, target.segments);
    if (match.route == nullptr) {
      Response r = match.path_known ? Answer(ApiError(405, 405, "HTTP 405 Method Not Allowed"))
                                    : Answer(ApiError(404, 404, "HTTP 404 Not Found"));
      r.route = "unmatched";
      return r;
    }
    Response r = Answer(Dispatch(*match.route, match.params, query, req.body, policy));
    r.route = *match.name;
    return r;
  }

  Result<Counts> CountObjects() {
    SLUICE_ASSIGN_OR_RETURN(auto c, store_.Acquire());
    SLUICE_ASSIGN_OR_RETURN(auto s, c->Query("SELECT COUNT(DISTINCT subject) FROM versions WHERE "
                                             "deleted = 0"));
    SLUICE_ASSIGN_OR_RETURN(auto i, c->Query("SELECT COUNT(DISTINCT schema_id) FROM versions"));
    auto count = [](const std::vector<SqlRow>& rows) -> int64_t {
      int64_t n = 0;
      if (!rows.empty() && rows[0][0]) {
        const std::string& text = *rows[0][0];
        std::from_chars(text.data(), text.data() + text.size(), n);
      }
      return n;
    };
    return Counts{count(s), count(i)};
  }

 private:
  static Response Answer(Result<std::string> result) {
    Response r;
    if (result.has_value()) {
      r.body = std::move(result).value();
    } else {
      r.status = HttpStatus(result.error());
      r.body = internal::ErrorBody(result.error());
    }
    return r;
  }
  static Response Answer(const Error& e) { return Answer(Result<std::string>(Fail(e))); }

  Result<std::string> Dispatch(const internal::Route& route, const internal::PathParams& params,
                               const internal::Query& query, std::string_view body,
                               const AccessPolicy* policy) {
    if (params.subject && !internal::ValidSubject(*params.subject)) {
      return Fail(
          ApiError(422, 42208, "The specified subject '" + *params.subject + "' is not a valid."));
    }
    const std::string_view subject = params.subject ? *params.subject : std::string_view("");
    if (policy != nullptr && route.access == internal::Access::kSubject &&
        !policy->Allows(route.permission, subject)) {
      return Fail(ApiError(403, 40301,
                           "User is denied " + std::string(PermissionName(route.permission)) +
                               " access to " +
                               (subject.empty() ? std::string("the registry")
                                                : "subject '" + std::string(subject) + "'")));
    }
    if (route.handler == nullptr) return std::string(route.fixed_answer);
    SLUICE_ASSIGN_OR_RETURN(Store::Lease lease, internal::FromStore(store_.Acquire()));
    internal::Catalog catalog(*lease);
    const internal::Call call{params, query, body, policy, catalog};
    return (service_.*route.handler)(call);
  }

  Store& store_;
  internal::Service service_;
  internal::Router router_;
};

Registry::Registry(std::unique_ptr<Store> store, RegistryOptions options)
    : store_(std::move(store)), impl_(std::make_unique<Impl>(*store_, options)) {}
Registry::~Registry() = default;

Response Registry::Handle(const Request& request, const AccessPolicy* policy) {
  return impl_->Handle(request, policy);
}

Result<Registry::Counts> Registry::CountObjects() { return impl_->CountObjects(); }

}  // namespace sluice::registry
