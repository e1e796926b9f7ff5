#include "sluice/ingest/evolution_mode.h"

#include <gtest/gtest.h>

namespace sluice::ingest {
namespace {

TEST(EvolutionModeTest, AutoLoaderNamesRoundTripAndIgnoreCase) {
  for (EvolutionMode mode :
       {EvolutionMode::kAddNewColumns, EvolutionMode::kAddNewColumnsWithTypeWidening,
        EvolutionMode::kRescue, EvolutionMode::kFailOnNewColumns, EvolutionMode::kNone}) {
    auto parsed = ParseEvolutionMode(EvolutionModeName(mode));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, mode);
  }
  auto lower = ParseEvolutionMode("addnewcolumns");
  ASSERT_TRUE(lower.has_value());
  EXPECT_EQ(*lower, EvolutionMode::kAddNewColumns);
}

TEST(EvolutionModeTest, UnknownNameListsTheModes) {
  auto parsed = ParseEvolutionMode("merge");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_NE(parsed.error().message().find("failOnNewColumns"), std::string::npos);
}

}  // namespace
}  // namespace sluice::ingest
