// Helpers shared by the Spark JSON and DDL readers and writers. Not for other modules.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sluice/base/json.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/type.h"

namespace sluice::dialects::spark::internal {

/// Spark's JSON name of a primitive ("integer", "decimal(10,2)", "void"); char/varchar give
/// "string" (the table-schema convention). Types Spark lacks get the nearest name and a note.
std::string JsonTypeName(const schema::Type& type, schema::NoteSink* notes,
                         const schema::FieldPath& path);

/// Spark's `catalogString` ("struct<a:int,b:varchar(10)>"), as written in the
/// __CHAR_VARCHAR_TYPE_STRING metadata.
std::string CatalogString(const schema::Type& type);

/// True if `type` holds a char or varchar anywhere inside.
bool HasCharVarchar(const schema::Type& type);

/// A JSON default as a SQL literal for CURRENT_DEFAULT / DDL DEFAULT: 1, 1.5, 'text', TRUE,
/// NULL. Arrays and objects have no literal form: nullopt.
std::optional<std::string> DefaultToSqlLiteral(const JsonValue& value);

/// The inverse for simple literals; nullopt for anything else (an expression).
std::optional<JsonValue> SqlLiteralToDefault(std::string_view literal);

/// Spark's escapeSingleQuotedString, plus backslashes (which Spark's own toDDL leaves alone and
/// its parser then reads as escapes).
std::string EscapeSqlString(std::string_view s);

inline constexpr std::string_view kCharVarcharKey = "__CHAR_VARCHAR_TYPE_STRING";
inline constexpr std::string_view kCurrentDefaultKey = "CURRENT_DEFAULT";
inline constexpr std::string_view kCommentKey = "comment";

}  // namespace sluice::dialects::spark::internal
