// The web UI's server side through the real registry server on loopback: static files and
// their headers, client-route fallback, CSRF, auth, and every /ui/api endpoint's JSON over a
// real registry, a Delta table, an ingest checkpoint and an alert outbox.
#include "sluice/ui/ui.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "sluice/alert/outbox.h"
#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/ingest/checkpoint.h"
#include "sluice/registry/auth.h"
#include "sluice/registry/server.h"
#include "sluice/table/write.h"
#include "sluice/ui/assets.h"

namespace sluice::ui {
namespace {

namespace stdfs = std::filesystem;

constexpr const char* kCsp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
constexpr const char* kRegistryType = "application/vnd.schemaregistry.v1+json";

std::string ReadExample(const std::string& name) {
  auto text = LocalFileSystem()->ReadFile(std::string(SLUICE_SOURCE_DIR) + "/examples/" + name);
  EXPECT_TRUE(text.has_value()) << name;
  return text.value_or("");
}

// {"schema": TEXT}: a registration body.
std::string SchemaBody(std::string_view text) {
  JsonWriter w;
  w.BeginObject().Key("schema").String(text).EndObject();
  return w.Take();
}

JsonValue ParseOrDie(const std::string& body) {
  auto v = ParseJson(body);
  EXPECT_TRUE(v.has_value()) << body;
  return v.value_or(JsonValue());
}

// A node of a tree's fields by path, searched depth first.
const JsonValue* FindNode(const JsonValue& nodes, std::string_view path) {
  for (const JsonValue& n : nodes.items()) {
    if (n.Find("path")->as_string() == path) return &n;
    if (const JsonValue* c = FindNode(*n.Find("children"), path)) return c;
  }
  return nullptr;
}

const JsonValue* FindChange(const JsonValue& diff, std::string_view path, std::string_view kind) {
  for (const JsonValue& c : diff.Find("changes")->items()) {
    if (c.Find("path")->as_string() == path && c.Find("kind")->as_string() == kind) return &c;
  }
  return nullptr;
}

class UiServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = stdfs::temp_directory_path() /
           ("sluice_ui_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    stdfs::remove_all(dir_);
    stdfs::create_directories(dir_);
  }
  void TearDown() override {
    StopServer();
    stdfs::remove_all(dir_);
  }

  // Start the registry server with the UI hook; `users_json` empty: no auth.
  void StartServer(const std::string& users_json = "", UiOptions ui = {}) {
    auto store = registry::Store::Open("sqlite:" + (dir_ / "registry.db").string());
    ASSERT_TRUE(store.has_value()) << store.error().message();
    auto reg = std::make_unique<registry::Registry>(std::move(*store));
    std::unique_ptr<registry::Users> users;
    if (!users_json.empty()) {
      auto u = registry::Users::Parse(users_json);
      ASSERT_TRUE(u.has_value()) << u.error().message();
      users = std::move(*u);
    }
    registry::ServerOptions so;
    so.port = 0;
    so.threads = 4;
    ui.registry = LocalRegistry(reg.get());
    StartWith(std::move(reg), std::move(users), so, std::move(ui));
  }

  void StartWith(std::unique_ptr<registry::Registry> reg, std::unique_ptr<registry::Users> users,
                 registry::ServerOptions so, UiOptions ui) {
    // As the CLI does: one token, made here, known to both the server and the UI.
    if (so.csrf_token.empty()) so.csrf_token = registry::NewCsrfToken();
    ui.csrf_token = so.csrf_token;
    token_ = so.csrf_token;
    ui_ = std::make_shared<Ui>(std::move(ui));
    auto web = ui_;
    Install(web, so);
    auto server = registry::Server::Create(std::move(reg), std::move(users), so);
    ASSERT_TRUE(server.has_value()) << server.error().message();
    server_ = std::move(*server);
    ASSERT_TRUE(server_->Bind().has_value());
    port_ = server_->port();
    thread_ = std::thread([this] { (void)server_->Run(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client_->set_read_timeout(30, 0);
  }

  void StopServer() {
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
  }

  std::string Origin() const { return "http://127.0.0.1:" + std::to_string(port_); }

  httplib::Result Get(const std::string& path, const httplib::Headers& headers = {}) {
    return client_->Get(path, headers);
  }
  JsonValue GetJson(const std::string& path, int want_status = 200) {
    auto r = Get(path);
    EXPECT_TRUE(r) << path;
    if (!r) return JsonValue();
    EXPECT_EQ(r->status, want_status) << path << ": " << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json") << path;
    return ParseOrDie(r->body);
  }
  int Post(const std::string& path, const std::string& body, const httplib::Headers& headers) {
    auto r = client_->Post(path, headers, body, kRegistryType);
    EXPECT_TRUE(r);
    return r ? r->status : 0;
  }
  void Register(const std::string& subject, std::string_view schema) {
    auto r = client_->Post("/subjects/" + subject + "/versions", SchemaBody(schema), kRegistryType);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
  void SetMode(const std::string& subject, std::string_view mode) {
    auto r = client_->Put("/config/" + subject,
                          std::string("{\"compatibility\":\"") + std::string(mode) + "\"}",
                          kRegistryType);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
  // The seed's user_movie_activity v1 and v2 under `subject` (v2 breaks BACKWARD, so it is
  // registered under NONE, then the mode goes back to BACKWARD).
  void RegisterMovies(const std::string& subject) {
    Register(subject, ReadExample("user_movie_activity_v1.avsc"));
    SetMode(subject, "NONE");
    Register(subject, ReadExample("user_movie_activity_v2.avsc"));
    SetMode(subject, "BACKWARD");
  }

  stdfs::path dir_;
  std::string token_;
  std::shared_ptr<Ui> ui_;
  std::unique_ptr<registry::Server> server_;
  std::thread thread_;
  int port_ = 0;
  std::unique_ptr<httplib::Client> client_;
};

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

class UiAuthTest : public UiServerTest {
 protected:
  void SetUp() override {
    UiServerTest::SetUp();
    auto reader = registry::HashPassword("r-pass", 1000);
    auto admin = registry::HashPassword("a-pass", 1000);
    ASSERT_TRUE(reader.has_value() && admin.has_value());
    JsonWriter w;
    w.BeginObject().Key("users").BeginArray();
    w.BeginObject().Key("name").String("rita").Key("password").String(*reader);
    w.Key("permissions").BeginArray();
    w.BeginObject().Key("prefix").String("").Key("permission").String("read").EndObject();
    w.EndArray().EndObject();
    w.BeginObject().Key("name").String("ana").Key("password").String(*admin);
    w.Key("permissions").BeginArray();
    w.BeginObject().Key("prefix").String("*").Key("permission").String("admin").EndObject();
    w.EndArray().EndObject();
    w.EndArray().EndObject();
    UiOptions ui;
    ui.tables = {{"users", (dir_ / "no-table").string()}};
    StartServer(w.Take(), std::move(ui));
  }
};

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

// ---- subjects ----

TEST_F(UiServerTest, AVersionAsATree) {
  StartServer();
  RegisterMovies("movies-value");
  JsonValue t = GetJson("/ui/api/subjects/movies-value/versions/1/tree");
  EXPECT_EQ(t.Find("subject")->as_string(), "movies-value");
  EXPECT_EQ(t.Find("version")->number_text(), "1");
  EXPECT_EQ(t.Find("id")->number_text(), "1");
  EXPECT_EQ(t.Find("schemaType")->as_string(), "AVRO");
  EXPECT_NE(t.Find("schema")->as_string().find("user_movie_activity"), std::string::npos);
  EXPECT_TRUE(t.Find("references")->is_array());
  EXPECT_TRUE(t.Find("referrers")->is_array());
  const JsonValue& fields = *t.Find("fields");
  const JsonValue* movies = FindNode(fields, "movies_watched");
  ASSERT_NE(movies, nullptr);
  EXPECT_EQ(movies->Find("kind")->as_string(), "array");
  ASSERT_EQ(movies->Find("children")->size(), 1u);
  const JsonValue& element = movies->Find("children")->items()[0];
  EXPECT_EQ(element.Find("name")->as_string(), "[]");
  EXPECT_EQ(element.Find("kind")->as_string(), "struct");
  const JsonValue* id = FindNode(fields, "movies_watched[].movie_id");
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(id->Find("type")->as_string(), "int32");
  EXPECT_EQ(id->Find("kind")->as_string(), "primitive");
  EXPECT_FALSE(id->Find("nullable")->as_bool());
  const JsonValue* user = FindNode(fields, "user_id");
  ASSERT_NE(user, nullptr);
  EXPECT_EQ(user->Find("type")->as_string(), "int64");
  EXPECT_EQ(user->Find("doc")->as_string(), "Account id");
  // latest works as the REST API's does.
  JsonValue latest = GetJson("/ui/api/subjects/movies-value/versions/latest/tree");
  EXPECT_EQ(latest.Find("version")->number_text(), "2");
  EXPECT_EQ(
      FindNode(*latest.Find("fields"), "movies_watched[].movie_id")->Find("type")->as_string(),
      "string");
  EXPECT_NE(FindNode(*latest.Find("fields"), "movies_watched[].rating"), nullptr);
}

TEST_F(UiServerTest, TwoVersionsDiffedWithTheVerdict) {
  StartServer();
  RegisterMovies("movies-value");
  JsonValue d = GetJson("/ui/api/subjects/movies-value/diff?from=1&to=latest");
  EXPECT_EQ(d.Find("subject")->as_string(), "movies-value");
  EXPECT_EQ(d.Find("from")->number_text(), "1");
  EXPECT_EQ(d.Find("to")->number_text(), "2");
  EXPECT_EQ(d.Find("mode")->as_string(), "BACKWARD");
  const JsonValue& diff = *d.Find("diff");
  const JsonValue* retyped = FindChange(diff, "movies_watched[].movie_id", "type_changed");
  ASSERT_NE(retyped, nullptr) << d.Find("diff")->Find("changes")->size();
  EXPECT_EQ(retyped->Find("from")->as_string(), "int32");
  EXPECT_EQ(retyped->Find("to")->as_string(), "string");
  EXPECT_NE(FindChange(diff, "movies_watched[].rating", "field_added"), nullptr);
  // v2 against v1 in BACKWARD: the int -> string change breaks it, as the REST API says.
  const JsonValue& compat = *d.Find("compatibility");
  ASSERT_TRUE(compat.is_object());
  EXPECT_FALSE(compat.Find("compatible")->as_bool());
  EXPECT_EQ(compat.Find("mode")->as_string(), "BACKWARD");
  ASSERT_GE(compat.Find("incompatibilities")->size(), 1u);
  EXPECT_EQ(compat.Find("incompatibilities")->items()[0].Find("kind")->as_string(),
            "TYPE_MISMATCH");
  auto rest = client_->Post("/compatibility/subjects/movies-value/versions/1?verbose=true",
                            SchemaBody(ReadExample("user_movie_activity_v2.avsc")), kRegistryType);
  ASSERT_TRUE(rest);
  EXPECT_NE(rest->body.find("\"is_compatible\":false"), std::string::npos) << rest->body;
  // The reverse diff swaps the sides.
  JsonValue back = GetJson("/ui/api/subjects/movies-value/diff?from=2&to=1");
  EXPECT_NE(FindChange(*back.Find("diff"), "movies_watched[].rating", "field_removed"), nullptr);
  // Bad requests.
  GetJson("/ui/api/subjects/movies-value/diff?from=1", 422);
  JsonValue missing = GetJson("/ui/api/subjects/movies-value/diff?from=1&to=7", 404);
  EXPECT_EQ(missing.Find("error_code")->number_text(), "40402");
}

TEST_F(UiServerTest, EveryVersionsVerdictInTheSubjectsMode) {
  StartServer();
  RegisterMovies("movies-value");
  JsonValue v = GetJson("/ui/api/subjects/movies-value/verdicts");
  EXPECT_EQ(v.Find("mode")->as_string(), "BACKWARD");
  const auto& versions = v.Find("versions")->items();
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].Find("version")->number_text(), "1");
  EXPECT_TRUE(versions[0].Find("compatible")->as_bool());
  EXPECT_EQ(versions[1].Find("version")->number_text(), "2");
  EXPECT_EQ(versions[1].Find("id")->number_text(), "2");
  EXPECT_FALSE(versions[1].Find("compatible")->as_bool());
  const JsonValue& x = versions[1].Find("incompatibilities")->items().at(0);
  EXPECT_EQ(x.Find("kind")->as_string(), "TYPE_MISMATCH");
  EXPECT_FALSE(x.Find("location")->as_string().empty());
  EXPECT_FALSE(x.Find("message")->as_string().empty());
  EXPECT_FALSE(x.Find("hint")->as_string().empty());
  // Under NONE nothing is checked.
  SetMode("movies-value", "NONE");
  JsonValue none = GetJson("/ui/api/subjects/movies-value/verdicts");
  EXPECT_EQ(none.Find("mode")->as_string(), "NONE");
  EXPECT_TRUE(none.Find("versions")->items()[1].Find("compatible")->as_bool());
}

TEST_F(UiServerTest, HostileNamesAndDocsComeBackAsJsonText) {
  StartServer();
  const std::string xss = "<img src=x onerror=alert(1)>";
  JsonWriter schema;
  schema.BeginObject().Key("type").String("record").Key("name").String("r");
  schema.Key("fields").BeginArray();
  schema.BeginObject().Key("name").String("a").Key("type").String("string");
  schema.Key("doc").String(xss).EndObject();
  schema.EndArray().EndObject();
  Register("a%2Fb", schema.str());
  auto r = Get("/ui/api/subjects/a%2Fb/versions/1/tree");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(r->get_header_value("X-Content-Type-Options"), "nosniff");
  JsonValue t = ParseOrDie(r->body);
  EXPECT_EQ(t.Find("subject")->as_string(), "a/b");
  EXPECT_EQ(FindNode(*t.Find("fields"), "a")->Find("doc")->as_string(), xss);
  // Unknown names are JSON 404s, as the REST API answers them.
  JsonValue s = GetJson("/ui/api/subjects/nope/verdicts", 404);
  EXPECT_EQ(s.Find("error_code")->number_text(), "40401");
  JsonValue v = GetJson("/ui/api/subjects/a%2Fb/versions/9/tree", 404);
  EXPECT_EQ(v.Find("error_code")->number_text(), "40402");
  JsonValue bad = GetJson("/ui/api/subjects/a%2Fb/versions/x/tree", 422);
  EXPECT_EQ(bad.Find("error_code")->number_text(), "42202");
  JsonValue table = GetJson("/ui/api/tables/%3Cscript%3E/history", 404);
  EXPECT_EQ(table.Find("error_code")->number_text(), "40401");
  EXPECT_EQ(table.Find("message")->as_string(), "Table '<script>' not found.");
  GetJson("/ui/api/ingest/nope/batches", 404);
  GetJson("/ui/api/ingest/nope/quarantine", 404);
}

TEST_F(UiServerTest, ATreeNamesItsReferencesAndReferrers) {
  StartServer();
  Register("address", R"({"type":"record","name":"Address","namespace":"x","fields":[)"
                      R"({"name":"city","type":"string"}]})");
  const std::string person =
      R"({"schema":"{\"type\":\"record\",\"name\":\"Person\",\"namespace\":\"x\",)"
      R"(\"fields\":[{\"name\":\"home\",\"type\":\"x.Address\"}]}",)"
      R"("references":[{"name":"x.Address","subject":"address","version":1}]})";
  auto r = client_->Post("/subjects/person/versions", person, kRegistryType);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  JsonValue address = GetJson("/ui/api/subjects/address/versions/1/tree");
  ASSERT_EQ(address.Find("referrers")->size(), 1u);
  EXPECT_EQ(address.Find("referrers")->items()[0].number_text(), "2");
  JsonValue p = GetJson("/ui/api/subjects/person/versions/1/tree");
  ASSERT_EQ(p.Find("references")->size(), 1u);
  EXPECT_EQ(p.Find("references")->items()[0].Find("subject")->as_string(), "address");
  // The referenced type is written in: the tree reaches into it.
  const JsonValue* city = FindNode(*p.Find("fields"), "home.city");
  ASSERT_NE(city, nullptr) << p.Find("fields")->size();
  EXPECT_EQ(city->Find("type")->as_string(), "string");
  JsonValue v = GetJson("/ui/api/subjects/person/verdicts");
  EXPECT_TRUE(v.Find("versions")->items()[0].Find("compatible")->as_bool());
}

// ---- tables, ingest, alerts ----

class UiDataTest : public UiServerTest {
 protected:
  void SetUp() override {
    UiServerTest::SetUp();
    table_ = (dir_ / "users").string();
    WriteRows("{\"id\":1,\"name\":\"a\"}\n", "id INT, name STRING", false);
    WriteRows("{\"id\":2,\"name\":\"b\",\"email\":\"b@x\"}\n", "id INT, name STRING, email STRING",
              true);
    MakeCheckpoint();
    MakeOutbox();
    UiOptions ui;
    ui.tables = {{"users", table_}};
    ui.ingest = {{"orders", (dir_ / "ckpt").string()}};
    ui.alerts = {{"main", (dir_ / "alerts.db").string()},
                 {"gone", (dir_ / "none.db").string()},
                 {"folder", (dir_ / "empty-folder").string()}};
    stdfs::create_directories(dir_ / "empty-folder");
    StartServer("", std::move(ui));
  }

  void WriteRows(const std::string& rows, std::string_view ddl, bool merge) {
    const std::string input = (dir_ / "in.jsonl").string();
    ASSERT_TRUE(LocalFileSystem()->WriteFile(input, rows).has_value());
    table::TableWriteOptions o;
    o.data_schema = dialects::spark::ReadDdl(ddl).value().value;
    o.merge_schema = merge;
    if (!merge) {
      o.properties["delta.appendOnly"] = "false";
      o.constraints = {{"id_positive", "id > 0"}};
    }
    DiscardSink quarantine;
    auto written = table::WriteTable(LocalFileSystem(), table_, {input}, o, quarantine);
    ASSERT_TRUE(written.has_value()) << written.error().message();
    ASSERT_EQ(written->outcome, table::WriteOutcome::kCommitted) << written->rejection;
  }

  void MakeCheckpoint() {
    const std::string ckpt = (dir_ / "ckpt").string();
    ingest::CheckpointIdentity id{"folder", "/landing/orders", table_};
    auto c = ingest::Checkpoint::Open(ckpt, id);
    ASSERT_TRUE(c.has_value()) << c.error().message();
    for (int64_t b = 0; b < 3; ++b) {
      ingest::Batch batch;
      batch.id = b;
      batch.files = {{"/landing/orders/" + std::to_string(b) + ".jsonl", 10, 1}};
      ASSERT_TRUE((*c)->Plan(batch).has_value());
      const std::string report = "{\"batch\":" + std::to_string(b) +
                                 ",\"records_in\":" + std::to_string(10 * (b + 1)) + "}";
      ASSERT_TRUE((*c)->Stage(b, 0, "", report).has_value());
      ASSERT_TRUE((*c)->MarkCommitted(b, b, 0, 0).has_value());
      ASSERT_TRUE((*c)->MarkDone(b).has_value());
    }
    ASSERT_TRUE(LocalFileSystem()
                    ->WriteFile(ckpt + "/quarantine.jsonl",
                                "{\"n\":1,\"reason\":\"bad\"}\n{\"n\":2,\"reason\":\"<b>x</b>\"}\n"
                                "{\"n\":3,\"reason\":\"worse\"}\n{\"n\":4,\"partial")
                    .has_value());
  }

  void MakeOutbox() {
    auto outbox = alert::Outbox::Open((dir_ / "alerts.db").string());
    ASSERT_TRUE(outbox.has_value()) << outbox.error().message();
    const std::string report = R"({"source":"orders-value","verdict":"breaking"})";
    std::vector<alert::OutboxItem> items = {
        {alert::ParseTarget("webhook:https://hooks.example/x").value(),
         alert::Message{"id-1", "application/json", "", report}},
        {alert::ParseTarget("slack:https://hooks.slack.com/services/x").value(),
         alert::Message{"id-1", "application/json", "", R"({"text":"hi"})"}}};
    auto stored = (*outbox)->Enqueue(alert::AlertKey{"orders-value", "old", "new"}, items, 1000);
    ASSERT_TRUE(stored.has_value()) << stored.error().message();
    ASSERT_EQ(*stored, 2);
  }

  std::string table_;
};

TEST_F(UiDataTest, TablesListedWithTheirLatestCommit) {
  JsonValue list = GetJson("/ui/api/tables");
  ASSERT_EQ(list.size(), 1u);
  const JsonValue& t = list.items()[0];
  EXPECT_EQ(t.Find("name")->as_string(), "users");
  EXPECT_EQ(t.Find("path")->as_string(), table_);
  EXPECT_EQ(t.Find("version")->number_text(), "1");
  EXPECT_EQ(t.Find("operation")->as_string(), "WRITE");
  EXPECT_EQ(t.Find("updatedAt")->as_string().size(), 24u) << t.Find("updatedAt")->as_string();
  EXPECT_EQ(t.Find("updatedAt")->as_string().back(), 'Z');
}

TEST_F(UiDataTest, ATablesHistoryIsTheHistoryCommandsJson) {
  auto r = Get("/ui/api/tables/users/history");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  JsonValue h = ParseOrDie(r->body);
  ASSERT_TRUE(h.is_object()) << r->body;
  // The mergeSchema commit's diff: email added.
  EXPECT_NE(r->body.find("\"email\""), std::string::npos);
  EXPECT_NE(r->body.find("field_added"), std::string::npos);
}

TEST_F(UiDataTest, ATablesSchemaAtAnyVersion) {
  JsonValue s = GetJson("/ui/api/tables/users/schema");
  EXPECT_EQ(s.Find("version")->number_text(), "1");
  EXPECT_NE(FindNode(*s.Find("fields"), "email"), nullptr);
  EXPECT_EQ(FindNode(*s.Find("fields"), "id")->Find("type")->as_string(), "int32");
  EXPECT_EQ(s.Find("properties")->Find("delta.appendOnly")->as_string(), "false");
  EXPECT_EQ(s.Find("properties")->Find("delta.constraints.id_positive"), nullptr);
  EXPECT_EQ(s.Find("constraints")->Find("id_positive")->as_string(), "id > 0");
  EXPECT_TRUE(s.Find("partitionColumns")->is_array());
  const JsonValue& p = *s.Find("protocol");
  EXPECT_TRUE(p.Find("minReaderVersion")->is_number());
  EXPECT_TRUE(p.Find("minWriterVersion")->is_number());
  EXPECT_TRUE(p.Find("readerFeatures")->is_array());
  EXPECT_TRUE(p.Find("writerFeatures")->is_array());
  JsonValue v0 = GetJson("/ui/api/tables/users/schema?version=0");
  EXPECT_EQ(v0.Find("version")->number_text(), "0");
  EXPECT_EQ(FindNode(*v0.Find("fields"), "email"), nullptr);
  JsonValue gone = GetJson("/ui/api/tables/users/schema?version=9", 404);
  EXPECT_EQ(gone.Find("error_code")->number_text(), "40401");
  GetJson("/ui/api/tables/users/schema?version=-1", 422);
  GetJson("/ui/api/tables/nope/schema", 404);
}

TEST_F(UiDataTest, IngestBatchesAndQuarantineNewestLast) {
  JsonValue list = GetJson("/ui/api/ingest");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list.items()[0].Find("name")->as_string(), "orders");
  EXPECT_EQ(list.items()[0].Find("source")->as_string(), "/landing/orders");
  EXPECT_EQ(list.items()[0].Find("table")->as_string(), table_);
  JsonValue batches = GetJson("/ui/api/ingest/orders/batches");
  ASSERT_EQ(batches.Find("batches")->size(), 3u);
  EXPECT_EQ(batches.Find("batches")->items()[2].Find("batch")->number_text(), "2");
  JsonValue two = GetJson("/ui/api/ingest/orders/batches?limit=2");
  ASSERT_EQ(two.Find("batches")->size(), 2u);
  EXPECT_EQ(two.Find("batches")->items()[0].Find("batch")->number_text(), "1");
  GetJson("/ui/api/ingest/orders/batches?limit=x", 422);
  // The last complete lines; a line still being written is left out.
  JsonValue q = GetJson("/ui/api/ingest/orders/quarantine?limit=2");
  ASSERT_EQ(q.Find("samples")->size(), 2u);
  EXPECT_EQ(q.Find("samples")->items()[0].Find("reason")->as_string(), "<b>x</b>");
  EXPECT_EQ(q.Find("samples")->items()[1].Find("n")->number_text(), "3");
}

TEST_F(UiDataTest, AlertsFromEveryOutboxWithTheWebhookReport) {
  JsonValue a = GetJson("/ui/api/alerts");
  const auto& alerts = a.Find("alerts")->items();
  ASSERT_EQ(alerts.size(), 2u);
  const JsonValue* webhook = nullptr;
  const JsonValue* slack = nullptr;
  for (const JsonValue& x : alerts) {
    (x.Find("kind")->as_string() == "webhook" ? webhook : slack) = &x;
  }
  ASSERT_TRUE(webhook && slack);
  EXPECT_EQ(webhook->Find("source")->as_string(), "orders-value");
  EXPECT_EQ(webhook->Find("state")->as_string(), "pending");
  EXPECT_EQ(webhook->Find("attempts")->number_text(), "0");
  EXPECT_EQ(webhook->Find("createdAt")->as_string(), "1970-01-01T00:00:01.000Z");
  EXPECT_TRUE(webhook->Find("deliveredAt")->is_null());
  EXPECT_NE(webhook->Find("target")->as_string().find("hooks.example"), std::string::npos);
  EXPECT_EQ(webhook->Find("report")->Find("verdict")->as_string(), "breaking");
  EXPECT_TRUE(slack->Find("report")->is_null());
  // The missing outbox was not created by looking at it.
  EXPECT_FALSE(stdfs::exists(dir_ / "none.db"));
  EXPECT_FALSE(stdfs::exists(dir_ / "empty-folder" / ".sluice-alerts.db"));
  EXPECT_TRUE(a.Find("errors")->items().empty());
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
}  // namespace sluice::ui
