// Pieces of the schema mapping shared by its source files (the two directions, the primitive
// type tables and the text form). Not for other modules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/schema_map.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/type.h"

namespace sluice::parquet::internal {

/// Element trees nested deeper than this are rejected before any recursion: a model type at
/// the nesting limit takes two elements per level when every level is a list.
inline constexpr int kMaxElementDepth = 2 * schema::kMaxNestingDepth + 2;

/// What ParquetSchema is built from.
struct SchemaParts {
  std::vector<SchemaElement> elements;
  schema::SchemaPtr model;
  std::vector<SchemaNode> nodes;
  std::vector<ColumnDescriptor> leaves;
};

Result<SchemaParts> BuildFromModel(schema::SchemaPtr model, const WriteSchemaOptions& options,
                                   schema::NoteSink& notes);
Result<SchemaParts> BuildFromElements(std::vector<SchemaElement> elements, schema::NoteSink& notes);

/// The ConvertedType sluice writes beside a LogicalType (LogicalTypes.md's forward
/// compatibility tables), except that local timestamps get none, as Spark writes them.
std::optional<ConvertedType> LegacyConvertedType(const LogicalType& logical);

/// The element annotation as a LogicalType: the element's own, else the one its ConvertedType
/// stands for. INTERVAL and MAP_KEY_VALUE have no LogicalType and come back as flags.
struct Annotation {
  std::optional<LogicalType> logical;
  bool from_converted = false;  // `logical` was derived from a ConvertedType
  bool interval = false;
  bool map_key_value = false;
};
/// kInvalidArgument for an enum value outside parquet.thrift's or a DECIMAL without precision;
/// `where` prefixes the message.
Result<Annotation> ResolveAnnotation(const SchemaElement& element, std::string_view where);

/// The element for a model primitive: physical type, width and annotations (the caller sets
/// name, repetition and field id). kInvalidArgument for null, struct, array and map.
Result<SchemaElement> PrimitiveElement(const schema::Type& type, const schema::FieldPath& path,
                                       schema::NoteSink& notes);

/// The model type a primitive element's values have.
struct LeafType {
  schema::TypePtr type;
  bool is_unsigned = false;
  SortOrder sort_order = SortOrder::kSigned;
};
/// kInvalidArgument (prefixed with `where`) for an annotation its physical type cannot carry
/// or parameters out of range; notes for what is read as its storage.
Result<LeafType> LeafTypeOf(const SchemaElement& element, std::string_view where,
                            const schema::FieldPath& path, schema::NoteSink& notes);

/// The fewest bytes of a FIXED_LEN_BYTE_ARRAY that hold every unscaled value of `precision`
/// digits (1 <= precision <= 38), as Spark sizes them.
int32_t DecimalFixedLength(int precision);
/// The most decimal digits a FIXED_LEN_BYTE_ARRAY of `length` bytes holds.
int DecimalMaxDigits(int64_t length);

/// The annotation as the text form writes it, without parentheses: "STRING",
/// "DECIMAL(10,2)", "TIMESTAMP(MICROS,true)", "UTF8" (a ConvertedType alone); "" for none.
/// The LogicalType wins when both are set.
std::string AnnotationText(const SchemaElement& element);

/// The physical type's name in the text form: "int32", "fixed_len_byte_array".
std::string_view PhysicalTypeTextName(PhysicalType type);

/// "element 12 (`a.b[]`)" for error messages; the path is left out at the root.
std::string ElementAt(int64_t index, const schema::FieldPath& path);

}  // namespace sluice::parquet::internal
