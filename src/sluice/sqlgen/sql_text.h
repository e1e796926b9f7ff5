// The SQL text both generated dialects share the rules of: identifiers and string literals
// quoted for Spark SQL (backquotes) or DuckDB (double quotes), and the dialects' names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/base/result.h"

namespace sluice::sqlgen {

enum class Dialect : uint8_t { kSpark, kDuckDb };

/// "spark", "duckdb"; kInvalidArgument otherwise.
Result<Dialect> ParseDialect(std::string_view name);
std::string_view DialectName(Dialect dialect);

/// `name` as an identifier: Spark `a b` (backquotes doubled inside), DuckDB "a b" (double quotes
/// doubled inside). Plain lower-case names made of [a-z0-9_] not starting with a digit stay bare,
/// unless they are reserved words or read as literals or functions (`order`, `null`,
/// `current_date`).
std::string QuoteIdentifier(Dialect dialect, std::string_view name);

/// `text` as a string literal (dialects::sql::QuoteString): DuckDB '...' with a quote doubled;
/// Spark '...' with a quote and a backslash escaped by a backslash (Spark reads '' as two
/// literals side by side).
std::string QuoteString(Dialect dialect, std::string_view text);

}  // namespace sluice::sqlgen
