#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "sluice/data/parquet_values_internal.h"

namespace sluice::data::internal {
namespace {

using schema::TimeUnit;

int64_t Micros(std::string_view text, bool local = false) {
  int64_t v = 0;
  const char* why = "";
  EXPECT_TRUE(TimestampFromText(text, TimeUnit::kMicros, local, &v, &why)) << text << ": " << why;
  return v;
}

TEST(ParquetValuesTest, DaysFromCivilCountsFromTheEpoch) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(DaysFromCivil(2024, 2, 29), 19782);
  EXPECT_EQ(DaysFromCivil(1, 1, 1), -719162);
  EXPECT_EQ(DaysFromCivil(0, 1, 1), -719528);
  EXPECT_EQ(DaysFromCivil(-1, 12, 31), -719529);
}

TEST(ParquetValuesTest, TimestampsFollowSparksLenientForms) {
  EXPECT_EQ(Micros("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(Micros("2024-05-06T07:08:09.123456Z"), 1714979289123456);
  EXPECT_EQ(Micros("2024-05-06 07:08:09.1234569"), 1714979289123456);  // truncated
  EXPECT_EQ(Micros("2024-05-06T09:08:09+02:00"), 1714979289000000);
  EXPECT_EQ(Micros("2024-05-06T02:08:09-0500"), 1714979289000000);
  EXPECT_EQ(Micros("2024-05-06T07:08:09 UTC"), 1714979289000000);
  EXPECT_EQ(Micros("2024-05-06T08:08:09GMT+01:00"), 1714979289000000);
  EXPECT_EQ(Micros("2024-05-06T02:08:09 Etc/GMT+5"), 1714979289000000);
  EXPECT_EQ(Micros("2024"), 1704067200000000);
  EXPECT_EQ(Micros("2024-5"), 1714521600000000);
  EXPECT_EQ(Micros("1969-12-31T23:59:59.5Z"), -500000);
  EXPECT_EQ(Micros("2024-05-06T07:08:09", /*local=*/true), 1714979289000000);
  int64_t v = 0;
  const char* why = "";
  ASSERT_TRUE(
      TimestampFromText("2024-05-06T07:08:09.123456789Z", TimeUnit::kNanos, false, &v, &why));
  EXPECT_EQ(v, 1714979289123456789);
  ASSERT_TRUE(TimestampFromText("2024-05-06T07:08:09.9999Z", TimeUnit::kMillis, false, &v, &why));
  EXPECT_EQ(v, 1714979289999);
}

TEST(ParquetValuesTest, ATimeAloneGetsTodaysDate) {
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const int64_t today = now / 86400 * 86400 * 1000000;
  const int64_t v = Micros("T10:30:00Z");
  // Around midnight the day may turn between the two clocks.
  EXPECT_TRUE(v == today + 37800000000 || v == today + 86400000000 + 37800000000) << v;
}

TEST(ParquetValuesTest, TimestampsThatCannotBeWrittenSayWhy) {
  int64_t v = 0;
  const char* why = "";
  EXPECT_FALSE(TimestampFromText("not a time", TimeUnit::kMicros, false, &v, &why));
  EXPECT_FALSE(TimestampFromText("2024-05-06T07:08:09 America/New_York", TimeUnit::kMicros, false,
                                 &v, &why));
  EXPECT_NE(std::string(why).find("region"), std::string::npos);
  EXPECT_FALSE(TimestampFromText("2024-05-06T07:08:09Z", TimeUnit::kMicros, true, &v, &why));
  EXPECT_FALSE(TimestampFromText("2300-01-01T00:00:00Z", TimeUnit::kNanos, false, &v, &why));
  EXPECT_TRUE(TimestampFromText("2300-01-01T00:00:00Z", TimeUnit::kMicros, false, &v, &why));
}

// The long's whole range is written, its first values included: before 1970 the fraction is
// added to the second before it, which alone would not fit.
TEST(ParquetValuesTest, TimestampsReachBothEndsOfTheLong) {
  int64_t v = 0;
  const char* why = "";
  ASSERT_TRUE(
      TimestampFromText("-290308-12-21T19:59:05.224192Z", TimeUnit::kMicros, false, &v, &why));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_FALSE(
      TimestampFromText("-290308-12-21T19:59:05.224191Z", TimeUnit::kMicros, false, &v, &why));
  ASSERT_TRUE(
      TimestampFromText("294247-01-10T04:00:54.775807Z", TimeUnit::kMicros, false, &v, &why));
  EXPECT_EQ(v, INT64_MAX);
  ASSERT_TRUE(TimestampFromText("1677-09-21T00:12:43.145224192", TimeUnit::kNanos, true, &v, &why));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_FALSE(
      TimestampFromText("1677-09-21T00:12:43.145224191", TimeUnit::kNanos, true, &v, &why));
  ASSERT_TRUE(TimestampFromText("2262-04-11T23:47:16.854775807", TimeUnit::kNanos, true, &v, &why));
  EXPECT_EQ(v, INT64_MAX);
  ASSERT_TRUE(TimestampFromText("1969-12-31T23:59:59.5Z", TimeUnit::kMillis, false, &v, &why));
  EXPECT_EQ(v, -500);
}

TEST(ParquetValuesTest, IntegerTimestampsAreSeconds) {
  int64_t v = 0;
  ASSERT_TRUE(TimestampFromSeconds(-2, TimeUnit::kMicros, &v));
  EXPECT_EQ(v, -2000000);
  EXPECT_FALSE(TimestampFromSeconds(INT64_MAX / 1000, TimeUnit::kMicros, &v));
}

TEST(ParquetValuesTest, DatesAndTimes) {
  int32_t days = 0;
  ASSERT_TRUE(DateFromText("2024-02-29", &days));
  EXPECT_EQ(days, 19782);
  ASSERT_TRUE(DateFromText("2024-02-29T10:00 anything", &days));
  EXPECT_EQ(days, 19782);
  ASSERT_TRUE(DateFromText("-0001-12-31", &days));
  EXPECT_EQ(days, -719529);
  EXPECT_FALSE(DateFromText("9999999-01-01", &days));  // past int32 days
  int64_t t = 0;
  ASSERT_TRUE(TimeFromText("1:02:03.5", TimeUnit::kMicros, &t));
  EXPECT_EQ(t, 3723500000);
  ASSERT_TRUE(TimeFromText("23:59", TimeUnit::kMillis, &t));
  EXPECT_EQ(t, 86340000);
  ASSERT_TRUE(TimeFromText("00:00:00.000000001", TimeUnit::kNanos, &t));
  EXPECT_EQ(t, 1);
  EXPECT_FALSE(TimeFromText("24:00", TimeUnit::kMicros, &t));
}

// DecimalFromText's 64-bit shortcut agrees with the general reading on every text, ordinary
// or not: the verdict and the value, at every precision and scale.
TEST(ParquetValuesTest, TheDecimalShortcutAgreesWithTheGeneralReading) {
  std::mt19937_64 rng(20261205);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  auto digits = [&](int n) {
    std::string d;
    for (int i = 0; i < n; ++i) d += static_cast<char>('0' + pick(10));
    if (pick(4) == 0 && !d.empty()) d[0] = '0';  // leading zeros now and then
    return d;
  };
  int fast_cases = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string text;
    const int sign = pick(5);
    if (sign == 0) text += '-';
    if (sign == 1) text += '+';
    text += digits(pick(22));
    if (pick(2) == 0) text += '.' + digits(pick(22));
    if (pick(20) == 0) text += (pick(2) == 0 ? "e" : "E") + std::to_string(pick(40) - 20);
    if (pick(50) == 0)
      text.insert(static_cast<size_t>(pick(static_cast<int>(text.size()) + 1)), 1,
                  "x.-+ "[pick(5)]);
    const int precision = 1 + pick(38);
    const int scale = pick(precision + 1);
    Int128 fast = 0, general = 0;
    const bool a = DecimalFromText(text, precision, scale, &fast);
    const bool b = DecimalFromTextGeneral(text, precision, scale, &general);
    ASSERT_EQ(a, b) << text << " as decimal(" << precision << "," << scale << ")";
    if (a) {
      ASSERT_TRUE(fast == general) << text << " as decimal(" << precision << "," << scale << ")";
    }
    // How often the texts were ones the shortcut takes (ordinary values), for the record.
    fast_cases += a && text.find_first_of("eE") == std::string::npos;
  }
  EXPECT_GT(fast_cases, 10000);
}

TEST(ParquetValuesTest, UuidsAndBase64) {
  char b[16];
  ASSERT_TRUE(UuidFromText("00112233-4455-6677-8899-AabBccDdeEff", b));
  EXPECT_EQ(std::string(b, 16), std::string("\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb"
                                            "\xcc\xdd\xee\xff",
                                            16));
  EXPECT_FALSE(UuidFromText("00112233-4455-6677-8899-aabbccddeefg", b));
  std::string out;
  ASSERT_TRUE(Base64FromText("aGVsbG8=", out));
  EXPECT_EQ(out, "hello");
  ASSERT_TRUE(Base64FromText("aGVsbG8", out));
  EXPECT_EQ(out, "hello");
  ASSERT_TRUE(Base64FromText("", out));
  EXPECT_EQ(out, "");
  ASSERT_TRUE(Base64FromText("/+8=", out));
  EXPECT_EQ(out, "\xff\xef");
  EXPECT_FALSE(Base64FromText("aGVsbG8==", out));
  EXPECT_FALSE(Base64FromText("a", out));
  EXPECT_FALSE(Base64FromText("aG.s", out));
}

Int128 Dec(std::string_view text, int p, int s) {
  Int128 v = 0;
  EXPECT_TRUE(DecimalFromText(text, p, s, &v)) << text;
  return v;
}

TEST(ParquetValuesTest, DecimalsRoundHalfUpToTheScale) {
  EXPECT_EQ(Dec("12.50", 12, 2), 1250);
  EXPECT_EQ(Dec("-0.05", 5, 2), -5);
  EXPECT_EQ(Dec("7", 5, 0), 7);
  EXPECT_EQ(Dec("1.005", 5, 2), 101);
  EXPECT_EQ(Dec("-1.005", 5, 2), -101);
  EXPECT_EQ(Dec("1.004", 5, 2), 100);
  EXPECT_EQ(Dec("1.5e2", 5, 0), 150);
  EXPECT_EQ(Dec("+.5", 3, 0), 1);
  EXPECT_EQ(Dec("0.0004", 5, 3), 0);
  EXPECT_EQ(Dec("0.0005", 5, 3), 1);
  Int128 ten38 = 1;
  for (int i = 0; i < 38; ++i) ten38 *= 10;
  EXPECT_EQ(Dec("99999999999999999999999999999999999999", 38, 0), ten38 - 1);
  EXPECT_EQ(Dec("-9999999999999999999999999999999999999.95", 38, 0), -(ten38 / 10));
  Int128 v = 0;
  EXPECT_FALSE(DecimalFromText("1000", 3, 0, &v));
  EXPECT_FALSE(DecimalFromText("9.995", 3, 2, &v));  // rounds to 10.00: 4 digits
  EXPECT_FALSE(DecimalFromText("abc", 3, 0, &v));
  EXPECT_FALSE(DecimalFromText("1e", 3, 0, &v));
}

TEST(ParquetValuesTest, DecimalBytesAreBigEndianTwosComplement) {
  char b[5];
  DecimalToBytes(-2, 5, b);
  EXPECT_EQ(std::string(b, 5), std::string("\xff\xff\xff\xff\xfe", 5));
  DecimalToBytes(258, 5, b);
  EXPECT_EQ(std::string(b, 5), std::string("\x00\x00\x00\x01\x02", 5));
}

TEST(ParquetValuesTest, FloatsReadAsJavaReadsThem) {
  double d = 0;
  ASSERT_TRUE(DoubleFromText("NaN", &d));
  EXPECT_TRUE(std::isnan(d));
  ASSERT_TRUE(DoubleFromText("-INF", &d));
  EXPECT_EQ(d, -std::numeric_limits<double>::infinity());
  ASSERT_TRUE(DoubleFromText("+Infinity", &d));
  EXPECT_EQ(d, std::numeric_limits<double>::infinity());
  ASSERT_TRUE(DoubleFromText(" 1.5d ", &d));
  EXPECT_EQ(d, 1.5);
  ASSERT_TRUE(DoubleFromText("0x1.8p1", &d));
  EXPECT_EQ(d, 3.0);
  ASSERT_TRUE(DoubleFromText("1e-400", &d));
  EXPECT_EQ(d, 0.0);
  ASSERT_TRUE(DoubleFromText("-0", &d));
  EXPECT_TRUE(std::signbit(d));
  ASSERT_TRUE(DoubleFromText("1e400", &d));
  EXPECT_EQ(d, std::numeric_limits<double>::infinity());
  float f = 0;
  // Rounded once, straight to float: through double it would be a tie, rounded down to 1.0f.
  ASSERT_TRUE(FloatFromText("1.00000005960464477539062500000001", &f));
  EXPECT_EQ(f, 1.00000012f);
  ASSERT_TRUE(FloatFromText("3.4028235677973366e38", &f));
  EXPECT_EQ(f, std::numeric_limits<float>::max());
  EXPECT_FALSE(DoubleFromText("inf", &d));
  EXPECT_FALSE(DoubleFromText("1.5x", &d));
  EXPECT_FALSE(DoubleFromText("", &d));
}

}  // namespace
}  // namespace sluice::data::internal
