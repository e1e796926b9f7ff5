#include "sluice/sqlgen/align_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/dialects/format.h"
#include "sluice_test_paths.h"

namespace sluice::sqlgen {
namespace {

using schema::Field;
using schema::SchemaPtr;
using schema::Type;
using schema::TypePtr;

SchemaPtr Example(const std::string& name) {
  auto fs = NewLocalFileSystem();
  auto text = fs->ReadFile(std::string(SLUICE_SOURCE_DIR) + "/examples/" + name);
  EXPECT_TRUE(text.has_value());
  auto format = dialects::DetectFormat(name, *text);
  EXPECT_TRUE(format.has_value());
  auto read = dialects::ReadSchema(*text, *format);
  EXPECT_TRUE(read.has_value()) << read.error().ToString();
  return read->value;
}

SchemaPtr Make(std::vector<Field> fields) { return *schema::Schema::Make(std::move(fields)); }

std::vector<std::string> Notes(const std::vector<schema::LossyNote>& notes) {
  std::vector<std::string> out;
  for (const auto& n : notes) out.push_back(n.ToString());
  return out;
}

TEST(MergeTargetTest, SeedVersionsGiveStringIdsAndANullableRating) {
  auto merged =
      MergeTarget({Example("user_movie_activity_v1.avsc"), Example("user_movie_activity_v2.avsc")});
  ASSERT_TRUE(merged.has_value()) << merged.error().ToString();
  EXPECT_EQ(merged->value->struct_type()->ToString(),
            "struct<user_id: int64 not null, session_id: string, movies_watched: "
            "array<struct<movie_id: string not null, title: string not null, duration_seconds: "
            "int64 not null, completed: boolean not null, rating: float32> not null> not null>");
  EXPECT_EQ(Notes(merged->notes),
            (std::vector<std::string>{
                "movies_watched[].movie_id: int32 and string meet; string holds both"}));
}

TEST(MergeTargetTest, WideningTakesTheWiderTypeWithoutANote) {
  auto a = Make(
      {Field("n", Type::Int32(), false), Field("f", Type::Float32()), Field("d", Type::Date())});
  auto b = Make({Field("N", Type::Int64(), false), Field("f", Type::Float64()),
                 Field("d", Type::TimestampNtz())});
  auto merged = MergeTarget({a, b});
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(merged->value->struct_type()->ToString(),
            "struct<n: int64 not null, f: float64, d: timestamp_ntz>");
  EXPECT_TRUE(merged->notes.empty());
}

TEST(MergeTargetTest, ConflictsResolveToTheNarrowestTypeHoldingBoth) {
  auto a =
      Make({Field("i", Type::Int64()), Field("x", *Type::Decimal(10, 2)),
            Field("b", Type::Boolean()), Field("s", *Type::Struct({Field("a", Type::Int32())}))});
  auto b = Make({Field("i", *Type::Decimal(5, 3)), Field("x", Type::Float32()),
                 Field("b", Type::Int32()), Field("s", Type::String())});
  auto merged = MergeTarget({a, b});
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(merged->value->struct_type()->ToString(),
            "struct<i: decimal(23,3), x: float64, b: string, s: string>");
  EXPECT_EQ(Notes(merged->notes),
            (std::vector<std::string>{"i: int64 and decimal(5,3) meet; decimal(23,3) holds both",
                                      "x: decimal(10,2) and float32 meet; float64 holds both",
                                      "b: boolean and int32 meet; string holds both",
                                      "s: struct<a: int32> and string meet; string holds both"}));
}

TEST(MergeTargetTest, FieldsKeepFirstSeenOrderAndMissingOnesBecomeNullable) {
  auto a = Make({Field("a", Type::Int32(), false), Field("b", Type::Int32(), false)});
  auto b = Make({Field("c", Type::Int32(), false), Field("A", Type::Int32(), false)});
  auto c = Make({Field("b", Type::Int32(), false), Field("a", Type::Int32(), false),
                 Field("c", Type::Int32(), false)});
  auto merged = MergeTarget({a, b, c});
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(merged->value->struct_type()->ToString(),
            "struct<a: int32 not null, b: int32, c: int32>");
  EXPECT_FALSE(MergeTarget({}).has_value());
}

TEST(PlanVersionTest, SeedV1RebuildsTheArrayElements) {
  auto v1 = Example("user_movie_activity_v1.avsc");
  auto target = MergeTarget({v1, Example("user_movie_activity_v2.avsc")});
  ASSERT_TRUE(target.has_value());
  auto plan = PlanVersion(*v1, *target->value, false);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  ASSERT_EQ(plan->columns.size(), 3u);
  EXPECT_EQ(plan->columns[0].expr->kind, ExprKind::kColumn);
  EXPECT_EQ(plan->columns[1].expr->kind, ExprKind::kColumn);
  const Expr& t = *plan->columns[2].expr;
  ASSERT_EQ(t.kind, ExprKind::kArrayTransform);
  EXPECT_EQ(t.operand->path, std::vector<std::string>{"movies_watched"});
  ASSERT_EQ(t.body->kind, ExprKind::kStruct);
  // Elements of v1 are never NULL: no NULL guard.
  EXPECT_EQ(t.body->null_if, nullptr);
  ASSERT_EQ(t.body->fields.size(), 5u);
  const Expr& id = *t.body->fields[0].expr;
  ASSERT_EQ(id.kind, ExprKind::kCast);
  EXPECT_FALSE(id.lossy);
  EXPECT_EQ(id.operand->path, (std::vector<std::string>{"x", "movie_id"}));
  EXPECT_EQ(t.body->fields[4].name, "rating");
  EXPECT_EQ(t.body->fields[4].expr->kind, ExprKind::kNull);
  EXPECT_EQ(Notes(plan->notes),
            (std::vector<std::string>{"movies_watched[].rating: not in this version: NULL"}));
}

TEST(PlanVersionTest, SeedV2IsTakenAsItIs) {
  auto v2 = Example("user_movie_activity_v2.avsc");
  auto target = MergeTarget({Example("user_movie_activity_v1.avsc"), v2});
  auto plan = PlanVersion(*v2, *target->value, false);
  ASSERT_TRUE(plan.has_value());
  for (const ColumnPlan& c : plan->columns) EXPECT_EQ(c.expr->kind, ExprKind::kColumn) << c.name;
  EXPECT_TRUE(plan->notes.empty());
}

TEST(PlanVersionTest, LossyCastsAreRefusedNamingThePathUnlessAllowed) {
  auto source = Make({Field("s", *Type::Struct({Field("id", Type::String())}))});
  auto target = Make({Field("s", *Type::Struct({Field("id", Type::Int32())}))});
  auto refused = PlanVersion(*source, *target, false);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), ErrorCode::kIncompatible);
  EXPECT_NE(refused.error().message().find("s.id: casting string to int32 may lose values"),
            std::string::npos)
      << refused.error().message();
  auto allowed = PlanVersion(*source, *target, true);
  ASSERT_TRUE(allowed.has_value());
  EXPECT_EQ(allowed->lossy_casts, 1);
  const Expr& s = *allowed->columns[0].expr;
  ASSERT_EQ(s.kind, ExprKind::kStruct);
  ASSERT_NE(s.null_if, nullptr);
  EXPECT_TRUE(s.fields[0].expr->lossy);
  EXPECT_EQ(Notes(allowed->notes),
            (std::vector<std::string>{
                "s.id: string to int32 cast with try_cast: values that do not fit become NULL"}));
}

TEST(PlanVersionTest, OtherLossyCasts) {
  struct Case {
    TypePtr from, to;
  };
  std::vector<Case> cases = {
      {Type::Float64(), *Type::Decimal(10, 2)}, {*Type::Decimal(10, 4), *Type::Decimal(10, 2)},
      {Type::Timestamp(), Type::Date()},        {Type::Int64(), Type::Int32()},
      {Type::Int64(), Type::Float64()},         {Type::String(), Type::Boolean()}};
  for (const Case& c : cases) {
    auto plan = PlanVersion(*Make({Field("v", c.from)}), *Make({Field("v", c.to)}), false);
    EXPECT_FALSE(plan.has_value()) << c.from->ToString() << " -> " << c.to->ToString();
  }
  std::vector<Case> lossless = {{Type::Int32(), Type::Int64()},
                                {Type::Int32(), *Type::Decimal(10, 0)},
                                {Type::Int64(), *Type::Decimal(19, 0)},
                                {Type::Date(), Type::TimestampNtz()},
                                {Type::Float64(), Type::String()}};
  for (const Case& c : lossless) {
    auto plan = PlanVersion(*Make({Field("v", c.from)}), *Make({Field("v", c.to)}), false);
    ASSERT_TRUE(plan.has_value()) << c.from->ToString() << " -> " << c.to->ToString();
    EXPECT_EQ(plan->columns[0].expr->kind, ExprKind::kCast);
  }
}

TEST(PlanVersionTest, DroppedAndAddedColumnsAreNoted) {
  auto source = Make({Field("old", Type::Int32()), Field("keep", Type::String())});
  auto target = Make({Field("keep", Type::String()), Field("new", Type::Date())});
  auto plan = PlanVersion(*source, *target, false);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->columns[1].expr->kind, ExprKind::kNull);
  EXPECT_EQ(Notes(plan->notes), (std::vector<std::string>{"new: not in this version: NULL",
                                                          "old: not in the target: dropped"}));
}

TEST(PlanVersionTest, MapValuesAreRebuiltAndKeyChangesAreUnimplemented) {
  auto m = [](TypePtr k, TypePtr v) { return Make({Field("m", *Type::Map(k, v))}); };
  auto plan =
      PlanVersion(*m(Type::String(), Type::Int32()), *m(Type::String(), Type::Int64()), false);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->columns[0].expr->kind, ExprKind::kMapValues);
  auto keys =
      PlanVersion(*m(Type::Int32(), Type::Int32()), *m(Type::Int64(), Type::Int32()), false);
  ASSERT_FALSE(keys.has_value());
  EXPECT_EQ(keys.error().code(), ErrorCode::kUnimplemented);
}

TEST(PlanVersionTest, NestedToAtomicIsIncompatible) {
  auto plan = PlanVersion(*Make({Field("v", *Type::Array(Type::Int32()))}),
                          *Make({Field("v", Type::Int32())}), true);
  ASSERT_FALSE(plan.has_value());
  EXPECT_NE(plan.error().message().find("v: cannot align"), std::string::npos);
}

}  // namespace
}  // namespace sluice::sqlgen
