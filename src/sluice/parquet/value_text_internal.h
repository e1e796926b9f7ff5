// Helpers value_text.cc and value_render.cc share. Not for use outside src/sluice/parquet.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sluice/parquet/value_text.h"

namespace sluice::parquet::internal {

/// Room DateText and TimestampText need at most.
inline constexpr size_t kMaxTimestampText = 96;

/// Write the shortest round-trip text of `v` (or the quoted "NaN", "Infinity", "-Infinity") at
/// `p`, which has room for 32 bytes; return the end.
char* DoubleText(char* p, double v);
char* FloatText(char* p, float v);
/// Write a quoted date ("YYYY-MM-DD") or timestamp (value_text.h) at `p`; return the end.
char* DateText(char* p, int64_t days);
char* TimestampText(char* p, Int128 value, TimeUnit unit, bool utc);

/// TimestampText for a run of values, keeping the last date written.
class TimestampWriter {
 public:
  char* Write(char* p, Int128 value, TimeUnit unit, bool utc);

 private:
  bool has_date_ = false;
  int64_t days_ = 0;
  char date_[32];
  size_t date_size_ = 0;
};

/// Scales DecimalText takes, and the room it needs at most.
inline constexpr int kMaxDecimalTextScale = 38;
inline constexpr size_t kMaxDecimalText = 48;
/// Write `unscaled` * 10^-scale with `scale` (0..kMaxDecimalTextScale) digits after the point
/// at `p`; return the end.
char* DecimalText(char* p, Int128 unscaled, int scale);

}  // namespace sluice::parquet::internal
