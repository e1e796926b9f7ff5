// The reader's view of a file's schema: its leaf columns (path, physical type, maximum levels,
// how values print) and the assembly tree over them, built from the footer's flattened
// SchemaElement list with LogicalTypes.md's rules for lists and maps, the backward-compatible
// shapes included (2-level lists, `array` and `_tuple` groups, unannotated repeated fields,
// MAP_KEY_VALUE). Projection prunes the tree to the fields a reader asked for.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/column_reader.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/record_assembler.h"

namespace sluice::parquet {

/// Which fields to read: paths in the field path grammar (`a`, `b.c`, `items[].x`, `m{key}`),
/// each naming a field and everything below it. A name step also passes through a list to its
/// elements (`items.x` is `items[].x`). Empty: every column.
struct Projection {
  std::vector<std::string> columns;
};

/// A file's schema as the reader uses it.
struct ReadSchema {
  /// One per leaf column, in the file's column order.
  std::vector<LeafColumn> leaves;
  /// The whole tree; leaf_columns is the identity.
  AssemblyPlan plan;
  /// The name of each plan node (the element's name; "" for the root).
  std::vector<std::string> names;
};

/// Build the reader's schema from `elements` (the footer's list, root first). kInvalidArgument
/// for a malformed list: children counts that run past the list or leave elements over, a
/// group without children, a leaf without a physical type, nesting deeper than `max_depth`,
/// an annotation a leaf's type cannot carry (ResolveValueFormat).
Result<ReadSchema> BuildReadSchema(const std::vector<SchemaElement>& elements,
                                   size_t max_depth = 128);

/// The plan for `projection`: the schema's tree with only the selected fields (structs keep the
/// fields that hold a selected leaf; lists and maps keep their element, key and value whole).
/// kInvalidArgument for a path that names no field, naming the fields that exist there.
Result<AssemblyPlan> ProjectPlan(const ReadSchema& schema, const Projection& projection);

}  // namespace sluice::parquet
