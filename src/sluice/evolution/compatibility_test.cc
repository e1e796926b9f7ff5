#include "sluice/evolution/compatibility.h"

#include <gtest/gtest.h>

namespace sluice::evolution {
namespace {

ParsedSchemaPtr Avro(const std::string& fields) {
  auto p = ParsedSchema::Parse(SchemaType::kAvro,
                               R"({"type":"record","name":"r","fields":[)" + fields + "]}");
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().ToString());
  return *p;
}

// v1 {a int}; v2 adds b with a default; v3 drops the default from b: readable for v2's data
// (b present) but not for v1's (b missing, no default).
std::vector<ParsedSchemaPtr> History() {
  return {Avro(R"({"name":"a","type":"int"})"),
          Avro(R"({"name":"a","type":"int"},{"name":"b","type":"string","default":"x"})")};
}
ParsedSchemaPtr V3() { return Avro(R"({"name":"a","type":"int"},{"name":"b","type":"string"})"); }

TEST(CompatibilityModeTest, NamesParseIgnoringCase) {
  for (const char* name : {"NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD",
                           "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"}) {
    auto m = ParseCompatibilityMode(name);
    ASSERT_TRUE(m.has_value()) << name;
    EXPECT_EQ(CompatibilityModeName(*m), name);
  }
  EXPECT_EQ(*ParseCompatibilityMode("backward_transitive"), CompatibilityMode::kBackwardTransitive);
  EXPECT_FALSE(ParseCompatibilityMode("sideways").has_value());
  EXPECT_EQ(*ParseSchemaType("json"), SchemaType::kJsonSchema);
  EXPECT_EQ(*ParseSchemaType("delta"), SchemaType::kTable);
}

TEST(CompatibilityModeTest, NonTransitiveModesCheckOnlyTheLatestVersion) {
  CompatibilityReport r = CheckCompatibility(CompatibilityMode::kBackward, History(), *V3());
  EXPECT_TRUE(r.compatible);
  EXPECT_EQ(r.checked_versions, std::vector<size_t>{1});
}

TEST(CompatibilityModeTest, TransitiveModesCheckEveryVersionNewestFirst) {
  CompatibilityReport r =
      CheckCompatibility(CompatibilityMode::kBackwardTransitive, History(), *V3());
  EXPECT_FALSE(r.compatible);
  EXPECT_EQ(r.checked_versions, (std::vector<size_t>{1, 0}));
  ASSERT_EQ(r.incompatibilities.size(), 1u);
  EXPECT_EQ(r.incompatibilities[0].kind, "READER_FIELD_MISSING_DEFAULT_VALUE");
  EXPECT_EQ(r.incompatibilities[0].version_index, 0u);
  EXPECT_EQ(r.incompatibilities[0].direction, CheckDirection::kBackward);
}

TEST(CompatibilityModeTest, ForwardSwapsReaderAndWriter) {
  // Old readers of v3's data: v1 ignores b, v2 reads it; both fine.
  EXPECT_TRUE(
      CheckCompatibility(CompatibilityMode::kForwardTransitive, History(), *V3()).compatible);
  // A type promotion is backward but not forward compatible.
  auto widened = Avro(R"({"name":"a","type":"long"},{"name":"b","type":"string","default":"x"})");
  EXPECT_TRUE(CheckCompatibility(CompatibilityMode::kBackward, History(), *widened).compatible);
  CompatibilityReport fwd = CheckCompatibility(CompatibilityMode::kForward, History(), *widened);
  ASSERT_FALSE(fwd.compatible);
  EXPECT_EQ(fwd.incompatibilities[0].direction, CheckDirection::kForward);
  EXPECT_EQ(fwd.incompatibilities[0].kind, "TYPE_MISMATCH");
  CompatibilityReport full = CheckCompatibility(CompatibilityMode::kFull, History(), *widened);
  EXPECT_FALSE(full.compatible);
  EXPECT_EQ(full.incompatibilities.size(), fwd.incompatibilities.size());
}

TEST(CompatibilityModeTest, NoneAndAnEmptyHistoryAreAlwaysCompatible) {
  auto incompatible = Avro(R"({"name":"a","type":"string"})");
  CompatibilityReport none = CheckCompatibility(CompatibilityMode::kNone, History(), *incompatible);
  EXPECT_TRUE(none.compatible);
  EXPECT_TRUE(none.checked_versions.empty());
  EXPECT_TRUE(CheckCompatibility(CompatibilityMode::kFullTransitive, {}, *incompatible).compatible);
}

TEST(CompatibilityModeTest, StopAtFirstFailureAsTheRegistryDoes) {
  std::vector<ParsedSchemaPtr> history = {Avro(R"({"name":"a","type":"boolean"})"),
                                          Avro(R"({"name":"a","type":"boolean"})")};
  auto candidate = Avro(R"({"name":"a","type":"string"})");
  CompatibilityOptions all;
  EXPECT_EQ(CheckCompatibility(CompatibilityMode::kBackwardTransitive, history, *candidate, all)
                .checked_versions.size(),
            2u);
  CompatibilityOptions first;
  first.stop_at_first_failure = true;
  CompatibilityReport r =
      CheckCompatibility(CompatibilityMode::kBackwardTransitive, history, *candidate, first);
  EXPECT_EQ(r.checked_versions, std::vector<size_t>{1});
  EXPECT_FALSE(r.compatible);
}

TEST(CompatibilityModeTest, TableSchemasFollowDeltaAndIcebergEvolution) {
  auto old_table = ParsedSchema::Parse(SchemaType::kTable, "id BIGINT, amount DOUBLE", "t.ddl");
  auto dropped = ParsedSchema::Parse(SchemaType::kTable, "id BIGINT", "t.ddl");
  ASSERT_TRUE(old_table && dropped);
  // Delta cannot drop a column in place without column mapping; Iceberg can.
  EXPECT_FALSE(
      CheckCompatibility(CompatibilityMode::kBackward, {*old_table}, **dropped).compatible);
  auto ice_old = ParsedSchema::Parse(SchemaType::kIceberg, "id BIGINT, amount DOUBLE", "t.ddl");
  auto ice_new = ParsedSchema::Parse(SchemaType::kIceberg, "id BIGINT", "t.ddl");
  ASSERT_TRUE(ice_old && ice_new);
  EXPECT_TRUE(CheckCompatibility(CompatibilityMode::kBackward, {*ice_old}, **ice_new).compatible);
  // Type widening: int -> long only with delta.enableTypeWidening.
  auto narrow = ParsedSchema::Parse(SchemaType::kTable, "id INT", "t.ddl");
  auto wide = ParsedSchema::Parse(SchemaType::kTable, "id BIGINT", "t.ddl");
  ASSERT_TRUE(narrow && wide);
  EXPECT_FALSE(CheckCompatibility(CompatibilityMode::kBackward, {*narrow}, **wide).compatible);
  CompatibilityOptions widening;
  widening.type_widening = true;
  EXPECT_TRUE(
      CheckCompatibility(CompatibilityMode::kBackward, {*narrow}, **wide, widening).compatible);
}

TEST(CompatibilityModeTest, DifferentSchemaTypesAreIncompatible) {
  auto avro = Avro(R"({"name":"a","type":"int"})");
  auto json = ParsedSchema::Parse(SchemaType::kJsonSchema, R"({"type":"object"})");
  ASSERT_TRUE(json.has_value());
  auto found = CheckCanRead(*avro, **json);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "SCHEMA_TYPE_MISMATCH");
}

}  // namespace
}  // namespace sluice::evolution
