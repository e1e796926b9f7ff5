#include <gtest/gtest.h>

#include "sluice/registry/request_internal.h"

namespace sluice::registry::internal {
namespace {

TEST(NamesTest, SchemaTypesAndModesRoundTripIgnoringCase) {
  for (SchemaType t : {SchemaType::kAvro, SchemaType::kJson}) {
    EXPECT_EQ(SchemaTypeFromName(SchemaTypeName(t)), t);
  }
  EXPECT_EQ(SchemaTypeFromName("json"), SchemaType::kJson);
  EXPECT_EQ(SchemaTypeFromName("PROTOBUF"), std::nullopt);
  EXPECT_EQ(CheckedAs(SchemaType::kJson), evolution::SchemaType::kJsonSchema);
  for (Mode m : {Mode::kReadWrite, Mode::kReadOnly, Mode::kReadOnlyOverride, Mode::kImport,
                 Mode::kForward}) {
    EXPECT_EQ(ModeFromName(ModeName(m)), m);
  }
  EXPECT_EQ(ModeFromName("readonly_override"), Mode::kReadOnlyOverride);
  EXPECT_EQ(ModeFromName("SIDEWAYS"), std::nullopt);
}

TEST(ParseVersionTest, LatestNumbersAndErrors) {
  auto latest = ParseVersion("LaTeSt");
  ASSERT_TRUE(latest.has_value());
  EXPECT_TRUE(latest->latest);
  EXPECT_TRUE(ParseVersion("-1")->latest);
  EXPECT_EQ(ParseVersion("2147483647")->number, 2147483647);
  for (std::string_view bad : {"0", "-2", "2147483648", "1.0", " 1", "abc", ""}) {
    auto v = ParseVersion(bad);
    ASSERT_FALSE(v.has_value()) << bad;
    EXPECT_EQ(HttpStatus(v.error()), 422);
    EXPECT_EQ(ConfluentCode(v.error()), 42202);
  }
  EXPECT_EQ(ParseId("0"), 0);
  EXPECT_EQ(ParseId("-1"), std::nullopt);
  EXPECT_EQ(ParseId("01"), 1);
}

TEST(SchemaRequestTest, ParsesEveryMemberOnce) {
  auto r = SchemaRequest::Parse(
      R"({"schema":"\"int\"","schemaType":"json","references":[{"name":"a","subject":"s","version":-1}],"id":7,"version":3})",
      true);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(*r->schema, "\"int\"");
  EXPECT_EQ(*r->type, SchemaType::kJson);
  EXPECT_FALSE(r->type_error.has_value());
  ASSERT_EQ(r->references->size(), 1u);
  EXPECT_EQ((*r->references)[0].version, -1);
  EXPECT_EQ(**r->id, 7);
  EXPECT_EQ(**r->version, 3);
  EXPECT_TRUE(r->normalize);
  EXPECT_TRUE(r->HasOwnSchema());
  EXPECT_TRUE(r->HasReferences());
}

TEST(SchemaRequestTest, AbsentAndIgnoredMembers) {
  auto r = SchemaRequest::Parse(R"({"schema":null,"references":[],"id":-5,"version":0})", false);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r->schema, "");
  EXPECT_FALSE(r->HasOwnSchema());
  EXPECT_FALSE(r->HasReferences());
  EXPECT_EQ(*r->type, SchemaType::kAvro);
  EXPECT_EQ(*r->id, std::nullopt);
  EXPECT_EQ(*r->version, std::nullopt);
}

// A member's problem is kept, not raised: the handler raises it where Confluent does.
TEST(SchemaRequestTest, MemberProblemsAreKeptWithTheMember) {
  auto r = SchemaRequest::Parse(
      R"({"schema":5,"schemaType":7,"references":{"a":1},"id":"x","version":1.5})", false);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->schema.error().message(), "schema must be a string");
  ASSERT_TRUE(r->type_error.has_value());
  EXPECT_EQ(ConfluentCode(*r->type_error), 422);
  EXPECT_EQ(*r->type, SchemaType::kAvro);  // what references are resolved as
  EXPECT_EQ(r->references.error().message(), "references must be an array");
  EXPECT_TRUE(r->HasReferences());
  EXPECT_EQ(r->id.error().message(), "id must be an integer");
  EXPECT_EQ(r->version.error().message(), "version must be an integer");

  auto proto = SchemaRequest::Parse(R"({"schemaType":"protobuf"})", false);
  ASSERT_TRUE(proto.has_value());
  EXPECT_EQ(ConfluentCode(proto->type.error()), 42201);
  auto xml = SchemaRequest::Parse(R"({"schemaType":"xml"})", false);
  EXPECT_EQ(xml->type.error().message(), "Invalid schema type XML: use AVRO or JSON");
  auto bad_ref = SchemaRequest::Parse(R"({"references":[{"name":"a","subject":"s"}]})", false);
  EXPECT_EQ(ConfluentCode(bad_ref->references.error()), 42201);
}

TEST(SchemaRequestTest, BodyThatIsNotAnObject) {
  EXPECT_EQ(HttpStatus(SchemaRequest::Parse(" \n", false).error()), 400);
  EXPECT_EQ(HttpStatus(SchemaRequest::Parse("{not json", false).error()), 400);
  auto array = SchemaRequest::Parse("[1]", false);
  EXPECT_EQ(HttpStatus(array.error()), 422);
  EXPECT_EQ(array.error().message(), "The request body must be a JSON object");
}

TEST(ConfigAndModeBodiesTest, LevelsAndModes) {
  EXPECT_EQ(*ParseConfigBody(R"({"compatibility":"full_transitive"})"),
            evolution::CompatibilityMode::kFullTransitive);
  EXPECT_EQ(*ParseConfigBody(R"({"compatibility":null,"compatibilityLevel":"NONE"})"),
            evolution::CompatibilityMode::kNone);
  EXPECT_EQ(ConfluentCode(ParseConfigBody(R"({"compatibility":"SIDEWAYS"})").error()), 42203);
  EXPECT_EQ(ConfluentCode(ParseConfigBody("").error()), 400);
  EXPECT_EQ(*ParseModeBody(R"({"mode":"import"})", false), Mode::kImport);
  EXPECT_EQ(*ParseModeBody(R"({"mode":"FORWARD"})", true), Mode::kForward);
  EXPECT_EQ(ConfluentCode(ParseModeBody(R"({"mode":"FORWARD"})", false).error()), 42204);
  EXPECT_EQ(ConfluentCode(ParseModeBody(R"({"mode":5})", true).error()), 42204);
}

TEST(RefsTest, StoredReferencesRoundTrip) {
  std::vector<SchemaRef> refs = {{"acme.Address", "address", 1}, {"b\"c", "s", 2}};
  const std::string json = RefsJson(refs);
  EXPECT_EQ(
      json,
      R"([{"name":"acme.Address","subject":"address","version":1},{"name":"b\"c","subject":"s","version":2}])");
  auto back = StoredRefs(json);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].name, "b\"c");
  EXPECT_EQ(RefsJson({}), "[]");
  EXPECT_FALSE(StoredRefs("[{").has_value());
}

}  // namespace
}  // namespace sluice::registry::internal
