#include "sluice/sqlgen/sql_text.h"

namespace sluice::sqlgen {
namespace {

bool Bare(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
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
  return Quoted(text, '\'', dialect == Dialect::kSpark);
}

}  // namespace sluice::sqlgen
