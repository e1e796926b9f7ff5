#include "sluice/schema/schema.h"

#include <gtest/gtest.h>

#include "sluice/schema/canonical.h"
#include "sluice/schema/tree.h"

namespace sluice::schema {
namespace {

SchemaPtr MovieActivity(TypePtr movie_id_type) {
  auto movie =
      Type::Struct({Field("movie_id", movie_id_type), Field("title", Type::String()),
                    Field("duration_seconds", Type::Int64()), Field("completed", Type::Boolean())});
  auto arr = Type::Array(*movie);
  auto s = Schema::Make({Field("user_id", Type::Int64(), false),
                         Field("session_id", Type::String()), Field("movies_watched", *arr)},
                        SchemaInfo{"user_movie_activity", "", std::nullopt});
  return *s;
}

TEST(SchemaTest, FindFieldThroughArrays) {
  SchemaPtr s = MovieActivity(Type::Int32());
  const Field* f = s->FindField(*FieldPath::Parse("movies_watched[].movie_id"));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type()->kind(), TypeKind::kInt32);
  EXPECT_EQ(s->FindField(*FieldPath::Parse("movies_watched.movie_id")), nullptr);
  EXPECT_EQ(s->FindField(*FieldPath::Parse("nope")), nullptr);
}

TEST(SchemaTest, VisitFieldsGivesPathsInOrder) {
  SchemaPtr s = MovieActivity(Type::Int32());
  std::vector<std::string> paths;
  VisitFields(*s, [&](const FieldPath& p, const Field&) { paths.push_back(p.ToString()); });
  std::vector<std::string> want = {"user_id",
                                   "session_id",
                                   "movies_watched",
                                   "movies_watched[].movie_id",
                                   "movies_watched[].title",
                                   "movies_watched[].duration_seconds",
                                   "movies_watched[].completed"};
  EXPECT_EQ(paths, want);
}

TEST(SchemaTest, CanonicalFormIsDeterministicAndFingerprintTracksChanges) {
  SchemaPtr a = MovieActivity(Type::Int32());
  SchemaPtr b = MovieActivity(Type::Int32());
  SchemaPtr c = MovieActivity(Type::String());
  EXPECT_EQ(CanonicalForm(*a), CanonicalForm(*b));
  EXPECT_EQ(Fingerprint(*a), Fingerprint(*b));
  EXPECT_NE(Fingerprint(*a), Fingerprint(*c));
  EXPECT_EQ(Fingerprint(*a).size(), 64u);
  EXPECT_EQ(CanonicalForm(*a).substr(0, 81),
            R"({"type":"struct","fields":[{"name":"user_id","type":"int64","nullable":false},{"n)");
}

TEST(SchemaTest, CanonicalFormSortsMetadataAndNormalizesNumbers) {
  Field f1("a", Type::Int32());
  f1.set_metadata(*ParseJson(R"({"z":1.50,"a":"x"})"));
  Field f2("a", Type::Int32());
  f2.set_metadata(*ParseJson(R"({"a":"x","z":1.5})"));
  auto s1 = Schema::Make({f1});
  auto s2 = Schema::Make({f2});
  ASSERT_TRUE(s1 && s2);
  EXPECT_EQ(CanonicalForm(**s1), CanonicalForm(**s2));
  EXPECT_NE(CanonicalForm(**s1).find(R"("metadata":{"a":"x","z":1.5})"), std::string::npos);
}

TEST(SchemaTest, AsNullableRelaxesEveryLevel) {
  SchemaPtr s = MovieActivity(Type::Int32());
  auto relaxed = Type::Array(*Type::Struct({Field("x", Type::Int32(), false)}), false);
  TypePtr n = AsNullable(*relaxed);
  EXPECT_TRUE(n->contains_null());
  EXPECT_TRUE(n->element_type()->fields()[0].nullable());
}

TEST(SchemaTest, RenderTreeShowsNestedFields) {
  SchemaPtr s = MovieActivity(Type::Int32());
  TreeOptions ascii;
  ascii.unicode = false;
  EXPECT_EQ(RenderTree(*s, ascii),
            "user_movie_activity\n"
            "|-- user_id: int64 not null\n"
            "|-- session_id: string\n"
            "`-- movies_watched: array\n"
            "    `-- []: struct\n"
            "        |-- movie_id: int32\n"
            "        |-- title: string\n"
            "        |-- duration_seconds: int64\n"
            "        `-- completed: boolean\n");
}

}  // namespace
}  // namespace sluice::schema
