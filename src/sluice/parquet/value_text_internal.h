// Helpers value_text.cc and value_render.cc share. Not for use outside src/sluice/parquet.
#pragma once

namespace sluice::parquet::internal {

/// Write the shortest round-trip text of `v` (or the quoted "NaN", "Infinity", "-Infinity") at
/// `p`, which has room for 32 bytes; return the end.
char* DoubleText(char* p, double v);
char* FloatText(char* p, float v);

}  // namespace sluice::parquet::internal
