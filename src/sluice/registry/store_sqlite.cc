// The SQLite store (WAL, synchronous=FULL), with group commit: every write transaction of the
// process runs on one writer connection, each inside a savepoint of a shared transaction, and
// the writers waiting at the moment a batch starts are committed together with one sync. Each
// writer's Commit() returns only when its batch is durable.
#include <sqlite3.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <unordered_map>

#include "sluice/registry/store_internal.h"

namespace sluice::registry::internal {
namespace {

// One sqlite3 handle with a cache of prepared statements.
class SqliteDb {
 public:
  explicit SqliteDb(sqlite3* db) : db_(db) {}
  ~SqliteDb() {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close(db_);
  }
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  sqlite3* handle() const { return db_; }

  Result<std::vector<SqlRow>> Query(std::string_view sql, std::initializer_list<SqlParam> params) {
    SLUICE_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, Prepare(sql));
    int i = 1;
    for (const SqlParam& p : params) {
      if (Bind(stmt, i++, p) != SQLITE_OK) return Failed(stmt);
    }
    std::vector<SqlRow> rows;
    while (true) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return Failed(stmt);
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

  Status Exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string message = err ? err : sqlite3_errmsg(db_);
      sqlite3_free(err);
      return IoError("SQLite: " + message);
    }
    return Ok();
  }

  /// Whether a transaction is open (SQLite rolls one back by itself after some errors).
  bool InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

 private:
  Result<sqlite3_stmt*> Prepare(std::string_view sql) {
    auto it = statements_.find(std::string(sql));
    if (it != statements_.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                           &stmt, nullptr) != SQLITE_OK) {
      return IoError("SQLite: " + std::string(sqlite3_errmsg(db_)));
    }
    statements_.emplace(std::string(sql), stmt);
    return stmt;
  }

  static int Bind(sqlite3_stmt* stmt, int i, const SqlParam& p) {
    if (std::holds_alternative<std::nullptr_t>(p)) return sqlite3_bind_null(stmt, i);
    if (const int64_t* v = std::get_if<int64_t>(&p)) return sqlite3_bind_int64(stmt, i, *v);
    std::string_view t = std::get<std::string_view>(p);
    return sqlite3_bind_text64(stmt, i, t.data(), t.size(), SQLITE_STATIC, SQLITE_UTF8);
  }

  Unexpected<Error> Failed(sqlite3_stmt* stmt) {
    std::string message = sqlite3_errmsg(db_);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return IoError("SQLite: " + message);
  }

  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

// The writer connection and the batch its writers share. One writer at a time holds the turn:
// it opens the batch's transaction if none is open (BEGIN IMMEDIATE), does its work in a
// savepoint, and releases the savepoint (or rolls it back). When it leaves, it commits the
// batch if every writer that was waiting when the batch began has had its turn, or no one else
// waits; otherwise it hands the turn on and waits for the batch's commit. A batch is at most as
// large as the number of writers queued, so no writer waits for more than one round of them.
class CommitGroup {
 public:
  explicit CommitGroup(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}

  SqliteDb& db() { return *db_; }

  Store::Stats stats() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

  /// Take the turn and open a savepoint for one writer's transaction.
  Status Enter() {
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++waiting_;
      turn_free_.wait(lock, [&] { return !busy_; });
      --waiting_;
      busy_ = true;
      if (!open_) {
        if (Status s = db_->Exec("BEGIN IMMEDIATE"); !s.has_value()) {
          FreeTurn();
          return s;
        }
        open_ = true;
        quota_ = 1 + waiting_;
        turns_ = 0;
        batch_failed_.reset();
      }
    }
    if (Status s = db_->Exec("SAVEPOINT sluice_writer"); !s.has_value()) {
      (void)Leave(false);
      return s;
    }
    return Ok();
  }

  /// End the turn: keep the writer's work in the batch (`keep`) or undo it. When kept, returns
  /// once the batch is committed, with the commit's outcome.
  Status Leave(bool keep) {
    Status released = Ok();
    if (keep) released = db_->Exec("RELEASE sluice_writer");
    if (!keep || !released.has_value()) Undo();
    const bool kept = keep && released.has_value();

    std::unique_lock<std::mutex> lock(mu_);
    if (open_ && !db_->InTransaction()) {
      // SQLite rolled the whole transaction back after an error: no work in it survives.
      batch_failed_ = Error(ErrorCode::kIoError,
                            "SQLite: the write transaction was rolled back after an error");
      open_ = false;
    }
    const uint64_t mine = batch_;
    ++turns_;
    if (kept) ++members_;
    if (!open_) {
      FinishBatch();
    } else if (turns_ >= quota_ || waiting_ == 0) {
      EndBatch(lock);
    }
    FreeTurn();
    if (!kept) return released;
    committed_.wait(lock, [&] { return done_ >= mine; });
    return Collect(mine);
  }

 private:
  void Undo() {
    (void)db_->Exec("ROLLBACK TO sluice_writer");
    (void)db_->Exec("RELEASE sluice_writer");
  }

  void FreeTurn() {
    busy_ = false;
    turn_free_.notify_one();
  }

  // Commit the open batch, or end it without a sync when nobody's work is in it. The caller
  // holds the turn, so the connection is its own while the lock is released for the sync.
  void EndBatch(std::unique_lock<std::mutex>& lock) {
    const bool any = members_ > 0;
    lock.unlock();
    Status s = any ? db_->Exec("COMMIT") : db_->Exec("ROLLBACK");
    if (!s.has_value() && db_->InTransaction()) (void)db_->Exec("ROLLBACK");
    lock.lock();
    open_ = false;
    if (!s.has_value()) batch_failed_ = s.error();
    if (s.has_value() && any) {
      ++stats_.commits;
      stats_.transactions += static_cast<uint64_t>(members_);
    }
    FinishBatch();
  }

  // Record the finished batch's outcome for its members, wake them, and number the next one.
  void FinishBatch() {
    if (members_ > 0) {
      outcomes_[batch_] = {members_, batch_failed_ ? Status(Fail(*batch_failed_)) : Ok()};
    }
    done_ = batch_;
    ++batch_;
    members_ = 0;
    batch_failed_.reset();
    committed_.notify_all();
  }

  Status Collect(uint64_t batch) {
    auto it = outcomes_.find(batch);
    Status s = it->second.second;
    if (--it->second.first == 0) outcomes_.erase(it);
    return s;
  }

  std::unique_ptr<SqliteDb> db_;
  mutable std::mutex mu_;
  std::condition_variable turn_free_;
  std::condition_variable committed_;
  bool busy_ = false;   // a writer holds the turn
  int waiting_ = 0;     // writers waiting for the turn
  bool open_ = false;   // the batch's transaction is open
  int quota_ = 0;       // turns the open batch waits for at most
  int turns_ = 0;       // kept turns taken in the open batch
  int members_ = 0;     // writers whose work is in the open batch
  uint64_t batch_ = 1;  // the open (or next) batch
  uint64_t done_ = 0;   // the last batch finished
  std::optional<Error> batch_failed_;
  std::map<uint64_t, std::pair<int, Status>> outcomes_;  // batch -> (members to tell, outcome)
  Store::Stats stats_;
};

// A pooled connection: reads on its own handle; write transactions on the group's.
class SqliteConnection final : public Connection {
 public:
  SqliteConnection(std::unique_ptr<SqliteDb> db, CommitGroup* group)
      : db_(std::move(db)), group_(group) {}

  Result<std::vector<SqlRow>> Query(std::string_view sql,
                                    std::initializer_list<SqlParam> params) override {
    return (writing_ ? group_->db() : *db_).Query(sql, params);
  }
  Status BeginWrite() override {
    SLUICE_TRY(group_->Enter());
    writing_ = true;
    return Ok();
  }
  Status BeginRead() override { return db_->Exec("BEGIN"); }
  Status Commit() override {
    if (!writing_) return db_->Exec("COMMIT");
    writing_ = false;
    return group_->Leave(true);
  }
  void Rollback() override {
    if (!writing_) {
      (void)db_->Exec("ROLLBACK");
      return;
    }
    writing_ = false;
    (void)group_->Leave(false);
  }

 private:
  std::unique_ptr<SqliteDb> db_;
  CommitGroup* group_;
  bool writing_ = false;
};

std::string UriOf(std::string_view path) {
  if (path == ":memory:") {
    // One private in-memory database shared by this store's connections.
    static std::atomic<int> counter{0};
    return "file:sluice-memory-" + std::to_string(counter++) + "?mode=memory&cache=shared";
  }
  std::string uri = "file:";
  for (char c : path) {
    if (c == '?' || c == '#' || c == '%') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      uri += buf;
    } else {
      uri += c;
    }
  }
  return uri;
}

class SqliteStore final : public Store {
 public:
  explicit SqliteStore(std::string uri) : Store(64), uri_(std::move(uri)) {}
  std::string_view kind() const override { return "sqlite"; }
  Stats stats() const override { return group_->stats(); }

  static Result<std::unique_ptr<Store>> Open(std::string_view path) {
    auto store = std::make_unique<SqliteStore>(UriOf(path));
    // The writer connection stays open for the store's life, which also keeps an in-memory
    // database alive: it lives only as long as one of its connections does.
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> writer, store->OpenDb());
    store->group_ = std::make_unique<CommitGroup>(std::move(writer));
    SLUICE_TRY(store->Migrate());
    return std::unique_ptr<Store>(std::move(store));
  }

 protected:
  Result<std::unique_ptr<Connection>> Connect() override {
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, OpenDb());
    return std::unique_ptr<Connection>(
        std::make_unique<SqliteConnection>(std::move(db), group_.get()));
  }

 private:
  Result<std::unique_ptr<SqliteDb>> OpenDb() {
    sqlite3* handle = nullptr;
    const int flags =
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(uri_.c_str(), &handle, flags, nullptr) != SQLITE_OK) {
      std::string message = handle ? sqlite3_errmsg(handle) : "out of memory";
      sqlite3_close(handle);
      return IoError("SQLite: cannot open " + uri_ + ": " + message);
    }
    auto db = std::make_unique<SqliteDb>(handle);
    // Other processes' writers on the same file wait for the lock, up to 30 s.
    sqlite3_busy_timeout(handle, 30000);
    // WAL: readers never wait for the writer. synchronous=FULL: a commit is on disk (synced)
    // before it returns, so an acknowledged registration survives a crash or a power cut.
    for (const char* pragma :
         {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON"}) {
      if (auto r = db->Query(pragma, {}); !r.has_value()) return Fail(r.error());
    }
    return db;
  }

  std::string uri_;
  std::unique_ptr<CommitGroup> group_;  // pooled connections keep a pointer, unused once idle
};

}  // namespace

Result<std::unique_ptr<Store>> OpenSqliteStore(std::string_view path) {
  return SqliteStore::Open(path);
}

}  // namespace sluice::registry::internal
