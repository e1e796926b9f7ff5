#include "sluice/table/column_mapping.h"

#include <gtest/gtest.h>

#include "sluice/dialects/spark/spark.h"

namespace sluice::table {
namespace {

schema::SchemaPtr Ddl(std::string_view ddl) {
  auto parsed = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(parsed.has_value()) << ddl;
  return parsed->value;
}

TEST(ColumnMapping, AssignsIdsParentsFirstAndKeepsThemAcrossRenames) {
  int64_t max_id = 0;
  auto mapped = AssignColumnMapping(*Ddl("a INT, s STRUCT<x: INT, y: ARRAY<STRUCT<z: INT>>>"),
                                    &max_id, false);
  ASSERT_TRUE(mapped.has_value());
  EXPECT_EQ(max_id, 5);
  const schema::Field* s = (*mapped)->struct_type()->FindField("s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(ColumnId(*s), 2);
  EXPECT_TRUE(PhysicalName(*s).starts_with("col-"));
  // Renames by id, nested ones too, with their paths before and after.
  auto after = AssignColumnMapping(**mapped, &max_id, false);  // already mapped: unchanged ids
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(max_id, 5);
  std::vector<schema::Field> fields = (*mapped)->fields();
  fields[1].set_name("t");
  std::vector<schema::Field> inner = fields[1].type()->fields();
  inner[0].set_name("w");
  fields[1].set_type(*schema::Type::Struct(inner));
  auto renamed_schema = schema::Schema::Make(fields);
  ASSERT_TRUE(renamed_schema.has_value());
  std::vector<ColumnRename> renames;
  auto before = RenamedByColumnId(**mapped, **renamed_schema, &renames);
  ASSERT_TRUE(before.has_value());
  ASSERT_EQ(renames.size(), 2u);
  EXPECT_EQ(renames[0].from.ToString(), "s");
  EXPECT_EQ(renames[0].to.ToString(), "t");
  EXPECT_EQ(renames[1].from.ToString(), "s.x");
  EXPECT_EQ(renames[1].to.ToString(), "t.w");
  EXPECT_TRUE((*before)->struct_type()->Equals(*(*renamed_schema)->struct_type()));
}

TEST(ColumnMapping, ARenameThatTurnsMappingOnIsFoundByPhysicalName) {
  schema::SchemaPtr plain = Ddl("code BIGINT, id BIGINT");
  int64_t max_id = 0;
  auto mapped = AssignColumnMapping(*plain, &max_id, /*keep_names=*/true);
  ASSERT_TRUE(mapped.has_value());
  std::vector<schema::Field> fields = (*mapped)->fields();
  fields[0].set_name("kind");
  auto after = schema::Schema::Make(fields);
  std::vector<ColumnRename> renames;
  ASSERT_TRUE(RenamedByColumnId(*plain, **after, &renames).has_value());
  ASSERT_EQ(renames.size(), 1u);
  EXPECT_EQ(renames[0].from.ToString(), "code");
  EXPECT_EQ(renames[0].to.ToString(), "kind");
  // Without column mapping in the newer schema, nothing is a rename.
  renames.clear();
  ASSERT_TRUE(RenamedByColumnId(*plain, *Ddl("kind BIGINT, id BIGINT"), &renames).has_value());
  EXPECT_TRUE(renames.empty());
}

TEST(ColumnMapping, StorageMetadataIsLeftOutOfTheSchemaUsersSee) {
  int64_t max_id = 0;
  auto mapped = AssignColumnMapping(*Ddl("a INT"), &max_id, false);
  ASSERT_TRUE(mapped.has_value());
  auto shown = WithoutStorageMetadata(**mapped);
  ASSERT_TRUE(shown.has_value());
  EXPECT_TRUE((*shown)->fields()[0].metadata().members().empty());
  auto physical = PhysicalSchema(**mapped);
  ASSERT_TRUE(physical.has_value());
  EXPECT_TRUE((*physical)->fields()[0].name().starts_with("col-"));
}

}  // namespace
}  // namespace sluice::table
