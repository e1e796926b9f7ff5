#include <gtest/gtest.h>

#include <filesystem>
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
using schema::TimeUnit;
using schema::Type;

constexpr const char* kFixtures = SLUICE_SHARED_DIR "/conformance/datacontract-cli-fixtures";

std::optional<std::string> ReadFixture(const std::string& relative) {
  std::ifstream in(std::string(kFixtures) + "/" + relative, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

#define LOAD_FIXTURE(var, relative)                                          \
  auto var##_text = ReadFixture(relative);                                   \
  if (!var##_text) GTEST_SKIP() << "fixture " << relative << " not present"; \
  auto var = ParseOdcs(*var##_text);                                         \
  ASSERT_TRUE(var.has_value()) << relative << ": " << var.error().ToString()

const Field& FieldAt(const ContractObject& o, const std::string& path) {
  const Field* f = o.schema->FindField(*FieldPath::Parse(path));
  EXPECT_NE(f, nullptr) << path;
  static const Field kMissing("missing", Type::Null());
  return f == nullptr ? kMissing : *f;
}

std::string TypeAt(const ContractObject& o, const std::string& path) {
  return FieldAt(o, path).type()->ToString();
}

bool HasNote(const std::vector<schema::LossyNote>& notes, const std::string& path,
             std::string_view fragment) {
  for (const auto& n : notes) {
    if (n.path.ToString() == path && n.message.find(fragment) != std::string::npos) return true;
  }
  return false;
}

std::string Notes(const std::vector<schema::LossyNote>& notes) {
  std::string out;
  for (const auto& n : notes) out += n.ToString() + "\n";
  return out;
}

SchemaPtr UserMovieActivity() {
  auto movie =
      Type::Struct({Field("movie_id", Type::Int32()), Field("title", Type::String()),
                    Field("duration_seconds", Type::Int64()), Field("completed", Type::Boolean())});
  return *Schema::Make({Field("user_id", Type::Int64(), false), Field("session_id", Type::String()),
                        Field("movies_watched", *Type::Array(*movie))},
                       {"user_movie_activity", "", std::nullopt});
}

TEST(OdcsTest, EveryOdcsFixtureParses) {
  const char* files[] = {"changelog/changelog_integration_v1.yaml",
                         "changelog/changelog_integration_v2.yaml",
                         "schema-evolution/odcs-datacontract-cities-version-1.yaml",
                         "schema-evolution/odcs-datacontract-cities-version-2.yaml",
                         "schema-evolution/odcs-datacontract-cities-version-3.yaml",
                         "lint/valid-3.1.0.odcs.yaml",
                         "own/minimal.odcs.yaml",
                         "lint/invalid.odcs.yaml",
                         "lint/invalid_multiple_errors.odcs.yaml",
                         "lint/invalid_multiple_schema_errors.odcs.yaml"};
  for (const char* f : files) {
    auto text = ReadFixture(f);
    if (!text) GTEST_SKIP() << "fixtures not present";
    EXPECT_TRUE(LooksLikeOdcs(*text)) << f;
    EXPECT_FALSE(LooksLikeSeedContract(*text)) << f;
    auto c = ParseOdcs(*text);
    ASSERT_TRUE(c.has_value()) << f << ": " << c.error().ToString();
    EXPECT_EQ(c->format, ContractFormat::kOdcs);
    // Whatever was read writes back and reads again to the same fields.
    for (const ContractObject& o : c->objects) {
      auto written = WriteOdcs(*o.schema);
      ASSERT_TRUE(written.has_value()) << f;
      auto again = ParseOdcs(written->value);
      ASSERT_TRUE(again.has_value()) << f << ": " << again.error().ToString() << "\n"
                                     << written->value;
      auto read = ReadOdcsSchema(*text, o.name);
      ASSERT_TRUE(read.has_value()) << f;
      EXPECT_TRUE(read->value->Equals(*o.schema));
      EXPECT_TRUE(again->objects[0].schema->Equals(*o.schema)) << f << "\n" << written->value;
    }
  }
}

TEST(OdcsTest, ReadsCitiesEvolution) {
  LOAD_FIXTURE(v1, "schema-evolution/odcs-datacontract-cities-version-1.yaml");
  LOAD_FIXTURE(v2, "schema-evolution/odcs-datacontract-cities-version-2.yaml");
  LOAD_FIXTURE(v3, "schema-evolution/odcs-datacontract-cities-version-3.yaml");
  EXPECT_EQ(v1->api_version, "v3.1.0");
  EXPECT_EQ(v1->id, "cities");
  EXPECT_EQ(v1->name, "Cities");
  EXPECT_EQ(v1->version, "1.0.0");
  EXPECT_EQ(v1->status, "active");
  EXPECT_EQ(v1->policy, ChangePolicy{});
  ASSERT_EQ(v1->objects.size(), 1u);
  const ContractObject& o1 = v1->objects[0];
  EXPECT_EQ(o1.name, "cities");
  EXPECT_EQ(o1.physical_type, "file");
  EXPECT_EQ(o1.schema->info().name, "cities");
  ASSERT_EQ(o1.schema->fields().size(), 2u);
  EXPECT_EQ(TypeAt(o1, "city_id"), "string");
  EXPECT_FALSE(FieldAt(o1, "city_id").nullable());
  const ColumnSpec* city = o1.FindColumn(FieldPath::Of("city_id"));
  ASSERT_NE(city, nullptr);
  EXPECT_TRUE(city->primary_key);
  EXPECT_TRUE(city->unique);
  EXPECT_TRUE(city->required);
  EXPECT_EQ(city->primary_key_position, 1);
  EXPECT_EQ(city->logical_type, "string");
  EXPECT_EQ(city->physical_type, "varchar");
  ASSERT_NE(city->other.Find("examples"), nullptr);
  EXPECT_EQ(city->other.Find("examples")->items()[0].as_string(),
            "12374430-dc44-4f75-874b-86c0ea26aeea");

  const ContractObject& o2 = v2->objects[0];
  ASSERT_EQ(o2.schema->fields().size(), 3u);
  EXPECT_EQ(TypeAt(o2, "population"), "int64");
  EXPECT_TRUE(FieldAt(o2, "population").nullable());
  const ColumnSpec* pop = o2.FindColumn(FieldPath::Of("population"));
  ASSERT_NE(pop, nullptr);
  EXPECT_EQ(pop->logical_type_options.Find("minimum")->number_text(), "10000");
  EXPECT_EQ(pop->logical_type_options.Find("maximum")->number_text(), "5000000");
  EXPECT_FALSE(v3->objects[0].schema->fields()[2].nullable());
  EXPECT_TRUE(o1.notes.empty()) << Notes(o1.notes);
  EXPECT_TRUE(o2.notes.empty()) << Notes(o2.notes);
  EXPECT_TRUE(v1->notes.empty()) << Notes(v1->notes);
}

TEST(OdcsTest, ReadsEverySchemaObjectAndPicksByName) {
  LOAD_FIXTURE(v1, "changelog/changelog_integration_v1.yaml");
  LOAD_FIXTURE(v2, "changelog/changelog_integration_v2.yaml");
  EXPECT_EQ(v1->api_version, "v3.0.2");
  ASSERT_EQ(v2->objects.size(), 2u);
  EXPECT_EQ(v2->objects[0].name, "orders");
  EXPECT_EQ(v2->objects[1].name, "customers");
  auto first = v2->Object();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ((*first)->name, "orders");
  auto customers = v2->Object("customers");
  ASSERT_TRUE(customers.has_value());
  const ContractObject& c = **customers;
  EXPECT_EQ(c.physical_name, "customers_tbl");
  EXPECT_EQ(c.schema->fields().size(), 6u);
  EXPECT_EQ(TypeAt(c, "created_at"), "timestamp");
  EXPECT_EQ(TypeAt(c, "date_of_birth"), "date");
  EXPECT_EQ(c.FindColumn(FieldPath::Of("email"))->classification, "confidential");
  EXPECT_EQ(c.FindColumn(FieldPath::Of("email"))->other.Find("encryptedName")->as_string(),
            "email_encrypt");
  EXPECT_EQ(c.FindColumn(FieldPath::Of("full_name"))->business_name, "Customer Full Name");
  EXPECT_TRUE(c.FindColumn(FieldPath::Of("country"))->partitioned);
  EXPECT_EQ(c.FindColumn(FieldPath::Of("country"))->partition_key_position, 1);
  EXPECT_TRUE(c.FindColumn(FieldPath::Of("customer_id"))->primary_key);
  auto missing = v2->Object("payments");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message().find("orders, customers"), std::string::npos);

  // The changes the changelog golden lists, as the model sees them.
  const ContractObject& o1 = v1->objects[0];
  const ContractObject& o2 = v2->objects[0];
  EXPECT_NE(o1.schema->FindField(FieldPath::Of("customer_id")), nullptr);
  EXPECT_EQ(o2.schema->FindField(FieldPath::Of("customer_id")), nullptr);
  EXPECT_EQ(TypeAt(o1, "order_date"), "string");
  EXPECT_EQ(TypeAt(o2, "order_date"), "date");
  EXPECT_TRUE(FieldAt(o1, "total_amount").nullable());
  EXPECT_FALSE(FieldAt(o2, "total_amount").nullable());
  EXPECT_EQ(TypeAt(o2, "total_amount"), "float64");
  EXPECT_NE(FieldAt(o1, "order_id").doc(), FieldAt(o2, "order_id").doc());

  auto read = ReadOdcsSchema(*v2_text, "customers");
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->value->info().name, "customers");
  EXPECT_FALSE(ReadOdcsSchema(*v2_text, "nope").has_value());
}

TEST(OdcsTest, ReadsTheLintFixtureWithNotesForDisagreements) {
  LOAD_FIXTURE(c, "lint/valid-3.1.0.odcs.yaml");
  ASSERT_EQ(c->objects.size(), 1u);
  const ContractObject& o = c->objects[0];
  EXPECT_EQ(o.name, "shipments2");
  EXPECT_EQ(o.physical_name, "shipments_v2");
  EXPECT_EQ(o.business_name, "Shipments");
  ASSERT_TRUE(o.schema->info().doc.has_value());
  EXPECT_EQ(o.quality.size(), 3u);
  EXPECT_EQ(o.other.Find("dataGranularityDescription")->as_string(), "Not Aggregated");
  // string + physicalType uuid refines to uuid.
  EXPECT_EQ(TypeAt(o, "shipment_id"), "uuid");
  EXPECT_TRUE(FieldAt(o, "shipment_id").nullable());
  EXPECT_EQ(FieldAt(o, "shipment_id").doc(), "Unique identifier for each shipment.");
  // No logicalType: the physicalType decides.
  EXPECT_EQ(TypeAt(o, "order_id"), "string");
  // date + timestamp_tz: the logicalType wins, with a note.
  EXPECT_EQ(TypeAt(o, "delivery_date"), "date");
  EXPECT_TRUE(HasNote(o.notes, "delivery_date", "disagrees with logicalType date"))
      << Notes(o.notes);
  // An object with no properties stored as JSON.
  EXPECT_EQ(TypeAt(o, "inline_object_definition"), "string");
  EXPECT_TRUE(HasNote(o.notes, "inline_object_definition", "without properties"));
  // An object with properties, stored as JSON.
  EXPECT_EQ(TypeAt(o, "address"),
            "struct<street: string not null, city: string not null, "
            "country: string not null>");
  EXPECT_FALSE(FieldAt(o, "address").nullable());
  EXPECT_EQ(FieldAt(o, "address.city").doc(), "City of the shipping address.");
  const ColumnSpec* street = o.FindColumn(*FieldPath::Parse("address.street"));
  ASSERT_NE(street, nullptr);
  EXPECT_EQ(street->classification, "restricted");
  const ColumnSpec* tracking = o.FindColumn(FieldPath::Of("tracking_number"));
  ASSERT_NE(tracking, nullptr);
  EXPECT_EQ(tracking->other.Find("customProperties")->items()[0].Find("value")->as_string(),
            "true");
  EXPECT_EQ(o.FindColumn(FieldPath::Of("shipment_id"))->tags,
            std::vector<std::string>{"businesskey"});
  // Columns are listed parents first, in document order.
  ASSERT_GE(o.columns.size(), 11u);
  EXPECT_EQ(o.columns[7].path.ToString(), "address");
  EXPECT_EQ(o.columns[8].path.ToString(), "address.street");
}

TEST(OdcsTest, ReadsTheMinimalContract) {
  LOAD_FIXTURE(c, "own/minimal.odcs.yaml");
  EXPECT_EQ(c->id, "urn:acme:payments:transactions");
  EXPECT_EQ(c->version, "1.2.0");
  const ContractObject& o = c->objects[0];
  EXPECT_EQ(TypeAt(o, "txn_id"), "varchar(36)");
  EXPECT_FALSE(FieldAt(o, "txn_id").nullable());
  EXPECT_EQ(o.FindColumn(FieldPath::Of("txn_id"))->logical_type_options.Find("format")->as_string(),
            "uuid");
  EXPECT_EQ(TypeAt(o, "amount_minor"), "int64");
  EXPECT_EQ(o.FindColumn(FieldPath::Of("amount_minor"))->quality.size(), 1u);
  EXPECT_EQ(TypeAt(o, "cardholder_email"), "varchar(320)");
  EXPECT_EQ(o.FindColumn(FieldPath::Of("cardholder_email"))->tags, std::vector<std::string>{"pii"});
  EXPECT_EQ(TypeAt(o, "settled_at"), "timestamp");
  EXPECT_TRUE(o.notes.empty()) << Notes(o.notes);
  EXPECT_TRUE(c->notes.empty()) << Notes(c->notes);
}

TEST(OdcsTest, LintProblemsAreNotesNotErrors) {
  LOAD_FIXTURE(no_status, "lint/invalid.odcs.yaml");
  EXPECT_TRUE(HasNote(no_status->notes, "", "'status' is missing")) << Notes(no_status->notes);
  EXPECT_TRUE(no_status->objects.empty());
  LOAD_FIXTURE(two, "lint/invalid_multiple_errors.odcs.yaml");
  EXPECT_TRUE(HasNote(two->notes, "", "'version' is missing"));
  EXPECT_TRUE(HasNote(two->notes, "", "'status' is missing"));
  LOAD_FIXTURE(null_description, "lint/invalid_multiple_schema_errors.odcs.yaml");
  EXPECT_TRUE(HasNote(null_description->objects[0].notes, "", "description is null"));
  auto read = ReadOdcsSchema(*no_status_text);
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().code(), ErrorCode::kNotFound);
}

TEST(OdcsTest, LegacyDcsFilesAreUnimplemented) {
  const char* files[] = {"datacontract-fields-v1.yaml", "datacontract-fields-v2.yaml",
                         "datacontract-fields-v3.yaml", "datacontract-models-v1.yaml",
                         "datacontract-models-v2.yaml", "datacontract-models-v3.yaml"};
  for (const char* f : files) {
    auto text = ReadFixture(std::string("breaking-dcs-v0.10.41/") + f);
    if (!text) GTEST_SKIP() << "fixtures not present";
    EXPECT_TRUE(LooksLikeOdcs(*text)) << f;
    auto c = ParseOdcs(*text);
    ASSERT_FALSE(c.has_value()) << f;
    EXPECT_EQ(c.error().code(), ErrorCode::kUnimplemented) << f;
    EXPECT_NE(c.error().message().find("Data Contract Specification"), std::string::npos);
    EXPECT_NE(c.error().message().find("1.2.1"), std::string::npos);
  }
}

std::string Doc(std::string_view properties) {
  return "apiVersion: v3.1.0\nkind: DataContract\nid: t\nversion: 1.0.0\nstatus: draft\n"
         "schema:\n  - name: t\n    properties:\n" +
         std::string(properties);
}

struct MappingCase {
  const char* property;  // YAML of one property's keys after "- name: c"
  const char* type;
  bool noted;
};

TEST(OdcsTest, MapsLogicalAndPhysicalTypes) {
  const MappingCase cases[] = {
      {"logicalType: string", "string", false},
      {"logicalType: string\n        physicalType: VARCHAR(10)", "varchar(10)", false},
      {"logicalType: string\n        physicalType: CHAR(2)", "char(2)", false},
      {"logicalType: string\n        physicalType: BINARY", "binary", false},
      {"logicalType: string\n        physicalType: BIGINT", "string", true},
      {"logicalType: integer", "int64", false},
      {"logicalType: integer\n        physicalType: INT", "int32", false},
      {"logicalType: integer\n        physicalType: SMALLINT", "int16", false},
      {"logicalType: integer\n        physicalType: NUMBER(38,0)", "decimal(38,0)", false},
      {"logicalType: integer\n        physicalType: DOUBLE", "int64", true},
      {"logicalType: number", "float64", false},
      {"logicalType: number\n        physicalType: REAL", "float32", false},
      {"logicalType: number\n        physicalType: DECIMAL(12,4)", "decimal(12,4)", false},
      {"logicalType: number\n        physicalType: DECIMAL", "decimal(10,0)", true},
      {"logicalType: number\n        logicalTypeOptions: {precision: 9, scale: 2}", "decimal(9,2)",
       false},
      {"logicalType: number\n        physicalType: BIGINT", "int64", false},
      {"logicalType: number\n        logicalTypeOptions: {format: f32}", "float32", false},
      {"logicalType: integer\n        logicalTypeOptions: {format: i16}", "int16", false},
      {"logicalType: integer\n        logicalTypeOptions: {format: u32}", "int64", false},
      {"logicalType: integer\n        logicalTypeOptions: {format: u64}", "decimal(20,0)", false},
      {"logicalType: integer\n        logicalTypeOptions: {format: i128}", "decimal(38,0)", true},
      {"logicalType: integer\n        physicalType: INT\n        logicalTypeOptions: {format: i64}",
       "int32", false},
      {"logicalType: boolean", "boolean", false},
      {"logicalType: boolean\n        physicalType: VARCHAR", "boolean", true},
      {"logicalType: date", "date", false},
      {"logicalType: time", "time", false},
      {"logicalType: time\n        physicalType: TIME(3)", "time(3)", false},
      {"logicalType: timestamp", "timestamp", false},
      {"logicalType: timestamp\n        logicalTypeOptions: {timezone: false}", "timestamp_ntz",
       false},
      {"logicalType: timestamp\n        physicalType: TIMESTAMP_NTZ", "timestamp_ntz", false},
      {"logicalType: timestamp\n        physicalType: TIMESTAMP\n        logicalTypeOptions: "
       "{timezone: false}",
       "timestamp_ntz", false},
      {"logicalType: timestamp\n        physicalType: TIMESTAMPTZ\n        logicalTypeOptions: "
       "{timezone: false}",
       "timestamp_ntz", true},
      {"logicalType: timestamp\n        physicalType: TIMESTAMP(9)", "timestamp(9)", false},
      {"logicalType: timestamp\n        physicalType: DATE", "timestamp", true},
      {"logicalType: array\n        items: {logicalType: integer}", "array<int64>", false},
      {"logicalType: array\n        items: {logicalType: integer, required: true}",
       "array<int64 not null>", false},
      {"logicalType: array", "array<string>", true},
      {"logicalType: array\n        physicalType: ARRAY<INT>", "array<int32>", false},
      {"logicalType: object\n        properties:\n          - {name: a, logicalType: integer}",
       "struct<a: int64>", false},
      {"logicalType: object\n        physicalType: MAP<STRING, INT>", "map<string, int32>", false},
      {"logicalType: object", "struct<>", true},
      {"physicalType: BIGINT", "int64", false},
      {"physicalType: text[]", "array<string>", false},
      {"physicalType: GEOGRAPHY", "string", true},
      {"description: nothing else", "string", true},
      {"properties:\n          - {name: a, logicalType: date}", "struct<a: date>", false},
      {"items: {logicalType: boolean}", "array<boolean>", false},
      {"physicalType: VOID", "null", false},
      {"logicalType: String", "string", true},
  };
  for (const MappingCase& m : cases) {
    std::string yaml = Doc(std::string("      - name: c\n        ") + m.property + "\n");
    auto c = ParseOdcs(yaml);
    ASSERT_TRUE(c.has_value()) << m.property << ": " << c.error().ToString();
    const ContractObject& o = c->objects[0];
    EXPECT_EQ(TypeAt(o, "c"), m.type) << m.property;
    EXPECT_EQ(!o.notes.empty(), m.noted) << m.property << "\n" << Notes(o.notes);
  }
}

TEST(OdcsTest, RequiredMeansNotNull) {
  auto c =
      ParseOdcs(Doc("      - {name: a, logicalType: string, required: true}\n"
                    "      - {name: b, logicalType: string, required: false}\n"
                    "      - {name: c, logicalType: string}\n"));
  ASSERT_TRUE(c.has_value());
  const auto& f = c->objects[0].schema->fields();
  EXPECT_FALSE(f[0].nullable());
  EXPECT_TRUE(f[1].nullable());
  EXPECT_TRUE(f[2].nullable());
}

TEST(OdcsTest, ErrorsNameTheKeyPathAndLine) {
  struct ErrorCase {
    std::string yaml;
    const char* fragment;
  };
  const ErrorCase cases[] = {
      {"", "empty document"},
      {"- a\n", "expected a mapping"},
      {"kind: DataContract\n", "apiVersion: missing"},
      {"apiVersion: v9.0.0\n", "not an ODCS v3 version"},
      {"apiVersion: v2.2.2\n", "v2"},
      {"apiVersion: v3.1.0\nkind: DataProduct\n", "kind: expected DataContract"},
      {"apiVersion: v3.1.0\nschema: 5\n", "schema: expected a list"},
      {"apiVersion: v3.1.0\nschema:\n  - physicalName: x\n",
       "schema[0]: a schema object needs a name"},
      {"apiVersion: v3.1.0\nschema:\n  - name: a\n  - name: a\n", "duplicate schema object"},
      {Doc("      - {name: a, logicalType: string}\n      - {logicalType: string}\n"),
       "schema[0].properties[1]: a property needs a name"},
      {Doc("      - {name: a, logicalType: uuid}\n"),
       "schema[0].properties[0].logicalType: unknown logicalType \"uuid\""},
      {Doc("      - {name: a, logicalType: string, required: maybe}\n"),
       "schema[0].properties[0].required: expected true or false"},
      {Doc("      - {name: a, logicalType: string}\n      - {name: a, logicalType: string}\n"),
       "duplicate property \"a\""},
      {Doc("      - name: a\n        logicalType: object\n        properties: 7\n"),
       "schema[0].properties[0].properties: expected a list"},
      {Doc("      - name: a\n        logicalType: array\n        items: [x]\n"),
       "schema[0].properties[0].items: expected a mapping"},
      {Doc("      - name: a\n        logicalType: string\n        properties: []\n"),
       "only allowed on objects"},
      {Doc("      - name: a\n        logicalType: object\n        properties:\n"
           "          - {name: b, logicalType: integer, tags: oops}\n"),
       "schema[0].properties[0].properties[0].tags: expected a list"},
      {Doc("      - {name: a, logicalType: string, logicalTypeOptions: [1]}\n"),
       "logicalTypeOptions: expected a mapping"},
  };
  for (const ErrorCase& e : cases) {
    auto c = ParseOdcs(e.yaml);
    ASSERT_FALSE(c.has_value()) << e.yaml;
    EXPECT_NE(c.error().message().find(e.fragment), std::string::npos)
        << e.yaml << "\n=> " << c.error().message();
    if (!e.yaml.empty()) {
      EXPECT_NE(c.error().message().find("line "), std::string::npos) << c.error().message();
    }
  }
  auto bad_line =
      ParseOdcs(Doc("      - {name: a, logicalType: string}\n"
                    "      - {name: b, logicalType: strnig}\n"));
  ASSERT_FALSE(bad_line.has_value());
  EXPECT_NE(bad_line.error().message().find("line 10"), std::string::npos)
      << bad_line.error().message();
}

TEST(OdcsTest, RejectsHostileYaml) {
  std::string deep = "apiVersion: v3.1.0\nschema: " + std::string(100'000, '[');
  EXPECT_FALSE(ParseOdcs(deep).has_value());
  // Nested objects beyond the model's depth limit: refused with a path, not a crash.
  std::string nested = "apiVersion: v3.1.0\nschema:\n  - name: t\n    properties:\n";
  std::string indent = "      ";
  for (int i = 0; i < 200; ++i) {
    nested += indent + "- name: n\n" + indent + "  properties:\n";
    indent += "    ";
  }
  nested += indent + "- {name: leaf, logicalType: string}\n";
  auto n = ParseOdcs(nested);
  ASSERT_FALSE(n.has_value());
  std::string bomb = "apiVersion: v3.1.0\nx0: &x0 [a,a,a,a,a,a,a,a,a,a]\n";
  for (int i = 1; i < 10; ++i) {
    std::string prev = "*x" + std::to_string(i - 1);
    bomb += "x" + std::to_string(i) + ": &x" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) bomb += (j ? "," : "") + prev;
    bomb += "]\n";
  }
  bomb += "schema: *x9\n";
  EXPECT_FALSE(ParseOdcs(bomb).has_value());
  EXPECT_FALSE(ParseOdcs("apiVersion: v3.1.0\nid: \xFF\xFE\n").has_value());
  EXPECT_FALSE(ParseOdcs("apiVersion: [v3]\n").has_value());
}

TEST(OdcsTest, WritesAMinimalContract) {
  auto written = WriteOdcs(*UserMovieActivity(), {.id = "urn:sluice:uma", .version = "2.0.0"});
  ASSERT_TRUE(written.has_value());
  EXPECT_TRUE(written->notes.empty()) << Notes(written->notes);
  EXPECT_EQ(written->value,
            "apiVersion: v3.1.0\n"
            "kind: DataContract\n"
            "id: urn:sluice:uma\n"
            "version: 2.0.0\n"
            "status: draft\n"
            "schema:\n"
            "  - name: user_movie_activity\n"
            "    physicalType: table\n"
            "    logicalType: object\n"
            "    properties:\n"
            "      - name: user_id\n"
            "        logicalType: integer\n"
            "        physicalType: BIGINT\n"
            "        required: true\n"
            "      - name: session_id\n"
            "        logicalType: string\n"
            "        physicalType: STRING\n"
            "        required: false\n"
            "      - name: movies_watched\n"
            "        logicalType: array\n"
            "        required: false\n"
            "        items:\n"
            "          logicalType: object\n"
            "          required: false\n"
            "          properties:\n"
            "            - name: movie_id\n"
            "              logicalType: integer\n"
            "              physicalType: INT\n"
            "              required: false\n"
            "            - name: title\n"
            "              logicalType: string\n"
            "              physicalType: STRING\n"
            "              required: false\n"
            "            - name: duration_seconds\n"
            "              logicalType: integer\n"
            "              physicalType: BIGINT\n"
            "              required: false\n"
            "            - name: completed\n"
            "              logicalType: boolean\n"
            "              physicalType: BOOLEAN\n"
            "              required: false\n");
  auto back = ParseOdcs(written->value);
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  EXPECT_TRUE(back->objects[0].schema->Equals(*UserMovieActivity()));
  EXPECT_EQ(back->id, "urn:sluice:uma");
  EXPECT_TRUE(back->objects[0].notes.empty()) << Notes(back->objects[0].notes);
}

TEST(OdcsTest, EveryModelTypeRoundTrips) {
  std::vector<Field> fields = {
      Field("b", Type::Boolean(), false),
      Field("i8", Type::Int8()),
      Field("i16", Type::Int16()),
      Field("i32", Type::Int32()),
      Field("i64", Type::Int64()),
      Field("f32", Type::Float32()),
      Field("f64", Type::Float64()),
      Field("dec", *Type::Decimal(38, 9)),
      Field("s", Type::String()),
      Field("ch", *Type::Char(3)),
      Field("vc", *Type::Varchar(255)),
      Field("bin", Type::Binary()),
      Field("d", Type::Date()),
      Field("ts", Type::Timestamp()),
      Field("ts_ms", Type::Timestamp(TimeUnit::kMillis)),
      Field("ntz", Type::TimestampNtz()),
      Field("ntz_ns", Type::TimestampNtz(TimeUnit::kNanos)),
      Field("t", Type::Time()),
      Field("t_ns", Type::Time(TimeUnit::kNanos)),
      Field("u", Type::Uuid()),
      Field("m", *Type::Map(Type::String(), Type::Int64())),
      Field("aa", *Type::Array(*Type::Array(Type::Int32(), false))),
      Field("odd name: #1", Type::String()),
  };
  fields[8].set_doc("a \"doc\" with: colons\nand lines");
  auto s = *Schema::Make(fields, {"all_types", "", "Every type"});
  auto written = WriteOdcs(*s);
  ASSERT_TRUE(written.has_value());
  EXPECT_TRUE(written->notes.empty()) << Notes(written->notes);
  auto back = ParseOdcs(written->value);
  ASSERT_TRUE(back.has_value()) << back.error().ToString() << "\n" << written->value;
  EXPECT_TRUE(back->objects[0].schema->Equals(*s)) << written->value;
  EXPECT_EQ(back->objects[0].schema->info().doc, "Every type");
  EXPECT_TRUE(back->objects[0].notes.empty()) << Notes(back->objects[0].notes);
}

TEST(OdcsTest, PhysicalTypesWithColonsAreQuoted) {
  // A map of structs has the physicalType MAP<STRING, STRUCT<x: DOUBLE>>: ": " inside a plain
  // YAML scalar would start a mapping.
  auto inner = *Type::Struct({Field("x", Type::Float64())});
  auto s = *Schema::Make({Field("m", *Type::Map(Type::String(), inner))});
  auto written = WriteOdcs(*s);
  ASSERT_TRUE(written.has_value());
  auto back = ParseOdcs(written->value);
  ASSERT_TRUE(back.has_value()) << back.error().ToString() << "\n" << written->value;
  EXPECT_EQ(back->objects[0].schema->fields()[0].type()->ToString(),
            "map<string, struct<x: float64>>");
}

TEST(OdcsTest, WriteNotesWhatOdcsCannotHold) {
  Field with_default("a", Type::Int32());
  with_default.set_default_value(JsonValue::Int(1));
  Field with_metadata("b", Type::Int32());
  JsonValue meta = JsonValue::Object();
  meta.Set("k", JsonValue::String("v"));
  with_metadata.set_metadata(meta);
  auto s = *Schema::Make(
      {with_default, with_metadata, Field("m", *Type::Map(Type::String(), Type::Int32(), false))});
  auto written = WriteOdcs(*s);
  ASSERT_TRUE(written.has_value());
  EXPECT_TRUE(HasNote(written->notes, "a", "default"));
  EXPECT_TRUE(HasNote(written->notes, "b", "metadata"));
  EXPECT_FALSE(written->notes.size() < 3) << Notes(written->notes);
  EXPECT_FALSE(WriteOdcs(*s, {.version = ""}).has_value());
}

TEST(OdcsTest, ReadsOdcsWrittenAsJson) {
  std::string json = R"({"apiVersion": "v3.1.0", "kind": "DataContract", "id": "j",
    "version": "1.0.0", "status": "active",
    "schema": [{"name": "t", "properties": [
      {"name": "a", "logicalType": "integer", "physicalType": "INT", "required": true}]}]})";
  EXPECT_TRUE(LooksLikeOdcs(json));
  auto c = ParseOdcs(json);
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  EXPECT_EQ(c->objects[0].schema->fields()[0].type()->ToString(), "int32");
  EXPECT_FALSE(c->objects[0].schema->fields()[0].nullable());
}

TEST(OdcsTest, DetectsOdcs) {
  EXPECT_TRUE(LooksLikeOdcs("apiVersion: v3.1.0\nkind: DataContract\n"));
  EXPECT_TRUE(LooksLikeOdcs("# c\nkind: \"DataContract\"\n"));
  EXPECT_TRUE(LooksLikeOdcs("version: 1.0.0\nkind: DataContract\napiVersion: v3.1.0\n"));
  EXPECT_FALSE(LooksLikeOdcs("version: 1.0\nrequired_columns: []\n"));
  EXPECT_FALSE(LooksLikeOdcs("{\"type\": \"struct\", \"fields\": []}"));
  EXPECT_FALSE(LooksLikeOdcs("  kind: DataContract\n"));
}

}  // namespace
}  // namespace sluice::dialects::contract
