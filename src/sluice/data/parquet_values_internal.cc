#include "sluice/data/parquet_values_internal.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "sluice/base/powers_of_ten.h"
#include "sluice/base/strings.h"
#include "sluice/data/lexical_internal.h"

namespace sluice::data::internal {

int64_t DaysFromCivil(int64_t year, int month, int day) {
  // Days since 0000-03-01 counted in 400-year eras (146097 days each), March-based years so
  // that the leap day is the last day of a year.
  const int64_t y = year - (month <= 2 ? 1 : 0);
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t year_of_era = y - era * 400;
  const int64_t m = month > 2 ? month - 3 : month + 9;
  const int64_t day_of_year = (153 * m + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;  // 719468: days from 0000-03-01 to 1970-01-01
}

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// `+h`, `+hh`, `+hh:mm`, `+hhmm`, `+hh:mm:ss` (or `-`), the whole of `s`.
bool ParseOffset(std::string_view s, int32_t* seconds) {
  if (s.empty() || (s[0] != '+' && s[0] != '-')) return false;
  const int sign = s[0] == '-' ? -1 : 1;
  size_t i = 1;
  auto number = [&](size_t min, size_t max, int* v) {
    size_t start = i;
    *v = 0;
    while (i < s.size() && i - start < max && IsDigit(s[i])) *v = *v * 10 + (s[i++] - '0');
    return i - start >= min;
  };
  int h = 0;
  int m = 0;
  int sec = 0;
  if (!number(1, 2, &h) || h > 18) return false;
  if (i < s.size() && s[i] == ':') {
    ++i;
    if (!number(2, 2, &m) || m > 59) return false;
    if (i < s.size() && s[i] == ':') {
      ++i;
      if (!number(2, 2, &sec) || sec > 59) return false;
    }
  } else if (i < s.size()) {
    if (!number(2, 2, &m) || m > 59) return false;
  }
  if (i != s.size()) return false;
  *seconds = sign * (h * 3600 + m * 60 + sec);
  return true;
}

}  // namespace

bool FixedZoneOffset(std::string_view zone, int32_t* seconds) {
  if (zone == "Z") {
    *seconds = 0;
    return true;
  }
  if (!zone.empty() && (zone[0] == '+' || zone[0] == '-')) return ParseOffset(zone, seconds);
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (zone.size() >= prefix.size() && EqualsIgnoreCase(zone.substr(0, prefix.size()), prefix)) {
      const std::string_view rest = zone.substr(prefix.size());
      if (rest.empty()) {
        *seconds = 0;
        return true;
      }
      return ParseOffset(rest, seconds);
    }
  }
  for (std::string_view utc :
       {"Etc/UTC", "Etc/UCT", "Etc/GMT", "Etc/Universal", "Etc/Zulu", "Etc/Greenwich", "UCT",
        "Universal", "Zulu", "Greenwich", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", "GMT0"}) {
    if (zone == utc) {
      *seconds = 0;
      return true;
    }
  }
  // Etc/GMT+h is h hours west of Greenwich (the POSIX sign), 0..14.
  if (zone.starts_with("Etc/GMT") && zone.size() > 8 && (zone[7] == '+' || zone[7] == '-')) {
    int h = 0;
    auto [p, ec] = std::from_chars(zone.data() + 8, zone.data() + zone.size(), h);
    if (ec != std::errc() || p != zone.data() + zone.size() || h > 14) return false;
    *seconds = (zone[7] == '+' ? -1 : 1) * h * 3600;
    return true;
  }
  return false;
}

namespace {

// Units of `unit` in one second, and nanoseconds in one unit.
int64_t UnitsPerSecond(schema::TimeUnit unit) {
  switch (unit) {
    case schema::TimeUnit::kMillis:
      return 1000;
    case schema::TimeUnit::kMicros:
      return 1000000;
    case schema::TimeUnit::kNanos:
      return 1000000000;
  }
  return 1000000;
}

bool Scale(int64_t seconds, int32_t nanos, schema::TimeUnit unit, int64_t* out) {
  const int64_t per_second = UnitsPerSecond(unit);
  const int64_t sub = nanos / (1000000000 / per_second);  // in [0, per_second)
  int64_t v = 0;
  if (seconds < 0 && sub > 0) {
    // Before 1970 the fraction brings the value back up: the second after, less the rest, so
    // that the long's first values (DuckDB's -infinity, 1677-09-21T00:12:43.145224192 in
    // nanoseconds) do not overflow on the way.
    if (__builtin_mul_overflow(seconds + 1, per_second, &v)) return false;
    return !__builtin_sub_overflow(v, per_second - sub, out);
  }
  if (__builtin_mul_overflow(seconds, per_second, &v)) return false;
  return !__builtin_add_overflow(v, sub, out);
}

}  // namespace

bool TimestampFromSeconds(int64_t seconds, schema::TimeUnit unit, int64_t* out) {
  return Scale(seconds, 0, unit, out);
}

bool TimestampFromText(std::string_view text, schema::TimeUnit unit, bool local, int64_t* out,
                       const char** why) {
  DateTimeFields f;
  if (!ParseLenientTimestamp(text, &f)) {
    *why = "not a timestamp Spark's parser reads";
    return false;
  }
  return TimestampFromFields(f, unit, local, out, why);
}

bool TimestampFromFields(const DateTimeFields& f, schema::TimeUnit unit, bool local, int64_t* out,
                         const char** why) {
  int32_t offset = 0;
  if (f.has_zone) {
    if (local) {
      *why = "a timestamp_ntz with a time zone";
      return false;
    }
    if (!FixedZoneOffset(f.zone, &offset)) {
      *why = "time zone region ids are not supported; write an offset";
      return false;
    }
  }
  int64_t days = 0;
  if (f.time_only) {
    // Spark completes a time alone with the current date in the value's zone.
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    const int64_t local_now = now + offset;
    days = local_now >= 0 ? local_now / 86400 : (local_now - 86399) / 86400;
  } else {
    days = DaysFromCivil(f.year, f.month, f.day);
  }
  const int64_t seconds =
      days * 86400 + int64_t{f.hour} * 3600 + int64_t{f.minute} * 60 + f.second - offset;
  if (!Scale(seconds, f.nanos, unit, out)) {
    *why = "out of range for the timestamp's unit";
    return false;
  }
  return true;
}

bool DateFromText(std::string_view text, int32_t* days) {
  DateTimeFields f;
  if (!ParseLenientDate(text, &f)) return false;
  return DateFromFields(f, days);
}

bool DateFromFields(const DateTimeFields& f, int32_t* days) {
  const int64_t d = DaysFromCivil(f.year, f.month, f.day);
  if (d < std::numeric_limits<int32_t>::min() || d > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  *days = static_cast<int32_t>(d);
  return true;
}

bool TimeFromText(std::string_view s, schema::TimeUnit unit, int64_t* out) {
  size_t i = 0;
  auto number = [&](size_t min, size_t max, int64_t* v) {
    const size_t start = i;
    *v = 0;
    while (i < s.size() && i - start < max && IsDigit(s[i])) *v = *v * 10 + (s[i++] - '0');
    return i - start >= min;
  };
  int64_t h = 0;
  int64_t m = 0;
  int64_t sec = 0;
  int64_t nanos = 0;
  if (!number(1, 2, &h) || h > 23 || i >= s.size() || s[i++] != ':') return false;
  if (!number(2, 2, &m) || m > 59) return false;
  if (i < s.size() && s[i] == ':') {
    ++i;
    if (!number(2, 2, &sec) || sec > 59) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      const size_t start = i;
      if (!number(1, 9, &nanos)) return false;
      for (size_t k = i - start; k < 9; ++k) nanos *= 10;
    }
  }
  if (i != s.size()) return false;
  return Scale(h * 3600 + m * 60 + sec, static_cast<int32_t>(nanos), unit, out);
}

bool UuidFromText(std::string_view s, char out[16]) {
  if (s.size() != 36) return false;
  size_t n = 0;
  int high = -1;
  for (size_t i = 0; i < 36; ++i) {
    const char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
      continue;
    }
    int v = 0;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v = c - 'A' + 10;
    } else {
      return false;
    }
    if (high < 0) {
      high = v;
    } else {
      out[n++] = static_cast<char>(high << 4 | v);
      high = -1;
    }
  }
  return n == 16;
}

bool Base64FromText(std::string_view s, std::string& out) {
  out.clear();
  size_t n = s.size();
  while (n > 0 && s[n - 1] == '=') --n;
  const size_t padding = s.size() - n;
  if (padding > 2 || n % 4 == 1) return false;
  if (padding > 0 && s.size() % 4 != 0) return false;
  out.reserve(n * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[i];
    uint32_t v = 0;
    if (c >= 'A' && c <= 'Z') {
      v = static_cast<uint32_t>(c - 'A');
    } else if (c >= 'a' && c <= 'z') {
      v = static_cast<uint32_t>(c - 'a' + 26);
    } else if (c >= '0' && c <= '9') {
      v = static_cast<uint32_t>(c - '0' + 52);
    } else if (c == '+') {
      v = 62;
    } else if (c == '/') {
      v = 63;
    } else {
      return false;
    }
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return true;
}

namespace {

// The common case, in 64-bit arithmetic: [+-]digits[.digits] with at most 18 digits and no
// more fraction digits than the scale (nothing to round), whose unscaled value fits in 18
// digits and in the precision. False for anything else, which DecimalFromTextGeneral
// decides.
bool DecimalFromTextFast(std::string_view text, int precision, int scale, Int128* unscaled) {
  if (text.size() > 20) return false;  // a sign, 18 digits and a point at the most
  const char* p = text.data();
  const char* const end = p + text.size();
  bool negative = false;
  if (p < end && (*p == '+' || *p == '-')) {
    negative = *p == '-';
    ++p;
  }
  // Digits before and after the point, at most 18 in all (leading zeros included) so that the
  // value cannot overflow; longer texts go to the general reader.
  uint64_t v = 0;
  const char* const int_start = p;
  while (p < end && IsDigit(*p)) v = v * 10 + static_cast<unsigned>(*p++ - '0');
  const int int_digits = static_cast<int>(p - int_start);
  int fraction = 0;
  if (p < end && *p == '.') {
    const char* const fraction_start = ++p;
    while (p < end && IsDigit(*p)) v = v * 10 + static_cast<unsigned>(*p++ - '0');
    fraction = static_cast<int>(p - fraction_start);
  }
  const int significant = int_digits + fraction;
  if (p != end || significant == 0 || significant > 18) return false;
  if (fraction > scale || significant + (scale - fraction) > 18) return false;
  v *= kPowersOfTen[scale - fraction];
  if (precision < 19 && (precision < 0 || v >= kPowersOfTen[precision])) return false;
  *unscaled = negative ? -static_cast<Int128>(v) : static_cast<Int128>(v);
  return true;
}

}  // namespace

bool DecimalFromText(std::string_view text, int precision, int scale, Int128* unscaled) {
  return DecimalFromTextFast(text, precision, scale, unscaled) ||
         DecimalFromTextGeneral(text, precision, scale, unscaled);
}

bool DecimalFromTextGeneral(std::string_view text, int precision, int scale, Int128* unscaled) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  // value = digits * 10^shift, digits without leading zeros; past 78 of them only the
  // magnitude is kept (no decimal holds more than 38, and half-up looks at one digit).
  char digits[80];
  int nd = 0;
  int64_t shift = 0;
  bool any = false;
  bool overflow = false;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (IsDigit(c)) {
      any = true;
      if (seen_point) --shift;
      if (nd == 0 && c == '0') continue;
      if (nd < 78) {
        digits[nd++] = c;
      } else {
        overflow = true;
        ++shift;
      }
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any) return false;
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') return false;
    ++i;
    bool eneg = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
      eneg = text[i] == '-';
      ++i;
    }
    if (i >= text.size()) return false;
    int64_t e = 0;
    for (; i < text.size(); ++i) {
      if (!IsDigit(text[i])) return false;
      if (e < 100000000) e = e * 10 + (text[i] - '0');
    }
    shift += eneg ? -e : e;
  }
  if (overflow && nd > 0 && nd + shift > precision - scale) return false;
  // The unscaled value at the target scale: digits * 10^(shift + scale), rounded half-up.
  const int64_t t = shift + scale;
  int kept = nd;
  int zeros = 0;
  bool round_up = false;
  if (nd > 0 && t >= 0) {
    if (nd + t > 38) return false;
    zeros = static_cast<int>(t);
  } else if (nd > 0) {
    const int64_t drop = -t;
    if (drop > nd) {
      kept = 0;
    } else {
      kept = nd - static_cast<int>(drop);
      round_up = digits[kept] >= '5';
    }
  }
  if (kept + zeros > 39) return false;
  UInt128 v = 0;
  for (int k = 0; k < kept; ++k) v = v * 10 + static_cast<unsigned>(digits[k] - '0');
  for (int k = 0; k < zeros; ++k) v *= 10;
  if (round_up) ++v;
  UInt128 limit = 1;
  for (int k = 0; k < precision; ++k) limit *= 10;
  if (v >= limit) return false;
  *unscaled = negative ? -static_cast<Int128>(v) : static_cast<Int128>(v);
  return true;
}

void DecimalToBytes(Int128 v, int width, char* out) {
  const auto u = static_cast<UInt128>(v);
  for (int i = 0; i < width; ++i) {
    out[width - 1 - i] = static_cast<char>(static_cast<uint8_t>(u >> (8 * i)));
  }
}

namespace {

// The decimal exponent of a decimal literal's first significant digit (for telling overflow
// from underflow when from_chars says the value is out of range).
int64_t Magnitude(std::string_view s) {
  int64_t first = 0;
  bool found = false;
  int64_t position = 0;  // of the next digit: 0 = units
  size_t i = 0;
  size_t int_digits = 0;
  while (i < s.size() && IsDigit(s[i])) {
    ++int_digits;
    ++i;
  }
  position = static_cast<int64_t>(int_digits) - 1;
  for (size_t k = 0; k < s.size() && (IsDigit(s[k]) || s[k] == '.'); ++k) {
    if (s[k] == '.') continue;
    if (s[k] != '0') {
      first = position;
      found = true;
      break;
    }
    --position;
  }
  if (!found) return std::numeric_limits<int32_t>::min();
  const size_t e = s.find_first_of("eE");
  if (e != std::string_view::npos) {
    int64_t exp = 0;
    std::from_chars(s.data() + e + 1 + (s[e + 1] == '+'), s.data() + s.size(), exp);
    first += exp;
  }
  return first;
}

template <class T>
bool JavaFloatFromText(std::string_view s, T* out) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  const T sign = negative ? T(-1) : T(1);
  if (s == "NaN") {
    *out = std::numeric_limits<T>::quiet_NaN();
    return true;
  }
  if (s == "Infinity" || s == "INF") {
    *out = sign * std::numeric_limits<T>::infinity();
    return true;
  }
  if (!s.empty() && (s.back() == 'f' || s.back() == 'F' || s.back() == 'd' || s.back() == 'D')) {
    s.remove_suffix(1);
  }
  if (s.empty() || s[0] == '+' || s[0] == '-') return false;
  std::chars_format format = std::chars_format::general;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    format = std::chars_format::hex;
  }
  T v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, format);
  if (p != s.data() + s.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    // Java rounds past the largest value to infinity and below the smallest to zero.
    const bool huge = format == std::chars_format::general && Magnitude(s) > 0;
    v = huge ? std::numeric_limits<T>::infinity() : T(0);
  } else if (ec != std::errc()) {
    return false;
  }
  *out = sign * v;
  return true;
}

}  // namespace

bool DoubleFromText(std::string_view text, double* out) { return JavaFloatFromText(text, out); }
bool FloatFromText(std::string_view text, float* out) { return JavaFloatFromText(text, out); }

}  // namespace sluice::data::internal
