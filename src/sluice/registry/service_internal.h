// The registry's endpoints: one handler per route, each answering 200 with JSON or an API error
// (api_error_internal.h). Handlers are grouped by concern: schema_handlers.cc (ids and listings),
// subject_handlers.cc (versions, lookups, deletes), register_handler.cc, compatibility_handlers.cc
// and config_handlers.cc (config and mode); routes.cc holds the table that maps paths to them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json_writer.h"
#include "sluice/evolution/compatibility.h"
#include "sluice/registry/api_error_internal.h"
#include "sluice/registry/catalog_internal.h"
#include "sluice/registry/registry.h"
#include "sluice/registry/request_internal.h"
#include "sluice/registry/router_internal.h"
#include "sluice/registry/schemas_internal.h"

namespace sluice::registry::internal {

/// What a handler gets.
struct Call {
  const PathParams& path;
  const Query& query;
  std::string_view body;
  /// nullptr: everything is allowed.
  const AccessPolicy* policy;
  Catalog& catalog;

  /// The {subject} of the path; "" (the registry as a whole) when the route has none. Never a
  /// null view: the store binds one as SQL NULL.
  std::string_view subject() const {
    return path.subject ? std::string_view(*path.subject) : std::string_view("");
  }
};

/// The registry's routes, one row per endpoint.
std::span<const Route> RegistryRoutes();

/// The handlers. Thread-safe: one per registry, shared by every request.
class Service {
 public:
  explicit Service(const RegistryOptions& options)
      : options_(options), resolver_(options.max_schema_depth) {}

  // Schemas by id, and listings (schema_handlers.cc).
  Result<std::string> GetSchemaById(const Call& call);
  Result<std::string> GetSchemaText(const Call& call);
  Result<std::string> IdSubjects(const Call& call);
  Result<std::string> IdVersions(const Call& call);
  Result<std::string> ListSchemas(const Call& call);
  Result<std::string> ListSubjects(const Call& call);

  // A subject's versions (subject_handlers.cc).
  Result<std::string> ListVersions(const Call& call);
  Result<std::string> GetVersion(const Call& call);
  Result<std::string> GetVersionText(const Call& call);
  Result<std::string> ReferencedBy(const Call& call);
  Result<std::string> LookupSchema(const Call& call);
  Result<std::string> DeleteSubject(const Call& call);
  Result<std::string> DeleteVersion(const Call& call);

  // Registration (register_handler.cc).
  Result<std::string> RegisterSchema(const Call& call);
  /// The event RegistryOptions::on_new_version gets for a version being stored.
  Result<NewVersionEvent> NewVersion(Catalog& catalog, std::string_view subject, int64_t version,
                                     int64_t id, const std::vector<VersionRow>& live,
                                     const Candidate& candidate);

  // Compatibility checks (compatibility_handlers.cc).
  Result<std::string> CheckAgainstSubject(const Call& call);
  Result<std::string> CheckAgainstVersion(const Call& call);

  // Config and mode (config_handlers.cc).
  Result<std::string> GetConfig(const Call& call);
  Result<std::string> PutConfig(const Call& call);
  Result<std::string> DeleteConfig(const Call& call);
  Result<std::string> GetMode(const Call& call);
  Result<std::string> PutMode(const Call& call);
  Result<std::string> DeleteMode(const Call& call);

 private:
  // A version found by path, with its schema.
  struct FoundVersion {
    VersionRow version;
    SchemaRow schema;
  };
  Result<FoundVersion> FindVersion(const Call& call);
  Result<std::string> SchemaById(const Call& call, bool text_only);
  Result<std::string> IdHolders(const Call& call, bool with_versions);
  Result<std::string> Compatibility(const Call& call, std::optional<VersionId> version);

  // Registration steps (register_handler.cc).
  Result<int64_t> ChooseVersion(const std::vector<VersionRow>& versions,
                                std::optional<int64_t> requested, bool importing,
                                std::string_view subject);
  Status CheckRegistrable(Catalog& catalog, std::string_view subject,
                          const std::vector<VersionRow>& live, const Candidate& candidate);
  Result<int64_t> AssignId(Catalog& catalog, std::optional<int64_t> requested,
                           const Candidate& candidate);

  // Check `candidate` against `live` (oldest first) in `mode`; `texts` gets the live versions'
  // schemas, for the messages.
  Result<evolution::CompatibilityReport> Check(Catalog& catalog, evolution::CompatibilityMode mode,
                                               const std::vector<VersionRow>& live,
                                               const Candidate& candidate,
                                               std::vector<SchemaRow>& texts);

  RegistryOptions options_;
  SchemaResolver resolver_;
};

/// Confluent's message list for an incompatible result: one per incompatibility, the version
/// and schema it was found against, and the level.
std::vector<std::string> CompatibilityMessages(const evolution::CompatibilityReport& report,
                                               const std::vector<VersionRow>& live,
                                               const std::vector<SchemaRow>& texts);

/// 42205 when `mode` refuses a write to `subject` (`with_id`: an IMPORT registration).
Status CheckWritable(Mode mode, std::string_view subject, bool with_id);
/// 42205 when `mode` is read-only.
Status CheckNotReadOnly(Mode mode, std::string_view subject);

/// Writes `{subject, version, id[, schemaType], schema[, references]}`.
void WriteSchemaVersion(JsonWriter& w, std::string_view subject, int64_t version,
                        const SchemaRow& schema);

}  // namespace sluice::registry::internal
