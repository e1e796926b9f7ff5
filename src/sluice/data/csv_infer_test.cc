#include "sluice/data/csv_infer.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "sluice/dialects/spark/spark.h"

namespace sluice::data {
namespace {

using Row = std::vector<std::string_view>;

std::string Ddl(const Result<schema::SchemaPtr>& s) {
  if (!s.has_value()) return "error: " + s.error().message();
  return dialects::spark::WriteDdl(**s).value;
}

TEST(CsvInferTest, SafeHeaderNamesAsSpark) {
  CsvInferOptions o;
  o.null_value = "NA";
  const Row header = {"a", "", "A", "NA", "b", "a"};
  EXPECT_EQ(MakeSafeHeader(header, o),
            (std::vector<std::string>{"a0", "_c1", "A2", "_c3", "b", "a5"}));
  o.case_sensitive = true;
  EXPECT_EQ(MakeSafeHeader(header, o),
            (std::vector<std::string>{"a0", "_c1", "A", "_c3", "b", "a5"}));
}

TEST(CsvInferTest, RowsWidenPerColumnAndShortRowsLeaveColumnsAlone) {
  const Row first = {"1", "x", "2015-08-20", "true"};
  auto inferrer = CsvInferrer::FromFirstRow(CsvInferOptions{}, first, /*header=*/false);
  ASSERT_TRUE(inferrer.has_value());
  const Row r2 = {"10000000000", "", "2015-08-21", "FALSE", "extra"};
  const Row r3 = {"1.5"};
  inferrer->AddRow(r2);
  inferrer->AddRow(r3);
  EXPECT_EQ(Ddl(inferrer->Finish()), "_c0 DOUBLE,_c1 STRING,_c2 DATE,_c3 BOOLEAN");
}

TEST(CsvInferTest, NullColumnsEndAsStringAndInferSchemaOffGivesStrings) {
  auto inferrer = CsvInferrer::Make(CsvInferOptions{}, {"a", "b"});
  ASSERT_TRUE(inferrer.has_value());
  const Row r = {"", "7"};
  inferrer->AddRow(r);
  EXPECT_EQ(Ddl(inferrer->Finish()), "a STRING,b INT");
  CsvInferOptions off;
  off.infer_schema = false;
  auto plain = CsvInferrer::Make(off, {"a", "b"});
  ASSERT_TRUE(plain.has_value());
  plain->AddRow(r);
  EXPECT_EQ(Ddl(plain->Finish()), "a STRING,b STRING");
}

TEST(CsvInferTest, MergeOfChunksEqualsOneInferrer) {
  const std::vector<Row> rows = {{"1", "a", "1.5"}, {"99999999999", "2", "7"}, {"x", "", "NaN"}};
  auto whole = CsvInferrer::Make(CsvInferOptions{}, {"a", "b", "c"});
  auto left = CsvInferrer::Make(CsvInferOptions{}, {"a", "b", "c"});
  auto right = CsvInferrer::Make(CsvInferOptions{}, {"a", "b", "c"});
  ASSERT_TRUE(whole.has_value() && left.has_value() && right.has_value());
  for (const Row& r : rows) whole->AddRow(r);
  left->AddRow(rows[0]);
  right->AddRow(rows[1]);
  right->AddRow(rows[2]);
  left->Merge(*right);
  EXPECT_EQ(Ddl(left->Finish()), Ddl(whole->Finish()));
  EXPECT_EQ(Ddl(whole->Finish()), "a STRING,b STRING,c DOUBLE");
}

TEST(CsvInferTest, JavaNumberGrammar) {
  auto rules = CsvTypeRules::Make(CsvInferOptions{});
  ASSERT_TRUE(rules.has_value());
  const InferredType none = InferredType::Null();
  EXPECT_EQ(rules->InferField(none, "+5").ToString(), "int");
  EXPECT_EQ(rules->InferField(none, " 5").ToString(), "double");  // only parseDouble trims
  EXPECT_EQ(rules->InferField(none, "1d").ToString(), "double");
  EXPECT_EQ(rules->InferField(none, "0x1p3").ToString(), "double");
  EXPECT_EQ(rules->InferField(none, "1e5").ToString(), "double");  // negative scale: not decimal
  EXPECT_EQ(rules->InferField(none, "1" + std::string(38, '0')).ToString(), "double");
  EXPECT_EQ(rules->InferField(none, std::string(38, '9')).ToString(), "decimal(38,0)");
  EXPECT_EQ(rules->InferField(InferredType::Boolean(), "1").ToString(), "string");
}

TEST(CsvInferTest, BadOptionsAreErrors) {
  auto with = [](std::string_view key, std::string_view value) {
    auto o = CsvInferOptions::FromMap({{std::string(key), std::string(value)}});
    return o.has_value() && CsvTypeRules::Make(*o).has_value();
  };
  EXPECT_FALSE(with("dateFormat", "yyyy-MM-dd'"));  // unclosed quote
  EXPECT_FALSE(with("dateFormat", "YYYY-ww"));      // week-based fields
  EXPECT_FALSE(with("locale", "xx-YY"));
  EXPECT_TRUE(with("timestampFormat", "dd/MM/yyyy hh:mm a"));
  EXPECT_FALSE(CsvInferOptions::FromMap({{"inferSchema", "maybe"}}).has_value());
}

TEST(AutoLoaderInferTest, CsvColumnsAreStringsThenHinted) {
  auto o =
      CsvInferOptions::FromMap({{"cloudFiles.schemaHints", "amount decimal(10,2), ts timestamp"}});
  ASSERT_TRUE(o.has_value());
  const Row header = {"id", "amount"};
  auto inferrer = CsvInferrer::FromFirstRow(*o, header, /*header=*/true);
  ASSERT_TRUE(inferrer.has_value());
  const Row r = {"1", "2.50"};
  inferrer->AddRow(r);
  EXPECT_EQ(Ddl(inferrer->Finish()),
            "id STRING,amount DECIMAL(10,2),ts TIMESTAMP,_rescued_data STRING");
  o->auto_loader->infer_column_types = true;
  auto typed = CsvInferrer::FromFirstRow(*o, header, /*header=*/true);
  ASSERT_TRUE(typed.has_value());
  typed->AddRow(r);
  EXPECT_EQ(Ddl(typed->Finish()), "id INT,amount DECIMAL(10,2),ts TIMESTAMP,_rescued_data STRING");
}

}  // namespace
}  // namespace sluice::data
