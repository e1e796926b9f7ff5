#include "sluice/parquet/row_screen.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

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

// Reads without text judge a value on its decoded form; they must never pass a value whose text
// the text's check would not pass (the text is what a later JSON check would read). The edges:
// the first and last days of four-digit years, the decimal's precision, float32's far ends.
TEST(RowScreenTest, TheDecodedFormIsNeverMoreLenientThanTheText) {
  const ValueScreen year{ScreenCheck::kFourDigitYear, 0};
  const ValueFormat date{ValueFormat::Kind::kDate};
  int passed = 0;
  for (int32_t days : {-719529, -719528, 0, 2932896, 2932897, INT32_MIN, INT32_MAX}) {
    std::string text;
    AppendDate(text, days);
    const bool typed = PassesScreen(date, year, days);
    passed += typed;
    EXPECT_TRUE(!typed || Passes(ScreenCheck::kFourDigitYear, text)) << text;
  }
  EXPECT_EQ(passed, 3);  // 0000-01-01, 1970-01-01, 9999-12-31

  constexpr int64_t kDay = int64_t{86400} * 1000000;
  for (TimeUnit unit : {TimeUnit::kMillis, TimeUnit::kMicros, TimeUnit::kNanos}) {
    const int64_t per_day = unit == TimeUnit::kMillis ? kDay / 1000 : kDay;
    const ValueFormat ts{ValueFormat::Kind::kTimestamp, 0, unit, true};
    std::vector<int64_t> values = {0, INT64_MIN, INT64_MAX};
    if (unit != TimeUnit::kNanos) {
      values.insert(values.end(), {-719528 * per_day, -719528 * per_day - 1, 2932897 * per_day - 1,
                                   2932897 * per_day});
    }
    for (int64_t v : values) {
      std::string text;
      AppendTimestamp(text, v, unit, true);
      EXPECT_TRUE(!PassesScreen(ts, year, v) || Passes(ScreenCheck::kFourDigitYear, text)) << text;
    }
  }
  EXPECT_FALSE(PassesScreen(ValueFormat{ValueFormat::Kind::kTimestamp, 0, TimeUnit::kMicros}, year,
                            2932897 * kDay));
  EXPECT_TRUE(PassesScreen(ValueFormat{ValueFormat::Kind::kTimestamp, 0, TimeUnit::kMicros}, year,
                           2932897 * kDay - 1));

  const ValueScreen digits{ScreenCheck::kDigits, 4};
  const ValueFormat decimal{ValueFormat::Kind::kDecimal, 2};
  for (int64_t v : {int64_t{9999}, int64_t{-9999}, int64_t{10000}, int64_t{-10000}, INT64_MIN}) {
    std::string text;
    AppendDecimal(text, v, 2);
    const bool typed = PassesScreen(decimal, digits, v);
    EXPECT_EQ(typed, v > -10000 && v < 10000) << v;
    EXPECT_TRUE(!typed || Passes(ScreenCheck::kDigits, text, 4)) << text;
    if (v >= INT32_MIN && v <= INT32_MAX) {
      EXPECT_EQ(PassesScreen(decimal, digits, static_cast<int32_t>(v)), typed) << v;
    }
  }
  // Decimals in bytes: read when they fit 64 bits, left to the text when wider.
  EXPECT_TRUE(PassesScreen(decimal, digits, std::string_view("\x27\x0f", 2)));   // 9999
  EXPECT_FALSE(PassesScreen(decimal, digits, std::string_view("\x27\x10", 2)));  // 10000
  EXPECT_TRUE(PassesScreen(decimal, digits, std::string_view("\xd8\xf1", 2)));   // -9999
  EXPECT_FALSE(PassesScreen(decimal, digits, std::string(9, '\0')));

  const ValueScreen no_exponent{ScreenCheck::kNoExponent, 0};
  const ValueFormat f32{ValueFormat::Kind::kFloat};
  for (float v : {1.5f, 1e30f, 1e31f, std::numeric_limits<float>::max(), 1e-30f, 1e-31f,
                  std::numeric_limits<float>::denorm_min()}) {
    std::string text;
    AppendFloat(text, v);
    const bool typed = PassesScreen(f32, no_exponent, v);
    EXPECT_EQ(typed, v == 1.5f || v == 1e30f || v == 1e-30f) << text;
  }

  // What the decoded form cannot be sure of is left to the text.
  EXPECT_FALSE(PassesScreen(ValueFormat{ValueFormat::Kind::kInt96Timestamp}, year, Int96{}));
  EXPECT_FALSE(PassesScreen(ValueFormat{ValueFormat::Kind::kFloat16}, no_exponent,
                            std::string_view("\0\0", 2)));
  EXPECT_FALSE(PassesScreen(ValueFormat{ValueFormat::Kind::kInt32}, ValueScreen{ScreenCheck::kInt8},
                            int32_t{128}));
  EXPECT_TRUE(PassesScreen(ValueFormat{ValueFormat::Kind::kInt32}, ValueScreen{ScreenCheck::kInt8},
                           int32_t{-128}));
}

}  // namespace
}  // namespace sluice::parquet
