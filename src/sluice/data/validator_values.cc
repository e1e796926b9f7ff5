// The checks of single values, shared by the JSON walk and the CSV row: text as a date, time,
// UUID, base64 or decimal, map keys, and a CSV field converted to its JSON value.
#include <charconv>
#include <cmath>
#include <string>

#include "sluice/base/json_writer.h"
#include "sluice/data/json_text_internal.h"
#include "sluice/data/lexical_internal.h"
#include "sluice/data/parquet_values_internal.h"
#include "sluice/data/validator_internal.h"

namespace sluice::data::internal {

using schema::TypeKind;
using Node = ValidatorNode;

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Whether `t` is already what NormalizeDecimal writes for it: [-]I[.F] with I without leading
// zeros, exactly `scale` digits F, within `precision`, and not a negative zero.
bool IsNormalDecimal(std::string_view t, int precision, int scale) {
  size_t i = t.empty() || t[0] != '-' ? 0 : 1;
  const bool negative = i == 1;
  const size_t int_start = i;
  while (i < t.size() && IsDigit(t[i])) ++i;
  const size_t int_len = i - int_start;
  if (int_len == 0 || (int_len > 1 && t[int_start] == '0')) return false;
  const bool int_zero = int_len == 1 && t[int_start] == '0';
  bool zero = int_zero;
  if (scale > 0) {
    if (i >= t.size() || t[i] != '.') return false;
    const size_t frac_start = ++i;
    while (i < t.size() && IsDigit(t[i])) zero &= t[i++] == '0';
    if (i - frac_start != static_cast<size_t>(scale)) return false;
  }
  if (i != t.size() || (negative && zero)) return false;
  return (int_zero ? 0 : int_len) + static_cast<size_t>(scale) <= static_cast<size_t>(precision);
}

// Whether `t` is what to_chars writes for the double it denotes: at most 15 significant digits
// (so the double's shortest form has exactly these), an integer part of 1 or more without
// leading zeros (so the fixed form, which is then the shorter, is chosen), and a fraction that
// does not end in 0.
bool IsShortestDouble(std::string_view t) {
  size_t i = t.empty() || t[0] != '-' ? 0 : 1;
  const size_t int_start = i;
  while (i < t.size() && IsDigit(t[i])) ++i;
  const size_t int_len = i - int_start;
  if (int_len == 0 || t[int_start] == '0' || i >= t.size() || t[i] != '.') return false;
  const size_t frac_start = ++i;
  while (i < t.size() && IsDigit(t[i])) ++i;
  const size_t frac_len = i - frac_start;
  return i == t.size() && frac_len > 0 && t.back() != '0' && int_len + frac_len <= 15;
}

}  // namespace

DecimalResult NormalizeDecimal(std::string_view text, int precision, int scale, std::string& out) {
  if (IsNormalDecimal(text, precision, scale)) {
    out += text;
    return DecimalResult::kOk;
  }
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  char digits[80];
  int nd = 0;         // significant digits kept (leading zeros dropped)
  int64_t shift = 0;  // value = digits * 10^shift
  bool any = false;
  bool overflow = false;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (seen_point) --shift;
      if (nd == 0 && c == '0') continue;
      if (nd < 78) {
        digits[nd++] = c;
      } else {
        overflow = true;  // far more digits than any decimal holds
        if (!seen_point) ++shift;
        if (seen_point) ++shift;  // dropped digit: keep the magnitude, lose precision
      }
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any) return DecimalResult::kNotANumber;
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') return DecimalResult::kNotANumber;
    ++i;
    bool eneg = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
      eneg = text[i] == '-';
      ++i;
    }
    if (i >= text.size()) return DecimalResult::kNotANumber;
    int64_t e = 0;
    for (; i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9') return DecimalResult::kNotANumber;
      if (e < 100000000) e = e * 10 + (text[i] - '0');
    }
    shift += eneg ? -e : e;
  }
  if (overflow && nd > 0) {
    // More significant digits than fit 38 places: the integer part alone decides.
    if (nd + shift > precision - scale) return DecimalResult::kPrecision;
  }
  // Unscaled value at the target scale: digits * 10^(shift + scale).
  int64_t t = shift + scale;
  std::string unscaled;
  if (nd == 0) {
    unscaled = "0";
  } else if (t >= 0) {
    if (nd + t > 38) return DecimalResult::kPrecision;
    unscaled.assign(digits, static_cast<size_t>(nd));
    unscaled.append(static_cast<size_t>(t), '0');
  } else {
    int64_t drop = -t;
    if (drop > nd) {
      unscaled = "0";
    } else {
      unscaled.assign(digits, static_cast<size_t>(nd - drop));
      bool round_up = digits[nd - drop] >= '5';
      if (unscaled.empty()) unscaled = "0";
      if (round_up) {
        int k = static_cast<int>(unscaled.size()) - 1;
        while (k >= 0 && unscaled[static_cast<size_t>(k)] == '9') {
          unscaled[static_cast<size_t>(k)] = '0';
          --k;
        }
        if (k < 0) {
          unscaled.insert(unscaled.begin(), '1');
        } else {
          unscaled[static_cast<size_t>(k)]++;
        }
      }
      size_t nz = unscaled.find_first_not_of('0');
      unscaled = nz == std::string::npos ? "0" : unscaled.substr(nz);
    }
  }
  bool zero = unscaled == "0";
  if (!zero && static_cast<int>(unscaled.size()) > precision) return DecimalResult::kPrecision;
  if (negative && !zero) out += '-';
  if (scale == 0) {
    out += unscaled;
    return DecimalResult::kOk;
  }
  if (static_cast<int>(unscaled.size()) <= scale) {
    out += "0.";
    out.append(static_cast<size_t>(scale) - unscaled.size(), '0');
    out += unscaled;
  } else {
    out.append(unscaled, 0, unscaled.size() - static_cast<size_t>(scale));
    out += '.';
    out.append(unscaled, unscaled.size() - static_cast<size_t>(scale), std::string::npos);
  }
  return DecimalResult::kOk;
}

bool IsBase64(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && s[n - 1] == '=') --n;
  if (s.size() - n > 2) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
          c == '/')) {
      return false;
    }
  }
  if (n % 4 == 1) return false;
  return s.size() == n || s.size() % 4 == 0;
}

bool IsUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < 36; ++i) {
    char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

bool IsTimeOfDay(std::string_view s) {
  // [h]h:mm[:ss[.fraction]]
  size_t i = 0;
  auto num = [&](size_t min, size_t max, int limit) {
    size_t start = i;
    int v = 0;
    while (i < s.size() && i - start < max && s[i] >= '0' && s[i] <= '9')
      v = v * 10 + (s[i++] - '0');
    return i - start >= min && v <= limit;
  };
  if (!num(1, 2, 23) || i >= s.size() || s[i++] != ':' || !num(2, 2, 59)) return false;
  if (i < s.size() && s[i] == ':') {
    ++i;
    if (!num(2, 2, 59)) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      if (!num(1, 9, 999999999)) return false;
    }
  }
  return i == s.size();
}

// Whether parsed date or timestamp fields name a value the place's type can store: a date's
// days in int32, a timestamp in int64 of its unit (nanoseconds reach only 1677-2262). Spark's
// parsers refuse a value past that range (stringToTimestamp's overflow is None), and a writer
// could not store it.
bool StorableTemporal(const Node& n, const DateTimeFields& f) {
  // Every unit and a date hold the years in between; only the rest needs working out.
  if (f.year > 1677 && f.year < 2262) return true;
  if (n.kind == TypeKind::kDate) {
    int32_t days = 0;
    return DateFromFields(f, &days);
  }
  if (f.time_only) return true;  // today's date
  DateTimeFields at = f;
  int32_t offset = 0;
  if (at.has_zone && !FixedZoneOffset(at.zone, &offset)) {
    // A region id: its offset is within a day of UTC's; checked at UTC, the writer refuses
    // region ids itself.
    at.has_zone = false;
  }
  int64_t value = 0;
  const char* why = "";
  return TimestampFromFields(at, static_cast<schema::TimeUnit>(n.unit),
                             n.kind == TypeKind::kTimestampNtz, &value, &why);
}

bool TemporalFits(const Node& n, std::string_view s, DateTimeFields* f) {
  if (n.kind == TypeKind::kDate) return ParseLenientDate(s, f) && StorableTemporal(n, *f);
  return ParseLenientTimestamp(s, f) && (n.kind != TypeKind::kTimestampNtz || !f->has_zone) &&
         StorableTemporal(n, *f);
}

bool TextFits(const Node& n, std::string_view s) {
  internal::DateTimeFields f;
  switch (n.kind) {
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      return TemporalFits(n, s, &f);
    case TypeKind::kTime:
      return IsTimeOfDay(s);
    case TypeKind::kUuid:
      return IsUuid(s);
    case TypeKind::kBinary:
      return IsBase64(s);
    case TypeKind::kString:
      return n.max_length < 0 || CodePoints(s) <= static_cast<size_t>(n.max_length);
    case TypeKind::kNull:
    case TypeKind::kBoolean:
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
    case TypeKind::kDecimal:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      break;
  }
  return false;
}

// A map key (always a JSON string) fits the key type.
bool KeyFits(const Node& key, std::string_view s) {
  switch (key.kind) {
    case TypeKind::kString:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kBinary:
      return TextFits(key, s);
    case TypeKind::kBoolean:
      return s == "true" || s == "false";
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64: {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || p != s.data() + s.size()) return false;
      int64_t lo = 0;
      int64_t hi = 0;
      IntRange(key.kind, &lo, &hi);
      return v >= lo && v <= hi;
    }
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
      return internal::ParseJavaDouble(s);
    case TypeKind::kDecimal: {
      std::string ignored;
      return NormalizeDecimal(s, key.precision, key.scale, ignored) == DecimalResult::kOk;
    }
    case TypeKind::kNull:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      break;
  }
  return false;
}

bool CsvValue(const Node& n, std::string_view v, std::string& out, ViolationKind* kind) {
  *kind = ViolationKind::kTypeMismatch;
  switch (n.kind) {
    case TypeKind::kString:
      if (n.max_length >= 0 && CodePoints(v) > static_cast<size_t>(n.max_length)) {
        *kind = ViolationKind::kStringTooLong;
        return false;
      }
      AppendJsonString(out, v);
      return true;
    case TypeKind::kBoolean:
      if (!internal::ParseScalaBoolean(v)) return false;
      out += (v.size() == 4) ? "true" : "false";
      return true;
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64: {
      std::string_view t = v;
      if (!t.empty() && t[0] == '+') t.remove_prefix(1);
      int64_t value = 0;
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
      if (ec == std::errc::result_out_of_range) {
        *kind = ViolationKind::kOutOfRange;
        return false;
      }
      if (ec != std::errc() || p != t.data() + t.size() || t.empty()) return false;
      int64_t lo = 0;
      int64_t hi = 0;
      IntRange(n.kind, &lo, &hi);
      if (value < lo || value > hi) {
        *kind = ViolationKind::kOutOfRange;
        return false;
      }
      // The text is the value's own form unless it has leading zeros or is "-0".
      const size_t lead = t[0] == '-' ? 1 : 0;
      if (t[lead] != '0' || t.size() == 1) {
        out += t;
      } else {
        out += std::to_string(value);
      }
      return true;
    }
    case TypeKind::kFloat32:
    case TypeKind::kFloat64: {
      if (IsSpecialFloatString(v)) {
        AppendJsonString(out, v);
        return true;
      }
      if (!internal::ParseJavaDouble(v)) return false;
      // What the grammar allows around the literal: control characters and spaces (Java's
      // trim), a '+' and a type suffix.
      std::string_view t = v;
      while (!t.empty() && static_cast<unsigned char>(t.front()) <= ' ') t.remove_prefix(1);
      while (!t.empty() && static_cast<unsigned char>(t.back()) <= ' ') t.remove_suffix(1);
      if (!t.empty() &&
          (t.back() == 'd' || t.back() == 'D' || t.back() == 'f' || t.back() == 'F')) {
        t.remove_suffix(1);
      }
      if (!t.empty() && t.front() == '+') t.remove_prefix(1);
      if (IsShortestDouble(t)) {
        out += t;
        return true;
      }
      const double d = internal::JavaDoubleValue(t);
      if (!std::isfinite(d) || (n.kind == TypeKind::kFloat32 && !internal::FitsFloat(d))) {
        *kind = ViolationKind::kOutOfRange;
        return false;
      }
      char buf[64];
      auto [p, ec] = std::to_chars(buf, buf + sizeof buf, d);
      std::string_view s(buf, static_cast<size_t>(p - buf));
      out += s;
      if (s.find_first_of(".eE") == std::string_view::npos) out += ".0";
      return true;
    }
    case TypeKind::kDecimal: {
      size_t mark = out.size();
      switch (NormalizeDecimal(v, n.precision, n.scale, out)) {
        case DecimalResult::kOk:
          return true;
        case DecimalResult::kNotANumber:
          break;
        case DecimalResult::kPrecision:
          *kind = ViolationKind::kDecimalPrecision;
          break;
      }
      out.resize(mark);
      return false;
    }
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kBinary: {
      internal::DateTimeFields f;
      bool ok = false;
      switch (n.kind) {
        case TypeKind::kDate:
          ok = internal::ParseLenientDate(v, &f);
          *kind = ViolationKind::kInvalidDate;
          break;
        case TypeKind::kTimestamp:
          ok = internal::ParseLenientTimestamp(v, &f);
          *kind = ViolationKind::kInvalidTimestamp;
          break;
        case TypeKind::kTimestampNtz:
          ok = internal::ParseLenientTimestamp(v, &f) && !f.has_zone;
          *kind = ViolationKind::kInvalidTimestamp;
          break;
        case TypeKind::kTime:
          ok = IsTimeOfDay(v);
          *kind = ViolationKind::kInvalidTimestamp;
          break;
        case TypeKind::kUuid:
          ok = IsUuid(v);
          break;
        case TypeKind::kBinary:
          ok = true;
          break;  // CSV binary is the text's bytes
        case TypeKind::kNull:
        case TypeKind::kBoolean:
        case TypeKind::kInt8:
        case TypeKind::kInt16:
        case TypeKind::kInt32:
        case TypeKind::kInt64:
        case TypeKind::kFloat32:
        case TypeKind::kFloat64:
        case TypeKind::kDecimal:
        case TypeKind::kString:
        case TypeKind::kStruct:
        case TypeKind::kArray:
        case TypeKind::kMap:
          break;
      }
      if (!ok) return false;
      AppendJsonString(out, v);
      return true;
    }
    case TypeKind::kNull:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      break;
  }
  return false;
}

}  // namespace sluice::data::internal
