// Footers and page headers a hostile or broken writer could produce: every one must decode or
// fail with an error naming a byte offset, quickly and without allocating by claimed sizes.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "sluice/parquet/metadata.h"
#include "sluice/parquet/metadata_testing.h"
#include "sluice/parquet/thrift_compact.h"

namespace sluice::parquet {
namespace {

using thrift::CompactWriter;
using thrift::Type;

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

bool MentionsAnOffset(const Error& e) { return e.message().find(": byte ") != std::string::npos; }

TEST(MetadataHostileTest, EveryTruncationOfAFooterIsAnError) {
  const std::string bytes = WriteFileMetaData(testing::FullFooter());
  ASSERT_GT(bytes.size(), 500u);
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto meta = ReadFileMetaData(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(meta.has_value()) << "decoded " << n << " of " << bytes.size() << " bytes";
    EXPECT_EQ(meta.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_TRUE(MentionsAnOffset(meta.error())) << meta.error().message();
  }
}

TEST(MetadataHostileTest, EveryTruncationOfAPageHeaderIsAnError) {
  for (const PageHeader& h : testing::PageHeadersOfEveryKind()) {
    std::string bytes;
    WritePageHeader(h, bytes);
    for (size_t n = 0; n < bytes.size(); ++n) {
      size_t size = 12345;
      auto header = ReadPageHeader(std::string_view(bytes).substr(0, n), &size);
      ASSERT_FALSE(header.has_value()) << n;
      EXPECT_TRUE(MentionsAnOffset(header.error())) << header.error().message();
      EXPECT_EQ(size, 12345u);  // untouched on error
    }
  }
}

// Each byte replaced by a few values: whatever decodes must re-encode and decode the same.
TEST(MetadataHostileTest, CorruptedFootersDecodeConsistentlyOrFail) {
  const std::string bytes = WriteFileMetaData(testing::FullFooter());
  size_t decoded = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int value : {0x00, 0x7f, 0xff, bytes[i] ^ 0x01, bytes[i] ^ 0x80}) {
      std::string corrupt = bytes;
      corrupt[i] = static_cast<char>(value);
      auto meta = ReadFileMetaData(corrupt);
      if (!meta.has_value()) {
        EXPECT_TRUE(MentionsAnOffset(meta.error())) << meta.error().message();
        continue;
      }
      ++decoded;
      auto again = ReadFileMetaData(WriteFileMetaData(*meta));
      ASSERT_TRUE(again.has_value()) << i << ": " << again.error().message();
      EXPECT_EQ(*again, *meta) << i;
    }
  }
  EXPECT_GT(decoded, 0u);  // some corruptions are only new values
}

TEST(MetadataHostileTest, AbsurdListSizesFailFast) {
  const auto start = std::chrono::steady_clock::now();
  // FileMetaData.schema (field 2) claiming 2^31 - 1 structs, in 7 bytes.
  auto huge = ReadFileMetaData(Bytes({0x29, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07}));
  ASSERT_FALSE(huge.has_value());
  EXPECT_EQ(huge.error().message(),
            "parquet footer: byte 1: list of 2147483647 elements but 0 bytes are left");
  // 2^31 is a negative i32: 5 bytes of size.
  auto negative = ReadFileMetaData(Bytes({0x29, 0xfc, 0x80, 0x80, 0x80, 0x80, 0x08}));
  ASSERT_FALSE(negative.has_value());
  EXPECT_EQ(negative.error().message(), "parquet footer: byte 2: negative or oversized list size");
  // 2^24 path names claimed in a few bytes, deep inside a column.
  testing::FooterEdits edits;
  edits.column_meta = [](CompactWriter& w) {
    w.BeginField(Type::kList, 3);
    w.BeginList(Type::kBinary, size_t{1} << 24);
  };
  auto paths = ReadFileMetaData(testing::SmallFooter(edits));
  ASSERT_FALSE(paths.has_value());
  EXPECT_NE(paths.error().message().find("list of 16777216 elements but"), std::string::npos)
      << paths.error().message();
  // A page header whose statistics claim a 2 GB string.
  auto page = ReadPageHeader(
      Bytes({0x15, 0x00, 0x15, 0x00, 0x15, 0x00, 0x2c, 0x5c, 0x18, 0xfe, 0xff, 0xff, 0xff, 0x07}),
      nullptr);
  ASSERT_FALSE(page.has_value());
  EXPECT_NE(page.error().message().find("binary of 2147483646 bytes but 0 bytes are left"),
            std::string::npos)
      << page.error().message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
}

TEST(MetadataHostileTest, ClaimedElementsCountAgainstTheMemoryLimit) {
  // 20,000 row groups of one byte each (an empty struct) fit in the bytes; their structs in
  // memory do not fit in a 1 MB budget, so decoding stops before reserving them.
  std::string bytes;
  CompactWriter w(bytes);
  w.BeginStruct();
  w.BeginField(Type::kList, 4);
  w.BeginList(Type::kStruct, 20000);
  bytes.append(20000, '\0');
  bytes.push_back('\0');
  MetadataLimits limits;
  limits.max_total_bytes = 1 << 20;
  auto meta = ReadFileMetaData(bytes, limits);
  ASSERT_FALSE(meta.has_value());
  EXPECT_NE(meta.error().message().find("limit of 1048576 bytes"), std::string::npos)
      << meta.error().message();
  // With the default limits it is the missing fields of the first row group that fail.
  auto unlimited = ReadFileMetaData(bytes);
  ASSERT_FALSE(unlimited.has_value());
  EXPECT_NE(unlimited.error().message().find("RowGroup: required field columns (1) is missing"),
            std::string::npos);
}

TEST(MetadataHostileTest, NestingOfTenThousandStructsIsAnError) {
  // An unknown field 8 holding 10,000 nested structs.
  std::string bytes = Bytes({0x15, 0x02, 0x7c});
  for (int i = 0; i < 10000; ++i) bytes.push_back(0x1c);
  bytes.append(10002, '\0');
  const auto start = std::chrono::steady_clock::now();
  auto meta = ReadFileMetaData(bytes);
  ASSERT_FALSE(meta.has_value());
  EXPECT_NE(meta.error().message().find("structs nested deeper than 64"), std::string::npos)
      << meta.error().message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));

  // The same inside a known struct's unknown field: a schema element.
  testing::FooterEdits edits;
  edits.leaf = [](CompactWriter& w) {
    w.BeginField(Type::kStruct, 20);
    w.BeginStruct();
    for (int i = 0; i < 10000; ++i) {
      w.BeginField(Type::kStruct, 1);
      w.BeginStruct();
    }
    for (int i = 0; i < 10001; ++i) w.EndStruct();
  };
  auto in_leaf = ReadFileMetaData(testing::SmallFooter(edits));
  ASSERT_FALSE(in_leaf.has_value());
  EXPECT_NE(in_leaf.error().message().find("structs nested deeper than 64"), std::string::npos);
}

TEST(MetadataHostileTest, NegativeSizesAreErrors) {
  // created_by with length -1.
  auto meta = ReadFileMetaData(Bytes({0x15, 0x02, 0x58, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00}));
  ASSERT_FALSE(meta.has_value());
  EXPECT_EQ(meta.error().message(), "parquet footer: byte 3: negative or oversized binary size");
  // A varint of eleven bytes where num_rows is.
  auto rows = ReadFileMetaData(Bytes(
      {0x15, 0x02, 0x26, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00}));
  ASSERT_FALSE(rows.has_value());
  EXPECT_EQ(rows.error().message(),
            "parquet footer: byte 3: varint longer than 10 bytes or over 64 bits");
}

TEST(MetadataHostileTest, StringLimitApplies) {
  MetadataLimits limits;
  limits.max_string_size = 4;  // "root", the longest name
  auto meta = ReadFileMetaData(testing::SmallFooter(), limits);
  ASSERT_TRUE(meta.has_value()) << meta.error().message();
  testing::FooterEdits edits;
  edits.file = [](CompactWriter& w) { w.BinaryField(6, "parquet-cpp"); };
  auto long_name = ReadFileMetaData(testing::SmallFooter(edits), limits);
  ASSERT_FALSE(long_name.has_value());
  EXPECT_NE(long_name.error().message().find("binary of 11 bytes is over the limit of 4"),
            std::string::npos);
}

}  // namespace
}  // namespace sluice::parquet
