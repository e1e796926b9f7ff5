#include "sluice/schema/type.h"

#include <gtest/gtest.h>

namespace sluice::schema {
namespace {

TEST(TypeTest, PrimitivesAreSharedAndNamed) {
  EXPECT_EQ(Type::Int32().get(), Type::Int32().get());
  EXPECT_EQ(Type::Int64()->ToString(), "int64");
  EXPECT_EQ(Type::TimestampNtz()->ToString(), "timestamp_ntz");
  EXPECT_EQ(Type::Timestamp(TimeUnit::kMillis)->ToString(), "timestamp(3)");
  EXPECT_EQ(Type::Time(TimeUnit::kNanos)->ToString(), "time(9)");
  EXPECT_FALSE(Type::Timestamp(TimeUnit::kMillis)->Equals(*Type::Timestamp()));
  EXPECT_EQ(Type::Primitive(TypeKind::kUuid)->kind(), TypeKind::kUuid);
  EXPECT_EQ(Type::Primitive(TypeKind::kStruct), nullptr);
}

TEST(TypeTest, DecimalBoundsAreChecked) {
  auto d = Type::Decimal(10, 2);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ((*d)->ToString(), "decimal(10,2)");
  EXPECT_FALSE(Type::Decimal(0, 0).has_value());
  EXPECT_FALSE(Type::Decimal(39, 0).has_value());
  EXPECT_FALSE(Type::Decimal(5, 6).has_value());
  EXPECT_FALSE(Type::Decimal(5, -1).has_value());
  EXPECT_EQ(Type::Decimal(5, 6).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(Type::Decimal(38, 38).has_value());
}

TEST(TypeTest, CharAndVarcharAreStrings) {
  auto v = Type::Varchar(10);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ((*v)->kind(), TypeKind::kString);
  EXPECT_EQ((*v)->string_length(), StringLength::kVarchar);
  EXPECT_EQ((*v)->ToString(), "varchar(10)");
  EXPECT_FALSE((*v)->Equals(*Type::String()));
  EXPECT_FALSE(Type::Char(0).has_value());
}

TEST(TypeTest, StructRejectsDuplicateAndEmptyNames) {
  auto dup = Type::Struct({Field("a", Type::Int32()), Field("a", Type::String())});
  ASSERT_FALSE(dup.has_value());
  EXPECT_NE(dup.error().message().find("duplicate field name a"), std::string::npos);
  EXPECT_FALSE(Type::Struct({Field("", Type::Int32())}).has_value());
  EXPECT_FALSE(Type::Struct({Field("x\xff", Type::Int32())}).has_value());
  // Names differing only in case are distinct fields in the model (Spark allows them).
  EXPECT_TRUE(Type::Struct({Field("a", Type::Int32()), Field("A", Type::Int32())}).has_value());
}

TEST(TypeTest, NestingDepthIsLimited) {
  TypePtr t = Type::Int32();
  Result<TypePtr> r = t;
  int levels = 0;
  while (r.has_value()) {
    t = *r;
    r = Type::Array(t);
    ++levels;
  }
  EXPECT_EQ(levels, kMaxNestingDepth);
  EXPECT_NE(r.error().message().find("deeper than"), std::string::npos);
}

TEST(TypeTest, NestedToStringShowsNullability) {
  auto inner =
      Type::Struct({Field("movie_id", Type::Int32(), false), Field("odd.name", Type::String())});
  ASSERT_TRUE(inner.has_value());
  auto arr = Type::Array(*inner, false);
  ASSERT_TRUE(arr.has_value());
  EXPECT_EQ((*arr)->ToString(),
            "array<struct<movie_id: int32 not null, `odd.name`: string> not null>");
  auto m = Type::Map(Type::String(), Type::Int64(), true);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ((*m)->ToString(), "map<string, int64>");
  EXPECT_FALSE(Type::Map(Type::Null(), Type::Int64()).has_value());
}

TEST(TypeTest, EqualsComparesDetailsOnRequest) {
  Field a("x", Type::Int32());
  Field b("x", Type::Int32());
  b.set_doc("documented");
  auto s1 = Type::Struct({a});
  auto s2 = Type::Struct({b});
  ASSERT_TRUE(s1 && s2);
  EXPECT_FALSE((*s1)->Equals(**s2, true));
  EXPECT_TRUE((*s1)->Equals(**s2, false));
}

TEST(TypeTest, FindFieldIgnoringCase) {
  auto s = Type::Struct({Field("Order_Id", Type::Int64()), Field("status", Type::String())});
  ASSERT_TRUE(s.has_value());
  EXPECT_NE((*s)->FindField("status"), nullptr);
  EXPECT_EQ((*s)->FindField("STATUS"), nullptr);
  auto idx = (*s)->FindFieldsIgnoreCase("order_id");
  ASSERT_EQ(idx.size(), 1u);
  EXPECT_EQ(idx[0], 0u);
}

}  // namespace
}  // namespace sluice::schema
