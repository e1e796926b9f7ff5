// Choosing how a leaf's values print (ResolveValueFormat) and rendering batches of decoded
// values and statistics with the functions of value_text.cc.
#include <fmt/format.h>

#include <charconv>
#include <cstring>

#include "sluice/parquet/value_text.h"
#include "sluice/parquet/value_text_internal.h"

namespace sluice::parquet {
namespace {

using internal::DoubleText;
using internal::FloatText;

// Decimals print their scale's digits in full; a hostile scale would make every value huge.
constexpr int32_t kMaxDecimalScale = 1000;

template <class T, class F>
Status ForEach(const T* values, size_t n, std::string& out, size_t* ends, F&& f) {
  for (size_t i = 0; i < n; ++i) {
    SLUICE_TRY(f(values[i]));
    ends[i] = out.size();
  }
  return Ok();
}

// Render through a bounded stack buffer, writing straight into `out`'s storage: the hot path
// for integers and floats.
template <size_t kMax, class T, class F>
void RenderFixed(const T* values, size_t n, std::string& out, size_t* ends, F&& f) {
  const size_t base = out.size();
  // resize_and_overwrite: the room for the widest values is not zero-filled first.
  out.resize_and_overwrite(base + n * kMax, [&](char* start, size_t) {
    char* p = start + base;
    for (size_t i = 0; i < n; ++i) {
      p = f(p, values[i]);
      ends[i] = static_cast<size_t>(p - start);
    }
    return static_cast<size_t>(p - start);
  });
}

Error Mismatch(const ValueFormat& format, std::string_view type) {
  return Error(ErrorCode::kInternal, fmt::format("value format {} does not apply to {} values",
                                                 static_cast<int>(format.kind), type));
}

using Kind = ValueFormat::Kind;

bool IsInt32Kind(Kind k) {
  return k == Kind::kInt32 || k == Kind::kUint32 || k == Kind::kDecimal || k == Kind::kDate ||
         k == Kind::kTime || k == Kind::kNull;
}
bool IsInt64Kind(Kind k) {
  return k == Kind::kInt64 || k == Kind::kUint64 || k == Kind::kDecimal || k == Kind::kTime ||
         k == Kind::kTimestamp || k == Kind::kNull;
}
bool IsBytesKind(Kind k) {
  return k == Kind::kString || k == Kind::kBinary || k == Kind::kDecimal || k == Kind::kNull;
}

// The format of a leaf from its LogicalType alone.
Result<ValueFormat> FromLogical(const LogicalType& lt, PhysicalType physical) {
  using LK = LogicalType::Kind;
  ValueFormat f;
  switch (lt.kind) {
    case LK::kString:
    case LK::kEnum:
    case LK::kJson:
      f.kind = Kind::kString;
      return f;
    case LK::kBson:
    case LK::kVariant:
    case LK::kGeometry:
    case LK::kGeography:
    case LK::kMap:
    case LK::kList:
      f.kind = Kind::kBinary;
      return f;
    case LK::kDecimal:
      f.kind = Kind::kDecimal;
      f.scale = lt.decimal_scale;
      return f;
    case LK::kDate:
      f.kind = Kind::kDate;
      return f;
    case LK::kTime:
      f.kind = Kind::kTime;
      f.unit = lt.unit;
      return f;
    case LK::kTimestamp:
      f.kind = Kind::kTimestamp;
      f.unit = lt.unit;
      f.utc = lt.adjusted_to_utc;
      return f;
    case LK::kInteger:
      if (physical == PhysicalType::kInt64) {
        f.kind = lt.is_signed ? Kind::kInt64 : Kind::kUint64;
      } else {
        f.kind = lt.is_signed ? Kind::kInt32 : Kind::kUint32;
      }
      return f;
    case LK::kUnknown:
      f.kind = Kind::kNull;
      return f;
    case LK::kUuid:
      f.kind = Kind::kUuid;
      return f;
    case LK::kFloat16:
      f.kind = Kind::kFloat16;
      return f;
  }
  return InvalidArgument(fmt::format("unknown logical type {}", static_cast<int>(lt.kind)));
}

Result<ValueFormat> FromConverted(ConvertedType ct, const SchemaElement& e, PhysicalType physical) {
  ValueFormat f;
  switch (ct) {
    case ConvertedType::kUtf8:
    case ConvertedType::kEnum:
    case ConvertedType::kJson:
      f.kind = Kind::kString;
      return f;
    case ConvertedType::kBson:
    case ConvertedType::kInterval:
    case ConvertedType::kMap:
    case ConvertedType::kMapKeyValue:
    case ConvertedType::kList:
      f.kind = Kind::kBinary;
      return f;
    case ConvertedType::kDecimal:
      f.kind = Kind::kDecimal;
      f.scale = e.scale.value_or(0);
      return f;
    case ConvertedType::kDate:
      f.kind = Kind::kDate;
      return f;
    case ConvertedType::kTimeMillis:
    case ConvertedType::kTimeMicros:
      f.kind = Kind::kTime;
      f.unit = ct == ConvertedType::kTimeMillis ? TimeUnit::kMillis : TimeUnit::kMicros;
      return f;
    case ConvertedType::kTimestampMillis:
    case ConvertedType::kTimestampMicros:
      // The legacy annotations are instants (isAdjustedToUTC = true in LogicalTypes.md).
      f.kind = Kind::kTimestamp;
      f.unit = ct == ConvertedType::kTimestampMillis ? TimeUnit::kMillis : TimeUnit::kMicros;
      f.utc = true;
      return f;
    case ConvertedType::kUint8:
    case ConvertedType::kUint16:
    case ConvertedType::kUint32:
    case ConvertedType::kUint64:
      f.kind = physical == PhysicalType::kInt64 ? Kind::kUint64 : Kind::kUint32;
      return f;
    case ConvertedType::kInt8:
    case ConvertedType::kInt16:
    case ConvertedType::kInt32:
    case ConvertedType::kInt64:
      f.kind = physical == PhysicalType::kInt64 ? Kind::kInt64 : Kind::kInt32;
      return f;
  }
  return InvalidArgument(fmt::format("unknown converted type {}", static_cast<int>(ct)));
}

ValueFormat FromPhysical(PhysicalType physical) {
  ValueFormat f;
  switch (physical) {
    case PhysicalType::kBoolean:
      f.kind = Kind::kBoolean;
      break;
    case PhysicalType::kInt32:
      f.kind = Kind::kInt32;
      break;
    case PhysicalType::kInt64:
      f.kind = Kind::kInt64;
      break;
    case PhysicalType::kInt96:
      f.kind = Kind::kInt96Timestamp;
      break;
    case PhysicalType::kFloat:
      f.kind = Kind::kFloat;
      break;
    case PhysicalType::kDouble:
      f.kind = Kind::kDouble;
      break;
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      f.kind = Kind::kBinary;
      break;
  }
  return f;
}

// Whether values of `physical` can print as `f`.
bool Fits(const ValueFormat& f, PhysicalType physical, int32_t type_length) {
  switch (physical) {
    case PhysicalType::kBoolean:
      return f.kind == Kind::kBoolean || f.kind == Kind::kNull;
    case PhysicalType::kInt32:
      // TIME on INT32 is milliseconds only.
      return IsInt32Kind(f.kind) && (f.kind != Kind::kTime || f.unit == TimeUnit::kMillis);
    case PhysicalType::kInt64:
      return IsInt64Kind(f.kind) && (f.kind != Kind::kTime || f.unit != TimeUnit::kMillis);
    case PhysicalType::kInt96:
      return f.kind == Kind::kInt96Timestamp || f.kind == Kind::kNull;
    case PhysicalType::kFloat:
      return f.kind == Kind::kFloat || f.kind == Kind::kNull;
    case PhysicalType::kDouble:
      return f.kind == Kind::kDouble || f.kind == Kind::kNull;
    case PhysicalType::kByteArray:
      return IsBytesKind(f.kind);
    case PhysicalType::kFixedLenByteArray:
      if (f.kind == Kind::kUuid) return type_length == 16;
      if (f.kind == Kind::kFloat16) return type_length == 2;
      return IsBytesKind(f.kind);
  }
  return false;
}

}  // namespace

Result<ValueFormat> ResolveValueFormat(const SchemaElement& leaf) {
  if (!leaf.type) return InvalidArgument(fmt::format("column '{}' has no type", leaf.name));
  const PhysicalType physical = *leaf.type;
  const int32_t type_length = leaf.type_length.value_or(0);
  if (physical == PhysicalType::kFixedLenByteArray && type_length <= 0) {
    return InvalidArgument(
        fmt::format("column '{}': FIXED_LEN_BYTE_ARRAY of length {}", leaf.name, type_length));
  }
  ValueFormat f;
  if (leaf.logical_type) {
    SLUICE_ASSIGN_OR_RETURN(f, FromLogical(*leaf.logical_type, physical));
  } else if (leaf.converted_type) {
    SLUICE_ASSIGN_OR_RETURN(f, FromConverted(*leaf.converted_type, leaf, physical));
  } else {
    f = FromPhysical(physical);
  }
  // Annotations that only describe groups say nothing about a leaf's values.
  if (f.kind == Kind::kBinary && physical != PhysicalType::kByteArray &&
      physical != PhysicalType::kFixedLenByteArray) {
    f = FromPhysical(physical);
  }
  if (f.kind == Kind::kDecimal && (f.scale < 0 || f.scale > kMaxDecimalScale)) {
    return InvalidArgument(fmt::format("column '{}': decimal scale {} (0..{} are read)", leaf.name,
                                       f.scale, kMaxDecimalScale));
  }
  if (!Fits(f, physical, type_length)) {
    return InvalidArgument(fmt::format(
        "column '{}': its annotation does not apply to {}{}", leaf.name, PhysicalTypeName(physical),
        physical == PhysicalType::kFixedLenByteArray ? fmt::format("({})", type_length)
                                                     : std::string()));
  }
  return f;
}

template <>
Status RenderValues<bool>(const ValueFormat& format, const bool* values, size_t n, std::string& out,
                          size_t* ends) {
  if (format.kind != Kind::kBoolean && format.kind != Kind::kNull) {
    return Fail(Mismatch(format, "BOOLEAN"));
  }
  const bool null = format.kind == Kind::kNull;
  RenderFixed<5>(values, n, out, ends, [null](char* p, bool v) {
    const char* s = null ? "null" : v ? "true" : "false";
    const size_t len = null || v ? 4 : 5;
    std::memcpy(p, s, len);
    return p + len;
  });
  return Ok();
}

template <>
Status RenderValues<int32_t>(const ValueFormat& format, const int32_t* values, size_t n,
                             std::string& out, size_t* ends) {
  switch (format.kind) {
    case Kind::kInt32:
      RenderFixed<11>(values, n, out, ends,
                      [](char* p, int32_t v) { return std::to_chars(p, p + 11, v).ptr; });
      return Ok();
    case Kind::kUint32:
      RenderFixed<10>(values, n, out, ends, [](char* p, int32_t v) {
        return std::to_chars(p, p + 10, static_cast<uint32_t>(v)).ptr;
      });
      return Ok();
    case Kind::kDecimal:
      if (format.scale <= internal::kMaxDecimalTextScale) {
        RenderFixed<internal::kMaxDecimalText>(values, n, out, ends, [&](char* p, int32_t v) {
          return internal::DecimalText(p, v, format.scale);
        });
        return Ok();
      }
      return ForEach(values, n, out, ends, [&](int32_t v) -> Status {
        AppendDecimal(out, v, format.scale);
        return Ok();
      });
    case Kind::kDate:
      RenderFixed<internal::kMaxTimestampText>(
          values, n, out, ends, [](char* p, int32_t v) { return internal::DateText(p, v); });
      return Ok();
    case Kind::kTime:
      return ForEach(values, n, out, ends,
                     [&](int32_t v) { return AppendTime(out, v, format.unit); });
    case Kind::kNull:
      return ForEach(values, n, out, ends, [&](int32_t) -> Status {
        out += "null";
        return Ok();
      });
    case Kind::kBoolean:
    case Kind::kInt64:
    case Kind::kUint64:
    case Kind::kFloat:
    case Kind::kDouble:
    case Kind::kFloat16:
    case Kind::kString:
    case Kind::kBinary:
    case Kind::kTimestamp:
    case Kind::kInt96Timestamp:
    case Kind::kUuid:
      break;
  }
  return Fail(Mismatch(format, "INT32"));
}

template <>
Status RenderValues<int64_t>(const ValueFormat& format, const int64_t* values, size_t n,
                             std::string& out, size_t* ends) {
  switch (format.kind) {
    case Kind::kInt64:
      RenderFixed<20>(values, n, out, ends,
                      [](char* p, int64_t v) { return std::to_chars(p, p + 20, v).ptr; });
      return Ok();
    case Kind::kUint64:
      RenderFixed<20>(values, n, out, ends, [](char* p, int64_t v) {
        return std::to_chars(p, p + 20, static_cast<uint64_t>(v)).ptr;
      });
      return Ok();
    case Kind::kDecimal:
      if (format.scale <= internal::kMaxDecimalTextScale) {
        RenderFixed<internal::kMaxDecimalText>(values, n, out, ends, [&](char* p, int64_t v) {
          return internal::DecimalText(p, v, format.scale);
        });
        return Ok();
      }
      return ForEach(values, n, out, ends, [&](int64_t v) -> Status {
        AppendDecimal(out, v, format.scale);
        return Ok();
      });
    case Kind::kTime:
      return ForEach(values, n, out, ends,
                     [&](int64_t v) { return AppendTime(out, v, format.unit); });
    case Kind::kTimestamp: {
      internal::TimestampWriter writer;
      RenderFixed<internal::kMaxTimestampText>(values, n, out, ends, [&](char* p, int64_t v) {
        return writer.Write(p, v, format.unit, format.utc);
      });
      return Ok();
    }
    case Kind::kNull:
      return ForEach(values, n, out, ends, [&](int64_t) -> Status {
        out += "null";
        return Ok();
      });
    case Kind::kBoolean:
    case Kind::kInt32:
    case Kind::kUint32:
    case Kind::kFloat:
    case Kind::kDouble:
    case Kind::kFloat16:
    case Kind::kString:
    case Kind::kBinary:
    case Kind::kDate:
    case Kind::kInt96Timestamp:
    case Kind::kUuid:
      break;
  }
  return Fail(Mismatch(format, "INT64"));
}

template <>
Status RenderValues<Int96>(const ValueFormat& format, const Int96* values, size_t n,
                           std::string& out, size_t* ends) {
  if (format.kind == Kind::kNull) {
    return ForEach(values, n, out, ends, [&](const Int96&) -> Status {
      out += "null";
      return Ok();
    });
  }
  if (format.kind != Kind::kInt96Timestamp) return Fail(Mismatch(format, "INT96"));
  return ForEach(values, n, out, ends, [&](const Int96& v) -> Status {
    AppendInt96Timestamp(out, v);
    return Ok();
  });
}

template <>
Status RenderValues<float>(const ValueFormat& format, const float* values, size_t n,
                           std::string& out, size_t* ends) {
  if (format.kind != Kind::kFloat) return Fail(Mismatch(format, "FLOAT"));
  RenderFixed<32>(values, n, out, ends, [](char* p, float v) { return FloatText(p, v); });
  return Ok();
}

template <>
Status RenderValues<double>(const ValueFormat& format, const double* values, size_t n,
                            std::string& out, size_t* ends) {
  if (format.kind != Kind::kDouble) return Fail(Mismatch(format, "DOUBLE"));
  RenderFixed<32>(values, n, out, ends, [](char* p, double v) { return DoubleText(p, v); });
  return Ok();
}

template <>
Status RenderValues<std::string_view>(const ValueFormat& format, const std::string_view* values,
                                      size_t n, std::string& out, size_t* ends) {
  switch (format.kind) {
    case Kind::kString:
      return ForEach(values, n, out, ends, [&](std::string_view v) -> Status {
        AppendJsonText(out, v);
        return Ok();
      });
    case Kind::kBinary:
      return ForEach(values, n, out, ends, [&](std::string_view v) -> Status {
        AppendBase64Json(out, v);
        return Ok();
      });
    case Kind::kDecimal:
      return ForEach(values, n, out, ends,
                     [&](std::string_view v) { return AppendDecimalBytes(out, v, format.scale); });
    case Kind::kUuid:
      return ForEach(values, n, out, ends, [&](std::string_view v) -> Status {
        if (v.size() != 16) return InvalidArgument(fmt::format("a uuid of {} bytes", v.size()));
        AppendUuid(out, v);
        return Ok();
      });
    case Kind::kFloat16:
      return ForEach(values, n, out, ends, [&](std::string_view v) -> Status {
        if (v.size() != 2) return InvalidArgument(fmt::format("a float16 of {} bytes", v.size()));
        const uint16_t bits = static_cast<uint16_t>(static_cast<unsigned char>(v[0]) |
                                                    (static_cast<unsigned char>(v[1]) << 8));
        AppendFloat(out, HalfToFloat(bits));
        return Ok();
      });
    case Kind::kNull:
      return ForEach(values, n, out, ends, [&](std::string_view) -> Status {
        out += "null";
        return Ok();
      });
    case Kind::kBoolean:
    case Kind::kInt32:
    case Kind::kUint32:
    case Kind::kInt64:
    case Kind::kUint64:
    case Kind::kFloat:
    case Kind::kDouble:
    case Kind::kDate:
    case Kind::kTime:
    case Kind::kTimestamp:
    case Kind::kInt96Timestamp:
      break;
  }
  return Fail(Mismatch(format, "byte array"));
}

Result<std::string> RenderStatisticsValue(const ValueFormat& format, PhysicalType type,
                                          std::string_view bytes) {
  std::string out;
  size_t end = 0;
  auto fixed = [&](size_t size) -> Status {
    if (bytes.size() != size) {
      return InvalidArgument(fmt::format("a {} statistic of {} bytes (expected {})",
                                         PhysicalTypeName(type), bytes.size(), size));
    }
    return Ok();
  };
  switch (type) {
    case PhysicalType::kBoolean: {
      SLUICE_TRY(fixed(1));
      const bool v = bytes[0] != 0;
      SLUICE_TRY(RenderValues<bool>(format, &v, 1, out, &end));
      break;
    }
    case PhysicalType::kInt32: {
      SLUICE_TRY(fixed(4));
      int32_t v;
      std::memcpy(&v, bytes.data(), 4);
      SLUICE_TRY(RenderValues<int32_t>(format, &v, 1, out, &end));
      break;
    }
    case PhysicalType::kInt64: {
      SLUICE_TRY(fixed(8));
      int64_t v;
      std::memcpy(&v, bytes.data(), 8);
      SLUICE_TRY(RenderValues<int64_t>(format, &v, 1, out, &end));
      break;
    }
    case PhysicalType::kInt96: {
      SLUICE_TRY(fixed(12));
      Int96 v;
      std::memcpy(v.bytes.data(), bytes.data(), 12);
      SLUICE_TRY(RenderValues<Int96>(format, &v, 1, out, &end));
      break;
    }
    case PhysicalType::kFloat: {
      SLUICE_TRY(fixed(4));
      float v;
      std::memcpy(&v, bytes.data(), 4);
      SLUICE_TRY(RenderValues<float>(format, &v, 1, out, &end));
      break;
    }
    case PhysicalType::kDouble: {
      SLUICE_TRY(fixed(8));
      double v;
      std::memcpy(&v, bytes.data(), 8);
      SLUICE_TRY(RenderValues<double>(format, &v, 1, out, &end));
      break;
    }
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      SLUICE_TRY(RenderValues<std::string_view>(format, &bytes, 1, out, &end));
      break;
  }
  return out;
}
}  // namespace sluice::parquet
