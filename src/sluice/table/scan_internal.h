// The pieces of a table scan (scan.h), shared by scan.cc, row_conform.cc, scan_columns.cc and
// scan_pruning.cc. Not for other files.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/schema/schema.h"
#include "sluice/schema/type.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/expression.h"
#include "sluice/table/file_stats.h"

namespace sluice::table::internal {

// ---- columns (scan_columns.cc) -------------------------------------------------------------

/// A field of a struct chosen by a projection: the whole field, or some of its struct's fields.
struct ColumnSelection {
  bool whole = false;
  /// Field index -> what is chosen below it (only when not whole).
  std::map<size_t, ColumnSelection> fields;
};

/// Resolve logical paths (FieldPath text through structs, and through arrays to the fields of
/// their struct elements) against `schema`: each name exact, else the one field equal to it
/// ignoring ASCII case. kInvalidArgument naming the path and the fields there for a path that
/// does not resolve, is ambiguous or steps into anything else.
Result<ColumnSelection> SelectColumns(const schema::Schema& schema,
                                      const std::vector<std::string>& paths);

/// Add a resolved path (field indexes from the top) to `selection`.
void SelectPath(ColumnSelection& selection, const std::vector<size_t>& indexes);

/// The struct type with only the selected fields (in their schema order; inside arrays of
/// structs too); an empty
/// selection (not whole, no fields) keeps nothing.
Result<schema::TypePtr> PruneStruct(const schema::Type& struct_type,
                                    const ColumnSelection& selection);

/// Resolve one name among a struct's fields: exact, else the unique match ignoring ASCII case.
std::optional<size_t> FindFieldIndex(const schema::Type& struct_type, std::string_view name);

// ---- row conforming (row_conform.cc) -------------------------------------------------------

/// How a leaf value of the file becomes a value of the table's type.
enum class LeafConversion : uint8_t {
  kCopy,               // same text
  kIntToDecimal,       // "5" -> "5.0" (scale_to digits)
  kDecimalRescale,     // "67.89" -> "67.89000"
  kIntToDouble,        // "5" -> 5.0 printed as a double
  kIntToFloat,         // "5" -> 5.0f printed as a float
  kFloatToDouble,      // "3.4" -> the float's exact double, 3.4000000953674316
  kDateToTimestampNtz  // "2024-09-09" -> "2024-09-09T00:00:00"
};

/// One node of a conform plan: what to write for one value of the output.
struct ConformNode {
  enum class Kind : uint8_t {
    kNull,      // always null: the file lacks it
    kLeaf,      // a leaf value, converted
    kStruct,    // an object: members in output order
    kArray,     // children[0] is the element
    kMap,       // children[0] the key, children[1] the value; maps are objects keyed by text
    kConstant,  // `constant`, whatever the file holds (partition values)
  };
  struct Member {
    /// `"name":` of the output.
    std::string out_key;
    /// `"name"` of the source object (JSON text as the reader writes it); empty when the source
    /// does not hold the member (then `child` is a kNull node).
    std::string source_key;
    uint32_t child = 0;
  };
  Kind kind = Kind::kNull;
  LeafConversion conversion = LeafConversion::kCopy;
  int scale_from = 0;
  int scale_to = 0;
  /// The source text is the output text (a leaf copied, or every node below copied).
  bool identity = false;
  std::string constant;
  std::vector<Member> members;
  std::vector<uint32_t> children;
};

/// A plan turning rows of one source shape into rows of the output shape.
struct ConformPlan {
  std::vector<ConformNode> nodes;
  /// The row's node.
  uint32_t root = 0;
  /// The source's columns the plan reads, as FieldPath text (a Parquet projection); a struct
  /// none of whose wanted fields the source holds is represented by one leaf, which tells a
  /// null struct from a present one.
  std::vector<std::string> source_columns;
};

/// How source fields are matched to table fields.
enum class FieldMatch : uint8_t {
  kName,          // by name (exact, else ignoring ASCII case)
  kPhysicalName,  // by delta.columnMapping.physicalName
  kFieldId,       // by delta.columnMapping.id against the source's parquet.field.id
};

struct ConformInputs {
  /// The output's row type (the table's logical struct, pruned to the columns wanted).
  const schema::Type* table = nullptr;
  /// The source's row type (a data file's schema).
  const schema::Type* source = nullptr;
  FieldMatch match = FieldMatch::kName;
  /// Top-level output fields written as a constant (partition columns): name -> JSON text.
  const std::map<std::string, std::string, std::less<>>* constants = nullptr;
  /// Names the file in messages.
  std::string_view context;
};

/// Build the plan. kInvalidArgument naming `context` and the column for a source column whose
/// type cannot be read as the table's (a shape that differs, a narrowing, a type no widening
/// reaches).
Result<ConformPlan> BuildConformPlan(const ConformInputs& inputs);

/// Rewrites rows by a plan. Not thread-safe; reuses its buffers.
class RowConformer {
 public:
  explicit RowConformer(const ConformPlan* plan) : plan_(plan) {}
  /// Append the output row for `row` (a JSON object in the source's shape) to `out`.
  /// kInvalidArgument for text that is not the JSON the plan expects.
  Status Conform(std::string_view row, std::string& out);
  /// Append the output row of a source row without columns (every value null or constant).
  void ConformEmpty(std::string& out);

  /// A member of an object (its key with quotes) or an item of an array (no key) in row text.
  struct Span {
    std::string_view key;
    std::string_view value;
  };

 private:
  bool Write(uint32_t node, std::string_view value, size_t depth, std::string& out);
  bool WriteStruct(const ConformNode& n, std::string_view value, size_t depth, std::string& out);
  bool WriteLeaf(const ConformNode& n, std::string_view value, std::string& out);
  bool WriteMapKey(const ConformNode& key_node, std::string_view key, size_t depth,
                   std::string& out);
  std::vector<Span>& Scratch(size_t depth);

  const ConformPlan* plan_;
  std::vector<std::vector<Span>> scratch_;
  std::string key_buffer_;
};

// ---- pruning (scan_pruning.cc) -------------------------------------------------------------

/// Decides from partition values and stats that a file holds no row a predicate can be TRUE
/// for (scan.h says which conjuncts count). Immutable after Make.
class FilePruner {
 public:
  /// `where` parsed; `schema` the table's logical schema.
  static Result<FilePruner> Make(const Expression& where, const schema::Schema& schema,
                                 const std::vector<std::string>& partition_columns,
                                 ColumnMappingMode mode);

  /// Whether a conjunct over partition columns only is not TRUE on `partition_row` (an object
  /// of every partition column's typed value).
  Result<bool> PrunedByPartitions(const JsonValue& partition_row) const;
  /// Whether the stats show that a conjunct cannot be TRUE for any row.
  bool PrunedByStats(const ParsedStats& stats) const;
  bool uses_stats() const { return !stats_terms_.empty(); }

  struct Bound;
  struct StatsTerm;

 private:
  std::vector<BoundExpression> partition_terms_;
  std::vector<std::shared_ptr<const StatsTerm>> stats_terms_;
};

/// The conjuncts of `expr`: the operands of its top-level ANDs, nested ANDs flattened.
std::vector<const Expression*> Conjuncts(const Expression& expr);

}  // namespace sluice::table::internal
