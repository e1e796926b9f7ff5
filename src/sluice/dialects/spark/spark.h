// Spark's schema languages: StructType JSON (what `df.schema.json()` and Delta's `schemaString`
// hold) and DDL strings (`user_id long, email string NOT NULL COMMENT 'x'`).
#pragma once

#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::dialects::spark {

using schema::Converted;
using schema::SchemaPtr;
using schema::TypePtr;

/// Read StructType JSON. Field metadata is kept: "comment" becomes the field doc,
/// "__CHAR_VARCHAR_TYPE_STRING" becomes a char/varchar type, and a literal "CURRENT_DEFAULT"
/// becomes the default value. kParseError/kInvalidArgument name the offset or field path.
Result<Converted<SchemaPtr>> ReadJson(std::string_view text);

/// Write StructType JSON as Scala's `StructType.json` does (keys in the order type, fields /
/// name, type, nullable, metadata; compact). Types Spark lacks (uuid, time, nanosecond
/// timestamps) are mapped to the nearest Spark type and reported as notes.
Converted<std::string> WriteJson(const schema::Schema& schema);

/// The seed-000 baseline hash: MD5 of PySpark's `schema.json()`, which is the StructType JSON
/// with keys sorted and non-ASCII escaped (`json.dumps(..., sort_keys=True,
/// separators=(",",":"))`).
std::string SparkMd5(const schema::Schema& schema);

/// Read a DDL column list (`a INT, b STRUCT<c: STRING> NOT NULL COMMENT 'x'`) or a single
/// STRUCT<...> type, as `StructType.fromDDL` / `DataType.fromDDL` accept them.
Result<Converted<SchemaPtr>> ReadDdl(std::string_view text);

/// Write `StructType.toDDL`: "`a` INT NOT NULL COMMENT 'x',b STRING" (names quoted only when
/// needed, fields joined by ","). char/varchar are written as CHAR(n)/VARCHAR(n).
Converted<std::string> WriteDdl(const schema::Schema& schema);

/// Parse one Spark SQL data type ("bigint", "decimal(10, 2)", "array<struct<a:int>>").
Result<TypePtr> ParseDataType(std::string_view text);

/// A type in Spark's SQL form ("BIGINT", "ARRAY<STRUCT<a: INT>>"); notes for unmappable types.
std::string DataTypeSql(const schema::Type& type, schema::NoteSink* notes = nullptr,
                        const schema::FieldPath& path = {});

/// Quote a column name as Spark's quoteIfNeeded does: bare when it matches
/// [A-Za-z_][A-Za-z0-9_]*, else in backquotes with backquotes doubled.
std::string QuoteIdentifier(std::string_view name);

/// A type by Spark's JSON type name for primitives ("long", "integer", "decimal(10,2)") and the
/// lower-case SQL form for nested types ("array<struct<a: integer>>"), as the seed contract
/// writes column types.
std::string DataTypeName(const schema::Type& type);

}  // namespace sluice::dialects::spark
