#include "sluice/registry/registry.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/base/temp_dir_testing.h"
#include "sluice/registry/auth.h"

namespace sluice::registry {
namespace {

const char* kOrderV1 = R"({"type":"record","name":"Order","fields":[{"name":"id","type":"long"}]})";
const char* kOrderV2 =  // adds a field with a default: backward compatible
    R"({"type":"record","name":"Order","fields":[{"name":"id","type":"long"},)"
    R"({"name":"note","type":["null","string"],"default":null}]})";
const char* kOrderBad =  // adds a field without a default: not backward compatible
    R"({"type":"record","name":"Order","fields":[{"name":"id","type":"long"},)"
    R"({"name":"amount","type":"double"}]})";

std::string Body(std::string_view schema, std::string_view type = "") {
  std::string b = "{\"schema\":";
  AppendJsonString(b, schema);
  if (!type.empty()) {
    b += ",\"schemaType\":";
    AppendJsonString(b, type);
  }
  return b + "}";
}

// A body with `schema` and a reference to version 1 of subject "address" (acme.Address).
std::string WithRefsForward(std::string_view schema) {
  std::string b = Body(schema);
  b.pop_back();
  return b + R"(,"references":[{"name":"acme.Address","subject":"address","version":1}]})";
}

class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }
  void TearDown() override { registry_.reset(); }
  void Open() {
    registry_.reset();
    auto store = Store::Open("sqlite:" + (dir_ / "registry.db").string());
    ASSERT_TRUE(store.has_value()) << store.error().message();
    registry_ = std::make_unique<Registry>(std::move(*store));
  }
  Response Call(std::string_view method, std::string_view target, std::string_view body = "",
                const AccessPolicy* policy = nullptr) {
    return registry_->Handle({method, target, body}, policy);
  }
  JsonValue CallJson(std::string_view method, std::string_view target, std::string_view body,
                     int want_status) {
    Response r = Call(method, target, body);
    EXPECT_EQ(r.status, want_status) << method << " " << target << ": " << r.body;
    auto v = ParseJson(r.body);
    EXPECT_TRUE(v.has_value()) << r.body;
    return v.has_value() ? *v : JsonValue();
  }
  int64_t Register(std::string_view subject, std::string_view schema, std::string_view type = "") {
    JsonValue v = CallJson("POST", "/subjects/" + std::string(subject) + "/versions",
                           Body(schema, type), 200);
    const JsonValue* id = v.Find("id");
    return id ? id->as_int64().value_or(-1) : -1;
  }
  int ErrorCode(const Response& r) {
    auto v = ParseJson(r.body);
    if (!v.has_value() || !v->Find("error_code")) return 0;
    return static_cast<int>(v->Find("error_code")->as_int64().value_or(0));
  }

  sluice::testing::ScopedTempDir tmp_{"sluice_registry_test"};
  const std::filesystem::path& dir_ = tmp_.path();
  std::unique_ptr<Registry> registry_;
};

TEST_F(RegistryTest, RegisterGivesIdsAndVersions) {
  EXPECT_EQ(Register("orders-value", kOrderV1), 1);
  EXPECT_EQ(Register("orders-value", kOrderV2), 2);
  JsonValue versions = CallJson("GET", "/subjects/orders-value/versions", "", 200);
  EXPECT_EQ(ToJson(versions), "[1,2]");
  JsonValue latest = CallJson("GET", "/subjects/orders-value/versions/latest", "", 200);
  EXPECT_EQ(latest.Find("version")->as_int64(), 2);
  EXPECT_EQ(latest.Find("id")->as_int64(), 2);
  EXPECT_EQ(latest.Find("subject")->as_string(), "orders-value");
  EXPECT_EQ(latest.Find("schemaType"), nullptr);  // AVRO is left out, as Confluent 7 does
  JsonValue one = CallJson("GET", "/subjects/orders-value/versions/1", "", 200);
  EXPECT_EQ(one.Find("id")->as_int64(), 1);
  JsonValue minus = CallJson("GET", "/subjects/orders-value/versions/-1", "", 200);
  EXPECT_EQ(minus.Find("version")->as_int64(), 2);
}

TEST_F(RegistryTest, ReRegisteringReturnsTheSameIdAndNoNewVersion) {
  EXPECT_EQ(Register("a", kOrderV1), 1);
  // Whitespace and attribute order do not make another schema.
  EXPECT_EQ(Register("a", R"({ "name": "Order", "type": "record",
      "fields": [ {"type": "long", "name": "id"} ] })"),
            1);
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects/a/versions", "", 200)), "[1]");
}

TEST_F(RegistryTest, SameSchemaSameIdInEverySubject) {
  int64_t a = Register("a-value", kOrderV1);
  int64_t b = Register("b-value", kOrderV1);
  EXPECT_EQ(a, b);
  JsonValue subjects = CallJson("GET", "/schemas/ids/" + std::to_string(a) + "/subjects", "", 200);
  EXPECT_EQ(ToJson(subjects), R"(["a-value","b-value"])");
  JsonValue versions = CallJson("GET", "/schemas/ids/" + std::to_string(a) + "/versions", "", 200);
  EXPECT_EQ(ToJson(versions),
            R"([{"subject":"a-value","version":1},{"subject":"b-value","version":1}])");
}

TEST_F(RegistryTest, PrimitiveSchemaIsStoredInAvrosCompactForm) {
  int64_t id = Register("p", R"({"type":"string"})");
  JsonValue s = CallJson("GET", "/schemas/ids/" + std::to_string(id), "", 200);
  EXPECT_EQ(s.Find("schema")->as_string(), "\"string\"");
  EXPECT_EQ(Register("p", "\"string\""), id);
  Response raw = Call("GET", "/schemas/ids/" + std::to_string(id) + "/schema");
  EXPECT_EQ(raw.status, 200);
  EXPECT_EQ(raw.body, "\"string\"");
}

TEST_F(RegistryTest, IncompatibleSchemaIs409WithDetails) {
  Register("orders-value", kOrderV1);
  Response r = Call("POST", "/subjects/orders-value/versions", Body(kOrderBad));
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(ErrorCode(r), 409);
  EXPECT_NE(r.body.find("READER_FIELD_MISSING_DEFAULT_VALUE"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("compatibility: 'BACKWARD'"), std::string::npos) << r.body;
  // Nothing was registered.
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects/orders-value/versions", "", 200)), "[1]");
  // With NONE it goes through.
  CallJson("PUT", "/config/orders-value", R"({"compatibility":"NONE"})", 200);
  EXPECT_EQ(Register("orders-value", kOrderBad), 2);
}

TEST_F(RegistryTest, TransitiveModesCheckEveryLiveVersion) {
  // v1 -> v2 drops nothing; v3 drops the default that v1 needs under FORWARD_TRANSITIVE.
  CallJson("PUT", "/config/t", R"({"compatibility":"forward_transitive"})", 200);
  EXPECT_EQ(CallJson("GET", "/config/t", "", 200).Find("compatibilityLevel")->as_string(),
            "FORWARD_TRANSITIVE");
  const char* v1 = R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})";
  const char* v2 =
      R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":0}]})";
  const char* v3 = R"({"type":"record","name":"R","fields":[]})";
  Register("t", v1);
  // Under FORWARD the old schema must read new data: v2 keeps a, fine.
  Register("t", v2);
  // v3 removes a: v2 (default 0) could read it, v1 (no default) cannot.
  Response r = Call("POST", "/subjects/t/versions", Body(v3));
  EXPECT_EQ(r.status, 409) << r.body;
  CallJson("PUT", "/config/t", R"({"compatibility":"FORWARD"})", 200);
  EXPECT_EQ(Call("POST", "/subjects/t/versions", Body(v3)).status, 200);
}

TEST_F(RegistryTest, CompatibilityEndpoint) {
  // A missing subject with "latest" is compatible.
  JsonValue none =
      CallJson("POST", "/compatibility/subjects/x/versions/latest", Body(kOrderV1), 200);
  EXPECT_EQ(ToJson(none), R"({"is_compatible":true})");
  Register("x", kOrderV1);
  EXPECT_EQ(
      ToJson(CallJson("POST", "/compatibility/subjects/x/versions/latest", Body(kOrderV2), 200)),
      R"({"is_compatible":true})");
  JsonValue bad =
      CallJson("POST", "/compatibility/subjects/x/versions?verbose=true", Body(kOrderBad), 200);
  EXPECT_FALSE(bad.Find("is_compatible")->as_bool());
  ASSERT_TRUE(bad.Find("messages"));
  EXPECT_GE(bad.Find("messages")->items().size(), 2u);
  // Without verbose there are no messages.
  JsonValue quiet = CallJson("POST", "/compatibility/subjects/x/versions/1", Body(kOrderBad), 200);
  EXPECT_EQ(quiet.Find("messages"), nullptr);
  EXPECT_EQ(ErrorCode(Call("POST", "/compatibility/subjects/x/versions/7", Body(kOrderV1))), 40402);
  // Invalid schema: 42201, or a message with verbose.
  EXPECT_EQ(ErrorCode(Call("POST", "/compatibility/subjects/x/versions", Body("{\"type\":"))),
            42201);
  JsonValue verbose_bad = CallJson("POST", "/compatibility/subjects/x/versions?verbose=true",
                                   Body("{\"type\":\"nope\"}"), 200);
  EXPECT_FALSE(verbose_bad.Find("is_compatible")->as_bool());
}

TEST_F(RegistryTest, LookupFindsTheVersion) {
  Register("l", kOrderV1);
  Register("l", kOrderV2);
  JsonValue found = CallJson("POST", "/subjects/l", Body(kOrderV1), 200);
  EXPECT_EQ(found.Find("version")->as_int64(), 1);
  EXPECT_EQ(found.Find("id")->as_int64(), 1);
  EXPECT_EQ(ErrorCode(Call("POST", "/subjects/l", Body(kOrderBad))), 40403);
  EXPECT_EQ(ErrorCode(Call("POST", "/subjects/missing", Body(kOrderV1))), 40401);
}

TEST_F(RegistryTest, NotFoundCodes) {
  EXPECT_EQ(ErrorCode(Call("GET", "/subjects/nope/versions")), 40401);
  EXPECT_EQ(ErrorCode(Call("GET", "/subjects/nope/versions/1")), 40401);
  Register("s", kOrderV1);
  EXPECT_EQ(ErrorCode(Call("GET", "/subjects/s/versions/2")), 40402);
  Response bad_version = Call("GET", "/subjects/s/versions/0");
  EXPECT_EQ(bad_version.status, 422);
  EXPECT_EQ(ErrorCode(bad_version), 42202);
  EXPECT_EQ(ErrorCode(Call("GET", "/subjects/s/versions/abc")), 42202);
  Response missing_id = Call("GET", "/schemas/ids/99");
  EXPECT_EQ(missing_id.status, 404);
  EXPECT_EQ(ErrorCode(missing_id), 40403);
  Response unknown = Call("GET", "/nothing/here");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(ErrorCode(unknown), 404);
  EXPECT_EQ(Call("PATCH", "/subjects").status, 405);
}

TEST_F(RegistryTest, SoftThenHardDelete) {
  Register("d", kOrderV1);
  Register("d", kOrderV2);
  // Hard delete first is refused.
  EXPECT_EQ(ErrorCode(Call("DELETE", "/subjects/d/versions/1?permanent=true")), 40407);
  EXPECT_EQ(ErrorCode(Call("DELETE", "/subjects/d?permanent=true")), 40405);
  Response soft = Call("DELETE", "/subjects/d/versions/1");
  EXPECT_EQ(soft.status, 200);
  EXPECT_EQ(soft.body, "1");
  EXPECT_EQ(ErrorCode(Call("DELETE", "/subjects/d/versions/1")), 40406);
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects/d/versions", "", 200)), "[2]");
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects/d/versions?deleted=true", "", 200)), "[1,2]");
  // A soft-deleted version's id still resolves: old data stays readable.
  EXPECT_EQ(Call("GET", "/schemas/ids/1").status, 200);
  EXPECT_EQ(ErrorCode(Call("GET", "/subjects/d/versions/1")), 40402);
  EXPECT_EQ(Call("GET", "/subjects/d/versions/1?deleted=true").status, 200);
  // Subject soft delete lists the versions it deleted.
  Response sub = Call("DELETE", "/subjects/d");
  EXPECT_EQ(sub.body, "[2]");
  EXPECT_EQ(ErrorCode(Call("DELETE", "/subjects/d")), 40404);
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects", "", 200)), "[]");
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects?deleted=True", "", 200)), R"(["d"])");
  Response hard = Call("DELETE", "/subjects/d?permanent=true");
  EXPECT_EQ(hard.body, "[1,2]");
  EXPECT_EQ(ErrorCode(Call("GET", "/schemas/ids/1")), 40403);
  EXPECT_EQ(ErrorCode(Call("GET", "/subjects/d/versions?deleted=true")), 40401);
  // Ids are never reused: the next schema gets 3, even the same text again.
  EXPECT_EQ(Register("d", kOrderV1), 3);
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects/d/versions", "", 200)), "[1]");
}

TEST_F(RegistryTest, VersionNumbersContinueAfterSoftDelete) {
  Register("n", kOrderV1);
  Call("DELETE", "/subjects/n");
  EXPECT_EQ(Register("n", kOrderV1), 1);  // the same id again, as a new version
  JsonValue latest = CallJson("GET", "/subjects/n/versions/latest", "", 200);
  EXPECT_EQ(latest.Find("version")->as_int64(), 2);
}

TEST_F(RegistryTest, ConfigForUnsetSubjectIs40408) {
  Response r = Call("GET", "/config/new-subject");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(ErrorCode(r), 40408);
  JsonValue global = CallJson("GET", "/config/new-subject?defaultToGlobal=true", "", 200);
  EXPECT_EQ(global.Find("compatibilityLevel")->as_string(), "BACKWARD");
  // Setting a subject's config works before it exists (kafkajs does this).
  JsonValue put = CallJson("PUT", "/config/new-subject", R"({"compatibility":"full"})", 200);
  EXPECT_EQ(ToJson(put), R"({"compatibility":"FULL"})");
  EXPECT_EQ(ErrorCode(Call("PUT", "/config", R"({"compatibility":"SIDEWAYS"})")), 42203);
  CallJson("PUT", "/config", R"({"compatibility":"NONE"})", 200);
  EXPECT_EQ(CallJson("GET", "/config", "", 200).Find("compatibilityLevel")->as_string(), "NONE");
  CallJson("DELETE", "/config", "", 200);
  EXPECT_EQ(CallJson("GET", "/config", "", 200).Find("compatibilityLevel")->as_string(),
            "BACKWARD");
}

TEST_F(RegistryTest, ModesGuardWrites) {
  CallJson("PUT", "/mode/ro", R"({"mode":"READONLY"})", 200);
  Response r = Call("POST", "/subjects/ro/versions", Body(kOrderV1));
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(ErrorCode(r), 42205);
  EXPECT_EQ(ErrorCode(Call("GET", "/mode/other")), 40409);
  EXPECT_EQ(CallJson("GET", "/mode", "", 200).Find("mode")->as_string(), "READWRITE");
  EXPECT_EQ(ErrorCode(Call("PUT", "/mode", R"({"mode":"SIDEWAYS"})")), 42204);
  EXPECT_EQ(ErrorCode(Call("PUT", "/mode/x", R"({"mode":"FORWARD"})")), 42204);
  // An id outside IMPORT mode is refused.
  std::string with_id = R"({"schema":"\"int\"","id":42})";
  EXPECT_EQ(ErrorCode(Call("POST", "/subjects/imp/versions", with_id)), 42205);
}

TEST_F(RegistryTest, ImportModeKeepsGivenIds) {
  CallJson("PUT", "/mode", R"({"mode":"IMPORT"})", 200);
  JsonValue r = CallJson("POST", "/subjects/imp/versions",
                         R"({"schema":"\"int\"","id":42,"version":3})", 200);
  EXPECT_EQ(r.Find("id")->as_int64(), 42);
  EXPECT_EQ(CallJson("GET", "/subjects/imp/versions/latest", "", 200).Find("version")->as_int64(),
            3);
  // The same id for another schema is refused.
  EXPECT_EQ(ErrorCode(Call("POST", "/subjects/imp2/versions", R"({"schema":"\"long\"","id":42})")),
            42205);
  // Importing into a non-empty registry needs force.
  CallJson("PUT", "/mode", R"({"mode":"READWRITE"})", 200);
  EXPECT_EQ(ErrorCode(Call("PUT", "/mode", R"({"mode":"IMPORT"})")), 42205);
  CallJson("PUT", "/mode?force=true", R"({"mode":"IMPORT"})", 200);
  CallJson("PUT", "/mode", R"({"mode":"READWRITE"})", 200);
  // New ids continue above the imported one.
  EXPECT_EQ(Register("fresh", "\"long\""), 43);
}

TEST_F(RegistryTest, JsonSchemaSubjects) {
  const char* v1 = R"({"type":"object","properties":{"a":{"type":"string"}}})";
  const char* v2 =  // adding an optional property to an open model: STRICT says incompatible
      R"({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}})";
  int64_t id = Register("j", v1, "JSON");
  JsonValue got = CallJson("GET", "/schemas/ids/" + std::to_string(id), "", 200);
  EXPECT_EQ(got.Find("schemaType")->as_string(), "JSON");
  Response r = Call("POST", "/subjects/j/versions", Body(v2, "JSON"));
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_NE(r.body.find("PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"), std::string::npos) << r.body;
  // Another type than the subject's versions is incompatible.
  Response other = Call("POST", "/subjects/j/versions", Body("\"string\""));
  EXPECT_EQ(other.status, 409);
  EXPECT_NE(other.body.find("different schema type"), std::string::npos) << other.body;
}

TEST_F(RegistryTest, BadInputGets4xx) {
  EXPECT_EQ(Call("POST", "/subjects/b/versions", "{not json").status, 400);
  EXPECT_EQ(Call("POST", "/subjects/b/versions", "").status, 400);
  EXPECT_EQ(Call("POST", "/subjects/b/versions", "[1]").status, 422);
  EXPECT_EQ(Call("POST", "/subjects/b/versions", R"({"schema":5})").status, 422);
  EXPECT_EQ(ErrorCode(Call("POST", "/subjects/b/versions", R"({"schema":""})")), 42201);
  EXPECT_EQ(ErrorCode(Call("POST", "/subjects/b/versions", Body("{\"type\":\"nope\"}"))), 42201);
  EXPECT_EQ(
      ErrorCode(Call("POST", "/subjects/b/versions", Body("syntax = \"proto3\";", "PROTOBUF"))),
      42201);
  EXPECT_EQ(ErrorCode(Call("POST", "/subjects/b/versions", Body("\"int\"", "XML"))), 42201);
  // Unknown fields are ignored, as every Confluent entity does.
  EXPECT_EQ(Call("POST", "/subjects/b/versions", R"({"schema":"\"int\"","colour":"blue"})").status,
            200);
  // A schema nested deeper than the limit is an invalid schema, not a crash.
  std::string deep(200, '[');
  deep += std::string(200, ']');
  EXPECT_EQ(ErrorCode(Call("POST", "/subjects/b/versions", Body(deep))), 42201);
  // An invalid subject name.
  EXPECT_EQ(ErrorCode(Call("GET", "/subjects/a%01b/versions")), 42208);
}

// The registry's depth limit (128 JSON levels by default) holds at its boundary, whichever parse
// meets it first.
TEST_F(RegistryTest, DepthLimitBoundary) {
  auto nested_arrays = [](int k) {
    std::string s = R"({"type":"record","name":"R","fields":[{"name":"a","type":)";
    for (int i = 0; i < k; ++i) s += R"({"type":"array","items":)";
    s += "\"int\"";
    s += std::string(k, '}');
    return s + "}]}";
  };
  // The innermost "int" is at level 3 + k.
  EXPECT_EQ(Register("deep", nested_arrays(124)), 1);
  Response r = Call("POST", "/subjects/deep2/versions", Body(nested_arrays(125)));
  EXPECT_EQ(ErrorCode(r), 42201);
  EXPECT_NE(r.body.find("Invalid schema of type AVRO, details: line 1, column 3042 (offset "
                        "3041): nesting deeper than 128 levels"),
            std::string::npos)
      << r.body;
  // A text that only looks deep (brackets in strings) is as shallow as it is.
  std::string doc(300, '[');
  EXPECT_EQ(Register("shallow", R"({"type":"string","doc":")" + doc + R"("})"), 2);
}

// Errors come in Confluent's order: a read-only subject refuses the write before the schema is
// looked at; a malformed member is reported before the schema is parsed.
TEST_F(RegistryTest, ErrorsComeInConfluentsOrder) {
  CallJson("PUT", "/mode/ro", R"({"mode":"READONLY"})", 200);
  EXPECT_EQ(ErrorCode(Call("POST", "/subjects/ro/versions", R"({"schema":5})")), 42205);
  EXPECT_EQ(ErrorCode(Call("POST", "/subjects/ro/versions", Body("{\"type\":"))), 42205);
  // A member of the wrong type in a registration's id comes before the mode.
  EXPECT_EQ(ErrorCode(Call("POST", "/subjects/ro/versions", R"({"schema":"\"int\"","id":"x"})")),
            422);
  Response r = Call("POST", "/subjects/w/versions",
                    R"({"schemaType":5,"schema":5,"references":[{"name":"x"}]})");
  EXPECT_EQ(ErrorCode(r), 42201) << r.body;  // the references first
  r = Call("POST", "/subjects/w/versions", R"({"schemaType":5,"schema":5})");
  EXPECT_EQ(r.body, R"({"error_code":422,"message":"schemaType must be a string"})");
  // An empty schema stands for the latest one, with its type: the request's type is not used.
  Register("w", kOrderV1);
  EXPECT_EQ(ToJson(CallJson("POST", "/subjects/w/versions", R"({"schemaType":"XML"})", 200)),
            R"({"id":1})");
}

// A registration's schema is parsed once and its parsed form kept for the checks that follow;
// after a restart the stored text is parsed instead. Both give the same verdicts and messages.
TEST_F(RegistryTest, ChecksAgainstARegisteredSchemaAreTheSameAfterARestart) {
  EXPECT_EQ(
      Register(
          "address",
          R"({"type":"record","name":"Address","namespace":"acme","fields":[{"name":"city","type":"string"}]})"),
      1);
  CallJson(
      "POST", "/subjects/customer/versions",
      WithRefsForward(
          R"({"type":"record","name":"Customer","namespace":"acme","fields":[{"name":"id","type":"long"},{"name":"home","type":"acme.Address"}]})"),
      200);
  Register("orders", kOrderV1);
  Register("j", R"({"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}}})",
           "JSON");
  auto answers = [&] {
    std::vector<std::string> out;
    out.push_back(Call("POST", "/subjects/orders/versions", Body(kOrderBad)).body);
    out.push_back(
        Call("POST", "/compatibility/subjects/orders/versions?verbose=true", Body(kOrderV2)).body);
    out.push_back(
        Call(
            "POST", "/compatibility/subjects/customer/versions?verbose=true",
            WithRefsForward(
                R"({"type":"record","name":"Customer","namespace":"acme","fields":[{"name":"home","type":"acme.Address"}]})"))
            .body);
    out.push_back(Call("POST", "/compatibility/subjects/j/versions?verbose=true",
                       Body(R"({"type":"object","properties":{"a":{"type":"integer"}}})", "JSON"))
                      .body);
    return out;
  };
  const std::vector<std::string> warm = answers();
  EXPECT_NE(warm[0].find("READER_FIELD_MISSING_DEFAULT_VALUE"), std::string::npos) << warm[0];
  EXPECT_EQ(warm[1], R"({"is_compatible":true,"messages":[]})");
  Open();
  EXPECT_EQ(answers(), warm);
}

TEST_F(RegistryTest, EncodedSubjectNames) {
  EXPECT_EQ(Register("team%2Forders", kOrderV1), 1);
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects", "", 200)), R"(["team/orders"])");
  EXPECT_EQ(Call("GET", "/subjects/team%2Forders/versions/1").status, 200);
}

// Found by the fuzz target: a subject that is not UTF-8 was echoed into the error message as
// raw bytes, so the answer was not JSON.
TEST_F(RegistryTest, ErrorsQuotingBadBytesAreStillJson) {
  for (std::string_view target :
       {"/subjects/a%FFb/versions", "/subjects/\xa6\xf2/versions", "/subjects/x/versions/%C3"}) {
    Response r = Call("GET", target);
    EXPECT_EQ(r.status / 100, 4) << target;
    auto v = ParseJson(r.body);
    ASSERT_TRUE(v.has_value()) << target << ": " << r.body;
    EXPECT_NE(ErrorCode(r), 0) << r.body;
  }
  Response r = Call("GET", "/subjects/a%FFb/versions");
  EXPECT_EQ(ErrorCode(r), 42208);
  EXPECT_NE(r.body.find("a\xEF\xBF\xBD"
                        "b"),
            std::string::npos)
      << r.body;
}

// Confluent's schema references: a record type defined under one subject, used by name in
// another.
std::string WithRefs(std::string_view schema, std::string_view refs) {
  std::string b = Body(schema);
  b.pop_back();
  return b + ",\"references\":" + std::string(refs) + "}";
}

constexpr const char* kAddress =
    R"({"type":"record","name":"Address","namespace":"acme","fields":[{"name":"city","type":"string"}]})";
constexpr const char* kCustomer =
    R"({"type":"record","name":"Customer","namespace":"acme","fields":[{"name":"id","type":"long"},{"name":"home","type":"acme.Address"}]})";
constexpr const char* kAddressRef = R"([{"name":"acme.Address","subject":"address","version":1}])";

TEST_F(RegistryTest, ReferencesResolveNamedTypesFromOtherSubjects) {
  EXPECT_EQ(Register("address", kAddress), 1);
  // Without the reference the name is unknown.
  Response r = Call("POST", "/subjects/customer/versions", Body(kCustomer));
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(ErrorCode(r), 42201);
  JsonValue v =
      CallJson("POST", "/subjects/customer/versions", WithRefs(kCustomer, kAddressRef), 200);
  EXPECT_EQ(ToJson(v), R"({"id":2})");
  // Idempotent, and the references are part of what makes the schema the same.
  EXPECT_EQ(ToJson(CallJson("POST", "/subjects/customer/versions", WithRefs(kCustomer, kAddressRef),
                            200)),
            R"({"id":2})");
  JsonValue got = CallJson("GET", "/schemas/ids/2", "", 200);
  EXPECT_EQ(got.Find("schema")->as_string(), kCustomer);  // the request's own text
  EXPECT_EQ(ToJson(*got.Find("references")), kAddressRef);
  JsonValue ver = CallJson("GET", "/subjects/customer/versions/latest", "", 200);
  EXPECT_EQ(ToJson(*ver.Find("references")), kAddressRef);
  // Lookup needs the same references.
  EXPECT_EQ(CallJson("POST", "/subjects/customer", WithRefs(kCustomer, kAddressRef), 200)
                .Find("id")
                ->as_int64(),
            2);
  EXPECT_EQ(ErrorCode(Call("POST", "/subjects/customer", Body(kCustomer))), 42201);
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects/address/versions/1/referencedby", "", 200)), "[2]");
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects/customer/versions/1/referencedby", "", 200)), "[]");
}

TEST_F(RegistryTest, ReferencesAreCheckedAndResolved) {
  EXPECT_EQ(Register("address", kAddress), 1);
  for (std::string_view refs : {R"([{"name":"acme.Address","subject":"address","version":2}])",
                                R"([{"name":"acme.Address","subject":"nowhere","version":1}])",
                                R"([{"name":"acme.Address","subject":"address"}])",
                                R"([{"subject":"address","version":1}])", R"([7])"}) {
    Response r = Call("POST", "/subjects/customer/versions", WithRefs(kCustomer, refs));
    EXPECT_EQ(r.status, 422) << refs << ": " << r.body;
    EXPECT_EQ(ErrorCode(r), 42201) << refs;
  }
  EXPECT_EQ(
      ErrorCode(Call("POST", "/subjects/customer/versions", WithRefs(kCustomer, R"({"a":1})"))),
      422);
  // -1 names the latest version; what is stored names it by number.
  JsonValue v = CallJson(
      "POST", "/subjects/customer/versions",
      WithRefs(kCustomer, R"([{"name":"acme.Address","subject":"address","version":-1}])"), 200);
  EXPECT_EQ(ToJson(*CallJson("GET", "/schemas/ids/2", "", 200).Find("references")), kAddressRef);
  // A reference must name a schema of the referring schema's own type.
  std::string json_body = WithRefs(R"({"type":"object"})", kAddressRef);
  json_body.insert(1, R"("schemaType":"JSON",)");
  Response r = Call("POST", "/subjects/j/versions", json_body);
  EXPECT_EQ(ErrorCode(r), 42201);
  EXPECT_NE(r.body.find("names a AVRO schema, not JSON"), std::string::npos) << r.body;
}

std::string JsonBody(std::string_view schema, std::string_view refs) {
  std::string b = WithRefs(schema, refs);
  b.insert(1, R"("schemaType":"JSON",)");
  return b;
}

// JSON Schema references: `$ref` by the reference's name, with or without a fragment.
TEST_F(RegistryTest, JsonSchemaReferences) {
  const char* address =
      R"({"type":"object","properties":{"city":{"type":"string"},"zip":{"$ref":"#/definitions/zip"}},"definitions":{"zip":{"type":"string"}}})";
  EXPECT_EQ(Register("address-json", address, "JSON"), 1);
  const char* customer =
      R"({"type":"object","properties":{"home":{"$ref":"address.json"},"zip":{"$ref":"address.json#/definitions/zip"}},"additionalProperties":false})";
  const char* refs = R"([{"name":"address.json","subject":"address-json","version":1}])";
  JsonValue v = CallJson("POST", "/subjects/customer-json/versions", JsonBody(customer, refs), 200);
  EXPECT_EQ(ToJson(v), R"({"id":2})");
  JsonValue got = CallJson("GET", "/schemas/ids/2", "", 200);
  EXPECT_EQ(got.Find("schemaType")->as_string(), "JSON");
  EXPECT_EQ(ToJson(*got.Find("references")), refs);
  // The referenced types take part in compatibility checks: narrowing the referenced zip code
  // through a new version of address is seen in customer.
  const char* customer_v2 =
      R"({"type":"object","properties":{"home":{"$ref":"address.json"},"zip":{"$ref":"address.json#/definitions/zip"},"note":{"type":"string"}},"additionalProperties":false})";
  EXPECT_EQ(ToJson(CallJson("POST", "/compatibility/subjects/customer-json/versions/latest",
                            JsonBody(customer_v2, refs), 200)),
            R"({"is_compatible":true})");
  const char* address_v2 =
      R"({"type":"object","properties":{"city":{"type":"string"},"zip":{"$ref":"#/definitions/zip"}},"definitions":{"zip":{"type":"integer"}}})";
  CallJson("PUT", "/config/address-json", R"({"compatibility":"NONE"})", 200);
  EXPECT_EQ(Register("address-json", address_v2, "JSON"), 3);
  const char* refs_v2 = R"([{"name":"address.json","subject":"address-json","version":2}])";
  JsonValue no = CallJson("POST", "/compatibility/subjects/customer-json/versions/latest",
                          JsonBody(customer, refs_v2), 200);
  EXPECT_EQ(ToJson(no), R"({"is_compatible":false})");
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects/address-json/versions/1/referencedby", "", 200)),
            "[2]");
}

// A type reached through two references (directly under another reference name, and through
// another referenced schema) is defined once.
TEST_F(RegistryTest, ReferencesReachingOneSchemaTwice) {
  EXPECT_EQ(Register("address", kAddress), 1);
  const char* site =
      R"({"type":"record","name":"Site","namespace":"acme","fields":[{"name":"at","type":"acme.Address"}]})";
  CallJson("POST", "/subjects/site/versions", WithRefs(site, kAddressRef), 200);
  const char* both =
      R"({"type":"record","name":"Both","namespace":"acme","fields":[{"name":"s","type":"acme.Site"},{"name":"a","type":"acme.Address"}]})";
  JsonValue v = CallJson(
      "POST", "/subjects/both/versions",
      WithRefs(
          both,
          R"([{"name":"acme.Site","subject":"site","version":1},{"name":"address.avsc","subject":"address","version":1}])"),
      200);
  EXPECT_EQ(ToJson(v), R"({"id":3})");
}

TEST_F(RegistryTest, CompatibilityOfSchemasWithReferences) {
  EXPECT_EQ(Register("address", kAddress), 1);
  CallJson("POST", "/subjects/customer/versions", WithRefs(kCustomer, kAddressRef), 200);
  // v2 adds a field with a default: backward compatible, checked with the referenced type in.
  const std::string v2 =
      R"({"type":"record","name":"Customer","namespace":"acme","fields":[{"name":"id","type":"long"},{"name":"home","type":"acme.Address"},{"name":"work","type":["null","acme.Address"],"default":null}]})";
  JsonValue ok = CallJson("POST", "/compatibility/subjects/customer/versions/latest",
                          WithRefs(v2, kAddressRef), 200);
  EXPECT_EQ(ToJson(ok), R"({"is_compatible":true})");
  // A new address version without a default for its new field is not compatible for readers of
  // customer v1 reading through address v2.
  EXPECT_EQ(
      Register(
          "address",
          R"({"type":"record","name":"Address","namespace":"acme","fields":[{"name":"city","type":"string"},{"name":"zip","type":"string","default":""}]})"),
      3);
  const std::string bad =
      R"({"type":"record","name":"Customer","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"home","type":"acme.Address"}]})";
  JsonValue no =
      CallJson("POST", "/compatibility/subjects/customer/versions/latest",
               WithRefs(bad, R"([{"name":"acme.Address","subject":"address","version":2}])"), 200);
  EXPECT_EQ(ToJson(no), R"({"is_compatible":false})");
  EXPECT_EQ(
      CallJson("POST", "/subjects/customer/versions",
               WithRefs(v2, R"([{"name":"acme.Address","subject":"address","version":2}])"), 200)
          .Find("id")
          ->as_int64(),
      4);
}

TEST_F(RegistryTest, ReferencedVersionsCannotBeDeleted) {
  EXPECT_EQ(Register("address", kAddress), 1);
  CallJson("POST", "/subjects/customer/versions", WithRefs(kCustomer, kAddressRef), 200);
  Response r = Call("DELETE", "/subjects/address/versions/1");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(ErrorCode(r), 42206);
  EXPECT_EQ(ErrorCode(Call("DELETE", "/subjects/address")), 42206);
  // Once the referrer is soft-deleted the version may be soft-deleted, but not removed: the
  // referrer's id still resolves and needs it.
  EXPECT_EQ(Call("DELETE", "/subjects/customer").status, 200);
  EXPECT_EQ(Call("DELETE", "/subjects/address/versions/1").status, 200);
  EXPECT_EQ(ErrorCode(Call("DELETE", "/subjects/address/versions/1?permanent=true")), 42206);
  EXPECT_EQ(Call("DELETE", "/subjects/customer?permanent=true").status, 200);
  EXPECT_EQ(Call("DELETE", "/subjects/address/versions/1?permanent=true").status, 200);
}

TEST_F(RegistryTest, SubjectPrefixAndFetchMaxId) {
  Register("orders-key", "\"string\"");
  Register("orders-value", kOrderV1);
  Register("users-value", kOrderV2);
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects?subjectPrefix=orders", "", 200)),
            R"(["orders-key","orders-value"])");
  JsonValue s = CallJson("GET", "/schemas/ids/1?fetchMaxId=true", "", 200);
  EXPECT_EQ(s.Find("maxId")->as_int64(), 3);
}

TEST_F(RegistryTest, RestartLosesNothing) {
  Register("r", kOrderV1);
  Register("r", kOrderV2);
  CallJson("PUT", "/config/r", R"({"compatibility":"FULL"})", 200);
  Open();
  EXPECT_EQ(ToJson(CallJson("GET", "/subjects/r/versions", "", 200)), "[1,2]");
  EXPECT_EQ(CallJson("GET", "/config/r", "", 200).Find("compatibilityLevel")->as_string(), "FULL");
  EXPECT_EQ(Register("other", "\"bytes\""), 3);
}

class PrefixPolicy : public AccessPolicy {
 public:
  bool Allows(Permission p, std::string_view subject) const override {
    if (p == Permission::kAdmin) return false;
    return subject.starts_with("orders-") && (p == Permission::kRead || subject != "orders-ro");
  }
};

TEST_F(RegistryTest, PolicyDecidesPerSubject) {
  PrefixPolicy policy;
  EXPECT_EQ(Call("POST", "/subjects/orders-value/versions", Body(kOrderV1), &policy).status, 200);
  Response denied = Call("POST", "/subjects/users-value/versions", Body(kOrderV1), &policy);
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(Call("POST", "/subjects/orders-ro/versions", Body(kOrderV1), &policy).status, 403);
  EXPECT_EQ(Call("PUT", "/config", R"({"compatibility":"NONE"})", &policy).status, 403);
  EXPECT_EQ(Call("DELETE", "/subjects/orders-value", "", &policy).status, 403);
  Register("users-value", kOrderV2);  // without a policy
  EXPECT_EQ(Call("GET", "/subjects", "", &policy).body, R"(["orders-value"])");
  EXPECT_EQ(Call("GET", "/schemas/ids/1", "", &policy).status, 200);
  EXPECT_EQ(Call("GET", "/schemas/ids/2", "", &policy).status, 403);
}

TEST(StoreTest, UnknownStoreSpecIsAClearError) {
  auto s = Store::Open("mysql://x");
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().message().find("sqlite:PATH"), std::string::npos);
}

TEST(StoreTest, InMemorySqlite) {
  auto s = Store::Open("sqlite::memory:");
  ASSERT_TRUE(s.has_value()) << s.error().message();
  Registry r(std::move(*s));
  Response reg = r.Handle({"POST", "/subjects/m/versions", R"({"schema":"\"int\""})"});
  EXPECT_EQ(reg.body, R"({"id":1})");
  EXPECT_EQ(r.Handle({"GET", "/subjects", ""}).body, R"(["m"])");
}

// Users and passwords, as the server checks an Authorization header.
class UsersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto hash = HashPassword("s3cret", 1000);
    ASSERT_TRUE(hash.has_value()) << hash.error().message();
    auto users = Users::Parse(R"({"users":[{"name":"ci","password":")" + *hash +
                              R"(","permissions":[{"prefix":"orders-","permission":"write"}]}]})");
    ASSERT_TRUE(users.has_value()) << users.error().message();
    users_ = std::move(*users);
  }
  static std::string Header(std::string_view scheme, std::string_view credentials) {
    return std::string(scheme) + " " + Base64Encode(credentials);
  }
  std::unique_ptr<Users> users_;
};

TEST_F(UsersTest, OnlyTheRightPasswordAuthenticates) {
  const UserPolicy* who = users_->Authenticate(Header("Basic", "ci:s3cret"));
  ASSERT_NE(who, nullptr);
  EXPECT_EQ(who->name(), "ci");
  EXPECT_NE(users_->Authenticate(Header("bAsIc", "ci:s3cret")), nullptr);  // RFC 7617
  EXPECT_EQ(users_->Authenticate(Header("Basic", "ci:s3cre")), nullptr);
  EXPECT_EQ(users_->Authenticate(Header("Basic", "ci:s3crett")), nullptr);
  EXPECT_EQ(users_->Authenticate(Header("Basic", "CI:s3cret")), nullptr);
  EXPECT_EQ(users_->Authenticate(Header("Bearer", "ci:s3cret")), nullptr);
  EXPECT_EQ(users_->Authenticate("Basic !!!"), nullptr);
  EXPECT_EQ(users_->Authenticate(""), nullptr);
}

// Found by the fuzz target: HMAC pads keys with zero bytes, so a trailing NUL gave the same hash.
TEST_F(UsersTest, PasswordsWithNulBytesAreRefused) {
  EXPECT_EQ(users_->Authenticate(Header("Basic", std::string_view("ci:s3cret\0", 10))), nullptr);
  EXPECT_FALSE(HashPassword(std::string_view("a\0b", 3), 1000).has_value());
}

TEST_F(UsersTest, PermissionsGoByPrefixAndStrength) {
  const UserPolicy* who = users_->Authenticate(Header("Basic", "ci:s3cret"));
  ASSERT_NE(who, nullptr);
  EXPECT_TRUE(who->Allows(Permission::kRead, "orders-value"));
  EXPECT_TRUE(who->Allows(Permission::kWrite, "orders-value"));
  EXPECT_FALSE(who->Allows(Permission::kAdmin, "orders-value"));
  EXPECT_FALSE(who->Allows(Permission::kRead, "users-value"));
  EXPECT_FALSE(who->Allows(Permission::kRead, ""));  // the registry as a whole
}

TEST_F(UsersTest, LoadsTheUsersFileFromTheCallersFileSystem) {
  auto hash = HashPassword("pw", 1000);
  ASSERT_TRUE(hash.has_value());
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("/etc/sluice/users.json",
                           R"({"users":[{"name":"u","password":")" + *hash +
                               R"(","permissions":[{"prefix":"*","permission":"admin"}]}]})")
                  .has_value());
  auto users = Users::Load(fs, "/etc/sluice/users.json");
  ASSERT_TRUE(users.has_value()) << users.error().message();
  const UserPolicy* who = (*users)->Authenticate(Header("Basic", "u:pw"));
  ASSERT_NE(who, nullptr);
  EXPECT_TRUE(who->Allows(Permission::kAdmin, ""));
  // A missing file and a bad one are errors that name the path.
  auto missing = Users::Load(fs, "/etc/sluice/nope.json");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  ASSERT_TRUE(fs.WriteFile("/bad.json", "[]").has_value());
  auto bad = Users::Load(fs, "/bad.json");
  ASSERT_FALSE(bad.has_value());
  EXPECT_TRUE(bad.error().message().starts_with("/bad.json: ")) << bad.error().message();
}

TEST_F(UsersTest, BadUsersFilesAreClearErrors) {
  for (
      std::string_view text :
      {"", "[]", R"({"users":[{"name":"a"}]})",
       R"({"users":[{"name":"a","password":"plain","permissions":[]}]})",
       R"({"users":[{"name":"a","password":"pbkdf2-sha256$1000$AA==$AA==","permissions":[{"prefix":"x","permission":"root"}]}]})"}) {
    auto users = Users::Parse(text);
    EXPECT_FALSE(users.has_value()) << text;
  }
}

}  // namespace
}  // namespace sluice::registry
