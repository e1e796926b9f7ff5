#include "sluice/dialects/parquet/parquet_schema.h"

#include <gtest/gtest.h>

#include <cstring>

#include "sluice/dialects/spark/spark.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/schema_map.h"

namespace sluice::dialects::parquet {
namespace {

schema::SchemaPtr Ddl(std::string_view ddl) {
  auto s = spark::ReadDdl(ddl);
  EXPECT_TRUE(s.has_value()) << s.error().message();
  return s->value;
}

// A file's tail: the footer of `model`'s schema, its length and the magic.
std::string Tail(const schema::SchemaPtr& model) {
  auto ps = sluice::parquet::ParquetSchema::FromModel(model);
  EXPECT_TRUE(ps.has_value());
  sluice::parquet::FileMetaData meta;
  meta.schema = ps->value.elements();
  std::string footer = sluice::parquet::WriteFileMetaData(meta);
  const auto length = static_cast<uint32_t>(footer.size());
  char le[4];
  std::memcpy(le, &length, 4);
  return "PAR1" + footer + std::string(le, 4) + "PAR1";
}

TEST(ParquetSchemaDialectTest, FooterAndMessageTypeReadTheSameModel) {
  const auto model =
      Ddl("id BIGINT NOT NULL, amount DECIMAL(12,2), tags ARRAY<STRING>, "
          "attrs MAP<STRING, INT>, at TIMESTAMP, s STRUCT<a: DATE, b: BINARY>");
  auto from_footer = ReadSchema(Tail(model));
  ASSERT_TRUE(from_footer.has_value()) << from_footer.error().message();
  EXPECT_TRUE(from_footer->value->Equals(*model)) << spark::WriteDdl(*from_footer->value).value;
  auto text = WriteSchema(*model);
  ASSERT_TRUE(text.has_value());
  EXPECT_NE(text->value.find("message spark_schema {"), std::string::npos) << text->value;
  EXPECT_NE(text->value.find("required int64 id;"), std::string::npos) << text->value;
  auto from_text = ReadSchema(text->value);
  ASSERT_TRUE(from_text.has_value()) << from_text.error().message();
  EXPECT_TRUE(from_text->value->Equals(*model));
}

TEST(ParquetSchemaDialectTest, DetectionDoesNotTakeADdlColumnNamedMessage) {
  EXPECT_TRUE(LooksLikeParquet("message spark_schema {\n}"));
  EXPECT_TRUE(LooksLikeParquet("  message m{ required int32 a; }"));
  EXPECT_FALSE(LooksLikeParquet("message STRING, id INT"));
  EXPECT_FALSE(LooksLikeParquet("message"));
  EXPECT_TRUE(LooksLikeParquet(std::string("xxxx\0\0\0\0PAR1", 12)));
}

TEST(ParquetSchemaDialectTest, BrokenTailsAreErrors) {
  const std::string tail = Tail(Ddl("a INT"));
  auto not_parquet = ReadSchema("a b c");
  EXPECT_FALSE(not_parquet.has_value());
  // A footer length past the bytes given.
  std::string long_length = tail;
  long_length[long_length.size() - 8] = '\x7f';
  long_length[long_length.size() - 5] = '\x7f';
  auto past = ReadSchema(long_length);
  ASSERT_FALSE(past.has_value());
  EXPECT_NE(past.error().message().find("runs past the start"), std::string::npos);
  // Every truncation from the front keeps failing cleanly once the footer is cut.
  for (size_t cut = 1; cut + 8 < tail.size(); ++cut) {
    std::string part = tail.substr(cut + 4);
    EXPECT_FALSE(ReadSchema(part).has_value()) << cut;
  }
}

}  // namespace
}  // namespace sluice::dialects::parquet
