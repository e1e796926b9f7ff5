// Every power of ten a uint64_t holds, 10^0 to 10^19, for decimal digits counted in 64 bits.
#pragma once

#include <array>
#include <cstdint>

namespace sluice {

inline constexpr std::array<uint64_t, 20> kPowersOfTen = [] {
  std::array<uint64_t, 20> p{1};
  for (size_t k = 1; k < p.size(); ++k) p[k] = p[k - 1] * 10;
  return p;
}();

}  // namespace sluice
