// The mapping between sluice's schema model and Parquet's schema (the flattened, depth-first
// list of SchemaElement in a file's footer), and the layout both the page writer and the page
// reader work from: the leaf columns with their levels, and a tree with one node per node of
// the model's type tree.
//
// Writing (ParquetSchema::FromModel) follows what Spark writes for a Delta table: the standard
// 3-level LIST and MAP forms, decimals in INT32 / INT64 / FIXED_LEN_BYTE_ARRAY by precision,
// INT64 microsecond timestamps, a LogicalType on every annotated element with its ConvertedType
// beside it, and the root named `spark_schema`. Reading (ParquetSchema::FromElements) accepts
// what any writer produces: every annotation LogicalTypes.md defines that the model can hold,
// and every backward-compatibility rule for lists and maps.
//
// The node tree. nodes() holds one SchemaNode per node of the model's type tree: nodes()[0] is
// the root struct, and below it every struct field, array element, map key and map value, in
// the model's order. A node's children are contiguous, nodes()[first_child, first_child +
// num_children): a struct has one child per field (in the model's field order, including
// fields the file does not hold), a list one (the element), a map two (key, value). Each node
// carries the levels of Dremel's encoding:
//
//   def_level  The definition level a leaf below this node has when this node's value is
//              present (for a list or map: present, perhaps empty). A nullable node's level is
//              one more than its parent's (for list elements and map values: than its entry's),
//              and a null value is written as def_level - 1. A node that cannot be null has its
//              parent's (entry's) level.
//   rep_level  The number of lists and maps enclosing this node: 0 at the top level. A list or
//              map starts at its own rep_level; its entries are present at def_level + 1 and
//              each entry after the first repeats at rep_level + 1, which is the rep_level of
//              its children.
//   leaves     leaves()[first_leaf, first_leaf + num_leaves): the columns below this node, in
//              file order. A null or empty value writes one (r, d) pair to each of them.
//
// Shredding one record (the writer) with the levels (r, d) so far, (0, 0) at the root:
//   struct  For each child c: absent (kAbsent) -> nothing; null -> (r, c.def_level - 1) to each
//           of c's leaves (a child that is not nullable must not be null); else shred c's value
//           with (r, c.def_level).
//   list    Empty -> (r, def_level) to each leaf. Else entry i is shredded with r_i = r for the
//           first entry and rep_level + 1 after it, and d = def_level + 1: its element child as
//           a struct child is (null -> (r_i, element.def_level - 1), else element.def_level).
//   map     As a list, with the key and the value of each entry as its two children.
//   leaf    Write (r, d) with the value; d is then the leaf's def_level.
// Assembling (the reader) inverts it. Below a node, a leaf's d < def_level means this value
// (or one around it) is null or empty. Below a list or map node with rep_level k, a leaf's
// r <= k starts a new list, r == k + 1 a new entry of the same list, and r > k + 1 goes on
// inside the current entry.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/metadata.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/field_path.h"
#include "sluice/schema/schema.h"

namespace sluice::parquet {

/// How a column's values compare for statistics, from its physical type and annotation
/// (LogicalTypes.md). kUnknown (INT96, INTERVAL, geospatial types): keep no min/max.
enum class SortOrder : uint8_t { kSigned, kUnsigned, kUnknown };

/// One leaf column. A stored value becomes a value of `type` this way:
///   BOOLEAN                  boolean
///   INT32                    int8, int16, int32 (also from UINT_8 / UINT_16), date (days),
///                            time(3) (millis of day), decimal(p<=9,s) (unscaled); with
///                            is_unsigned (UINT_32) the 32 bits are unsigned: int64
///   INT64                    int64, timestamp / timestamp_ntz / time in the type's unit,
///                            decimal(p<=18,s); with is_unsigned (UINT_64): decimal(20,0)
///   INT96                    timestamp (micros): little-endian int64 nanoseconds of the day,
///                            then int32 Julian day (Impala's and Spark's legacy encoding)
///   FLOAT, DOUBLE            float32, float64
///   FIXED_LEN_BYTE_ARRAY(2)  float32 from an IEEE half float (little-endian) when the type is
///                            float32 (FLOAT16)
///   BYTE_ARRAY, FIXED        string, binary, uuid (16 bytes, big-endian) as the bytes;
///                            decimal as a big-endian two's complement unscaled value
/// A leaf of type null (the UNKNOWN annotation) still has a column whose values are all null.
struct ColumnDescriptor {
  /// The element names from below the root to the leaf (ColumnMetaData.path_in_schema).
  std::vector<std::string> path;
  /// The model path of the value, for messages: `a.b[].c`, `m{value}`.
  schema::FieldPath field_path;
  PhysicalType physical = PhysicalType::kInt32;
  /// Bytes per value: FIXED_LEN_BYTE_ARRAY's width, 12 for INT96; 0 for the other types.
  int32_t type_length = 0;
  int16_t max_def = 0;
  int16_t max_rep = 0;
  /// The model type of one value.
  schema::TypePtr type;
  /// The physical bits hold an unsigned integer (INTEGER(n, false), UINT_n).
  bool is_unsigned = false;
  SortOrder sort_order = SortOrder::kSigned;
  /// The leaf's index in ParquetSchema::elements() and its node in ParquetSchema::nodes().
  int32_t element = 0;
  int32_t node = 0;
};

/// One node of the model's type tree with its place in the file (see the top of this file).
struct SchemaNode {
  enum class Kind : uint8_t {
    kLeaf,    // a primitive value: the column leaves()[leaf]
    kStruct,  // one child per field
    kList,    // one child: the element
    kMap,     // two children: key, value
    kAbsent,  // not in the file (a null-typed field, a map without values): always null
  };
  Kind kind = Kind::kLeaf;
  /// The model type of this node's value; owned by ParquetSchema::model().
  const schema::Type* type = nullptr;
  /// The value may be null: a nullable field, an element of an array that contains null, a
  /// value of a map whose values may be null.
  bool nullable = false;
  int16_t def_level = 0;
  int16_t rep_level = 0;
  /// The element this node is written as (for lists and maps the annotated group; for the
  /// elements of a list without a group of its own, the repeated element); -1 when absent.
  int32_t element = -1;
  /// kLeaf: the index in leaves(); -1 otherwise.
  int32_t leaf = -1;
  int32_t first_child = 0;
  int32_t num_children = 0;
  int32_t first_leaf = 0;
  int32_t num_leaves = 0;
};

/// How FromModel names and marks elements.
struct WriteSchemaOptions {
  /// Name each field's element by its `delta.columnMapping.physicalName` metadata (Delta's
  /// column mapping) instead of its name; a field without one is an error.
  bool use_physical_names = false;
  /// The name of the root element.
  std::string root_name = "spark_schema";
};

/// A Parquet schema together with the model schema it maps to, its leaf columns in file order
/// and the node tree. Immutable once built; safe to read from any thread.
class ParquetSchema {
 public:
  /// Map a model schema to the elements sluice writes. Field ids come from an integer
  /// `parquet.field.id` (Spark's key) or else `delta.columnMapping.id` in a field's metadata.
  /// Null-typed fields are left out of the file, as Spark leaves out void columns, with a
  /// note; a map of null values is written with keys only. Field docs, defaults and metadata
  /// have no place in a Parquet schema (a file writer keeps the model schema elsewhere in the
  /// footer). kInvalidArgument, naming the field path, for what Parquet cannot hold: no columns
  /// at all, a struct left without columns, arrays of null, a malformed field id, a missing
  /// physical name.
  static Result<schema::Converted<ParquetSchema>> FromModel(schema::SchemaPtr model,
                                                            const WriteSchemaOptions& options = {});

  /// Read a file's schema elements into the model. Field ids become `parquet.field.id` in the
  /// field's metadata. Annotations the model cannot hold are read as their storage with a
  /// note: GEOMETRY and GEOGRAPHY as binary (the WKB bytes), INTERVAL as binary (its 12
  /// bytes), VARIANT as the struct of its parts, UINT_64 as decimal(20,0), FLOAT16 as float32.
  /// An annotation on a physical type it cannot annotate, or parameters outside its range, is
  /// an error. Errors are kInvalidArgument naming the element index and the field path:
  /// malformed trees (num_children past the end, elements after the root's last child, a root
  /// that is not a group or is repeated, a group without children, an empty name, a missing
  /// repetition, nesting deeper than the model allows) and malformed lists and maps. Linear in
  /// the number of elements.
  static Result<schema::Converted<ParquetSchema>> FromElements(std::vector<SchemaElement> elements);

  const std::vector<SchemaElement>& elements() const { return elements_; }
  const schema::SchemaPtr& model() const { return model_; }
  /// The leaf columns in file order (the order of ColumnChunks in a row group).
  const std::vector<ColumnDescriptor>& leaves() const { return leaves_; }
  const std::vector<SchemaNode>& nodes() const { return nodes_; }
  const SchemaNode& root() const { return nodes_.front(); }
  std::span<const SchemaNode> children(const SchemaNode& node) const {
    return {nodes_.data() + node.first_child, static_cast<size_t>(node.num_children)};
  }
  /// The index of `node` in nodes(); `node` must be one of them.
  int32_t IndexOf(const SchemaNode& node) const {
    return static_cast<int32_t>(&node - nodes_.data());
  }

 private:
  ParquetSchema(std::vector<SchemaElement> elements, schema::SchemaPtr model,
                std::vector<SchemaNode> nodes, std::vector<ColumnDescriptor> leaves)
      : elements_(std::move(elements)),
        model_(std::move(model)),
        nodes_(std::move(nodes)),
        leaves_(std::move(leaves)) {}

  std::vector<SchemaElement> elements_;
  schema::SchemaPtr model_;
  std::vector<SchemaNode> nodes_;
  std::vector<ColumnDescriptor> leaves_;
};

/// The metadata keys field ids are read from and written to.
inline constexpr std::string_view kParquetFieldIdKey = "parquet.field.id";
inline constexpr std::string_view kColumnMappingIdKey = "delta.columnMapping.id";
inline constexpr std::string_view kColumnMappingPhysicalNameKey =
    "delta.columnMapping.physicalName";

}  // namespace sluice::parquet
