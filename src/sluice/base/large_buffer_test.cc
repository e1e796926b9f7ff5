#include "sluice/base/large_buffer.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>

namespace sluice {
namespace {

// Buffers keep their contents as they grow across the threshold and back, in any size.
TEST(LargeBufferTest, VectorsAndStringsKeepTheirContentsAcrossTheThreshold) {
  LargeVector<int64_t> v;
  const size_t n = 3 * kLargeBufferBytes / sizeof(int64_t) + 17;  // several huge pages
  for (size_t i = 0; i < n; ++i) v.push_back(static_cast<int64_t>(i * 7));
  for (size_t i = 0; i < n; i += 4099) ASSERT_EQ(v[i], static_cast<int64_t>(i * 7));
  EXPECT_EQ(v.back(), static_cast<int64_t>((n - 1) * 7));
  v.resize(10);
  v.shrink_to_fit();
  EXPECT_EQ(v[9], 63);

  LargeString s;
  for (int i = 0; s.size() < 5 * kLargeBufferBytes; ++i) s += std::to_string(i) + ",";
  EXPECT_TRUE(s.starts_with("0,1,2,3,"));
  const LargeString copy = s;
  EXPECT_EQ(copy, s);
  EXPECT_EQ(std::string_view(copy).substr(copy.size() - 1), ",");
}

// A large buffer starts on a 2 MiB boundary, where a huge page can back it (under
// AddressSanitizer buffers come from malloc instead).
TEST(LargeBufferTest, LargeBuffersStartOnAHugePageBoundary) {
  if (!internal::LargeBuffersAreMapped()) GTEST_SKIP() << "buffers come from malloc under ASan";
  for (size_t bytes : {kLargeBufferBytes, kLargeBufferBytes + 1, 7 * kLargeBufferBytes + 4096}) {
    void* p = internal::AllocateBuffer(bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kLargeBufferBytes, 0u) << bytes;
    static_cast<char*>(p)[0] = 1;
    static_cast<char*>(p)[bytes - 1] = 2;  // the whole size is usable
    internal::FreeBuffer(p, bytes);
  }
  void* small = internal::AllocateBuffer(100);
  static_cast<char*>(small)[99] = 1;
  internal::FreeBuffer(small, 100);
}

// With the process's memory policy, blocks of a few megabytes come from malloc's heap, not from
// a mapping of their own, and a freed one stays in the heap for the next.
TEST(LargeBufferTest, FreedBlocksStayForTheNextAllocation) {
  if (!internal::LargeBuffersAreMapped()) GTEST_SKIP() << "AddressSanitizer's malloc";
  KeepFreedMemoryForReuse();
  const size_t sizes[] = {size_t{1} << 20, size_t{6} << 20, size_t{16} << 20};
  for (size_t n : sizes) {
    const struct mallinfo2 before = mallinfo2();
    char* p = static_cast<char*>(std::malloc(n));
    ASSERT_NE(p, nullptr);
    std::memset(p, 1, n);
    const struct mallinfo2 held = mallinfo2();
    EXPECT_EQ(held.hblkhd, before.hblkhd) << n << " bytes were mapped on their own";
    std::free(p);
    const struct mallinfo2 after = mallinfo2();
    // Nothing went back to the system: the heap is as large as while the block was held.
    EXPECT_EQ(after.arena, held.arena) << n;
  }
}

// LargeBytes holds what std::string would for pieces of every size (the short ones copied by
// overlapping moves), across growth past the large-buffer threshold, copies, moves and clears.
TEST(LargeBufferTest, LargeBytesHoldWhatAStringHolds) {
  std::mt19937 rng(7);
  LargeBytes bytes;
  std::string expected;
  std::string piece;
  while (expected.size() < (size_t{5} << 20)) {
    const size_t n = rng() % 4 == 0 ? rng() % 300 : rng() % 20;
    piece.assign(n, '\0');
    for (char& c : piece) c = static_cast<char>(rng());
    bytes.Append(piece);
    expected += piece;
  }
  ASSERT_EQ(bytes.size(), expected.size());
  EXPECT_TRUE(bytes.view() == expected);
  LargeBytes copy(bytes);
  EXPECT_TRUE(copy.view() == expected);
  LargeBytes moved(std::move(copy));
  EXPECT_TRUE(moved.view() == expected);
  EXPECT_EQ(copy.size(), 0u);  // NOLINT(bugprone-use-after-move): a moved-from buffer is empty
  const size_t capacity = bytes.capacity();
  bytes.clear();
  EXPECT_EQ(bytes.size(), 0u);
  EXPECT_EQ(bytes.capacity(), capacity);
  bytes.Append("abc");
  EXPECT_EQ(bytes.view(), "abc");
  moved = bytes;
  EXPECT_EQ(moved.view(), "abc");
  bytes.Append("");
  EXPECT_EQ(bytes.size(), 3u);
}

}  // namespace
}  // namespace sluice
