// Where the registry keeps its state: a small SQL interface with two implementations, SQLite
// (embedded, WAL) and PostgreSQL (libpq). The registry writes its SQL once, with `?`
// placeholders, in the subset both databases share; a backend only opens connections, runs
// statements and brackets transactions.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sluice/base/result.h"

namespace sluice::registry {

/// A statement parameter: NULL, an integer or text.
using SqlParam = std::variant<std::nullptr_t, int64_t, std::string_view>;
/// One result row: each column as text, or nullopt for NULL.
using SqlRow = std::vector<std::optional<std::string>>;

/// One database connection. Not thread-safe: the store hands each to one thread at a time.
class Connection {
 public:
  virtual ~Connection() = default;
  /// Run one statement with `?` placeholders and return its rows (none for statements without
  /// results). Errors are kIoError with the database's message.
  virtual Result<std::vector<SqlRow>> Query(std::string_view sql,
                                            std::initializer_list<SqlParam> params = {}) = 0;
  /// Start a transaction that writes. Writers are serialized across every connection of every
  /// server on the same database, so a read-then-write inside it sees the latest commits.
  virtual Status BeginWrite() = 0;
  /// Start a read-only transaction: one consistent snapshot for several statements.
  virtual Status BeginRead() = 0;
  /// Commit: when it returns success the transaction is durable.
  virtual Status Commit() = 0;
  virtual void Rollback() = 0;
};

/// A pool of connections to one database.
class Store {
 public:
  /// `sqlite:PATH` (created if missing), or a PostgreSQL URI `postgresql://...` /
  /// `postgres://...` (libpq's connection string). Creates the registry's tables if they are
  /// missing.
  static Result<std::unique_ptr<Store>> Open(std::string_view spec);

  virtual ~Store();

  /// "sqlite" or "postgresql".
  virtual std::string_view kind() const = 0;

  /// Write transactions committed, and the database commits (syncs) that made them durable:
  /// fewer commits than transactions when the store commits writers in groups (SQLite does).
  struct Stats {
    uint64_t transactions = 0;
    uint64_t commits = 0;
  };
  virtual Stats stats() const = 0;

  /// A connection from the pool, returned when the lease ends.
  class Lease {
   public:
    Lease(Store* store, std::unique_ptr<Connection> c) : store_(store), c_(std::move(c)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = default;
    ~Lease();
    Connection& operator*() const { return *c_; }
    Connection* operator->() const { return c_.get(); }

   private:
    Store* store_;
    std::unique_ptr<Connection> c_;
  };
  Result<Lease> Acquire();

 protected:
  explicit Store(size_t max_idle) : max_idle_(max_idle) {}
  virtual Result<std::unique_ptr<Connection>> Connect() = 0;
  /// Create the tables (idempotent; safe when several servers start at once).
  Status Migrate();

 private:
  void Release(std::unique_ptr<Connection> c);
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;
  size_t max_idle_;
};

/// The tables, as the registry's SQL expects them (documented in
/// docs/formats/registry-storage.md).
extern const char* const kSchemaStatements[];

}  // namespace sluice::registry
