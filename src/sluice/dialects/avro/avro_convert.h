// Converting between Avro schemas and the sluice model, the way spark-avro's SchemaConverters do
// (Spark 3.5: `toSqlType` and `toAvroType`), with every lossy step reported as a note. The
// differences from Spark are deliberate and listed in the function contracts below.
#pragma once

#include <string>
#include <string_view>

#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::dialects::avro {

/// Metadata key under which a field's Avro aliases (a JSON array of names) travel in the model.
inline constexpr std::string_view kAliasesMetadataKey = "avro.aliases";

/// Convert a parsed Avro schema to the model, as spark-avro reads it:
/// - a top-level record becomes the schema (name, namespace, doc into SchemaInfo); any other
///   top-level type becomes a schema with one field `value` (and a note);
/// - `["null", T]` (either order) is a nullable T, a one-branch union is that branch, int+long
///   is int64, float+double is float64, and other unions are a struct of nullable fields
///   `member0..memberN` (one per non-null branch);
/// - logical types map to date, time, timestamp, timestamp_ntz (with their unit), decimal and
///   uuid; enum becomes string, fixed becomes binary;
/// - field docs and defaults are kept (a decimal default's bytes become the decimal number);
///   field aliases go to metadata under kAliasesMetadataKey and custom field attributes to
///   metadata under their own keys; type names, symbols, sizes, sort orders and type-level
///   attributes are reported as notes.
/// Errors: kUnimplemented for a recursive record (the model, like Spark, holds no recursion) and
/// for decimals above precision 38; kInvalidArgument when nesting exceeds the model's limit or
/// the schema expands to too many types.
Result<schema::Converted<schema::SchemaPtr>> ToModel(const AvroSchema& avro);

/// Convert a model schema to Avro JSON (a JsonValue), as spark-avro writes it except where noted:
/// - the top-level record is named SchemaInfo.name (or "topLevelRecord") in SchemaInfo's
///   namespace; nested records are named after their field, in a namespace made of the
///   enclosing record names ("topLevelRecord.address"), made unique where needed;
/// - a nullable field is `["null", T]` with `"default": null` (Spark writes `[T, "null"]` with no
///   default, which makes every added nullable field a breaking change); a nullable field whose
///   default is not null is `[T, "null"]` with that default;
/// - decimal is a fixed of the fewest bytes with the decimal logical type (Spark's choice), date
///   and time, timestamp, timestamp_ntz carry their logical types and units, uuid is a string
///   with the uuid logical type;
/// - int8/int16 become int, char/varchar string, time(nanos) long, non-string map keys string,
///   each with a note; defaults that Avro cannot hold are dropped with a note.
/// Errors: kInvalidArgument for a field name Avro does not allow (`[A-Za-z_][A-Za-z0-9_]*`) or
/// an invalid schema name or namespace.
Result<schema::Converted<JsonValue>> FromModel(const schema::Schema& schema);

/// Read Avro schema JSON into the model: Parse, then ToModel.
Result<schema::Converted<schema::SchemaPtr>> ReadSchema(std::string_view text);

/// Write a model schema as Avro schema JSON (FromModel), `indent` spaces per level (0: compact).
/// The text is checked by Parse before it is returned.
Result<schema::Converted<std::string>> WriteSchema(const schema::Schema& schema, int indent = 2);

/// What WriteSchema writes, with the parsed form its check made: for callers that go on to the
/// canonical form or a fingerprint, which need not parse the text again.
struct WrittenSchema {
  std::string text;
  AvroSchema parsed;
};
Result<schema::Converted<WrittenSchema>> WriteAndParse(const schema::Schema& schema,
                                                       int indent = 2);

}  // namespace sluice::dialects::avro
