// Writing Spark type names in their three spellings: JSON (`integer`), catalogString (`int`)
// and SQL (`INT`), plus the literal helpers for defaults.
#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/dialects/spark/spark_internal.h"

namespace sluice::dialects::spark {

using schema::FieldPath;
using schema::NoteSink;
using schema::StringLength;
using schema::TimeUnit;
using schema::Type;
using schema::TypeKind;

namespace internal {

namespace {

void NoteUnit(const Type& type, NoteSink* notes, const FieldPath& path) {
  if (notes != nullptr && type.unit() != TimeUnit::kMicros) {
    notes->Add(path, fmt::format("{} written as Spark's microsecond {}", type.ToString(),
                                 schema::TypeKindName(type.kind())));
  }
}

}  // namespace

std::string JsonTypeName(const Type& type, NoteSink* notes, const FieldPath& path) {
  switch (type.kind()) {
    case TypeKind::kNull:
      return "void";
    case TypeKind::kBoolean:
      return "boolean";
    case TypeKind::kInt8:
      return "byte";
    case TypeKind::kInt16:
      return "short";
    case TypeKind::kInt32:
      return "integer";
    case TypeKind::kInt64:
      return "long";
    case TypeKind::kFloat32:
      return "float";
    case TypeKind::kFloat64:
      return "double";
    case TypeKind::kDecimal:
      return fmt::format("decimal({},{})", type.precision(), type.scale());
    case TypeKind::kString:
      return "string";
    case TypeKind::kBinary:
      return "binary";
    case TypeKind::kDate:
      return "date";
    case TypeKind::kTimestamp:
      NoteUnit(type, notes, path);
      return "timestamp";
    case TypeKind::kTimestampNtz:
      NoteUnit(type, notes, path);
      return "timestamp_ntz";
    case TypeKind::kTime:
      if (notes != nullptr) {
        notes->Add(path,
                   "time written as long (microseconds since midnight): Spark has no time type");
      }
      return "long";
    case TypeKind::kUuid:
      if (notes != nullptr) notes->Add(path, "uuid written as string: Spark has no uuid type");
      return "string";
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return "";  // callers handle nested types themselves
  }
  return "";
}

bool HasCharVarchar(const Type& type) {
  if (type.kind() == TypeKind::kString) return type.string_length() != StringLength::kUnbounded;
  if (type.is_struct()) {
    for (const auto& f : type.fields()) {
      if (HasCharVarchar(*f.type())) return true;
    }
    return false;
  }
  if (type.is_array()) return HasCharVarchar(*type.element_type());
  if (type.is_map()) return HasCharVarchar(*type.key_type()) || HasCharVarchar(*type.value_type());
  return false;
}

namespace {

// simpleString / catalogString names of primitives.
std::string SimpleName(const Type& type) {
  switch (type.kind()) {
    case TypeKind::kNull:
      return "void";
    case TypeKind::kBoolean:
      return "boolean";
    case TypeKind::kInt8:
      return "tinyint";
    case TypeKind::kInt16:
      return "smallint";
    case TypeKind::kInt32:
      return "int";
    case TypeKind::kInt64:
    case TypeKind::kTime:
      return "bigint";
    case TypeKind::kFloat32:
      return "float";
    case TypeKind::kFloat64:
      return "double";
    case TypeKind::kDecimal:
      return fmt::format("decimal({},{})", type.precision(), type.scale());
    case TypeKind::kString:
      switch (type.string_length()) {
        case StringLength::kChar:
          return fmt::format("char({})", type.length());
        case StringLength::kVarchar:
          return fmt::format("varchar({})", type.length());
        case StringLength::kUnbounded:
          return "string";
      }
      return "string";
    case TypeKind::kUuid:
      return "string";
    case TypeKind::kBinary:
      return "binary";
    case TypeKind::kDate:
      return "date";
    case TypeKind::kTimestamp:
      return "timestamp";
    case TypeKind::kTimestampNtz:
      return "timestamp_ntz";
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return "";
  }
  return "";
}

}  // namespace

std::string CatalogString(const Type& type) {
  if (type.is_struct()) {
    std::string out = "struct<";
    for (size_t i = 0; i < type.fields().size(); ++i) {
      if (i > 0) out += ',';
      out += type.fields()[i].name();
      out += ':';
      out += CatalogString(*type.fields()[i].type());
    }
    return out + ">";
  }
  if (type.is_array()) return "array<" + CatalogString(*type.element_type()) + ">";
  if (type.is_map()) {
    return "map<" + CatalogString(*type.key_type()) + "," + CatalogString(*type.value_type()) + ">";
  }
  return SimpleName(type);
}

std::optional<std::string> DefaultToSqlLiteral(const JsonValue& value) {
  switch (value.kind()) {
    case JsonValue::Kind::kNull:
      return "NULL";
    case JsonValue::Kind::kBool:
      return value.as_bool() ? "TRUE" : "FALSE";
    case JsonValue::Kind::kNumber:
      return value.number_text();
    case JsonValue::Kind::kString:
      return "'" + EscapeSqlString(value.as_string()) + "'";
    case JsonValue::Kind::kArray:
    case JsonValue::Kind::kObject:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<JsonValue> SqlLiteralToDefault(std::string_view literal) {
  std::string_view t = TrimWhitespace(literal);
  if (t.empty()) return std::nullopt;
  if (EqualsIgnoreCase(t, "NULL")) return JsonValue::Null();
  if (EqualsIgnoreCase(t, "TRUE")) return JsonValue::Bool(true);
  if (EqualsIgnoreCase(t, "FALSE")) return JsonValue::Bool(false);
  if (t.size() >= 2 && t.front() == '\'' && t.back() == '\'') {
    std::string out;
    for (size_t i = 1; i + 1 < t.size(); ++i) {
      char c = t[i];
      if (c == '\\' && i + 2 < t.size()) {
        out += t[++i];
      } else if (c == '\'') {
        return std::nullopt;  // an unescaped quote: more than one literal, not ours
      } else {
        out += c;
      }
    }
    return JsonValue::String(std::move(out));
  }
  // A JSON-compatible number literal.
  auto parsed = ParseJson(t);
  if (parsed.has_value() && parsed->is_number()) return JsonValue::NumberText(std::string(t));
  return std::nullopt;
}

std::string EscapeSqlString(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace internal

namespace {

std::string SqlFieldList(const Type& type, NoteSink* notes, const FieldPath& path);

std::string SqlOf(const Type& type, NoteSink* notes, const FieldPath& path) {
  if (type.is_struct()) return "STRUCT<" + SqlFieldList(type, notes, path) + ">";
  if (type.is_array()) {
    if (!type.contains_null() && notes != nullptr) {
      notes->Add(path,
                 "array elements are NOT NULL, which DDL cannot say (containsNull=false lost)");
    }
    return "ARRAY<" + SqlOf(*type.element_type(), notes, path.Element()) + ">";
  }
  if (type.is_map()) {
    if (!type.value_contains_null() && notes != nullptr) {
      notes->Add(path,
                 "map values are NOT NULL, which DDL cannot say (valueContainsNull=false lost)");
    }
    return "MAP<" + SqlOf(*type.key_type(), notes, path.Key()) + ", " +
           SqlOf(*type.value_type(), notes, path.Value()) + ">";
  }
  // Reuse the JSON writer's notes for types Spark lacks; the spelling is the SQL one.
  internal::JsonTypeName(type, notes, path);
  return AsciiUpper(internal::CatalogString(type));
}

std::string QuoteIfNeeded(std::string_view name) {
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) ok = false;
  }
  if (ok) return std::string(name);
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

std::string SqlFieldList(const Type& type, NoteSink* notes, const FieldPath& path) {
  std::string out;
  for (size_t i = 0; i < type.fields().size(); ++i) {
    const auto& f = type.fields()[i];
    FieldPath fp = path.Child(f.name());
    if (i > 0) out += ", ";
    out += QuoteIfNeeded(f.name());
    out += ": ";
    out += SqlOf(*f.type(), notes, fp);
    if (!f.nullable()) out += " NOT NULL";
    if (f.doc().has_value()) out += " COMMENT '" + internal::EscapeSqlString(*f.doc()) + "'";
  }
  return out;
}

std::string NameOf(const Type& type) {
  if (type.is_struct()) {
    std::string out = "struct<";
    for (size_t i = 0; i < type.fields().size(); ++i) {
      const auto& f = type.fields()[i];
      if (i > 0) out += ", ";
      out += QuoteIfNeeded(f.name()) + ": " + NameOf(*f.type());
      if (!f.nullable()) out += " not null";
    }
    return out + ">";
  }
  if (type.is_array()) return "array<" + NameOf(*type.element_type()) + ">";
  if (type.is_map())
    return "map<" + NameOf(*type.key_type()) + ", " + NameOf(*type.value_type()) + ">";
  if (type.kind() == TypeKind::kString && type.string_length() != StringLength::kUnbounded) {
    return internal::CatalogString(type);
  }
  return internal::JsonTypeName(type, nullptr, {});
}

}  // namespace

std::string QuoteIdentifier(std::string_view name) { return QuoteIfNeeded(name); }

std::string DataTypeSql(const Type& type, NoteSink* notes, const FieldPath& path) {
  return SqlOf(type, notes, path);
}

std::string DataTypeName(const Type& type) { return NameOf(type); }

}  // namespace sluice::dialects::spark
