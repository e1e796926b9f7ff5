// Primitive types both ways: the element sluice writes for each model primitive, and the model
// type of each physical type and annotation LogicalTypes.md defines.
#include <fmt/format.h>

#include <array>

#include "sluice/parquet/schema_map_internal.h"

namespace sluice::parquet::internal {

using schema::FieldPath;
using schema::NoteSink;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

namespace {

LogicalType Logical(LogicalType::Kind kind) {
  LogicalType t;
  t.kind = kind;
  return t;
}

LogicalType IntegerLogical(int8_t bits, bool is_signed) {
  LogicalType t = Logical(LogicalType::Kind::kInteger);
  t.bit_width = bits;
  t.is_signed = is_signed;
  return t;
}

LogicalType TemporalLogical(LogicalType::Kind kind, bool utc, TimeUnit unit) {
  LogicalType t = Logical(kind);
  t.adjusted_to_utc = utc;
  t.unit = unit;
  return t;
}

TimeUnit ToParquetUnit(schema::TimeUnit unit) {
  switch (unit) {
    case schema::TimeUnit::kMillis:
      return TimeUnit::kMillis;
    case schema::TimeUnit::kMicros:
      return TimeUnit::kMicros;
    case schema::TimeUnit::kNanos:
      return TimeUnit::kNanos;
  }
  return TimeUnit::kMicros;
}

// Enum values come from a decoded footer and may be anything a writer put there.
bool KnownUnit(TimeUnit unit) {
  const auto v = static_cast<uint8_t>(unit);
  return v >= 1 && v <= 3;
}

std::optional<schema::TimeUnit> ToModelUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMillis:
      return schema::TimeUnit::kMillis;
    case TimeUnit::kMicros:
      return schema::TimeUnit::kMicros;
    case TimeUnit::kNanos:
      return schema::TimeUnit::kNanos;
  }
  return std::nullopt;
}

std::string_view UnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMillis:
      return "MILLIS";
    case TimeUnit::kMicros:
      return "MICROS";
    case TimeUnit::kNanos:
      return "NANOS";
  }
  return "?";
}

std::string LogicalText(const LogicalType& t) {
  using K = LogicalType::Kind;
  switch (t.kind) {
    case K::kString:
      return "STRING";
    case K::kMap:
      return "MAP";
    case K::kList:
      return "LIST";
    case K::kEnum:
      return "ENUM";
    case K::kDecimal:
      return fmt::format("DECIMAL({},{})", t.decimal_precision, t.decimal_scale);
    case K::kDate:
      return "DATE";
    case K::kTime:
      return fmt::format("TIME({},{})", UnitName(t.unit), t.adjusted_to_utc);
    case K::kTimestamp:
      return fmt::format("TIMESTAMP({},{})", UnitName(t.unit), t.adjusted_to_utc);
    case K::kInteger:
      return fmt::format("INTEGER({},{})", t.bit_width, t.is_signed);
    case K::kUnknown:
      return "UNKNOWN";
    case K::kJson:
      return "JSON";
    case K::kBson:
      return "BSON";
    case K::kUuid:
      return "UUID";
    case K::kFloat16:
      return "FLOAT16";
    case K::kVariant:
      return "VARIANT";
    case K::kGeometry:
      return "GEOMETRY";
    case K::kGeography:
      return "GEOGRAPHY";
  }
  return fmt::format("LOGICAL_TYPE_{}", static_cast<int>(t.kind));
}

std::string ConvertedText(ConvertedType c, const SchemaElement& e) {
  using C = ConvertedType;
  switch (c) {
    case C::kUtf8:
      return "UTF8";
    case C::kMap:
      return "MAP";
    case C::kMapKeyValue:
      return "MAP_KEY_VALUE";
    case C::kList:
      return "LIST";
    case C::kEnum:
      return "ENUM";
    case C::kDecimal:
      return fmt::format("DECIMAL({},{})", e.precision.value_or(0), e.scale.value_or(0));
    case C::kDate:
      return "DATE";
    case C::kTimeMillis:
      return "TIME_MILLIS";
    case C::kTimeMicros:
      return "TIME_MICROS";
    case C::kTimestampMillis:
      return "TIMESTAMP_MILLIS";
    case C::kTimestampMicros:
      return "TIMESTAMP_MICROS";
    case C::kUint8:
      return "UINT_8";
    case C::kUint16:
      return "UINT_16";
    case C::kUint32:
      return "UINT_32";
    case C::kUint64:
      return "UINT_64";
    case C::kInt8:
      return "INT_8";
    case C::kInt16:
      return "INT_16";
    case C::kInt32:
      return "INT_32";
    case C::kInt64:
      return "INT_64";
    case C::kJson:
      return "JSON";
    case C::kBson:
      return "BSON";
    case C::kInterval:
      return "INTERVAL";
  }
  return fmt::format("CONVERTED_TYPE_{}", static_cast<int>(c));
}

// The most digits an unscaled value in n bytes holds: floor(log10(2^(8n-1) - 1)), n = 1..16.
constexpr std::array<int, 16> kDigitsByLength = {2,  4,  6,  9,  11, 14, 16, 18,
                                                 21, 23, 26, 28, 31, 33, 35, 38};

LeafType Leaf(TypePtr type, SortOrder order = SortOrder::kSigned, bool is_unsigned = false) {
  return LeafType{std::move(type), is_unsigned, order};
}

}  // namespace

std::string ElementAt(int64_t index, const FieldPath& path) {
  if (path.empty()) return fmt::format("element {}", index);
  return fmt::format("element {} ({})", index, path.ToString());
}

std::string_view PhysicalTypeTextName(PhysicalType type) {
  switch (type) {
    case PhysicalType::kBoolean:
      return "boolean";
    case PhysicalType::kInt32:
      return "int32";
    case PhysicalType::kInt64:
      return "int64";
    case PhysicalType::kInt96:
      return "int96";
    case PhysicalType::kFloat:
      return "float";
    case PhysicalType::kDouble:
      return "double";
    case PhysicalType::kByteArray:
      return "binary";
    case PhysicalType::kFixedLenByteArray:
      return "fixed_len_byte_array";
  }
  return "unknown";
}

std::string AnnotationText(const SchemaElement& element) {
  if (element.logical_type) return LogicalText(*element.logical_type);
  if (element.converted_type) return ConvertedText(*element.converted_type, element);
  return "";
}

int32_t DecimalFixedLength(int precision) {
  for (size_t i = 0; i < kDigitsByLength.size(); ++i) {
    if (kDigitsByLength[i] >= precision) return static_cast<int32_t>(i + 1);
  }
  return static_cast<int32_t>(kDigitsByLength.size());
}

int DecimalMaxDigits(int64_t length) {
  if (length <= 0) return 0;
  if (length > static_cast<int64_t>(kDigitsByLength.size())) return kDigitsByLength.back() + 1;
  return kDigitsByLength[static_cast<size_t>(length - 1)];
}

std::optional<ConvertedType> LegacyConvertedType(const LogicalType& logical) {
  using K = LogicalType::Kind;
  using C = ConvertedType;
  switch (logical.kind) {
    case K::kString:
      return C::kUtf8;
    case K::kMap:
      return C::kMap;
    case K::kList:
      return C::kList;
    case K::kEnum:
      return C::kEnum;
    case K::kDecimal:
      return C::kDecimal;
    case K::kDate:
      return C::kDate;
    case K::kTime:
      // Local times get the legacy annotation too (LogicalTypes.md asks writers to), so that
      // old readers see a time at all.
      if (logical.unit == TimeUnit::kMillis) return C::kTimeMillis;
      if (logical.unit == TimeUnit::kMicros) return C::kTimeMicros;
      return std::nullopt;
    case K::kTimestamp:
      // Spark writes TIMESTAMP_NTZ without one: an old reader would take TIMESTAMP_MICROS for
      // an instant and shift wall-clock values by its zone.
      if (!logical.adjusted_to_utc) return std::nullopt;
      if (logical.unit == TimeUnit::kMillis) return C::kTimestampMillis;
      if (logical.unit == TimeUnit::kMicros) return C::kTimestampMicros;
      return std::nullopt;
    case K::kInteger:
      switch (logical.bit_width) {
        case 8:
          return logical.is_signed ? C::kInt8 : C::kUint8;
        case 16:
          return logical.is_signed ? C::kInt16 : C::kUint16;
        case 32:
          return logical.is_signed ? C::kInt32 : C::kUint32;
        case 64:
          return logical.is_signed ? C::kInt64 : C::kUint64;
        default:
          return std::nullopt;
      }
    case K::kJson:
      return C::kJson;
    case K::kBson:
      return C::kBson;
    case K::kUnknown:
    case K::kUuid:
    case K::kFloat16:
    case K::kVariant:
    case K::kGeometry:
    case K::kGeography:
      return std::nullopt;
  }
  return std::nullopt;
}

Result<Annotation> ResolveAnnotation(const SchemaElement& e, std::string_view where) {
  using K = LogicalType::Kind;
  using C = ConvertedType;
  Annotation a;
  if (e.logical_type) {
    const auto kind = static_cast<int>(e.logical_type->kind);
    if (kind < 1 || kind > 18 || kind == 9) {
      return InvalidArgument(fmt::format("{}: unknown logical type {}", where, kind));
    }
    a.logical = *e.logical_type;
    return a;
  }
  if (!e.converted_type) return a;
  a.from_converted = true;
  switch (*e.converted_type) {
    case C::kUtf8:
      a.logical = Logical(K::kString);
      break;
    case C::kMap:
      a.logical = Logical(K::kMap);
      break;
    case C::kMapKeyValue:
      a.map_key_value = true;
      break;
    case C::kList:
      a.logical = Logical(K::kList);
      break;
    case C::kEnum:
      a.logical = Logical(K::kEnum);
      break;
    case C::kDecimal: {
      if (!e.precision) {
        return InvalidArgument(fmt::format("{}: DECIMAL without a precision", where));
      }
      LogicalType t = Logical(K::kDecimal);
      t.decimal_precision = *e.precision;
      t.decimal_scale = e.scale.value_or(0);
      a.logical = t;
      break;
    }
    case C::kDate:
      a.logical = Logical(K::kDate);
      break;
    case C::kTimeMillis:
      a.logical = TemporalLogical(K::kTime, true, TimeUnit::kMillis);
      break;
    case C::kTimeMicros:
      a.logical = TemporalLogical(K::kTime, true, TimeUnit::kMicros);
      break;
    case C::kTimestampMillis:
      a.logical = TemporalLogical(K::kTimestamp, true, TimeUnit::kMillis);
      break;
    case C::kTimestampMicros:
      a.logical = TemporalLogical(K::kTimestamp, true, TimeUnit::kMicros);
      break;
    case C::kUint8:
      a.logical = IntegerLogical(8, false);
      break;
    case C::kUint16:
      a.logical = IntegerLogical(16, false);
      break;
    case C::kUint32:
      a.logical = IntegerLogical(32, false);
      break;
    case C::kUint64:
      a.logical = IntegerLogical(64, false);
      break;
    case C::kInt8:
      a.logical = IntegerLogical(8, true);
      break;
    case C::kInt16:
      a.logical = IntegerLogical(16, true);
      break;
    case C::kInt32:
      a.logical = IntegerLogical(32, true);
      break;
    case C::kInt64:
      a.logical = IntegerLogical(64, true);
      break;
    case C::kJson:
      a.logical = Logical(K::kJson);
      break;
    case C::kBson:
      a.logical = Logical(K::kBson);
      break;
    case C::kInterval:
      a.interval = true;
      break;
    default:
      return InvalidArgument(
          fmt::format("{}: unknown converted type {}", where, static_cast<int>(*e.converted_type)));
  }
  return a;
}

Result<SchemaElement> PrimitiveElement(const Type& type, const FieldPath& path, NoteSink& notes) {
  using K = LogicalType::Kind;
  SchemaElement e;
  switch (type.kind()) {
    case TypeKind::kNull:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return InvalidArgument(
          fmt::format("{}: {} is not a primitive type", path.ToString(), type.ToString()));
    case TypeKind::kBoolean:
      e.type = PhysicalType::kBoolean;
      break;
    case TypeKind::kInt8:
      e.type = PhysicalType::kInt32;
      e.logical_type = IntegerLogical(8, true);
      break;
    case TypeKind::kInt16:
      e.type = PhysicalType::kInt32;
      e.logical_type = IntegerLogical(16, true);
      break;
    case TypeKind::kInt32:
      // Spark writes plain INT32 for int; INTEGER(32, true) is implied.
      e.type = PhysicalType::kInt32;
      break;
    case TypeKind::kInt64:
      e.type = PhysicalType::kInt64;
      break;
    case TypeKind::kFloat32:
      e.type = PhysicalType::kFloat;
      break;
    case TypeKind::kFloat64:
      e.type = PhysicalType::kDouble;
      break;
    case TypeKind::kDecimal: {
      const int p = type.precision();
      if (p <= 9) {
        e.type = PhysicalType::kInt32;
      } else if (p <= 18) {
        e.type = PhysicalType::kInt64;
      } else {
        e.type = PhysicalType::kFixedLenByteArray;
        e.type_length = DecimalFixedLength(p);
      }
      LogicalType t = Logical(K::kDecimal);
      t.decimal_precision = p;
      t.decimal_scale = type.scale();
      e.logical_type = t;
      e.precision = p;
      e.scale = type.scale();
      break;
    }
    case TypeKind::kString:
      if (type.string_length() != schema::StringLength::kUnbounded) {
        notes.Add(path, fmt::format("{} is written as a Parquet STRING, without its length",
                                    type.ToString()));
      }
      e.type = PhysicalType::kByteArray;
      e.logical_type = Logical(K::kString);
      break;
    case TypeKind::kBinary:
      e.type = PhysicalType::kByteArray;
      break;
    case TypeKind::kDate:
      e.type = PhysicalType::kInt32;
      e.logical_type = Logical(K::kDate);
      break;
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      e.type = PhysicalType::kInt64;
      e.logical_type = TemporalLogical(K::kTimestamp, type.kind() == TypeKind::kTimestamp,
                                       ToParquetUnit(type.unit()));
      break;
    case TypeKind::kTime:
      e.type =
          type.unit() == schema::TimeUnit::kMillis ? PhysicalType::kInt32 : PhysicalType::kInt64;
      e.logical_type = TemporalLogical(K::kTime, false, ToParquetUnit(type.unit()));
      break;
    case TypeKind::kUuid:
      e.type = PhysicalType::kFixedLenByteArray;
      e.type_length = 16;
      e.logical_type = Logical(K::kUuid);
      break;
  }
  if (e.logical_type) e.converted_type = LegacyConvertedType(*e.logical_type);
  return e;
}

namespace {

// One leaf being typed: what the pieces of LeafTypeOf share.
struct LeafInput {
  const SchemaElement& element;
  std::string_view where;
  const FieldPath& path;
  NoteSink& notes;
  PhysicalType physical;
  int64_t length;  // type_length, 0 when unset

  Unexpected<Error> Cannot(std::string_view annotation) const {
    return InvalidArgument(fmt::format(
        "{}: {} cannot annotate {}{}", where, annotation, PhysicalTypeTextName(physical),
        physical == PhysicalType::kFixedLenByteArray ? fmt::format("({})", length)
                                                     : std::string()));
  }
};

Result<LeafType> UnannotatedLeaf(const LeafInput& in) {
  switch (in.physical) {
    case PhysicalType::kBoolean:
      return Leaf(Type::Boolean(), SortOrder::kUnsigned);
    case PhysicalType::kInt32:
      return Leaf(Type::Int32());
    case PhysicalType::kInt64:
      return Leaf(Type::Int64());
    case PhysicalType::kInt96:
      // Spark reads INT96 as its TimestampType, microseconds.
      return Leaf(Type::Timestamp(), SortOrder::kUnknown);
    case PhysicalType::kFloat:
      return Leaf(Type::Float32());
    case PhysicalType::kDouble:
      return Leaf(Type::Float64());
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      return Leaf(Type::Binary(), SortOrder::kUnsigned);
  }
  return InvalidArgument(
      fmt::format("{}: unknown physical type {}", in.where, static_cast<int>(in.physical)));
}

Result<LeafType> IntegerLeaf(const LeafInput& in, const LogicalType& t) {
  const int bits = t.bit_width;
  const bool int32 = in.physical == PhysicalType::kInt32 && (bits == 8 || bits == 16 || bits == 32);
  const bool int64 = in.physical == PhysicalType::kInt64 && bits == 64;
  if (!int32 && !int64) return in.Cannot(LogicalText(t));
  if (t.is_signed) {
    if (bits == 8) return Leaf(Type::Int8());
    if (bits == 16) return Leaf(Type::Int16());
    if (bits == 32) return Leaf(Type::Int32());
    return Leaf(Type::Int64());
  }
  // Each unsigned width is read as the next wider signed type, which holds every value;
  // UINT_64 has none and becomes the decimal that does.
  if (bits == 8) return Leaf(Type::Int16(), SortOrder::kUnsigned, true);
  if (bits == 16) return Leaf(Type::Int32(), SortOrder::kUnsigned, true);
  if (bits == 32) return Leaf(Type::Int64(), SortOrder::kUnsigned, true);
  in.notes.Add(in.path, "unsigned 64-bit integers are read as decimal(20,0)");
  SLUICE_ASSIGN_OR_RETURN(TypePtr d, Type::Decimal(20, 0));
  return Leaf(std::move(d), SortOrder::kUnsigned, true);
}

Result<LeafType> DecimalLeaf(const LeafInput& in, const LogicalType& t) {
  const std::string name = LogicalText(t);
  const int32_t precision = t.decimal_precision;
  const int32_t scale = t.decimal_scale;
  if (precision < 1 || scale < 0 || scale > precision) {
    return InvalidArgument(
        fmt::format("{}: {} has a precision or scale out of range", in.where, name));
  }
  if (precision > schema::kMaxDecimalPrecision) {
    return InvalidArgument(fmt::format("{}: {} has more digits than the {} sluice holds", in.where,
                                       name, schema::kMaxDecimalPrecision));
  }
  bool fits = false;
  switch (in.physical) {
    case PhysicalType::kInt32:
      fits = precision <= 9;
      break;
    case PhysicalType::kInt64:
      fits = precision <= 18;
      break;
    case PhysicalType::kFixedLenByteArray:
      fits = precision <= DecimalMaxDigits(in.length);
      break;
    case PhysicalType::kByteArray:
      fits = true;
      break;
    case PhysicalType::kBoolean:
    case PhysicalType::kInt96:
    case PhysicalType::kFloat:
    case PhysicalType::kDouble:
      return in.Cannot(name);
  }
  if (!fits) {
    return InvalidArgument(fmt::format("{}: {} does not fit in {}", in.where, name,
                                       PhysicalTypeTextName(in.physical)));
  }
  SLUICE_ASSIGN_OR_RETURN(TypePtr d, Type::Decimal(precision, scale));
  return Leaf(std::move(d));
}

Result<LeafType> TemporalLeaf(const LeafInput& in, const LogicalType& t, bool from_converted) {
  const bool time = t.kind == LogicalType::Kind::kTime;
  if (!KnownUnit(t.unit)) {
    return InvalidArgument(
        fmt::format("{}: {} with an unknown unit", in.where, time ? "TIME" : "TIMESTAMP"));
  }
  const schema::TimeUnit unit = *ToModelUnit(t.unit);
  if (!time) {
    if (in.physical != PhysicalType::kInt64) return in.Cannot(LogicalText(t));
    return Leaf(t.adjusted_to_utc ? Type::Timestamp(unit) : Type::TimestampNtz(unit));
  }
  const PhysicalType storage =
      t.unit == TimeUnit::kMillis ? PhysicalType::kInt32 : PhysicalType::kInt64;
  if (in.physical != storage) return in.Cannot(LogicalText(t));
  // The legacy TIME_MILLIS / TIME_MICROS say "adjusted to UTC" whatever the writer meant, so
  // only an explicit LogicalType is worth a note.
  if (t.adjusted_to_utc && !from_converted) {
    in.notes.Add(in.path, "a time adjusted to UTC is read as a time of day without a zone");
  }
  return Leaf(Type::Time(unit));
}

}  // namespace

Result<LeafType> LeafTypeOf(const SchemaElement& e, std::string_view where, const FieldPath& path,
                            NoteSink& notes) {
  using K = LogicalType::Kind;
  const LeafInput in{e, where, path, notes, *e.type, e.type_length.value_or(0)};
  const PhysicalType p = in.physical;
  SLUICE_ASSIGN_OR_RETURN(Annotation a, ResolveAnnotation(e, where));
  if (a.map_key_value) return in.Cannot("MAP_KEY_VALUE");
  if (a.interval) {
    if (p != PhysicalType::kFixedLenByteArray || in.length != 12) return in.Cannot("INTERVAL");
    notes.Add(path, "INTERVAL is read as binary: its 12 bytes hold months, days and milliseconds");
    return Leaf(Type::Binary(), SortOrder::kUnknown);
  }
  if (!a.logical) return UnannotatedLeaf(in);
  const LogicalType& t = *a.logical;
  const std::string name = LogicalText(t);
  switch (t.kind) {
    case K::kString:
    case K::kEnum:
    case K::kJson:
      if (p != PhysicalType::kByteArray) return in.Cannot(name);
      return Leaf(Type::String(), SortOrder::kUnsigned);
    case K::kBson:
      if (p != PhysicalType::kByteArray) return in.Cannot(name);
      return Leaf(Type::Binary(), SortOrder::kUnsigned);
    case K::kUuid:
      if (p != PhysicalType::kFixedLenByteArray || in.length != 16) return in.Cannot(name);
      return Leaf(Type::Uuid(), SortOrder::kUnsigned);
    case K::kInteger:
      return IntegerLeaf(in, t);
    case K::kDecimal:
      return DecimalLeaf(in, t);
    case K::kDate:
      if (p != PhysicalType::kInt32) return in.Cannot(name);
      return Leaf(Type::Date());
    case K::kTime:
    case K::kTimestamp:
      return TemporalLeaf(in, t, a.from_converted);
    case K::kUnknown:
      return Leaf(Type::Null(), SortOrder::kUnknown);
    case K::kFloat16:
      if (p != PhysicalType::kFixedLenByteArray || in.length != 2) return in.Cannot(name);
      notes.Add(path, "FLOAT16 is read as float32");
      return Leaf(Type::Float32());
    case K::kGeometry:
    case K::kGeography:
      if (p != PhysicalType::kByteArray) return in.Cannot(name);
      notes.Add(path, fmt::format("{} is read as binary (well-known binary)", name));
      return Leaf(Type::Binary(), SortOrder::kUnknown);
    case K::kMap:
    case K::kList:
    case K::kVariant:
      return InvalidArgument(
          fmt::format("{}: {} annotates a group, not {}", where, name, PhysicalTypeTextName(p)));
  }
  return InvalidArgument(fmt::format("{}: unknown logical type", where));
}

}  // namespace sluice::parquet::internal
