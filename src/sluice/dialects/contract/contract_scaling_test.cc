// Wide contracts (many columns, many models) read and write in time linear in their size.
#include <gtest/gtest.h>

#include "sluice/dialects/contract/contract.h"
#include "sluice/dialects/contract/dcs.h"
#include "sluice/schema/scaling_testing.h"

namespace sluice::dialects::contract {
namespace {

using sluice::scaling::ScalesLinearly;

TEST(ContractScalingTest, WideSeedContractsInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        auto c = ParseSeedContract(sluice::scaling::WideSeedContract(n));
        ASSERT_TRUE(c.has_value()) << c.error().message();
        ASSERT_EQ(c->objects.front().schema->fields().size(), n);
        auto written = WriteSeedContract(*c->objects.front().schema);
        ASSERT_TRUE(written.has_value()) << written.error().message();
      },
      1000));
}

TEST(ContractScalingTest, WideOdcsContractsInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        auto c = ParseOdcs(sluice::scaling::WideOdcs(n));
        ASSERT_TRUE(c.has_value()) << c.error().message();
        ASSERT_EQ(c->objects.front().columns.size(), n);
        auto written = WriteOdcs(*c->objects.front().schema);
        ASSERT_TRUE(written.has_value()) << written.error().message();
      },
      1000));
}

TEST(ContractScalingTest, ManyModelsInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        auto odcs = ParseOdcs(sluice::scaling::WideOdcs(4, n));
        ASSERT_TRUE(odcs.has_value()) << odcs.error().message();
        ASSERT_EQ(odcs->objects.size(), n);
        auto dcs = ParseDcs(sluice::scaling::WideDcs(4, n));
        ASSERT_TRUE(dcs.has_value()) << dcs.error().message();
        ASSERT_EQ(dcs->objects.size(), n);
        auto wide = ParseDcs(sluice::scaling::WideDcs(n));
        ASSERT_TRUE(wide.has_value()) << wide.error().message();
      },
      100));
}

}  // namespace
}  // namespace sluice::dialects::contract
