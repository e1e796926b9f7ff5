// The canonical JSON text of Parquet values: what `sluice cat` prints for each leaf, and how
// `--meta` shows statistics. One function per value shape, each appending to a std::string:
//
//   integers        exact digits (unsigned types as unsigned)
//   float, double   the shortest text that reads back as the same value; NaN and infinities as
//                   the strings "NaN", "Infinity", "-Infinity"
//   decimal(p, s)   exactly s digits after the point ("12.50", "-0.05", "7")
//   string          a JSON string, minimally escaped, invalid UTF-8 bytes as U+FFFD
//   binary          base64 (RFC 4648, padded) in a JSON string
//   date            "YYYY-MM-DD" (proleptic Gregorian)
//   timestamp       "YYYY-MM-DDTHH:MM:SS[.fff]Z" (fraction only when non-zero, trailing zeros
//                   trimmed); without "Z" for wall-clock timestamps
//   time            "HH:MM:SS[.fff]"
//   uuid            "8-4-4-4-12" lower-case hex
//
// ValueFormat says which of these a leaf column's values take, from its physical type and
// annotations; RenderValues turns a batch of decoded values into text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/parquet/encoding.h"
#include "sluice/parquet/metadata.h"

namespace sluice::parquet {

/// Signed and unsigned 128-bit integers (GCC and Clang), for decimals of up to 38 digits.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 Uint128;

/// Days since 1970-01-01 to a civil date (proleptic Gregorian).
struct CivilDate {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};
CivilDate CivilFromDays(int64_t days);

/// Append `s` as a JSON string: '"', '\\' and control characters escaped, valid UTF-8 kept as it
/// is, each maximal invalid subsequence (as the WHATWG decoder finds them) as U+FFFD.
void AppendJsonText(std::string& out, std::string_view s);
/// Append `bytes` base64-encoded (padded) in a JSON string.
void AppendBase64Json(std::string& out, std::string_view bytes);
/// Append the shortest round-trip text of `v`, or "NaN" / "Infinity" / "-Infinity" quoted.
void AppendDouble(std::string& out, double v);
void AppendFloat(std::string& out, float v);
/// IEEE half precision (its 16 bits), printed as the float it widens to.
float HalfToFloat(uint16_t bits);
/// Append `unscaled` * 10^-scale with exactly `scale` digits after the point.
void AppendDecimal(std::string& out, Int128 unscaled, int scale);
/// The same for a big-endian two's-complement integer of any length (empty is 0).
/// kInvalidArgument when it needs more than 128 bytes.
Status AppendDecimalBytes(std::string& out, std::string_view big_endian, int scale);
/// "YYYY-MM-DD" in quotes.
void AppendDate(std::string& out, int64_t days);
/// A timestamp of `value` units since the epoch, quoted; `utc` adds the "Z".
void AppendTimestamp(std::string& out, int64_t value, TimeUnit unit, bool utc);
/// An INT96 timestamp (Julian day 2440588 is 1970-01-01, nanoseconds of the day), with "Z".
void AppendInt96Timestamp(std::string& out, const Int96& v);
/// A time of day of `value` units since midnight, quoted. kInvalidArgument when negative.
Status AppendTime(std::string& out, int64_t value, TimeUnit unit);
/// 16 bytes as a quoted 8-4-4-4-12 uuid.
void AppendUuid(std::string& out, std::string_view bytes16);

/// What a leaf column's values print as.
struct ValueFormat {
  enum class Kind : uint8_t {
    kNull,  // the UNKNOWN logical type: every value is null
    kBoolean,
    kInt32,
    kUint32,
    kInt64,
    kUint64,
    kFloat,
    kDouble,
    kFloat16,
    kDecimal,
    kString,
    kBinary,
    kDate,
    kTime,
    kTimestamp,
    kInt96Timestamp,
    kUuid,
  };
  Kind kind = Kind::kBinary;
  int32_t scale = 0;                  // kDecimal
  TimeUnit unit = TimeUnit::kMicros;  // kTime, kTimestamp
  bool utc = false;                   // kTimestamp
  bool operator==(const ValueFormat&) const = default;
};

/// Choose how a leaf's values print from its element: the LogicalType when present, else the
/// ConvertedType, else the physical type (INT96 as a timestamp, unannotated byte arrays as
/// binary). kInvalidArgument for an annotation the physical type cannot carry (DATE on a
/// BYTE_ARRAY, UUID on anything but 16 fixed bytes, a negative or oversized decimal scale).
Result<ValueFormat> ResolveValueFormat(const SchemaElement& leaf);

/// Append `n` values of the physical type T (bool, int32_t, int64_t, Int96, float, double or
/// std::string_view) as `format` prints them, recording where each ends: value i is
/// out[ends[i-1] (or the old size), ends[i]). The caller has checked that T matches the format
/// (ResolveValueFormat does). kInvalidArgument for a value the format cannot print (a negative
/// time, a decimal longer than 128 bytes, a uuid or float16 of the wrong size).
template <class T>
Status RenderValues(const ValueFormat& format, const T* values, size_t n, std::string& out,
                    size_t* ends);

/// Render one PLAIN-encoded value as statistics hold it (min_value/max_value: byte arrays
/// without their length prefix). kInvalidArgument when the bytes do not fit the type.
Result<std::string> RenderStatisticsValue(const ValueFormat& format, PhysicalType type,
                                          std::string_view bytes);

}  // namespace sluice::parquet
