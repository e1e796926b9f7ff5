#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <string>

#include "sluice/parquet/statistics_builder.h"
#include "sluice/parquet/value_text.h"
#include "sluice/table/file_stats_internal.h"

namespace sluice::table::internal {
namespace {

using parquet::ColumnDescriptor;
using parquet::PhysicalType;
using schema::TypeKind;

// How the statistics bytes of a leaf decode and compare.
enum class Domain : uint8_t {
  kNone,       // no min/max kept
  kSigned,     // INT32 / INT64 as signed integers
  kUnsigned,   // INT32 / INT64 as unsigned integers (UINT_n)
  kFloat,      // FLOAT, DOUBLE, FLOAT16, by value
  kBytes,      // strings: unsigned bytewise
  kBigEndian,  // decimals in byte arrays: big-endian two's complement
};

struct Bound {
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::string bytes;
};

Domain DomainOf(const ColumnDescriptor& leaf) {
  if (leaf.sort_order == parquet::SortOrder::kUnknown || !leaf.type) return Domain::kNone;
  const TypeKind kind = leaf.type->kind();
  switch (kind) {
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
    case TypeKind::kDecimal:
      if (leaf.physical == PhysicalType::kInt32 || leaf.physical == PhysicalType::kInt64) {
        return leaf.is_unsigned ? Domain::kUnsigned : Domain::kSigned;
      }
      if (kind == TypeKind::kDecimal && (leaf.physical == PhysicalType::kByteArray ||
                                         leaf.physical == PhysicalType::kFixedLenByteArray)) {
        return Domain::kBigEndian;
      }
      return Domain::kNone;  // INT96 timestamps: no order
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
      return Domain::kFloat;
    case TypeKind::kString:
      if (leaf.physical == PhysicalType::kByteArray ||
          leaf.physical == PhysicalType::kFixedLenByteArray) {
        return Domain::kBytes;
      }
      return Domain::kNone;
    case TypeKind::kNull:
    case TypeKind::kBoolean:
    case TypeKind::kBinary:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return Domain::kNone;
  }
  return Domain::kNone;
}

// The deprecated Statistics.min/max were compared as signed values whatever the type: right for
// signed integers and floats, wrong for unsigned integers and every byte array.
bool DeprecatedBoundsValid(const ColumnDescriptor& leaf, Domain domain) {
  if (domain == Domain::kSigned) return true;
  return domain == Domain::kFloat &&
         (leaf.physical == PhysicalType::kFloat || leaf.physical == PhysicalType::kDouble);
}

template <class T>
T LoadLittleEndian(std::string_view bytes) {
  T v;
  std::memcpy(&v, bytes.data(), sizeof(T));  // the build targets little-endian machines only
  return v;
}

Result<Bound> Decode(const ColumnDescriptor& leaf, Domain domain, std::string_view bytes) {
  Bound b;
  auto wrong_size = [&]() {
    return InvalidArgument(fmt::format("{} bytes of statistics do not hold a {} value",
                                       bytes.size(), parquet::PhysicalTypeName(leaf.physical)));
  };
  switch (domain) {
    case Domain::kSigned:
    case Domain::kUnsigned:
      if (leaf.physical == PhysicalType::kInt32) {
        if (bytes.size() != 4) return wrong_size();
        const auto v = LoadLittleEndian<uint32_t>(bytes);
        b.u = v;
        b.i = static_cast<int32_t>(v);
      } else {
        if (bytes.size() != 8) return wrong_size();
        b.u = LoadLittleEndian<uint64_t>(bytes);
        b.i = static_cast<int64_t>(b.u);
      }
      return b;
    case Domain::kFloat:
      if (leaf.physical == PhysicalType::kFloat) {
        if (bytes.size() != 4) return wrong_size();
        b.f = LoadLittleEndian<float>(bytes);
      } else if (leaf.physical == PhysicalType::kDouble) {
        if (bytes.size() != 8) return wrong_size();
        b.f = LoadLittleEndian<double>(bytes);
      } else {
        if (bytes.size() != 2) return wrong_size();
        b.f = parquet::HalfToFloat(LoadLittleEndian<uint16_t>(bytes));
      }
      return b;
    case Domain::kBigEndian:
      if (bytes.size() > 16) return wrong_size();  // past decimal(38)
      b.bytes = std::string(bytes);
      return b;
    case Domain::kBytes:
      b.bytes = std::string(bytes);
      return b;
    case Domain::kNone:
      break;
  }
  return b;
}

int Compare(Domain domain, const Bound& a, const Bound& b) {
  switch (domain) {
    case Domain::kSigned:
      return a.i < b.i ? -1 : a.i > b.i;
    case Domain::kUnsigned:
      return a.u < b.u ? -1 : a.u > b.u;
    case Domain::kFloat:
      return a.f < b.f ? -1 : a.f > b.f;
    case Domain::kBytes:
      return std::string_view(a.bytes).compare(b.bytes);  // memcmp: unsigned bytes
    case Domain::kBigEndian:
      return parquet::CompareBigEndianSigned(a.bytes, b.bytes);
    case Domain::kNone:
      break;
  }
  return 0;
}

// A strict UTF-8 decoder: the code point at s[i] and its length, or 0 for an invalid sequence
// (overlong forms, surrogates, past U+10FFFF, truncated).
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* cp) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t need;
  uint32_t v;
  uint32_t min;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1, v = c & 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2, v = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3, v = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + need >= s.size()) return 0;
  for (size_t k = 1; k <= need; ++k) {
    const unsigned char t = byte(i + k);
    if ((t & 0xC0) != 0x80) return 0;
    v = (v << 6) | (t & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return need + 1;
}

bool ValidUtf8(std::string_view s) {
  uint32_t cp;
  for (size_t i = 0; i < s.size();) {
    const size_t n = DecodeUtf8(s, i, &cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

size_t Utf16Units(uint32_t cp) { return cp >= 0x10000 ? 2 : 1; }

// Days from 0001-01-01 to 9999-12-31: the dates Spark's "yyyy-MM-dd" writes as it reads them.
constexpr int64_t kFirstDay = -719162;  // 0001-01-01
constexpr int64_t kLastDay = 2932896;   // 9999-12-31

void AppendCivilDate(std::string& out, int64_t days) {
  const parquet::CivilDate d = parquet::CivilFromDays(days);
  fmt::format_to(std::back_inserter(out), "{:04}-{:02}-{:02}", d.year, d.month, d.day);
}

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Spark writes stats timestamps with "yyyy-MM-dd'T'HH:mm:ss.SSSXXX" (UTC here, so "Z") and
// timestamp_ntz with "yyyy-MM-dd'T'HH:mm:ss.SSS": milliseconds, truncated toward the past.
std::optional<std::string> TimestampJson(int64_t value, schema::TimeUnit unit, bool utc) {
  int64_t millis = value;
  switch (unit) {
    case schema::TimeUnit::kMillis:
      break;
    case schema::TimeUnit::kMicros:
      millis = FloorDiv(value, 1000);
      break;
    case schema::TimeUnit::kNanos:
      millis = FloorDiv(value, 1000000);
      break;
  }
  constexpr int64_t kMillisPerDay = 86400000;
  const int64_t days = FloorDiv(millis, kMillisPerDay);
  if (days < kFirstDay || days > kLastDay) return std::nullopt;
  const int64_t ms = millis - days * kMillisPerDay;
  std::string out = "\"";
  AppendCivilDate(out, days);
  fmt::format_to(std::back_inserter(out), "T{:02}:{:02}:{:02}.{:03}{}\"", ms / 3600000,
                 ms / 60000 % 60, ms / 1000 % 60, ms % 1000, utc ? "Z" : "");
  return out;
}

std::optional<std::string> FloatJson(const ColumnDescriptor& leaf, double v) {
  if (!std::isfinite(v)) return std::nullopt;  // Spark's quoted "Infinity" is no JSON number
  if (v == 0) v = 0;                           // -0.0 and 0.0 are one value to Spark
  std::string out;
  if (leaf.type->kind() == TypeKind::kFloat32) {
    parquet::AppendFloat(out, static_cast<float>(v));
  } else {
    parquet::AppendDouble(out, v);
  }
  return out;
}

Result<std::optional<std::string>> RenderBound(const ColumnDescriptor& leaf, Domain domain,
                                               const Bound& b, bool is_max, int prefix) {
  const TypeKind kind = leaf.type->kind();
  std::string out;
  switch (kind) {
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
      return domain == Domain::kUnsigned ? fmt::format("{}", b.u) : fmt::format("{}", b.i);
    case TypeKind::kDecimal:
      if (domain == Domain::kBigEndian) {
        SLUICE_TRY(parquet::AppendDecimalBytes(out, b.bytes, leaf.type->scale()));
      } else {
        const parquet::Int128 unscaled =
            domain == Domain::kUnsigned ? parquet::Int128(b.u) : parquet::Int128(b.i);
        parquet::AppendDecimal(out, unscaled, leaf.type->scale());
      }
      return out;
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
      // Parquet's bounds leave NaN out, Spark's maximum is NaN when the file holds one, and a
      // footer cannot say whether it does: only the minimum is a bound either way.
      if (is_max) return std::nullopt;
      return FloatJson(leaf, b.f);
    case TypeKind::kString: {
      const std::optional<std::string> cut =
          is_max ? TruncateMaxString(b.bytes, prefix) : TruncateMinString(b.bytes, prefix);
      if (!cut) return std::nullopt;
      parquet::AppendJsonText(out, *cut);
      return out;
    }
    case TypeKind::kDate: {
      const int64_t days = domain == Domain::kUnsigned ? static_cast<int64_t>(b.u) : b.i;
      if (days < kFirstDay || days > kLastDay) return std::nullopt;
      out = "\"";
      AppendCivilDate(out, days);
      out += '"';
      return out;
    }
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      if (domain == Domain::kUnsigned && b.u > static_cast<uint64_t>(INT64_MAX)) {
        return std::nullopt;
      }
      return TimestampJson(b.i, leaf.type->unit(), kind == TypeKind::kTimestamp);
    case TypeKind::kNull:
    case TypeKind::kBoolean:
    case TypeKind::kBinary:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      break;
  }
  return std::nullopt;
}

// The (min, max) pair a chunk's statistics give, or nullptrs.
std::pair<const std::string*, const std::string*> ChunkBounds(const parquet::Statistics& st,
                                                              bool type_order,
                                                              bool deprecated_valid) {
  if (type_order && st.min_value && st.max_value) return {&*st.min_value, &*st.max_value};
  if (deprecated_valid && st.min && st.max) return {&*st.min, &*st.max};
  return {nullptr, nullptr};
}

}  // namespace

bool MinMaxEligible(const ColumnDescriptor& leaf) { return DomainOf(leaf) != Domain::kNone; }

Result<LeafStats> CombineLeafStats(const parquet::FileMetaData& footer, size_t column,
                                   const ColumnDescriptor& leaf, bool want_bounds,
                                   int string_prefix_length) {
  const Domain domain = want_bounds ? DomainOf(leaf) : Domain::kNone;
  bool bounds_known = domain != Domain::kNone;
  // A ColumnOrder other than TYPE_ORDER leaves min_value/max_value without a defined meaning.
  const bool type_order = column >= footer.column_orders.size() || footer.column_orders[column];
  const bool deprecated_valid = DeprecatedBoundsValid(leaf, domain);
  int64_t nulls = 0;
  bool nulls_known = true;
  std::optional<Bound> lo, hi;
  for (size_t g = 0; g < footer.row_groups.size(); ++g) {
    const parquet::ColumnChunk& chunk = footer.row_groups[g].columns[column];
    if (!chunk.meta_data || !chunk.meta_data->statistics) {
      nulls_known = false;
      bounds_known = false;
      continue;
    }
    const parquet::Statistics& st = *chunk.meta_data->statistics;
    const std::optional<int64_t>& chunk_nulls = st.null_count;
    if (!chunk_nulls) {
      nulls_known = false;
    } else if (*chunk_nulls < 0 || __builtin_add_overflow(nulls, *chunk_nulls, &nulls)) {
      return InvalidArgument(fmt::format("column {}, row group {}: null_count {} out of range",
                                         leaf.field_path.ToString(), g, *chunk_nulls));
    }
    if (!bounds_known) continue;
    const auto [min_bytes, max_bytes] = ChunkBounds(st, type_order, deprecated_valid);
    if (min_bytes == nullptr) {
      // Without bounds the chunk must hold nothing but nulls, or the column's bounds are lost
      // (a writer that kept none, a FLOAT column of NaN only).
      if (!chunk_nulls || chunk.meta_data->num_values > *chunk_nulls) bounds_known = false;
      continue;
    }
    auto decode = [&](const std::string& bytes) -> Result<Bound> {
      Result<Bound> b = Decode(leaf, domain, bytes);
      if (!b) {
        return InvalidArgument(fmt::format("column {}, row group {}: {}",
                                           leaf.field_path.ToString(), g, b.error().message()));
      }
      return b;
    };
    SLUICE_ASSIGN_OR_RETURN(Bound chunk_lo, decode(*min_bytes));
    SLUICE_ASSIGN_OR_RETURN(Bound chunk_hi, decode(*max_bytes));
    if (domain == Domain::kFloat && (std::isnan(chunk_lo.f) || std::isnan(chunk_hi.f))) {
      bounds_known = false;  // an old writer's NaN bound bounds nothing
      continue;
    }
    if (!lo || Compare(domain, chunk_lo, *lo) < 0) lo = std::move(chunk_lo);
    if (!hi || Compare(domain, chunk_hi, *hi) > 0) hi = std::move(chunk_hi);
  }
  LeafStats out;
  if (nulls_known) out.null_count = nulls;
  if (bounds_known && lo && hi) {
    SLUICE_ASSIGN_OR_RETURN(out.min_json,
                            RenderBound(leaf, domain, *lo, false, string_prefix_length));
    SLUICE_ASSIGN_OR_RETURN(out.max_json,
                            RenderBound(leaf, domain, *hi, true, string_prefix_length));
  }
  return out;
}

std::optional<std::string> TruncateMinString(std::string_view s, int prefix_length) {
  if (!ValidUtf8(s)) return std::nullopt;
  size_t i = 0;
  uint32_t cp;
  for (int chars = 0; chars < prefix_length && i < s.size(); ++chars) i += DecodeUtf8(s, i, &cp);
  return std::string(s.substr(0, i));
}

std::optional<std::string> TruncateMaxString(std::string_view s, int prefix_length) {
  if (!ValidUtf8(s)) return std::nullopt;
  uint32_t cp;
  size_t total_units = 0;
  for (size_t i = 0; i < s.size();) {
    i += DecodeUtf8(s, i, &cp);
    total_units += Utf16Units(cp);
  }
  if (prefix_length >= 0 && total_units <= static_cast<size_t>(prefix_length)) {
    return std::string(s);
  }
  if (prefix_length <= 0) return std::nullopt;
  const size_t prefix = static_cast<size_t>(prefix_length);
  // The shortest cut of at least `prefix` units that does not split a surrogate pair.
  size_t cut = 0;
  size_t units = 0;
  while (units < prefix) {
    const size_t n = DecodeUtf8(s, cut, &cp);
    cut += n;
    units += Utf16Units(cp);
  }
  static constexpr std::string_view kMaxChar = "\xF4\x8F\xBF\xBF";  // U+10FFFF
  while (units <= 2 * prefix) {
    if (cut >= s.size()) return std::string(s);
    const size_t n = DecodeUtf8(s, cut, &cp);
    if (cp == 0x10FFFF) {
      // Nothing is above it: keep it and look at the character after.
      cut += n;
      units += 2;
      continue;
    }
    std::string out(s.substr(0, cut));
    out.append(cp < 0x7F ? std::string_view("\x7F") : kMaxChar);
    return out;
  }
  return std::nullopt;
}

}  // namespace sluice::table::internal
