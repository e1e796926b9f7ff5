// A subject's versions: listing, reading, lookup by schema, referrers, soft and hard deletes.
#include "sluice/base/json_writer.h"
#include "sluice/registry/service_internal.h"

namespace sluice::registry::internal {
namespace {

// 42206 when another schema still refers to the version (a permanent delete counts
// soft-deleted referrers too: their ids still resolve, and need what they refer to).
Status CheckUnreferenced(Catalog& catalog, std::string_view subject, int64_t version,
                         bool permanent) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<int64_t> referrers,
                          catalog.Referrers(subject, version, !permanent));
  if (referrers.empty()) return {};
  return Fail(ApiError(422, 42206,
                       "One or more references exist to the schema {magic=1,keytype=SCHEMA,"
                       "subject=" +
                           std::string(subject) + ",version=" + std::to_string(version) + "}."));
}

std::string IntArray(const std::vector<int64_t>& values) {
  JsonWriter w;
  w.BeginArray();
  for (int64_t v : values) w.Int(v);
  w.EndArray();
  return w.Take();
}

}  // namespace

Status CheckNotReadOnly(Mode mode, std::string_view subject) {
  if (mode == Mode::kReadOnly || mode == Mode::kReadOnlyOverride) {
    return Fail(NotPermitted("Subject " + std::string(subject) + " is in read-only mode"));
  }
  return {};
}

Result<std::string> Service::ListVersions(const Call& call) {
  const bool deleted = call.query.Bool("deleted");
  const bool deleted_only = call.query.Bool("deletedOnly");
  SLUICE_ASSIGN_OR_RETURN(std::vector<VersionRow> versions, call.catalog.Versions(call.subject()));
  std::vector<int64_t> shown;
  bool any_live = false;
  for (const VersionRow& v : versions) {
    any_live = any_live || !v.deleted;
    if (deleted_only ? v.deleted : (!v.deleted || deleted)) shown.push_back(v.version);
  }
  if (versions.empty() || (!any_live && !deleted && !deleted_only)) {
    return Fail(SubjectNotFound(call.subject()));
  }
  return IntArray(shown);
}

Result<Service::FoundVersion> Service::FindVersion(const Call& call) {
  SLUICE_ASSIGN_OR_RETURN(VersionId wanted, ParseVersion(call.path.version));
  const bool deleted = call.query.Bool("deleted");
  Transaction tx(call.catalog.connection());
  SLUICE_TRY(tx.Begin(false));
  SLUICE_ASSIGN_OR_RETURN(std::vector<VersionRow> versions, call.catalog.Versions(call.subject()));
  const VersionRow* found = nullptr;
  bool any_visible = false;
  for (const VersionRow& r : versions) {
    if (r.deleted && !deleted) continue;
    any_visible = true;
    if (wanted.latest || r.version == wanted.number) found = &r;
  }
  if (!any_visible) return Fail(SubjectNotFound(call.subject()));
  if (!found) return Fail(VersionNotFound(wanted.number));
  SLUICE_ASSIGN_OR_RETURN(std::optional<SchemaRow> row, call.catalog.SchemaById(found->schema_id));
  if (!row) return Fail(SchemaNotFound(std::to_string(found->schema_id)));
  return FoundVersion{*found, std::move(*row)};
}

Result<std::string> Service::GetVersion(const Call& call) {
  SLUICE_ASSIGN_OR_RETURN(FoundVersion found, FindVersion(call));
  JsonWriter w;
  WriteSchemaVersion(w, call.subject(), found.version.version, found.schema);
  return w.Take();
}

Result<std::string> Service::GetVersionText(const Call& call) {
  SLUICE_ASSIGN_OR_RETURN(FoundVersion found, FindVersion(call));
  return std::move(found.schema.text);
}

Result<std::string> Service::ReferencedBy(const Call& call) {
  SLUICE_ASSIGN_OR_RETURN(FoundVersion found, FindVersion(call));
  SLUICE_ASSIGN_OR_RETURN(std::vector<int64_t> ids,
                          call.catalog.Referrers(call.subject(), found.version.version, true));
  return IntArray(ids);
}

Result<std::string> Service::LookupSchema(const Call& call) {
  SLUICE_ASSIGN_OR_RETURN(SchemaRequest request,
                          SchemaRequest::Parse(call.body, call.query.Bool("normalize")));
  const bool deleted = call.query.Bool("deleted");
  Transaction tx(call.catalog.connection());
  SLUICE_TRY(tx.Begin(false));
  SLUICE_ASSIGN_OR_RETURN(std::vector<VersionRow> versions, call.catalog.Versions(call.subject()));
  bool any = false;
  for (const VersionRow& v : versions) any = any || !v.deleted || deleted;
  if (!any) return Fail(SubjectNotFound(call.subject()));
  SLUICE_ASSIGN_OR_RETURN(Candidate candidate,
                          resolver_.Resolve(call.catalog, request, std::nullopt));
  const VersionRow* found = nullptr;
  for (const VersionRow& v : versions) {
    if (v.deleted && !deleted) continue;
    if (v.fingerprint == candidate.fingerprint) found = &v;
  }
  const Error not_found = ApiError(404, 40403, "Schema not found");
  if (!found) return Fail(not_found);
  SLUICE_ASSIGN_OR_RETURN(std::optional<SchemaRow> row, call.catalog.SchemaById(found->schema_id));
  if (!row) return Fail(not_found);
  JsonWriter w;
  WriteSchemaVersion(w, call.subject(), found->version, *row);
  return w.Take();
}

Result<std::string> Service::DeleteSubject(const Call& call) {
  const std::string_view subject = call.subject();
  const bool permanent = call.query.Bool("permanent");
  Catalog& catalog = call.catalog;
  Transaction tx(catalog.connection());
  SLUICE_TRY(tx.Begin(true));
  SLUICE_ASSIGN_OR_RETURN(Mode mode, catalog.EffectiveMode(subject));
  SLUICE_TRY(CheckNotReadOnly(mode, subject));
  SLUICE_ASSIGN_OR_RETURN(std::vector<VersionRow> versions, catalog.Versions(subject));
  if (versions.empty()) return Fail(SubjectNotFound(subject));
  std::vector<int64_t> removed;
  for (const VersionRow& v : versions) {
    if (!permanent && !v.deleted) removed.push_back(v.version);
  }
  if (!permanent) {
    if (removed.empty()) {
      return Fail(ApiError(404, 40404,
                           "Subject '" + std::string(subject) +
                               "' was soft deleted.Set permanent=true to delete permanently"));
    }
    for (int64_t v : removed) SLUICE_TRY(CheckUnreferenced(catalog, subject, v, false));
    SLUICE_TRY(catalog.SoftDelete(subject));
  } else {
    for (const VersionRow& v : versions) {
      if (!v.deleted) {
        return Fail(ApiError(404, 40405,
                             "Subject '" + std::string(subject) +
                                 "' was not deleted first before being permanently deleted"));
      }
    }
    for (const VersionRow& v : versions) {
      SLUICE_TRY(CheckUnreferenced(catalog, subject, v.version, true));
      removed.push_back(v.version);
    }
    SLUICE_TRY(catalog.HardDelete(subject));
    for (const VersionRow& v : versions) SLUICE_TRY(catalog.RemoveIfOrphan(v.schema_id));
    SLUICE_TRY(catalog.ForgetSubject(subject));
  }
  SLUICE_TRY(tx.Commit());
  return IntArray(removed);
}

Result<std::string> Service::DeleteVersion(const Call& call) {
  const std::string_view subject = call.subject();
  SLUICE_ASSIGN_OR_RETURN(VersionId wanted, ParseVersion(call.path.version));
  const bool permanent = call.query.Bool("permanent");
  Catalog& catalog = call.catalog;
  Transaction tx(catalog.connection());
  SLUICE_TRY(tx.Begin(true));
  SLUICE_ASSIGN_OR_RETURN(Mode mode, catalog.EffectiveMode(subject));
  SLUICE_TRY(CheckNotReadOnly(mode, subject));
  SLUICE_ASSIGN_OR_RETURN(std::vector<VersionRow> versions, catalog.Versions(subject));
  if (versions.empty()) return Fail(SubjectNotFound(subject));
  const VersionRow* found = nullptr;
  for (const VersionRow& v : versions) {
    if (wanted.latest) {
      // "latest" is the newest live version; for a permanent delete, the newest at all.
      if (!v.deleted || permanent) found = &v;
    } else if (v.version == wanted.number) {
      found = &v;
    }
  }
  if (!found) return Fail(VersionNotFound(wanted.number));
  const std::string named =
      "Subject '" + std::string(subject) + "' Version " + std::to_string(found->version);
  if (!permanent) {
    if (found->deleted) {
      return Fail(ApiError(404, 40406,
                           named + " was soft deleted.Set permanent=true to delete permanently"));
    }
    SLUICE_TRY(CheckUnreferenced(catalog, subject, found->version, false));
    SLUICE_TRY(catalog.SoftDelete(subject, found->version));
  } else {
    if (!found->deleted) {
      return Fail(
          ApiError(404, 40407, named + " was not deleted first before being permanently deleted"));
    }
    SLUICE_TRY(CheckUnreferenced(catalog, subject, found->version, true));
    SLUICE_TRY(catalog.HardDelete(subject, found->version));
    SLUICE_TRY(catalog.RemoveIfOrphan(found->schema_id));
    if (versions.size() == 1) SLUICE_TRY(catalog.ForgetSubject(subject));
  }
  SLUICE_TRY(tx.Commit());
  return JsonWriter().Int(found->version).Take();
}

}  // namespace sluice::registry::internal
