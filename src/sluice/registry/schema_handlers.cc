// Schemas by id and the listings: what a deserializer asks on every new id, and what a user may
// read (with a policy, each listing shows only the subjects the caller may read).
#include <algorithm>

#include "sluice/base/json_writer.h"
#include "sluice/registry/service_internal.h"

namespace sluice::registry::internal {
namespace {

// `?subjectPrefix=`; Confluent's ":*:" is every subject.
std::string SubjectPrefix(const Query& q) {
  const std::string* p = q.Get("subjectPrefix");
  return p && *p != ":*:" ? *p : std::string();
}

bool MayRead(const AccessPolicy* policy, std::string_view subject) {
  return policy == nullptr || policy->Allows(Permission::kRead, subject);
}

}  // namespace

void WriteSchemaVersion(JsonWriter& w, std::string_view subject, int64_t version,
                        const SchemaRow& schema) {
  w.BeginObject();
  w.Key("subject").String(subject);
  w.Key("version").Int(version);
  w.Key("id").Int(schema.id);
  if (schema.type != SchemaType::kAvro) w.Key("schemaType").String(SchemaTypeName(schema.type));
  w.Key("schema").String(schema.text);
  if (schema.refs != "[]") w.Key("references").Raw(schema.refs);
  w.EndObject();
}

Result<std::string> Service::GetSchemaById(const Call& call) { return SchemaById(call, false); }

Result<std::string> Service::GetSchemaText(const Call& call) { return SchemaById(call, true); }

Result<std::string> Service::SchemaById(const Call& call, bool text_only) {
  const std::optional<int64_t> id = ParseId(call.path.id);
  if (!id) return Fail(SchemaNotFound(call.path.id));
  const bool max_id = call.query.Bool("fetchMaxId");
  // A single statement is its own snapshot; a read transaction only when more statements
  // follow (it costs a lock round trip on every request, the hottest path of all).
  Transaction tx(call.catalog.connection());
  if (call.policy != nullptr || max_id) SLUICE_TRY(tx.Begin(false));
  SLUICE_ASSIGN_OR_RETURN(std::optional<SchemaRow> row, call.catalog.SchemaById(*id));
  if (!row) return Fail(SchemaNotFound(call.path.id));
  if (call.policy != nullptr) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> subjects, call.catalog.SubjectsHolding(*id));
    if (std::none_of(subjects.begin(), subjects.end(),
                     [&](const std::string& s) { return MayRead(call.policy, s); })) {
      return Fail(ApiError(403, 40301, "User is denied read access to schema " + call.path.id));
    }
  }
  if (text_only) return std::move(row->text);
  JsonWriter w;
  w.BeginObject();
  if (row->type != SchemaType::kAvro) w.Key("schemaType").String(SchemaTypeName(row->type));
  w.Key("schema").String(row->text);
  if (row->refs != "[]") w.Key("references").Raw(row->refs);
  if (max_id) {
    SLUICE_ASSIGN_OR_RETURN(int64_t max, call.catalog.MaxId());
    w.Key("maxId").Int(max);
  }
  w.EndObject();
  return w.Take();
}

Result<std::string> Service::IdSubjects(const Call& call) { return IdHolders(call, false); }

Result<std::string> Service::IdVersions(const Call& call) { return IdHolders(call, true); }

Result<std::string> Service::IdHolders(const Call& call, bool with_versions) {
  const std::optional<int64_t> id = ParseId(call.path.id);
  if (!id) return Fail(SchemaNotFound(call.path.id));
  const bool deleted = call.query.Bool("deleted");
  SLUICE_ASSIGN_OR_RETURN(std::vector<Catalog::Holder> holders, call.catalog.Holders(*id));
  if (holders.empty()) return Fail(SchemaNotFound(call.path.id));
  JsonWriter w;
  w.BeginArray();
  const std::string* last = nullptr;
  for (const Catalog::Holder& h : holders) {
    if (h.deleted && !deleted) continue;
    if (!MayRead(call.policy, h.subject)) continue;
    if (!with_versions && last != nullptr && h.subject == *last) continue;
    last = &h.subject;
    if (with_versions) {
      w.BeginObject().Key("subject").String(h.subject).Key("version").Int(h.version).EndObject();
    } else {
      w.String(h.subject);
    }
  }
  w.EndArray();
  return w.Take();
}

Result<std::string> Service::ListSchemas(const Call& call) {
  const bool deleted = call.query.Bool("deleted");
  const bool latest_only = call.query.Bool("latestOnly");
  const std::string prefix = SubjectPrefix(call.query);
  SLUICE_ASSIGN_OR_RETURN(std::vector<Catalog::Listed> rows, call.catalog.AllVersions());
  // With latestOnly a subject's later version replaces its earlier one.
  std::vector<const Catalog::Listed*> shown;
  for (const Catalog::Listed& r : rows) {
    if (r.deleted && !deleted) continue;
    if (!r.subject.starts_with(prefix) || !MayRead(call.policy, r.subject)) continue;
    if (latest_only && !shown.empty() && shown.back()->subject == r.subject) {
      shown.back() = &r;
    } else {
      shown.push_back(&r);
    }
  }
  JsonWriter w;
  w.BeginArray();
  for (const Catalog::Listed* r : shown) WriteSchemaVersion(w, r->subject, r->version, r->schema);
  w.EndArray();
  return w.Take();
}

Result<std::string> Service::ListSubjects(const Call& call) {
  const bool deleted = call.query.Bool("deleted");
  const bool deleted_only = call.query.Bool("deletedOnly");
  const std::string prefix = SubjectPrefix(call.query);
  SLUICE_ASSIGN_OR_RETURN(std::vector<Catalog::SubjectRow> rows, call.catalog.Subjects());
  JsonWriter w;
  w.BeginArray();
  for (const Catalog::SubjectRow& r : rows) {
    const bool shown = deleted_only ? r.any_deleted : (r.any_live || (deleted && r.any_deleted));
    if (!shown || !r.subject.starts_with(prefix) || !MayRead(call.policy, r.subject)) continue;
    w.String(r.subject);
  }
  w.EndArray();
  return w.Take();
}

}  // namespace sluice::registry::internal
