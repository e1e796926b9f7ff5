// `sluice ui`: the web UI on its own, for tables, ingest checkpoints and alert outboxes, and
// optionally a registry elsewhere whose REST API it forwards so the page has one origin.
#include <iostream>
#include <memory>
#include <string>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/serve.h"
#include "cli/ui_flags.h"
#include "sluice/registry/client.h"
#include "sluice/registry/server.h"
#include "sluice/ui/ui.h"

namespace sluice::cli {
namespace {

struct UiCommandOptions {
  std::string listen = "127.0.0.1:8090";
  std::string registry;
  std::string ca_cert;
  std::string auth;
  std::string tls_cert;
  std::string tls_key;
  std::string port_file;
  UiFlags flags;
};

int RunUi(const UiCommandOptions& o) {
  registry::ServerOptions so;
  if (Status st = ParseListen(o.listen, so.host, so.port); !st.has_value()) {
    return ReportError(st.error());
  }
  so.tls_cert = o.tls_cert;
  so.tls_key = o.tls_key;
  auto uo = UiOptionsFromFlags(o.flags);
  if (!uo.has_value()) return ReportError(uo.error());
  so.csrf_token = registry::NewCsrfToken();
  uo->csrf_token = so.csrf_token;
  if (!o.registry.empty()) {
    // The caller's own credentials go through to the registry; the client has none of its own.
    registry::ClientOptions co;
    co.url = o.registry;
    co.ca_cert = o.ca_cert;
    auto client = registry::Client::Create(co);
    if (!client.has_value()) return ReportError(client.error());
    uo->registry = ui::RemoteRegistry(std::shared_ptr<registry::Client>(std::move(*client)));
    uo->forward_registry = true;
  }
  auto web = std::make_shared<ui::Ui>(std::move(*uo));
  ui::Install(web, so);
  auto users = LoadUsers(o.auth);
  if (!users.has_value()) return ReportError(users.error());
  auto server = registry::Server::Create(nullptr, std::move(*users), so);
  if (!server.has_value()) return ReportError(server.error());
  return ServeUntilSignalled(**server, o.port_file, [&](int port) {
    std::cerr << "sluice ui: serving " << (so.tls_cert.empty() ? "http" : "https") << "://"
              << so.host << ":" << port << "/ui/"
              << (o.registry.empty() ? "" : " (registry: " + o.registry + ")")
              << (o.auth.empty() ? "" : " (basic auth)") << "\n";
  });
}

}  // namespace

void RegisterUiCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<UiCommandOptions>();
  CLI::App* c = app.add_subcommand(
      "ui", "Serve the web UI for tables, ingest checkpoints, alerts and a registry elsewhere");
  c->add_option("--listen", o->listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  c->add_option("--registry", o->registry,
                "A registry's URL: its REST API is forwarded, with the caller's credentials");
  c->add_option("--ca-cert", o->ca_cert, "PEM file to trust for an https --registry");
  c->add_option("--auth", o->auth, "Users file: basic auth and per-prefix permissions");
  c->add_option("--tls-cert", o->tls_cert, "PEM certificate: serve https");
  c->add_option("--tls-key", o->tls_key, "PEM private key for --tls-cert");
  c->add_option("--port-file", o->port_file, "Write the bound port to this file");
  AddUiFlags(c, o->flags, "--");
  c->callback([o, &exit_code] { exit_code = RunUi(*o); });
}

}  // namespace sluice::cli
