#include "sluice/parquet/value_text.h"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/base/swar.h"
#include "sluice/parquet/value_text_internal.h"

namespace sluice::parquet {
namespace internal {

char* DoubleText(char* p, double v) {
  if (std::isfinite(v)) return std::to_chars(p, p + 32, v).ptr;
  const char* s = std::isnan(v) ? "\"NaN\"" : v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  const size_t len = std::strlen(s);
  std::memcpy(p, s, len);
  return p + len;
}

char* FloatText(char* p, float v) {
  if (std::isfinite(v)) return std::to_chars(p, p + 32, v).ptr;
  return DoubleText(p, static_cast<double>(v));
}

}  // namespace internal

namespace {

// Longest big-endian decimal AppendDecimalBytes converts (Parquet allows any length; 128 bytes
// is over 300 digits, far past any engine's decimal).
constexpr size_t kMaxDecimalBytes = 128;

// Whether any of the 8 bytes of `w` needs escaping or UTF-8 checking: below 0x20, '"', '\\'
// or non-ASCII. The tests are the exact "has a byte less than / equal to" bit tricks.
inline bool NeedsAttention(uint64_t w) {
  return (swar::BytesNonAscii(w) | swar::BytesBelow(w, 0x20) | swar::BytesEqual(w, '"') |
          swar::BytesEqual(w, '\\')) != 0;
}

void AppendEscape(std::string& out, unsigned char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    default:
      break;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
  out.append(esc, 6);
}

// Digits of an unsigned 128-bit value, most significant first, into buf (at least 40 bytes);
// returns the end.
char* U128Digits(Uint128 v, char* buf) {
  if (v <= UINT64_MAX) return std::to_chars(buf, buf + 40, static_cast<uint64_t>(v)).ptr;
  // Split into 19-digit groups: the low groups are printed zero-padded.
  constexpr uint64_t kTen19 = 10000000000000000000ULL;
  uint64_t groups[3];
  int count = 0;
  while (v > UINT64_MAX) {
    groups[count++] = static_cast<uint64_t>(v % kTen19);
    v /= kTen19;
  }
  char* p = std::to_chars(buf, buf + 40, static_cast<uint64_t>(v)).ptr;
  while (count > 0) {
    char tmp[20];
    char* e = std::to_chars(tmp, tmp + 20, groups[--count]).ptr;
    const size_t len = static_cast<size_t>(e - tmp);
    std::memset(p, '0', 19 - len);
    std::memcpy(p + 19 - len, tmp, len);
    p += 19;
  }
  return p;
}

// Append `digits` (no sign) with the decimal point placed `scale` digits from the right.
void AppendScaledDigits(std::string& out, bool negative, std::string_view digits, int scale) {
  if (negative) out.push_back('-');
  if (scale <= 0) {
    out.append(digits);
    return;
  }
  const size_t s = static_cast<size_t>(scale);
  if (digits.size() <= s) {
    out.append("0.");
    out.append(s - digits.size(), '0');
    out.append(digits);
    return;
  }
  out.append(digits.substr(0, digits.size() - s));
  out.push_back('.');
  out.append(digits.substr(digits.size() - s));
}

char* WriteYear(char* p, int64_t year) {
  uint64_t y = static_cast<uint64_t>(year);
  if (year < 0) {
    *p++ = '-';
    y = 0 - y;
  }
  if (y < 10000) {
    p[0] = static_cast<char>('0' + y / 1000);
    p[1] = static_cast<char>('0' + y / 100 % 10);
    p[2] = static_cast<char>('0' + y / 10 % 10);
    p[3] = static_cast<char>('0' + y % 10);
    return p + 4;
  }
  return std::to_chars(p, p + 21, y).ptr;
}

char* Write2(char* p, int64_t v) {
  p[0] = static_cast<char>('0' + v / 10);
  p[1] = static_cast<char>('0' + v % 10);
  return p + 2;
}

char* WriteDate(char* p, int64_t days) {
  const CivilDate d = CivilFromDays(days);
  p = WriteYear(p, d.year);
  *p++ = '-';
  p = Write2(p, d.month);
  *p++ = '-';
  return Write2(p, d.day);
}

int64_t UnitsPerSecond(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMillis:
      return 1000;
    case TimeUnit::kMicros:
      return 1000000;
    case TimeUnit::kNanos:
      return 1000000000;
  }
  return 1000000;
}

int UnitDigits(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMillis:
      return 3;
    case TimeUnit::kMicros:
      return 6;
    case TimeUnit::kNanos:
      return 9;
  }
  return 6;
}

// "HH:MM:SS[.fff]" of `units` (>= 0) since midnight; hours may pass 23 for a time of day
// a writer stored out of range. At most 36 bytes.
char* WriteClock(char* p, int64_t units, TimeUnit unit) {
  const int64_t per = UnitsPerSecond(unit);
  const int64_t secs = units / per;
  int64_t frac = units % per;
  const int64_t hours = secs / 3600;
  p = hours < 100 ? Write2(p, hours) : std::to_chars(p, p + 20, hours).ptr;
  *p++ = ':';
  p = Write2(p, (secs / 60) % 60);
  *p++ = ':';
  p = Write2(p, secs % 60);
  if (frac == 0) return p;
  int digits = UnitDigits(unit);
  while (frac % 10 == 0) {
    frac /= 10;
    --digits;
  }
  *p++ = '.';
  for (int i = digits - 1; i >= 0; --i) {
    p[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  return p + digits;
}

// A count of `per_day` units split into whole days (floor) and the units of the last day.
void SplitDays(Int128 value, int64_t per_day, int64_t* days, int64_t* rem) {
  Int128 d = value / per_day;
  Int128 r = value % per_day;
  if (r < 0) {
    r += per_day;
    --d;
  }
  *days = static_cast<int64_t>(d);
  *rem = static_cast<int64_t>(r);
}

void AppendTimestampUnits(std::string& out, Int128 value, TimeUnit unit, bool utc) {
  char buf[internal::kMaxTimestampText];
  out.append(buf, static_cast<size_t>(internal::TimestampText(buf, value, unit, utc) - buf));
}

// Big-endian two's complement with the redundant leading sign bytes dropped.
std::string_view TrimSignBytes(std::string_view b) {
  size_t i = 0;
  while (b.size() - i > 1) {
    const auto c0 = static_cast<unsigned char>(b[i]);
    const auto c1 = static_cast<unsigned char>(b[i + 1]);
    if ((c0 == 0x00 && !(c1 & 0x80)) || (c0 == 0xFF && (c1 & 0x80))) {
      ++i;
    } else {
      break;
    }
  }
  return b.substr(i);
}

// Decimal digits of a magnitude held as big-endian bytes, by repeated division by 10^9.
std::string BigDigits(std::vector<unsigned char> mag) {
  std::vector<uint32_t> chunks;  // base 10^9, least significant first
  size_t start = 0;
  while (start < mag.size()) {
    uint64_t rem = 0;
    for (size_t i = start; i < mag.size(); ++i) {
      const uint64_t cur = (rem << 8) | mag[i];
      mag[i] = static_cast<unsigned char>(cur / 1000000000);
      rem = cur % 1000000000;
    }
    chunks.push_back(static_cast<uint32_t>(rem));
    while (start < mag.size() && mag[start] == 0) ++start;
  }
  if (chunks.empty()) return "0";
  std::string digits = fmt::format("{}", chunks.back());
  for (size_t i = chunks.size() - 1; i-- > 0;) digits += fmt::format("{:09}", chunks[i]);
  return digits;
}

}  // namespace

namespace internal {

char* DateText(char* p, int64_t days) {
  *p++ = '"';
  p = WriteDate(p, days);
  *p++ = '"';
  return p;
}

char* TimestampText(char* p, Int128 value, TimeUnit unit, bool utc) {
  TimestampWriter w;
  return w.Write(p, value, unit, utc);
}

char* TimestampWriter::Write(char* p, Int128 value, TimeUnit unit, bool utc) {
  const int64_t per_day = UnitsPerSecond(unit) * 86400;
  int64_t days, rem;
  SplitDays(value, per_day, &days, &rem);
  // Timestamps in a column are often close together: the date of the last one is kept.
  if (!has_date_ || days != days_) {
    date_size_ = static_cast<size_t>(WriteDate(date_, days) - date_);
    days_ = days;
    has_date_ = true;
  }
  *p++ = '"';
  std::memcpy(p, date_, date_size_);
  p += date_size_;
  *p++ = 'T';
  p = WriteClock(p, rem, unit);
  if (utc) *p++ = 'Z';
  *p++ = '"';
  return p;
}

char* DecimalText(char* p, Int128 unscaled, int scale) {
  const bool negative = unscaled < 0;
  const auto mag =
      negative ? Uint128{0} - static_cast<Uint128>(unscaled) : static_cast<Uint128>(unscaled);
  char digits[48];
  const size_t n = static_cast<size_t>(U128Digits(mag, digits) - digits);
  const auto s = static_cast<size_t>(scale);
  if (negative) *p++ = '-';
  if (s == 0) {
    std::memcpy(p, digits, n);
    return p + n;
  }
  if (n <= s) {
    *p++ = '0';
    *p++ = '.';
    std::memset(p, '0', s - n);
    p += s - n;
    std::memcpy(p, digits, n);
    return p + n;
  }
  std::memcpy(p, digits, n - s);
  p += n - s;
  *p++ = '.';
  std::memcpy(p, digits + n - s, s);
  return p + s;
}

}  // namespace internal

using internal::DoubleText;
using internal::FloatText;

CivilDate CivilFromDays(int64_t days) {
  // Shift the epoch to 0000-03-01 so leap days fall at the end of each 400-year era.
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;                                       // [0, 146096]
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const int64_t mp = (5 * doy + 2) / 153;                                     // March = 0
  const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

void AppendJsonText(std::string& out, std::string_view s) {
  out.push_back('"');
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  size_t run = 0;  // start of the bytes copied as they are
  while (i < n) {
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (NeedsAttention(w)) break;
      i += 8;
    }
    if (i >= n) break;
    const unsigned char c = p[i];
    if (c < 0x80) {
      if (c >= 0x20 && c != '"' && c != '\\') {
        ++i;
        continue;
      }
      out.append(s.data() + run, i - run);
      AppendEscape(out, c);
      run = ++i;
      continue;
    }
    size_t bad = 0;
    const size_t len = Utf8SequenceAt(p + i, n - i, &bad);
    if (len > 0) {
      i += len;
      continue;
    }
    out.append(s.data() + run, i - run);
    out.append("\xEF\xBF\xBD");
    i += bad;
    run = i;
  }
  out.append(s.data() + run, n - run);
  out.push_back('"');
}

void AppendBase64Json(std::string& out, std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const size_t base = out.size();
  out.resize(base + 2 + (bytes.size() + 2) / 3 * 4);
  char* o = out.data() + base;
  *o++ = '"';
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    o[0] = kAlphabet[v >> 18];
    o[1] = kAlphabet[(v >> 12) & 63];
    o[2] = kAlphabet[(v >> 6) & 63];
    o[3] = kAlphabet[v & 63];
    o += 4;
  }
  const size_t left = bytes.size() - i;
  if (left > 0) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (left == 2 ? uint32_t{p[i + 1]} << 8 : 0);
    o[0] = kAlphabet[v >> 18];
    o[1] = kAlphabet[(v >> 12) & 63];
    o[2] = left == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    o[3] = '=';
    o += 4;
  }
  *o = '"';
}

void AppendDouble(std::string& out, double v) {
  char buf[40];
  out.append(buf, static_cast<size_t>(DoubleText(buf, v) - buf));
}

void AppendFloat(std::string& out, float v) {
  char buf[40];
  out.append(buf, static_cast<size_t>(FloatText(buf, v) - buf));
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exp = (h >> 10) & 0x1F;
  const uint32_t mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);  // infinity or NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);  // rebias 15 -> 127
  } else if (mant == 0) {
    bits = sign;
  } else {
    // Subnormal: mant * 2^-24 is exact in a float.
    const float f = static_cast<float>(mant) * 0x1p-24f;
    bits = sign | std::bit_cast<uint32_t>(f);
  }
  return std::bit_cast<float>(bits);
}

void AppendDecimal(std::string& out, Int128 unscaled, int scale) {
  if (scale >= 0 && scale <= internal::kMaxDecimalTextScale) {
    char buf[internal::kMaxDecimalText];
    out.append(buf, static_cast<size_t>(internal::DecimalText(buf, unscaled, scale) - buf));
    return;
  }
  const bool negative = unscaled < 0;
  const auto mag =
      negative ? Uint128{0} - static_cast<Uint128>(unscaled) : static_cast<Uint128>(unscaled);
  char buf[48];
  char* e = U128Digits(mag, buf);
  AppendScaledDigits(out, negative, std::string_view(buf, static_cast<size_t>(e - buf)), scale);
}

Status AppendDecimalBytes(std::string& out, std::string_view big_endian, int scale) {
  if (big_endian.empty()) {
    AppendDecimal(out, 0, scale);
    return Ok();
  }
  const std::string_view b = TrimSignBytes(big_endian);
  const bool negative = (static_cast<unsigned char>(b[0]) & 0x80) != 0;
  if (b.size() <= 16) {
    Uint128 u = negative ? ~static_cast<Uint128>(0) : 0;
    for (char c : b) u = (u << 8) | static_cast<unsigned char>(c);
    AppendDecimal(out, static_cast<Int128>(u), scale);
    return Ok();
  }
  if (b.size() > kMaxDecimalBytes) {
    return InvalidArgument(
        fmt::format("a decimal of {} bytes (at most {} are read)", b.size(), kMaxDecimalBytes));
  }
  std::vector<unsigned char> mag(b.begin(), b.end());
  if (negative) {
    // Two's complement magnitude: invert and add one.
    for (auto& c : mag) c = static_cast<unsigned char>(~c);
    for (size_t i = mag.size(); i-- > 0;) {
      if (++mag[i] != 0) break;
    }
  }
  AppendScaledDigits(out, negative, BigDigits(std::move(mag)), scale);
  return Ok();
}

void AppendDate(std::string& out, int64_t days) {
  char buf[internal::kMaxTimestampText];
  out.append(buf, static_cast<size_t>(internal::DateText(buf, days) - buf));
}

void AppendTimestamp(std::string& out, int64_t value, TimeUnit unit, bool utc) {
  AppendTimestampUnits(out, value, unit, utc);
}

void AppendInt96Timestamp(std::string& out, const Int96& v) {
  constexpr int64_t kUnixEpochJulianDay = 2440588;
  constexpr int64_t kNanosPerDay = int64_t{86400} * 1000000000;
  const Int128 nanos =
      static_cast<Int128>(int64_t{v.julian_day()} - kUnixEpochJulianDay) * kNanosPerDay +
      v.nanos_of_day();
  AppendTimestampUnits(out, nanos, TimeUnit::kNanos, true);
}

Status AppendTime(std::string& out, int64_t value, TimeUnit unit) {
  if (value < 0) return InvalidArgument(fmt::format("a negative time of day ({})", value));
  char buf[internal::kMaxTimestampText];
  char* p = buf;
  *p++ = '"';
  p = WriteClock(p, value, unit);
  *p++ = '"';
  out.append(buf, static_cast<size_t>(p - buf));
  return Ok();
}

void AppendUuid(std::string& out, std::string_view b) {
  static constexpr char kHex[] = "0123456789abcdef";
  char buf[38];
  char* p = buf;
  *p++ = '"';
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *p++ = '-';
    const auto c = static_cast<unsigned char>(b[i]);
    *p++ = kHex[c >> 4];
    *p++ = kHex[c & 15];
  }
  *p++ = '"';
  out.append(buf, static_cast<size_t>(p - buf));
}
}  // namespace sluice::parquet
