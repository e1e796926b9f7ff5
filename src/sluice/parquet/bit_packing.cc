// Bit packing LSB first in groups of 8 values (the RLE hybrid's and the delta miniblocks'
// layout), ULEB128, and the value arena.
#include <algorithm>
#include <array>
#include <utility>

#include "sluice/parquet/encoding_internal.h"

namespace sluice::parquet {

char* ValueArena::Allocate(size_t size) {
  static char empty[1];
  if (size == 0) return empty;
  if (size > limit_ - allocated_) return nullptr;
  if (size > left_) {
    // Blocks grow with what was used, up to 1 MiB, so small pages stay small; a bigger value
    // gets a block of its own size. Never more than the limit.
    size_t block = std::clamp<size_t>(allocated_, 4096, size_t{1} << 20);
    block = std::min(std::max(block, size), limit_ - allocated_);
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(block));
    next_ = blocks_.back().get();
    left_ = block;
  }
  allocated_ += size;
  char* p = next_;
  next_ += size;
  left_ -= size;
  return p;
}

namespace internal {

bool ReadUleb(const uint8_t* data, size_t size, size_t* pos, int max_bits, uint64_t* value) {
  uint64_t v = 0;
  size_t p = *pos;
  for (int shift = 0; shift < max_bits; shift += 7) {
    if (p >= size) return false;
    uint8_t byte = data[p++];
    uint64_t bits = byte & 0x7f;
    // The last byte may only hold the bits that remain below max_bits.
    if (max_bits - shift < 7 && (bits >> (max_bits - shift)) != 0) return false;
    v |= bits << shift;
    if ((byte & 0x80) == 0) {
      *pos = p;
      *value = v;
      return true;
    }
  }
  return false;
}

void AppendUleb(uint64_t value, std::string& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

namespace {

template <int W>
constexpr uint64_t kMask = W == 64 ? ~uint64_t{0} : (uint64_t{1} << W) - 1;

// Value I of a group of width W. Reads up to 16 bytes from `in` (the group's start); callers
// guarantee them.
template <class U, int W, int I>
inline void UnpackOne(const uint8_t* in, U* out) {
  constexpr int kBit = I * W;
  constexpr int kByte = kBit / 8;
  constexpr int kShift = kBit % 8;
  uint64_t v = LoadLE<uint64_t>(in + kByte) >> kShift;
  if constexpr (kShift + W > 64) {
    v |= LoadLE<uint64_t>(in + kByte + 8) << (64 - kShift);
  }
  out[I] = static_cast<U>(v & kMask<W>);
}

// Unpack `groups` whole groups; reads up to 16 bytes past each group's start + W.
template <class U, int W>
void UnpackFast(const uint8_t* in, U* out, size_t groups) {
  if constexpr (W == 0) {
    std::fill(out, out + groups * 8, U{0});
  } else if constexpr (W == 8 * sizeof(U) && !std::is_same_v<U, bool>) {
    std::memcpy(out, in, groups * 8 * sizeof(U));
  } else {
    for (size_t g = 0; g < groups; ++g, in += W, out += 8) {
      [&]<size_t... I>(std::index_sequence<I...>) { (UnpackOne<U, W, int(I)>(in, out), ...); }
      (std::make_index_sequence<8>{});
    }
  }
}

template <class U>
using UnpackFn = void (*)(const uint8_t*, U*, size_t);

template <class U, size_t... W>
constexpr std::array<UnpackFn<U>, sizeof...(W)> MakeUnpackTable(std::index_sequence<W...>) {
  return {&UnpackFast<U, int(W)>...};
}

template <class U>
constexpr auto kUnpackTable =
    MakeUnpackTable<U>(std::make_index_sequence<kMaxUnpackWidth<U> + 1>{});

// Bytes past a group's end the fast kernels may read.
constexpr size_t kOverread = 16;

// Value I of a group of width W (at most 32) placed in the group's words.
template <class U, int W, int I>
inline void PackOne(const U* in, uint64_t* words) {
  constexpr int kBit = I * W;
  constexpr int kWord = kBit / 64;
  constexpr int kShift = kBit % 64;
  const uint64_t v = uint64_t(in[I]) & kMask<W>;
  words[kWord] |= v << kShift;
  if constexpr (kShift + W > 64) words[kWord + 1] |= v >> (64 - kShift);
}

// Append `groups` groups of width W (1..32): a group is at most 256 bits, built in four words
// whose first W bytes are its bytes (the machine is little endian: encoding_internal.h asserts
// it).
template <class U, int W>
void PackFast(const U* in, size_t groups, std::string& out) {
  for (size_t g = 0; g < groups; ++g, in += 8) {
    uint64_t words[4] = {0, 0, 0, 0};
    [&]<size_t... I>(std::index_sequence<I...>) { (PackOne<U, W, int(I)>(in, words), ...); }
    (std::make_index_sequence<8>{});
    out.append(reinterpret_cast<const char*>(words), size_t(W));
  }
}

template <class U>
using PackFn = void (*)(const U*, size_t, std::string&);

template <class U, size_t... W>
constexpr std::array<PackFn<U>, sizeof...(W)> MakePackTable(std::index_sequence<W...>) {
  // Width 0 is never looked up (a 0-bit group has no bytes); it holds width 1's kernel.
  return {&PackFast<U, std::max(int(W), 1)>...};
}

template <class U>
constexpr auto kPackTable = MakePackTable<U>(std::make_index_sequence<33>{});

}  // namespace

template <class U>
void UnpackGroups(const uint8_t* in, size_t in_size, int bit_width, U* out, size_t groups) {
  if (groups == 0) return;
  UnpackFn<U> fn = kUnpackTable<U>[size_t(bit_width)];
  const size_t w = size_t(bit_width);
  if (w == 0 || (w == 8 * sizeof(U) && !std::is_same_v<U, bool>)) {
    fn(in, out, groups);  // no over-read
    return;
  }
  // Groups whose over-read stays inside the input go straight through; the last ones through a
  // padded copy.
  size_t safe = in_size >= kOverread ? std::min(groups, (in_size - kOverread) / w) : 0;
  fn(in, out, safe);
  for (size_t g = safe; g < groups; ++g) {
    uint8_t buf[64 + kOverread] = {};
    std::memcpy(buf, in + g * w, w);
    fn(buf, out + g * 8, 1);
  }
}

template <class U>
void UnpackPartialGroup(const uint8_t* in, size_t in_size, int bit_width, U* out) {
  uint8_t buf[64 + kOverread] = {};
  const size_t bytes = std::min<size_t>(in_size, size_t(bit_width));
  if (bytes > 0) std::memcpy(buf, in, bytes);
  kUnpackTable<U>[size_t(bit_width)](buf, out, 1);
}

template <class U>
void PackGroups(const U* in, size_t groups, int bit_width, std::string& out) {
  if (bit_width == 0) return;  // a 0-bit group has no bytes
  if (bit_width <= 32) {
    kPackTable<U>[size_t(bit_width)](in, groups, out);
    return;
  }
  // 33 to 64 bits: each value goes in two halves, its low 32 bits and the rest. The accumulator
  // holds fewer than 8 bits between halves, so 32 more always fit.
  const size_t start = out.size();
  out.resize(start + groups * size_t(bit_width));
  auto* p = reinterpret_cast<uint8_t*>(out.data() + start);
  const uint64_t mask = bit_width == 64 ? ~uint64_t{0} : (uint64_t{1} << bit_width) - 1;
  uint64_t acc = 0;
  int bits = 0;
  auto push = [&](uint64_t v, int w) {
    acc |= v << bits;
    bits += w;
    while (bits >= 8) {
      *p++ = static_cast<uint8_t>(acc);
      acc >>= 8;
      bits -= 8;
    }
  };
  for (size_t i = 0; i < groups * 8; ++i) {
    const uint64_t v = uint64_t(in[i]) & mask;
    push(v & 0xffffffffu, 32);
    push(v >> 32, bit_width - 32);
  }
}

#define SLUICE_UNPACK_INSTANTIATE(U)                                      \
  template void UnpackGroups<U>(const uint8_t*, size_t, int, U*, size_t); \
  template void UnpackPartialGroup<U>(const uint8_t*, size_t, int, U*);
SLUICE_UNPACK_INSTANTIATE(bool)
SLUICE_UNPACK_INSTANTIATE(uint8_t)
SLUICE_UNPACK_INSTANTIATE(int16_t)
SLUICE_UNPACK_INSTANTIATE(uint16_t)
SLUICE_UNPACK_INSTANTIATE(int32_t)
SLUICE_UNPACK_INSTANTIATE(uint32_t)
SLUICE_UNPACK_INSTANTIATE(uint64_t)
#undef SLUICE_UNPACK_INSTANTIATE
template void PackGroups<uint32_t>(const uint32_t*, size_t, int, std::string&);
template void PackGroups<uint64_t>(const uint64_t*, size_t, int, std::string&);

}  // namespace internal
}  // namespace sluice::parquet
