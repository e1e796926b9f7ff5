// Databricks Auto Loader (cloudFiles) inference on top of the Spark rules: string columns unless
// cloudFiles.inferColumnTypes, the automatic rescued-data column, and cloudFiles.schemaHints.
//
/// Contract (from the reference notes, section 3; their confidence tags apply):
/// - inferColumnTypes=false (the default): JSON is inferred as with primitivesAsString=true, so
///   structs and arrays keep their shape and every leaf is a string ("all columns are strings,
///   including nested fields"); prefersDecimal and inferTimestamp are ignored. CSV columns are all
///   strings. inferColumnTypes=true: the plain Spark rules.
/// - Unless case_sensitive, field names that differ only in ASCII case are one column: the types
///   merge with CompatibleType and the first name in the struct's order is kept (Databricks says
///   the case it keeps is arbitrary; hints can pin it).
/// - The rescued-data column (default `_rescued_data`, string) is appended last unless present.
/// - Hints: `<path> <Spark type>` separated by commas outside <> and (). A path is a sluice
///   FieldPath (`a.b`, `items[].qty`, `m{key}`, `m{value}`, backquotes) and also takes the
///   Databricks spellings `arr.element`, `m.key`, `m.value` where the step lands on an array or
///   map. A hint replaces the type at its path (nested fields inside the replaced type come from
///   the hint), matching names exactly first and then ignoring case (the field is renamed to the
///   hint's spelling). A path that is absent is added: a missing leaf or struct field is appended
///   to its struct, and missing parents are created as structs, or arrays for `[]` and
///   `element` steps (below a missing column `element`, `key` and `value` are Databricks'
///   steps, not field names; a missing map cannot be built from `key`/`value` steps, give its
///   whole type). A path through a primitive is kInvalidArgument. Hints are applied before the
///   rescued column is added.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/data/inferred_type.h"
#include "sluice/schema/field_path.h"
#include "sluice/schema/schema.h"

namespace sluice::data {

struct AutoLoaderOptions {
  /// cloudFiles.inferColumnTypes.
  bool infer_column_types = false;
  /// cloudFiles.schemaHints, e.g. "amount decimal(10,2), items[].qty int".
  std::string schema_hints;
  /// rescuedDataColumn; empty for none.
  std::string rescued_data_column = "_rescued_data";
  /// spark.sql.caseSensitive for inference.
  bool case_sensitive = false;
};

struct SchemaHint {
  schema::FieldPath path;
  schema::TypePtr type;
};

/// Parse a cloudFiles.schemaHints string. kParseError names the hint and the problem.
Result<std::vector<SchemaHint>> ParseSchemaHints(std::string_view text);

/// Apply `hints` in order to `schema` (see the contract). kInvalidArgument for a path through a
/// primitive or one the schema model cannot hold.
Result<schema::SchemaPtr> ApplySchemaHints(const schema::Schema& schema,
                                           const std::vector<SchemaHint>& hints);

/// Merge fields whose names differ only in ASCII case, recursively (see the contract).
void MergeCaseVariants(InferredType* type);

/// Turn a canonicalized inferred struct into the Auto Loader schema: case variants merged,
/// hints applied, rescued column appended.
Result<schema::SchemaPtr> FinishAutoLoaderSchema(InferredType inferred,
                                                 const AutoLoaderOptions& options);

}  // namespace sluice::data
