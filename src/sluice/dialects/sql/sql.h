// CREATE TABLE statements for a schema in three SQL dialects: Spark SQL (Delta), DuckDB and
// PostgreSQL. Writing only; every type or attribute a dialect cannot hold is a lossy note.
// Thread-safe, never throws.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::dialects::sql {

enum class SqlDialect : uint8_t { kSpark, kDuckDb, kPostgres };

/// "spark", "duckdb", "postgres".
std::string_view SqlDialectName(SqlDialect dialect);

/// Read a dialect name: spark, duckdb, postgres (also postgresql, pg), case-insensitive.
/// kInvalidArgument lists the names.
Result<SqlDialect> ParseSqlDialect(std::string_view name);

struct CreateTableOptions {
  /// The table name; empty means SchemaInfo.name, else "my_table". Dots separate qualifier
  /// parts (`silver.orders`); each part is quoted on its own when needed.
  std::string table_name;
  /// CREATE TABLE IF NOT EXISTS.
  bool if_not_exists = false;
};

/// Write a CREATE TABLE statement (and for DuckDB and PostgreSQL the COMMENT ON statements that
/// carry docs), each ending in ";\n". Spark: `CREATE TABLE t (\n  col TYPE NOT NULL COMMENT
/// '...',\n  ...\n) USING DELTA;` with Spark SQL types. Identifiers are quoted only when needed.
schema::Converted<std::string> WriteCreateTable(const schema::Schema& schema, SqlDialect dialect,
                                                const CreateTableOptions& options = {});

/// The column type of `type` in `dialect` ("BIGINT", "STRUCT(a INTEGER)", "integer[]"), with
/// notes at `path` for what the dialect cannot hold.
std::string SqlType(const schema::Type& type, SqlDialect dialect, schema::NoteSink* notes = nullptr,
                    const schema::FieldPath& path = {});

/// Quote an identifier for `dialect` when it needs it: Spark backquotes names that are not
/// [A-Za-z_][A-Za-z0-9_]*; DuckDB and PostgreSQL double-quote names that are not
/// [a-z_][a-z0-9_]* or are reserved words.
std::string QuoteIdentifier(std::string_view name, SqlDialect dialect);

/// A string literal: Spark escapes ' and \ with a backslash, the others double the quote.
std::string QuoteString(std::string_view s, SqlDialect dialect);

}  // namespace sluice::dialects::sql
