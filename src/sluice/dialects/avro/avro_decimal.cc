// Decimal values in Avro's JSON encoding: the unscaled integer as big-endian two's-complement
// bytes, held in a string of code points U+0000..U+00FF. Defaults of decimal fields use it, and
// the model holds them as numbers, so the converters translate with these helpers. Arbitrary
// length: Avro decimals are not limited to 38 digits.
#include <algorithm>
#include <cstdlib>

#include "sluice/dialects/avro/avro_internal.h"

namespace sluice::dialects::avro::internal {

namespace {

// Two's-complement negation in place (big-endian).
void Negate(std::vector<uint8_t>& bytes) {
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(~b);
  for (size_t i = bytes.size(); i-- > 0;) {
    if (++bytes[i] != 0) break;
  }
}

}  // namespace

std::string UnscaledBytesToDecimalText(const std::vector<uint8_t>& bytes, int scale) {
  bool negative = !bytes.empty() && (bytes[0] & 0x80) != 0;
  std::vector<uint8_t> magnitude = bytes;
  if (negative) Negate(magnitude);
  // Repeated division by ten, most significant byte first.
  std::string digits;
  while (!magnitude.empty()) {
    unsigned remainder = 0;
    for (uint8_t& b : magnitude) {
      unsigned cur = (remainder << 8) | b;
      b = static_cast<uint8_t>(cur / 10);
      remainder = cur % 10;
    }
    digits.push_back(static_cast<char>('0' + remainder));
    auto first = std::find_if(magnitude.begin(), magnitude.end(), [](uint8_t b) { return b != 0; });
    magnitude.erase(magnitude.begin(), first);
  }
  if (digits.empty()) digits.push_back('0');
  // Pad to at least scale + 1 digits ("5" at scale 2 is "0.05"), still reversed.
  size_t s = scale > 0 ? static_cast<size_t>(scale) : 0;
  while (digits.size() < s + 1) digits.push_back('0');
  bool zero = digits.find_first_not_of('0') == std::string::npos;
  std::string out;
  out.reserve(digits.size() + 2);
  if (negative && !zero) out.push_back('-');
  for (size_t i = digits.size(); i-- > 0;) {
    out.push_back(digits[i]);
    if (i == s && s > 0) out.push_back('.');
  }
  return out;
}

std::optional<std::vector<uint8_t>> DecimalToUnscaledBytes(std::string_view text, int precision,
                                                           int scale,
                                                           std::optional<int64_t> fixed_size) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  std::string digits;
  int64_t exponent = 0;  // value = digits * 10^exponent
  bool any = false;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    digits.push_back(text[i++]);
    any = true;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      digits.push_back(text[i++]);
      --exponent;
      any = true;
    }
  }
  if (!any) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) exp_negative = text[i++] == '-';
    int64_t e = 0;
    bool exp_any = false;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (e < 1'000'000'000) e = e * 10 + (text[i] - '0');
      ++i;
      exp_any = true;
    }
    if (!exp_any) return std::nullopt;
    exponent += exp_negative ? -e : e;
  }
  if (i != text.size()) return std::nullopt;

  // Strip leading zeros; then scale to the unscaled integer digits * 10^(exponent + scale).
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  int64_t shift = exponent + scale;
  if (digits.empty()) {
    shift = 0;
  } else if (shift < 0) {
    // Digits below the scale must all be zeros, else the value is not exact at this scale. The
    // leading digit is not zero, so dropping every digit is never exact.
    auto drop = static_cast<uint64_t>(-shift);
    if (drop >= digits.size()) return std::nullopt;
    if (digits.find_first_not_of('0', digits.size() - drop) != std::string::npos) {
      return std::nullopt;
    }
    digits.resize(digits.size() - drop);
    shift = 0;
  }
  if (static_cast<int64_t>(digits.size()) + shift > precision) return std::nullopt;
  digits.append(static_cast<size_t>(shift), '0');

  // Decimal digits to base-256 magnitude.
  std::vector<uint8_t> magnitude;  // little-endian while building
  for (char d : digits) {
    unsigned carry = static_cast<unsigned>(d - '0');
    for (uint8_t& b : magnitude) {
      unsigned cur = b * 10u + carry;
      b = static_cast<uint8_t>(cur & 0xFF);
      carry = cur >> 8;
    }
    while (carry != 0) {
      magnitude.push_back(static_cast<uint8_t>(carry & 0xFF));
      carry >>= 8;
    }
  }
  std::reverse(magnitude.begin(), magnitude.end());
  // One extra byte when the top bit is taken, so the sign stays positive before negation.
  if (magnitude.empty() || (magnitude[0] & 0x80) != 0) magnitude.insert(magnitude.begin(), 0);
  if (negative && !digits.empty()) {
    Negate(magnitude);
    // Drop redundant 0xFF sign bytes (-128 is one byte 0x80).
    while (magnitude.size() > 1 && magnitude[0] == 0xFF && (magnitude[1] & 0x80) != 0) {
      magnitude.erase(magnitude.begin());
    }
  }
  if (fixed_size) {
    auto size = static_cast<size_t>(*fixed_size);
    if (magnitude.size() > size) return std::nullopt;
    uint8_t fill = (magnitude[0] & 0x80) != 0 ? 0xFF : 0x00;
    magnitude.insert(magnitude.begin(), size - magnitude.size(), fill);
  }
  return magnitude;
}

}  // namespace sluice::dialects::avro::internal
