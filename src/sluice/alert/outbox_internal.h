// The outbox's SQLite connection and the pieces of its delivery policy tests check on their own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/alert/outbox.h"
#include "sluice/base/result.h"
#include "sluice/base/sqlite_db.h"

namespace sluice::alert {

namespace internal {

/// The outbox's one SQLite connection. Not thread-safe.
using Db = SqliteDb;
using Row = SqliteDb::Row;

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
  explicit Impl(std::unique_ptr<SqliteDb> db) : db(std::move(db)) {}
  std::unique_ptr<SqliteDb> db;
  std::string owner = internal::OwnerToken();
};

}  // namespace sluice::alert
