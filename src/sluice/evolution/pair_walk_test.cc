#include "sluice/evolution/pair_walk.h"

#include <gtest/gtest.h>

#include <string>

#include "sluice/dialects/spark/spark.h"

namespace sluice::evolution {
namespace {

using schema::Field;
using schema::FieldPath;
using schema::Type;

schema::SchemaPtr Ddl(const char* ddl) {
  auto r = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(r.has_value()) << ddl << ": " << (r ? "" : r.error().ToString());
  return r->value;
}

std::string Key(bool in_map_key) { return in_map_key ? " (key)" : ""; }

// Every event as a line, in the order the walk reports them.
class Recorder final : public PairVisitor {
 public:
  void StructsPaired(const FieldPath& path, const Type&, const Type&,
                     const FieldPairing& pairing) override {
    std::string pairs;
    for (int j : pairing.after_of) pairs += " " + std::to_string(j);
    Line("struct " + Name(path) + pairs);
  }
  void OnlyBefore(const FieldPath& path, const Field&, bool in_key) override {
    Line("only before " + path.ToString() + Key(in_key));
  }
  void OnlyAfter(const FieldPath& path, const Field&, bool in_key) override {
    Line("only after " + path.ToString() + Key(in_key));
  }
  void Respelled(const FieldPath& path, const Field& a, const Field& b) override {
    Line("respelled " + path.ToString() + " " + a.name() + " -> " + b.name());
  }
  void Moved(const FieldPath& path, size_t i, size_t j) override {
    Line("moved " + path.ToString() + " " + std::to_string(i) + " -> " + std::to_string(j));
  }
  void NullabilityDiffers(const FieldPath& path, bool a, bool b, bool in_key) override {
    Line("nullability " + path.ToString() + " " + (a ? "null" : "not null") + " -> " +
         (b ? "null" : "not null") + Key(in_key));
  }
  void TypesDiffer(const FieldPath& path, const Type& a, const Type& b, bool in_key) override {
    Line("types " + path.ToString() + " " + a.ToString() + " -> " + b.ToString() + Key(in_key));
  }
  void FieldPaired(const FieldPath& path, const Field&, const Field&) override {
    Line("paired " + path.ToString());
  }

  std::string lines;

 private:
  static std::string Name(const FieldPath& path) {
    return path.empty() ? "<top>" : path.ToString();
  }
  void Line(const std::string& line) { lines += line + "\n"; }
};

std::string Walk(const char* before, const char* after, const PairWalkOptions& options = {}) {
  Recorder r;
  WalkPair(*Ddl(before)->struct_type(), *Ddl(after)->struct_type(), options, r);
  return r.lines;
}

TEST(PairFieldsTest, ExactNamesFirstThenUnambiguousCaseFolds) {
  std::vector<Field> before{Field("a", Type::Int32()), Field("B", Type::Int32()),
                            Field("c", Type::Int32()), Field("d", Type::Int32())};
  std::vector<Field> after{Field("b", Type::Int32()), Field("a", Type::Int32()),
                           Field("C", Type::Int32()), Field("c", Type::Int32()),
                           Field("x", Type::Int32())};
  FieldPairing p = PairFields(before, after, false);
  // `c` pairs exactly, so `C` is left over; `B` finds `b` as its one case-folded candidate.
  EXPECT_EQ(p.after_of, (std::vector<int>{1, 0, 3, -1}));
  EXPECT_EQ(p.before_of, (std::vector<int>{1, 0, -1, 2, -1}));
  FieldPairing exact = PairFields(before, after, true);
  EXPECT_EQ(exact.after_of, (std::vector<int>{1, -1, 3, -1}));
}

TEST(PairFieldsTest, AmbiguousCaseFoldsStayUnpaired) {
  std::vector<Field> before{Field("Id", Type::Int32())};
  std::vector<Field> after{Field("ID", Type::Int32()), Field("id", Type::Int32())};
  FieldPairing p = PairFields(before, after, false);
  EXPECT_EQ(p.after_of, (std::vector<int>{-1}));
  EXPECT_EQ(p.before_of, (std::vector<int>{-1, -1}));
}

TEST(PairWalkTest, ReportsEachFieldsEventsInOrderThenItsAdditions) {
  // id and s keep their order (the longest run), so t is the one that moved; s.z follows s.x,
  // the paired field before it, ahead of the removal of s.y.
  EXPECT_EQ(Walk("Id INT NOT NULL, s STRUCT<x: INT, y: INT>, gone STRING, t INT",
                 "new1 INT, t INT, id BIGINT, s STRUCT<x: STRING, z: INT>, new2 INT"),
            "struct <top> 2 3 -1 1\n"
            "only after new1\n"
            "respelled id Id -> id\n"
            "nullability id not null -> null\n"
            "types id int32 -> int64\n"
            "paired id\n"
            "struct s 0 -1\n"
            "types s.x int32 -> string\n"
            "paired s.x\n"
            "only after s.z\n"
            "only before s.y\n"
            "paired s\n"
            "only after new2\n"
            "only before gone\n"
            "moved t 3 -> 1\n"
            "paired t\n");
}

TEST(PairWalkTest, TablePlacementAndSpelling) {
  PairWalkOptions o;
  o.added = AddedFieldPlacement::kAtEndOfStruct;
  o.spelling = PairedPathSpelling::kBefore;
  EXPECT_EQ(Walk("Id INT, s STRUCT<X: INT>", "new1 INT, id BIGINT, S STRUCT<x: STRING, y: INT>", o),
            "struct <top> 1 2\n"
            "respelled Id Id -> id\n"
            "types Id int32 -> int64\n"
            "paired Id\n"
            "respelled s s -> S\n"
            "struct s 0\n"
            "respelled s.X X -> x\n"
            "types s.X int32 -> string\n"
            "paired s.X\n"
            "only after s.y\n"
            "paired s\n"
            "only after new1\n");
}

TEST(PairWalkTest, ArraysAndMapsStepThroughElementsKeysAndValues) {
  EXPECT_EQ(Walk("m MAP<STRUCT<k: INT>, ARRAY<INT>>, shape STRUCT<a: INT>",
                 "m MAP<STRUCT<k: BIGINT>, ARRAY<STRING>>, shape ARRAY<INT>"),
            "struct <top> 0 1\n"
            "struct m{key} 0\n"
            "types m{key}.k int32 -> int64 (key)\n"
            "paired m{key}.k\n"
            "types m{value}[] int32 -> string\n"
            "paired m\n"
            "types shape struct<a: int32> -> array<int32>\n"
            "paired shape\n");
  auto a = schema::Schema::Make({Field("xs", *Type::Array(Type::Int32(), false)),
                                 Field("m", *Type::Map(Type::String(), Type::Int32(), true))});
  auto b = schema::Schema::Make({Field("xs", *Type::Array(Type::Int32(), true)),
                                 Field("m", *Type::Map(Type::String(), Type::Int32(), false))});
  Recorder r;
  WalkPair(*(*a)->struct_type(), *(*b)->struct_type(), {}, r);
  EXPECT_EQ(r.lines,
            "struct <top> 0 1\n"
            "nullability xs[] not null -> null\n"
            "paired xs\n"
            "nullability m{value} null -> not null\n"
            "paired m\n");
}

bool SameFamily(const Type& a, const Type& b) { return a.is_integer() == b.is_integer(); }

TEST(PairWalkTest, AtomicEqualityIsTheConsumers) {
  PairWalkOptions o;
  o.atomic_equal = SameFamily;
  EXPECT_EQ(Walk("a TINYINT, b INT, c ARRAY<INT>", "a BIGINT, b STRING, c ARRAY<SMALLINT>", o),
            "struct <top> 0 1 2\n"
            "paired a\n"
            "types b int32 -> string\n"
            "paired b\n"
            "paired c\n");
}

}  // namespace
}  // namespace sluice::evolution
