// Exact decimal arithmetic for expressions: 128-bit unscaled values (38 digits), with 256-bit
// magnitudes for the intermediate results (a product of two 38-digit numbers, or operands
// brought to a common scale, need up to 77 digits). Rounding is half up (away from zero at
// .5), Java's RoundingMode.HALF_UP, which Spark's Decimal uses.
#include <charconv>
#include <string>

#include "sluice/data/parquet_values_internal.h"
#include "sluice/table/expression_internal.h"

namespace sluice::table::internal {
namespace {

// An unsigned 256-bit magnitude.
struct U256 {
  UInt128 hi = 0;
  UInt128 lo = 0;
};

constexpr UInt128 kLow64 = (UInt128{1} << 64) - 1;

U256 Mul128(UInt128 a, UInt128 b) {
  const UInt128 a0 = a & kLow64, a1 = a >> 64, b0 = b & kLow64, b1 = b >> 64;
  const UInt128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const UInt128 mid = (p00 >> 64) + (p01 & kLow64) + (p10 & kLow64);
  U256 r;
  r.lo = (p00 & kLow64) | (mid << 64);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

int Compare(const U256& a, const U256& b) {
  if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
  if (a.lo != b.lo) return a.lo < b.lo ? -1 : 1;
  return 0;
}

U256 Add(const U256& a, const U256& b) {
  U256 r;
  r.lo = a.lo + b.lo;
  r.hi = a.hi + b.hi + (r.lo < a.lo ? 1 : 0);
  return r;
}

// a - b for a >= b.
U256 Sub(const U256& a, const U256& b) {
  U256 r;
  r.lo = a.lo - b.lo;
  r.hi = a.hi - b.hi - (a.lo < b.lo ? 1 : 0);
  return r;
}

// a * m for m < 2^64; the callers keep products below 2^256.
U256 MulSmall(const U256& a, uint64_t m) {
  const U256 low = Mul128(a.lo, m);
  U256 r = low;
  r.hi += a.hi * m;
  return r;
}

// a / d in place for d < 2^64; returns the remainder.
uint64_t DivSmall(U256* a, uint64_t d) {
  uint64_t limbs[4] = {static_cast<uint64_t>(a->hi >> 64), static_cast<uint64_t>(a->hi),
                       static_cast<uint64_t>(a->lo >> 64), static_cast<uint64_t>(a->lo)};
  UInt128 rem = 0;
  for (uint64_t& limb : limbs) {
    const UInt128 cur = (rem << 64) | limb;
    limb = static_cast<uint64_t>(cur / d);
    rem = cur % d;
  }
  a->hi = (UInt128{limbs[0]} << 64) | limbs[1];
  a->lo = (UInt128{limbs[2]} << 64) | limbs[3];
  return static_cast<uint64_t>(rem);
}

U256 MulPow10(U256 a, int n) {
  while (n > 0) {
    const int step = std::min(n, 18);
    a = MulSmall(a, static_cast<uint64_t>(Pow10(step)));
    n -= step;
  }
  return a;
}

// a / 10^n rounded half up.
U256 DivPow10Round(U256 a, int n) {
  if (n <= 0) return a;
  int left = n - 1;
  while (left > 0) {
    const int step = std::min(left, 18);
    DivSmall(&a, static_cast<uint64_t>(Pow10(step)));
    left -= step;
  }
  const uint64_t digit = DivSmall(&a, 10);
  if (digit >= 5) a = Add(a, U256{0, 1});
  return a;
}

U256 Magnitude(Int128 v) {
  return U256{0,
              v < 0 ? static_cast<UInt128>(0) - static_cast<UInt128>(v) : static_cast<UInt128>(v)};
}

// The signed result of `negative` * `mag` if it has at most `precision` digits.
bool ToInt128(bool negative, const U256& mag, int precision, Int128* out) {
  if (mag.hi != 0 || mag.lo >= Pow10(precision)) return false;
  *out = negative ? -static_cast<Int128>(mag.lo) : static_cast<Int128>(mag.lo);
  return true;
}

// `mag` from scale `from` to scale `to`.
U256 Rescale(const U256& mag, int from, int to) {
  return to >= from ? MulPow10(mag, to - from) : DivPow10Round(mag, from - to);
}

// a mod b (b != 0) by shift and subtract.
U256 Mod(const U256& a, const U256& b) {
  U256 rem;
  for (int bit = 255; bit >= 0; --bit) {
    rem.hi = (rem.hi << 1) | (rem.lo >> 127);
    rem.lo = rem.lo << 1;
    const UInt128 word = bit >= 128 ? a.hi : a.lo;
    rem.lo |= (word >> (bit % 128)) & 1;
    if (Compare(rem, b) >= 0) rem = Sub(rem, b);
  }
  return rem;
}

bool Divide(Int128 a, int sa, Int128 b, int sb, int precision, int scale, Int128* out) {
  if (b == 0) return false;
  const bool negative = (a < 0) != (b < 0);
  const UInt128 ua = Magnitude(a).lo;
  const UInt128 ub = Magnitude(b).lo;
  const UInt128 limit = Pow10(precision);
  // The quotient at `scale` is ua * 10^e / ub.
  const int e = scale - sa + sb;
  UInt128 q = 0;
  UInt128 r = 0;
  UInt128 divisor = ub;
  if (e >= 0) {
    q = ua / ub;
    r = ua % ub;
  } else {
    U256 d = MulPow10(U256{0, ub}, -e);
    if (d.hi != 0) {  // the divisor exceeds every dividend: the quotient rounds to zero
      *out = 0;
      return true;
    }
    divisor = d.lo;
    q = ua / divisor;
    r = ua % divisor;
  }
  if (q >= limit) return false;
  // One decimal digit at a time: r < divisor, so r * 10 is summed below 2 * divisor.
  auto next_digit = [&]() {
    UInt128 acc = 0;
    unsigned digit = 0;
    for (int k = 0; k < 10; ++k) {
      acc += r;
      if (acc >= divisor) {
        acc -= divisor;
        ++digit;
      }
    }
    r = acc;
    return digit;
  };
  for (int k = 0; k < e; ++k) {
    q = q * 10 + next_digit();
    if (q >= limit) return false;
  }
  if (next_digit() >= 5) ++q;
  if (q >= limit) return false;
  *out = negative ? -static_cast<Int128>(q) : static_cast<Int128>(q);
  return true;
}

}  // namespace

UInt128 Pow10(int n) {
  UInt128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

std::string DecimalToString(Int128 unscaled, int scale) {
  UInt128 mag = Magnitude(unscaled).lo;
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  } while (mag != 0);
  if (scale > 0) {
    if (static_cast<int>(digits.size()) <= scale) {
      digits.insert(0, static_cast<size_t>(scale + 1) - digits.size(), '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return unscaled < 0 ? "-" + digits : digits;
}

bool DecimalFromText(std::string_view text, int precision, int scale, Int128* out) {
  return data::internal::DecimalFromText(text, precision, scale, out);
}

bool DecimalRescale(Int128 unscaled, int from, int to, int precision, Int128* out) {
  return ToInt128(unscaled < 0, Rescale(Magnitude(unscaled), from, to), precision, out);
}

int DecimalCompare(Int128 a, int sa, Int128 b, int sb) {
  if ((a < 0) != (b < 0)) return a < 0 ? -1 : 1;
  const int s = std::max(sa, sb);
  const int c = Compare(Rescale(Magnitude(a), sa, s), Rescale(Magnitude(b), sb, s));
  return a < 0 ? -c : c;
}

double DecimalToDouble(Int128 unscaled, int scale) {
  // Through the text, so that the double is the correctly rounded one.
  const std::string s = DecimalToString(unscaled, scale);
  double d = 0;
  std::from_chars(s.data(), s.data() + s.size(), d);
  return d;
}

bool DecimalArithmetic(BinaryOp op, Int128 a, int sa, Int128 b, int sb, int precision, int scale,
                       Int128* out) {
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSubtract: {
      const int s = std::max(sa, sb);
      const U256 ma = Rescale(Magnitude(a), sa, s);
      const U256 mb = Rescale(Magnitude(b), sb, s);
      const bool na = a < 0;
      const bool nb = (b < 0) != (op == BinaryOp::kSubtract);
      bool negative = na;
      U256 sum;
      if (na == nb) {
        sum = Add(ma, mb);
      } else if (Compare(ma, mb) >= 0) {
        sum = Sub(ma, mb);
      } else {
        sum = Sub(mb, ma);
        negative = nb;
      }
      return ToInt128(negative, Rescale(sum, s, scale), precision, out);
    }
    case BinaryOp::kMultiply: {
      const U256 product = Mul128(Magnitude(a).lo, Magnitude(b).lo);
      return ToInt128((a < 0) != (b < 0), Rescale(product, sa + sb, scale), precision, out);
    }
    case BinaryOp::kDivide:
      return Divide(a, sa, b, sb, precision, scale, out);
    case BinaryOp::kRemainder: {
      if (b == 0) return false;
      const int s = std::max(sa, sb);
      const U256 rem = Mod(Rescale(Magnitude(a), sa, s), Rescale(Magnitude(b), sb, s));
      // The remainder takes the dividend's sign (BigDecimal.remainder).
      return ToInt128(a < 0, Rescale(rem, s, scale), precision, out);
    }
    case BinaryOp::kIntDivide:
    case BinaryOp::kConcat:
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr:
    case BinaryOp::kBitXor:
    case BinaryOp::kEq:
    case BinaryOp::kNullSafeEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
      return false;
  }
  return false;
}

}  // namespace sluice::table::internal
