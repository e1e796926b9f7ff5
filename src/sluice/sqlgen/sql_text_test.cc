#include "sluice/sqlgen/sql_text.h"

#include <gtest/gtest.h>

namespace sluice::sqlgen {
namespace {

TEST(SqlTextTest, IdentifiersAreQuotedOnlyWhenTheyMustBe) {
  EXPECT_EQ(QuoteIdentifier(Dialect::kSpark, "movie_id"), "movie_id");
  EXPECT_EQ(QuoteIdentifier(Dialect::kSpark, "Movie ID"), "`Movie ID`");
  EXPECT_EQ(QuoteIdentifier(Dialect::kSpark, "a`b"), "`a``b`");
  EXPECT_EQ(QuoteIdentifier(Dialect::kDuckDb, "Movie ID"), "\"Movie ID\"");
  EXPECT_EQ(QuoteIdentifier(Dialect::kDuckDb, "a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(QuoteIdentifier(Dialect::kDuckDb, "1st"), "\"1st\"");
  // Reserved words, and names read as a literal or a function when bare.
  EXPECT_EQ(QuoteIdentifier(Dialect::kSpark, "order"), "`order`");
  EXPECT_EQ(QuoteIdentifier(Dialect::kDuckDb, "null"), "\"null\"");
  EXPECT_EQ(QuoteIdentifier(Dialect::kDuckDb, "current_date"), "\"current_date\"");
  EXPECT_EQ(QuoteIdentifier(Dialect::kDuckDb, "order_date"), "order_date");
}

TEST(SqlTextTest, StringLiteralsEscapeQuotesAndSparksBackslashes) {
  EXPECT_EQ(QuoteString(Dialect::kSpark, "it's \\ ok"), "'it\\'s \\\\ ok'");
  EXPECT_EQ(QuoteString(Dialect::kDuckDb, "it's \\ ok"), "'it''s \\ ok'");
}

TEST(SqlTextTest, DialectNames) {
  EXPECT_EQ(*ParseDialect("duckdb"), Dialect::kDuckDb);
  EXPECT_FALSE(ParseDialect("mysql").has_value());
}

}  // namespace
}  // namespace sluice::sqlgen
