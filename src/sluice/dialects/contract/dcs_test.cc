#include "sluice/dialects/contract/dcs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "sluice_test_paths.h"

namespace sluice::dialects::contract {
namespace {

using schema::FieldPath;

constexpr const char* kFixtures =
    SLUICE_SHARED_DIR "/conformance/datacontract-cli-fixtures/breaking-dcs-v0.10.41";

std::optional<std::string> ReadFixture(const std::string& name) {
  std::ifstream in(std::string(kFixtures) + "/" + name, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const ColumnSpec& Spec(const ContractObject& o, const std::string& path) {
  const ColumnSpec* spec = o.FindColumn(*FieldPath::Parse(path));
  EXPECT_NE(spec, nullptr) << path;
  static const ColumnSpec kMissing;
  return spec == nullptr ? kMissing : *spec;
}

std::string TypeAt(const ContractObject& o, const std::string& path) {
  const schema::Field* f = o.schema->FindField(*FieldPath::Parse(path));
  EXPECT_NE(f, nullptr) << path;
  if (f == nullptr) return "";
  return f->type()->ToString() + (f->nullable() ? "" : " not null");
}

bool HasKey(const ColumnSpec& spec, std::string_view key) {
  return std::find(spec.keys.begin(), spec.keys.end(), key) != spec.keys.end();
}

constexpr std::string_view kOrders = R"(dataContractSpecification: 1.2.1
id: urn:orders
info:
  title: Orders
  version: 2.1.0
  status: active
  owner: checkout
models:
  orders:
    type: table
    description: One row per order.
    x-team: checkout
    fields:
      order_id:
        type: long
        required: true
        primaryKey: true
      total_amount:
        type: decimal
        precision: 10
        scale: 2
        minimum: 0
      email:
        type: string
        format: email
        pii: true
        classification: restricted
        maxLength: 320
      placed_at:
        type: timestamp_ntz
      status:
        type: string
        enum: [open, shipped]
      lines:
        type: array
        items:
          type: object
          fields:
            sku:
              type: string
              required: true
      attributes:
        type: map
        keys:
          type: string
        values:
          type: int
  customers:
    fields:
      id:
        type: string
)";

TEST(DcsTest, ReadsModelsFieldsAndTypes) {
  auto c = ParseDcs(kOrders);
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  EXPECT_EQ(c->format, ContractFormat::kDcs);
  EXPECT_EQ(c->api_version, "1.2.1");
  EXPECT_EQ(c->id, "urn:orders");
  EXPECT_EQ(c->name, "Orders");
  EXPECT_EQ(c->version, "2.1.0");
  EXPECT_EQ(c->status, "active");
  ASSERT_NE(c->other.Find("info"), nullptr);
  EXPECT_EQ(c->other.Find("info")->Find("owner")->as_string(), "checkout");
  ASSERT_EQ(c->objects.size(), 2u);
  const ContractObject& o = c->objects[0];
  EXPECT_EQ(o.name, "orders");
  EXPECT_EQ(o.physical_type, "table");
  EXPECT_EQ(o.description, "One row per order.");
  EXPECT_EQ(o.other.Find("x-team")->as_string(), "checkout");
  EXPECT_FALSE(c->objects[1].physical_type.has_value());

  EXPECT_EQ(TypeAt(o, "order_id"), "int64 not null");
  EXPECT_EQ(TypeAt(o, "total_amount"), "decimal(10,2)");
  EXPECT_EQ(TypeAt(o, "placed_at"), "timestamp_ntz");
  EXPECT_EQ(TypeAt(o, "lines"), "array<struct<sku: string not null>>");
  EXPECT_EQ(TypeAt(o, "attributes"), "map<string, int32>");

  const ColumnSpec& id = Spec(o, "order_id");
  EXPECT_EQ(id.physical_type, "long");
  EXPECT_EQ(id.logical_type, "integer");
  EXPECT_TRUE(id.required);
  EXPECT_TRUE(id.primary_key);
  const ColumnSpec& email = Spec(o, "email");
  EXPECT_EQ(email.classification, "restricted");
  EXPECT_TRUE(email.other.Find("pii")->as_bool());
  EXPECT_EQ(email.logical_type_options.Find("format")->as_string(), "email");
  EXPECT_EQ(email.logical_type_options.Find("maxLength")->as_int64(), 320);
  EXPECT_EQ(Spec(o, "total_amount").logical_type_options.Find("minimum")->as_int64(), 0);
  EXPECT_EQ(Spec(o, "status").other.Find("enum")->size(), 2u);
  EXPECT_EQ(Spec(o, "lines[]").logical_type, "object");
  EXPECT_TRUE(Spec(o, "lines[].sku").required);
  EXPECT_EQ(Spec(o, "total_amount").other.Find("precision")->as_int64(), 10);
}

TEST(DcsTest, KeysTellAFalseFromAnAbsentBoolean) {
  auto c = ParseDcs(R"(dataContractSpecification: 1.2.1
models:
  t:
    fields:
      a: {type: string, required: false, unique: false}
      b: {type: string}
)");
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  const ContractObject& o = c->objects[0];
  EXPECT_TRUE(HasKey(Spec(o, "a"), "required"));
  EXPECT_TRUE(HasKey(Spec(o, "a"), "unique"));
  EXPECT_FALSE(HasKey(Spec(o, "b"), "required"));
  EXPECT_EQ(Spec(o, "a").required, Spec(o, "b").required);
}

TEST(DcsTest, MissingAndUnknownTypesReadAsStringWithANote) {
  auto c = ParseDcs(R"(dataContractSpecification: 1.2.1
models:
  t:
    fields:
      untyped: {description: no type}
      odd: {type: geography}
      nested:
        fields:
          x: {type: int}
)");
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  const ContractObject& o = c->objects[0];
  EXPECT_EQ(TypeAt(o, "untyped"), "string");
  EXPECT_EQ(TypeAt(o, "odd"), "string");
  EXPECT_EQ(TypeAt(o, "nested"), "struct<x: int32>");
  EXPECT_FALSE(Spec(o, "untyped").physical_type.has_value());
  EXPECT_FALSE(Spec(o, "odd").logical_type.has_value());
  int notes = 0;
  for (const auto& n : o.notes) {
    if (n.path.ToString() == "untyped" || n.path.ToString() == "odd") ++notes;
  }
  EXPECT_EQ(notes, 2);
}

TEST(DcsTest, ErrorsNameTheKeyPathAndLine) {
  struct Case {
    std::string yaml;
    std::string fragment;
  };
  const Case cases[] = {
      {"dataContractSpecification: 1.2.1\nmodels: [a, b]\n", "models: expected a mapping"},
      {"dataContractSpecification: 1.2.1\nmodels:\n  t:\n    fields:\n      a: 3\n",
       "models.t.fields.a: expected a mapping"},
      {"dataContractSpecification: 1.2.1\nmodels:\n  t:\n    fields:\n      a:\n        required: "
       "maybe\n",
       "models.t.fields.a.required: expected true or false"},
      {"dataContractSpecification: 1.2.1\nmodels:\n  t:\n    fields:\n      a:\n        enum: "
       "{x: 1}\n",
       "models.t.fields.a.enum: expected a list"},
      {"dataContractSpecification: 1.2.1\nmodels:\n  t:\n    fields:\n      a:\n        "
       "minLength: long\n",
       "models.t.fields.a.minLength: expected an integer"},
      {"dataContractSpecification: 1.2.1\nmodels:\n  t:\n    type: [table]\n",
       "models.t.type: expected a string"},
      {"id: x\nmodels: {}\n", "dataContractSpecification: missing"},
      {"- a\n- b\n", "expected a mapping"},
  };
  for (const Case& c : cases) {
    auto parsed = ParseDcs(c.yaml);
    ASSERT_FALSE(parsed.has_value()) << c.yaml;
    EXPECT_EQ(parsed.error().code(), ErrorCode::kInvalidArgument) << c.yaml;
    EXPECT_NE(parsed.error().message().find(c.fragment), std::string::npos)
        << parsed.error().message();
    EXPECT_NE(parsed.error().message().find("line "), std::string::npos)
        << parsed.error().message();
  }
}

TEST(DcsTest, HostileInputFailsCleanly) {
  std::string deep = "dataContractSpecification: 1.2.1\nmodels:\n  t:\n    fields:\n";
  std::string indent = "      ";
  for (int i = 0; i < 200; ++i) {
    deep += indent + "f:\n" + indent + "  fields:\n";
    indent += "    ";
  }
  auto parsed = ParseDcs(deep);
  EXPECT_FALSE(parsed.has_value());
  EXPECT_FALSE(ParseDcs("dataContractSpecification: [\n").has_value());
  EXPECT_FALSE(ParseDcs("").has_value());
  EXPECT_FALSE(ParseDcs("dataContractSpecification: 1\nmodels: &a {x: *a}\n").has_value());
}

TEST(DcsTest, FormatsAreToldApart) {
  EXPECT_TRUE(LooksLikeDcs("dataContractSpecification: 1.2.1\nid: x\n"));
  EXPECT_TRUE(LooksLikeDcs("{\"dataContractSpecification\": \"1.2.1\"}"));
  EXPECT_FALSE(LooksLikeDcs("apiVersion: v3.1.0\nkind: DataContract\n"));
  EXPECT_FALSE(LooksLikeDcs("required_columns:\n  - name: a\n"));
  // ParseOdcs keeps refusing DCS with its own message; ParseDcs refuses ODCS.
  auto odcs = ParseOdcs("dataContractSpecification: 1.2.1\nid: x\n");
  ASSERT_FALSE(odcs.has_value());
  EXPECT_EQ(odcs.error().code(), ErrorCode::kUnimplemented);
  auto dcs = ParseDcs("apiVersion: v3.1.0\nkind: DataContract\nid: x\n");
  ASSERT_FALSE(dcs.has_value());
  EXPECT_NE(dcs.error().message().find("ParseOdcs"), std::string::npos);
}

TEST(DcsTest, ReadsTheBreakingFixtures) {
  for (const char* name : {"datacontract-fields-v1.yaml", "datacontract-fields-v2.yaml",
                           "datacontract-fields-v3.yaml", "datacontract-models-v1.yaml",
                           "datacontract-models-v2.yaml", "datacontract-models-v3.yaml"}) {
    auto text = ReadFixture(name);
    if (!text) GTEST_SKIP() << "fixture " << name << " not present";
    auto c = ParseDcs(*text);
    ASSERT_TRUE(c.has_value()) << name << ": " << c.error().ToString();
    EXPECT_FALSE(c->objects.empty()) << name;
  }
  auto text = ReadFixture("datacontract-fields-v2.yaml");
  auto c = ParseDcs(*text);
  ASSERT_TRUE(c.has_value());
  const ContractObject& o = c->objects[0];
  EXPECT_EQ(o.name, "my_table");
  EXPECT_EQ(Spec(o, "field_ref").other.Find("$ref")->as_string(), "#/definitions/my_definition");
  EXPECT_EQ(Spec(o, "field_custom_key").other.Find("custom-key")->as_string(), "some value");
  EXPECT_TRUE(HasKey(Spec(o, "field_primaryKey"), "primaryKey"));
  EXPECT_FALSE(Spec(o, "field_primaryKey").primary_key);
  EXPECT_EQ(TypeAt(o, "field_fields"), "struct<nested_field_1: string, new_nested_field: string>");
  ASSERT_NE(c->other.Find("definitions"), nullptr);
}

}  // namespace
}  // namespace sluice::dialects::contract
