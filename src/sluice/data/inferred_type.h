// The type lattice of Spark's schema inference (JsonInferSchema, CSVInferSchema), as a small value
// type that inference can grow in place without building immutable schema::Type trees per record.
//
/// Contract:
/// - InferredType mirrors the Spark DataTypes inference can produce: NullType, BooleanType,
///   IntegerType (CSV only), LongType, DoubleType, DecimalType(p,s), StringType, DateType (CSV
///   only), TimestampType, TimestampNTZType, StructType and ArrayType(containsNull).
/// - Struct fields are kept sorted by Java's String.compareTo (UTF-16 code units), as
///   JsonInferSchema keeps them, so two structs merge with one linear pass. Field names may be
///   empty and a decimal scale may be negative: Spark allows both while inferring, and they are
///   only rejected (or dropped) when the result is turned into a schema.
/// - CompatibleType is JsonInferSchema.compatibleType: TypeCoercion.findTightestCommonType first,
///   then the JSON fallbacks, and StringType for any other pair. It is commutative and
///   associative, so inference results can be merged in any order.
/// - Values are plain data: copyable, movable, no sharing; not synchronised.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/schema/type.h"

namespace sluice::data {

enum class InferredKind : uint8_t {
  kNull,
  kBoolean,
  kInt,   // IntegerType: CSV inference only
  kLong,  // LongType
  kDouble,
  kDecimal,
  kString,
  kDate,  // CSV inference only (prefersDate)
  kTimestamp,
  kTimestampNtz,
  kStruct,
  kArray,
};

struct InferredField;

class InferredType {
 public:
  // Constructors and factories are defined after InferredField: clang instantiates the vector
  // members' destructors where they are written, and InferredField must be complete by then.
  /// NullType.
  InferredType();
  explicit InferredType(InferredKind kind);
  InferredType(const InferredType&);
  InferredType(InferredType&&) noexcept;
  InferredType& operator=(const InferredType&);
  InferredType& operator=(InferredType&&) noexcept;
  ~InferredType();

  static InferredType Null();
  static InferredType Boolean();
  static InferredType Int();
  static InferredType Long();
  static InferredType Double();
  static InferredType String();
  static InferredType Date();
  static InferredType Timestamp();
  static InferredType TimestampNtz();
  /// No range check: inference checks precision itself, and CSV may build negative scales.
  static InferredType Decimal(int precision, int scale);
  /// Sorts `fields` by name (stable, so duplicates keep their order).
  static InferredType Struct(std::vector<InferredField> fields);
  static InferredType Array(InferredType element, bool contains_null = true);

  InferredKind kind() const { return kind_; }
  bool is_null() const { return kind_ == InferredKind::kNull; }
  bool is_struct() const { return kind_ == InferredKind::kStruct; }
  bool is_array() const { return kind_ == InferredKind::kArray; }
  bool is_integral() const { return kind_ == InferredKind::kInt || kind_ == InferredKind::kLong; }

  /// Decimal only.
  int precision() const { return precision_; }
  int scale() const { return scale_; }
  /// Struct only; sorted by JavaStringCompare.
  const std::vector<InferredField>& fields() const { return fields_; }
  std::vector<InferredField>& mutable_fields() { return fields_; }
  /// Array only.
  const InferredType& element() const { return element_.front(); }
  InferredType& mutable_element() { return element_.front(); }
  bool contains_null() const { return contains_null_; }
  void set_contains_null(bool v) { contains_null_ = v; }

  /// Spark's simpleString: "bigint", "decimal(20,0)", "struct<a:bigint,b:array<string>>".
  std::string ToString() const;

  bool operator==(const InferredType& other) const;

 private:
  InferredKind kind_ = InferredKind::kNull;
  bool contains_null_ = true;
  int16_t precision_ = 0;
  int16_t scale_ = 0;
  std::vector<InferredField> fields_;
  // Zero or one entries: a vector gives the recursive member value semantics for free.
  std::vector<InferredType> element_;
};

struct InferredField {
  std::string name;
  InferredType type;

  bool operator==(const InferredField& other) const = default;
};

inline InferredType::InferredType() = default;
inline InferredType::InferredType(InferredKind kind) : kind_(kind) {}
inline InferredType::InferredType(const InferredType&) = default;
inline InferredType::InferredType(InferredType&&) noexcept = default;
inline InferredType& InferredType::operator=(const InferredType&) = default;
inline InferredType& InferredType::operator=(InferredType&&) noexcept = default;
inline InferredType::~InferredType() = default;
inline InferredType InferredType::Null() { return InferredType(InferredKind::kNull); }
inline InferredType InferredType::Boolean() { return InferredType(InferredKind::kBoolean); }
inline InferredType InferredType::Int() { return InferredType(InferredKind::kInt); }
inline InferredType InferredType::Long() { return InferredType(InferredKind::kLong); }
inline InferredType InferredType::Double() { return InferredType(InferredKind::kDouble); }
inline InferredType InferredType::String() { return InferredType(InferredKind::kString); }
inline InferredType InferredType::Date() { return InferredType(InferredKind::kDate); }
inline InferredType InferredType::Timestamp() { return InferredType(InferredKind::kTimestamp); }
inline InferredType InferredType::TimestampNtz() {
  return InferredType(InferredKind::kTimestampNtz);
}

/// Java's String.compareTo on UTF-8 text: order by UTF-16 code units, so U+FFFF sorts after a
/// supplementary character (a surrogate pair), unlike plain byte order. Invalid UTF-8 bytes are
/// compared as the code point of the byte. Negative, zero or positive.
int JavaStringCompare(std::string_view a, std::string_view b);

/// JsonInferSchema.compatibleType(a, b): the widest type both can be read as (see the header
/// contract); never fails.
InferredType CompatibleType(const InferredType& a, const InferredType& b);

/// Merge `other` into `*into`, with the result CompatibleType(*into, other).
void MergeInto(InferredType* into, const InferredType& other);

/// TypeCoercion.findTightestCommonType restricted to inference types; false when there is none.
/// Used by the CSV rules, which have their own fallbacks.
bool FindTightestCommonType(const InferredType& a, const InferredType& b, InferredType* out);

/// The decimal widening rule both JSON and CSV use: scale = max, integer digits = max, and
/// DoubleType when that needs more than 38 digits.
InferredType WidenDecimals(int p1, int s1, int p2, int s2);

/// The schema type for an inferred type: bigint -> int64, int -> int32, struct fields nullable.
/// NullType maps to the null type (callers canonicalize first). kInvalidArgument for what the
/// schema model cannot hold: negative decimal scales, empty or duplicate field names, nesting
/// deeper than schema::kMaxNestingDepth.
Result<schema::TypePtr> ToSchemaType(const InferredType& type);

/// The inverse, for types a schema can give (conformance tables, tests). kInvalidArgument for
/// maps, binary, int8/int16/float32 and the other types inference never yields.
Result<InferredType> FromSchemaType(const schema::Type& type);

}  // namespace sluice::data
