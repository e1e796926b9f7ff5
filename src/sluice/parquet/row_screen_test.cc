#include "sluice/parquet/row_screen.h"

#include <gtest/gtest.h>

#include <string>

namespace sluice::parquet {
namespace {

bool Passes(ScreenCheck check, std::string_view text, uint8_t arg = 0) {
  return PassesScreen(check, arg, text.data(), text.size());
}

// Values a hostile or foreign writer can store but a reader of the JSON text would not take
// back as the same value of the type: the screen must send their rows to the full check.
TEST(RowScreenTest, ValuesOutsideTheTypeAreNotVouchedFor) {
  EXPECT_TRUE(Passes(ScreenCheck::kInt8, "-128"));
  EXPECT_TRUE(Passes(ScreenCheck::kInt8, "127"));
  EXPECT_FALSE(Passes(ScreenCheck::kInt8, "128"));
  EXPECT_FALSE(Passes(ScreenCheck::kInt8, "-129"));
  EXPECT_TRUE(Passes(ScreenCheck::kInt16, "-32768"));
  EXPECT_FALSE(Passes(ScreenCheck::kInt16, "32768"));
  EXPECT_FALSE(Passes(ScreenCheck::kInt16, "2147483647"));

  EXPECT_TRUE(Passes(ScreenCheck::kDigits, "2943.07", 12));
  EXPECT_TRUE(Passes(ScreenCheck::kDigits, "-9999999999.99", 12));
  EXPECT_FALSE(Passes(ScreenCheck::kDigits, "10000000000.00", 12));  // 13 digits

  EXPECT_TRUE(Passes(ScreenCheck::kFourDigitYear, "\"2026-07-20\""));
  EXPECT_TRUE(Passes(ScreenCheck::kFourDigitYear, "\"0001-01-01T00:00:00Z\""));
  EXPECT_FALSE(Passes(ScreenCheck::kFourDigitYear, "\"+10000-01-01\""));
  EXPECT_FALSE(Passes(ScreenCheck::kFourDigitYear, "\"-0001-12-31\""));

  EXPECT_TRUE(Passes(ScreenCheck::kNoExponent, "1.5"));
  EXPECT_FALSE(Passes(ScreenCheck::kNoExponent, "3.4028235e+38"));

  EXPECT_FALSE(Passes(ScreenCheck::kNull, "\"{}\""));
  EXPECT_TRUE(Passes(ScreenCheck::kNone, "anything"));
}

}  // namespace
}  // namespace sluice::parquet
