#include "sluice/parquet/statistics_builder.h"

#include <algorithm>

namespace sluice::parquet {

int CompareBigEndianSigned(std::string_view a, std::string_view b) {
  const bool a_neg = !a.empty() && (static_cast<uint8_t>(a[0]) & 0x80) != 0;
  const bool b_neg = !b.empty() && (static_cast<uint8_t>(b[0]) & 0x80) != 0;
  if (a_neg != b_neg) return a_neg ? -1 : 1;
  // Same sign: sign-extend the shorter to the longer's length, then compare as unsigned bytes
  // (two's complement keeps the order within one sign).
  const size_t n = std::max(a.size(), b.size());
  const uint8_t pad = a_neg ? 0xFF : 0x00;
  for (size_t i = 0; i < n; ++i) {
    const size_t ai = i + a.size();
    const size_t bi = i + b.size();
    const uint8_t x = ai < n ? pad : static_cast<uint8_t>(a[ai - n]);
    const uint8_t y = bi < n ? pad : static_cast<uint8_t>(b[bi - n]);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

namespace {

template <class T>
std::string LittleEndianBytes(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));  // the build targets little-endian machines only
  return s;
}

}  // namespace

template <class T>
void Bounds<T>::WriteTo(Statistics& stats) const {
  if (!any_) return;
  T lo = min_;
  T hi = max_;
  if constexpr (std::is_floating_point_v<T>) {
    // The spec's rule for signed zeros: readers cannot know which zero a page holds, so the
    // bounds must cover both.
    if (lo == T(0)) lo = -T(0);
    if (hi == T(0)) hi = T(0);
  }
  if constexpr (std::is_same_v<T, std::string_view>) {
    stats.min_value = std::string(lo);
    stats.max_value = std::string(hi);
  } else if constexpr (std::is_same_v<T, bool>) {
    stats.min_value = std::string(1, lo ? '\1' : '\0');
    stats.max_value = std::string(1, hi ? '\1' : '\0');
  } else if constexpr (std::is_same_v<T, Int96>) {
    return;
  } else {
    stats.min_value = LittleEndianBytes(lo);
    stats.max_value = LittleEndianBytes(hi);
  }
  stats.is_min_value_exact = true;
  stats.is_max_value_exact = true;
}

template class Bounds<bool>;
template class Bounds<int32_t>;
template class Bounds<int64_t>;
template class Bounds<Int96>;
template class Bounds<float>;
template class Bounds<double>;
template class Bounds<std::string_view>;

}  // namespace sluice::parquet
