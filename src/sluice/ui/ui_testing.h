// The web UI tests' fixture: the registry server with the UI hook on loopback, over a real
// registry in a temporary folder, and helpers to read its JSON.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "sluice/alert/outbox.h"
#include "sluice/base/file_system.h"
#include "sluice/base/hash.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/temp_dir_testing.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/ingest/checkpoint.h"
#include "sluice/registry/auth.h"
#include "sluice/registry/server.h"
#include "sluice/table/write.h"
#include "sluice/ui/assets.h"
#include "sluice/ui/ui.h"
#include "sluice_test_paths.h"

namespace sluice::ui::uitest {

namespace stdfs = std::filesystem;

constexpr const char* kCsp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
constexpr const char* kRegistryType = "application/vnd.schemaregistry.v1+json";

inline std::string ReadExample(const std::string& name) {
  auto text = LocalFileSystem()->ReadFile(std::string(SLUICE_SOURCE_DIR) + "/examples/" + name);
  EXPECT_TRUE(text.has_value()) << name;
  return text.value_or("");
}

// {"schema": TEXT}: a registration body.
inline std::string SchemaBody(std::string_view text) {
  JsonWriter w;
  w.BeginObject().Key("schema").String(text).EndObject();
  return w.Take();
}

inline JsonValue ParseOrDie(const std::string& body) {
  auto v = ParseJson(body);
  EXPECT_TRUE(v.has_value()) << body;
  return v.value_or(JsonValue());
}

// A node of a tree's fields by path, searched depth first.
inline const JsonValue* FindNode(const JsonValue& nodes, std::string_view path) {
  for (const JsonValue& n : nodes.items()) {
    if (n.Find("path")->as_string() == path) return &n;
    if (const JsonValue* c = FindNode(*n.Find("children"), path)) return c;
  }
  return nullptr;
}

inline const JsonValue* FindChange(const JsonValue& diff, std::string_view path,
                                   std::string_view kind) {
  for (const JsonValue& c : diff.Find("changes")->items()) {
    if (c.Find("path")->as_string() == path && c.Find("kind")->as_string() == kind) return &c;
  }
  return nullptr;
}

class UiServerTest : public ::testing::Test {
 protected:
  void TearDown() override { StopServer(); }

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

  sluice::testing::ScopedTempDir tmp_{"sluice_ui_test"};
  const stdfs::path& dir_ = tmp_.path();
  std::string token_;
  std::shared_ptr<Ui> ui_;
  std::unique_ptr<registry::Server> server_;
  std::thread thread_;
  int port_ = 0;
  std::unique_ptr<httplib::Client> client_;
};

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

}  // namespace sluice::ui::uitest
