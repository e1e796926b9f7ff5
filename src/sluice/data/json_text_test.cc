#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "sluice/data/json_text_internal.h"

namespace sluice::data::internal {
namespace {

// The token end as the delimiter table defines it, one byte at a time.
size_t ReferenceTokenEnd(const char* p, size_t n) {
  size_t i = 0;
  while (i < n && !kJsonDelimiter[static_cast<unsigned char>(p[i])]) ++i;
  return i;
}

// This file is built with the data plane's SIMD flags, so the vector path is the one tested.
TEST(JsonTextTest, TokenEndsAtTheFirstDelimiterForEveryByteAtEveryPlace) {
  for (size_t n = 0; n <= 40; ++n) {
    for (size_t at = 0; at < n; ++at) {
      for (int b = 0; b < 256; ++b) {
        // An exact-size heap buffer: a read past its end is one a sanitizer build reports.
        auto buf = std::make_unique<char[]>(n);
        std::memset(buf.get(), '7', n);
        buf[at] = static_cast<char>(b);
        const char* end = FindTokenEnd(buf.get(), buf.get() + n);
        ASSERT_EQ(static_cast<size_t>(end - buf.get()), ReferenceTokenEnd(buf.get(), n))
            << "byte " << b << " at " << at << " of " << n;
      }
    }
  }
  EXPECT_EQ(FindTokenEnd(nullptr, nullptr), nullptr);
}

TEST(JsonTextTest, TokenEndsOnlyAtTheElevenDelimiters) {
  int delimiters = 0;
  for (int b = 0; b < 256; ++b) delimiters += kJsonDelimiter[static_cast<size_t>(b)] ? 1 : 0;
  EXPECT_EQ(delimiters, 11);
  const char text[] = "-12.5e+3,\"next\"";
  EXPECT_EQ(FindTokenEnd(text, text + sizeof(text) - 1) - text, 8);
  const char spaced[] = "true\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
  EXPECT_EQ(FindTokenEnd(spaced, spaced + sizeof(spaced) - 1) - spaced, 4);
}

}  // namespace
}  // namespace sluice::data::internal
