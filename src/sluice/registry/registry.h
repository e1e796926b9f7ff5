// A Confluent-compatible schema registry: the REST API as a function from request to response,
// over a Store, with sluice's compatibility engine deciding what may be registered. The HTTP
// server (server.h) only carries bytes to and from Registry::Handle, so everything the API does
// can be tested and fuzzed without a socket.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "sluice/evolution/compatibility.h"
#include "sluice/registry/store.h"

namespace sluice::registry {

/// What an operation needs: read (GET and lookups), write (register), admin (config, mode,
/// delete).
enum class Permission : uint8_t { kRead, kWrite, kAdmin };
std::string_view PermissionName(Permission p);

/// Who may do what. nullptr (no policy) allows everything.
class AccessPolicy {
 public:
  virtual ~AccessPolicy() = default;
  /// Whether `p` is allowed on `subject`; an empty subject is the registry as a whole (global
  /// config and mode).
  virtual bool Allows(Permission p, std::string_view subject) const = 0;
};

/// A version the registry has just stored (after its commit), for observers such as drift
/// alerts. `previous_schema` is the subject's latest live version before it, empty for the
/// first; texts are as stored (Avro's compact form, compact JSON).
struct NewVersionEvent {
  std::string subject;
  int64_t version = 0;
  int64_t id = 0;
  std::string schema_type;  // "AVRO", "JSON"
  std::string schema;
  std::string previous_schema;
  evolution::CompatibilityMode mode = evolution::CompatibilityMode::kBackward;
};

struct RegistryOptions {
  /// The compatibility level when neither the subject nor the registry sets one.
  evolution::CompatibilityMode default_compatibility = evolution::CompatibilityMode::kBackward;
  /// Schemas nested deeper than this (JSON levels) are rejected with 42201.
  size_t max_schema_depth = 128;
  /// The error_code of an incompatible registration: Confluent's 409 (what every client
  /// version understands) or 40901 (Confluent 8.1+).
  int incompatible_error_code = 409;
  /// Called once for every new version stored by a registration (not for idempotent repeats
  /// or imports), after the commit, on the request's thread: keep it short (drift alerts only
  /// store the alert in their outbox and deliver on a thread of their own).
  std::function<void(const NewVersionEvent&)> on_new_version;
};

struct Request {
  std::string_view method;  // GET, POST, PUT, DELETE
  std::string_view target;  // the path and query as sent: /subjects/a%2Fb/versions?deleted=true
  std::string_view body;
};

struct Response {
  int status = 200;
  std::string body;
  /// The matched route for metrics, e.g. "GET /schemas/ids/{id}"; "unmatched" if none.
  std::string route;
};

class Registry {
 public:
  Registry(std::unique_ptr<Store> store, RegistryOptions options = {});
  ~Registry();

  /// Answer one request. Never throws; bad input gets a 4xx with Confluent's error body, a
  /// store failure 500 with 50001.
  Response Handle(const Request& request, const AccessPolicy* policy = nullptr);

  Store& store() { return *store_; }

  /// Counts for /metrics: live subjects and schemas (ids with at least one version).
  struct Counts {
    int64_t subjects = 0;
    int64_t schemas = 0;
  };
  Result<Counts> CountObjects();

  class Impl;

 private:
  std::unique_ptr<Store> store_;
  std::unique_ptr<Impl> impl_;
};

/// Percent-decode one URL component ('+' stays '+'; `plus_is_space` for query strings).
std::string PercentDecode(std::string_view s, bool plus_is_space = false);

}  // namespace sluice::registry
