#include <algorithm>
#include <charconv>

#include "sluice/base/hash.h"
#include "sluice/registry/catalog_internal.h"

namespace sluice::registry::internal {
namespace {

int64_t ToInt(const std::optional<std::string>& s) {
  if (!s) return 0;
  int64_t v = 0;
  std::from_chars(s->data(), s->data() + s->size(), v);
  return v;
}

Result<SchemaType> StoredType(const std::optional<std::string>& name, int64_t id) {
  if (!name) return SchemaType::kAvro;
  std::optional<SchemaType> type = SchemaTypeFromName(*name);
  if (!type) {
    return Fail(
        StoreInconsistent("schema " + std::to_string(id) + " has an unknown type '" + *name + "'"));
  }
  return *type;
}

// A schema row from (id, schema_type, schema_text, refs) starting at column `at`.
Result<SchemaRow> ReadSchemaRow(const SqlRow& r, size_t at) {
  SchemaRow row;
  row.id = ToInt(r[at]);
  SLUICE_ASSIGN_OR_RETURN(row.type, StoredType(r[at + 1], row.id));
  row.text = r[at + 2].value_or("");
  row.refs = r[at + 3].value_or("[]");
  return row;
}

}  // namespace

std::string Fingerprint(SchemaType type, std::string_view text, std::string_view refs) {
  std::string key(SchemaTypeName(type));
  key += '\n';
  key += text;
  key += '\n';
  key += refs;
  return Sha256Hex(key);
}

Status Transaction::Begin(bool write) {
  Status s = write ? c_.BeginWrite() : c_.BeginRead();
  open_ = s.has_value();
  return FromStore(std::move(s));
}

Status Transaction::Commit() {
  open_ = false;
  return FromStore(c_.Commit());
}

Result<std::vector<SqlRow>> Catalog::Query(std::string_view sql,
                                           std::initializer_list<SqlParam> params) {
  return FromStore(c_.Query(sql, params));
}

Status Catalog::Exec(std::string_view sql, std::initializer_list<SqlParam> params) {
  SLUICE_TRY(Query(sql, params));
  return {};
}

Result<std::vector<VersionRow>> Catalog::Versions(std::string_view subject) {
  SLUICE_ASSIGN_OR_RETURN(
      auto rows,
      Query("SELECT v.version, v.schema_id, v.deleted, s.fingerprint FROM versions v JOIN "
            "schemas s ON s.id = v.schema_id WHERE v.subject = ? ORDER BY v.version",
            {subject}));
  std::vector<VersionRow> out;
  out.reserve(rows.size());
  for (auto& r : rows) {
    out.push_back({ToInt(r[0]), ToInt(r[1]), ToInt(r[2]) != 0, r[3].value_or("")});
  }
  return out;
}

Result<std::vector<Catalog::SubjectRow>> Catalog::Subjects() {
  SLUICE_ASSIGN_OR_RETURN(auto rows, Query("SELECT subject, MIN(deleted), MAX(deleted) FROM "
                                           "versions GROUP BY subject ORDER BY subject"));
  std::vector<SubjectRow> out;
  out.reserve(rows.size());
  for (auto& r : rows) out.push_back({r[0].value_or(""), ToInt(r[1]) == 0, ToInt(r[2]) != 0});
  return out;
}

Result<std::vector<Catalog::Holder>> Catalog::Holders(int64_t id) {
  SLUICE_ASSIGN_OR_RETURN(auto rows, Query("SELECT subject, version, deleted FROM versions WHERE "
                                           "schema_id = ? ORDER BY subject, version",
                                           {id}));
  std::vector<Holder> out;
  out.reserve(rows.size());
  for (auto& r : rows) out.push_back({r[0].value_or(""), ToInt(r[1]), ToInt(r[2]) != 0});
  return out;
}

Result<std::vector<std::string>> Catalog::SubjectsHolding(int64_t id) {
  SLUICE_ASSIGN_OR_RETURN(auto rows,
                          Query("SELECT DISTINCT subject FROM versions WHERE schema_id = ?", {id}));
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (auto& r : rows) out.push_back(r[0].value_or(""));
  return out;
}

Result<std::vector<Catalog::Listed>> Catalog::AllVersions() {
  SLUICE_ASSIGN_OR_RETURN(auto rows,
                          Query("SELECT v.subject, v.version, v.deleted, s.id, s.schema_type, "
                                "s.schema_text, s.refs FROM versions v JOIN schemas s ON s.id = "
                                "v.schema_id ORDER BY v.subject, v.version"));
  std::vector<Listed> out;
  out.reserve(rows.size());
  for (auto& r : rows) {
    Listed l{r[0].value_or(""), ToInt(r[1]), ToInt(r[2]) != 0, {}};
    SLUICE_ASSIGN_OR_RETURN(l.schema, ReadSchemaRow(r, 3));
    out.push_back(std::move(l));
  }
  return out;
}

Result<int64_t> Catalog::CountVersions(std::string_view subject) {
  SLUICE_ASSIGN_OR_RETURN(
      auto rows, subject.empty()
                     ? Query("SELECT COUNT(*) FROM versions")
                     : Query("SELECT COUNT(*) FROM versions WHERE subject = ?", {subject}));
  return rows.empty() ? 0 : ToInt(rows[0][0]);
}

Status Catalog::InsertVersion(std::string_view subject, int64_t version, int64_t schema_id) {
  return Exec("INSERT INTO versions (subject, version, schema_id, deleted) VALUES (?, ?, ?, 0)",
              {subject, version, schema_id});
}

Status Catalog::SoftDelete(std::string_view subject) {
  return Exec("UPDATE versions SET deleted = 1 WHERE subject = ?", {subject});
}

Status Catalog::SoftDelete(std::string_view subject, int64_t version) {
  return Exec("UPDATE versions SET deleted = 1 WHERE subject = ? AND version = ?",
              {subject, version});
}

Status Catalog::HardDelete(std::string_view subject) {
  return Exec("DELETE FROM versions WHERE subject = ?", {subject});
}

Status Catalog::HardDelete(std::string_view subject, int64_t version) {
  return Exec("DELETE FROM versions WHERE subject = ? AND version = ?", {subject, version});
}

Status Catalog::ForgetSubject(std::string_view subject) {
  SLUICE_TRY(ClearCompatibility(subject));
  return ClearMode(subject);
}

Result<std::optional<SchemaRow>> Catalog::SchemaById(int64_t id) {
  SLUICE_ASSIGN_OR_RETURN(
      auto rows,
      Query("SELECT id, schema_type, schema_text, refs FROM schemas WHERE id = ?", {id}));
  if (rows.empty()) return std::optional<SchemaRow>();
  SLUICE_ASSIGN_OR_RETURN(SchemaRow row, ReadSchemaRow(rows[0], 0));
  return std::optional<SchemaRow>(std::move(row));
}

Result<SchemaRow> Catalog::SchemaOf(const VersionRow& version) {
  SLUICE_ASSIGN_OR_RETURN(std::optional<SchemaRow> row, SchemaById(version.schema_id));
  if (!row) return Fail(StoreInconsistent("a stored version names a missing schema"));
  return std::move(*row);
}

Result<std::optional<int64_t>> Catalog::IdOfFingerprint(std::string_view fingerprint) {
  // Not `SELECT MIN(id) ... WHERE fingerprint = ?`: PostgreSQL plans that as a walk of the
  // primary key in id order, filtering on the fingerprint, which reads every row for a new
  // schema. A fingerprint has one row (or a few after an IMPORT), so the minimum is taken here.
  SLUICE_ASSIGN_OR_RETURN(auto same,
                          Query("SELECT id FROM schemas WHERE fingerprint = ?", {fingerprint}));
  std::optional<int64_t> smallest;
  for (const auto& row : same) {
    if (row[0] && (!smallest || ToInt(row[0]) < *smallest)) smallest = ToInt(row[0]);
  }
  return smallest;
}

Result<int64_t> Catalog::MaxId() {
  SLUICE_ASSIGN_OR_RETURN(auto rows, Query("SELECT value FROM id_counter WHERE name = 'schema'"));
  return rows.empty() ? 0 : ToInt(rows[0][0]);
}

Result<int64_t> Catalog::NextId() {
  SLUICE_ASSIGN_OR_RETURN(auto rows, Query("UPDATE id_counter SET value = value + 1 WHERE name = "
                                           "'schema' RETURNING value"));
  if (rows.empty()) return Fail(StoreInconsistent("the id counter is missing"));
  return ToInt(rows[0][0]);
}

Status Catalog::ReserveId(int64_t id) {
  return Exec("UPDATE id_counter SET value = ? WHERE name = 'schema' AND value < ?", {id, id});
}

Status Catalog::InsertSchema(int64_t id, SchemaType type, std::string_view text,
                             std::string_view refs, std::string_view fingerprint) {
  return Exec(
      "INSERT INTO schemas (id, schema_type, schema_text, refs, fingerprint) VALUES (?, "
      "?, ?, ?, ?)",
      {id, SchemaTypeName(type), text, refs, fingerprint});
}

Status Catalog::RemoveIfOrphan(int64_t id) {
  return Exec(
      "DELETE FROM schemas WHERE id = ? AND NOT EXISTS (SELECT 1 FROM versions WHERE "
      "schema_id = ?)",
      {id, id});
}

Result<std::vector<int64_t>> Catalog::Referrers(std::string_view subject, int64_t version,
                                                bool live_only) {
  SLUICE_ASSIGN_OR_RETURN(auto rows,
                          Query("SELECT id, refs FROM schemas WHERE refs <> '[]' ORDER BY id"));
  std::vector<int64_t> out;
  for (auto& r : rows) {
    std::optional<std::vector<SchemaRef>> refs = StoredRefs(r[1].value_or("[]"));
    if (!refs || std::none_of(refs->begin(), refs->end(), [&](const SchemaRef& ref) {
          return ref.subject == subject && ref.version == version;
        })) {
      continue;
    }
    const int64_t id = ToInt(r[0]);
    if (live_only) {
      SLUICE_ASSIGN_OR_RETURN(
          auto live,
          Query("SELECT 1 FROM versions WHERE schema_id = ? AND deleted = 0 LIMIT 1", {id}));
      if (live.empty()) continue;
    }
    out.push_back(id);
  }
  return out;
}

Result<std::optional<std::string>> Catalog::ScopeValue(std::string_view sql,
                                                       std::string_view scope) {
  SLUICE_ASSIGN_OR_RETURN(auto rows, Query(sql, {scope}));
  if (rows.empty()) return std::optional<std::string>();
  return rows[0][0];
}

Result<std::optional<evolution::CompatibilityMode>> Catalog::Compatibility(std::string_view scope) {
  SLUICE_ASSIGN_OR_RETURN(auto name,
                          ScopeValue("SELECT compatibility FROM configs WHERE scope = ?", scope));
  if (!name) return std::optional<evolution::CompatibilityMode>();
  auto level = evolution::ParseCompatibilityMode(*name);
  if (!level.has_value()) {
    return Fail(StoreInconsistent("stored compatibility level '" + *name + "' is unknown"));
  }
  return std::optional<evolution::CompatibilityMode>(*level);
}

Result<evolution::CompatibilityMode> Catalog::EffectiveCompatibility(
    std::string_view subject, evolution::CompatibilityMode fallback) {
  SLUICE_ASSIGN_OR_RETURN(auto own, Compatibility(subject));
  if (own) return *own;
  SLUICE_ASSIGN_OR_RETURN(auto global, Compatibility(""));
  return global.value_or(fallback);
}

Status Catalog::SetCompatibility(std::string_view scope, evolution::CompatibilityMode level) {
  return Exec(
      "INSERT INTO configs (scope, compatibility) VALUES (?, ?) ON CONFLICT (scope) DO "
      "UPDATE SET compatibility = excluded.compatibility",
      {scope, evolution::CompatibilityModeName(level)});
}

Status Catalog::ClearCompatibility(std::string_view scope) {
  return Exec("DELETE FROM configs WHERE scope = ?", {scope});
}

Result<std::optional<Mode>> Catalog::ModeOf(std::string_view scope) {
  SLUICE_ASSIGN_OR_RETURN(auto name, ScopeValue("SELECT mode FROM modes WHERE scope = ?", scope));
  if (!name) return std::optional<Mode>();
  std::optional<Mode> mode = ModeFromName(*name);
  if (!mode) return Fail(StoreInconsistent("stored mode '" + *name + "' is unknown"));
  return mode;
}

Result<Mode> Catalog::EffectiveMode(std::string_view subject) {
  SLUICE_ASSIGN_OR_RETURN(auto own, ModeOf(subject));
  if (own) return *own;
  SLUICE_ASSIGN_OR_RETURN(auto global, ModeOf(""));
  return global.value_or(Mode::kReadWrite);
}

Status Catalog::SetMode(std::string_view scope, Mode mode) {
  return Exec(
      "INSERT INTO modes (scope, mode) VALUES (?, ?) ON CONFLICT (scope) DO UPDATE SET "
      "mode = excluded.mode",
      {scope, ModeName(mode)});
}

Status Catalog::ClearMode(std::string_view scope) {
  return Exec("DELETE FROM modes WHERE scope = ?", {scope});
}

}  // namespace sluice::registry::internal
