#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "sluice/registry/registry.h"
#include "sluice/registry/router_internal.h"
#include "sluice/registry/service_internal.h"

namespace sluice::registry::internal {
namespace {

using Segments = std::vector<std::string>;

TEST(SplitTargetTest, SegmentsArePercentDecodedAfterSplitting) {
  Target t = SplitTarget("/subjects/team%2Forders/versions/latest?deleted=true");
  EXPECT_EQ(t.segments, (Segments{"subjects", "team/orders", "versions", "latest"}));
  EXPECT_EQ(t.query, "deleted=true");
  // '+' in a path stays '+'; a bad escape stays as written.
  EXPECT_EQ(SplitTarget("/subjects/a+b%zz%4").segments, (Segments{"subjects", "a+b%zz%4"}));
}

TEST(SplitTargetTest, OuterSlashesAreIgnoredInnerOnesMakeEmptySegments) {
  EXPECT_EQ(SplitTarget("").segments, Segments{});
  EXPECT_EQ(SplitTarget("//").segments, Segments{});
  EXPECT_EQ(SplitTarget("///subjects///").segments, Segments{"subjects"});
  EXPECT_EQ(SplitTarget("/subjects//versions").segments, (Segments{"subjects", "", "versions"}));
  EXPECT_EQ(SplitTarget("/?a=1").query, "a=1");
}

TEST(QueryTest, DecodesAndReadsBooleansIgnoringCase) {
  Query q("deleted=True&subjectPrefix=team%2Fa+b&&verbose&normalize=1&deleted=false");
  EXPECT_TRUE(q.Bool("deleted"));  // the first value counts
  ASSERT_NE(q.Get("subjectPrefix"), nullptr);
  EXPECT_EQ(*q.Get("subjectPrefix"), "team/a b");
  ASSERT_NE(q.Get("verbose"), nullptr);
  EXPECT_EQ(*q.Get("verbose"), "");
  EXPECT_FALSE(q.Bool("verbose"));
  EXPECT_FALSE(q.Bool("normalize"));  // only "true" is true
  EXPECT_EQ(q.Get("missing"), nullptr);
}

constexpr Route kTestRoutes[] = {
    {"GET", "/", Permission::kRead, Access::kHandler, nullptr, "{}"},
    {"GET", "/things", Permission::kRead, Access::kHandler, nullptr, "[]"},
    {"GET", "/things/{id}", Permission::kRead, Access::kHandler, nullptr, "1"},
    {"DELETE", "/things/{subject}/v/{version}", Permission::kAdmin, Access::kSubject, nullptr, "2"},
};

TEST(RouterTest, MatchesLiteralsAndExtractsParameters) {
  Router router(kTestRoutes);
  Router::Match m = router.Find("DELETE", SplitTarget("/things/a%2Fb/v/latest").segments);
  ASSERT_NE(m.route, nullptr);
  EXPECT_EQ(m.route->fixed_answer, "2");
  EXPECT_EQ(*m.name, "DELETE /things/{subject}/v/{version}");
  EXPECT_EQ(m.params.subject, "a/b");
  EXPECT_EQ(m.params.version, "latest");

  m = router.Find("GET", SplitTarget("/things/7").segments);
  ASSERT_NE(m.route, nullptr);
  EXPECT_EQ(*m.name, "GET /things/{id}");
  EXPECT_EQ(m.params.id, "7");
  EXPECT_FALSE(m.params.subject.has_value());

  m = router.Find("GET", SplitTarget("/").segments);
  ASSERT_NE(m.route, nullptr);
  EXPECT_EQ(*m.name, "GET /");
  // Literal segments are compared decoded, as parameters are.
  m = router.Find("GET", SplitTarget("/%74hings").segments);
  ASSERT_NE(m.route, nullptr);
  EXPECT_EQ(*m.name, "GET /things");
  // A parameter matches an empty segment too (the handler or the subject check decides).
  m = router.Find("GET", SplitTarget("/things//").segments);
  ASSERT_NE(m.route, nullptr);
  EXPECT_EQ(*m.name, "GET /things");
  m = router.Find("DELETE", SplitTarget("/things//v/1").segments);
  ASSERT_NE(m.route, nullptr);
  EXPECT_EQ(m.params.subject, "");
}

TEST(RouterTest, KnownPathWithAnotherMethodIsNotAnUnknownPath) {
  Router router(kTestRoutes);
  Router::Match wrong_method = router.Find("POST", SplitTarget("/things/7").segments);
  EXPECT_EQ(wrong_method.route, nullptr);
  EXPECT_TRUE(wrong_method.path_known);
  Router::Match unknown = router.Find("GET", SplitTarget("/things/7/x").segments);
  EXPECT_EQ(unknown.route, nullptr);
  EXPECT_FALSE(unknown.path_known);
  EXPECT_FALSE(router.Find("get", SplitTarget("/things").segments).route);  // methods are exact
}

TEST(RegistryRoutesTest, EveryRowIsWellFormed) {
  std::set<std::string> names;
  for (const Route& r : RegistryRoutes()) {
    const std::string name = std::string(r.method) + " " + std::string(r.pattern);
    EXPECT_TRUE(names.insert(name).second) << "twice: " << name;
    EXPECT_TRUE(r.pattern.starts_with('/')) << name;
    EXPECT_EQ(r.handler == nullptr, !r.fixed_answer.empty()) << name;
    // A fixed answer needs no store and no subject: it is public.
    if (r.handler == nullptr) {
      EXPECT_EQ(r.access, Access::kHandler) << name;
    }
    std::string_view p = r.pattern;
    for (size_t open = p.find('{'); open != std::string_view::npos; open = p.find('{', open + 1)) {
      std::string_view param = p.substr(open, p.find('}', open) - open + 1);
      EXPECT_TRUE(param == "{subject}" || param == "{id}" || param == "{version}")
          << name << ": " << param;
    }
  }
}

// The answers and metrics names of requests that match no route, and of some that do, through
// Registry::Handle on an in-memory store.
TEST(RegistryRoutingTest, UnmatchedAnswersAndRouteNames) {
  auto store = Store::Open("sqlite::memory:");
  ASSERT_TRUE(store.has_value()) << store.error().message();
  Registry registry(std::move(store).value());
  struct Case {
    std::string_view method;
    std::string_view target;
    int status;
    std::string_view route;
  };
  const Case cases[] = {
      {"GET", "/nothing/here", 404, "unmatched"},
      {"GET", "/schemas/ids/1/x", 404, "unmatched"},
      {"GET", "//subjects//x//versions//", 404, "unmatched"},
      {"PATCH", "/subjects", 405, "unmatched"},
      {"DELETE", "/schemas/types", 405, "unmatched"},
      {"OPTIONS", "/", 405, "unmatched"},
      {"GET", "", 200, "GET /"},
      {"POST", "/", 200, "POST /"},
      {"GET", "/schemas/types", 200, "GET /schemas/types"},
      {"GET", "/schemas/ids/1", 404, "GET /schemas/ids/{id}"},
      {"GET", "/schemas/ids/1/schema", 404, "GET /schemas/ids/{id}/schema"},
      {"GET", "/subjects/a/versions/1/referencedby", 404,
       "GET /subjects/{subject}/versions/{version}/referencedby"},
      {"GET", "/subjects//versions", 422, "GET /subjects/{subject}/versions"},
      {"POST", "/compatibility/subjects/a/versions/x", 422,
       "POST /compatibility/subjects/{subject}/versions/{version}"},
      {"PUT", "/config/a", 400, "PUT /config/{subject}"},
      {"DELETE", "/mode", 200, "DELETE /mode"},
      {"GET", "/v1/metadata/version", 200, "GET /v1/metadata/version"},
      {"GET", "/contexts", 200, "GET /contexts"},
  };
  for (const Case& c : cases) {
    Response r = registry.Handle({c.method, c.target, ""});
    EXPECT_EQ(r.status, c.status) << c.method << " " << c.target << ": " << r.body;
    EXPECT_EQ(r.route, c.route) << c.method << " " << c.target;
  }
  EXPECT_EQ(registry.Handle({"GET", "/nothing", ""}).body,
            R"({"error_code":404,"message":"HTTP 404 Not Found"})");
  EXPECT_EQ(registry.Handle({"PUT", "/subjects/a/versions", ""}).body,
            R"({"error_code":405,"message":"HTTP 405 Method Not Allowed"})");
  EXPECT_EQ(registry.Handle({"GET", "/v1/metadata/id", ""}).body,
            R"({"id":"sluice","scope":{"path":[],"clusters":{}}})");
}

}  // namespace
}  // namespace sluice::registry::internal
