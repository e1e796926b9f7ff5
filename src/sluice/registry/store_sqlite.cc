// The SQLite store (WAL, synchronous=FULL), with group commit: every write transaction of the
// process runs on one writer connection, each inside a savepoint of a shared transaction, and
// the writers waiting at the moment a batch starts are committed together with one sync. Each
// writer's Commit() returns only when its batch is durable.
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
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

// The writer connection and the batches its writers share. One writer at a time holds the turn:
// it opens the batch's transaction if none is open (BEGIN IMMEDIATE), does its work in a
// savepoint, and releases the savepoint (or rolls it back). When it leaves, it commits the
// batch if every writer that was waiting when the batch began has had its turn, or no one else
// waits; otherwise it hands the turn on. A batch is at most as large as the number of writers
// queued, so no writer waits for more than one round of them.
//
// With a WAL, the commit itself does not sync (synchronous=NORMAL on this connection): the
// turn passes to the next batch at once, and the members of committed batches wait for one
// fdatasync of the WAL that covers every batch committed before it began, made by whichever of
// them finds no sync under way. A writer's Leave(true) returns only once that sync is done, so
// an acknowledged write is on disk exactly as with synchronous=FULL, whose sync the turn would
// otherwise wait for. Without a WAL (an in-memory database) there is nothing to sync.
class CommitGroup {
 public:
  explicit CommitGroup(std::unique_ptr<SqliteDb> db, std::string wal_path)
      : db_(std::move(db)), wal_path_(std::move(wal_path)) {}
  ~CommitGroup() {
    if (wal_fd_ >= 0) ::close(wal_fd_);
  }

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
      }
    }
    if (Status s = db_->Exec("SAVEPOINT sluice_writer"); !s.has_value()) {
      (void)Leave(false);
      return s;
    }
    return Ok();
  }

  /// End the turn: keep the writer's work in the batch (`keep`) or undo it. When kept, returns
  /// once the batch is committed and durable, with the outcome.
  Status Leave(bool keep) {
    Status released = Ok();
    if (keep) released = db_->Exec("RELEASE sluice_writer");
    if (!keep || !released.has_value()) Undo();
    const bool kept = keep && released.has_value();

    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t mine = batch_;
    ++turns_;
    if (kept) ++members_;
    if (!db_->InTransaction()) {
      // SQLite rolled the whole transaction back after an error: no work in it survives.
      EndBatch(Error(ErrorCode::kIoError,
                     "SQLite: the write transaction was rolled back after an error"));
    } else if (turns_ >= quota_ || waiting_ == 0) {
      CommitBatch(lock);
    }
    FreeTurn();
    if (!kept) return released;
    return AwaitDurable(lock, mine);
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

  // Commit the open batch, or roll it back when nobody's work is in it. The caller holds the
  // turn, so the connection is its own while the lock is released.
  void CommitBatch(std::unique_lock<std::mutex>& lock) {
    const bool any = members_ > 0;
    lock.unlock();
    Status s = any ? db_->Exec("COMMIT") : db_->Exec("ROLLBACK");
    if (!s.has_value() && db_->InTransaction()) (void)db_->Exec("ROLLBACK");
    lock.lock();
    if (!s.has_value()) return EndBatch(s.error());
    if (any) {
      ++stats_.commits;
      stats_.transactions += static_cast<uint64_t>(members_);
      unsynced_[batch_] = members_;
      committed_ = batch_;
    }
    EndBatch(std::nullopt);
  }

  // Close the batch: a failed one tells its members at once; the next batch gets a number.
  void EndBatch(std::optional<Error> failed) {
    if (failed && members_ > 0) failed_.emplace(batch_, std::make_pair(members_, *failed));
    open_ = false;
    ++batch_;
    members_ = 0;
    if (failed) synced_.notify_all();
  }

  // Wait until batch `b` is on disk (syncing the WAL when no one else is), or report its failure.
  Status AwaitDurable(std::unique_lock<std::mutex>& lock, uint64_t b) {
    while (true) {
      if (auto it = failed_.find(b); it != failed_.end()) {
        Status s = Fail(it->second.second);
        if (--it->second.first == 0) failed_.erase(it);
        return s;
      }
      if (durable_ >= b) return Ok();
      if (syncing_) {
        synced_.wait(lock);
        continue;
      }
      syncing_ = true;
      const uint64_t target = committed_;
      lock.unlock();
      Status s = SyncWal();
      lock.lock();
      syncing_ = false;
      auto end = unsynced_.upper_bound(target);
      if (!s.has_value()) {
        for (auto it = unsynced_.begin(); it != end; ++it) {
          failed_.emplace(it->first, std::make_pair(it->second, s.error()));
        }
      }
      unsynced_.erase(unsynced_.begin(), end);
      durable_ = std::max(durable_, target);
      synced_.notify_all();
    }
  }

  // fdatasync of the WAL, on a descriptor of our own (SQLite keeps its own open): it flushes
  // the file's data written by any descriptor. The folder is synced once, with the first, so
  // the WAL's name is on disk too.
  Status SyncWal() {
    if (wal_path_.empty()) return Ok();
    if (wal_fd_ < 0) {
      wal_fd_ = ::open(wal_path_.c_str(), O_RDONLY | O_CLOEXEC);
      if (wal_fd_ < 0)
        return IoError("SQLite: cannot open " + wal_path_ + " to sync it: " + std::strerror(errno));
      std::string folder = wal_path_.substr(0, wal_path_.find_last_of('/') + 1);
      int dir = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir >= 0) {
        (void)::fsync(dir);
        ::close(dir);
      }
    }
    if (::fdatasync(wal_fd_) != 0) {
      return IoError("SQLite: cannot sync " + wal_path_ + ": " + std::strerror(errno));
    }
    return Ok();
  }

  std::unique_ptr<SqliteDb> db_;
  const std::string wal_path_;  // empty: nothing to sync
  int wal_fd_ = -1;             // used by the one syncing writer at a time
  mutable std::mutex mu_;
  std::condition_variable turn_free_;
  std::condition_variable synced_;
  bool busy_ = false;                                 // a writer holds the turn
  int waiting_ = 0;                                   // writers waiting for the turn
  bool open_ = false;                                 // the batch's transaction is open
  int quota_ = 0;                                     // turns the open batch waits for at most
  int turns_ = 0;                                     // turns taken in the open batch
  int members_ = 0;                                   // writers whose work is in the open batch
  uint64_t batch_ = 1;                                // the open (or next) batch
  uint64_t committed_ = 0;                            // the last batch committed
  uint64_t durable_ = 0;                              // every batch up to this one is synced
  bool syncing_ = false;                              // a writer is syncing the WAL
  std::map<uint64_t, int> unsynced_;                  // committed batch -> members
  std::map<uint64_t, std::pair<int, Error>> failed_;  // failed batch -> (members to tell, why)
  Store::Stats stats_;
};

// Copies the WAL back into the database file on a thread of its own, so that no registration
// waits for a checkpoint's writes and syncs: SQLite's automatic checkpoint runs inside the commit
// that crosses its threshold, and that commit's writers were the registry's slowest answers.
// Passive checkpoints never block writers or readers.
class Checkpointer {
 public:
  static constexpr int kFrames = 1000;  // SQLite's own automatic-checkpoint threshold

  explicit Checkpointer(std::unique_ptr<SqliteDb> db)
      : db_(std::move(db)), thread_([this] { Run(); }) {}
  ~Checkpointer() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  /// Watch `writer`'s commits (this replaces its automatic checkpoints).
  void Watch(SqliteDb& writer) { sqlite3_wal_hook(writer.handle(), &Checkpointer::OnCommit, this); }

 private:
  // Called by SQLite after every commit of the watched connection, with the WAL's size.
  static int OnCommit(void* self, sqlite3*, const char*, int frames) {
    if (frames >= kFrames) static_cast<Checkpointer*>(self)->Request();
    return SQLITE_OK;
  }
  void Request() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      requested_ = true;
    }
    wake_.notify_one();
  }
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      wake_.wait(lock, [&] { return requested_ || stop_; });
      if (stop_) return;
      requested_ = false;
      lock.unlock();
      (void)sqlite3_wal_checkpoint_v2(db_->handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr,
                                      nullptr);
      lock.lock();
    }
  }

  std::unique_ptr<SqliteDb> db_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool requested_ = false;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the rest is built
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
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> checkpoints, store->OpenDb());
    store->checkpointer_ = std::make_unique<Checkpointer>(std::move(checkpoints));
    store->checkpointer_->Watch(*writer);
    SLUICE_ASSIGN_OR_RETURN(std::string wal, SyncedByUs(*writer));
    store->group_ = std::make_unique<CommitGroup>(std::move(writer), std::move(wal));
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
  // The writer's commits do not sync when the database has a WAL: the commit group syncs it
  // (see CommitGroup). Returns the WAL's path, or "" when there is none.
  static Result<std::string> SyncedByUs(SqliteDb& writer) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<SqlRow> mode, writer.Query("PRAGMA journal_mode", {}));
    if (mode.empty() || mode[0].empty() || mode[0][0] != "wal") return std::string();
    const char* wal = sqlite3_filename_wal(sqlite3_db_filename(writer.handle(), "main"));
    if (wal == nullptr || *wal == '\0') return std::string();
    SLUICE_TRY(writer.Query("PRAGMA synchronous=NORMAL", {}));
    return std::string(wal);
  }

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
  std::unique_ptr<Checkpointer> checkpointer_;  // outlives the writer it watches
  std::unique_ptr<CommitGroup> group_;  // pooled connections keep a pointer, unused once idle
};

}  // namespace

Result<std::unique_ptr<Store>> OpenSqliteStore(std::string_view path) {
  return SqliteStore::Open(path);
}

}  // namespace sluice::registry::internal
