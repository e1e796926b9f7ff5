#include "sluice/report/parquet_render.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sluice/base/json.h"
#include "sluice/parquet/reader_testing.h"

namespace sluice::report {
namespace {

using parquet::testing::Build;
using parquet::testing::BuiltFile;
using parquet::testing::ChunkSpec;
using parquet::testing::FileSpec;
using parquet::testing::Finish;
using parquet::testing::PageSpec;
using parquet::testing::Plain;
using parquet::testing::PlainStrings;
using ::testing::HasSubstr;

// Two columns with statistics: a decimal(9,2) as INT32 and a string; a key/value pair.
parquet::ParquetFileSummary Summary() {
  FileSpec spec;
  spec.schema = "message m { optional int32 price (DECIMAL(9,2)); optional binary s (STRING); }";
  PageSpec a;
  a.def = {1, 1, 0};
  a.values = Plain<int32_t>({1250, -5});
  PageSpec b;
  b.def = {1, 0, 1};
  b.values = PlainStrings({"ab\"c", "zz"});
  spec.row_groups = {{ChunkSpec{{a}, parquet::Codec::kSnappy}, ChunkSpec{{b}}}};
  BuiltFile f = Build(spec);
  parquet::Statistics price;
  price.min_value = Plain<int32_t>({-5});
  price.max_value = Plain<int32_t>({1250});
  price.null_count = 1;
  f.meta.row_groups[0].columns[0].meta_data->statistics = price;
  parquet::Statistics s;
  s.min_value = "ab\"c";
  s.max_value = "zz";
  s.distinct_count = 2;
  f.meta.row_groups[0].columns[1].meta_data->statistics = s;
  f.meta.key_value_metadata = {{"origin", std::string("test")}, {"big", std::string(100, 'x')}};
  auto fs = std::make_shared<MemoryFileSystem>();
  EXPECT_TRUE(fs->WriteFile("m.parquet", Finish(f)).has_value());
  auto reader = parquet::FileReader::Open(fs, "m.parquet");
  EXPECT_TRUE(reader.has_value());
  return parquet::Summarize(**reader);
}

TEST(ParquetRenderTest, TextNamesEveryChunkWithCanonicalStatistics) {
  auto text = Render(Summary(), Format::kText);
  ASSERT_TRUE(text.has_value());
  EXPECT_THAT(*text, HasSubstr("file:        m.parquet ("));
  EXPECT_THAT(*text, HasSubstr("created by:  sluice reader tests\n"));
  EXPECT_THAT(*text, HasSubstr("rows:        3 in 1 row group\n"));
  EXPECT_THAT(*text, HasSubstr("key/value:   origin = test\n"));
  EXPECT_THAT(*text, HasSubstr("key/value:   big (100 bytes)\n"));
  EXPECT_THAT(*text, HasSubstr("optional int32 price (DECIMAL(9,2));"));
  EXPECT_THAT(*text, HasSubstr("row group 0: 3 rows"));
  EXPECT_THAT(*text, HasSubstr("  price: INT32 DECIMAL(9,2), SNAPPY, PLAIN, 3 values, 1 null, "));
  EXPECT_THAT(*text, HasSubstr("min -0.05, max 12.50, data page at 4\n"));
  EXPECT_THAT(*text,
              HasSubstr("  s: BYTE_ARRAY STRING, UNCOMPRESSED, PLAIN, 3 values, 2 distinct"));
  EXPECT_THAT(*text, HasSubstr(R"(min "ab\"c", max "zz")"));
}

TEST(ParquetRenderTest, JsonHoldsStatisticsAsValues) {
  auto text = Render(Summary(), Format::kJson);
  ASSERT_TRUE(text.has_value());
  auto doc = ParseJson(*text);
  ASSERT_TRUE(doc.has_value()) << *text;
  EXPECT_EQ(doc->Find("num_rows")->as_int64(), 3);
  EXPECT_EQ(doc->Find("key_value_metadata")->items()[1].Find("value")->as_string(),
            std::string(100, 'x'));
  const JsonValue& rg = doc->Find("row_groups")->items()[0];
  EXPECT_EQ(rg.Find("num_rows")->as_int64(), 3);
  const JsonValue& price = rg.Find("columns")->items()[0];
  EXPECT_EQ(price.Find("path")->as_string(), "price");
  EXPECT_EQ(price.Find("logical_type")->as_string(), "DECIMAL(9,2)");
  EXPECT_EQ(price.Find("codec")->as_string(), "SNAPPY");
  EXPECT_EQ(price.Find("min")->number_text(), "-0.05");
  EXPECT_EQ(price.Find("max")->number_text(), "12.50");
  EXPECT_EQ(price.Find("null_count")->as_int64(), 1);
  EXPECT_TRUE(price.Find("distinct_count")->is_null());
  EXPECT_TRUE(price.Find("dictionary_page_offset")->is_null());
  const JsonValue& s = rg.Find("columns")->items()[1];
  EXPECT_EQ(s.Find("min")->as_string(), "ab\"c");
  EXPECT_EQ(s.Find("encodings")->items()[0].as_string(), "PLAIN");
}

TEST(ParquetRenderTest, OtherFormatsAreUnimplemented) {
  auto r = Render(Summary(), Format::kGithub);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kUnimplemented);
}

}  // namespace
}  // namespace sluice::report
