#include "sluice/evolution/contract_check.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "sluice/base/json.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/contract/dcs.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice_test_paths.h"

namespace sluice::evolution {
namespace {

using dialects::contract::Contract;
using schema::SchemaPtr;

constexpr const char* kTestData = SLUICE_SOURCE_DIR "/src/sluice/evolution/testdata/contract";
constexpr const char* kFixtures = SLUICE_SHARED_DIR "/conformance/datacontract-cli-fixtures";

std::optional<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Reads a contract by its file name's format suffix: .seed.yaml, .odcs.yaml or .dcs.yaml, or by
// its first keys for the fixtures.
Result<Contract> ParseContract(const std::string& name, const std::string& text) {
  if (EndsWith(name, ".seed.yaml")) return dialects::contract::ParseSeedContract(text);
  if (EndsWith(name, ".dcs.yaml") || dialects::contract::LooksLikeDcs(text)) {
    return dialects::contract::ParseDcs(text);
  }
  return dialects::contract::ParseOdcs(text);
}

Contract LoadTestContract(const std::string& name) {
  auto text = ReadText(std::string(kTestData) + "/" + name);
  EXPECT_TRUE(text.has_value()) << name;
  auto contract = ParseContract(name, text.value_or(""));
  EXPECT_TRUE(contract.has_value()) << name << ": " << contract.error().ToString();
  return contract.has_value() ? *contract : Contract();
}

SchemaPtr Ddl(const std::string& ddl) {
  auto schema = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(schema.has_value()) << ddl << ": " << schema.error().ToString();
  return schema.has_value() ? schema->value : *schema::Schema::Make({});
}

std::string Describe(const ContractCheckReport& report) {
  std::string out;
  for (const ContractViolation& v : report.violations) {
    out += fmt::format("  [{}] {}: {} (fix: {})\n", ViolationRuleName(v.rule), v.path.ToString(),
                       v.message, v.fix);
  }
  return out;
}

// One case per line of check_cases.json: a contract file, a schema and optionally the previous
// schema as Spark DDL, options, and the violations expected as [rule, path] pairs.
TEST(ContractCheckTest, DataDrivenCases) {
  auto text = ReadText(std::string(kTestData) + "/check_cases.json");
  ASSERT_TRUE(text.has_value());
  auto cases = ParseJson(*text);
  ASSERT_TRUE(cases.has_value()) << cases.error().ToString();
  ASSERT_TRUE(cases->is_array());
  std::set<std::string> rules_seen;
  for (const JsonValue& c : cases->items()) {
    std::string name = c.Find("name")->as_string();
    SCOPED_TRACE(name);
    Contract contract = LoadTestContract(c.Find("contract")->as_string());
    SchemaPtr schema = Ddl(c.Find("schema")->as_string());
    SchemaPtr previous;
    if (const JsonValue* p = c.Find("previous")) previous = Ddl(p->as_string());
    ContractCheckOptions options;
    if (const JsonValue* o = c.Find("options")) {
      if (const JsonValue* v = o->Find("object")) options.object_name = v->as_string();
      if (const JsonValue* v = o->Find("exact_types")) options.exact_types = v->as_bool();
      if (const JsonValue* v = o->Find("exact_nullability")) {
        options.exact_nullability = v->as_bool();
      }
    }
    auto report = CheckContract(*schema, contract, previous.get(), options);
    ASSERT_TRUE(report.has_value()) << report.error().ToString();
    std::multiset<std::pair<std::string, std::string>> expected;
    for (const JsonValue& e : c.Find("expect")->items()) {
      expected.insert({e.items()[0].as_string(), e.items()[1].as_string()});
      rules_seen.insert(e.items()[0].as_string());
    }
    std::multiset<std::pair<std::string, std::string>> actual;
    for (const ContractViolation& v : report->violations) {
      actual.insert({std::string(ViolationRuleName(v.rule)), v.path.ToString()});
      EXPECT_FALSE(v.message.empty());
      EXPECT_FALSE(v.fix.empty());
    }
    EXPECT_EQ(actual, expected) << Describe(*report);
    EXPECT_EQ(report->ok(), expected.empty());
  }
  // Every rule has at least one case.
  for (ViolationRule rule :
       {ViolationRule::kRequiredColumnMissing, ViolationRule::kRequiredColumnType,
        ViolationRule::kRequiredColumnNullability, ViolationRule::kNewColumnNotAllowed,
        ViolationRule::kTypeChangeNotAllowed, ViolationRule::kColumnRemovalNotAllowed,
        ViolationRule::kColumnMissing, ViolationRule::kRequiredNotNull,
        ViolationRule::kLogicalTypeMismatch, ViolationRule::kPhysicalTypeMismatch}) {
    EXPECT_TRUE(rules_seen.count(std::string(ViolationRuleName(rule)))) << ViolationRuleName(rule);
  }
}

TEST(ContractCheckTest, MessagesNameExpectedAndActual) {
  Contract contract = LoadTestContract("orders.seed.yaml");
  SchemaPtr schema =
      Ddl("Order_ID BIGINT NOT NULL, customer_id BIGINT NOT NULL, total_amount STRING NOT NULL, "
          "created_at TIMESTAMP");
  auto report = CheckContract(*schema, contract);
  ASSERT_TRUE(report.has_value());
  ASSERT_EQ(report->violations.size(), 3u) << Describe(*report);
  const ContractViolation& missing = report->violations[0];
  EXPECT_EQ(missing.rule, ViolationRule::kRequiredColumnMissing);
  EXPECT_NE(missing.message.find("long, not null"), std::string::npos) << missing.message;
  EXPECT_NE(missing.message.find("`Order_ID`, which differs only in case"), std::string::npos)
      << missing.message;
  const ContractViolation& type = report->violations[1];
  EXPECT_EQ(type.rule, ViolationRule::kRequiredColumnType);
  EXPECT_NE(type.message.find("is string, the contract requires decimal(10, 2)"), std::string::npos)
      << type.message;
  EXPECT_NE(type.fix.find("cast `total_amount` to decimal(10, 2)"), std::string::npos) << type.fix;
  EXPECT_EQ(report->violations[2].rule, ViolationRule::kRequiredColumnNullability);
  EXPECT_EQ(report->Count(ViolationRule::kRequiredColumnType), 1);
}

TEST(ContractCheckTest, ObjectSelection) {
  Contract contract = LoadTestContract("orders.odcs.yaml");
  // Unnamed schema: the first object, orders, whose columns are all missing here.
  SchemaPtr customers = Ddl("customer_id STRING NOT NULL");
  auto first = CheckContract(*customers, contract);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->object, "orders");
  EXPECT_EQ(first->Count(ViolationRule::kColumnMissing), 5) << Describe(*first);
  // A schema named like an object selects it.
  schema::SchemaInfo info;
  info.name = "customers";
  SchemaPtr named = *schema::Schema::Make(customers->fields(), info);
  auto by_schema_name = CheckContract(*named, contract);
  ASSERT_TRUE(by_schema_name.has_value());
  EXPECT_EQ(by_schema_name->object, "customers");
  EXPECT_TRUE(by_schema_name->ok()) << Describe(*by_schema_name);
  // An explicit name wins; an unknown one is kNotFound listing the objects.
  ContractCheckOptions options;
  options.object_name = "nope";
  auto missing = CheckContract(*named, contract, nullptr, options);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message().find("orders, customers"), std::string::npos);
}

TEST(ContractCheckTest, OdcsNumberAcceptsIntegersAndUnknownPhysicalTypesAreNotJudged) {
  auto contract = dialects::contract::ParseOdcs(R"(apiVersion: v3.1.0
kind: DataContract
id: x
version: 1.0.0
status: active
schema:
  - name: t
    properties:
      - name: amount
        logicalType: number
      - name: geo
        logicalType: string
        physicalType: GEOGRAPHY
      - name: payload
        logicalType: string
        physicalType: JSON
)");
  ASSERT_TRUE(contract.has_value()) << contract.error().ToString();
  auto ok = CheckContract(*Ddl("amount BIGINT, geo STRING, payload STRING"), *contract);
  ASSERT_TRUE(ok.has_value());
  EXPECT_TRUE(ok->ok()) << Describe(*ok);
  auto bad = CheckContract(*Ddl("amount BOOLEAN, geo STRING, payload STRING"), *contract);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->Count(ViolationRule::kLogicalTypeMismatch), 1) << Describe(*bad);
}

TEST(ContractCheckTest, DcsAdditionalFieldsFalseForbidsNewColumns) {
  auto contract = dialects::contract::ParseDcs(R"(dataContractSpecification: 1.2.1
models:
  t:
    additionalFields: false
    fields:
      a: {type: string}
)");
  ASSERT_TRUE(contract.has_value()) << contract.error().ToString();
  auto report = CheckContract(*Ddl("a STRING, b STRING"), *contract);
  ASSERT_TRUE(report.has_value());
  ASSERT_EQ(report->violations.size(), 1u) << Describe(*report);
  EXPECT_EQ(report->violations[0].rule, ViolationRule::kNewColumnNotAllowed);
  EXPECT_EQ(report->violations[0].path.ToString(), "b");
}

// ---------------------------------------------------------------------------------------------
// BreakingChanges

std::optional<Contract> LoadFixture(const std::string& relative) {
  auto text = ReadText(std::string(kFixtures) + "/" + relative);
  if (!text) return std::nullopt;
  auto contract = ParseContract(relative, *text);
  EXPECT_TRUE(contract.has_value()) << relative << ": " << contract.error().ToString();
  if (!contract.has_value()) return std::nullopt;
  return *contract;
}

// The error and warning counts, "15 error, 3 warning": what the headline of `datacontract
// breaking` counts (report/contract_render_test.cc checks the headline's wording).
std::string BreakingCounts(const BreakingChangeReport& report) {
  return fmt::format("{} error, {} warning", report.Count(BreakingSeverity::kError),
                     report.Count(BreakingSeverity::kWarning));
}

std::string Listing(const BreakingChangeReport& report) {
  std::string out;
  for (const BreakingChange& c : report.changes) {
    out += fmt::format("  {} [{}] {}: {}\n", BreakingSeverityName(c.severity), c.rule, c.location,
                       c.description);
  }
  return out;
}

// EXPECTED.md §3: datacontract-cli v0.10.41's own tests, pair by pair.
TEST(BreakingChangesTest, DatacontractCliFixtureCounts) {
  struct Pair {
    const char* old_file;
    const char* new_file;
    const char* counts;
    bool passed;
    std::vector<std::string> must_not_appear;
  };
  const Pair pairs[] = {
      {"models-v1",
       "models-v2",
       "0 error, 0 warning",
       true,
       {"model_added", "model_description_added"}},
      {"models-v2", "models-v1", "1 error, 0 warning", false, {"model_description_removed"}},
      {"models-v2", "models-v3", "1 error, 0 warning", false, {"model_description_updated"}},
      {"fields-v1",
       "fields-v2",
       "0 error, 15 warning",
       true,
       {"field_added", "field_description_added", "field_tags_added"}},
      {"fields-v2",
       "fields-v1",
       "5 error, 11 warning",
       false,
       {"field_description_removed", "field_enum_removed", "field_tags_removed"}},
      {"fields-v2",
       "fields-v3",
       "15 error, 3 warning",
       false,
       {"field_description_updated", "field_tags_updated"}},
      {"fields-v2", "fields-v2", "0 error, 0 warning", true, {}},
  };
  for (const Pair& p : pairs) {
    std::string old_name = fmt::format("breaking-dcs-v0.10.41/datacontract-{}.yaml", p.old_file);
    std::string new_name = fmt::format("breaking-dcs-v0.10.41/datacontract-{}.yaml", p.new_file);
    SCOPED_TRACE(old_name + " -> " + new_name);
    auto old_contract = LoadFixture(old_name);
    auto new_contract = LoadFixture(new_name);
    if (!old_contract || !new_contract) GTEST_SKIP() << "fixtures not present";
    BreakingChangeReport report = BreakingChanges(*old_contract, *new_contract);
    EXPECT_EQ(BreakingCounts(report), p.counts) << Listing(report);
    EXPECT_EQ(report.passed(), p.passed);
    // Info-level changes are what `breaking` leaves out.
    for (const std::string& rule : p.must_not_appear) {
      for (const BreakingChange& c : report.changes) {
        if (c.rule == rule) {
          EXPECT_EQ(c.severity, BreakingSeverity::kInfo) << rule;
        }
      }
    }
  }
}

TEST(BreakingChangesTest, FieldsV2ToV3ListsEachRule) {
  auto old_contract = LoadFixture("breaking-dcs-v0.10.41/datacontract-fields-v2.yaml");
  auto new_contract = LoadFixture("breaking-dcs-v0.10.41/datacontract-fields-v3.yaml");
  if (!old_contract || !new_contract) GTEST_SKIP() << "fixtures not present";
  BreakingChangeReport report = BreakingChanges(*old_contract, *new_contract);
  std::set<std::string> errors;
  std::set<std::string> warnings;
  for (const BreakingChange& c : report.changes) {
    if (c.severity == BreakingSeverity::kError) errors.insert(c.rule + " " + c.location);
    if (c.severity == BreakingSeverity::kWarning) warnings.insert(c.rule + " " + c.location);
  }
  const std::string f = "models.my_table.fields.";
  std::set<std::string> expected_errors = {
      "field_type_updated " + f + "field_type.type",
      "field_format_updated " + f + "field_format.format",
      "field_required_updated " + f + "field_required.required",
      "field_unique_updated " + f + "field_unique.unique",
      "field_pii_updated " + f + "field_pii.pii",
      "field_classification_updated " + f + "field_classification.classification",
      "field_pattern_updated " + f + "field_pattern.pattern",
      "field_min_length_updated " + f + "field_minLength.minLength",
      "field_max_length_updated " + f + "field_maxLength.maxLength",
      "field_minimum_updated " + f + "field_minimum.minimum",
      "field_exclusive_minimum_updated " + f + "field_exclusiveMinimum.exclusiveMinimum",
      "field_maximum_updated " + f + "field_maximum.maximum",
      "field_exclusive_maximum_updated " + f + "field_exclusiveMaximum.exclusiveMaximum",
      "field_enum_updated " + f + "field_enum.enum",
      "field_type_updated " + f + "field_fields.fields.nested_field_1.type",
  };
  std::set<std::string> expected_warnings = {
      "field_primary_key_updated " + f + "field_primaryKey.primaryKey",
      "field_references_updated " + f + "field_references.references",
      "field_ref_updated " + f + "field_ref.$ref",
  };
  EXPECT_EQ(errors, expected_errors) << Listing(report);
  EXPECT_EQ(warnings, expected_warnings) << Listing(report);
  // Custom keys and descriptions are there, as info.
  EXPECT_EQ(report.Count(BreakingSeverity::kInfo), 3) << Listing(report);
  EXPECT_EQ(report.changes.size(), 21u) << Listing(report);
  EXPECT_EQ(BreakingCounts(report), "15 error, 3 warning");
  bool found = false;
  for (const BreakingChange& c : report.changes) {
    if (c.rule != "field_type_updated" || c.location != f + "field_type.type") continue;
    found = true;
    EXPECT_EQ(c.severity, BreakingSeverity::kError);
    EXPECT_EQ(c.description, "changed from `string` to `integer`");
  }
  EXPECT_TRUE(found) << Listing(report);
}

// EXPECTED.md §2: the ODCS changelog pair, classified.
TEST(BreakingChangesTest, OdcsChangelogPair) {
  auto old_contract = LoadFixture("changelog/changelog_integration_v1.yaml");
  auto new_contract = LoadFixture("changelog/changelog_integration_v2.yaml");
  if (!old_contract || !new_contract) GTEST_SKIP() << "fixtures not present";
  BreakingChangeReport report = BreakingChanges(*old_contract, *new_contract);
  EXPECT_EQ(BreakingCounts(report), "3 error, 0 warning") << Listing(report);
  EXPECT_FALSE(report.passed());
  std::set<std::string> all;
  for (const BreakingChange& c : report.changes) {
    all.insert(fmt::format("{} {} {}", BreakingSeverityName(c.severity), c.rule, c.location));
  }
  for (const char* expected : {
           "error field_removed models.orders.fields.customer_id",
           "error field_type_updated models.orders.fields.order_date.type",
           "error field_required_updated models.orders.fields.total_amount.required",
           "info model_added models.customers",
           "info field_added models.orders.fields.region",
           "info field_description_updated models.orders.fields.order_id.description",
           "info info_version_updated info.version",
           "info contract_sla_properties_updated slaProperties",
       }) {
    EXPECT_TRUE(all.count(expected)) << expected << "\n" << Listing(report);
  }
  EXPECT_EQ(report.changes.size(), 8u) << Listing(report);
  // A contract compared with itself has no changes at all.
  EXPECT_TRUE(BreakingChanges(*new_contract, *new_contract).changes.empty());
}

Contract Odcs(std::string_view properties, std::string_view object_extra = "") {
  std::string yaml = fmt::format(R"(apiVersion: v3.1.0
kind: DataContract
id: x
version: 1.0.0
status: active
schema:
  - name: t
{}    properties:
{})",
                                 object_extra, properties);
  auto c = dialects::contract::ParseOdcs(yaml);
  EXPECT_TRUE(c.has_value()) << yaml << c.error().ToString();
  return c.has_value() ? *c : Contract();
}

const BreakingChange* FindChange(const BreakingChangeReport& report, std::string_view rule) {
  for (const BreakingChange& c : report.changes) {
    if (c.rule == rule) return &c;
  }
  return nullptr;
}

TEST(BreakingChangesTest, OdcsAttributesReadAsDcs) {
  Contract old_contract = Odcs(R"(      - name: code
        logicalType: string
        physicalType: VARCHAR(10)
        logicalTypeOptions: {maxLength: 10, pattern: "^[A-Z]+$"}
        quality:
          - {type: library, metric: invalidValues, arguments: {validValues: [A, B]}}
        customProperties:
          - {property: pii, value: true}
)",
                               "    physicalName: t_v1\n");
  Contract new_contract = Odcs(R"(      - name: code
        logicalType: string
        physicalType: VARCHAR(5)
        logicalTypeOptions: {maxLength: 5, pattern: "^[A-Z]+$"}
        quality:
          - {type: library, metric: invalidValues, arguments: {validValues: [A, B, C]}}
        customProperties:
          - {property: pii, value: false}
)",
                               "    physicalName: t_v2\n");
  BreakingChangeReport report = BreakingChanges(old_contract, new_contract);
  struct Want {
    const char* rule;
    BreakingSeverity severity;
    const char* location;
  };
  for (const Want& w : {
           Want{"field_max_length_updated", BreakingSeverity::kError,
                "models.t.fields.code.maxLength"},
           Want{"field_enum_updated", BreakingSeverity::kError, "models.t.fields.code.enum"},
           Want{"field_pii_updated", BreakingSeverity::kError, "models.t.fields.code.pii"},
           Want{"field_physical_type_updated", BreakingSeverity::kError,
                "models.t.fields.code.physicalType"},
           Want{"model_physicalName_updated", BreakingSeverity::kError, "models.t.physicalName"},
       }) {
    const BreakingChange* c = FindChange(report, w.rule);
    ASSERT_NE(c, nullptr) << w.rule << "\n" << Listing(report);
    EXPECT_EQ(c->severity, w.severity) << w.rule;
    EXPECT_EQ(c->location, w.location) << w.rule;
  }
  EXPECT_EQ(FindChange(report, "field_pattern_updated"), nullptr) << Listing(report);
  const BreakingChange* physical = FindChange(report, "field_physical_type_updated");
  EXPECT_EQ(physical->description, "changed from `VARCHAR(10)` to `VARCHAR(5)`");
}

TEST(BreakingChangesTest, RequiredAddedIsInfoButUpdatedIsError) {
  Contract absent = Odcs("      - name: a\n        logicalType: string\n");
  Contract optional =
      Odcs("      - name: a\n        logicalType: string\n        required: false\n");
  Contract required =
      Odcs("      - name: a\n        logicalType: string\n        required: true\n");
  // v0.10.41 has no rule for field_required_added, so it falls back to field__added: info.
  BreakingChangeReport added = BreakingChanges(absent, optional);
  ASSERT_NE(FindChange(added, "field_required_added"), nullptr) << Listing(added);
  EXPECT_EQ(FindChange(added, "field_required_added")->severity, BreakingSeverity::kInfo);
  EXPECT_TRUE(added.passed());
  BreakingChangeReport tightened = BreakingChanges(optional, required);
  ASSERT_NE(FindChange(tightened, "field_required_updated"), nullptr);
  EXPECT_EQ(FindChange(tightened, "field_required_updated")->description,
            "changed from `false` to `true`");
  EXPECT_FALSE(tightened.passed());
  // Relaxing is an error too: v0.10.41 judged `required` in either direction.
  EXPECT_FALSE(BreakingChanges(required, optional).passed());
}

TEST(BreakingChangesTest, DcsAndItsOdcsExportHaveNoBreakingChanges) {
  auto dcs = dialects::contract::ParseDcs(R"(dataContractSpecification: 1.2.1
id: x
info: {title: T, version: 1.0.0}
models:
  t:
    type: table
    description: d
    fields:
      a:
        type: string
        required: true
        minLength: 3
        classification: restricted
        pii: true
        tags: [x]
)");
  ASSERT_TRUE(dcs.has_value()) << dcs.error().ToString();
  Contract odcs = Odcs(R"(      - name: a
        logicalType: string
        physicalType: string
        required: true
        classification: restricted
        tags: [x]
        logicalTypeOptions: {minLength: 3}
        customProperties:
          - {property: pii, value: true}
)",
                       "    physicalType: table\n    description: d\n");
  BreakingChangeReport report = BreakingChanges(*dcs, odcs);
  EXPECT_EQ(BreakingCounts(report), "0 error, 0 warning") << Listing(report);
}

TEST(BreakingChangesTest, SeedContractsCompareParsedTypes) {
  auto v1 = dialects::contract::ParseSeedContract(
      "required_columns:\n  - {name: a, type: \"decimal(10, 2)\", nullable: false}\n"
      "  - {name: b, type: int}\n");
  auto same = dialects::contract::ParseSeedContract(
      "required_columns:\n  - {name: a, type: \"decimal(10,2)\", nullable: false}\n"
      "  - {name: b, type: integer}\n");
  auto v2 = dialects::contract::ParseSeedContract(
      "required_columns:\n  - {name: a, type: \"decimal(12,2)\"}\n");
  ASSERT_TRUE(v1.has_value() && same.has_value() && v2.has_value());
  EXPECT_TRUE(BreakingChanges(*v1, *same).changes.empty()) << Listing(BreakingChanges(*v1, *same));
  BreakingChangeReport report = BreakingChanges(*v1, *v2);
  EXPECT_EQ(BreakingCounts(report), "3 error, 0 warning") << Listing(report);
  EXPECT_NE(FindChange(report, "field_type_updated"), nullptr);
  EXPECT_NE(FindChange(report, "field_required_updated"), nullptr);
  EXPECT_NE(FindChange(report, "field_removed"), nullptr);
}

TEST(BreakingChangesTest, ArraysCompareTheirItems) {
  auto v1 = dialects::contract::ParseDcs(R"(dataContractSpecification: 1.2.1
models:
  t:
    fields:
      tags:
        type: array
        items: {type: string}
)");
  auto v2 = dialects::contract::ParseDcs(R"(dataContractSpecification: 1.2.1
models:
  t:
    fields:
      tags:
        type: array
        items: {type: integer}
)");
  ASSERT_TRUE(v1.has_value() && v2.has_value());
  BreakingChangeReport report = BreakingChanges(*v1, *v2);
  ASSERT_EQ(report.changes.size(), 1u) << Listing(report);
  EXPECT_EQ(report.changes[0].rule, "field_type_updated");
  EXPECT_EQ(report.changes[0].location, "models.t.fields.tags.items.type");
}

}  // namespace
}  // namespace sluice::evolution

namespace sluice::evolution {
namespace {

// Hostile sizes must not turn quadratic: 10000 columns, checked and compared.
TEST(ContractCheckTest, WideContractsStayFast) {
  std::string dcs = "dataContractSpecification: 1.2.1\nmodels:\n  t:\n    fields:\n";
  std::string ddl;
  for (int i = 0; i < 10000; ++i) {
    dcs += fmt::format("      c{}: {{type: long, required: true}}\n", i);
    ddl += fmt::format("{}c{} BIGINT NOT NULL", i == 0 ? "" : ", ", i);
  }
  auto contract = dialects::contract::ParseDcs(dcs);
  ASSERT_TRUE(contract.has_value()) << contract.error().ToString();
  SchemaPtr schema = Ddl(ddl);
  auto report = CheckContract(*schema, *contract, schema.get());
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->ok());
  EXPECT_TRUE(BreakingChanges(*contract, *contract).changes.empty());
}

}  // namespace
}  // namespace sluice::evolution
