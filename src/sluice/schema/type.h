// The logical type model every dialect converts to and from. Types are immutable once built and
// shared as TypePtr (std::shared_ptr<const Type>): safe to read from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"

namespace sluice::schema {

enum class TypeKind : uint8_t {
  kNull,
  kBoolean,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat32,
  kFloat64,
  kDecimal,
  kString,
  kBinary,
  kDate,
  kTimestamp,     // an instant: UTC-adjusted (Spark TIMESTAMP / TIMESTAMP_LTZ)
  kTimestampNtz,  // a wall-clock date-time with no time zone
  kTime,          // time of day
  kUuid,
  kStruct,
  kArray,
  kMap,
};

/// Fractional-second precision of time and timestamp types. Micros is the default (Spark's).
enum class TimeUnit : uint8_t { kMillis, kMicros, kNanos };

/// How a string type bounds its length: plain string, CHAR(n) or VARCHAR(n).
enum class StringLength : uint8_t { kUnbounded, kChar, kVarchar };

inline constexpr int kMaxDecimalPrecision = 38;
/// Types nested deeper than this are rejected: no real schema comes close, hostile ones do.
inline constexpr int kMaxNestingDepth = 128;

class Type;
using TypePtr = std::shared_ptr<const Type>;

/// A named member of a struct. A value type; the struct that holds it is immutable.
class Field {
 public:
  Field(std::string name, TypePtr type, bool nullable = true);

  const std::string& name() const { return name_; }
  const TypePtr& type() const { return type_; }
  bool nullable() const { return nullable_; }
  const std::optional<std::string>& doc() const { return doc_; }
  /// The default value, as JSON (Avro's field default, JSON Schema's "default").
  const std::optional<JsonValue>& default_value() const { return default_; }
  /// Extra key/value pairs the model has no slot for (Spark field metadata); always an object.
  const JsonValue& metadata() const { return metadata_; }

  Field& set_name(std::string name);
  Field& set_type(TypePtr type);
  Field& set_nullable(bool nullable);
  Field& set_doc(std::optional<std::string> doc);
  Field& set_default_value(std::optional<JsonValue> value);
  /// `metadata` must be a JSON object (a null value clears it).
  Field& set_metadata(JsonValue metadata);

  /// Same name, type, nullability, doc, default and metadata.
  bool Equals(const Field& other) const;

 private:
  std::string name_;
  TypePtr type_;
  bool nullable_;
  std::optional<std::string> doc_;
  std::optional<JsonValue> default_;
  JsonValue metadata_;
};

class Type {
 public:
  TypeKind kind() const { return kind_; }
  bool is_struct() const { return kind_ == TypeKind::kStruct; }
  bool is_array() const { return kind_ == TypeKind::kArray; }
  bool is_map() const { return kind_ == TypeKind::kMap; }
  /// Struct, array or map.
  bool is_nested() const { return is_struct() || is_array() || is_map(); }
  bool is_integer() const;
  bool is_floating() const;

  /// Decimal only.
  int precision() const { return precision_; }
  int scale() const { return scale_; }
  /// String only: kChar/kVarchar carry length().
  StringLength string_length() const { return string_length_; }
  int length() const { return precision_; }
  /// Time, timestamp and timestamp_ntz only.
  TimeUnit unit() const { return unit_; }

  /// Struct only.
  const std::vector<Field>& fields() const { return fields_; }
  /// Array only.
  const TypePtr& element_type() const { return first_; }
  bool contains_null() const { return contains_null_; }
  /// Map only.
  const TypePtr& key_type() const { return first_; }
  const TypePtr& value_type() const { return second_; }
  bool value_contains_null() const { return contains_null_; }

  /// 1 for a primitive, 1 + the deepest child for nested types.
  int depth() const { return depth_; }

  /// A struct's field by exact name, or nullptr.
  const Field* FindField(std::string_view name) const;
  /// Indexes of a struct's fields whose names equal `name` ignoring ASCII case.
  std::vector<size_t> FindFieldsIgnoreCase(std::string_view name) const;

  /// Deep equality. With `compare_details`, field docs, defaults and metadata count too.
  bool Equals(const Type& other, bool compare_details = true) const;

  /// The model's own notation: "int32", "decimal(10,2)", "timestamp(3)",
  /// "struct<a: int32, b: array<string not null>>".
  std::string ToString() const;

  // Factories. Primitive types without parameters are shared singletons.
  static TypePtr Null();
  static TypePtr Boolean();
  static TypePtr Int8();
  static TypePtr Int16();
  static TypePtr Int32();
  static TypePtr Int64();
  static TypePtr Float32();
  static TypePtr Float64();
  static TypePtr String();
  static TypePtr Binary();
  static TypePtr Date();
  static TypePtr Uuid();
  static TypePtr Timestamp(TimeUnit unit = TimeUnit::kMicros);
  static TypePtr TimestampNtz(TimeUnit unit = TimeUnit::kMicros);
  static TypePtr Time(TimeUnit unit = TimeUnit::kMicros);
  /// The parameterless type of `kind`; nullptr for decimal, struct, array and map.
  static TypePtr Primitive(TypeKind kind);

  /// kInvalidArgument unless 1 <= precision <= 38 and 0 <= scale <= precision.
  static Result<TypePtr> Decimal(int precision, int scale);
  /// kInvalidArgument unless 1 <= length <= 1 << 30.
  static Result<TypePtr> Char(int length);
  static Result<TypePtr> Varchar(int length);
  /// kInvalidArgument for an empty or duplicate field name, or nesting deeper than the limit.
  static Result<TypePtr> Struct(std::vector<Field> fields);
  static Result<TypePtr> Array(TypePtr element, bool contains_null = true);
  /// Keys may be of any type but null; they are never null themselves.
  static Result<TypePtr> Map(TypePtr key, TypePtr value, bool value_contains_null = true);

  explicit Type(TypeKind kind) : kind_(kind) {}  // use the factories

 private:
  static TypePtr WithUnit(TypeKind kind, TimeUnit unit);

  TypeKind kind_;
  StringLength string_length_ = StringLength::kUnbounded;
  TimeUnit unit_ = TimeUnit::kMicros;
  bool contains_null_ = true;
  int precision_ = 0;  // decimal precision, or char/varchar length
  int scale_ = 0;
  int depth_ = 1;
  std::vector<Field> fields_;
  TypePtr first_;
  TypePtr second_;
};

/// A hash that agrees with Type::Equals(other, /*compare_details=*/false): types equal that way
/// hash alike. Linear in the type's size; lets callers bucket many types before comparing them.
uint64_t StructuralHash(const Type& type);

/// "int32", "struct", ... : the kind alone, without parameters.
std::string_view TypeKindName(TypeKind kind);

/// 1 for int8 up to 4 for int64, so that integer widths compare; 0 for every other kind.
int IntegerRank(TypeKind kind);

/// 1 for milliseconds, 2 for microseconds, 3 for nanoseconds, so that precisions compare.
int TimeUnitRank(TimeUnit unit);

/// "(3)" for milliseconds, "" for microseconds (the default), "(9)" for nanoseconds: the
/// precision suffix of time and timestamp type names.
std::string_view TimeUnitSuffix(TimeUnit unit);

/// Append " not null" to a type's string when `nullable` is false: "int64 not null".
std::string TypeWithNullability(const Type& type, bool nullable);

}  // namespace sluice::schema
