// What the write path shares between its files.
#pragma once

#include <set>
#include <string>

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

}  // namespace sluice::table
