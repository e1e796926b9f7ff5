// Footers of Parquet files Spark wrote (the Delta golden tables in the shared conformance
// folder): each decodes, is consistent with itself, and re-encodes to the same struct.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "sluice/parquet/metadata.h"
#include "sluice_test_paths.h"

namespace sluice::parquet {
namespace {

namespace fs = std::filesystem;

const fs::path kGolden = fs::path(SLUICE_SHARED_DIR) / "conformance/delta-golden";

std::vector<fs::path> ParquetFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".parquet") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The footer of a whole file: the last 8 bytes are its 4-byte little-endian length and "PAR1".
std::string_view Footer(std::string_view file) {
  if (file.size() < 12 || file.substr(0, 4) != "PAR1" || file.substr(file.size() - 4) != "PAR1") {
    return {};
  }
  uint32_t length = 0;
  for (int i = 3; i >= 0; --i) {
    length = (length << 8) | static_cast<uint8_t>(file[file.size() - 8 + i]);
  }
  if (length > file.size() - 12) return {};
  return file.substr(file.size() - 8 - length, length);
}

// The leaves of the flattened schema tree, as paths; false if num_children do not add up.
bool LeafPaths(const std::vector<SchemaElement>& schema,
               std::vector<std::vector<std::string>>& out) {
  std::vector<std::string> path;
  std::vector<int32_t> left;  // children still to come under each open group
  for (size_t i = 0; i < schema.size(); ++i) {
    const SchemaElement& e = schema[i];
    if (i > 0) {
      if (left.empty() || left.back() <= 0) return false;
      --left.back();
    }
    if (e.num_children.has_value() && *e.num_children > 0) {
      if (i > 0) path.push_back(e.name);
      left.push_back(*e.num_children);
    } else if (i > 0) {
      if (!e.type.has_value()) return false;
      path.push_back(e.name);
      out.push_back(path);
      path.pop_back();
    }
    while (!left.empty() && left.back() == 0) {
      left.pop_back();
      if (!path.empty() && !left.empty()) path.pop_back();
    }
  }
  return left.empty();
}

TEST(MetadataGoldenTest, SparkFootersDecode) {
  if (!fs::is_directory(kGolden)) GTEST_SKIP() << "no Delta golden tables at " << kGolden;
  const std::vector<fs::path> files = ParquetFiles(kGolden);
  ASSERT_FALSE(files.empty());
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.string());
    const std::string file = ReadBytes(path);
    const std::string_view footer = Footer(file);
    ASSERT_FALSE(footer.empty());
    auto meta = ReadFileMetaData(footer);
    ASSERT_TRUE(meta.has_value()) << meta.error().message();

    EXPECT_GE(meta->num_rows, 0);
    int64_t rows = 0;
    for (const RowGroup& rg : meta->row_groups) rows += rg.num_rows;
    EXPECT_EQ(rows, meta->num_rows);
    ASSERT_FALSE(meta->schema.empty());
    EXPECT_EQ(meta->schema[0].name, "spark_schema");
    ASSERT_TRUE(meta->created_by.has_value());
    EXPECT_NE(meta->created_by->find("parquet-mr"), std::string::npos);

    std::vector<std::vector<std::string>> leaves;
    ASSERT_TRUE(LeafPaths(meta->schema, leaves));
    for (const auto& leaf : leaves) {
      for (const std::string& name : leaf) EXPECT_FALSE(name.empty());
    }
    for (const RowGroup& rg : meta->row_groups) {
      ASSERT_EQ(rg.columns.size(), leaves.size());
      for (size_t c = 0; c < rg.columns.size(); ++c) {
        ASSERT_TRUE(rg.columns[c].meta_data.has_value());
        const ColumnMetaData& column = *rg.columns[c].meta_data;
        EXPECT_EQ(column.path_in_schema, leaves[c]);
        EXPECT_EQ(column.codec, Codec::kSnappy);  // every golden file is .snappy.parquet
        EXPECT_GT(column.data_page_offset, 3);
        EXPECT_LE(column.data_page_offset + column.total_compressed_size,
                  static_cast<int64_t>(file.size() - footer.size() - 8));
      }
    }

    auto again = ReadFileMetaData(WriteFileMetaData(*meta));
    ASSERT_TRUE(again.has_value()) << again.error().message();
    EXPECT_EQ(*again, *meta);
  }
}

// The primitives table: 11 rows over two files, one column per Spark primitive type.
TEST(MetadataGoldenTest, PrimitivesTableHasItsColumnsAndRows) {
  const fs::path dir = kGolden / "data-reader-primitives";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no Delta golden tables at " << kGolden;
  int64_t rows = 0;
  for (const fs::path& path : ParquetFiles(dir)) {
    const std::string file = ReadBytes(path);
    auto meta = ReadFileMetaData(Footer(file));
    ASSERT_TRUE(meta.has_value()) << meta.error().message();
    rows += meta->num_rows;
    std::vector<std::string> names;
    for (size_t i = 1; i < meta->schema.size(); ++i) names.push_back(meta->schema[i].name);
    EXPECT_EQ(names, (std::vector<std::string>{"as_int", "as_long", "as_byte", "as_short",
                                               "as_boolean", "as_float", "as_double", "as_string",
                                               "as_binary", "as_big_decimal"}));
    const auto& s = meta->schema;
    EXPECT_EQ(s[1].type, PhysicalType::kInt32);
    EXPECT_EQ(s[2].type, PhysicalType::kInt64);
    EXPECT_EQ(s[3].converted_type, ConvertedType::kInt8);
    EXPECT_EQ(s[5].type, PhysicalType::kBoolean);
    EXPECT_EQ(s[7].type, PhysicalType::kDouble);
    EXPECT_EQ(s[8].type, PhysicalType::kByteArray);
    EXPECT_EQ(s[8].converted_type, ConvertedType::kUtf8);
    EXPECT_EQ(s[10].converted_type, ConvertedType::kDecimal);
    EXPECT_EQ(s[10].precision, 1);
    EXPECT_EQ(s[10].repetition, Repetition::kOptional);
  }
  EXPECT_EQ(rows, 11);
}

}  // namespace
}  // namespace sluice::parquet
