// Helpers the encodings share and other modules must not use: little-endian loads, ULEB128 and
// zigzag, bit packing of groups of 8 values LSB first, and error messages with byte offsets.
#pragma once

#include <fmt/format.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "sluice/base/result.h"
#include "sluice/parquet/encoding.h"

namespace sluice::parquet::internal {

// Parquet is little endian; so is every machine sluice builds for, so a load is a memcpy.
static_assert(std::endian::native == std::endian::little,
              "sluice's Parquet code assumes little endian");

template <class T>
inline T LoadLE(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <class T>
inline void AppendLE(T v, std::string& out) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out.append(buf, sizeof(T));
}

/// The error every decoder returns: kInvalidArgument "byte offset <offset>: <what>".
template <class... Args>
inline Unexpected<Error> ErrorAt(size_t offset, fmt::format_string<Args...> what, Args&&... args) {
  return InvalidArgument(
      fmt::format("byte offset {}: {}", offset, fmt::format(what, std::forward<Args>(args)...)));
}

/// Read a ULEB128 of at most `max_bits` bits (32 or 64) at data[*pos]; advance *pos. False when
/// it runs off the end or past max_bits.
bool ReadUleb(const uint8_t* data, size_t size, size_t* pos, int max_bits, uint64_t* value);
void AppendUleb(uint64_t value, std::string& out);

inline uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t ZigZagDecode(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

/// The widest bit width a value of U can receive from the unpackers.
template <class U>
inline constexpr int kMaxUnpackWidth = std::is_same_v<U, bool> ? 1
                                       : std::is_signed_v<U>   ? int(sizeof(U) * 8 - 1)
                                                               : int(sizeof(U) * 8);

/// Unpack `groups` groups of 8 values of `bit_width` bits (0..kMaxUnpackWidth<U>) from `in`,
/// which holds `in_size` >= groups * bit_width readable bytes. U: bool, uint8_t, int16_t,
/// uint16_t, int32_t, uint32_t, uint64_t.
template <class U>
void UnpackGroups(const uint8_t* in, size_t in_size, int bit_width, U* out, size_t groups);
/// Unpack one group from the `in_size` (< bit_width allowed: the rest read as zero bits) bytes
/// at `in`.
template <class U>
void UnpackPartialGroup(const uint8_t* in, size_t in_size, int bit_width, U* out);

/// Append `groups` groups of 8 values packed at `bit_width` bits (values masked to it):
/// groups * bit_width bytes. U: uint32_t (bit_width <= 32) or uint64_t (<= 64).
template <class U>
void PackGroups(const U* in, size_t groups, int bit_width, std::string& out);

/// The physical type a decoder of T reads; for std::string_view BYTE_ARRAY or
/// FIXED_LEN_BYTE_ARRAY (with a positive type_length). kInvalidArgument otherwise.
template <class T>
Status CheckDecoderType(const DecoderOptions& options);

/// The physical type's name for a decoder of T, in error messages ("BYTE_ARRAY" for string_view).
template <class T>
constexpr std::string_view TypeName() {
  if constexpr (std::is_same_v<T, bool>) return "BOOLEAN";
  if constexpr (std::is_same_v<T, int32_t>) return "INT32";
  if constexpr (std::is_same_v<T, int64_t>) return "INT64";
  if constexpr (std::is_same_v<T, Int96>) return "INT96";
  if constexpr (std::is_same_v<T, float>) return "FLOAT";
  if constexpr (std::is_same_v<T, double>) return "DOUBLE";
  return "BYTE_ARRAY";
}

/// Bytes of one value of T in PLAIN (for std::string_view, the FIXED_LEN_BYTE_ARRAY width or
/// BYTE_ARRAY's smallest, its 4-byte length); for bool, 0 (a bit).
template <class T>
size_t PlainWidth(const DecoderOptions& options) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return options.type == PhysicalType::kFixedLenByteArray ? size_t(options.type_length) : 4;
  } else if constexpr (std::is_same_v<T, bool>) {
    return 0;
  } else {
    return sizeof(T);
  }
}

}  // namespace sluice::parquet::internal
