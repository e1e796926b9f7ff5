#include "sluice/schema/field_path.h"

#include <gtest/gtest.h>

namespace sluice::schema {
namespace {

TEST(FieldPathTest, PrintsEachStepKind) {
  FieldPath p = FieldPath::Of("movies_watched").Element().Child("movie_id");
  EXPECT_EQ(p.ToString(), "movies_watched[].movie_id");
  EXPECT_EQ(FieldPath::Of("m").Key().ToString(), "m{key}");
  EXPECT_EQ(FieldPath::Of("m").Value().Child("a").ToString(), "m{value}.a");
  EXPECT_EQ(FieldPath::Of("grid").Element().Element().ToString(), "grid[][]");
}

TEST(FieldPathTest, QuotesNamesThatNeedIt) {
  EXPECT_EQ(QuoteFieldName("plain_name1"), "plain_name1");
  EXPECT_EQ(QuoteFieldName("odd.name"), "`odd.name`");
  EXPECT_EQ(QuoteFieldName("has space"), "`has space`");
  EXPECT_EQ(QuoteFieldName("back`tick"), "`back``tick`");
  EXPECT_EQ(QuoteFieldName("a[]"), "`a[]`");
  EXPECT_EQ(QuoteFieldName("{key}"), "`{key}`");
  EXPECT_EQ(QuoteFieldName("héllo"), "héllo");
}

TEST(FieldPathTest, ParsesWhatItPrints) {
  const char* cases[] = {
      "a",          "a.b.c",        "a[]",       "a[].b",         "m{key}",
      "m{value}.x", "`odd.name`.x", "`a``b`[]",  "x[][].y",       "m{value}[]{key}",
      "`{key}`",    "`with space`", "price-usd", "ünïcode.field",
  };
  for (const char* c : cases) {
    auto p = FieldPath::Parse(c);
    ASSERT_TRUE(p.has_value()) << c << ": " << p.error().ToString();
    EXPECT_EQ(p->ToString(), c);
  }
  auto p = FieldPath::Parse("`odd.name`.x");
  ASSERT_TRUE(p.has_value());
  ASSERT_EQ(p->size(), 2u);
  EXPECT_EQ(p->segments()[0].name, "odd.name");
}

TEST(FieldPathTest, RoundTripsArbitraryNames) {
  std::vector<std::string> names = {"a.b", "`", "``", "[", "]", "{", "}", " ", "x y", "\t", "ok"};
  for (const auto& n : names) {
    FieldPath p = FieldPath::Of(n).Element().Child(n).Value();
    auto back = FieldPath::Parse(p.ToString());
    ASSERT_TRUE(back.has_value()) << p.ToString();
    EXPECT_EQ(*back, p) << p.ToString();
  }
}

TEST(FieldPathTest, RejectsMalformedPathsWithOffset) {
  const char* cases[] = {"",   ".a",  "a.", "a..b", "a[", "a[x]", "a{k}", "`unterminated",
                         "``", "a b", "[]", "a.`",  "a]"};
  for (const char* c : cases) {
    auto p = FieldPath::Parse(c);
    ASSERT_FALSE(p.has_value()) << "accepted: " << c;
    EXPECT_EQ(p.error().code(), ErrorCode::kParseError);
    EXPECT_NE(p.error().message().find("offset"), std::string::npos);
  }
}

TEST(FieldPathTest, ParentAndEquality) {
  FieldPath p = FieldPath::Of("a").Element().Child("b");
  EXPECT_EQ(p.Parent(), FieldPath::Of("a").Element());
  EXPECT_TRUE(FieldPath().empty());
  EXPECT_EQ(FieldPath().ToString(), "");
}

}  // namespace
}  // namespace sluice::schema
