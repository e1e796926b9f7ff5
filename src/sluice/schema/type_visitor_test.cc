#include "sluice/schema/type_visitor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace sluice::schema {
namespace {

// Names the view a kind reaches when the visitor has an overload for every group.
struct GroupName {
  std::string operator()(const NullType&) const { return "null"; }
  std::string operator()(const BooleanType&) const { return "boolean"; }
  std::string operator()(const IntegerType&) const { return "integer"; }
  std::string operator()(const FloatingType&) const { return "floating"; }
  std::string operator()(const DecimalType& d) const {
    return "decimal " + std::to_string(d.precision()) + "," + std::to_string(d.scale());
  }
  std::string operator()(const StringType& s) const {
    return s.string_length() == StringLength::kUnbounded ? "string"
                                                         : "string " + std::to_string(s.length());
  }
  std::string operator()(const BinaryType&) const { return "binary"; }
  std::string operator()(const DateType&) const { return "date"; }
  std::string operator()(const TimeType&) const { return "time"; }
  std::string operator()(const TimestampType& t) const {
    return t.utc_adjusted() ? "timestamp utc" : "timestamp local";
  }
  std::string operator()(const UuidType&) const { return "uuid"; }
  std::string operator()(const StructType& s) const {
    return "struct " + std::to_string(s.fields().size());
  }
  std::string operator()(const ArrayType& a) const {
    return "array of " + VisitType(a.element_type(), *this);
  }
  std::string operator()(const MapType& m) const {
    return "map " + VisitType(m.key_type(), *this) + " to " + VisitType(m.value_type(), *this);
  }
};

TEST(TypeVisitorTest, EveryKindReachesItsGroup) {
  GroupName name;
  EXPECT_EQ(VisitType(*Type::Null(), name), "null");
  EXPECT_EQ(VisitType(*Type::Boolean(), name), "boolean");
  for (const TypePtr& t : {Type::Int8(), Type::Int16(), Type::Int32(), Type::Int64()}) {
    EXPECT_EQ(VisitType(*t, name), "integer") << t->ToString();
  }
  EXPECT_EQ(VisitType(*Type::Float32(), name), "floating");
  EXPECT_EQ(VisitType(*Type::Float64(), name), "floating");
  EXPECT_EQ(VisitType(**Type::Decimal(10, 2), name), "decimal 10,2");
  EXPECT_EQ(VisitType(*Type::String(), name), "string");
  EXPECT_EQ(VisitType(**Type::Varchar(7), name), "string 7");
  EXPECT_EQ(VisitType(*Type::Binary(), name), "binary");
  EXPECT_EQ(VisitType(*Type::Date(), name), "date");
  EXPECT_EQ(VisitType(*Type::Time(), name), "time");
  EXPECT_EQ(VisitType(*Type::Timestamp(), name), "timestamp utc");
  EXPECT_EQ(VisitType(*Type::TimestampNtz(), name), "timestamp local");
  EXPECT_EQ(VisitType(*Type::Uuid(), name), "uuid");
  auto st = Type::Struct({Field("a", Type::Int32()), Field("b", Type::String())});
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(VisitType(**st, name), "struct 2");
  EXPECT_EQ(VisitType(**Type::Array(Type::Date()), name), "array of date");
  EXPECT_EQ(VisitType(**Type::Map(Type::String(), Type::Int64()), name), "map string to integer");
}

TEST(TypeVisitorTest, TheMostDerivedViewWins) {
  // Decimals go to their own overload, the other leaves to the atomic one, and time and
  // timestamps to the overload of the group they share.
  auto visitor = Overloaded{
      [](const DecimalType&) { return 1; },
      [](const UnitType&) { return 2; },
      [](const AtomicType&) { return 3; },
      [](const NestedType&) { return 4; },
  };
  EXPECT_EQ(VisitType(**Type::Decimal(5, 1), visitor), 1);
  EXPECT_EQ(VisitType(*Type::Time(TimeUnit::kNanos), visitor), 2);
  EXPECT_EQ(VisitType(*Type::TimestampNtz(), visitor), 2);
  EXPECT_EQ(VisitType(*Type::Int16(), visitor), 3);
  EXPECT_EQ(VisitType(*Type::Null(), visitor), 3);
  EXPECT_EQ(VisitType(**Type::Array(Type::Int32()), visitor), 4);
  EXPECT_EQ(VisitType(**Type::Struct({}), visitor), 4);
}

TEST(TypeVisitorTest, ANestingOnlyVisitorNamesNoLeafKind) {
  // Depth of the deepest leaf, written without listing a single atomic kind.
  struct Depth {
    int operator()(const AtomicType&) const { return 1; }
    int operator()(const StructType& s) const {
      int deepest = 0;
      for (const Field& f : s.fields()) deepest = std::max(deepest, VisitType(*f.type(), *this));
      return deepest + 1;
    }
    int operator()(const ArrayType& a) const { return VisitType(a.element_type(), *this) + 1; }
    int operator()(const MapType& m) const {
      return std::max(VisitType(m.key_type(), *this), VisitType(m.value_type(), *this)) + 1;
    }
  };
  auto inner = Type::Struct({Field("x", *Type::Array(Type::Uuid()))});
  ASSERT_TRUE(inner.has_value());
  auto outer = Type::Map(Type::String(), *inner);
  ASSERT_TRUE(outer.has_value());
  EXPECT_EQ(VisitType(**outer, Depth{}), (*outer)->depth());
}

TEST(TypeVisitorTest, VoidVisitorsAndViewsOfParameters) {
  std::string seen;
  auto record = Overloaded{
      [&](const StringType& s) { seen += "len " + std::to_string(s.length()) + ";"; },
      [&](const UnitType& u) { seen += u.unit() == TimeUnit::kMillis ? "ms;" : "other;"; },
      [&](const MapType& m) { seen += m.value_contains_null() ? "map null;" : "map;"; },
      [&](const ArrayType& a) { seen += a.contains_null() ? "array null;" : "array;"; },
      [&](const AnyType& t) { seen += std::string(TypeKindName(t.kind())) + ";"; },
  };
  VisitType(**Type::Char(3), record);
  VisitType(*Type::Timestamp(TimeUnit::kMillis), record);
  VisitType(**Type::Map(Type::Int32(), Type::Int32(), false), record);
  VisitType(**Type::Array(Type::Int32(), true), record);
  VisitType(*Type::Binary(), record);
  EXPECT_EQ(seen, "len 3;ms;map;array null;binary;");
}

}  // namespace
}  // namespace sluice::schema
