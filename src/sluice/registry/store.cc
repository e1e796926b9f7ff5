#include "sluice/registry/store.h"

#include <libpq-fe.h>
#include <sqlite3.h>

#include <atomic>
#include <charconv>
#include <unordered_map>

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

namespace {

// ---- SQLite ---------------------------------------------------------------------------------

class SqliteConnection final : public Connection {
 public:
  SqliteConnection(sqlite3* db, std::mutex* writers) : db_(db), writers_(writers) {}
  ~SqliteConnection() override {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close(db_);
  }

  Result<std::vector<SqlRow>> Query(std::string_view sql,
                                    std::initializer_list<SqlParam> params) override {
    sqlite3_stmt* stmt = nullptr;
    auto it = statements_.find(std::string(sql));
    if (it != statements_.end()) {
      stmt = it->second;
    } else {
      if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                             SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK) {
        return IoError("SQLite: " + std::string(sqlite3_errmsg(db_)));
      }
      statements_.emplace(std::string(sql), stmt);
    }
    int i = 1;
    for (const SqlParam& p : params) {
      int rc = SQLITE_OK;
      if (std::holds_alternative<std::nullptr_t>(p)) {
        rc = sqlite3_bind_null(stmt, i);
      } else if (const int64_t* v = std::get_if<int64_t>(&p)) {
        rc = sqlite3_bind_int64(stmt, i, *v);
      } else {
        std::string_view t = std::get<std::string_view>(p);
        rc = sqlite3_bind_text64(stmt, i, t.data(), t.size(), SQLITE_STATIC, SQLITE_UTF8);
      }
      if (rc != SQLITE_OK) {
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
        return IoError("SQLite: " + std::string(sqlite3_errmsg(db_)));
      }
      ++i;
    }
    std::vector<SqlRow> rows;
    while (true) {
      int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        std::string message = sqlite3_errmsg(db_);
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
        return IoError("SQLite: " + message);
      }
      const int n = sqlite3_column_count(stmt);
      SqlRow row(static_cast<size_t>(n));
      for (int c = 0; c < n; ++c) {
        if (sqlite3_column_type(stmt, c) == SQLITE_NULL) continue;
        const unsigned char* text = sqlite3_column_text(stmt, c);
        const int len = sqlite3_column_bytes(stmt, c);
        row[static_cast<size_t>(c)] =
            std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(len));
      }
      rows.push_back(std::move(row));
    }
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return rows;
  }

  // BEGIN IMMEDIATE takes the database's write lock at once, so two writers never both read
  // and then collide on the upgrade to a write.
  // Writers of this process also queue on one mutex first: SQLite's busy handler retries with
  // growing sleeps (up to 100 ms), which under concurrent registrations left unlucky requests
  // waiting about a second; a mutex hands the lock over in turn. Other processes on the same
  // file still meet the busy timeout.
  Status BeginWrite() override {
    writers_->lock();
    Status s = Exec("BEGIN IMMEDIATE");
    if (s.has_value()) {
      writing_ = true;
    } else {
      writers_->unlock();
    }
    return s;
  }
  Status BeginRead() override { return Exec("BEGIN"); }
  Status Commit() override {
    Status s = Exec("COMMIT");
    if (!s.has_value()) (void)Exec("ROLLBACK");
    EndWrite();
    return s;
  }
  void Rollback() override {
    (void)Exec("ROLLBACK");
    EndWrite();
  }

  Status Exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string message = err ? err : sqlite3_errmsg(db_);
      sqlite3_free(err);
      return IoError("SQLite: " + message);
    }
    return Ok();
  }

 private:
  void EndWrite() {
    if (writing_) {
      writing_ = false;
      writers_->unlock();
    }
  }

  sqlite3* db_;
  std::mutex* writers_;
  bool writing_ = false;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

class SqliteStore final : public Store {
 public:
  explicit SqliteStore(std::string uri) : Store(64), uri_(std::move(uri)) {}
  std::string_view kind() const override { return "sqlite"; }

  static Result<std::unique_ptr<Store>> Open(std::string_view path) {
    std::string uri;
    if (path == ":memory:") {
      // One private in-memory database shared by this store's connections.
      static std::atomic<int> counter{0};
      uri = "file:sluice-memory-" + std::to_string(counter++) + "?mode=memory&cache=shared";
    } else {
      uri = "file:";
      for (char c : path) {
        if (c == '?' || c == '#' || c == '%') {
          char buf[4];
          std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
          uri += buf;
        } else {
          uri += c;
        }
      }
    }
    auto store = std::make_unique<SqliteStore>(uri);
    // The first connection stays open for the store's life: an in-memory database lives only
    // as long as one of its connections does.
    SLUICE_ASSIGN_OR_RETURN(store->keeper_, store->Connect());
    SLUICE_TRY(store->Migrate());
    return std::unique_ptr<Store>(std::move(store));
  }

 protected:
  Result<std::unique_ptr<Connection>> Connect() override {
    sqlite3* db = nullptr;
    const int flags =
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(uri_.c_str(), &db, flags, nullptr) != SQLITE_OK) {
      std::string message = db ? sqlite3_errmsg(db) : "out of memory";
      sqlite3_close(db);
      return IoError("SQLite: cannot open " + uri_ + ": " + message);
    }
    auto c = std::make_unique<SqliteConnection>(db, &writers_);
    sqlite3_busy_timeout(db, 30000);
    // WAL: readers never wait for the writer. synchronous=FULL: a commit is on disk (synced)
    // before it returns, so an acknowledged registration survives a crash or a power cut.
    for (const char* pragma :
         {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON"}) {
      if (auto r = c->Query(pragma, {}); !r.has_value()) return Fail(r.error());
    }
    return std::unique_ptr<Connection>(std::move(c));
  }

 private:
  std::string uri_;
  std::mutex writers_;  // outlives every connection it hands out (declared before keeper_)
  std::unique_ptr<Connection> keeper_;
};

// ---- PostgreSQL -----------------------------------------------------------------------------

// Writers take one transaction-scoped advisory lock, so registrations from several servers on
// one database are applied one after another: id allocation and version numbering never race.
constexpr const char* kWriteLock = "SELECT pg_advisory_xact_lock(7427357305627)";

class PgConnection final : public Connection {
 public:
  PgConnection(PGconn* conn, std::mutex* writers) : conn_(conn), writers_(writers) {}
  ~PgConnection() override { PQfinish(conn_); }

  Result<std::vector<SqlRow>> Query(std::string_view sql,
                                    std::initializer_list<SqlParam> params) override {
    auto it = prepared_.find(std::string(sql));
    if (it == prepared_.end()) {
      // `?` placeholders become `$1`, `$2`, ... (the registry's SQL has no `?` in literals).
      std::string text;
      int n = 0;
      for (char c : sql) {
        if (c == '?') {
          text += '$';
          text += std::to_string(++n);
        } else {
          text += c;
        }
      }
      std::string name = "s" + std::to_string(prepared_.size());
      PGresult* res = PQprepare(conn_, name.c_str(), text.c_str(), n, nullptr);
      const bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
      std::string message = ok ? "" : PQresultErrorMessage(res);
      PQclear(res);
      if (!ok) return IoError("PostgreSQL: " + Trim(message));
      it = prepared_.emplace(std::string(sql), std::move(name)).first;
    }
    std::vector<std::string> texts;
    texts.reserve(params.size());
    std::vector<const char*> values;
    for (const SqlParam& p : params) {
      if (std::holds_alternative<std::nullptr_t>(p)) {
        texts.emplace_back();
      } else if (const int64_t* v = std::get_if<int64_t>(&p)) {
        texts.push_back(std::to_string(*v));
      } else {
        // libpq takes NUL-terminated text.
        texts.emplace_back(std::get<std::string_view>(p));
      }
    }
    size_t i = 0;
    for (const SqlParam& p : params) {
      values.push_back(std::holds_alternative<std::nullptr_t>(p) ? nullptr : texts[i].c_str());
      ++i;
    }
    PGresult* res = PQexecPrepared(conn_, it->second.c_str(), static_cast<int>(values.size()),
                                   values.data(), nullptr, nullptr, 0);
    return Collect(res);
  }

  // This server's writers queue on a mutex before they queue on the advisory lock: a handover
  // between threads is cheaper than one between PostgreSQL backends waiting in its lock
  // manager, which cost throughput as connections were added.
  Status BeginWrite() override {
    writers_->lock();
    writing_ = true;
    if (Status s = Exec("BEGIN"); !s.has_value()) {
      EndWrite();
      return s;
    }
    if (Status s = Exec(kWriteLock); !s.has_value()) {
      Rollback();
      return s;
    }
    return Ok();
  }
  Status BeginRead() override { return Exec("BEGIN"); }
  Status Commit() override {
    Status s = Exec("COMMIT");
    EndWrite();
    return s;
  }
  void Rollback() override {
    (void)Exec("ROLLBACK");
    EndWrite();
  }

 private:
  static std::string Trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

  Result<std::vector<SqlRow>> Collect(PGresult* res) {
    const ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      std::string message = PQresultErrorMessage(res);
      PQclear(res);
      if (PQstatus(conn_) == CONNECTION_BAD) PQreset(conn_), prepared_.clear();
      return IoError("PostgreSQL: " + Trim(message));
    }
    std::vector<SqlRow> rows;
    const int n = PQntuples(res);
    const int cols = PQnfields(res);
    rows.reserve(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
      SqlRow row(static_cast<size_t>(cols));
      for (int c = 0; c < cols; ++c) {
        if (PQgetisnull(res, r, c)) continue;
        row[static_cast<size_t>(c)] =
            std::string(PQgetvalue(res, r, c), static_cast<size_t>(PQgetlength(res, r, c)));
      }
      rows.push_back(std::move(row));
    }
    PQclear(res);
    return rows;
  }

  Status Exec(const char* sql) {
    auto r = Collect(PQexec(conn_, sql));
    if (!r.has_value()) return Fail(r.error());
    return Ok();
  }

  void EndWrite() {
    if (writing_) {
      writing_ = false;
      writers_->unlock();
    }
  }

  PGconn* conn_;
  std::mutex* writers_;
  bool writing_ = false;
  std::unordered_map<std::string, std::string> prepared_;
};

class PgStore final : public Store {
 public:
  explicit PgStore(std::string conninfo) : Store(64), conninfo_(std::move(conninfo)) {}
  std::string_view kind() const override { return "postgresql"; }

  static Result<std::unique_ptr<Store>> Open(std::string_view conninfo) {
    auto store = std::make_unique<PgStore>(std::string(conninfo));
    SLUICE_TRY(store->Migrate());
    return std::unique_ptr<Store>(std::move(store));
  }

 protected:
  Result<std::unique_ptr<Connection>> Connect() override {
    PGconn* conn = PQconnectdb(conninfo_.c_str());
    if (PQstatus(conn) != CONNECTION_OK) {
      std::string message = PQerrorMessage(conn);
      PQfinish(conn);
      while (!message.empty() && message.back() == '\n') message.pop_back();
      return IoError("PostgreSQL: cannot connect: " + message);
    }
    PGresult* res = PQexec(conn, "SET client_min_messages = warning");
    PQclear(res);
    return std::unique_ptr<Connection>(std::make_unique<PgConnection>(conn, &writers_));
  }

 private:
  std::string conninfo_;
  std::mutex writers_;
};

}  // namespace

Result<std::unique_ptr<Store>> Store::Open(std::string_view spec) {
  if (spec.starts_with("sqlite:")) {
    std::string_view path = spec.substr(7);
    if (path.empty()) return InvalidArgument("--store sqlite:PATH needs a path");
    return SqliteStore::Open(path);
  }
  if (spec.starts_with("postgresql://") || spec.starts_with("postgres://")) {
    return PgStore::Open(spec);
  }
  return InvalidArgument("unknown store '" + std::string(spec) +
                         "': use sqlite:PATH or postgresql://USER@HOST:PORT/DATABASE");
}

}  // namespace sluice::registry
