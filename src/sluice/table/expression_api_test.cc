// The expression API as a writer uses it: parse once, bind to the table's schema, evaluate many
// rows; what it reports about the columns, and how its errors read. The semantics of each
// operator are in testdata/expressions/*.test (expression_test.cc).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/schema/scaling_testing.h"
#include "sluice/table/expression.h"

namespace sluice::table {
namespace {

schema::SchemaPtr Ddl(std::string_view ddl) {
  auto read = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(read.has_value()) << read.error().ToString();
  return read->value;
}

Result<BoundExpression> ParseAndBind(std::string_view sql, const schema::Schema& schema) {
  SLUICE_ASSIGN_OR_RETURN(ExpressionPtr e, ParseExpression(sql));
  return Bind(*e, schema);
}

std::vector<std::string> Paths(const BoundExpression& b) {
  std::vector<std::string> out;
  for (const schema::FieldPath& p : b.referenced_columns()) out.push_back(p.ToString());
  return out;
}

TEST(ExpressionApi, ReferencedColumnsUseTheSchemaSpellingOnceInOrder) {
  auto schema =
      Ddl("Amount DECIMAL(10,2), customer STRUCT<Name: STRING, tier: INT>, "
          "tags ARRAY<STRING>, `odd.name` INT");
  auto b = ParseAndBind(
      "amount > 0 AND CUSTOMER.name IS NOT NULL AND tags[0] = 'x' AND amount < 100 AND "
      "`odd.name` = 1 AND length(customer.NAME) < 10",
      *schema);
  ASSERT_TRUE(b.has_value()) << b.error().ToString();
  EXPECT_EQ(Paths(*b), (std::vector<std::string>{"Amount", "customer.Name", "tags", "`odd.name`"}));
}

TEST(ExpressionApi, ConstantExpressionsReadNoColumns) {
  auto schema = Ddl("a INT");
  auto b = ParseAndBind("1 < 2", *schema);
  ASSERT_TRUE(b.has_value());
  EXPECT_TRUE(b->referenced_columns().empty());
  EXPECT_EQ(*b->Evaluate(*ParseJson("{}")), Truth::kTrue);
}

TEST(ExpressionApi, UnknownColumnNamesTheColumnAndTheOnesThereAre) {
  auto schema = Ddl("order_id BIGINT, order_amount DOUBLE");
  auto b = ParseAndBind("amount > 0", *schema);
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(b.error().message(),
            "column 'amount' not found; there are: order_id, order_amount at offset 0");
}

TEST(ExpressionApi, NamesDifferingOnlyInCaseAreAmbiguous) {
  auto schema = schema::Schema::Make(
      {schema::Field("a", schema::Type::Int32()), schema::Field("A", schema::Type::Int32())});
  ASSERT_TRUE(schema.has_value());
  auto b = ParseAndBind("a = 1", **schema);
  ASSERT_FALSE(b.has_value());
  EXPECT_NE(b.error().message().find("ambiguous"), std::string::npos) << b.error().message();
}

TEST(ExpressionApi, BindErrorsNameTheOffsetOfTheFaultyPart) {
  auto schema = Ddl("a INT, s STRING, d DATE");
  auto b = ParseAndBind("a > 0 AND d = 1", *schema);
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().message(), "cannot compare DATE with INT at offset 10");

  b = ParseAndBind("a > 0 AND substring(s)", *schema);
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().message(), "substring() takes 2 to 3 arguments, not 1 at offset 10");

  b = ParseAndBind("a + 1", *schema);
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().message(),
            "a constraint must be a boolean expression, but this one is INT at offset 0");
}

TEST(ExpressionApi, ParseErrorsAreInvalidArgumentWithOffsetAndToken) {
  auto e = ParseExpression("a > 0 AND foo(a) = 1");
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(e.error().message(), "unknown function 'foo' at offset 10");

  e = ParseExpression("a > 0 AND");
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error().message(), "unexpected end of input at offset 9");
}

TEST(ExpressionApi, RowValuesOfTheWrongTypeAreErrorsNamingTheColumn) {
  auto schema = Ddl("s STRUCT<n: INT>");
  auto b = ParseAndBind("s.n > 0", *schema);
  ASSERT_TRUE(b.has_value());
  auto t = b->Evaluate(*ParseJson(R"({"s": {"n": 1.5}})"));
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().message(), "column s.n: expected an integer of type INT, found 1.5");
  EXPECT_FALSE(b->Evaluate(*ParseJson("[1]")).has_value());
}

TEST(ExpressionApi, NullIsAViolationAsDeltaCountsIt) {
  auto schema = Ddl("x INT");
  auto b = ParseAndBind("x > 3", *schema);
  ASSERT_TRUE(b.has_value());
  EXPECT_FALSE(Violates(*b->Evaluate(*ParseJson(R"({"x": 4})"))));
  EXPECT_TRUE(Violates(*b->Evaluate(*ParseJson(R"({"x": 3})"))));
  EXPECT_TRUE(Violates(*b->Evaluate(*ParseJson(R"({"x": null})"))));
  EXPECT_TRUE(Violates(*b->Evaluate(*ParseJson("{}"))));
}

TEST(ExpressionApi, ToSqlNormalizesAndShowsImplicitCasts) {
  auto e = ParseExpression("num<10 and TEXT<'g' or not x in (1,2)");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(ToSql(**e), "((num < 10) AND (TEXT < 'g')) OR (NOT (x IN (1, 2)))");

  auto schema = Ddl("num BIGINT, text STRING, x INT");
  auto b = Bind(**e, *schema);
  ASSERT_TRUE(b.has_value()) << b.error().ToString();
  EXPECT_EQ(b->ToSql(), "((num < 10L) AND (text < 'g')) OR (NOT (x IN (1, 2)))");
  auto c = ParseAndBind("text > 5", *schema);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->ToSql(), "CAST(text AS INT) > 5");
}

TEST(ExpressionApi, OneBoundExpressionEvaluatesOnManyThreads) {
  auto schema = Ddl("n INT, s STRING");
  auto b = ParseAndBind("n % 2 = 0 AND s LIKE 'a%' AND upper(s) RLIKE '^A'", *schema);
  ASSERT_TRUE(b.has_value());
  std::vector<std::thread> threads;
  std::vector<int> trues(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        auto row = ParseJson("{\"n\": " + std::to_string(i) + ", \"s\": \"abc\"}");
        if (*b->Evaluate(*row) == Truth::kTrue) ++trues[t];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int n : trues) EXPECT_EQ(n, 1000);
}

TEST(ExpressionApi, ADefaultBoundExpressionRefusesToEvaluate) {
  BoundExpression b;
  EXPECT_FALSE(b.Evaluate(*ParseJson("{}")).has_value());
  EXPECT_EQ(b.ToSql(), "");
}

TEST(ExpressionApi, HandBuiltTreesDeeperThanTheLimitAreRefusedByBind) {
  // Parsing refuses such trees; a caller building one by hand gets the same refusal from Bind.
  auto leaf = std::make_shared<Expression>();
  leaf->literal = LiteralKind::kBoolean;
  leaf->text = "true";
  ExpressionPtr node = leaf;
  for (int i = 0; i < 5000; ++i) {
    auto n = std::make_shared<Expression>();
    n->kind = ExprKind::kUnary;
    n->unary = UnaryOp::kNot;
    n->children = {node};
    node = n;
  }
  auto schema = Ddl("a INT");
  auto b = Bind(*node, *schema);
  ASSERT_FALSE(b.has_value());
  EXPECT_NE(b.error().message().find("nests too deeply"), std::string::npos);
}

TEST(ExpressionApi, ReadsColumnInvariantsFromFieldMetadata) {
  auto meta = ParseJson(R"({"delta.invariants": "{\"expression\":{\"expression\":\"x > 3\"}}"})");
  ASSERT_TRUE(meta.has_value());
  auto text = InvariantExpressionText(*meta);
  ASSERT_TRUE(text.has_value()) << text.error().ToString();
  EXPECT_EQ(*text, std::optional<std::string>("x > 3"));

  EXPECT_EQ(*InvariantExpressionText(*ParseJson(R"({"comment": "c"})")), std::nullopt);
  auto bad = InvariantExpressionText(*ParseJson(R"({"delta.invariants": "{\"rule\":1}"})"));
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("unrecognized delta.invariants"), std::string::npos);
  EXPECT_FALSE(InvariantExpressionText(*ParseJson(R"({"delta.invariants": 3})")).has_value());
}

TEST(ExpressionScaling, LongExpressionsParseAndEvaluateInLinearTime) {
  auto schema = Ddl("x INT, s STRING");
  const auto row = ParseJson(R"({"x": -1, "s": "abc"})");
  EXPECT_TRUE(scaling::ScalesLinearly(
      [&](size_t n) {
        std::string sql = "s = 'zzz'";
        for (size_t i = 0; i < n; ++i) sql += " OR x = " + std::to_string(i);
        sql += " OR x IN (";
        for (size_t i = 0; i < n; ++i) sql += std::to_string(i) + ", ";
        sql += "-2)";
        auto b = ParseAndBind(sql, *schema);
        ASSERT_TRUE(b.has_value()) << b.error().ToString();
        EXPECT_EQ(*b->Evaluate(*row), Truth::kFalse);
      },
      5000));
}

TEST(ExpressionScaling, DeepNestingIsRefusedQuicklyWhateverItsDepth) {
  EXPECT_TRUE(scaling::ScalesLinearly(
      [](size_t n) {
        const std::string sql = std::string(n, '(') + "1" + std::string(n, ')') + " = 1";
        auto e = ParseExpression(sql);
        ASSERT_FALSE(e.has_value());
        EXPECT_EQ(e.error().message(),
                  "expression nests too deeply: more than 256 parentheses and prefix operators "
                  "at offset 256");
      },
      50000));
}

}  // namespace
}  // namespace sluice::table
