#include "sluice/table/z85.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>

namespace sluice::table {
namespace {

constexpr std::string_view kAlphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

// Each byte's digit value, or -1 for bytes outside the alphabet.
constexpr std::array<int8_t, 256> MakeDigits() {
  std::array<int8_t, 256> d{};
  for (auto& v : d) v = -1;
  for (size_t i = 0; i < kAlphabet.size(); ++i) {
    d[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  }
  return d;
}
constexpr std::array<int8_t, 256> kDigits = MakeDigits();

}  // namespace

std::string Z85Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 3) / 4 * 5);
  for (size_t i = 0; i < bytes.size(); i += 4) {
    uint32_t word = 0;
    for (size_t j = 0; j < 4; ++j) {
      const uint8_t b = i + j < bytes.size() ? static_cast<uint8_t>(bytes[i + j]) : 0;
      word = (word << 8) | b;
    }
    char group[5];
    for (int k = 4; k >= 0; --k) {
      group[k] = kAlphabet[word % 85];
      word /= 85;
    }
    out.append(group, 5);
  }
  return out;
}

Result<std::string> Z85Decode(std::string_view text) {
  if (text.size() % 5 != 0) {
    return InvalidArgument(
        fmt::format("Z85 text of {} characters: the length must be a multiple of 5", text.size()));
  }
  std::string out;
  out.reserve(text.size() / 5 * 4);
  for (size_t i = 0; i < text.size(); i += 5) {
    uint64_t word = 0;
    for (size_t j = i; j < i + 5; ++j) {
      const int digit = kDigits[static_cast<unsigned char>(text[j])];
      if (digit < 0) {
        return InvalidArgument(fmt::format("Z85 text: byte 0x{:02X} at offset {} is no Z85 digit",
                                           static_cast<unsigned char>(text[j]), j));
      }
      word = word * 85 + static_cast<uint64_t>(digit);
    }
    // Five digits reach 85^5 - 1, past 32 bits; such a group encodes no bytes.
    if (word > 0xFFFFFFFFu) {
      return InvalidArgument(fmt::format("Z85 text: the group at offset {} exceeds 32 bits", i));
    }
    for (int shift = 24; shift >= 0; shift -= 8) {
      out.push_back(static_cast<char>((word >> shift) & 0xFF));
    }
  }
  return out;
}

}  // namespace sluice::table
