// The outbox's SQLite connection and the pieces of its delivery policy tests check on their own.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sluice/alert/outbox.h"
#include "sluice/base/result.h"

namespace sluice::alert {

namespace internal {

using Param = std::variant<std::nullptr_t, int64_t, std::string_view>;
using Row = std::vector<std::optional<std::string>>;

/// One SQLite connection and the statements the outbox runs on it. Not thread-safe.
class Db {
 public:
  Db(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~Db() { sqlite3_close(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  /// Run `sql` with `params` bound in order; every column comes back as text (or null).
  Result<std::vector<Row>> Query(std::string_view sql, std::initializer_list<Param> params = {});
  Status Exec(std::string_view sql, std::initializer_list<Param> params = {});
  /// Rows changed by the last INSERT, UPDATE or DELETE.
  int Changes() const { return sqlite3_changes(db_); }
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
  sqlite3* db_;
  std::string path_;
};

/// The wait before retry number `attempts` (1 for the first retry): initial_backoff_ms doubled
/// per attempt up to max_backoff_ms, scaled by 1 + jitter * (2 * `unit` - 1) for `unit` in [0, 1).
int64_t BackoffMs(const DeliveryPolicy& policy, int attempts, double unit);

/// Who holds a claim: host, process id and a random token, so a claim of a process that died on
/// this host is taken over at once instead of when its lease runs out.
std::string OwnerToken();
/// Whether the claim of `owner` may be ignored before its lease ends: a process on this host that
/// no longer runs.
bool OwnerIsDead(std::string_view owner);

int64_t WallClockMs();

}  // namespace internal

class Outbox::Impl {
 public:
  Impl(sqlite3* db, std::string path) : db(db, path), path(std::move(path)) {}
  internal::Db db;
  std::string path;
  std::string owner = internal::OwnerToken();
};

}  // namespace sluice::alert
