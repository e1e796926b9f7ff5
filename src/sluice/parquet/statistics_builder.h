// Column and page statistics as a writer computes them: the minimum and maximum of a run of
// values in the order parquet-format defines for the column's type (ColumnOrder TYPE_ORDER), and
// their encoding into Statistics.min_value / max_value.
//
// Orders (parquet.thrift, "ColumnOrder"): signed for INT32, INT64 and the signed integer and
// decimal annotations; unsigned for unsigned integers; unsigned bytewise for BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY strings, binary, uuids; decimals stored as bytes by value (big-endian two's
// complement); false < true for BOOLEAN; FLOAT and DOUBLE by value with NaN left out, a minimum of
// zero written as -0.0 and a maximum of zero as +0.0; INT96 has no order (no min/max written).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "sluice/parquet/encoding.h"
#include "sluice/parquet/metadata.h"

namespace sluice::parquet {

/// How a column's values compare for min/max statistics.
enum class StatisticsOrder : uint8_t {
  kSigned,           // numbers, booleans (false < true)
  kUnsigned,         // unsigned integers; byte arrays compared as unsigned bytes
  kBigEndianSigned,  // decimals in BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY: two's complement by value
  kUndefined,        // INT96 and anything without a defined order: no min/max
};

/// Compare two big-endian two's complement integers of any lengths by value (shorter ones are
/// sign-extended): negative, zero or positive as a < b, a == b, a > b.
int CompareBigEndianSigned(std::string_view a, std::string_view b);

/// The running minimum and maximum of values of type T (bool, int32_t, int64_t, Int96, float,
/// double, std::string_view) under one order. A string_view bound points at the caller's bytes,
/// which must outlive the bounds. Not thread-safe.
template <class T>
class Bounds {
 public:
  explicit Bounds(StatisticsOrder order) : order_(order) {}

  void Update(const T& v) {
    if (order_ == StatisticsOrder::kUndefined) return;
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v)) return;
    }
    if (!any_) {
      min_ = v;
      max_ = v;
      any_ = true;
      return;
    }
    if (Less(v, min_)) min_ = v;
    if (Less(max_, v)) max_ = v;
  }
  void Merge(const Bounds& other) {
    if (!other.any_) return;
    Update(other.min_);
    Update(other.max_);
  }

  bool any() const { return any_; }
  /// The bounds so far (meaningful when any()).
  const T& min() const { return min_; }
  const T& max() const { return max_; }
  /// Set min_value and max_value of `stats` (PLAIN bytes of the value, without a length prefix
  /// for byte arrays) when there is a bound, with is_*_value_exact true: nothing is truncated.
  void WriteTo(Statistics& stats) const;

 private:
  bool Less(const T& a, const T& b) const;

  StatisticsOrder order_;
  bool any_ = false;
  T min_{};
  T max_{};
};

template <class T>
inline bool Bounds<T>::Less(const T& a, const T& b) const {
  if constexpr (std::is_same_v<T, std::string_view>) {
    if (order_ == StatisticsOrder::kBigEndianSigned) return CompareBigEndianSigned(a, b) < 0;
    return a < b;  // char_traits<char>::compare is memcmp: unsigned bytes
  } else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
    if (order_ == StatisticsOrder::kUnsigned) {
      using U = std::make_unsigned_t<T>;
      return static_cast<U>(a) < static_cast<U>(b);
    }
    return a < b;
  } else if constexpr (std::is_same_v<T, Int96>) {
    return false;  // never reached: kUndefined
  } else {
    return a < b;
  }
}

extern template class Bounds<bool>;
extern template class Bounds<int32_t>;
extern template class Bounds<int64_t>;
extern template class Bounds<Int96>;
extern template class Bounds<float>;
extern template class Bounds<double>;
extern template class Bounds<std::string_view>;

}  // namespace sluice::parquet
