#include "sluice/dialects/sql/sql.h"

#include <gtest/gtest.h>

namespace sluice::dialects::sql {
namespace {

using schema::Field;
using schema::FieldPath;
using schema::Schema;
using schema::SchemaPtr;
using schema::TimeUnit;
using schema::Type;

SchemaPtr UserMovieActivity() {
  auto movie =
      Type::Struct({Field("movie_id", Type::Int32()), Field("title", Type::String()),
                    Field("duration_seconds", Type::Int64()), Field("completed", Type::Boolean())});
  return *Schema::Make({Field("user_id", Type::Int64(), false), Field("session_id", Type::String()),
                        Field("movies_watched", *Type::Array(*movie))},
                       {"user_movie_activity", "", std::nullopt});
}

// The seed-000 orders contract's columns.
SchemaPtr SeedOrders() {
  return *Schema::Make({Field("order_id", Type::Int64(), false),
                        Field("customer_id", Type::Int64(), false),
                        Field("total_amount", *Type::Decimal(10, 2), false),
                        Field("created_at", Type::Timestamp(), false)});
}

std::string Notes(const std::vector<schema::LossyNote>& notes) {
  std::string out;
  for (const auto& n : notes) out += n.ToString() + "\n";
  return out;
}

bool HasNote(const std::vector<schema::LossyNote>& notes, const std::string& path,
             std::string_view fragment) {
  for (const auto& n : notes) {
    if (n.path.ToString() == path && n.message.find(fragment) != std::string::npos) return true;
  }
  return false;
}

TEST(SqlTest, WritesUserMovieActivityForSpark) {
  auto ddl = WriteCreateTable(*UserMovieActivity(), SqlDialect::kSpark);
  EXPECT_EQ(ddl.value,
            "CREATE TABLE user_movie_activity (\n"
            "  user_id BIGINT NOT NULL,\n"
            "  session_id STRING,\n"
            "  movies_watched ARRAY<STRUCT<movie_id: INT, title: STRING, duration_seconds: "
            "BIGINT, completed: BOOLEAN>>\n"
            ") USING DELTA;\n");
  EXPECT_TRUE(ddl.notes.empty()) << Notes(ddl.notes);
}

TEST(SqlTest, WritesUserMovieActivityForDuckDb) {
  auto ddl = WriteCreateTable(*UserMovieActivity(), SqlDialect::kDuckDb);
  EXPECT_EQ(ddl.value,
            "CREATE TABLE user_movie_activity (\n"
            "  user_id BIGINT NOT NULL,\n"
            "  session_id VARCHAR,\n"
            "  movies_watched STRUCT(movie_id INTEGER, title VARCHAR, duration_seconds BIGINT, "
            "completed BOOLEAN)[]\n"
            ");\n");
  EXPECT_TRUE(ddl.notes.empty()) << Notes(ddl.notes);
}

TEST(SqlTest, WritesUserMovieActivityForPostgres) {
  auto ddl = WriteCreateTable(*UserMovieActivity(), SqlDialect::kPostgres);
  EXPECT_EQ(ddl.value,
            "CREATE TABLE user_movie_activity (\n"
            "  user_id bigint NOT NULL,\n"
            "  session_id text,\n"
            "  movies_watched jsonb\n"
            ");\n");
  ASSERT_EQ(ddl.notes.size(), 1u) << Notes(ddl.notes);
  EXPECT_TRUE(HasNote(ddl.notes, "movies_watched", "jsonb"));
}

TEST(SqlTest, WritesTheSeedOrdersContract) {
  CreateTableOptions options{.table_name = "orders"};
  EXPECT_EQ(WriteCreateTable(*SeedOrders(), SqlDialect::kSpark, options).value,
            "CREATE TABLE orders (\n"
            "  order_id BIGINT NOT NULL,\n"
            "  customer_id BIGINT NOT NULL,\n"
            "  total_amount DECIMAL(10,2) NOT NULL,\n"
            "  created_at TIMESTAMP NOT NULL\n"
            ") USING DELTA;\n");
  EXPECT_EQ(WriteCreateTable(*SeedOrders(), SqlDialect::kDuckDb, options).value,
            "CREATE TABLE orders (\n"
            "  order_id BIGINT NOT NULL,\n"
            "  customer_id BIGINT NOT NULL,\n"
            "  total_amount DECIMAL(10, 2) NOT NULL,\n"
            "  created_at TIMESTAMPTZ NOT NULL\n"
            ");\n");
  auto pg = WriteCreateTable(*SeedOrders(), SqlDialect::kPostgres, options);
  EXPECT_EQ(pg.value,
            "CREATE TABLE orders (\n"
            "  order_id bigint NOT NULL,\n"
            "  customer_id bigint NOT NULL,\n"
            "  total_amount numeric(10, 2) NOT NULL,\n"
            "  created_at timestamptz NOT NULL\n"
            ");\n");
  EXPECT_TRUE(pg.notes.empty());
}

TEST(SqlTest, DefaultsTableNameAndHonoursIfNotExists) {
  EXPECT_EQ(WriteCreateTable(*SeedOrders(), SqlDialect::kDuckDb).value.substr(0, 23),
            "CREATE TABLE my_table (");
  auto ddl = WriteCreateTable(*SeedOrders(), SqlDialect::kPostgres,
                              {.table_name = "Silver.orders", .if_not_exists = true});
  EXPECT_EQ(ddl.value.substr(0, 50), "CREATE TABLE IF NOT EXISTS \"Silver\".orders (\n  ord");
  auto spark = WriteCreateTable(*SeedOrders(), SqlDialect::kSpark,
                                {.table_name = "main.silver.my-orders", .if_not_exists = true});
  EXPECT_EQ(spark.value.substr(0, 53), "CREATE TABLE IF NOT EXISTS main.silver.`my-orders` (\n");
}

TEST(SqlTest, WritesCommentsWithEachDialectsEscaping) {
  Field f("note", Type::String());
  f.set_doc("it's a \\ test");
  auto s = *Schema::Make({f, Field("plain", Type::Int32())}, {"t", "", "table's doc"});
  EXPECT_EQ(WriteCreateTable(*s, SqlDialect::kSpark).value,
            "CREATE TABLE t (\n"
            "  note STRING COMMENT 'it\\'s a \\\\ test',\n"
            "  plain INT\n"
            ") USING DELTA\n"
            "COMMENT 'table\\'s doc';\n");
  EXPECT_EQ(WriteCreateTable(*s, SqlDialect::kDuckDb).value,
            "CREATE TABLE t (\n"
            "  note VARCHAR,\n"
            "  plain INTEGER\n"
            ");\n"
            "COMMENT ON TABLE t IS 'table''s doc';\n"
            "COMMENT ON COLUMN t.note IS 'it''s a \\ test';\n");
  EXPECT_EQ(WriteCreateTable(*s, SqlDialect::kPostgres).value,
            "CREATE TABLE t (\n"
            "  note text,\n"
            "  plain integer\n"
            ");\n"
            "COMMENT ON TABLE t IS 'table''s doc';\n"
            "COMMENT ON COLUMN t.note IS 'it''s a \\ test';\n");
}

TEST(SqlTest, QuotesIdentifiersOnlyWhenNeeded) {
  EXPECT_EQ(QuoteIdentifier("order_id", SqlDialect::kSpark), "order_id");
  EXPECT_EQ(QuoteIdentifier("OrderId", SqlDialect::kSpark), "OrderId");
  EXPECT_EQ(QuoteIdentifier("order id", SqlDialect::kSpark), "`order id`");
  EXPECT_EQ(QuoteIdentifier("a`b", SqlDialect::kSpark), "`a``b`");
  EXPECT_EQ(QuoteIdentifier("select", SqlDialect::kSpark), "`select`");
  EXPECT_EQ(QuoteIdentifier("order_id", SqlDialect::kDuckDb), "order_id");
  EXPECT_EQ(QuoteIdentifier("OrderId", SqlDialect::kDuckDb), "\"OrderId\"");
  EXPECT_EQ(QuoteIdentifier("1st", SqlDialect::kPostgres), "\"1st\"");
  EXPECT_EQ(QuoteIdentifier("a\"b", SqlDialect::kPostgres), "\"a\"\"b\"");
  EXPECT_EQ(QuoteIdentifier("user", SqlDialect::kPostgres), "\"user\"");
  EXPECT_EQ(QuoteIdentifier("order", SqlDialect::kDuckDb), "\"order\"");
  EXPECT_EQ(QuoteIdentifier("struct", SqlDialect::kDuckDb), "\"struct\"");
  EXPECT_EQ(QuoteIdentifier("struct", SqlDialect::kPostgres), "struct");
  EXPECT_EQ(QuoteIdentifier("time", SqlDialect::kPostgres), "time");
  EXPECT_EQ(QuoteIdentifier("", SqlDialect::kPostgres), "\"\"");
}

TEST(SqlTest, MapsEveryTypeWithNotesForLosses) {
  struct Case {
    schema::TypePtr type;
    const char* spark;
    const char* duckdb;
    const char* postgres;
  };
  const Case cases[] = {
      {Type::Boolean(), "BOOLEAN", "BOOLEAN", "boolean"},
      {Type::Int8(), "TINYINT", "TINYINT", "smallint"},
      {Type::Int16(), "SMALLINT", "SMALLINT", "smallint"},
      {Type::Int32(), "INT", "INTEGER", "integer"},
      {Type::Int64(), "BIGINT", "BIGINT", "bigint"},
      {Type::Float32(), "FLOAT", "FLOAT", "real"},
      {Type::Float64(), "DOUBLE", "DOUBLE", "double precision"},
      {*Type::Decimal(38, 9), "DECIMAL(38,9)", "DECIMAL(38, 9)", "numeric(38, 9)"},
      {Type::String(), "STRING", "VARCHAR", "text"},
      {*Type::Varchar(20), "VARCHAR(20)", "VARCHAR", "varchar(20)"},
      {*Type::Char(2), "CHAR(2)", "VARCHAR", "char(2)"},
      {Type::Binary(), "BINARY", "BLOB", "bytea"},
      {Type::Date(), "DATE", "DATE", "date"},
      {Type::Timestamp(), "TIMESTAMP", "TIMESTAMPTZ", "timestamptz"},
      {Type::Timestamp(TimeUnit::kMillis), "TIMESTAMP", "TIMESTAMPTZ", "timestamptz(3)"},
      {Type::TimestampNtz(), "TIMESTAMP_NTZ", "TIMESTAMP", "timestamp"},
      {Type::TimestampNtz(TimeUnit::kNanos), "TIMESTAMP_NTZ", "TIMESTAMP_NS", "timestamp"},
      {Type::TimestampNtz(TimeUnit::kMillis), "TIMESTAMP_NTZ", "TIMESTAMP_MS", "timestamp(3)"},
      {Type::Time(), "BIGINT", "TIME", "time"},
      {Type::Uuid(), "STRING", "UUID", "uuid"},
      {*Type::Array(Type::Int32()), "ARRAY<INT>", "INTEGER[]", "integer[]"},
      {*Type::Array(*Type::Array(Type::String())), "ARRAY<ARRAY<STRING>>", "VARCHAR[][]",
       "text[][]"},
      {*Type::Map(Type::String(), Type::Int64()), "MAP<STRING, BIGINT>", "MAP(VARCHAR, BIGINT)",
       "jsonb"},
      {*Type::Struct({Field("Order", Type::Int32())}), "STRUCT<Order: INT>",
       "STRUCT(\"Order\" INTEGER)", "jsonb"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(SqlType(*c.type, SqlDialect::kSpark), c.spark) << c.type->ToString();
    EXPECT_EQ(SqlType(*c.type, SqlDialect::kDuckDb), c.duckdb) << c.type->ToString();
    EXPECT_EQ(SqlType(*c.type, SqlDialect::kPostgres), c.postgres) << c.type->ToString();
  }
  auto noted = [](const Type& t, SqlDialect d) {
    schema::NoteSink notes;
    SqlType(t, d, &notes, FieldPath::Of("c"));
    return !notes.notes().empty();
  };
  EXPECT_TRUE(noted(*Type::Int8(), SqlDialect::kPostgres));
  EXPECT_FALSE(noted(*Type::Int8(), SqlDialect::kDuckDb));
  EXPECT_TRUE(noted(**Type::Varchar(3), SqlDialect::kDuckDb));
  EXPECT_FALSE(noted(**Type::Varchar(3), SqlDialect::kPostgres));
  EXPECT_TRUE(noted(*Type::TimestampNtz(TimeUnit::kNanos), SqlDialect::kPostgres));
  EXPECT_TRUE(noted(*Type::TimestampNtz(TimeUnit::kNanos), SqlDialect::kSpark));
  EXPECT_FALSE(noted(*Type::TimestampNtz(TimeUnit::kNanos), SqlDialect::kDuckDb));
  EXPECT_TRUE(noted(*Type::Timestamp(TimeUnit::kNanos), SqlDialect::kDuckDb));
  EXPECT_TRUE(noted(*Type::Uuid(), SqlDialect::kSpark));
  EXPECT_TRUE(noted(*Type::Time(), SqlDialect::kSpark));
  EXPECT_TRUE(noted(**Type::Array(Type::Int32(), false), SqlDialect::kDuckDb));
  EXPECT_TRUE(noted(**Type::Array(Type::Int32(), false), SqlDialect::kPostgres));
  EXPECT_TRUE(noted(**Type::Map(Type::String(), Type::Int32()), SqlDialect::kPostgres));
  EXPECT_TRUE(noted(**Type::Struct({Field("a", Type::Int32(), false)}), SqlDialect::kDuckDb));
  EXPECT_FALSE(noted(**Type::Struct({Field("a", Type::Int32(), false)}), SqlDialect::kSpark));
  EXPECT_TRUE(noted(*Type::Null(), SqlDialect::kPostgres));
}

TEST(SqlTest, NestedNotNullAndDocsStayInSparkStructs) {
  Field inner("a", Type::Int32(), false);
  inner.set_doc("inner");
  auto s = *Schema::Make({Field("s", *Type::Struct({inner}))});
  auto spark = WriteCreateTable(*s, SqlDialect::kSpark);
  EXPECT_NE(spark.value.find("s STRUCT<a: INT NOT NULL COMMENT 'inner'>"), std::string::npos)
      << spark.value;
  EXPECT_TRUE(spark.notes.empty());
  auto duck = WriteCreateTable(*s, SqlDialect::kDuckDb);
  EXPECT_TRUE(HasNote(duck.notes, "s.a", "NOT NULL"));
  EXPECT_TRUE(HasNote(duck.notes, "s.a", "doc"));
}

TEST(SqlTest, WritesScalarDefaults) {
  Field count("count", Type::Int32(), false);
  count.set_default_value(JsonValue::Int(0));
  Field status("status", Type::String());
  status.set_default_value(JsonValue::String("new"));
  Field day("day", Type::Date());
  day.set_default_value(JsonValue::String("2024-01-01"));
  Field tags("tags", *Type::Array(Type::String()));
  tags.set_default_value(JsonValue::Array());
  auto s = *Schema::Make({count, status, day, tags}, {"t", "", std::nullopt});
  auto duck = WriteCreateTable(*s, SqlDialect::kDuckDb);
  EXPECT_EQ(duck.value,
            "CREATE TABLE t (\n"
            "  count INTEGER NOT NULL DEFAULT 0,\n"
            "  status VARCHAR DEFAULT 'new',\n"
            "  day DATE DEFAULT DATE '2024-01-01',\n"
            "  tags VARCHAR[]\n"
            ");\n");
  EXPECT_TRUE(HasNote(duck.notes, "tags", "default"));
  auto spark = WriteCreateTable(*s, SqlDialect::kSpark);
  EXPECT_NE(spark.value.find("TBLPROPERTIES ('delta.feature.allowColumnDefaults' = 'supported')"),
            std::string::npos)
      << spark.value;
}

TEST(SqlTest, NotesMetadataAndEmptyTables) {
  Field f("a", Type::Int32());
  JsonValue meta = JsonValue::Object();
  meta.Set("k", JsonValue::Int(1));
  f.set_metadata(meta);
  auto s = *Schema::Make({f});
  EXPECT_TRUE(HasNote(WriteCreateTable(*s, SqlDialect::kPostgres).notes, "a", "metadata"));
  auto empty = *Schema::Make({});
  EXPECT_FALSE(WriteCreateTable(*empty, SqlDialect::kDuckDb).notes.empty());
}

TEST(SqlTest, ParsesDialectNames) {
  EXPECT_EQ(*ParseSqlDialect("Spark"), SqlDialect::kSpark);
  EXPECT_EQ(*ParseSqlDialect("duckdb"), SqlDialect::kDuckDb);
  EXPECT_EQ(*ParseSqlDialect("postgresql"), SqlDialect::kPostgres);
  EXPECT_EQ(*ParseSqlDialect("pg"), SqlDialect::kPostgres);
  auto bad = ParseSqlDialect("oracle");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
  for (SqlDialect d : {SqlDialect::kSpark, SqlDialect::kDuckDb, SqlDialect::kPostgres}) {
    EXPECT_EQ(*ParseSqlDialect(SqlDialectName(d)), d);
  }
}

}  // namespace
}  // namespace sluice::dialects::sql
