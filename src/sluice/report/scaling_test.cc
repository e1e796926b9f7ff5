// Reports of wide results (a change, incompatibility or violation per column) render in time
// linear in their length, in every format.
#include <gtest/gtest.h>

#include "sluice/dialects/contract/contract.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/report/compat_render.h"
#include "sluice/report/contract_render.h"
#include "sluice/report/diff_render.h"
#include "sluice/report/merge_render.h"
#include "sluice/schema/scaling_testing.h"

namespace sluice::report {
namespace {

using scaling::ScalesLinearly;

schema::SchemaPtr Ddl(const std::string& text) {
  auto read = dialects::spark::ReadDdl(text);
  EXPECT_TRUE(read.has_value());
  return read->value;
}

TEST(ReportScalingTest, WideResultsRenderInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        schema::SchemaPtr v1 = Ddl(scaling::WideDdl(n));
        schema::SchemaPtr reversed = Ddl(scaling::WideDdl(n, true));
        evolution::SchemaDiff diff = evolution::Diff(*v1, *reversed);
        auto table = evolution::ParsedSchema::FromModel(evolution::SchemaType::kIceberg, v1);
        auto other = evolution::ParsedSchema::FromModel(
            evolution::SchemaType::kIceberg, Ddl(fmt::format("x{}", scaling::WideDdl(n))));
        evolution::CompatibilityReport compat = evolution::CheckCompatibility(
            evolution::CompatibilityMode::kFullTransitive, {table, table}, *other);
        evolution::MergeOptions merge_options;
        merge_options.mode = evolution::TableWriteMode::kMerge;
        auto merged =
            evolution::Merge(*v1, *Ddl(fmt::format("y{}", scaling::WideDdl(n))), merge_options);
        ASSERT_TRUE(merged.has_value());
        auto contract = dialects::contract::ParseSeedContract(scaling::WideSeedContract(n));
        ASSERT_TRUE(contract.has_value());
        auto check = evolution::CheckContract(*reversed, *contract, v1.get());
        ASSERT_TRUE(check.has_value());
        for (Format f : {Format::kText, Format::kJson, Format::kGithub}) {
          EXPECT_TRUE(Render(diff, DiffContext{"a", "b"}, f).has_value());
          EXPECT_TRUE(Render(compat, CompatContext{{"v1", "v2"}, "v3"}, f).has_value());
          EXPECT_TRUE(Render(*check, CheckContext{"s", "c", "p"}, f).has_value());
        }
        for (Format f : {Format::kText, Format::kJson}) {
          EXPECT_TRUE(Render(*merged, MergeContext{"t", "i", merge_options, "spark-json", ""}, f)
                          .has_value());
        }
      },
      1000));
}

}  // namespace
}  // namespace sluice::report
