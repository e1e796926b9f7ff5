// What the seeded generators of the data-plane benchmark share: their own PRNG and number
// formatting, so that the same N and SEED give the same bytes on any machine.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace bench {

struct Rng {
  uint64_t s;
  uint64_t Next() {  // splitmix64
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return Next() % n; }
};

// `v` in decimal, zero-padded to `width` digits.
inline void Num(std::string& out, uint64_t v, int width = 0) {
  char buf[32];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (int i = n; i < width; ++i) out += '0';
  while (n > 0) out += buf[--n];
}

// A number with two decimals: cents / 100.
inline void Money(std::string& out, uint64_t cents) {
  Num(out, cents / 100);
  out += '.';
  Num(out, cents % 100, 2);
}

// Writes `n` records to `path`, each appended to the buffer by `record(out)`, in pieces of
// about 4 MiB. Returns the process's exit code (2 when the file cannot be written).
template <typename Record>
int WriteRecords(const char* path, uint64_t n, Record&& record) {
  FILE* f = std::fopen(path, "wb");
  if (f == nullptr) {
    std::perror(path);
    return 2;
  }
  std::string out;
  out.reserve(size_t{1} << 22);
  for (uint64_t i = 0; i < n; ++i) {
    record(out);
    if (out.size() > (size_t{1} << 22) - 16384) {
      std::fwrite(out.data(), 1, out.size(), f);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), f);
  if (std::fclose(f) != 0) {
    std::perror(path);
    return 2;
  }
  return 0;
}

}  // namespace bench
