// Wide Spark schemas read and write in time linear in their width.
#include <gtest/gtest.h>

#include "sluice/dialects/spark/spark.h"
#include "sluice/schema/scaling_testing.h"

namespace sluice::dialects::spark {
namespace {

using sluice::scaling::ScalesLinearly;
using sluice::scaling::WideDdl;

TEST(SparkScalingTest, WideDdlAndJsonRoundTripInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        auto ddl = ReadDdl(WideDdl(n));
        ASSERT_TRUE(ddl.has_value()) << ddl.error().message();
        ASSERT_EQ(ddl->value->fields().size(), n);
        auto json = ReadJson(WriteJson(*ddl->value).value);
        ASSERT_TRUE(json.has_value()) << json.error().message();
        EXPECT_TRUE(json->value->Equals(*ddl->value));
        EXPECT_FALSE(WriteDdl(*json->value).value.empty());
        EXPECT_FALSE(SparkMd5(*json->value).empty());
      },
      5000));
}

TEST(SparkScalingTest, LongFieldPathsReadInLinearTime) {
  // Structs nested 100 deep, each level with `n / 100` columns of long names.
  auto nested = [](size_t n) {
    const size_t depth = 100;
    const size_t per = std::max<size_t>(1, n / depth);
    const std::string pad(48, 'x');
    std::string ddl;
    for (size_t d = 0; d < depth; ++d) {
      for (size_t j = 0; j < per; ++j) ddl += fmt::format("l{}_{}_{}: BIGINT, ", d, pad, j);
      ddl += fmt::format("n{}_{}: STRUCT<", d, pad);
    }
    ddl += "leaf: INT";
    for (size_t d = 0; d < depth; ++d) ddl += ">";
    return "STRUCT<" + ddl + ">";
  };
  EXPECT_TRUE(ScalesLinearly(
      [&](size_t n) {
        auto read = ReadDdl(nested(n));
        ASSERT_TRUE(read.has_value()) << read.error().message();
        EXPECT_FALSE(WriteJson(*read->value).value.empty());
        EXPECT_FALSE(WriteDdl(*read->value).value.empty());
      },
      2000));
}

}  // namespace
}  // namespace sluice::dialects::spark
