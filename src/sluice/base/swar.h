// Byte tests on eight bytes at once ("SIMD within a register"): each returns a mask with the
// high bit of every byte of `w` that passes. The lowest marked byte is always one that passes
// (a borrow marks only bytes above a real one), so "any byte passes" and "the first byte that
// passes" (std::countr_zero(mask) / 8, for a word loaded little-endian) are exact; bytes above
// the first may be marked falsely.
#pragma once

#include <cstdint>
#include <cstring>

namespace sluice::swar {

inline constexpr uint64_t kOnes = 0x0101010101010101ULL;
inline constexpr uint64_t kHigh = 0x8080808080808080ULL;

/// Eight bytes from `p`, as one word (no alignment needed).
inline uint64_t Load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

/// Bytes below `n` (n at most 0x80).
inline uint64_t BytesBelow(uint64_t w, unsigned char n) { return (w - kOnes * n) & ~w & kHigh; }

/// Bytes equal to `c`.
inline uint64_t BytesEqual(uint64_t w, unsigned char c) {
  const uint64_t x = w ^ (kOnes * c);
  return (x - kOnes) & ~x & kHigh;
}

/// Bytes of 0x80 and above (not ASCII).
inline uint64_t BytesNonAscii(uint64_t w) { return w & kHigh; }

}  // namespace sluice::swar
