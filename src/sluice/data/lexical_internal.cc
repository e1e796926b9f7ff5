#include "sluice/data/lexical_internal.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "sluice/base/strings.h"

namespace sluice::data::internal {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// `s` without the bytes <= ' ' at either end, as Java's String.trim and Spark's
// UTF8String.trimAll drop them (ASCII whitespace and control characters).
std::string_view TrimControl(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

// Optional sign then digits, with overflow checked against [min, max] of a signed type whose
// magnitude limit is `limit` (the absolute value of its minimum).
bool ParseJavaIntegral(std::string_view s, uint64_t positive_max, uint64_t negative_max) {
  if (s.empty()) return false;
  size_t i = 0;
  bool negative = false;
  if (s[0] == '-' || s[0] == '+') {
    negative = s[0] == '-';
    i = 1;
  }
  if (i == s.size()) return false;
  const uint64_t limit = negative ? negative_max : positive_max;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (!IsDigit(s[i])) return false;
    const auto d = static_cast<uint64_t>(s[i] - '0');
    if (v > (limit - d) / 10) return false;
    v = v * 10 + d;
  }
  return true;
}

bool ParseDigits(std::string_view s, size_t* i) {
  const size_t start = *i;
  while (*i < s.size() && IsDigit(s[*i])) ++*i;
  return *i > start;
}

bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool StartsWithIgnoreCase(std::string_view s, size_t at, std::string_view word) {
  if (s.size() - at < word.size()) return false;
  return EqualsIgnoreCase(s.substr(at, word.size()), word);
}

// Shape of a BigDecimal from its digits (int part + fraction, leading zeros allowed), the number
// of fraction digits and the exponent. False when the scale leaves int range (Java throws).
bool ShapeFromDigits(std::string_view int_digits, std::string_view frac_digits, int64_t exponent,
                     DecimalShape* out) {
  size_t significant = 0;
  bool seen_nonzero = false;
  for (std::string_view part : {int_digits, frac_digits}) {
    for (char c : part) {
      if (c != '0') seen_nonzero = true;
      if (seen_nonzero) ++significant;
    }
  }
  const int64_t scale = static_cast<int64_t>(frac_digits.size()) - exponent;
  if (scale > std::numeric_limits<int32_t>::max() || scale < std::numeric_limits<int32_t>::min()) {
    return false;
  }
  // Precision of the unscaled value; zero has precision 1.
  const size_t precision = significant == 0 ? 1 : significant;
  if (precision > static_cast<size_t>(std::numeric_limits<int32_t>::max())) return false;
  out->precision = static_cast<int>(precision);
  out->scale = static_cast<int>(scale);
  return true;
}

constexpr std::array<std::string_view, 12> kShortMonths = {
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 12> kLongMonths = {
    "january", "february", "march",     "april",   "may",      "june",
    "july",    "august",   "september", "october", "november", "december"};
constexpr std::array<std::string_view, 7> kShortDays = {"mon", "tue", "wed", "thu",
                                                        "fri", "sat", "sun"};
constexpr std::array<std::string_view, 7> kLongDays = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int m) {
  static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && IsLeap(y)) return 29;
  return kDays[static_cast<size_t>(m - 1)];
}

// Read between `min` and `max` ASCII digits as a number.
bool ReadNumber(std::string_view s, size_t* i, int min, int max, int64_t* out) {
  int n = 0;
  int64_t v = 0;
  while (*i < s.size() && n < max && IsDigit(s[*i])) {
    v = v * 10 + (s[*i] - '0');
    ++*i;
    ++n;
  }
  if (n < min) return false;
  *out = v;
  return true;
}

// Offsets: Z, +h, +hh, +hh:mm, +hhmm, +hh:mm:ss. `allow_z` for the X letter and lenient parsing.
bool ReadOffset(std::string_view s, size_t* i, bool allow_z) {
  if (*i < s.size() && (s[*i] == 'Z' || s[*i] == 'z') && allow_z) {
    ++*i;
    return true;
  }
  if (*i >= s.size() || (s[*i] != '+' && s[*i] != '-')) return false;
  ++*i;
  int64_t h = 0;
  if (!ReadNumber(s, i, 1, 2, &h) || h > 18) return false;
  if (*i < s.size() && s[*i] == ':') {
    ++*i;
    int64_t m = 0;
    if (!ReadNumber(s, i, 2, 2, &m) || m > 59) return false;
    if (*i < s.size() && s[*i] == ':') {
      ++*i;
      int64_t sec = 0;
      if (!ReadNumber(s, i, 2, 2, &sec) || sec > 59) return false;
    }
  } else if (*i + 1 < s.size() && IsDigit(s[*i]) && IsDigit(s[*i + 1])) {
    int64_t m = 0;
    if (!ReadNumber(s, i, 2, 2, &m) || m > 59) return false;
  }
  return true;
}

// A zone as java.time's ZoneId.of reads it, without a time-zone database: offsets, UTC/GMT/UT
// with an optional offset, or a region id (letters, digits, '/', '_', '-', '+').
bool ReadZoneId(std::string_view s, size_t* i) {
  if (*i >= s.size()) return false;
  if (s[*i] == '+' || s[*i] == '-' || s[*i] == 'Z') return ReadOffset(s, i, true);
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (StartsWithIgnoreCase(s, *i, prefix)) {
      *i += prefix.size();
      if (*i < s.size() && (s[*i] == '+' || s[*i] == '-')) return ReadOffset(s, i, false);
      return true;
    }
  }
  const size_t start = *i;
  if (!std::isalpha(static_cast<unsigned char>(s[*i]))) return false;
  while (*i < s.size()) {
    const char c = s[*i];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' ||
        c == '+' || c == '~' || c == '.') {
      ++*i;
    } else {
      break;
    }
  }
  return *i > start;
}

bool ReadWord(std::string_view s, size_t* i, const auto& words, int* index) {
  // Longest match first, so "may" in the long list does not stop "mayday" from failing.
  size_t best = 0;
  int found = -1;
  for (size_t w = 0; w < words.size(); ++w) {
    if (words[w].size() > best && StartsWithIgnoreCase(s, *i, words[w])) {
      best = words[w].size();
      found = static_cast<int>(w);
    }
  }
  if (found < 0) return false;
  *i += best;
  *index = found;
  return true;
}

bool IsPatternLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool IsNumericLetter(char c) {
  switch (c) {
    case 'y':
    case 'u':
    case 'M':
    case 'L':
    case 'd':
    case 'D':
    case 'H':
    case 'k':
    case 'K':
    case 'h':
    case 'm':
    case 's':
    case 'S':
      return true;
    default:
      return false;
  }
}

}  // namespace

bool ParseJavaInt(std::string_view s) { return ParseJavaIntegral(s, 2147483647ULL, 2147483648ULL); }

bool ParseJavaLong(std::string_view s) {
  return ParseJavaIntegral(s, 9223372036854775807ULL, 9223372036854775808ULL);
}

bool ParseJavaDouble(std::string_view s) {
  s = TrimControl(s);
  if (s.empty()) return false;
  size_t i = 0;
  if (s[i] == '+' || s[i] == '-') ++i;
  const std::string_view rest = s.substr(i);
  if (rest == "NaN" || rest == "Infinity") return true;
  if (rest.size() >= 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X')) {
    // Hex: 0x h* [. h*] p [+-] digits, at least one hex digit, binary exponent required.
    size_t j = 2;
    size_t digits = 0;
    while (j < rest.size() && IsHexDigit(rest[j])) ++j, ++digits;
    if (j < rest.size() && rest[j] == '.') {
      ++j;
      while (j < rest.size() && IsHexDigit(rest[j])) ++j, ++digits;
    }
    if (digits == 0 || j >= rest.size() || (rest[j] != 'p' && rest[j] != 'P')) return false;
    ++j;
    if (j < rest.size() && (rest[j] == '+' || rest[j] == '-')) ++j;
    if (!ParseDigits(rest, &j)) return false;
    if (j < rest.size() && std::string_view("fFdD").find(rest[j]) != std::string_view::npos) ++j;
    return j == rest.size();
  }
  size_t j = 0;
  const bool int_digits = ParseDigits(rest, &j);
  bool frac_digits = false;
  if (j < rest.size() && rest[j] == '.') {
    ++j;
    frac_digits = ParseDigits(rest, &j);
  }
  if (!int_digits && !frac_digits) return false;
  if (j < rest.size() && (rest[j] == 'e' || rest[j] == 'E')) {
    ++j;
    if (j < rest.size() && (rest[j] == '+' || rest[j] == '-')) ++j;
    if (!ParseDigits(rest, &j)) return false;
  }
  if (j < rest.size() && std::string_view("fFdD").find(rest[j]) != std::string_view::npos) ++j;
  return j == rest.size();
}

double JavaDoubleValue(std::string_view t) {
  // from_chars is exact and fast; it gives up on a value outside double's range and on hex
  // literals, which strtod then reads as Java does.
  double value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec == std::errc() && end == t.data() + t.size()) return value;
  char buf[128];
  std::string big;
  const char* s = buf;
  if (t.size() < sizeof buf) {
    std::memcpy(buf, t.data(), t.size());
    buf[t.size()] = '\0';
  } else {
    big.assign(t);
    s = big.c_str();
  }
  return std::strtod(s, nullptr);
}

bool ParseScalaBoolean(std::string_view s) {
  return EqualsIgnoreCase(s, "true") || EqualsIgnoreCase(s, "false");
}

bool ParseJavaBigDecimal(std::string_view s, DecimalShape* out) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  const size_t int_start = i;
  ParseDigits(s, &i);
  const std::string_view int_digits = s.substr(int_start, i - int_start);
  std::string_view frac_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const size_t frac_start = i;
    ParseDigits(s, &i);
    frac_digits = s.substr(frac_start, i - frac_start);
  }
  if (int_digits.empty() && frac_digits.empty()) return false;
  int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      negative = s[i] == '-';
      ++i;
    }
    const size_t exp_start = i;
    while (i < s.size() && IsDigit(s[i])) {
      exponent = exponent * 10 + (s[i] - '0');
      // Java reads the exponent as an int.
      if (exponent > std::numeric_limits<int32_t>::max()) return false;
      ++i;
    }
    if (i == exp_start) return false;
    if (negative) exponent = -exponent;
  }
  if (i != s.size()) return false;
  return ShapeFromDigits(int_digits, frac_digits, exponent, out);
}

Result<DecimalLocale> DecimalLocaleFor(std::string_view tag) {
  if (tag.empty() || EqualsIgnoreCase(tag, "en-US")) return DecimalLocale{};
  struct Known {
    std::string_view tag;
    std::string_view grouping;
    std::string_view decimal;
  };
  // DecimalFormatSymbols of the JDK's CLDR data for the locales Spark's tests use, and a few
  // common ones. U+00A0 / U+202F are the no-break spaces CLDR uses for grouping.
  static constexpr std::array<Known, 10> kKnown = {{
      {"en-GB", ",", "."},
      {"ko-KR", ",", "."},
      {"ja-JP", ",", "."},
      {"zh-CN", ",", "."},
      {"de-DE", ".", ","},
      {"es-ES", ".", ","},
      {"it-IT", ".", ","},
      {"pt-BR", ".", ","},
      {"ru-RU", "\xC2\xA0", ","},
      {"fr-FR", "\xE2\x80\xAF", ","},
  }};
  for (const Known& k : kKnown) {
    if (EqualsIgnoreCase(tag, k.tag)) {
      return DecimalLocale{false, std::string(k.grouping), std::string(k.decimal)};
    }
  }
  return InvalidArgument(
      fmt::format("locale \"{}\" is not supported for decimal parsing", EscapeForMessage(tag)));
}

namespace {

bool ParseDecimalFormat(std::string_view s, const DecimalLocale& locale, DecimalShape* out) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  std::string int_digits;
  std::string frac_digits;
  bool in_fraction = false;
  bool any = false;
  while (i < s.size()) {
    if (IsDigit(s[i])) {
      (in_fraction ? frac_digits : int_digits) += s[i];
      any = true;
      ++i;
    } else if (!in_fraction && s.substr(i, locale.grouping.size()) == locale.grouping) {
      i += locale.grouping.size();
    } else if (!in_fraction && s.substr(i, locale.decimal.size()) == locale.decimal) {
      in_fraction = true;
      i += locale.decimal.size();
    } else {
      return false;
    }
  }
  if (!any) return false;
  // DecimalFormat's digit list drops trailing fraction zeros.
  while (!frac_digits.empty() && frac_digits.back() == '0') frac_digits.pop_back();
  return ShapeFromDigits(int_digits, frac_digits, 0, out);
}

}  // namespace

bool ParseLocaleDecimalJson(std::string_view s, const DecimalLocale& locale, DecimalShape* out) {
  if (!locale.us) return ParseDecimalFormat(s, locale, out);
  if (s.find(',') == std::string_view::npos) return ParseJavaBigDecimal(s, out);
  std::string stripped;
  stripped.reserve(s.size());
  for (char c : s) {
    if (c != ',') stripped += c;
  }
  return ParseJavaBigDecimal(stripped, out);
}

bool ParseLocaleDecimalCsv(std::string_view s, const DecimalLocale& locale, DecimalShape* out) {
  if (!locale.us) return ParseDecimalFormat(s, locale, out);
  return ParseJavaBigDecimal(s, out);
}

JsonNumberClass ClassifyJsonNumber(std::string_view token, DecimalShape* shape) {
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t' || token.back() == '\n' ||
                            token.back() == '\r')) {
    token.remove_suffix(1);
  }
  if (token == "NaN" || token == "Infinity" || token == "+Infinity" || token == "-Infinity") {
    return JsonNumberClass::kNonNumeric;
  }
  size_t i = 0;
  if (i < token.size() && token[i] == '-') ++i;
  const size_t int_start = i;
  if (i >= token.size()) return JsonNumberClass::kInvalid;
  if (token[i] == '0') {
    ++i;
  } else if (IsDigit(token[i])) {
    ParseDigits(token, &i);
  } else {
    return JsonNumberClass::kInvalid;
  }
  const std::string_view int_digits = token.substr(int_start, i - int_start);
  // Jackson rejects leading zeros (allowNumericLeadingZeros defaults to false).
  if (i < token.size() && IsDigit(token[i])) return JsonNumberClass::kInvalid;
  bool is_float = false;
  std::string_view frac_digits;
  if (i < token.size() && token[i] == '.') {
    ++i;
    const size_t frac_start = i;
    if (!ParseDigits(token, &i)) return JsonNumberClass::kInvalid;
    frac_digits = token.substr(frac_start, i - frac_start);
    is_float = true;
  }
  int64_t exponent = 0;
  bool exponent_overflow = false;
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    is_float = true;
    ++i;
    bool negative = false;
    if (i < token.size() && (token[i] == '+' || token[i] == '-')) {
      negative = token[i] == '-';
      ++i;
    }
    const size_t exp_start = i;
    while (i < token.size() && IsDigit(token[i])) {
      if (exponent <= std::numeric_limits<int32_t>::max())
        exponent = exponent * 10 + (token[i] - '0');
      if (exponent > std::numeric_limits<int32_t>::max()) exponent_overflow = true;
      ++i;
    }
    if (i == exp_start) return JsonNumberClass::kInvalid;
    if (negative) exponent = -exponent;
  }
  if (i != token.size()) return JsonNumberClass::kInvalid;
  if (!is_float) {
    if (ParseJavaLong(token)) return JsonNumberClass::kLong;
    ShapeFromDigits(int_digits, {}, 0, shape);
    return JsonNumberClass::kBigInteger;
  }
  if (exponent_overflow || !ShapeFromDigits(int_digits, frac_digits, exponent, shape)) {
    // BigDecimal would throw; report an impossible shape so callers fall back as on overflow.
    shape->precision = std::numeric_limits<int>::max();
    shape->scale = 0;
  }
  return JsonNumberClass::kFloat;
}

Result<DateTimePattern> DateTimePattern::Compile(std::string_view pattern) {
  DateTimePattern p;
  p.pattern_ = std::string(pattern);
  size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    if (c == '\'') {
      // Quoted literal; '' inside or alone is a single quote.
      ++i;
      std::string lit;
      if (i < pattern.size() && pattern[i] == '\'') {
        lit = "'";
        ++i;
      } else {
        while (true) {
          if (i >= pattern.size()) {
            return InvalidArgument(fmt::format("pattern \"{}\": unclosed quote", pattern));
          }
          if (pattern[i] == '\'') {
            if (i + 1 < pattern.size() && pattern[i + 1] == '\'') {
              lit += '\'';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          lit += pattern[i++];
        }
      }
      p.elements_.push_back(Element{0, 0, std::move(lit)});
      continue;
    }
    if (IsPatternLetter(c)) {
      size_t j = i;
      while (j < pattern.size() && pattern[j] == c) ++j;
      const int count = static_cast<int>(j - i);
      const std::string_view supported = "yuMLdDHkKhmsSaEXxZzVO";
      if (supported.find(c) == std::string_view::npos) {
        return InvalidArgument(
            fmt::format("pattern \"{}\": letter '{}' is not supported for parsing", pattern, c));
      }
      if (((c == 'M' || c == 'L') && count > 4) || (c == 'd' && count > 2) ||
          (c == 'D' && count > 3) ||
          (std::string_view("HkKhms").find(c) != std::string_view::npos && count > 2) ||
          (c == 'a' && count > 1) || (c == 'S' && count > 9) || (c == 'E' && count > 4) ||
          ((c == 'X' || c == 'x' || c == 'Z') && count > 5) || (c == 'V' && count != 2)) {
        return InvalidArgument(fmt::format("pattern \"{}\": too many '{}' letters", pattern, c));
      }
      p.elements_.push_back(Element{c, count, {}});
      i = j;
      continue;
    }
    if (c == '[' || c == ']' || c == '{' || c == '}' || c == '#') {
      return InvalidArgument(fmt::format(
          "pattern \"{}\": '{}' (optional sections, reserved) is not supported", pattern, c));
    }
    p.elements_.push_back(Element{0, 0, std::string(1, c)});
    ++i;
  }
  return p;
}

bool DateTimePattern::Parse(std::string_view s, DateTimeFields* out) const {
  DateTimeFields f;
  size_t i = 0;
  int hour12 = -1;
  int ampm = -1;
  int day_of_year = -1;
  bool has_month = false;
  bool has_day = false;
  for (size_t e = 0; e < elements_.size(); ++e) {
    const Element& el = elements_[e];
    if (el.letter == 0) {
      if (!StartsWithIgnoreCase(s, i, el.literal)) return false;
      i += el.literal.size();
      continue;
    }
    // A variable-width number directly followed by another number takes only its own count
    // of digits (java.time's adjacent value parsing).
    const bool next_numeric = e + 1 < elements_.size() && elements_[e + 1].letter != 0 &&
                              IsNumericLetter(elements_[e + 1].letter);
    int64_t v = 0;
    switch (el.letter) {
      case 'y':
      case 'u': {
        if (el.count == 2) {
          if (!ReadNumber(s, &i, 2, 2, &v)) return false;
          f.year = 2000 + v;
        } else {
          bool negative = false;
          if (el.count >= 4 && i < s.size() && (s[i] == '+' || s[i] == '-')) {
            negative = s[i] == '-';
            ++i;
          }
          const int max = next_numeric ? std::max(el.count, 1) : 9;
          if (!ReadNumber(s, &i, el.count == 1 ? 1 : el.count, max, &v)) return false;
          f.year = negative ? -v : v;
        }
        break;
      }
      case 'M':
      case 'L': {
        has_month = true;
        if (el.count >= 3) {
          int idx = 0;
          if (el.count == 3 ? !ReadWord(s, &i, kShortMonths, &idx)
                            : !ReadWord(s, &i, kLongMonths, &idx)) {
            return false;
          }
          f.month = idx + 1;
        } else {
          if (!ReadNumber(s, &i, el.count, (el.count == 1 && !next_numeric) ? 2 : el.count, &v)) {
            return false;
          }
          if (v < 1 || v > 12) return false;
          f.month = static_cast<int>(v);
        }
        break;
      }
      case 'd':
        has_day = true;
        if (!ReadNumber(s, &i, el.count, (el.count == 1 && !next_numeric) ? 2 : el.count, &v)) {
          return false;
        }
        if (v < 1 || v > 31) return false;
        f.day = static_cast<int>(v);
        break;
      case 'D':
        if (!ReadNumber(s, &i, el.count, (el.count < 3 && !next_numeric) ? 3 : el.count, &v)) {
          return false;
        }
        if (v < 1 || v > 366) return false;
        day_of_year = static_cast<int>(v);
        break;
      case 'H':
      case 'k':
      case 'K':
      case 'h': {
        if (!ReadNumber(s, &i, el.count, (el.count == 1 && !next_numeric) ? 2 : el.count, &v)) {
          return false;
        }
        if (el.letter == 'H' && v > 23) return false;
        if (el.letter == 'k' && (v < 1 || v > 24)) return false;
        if (el.letter == 'K' && v > 11) return false;
        if (el.letter == 'h') {
          if (v < 1 || v > 12) return false;
          hour12 = static_cast<int>(v);
        } else if (el.letter == 'K') {
          hour12 = static_cast<int>(v);
        } else {
          f.hour = static_cast<int>(el.letter == 'k' ? v % 24 : v);
        }
        break;
      }
      case 'm':
        if (!ReadNumber(s, &i, el.count, (el.count == 1 && !next_numeric) ? 2 : el.count, &v)) {
          return false;
        }
        if (v > 59) return false;
        f.minute = static_cast<int>(v);
        break;
      case 's':
        if (!ReadNumber(s, &i, el.count, (el.count == 1 && !next_numeric) ? 2 : el.count, &v)) {
          return false;
        }
        if (v > 59) return false;
        f.second = static_cast<int>(v);
        break;
      case 'S':
        // Spark builds fractions with a varying width of 1..count digits.
        if (!ReadNumber(s, &i, 1, el.count, &v)) return false;
        break;
      case 'a': {
        if (StartsWithIgnoreCase(s, i, "am")) {
          ampm = 0;
        } else if (StartsWithIgnoreCase(s, i, "pm")) {
          ampm = 1;
        } else {
          return false;
        }
        i += 2;
        break;
      }
      case 'E': {
        int idx = 0;
        if (el.count == 4 ? !ReadWord(s, &i, kLongDays, &idx)
                          : !ReadWord(s, &i, kShortDays, &idx)) {
          return false;
        }
        break;
      }
      case 'X':
      case 'x':
      case 'Z':
      case 'O':
        if (el.letter == 'O') {
          if (!StartsWithIgnoreCase(s, i, "GMT")) return false;
          i += 3;
          if (i < s.size() && (s[i] == '+' || s[i] == '-') && !ReadOffset(s, &i, false)) {
            return false;
          }
        } else if (!ReadOffset(s, &i, el.letter == 'X' || (el.letter == 'Z' && el.count == 5))) {
          return false;
        }
        f.has_zone = true;
        break;
      case 'z':
      case 'V':
        if (!ReadZoneId(s, &i)) return false;
        f.has_zone = true;
        break;
      default:
        return false;
    }
  }
  if (i != s.size()) return false;
  if (hour12 >= 0) {
    // Without 'a' java.time needs AMPM_OF_DAY to resolve h; Spark defaults it to AM.
    const int base = hour12 % 12;
    f.hour = base + (ampm == 1 ? 12 : 0);
  }
  if (day_of_year > 0) {
    if (has_month || has_day) {
      // Cross-check as the strict resolver does.
      int doy = f.day;
      for (int m = 1; m < f.month; ++m) doy += DaysInMonth(f.year, m);
      if (doy != day_of_year) return false;
    } else {
      if (day_of_year == 366 && !IsLeap(f.year)) return false;
      int rem = day_of_year;
      int m = 1;
      while (rem > DaysInMonth(f.year, m)) rem -= DaysInMonth(f.year, m++);
      f.month = m;
      f.day = rem;
    }
  }
  if (f.day > DaysInMonth(f.year, f.month)) return false;
  *out = f;
  return true;
}

namespace {

// Two decimal digits at `p`.
inline bool TwoDigits(const char* p, int* v) {
  const unsigned a = static_cast<unsigned char>(p[0]) - unsigned{'0'};
  const unsigned b = static_cast<unsigned char>(p[1]) - unsigned{'0'};
  if (a > 9 || b > 9) return false;
  *v = static_cast<int>(a * 10 + b);
  return true;
}

// `yyyy-mm-dd` at the start of `s` with a valid month and day: the shape nearly every record
// holds, read without the general parser's probing. False for anything else, which the general
// parser then decides.
inline bool CanonicalDate(std::string_view s, DateTimeFields* f) {
  if (s.size() < 10 || s[4] != '-' || s[7] != '-') return false;
  int hi = 0;
  int lo = 0;
  int month = 0;
  int day = 0;
  if (!TwoDigits(s.data(), &hi) || !TwoDigits(s.data() + 2, &lo) ||
      !TwoDigits(s.data() + 5, &month) || !TwoDigits(s.data() + 8, &day)) {
    return false;
  }
  f->year = hi * 100 + lo;
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(f->year, month)) return false;
  f->month = month;
  f->day = day;
  return true;
}

// `yyyy-mm-dd`, alone or with ' ' or 'T' and `hh:mm:ss`, an optional fraction of 1 to 9 digits
// and an optional `Z`: what ParseLenientTimestamp gives for them, faster. False for any other
// text (the general parser decides it).
bool CanonicalTimestamp(std::string_view s, DateTimeFields* out) {
  DateTimeFields f;
  if (!CanonicalDate(s, &f)) return false;
  if (s.size() == 10) {
    *out = f;
    return true;
  }
  if (s.size() < 19 || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':') {
    return false;
  }
  if (!TwoDigits(s.data() + 11, &f.hour) || !TwoDigits(s.data() + 14, &f.minute) ||
      !TwoDigits(s.data() + 17, &f.second) || f.hour > 23 || f.minute > 59 || f.second > 59) {
    return false;
  }
  size_t i = 19;
  if (i < s.size() && s[i] == '.') {
    const size_t start = ++i;
    int32_t nanos = 0;
    while (i < s.size() && i - start < 9 && IsDigit(s[i])) nanos = nanos * 10 + (s[i++] - '0');
    if (i == start || (i < s.size() && IsDigit(s[i]))) return false;
    for (size_t k = i - start; k < 9; ++k) nanos *= 10;
    f.nanos = nanos;
  }
  if (i + 1 == s.size() && s[i] == 'Z') {
    f.has_zone = true;
    f.zone = s.substr(i, 1);
    ++i;
  }
  if (i != s.size()) return false;
  *out = f;
  return true;
}

}  // namespace

bool ParseLenientTimestamp(std::string_view text, DateTimeFields* out) {
  text = TrimControl(text);
  if (CanonicalTimestamp(text, out)) return true;
  return ParseLenientTimestampGeneral(text, out);
}

bool ParseLenientTimestampGeneral(std::string_view text, DateTimeFields* out) {
  text = TrimControl(text);
  if (text.empty()) return false;
  DateTimeFields f;
  size_t i = 0;
  auto parse_time = [&](size_t* at) -> bool {
    int64_t h = 0;
    int64_t m = 0;
    int64_t sec = 0;
    if (!ReadNumber(text, at, 1, 2, &h) || h > 23) return false;
    if (*at < text.size() && text[*at] == ':') {
      ++*at;
      if (!ReadNumber(text, at, 1, 2, &m) || m > 59) return false;
      if (*at < text.size() && text[*at] == ':') {
        ++*at;
        if (!ReadNumber(text, at, 1, 2, &sec) || sec > 59) return false;
        if (*at < text.size() && text[*at] == '.') {
          ++*at;
          const size_t digits_start = *at;
          int64_t frac = 0;
          if (!ReadNumber(text, at, 1, 18, &frac)) return false;
          int32_t nanos = 0;
          for (size_t k = 0; k < 9; ++k) {
            const size_t d = digits_start + k;
            nanos = nanos * 10 + (d < *at ? text[d] - '0' : 0);
          }
          f.nanos = nanos;
        }
      }
    }
    f.hour = static_cast<int>(h);
    f.minute = static_cast<int>(m);
    f.second = static_cast<int>(sec);
    if (*at < text.size()) {
      size_t z = *at;
      if (text[z] == ' ') ++z;
      const size_t zone_start = z;
      if (!ReadZoneId(text, &z)) return false;
      f.has_zone = true;
      f.zone = text.substr(zone_start, z - zone_start);
      *at = z;
    }
    return *at == text.size();
  };
  // A time alone: "[h]h:[m]m..." or "T[h]h:...".
  if (text[0] == 'T' || text[0] == 't') {
    i = 1;
    if (!parse_time(&i)) return false;
    f.time_only = true;
    *out = f;
    return true;
  }
  {
    size_t probe = 0;
    int64_t ignored = 0;
    if (ReadNumber(text, &probe, 1, 2, &ignored) && probe < text.size() && text[probe] == ':') {
      i = 0;
      if (!parse_time(&i)) return false;
      f.time_only = true;
      *out = f;
      return true;
    }
  }
  bool negative = false;
  if (text[i] == '+' || text[i] == '-') {
    negative = text[i] == '-';
    ++i;
  }
  int64_t year = 0;
  if (!ReadNumber(text, &i, 4, 6, &year)) return false;
  if (i < text.size() && IsDigit(text[i])) return false;
  f.year = negative ? -year : year;
  if (i < text.size() && text[i] == '-') {
    ++i;
    int64_t month = 0;
    if (!ReadNumber(text, &i, 1, 2, &month) || month < 1 || month > 12) return false;
    f.month = static_cast<int>(month);
    if (i < text.size() && text[i] == '-') {
      ++i;
      int64_t day = 0;
      if (!ReadNumber(text, &i, 1, 2, &day) || day < 1 || day > DaysInMonth(f.year, f.month)) {
        return false;
      }
      f.day = static_cast<int>(day);
      if (i < text.size() && (text[i] == ' ' || text[i] == 'T')) {
        ++i;
        if (i < text.size() && !parse_time(&i)) return false;
      }
    }
  }
  if (i != text.size()) return false;
  *out = f;
  return true;
}

}  // namespace sluice::data::internal

namespace sluice::data::internal {

bool ParseLenientDate(std::string_view text, DateTimeFields* out) {
  text = TrimControl(text);
  if (DateTimeFields f;
      CanonicalDate(text, &f) && (text.size() == 10 || text[10] == ' ' || text[10] == 'T')) {
    *out = f;
    return true;
  }
  return ParseLenientDateGeneral(text, out);
}

bool ParseLenientDateGeneral(std::string_view text, DateTimeFields* out) {
  text = TrimControl(text);
  if (text.empty()) return false;
  DateTimeFields f;
  size_t i = 0;
  bool negative = false;
  if (text[i] == '+' || text[i] == '-') {
    negative = text[i] == '-';
    ++i;
  }
  int64_t year = 0;
  if (!ReadNumber(text, &i, 4, 7, &year)) return false;
  if (i < text.size() && IsDigit(text[i])) return false;
  f.year = negative ? -year : year;
  if (i < text.size() && text[i] == '-') {
    ++i;
    int64_t month = 0;
    if (!ReadNumber(text, &i, 1, 2, &month) || month < 1 || month > 12) return false;
    f.month = static_cast<int>(month);
    if (i < text.size() && text[i] == '-') {
      ++i;
      int64_t day = 0;
      if (!ReadNumber(text, &i, 1, 2, &day) || day < 1 || day > DaysInMonth(f.year, f.month)) {
        return false;
      }
      f.day = static_cast<int>(day);
      // stringToDate ignores whatever follows a ' ' or 'T' after the day.
      if (i < text.size() && (text[i] == ' ' || text[i] == 'T')) i = text.size();
    }
  }
  if (i != text.size()) return false;
  *out = f;
  return true;
}

}  // namespace sluice::data::internal
