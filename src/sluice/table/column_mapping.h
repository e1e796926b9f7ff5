// Delta column mapping (PROTOCOL.md "Column Mapping"): every field of a table in name or id mode
// carries `delta.columnMapping.id` and `delta.columnMapping.physicalName` in its metadata; data
// files name columns by physical name and carry the ids as Parquet field ids, so a rename or a
// drop changes only the log. `delta.columnMapping.maxColumnId` grows as ids are handed out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/schema/schema.h"
#include "sluice/table/actions.h"

namespace sluice::table {

enum class ColumnMappingMode : uint8_t { kNone, kName, kId };

inline constexpr std::string_view kColumnMappingModeKey = "delta.columnMapping.mode";
inline constexpr std::string_view kMaxColumnIdKey = "delta.columnMapping.maxColumnId";
inline constexpr std::string_view kColumnIdKey = "delta.columnMapping.id";
inline constexpr std::string_view kPhysicalNameKey = "delta.columnMapping.physicalName";

/// The table's mode; kInvalidArgument for a value other than none, name or id.
Result<ColumnMappingMode> MappingModeOf(const Metadata& metadata);

/// Give every field (nested ones too, in structs inside arrays and maps) that lacks them an id
/// above `*max_column_id` and a physical name: "col-<uuid>" for new columns, or the field's own
/// name when `keep_names` (turning column mapping on for an existing table, whose files already
/// name the columns so). `*max_column_id` ends at the highest id handed out.
Result<schema::SchemaPtr> AssignColumnMapping(const schema::Schema& schema, int64_t* max_column_id,
                                              bool keep_names);

/// The table's delta.columnMapping.maxColumnId (0 when unset); kInvalidArgument when it is not
/// a non-negative number.
Result<int64_t> MaxColumnIdOf(const Metadata& metadata);

/// The highest delta.columnMapping.id in the schema (0 when none).
int64_t MaxColumnIdIn(const schema::Schema& schema);

/// A field's physical name: its delta.columnMapping.physicalName, else its name.
std::string PhysicalName(const schema::Field& field);
/// A field's column mapping id, if it has one.
std::optional<int64_t> ColumnId(const schema::Field& field);

/// The schema with every field named by its physical name (what the data files hold).
Result<schema::SchemaPtr> PhysicalSchema(const schema::Schema& schema);

/// The schema without column mapping metadata (turning a schema from one table into the
/// incoming schema of another).
Result<schema::SchemaPtr> StripColumnMapping(const schema::Schema& schema);

/// A column renamed under column mapping: the same delta.columnMapping.id under another name.
struct ColumnRename {
  schema::FieldPath from;  // in `before`
  schema::FieldPath to;    // in `after`
};

/// `before` with each field that has a column id renamed to the name the field with that id has
/// in `after` (nested fields too), and each such rename listed in `renames`, parents first. A
/// diff of the result against `after` then shows what changed besides the renames.
Result<schema::SchemaPtr> RenamedByColumnId(const schema::Schema& before,
                                            const schema::Schema& after,
                                            std::vector<ColumnRename>* renames);

/// The schema as users see it: without the field metadata that only describes how the table
/// stores it (column mapping ids and physical names, Parquet field ids, delta.typeChanges).
Result<schema::SchemaPtr> WithoutStorageMetadata(const schema::Schema& schema);

}  // namespace sluice::table
