#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sluice/dialects/contract/contract.h"
#include "sluice_test_paths.h"

namespace sluice::dialects::contract {
namespace {

using schema::Field;
using schema::FieldPath;
using schema::Schema;
using schema::SchemaPtr;
using schema::Type;

// The contract of seed 000 ("Contracts with producers"), uncommented.
constexpr std::string_view kSeedOrders = R"(version: 1.0
required_columns:
  - name: order_id
    type: long
    nullable: false
  - name: customer_id
    type: long
    nullable: false
  - name: total_amount
    type: decimal(10, 2)
    nullable: false
  - name: created_at
    type: timestamp
    nullable: false
allowed_new_columns: true
allowed_type_changes: false
allowed_column_removal: false
)";

SchemaPtr UserMovieActivity() {
  auto movie =
      Type::Struct({Field("movie_id", Type::Int32()), Field("title", Type::String()),
                    Field("duration_seconds", Type::Int64()), Field("completed", Type::Boolean())});
  return *Schema::Make({Field("user_id", Type::Int64(), false), Field("session_id", Type::String()),
                        Field("movies_watched", *Type::Array(*movie))},
                       {"user_movie_activity", "", std::nullopt});
}

std::string ErrorOf(std::string_view yaml) {
  auto c = ParseSeedContract(yaml);
  if (c.has_value()) return "(parsed)";
  return c.error().message();
}

TEST(SeedContractTest, ReadsTheSeedOrdersContract) {
  auto contract = ParseSeedContract(kSeedOrders);
  ASSERT_TRUE(contract.has_value()) << contract.error().ToString();
  EXPECT_EQ(contract->format, ContractFormat::kSeed);
  EXPECT_EQ(contract->version, "1.0");
  EXPECT_EQ(contract->policy, (ChangePolicy{true, false, false}));
  ASSERT_EQ(contract->objects.size(), 1u);
  const Schema& s = *contract->objects[0].schema;
  ASSERT_EQ(s.fields().size(), 4u);
  EXPECT_EQ(s.fields()[0].name(), "order_id");
  EXPECT_EQ(s.fields()[0].type()->ToString(), "int64");
  EXPECT_FALSE(s.fields()[0].nullable());
  EXPECT_EQ(s.fields()[2].type()->ToString(), "decimal(10,2)");
  EXPECT_EQ(s.fields()[3].type()->ToString(), "timestamp");
  const ColumnSpec* spec = contract->objects[0].FindColumn(FieldPath::Of("total_amount"));
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->physical_type, "decimal(10, 2)");
  EXPECT_TRUE(spec->required);
  EXPECT_TRUE(contract->notes.empty());
}

TEST(SeedContractTest, TheSeedFileHoldsThatContract) {
  std::ifstream in(SLUICE_SHARED_DIR "/seeds/000_cc99e89ce91c84de.txt");
  if (!in) GTEST_SKIP() << "shared seeds not present";
  // The seed shows the contract as a commented block: `# version: 1.0` ... up to a blank line.
  std::string line;
  std::string yaml;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "# version: 1.0") inside = true;
    if (inside && line.rfind("# ", 0) != 0) break;
    if (inside) yaml += line.substr(2) + "\n";
  }
  ASSERT_FALSE(yaml.empty());
  auto from_file = ParseSeedContract(yaml);
  auto embedded = ParseSeedContract(kSeedOrders);
  ASSERT_TRUE(from_file.has_value()) << from_file.error().ToString();
  EXPECT_TRUE(from_file->objects[0].schema->Equals(*embedded->objects[0].schema));
  EXPECT_EQ(from_file->policy, embedded->policy);
}

TEST(SeedContractTest, ReadsTheSeed002OrdersSchema) {
  // Seed 002's expected_schema: IntegerType ids, DoubleType amount, StringType date, nullable.
  auto contract = ParseSeedContract(
      "version: 1\n"
      "required_columns:\n"
      "  - {name: order_id, type: integer}\n"
      "  - {name: customer_id, type: integer}\n"
      "  - {name: order_amount, type: double}\n"
      "  - {name: order_date, type: string}\n"
      "allowed_type_changes: false\n");
  ASSERT_TRUE(contract.has_value()) << contract.error().ToString();
  auto expected =
      *Schema::Make({Field("order_id", Type::Int32()), Field("customer_id", Type::Int32()),
                     Field("order_amount", Type::Float64()), Field("order_date", Type::String())});
  EXPECT_TRUE(contract->objects[0].schema->Equals(*expected));
  EXPECT_EQ(contract->version, "1");
  auto written = WriteSeedContract(*expected, contract->policy, contract->version);
  ASSERT_TRUE(written.has_value());
  EXPECT_NE(written->value.find("    type: integer\n"), std::string::npos) << written->value;
  EXPECT_NE(written->value.find("    type: double\n"), std::string::npos);
}

TEST(SeedContractTest, NullableDefaultsToTrueAndPolicyToDeltaDefaults) {
  auto contract = ParseSeedContract("required_columns:\n  - {name: a, type: int}\n");
  ASSERT_TRUE(contract.has_value()) << contract.error().ToString();
  EXPECT_TRUE(contract->objects[0].schema->fields()[0].nullable());
  EXPECT_EQ(contract->policy, ChangePolicy{});
  EXPECT_TRUE(contract->policy.allow_new_columns);
  EXPECT_FALSE(contract->policy.allow_type_changes);
  EXPECT_FALSE(contract->policy.allow_column_removal);
  EXPECT_EQ(contract->version, "");
}

TEST(SeedContractTest, VersionMayBeNumberOrString) {
  EXPECT_EQ(ParseSeedContract("version: 2\nrequired_columns: []\n")->version, "2");
  EXPECT_EQ(ParseSeedContract("version: 1.10\nrequired_columns: []\n")->version, "1.10");
  EXPECT_EQ(ParseSeedContract("version: \"2.1.0\"\nrequired_columns: []\n")->version, "2.1.0");
  EXPECT_EQ(ParseSeedContract("version: 2.1.0\nrequired_columns: []\n")->version, "2.1.0");
}

TEST(SeedContractTest, ReadsNestedSparkTypes) {
  auto contract = ParseSeedContract(
      "required_columns:\n"
      "  - name: movies_watched\n"
      "    type: \"array<struct<movie_id: int, title: string>>\"\n"
      "  - name: tags\n"
      "    type: map<string,int>\n");
  ASSERT_TRUE(contract.has_value()) << contract.error().ToString();
  EXPECT_EQ(contract->objects[0].schema->fields()[0].type()->ToString(),
            "array<struct<movie_id: int32, title: string>>");
  EXPECT_EQ(contract->objects[0].schema->fields()[1].type()->ToString(), "map<string, int32>");
}

TEST(SeedContractTest, WritesWhatItReadsBack) {
  const SchemaPtr schemas[] = {ParseSeedContract(kSeedOrders)->objects[0].schema,
                               UserMovieActivity()};
  const ChangePolicy policy{false, true, false};
  for (const SchemaPtr& s : schemas) {
    auto written = WriteSeedContract(*s, policy, "3.2");
    ASSERT_TRUE(written.has_value()) << written.error().ToString();
    EXPECT_TRUE(written->notes.empty()) << written->notes[0].ToString();
    auto back = ParseSeedContract(written->value);
    ASSERT_TRUE(back.has_value()) << back.error().ToString() << "\n" << written->value;
    EXPECT_TRUE(back->objects[0].schema->Equals(*s)) << written->value;
    EXPECT_EQ(back->policy, policy);
    EXPECT_EQ(back->version, "3.2");
  }
}

TEST(SeedContractTest, WritesTheSeedLayout) {
  auto contract = ParseSeedContract(kSeedOrders);
  auto written = WriteSeedContract(*contract->objects[0].schema, contract->policy, "1.0");
  ASSERT_TRUE(written.has_value());
  EXPECT_EQ(written->value,
            "version: 1.0\n"
            "required_columns:\n"
            "  - name: order_id\n"
            "    type: long\n"
            "    nullable: false\n"
            "  - name: customer_id\n"
            "    type: long\n"
            "    nullable: false\n"
            "  - name: total_amount\n"
            "    type: decimal(10,2)\n"
            "    nullable: false\n"
            "  - name: created_at\n"
            "    type: timestamp\n"
            "    nullable: false\n"
            "allowed_new_columns: true\n"
            "allowed_type_changes: false\n"
            "allowed_column_removal: false\n");
}

TEST(SeedContractTest, RoundTripsDocsNamesAndOddNames) {
  Field odd("order: id #1", Type::String());
  odd.set_doc("it's \"quoted\"\nand multi-line");
  auto s = *Schema::Make({odd, Field("true", *Type::Decimal(38, 0), false)},
                         {"orders", "", "The orders table"});
  auto written = WriteSeedContract(*s, {}, "v1");
  ASSERT_TRUE(written.has_value());
  auto back = ParseSeedContract(written->value);
  ASSERT_TRUE(back.has_value()) << back.error().ToString() << "\n" << written->value;
  EXPECT_TRUE(back->objects[0].schema->Equals(*s)) << written->value;
  EXPECT_EQ(back->objects[0].schema->info().name, "orders");
  EXPECT_EQ(back->objects[0].schema->info().doc, "The orders table");
  EXPECT_EQ(back->version, "v1");
}

TEST(SeedContractTest, NotesWhatTheFormatCannotHold) {
  Field with_default("a", Type::Int32());
  with_default.set_default_value(JsonValue::Int(1));
  auto inner = *Type::Struct({Field("x", Type::Int32()).set_doc(std::string("inner doc"))});
  auto s = *Schema::Make({with_default, Field("b", inner), Field("c", Type::Uuid())});
  auto written = WriteSeedContract(*s);
  ASSERT_TRUE(written.has_value());
  ASSERT_EQ(written->notes.size(), 3u);
  EXPECT_EQ(written->notes[0].path, FieldPath::Of("a"));
  EXPECT_EQ(written->notes[1].path, FieldPath::Of("b"));
  EXPECT_EQ(written->notes[2].path, FieldPath::Of("c"));
  EXPECT_FALSE(WriteSeedContract(*s, {}, "").has_value());
}

TEST(SeedContractTest, ErrorsNameTheKeyPathAndLine) {
  EXPECT_NE(ErrorOf("required_columns: 5\n").find("required_columns: expected a list"),
            std::string::npos)
      << ErrorOf("required_columns: 5\n");
  std::string bad_type = ErrorOf(
      "required_columns:\n  - {name: a, type: int}\n  - {name: b, type: long}\n"
      "  - name: c\n    type: lnog\n");
  EXPECT_NE(bad_type.find("required_columns[2].type"), std::string::npos) << bad_type;
  EXPECT_NE(bad_type.find("line 5"), std::string::npos) << bad_type;
  EXPECT_NE(ErrorOf("required_columns:\n  - {name: a}\n").find("required_columns[0]"),
            std::string::npos);
  EXPECT_NE(ErrorOf("required_columns:\n  - {type: int}\n").find("needs a name"),
            std::string::npos);
  std::string nullable = ErrorOf("required_columns:\n  - {name: a, type: int, nullable: maybe}\n");
  EXPECT_NE(nullable.find("required_columns[0].nullable: expected true or false"),
            std::string::npos)
      << nullable;
  EXPECT_NE(ErrorOf("required_columns:\n  - {name: a, type: int, nullable: \"false\"}\n")
                .find("nullable"),
            std::string::npos);
  EXPECT_NE(ErrorOf("allowed_new_columns: [x]\n").find("allowed_new_columns"), std::string::npos);
  EXPECT_NE(ErrorOf("required_columns:\n  - {name: a, type: int}\n  - {name: a, type: int}\n")
                .find("duplicate column"),
            std::string::npos);
  EXPECT_NE(ErrorOf("required_columns:\n  - [a, int]\n").find("expected a mapping"),
            std::string::npos);
  EXPECT_NE(ErrorOf("- a\n- b\n").find("expected a mapping"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("empty"), std::string::npos);
  EXPECT_NE(bad_type.find("unknown data type 'lnog' at offset 0 of the type"), std::string::npos)
      << bad_type;
  EXPECT_NE(ErrorOf("apiVersion: v3.1.0\nkind: DataContract\n").find("not a seed contract"),
            std::string::npos);
  EXPECT_NE(ErrorOf("dataContractSpecification: 1.2.1\n").find("not a seed contract"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("required_columns:\n  - {name: [x], type: int}\n").find("required_columns[0].name"),
      std::string::npos);
}

TEST(SeedContractTest, AcceptsPyYamlBooleanSpellings) {
  auto contract = ParseSeedContract(
      "required_columns:\n  - {name: a, type: int, nullable: no}\nallowed_new_columns: No\n");
  ASSERT_TRUE(contract.has_value()) << contract.error().ToString();
  EXPECT_FALSE(contract->objects[0].schema->fields()[0].nullable());
  EXPECT_FALSE(contract->policy.allow_new_columns);
}

TEST(SeedContractTest, NotesUnknownKeys) {
  auto contract =
      ParseSeedContract("owner: team-a\nrequired_columns:\n  - {name: a, type: int, pii: true}\n");
  ASSERT_TRUE(contract.has_value());
  ASSERT_EQ(contract->notes.size(), 1u);
  EXPECT_NE(contract->notes[0].message.find("owner"), std::string::npos);
  ASSERT_EQ(contract->objects[0].notes.size(), 1u);
  EXPECT_TRUE(contract->objects[0].columns[0].other.Find("pii")->as_bool());
}

TEST(SeedContractTest, RejectsHostileYaml) {
  std::string deep = "required_columns: " + std::string(100'000, '[');
  EXPECT_FALSE(ParseSeedContract(deep).has_value());
  std::string bomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'k'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev +
            ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev +
            "]\n";
    prev = c;
  }
  bomb += "required_columns: *k\n";
  auto b = ParseSeedContract(bomb);
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().code(), ErrorCode::kParseError);
  EXPECT_FALSE(
      ParseSeedContract("required_columns:\n  - name: caf\xE9\n    type: int\n").has_value());
}

TEST(SeedContractTest, ReadSeedSchemaKeepsNotes) {
  auto read = ReadSeedSchema("mystery: 1\nrequired_columns:\n  - {name: a, type: int}\n");
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->value->fields().size(), 1u);
  EXPECT_EQ(read->notes.size(), 1u);
}

TEST(SeedContractTest, DetectsSeedContracts) {
  EXPECT_TRUE(LooksLikeSeedContract(kSeedOrders));
  EXPECT_FALSE(LooksLikeOdcs(kSeedOrders));
  EXPECT_FALSE(LooksLikeSeedContract("apiVersion: v3.1.0\nrequired_columns: []\n"));
  EXPECT_FALSE(LooksLikeSeedContract("{\"type\": \"record\"}"));
}

}  // namespace
}  // namespace sluice::dialects::contract
