// What the write path shares between its files.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/schema/schema.h"

namespace sluice::table {

/// The data's schema as Delta would meet it, for JSON and CSV input whose records were
/// validated against `table`: the table's fields, with the inferred type at each path in
/// `failed_paths` (values there did not fit the table's type), and the inferred fields the
/// table lacks added where they are (new columns). Elsewhere the table's type stands: a JSON 25
/// is a fine INT, so JSON's lack of types never forces a schema change.
Result<schema::SchemaPtr> OverlayDataSchema(const schema::Schema& table,
                                            const schema::Schema& inferred,
                                            const std::set<std::string>& failed_paths);

/// The partition columns `names` ask for, resolved against the top-level columns of `schema` as
/// Spark resolves them (ignoring case; the schema's spelling is kept). kInvalidArgument naming
/// the column for one the schema lacks or of a type that is not atomic, for a column named twice
/// (DELTA_DUPLICATE_COLUMNS_FOUND) and for every column partitioned
/// (DELTA_CANNOT_USE_ALL_COLUMNS_FOR_PARTITION).
Result<std::vector<std::string>> ResolvePartitionColumns(const schema::Schema& schema,
                                                         const std::vector<std::string>& names);

}  // namespace sluice::table
