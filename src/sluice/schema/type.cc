#include "sluice/schema/type.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "sluice/base/strings.h"
#include "sluice/schema/field_path.h"
#include "sluice/schema/type_visitor.h"

namespace sluice::schema {

Field::Field(std::string name, TypePtr type, bool nullable)
    : name_(std::move(name)),
      type_(std::move(type)),
      nullable_(nullable),
      metadata_(JsonValue::Object()) {}

Field& Field::set_name(std::string name) {
  name_ = std::move(name);
  return *this;
}
Field& Field::set_type(TypePtr type) {
  type_ = std::move(type);
  return *this;
}
Field& Field::set_nullable(bool nullable) {
  nullable_ = nullable;
  return *this;
}
Field& Field::set_doc(std::optional<std::string> doc) {
  doc_ = std::move(doc);
  return *this;
}
Field& Field::set_default_value(std::optional<JsonValue> value) {
  default_ = std::move(value);
  return *this;
}
Field& Field::set_metadata(JsonValue metadata) {
  metadata_ = metadata.is_object() ? std::move(metadata) : JsonValue::Object();
  return *this;
}

bool Field::Equals(const Field& other) const {
  if (name_ != other.name_ || nullable_ != other.nullable_ || doc_ != other.doc_) return false;
  if (default_.has_value() != other.default_.has_value()) return false;
  if (default_.has_value() && !default_->Equals(*other.default_)) return false;
  if (!metadata_.Equals(other.metadata_)) return false;
  return type_->Equals(*other.type_, true);
}

bool Type::is_integer() const {
  return kind_ == TypeKind::kInt8 || kind_ == TypeKind::kInt16 || kind_ == TypeKind::kInt32 ||
         kind_ == TypeKind::kInt64;
}

bool Type::is_floating() const {
  return kind_ == TypeKind::kFloat32 || kind_ == TypeKind::kFloat64;
}

const Field* Type::FindField(std::string_view name) const {
  for (const Field& f : fields_) {
    if (f.name() == name) return &f;
  }
  return nullptr;
}

std::vector<size_t> Type::FindFieldsIgnoreCase(std::string_view name) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (EqualsIgnoreCase(fields_[i].name(), name)) out.push_back(i);
  }
  return out;
}

bool Type::Equals(const Type& other, bool compare_details) const {
  if (this == &other) return true;
  if (kind_ != other.kind_) return false;
  auto equal = Overloaded{
      [&](const DecimalType&) { return precision_ == other.precision_ && scale_ == other.scale_; },
      [&](const StringType&) {
        return string_length_ == other.string_length_ && precision_ == other.precision_;
      },
      [&](const UnitType&) { return unit_ == other.unit_; },
      [&](const AtomicType&) { return true; },  // the kind says it all
      [&](const StructType&) {
        if (fields_.size() != other.fields_.size()) return false;
        for (size_t i = 0; i < fields_.size(); ++i) {
          const Field& a = fields_[i];
          const Field& b = other.fields_[i];
          if (compare_details) {
            if (!a.Equals(b)) return false;
          } else if (a.name() != b.name() || a.nullable() != b.nullable() ||
                     !a.type()->Equals(*b.type(), false)) {
            return false;
          }
        }
        return true;
      },
      [&](const ArrayType&) {
        return contains_null_ == other.contains_null_ &&
               first_->Equals(*other.first_, compare_details);
      },
      [&](const MapType&) {
        return contains_null_ == other.contains_null_ &&
               first_->Equals(*other.first_, compare_details) &&
               second_->Equals(*other.second_, compare_details);
      },
  };
  return VisitType(*this, equal);
}

namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  // The 64-bit finalizer of MurmurHash3 over the running value: cheap and well spread.
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

uint64_t StructuralHash(const Type& type) {
  uint64_t h = Mix(0, static_cast<uint64_t>(type.kind()));
  auto more = Overloaded{
      [&](const DecimalType& d) {
        return Mix(Mix(h, static_cast<uint64_t>(d.precision())), static_cast<uint64_t>(d.scale()));
      },
      [&](const StringType& s) {
        return Mix(Mix(h, static_cast<uint64_t>(s.string_length())),
                   static_cast<uint64_t>(type.length()));
      },
      [&](const UnitType& u) { return Mix(h, static_cast<uint64_t>(u.unit())); },
      [&](const AtomicType&) { return h; },
      [&](const StructType& s) {
        uint64_t out = Mix(h, s.fields().size());
        for (const Field& f : s.fields()) {
          out = Mix(out, std::hash<std::string_view>()(f.name()));
          out = Mix(out, f.nullable() ? 1 : 0);
          out = Mix(out, StructuralHash(*f.type()));
        }
        return out;
      },
      [&](const ArrayType& a) {
        return Mix(Mix(h, a.contains_null() ? 1 : 0), StructuralHash(a.element_type()));
      },
      [&](const MapType& m) {
        return Mix(Mix(Mix(h, m.value_contains_null() ? 1 : 0), StructuralHash(m.key_type())),
                   StructuralHash(m.value_type()));
      },
  };
  return VisitType(type, more);
}

std::string_view TimeUnitSuffix(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMillis:
      return "(3)";
    case TimeUnit::kMicros:
      return "";
    case TimeUnit::kNanos:
      return "(9)";
  }
  return "";
}

std::string Type::ToString() const {
  auto text = Overloaded{
      [&](const DecimalType&) { return fmt::format("decimal({},{})", precision_, scale_); },
      [&](const StringType&) -> std::string {
        switch (string_length_) {
          case StringLength::kChar:
            return fmt::format("char({})", precision_);
          case StringLength::kVarchar:
            return fmt::format("varchar({})", precision_);
          case StringLength::kUnbounded:
            return "string";
        }
        return "string";
      },
      [&](const UnitType&) {
        return fmt::format("{}{}", TypeKindName(kind_), TimeUnitSuffix(unit_));
      },
      [&](const AtomicType&) { return std::string(TypeKindName(kind_)); },
      [&](const StructType&) {
        std::string out = "struct<";
        for (size_t i = 0; i < fields_.size(); ++i) {
          if (i > 0) out += ", ";
          out += QuoteFieldName(fields_[i].name());
          out += ": ";
          out += TypeWithNullability(*fields_[i].type(), fields_[i].nullable());
        }
        out += ">";
        return out;
      },
      [&](const ArrayType&) {
        return fmt::format("array<{}>", TypeWithNullability(*first_, contains_null_));
      },
      [&](const MapType&) {
        return fmt::format("map<{}, {}>", first_->ToString(),
                           TypeWithNullability(*second_, contains_null_));
      },
  };
  return VisitType(*this, text);
}

std::string TypeWithNullability(const Type& type, bool nullable) {
  std::string s = type.ToString();
  if (!nullable) s += " not null";
  return s;
}

int TimeUnitRank(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMillis:
      return 1;
    case TimeUnit::kMicros:
      return 2;
    case TimeUnit::kNanos:
      return 3;
  }
  return 2;
}

int IntegerRank(TypeKind kind) {
  if (kind == TypeKind::kInt8) return 1;
  if (kind == TypeKind::kInt16) return 2;
  if (kind == TypeKind::kInt32) return 3;
  if (kind == TypeKind::kInt64) return 4;
  return 0;
}

std::string_view TypeKindName(TypeKind kind) {
  switch (kind) {
    case TypeKind::kNull:
      return "null";
    case TypeKind::kBoolean:
      return "boolean";
    case TypeKind::kInt8:
      return "int8";
    case TypeKind::kInt16:
      return "int16";
    case TypeKind::kInt32:
      return "int32";
    case TypeKind::kInt64:
      return "int64";
    case TypeKind::kFloat32:
      return "float32";
    case TypeKind::kFloat64:
      return "float64";
    case TypeKind::kDecimal:
      return "decimal";
    case TypeKind::kString:
      return "string";
    case TypeKind::kBinary:
      return "binary";
    case TypeKind::kDate:
      return "date";
    case TypeKind::kTimestamp:
      return "timestamp";
    case TypeKind::kTimestampNtz:
      return "timestamp_ntz";
    case TypeKind::kTime:
      return "time";
    case TypeKind::kUuid:
      return "uuid";
    case TypeKind::kStruct:
      return "struct";
    case TypeKind::kArray:
      return "array";
    case TypeKind::kMap:
      return "map";
  }
  return "unknown";
}

namespace {

TypePtr MakeShared(TypeKind kind) { return std::make_shared<const Type>(kind); }

Unexpected<Error> Invalid(std::string message) { return InvalidArgument(std::move(message)); }

}  // namespace

#define SLUICE_SINGLETON(fn, kind)             \
  TypePtr Type::fn() {                         \
    static const TypePtr t = MakeShared(kind); \
    return t;                                  \
  }
SLUICE_SINGLETON(Null, TypeKind::kNull)
SLUICE_SINGLETON(Boolean, TypeKind::kBoolean)
SLUICE_SINGLETON(Int8, TypeKind::kInt8)
SLUICE_SINGLETON(Int16, TypeKind::kInt16)
SLUICE_SINGLETON(Int32, TypeKind::kInt32)
SLUICE_SINGLETON(Int64, TypeKind::kInt64)
SLUICE_SINGLETON(Float32, TypeKind::kFloat32)
SLUICE_SINGLETON(Float64, TypeKind::kFloat64)
SLUICE_SINGLETON(String, TypeKind::kString)
SLUICE_SINGLETON(Binary, TypeKind::kBinary)
SLUICE_SINGLETON(Date, TypeKind::kDate)
SLUICE_SINGLETON(Uuid, TypeKind::kUuid)
#undef SLUICE_SINGLETON

TypePtr Type::WithUnit(TypeKind kind, TimeUnit unit) {
  auto build = [](TypeKind k, TimeUnit u) {
    auto t = std::make_shared<Type>(k);
    t->unit_ = u;
    return TypePtr(std::move(t));
  };
  // One shared instance per (kind, unit), built on first use.
  static const TypePtr table[3][3] = {
      {build(TypeKind::kTimestamp, TimeUnit::kMillis),
       build(TypeKind::kTimestamp, TimeUnit::kMicros),
       build(TypeKind::kTimestamp, TimeUnit::kNanos)},
      {build(TypeKind::kTimestampNtz, TimeUnit::kMillis),
       build(TypeKind::kTimestampNtz, TimeUnit::kMicros),
       build(TypeKind::kTimestampNtz, TimeUnit::kNanos)},
      {build(TypeKind::kTime, TimeUnit::kMillis), build(TypeKind::kTime, TimeUnit::kMicros),
       build(TypeKind::kTime, TimeUnit::kNanos)},
  };
  int row = kind == TypeKind::kTimestamp ? 0 : kind == TypeKind::kTimestampNtz ? 1 : 2;
  return table[row][static_cast<int>(unit)];
}

TypePtr Type::Timestamp(TimeUnit unit) { return WithUnit(TypeKind::kTimestamp, unit); }
TypePtr Type::TimestampNtz(TimeUnit unit) { return WithUnit(TypeKind::kTimestampNtz, unit); }
TypePtr Type::Time(TimeUnit unit) { return WithUnit(TypeKind::kTime, unit); }

TypePtr Type::Primitive(TypeKind kind) {
  switch (kind) {
    case TypeKind::kNull:
      return Null();
    case TypeKind::kBoolean:
      return Boolean();
    case TypeKind::kInt8:
      return Int8();
    case TypeKind::kInt16:
      return Int16();
    case TypeKind::kInt32:
      return Int32();
    case TypeKind::kInt64:
      return Int64();
    case TypeKind::kFloat32:
      return Float32();
    case TypeKind::kFloat64:
      return Float64();
    case TypeKind::kString:
      return String();
    case TypeKind::kBinary:
      return Binary();
    case TypeKind::kDate:
      return Date();
    case TypeKind::kUuid:
      return Uuid();
    case TypeKind::kTimestamp:
      return Timestamp();
    case TypeKind::kTimestampNtz:
      return TimestampNtz();
    case TypeKind::kTime:
      return Time();
    case TypeKind::kDecimal:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return nullptr;
  }
  return nullptr;
}

Result<TypePtr> Type::Decimal(int precision, int scale) {
  if (precision < 1 || precision > kMaxDecimalPrecision) {
    return Invalid(
        fmt::format("decimal precision {} is outside 1..{}", precision, kMaxDecimalPrecision));
  }
  if (scale < 0 || scale > precision) {
    return Invalid(
        fmt::format("decimal scale {} is outside 0..{} (the precision)", scale, precision));
  }
  auto t = std::make_shared<Type>(TypeKind::kDecimal);
  t->precision_ = precision;
  t->scale_ = scale;
  return TypePtr(std::move(t));
}

namespace {
constexpr int kMaxStringLength = 1 << 30;
}  // namespace

Result<TypePtr> Type::Char(int length) {
  if (length < 1 || length > kMaxStringLength) {
    return Invalid(fmt::format("char length {} is outside 1..{}", length, kMaxStringLength));
  }
  auto t = std::make_shared<Type>(TypeKind::kString);
  t->string_length_ = StringLength::kChar;
  t->precision_ = length;
  return TypePtr(std::move(t));
}

Result<TypePtr> Type::Varchar(int length) {
  if (length < 1 || length > kMaxStringLength) {
    return Invalid(fmt::format("varchar length {} is outside 1..{}", length, kMaxStringLength));
  }
  auto t = std::make_shared<Type>(TypeKind::kString);
  t->string_length_ = StringLength::kVarchar;
  t->precision_ = length;
  return TypePtr(std::move(t));
}

namespace {

Status CheckDepth(int depth) {
  if (depth > kMaxNestingDepth) {
    return Invalid(fmt::format("types nest deeper than {} levels", kMaxNestingDepth));
  }
  return Ok();
}

}  // namespace

Result<TypePtr> Type::Struct(std::vector<Field> fields) {
  int depth = 0;
  std::unordered_set<std::string_view> seen;
  seen.reserve(fields.size());
  for (const Field& f : fields) {
    if (f.name().empty()) return Invalid("a struct field has an empty name");
    if (!IsValidUtf8(f.name())) {
      return Invalid(
          fmt::format("field name \"{}\" is not valid UTF-8", EscapeForMessage(f.name())));
    }
    if (f.type() == nullptr) {
      return Invalid(fmt::format("field {} has no type", QuoteFieldName(f.name())));
    }
    if (!seen.insert(f.name()).second) {
      return Invalid(fmt::format("duplicate field name {}", QuoteFieldName(f.name())));
    }
    depth = std::max(depth, f.type()->depth());
  }
  SLUICE_TRY(CheckDepth(depth + 1));
  auto t = std::make_shared<Type>(TypeKind::kStruct);
  t->fields_ = std::move(fields);
  t->depth_ = depth + 1;
  return TypePtr(std::move(t));
}

Result<TypePtr> Type::Array(TypePtr element, bool contains_null) {
  if (element == nullptr) return Invalid("an array has no element type");
  SLUICE_TRY(CheckDepth(element->depth() + 1));
  auto t = std::make_shared<Type>(TypeKind::kArray);
  t->depth_ = element->depth() + 1;
  t->first_ = std::move(element);
  t->contains_null_ = contains_null;
  return TypePtr(std::move(t));
}

Result<TypePtr> Type::Map(TypePtr key, TypePtr value, bool value_contains_null) {
  if (key == nullptr || value == nullptr) return Invalid("a map lacks its key or value type");
  if (key->kind() == TypeKind::kNull) return Invalid("map keys cannot be of type null");
  int depth = std::max(key->depth(), value->depth()) + 1;
  SLUICE_TRY(CheckDepth(depth));
  auto t = std::make_shared<Type>(TypeKind::kMap);
  t->depth_ = depth;
  t->first_ = std::move(key);
  t->second_ = std::move(value);
  t->contains_null_ = value_contains_null;
  return TypePtr(std::move(t));
}

}  // namespace sluice::schema
