// Converting between JSON Schema and the sluice model, both ways. Every step that loses
// something (a constraint, an annotation, a type the model lacks) is reported as a LossyNote at
// the field path it concerns; the note message names the JSON pointer of the keyword.
//
// JSON Schema -> model (ToSchema, ReadSchema):
//   object with properties        -> struct, properties in document order
//   object, no properties, additionalProperties: schema V -> map<string, V>
//   object, no properties, open    -> map<string, string> holding JSON text (note)
//   nullability                    -> a field is non-nullable exactly when it is `required` and
//                                     its schema does not admit null; otherwise nullable
//   type [T, "null"], anyOf/oneOf [T, {type: null}] -> nullable T
//   integer                        -> int64; int8/16/32 when minimum/maximum are exactly that
//                                     width's range (what WriteSchema writes); other bounds: note
//   number                         -> float64; ["integer", "number"] -> float64
//   string                         -> string; maxLength n -> varchar(n); minLength = maxLength
//                                     = n -> char(n); format date/date-time/time/uuid ->
//                                     date/timestamp/time/uuid; contentEncoding base64 -> binary
//   boolean, null                  -> boolean, null
//   Kafka Connect's "connect.type" beside a matching type: int8/16/32/64, float32/64, bytes ->
//                                     that exact type (Confluent's JsonConverter writes it)
//   array with items               -> array (element nullability -> contains_null)
//   tuples (prefixItems, items array) -> array<T> when every position converts to the same T,
//                                     else array<string> of JSON text (note either way)
//   enum / const                   -> the type their values share (string when mixed) + note
//   description / default          -> field doc / default
//   title                          -> field metadata {"title": ...}; the root's title is the
//                                     schema name and the root's description its doc
//   $ref                           -> followed; external or recursive refs -> kUnimplemented
//   allOf                          -> merged (objects: properties united, required united) +
//                                     note
//   anyOf/oneOf with several non-null alternatives, type arrays with several non-null types,
//   true / {} (any value)          -> string holding the value as JSON text + note
//   false                          -> a property that can never be present is dropped + note
//   everything else (min/max, pattern, multipleOf, uniqueItems, not, if/then/else, unknown
//   keywords, ...)                 -> a note
//   a root that is not an object   -> a schema with one field `value` + note
//
// Model -> JSON Schema (FromSchema, WriteSchema): see WriteOptions and the table in the
// project's docs; struct -> object with properties and required (non-nullable fields), nullable
// -> "type": [T, "null"], int8/16/32 -> integer with their range as minimum/maximum, int64 ->
// integer, float32 -> number (note), float64 -> number, decimal -> number (note),
// date/timestamp/time/uuid -> string with format (timestamp_ntz and non-micro units: note),
// binary -> string with contentEncoding base64, char(n) -> minLength = maxLength = n,
// varchar(n) -> maxLength n, array -> items, map -> additionalProperties (non-string keys:
// note), doc -> description, default -> default, metadata "title" -> title (other metadata:
// note), schema name -> title (namespace: note), $schema set.
#pragma once

#include <string>
#include <string_view>

#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/dialects/jsonschema/json_schema.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::dialects::jsonschema {

struct ToSchemaOptions {
  /// Inlining `$ref`s can blow a small document up exponentially (a chain of definitions that
  /// each use the next twice); past this many schema nodes visited the conversion stops.
  size_t max_visited_nodes = 200000;
};

/// Convert a parsed document to the sluice model (see the file comment for the mapping).
/// Errors: kUnimplemented for a recursive `$ref` (the model is a tree), an external `$ref` or a
/// `$dynamicRef`/`$recursiveRef` it would have to follow; kInvalidArgument when nesting exceeds
/// the model's limit or the node budget runs out. Messages name the JSON pointer.
Result<schema::Converted<schema::SchemaPtr>> ToSchema(const JsonSchemaDocument& document,
                                                      const ToSchemaOptions& options = {});

struct WriteOptions {
  /// Draft 7, 2019-09 or 2020-12; drafts 4 and 6 are refused (kInvalidArgument).
  Draft draft = Draft::k2020_12;
  /// Write "additionalProperties": false on every object from a struct. Off by default: a
  /// struct says which fields it has, not that no others may appear.
  bool close_objects = false;
};

/// Convert a sluice schema to a JSON Schema document (see the file comment for the mapping).
Result<schema::Converted<JsonValue>> FromSchema(const schema::Schema& schema,
                                                const WriteOptions& options = {});

/// Parse JSON Schema text and convert it: Parse, then ToSchema. Parse warnings come back as
/// notes at the root.
Result<schema::Converted<schema::SchemaPtr>> ReadSchema(std::string_view text);

/// Write `schema` as JSON Schema text of `draft`, indented by `indent` spaces (0: compact).
Result<schema::Converted<std::string>> WriteSchema(const schema::Schema& schema,
                                                   Draft draft = Draft::k2020_12, int indent = 2);

}  // namespace sluice::dialects::jsonschema
