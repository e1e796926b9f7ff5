// String helpers shared by the modules: UTF-8 checks, ASCII case folding, number formatting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

/// Return the offset of the first byte that is not part of valid UTF-8, or npos.
/// Overlong forms, surrogates and code points above U+10FFFF are invalid.
size_t FindInvalidUtf8(std::string_view s);
inline bool IsValidUtf8(std::string_view s) { return FindInvalidUtf8(s) == std::string_view::npos; }
/// The length of the valid UTF-8 sequence at p[0] (a byte >= 0x80, `n` bytes readable), or 0
/// with `*bad` set to the length of the maximal invalid subpart, which a decoder replaces by one
/// U+FFFD (the WHATWG decoder's rule, and Java's).
size_t Utf8SequenceAt(const unsigned char* p, size_t n, size_t* bad);
/// `bytes` as UTF-8, each maximal invalid subpart replaced by U+FFFD.
std::string ReplaceInvalidUtf8(std::string_view bytes);

/// Whether the `size` bytes at `a` and `b` are equal; inline for short names (schemas'
/// names, records' keys): two overlapping word loads per side up to 16 bytes.
inline bool SameBytes(const char* a, const char* b, size_t size) {
  if (size >= 8) {
    if (size > 16) return std::memcmp(a, b, size) == 0;
    uint64_t a0, b0, a1, b1;
    std::memcpy(&a0, a, 8);
    std::memcpy(&b0, b, 8);
    std::memcpy(&a1, a + size - 8, 8);
    std::memcpy(&b1, b + size - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (size >= 4) {
    uint32_t a0, b0, a1, b1;
    std::memcpy(&a0, a, 4);
    std::memcpy(&b0, b, 4);
    std::memcpy(&a1, a + size - 4, 4);
    std::memcpy(&b1, b + size - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  for (size_t i = 0; i < size; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

/// Copy `n` bytes from `src` to `dst` and return `dst + n`; inline for short pieces (a token, a
/// value): two overlapping word moves up to 16 bytes, where memcpy would be a call.
__attribute__((always_inline)) inline char* CopyBytes(char* dst, const char* src, size_t n) {
  if (n > 16) {
    std::memcpy(dst, src, n);
  } else if (n >= 8) {
    uint64_t a, b;
    std::memcpy(&a, src, 8);
    std::memcpy(&b, src + n - 8, 8);
    std::memcpy(dst, &a, 8);
    std::memcpy(dst + n - 8, &b, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, src, 4);
    std::memcpy(&b, src + n - 4, 4);
    std::memcpy(dst, &a, 4);
    std::memcpy(dst + n - 4, &b, 4);
  } else if (n > 0) {
    dst[0] = src[0];
    dst[n / 2] = src[n / 2];
    dst[n - 1] = src[n - 1];
  }
  return dst + n;
}

/// Append the UTF-8 encoding of code point `cp` (the caller passes a valid scalar value).
void AppendUtf8(std::string& out, uint32_t cp);

/// Lower-case ASCII letters; other bytes are kept.
/// Standard base64 (RFC 4648, with '=' padding).
std::string Base64Encode(std::string_view bytes);
/// Decode padded standard base64; nullopt unless `text` is exactly such an encoding.
std::optional<std::string> Base64Decode(std::string_view text);

std::string AsciiLower(std::string_view s);
std::string AsciiUpper(std::string_view s);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);
std::string_view TrimWhitespace(std::string_view s);
/// Whether `s` is a plain ASCII identifier: [A-Za-z_][A-Za-z0-9_]* (environment variable names,
/// SQL names that need no quoting).
bool IsAsciiIdentifier(std::string_view s);
std::vector<std::string_view> SplitString(std::string_view s, char sep);
std::string JoinStrings(const std::vector<std::string>& parts, std::string_view sep);

/// Shortest text that reads back as the same double, in JSON syntax ("1.5", "1e+16", "-0.0").
/// Integral values keep a ".0" so they stay doubles when read again. NaN and infinities, which
/// JSON cannot hold, come out as "NaN", "Infinity" and "-Infinity".
std::string FormatDouble(double d);

/// Make `s` safe to quote in a one-line message: control characters and invalid UTF-8 become
/// escapes, and very long strings are shortened with "...".
std::string EscapeForMessage(std::string_view s, size_t max_len = 200);

/// Levenshtein distance over bytes, for "did you mean" and rename hints.
size_t EditDistance(std::string_view a, std::string_view b);

}  // namespace sluice
