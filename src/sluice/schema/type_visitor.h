// Dispatch over type kinds by kind group. VisitType calls the visitor with a view of the type
// whose C++ type names the kind's group (IntegerType for int8..int64, StructType for a struct,
// ...). The views form a hierarchy, so a visitor handles a whole branch with one overload:
//
//   AnyType
//   ├── AtomicType                   every kind without children
//   │   ├── NullType                 null (Spark's void)
//   │   ├── BooleanType              boolean
//   │   ├── IntegerType              int8, int16, int32, int64
//   │   ├── FloatingType             float32, float64
//   │   ├── DecimalType              decimal(p,s)
//   │   ├── StringType               string, char(n), varchar(n)
//   │   ├── BinaryType               binary
//   │   ├── DateType                 date
//   │   ├── UnitType                 the kinds that carry a TimeUnit
//   │   │   ├── TimeType             time
//   │   │   └── TimestampType        timestamp, timestamp_ntz
//   │   └── UuidType                 uuid
//   └── NestedType                   struct, array, map
//       ├── StructType
//       ├── ArrayType
//       └── MapType
//
// Overload resolution picks the most derived view a visitor accepts: a visitor with overloads
// for DecimalType and AtomicType gets decimals in the first and every other leaf in the second.
// A code path that cares only about nesting takes StructType, ArrayType, MapType and AtomicType,
// and a new leaf kind reaches it without an edit. Catch-alls must name a view (AtomicType,
// NestedType, AnyType): a generic `auto` parameter matches every view exactly and would win over
// the specific overloads.
//
// Adding a kind: add it to TypeKind, to a group here (or a new view, which every visitor without
// a catch-all for its branch then fails to compile until it handles it), and to the switches that
// map every kind to a name of some language (TypeKindName, the dialects' type-name tables), which
// -Wswitch-enum finds.
#pragma once

#include <utility>
#include <vector>

#include "sluice/schema/type.h"

namespace sluice::schema {

/// A view of a type, passed by VisitType. Holds a reference: valid while the type is.
struct AnyType {
  explicit AnyType(const Type& t) : type(t) {}
  TypeKind kind() const { return type.kind(); }
  const Type& type;
};

struct AtomicType : AnyType {
  using AnyType::AnyType;
};
struct NestedType : AnyType {
  using AnyType::AnyType;
};

struct NullType : AtomicType {
  using AtomicType::AtomicType;
};
struct BooleanType : AtomicType {
  using AtomicType::AtomicType;
};
struct IntegerType : AtomicType {
  using AtomicType::AtomicType;
};
struct FloatingType : AtomicType {
  using AtomicType::AtomicType;
};
struct DecimalType : AtomicType {
  using AtomicType::AtomicType;
  int precision() const { return type.precision(); }
  int scale() const { return type.scale(); }
};
struct StringType : AtomicType {
  using AtomicType::AtomicType;
  StringLength string_length() const { return type.string_length(); }
  /// CHAR(n) / VARCHAR(n) only.
  int length() const { return type.length(); }
};
struct BinaryType : AtomicType {
  using AtomicType::AtomicType;
};
struct DateType : AtomicType {
  using AtomicType::AtomicType;
};
struct UnitType : AtomicType {
  using AtomicType::AtomicType;
  TimeUnit unit() const { return type.unit(); }
};
struct TimeType : UnitType {
  using UnitType::UnitType;
};
struct TimestampType : UnitType {
  using UnitType::UnitType;
  /// timestamp (an instant) rather than timestamp_ntz (a wall-clock reading).
  bool utc_adjusted() const { return type.kind() == TypeKind::kTimestamp; }
};
struct UuidType : AtomicType {
  using AtomicType::AtomicType;
};

struct StructType : NestedType {
  using NestedType::NestedType;
  const std::vector<Field>& fields() const { return type.fields(); }
};
struct ArrayType : NestedType {
  using NestedType::NestedType;
  const Type& element_type() const { return *type.element_type(); }
  bool contains_null() const { return type.contains_null(); }
};
struct MapType : NestedType {
  using NestedType::NestedType;
  const Type& key_type() const { return *type.key_type(); }
  const Type& value_type() const { return *type.value_type(); }
  bool value_contains_null() const { return type.value_contains_null(); }
};

/// Call `visitor` with the view of `type`'s kind group and return what it returns. Every overload
/// the call selects must return the same type (as with std::visit).
template <typename Visitor>
decltype(auto) VisitType(const Type& type, Visitor&& visitor) {
  // The one switch that lists every kind for the visitors; -Wswitch-enum keeps it complete.
  switch (type.kind()) {
    case TypeKind::kNull:
      return visitor(NullType(type));
    case TypeKind::kBoolean:
      return visitor(BooleanType(type));
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
      return visitor(IntegerType(type));
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
      return visitor(FloatingType(type));
    case TypeKind::kDecimal:
      return visitor(DecimalType(type));
    case TypeKind::kString:
      return visitor(StringType(type));
    case TypeKind::kBinary:
      return visitor(BinaryType(type));
    case TypeKind::kDate:
      return visitor(DateType(type));
    case TypeKind::kTime:
      return visitor(TimeType(type));
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      return visitor(TimestampType(type));
    case TypeKind::kUuid:
      return visitor(UuidType(type));
    case TypeKind::kStruct:
      return visitor(StructType(type));
    case TypeKind::kArray:
      return visitor(ArrayType(type));
    case TypeKind::kMap:
      return visitor(MapType(type));
  }
  // A Type is only built by the factories, whose kinds are all listed above.
  std::unreachable();
}

/// Lambdas as one overload set, for VisitType: `VisitType(t, Overloaded{[](const StructType&)
/// {...}, [](const AtomicType&) {...}})`.
template <typename... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <typename... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace sluice::schema
