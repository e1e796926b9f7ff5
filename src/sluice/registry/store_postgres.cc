// The PostgreSQL store: libpq connections, writers serialized by one advisory lock.
#include <libpq-fe.h>

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "sluice/registry/store_internal.h"

namespace sluice::registry::internal {
namespace {

// Writers take one transaction-scoped advisory lock, so registrations from several servers on
// one database are applied one after another: id allocation and version numbering never race.
constexpr const char* kWriteLock = "SELECT pg_advisory_xact_lock(7427357305627)";

class PgConnection final : public Connection {
 public:
  PgConnection(PGconn* conn, std::mutex* writers, std::atomic<uint64_t>* commits)
      : conn_(conn), writers_(writers), commits_(commits) {}
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
    if (s.has_value() && writing_) commits_->fetch_add(1, std::memory_order_relaxed);
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
  std::atomic<uint64_t>* commits_;
  bool writing_ = false;
  std::unordered_map<std::string, std::string> prepared_;
};

class PgStore final : public Store {
 public:
  explicit PgStore(std::string conninfo) : Store(64), conninfo_(std::move(conninfo)) {}
  std::string_view kind() const override { return "postgresql"; }
  Stats stats() const override {
    const uint64_t n = commits_.load(std::memory_order_relaxed);
    return {n, n};
  }

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
    return std::unique_ptr<Connection>(std::make_unique<PgConnection>(conn, &writers_, &commits_));
  }

 private:
  std::string conninfo_;
  std::mutex writers_;
  std::atomic<uint64_t> commits_{0};
};

}  // namespace

Result<std::unique_ptr<Store>> OpenPostgresStore(std::string_view conninfo) {
  return PgStore::Open(conninfo);
}

}  // namespace sluice::registry::internal
