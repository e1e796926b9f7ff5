// The reader's view of a file's schema: its leaf columns (path, physical type, maximum levels,
// how values print) and the assembly tree over them, both taken from the schema mapping
// (schema_map.h: the model schema and its node tree, with LogicalTypes.md's rules for lists
// and maps, the backward-compatible shapes included). Projection prunes the tree to the fields
// a reader asked for.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/column_reader.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/record_assembler.h"
#include "sluice/parquet/schema_map.h"
#include "sluice/schema/conversion.h"

namespace sluice::parquet {

/// Which fields to read: paths in the field path grammar (`a`, `b.c`, `items[].x`, `m{key}`),
/// each naming a field and everything below it. A name step also passes through a list to its
/// elements (`items.x` is `items[].x`). Empty: every column.
struct Projection {
  std::vector<std::string> columns;
};

/// A file's schema as the reader uses it.
struct ReadSchema {
  /// The mapping: the model schema, the leaf descriptors and the node tree.
  std::shared_ptr<const ParquetSchema> parquet;
  /// What the model could not hold of the file's schema.
  std::vector<schema::LossyNote> notes;
  /// One per leaf column, in the file's column order.
  std::vector<LeafColumn> leaves;
  /// The whole tree; leaf_columns is the identity.
  AssemblyPlan plan;
  /// The field name of each plan node that is a struct's field ("" for the others).
  std::vector<std::string> names;
};

/// Build the reader's schema from `elements` (the footer's list, root first): the schema
/// mapping's errors (ParquetSchema::FromElements) and ResolveValueFormat's, kInvalidArgument.
Result<ReadSchema> BuildReadSchema(std::vector<SchemaElement> elements);

/// The plan for `projection`: the schema's tree with only the selected fields (structs keep the
/// fields that hold a selected leaf; lists and maps keep their element, key and value whole).
/// kInvalidArgument for a path that names no field, naming the fields that exist there.
Result<AssemblyPlan> ProjectPlan(const ReadSchema& schema, const Projection& projection);

}  // namespace sluice::parquet
