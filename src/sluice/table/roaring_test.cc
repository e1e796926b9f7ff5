#include "sluice/table/roaring.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace sluice::table {
namespace {

void Le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

std::string Hex(std::string_view b) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (char c : b) {
    s.push_back(kHex[static_cast<uint8_t>(c) >> 4]);
    s.push_back(kHex[static_cast<uint8_t>(c) & 0xF]);
  }
  return s;
}

RowIndexSet RoundTrip(const RowIndexSet& rows) {
  auto bytes = WriteRoaringBitmapArray(rows);
  EXPECT_TRUE(bytes) << bytes.error().ToString();
  if (!bytes) return {};
  auto back = ReadRoaringBitmapArray(*bytes);
  EXPECT_TRUE(back) << back.error().ToString();
  return back ? *back : RowIndexSet();
}

std::string Serialize(const RowIndexSet& rows) {
  auto bytes = WriteRoaringBitmapArray(rows);
  EXPECT_TRUE(bytes);
  return bytes ? *bytes : std::string();
}

// Magic, one bucket with key 0, then `bitmap32`.
std::string OneBucket(const std::string& bitmap32) {
  std::string b;
  Le(b, kPortableRoaringMagic, 4);
  Le(b, 1, 8);
  Le(b, 0, 4);
  return b + bitmap32;
}

// A 32-bit bitmap without runs holding one array container (key, values).
std::string ArrayBitmap(uint16_t key, const std::vector<uint16_t>& values) {
  std::string b;
  Le(b, 12346, 4);
  Le(b, 1, 4);
  Le(b, key, 2);
  Le(b, values.size() - 1, 2);
  Le(b, 16, 4);
  for (uint16_t v : values) Le(b, v, 2);
  return b;
}

std::string ErrorOf(std::string_view bytes) {
  auto r = ReadRoaringBitmapArray(bytes, "test bitmap");
  if (r) return "";
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  return r.error().message();
}

TEST(Roaring, WritesTheLayoutDeltaWrites) {
  // The bytes of Delta's own DV for rows {0, 9}: magic, one bucket, key 0, an array container.
  EXPECT_EQ(Hex(Serialize(RowIndexSet::Of({0, 9}))),
            "d1d33964"
            "0100000000000000"
            "00000000"
            "3a300000"
            "01000000"
            "00000100"
            "10000000"
            "00000900");
  EXPECT_EQ(Hex(Serialize(RowIndexSet())), "d1d339640000000000000000");
}

TEST(Roaring, RoundTripsSetsOfEveryShape) {
  std::mt19937_64 rng(1);
  std::vector<RowIndexSet> sets;
  sets.push_back(RowIndexSet());
  sets.push_back(RowIndexSet::Of({0}));
  sets.push_back(RowIndexSet::Of({3, 4, 7, 11, 18, 29}));
  // Sparse over a wide span, above 2^32 too.
  {
    std::vector<uint64_t> v;
    for (int i = 0; i < 20000; ++i) v.push_back(rng() % (uint64_t{1} << 36));
    sets.push_back(RowIndexSet::Of(v));
  }
  // Dense: bitmap chunks.
  {
    std::vector<uint64_t> v;
    for (int i = 0; i < 200000; ++i) v.push_back(rng() % (1 << 19));
    sets.push_back(RowIndexSet::Of(v));
  }
  // Run-heavy: long ranges, one chunk and many chunks (offsets are written from 4 containers).
  sets.push_back(RowIndexSet::OfRanges({{10, 50000}}));
  sets.push_back(RowIndexSet::OfRanges({{0, 1000}, {2000, 3000}, {70000, 500000}}));
  {
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (int i = 0; i < 3000; ++i) {
      const uint64_t start = rng() % (uint64_t{1} << 34);
      ranges.emplace_back(start, start + rng() % 5000);
    }
    sets.push_back(RowIndexSet::OfRanges(ranges));
  }
  // Runs, arrays and bitmaps in one bucket, and row indexes up to Delta's largest.
  {
    std::vector<uint64_t> v;
    for (int i = 0; i < 5000; ++i) v.push_back(65536 + rng() % 65536);        // bitmap
    for (int i = 0; i < 10; ++i) v.push_back(3 * 65536 + rng() % 65536);      // array
    for (uint64_t x = 5 * 65536; x < 5 * 65536 + 30000; ++x) v.push_back(x);  // run
    v.push_back(kMaxDeletionVectorRow);
    v.push_back(kMaxDeletionVectorRow - 65536);
    sets.push_back(RowIndexSet::Of(v));
  }
  for (const RowIndexSet& s : sets) {
    const RowIndexSet back = RoundTrip(s);
    EXPECT_EQ(back.Cardinality(), s.Cardinality());
    EXPECT_TRUE(back == s);
  }
}

TEST(Roaring, ReadsBitmapsWithAndWithoutTheRunFlag) {
  // The same values {1..5, 10} as an array container (no-run cookie) and as a run container.
  std::string runs;
  Le(runs, 12347, 4);  // one container
  runs.push_back('\x01');
  Le(runs, 0, 2);
  Le(runs, 5, 2);
  Le(runs, 2, 2);  // two runs
  Le(runs, 1, 2);  // 1 + 4 more
  Le(runs, 4, 2);
  Le(runs, 10, 2);  // 10 alone
  Le(runs, 0, 2);
  auto with_runs = ReadRoaringBitmapArray(OneBucket(runs));
  ASSERT_TRUE(with_runs) << with_runs.error().ToString();
  auto arrays = ReadRoaringBitmapArray(OneBucket(ArrayBitmap(0, {1, 2, 3, 4, 5, 10})));
  ASSERT_TRUE(arrays) << arrays.error().ToString();
  EXPECT_EQ(with_runs->ToVector(), (std::vector<uint64_t>{1, 2, 3, 4, 5, 10}));
  EXPECT_TRUE(*with_runs == *arrays);
}

TEST(Roaring, ReadsTheNativeFormatAndEmptyBuckets) {
  // Native: count, then (size, bitmap) by position; bucket 1 is empty, as Delta writes gaps.
  const std::string b0 = ArrayBitmap(0, {7});
  std::string empty;
  Le(empty, 12346, 4);
  Le(empty, 0, 4);
  const std::string b2 = ArrayBitmap(1, {2});
  std::string native;
  Le(native, kNativeRoaringMagic, 4);
  Le(native, 3, 4);
  for (const std::string& b : std::vector<std::string>{b0, empty, b2}) {
    Le(native, b.size(), 4);
    native += b;
  }
  auto r = ReadRoaringBitmapArray(native);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->ToVector(), (std::vector<uint64_t>{7, (uint64_t{2} << 32) + 65536 + 2}));

  // Portable with an empty bucket in the middle.
  std::string portable;
  Le(portable, kPortableRoaringMagic, 4);
  Le(portable, 2, 8);
  Le(portable, 0, 4);
  portable += empty;
  Le(portable, 3, 4);
  portable += b0;
  auto p = ReadRoaringBitmapArray(portable);
  ASSERT_TRUE(p) << p.error().ToString();
  EXPECT_EQ(p->ToVector(), (std::vector<uint64_t>{(uint64_t{3} << 32) + 7}));
}

TEST(Roaring, RefusesRowsPastDeltasLargest) {
  auto r = WriteRoaringBitmapArray(RowIndexSet::Of({kMaxDeletionVectorRow + 1}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
}

TEST(Roaring, EveryTruncationIsAClearError) {
  std::mt19937_64 rng(3);
  std::vector<uint64_t> v;
  for (int i = 0; i < 300; ++i) v.push_back(rng() % (uint64_t{1} << 33));
  std::vector<std::pair<uint64_t, uint64_t>> ranges = {
      {0, 100}, {200, 300}, {400, 500}, {600, 700}, {70000, 80000}};
  for (const RowIndexSet& s : {RowIndexSet::Of(v), RowIndexSet::OfRanges(ranges)}) {
    const std::string bytes = Serialize(s);
    for (size_t n = 0; n < bytes.size(); ++n) {
      const std::string message = ErrorOf(std::string_view(bytes).substr(0, n));
      ASSERT_FALSE(message.empty()) << "prefix of " << n << " bytes was accepted";
      ASSERT_NE(message.find("test bitmap at byte "), std::string::npos) << message;
    }
    EXPECT_EQ(ErrorOf(bytes + '\0').find("1 bytes follow the bitmap") != std::string::npos, true);
  }
}

TEST(Roaring, CorruptBytesNeverCrash) {
  std::mt19937_64 rng(9);
  // Array, run and bitmap containers in two buckets.
  std::vector<uint64_t> v = {1, 2, 3, (uint64_t{1} << 32) + 9};
  for (uint64_t x = 70000; x < 75000; ++x) v.push_back(x);
  for (int i = 0; i < 5000; ++i) v.push_back(3 * 65536 + rng() % 65536);
  const std::string bytes = Serialize(RowIndexSet::Of(v));
  for (int i = 0; i < 3000; ++i) {
    std::string corrupt = bytes;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      corrupt[rng() % corrupt.size()] ^= static_cast<char>(1 << (rng() % 8));
    }
    auto r = ReadRoaringBitmapArray(corrupt);
    if (r) {
      // Whatever reads must be a well-formed set.
      EXPECT_EQ(r->ToVector().size(), r->Cardinality());
    }
  }
}

TEST(Roaring, NamesWhatIsWrongAndWhere) {
  std::string magic;
  Le(magic, 12345, 4);
  EXPECT_NE(ErrorOf(magic).find("at byte 0: magic number 12345"), std::string::npos)
      << ErrorOf(magic);

  // A bucket count no input could hold.
  std::string buckets;
  Le(buckets, kPortableRoaringMagic, 4);
  Le(buckets, uint64_t{1} << 60, 8);
  EXPECT_NE(ErrorOf(buckets).find("at byte 4: 1152921504606846976 buckets cannot fit"),
            std::string::npos)
      << ErrorOf(buckets);

  // A container count past 65536, and one the bytes cannot hold.
  std::string many;
  Le(many, 12346, 4);
  Le(many, 70000, 4);
  EXPECT_NE(ErrorOf(OneBucket(many)).find("70000 containers"), std::string::npos);
  std::string more;
  Le(more, 12346, 4);
  Le(more, 60000, 4);
  EXPECT_NE(ErrorOf(OneBucket(more)).find("cannot fit"), std::string::npos);

  // An unknown cookie.
  std::string cookie;
  Le(cookie, 99, 4);
  cookie += std::string(8, '\0');
  EXPECT_NE(ErrorOf(OneBucket(cookie)).find("at byte 16: cookie 0x00000063"), std::string::npos)
      << ErrorOf(OneBucket(cookie));

  // Containers out of order.
  std::string two;
  Le(two, 12346, 4);
  Le(two, 2, 4);
  Le(two, 5, 2);
  Le(two, 0, 2);
  Le(two, 4, 2);
  Le(two, 0, 2);
  Le(two, 32, 4);
  Le(two, 34, 4);
  Le(two, 1, 2);
  Le(two, 1, 2);
  EXPECT_NE(ErrorOf(OneBucket(two)).find("container key 4 after key 5"), std::string::npos)
      << ErrorOf(OneBucket(two));

  // Array values that do not ascend.
  EXPECT_NE(ErrorOf(OneBucket(ArrayBitmap(0, {3, 3}))).find("value 3 after 3"), std::string::npos);

  // A bitmap container whose bits disagree with its header.
  std::string bitmap;
  Le(bitmap, 12346, 4);
  Le(bitmap, 1, 4);
  Le(bitmap, 0, 2);
  Le(bitmap, 4999, 2);
  Le(bitmap, 16, 4);
  bitmap += std::string(8192, '\0');
  EXPECT_NE(ErrorOf(OneBucket(bitmap)).find("holds 0 values but its header says 5000"),
            std::string::npos);

  // Runs that overlap, pass 65535, or disagree with the header.
  auto run_bitmap = [](std::vector<std::pair<uint16_t, uint16_t>> runs, uint16_t card) {
    std::string b;
    Le(b, 12347, 4);
    b.push_back('\x01');
    Le(b, 0, 2);
    Le(b, card - 1, 2);
    Le(b, runs.size(), 2);
    for (auto [start, len] : runs) {
      Le(b, start, 2);
      Le(b, len, 2);
    }
    return OneBucket(b);
  };
  EXPECT_NE(ErrorOf(run_bitmap({{10, 5}, {12, 0}}, 7)).find("overlaps"), std::string::npos);
  EXPECT_NE(ErrorOf(run_bitmap({{65530, 10}}, 11)).find("passes 65535"), std::string::npos);
  EXPECT_NE(ErrorOf(run_bitmap({{1, 1}}, 5)).find("holds 2 values but its header says 5"),
            std::string::npos);

  // Bucket keys out of order, and with the top bit set.
  std::string keys;
  Le(keys, kPortableRoaringMagic, 4);
  Le(keys, 2, 8);
  Le(keys, 3, 4);
  keys += ArrayBitmap(0, {1});
  Le(keys, 3, 4);
  keys += ArrayBitmap(0, {1});
  EXPECT_NE(ErrorOf(keys).find("bucket key 3 after key 3"), std::string::npos) << ErrorOf(keys);
  std::string top;
  Le(top, kPortableRoaringMagic, 4);
  Le(top, 1, 8);
  Le(top, 0x80000000u, 4);
  top += ArrayBitmap(0, {1});
  EXPECT_NE(ErrorOf(top).find("top bit"), std::string::npos);

  // A native bitmap shorter than its declared size.
  std::string native;
  Le(native, kNativeRoaringMagic, 4);
  Le(native, 1, 4);
  const std::string b = ArrayBitmap(0, {1});
  Le(native, b.size() + 2, 4);
  native += b + "xx";
  EXPECT_NE(ErrorOf(native).find("ends 2 bytes before its declared size"), std::string::npos)
      << ErrorOf(native);
}

}  // namespace
}  // namespace sluice::table
