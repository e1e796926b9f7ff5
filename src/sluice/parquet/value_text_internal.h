// Helpers value_text.cc and value_render.cc share. Not for use outside src/sluice/parquet.
#pragma once

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

}  // namespace sluice::parquet::internal
