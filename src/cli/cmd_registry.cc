// `sluice registry serve|register|get|list|versions|compat|config|delete|hash-password`: run
// the schema registry, or talk to one (sluice's or Confluent's) from a shell or a CI job.
#include <iostream>
#include <memory>
#include <string>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/notify_flags.h"
#include "cli/serve.h"
#include "cli/ui_flags.h"
#include "sluice/alert/hooks.h"
#include "sluice/alert/notifier.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/registry/client.h"
#include "sluice/registry/server.h"
#include "sluice/ui/ui.h"

namespace sluice::cli {
namespace {

using registry::Client;
using registry::ClientOptions;
using registry::EncodeSegment;
using registry::HttpReply;

struct ServeOptions {
  std::string listen = "127.0.0.1:8081";
  std::string store = "sqlite:sluice-registry.db";
  std::string auth;
  std::string tls_cert;
  std::string tls_key;
  size_t max_body = 16u << 20;
  int threads = 64;
  int request_timeout = 10;
  int read_timeout = 10;
  int keep_alive_timeout = 5;
  int shutdown_grace = 5;
  size_t max_connections = 10000;
  size_t max_connections_per_client = 128;
  std::string default_compatibility = "BACKWARD";
  std::string port_file;
  NotifyFlags notify;
  bool ui = false;
  UiFlags ui_flags;
};

int RunServe(const ServeOptions& o) {
  registry::ServerOptions so;
  if (Status st = ParseListen(o.listen, so.host, so.port); !st.has_value()) {
    return ReportError(st.error());
  }
  so.tls_cert = o.tls_cert;
  so.tls_key = o.tls_key;
  so.max_body_bytes = o.max_body;
  so.threads = o.threads;
  so.request_timeout_seconds = o.request_timeout;
  so.read_timeout_seconds = o.read_timeout;
  so.keep_alive_timeout_seconds = o.keep_alive_timeout;
  so.shutdown_grace_seconds = o.shutdown_grace;
  so.max_connections = o.max_connections;
  so.max_connections_per_client = o.max_connections_per_client;
  registry::RegistryOptions ro;
  auto level = evolution::ParseCompatibilityMode(o.default_compatibility);
  if (!level.has_value()) return ReportError(level.error());
  ro.default_compatibility = *level;
  // --notify: every new version of a subject is judged and sent, from the outbox, on a
  // delivery thread of its own so that registrations never wait for Slack.
  auto notifier = o.notify.Open(alert::kOutboxFileName);
  if (!notifier.has_value()) return ReportError(notifier.error());
  auto authority = std::make_shared<std::string>(o.listen);
  if (*notifier != nullptr) {
    alert::Notifier* n = notifier->get();
    ro.on_new_version = [n, authority](const registry::NewVersionEvent& event) {
      auto report = alert::ReportForNewVersion(event, *authority);
      auto stored = report.has_value() ? n->Enqueue(*report) : Result<int>(Fail(report.error()));
      if (!stored.has_value()) {
        std::cerr << "sluice registry: alert for " << event.subject << " version " << event.version
                  << " not stored: " << stored.error().message() << "\n";
      }
    };
    (*notifier)->StartBackground();
  }
  auto users = LoadUsers(o.auth);
  if (!users.has_value()) return ReportError(users.error());
  auto store = registry::Store::Open(o.store);
  if (!store.has_value()) return ReportError(store.error());
  const std::string kind(store.value()->kind());
  auto reg = std::make_unique<registry::Registry>(std::move(*store), ro);
  // --ui: the web UI answers /ui/ beside the REST API, reading this registry as the caller.
  std::shared_ptr<ui::Ui> web;
  const bool ui_flags_given =
      !o.ui_flags.tables.empty() || !o.ui_flags.ingest.empty() || !o.ui_flags.alerts.empty();
  if (o.ui || ui_flags_given) {
    auto uo = UiOptionsFromFlags(o.ui_flags);
    if (!uo.has_value()) return ReportError(uo.error());
    // The registry's own alerts (--notify) show without being named again.
    if (!o.notify.targets.empty() && uo->alerts.empty()) {
      const std::string outbox = o.notify.outbox.empty() ? alert::kOutboxFileName : o.notify.outbox;
      auto named = UiOptionsFromFlags(UiFlags{{}, {}, {"registry=" + outbox}});
      if (named.has_value()) uo->alerts = std::move(named->alerts);
    }
    so.csrf_token = registry::NewCsrfToken();
    uo->csrf_token = so.csrf_token;
    uo->registry = ui::LocalRegistry(reg.get());  // the server owns the registry and outlives
    web = std::make_shared<ui::Ui>(std::move(*uo));
    ui::Install(web, so);
  }
  auto server = registry::Server::Create(std::move(reg), std::move(*users), so);
  if (!server.has_value()) return ReportError(server.error());
  return ServeUntilSignalled(**server, o.port_file, [&](int port) {
    *authority = so.host + ":" + std::to_string(port);
    const char* scheme = so.tls_cert.empty() ? "http" : "https";
    std::cerr << "sluice registry: serving " << scheme << "://" << so.host << ":" << port
              << " (store: " << kind << (o.auth.empty() ? "" : ", basic auth") << ")\n";
    if (web) {
      std::cerr << "sluice registry: web UI at " << scheme << "://" << so.host << ":" << port
                << "/ui/\n";
    }
  });
}

// ---- client commands ----

// The client flags and the connection are shared with `sluice decode` / `encode`
// (cli_common.h).
using ClientFlags = RegistryFlags;

void AddClientFlags(CLI::App* cmd, ClientFlags& f) { AddRegistryFlags(cmd, f, "--url"); }

Result<std::unique_ptr<Client>> Connect(const ClientFlags& f) { return ConnectRegistry(f); }

// Print a reply's body (pretty JSON) and map the status to an exit code.
int Print(const Result<HttpReply>& r, bool pretty = true) {
  if (!r.has_value()) return ReportError(r.error());
  if (r->status >= 300) {
    std::cerr << "error: " << Client::ErrorMessage(*r) << "\n";
    return kExitError;
  }
  auto v = ParseJson(r->body);
  if (pretty && v.has_value()) {
    std::cout << ToJson(*v, {.indent = 2}) << "\n";
  } else {
    std::cout << r->body << "\n";
  }
  return kExitOk;
}

// A schema file's text and its registry type (AVRO or JSON).
Result<std::pair<std::string, std::string>> SchemaFile(const std::string& path,
                                                       const std::string& type) {
  SLUICE_ASSIGN_OR_RETURN(std::string text, ReadInput(path));
  std::string t = AsciiUpper(type);
  if (t == "AUTO") {
    t = "AVRO";
    auto v = ParseJson(text);
    if (path.ends_with(".avsc")) {
      t = "AVRO";
    } else if (v.has_value() && v->is_object() &&
               (v->Find("$schema") || v->Find("properties") ||
                (v->Find("type") && v->Find("type")->is_string() &&
                 v->Find("type")->as_string() == "object"))) {
      t = "JSON";
    }
  }
  if (t == "JSON-SCHEMA") t = "JSON";
  if (t != "AVRO" && t != "JSON") {
    return InvalidArgument("--type must be avro, json or auto, not " + type);
  }
  return std::make_pair(std::move(text), t);
}

std::string RequestBody(const std::string& text, const std::string& type) {
  std::string b = "{\"schema\":";
  AppendJsonString(b, text);
  if (type != "AVRO") {
    b += ",\"schemaType\":";
    AppendJsonString(b, type);
  }
  return b + "}";
}

// POST a schema file (register, compat) to `path` on the registry.
Result<HttpReply> PostSchemaFile(const ClientFlags& f, const std::string& path,
                                 const std::string& file, const std::string& type) {
  SLUICE_ASSIGN_OR_RETURN(auto schema, SchemaFile(file, type));
  SLUICE_ASSIGN_OR_RETURN(auto client, Connect(f));
  return client->Call("POST", path, RequestBody(schema.first, schema.second));
}

}  // namespace

void RegisterRegistryCommand(CLI::App& app, int& exit_code) {
  CLI::App* reg =
      app.add_subcommand("registry", "Run a Confluent-compatible schema registry, or talk to one");
  reg->require_subcommand(1);

  auto serve = std::make_shared<ServeOptions>();
  CLI::App* s = reg->add_subcommand("serve", "Serve the registry's REST API");
  s->add_option("--listen", serve->listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  s->add_option("--store", serve->store,
                "sqlite:PATH (embedded, the default) or postgresql://USER@HOST:PORT/DB")
      ->capture_default_str();
  s->add_option("--auth", serve->auth, "Users file: basic auth and per-prefix permissions");
  s->add_option("--tls-cert", serve->tls_cert, "PEM certificate: serve https");
  s->add_option("--tls-key", serve->tls_key, "PEM private key for --tls-cert");
  s->add_option("--max-body", serve->max_body, "Largest request body in bytes (else 413)")
      ->capture_default_str();
  s->add_option("--threads", serve->threads, "Requests served at once")->capture_default_str();
  s->add_option("--request-timeout", serve->request_timeout,
                "Seconds a client has to send a whole request, head and body (else 408)")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  s->add_option("--read-timeout", serve->read_timeout,
                "Seconds a client may stay silent mid-request, or not read its answer, before "
                "it is dropped")
      ->capture_default_str();
  s->add_option("--keep-alive-timeout", serve->keep_alive_timeout,
                "Seconds an idle connection stays open")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  s->add_option("--shutdown-grace", serve->shutdown_grace,
                "Seconds requests in flight get to finish on SIGTERM before connections close")
      ->check(CLI::Range(0, 3600))
      ->capture_default_str();
  s->add_option("--max-connections", serve->max_connections,
                "Open connections at most (more are refused; also kept below the open-file limit)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 24))
      ->capture_default_str();
  s->add_option("--max-connections-per-client", serve->max_connections_per_client,
                "Open connections at most from one client IP address")
      ->check(CLI::Range(size_t{1}, size_t{1} << 24))
      ->capture_default_str();
  s->add_option("--default-compatibility", serve->default_compatibility,
                "Level when neither subject nor registry sets one")
      ->capture_default_str();
  s->add_option("--port-file", serve->port_file, "Write the bound port to this file");
  serve->notify.Register(s);
  s->add_flag("--ui", serve->ui, "Serve the web UI under /ui/ beside the REST API");
  AddUiFlags(s, serve->ui_flags, "--ui-");
  s->callback([serve, &exit_code] { exit_code = RunServe(*serve); });

  // register SUBJECT FILE
  {
    auto f = std::make_shared<ClientFlags>();
    auto subject = std::make_shared<std::string>();
    auto file = std::make_shared<std::string>();
    auto type = std::make_shared<std::string>("auto");
    auto normalize = std::make_shared<bool>(false);
    CLI::App* c = reg->add_subcommand("register", "Register a schema file under a subject");
    c->add_option("subject", *subject, "Subject")->required();
    c->add_option("file", *file, "Schema file (- for stdin)")->required();
    c->add_option("--type", *type, "avro, json or auto (from the file)")
        ->transform(OneOf({"auto", "avro", "json"}))
        ->capture_default_str();
    c->add_flag("--normalize", *normalize, "Ask the registry to normalize the schema");
    AddClientFlags(c, *f);
    c->callback([=, &exit_code] {
      auto r = PostSchemaFile(*f,
                              "/subjects/" + EncodeSegment(*subject) + "/versions" +
                                  (*normalize ? "?normalize=true" : ""),
                              *file, *type);
      if (r.has_value() && r->status == 409) {
        std::cerr << "incompatible: " << Client::ErrorMessage(*r) << "\n";
        exit_code = kExitFindings;
        return;
      }
      exit_code = Print(r, false);
    });
  }

  // get (--id N | SUBJECT [--version V])
  {
    auto f = std::make_shared<ClientFlags>();
    auto subject = std::make_shared<std::string>();
    auto version = std::make_shared<std::string>("latest");
    auto id = std::make_shared<int64_t>(-1);
    auto schema_only = std::make_shared<bool>(false);
    CLI::App* c = reg->add_subcommand("get", "Show a subject's version, or a schema by id");
    c->add_option("subject", *subject, "Subject");
    c->add_option("--version", *version, "Version number or latest")->capture_default_str();
    c->add_option("--id", *id, "Schema id (instead of a subject)");
    c->add_flag("--schema-only", *schema_only, "Print only the schema text");
    AddClientFlags(c, *f);
    c->callback([=, &exit_code] {
      if (subject->empty() == (*id < 0)) {
        exit_code =
            ReportError(Error(ErrorCode::kInvalidArgument, "give a SUBJECT or --id, not both"));
        return;
      }
      auto client = Connect(*f);
      if (!client.has_value()) {
        exit_code = ReportError(client.error());
        return;
      }
      std::string path = *id >= 0 ? "/schemas/ids/" + std::to_string(*id)
                                  : "/subjects/" + EncodeSegment(*subject) + "/versions/" +
                                        EncodeSegment(*version);
      if (*schema_only) path += "/schema";
      exit_code = Print((*client)->Call("GET", path));
    });
  }

  // list
  {
    auto f = std::make_shared<ClientFlags>();
    auto prefix = std::make_shared<std::string>();
    auto deleted = std::make_shared<bool>(false);
    CLI::App* c = reg->add_subcommand("list", "List subjects");
    c->add_option("--prefix", *prefix, "Only subjects starting with this");
    c->add_flag("--deleted", *deleted, "Include soft-deleted subjects");
    AddClientFlags(c, *f);
    c->callback([=, &exit_code] {
      auto client = Connect(*f);
      if (!client.has_value()) {
        exit_code = ReportError(client.error());
        return;
      }
      std::string path = "/subjects?deleted=" + std::string(*deleted ? "true" : "false");
      if (!prefix->empty()) path += "&subjectPrefix=" + EncodeSegment(*prefix);
      exit_code = Print((*client)->Call("GET", path), false);
    });
  }

  // versions SUBJECT
  {
    auto f = std::make_shared<ClientFlags>();
    auto subject = std::make_shared<std::string>();
    auto deleted = std::make_shared<bool>(false);
    CLI::App* c = reg->add_subcommand("versions", "List a subject's versions");
    c->add_option("subject", *subject, "Subject")->required();
    c->add_flag("--deleted", *deleted, "Include soft-deleted versions");
    AddClientFlags(c, *f);
    c->callback([=, &exit_code] {
      auto client = Connect(*f);
      if (!client.has_value()) {
        exit_code = ReportError(client.error());
        return;
      }
      exit_code = Print((*client)->Call("GET", "/subjects/" + EncodeSegment(*subject) +
                                                   "/versions" + (*deleted ? "?deleted=true" : "")),
                        false);
    });
  }

  // compat SUBJECT FILE [--version V]
  {
    auto f = std::make_shared<ClientFlags>();
    auto subject = std::make_shared<std::string>();
    auto file = std::make_shared<std::string>();
    auto type = std::make_shared<std::string>("auto");
    auto version = std::make_shared<std::string>();
    CLI::App* c = reg->add_subcommand(
        "compat", "Check a schema file against a live subject (exit 1 when incompatible)");
    c->add_option("subject", *subject, "Subject")->required();
    c->add_option("file", *file, "Schema file (- for stdin)")->required();
    c->add_option("--type", *type, "avro, json or auto (from the file)")
        ->transform(OneOf({"auto", "avro", "json"}))
        ->capture_default_str();
    c->add_option("--version", *version,
                  "Check against this one version only (default: what the level implies)");
    AddClientFlags(c, *f);
    c->callback([=, &exit_code] {
      std::string path = "/compatibility/subjects/" + EncodeSegment(*subject) + "/versions";
      if (!version->empty()) path += "/" + EncodeSegment(*version);
      path += "?verbose=true";
      auto r = PostSchemaFile(*f, path, *file, *type);
      if (!r.has_value()) {
        exit_code = ReportError(r.error());
        return;
      }
      if (r->status != 200) {
        std::cerr << "error: " << Client::ErrorMessage(*r) << "\n";
        exit_code = kExitError;
        return;
      }
      auto v = ParseJson(r->body);
      const JsonValue* ok = v.has_value() ? v->Find("is_compatible") : nullptr;
      if (!ok || !ok->is_bool()) {
        std::cerr << "error: unexpected reply: " << r->body << "\n";
        exit_code = kExitError;
        return;
      }
      if (ok->as_bool()) {
        std::cout << "compatible with subject " << *subject << "\n";
        exit_code = kExitOk;
        return;
      }
      std::cout << "incompatible with subject " << *subject << ":\n";
      if (const JsonValue* msgs = v->Find("messages"); msgs && msgs->is_array()) {
        for (const JsonValue& m : msgs->items()) {
          if (m.is_string()) std::cout << "  " << m.as_string() << "\n";
        }
      }
      exit_code = kExitFindings;
    });
  }

  // config [SUBJECT] [--set LEVEL]
  {
    auto f = std::make_shared<ClientFlags>();
    auto subject = std::make_shared<std::string>();
    auto level = std::make_shared<std::string>();
    CLI::App* c = reg->add_subcommand(
        "config", "Show or set the compatibility level of a subject or the registry");
    c->add_option("subject", *subject, "Subject (default: the registry's global level)");
    c->add_option("--set", *level, "New level: NONE, BACKWARD, FULL_TRANSITIVE, ...")
        ->transform(OneOf({"NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD",
                           "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"}));
    AddClientFlags(c, *f);
    c->callback([=, &exit_code] {
      auto client = Connect(*f);
      if (!client.has_value()) {
        exit_code = ReportError(client.error());
        return;
      }
      std::string path = subject->empty() ? "/config" : "/config/" + EncodeSegment(*subject);
      if (level->empty()) {
        exit_code =
            Print((*client)->Call("GET", path + (subject->empty() ? "" : "?defaultToGlobal=true")));
        return;
      }
      std::string body = "{\"compatibility\":";
      AppendJsonString(body, *level);
      exit_code = Print((*client)->Call("PUT", path, body + "}"));
    });
  }

  // delete SUBJECT [--version V] [--permanent]
  {
    auto f = std::make_shared<ClientFlags>();
    auto subject = std::make_shared<std::string>();
    auto version = std::make_shared<std::string>();
    auto permanent = std::make_shared<bool>(false);
    CLI::App* c = reg->add_subcommand(
        "delete", "Delete a subject or one version (soft; --permanent after a soft delete)");
    c->add_option("subject", *subject, "Subject")->required();
    c->add_option("--version", *version, "Only this version");
    c->add_flag("--permanent", *permanent, "Hard delete (must be soft-deleted first)");
    AddClientFlags(c, *f);
    c->callback([=, &exit_code] {
      auto client = Connect(*f);
      if (!client.has_value()) {
        exit_code = ReportError(client.error());
        return;
      }
      std::string path = "/subjects/" + EncodeSegment(*subject);
      if (!version->empty()) path += "/versions/" + EncodeSegment(*version);
      if (*permanent) path += "?permanent=true";
      exit_code = Print((*client)->Call("DELETE", path), false);
    });
  }

  // hash-password
  {
    auto iterations = std::make_shared<int>(100000);
    CLI::App* c = reg->add_subcommand(
        "hash-password", "Read a password on stdin, print its hash for the users file");
    c->add_option("--iterations", *iterations, "PBKDF2 iterations")->capture_default_str();
    c->callback([=, &exit_code] {
      std::string password;
      std::getline(std::cin, password);
      if (!password.empty() && password.back() == '\r') password.pop_back();
      if (password.empty()) {
        exit_code = ReportError(Error(ErrorCode::kInvalidArgument, "no password on stdin"));
        return;
      }
      auto h = registry::HashPassword(password, *iterations);
      if (!h.has_value()) {
        exit_code = ReportError(h.error());
        return;
      }
      std::cout << *h << "\n";
      exit_code = kExitOk;
    });
  }
}

}  // namespace sluice::cli
