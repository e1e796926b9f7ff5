#include "sluice/registry/store.h"

#include "sluice/registry/store_internal.h"

namespace sluice::registry {

// Text both SQLite and PostgreSQL accept. Ids come from `id_counter`, which only ever grows, so
// an id is never handed out twice even after the schema it named is hard-deleted.
const char* const kSchemaStatements[] = {
    "CREATE TABLE IF NOT EXISTS schemas ("
    " id BIGINT PRIMARY KEY,"
    " schema_type TEXT NOT NULL,"
    " schema_text TEXT NOT NULL,"
    " refs TEXT NOT NULL,"
    " fingerprint TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS schemas_by_fingerprint ON schemas (fingerprint)",
    "CREATE TABLE IF NOT EXISTS versions ("
    " subject TEXT NOT NULL,"
    " version BIGINT NOT NULL,"
    " schema_id BIGINT NOT NULL REFERENCES schemas (id),"
    " deleted INTEGER NOT NULL,"
    " PRIMARY KEY (subject, version))",
    "CREATE INDEX IF NOT EXISTS versions_by_schema ON versions (schema_id)",
    "CREATE TABLE IF NOT EXISTS configs (scope TEXT PRIMARY KEY, compatibility TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS modes (scope TEXT PRIMARY KEY, mode TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS id_counter (name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
    "INSERT INTO id_counter (name, value) VALUES ('schema', 0) ON CONFLICT (name) DO NOTHING",
    nullptr,
};

Store::~Store() = default;

Store::Lease::~Lease() {
  if (c_ && store_) store_->Release(std::move(c_));
}

Result<Store::Lease> Store::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<Connection> c = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(c));
    }
  }
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<Connection> c, Connect());
  return Lease(this, std::move(c));
}

void Store::Release(std::unique_ptr<Connection> c) {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < max_idle_) idle_.push_back(std::move(c));
}

Status Store::Migrate() {
  SLUICE_ASSIGN_OR_RETURN(Lease c, Acquire());
  SLUICE_TRY(c->BeginWrite());
  for (const char* const* s = kSchemaStatements; *s; ++s) {
    if (auto r = c->Query(*s); !r.has_value()) {
      c->Rollback();
      return Fail(r.error());
    }
  }
  return c->Commit();
}

Result<std::unique_ptr<Store>> Store::Open(std::string_view spec) {
  if (spec.starts_with("sqlite:")) {
    std::string_view path = spec.substr(7);
    if (path.empty()) return InvalidArgument("--store sqlite:PATH needs a path");
    return internal::OpenSqliteStore(path);
  }
  if (spec.starts_with("postgresql://") || spec.starts_with("postgres://")) {
    return internal::OpenPostgresStore(spec);
  }
  return InvalidArgument("unknown store '" + std::string(spec) +
                         "': use sqlite:PATH or postgresql://USER@HOST:PORT/DATABASE");
}

}  // namespace sluice::registry
