// The store's backends, each in its own file; Store::Open picks one by the spec's scheme.
#pragma once

#include <memory>
#include <string_view>

#include "sluice/registry/store.h"

namespace sluice::registry::internal {

/// An SQLite database at `path` (created if missing; `:memory:` for a private in-memory one).
Result<std::unique_ptr<Store>> OpenSqliteStore(std::string_view path);
/// A PostgreSQL database named by libpq's connection string.
Result<std::unique_ptr<Store>> OpenPostgresStore(std::string_view conninfo);

}  // namespace sluice::registry::internal
