// One SQLite connection for the small stores that keep state in a file of their own (the alert
// outbox, an ingest checkpoint): open with the durability they need, statements with bound
// parameters whose columns come back as text, and transactions. Its own library target
// (sluice::sqlite), so that base itself does not link SQLite.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sluice/base/result.h"

namespace sluice {

class SqliteDb {
 public:
  using Param = std::variant<std::nullptr_t, int64_t, std::string_view>;
  /// Every column as text, or nullopt for NULL.
  using Row = std::vector<std::optional<std::string>>;

  enum class Mode {
    /// Read and write, created when missing; WAL journal with synchronous=FULL, so a commit
    /// that returned is on disk.
    kDurable,
    /// Read only and lock-free: a writer in another process goes on (WAL lets this connection
    /// see its last commit).
    kReadOnly,
  };

  /// Open the database at `path`. `what` names it in every error ("the alert outbox", "the
  /// checkpoint"). A busy database is waited for up to `busy_timeout_ms`.
  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path, std::string_view what,
                                                Mode mode, int busy_timeout_ms);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  /// Run `sql` with `params` bound in order.
  Result<std::vector<Row>> Query(std::string_view sql, std::initializer_list<Param> params = {});
  Status Exec(std::string_view sql, std::initializer_list<Param> params = {});
  /// Rows changed by the last INSERT, UPDATE or DELETE.
  int Changes() const { return sqlite3_changes(db_); }
  const std::string& path() const { return path_; }

  /// BEGIN IMMEDIATE .. COMMIT around `body`, rolled back when anything fails.
  template <typename F>
  Status InTransaction(F&& body) {
    SLUICE_TRY(Exec("BEGIN IMMEDIATE"));
    Status s = body();
    if (s.has_value()) s = Exec("COMMIT");
    // A failed COMMIT leaves the transaction open: later statements would run inside it.
    if (!s.has_value()) (void)Exec("ROLLBACK");
    return s;
  }

 private:
  SqliteDb(sqlite3* db, std::string path, std::string what)
      : db_(db), path_(std::move(path)), what_(std::move(what)) {}

  sqlite3* db_;
  std::string path_;
  std::string what_;
};

}  // namespace sluice
