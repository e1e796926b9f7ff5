#include "sluice/dialects/sql/sql.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/schema/type_visitor.h"

namespace sluice::dialects::sql {
namespace {

using schema::Field;
using schema::FieldPath;
using schema::NoteSink;
using schema::StringLength;
using schema::TimeUnit;
using schema::Type;
using schema::TypeKind;

// Words a column may not be named without quotes. PostgreSQL: the "reserved" and
// "reserved (can be function or type)" keywords of its SQL Key Words appendix (pg_get_keywords()
// categories R and T, checked against PostgreSQL 15, plus SYSTEM_USER from 16). DuckDB:
// duckdb_keywords() categories "reserved" and "type_function" of DuckDB 1.5, plus GRANT from
// earlier releases.
// Spark: the keywords reserved in ANSI mode (spark.sql.ansi.enforceReservedKeywords); default
// Spark accepts them bare, but quoting never hurts there. Sorted, upper case.
constexpr std::string_view kPostgresReserved[] = {"ALL",
                                                  "ANALYSE",
                                                  "ANALYZE",
                                                  "AND",
                                                  "ANY",
                                                  "ARRAY",
                                                  "AS",
                                                  "ASC",
                                                  "ASYMMETRIC",
                                                  "AUTHORIZATION",
                                                  "BINARY",
                                                  "BOTH",
                                                  "CASE",
                                                  "CAST",
                                                  "CHECK",
                                                  "COLLATE",
                                                  "COLLATION",
                                                  "COLUMN",
                                                  "CONCURRENTLY",
                                                  "CONSTRAINT",
                                                  "CREATE",
                                                  "CROSS",
                                                  "CURRENT_CATALOG",
                                                  "CURRENT_DATE",
                                                  "CURRENT_ROLE",
                                                  "CURRENT_SCHEMA",
                                                  "CURRENT_TIME",
                                                  "CURRENT_TIMESTAMP",
                                                  "CURRENT_USER",
                                                  "DEFAULT",
                                                  "DEFERRABLE",
                                                  "DESC",
                                                  "DISTINCT",
                                                  "DO",
                                                  "ELSE",
                                                  "END",
                                                  "EXCEPT",
                                                  "FALSE",
                                                  "FETCH",
                                                  "FOR",
                                                  "FOREIGN",
                                                  "FREEZE",
                                                  "FROM",
                                                  "FULL",
                                                  "GRANT",
                                                  "GROUP",
                                                  "HAVING",
                                                  "ILIKE",
                                                  "IN",
                                                  "INITIALLY",
                                                  "INNER",
                                                  "INTERSECT",
                                                  "INTO",
                                                  "IS",
                                                  "ISNULL",
                                                  "JOIN",
                                                  "LATERAL",
                                                  "LEADING",
                                                  "LEFT",
                                                  "LIKE",
                                                  "LIMIT",
                                                  "LOCALTIME",
                                                  "LOCALTIMESTAMP",
                                                  "NATURAL",
                                                  "NOT",
                                                  "NOTNULL",
                                                  "NULL",
                                                  "OFFSET",
                                                  "ON",
                                                  "ONLY",
                                                  "OR",
                                                  "ORDER",
                                                  "OUTER",
                                                  "OVERLAPS",
                                                  "PLACING",
                                                  "PRIMARY",
                                                  "REFERENCES",
                                                  "RETURNING",
                                                  "RIGHT",
                                                  "SELECT",
                                                  "SESSION_USER",
                                                  "SIMILAR",
                                                  "SOME",
                                                  "SYMMETRIC",
                                                  "SYSTEM_USER",
                                                  "TABLE",
                                                  "TABLESAMPLE",
                                                  "THEN",
                                                  "TO",
                                                  "TRAILING",
                                                  "TRUE",
                                                  "UNION",
                                                  "UNIQUE",
                                                  "USER",
                                                  "USING",
                                                  "VARIADIC",
                                                  "VERBOSE",
                                                  "WHEN",
                                                  "WHERE",
                                                  "WINDOW",
                                                  "WITH"};

constexpr std::string_view kDuckDbReserved[] = {
    "ALL",
    "ANALYSE",
    "ANALYZE",
    "AND",
    "ANTI",
    "ANY",
    "ARRAY",
    "AS",
    "ASC",
    "ASOF",
    "ASYMMETRIC",
    "AT",
    "AUTHORIZATION",
    "BINARY",
    "BOTH",
    "BY",
    "CASE",
    "CAST",
    "CHECK",
    "COLLATE",
    "COLLATION",
    "COLUMN",
    "COLUMNS",
    "CONCURRENTLY",
    "CONSTRAINT",
    "CREATE",
    "CROSS",
    "DEFAULT",
    "DEFERRABLE",
    "DESC",
    "DESCRIBE",
    "DISTINCT",
    "DO",
    "ELSE",
    "END",
    "EXCEPT",
    "FALSE",
    "FETCH",
    "FOR",
    "FOREIGN",
    "FREEZE",
    "FROM",
    "FULL",
    "GENERATED",
    "GLOB",
    "GRANT",
    "GROUP",
    "HAVING",
    "ILIKE",
    "IN",
    "INITIALLY",
    "INNER",
    "INTERSECT",
    "INTO",
    "IS",
    "ISNULL",
    "JOIN",
    "LAMBDA",
    "LATERAL",
    "LEADING",
    "LEFT",
    "LIKE",
    "LIMIT",
    "MAP",
    "NATURAL",
    "NOT",
    "NOTNULL",
    "NULL",
    "OFFSET",
    "ON",
    "ONLY",
    "OR",
    "ORDER",
    "OUTER",
    "OVERLAPS",
    "PIVOT",
    "PIVOT_LONGER",
    "PIVOT_WIDER",
    "PLACING",
    "POSITIONAL",
    "PRIMARY",
    "QUALIFY",
    "REFERENCES",
    "RETURNING",
    "RIGHT",
    "SELECT",
    "SEMI",
    "SHOW",
    "SIMILAR",
    "SOME",
    "STRUCT",
    "SUMMARIZE",
    "SYMMETRIC",
    "TABLE",
    "TABLESAMPLE",
    "THEN",
    "TO",
    "TRAILING",
    "TRUE",
    "TRY_CAST",
    "UNION",
    "UNIQUE",
    "UNPACK",
    "UNPIVOT",
    "USING",
    "VARIADIC",
    "VERBOSE",
    "WHEN",
    "WHERE",
    "WINDOW",
    "WITH",
};

constexpr std::string_view kSparkReserved[] = {"ALL",
                                               "AND",
                                               "ANY",
                                               "AS",
                                               "AUTHORIZATION",
                                               "BOTH",
                                               "CASE",
                                               "CAST",
                                               "CHECK",
                                               "COLLATE",
                                               "COLUMN",
                                               "CONSTRAINT",
                                               "CREATE",
                                               "CROSS",
                                               "CURRENT_DATE",
                                               "CURRENT_TIME",
                                               "CURRENT_TIMESTAMP",
                                               "CURRENT_USER",
                                               "DISTINCT",
                                               "ELSE",
                                               "END",
                                               "ESCAPE",
                                               "EXCEPT",
                                               "FALSE",
                                               "FETCH",
                                               "FILTER",
                                               "FOR",
                                               "FOREIGN",
                                               "FROM",
                                               "FULL",
                                               "GRANT",
                                               "GROUP",
                                               "HAVING",
                                               "IN",
                                               "INNER",
                                               "INTERSECT",
                                               "INTO",
                                               "IS",
                                               "JOIN",
                                               "LATERAL",
                                               "LEADING",
                                               "LEFT",
                                               "NATURAL",
                                               "NOT",
                                               "NULL",
                                               "OFFSET",
                                               "ON",
                                               "ONLY",
                                               "OR",
                                               "ORDER",
                                               "OUTER",
                                               "OVERLAPS",
                                               "PRIMARY",
                                               "REFERENCES",
                                               "RIGHT",
                                               "SELECT",
                                               "SESSION_USER",
                                               "SOME",
                                               "TABLE",
                                               "THEN",
                                               "TIME",
                                               "TO",
                                               "TRAILING",
                                               "UNION",
                                               "UNIQUE",
                                               "UNKNOWN",
                                               "USER",
                                               "USING",
                                               "WHEN",
                                               "WHERE",
                                               "WITH"};

static_assert(std::is_sorted(std::begin(kPostgresReserved), std::end(kPostgresReserved)));
static_assert(std::is_sorted(std::begin(kDuckDbReserved), std::end(kDuckDbReserved)));
static_assert(std::is_sorted(std::begin(kSparkReserved), std::end(kSparkReserved)));

template <size_t N>
bool IsReserved(const std::string_view (&words)[N], std::string_view name) {
  std::string upper = AsciiUpper(name);
  return std::binary_search(std::begin(words), std::end(words), std::string_view(upper));
}

bool IsLowerIdentifier(std::string_view name) {
  if (name.empty()) return false;
  if (!((name[0] >= 'a' && name[0] <= 'z') || name[0] == '_')) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

std::string UnitPrecision(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMillis:
      return "(3)";
    case TimeUnit::kMicros:
      return "";
    case TimeUnit::kNanos:
      return "";
  }
  return "";
}

class TypeWriter {
 public:
  TypeWriter(SqlDialect dialect, NoteSink* notes) : dialect_(dialect), notes_(notes) {}

  std::string Write(const Type& type, const FieldPath& path) {
    switch (dialect_) {
      case SqlDialect::kSpark:
        return spark::DataTypeSql(type, notes_, path);
      case SqlDialect::kDuckDb:
        return DuckDb(type, path);
      case SqlDialect::kPostgres:
        return Postgres(type, path);
    }
    return "";
  }

 private:
  void Note(const FieldPath& path, std::string message) {
    if (notes_ != nullptr) notes_->Add(path, std::move(message));
  }

  // Struct fields of a type that keeps them (DuckDB STRUCT): nullability and docs are lost.
  void NoteNestedField(const Field& f, const FieldPath& path, std::string_view dialect) {
    if (!f.nullable()) {
      Note(path,
           fmt::format("{} cannot declare a struct field NOT NULL; written nullable", dialect));
    }
    if (f.doc().has_value()) {
      Note(path,
           fmt::format("{} has no comments on struct fields; the doc is not written", dialect));
    }
  }

  std::string DuckDb(const Type& type, const FieldPath& path) {
    switch (type.kind()) {
      case TypeKind::kNull:
        return "\"NULL\"";
      case TypeKind::kBoolean:
        return "BOOLEAN";
      case TypeKind::kInt8:
        return "TINYINT";
      case TypeKind::kInt16:
        return "SMALLINT";
      case TypeKind::kInt32:
        return "INTEGER";
      case TypeKind::kInt64:
        return "BIGINT";
      case TypeKind::kFloat32:
        return "FLOAT";
      case TypeKind::kFloat64:
        return "DOUBLE";
      case TypeKind::kDecimal:
        return fmt::format("DECIMAL({}, {})", type.precision(), type.scale());
      case TypeKind::kString:
        if (type.string_length() != StringLength::kUnbounded) {
          Note(path, fmt::format("DuckDB does not enforce string lengths; {} written as VARCHAR",
                                 type.ToString()));
        }
        return "VARCHAR";
      case TypeKind::kBinary:
        return "BLOB";
      case TypeKind::kDate:
        return "DATE";
      case TypeKind::kTimestamp:
        if (type.unit() != TimeUnit::kMicros) {
          Note(path, fmt::format("DuckDB's TIMESTAMPTZ has microsecond precision; {} is {} to it",
                                 type.ToString(),
                                 type.unit() == TimeUnit::kNanos ? "truncated" : "widened"));
        }
        return "TIMESTAMPTZ";
      case TypeKind::kTimestampNtz:
        if (type.unit() == TimeUnit::kMillis) return "TIMESTAMP_MS";
        if (type.unit() == TimeUnit::kNanos) return "TIMESTAMP_NS";
        return "TIMESTAMP";
      case TypeKind::kTime:
        if (type.unit() == TimeUnit::kNanos) {
          Note(path, "DuckDB's TIME has microsecond precision; nanoseconds are truncated");
        } else if (type.unit() == TimeUnit::kMillis) {
          Note(path, "DuckDB's TIME has microsecond precision; time(3) is widened to it");
        }
        return "TIME";
      case TypeKind::kUuid:
        return "UUID";
      case TypeKind::kStruct: {
        if (type.fields().empty()) Note(path, "DuckDB has no empty STRUCT");
        std::string out = "STRUCT(";
        for (size_t i = 0; i < type.fields().size(); ++i) {
          const Field& f = type.fields()[i];
          FieldPath fp = path.Child(f.name());
          if (i > 0) out += ", ";
          out += QuoteIdentifier(f.name(), SqlDialect::kDuckDb);
          out += ' ';
          out += DuckDb(*f.type(), fp);
          NoteNestedField(f, fp, "DuckDB");
        }
        return out + ")";
      }
      case TypeKind::kArray:
        if (!type.contains_null()) {
          Note(path, "DuckDB lists cannot declare their elements NOT NULL; written nullable");
        }
        return DuckDb(*type.element_type(), path.Element()) + "[]";
      case TypeKind::kMap:
        if (!type.value_contains_null()) {
          Note(path, "DuckDB maps cannot declare their values NOT NULL; written nullable");
        }
        return fmt::format("MAP({}, {})", DuckDb(*type.key_type(), path.Key()),
                           DuckDb(*type.value_type(), path.Value()));
    }
    return "";
  }

  static bool HoldsStructOrMap(const Type& type) {
    if (type.is_struct() || type.is_map()) return true;
    if (type.is_array()) return HoldsStructOrMap(*type.element_type());
    return false;
  }

  std::string Postgres(const Type& type, const FieldPath& path) {
    switch (type.kind()) {
      case TypeKind::kNull:
        Note(path, "PostgreSQL has no null type; written as text");
        return "text";
      case TypeKind::kBoolean:
        return "boolean";
      case TypeKind::kInt8:
        Note(path, "PostgreSQL has no 1-byte integer; int8 written as smallint");
        return "smallint";
      case TypeKind::kInt16:
        return "smallint";
      case TypeKind::kInt32:
        return "integer";
      case TypeKind::kInt64:
        return "bigint";
      case TypeKind::kFloat32:
        return "real";
      case TypeKind::kFloat64:
        return "double precision";
      case TypeKind::kDecimal:
        return fmt::format("numeric({}, {})", type.precision(), type.scale());
      case TypeKind::kString:
        if (type.string_length() == StringLength::kChar) {
          return fmt::format("char({})", type.length());
        }
        if (type.string_length() == StringLength::kVarchar) {
          return fmt::format("varchar({})", type.length());
        }
        return "text";
      case TypeKind::kBinary:
        return "bytea";
      case TypeKind::kDate:
        return "date";
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampNtz:
      case TypeKind::kTime: {
        std::string_view base = type.kind() == TypeKind::kTimestamp      ? "timestamptz"
                                : type.kind() == TypeKind::kTimestampNtz ? "timestamp"
                                                                         : "time";
        if (type.unit() == TimeUnit::kNanos) {
          Note(path, fmt::format("PostgreSQL's {} has microsecond precision; nanoseconds are "
                                 "truncated",
                                 base));
        }
        return std::string(base) + UnitPrecision(type.unit());
      }
      case TypeKind::kUuid:
        return "uuid";
      case TypeKind::kStruct:
        Note(path, "PostgreSQL has no anonymous struct type; written as jsonb");
        return "jsonb";
      case TypeKind::kMap:
        Note(path, "PostgreSQL has no map type; written as jsonb");
        return "jsonb";
      case TypeKind::kArray: {
        if (HoldsStructOrMap(*type.element_type())) {
          Note(path, "an array of structs or maps is written as one jsonb value");
          return "jsonb";
        }
        if (!type.contains_null()) {
          Note(path, "PostgreSQL arrays cannot declare their elements NOT NULL; written nullable");
        }
        if (type.element_type()->is_array()) {
          Note(path,
               "PostgreSQL arrays of arrays are multidimensional: inner arrays must all "
               "have the same length");
        }
        return Postgres(*type.element_type(), path.Element()) + "[]";
      }
    }
    return "";
  }

  SqlDialect dialect_;
  NoteSink* notes_;
};

std::string QualifiedName(std::string_view name, SqlDialect dialect) {
  std::vector<std::string> parts;
  for (std::string_view part : SplitString(name, '.')) {
    parts.push_back(QuoteIdentifier(part, dialect));
  }
  return JoinStrings(parts, ".");
}

// A field default as a literal of the column's type, or nullopt when it cannot be written.
std::optional<std::string> DefaultLiteral(const JsonValue& value, const Type& type,
                                          SqlDialect dialect) {
  if (value.is_null()) return std::string("NULL");
  TypeKind k = type.kind();
  if (value.is_bool() && k == TypeKind::kBoolean)
    return std::string(value.as_bool() ? "TRUE" : "FALSE");
  if (value.is_number() && (type.is_integer() || type.is_floating() || k == TypeKind::kDecimal)) {
    return value.number_text();
  }
  if (!value.is_string()) return std::nullopt;
  std::string quoted = QuoteString(value.as_string(), dialect);
  bool spark = dialect == SqlDialect::kSpark;
  using Literal = std::optional<std::string>;
  auto literal = schema::Overloaded{
      [&](const schema::StringType&) -> Literal { return quoted; },
      [&](const schema::UuidType&) -> Literal { return spark ? quoted : quoted + "::UUID"; },
      [&](const schema::DateType&) -> Literal { return "DATE " + quoted; },
      [&](const schema::TimestampType& t) -> Literal {
        if (t.utc_adjusted()) return (spark ? "TIMESTAMP " : "TIMESTAMPTZ ") + quoted;
        return (spark ? "TIMESTAMP_NTZ " : "TIMESTAMP ") + quoted;
      },
      [&](const schema::TimeType&) -> Literal {
        // Spark writes time as BIGINT microseconds; a time literal would not fit the column.
        if (spark) return std::nullopt;
        return "TIME " + quoted;
      },
      // No other type takes its default from a string.
      [&](const schema::AnyType&) -> Literal { return std::nullopt; },
  };
  return schema::VisitType(type, literal);
}

}  // namespace

std::string_view SqlDialectName(SqlDialect dialect) {
  switch (dialect) {
    case SqlDialect::kSpark:
      return "spark";
    case SqlDialect::kDuckDb:
      return "duckdb";
    case SqlDialect::kPostgres:
      return "postgres";
  }
  return "";
}

Result<SqlDialect> ParseSqlDialect(std::string_view name) {
  std::string lower = AsciiLower(TrimWhitespace(name));
  if (lower == "spark" || lower == "sparksql" || lower == "spark-sql" || lower == "delta") {
    return SqlDialect::kSpark;
  }
  if (lower == "duckdb") return SqlDialect::kDuckDb;
  if (lower == "postgres" || lower == "postgresql" || lower == "pg") return SqlDialect::kPostgres;
  return InvalidArgument(fmt::format(
      "unknown SQL dialect \"{}\"; expected spark, duckdb or postgres", EscapeForMessage(name)));
}

std::string QuoteIdentifier(std::string_view name, SqlDialect dialect) {
  if (dialect == SqlDialect::kSpark) {
    if (IsReserved(kSparkReserved, name)) return "`" + std::string(name) + "`";
    return spark::QuoteIdentifier(name);
  }
  bool bare = IsLowerIdentifier(name) &&
              !(dialect == SqlDialect::kDuckDb ? IsReserved(kDuckDbReserved, name)
                                               : IsReserved(kPostgresReserved, name));
  if (bare) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string QuoteString(std::string_view s, SqlDialect dialect) {
  std::string out = "'";
  for (char c : s) {
    if (dialect == SqlDialect::kSpark) {
      // Spark string literals take backslash escapes; a raw newline would split the column line.
      if (c == '\'' || c == '\\') {
        out += '\\';
        out += c;
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else {
        out += c;
      }
    } else {
      if (c == '\'') out += '\'';
      out += c;
    }
  }
  return out + "'";
}

std::string SqlType(const schema::Type& type, SqlDialect dialect, schema::NoteSink* notes,
                    const schema::FieldPath& path) {
  return TypeWriter(dialect, notes).Write(type, path);
}

schema::Converted<std::string> WriteCreateTable(const schema::Schema& schema, SqlDialect dialect,
                                                const CreateTableOptions& options) {
  NoteSink notes;
  std::string table_name = options.table_name;
  if (table_name.empty()) table_name = schema.info().name;
  if (table_name.empty()) table_name = "my_table";
  std::string table = QualifiedName(table_name, dialect);
  TypeWriter types(dialect, &notes);

  std::string out = "CREATE TABLE ";
  if (options.if_not_exists) out += "IF NOT EXISTS ";
  out += table;
  out += " (\n";
  if (schema.fields().empty()) notes.Add({}, "the table has no columns, which most engines reject");
  std::vector<std::string> comments;  // COMMENT ON statements for DuckDB and PostgreSQL
  bool has_defaults = false;
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    const Field& f = schema.fields()[i];
    FieldPath path = FieldPath::Of(f.name());
    std::string column = QuoteIdentifier(f.name(), dialect);
    out += "  " + column + " " + types.Write(*f.type(), path);
    if (f.type()->kind() == TypeKind::kNull && dialect == SqlDialect::kSpark) {
      notes.Add(path, "Spark cannot create a table with a VOID column");
    }
    if (!f.nullable()) out += " NOT NULL";
    if (f.default_value().has_value()) {
      auto literal = DefaultLiteral(*f.default_value(), *f.type(), dialect);
      if (literal.has_value()) {
        out += " DEFAULT " + *literal;
        has_defaults = true;
      } else {
        notes.Add(path, "the default value has no SQL literal of the column's type; not written");
      }
    }
    if (f.doc().has_value()) {
      if (dialect == SqlDialect::kSpark) {
        out += " COMMENT " + QuoteString(*f.doc(), dialect);
      } else {
        comments.push_back(fmt::format("COMMENT ON COLUMN {}.{} IS {};\n", table, column,
                                       QuoteString(*f.doc(), dialect)));
      }
    }
    if (f.metadata().size() > 0) notes.Add(path, "field metadata has no place in SQL; not written");
    out += i + 1 < schema.fields().size() ? ",\n" : "\n";
  }
  out += ")";
  if (dialect == SqlDialect::kSpark) {
    out += " USING DELTA";
    if (schema.info().doc.has_value()) {
      out += "\nCOMMENT " + QuoteString(*schema.info().doc, dialect);
    }
    // Delta refuses DEFAULT clauses unless the table has the column-defaults feature.
    if (has_defaults) {
      out += "\nTBLPROPERTIES ('delta.feature.allowColumnDefaults' = 'supported')";
    }
  }
  out += ";\n";
  if (dialect != SqlDialect::kSpark && schema.info().doc.has_value()) {
    out += fmt::format("COMMENT ON TABLE {} IS {};\n", table,
                       QuoteString(*schema.info().doc, dialect));
  }
  for (const std::string& c : comments) out += c;
  return schema::Converted<std::string>{std::move(out), notes.Take()};
}

}  // namespace sluice::dialects::sql
