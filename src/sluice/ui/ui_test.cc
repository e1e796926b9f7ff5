// The web UI's server side through the real registry server on loopback: static files and
// their headers, client-route fallback, CSRF, auth, and `sluice ui` without a registry or in
// front of one elsewhere.
#include "sluice/ui/ui.h"

#include "sluice/ui/ui_testing.h"
#include "sluice_test_paths.h"

namespace sluice::ui::uitest {
namespace {

// ---- static files and headers ----

TEST_F(UiServerTest, ServesThePageWithTheSecurityHeaders) {
  StartServer();
  auto r = Get("/ui/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(r->body, FindAsset("index.html")->bytes());
  EXPECT_EQ(r->get_header_value("Content-Security-Policy"), kCsp);
  EXPECT_EQ(r->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(r->get_header_value("Referrer-Policy"), "no-referrer");
  EXPECT_EQ(r->get_header_value("X-Frame-Options"), "DENY");
  EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store");
  // The API carries them too.
  auto s = Get("/ui/api/session");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->get_header_value("Content-Security-Policy"), kCsp);
  EXPECT_EQ(s->get_header_value("Cache-Control"), "no-store");
  EXPECT_EQ(s->get_header_value("X-Frame-Options"), "DENY");
}

TEST_F(UiServerTest, ServesEveryAssetByNameWithItsTypeAndETag) {
  StartServer();
  ASSERT_NE(FindAsset("app.js"), nullptr);
  ASSERT_NE(FindAsset("app.css"), nullptr);
  for (const Asset& a : Assets()) {
    auto r = Get(std::string("/ui/assets/") + a.name);
    ASSERT_TRUE(r) << a.name;
    EXPECT_EQ(r->status, 200) << a.name;
    EXPECT_EQ(r->body, a.bytes()) << a.name;
    EXPECT_EQ(r->get_header_value("Content-Type"), a.content_type) << a.name;
    EXPECT_EQ(r->get_header_value("ETag"), a.etag) << a.name;
    EXPECT_EQ(r->get_header_value("Content-Security-Policy"), kCsp) << a.name;
  }
  EXPECT_EQ(std::string(FindAsset("app.js")->content_type), "text/javascript; charset=utf-8");
  EXPECT_EQ(std::string(FindAsset("app.css")->content_type), "text/css; charset=utf-8");
  // A strong ETag: quoted, no W/ prefix; a matching If-None-Match gets 304 without a body.
  const std::string etag = FindAsset("app.js")->etag;
  EXPECT_TRUE(etag.size() > 2 && etag.front() == '"' && etag.back() == '"') << etag;
  auto cached = Get("/ui/assets/app.js", {{"If-None-Match", etag}});
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->status, 304);
  EXPECT_TRUE(cached->body.empty());
  auto stale = Get("/ui/assets/app.js", {{"If-None-Match", "\"other\""}});
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, 200);
}

TEST(UiAssetsTest, EveryFileOfTheAssetsFolderIsBuiltInByteForByte) {
  const stdfs::path folder = stdfs::path(SLUICE_SOURCE_DIR) / "src/sluice/ui/assets";
  size_t files = 0;
  for (const auto& entry : stdfs::recursive_directory_iterator(folder)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    const std::string name = stdfs::relative(entry.path(), folder).generic_string();
    const Asset* a = FindAsset(name);
    ASSERT_NE(a, nullptr) << name;
    auto bytes = LocalFileSystem()->ReadFile(entry.path().string());
    ASSERT_TRUE(bytes.has_value()) << name;
    EXPECT_EQ(a->bytes(), *bytes) << name;
    // Strong and content-derived: the SHA-256 prefix of the bytes.
    EXPECT_EQ(std::string(a->etag), "\"" + Sha256Hex(*bytes).substr(0, 32) + "\"") << name;
  }
  EXPECT_EQ(Assets().size(), files);
  EXPECT_EQ(FindAsset("nope.js"), nullptr);
}

TEST_F(UiServerTest, ClientRoutesAnswerThePageAndUnknownFilesAre404) {
  StartServer();
  const std::string page(FindAsset("index.html")->bytes());
  for (const char* route : {"/ui", "/ui/subjects", "/ui/subjects/orders-value/versions/3/diff/2",
                            "/ui/tables/users/versions/1", "/ui/alerts"}) {
    auto r = Get(route);
    ASSERT_TRUE(r) << route;
    EXPECT_EQ(r->status, 200) << route;
    EXPECT_EQ(r->body, page) << route;
  }
  for (const char* missing : {"/ui/assets/nope.js", "/ui/assets/", "/ui/assets/../index.html"}) {
    auto r = Get(missing);
    ASSERT_TRUE(r) << missing;
    EXPECT_EQ(r->status, 404) << missing;
    EXPECT_EQ(r->get_header_value("Content-Security-Policy"), kCsp) << missing;
  }
  JsonValue unknown = GetJson("/ui/api/nope", 404);
  EXPECT_EQ(unknown.Find("error_code")->number_text(), "404");
  // The REST API beside it is untouched.
  auto subjects = Get("/subjects");
  ASSERT_TRUE(subjects);
  EXPECT_EQ(subjects->status, 200);
  EXPECT_EQ(subjects->body, "[]");
  EXPECT_EQ(subjects->get_header_value("Content-Security-Policy"), "");
}

// ---- CSRF ----

TEST_F(UiServerTest, BrowserWritesNeedTheTokenAndTheServersOwnOrigin) {
  StartServer();
  const std::string body = SchemaBody("\"string\"");
  const std::string path = "/subjects/csrf-value/versions";
  auto refused = client_->Post(path, {{"Origin", Origin()}}, body, kRegistryType);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403);
  EXPECT_EQ(refused->body, R"({"error_code":40301,"message":"CSRF check failed"})");
  // A refused write to a /ui path carries the UI's headers too.
  auto ui_post =
      client_->Post("/ui/api/session", {{"Origin", "http://evil.example"}}, "", "text/plain");
  ASSERT_TRUE(ui_post);
  EXPECT_EQ(ui_post->status, 403);
  EXPECT_EQ(ui_post->get_header_value("Content-Security-Policy"), kCsp);
  // Any one browser header makes it a browser request.
  EXPECT_EQ(Post(path, body, {{"Sec-Fetch-Site", "same-origin"}}), 403);
  EXPECT_EQ(Post(path, body, {{"Cookie", "a=b"}}), 403);
  EXPECT_EQ(Post(path, body, {{"Origin", Origin()}, {"X-Sluice-CSRF", "0123456789abcdef"}}), 403);
  EXPECT_EQ(Post(path, body, {{"Origin", "http://evil.example"}, {"X-Sluice-CSRF", token_}}), 403);
  EXPECT_EQ(Post(path, body, {{"Origin", "http://127.0.0.1:1"}, {"X-Sluice-CSRF", token_}}), 403);
  auto deleted = client_->Delete("/subjects/csrf-value", {{"Origin", "http://evil.example"}});
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->status, 403);
  // Nothing was registered by the refused requests.
  EXPECT_EQ(Get("/subjects")->body, "[]");
  // The page's own request passes: the session's token, its own origin.
  JsonValue session = GetJson("/ui/api/session");
  ASSERT_EQ(session.Find("csrfToken")->as_string(), token_);
  EXPECT_EQ(token_.size(), 32u);
  EXPECT_EQ(
      Post(path, body,
           {{"Origin", Origin()}, {"X-Sluice-CSRF", token_}, {"Sec-Fetch-Site", "same-origin"}}),
      200);
  // Curl and Confluent's clients send none of the browser headers: unaffected.
  EXPECT_EQ(Post("/subjects/curl-value/versions", body, {}), 200);
  // Reads are never checked.
  auto read = Get("/subjects", {{"Origin", "http://evil.example"}});
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200);
}

TEST(CsrfCheckTest, ComparesTheOriginWithTheHostAndScheme) {
  registry::HttpRequest r;
  r.method = "PUT";
  r.headers = {{"Host", "Reg.Example:8081"},
               {"Origin", "https://reg.example:8081"},
               {"X-Sluice-CSRF", "t0k"}};
  EXPECT_TRUE(registry::CsrfCheck(r, "t0k", /*tls=*/true));
  EXPECT_FALSE(registry::CsrfCheck(r, "t0k", /*tls=*/false));
  EXPECT_FALSE(registry::CsrfCheck(r, "t0K", true));
  EXPECT_FALSE(registry::CsrfCheck(r, "", true));
  r.headers[1].second = "null";  // a sandboxed frame
  EXPECT_FALSE(registry::CsrfCheck(r, "t0k", true));
  r.method = "GET";
  EXPECT_TRUE(registry::CsrfCheck(r, "t0k", true));
}

// ---- auth ----

TEST_F(UiAuthTest, EveryUiRequestNeedsCredentials) {
  for (const char* path : {"/ui/", "/ui/api/session", "/ui/assets/app.js", "/ui/api/tables"}) {
    auto r = Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 401) << path;
    EXPECT_NE(r->get_header_value("WWW-Authenticate").find("Basic"), std::string::npos) << path;
    EXPECT_EQ(r->get_header_value("Content-Security-Policy"), kCsp) << path;
    EXPECT_EQ(r->get_header_value("X-Frame-Options"), "DENY") << path;
  }
  // The REST API's refusals stay as they were.
  EXPECT_EQ(Get("/subjects")->status, 401);
  EXPECT_EQ(Get("/subjects")->get_header_value("Content-Security-Policy"), "");
  client_->set_basic_auth("rita", "wrong");
  EXPECT_EQ(Get("/ui/")->status, 401);
}

TEST_F(UiAuthTest, TheSessionNamesTheUserAndGrants) {
  client_->set_basic_auth("rita", "r-pass");
  JsonValue s = GetJson("/ui/api/session");
  EXPECT_EQ(s.Find("user")->as_string(), "rita");
  ASSERT_EQ(s.Find("grants")->size(), 1u);
  EXPECT_EQ(s.Find("grants")->items()[0].Find("permission")->as_string(), "read");
  EXPECT_EQ(s.Find("grants")->items()[0].Find("prefix")->as_string(), "");
  EXPECT_TRUE(s.Find("registry")->as_bool());
  ASSERT_EQ(s.Find("tables")->size(), 1u);
  EXPECT_EQ(s.Find("tables")->items()[0].Find("name")->as_string(), "users");
  // A reader may look but not register, even with the page's token.
  auto r =
      client_->Post("/subjects/x-value/versions", {{"Origin", Origin()}, {"X-Sluice-CSRF", token_}},
                    SchemaBody("\"string\""), kRegistryType);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403) << r->body;
  client_->set_basic_auth("ana", "a-pass");
  JsonValue admin = GetJson("/ui/api/session");
  EXPECT_EQ(admin.Find("user")->as_string(), "ana");
  EXPECT_EQ(admin.Find("grants")->items()[0].Find("permission")->as_string(), "admin");
}

TEST_F(UiAuthTest, NoAuthMeansAnAdminSessionWithoutAUser) {
  StopServer();
  stdfs::remove(dir_ / "registry.db");
  StartServer();
  JsonValue s = GetJson("/ui/api/session");
  EXPECT_TRUE(s.Find("user")->is_null());
  ASSERT_EQ(s.Find("grants")->size(), 1u);
  EXPECT_EQ(s.Find("grants")->items()[0].Find("permission")->as_string(), "admin");
  EXPECT_TRUE(s.Find("tables")->items().empty());
}

// ---- sluice ui: no registry of its own, or one elsewhere ----

TEST_F(UiServerTest, WithoutARegistryOnlyTheUiAnswers) {
  registry::ServerOptions so;
  so.port = 0;
  so.threads = 2;
  UiOptions ui;
  ui.tables = {{"t", (dir_ / "t").string()}};
  StartWith(nullptr, nullptr, so, std::move(ui));
  JsonValue s = GetJson("/ui/api/session");
  EXPECT_FALSE(s.Find("registry")->as_bool());
  EXPECT_EQ(s.Find("csrfToken")->as_string(), server_->csrf_token());
  EXPECT_EQ(s.Find("csrfToken")->as_string().size(), 32u);
  EXPECT_EQ(Get("/subjects")->status, 404);
  GetJson("/ui/api/subjects/x/verdicts", 404);
  // A table that is not there is listed with why.
  JsonValue tables = GetJson("/ui/api/tables");
  EXPECT_TRUE(tables.items()[0].Find("version")->is_null());
  EXPECT_TRUE(tables.items()[0].Find("error")->is_string());
}

TEST_F(UiServerTest, ForwardsTheRestApiToARegistryElsewhere) {
  StartServer();
  RegisterMovies("movies-value");
  const int registry_port = port_;
  // A second server, as `sluice ui --registry URL` runs it.
  auto client = registry::Client::Create({"http://127.0.0.1:" + std::to_string(registry_port)});
  ASSERT_TRUE(client.has_value());
  registry::ServerOptions so;
  so.port = 0;
  so.threads = 2;
  so.csrf_token = registry::NewCsrfToken();
  UiOptions ui;
  ui.csrf_token = so.csrf_token;
  ui.registry = RemoteRegistry(std::shared_ptr<registry::Client>(std::move(*client)));
  ui.forward_registry = true;
  auto web = std::make_shared<Ui>(std::move(ui));
  Install(web, so);
  auto front = registry::Server::Create(nullptr, nullptr, so);
  ASSERT_TRUE(front.has_value());
  ASSERT_TRUE((*front)->Bind().has_value());
  std::thread runner([&] { (void)(*front)->Run(); });
  httplib::Client c("127.0.0.1", (*front)->port());
  auto subjects = c.Get("/subjects");
  ASSERT_TRUE(subjects);
  EXPECT_EQ(subjects->body, "[\"movies-value\"]");
  auto diff = c.Get("/ui/api/subjects/movies-value/diff?from=1&to=2");
  ASSERT_TRUE(diff);
  EXPECT_EQ(diff->status, 200);
  EXPECT_NE(diff->body.find("type_changed"), std::string::npos);
  auto put = c.Put("/config/movies-value", "{\"compatibility\":\"FULL\"}", kRegistryType);
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 200);
  EXPECT_NE(Get("/config/movies-value")->body.find("FULL"), std::string::npos);
  (*front)->Stop();
  runner.join();
}

TEST_F(UiAuthTest, AForwardingUiPassesTheCallersCredentials) {
  auto client = registry::Client::Create({"http://127.0.0.1:" + std::to_string(port_)});
  ASSERT_TRUE(client.has_value());
  registry::ServerOptions so;
  so.port = 0;
  so.threads = 2;
  so.csrf_token = registry::NewCsrfToken();
  UiOptions ui;
  ui.csrf_token = so.csrf_token;
  ui.registry = RemoteRegistry(std::shared_ptr<registry::Client>(std::move(*client)));
  ui.forward_registry = true;
  Install(std::make_shared<Ui>(std::move(ui)), so);
  auto front = registry::Server::Create(nullptr, nullptr, so);
  ASSERT_TRUE(front.has_value());
  ASSERT_TRUE((*front)->Bind().has_value());
  std::thread runner([&] { (void)(*front)->Run(); });
  httplib::Client c("127.0.0.1", (*front)->port());
  // Without credentials the registry's 401 comes back with a challenge, so the browser asks.
  auto anonymous = c.Get("/subjects");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  EXPECT_NE(anonymous->get_header_value("WWW-Authenticate").find("Basic"), std::string::npos);
  auto api = c.Get("/ui/api/subjects/x/verdicts");
  ASSERT_TRUE(api);
  EXPECT_EQ(api->status, 401);
  EXPECT_NE(api->get_header_value("WWW-Authenticate").find("Basic"), std::string::npos);
  c.set_basic_auth("rita", "r-pass");
  auto reader = c.Get("/subjects");
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->status, 200) << reader->body;
  // The registry decides what the caller may do: a reader cannot register.
  auto write = c.Post("/subjects/x/versions", SchemaBody("\"string\""), kRegistryType);
  ASSERT_TRUE(write);
  EXPECT_EQ(write->status, 403) << write->body;
  (*front)->Stop();
  runner.join();
}

TEST(NamedPathTest, NameEqualsPathOrTheFolderName) {
  EXPECT_EQ(ParseNamedPath("users=/data/users").value().name, "users");
  EXPECT_EQ(ParseNamedPath("users=/data/users").value().path, "/data/users");
  EXPECT_EQ(ParseNamedPath("/data/orders/").value().name, "orders");
  EXPECT_EQ(ParseNamedPath("ckpt").value().name, "ckpt");
  EXPECT_FALSE(ParseNamedPath("=/x").has_value());
  EXPECT_FALSE(ParseNamedPath("x=").has_value());
  EXPECT_FALSE(ParseNamedPath("/").has_value());
}

}  // namespace
}  // namespace sluice::ui::uitest
