#include "sluice/base/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace sluice {
namespace {

Result<int> ParsePositive(int v) {
  if (v <= 0) return InvalidArgument("not positive: " + std::to_string(v));
  return v;
}

Result<int> Doubled(int v) {
  SLUICE_ASSIGN_OR_RETURN(int p, ParsePositive(v));
  return p * 2;
}

Status CheckBoth(int a, int b) {
  SLUICE_TRY(ParsePositive(a));
  SLUICE_TRY(ParsePositive(b));
  return Ok();
}

Result<std::unique_ptr<int>> MoveOnly() { return std::make_unique<int>(5); }

TEST(ResultTest, MacrosPropagateErrors) {
  EXPECT_EQ(*Doubled(4), 8);
  auto bad = Doubled(-1);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.error().ToString(), "invalid_argument: not positive: -1");
  EXPECT_TRUE(CheckBoth(1, 2).has_value());
  EXPECT_EQ(CheckBoth(1, 0).error().message(), "not positive: 0");
}

TEST(ResultTest, MoveOnlyValues) {
  auto r = MoveOnly();
  ASSERT_TRUE(r.has_value());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 5);
}

TEST(ResultTest, WithContextPrefixesMessage) {
  Error e(ErrorCode::kParseError, "line 1");
  EXPECT_EQ(e.WithContext("a.json").message(), "a.json: line 1");
  EXPECT_EQ(e.WithContext("a.json").code(), ErrorCode::kParseError);
}

}  // namespace
}  // namespace sluice
