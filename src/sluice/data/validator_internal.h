// What the validator's files share: the compiled plan's node, and the checks of single values
// (text that must parse as a date, a decimal, a UUID...) that the JSON walk and the CSV row both
// use.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/data/lexical_internal.h"
#include "sluice/data/name_index_internal.h"
#include "sluice/data/validator.h"
#include "sluice/schema/type.h"

namespace sluice::data {

struct alignas(64) ValidationPlan::Node {
  // What the scanner reads for every key and value comes first, on one cache line.
  /// For raw_key names of at most 15 bytes: the name and its closing quote, zero-filled, and the
  /// mask of the bytes that count (compared 16 bytes at a time).
  std::array<char, 16> key16{};
  uint32_t key16_mask = 0;
  uint32_t first_child = 0;
  uint32_t child_count = 0;
  schema::TypeKind kind = schema::TypeKind::kNull;
  /// Whether this place may hold null (the field's nullable, containsNull, valueContainsNull).
  bool nullable = true;
  /// The name can be matched against a key's raw bytes (no quote, backslash or control byte).
  bool raw_key = true;
  int precision = 0;
  int scale = 0;
  int max_length = -1;  // char/varchar
  /// Timestamps: the unit the value is stored in (a schema::TimeUnit).
  uint8_t unit = 0;
  /// A typed source's place whose type this one does not read without loss
  /// (ValidationPlan::CompileForSource): kind is kNull, so every other value mismatches, and
  /// this says why.
  std::string refused;
  /// Root only: the position of the rescued column among the children, or -1.
  int rescued_child = -1;
  std::string name;      // struct children only
  std::string json_key;  // "name": as JSON, ready to append
  std::string lower;     // ASCII-lowercased name
  std::string path;      // the schema path, for reports
  /// Wide structs: exact name -> child position, and ASCII-lowercased name -> the first child
  /// with that lowercased name (case variants are found without a scan of the children).
  internal::StringMap<uint32_t> by_name;
  internal::StringMap<uint32_t> by_lower;
};

namespace internal {

using ValidatorNode = ValidationPlan::Node;

/// The strings Spark's JSON reader takes for a special float value ("NaN", "Infinity", ...).
inline bool IsSpecialFloatString(std::string_view t) {
  return t == "NaN" || t == "Infinity" || t == "+Infinity" || t == "-Infinity" || t == "INF" ||
         t == "+INF" || t == "-INF";
}

/// Integer range of an integer kind (INT64's for the other kinds).
inline void IntRange(schema::TypeKind kind, int64_t* lo, int64_t* hi) {
  switch (kind) {
    case schema::TypeKind::kInt8:
      *lo = INT8_MIN;
      *hi = INT8_MAX;
      return;
    case schema::TypeKind::kInt16:
      *lo = INT16_MIN;
      *hi = INT16_MAX;
      return;
    case schema::TypeKind::kInt32:
      *lo = INT32_MIN;
      *hi = INT32_MAX;
      return;
    case schema::TypeKind::kNull:
    case schema::TypeKind::kBoolean:
    case schema::TypeKind::kInt64:
    case schema::TypeKind::kFloat32:
    case schema::TypeKind::kFloat64:
    case schema::TypeKind::kDecimal:
    case schema::TypeKind::kString:
    case schema::TypeKind::kBinary:
    case schema::TypeKind::kDate:
    case schema::TypeKind::kTimestamp:
    case schema::TypeKind::kTimestampNtz:
    case schema::TypeKind::kTime:
    case schema::TypeKind::kUuid:
    case schema::TypeKind::kStruct:
    case schema::TypeKind::kArray:
    case schema::TypeKind::kMap:
      break;
  }
  *lo = INT64_MIN;
  *hi = INT64_MAX;
}

/// UTF-8 code points in `s`.
inline size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

enum class DecimalResult : uint8_t { kOk, kNotANumber, kPrecision };

/// java.math.BigDecimal(text).setScale(scale, HALF_UP), checked against precision; the value is
/// appended to `out` as a JSON number with exactly `scale` fraction digits.
DecimalResult NormalizeDecimal(std::string_view text, int precision, int scale, std::string& out);
/// Standard base64 with padding optional (as Spark's binary from a JSON string).
bool IsBase64(std::string_view s);
/// 8-4-4-4-12 hexadecimal digits.
bool IsUuid(std::string_view s);
/// [h]h:mm[:ss[.fraction]].
bool IsTimeOfDay(std::string_view s);
/// Text (a JSON string's content or a CSV value) parses as the string-shaped type of `n`.
bool TextFits(const ValidatorNode& n, std::string_view s);
/// TextFits for a date, timestamp or timestamp_ntz place, with the fields read into `f`.
bool TemporalFits(const ValidatorNode& n, std::string_view s, DateTimeFields* f);
/// A map key (always a JSON string) fits the key type.
bool KeyFits(const ValidatorNode& key, std::string_view s);
/// Text of a CSV value converted for a column of kind `n`, appended to `out` as JSON; false when
/// it does not fit (with the kind of violation).
bool CsvValue(const ValidatorNode& n, std::string_view v, std::string& out, ViolationKind* kind);

}  // namespace internal
}  // namespace sluice::data
