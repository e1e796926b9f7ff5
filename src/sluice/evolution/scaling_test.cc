// Diff, compatibility, table merges and contract checks of wide schemas take time linear in
// their width: the same columns in the same or the reverse order, columns dropped, added and
// widened, many spellings of one name, several versions, wide contracts and many models.
#include <gtest/gtest.h>

#include "sluice/dialects/contract/contract.h"
#include "sluice/dialects/contract/dcs.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/evolution/compatibility.h"
#include "sluice/evolution/contract_check.h"
#include "sluice/evolution/diff.h"
#include "sluice/evolution/pair_walk.h"
#include "sluice/evolution/table_merge.h"
#include "sluice/schema/scaling_testing.h"

namespace sluice::evolution {
namespace {

using scaling::ColumnName;
using scaling::ScalesLinearly;
using schema::Field;
using schema::SchemaPtr;
using schema::Type;

SchemaPtr Ddl(const std::string& text) {
  auto read = dialects::spark::ReadDdl(text);
  EXPECT_TRUE(read.has_value()) << read.error().message();
  return read->value;
}

// The second version of WideDdl(n): every tenth column dropped, n/10 new ones at the end, and
// every twelfth (an INT) widened to BIGINT.
SchemaPtr SecondVersion(size_t n) {
  static const char* const kTypes[] = {"BIGINT", "STRING", "DOUBLE", "INT", "BOOLEAN", "DATE"};
  std::string out;
  for (size_t i = 0; i < n + n / 10; ++i) {
    if (i < n && i % 10 == 5) continue;
    const char* type = i % 12 == 3 ? "BIGINT" : kTypes[i % 6];
    out += fmt::format("{}{} {}{}", out.empty() ? "" : ", ", ColumnName(i), type,
                       i < n && i % 3 == 0 ? " NOT NULL" : "");
  }
  return Ddl(out);
}

TEST(EvolutionScalingTest, DiffsOfWideSchemasInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        SchemaPtr v1 = Ddl(scaling::WideDdl(n));
        SchemaPtr reversed = Ddl(scaling::WideDdl(n, /*reversed=*/true));
        SchemaPtr v2 = SecondVersion(n);
        EXPECT_TRUE(Diff(*v1, *v1).changes.empty());
        EXPECT_FALSE(Diff(*v1, *reversed).changes.empty());
        EXPECT_FALSE(Diff(*v1, *v2).changes.empty());
        EXPECT_FALSE(Diff(*v2, *v1, DiffOptions{.case_sensitive = true}).changes.empty());
      },
      4000));
}

TEST(EvolutionScalingTest, ManySpellingsOfOneNamePairInLinearTime) {
  // Names that differ only in case: `n` spellings of one word before, `n` others after. None
  // pairs (each spelling after has many candidates), which must not cost n * n.
  auto spellings = [](size_t n, size_t offset) {
    std::vector<Field> fields;
    for (size_t k = offset; k < offset + n; ++k) {
      std::string name(20, 'a');
      for (size_t b = 0; b < 20; ++b) {
        if ((k >> b) & 1) name[b] = 'A';
      }
      fields.emplace_back(name, Type::Int64());
    }
    return fields;
  };
  EXPECT_TRUE(ScalesLinearly(
      [&](size_t n) {
        std::vector<Field> before = spellings(n, 0);
        std::vector<Field> after = spellings(n, n);
        FieldPairing p = PairFields(before, after, /*case_sensitive=*/false);
        for (int j : p.after_of) EXPECT_EQ(j, -1);
      },
      20000));
}

void MergeEverything(size_t n, std::initializer_list<TableFormat> formats,
                     std::initializer_list<TableWriteMode> modes) {
  SchemaPtr v1 = Ddl(scaling::WideDdl(n));
  SchemaPtr reversed = Ddl(scaling::WideDdl(n, /*reversed=*/true));
  SchemaPtr v2 = SecondVersion(n);
  for (TableFormat format : formats) {
    for (TableWriteMode mode : modes) {
      MergeOptions options;
      options.format = format;
      options.mode = mode;
      for (const SchemaPtr& incoming : {v1, reversed, v2}) {
        auto merged = Merge(*v1, *incoming, options);
        ASSERT_TRUE(merged.has_value()) << merged.error().message();
      }
    }
  }
}

TEST(EvolutionScalingTest, IcebergMergesOfWideSchemasInLinearTime) {
  // Iceberg places each added column after the data's preceding one, in the table's order.
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        MergeEverything(n, {TableFormat::kIceberg},
                        {TableWriteMode::kEnforce, TableWriteMode::kMerge});
      },
      4000));
}

TEST(EvolutionScalingTest, TableMergesOfWideSchemasInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        SchemaPtr v1 = Ddl(scaling::WideDdl(n));
        SchemaPtr reversed = Ddl(scaling::WideDdl(n, /*reversed=*/true));
        SchemaPtr v2 = SecondVersion(n);
        for (TableFormat format : {TableFormat::kDelta, TableFormat::kIceberg}) {
          for (TableWriteMode mode :
               {TableWriteMode::kEnforce, TableWriteMode::kMerge, TableWriteMode::kOverwrite}) {
            MergeOptions options;
            options.format = format;
            options.mode = mode;
            for (const SchemaPtr& incoming : {v1, reversed, v2}) {
              auto merged = Merge(*v1, *incoming, options);
              ASSERT_TRUE(merged.has_value()) << merged.error().message();
            }
          }
          auto evolved = CheckTableEvolution(*v1, *reversed, {.format = format});
          ASSERT_TRUE(evolved.has_value()) << evolved.error().message();
        }
      },
      1000));
}

TEST(EvolutionScalingTest, TransitiveCompatibilityOverSeveralVersionsInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        const struct {
          SchemaType type;
          std::string v1;
          std::string v2;
        } cases[] = {
            {SchemaType::kAvro, scaling::WideAvro(n), scaling::WideAvro(n + n / 10, n)},
            {SchemaType::kJsonSchema, scaling::WideJsonSchema(n, false),
             scaling::WideJsonSchema(n + n / 10, false)},
            {SchemaType::kTable, scaling::WideDdl(n), scaling::WideDdl(n, true)},
            {SchemaType::kIceberg, scaling::WideDdl(n), scaling::WideDdl(n, true)},
        };
        for (const auto& c : cases) {
          auto v1 = ParsedSchema::Parse(c.type, c.v1);
          auto v2 = ParsedSchema::Parse(c.type, c.v2);
          ASSERT_TRUE(v1.has_value()) << v1.error().message();
          ASSERT_TRUE(v2.has_value()) << v2.error().message();
          std::vector<ParsedSchemaPtr> history = {*v1, *v1, *v1};
          CompatibilityReport report =
              CheckCompatibility(CompatibilityMode::kFullTransitive, history, **v2);
          EXPECT_EQ(report.checked_versions.size(), 3u);
        }
      },
      1000));
}

TEST(EvolutionScalingTest, ContractChecksOfWideSchemasInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        SchemaPtr v1 = Ddl(scaling::WideDdl(n));
        SchemaPtr v2 = SecondVersion(n);
        auto seed = dialects::contract::ParseSeedContract(scaling::WideSeedContract(n));
        auto odcs = dialects::contract::ParseOdcs(scaling::WideOdcs(n));
        auto dcs = dialects::contract::ParseDcs(scaling::WideDcs(n));
        ASSERT_TRUE(seed.has_value() && odcs.has_value() && dcs.has_value());
        for (const dialects::contract::Contract* c : {&*seed, &*odcs, &*dcs}) {
          auto plain = CheckContract(*v1, *c);
          ASSERT_TRUE(plain.has_value()) << plain.error().message();
          auto with_previous = CheckContract(*v2, *c, v1.get());
          ASSERT_TRUE(with_previous.has_value()) << with_previous.error().message();
          EXPECT_FALSE(with_previous->ok());
        }
        // A schema of entirely other names: every required column missing, looked up ignoring
        // case too.
        SchemaPtr other = Ddl(fmt::format("x{}", scaling::WideDdl(n)));
        auto missing = CheckContract(*other, *seed);
        ASSERT_TRUE(missing.has_value());
        EXPECT_FALSE(missing->ok());
      },
      500));
}

TEST(EvolutionScalingTest, BreakingChangesOfWideContractsAndManyModelsInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        auto odcs = dialects::contract::ParseOdcs(scaling::WideOdcs(n));
        auto odcs_models = dialects::contract::ParseOdcs(scaling::WideOdcs(2, n / 2));
        auto dcs = dialects::contract::ParseDcs(scaling::WideDcs(n));
        auto dcs_models = dialects::contract::ParseDcs(scaling::WideDcs(2, n / 2));
        ASSERT_TRUE(odcs.has_value() && odcs_models.has_value());
        ASSERT_TRUE(dcs.has_value() && dcs_models.has_value());
        EXPECT_TRUE(BreakingChanges(*odcs, *odcs).changes.empty());
        EXPECT_FALSE(BreakingChanges(*odcs_models, *odcs).changes.empty());
        EXPECT_TRUE(BreakingChanges(*dcs, *dcs).changes.empty());
        EXPECT_FALSE(BreakingChanges(*dcs, *dcs_models).changes.empty());
      },
      400));
}

}  // namespace
}  // namespace sluice::evolution
