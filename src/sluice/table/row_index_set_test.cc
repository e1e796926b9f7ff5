#include "sluice/table/row_index_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace sluice::table {
namespace {

std::vector<uint64_t> Sorted(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

TEST(RowIndexSet, EmptySetHoldsNothing) {
  RowIndexSet empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.Cardinality(), 0u);
  EXPECT_FALSE(empty.Contains(0));
  EXPECT_EQ(empty.begin(), empty.end());
  EXPECT_EQ(empty, RowIndexSet::Of({}));
}

TEST(RowIndexSet, HoldsValuesInAnyOrderOnce) {
  RowIndexSet s = RowIndexSet::Of({29, 3, 18, 4, 7, 11, 3, 29});
  EXPECT_EQ(s.Cardinality(), 6u);
  EXPECT_EQ(s.ToVector(), (std::vector<uint64_t>{3, 4, 7, 11, 18, 29}));
  EXPECT_TRUE(s.Contains(11));
  EXPECT_FALSE(s.Contains(12));
  EXPECT_EQ(s.Max(), 29u);
}

TEST(RowIndexSet, CrossesChunkAndBucketBoundaries) {
  const std::vector<uint64_t> values = {0,
                                        65535,
                                        65536,
                                        (uint64_t{1} << 32) - 1,
                                        uint64_t{1} << 32,
                                        (uint64_t{5} << 32) + 12345,
                                        ~uint64_t{0} - 1,
                                        ~uint64_t{0}};
  RowIndexSet s = RowIndexSet::Of(values);
  EXPECT_EQ(s.ToVector(), values);
  for (uint64_t v : values) EXPECT_TRUE(s.Contains(v)) << v;
  EXPECT_FALSE(s.Contains(65537));
  EXPECT_FALSE(s.Contains((uint64_t{5} << 32) + 12344));
  EXPECT_EQ(s.Max(), ~uint64_t{0});
}

TEST(RowIndexSet, RangesMergeAndSpanChunks) {
  RowIndexSet s = RowIndexSet::OfRanges({{100, 70000}, {50, 120}, {70000, 70001}, {5, 5}});
  EXPECT_EQ(s.Cardinality(), 70001u - 50u);
  EXPECT_FALSE(s.Contains(49));
  EXPECT_TRUE(s.Contains(50));
  EXPECT_TRUE(s.Contains(65535));
  EXPECT_TRUE(s.Contains(65536));
  EXPECT_TRUE(s.Contains(70000));
  EXPECT_FALSE(s.Contains(70001));
  EXPECT_EQ(s.Max(), 70000u);
  std::vector<uint64_t> expected;
  for (uint64_t v = 50; v < 70001; ++v) expected.push_back(v);
  EXPECT_EQ(s.ToVector(), expected);
  EXPECT_EQ(s, RowIndexSet::Of(expected));
}

TEST(RowIndexSet, AgreesWithAStdSetOnRandomShapes) {
  std::mt19937_64 rng(42);
  // Sparse, dense (bitmap chunks), run-heavy, and mixed within one chunk.
  struct Shape {
    uint64_t span;
    size_t count;
  };
  for (const Shape shape : {Shape{uint64_t{1} << 40, 3000}, Shape{1 << 17, 60000},
                            Shape{1 << 16, 4096}, Shape{1 << 16, 4097}, Shape{300, 250}}) {
    std::vector<uint64_t> values;
    for (size_t i = 0; i < shape.count; ++i) values.push_back(rng() % shape.span);
    RowIndexSet s = RowIndexSet::Of(values);
    const std::vector<uint64_t> expected = Sorted(values);
    EXPECT_EQ(s.Cardinality(), expected.size());
    EXPECT_EQ(s.ToVector(), expected);
    const std::set<uint64_t> lookup(expected.begin(), expected.end());
    for (int i = 0; i < 2000; ++i) {
      const uint64_t probe = rng() % shape.span;
      EXPECT_EQ(s.Contains(probe), lookup.count(probe) == 1) << probe;
    }
    EXPECT_EQ(s.Max(), expected.back());
  }
}

TEST(RowIndexSet, EqualityIgnoresHowTheValuesAreHeld) {
  // A full chunk is one run; the same values given one by one make the same set.
  std::vector<uint64_t> all;
  for (uint64_t v = 0; v < 65536; ++v) all.push_back(v);
  EXPECT_EQ(RowIndexSet::Of(all), RowIndexSet::OfRanges({{0, 65536}}));
  EXPECT_FALSE(RowIndexSet::Of({1, 2}) == RowIndexSet::Of({1, 3}));
  EXPECT_FALSE(RowIndexSet::Of({1, 2}) == RowIndexSet::Of({1, 2, 3}));
}

}  // namespace
}  // namespace sluice::table
