#include "sluice/evolution/diff.h"

#include <gtest/gtest.h>

#include "sluice/dialects/spark/spark.h"

namespace sluice::evolution {
namespace {

schema::SchemaPtr Ddl(const char* ddl) {
  auto r = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(r.has_value()) << ddl << ": " << (r ? "" : r.error().ToString());
  return r->value;
}

std::string Render(const SchemaDiff& d) {
  std::string out;
  for (const Change& c : d.changes) {
    out += c.path.ToString() + " " + std::string(ChangeKindName(c.kind)) + " " +
           c.from.value_or("-") + " -> " + c.to.value_or("-") + "\n";
  }
  return out;
}

TEST(SchemaDiffTest, SeedUserMovieActivityV1ToV2) {
  // Seed 001: movie_id INTEGER -> STRING inside an array of structs, and rating FLOAT added.
  auto v1 =
      Ddl("user_id BIGINT, session_id STRING, movies_watched ARRAY<STRUCT<movie_id: INT, title: "
          "STRING, duration_seconds BIGINT, completed BOOLEAN>>");
  auto v2 =
      Ddl("user_id BIGINT, session_id STRING, movies_watched ARRAY<STRUCT<movie_id: STRING, title: "
          "STRING, duration_seconds BIGINT, completed BOOLEAN, rating FLOAT>>");
  SchemaDiff d = Diff(*v1, *v2);
  EXPECT_EQ(Render(d),
            "movies_watched[].movie_id type_changed int32 -> string\n"
            "movies_watched[].rating field_added - -> float32\n");
  EXPECT_EQ(d.changes[0].severity(), ChangeSeverity::kBreaking);
  EXPECT_EQ(d.changes[1].severity(), ChangeSeverity::kCompatible);
}

TEST(SchemaDiffTest, SeedOrdersAmountDoubleToString) {
  // Seed 002: order_amount silently shifted from DoubleType to StringType.
  auto before = Ddl("order_id INT, customer_id INT, order_amount DOUBLE, order_date STRING");
  auto after = Ddl("order_id INT, customer_id INT, order_amount STRING, order_date STRING");
  EXPECT_EQ(Render(Diff(*before, *after)), "order_amount type_changed float64 -> string\n");
}

TEST(SchemaDiffTest, IdenticalSchemasHaveNoChanges) {
  auto a = Ddl("a INT, b STRUCT<c: MAP<STRING, ARRAY<INT>>>");
  EXPECT_TRUE(Diff(*a, *a).empty());
}

TEST(SchemaDiffTest, ClassifiesWideningAndNarrowing) {
  auto before =
      Ddl("a TINYINT, b INT, c FLOAT, d DECIMAL(10,2), e DATE, f BIGINT, g DECIMAL(10,2), h "
          "VARCHAR(10), i INT, j DECIMAL(10,2)");
  auto after = Ddl(
      "a SMALLINT, b DOUBLE, c DOUBLE, d DECIMAL(12,3), e TIMESTAMP_NTZ, f INT, g DECIMAL(10,3), "
      "h STRING, i STRING, j DECIMAL(8,2)");
  EXPECT_EQ(Render(Diff(*before, *after)),
            "a type_widened int8 -> int16\n"
            "b type_widened int32 -> float64\n"
            "c type_widened float32 -> float64\n"
            "d type_widened decimal(10,2) -> decimal(12,3)\n"
            "e type_widened date -> timestamp_ntz\n"
            "f type_narrowed int64 -> int32\n"
            "g type_changed decimal(10,2) -> decimal(10,3)\n"
            "h type_widened varchar(10) -> string\n"
            "i type_changed int32 -> string\n"
            "j type_narrowed decimal(10,2) -> decimal(8,2)\n");
}

TEST(SchemaDiffTest, NullabilityAtEveryLevel) {
  auto before = Ddl("a INT NOT NULL, b INT, s STRUCT<x: INT>");
  auto after = Ddl("a INT, b INT NOT NULL, s STRUCT<x: INT NOT NULL>");
  EXPECT_EQ(Render(Diff(*before, *after)),
            "a nullability_relaxed not null -> nullable\n"
            "b nullability_tightened nullable -> not null\n"
            "s.x nullability_tightened nullable -> not null\n");
  // Array elements and map values carry their own nullability.
  auto arr =
      schema::Schema::Make({schema::Field("xs", *schema::Type::Array(schema::Type::Int32(), false)),
                            schema::Field("m", *schema::Type::Map(schema::Type::String(),
                                                                  schema::Type::Int32(), true))});
  auto arr2 =
      schema::Schema::Make({schema::Field("xs", *schema::Type::Array(schema::Type::Int32(), true)),
                            schema::Field("m", *schema::Type::Map(schema::Type::String(),
                                                                  schema::Type::Int64(), false))});
  EXPECT_EQ(Render(Diff(**arr, **arr2)),
            "xs[] nullability_relaxed not null -> nullable\n"
            "m{value} nullability_tightened nullable -> not null\n"
            "m{value} type_widened int32 -> int64\n");
}

TEST(SchemaDiffTest, NewNotNullFieldIsBreaking) {
  auto before = Ddl("a INT");
  auto after = Ddl("a INT, b INT NOT NULL");
  SchemaDiff d = Diff(*before, *after);
  ASSERT_EQ(d.changes.size(), 1u);
  EXPECT_EQ(d.changes[0].to, "int32 not null");
  EXPECT_TRUE(d.changes[0].required);
  EXPECT_EQ(d.changes[0].severity(), ChangeSeverity::kBreaking);
}

TEST(SchemaDiffTest, InsertionDoesNotMakeLaterFieldsMoved) {
  auto before = Ddl("a INT, b INT, c INT");
  auto after = Ddl("x INT, a INT, b INT, c INT");
  EXPECT_EQ(Render(Diff(*before, *after)), "x field_added - -> int32\n");
  auto swapped = Ddl("a INT, c INT, b INT");
  EXPECT_EQ(Render(Diff(*before, *swapped)), "c field_moved 3 -> 2\n");
}

TEST(SchemaDiffTest, CaseOnlyRenamesMatchUnlessCaseSensitive) {
  auto before = Ddl("OrderId BIGINT, s STRUCT<Inner: INT>");
  auto after = Ddl("orderid BIGINT, s STRUCT<inner: INT>");
  EXPECT_EQ(Render(Diff(*before, *after)),
            "orderid case_changed OrderId -> orderid\n"
            "s.inner case_changed Inner -> inner\n");
  DiffOptions cs;
  cs.case_sensitive = true;
  SchemaDiff d = Diff(*before, *after, cs);
  EXPECT_EQ(Render(d),
            "orderid field_added - -> int64\n"
            "OrderId field_removed int64 -> -\n"
            "s.inner field_added - -> int32\n"
            "s.Inner field_removed int32 -> -\n");
  ASSERT_EQ(d.hints.size(), 2u);
  EXPECT_EQ(d.hints[0].from.ToString(), "OrderId");
  EXPECT_EQ(d.hints[0].to.ToString(), "orderid");
}

TEST(SchemaDiffTest, RenameCandidatesAreHintsNotChanges) {
  auto before = Ddl("id BIGINT, customer_email STRING, amount DOUBLE");
  auto after = Ddl("id BIGINT, customerEmail STRING, total DOUBLE");
  SchemaDiff d = Diff(*before, *after);
  EXPECT_EQ(d.CountByKind()[ChangeKind::kFieldRemoved], 2);
  EXPECT_EQ(d.CountByKind()[ChangeKind::kFieldAdded], 2);
  ASSERT_EQ(d.hints.size(), 2u);
  EXPECT_EQ(d.hints[0].from.ToString(), "customer_email");
  EXPECT_EQ(d.hints[0].to.ToString(), "customerEmail");
  EXPECT_EQ(d.hints[0].reason, "same type, similar name");
  EXPECT_EQ(d.hints[1].from.ToString(), "amount");
  EXPECT_EQ(d.hints[1].to.ToString(), "total");
  EXPECT_EQ(d.hints[1].reason, "same type, same position");
  // A different type is never a rename candidate.
  auto retyped = Ddl("id BIGINT, customerEmail INT, total DOUBLE");
  EXPECT_EQ(Diff(*before, *retyped).hints.size(), 1u);
}

TEST(SchemaDiffTest, StructsInsideMapsAndNestedArrays) {
  auto before = Ddl("m MAP<STRING, STRUCT<a: INT>>, g ARRAY<ARRAY<STRUCT<p: INT>>>");
  auto after =
      Ddl("m MAP<STRING, STRUCT<a: BIGINT, b: STRING>>, g ARRAY<ARRAY<STRUCT<p: INT, q: INT>>>");
  EXPECT_EQ(Render(Diff(*before, *after)),
            "m{value}.a type_widened int32 -> int64\n"
            "m{value}.b field_added - -> string\n"
            "g[][].q field_added - -> int32\n");
}

TEST(SchemaDiffTest, StructReplacedByPrimitiveIsATypeChange) {
  auto before = Ddl("s STRUCT<a: INT>");
  auto after = Ddl("s STRING");
  EXPECT_EQ(Render(Diff(*before, *after)), "s type_changed struct<a: int32> -> string\n");
}

TEST(SchemaDiffTest, DocsDefaultsAndMetadata) {
  auto before = Ddl("a INT COMMENT 'old', b INT DEFAULT 1, c INT");
  auto after = Ddl("a INT COMMENT 'new', b INT DEFAULT 2, c INT COMMENT 'added'");
  EXPECT_EQ(Render(Diff(*before, *after)),
            "a doc_changed old -> new\n"
            "b default_changed 1 -> 2\n"
            "c doc_changed - -> added\n");
  // An explicit null default on a nullable field is the same as none (Avro vs Spark).
  auto with_null = schema::Schema::Make(
      {schema::Field("n", schema::Type::Int32()).set_default_value(JsonValue::Null())});
  auto without = schema::Schema::Make({schema::Field("n", schema::Type::Int32())});
  EXPECT_TRUE(Diff(**with_null, **without).empty());
  auto meta = dialects::spark::ReadJson(
      R"({"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{"k":1}}]})");
  ASSERT_TRUE(meta.has_value());
  auto plain = Ddl("a INT");
  SchemaDiff d = Diff(*plain, *meta->value);
  ASSERT_EQ(d.changes.size(), 1u);
  EXPECT_EQ(d.changes[0].kind, ChangeKind::kMetadataChanged);
  EXPECT_EQ(d.changes[0].to, R"({"k":1})");
  EXPECT_EQ(d.changes[0].severity(), ChangeSeverity::kCosmetic);
}

TEST(SchemaDiffTest, IsWideningTable) {
  using schema::Type;
  EXPECT_TRUE(IsWidening(*Type::Null(), *Type::String()));
  EXPECT_TRUE(IsWidening(*Type::Int16(), *Type::Float64()));
  EXPECT_FALSE(IsWidening(*Type::Int64(), *Type::Float64()));
  EXPECT_FALSE(IsWidening(*Type::Int32(), *Type::Float32()));
  EXPECT_TRUE(IsWidening(*Type::Timestamp(schema::TimeUnit::kMillis), *Type::Timestamp()));
  EXPECT_FALSE(IsWidening(*Type::Date(), *Type::Timestamp()));
  EXPECT_TRUE(IsWidening(**Type::Char(3), **Type::Varchar(3)));
  EXPECT_FALSE(IsWidening(**Type::Varchar(3), **Type::Char(5)));
}

}  // namespace
}  // namespace sluice::evolution

namespace sluice::evolution {
namespace {

TEST(SchemaDiffTest, WideSchemasDiffInLinearTime) {
  // 50,000 columns, every one renamed by case and the last moved to the front: the matching
  // must not compare every pair.
  std::vector<schema::Field> before;
  std::vector<schema::Field> after;
  for (int i = 0; i < 50000; ++i) {
    before.emplace_back("col_" + std::to_string(i), schema::Type::Int32());
  }
  after.emplace_back("COL_49999", schema::Type::Int32());
  for (int i = 0; i < 49999; ++i) {
    after.emplace_back("COL_" + std::to_string(i), schema::Type::Int32());
  }
  auto a = schema::Schema::Make(before);
  auto b = schema::Schema::Make(after);
  ASSERT_TRUE(a && b);
  SchemaDiff d = Diff(**a, **b);
  auto counts = d.CountByKind();
  EXPECT_EQ(counts[ChangeKind::kCaseChanged], 50000);
  EXPECT_EQ(counts[ChangeKind::kFieldMoved], 1);
}

}  // namespace
}  // namespace sluice::evolution
