// Wide and deep types cost time linear in their size.
#include <gtest/gtest.h>

#include "sluice/schema/canonical.h"
#include "sluice/schema/scaling_testing.h"
#include "sluice/schema/schema.h"
#include "sluice/schema/tree.h"

namespace sluice::schema {
namespace {

using scaling::ColumnName;
using scaling::ScalesLinearly;

std::vector<Field> WideFields(size_t n) {
  std::vector<Field> fields;
  fields.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    fields.emplace_back(ColumnName(i), i % 2 == 0 ? Type::Int64() : Type::String(), i % 3 != 0);
  }
  return fields;
}

TEST(SchemaScalingTest, WideStructsBuildCompareAndPrintInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        SchemaPtr a = *Schema::Make(WideFields(n));
        SchemaPtr b = *Schema::Make(WideFields(n));
        EXPECT_TRUE(a->Equals(*b));
        EXPECT_EQ(StructuralHash(*a->struct_type()), StructuralHash(*b->struct_type()));
        EXPECT_EQ(Fingerprint(*a), Fingerprint(*b));
        EXPECT_FALSE(RenderTree(*a).empty());
        size_t visited = 0;
        VisitFields(*a, [&](const FieldPath&, const Field&) { ++visited; });
        EXPECT_EQ(visited, n);
        EXPECT_TRUE(AsNullable(a->struct_type())->Equals(*AsNullable(b->struct_type())));
      },
      5000));
}

TEST(SchemaScalingTest, StructuralHashAgreesWithEqualityWithoutDetails) {
  TypePtr a = *Type::Struct({Field("x", Type::Int32()), Field("y", *Type::Decimal(10, 2), false)});
  Field with_doc("x", Type::Int32());
  with_doc.set_doc("a doc");
  TypePtr b = *Type::Struct({with_doc, Field("y", *Type::Decimal(10, 2), false)});
  TypePtr c = *Type::Struct({Field("x", Type::Int32()), Field("y", *Type::Decimal(10, 2), true)});
  TypePtr d = *Type::Struct({Field("x", Type::Int32()), Field("y", *Type::Decimal(10, 3), false)});
  ASSERT_TRUE(a->Equals(*b, false));
  EXPECT_EQ(StructuralHash(*a), StructuralHash(*b));
  EXPECT_NE(StructuralHash(*a), StructuralHash(*c));  // nullability counts
  EXPECT_NE(StructuralHash(*a), StructuralHash(*d));  // so does the scale
  EXPECT_NE(StructuralHash(**Type::Varchar(3)), StructuralHash(**Type::Char(3)));
  EXPECT_EQ(StructuralHash(**Type::Array(a, false)), StructuralHash(**Type::Array(b, false)));
  EXPECT_NE(StructuralHash(**Type::Array(a, false)), StructuralHash(**Type::Array(a, true)));
  EXPECT_NE(StructuralHash(*Type::Timestamp(TimeUnit::kMillis)),
            StructuralHash(*Type::Timestamp(TimeUnit::kMicros)));
}

}  // namespace
}  // namespace sluice::schema
