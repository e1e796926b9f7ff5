// Wide footers: decoding and encoding grow linearly with the number of columns.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sluice/parquet/metadata.h"
#include "sluice/parquet/metadata_testing.h"
#include "sluice/schema/scaling_testing.h"

namespace sluice::parquet {
namespace {

constexpr int kRowGroups = 10;

// A footer as Spark writes it for `columns` INT64 columns in 10 row groups: one schema element
// and, per row group, one chunk with statistics per column.
FileMetaData WideFooter(size_t columns) {
  FileMetaData m;
  SchemaElement root;
  root.name = "spark_schema";
  root.num_children = static_cast<int32_t>(columns);
  m.schema.push_back(root);
  for (size_t c = 0; c < columns; ++c) {
    m.schema.push_back(testing::Leaf("column_" + std::to_string(c), PhysicalType::kInt64));
  }
  for (int g = 0; g < kRowGroups; ++g) {
    RowGroup rg;
    rg.num_rows = 1000;
    rg.total_byte_size = 8000 * static_cast<int64_t>(columns);
    for (size_t c = 0; c < columns; ++c) {
      ColumnChunk chunk;
      chunk.file_offset = static_cast<int64_t>(4 + 8000 * (g * columns + c));
      ColumnMetaData meta;
      meta.type = PhysicalType::kInt64;
      meta.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary};
      meta.path_in_schema = {m.schema[c + 1].name};
      meta.codec = Codec::kSnappy;
      meta.num_values = 1000;
      meta.total_uncompressed_size = 8000;
      meta.total_compressed_size = 8000;
      meta.data_page_offset = chunk.file_offset;
      Statistics stats;
      stats.null_count = 0;
      stats.min_value = std::string(8, '\0');
      stats.max_value = std::string(8, '\x7f');
      meta.statistics = stats;
      chunk.meta_data = std::move(meta);
      rg.columns.push_back(std::move(chunk));
    }
    m.num_rows += rg.num_rows;
    m.row_groups.push_back(std::move(rg));
  }
  return m;
}

// 25,000 and 100,000 columns: the larger is the 100k x 10 row groups footer (a million column
// chunks). Debug and sanitizer builds, ten times slower, check the same ratio on a fifth.
const size_t kColumns = scaling::kSlowdown > 1 ? 5'000 : 25'000;

TEST(ParquetScalingTest, WideFootersDecodeInLinearTime) {
  // Each size's footer is built on its first run (the best of the runs is compared).
  std::map<size_t, std::string> footers;
  EXPECT_TRUE(scaling::ScalesLinearly(
      [&](size_t n) {
        auto it = footers.find(n);
        if (it == footers.end()) it = footers.emplace(n, WriteFileMetaData(WideFooter(n))).first;
        auto meta = ReadFileMetaData(it->second);
        ASSERT_TRUE(meta.has_value()) << meta.error().message();
        ASSERT_EQ(meta->row_groups.size(), size_t{kRowGroups});
        ASSERT_EQ(meta->row_groups.back().columns.size(), n);
      },
      kColumns, /*max_seconds=*/4));
}

TEST(ParquetScalingTest, WideFootersEncodeInLinearTime) {
  std::map<size_t, FileMetaData> footers;
  EXPECT_TRUE(scaling::ScalesLinearly(
      [&](size_t n) {
        auto it = footers.find(n);
        if (it == footers.end()) it = footers.emplace(n, WideFooter(n)).first;
        EXPECT_GT(WriteFileMetaData(it->second).size(), 40 * n * kRowGroups);
      },
      kColumns, /*max_seconds=*/2));
}

}  // namespace
}  // namespace sluice::parquet
