#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>

#include "sluice/data/lexical_internal.h"

namespace sluice::data::internal {
namespace {

// Every field a parse gives, for comparing two parses.
auto Fields(bool ok, const DateTimeFields& f) {
  return std::make_tuple(ok, f.year, f.month, f.day, f.hour, f.minute, f.second, f.has_zone,
                         f.nanos, std::string(f.zone), f.time_only);
}

TEST(LexicalTest, TheCommonTimestampShapesReadAsSparkReadsThem) {
  DateTimeFields f;
  ASSERT_TRUE(ParseLenientTimestamp("2026-07-20T10:42:25.908Z", &f));
  EXPECT_EQ(Fields(true, f), std::make_tuple(true, int64_t{2026}, 7, 20, 10, 42, 25, true,
                                             908000000, std::string("Z"), false));
  f = {};
  ASSERT_TRUE(ParseLenientTimestamp(" 2024-02-29 23:59:59 ", &f));
  EXPECT_EQ(Fields(true, f), std::make_tuple(true, int64_t{2024}, 2, 29, 23, 59, 59, false, 0,
                                             std::string(), false));
  f = {};
  ASSERT_TRUE(ParseLenientTimestamp("2026-07-20", &f));
  EXPECT_EQ(Fields(true, f),
            std::make_tuple(true, int64_t{2026}, 7, 20, 0, 0, 0, false, 0, std::string(), false));
  EXPECT_FALSE(ParseLenientTimestamp("2023-02-29 10:00:00", &f));  // not a leap year
  EXPECT_FALSE(ParseLenientTimestamp("2026-07-20T24:00:00", &f));
  EXPECT_FALSE(ParseLenientTimestamp("2026-13-01", &f));
  f = {};
  ASSERT_TRUE(ParseLenientDate("2026-07-20T99:99", &f));  // what follows 'T' is ignored
  EXPECT_EQ(std::make_tuple(f.year, f.month, f.day), std::make_tuple(int64_t{2026}, 7, 20));
  EXPECT_FALSE(ParseLenientDate("2026-02-30", &f));
}

// Text near the common shapes: every field's digits, separators and lengths varied, zones and
// whitespace added, cut anywhere.
std::string NearTimestamp(std::mt19937_64& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  auto two = [&](int max) {
    const int v = pick(max + 1);
    return std::string(1, static_cast<char>('0' + v / 10)) + static_cast<char>('0' + v % 10);
  };
  static const char* const kSeparators[] = {" ", "T", "t", "-", ":", "", "  "};
  static const char* const kZones[] = {
      "",  "Z", "z",  " Z", "+01:00", "-0530", "UTC", "GMT+2", "Europe/Paris",
      " ", "x", "ZZ", "+",  "0"};
  std::string s;
  if (pick(8) == 0) s += " \t"[pick(2)];
  if (pick(10) == 0) s += "+-"[pick(2)];
  s += std::to_string(pick(3) == 0 ? pick(100000) : 1900 + pick(200));
  s += pick(12) == 0 ? "/" : "-";
  s += pick(10) == 0 ? std::to_string(pick(10)) : two(13);
  s += pick(12) == 0 ? "." : "-";
  s += pick(10) == 0 ? std::to_string(pick(10)) : two(32);
  if (pick(4) != 0) {
    s += kSeparators[pick(pick(2) == 0 ? 2 : 7)];
    s += pick(10) == 0 ? std::to_string(pick(10)) : two(25);
    s += pick(15) == 0 ? "." : ":";
    s += two(61);
    if (pick(6) != 0) {
      s += ":";
      s += two(61);
      if (pick(2) == 0) {
        s += ".";
        const int digits = pick(21);
        for (int k = 0; k < digits; ++k) s += static_cast<char>('0' + pick(10));
      }
    }
    s += kZones[pick(static_cast<int>(std::size(kZones)))];
  }
  if (pick(8) == 0) s += " \n"[pick(2)];
  if (pick(6) == 0 && !s.empty()) {
    // A byte that is no digit where one may stand: just below and above '0'..'9', a letter,
    // a byte of a UTF-8 sequence.
    static const char kNoise[] = {'/', ':', 'a', ' ', '\xc3', '\x80', '\0'};
    s[static_cast<size_t>(pick(static_cast<int>(s.size())))] = kNoise[pick(7)];
  }
  if (pick(10) == 0) s.resize(static_cast<size_t>(pick(static_cast<int>(s.size()) + 1)));
  return s;
}

TEST(LexicalTest, TheFastPathsAgreeWithTheGeneralParsers) {
  std::mt19937_64 rng(20261206);
  int accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    const std::string s = NearTimestamp(rng);
    DateTimeFields fast;
    DateTimeFields general;
    const bool a = ParseLenientTimestamp(s, &fast);
    const bool b = ParseLenientTimestampGeneral(s, &general);
    ASSERT_EQ(Fields(a, a ? fast : DateTimeFields{}), Fields(b, b ? general : DateTimeFields{}))
        << "timestamp `" << s << "`";
    accepted += a;
    fast = {};
    general = {};
    const bool c = ParseLenientDate(s, &fast);
    const bool d = ParseLenientDateGeneral(s, &general);
    ASSERT_EQ(Fields(c, c ? fast : DateTimeFields{}), Fields(d, d ? general : DateTimeFields{}))
        << "date `" << s << "`";
  }
  // The generator reaches both outcomes often.
  EXPECT_GT(accepted, 20000);
  EXPECT_LT(accepted, 180000);
}

}  // namespace
}  // namespace sluice::data::internal
