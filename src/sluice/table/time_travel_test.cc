#include "sluice/table/time_travel.h"

#include <gtest/gtest.h>

namespace sluice::table {
namespace {

TEST(TimeTravel, ReadsMillisecondsDatesAndIsoTimesInAnyZone) {
  EXPECT_EQ(ParseTimestampMs("1603724024783"), 1603724024783);
  EXPECT_EQ(ParseTimestampMs("0"), 0);
  EXPECT_EQ(ParseTimestampMs("2020-10-26"), 1603670400000);
  EXPECT_EQ(ParseTimestampMs("2020-10-26T14:53:44.783Z"), 1603724024783);
  EXPECT_EQ(ParseTimestampMs("2020-10-26 14:53:44.783"), 1603724024783);
  EXPECT_EQ(ParseTimestampMs("2020-10-26T14:53"), 1603723980000);
  EXPECT_EQ(ParseTimestampMs("2020-10-26T16:53:44.783+02:00"), 1603724024783);
  EXPECT_EQ(ParseTimestampMs("2020-10-26T07:53:44.783-0700"), 1603724024783);
  EXPECT_EQ(ParseTimestampMs("2020-10-26T14:53:44.783999999Z"), 1603724024783);
  EXPECT_EQ(ParseTimestampMs("1969-12-31T23:59:59Z"), -1000);
}

TEST(TimeTravel, RefusesWhatIsNoTimestamp) {
  for (std::string_view bad :
       {"", "yesterday", "2020-13-01", "2020-02-30", "2020-10-26T25:00", "2020-10-26T14:53:44Q",
        "2020-10-26T14:53:44.", "2020-10-26T14:53:44+2", "12a", "99999999999999999999"}) {
    auto r = ParseTimestampMs(bad);
    EXPECT_FALSE(r.has_value()) << bad;
    if (!r.has_value()) {
      EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
    }
  }
}

TEST(TimeTravel, FormatsUtcWithOrWithoutMilliseconds) {
  EXPECT_EQ(FormatTimestampMs(1603724024783), "2020-10-26T14:53:44.783Z");
  EXPECT_EQ(FormatTimestampMs(1603724024783, false, ' '), "2020-10-26 14:53:44Z");
  EXPECT_EQ(FormatTimestampMs(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(ParseTimestampMs(FormatTimestampMs(1796427055237)), 1796427055237);
}

}  // namespace
}  // namespace sluice::table
