// Registration, Confluent's algorithm (docs/registry.md): the mode decides whether a write may
// happen, the same schema already live in the subject is its answer, else it is checked against
// the live versions and stored under the id the same schema has anywhere, or a new one.
#include "sluice/base/json_writer.h"
#include "sluice/registry/service_internal.h"

namespace sluice::registry::internal {
namespace {

std::string IdAnswer(int64_t id) {
  JsonWriter w;
  w.BeginObject().Key("id").Int(id).EndObject();
  return w.Take();
}

}  // namespace

Result<NewVersionEvent> Service::NewVersion(Catalog& catalog, std::string_view subject,
                                            int64_t version, int64_t id,
                                            const std::vector<VersionRow>& live,
                                            const Candidate& candidate) {
  NewVersionEvent event;
  event.subject = std::string(subject);
  event.version = version;
  event.id = id;
  event.schema_type = std::string(SchemaTypeName(candidate.type));
  event.schema = candidate.text;
  if (!live.empty()) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<SchemaRow> previous,
                            catalog.SchemaById(live.back().schema_id));
    if (previous.has_value()) event.previous_schema = previous->text;
  }
  SLUICE_ASSIGN_OR_RETURN(event.mode,
                          catalog.EffectiveCompatibility(subject, options_.default_compatibility));
  return event;
}

Status CheckWritable(Mode mode, std::string_view subject, bool with_id) {
  SLUICE_TRY(CheckNotReadOnly(mode, subject));
  const bool importing = mode == Mode::kImport || mode == Mode::kForward;
  if (with_id && !importing) {
    return Fail(NotPermitted("Subject " + std::string(subject) + " is not in import mode"));
  }
  if (!with_id && mode != Mode::kReadWrite) {
    return Fail(NotPermitted("Subject " + std::string(subject) + " is not in read-write mode"));
  }
  return {};
}

Result<std::string> Service::RegisterSchema(const Call& call) {
  const std::string_view subject = call.subject();
  Catalog& catalog = call.catalog;
  SLUICE_ASSIGN_OR_RETURN(SchemaRequest request,
                          SchemaRequest::Parse(call.body, call.query.Bool("normalize")));
  SLUICE_ASSIGN_OR_RETURN(std::optional<int64_t> requested_id, request.id);
  SLUICE_ASSIGN_OR_RETURN(std::optional<int64_t> requested_version, request.version);
  // Parse the schema before the write transaction, so writers hold the lock only for the
  // store's work. An empty schema means the subject's latest one, and references name other
  // subjects' versions: those need the store.
  std::optional<Result<Candidate>> parsed;
  if (request.HasOwnSchema() && !request.HasReferences()) parsed = resolver_.ResolveOwn(request);

  Transaction tx(catalog.connection());
  SLUICE_TRY(tx.Begin(true));
  SLUICE_ASSIGN_OR_RETURN(Mode mode, catalog.EffectiveMode(subject));
  SLUICE_TRY(CheckWritable(mode, subject, requested_id.has_value()));
  const bool importing = mode == Mode::kImport || mode == Mode::kForward;
  SLUICE_ASSIGN_OR_RETURN(std::vector<VersionRow> versions, catalog.Versions(subject));
  std::vector<VersionRow> live;
  for (const VersionRow& v : versions) {
    if (!v.deleted) live.push_back(v);
  }
  if (!parsed) {
    std::optional<SchemaRow> latest;
    if (!live.empty()) {
      SLUICE_ASSIGN_OR_RETURN(latest, catalog.SchemaById(live.back().schema_id));
    }
    parsed = resolver_.Resolve(catalog, request, latest);
  }
  SLUICE_ASSIGN_OR_RETURN(Candidate candidate, std::move(*parsed));

  // The same schema already a live version of this subject: registration is idempotent.
  for (const VersionRow& v : live) {
    if (v.fingerprint == candidate.fingerprint &&
        (!requested_version || *requested_version == v.version) &&
        (!requested_id || *requested_id == v.schema_id)) {
      return IdAnswer(v.schema_id);
    }
  }
  SLUICE_ASSIGN_OR_RETURN(int64_t version,
                          ChooseVersion(versions, requested_version, importing, subject));
  if (!importing) SLUICE_TRY(CheckRegistrable(catalog, subject, live, candidate));
  SLUICE_ASSIGN_OR_RETURN(int64_t id, AssignId(catalog, requested_id, candidate));
  SLUICE_TRY(catalog.InsertVersion(subject, version, id));
  std::optional<NewVersionEvent> event;
  if (options_.on_new_version && !importing) {
    SLUICE_ASSIGN_OR_RETURN(event, NewVersion(catalog, subject, version, id, live, candidate));
  }
  SLUICE_TRY(tx.Commit());
  // The next registration in this subject checks against this schema: it need not parse it.
  resolver_.Remember(id, candidate.parsed);
  if (event.has_value()) options_.on_new_version(*event);
  return IdAnswer(id);
}

Result<int64_t> Service::ChooseVersion(const std::vector<VersionRow>& versions,
                                       std::optional<int64_t> requested, bool importing,
                                       std::string_view subject) {
  const int64_t next = versions.empty() ? 1 : versions.back().version + 1;
  if (!requested) return next;
  if (!importing) {
    if (*requested != next) {
      return Fail(ApiError(422, 42201, "Version is not one more than previous version"));
    }
    return next;
  }
  for (const VersionRow& v : versions) {
    if (v.version == *requested) {
      return Fail(NotPermitted("Version " + std::to_string(*requested) + " of subject " +
                               std::string(subject) + " already exists"));
    }
  }
  return *requested;
}

Status Service::CheckRegistrable(Catalog& catalog, std::string_view subject,
                                 const std::vector<VersionRow>& live, const Candidate& candidate) {
  SLUICE_ASSIGN_OR_RETURN(evolution::CompatibilityMode level,
                          catalog.EffectiveCompatibility(subject, options_.default_compatibility));
  std::vector<SchemaRow> texts;
  SLUICE_ASSIGN_OR_RETURN(evolution::CompatibilityReport report,
                          Check(catalog, level, live, candidate, texts));
  if (report.compatible) return {};
  std::string details;
  for (const std::string& m : CompatibilityMessages(report, live, texts)) {
    if (!details.empty()) details += ", ";
    details += m;
  }
  return Fail(ApiError(409, options_.incompatible_error_code,
                       "Schema being registered is incompatible with an earlier schema for "
                       "subject \"" +
                           std::string(subject) + "\", details: [" + details + "]"));
}

Result<int64_t> Service::AssignId(Catalog& catalog, std::optional<int64_t> requested,
                                  const Candidate& candidate) {
  if (requested) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<SchemaRow> existing, catalog.SchemaById(*requested));
    if (!existing) {
      SLUICE_TRY(catalog.InsertSchema(*requested, candidate.type, candidate.text, candidate.refs,
                                      candidate.fingerprint));
      SLUICE_TRY(catalog.ReserveId(*requested));
    } else if (Fingerprint(existing->type, existing->text, existing->refs) !=
               candidate.fingerprint) {
      return Fail(NotPermitted("Overwrite new schema with id " + std::to_string(*requested) +
                               " is not permitted."));
    }
    return *requested;
  }
  // The same schema in another subject keeps its id.
  SLUICE_ASSIGN_OR_RETURN(std::optional<int64_t> existing,
                          catalog.IdOfFingerprint(candidate.fingerprint));
  if (existing) return *existing;
  SLUICE_ASSIGN_OR_RETURN(int64_t id, catalog.NextId());
  SLUICE_TRY(catalog.InsertSchema(id, candidate.type, candidate.text, candidate.refs,
                                  candidate.fingerprint));
  return id;
}

}  // namespace sluice::registry::internal
