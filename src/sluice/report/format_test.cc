#include "sluice/report/format.h"

#include <gtest/gtest.h>

namespace sluice::report {
namespace {

TEST(ReportFormatTest, NamesRoundTrip) {
  for (Format f : {Format::kText, Format::kJson, Format::kGithub, Format::kSlack, Format::kHtml}) {
    auto parsed = ParseFormat(FormatName(f));
    ASSERT_TRUE(parsed.has_value()) << FormatName(f);
    EXPECT_EQ(*parsed, f);
  }
}

TEST(ReportFormatTest, UnknownNameIsInvalidArgument) {
  auto parsed = ParseFormat("yaml");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_EQ(parsed.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(parsed.error().message(),
            "unknown report format 'yaml' (text, json, github, slack, html)");
}

TEST(ReportFormatTest, UnsupportedNamesTheResultAndTheFormat) {
  Error e = Unsupported("a table merge result", Format::kGithub);
  EXPECT_EQ(e.code(), ErrorCode::kUnimplemented);
  EXPECT_EQ(e.message(), "a table merge result cannot be rendered as github: not implemented");
}

}  // namespace
}  // namespace sluice::report
