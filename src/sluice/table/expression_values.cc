// Runtime values: reading a row's JSON as typed values, Spark's casts with ANSI off, ordering,
// and types (coercion rules). Decimal arithmetic is in expression_decimal.cc.
//
// The text forms (lenient dates and timestamps, BigDecimal text, Java's double syntax) are the
// ones the validator and the Parquet sink read, so their parsers are shared with the data
// module rather than written twice.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "sluice/base/strings.h"
#include "sluice/data/lexical_internal.h"
#include "sluice/data/parquet_values_internal.h"
#include "sluice/table/expression_internal.h"

namespace sluice::table::internal {

using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

int64_t WrapInteger(uint64_t v, TypeKind k) {
  if (k == TypeKind::kInt8) return static_cast<int8_t>(v);
  if (k == TypeKind::kInt16) return static_cast<int16_t>(v);
  if (k == TypeKind::kInt32) return static_cast<int32_t>(v);
  return static_cast<int64_t>(v);
}

// ---- types ----------------------------------------------------------------------------------

bool IsIntegral(const Type& t) { return t.is_integer(); }
bool IsFloating(const Type& t) { return t.is_floating(); }
bool IsNumeric(const Type& t) {
  return t.is_integer() || t.is_floating() || t.kind() == TypeKind::kDecimal;
}
bool IsStringLike(const Type& t) { return t.kind() == TypeKind::kString; }

TypePtr NormalizeType(const TypePtr& type) {
  const TypeKind k = type->kind();
  if (k == TypeKind::kString) {
    return type->string_length() == schema::StringLength::kUnbounded ? type : Type::String();
  }
  if (k == TypeKind::kUuid) return Type::String();
  if (k == TypeKind::kTimestamp) return Type::Timestamp();
  if (k == TypeKind::kTimestampNtz) return Type::TimestampNtz();
  if (k == TypeKind::kTime) return nullptr;
  return type;
}

TypePtr DecimalForIntegral(const Type& t) {
  const TypeKind k = t.kind();
  if (k == TypeKind::kInt8) return *Type::Decimal(3, 0);
  if (k == TypeKind::kInt16) return *Type::Decimal(5, 0);
  if (k == TypeKind::kInt32) return *Type::Decimal(10, 0);
  return *Type::Decimal(20, 0);
}

TypePtr BoundedDecimal(int precision, int scale) {
  return *Type::Decimal(std::min(precision, 38), std::min(scale, 38));
}

TypePtr AdjustedDecimal(int precision, int scale) {
  if (precision <= 38) return *Type::Decimal(precision, scale);
  const int int_digits = precision - scale;
  const int min_scale = std::min(scale, 6);
  const int adjusted = std::max(38 - int_digits, min_scale);
  return *Type::Decimal(38, adjusted);
}

namespace {

// Spark's numericPrecedence: byte < short < int < long < float < double.
int NumericRank(TypeKind k) {
  if (k == TypeKind::kInt8) return 1;
  if (k == TypeKind::kInt16) return 2;
  if (k == TypeKind::kInt32) return 3;
  if (k == TypeKind::kInt64) return 4;
  if (k == TypeKind::kFloat32) return 5;
  if (k == TypeKind::kFloat64) return 6;
  return 0;
}

bool IsDatetime(TypeKind k) {
  return k == TypeKind::kDate || k == TypeKind::kTimestamp || k == TypeKind::kTimestampNtz;
}

bool IsAtomic(const Type& t) { return !t.is_nested() && t.kind() != TypeKind::kNull; }

TypePtr WiderDecimal(const Type& a, const Type& b) {
  const int scale = std::max(a.scale(), b.scale());
  const int range = std::max(a.precision() - a.scale(), b.precision() - b.scale());
  return BoundedDecimal(range + scale, scale);
}

}  // namespace

TypePtr WiderType(const TypePtr& a, const TypePtr& b, bool string_promotion) {
  if (a->Equals(*b, false)) return a;
  if (a->kind() == TypeKind::kNull) return b;
  if (b->kind() == TypeKind::kNull) return a;
  const int ra = NumericRank(a->kind());
  const int rb = NumericRank(b->kind());
  if (ra > 0 && rb > 0) return ra >= rb ? a : b;
  if (IsDatetime(a->kind()) && IsDatetime(b->kind())) {
    // Date < timestamp_ntz < timestamp (findWiderDateTimeType).
    auto rank = [](TypeKind k) {
      return k == TypeKind::kDate ? 0 : k == TypeKind::kTimestampNtz ? 1 : 2;
    };
    return rank(a->kind()) >= rank(b->kind()) ? a : b;
  }
  const bool da = a->kind() == TypeKind::kDecimal;
  const bool db = b->kind() == TypeKind::kDecimal;
  if (da && db) return WiderDecimal(*a, *b);
  if (da || db) {
    const Type& other = da ? *b : *a;
    const Type& dec = da ? *a : *b;
    if (other.is_integer()) return WiderDecimal(*DecimalForIntegral(other), dec);
    if (other.is_floating()) return Type::Float64();
  }
  if (string_promotion) {
    const bool sa = a->kind() == TypeKind::kString;
    const bool sb = b->kind() == TypeKind::kString;
    const Type& other = sa ? *b : *a;
    if ((sa || sb) && IsAtomic(other) && other.kind() != TypeKind::kBinary &&
        other.kind() != TypeKind::kBoolean) {
      return Type::String();
    }
  }
  return nullptr;
}

bool CanCast(const Type& from, const Type& to) {
  if (from.Equals(to, false) || from.kind() == TypeKind::kNull) return true;
  if (from.is_nested() || to.is_nested()) return false;
  const TypeKind f = from.kind();
  const TypeKind t = to.kind();
  if (t == TypeKind::kString) return true;
  if (f == TypeKind::kString) return true;
  const bool fn = IsNumeric(from) || f == TypeKind::kBoolean;
  const bool tn = IsNumeric(to) || t == TypeKind::kBoolean;
  if (fn && tn) return true;
  if (IsNumeric(from) && (t == TypeKind::kTimestamp)) return true;
  if ((f == TypeKind::kTimestamp) && IsNumeric(to)) return true;
  if (IsDatetime(f) && IsDatetime(t)) return true;
  return false;
}

// ---- dates --------------------------------------------------------------------------------

int64_t DaysFromCivil(int64_t year, int month, int day) {
  return data::internal::DaysFromCivil(year, month, day);
}

void CivilFromDays(int64_t days, int64_t* year, int* month, int* day) {
  // The inverse of DaysFromCivil: 400-year eras of 146097 days, March-based years.
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *year = yoe + era * 400 + (*month <= 2 ? 1 : 0);
}

bool ParseDate(std::string_view text, int32_t* days) {
  return data::internal::DateFromText(TrimWhitespace(text), days);
}

namespace {

// Whether java.time's ZoneId.of(zone, SHORT_IDS), as Spark's getZoneId calls it, could take the
// zone: a fixed offset, a region id (`Area/City`, checked by shape: there is no time-zone
// database here) or one of SHORT_IDS' names.
bool KnownZone(std::string_view zone) {
  int32_t offset = 0;
  if (data::internal::FixedZoneOffset(zone, &offset)) return true;
  static constexpr std::string_view kShortIds[] = {"ACT", "AET", "AGT", "ART", "AST", "BET", "BST",
                                                   "CAT", "CNT", "CST", "CTT", "EAT", "ECT", "EST",
                                                   "HST", "IET", "IST", "JST", "MIT", "MST", "NET",
                                                   "NST", "PLT", "PNT", "PRT", "PST", "SST", "VST"};
  for (std::string_view id : kShortIds) {
    if (zone == id) return true;
  }
  if (zone.find('/') == std::string_view::npos || zone.size() < 2 ||
      !std::isalpha(static_cast<unsigned char>(zone[0]))) {
    return false;
  }
  return zone.find_first_not_of(
             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789~/._+-") ==
         std::string_view::npos;
}

}  // namespace

bool ParseTimestamp(std::string_view text, bool ntz, int64_t* micros) {
  const char* why = nullptr;
  data::internal::DateTimeFields fields;
  if (!data::internal::ParseLenientTimestamp(TrimWhitespace(text), &fields)) return false;
  if (ntz) {
    // Spark's casts and TIMESTAMP_NTZ literals (stringToTimestampWithoutTimeZone with
    // allowTimeZone) read the wall clock and ignore a zone, once ZoneId takes it; a time alone
    // has no date there.
    if (fields.time_only || (fields.has_zone && !KnownZone(fields.zone))) return false;
    fields.has_zone = false;
    fields.zone = {};
  }
  return data::internal::TimestampFromFields(fields, schema::TimeUnit::kMicros, ntz, micros, &why);
}

namespace {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::string DateText(int64_t days) {
  int64_t y = 0;
  int m = 0;
  int d = 0;
  CivilFromDays(days, &y, &m, &d);
  return fmt::format("{:04}-{:02}-{:02}", y, m, d);
}

std::string TimestampText(int64_t micros) {
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  const int64_t rest = micros - days * kMicrosPerDay;
  const int64_t secs = rest / kMicrosPerSecond;
  const int64_t frac = rest % kMicrosPerSecond;
  std::string out =
      fmt::format("{} {:02}:{:02}:{:02}", DateText(days), secs / 3600, secs / 60 % 60, secs % 60);
  if (frac != 0) {
    std::string f = fmt::format("{:06}", frac);
    while (f.back() == '0') f.pop_back();
    out += "." + f;
  }
  return out;
}

// Java's Double.toString / Float.toString: the shortest digits that read back, plain between
// 1e-3 and 1e7, else computerized scientific notation ("1.0E10").
template <class T>
std::string JavaFloatText(T v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(end - buf));
  const bool negative = sci[0] == '-';
  if (negative) sci.remove_prefix(1);
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exponent = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+'), sci.data() + sci.size(), exponent);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = negative ? "-" : "";
  const T a = v < 0 ? -v : v;
  if (a >= T(1e-3) && a < T(1e7)) {
    if (exponent >= 0) {
      std::string int_part = digits.substr(0, std::min<size_t>(digits.size(), exponent + 1));
      while (static_cast<int>(int_part.size()) < exponent + 1) int_part += '0';
      std::string frac = digits.size() > static_cast<size_t>(exponent + 1)
                             ? digits.substr(static_cast<size_t>(exponent + 1))
                             : "0";
      out += int_part + "." + frac;
    } else {
      out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
  } else {
    out += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" +
           std::to_string(exponent);
  }
  return out;
}

int64_t WrapToWidth(int64_t v, TypeKind k) { return WrapInteger(static_cast<uint64_t>(v), k); }

// UTF8String.toLong / toInt for casts: trimmed, a sign, digits, an optional fraction of digits
// that is dropped; nullopt for anything else or out of range.
std::optional<int64_t> IntegerFromText(std::string_view s, TypeKind k) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  if (s.empty()) return std::nullopt;
  size_t i = 0;
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    ++i;
  }
  const size_t digits_start = i;
  UInt128 v = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
    if (v > (UInt128{1} << 64)) return std::nullopt;
  }
  if (i == digits_start) return std::nullopt;
  if (i < s.size()) {
    if (s[i] != '.') return std::nullopt;
    for (++i; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
    }
  }
  const Int128 signed_v = negative ? -static_cast<Int128>(v) : static_cast<Int128>(v);
  Int128 lo = INT64_MIN;
  Int128 hi = INT64_MAX;
  if (k == TypeKind::kInt32) {
    lo = INT32_MIN;
    hi = INT32_MAX;
  } else if (k == TypeKind::kInt16) {
    lo = INT16_MIN;
    hi = INT16_MAX;
  } else if (k == TypeKind::kInt8) {
    lo = INT8_MIN;
    hi = INT8_MAX;
  }
  if (signed_v < lo || signed_v > hi) return std::nullopt;
  return static_cast<int64_t>(signed_v);
}

std::optional<double> DoubleFromCastText(std::string_view s) {
  s = TrimWhitespace(s);
  double d = 0;
  if (data::internal::DoubleFromText(s, &d)) return d;
  const std::string lower = AsciiLower(s);
  if (lower == "inf" || lower == "+inf" || lower == "infinity" || lower == "+infinity") {
    return std::numeric_limits<double>::infinity();
  }
  if (lower == "-inf" || lower == "-infinity") return -std::numeric_limits<double>::infinity();
  if (lower == "nan") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

// Java's (int)/(long) conversion of a double: NaN is 0, out of range saturates.
int64_t SaturatingToLong(double d, TypeKind k) {
  if (std::isnan(d)) return 0;
  if (k == TypeKind::kInt64) {
    if (d >= 9.2233720368547758e18) return INT64_MAX;
    if (d <= -9.2233720368547758e18) return INT64_MIN;
    return static_cast<int64_t>(d);
  }
  int64_t v = 0;
  if (d >= 2147483647.0) {
    v = INT32_MAX;
  } else if (d <= -2147483648.0) {
    v = INT32_MIN;
  } else {
    v = static_cast<int64_t>(d);
  }
  return WrapToWidth(v, k);
}

double RoundToType(double d, TypeKind k) {
  return k == TypeKind::kFloat32 ? static_cast<double>(static_cast<float>(d)) : d;
}

// A numeric or boolean value as a double (for casts to floating types).
double AsDouble(const Value& v, const Type& from) {
  if (from.kind() == TypeKind::kBoolean) return v.b ? 1 : 0;
  if (from.is_integer()) return static_cast<double>(v.i);
  if (from.kind() == TypeKind::kDecimal) return DecimalToDouble(v.dec, from.scale());
  if (from.kind() == TypeKind::kTimestamp) return static_cast<double>(v.i) / kMicrosPerSecond;
  return v.d;
}

Value CastToDecimal(const Value& v, const Type& from, const Type& to) {
  Int128 out = 0;
  switch (from.kind()) {
    case TypeKind::kBoolean:
      return DecimalRescale(v.b ? 1 : 0, 0, to.scale(), to.precision(), &out) ? Value::Decimal(out)
                                                                              : Value::Null();
    case TypeKind::kDecimal:
      return DecimalRescale(v.dec, from.scale(), to.scale(), to.precision(), &out)
                 ? Value::Decimal(out)
                 : Value::Null();
    case TypeKind::kString:
      return DecimalFromText(TrimWhitespace(v.s), to.precision(), to.scale(), &out)
                 ? Value::Decimal(out)
                 : Value::Null();
    case TypeKind::kTimestamp:
      return DecimalRescale(v.i, 6, to.scale(), to.precision(), &out) ? Value::Decimal(out)
                                                                      : Value::Null();
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
      if (!std::isfinite(v.d)) return Value::Null();
      // Spark reads the double through its shortest text (Scala's BigDecimal(double)).
      return DecimalFromText(JavaFloatText(v.d), to.precision(), to.scale(), &out)
                 ? Value::Decimal(out)
                 : Value::Null();
    case TypeKind::kNull:
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
    case TypeKind::kBinary:
    case TypeKind::kDate:
    case TypeKind::kTimestampNtz:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      if (from.is_integer()) {
        return DecimalRescale(v.i, 0, to.scale(), to.precision(), &out) ? Value::Decimal(out)
                                                                        : Value::Null();
      }
      return Value::Null();
  }
  return Value::Null();
}

Value CastToIntegral(const Value& v, const Type& from, TypeKind to) {
  switch (from.kind()) {
    case TypeKind::kBoolean:
      return Value::Int(v.b ? 1 : 0);
    case TypeKind::kString: {
      auto i = IntegerFromText(v.s, to);
      return i ? Value::Int(*i) : Value::Null();
    }
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
      return Value::Int(SaturatingToLong(v.d, to));
    case TypeKind::kDecimal: {
      // BigDecimal.longValue: truncated toward zero, then the low 64 bits.
      const Int128 truncated = v.dec / static_cast<Int128>(Pow10(from.scale()));
      return Value::Int(WrapToWidth(static_cast<int64_t>(truncated), to));
    }
    case TypeKind::kTimestamp:
      return Value::Int(WrapToWidth(FloorDiv(v.i, kMicrosPerSecond), to));
    case TypeKind::kDate:
      return Value::Null();
    case TypeKind::kNull:
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
    case TypeKind::kBinary:
    case TypeKind::kTimestampNtz:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return Value::Int(WrapToWidth(v.i, to));
  }
  return Value::Null();
}

}  // namespace

std::string ValueToString(const Value& v, const Type& type) {
  switch (type.kind()) {
    case TypeKind::kBoolean:
      return v.b ? "true" : "false";
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
      return std::to_string(v.i);
    case TypeKind::kFloat32:
      return JavaFloatText(static_cast<float>(v.d));
    case TypeKind::kFloat64:
      return JavaFloatText(v.d);
    case TypeKind::kDecimal:
      return DecimalToString(v.dec, type.scale());
    case TypeKind::kDate:
      return DateText(v.i);
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      return TimestampText(v.i);
    case TypeKind::kString:
    case TypeKind::kBinary:
      return v.s;
    case TypeKind::kNull:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return v.json != nullptr ? "<" + std::string(TypeKindName(type.kind())) + ">" : "";
  }
  return "";
}

namespace {

Value CastToBoolean(const Value& v, const Type& from) {
  const TypeKind f = from.kind();
  if (f == TypeKind::kString) {
    // StringUtils.isTrueString / isFalseString.
    const std::string s = AsciiLower(TrimWhitespace(v.s));
    if (s == "t" || s == "true" || s == "y" || s == "yes" || s == "1") return Value::Bool(true);
    if (s == "f" || s == "false" || s == "n" || s == "no" || s == "0") return Value::Bool(false);
    return Value::Null();
  }
  if (f == TypeKind::kDecimal) return Value::Bool(v.dec != 0);
  if (from.is_floating()) return Value::Bool(v.d != 0);
  if (f == TypeKind::kDate) return Value::Null();
  return Value::Bool(v.i != 0);
}

Value CastToDate(const Value& v, const Type& from) {
  if (from.kind() == TypeKind::kString) {
    int32_t days = 0;
    return ParseDate(v.s, &days) ? Value::Int(days) : Value::Null();
  }
  if (from.kind() == TypeKind::kTimestamp || from.kind() == TypeKind::kTimestampNtz) {
    return Value::Int(FloorDiv(v.i, kMicrosPerDay));
  }
  return Value::Null();
}

Value CastToTimestamp(const Value& v, const Type& from, TypeKind to) {
  const TypeKind f = from.kind();
  int64_t micros = 0;
  if (f == TypeKind::kString) {
    return ParseTimestamp(v.s, to == TypeKind::kTimestampNtz, &micros) ? Value::Int(micros)
                                                                       : Value::Null();
  }
  if (f == TypeKind::kDate) {
    if (__builtin_mul_overflow(v.i, kMicrosPerDay, &micros)) return Value::Null();
    return Value::Int(micros);
  }
  if (f == TypeKind::kTimestamp || f == TypeKind::kTimestampNtz) return Value::Int(v.i);
  if (from.is_integer()) {
    // Seconds since the epoch, saturating as SECONDS.toMicros does.
    if (__builtin_mul_overflow(v.i, kMicrosPerSecond, &micros)) {
      return Value::Int(v.i > 0 ? INT64_MAX : INT64_MIN);
    }
    return Value::Int(micros);
  }
  if (IsNumeric(from)) {
    const double d = AsDouble(v, from);
    if (!std::isfinite(d)) return Value::Null();
    return Value::Int(SaturatingToLong(d * kMicrosPerSecond, TypeKind::kInt64));
  }
  return Value::Null();
}

}  // namespace

Value CastValue(const Value& v, const Type& from, const Type& to) {
  if (v.null) return Value::Null();
  if (from.Equals(to, false)) return v;
  const TypeKind t = to.kind();
  switch (t) {
    case TypeKind::kString:
      return Value::String(ValueToString(v, from));
    case TypeKind::kBinary:
      return Value::String(v.s);
    case TypeKind::kBoolean:
      return CastToBoolean(v, from);
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
      return CastToIntegral(v, from, t);
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
      if (from.kind() == TypeKind::kString) {
        auto d = DoubleFromCastText(v.s);
        return d ? Value::Double(RoundToType(*d, t)) : Value::Null();
      }
      if (from.kind() == TypeKind::kDate) return Value::Null();
      return Value::Double(RoundToType(AsDouble(v, from), t));
    case TypeKind::kDecimal:
      return CastToDecimal(v, from, to);
    case TypeKind::kDate:
      return CastToDate(v, from);
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      return CastToTimestamp(v, from, t);
    case TypeKind::kNull:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return Value::Null();
  }
  return Value::Null();
}

int CompareValues(const Value& a, const Value& b, const Type& type) {
  auto three_way = [](auto x, auto y) { return x < y ? -1 : x > y ? 1 : 0; };
  switch (type.kind()) {
    case TypeKind::kBoolean:
      return three_way(a.b, b.b);
    case TypeKind::kFloat32:
    case TypeKind::kFloat64: {
      // Spark's SQLOrderingUtil: NaN equals NaN and is above every other value; -0.0 = 0.0.
      const bool an = std::isnan(a.d);
      const bool bn = std::isnan(b.d);
      if (an || bn) return an && bn ? 0 : an ? 1 : -1;
      return three_way(a.d, b.d);
    }
    case TypeKind::kDecimal:
      return three_way(a.dec, b.dec);
    case TypeKind::kString:
    case TypeKind::kBinary: {
      const int c = a.s.compare(b.s);  // std::string compares bytes as unsigned char
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    case TypeKind::kNull:
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return three_way(a.i, b.i);
  }
  return 0;
}

// ---- reading rows -------------------------------------------------------------------------

bool ValueFromJson(const JsonValue& json, const Type& type, Value* out, std::string* why) {
  *out = Value::Null();
  if (json.is_null()) return true;
  auto fail = [&](std::string_view expected) {
    *why = fmt::format("expected {}, found {}", expected,
                       json.is_string()   ? "\"" + EscapeForMessage(json.as_string(), 60) + "\""
                       : json.is_number() ? json.number_text()
                                          : std::string(JsonValue::KindName(json.kind())));
    return false;
  };
  switch (type.kind()) {
    case TypeKind::kBoolean:
      if (!json.is_bool()) return fail("a boolean");
      *out = Value::Bool(json.as_bool());
      return true;
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64: {
      const auto i = json.is_number() ? json.as_int64() : std::nullopt;
      if (!i || WrapToWidth(*i, type.kind()) != *i) {
        return fail(fmt::format("an integer of type {}", TypeSql(type)));
      }
      *out = Value::Int(*i);
      return true;
    }
    case TypeKind::kFloat32:
    case TypeKind::kFloat64: {
      double d = 0;
      if (json.is_number()) {
        d = json.as_double();
      } else if (!json.is_string() || !data::internal::DoubleFromText(json.as_string(), &d)) {
        return fail("a number");
      }
      *out = Value::Double(RoundToType(d, type.kind()));
      return true;
    }
    case TypeKind::kDecimal: {
      Int128 v = 0;
      const bool text_ok = json.is_number() || json.is_string();
      if (!text_ok || !DecimalFromText(json.is_number() ? json.number_text() : json.as_string(),
                                       type.precision(), type.scale(), &v)) {
        return fail(fmt::format("a {}", TypeSql(type)));
      }
      *out = Value::Decimal(v);
      return true;
    }
    case TypeKind::kString:
    case TypeKind::kUuid:
      if (!json.is_string()) return fail("a string");
      *out = Value::String(json.as_string());
      return true;
    case TypeKind::kBinary: {
      std::string bytes;
      if (!json.is_string() || !data::internal::Base64FromText(json.as_string(), bytes)) {
        return fail("base64 text");
      }
      *out = Value::String(std::move(bytes));
      return true;
    }
    case TypeKind::kDate: {
      int32_t days = 0;
      if (!json.is_string() || !ParseDate(json.as_string(), &days)) return fail("a date");
      *out = Value::Int(days);
      return true;
    }
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: {
      int64_t micros = 0;
      const bool ntz = type.kind() == TypeKind::kTimestampNtz;
      if (json.is_number()) {
        const auto seconds = json.as_int64();
        if (!seconds || __builtin_mul_overflow(*seconds, kMicrosPerSecond, &micros)) {
          return fail("a timestamp");
        }
      } else if (const char* why = nullptr;
                 !json.is_string() || !data::internal::TimestampFromText(
                                          TrimWhitespace(json.as_string()),
                                          schema::TimeUnit::kMicros, ntz, &micros, &why)) {
        // A row's value is in the validator's form: a timestamp_ntz never carries a zone.
        return fail("a timestamp");
      }
      *out = Value::Int(micros);
      return true;
    }
    case TypeKind::kStruct:
    case TypeKind::kMap:
      if (!json.is_object()) return fail("an object");
      out->null = false;
      out->json = &json;
      return true;
    case TypeKind::kArray:
      if (!json.is_array()) return fail("an array");
      out->null = false;
      out->json = &json;
      return true;
    case TypeKind::kNull:
      return true;
    case TypeKind::kTime:
      return fail("a value of a type expressions can use");
  }
  return fail("a value");
}

// ---- strings ------------------------------------------------------------------------------

size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

size_t Utf8Offset(std::string_view s, size_t index) {
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (seen == index) return i;
      ++seen;
    }
  }
  return s.size();
}

}  // namespace sluice::table::internal
