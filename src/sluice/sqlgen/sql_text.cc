#include "sluice/sqlgen/sql_text.h"

#include "sluice/dialects/sql/sql.h"

namespace sluice::sqlgen {
namespace {

// Words that a bare identifier would be read as something else: reserved words of DuckDB and
// Spark's ANSI mode, and names both engines read as literals or functions (null, current_date).
// clang-format off
constexpr std::string_view kKeywords[] = {
    "all", "analyse", "analyze", "and", "anti", "any", "array", "as", "asc", "asymmetric",
    "authorization", "between", "binary", "both", "by", "case", "cast", "check", "collate",
    "column", "concurrently", "constraint", "create", "cross", "current_catalog", "current_date",
    "current_role", "current_schema", "current_time", "current_timestamp", "current_user",
    "default", "deferrable", "desc", "describe", "distinct", "do", "else", "end", "escape",
    "except", "exists", "false", "fetch", "filter", "for", "foreign", "freeze", "from", "full",
    "grant", "group", "having", "ilike", "in", "initially", "inner", "intersect", "interval",
    "into", "is", "isnull", "join", "lambda", "lateral", "leading", "left", "like", "limit",
    "localtime", "localtimestamp", "natural", "not", "notnull", "null", "offset", "on", "only",
    "or", "order", "outer", "overlaps", "pivot", "pivot_longer", "pivot_wider", "placing",
    "positional", "primary", "qualify", "references", "returning", "right", "select", "semi",
    "session_user", "show", "similar", "some", "summarize", "symmetric", "table", "tablesample",
    "then", "time", "to", "trailing", "true", "union", "unique", "unknown", "unpivot", "user",
    "using", "variadic", "verbose", "when", "where", "window", "with"};
// clang-format on

bool Bare(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (std::string_view k : kKeywords) {
    if (name == k) return false;
  }
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

std::string Quoted(std::string_view text, char quote, bool double_backslash) {
  std::string out(1, quote);
  for (char c : text) {
    if (c == quote) out += quote;
    if (double_backslash && c == '\\') out += '\\';
    out += c;
  }
  out += quote;
  return out;
}

}  // namespace

Result<Dialect> ParseDialect(std::string_view name) {
  if (name == "spark") return Dialect::kSpark;
  if (name == "duckdb") return Dialect::kDuckDb;
  return InvalidArgument("unknown SQL dialect '" + std::string(name) + "' (spark, duckdb)");
}

std::string_view DialectName(Dialect dialect) {
  return dialect == Dialect::kSpark ? "spark" : "duckdb";
}

std::string QuoteIdentifier(Dialect dialect, std::string_view name) {
  if (Bare(name)) return std::string(name);
  return Quoted(name, dialect == Dialect::kSpark ? '`' : '"', false);
}

std::string QuoteString(Dialect dialect, std::string_view text) {
  // One home for SQL string literals: the DDL writer's. Spark reads '' as two literals
  // side by side, not as a quote, so its quotes are escaped with a backslash.
  return dialects::sql::QuoteString(text, dialect == Dialect::kSpark
                                              ? dialects::sql::SqlDialect::kSpark
                                              : dialects::sql::SqlDialect::kDuckDb);
}

}  // namespace sluice::sqlgen
