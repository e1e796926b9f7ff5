// The web UI's server side: its static files and its read-only JSON endpoints (subjects as
// trees, diffs and verdicts; Delta tables; ingest checkpoints; drift alerts), answered through
// the registry server's request hook (registry::ServerOptions::handler) under /ui/.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/registry/auth.h"
#include "sluice/registry/client.h"
#include "sluice/registry/http_server.h"
#include "sluice/registry/registry.h"
#include "sluice/registry/server.h"

namespace sluice::ui {

/// A configured table, checkpoint or outbox: the name the page shows and its path.
struct NamedPath {
  std::string name;
  std::string path;
};

/// Parse a flag value "NAME=PATH", or a bare "PATH" named by its last folder component
/// ("/data/users/" is "users"). kInvalidArgument for an empty name or path.
Result<NamedPath> ParseNamedPath(std::string_view flag);

/// A registry answer: status and JSON body.
struct RegistryReply {
  int status = 0;
  std::string body;
};

/// How the UI reaches the registry's REST API, as the caller of `request` (whose permissions
/// or `Authorization` header apply). A transport failure is an error; any status is a reply.
using RegistryCall = std::function<Result<RegistryReply>(
    std::string_view method, std::string_view target, std::string_view body,
    const registry::HttpRequest& request, const registry::UserPolicy* user)>;

/// The registry in this process: Registry::Handle with the caller's policy. `registry` must
/// outlive the returned function.
RegistryCall LocalRegistry(registry::Registry* registry);
/// A registry elsewhere, through `client`, with the caller's `Authorization` header passed on.
RegistryCall RemoteRegistry(std::shared_ptr<registry::Client> client);

struct UiOptions {
  std::vector<NamedPath> tables;
  std::vector<NamedPath> ingest;  // checkpoint folders
  std::vector<NamedPath> alerts;  // outbox databases
  /// The registry the subject endpoints read; empty: none (they answer 404).
  RegistryCall registry;
  /// Answer every request outside /ui by passing it to `registry` (`sluice ui --registry`), so
  /// the page reaches the REST API on its own origin.
  bool forward_registry = false;
  /// The server's CSRF token (registry::Server::csrf_token), returned by /ui/api/session.
  std::string csrf_token;
  /// Where tables, checkpoints and quarantine files are read; null: the local file system.
  std::shared_ptr<FileSystem> fs;
};

/// Thread-safe: one per server, called from every handler thread.
class Ui {
 public:
  explicit Ui(UiOptions options);
  ~Ui();

  /// The hook for registry::ServerOptions::handler: answers `/ui` and `/ui/...` (and, with
  /// forward_registry, everything else); nullopt passes the request on to the REST API. `user`
  /// is the authenticated caller, null without auth.
  std::optional<registry::HttpResponse> Handle(registry::HttpRequest& request,
                                               const registry::UserPolicy* user);

  /// The hook for registry::ServerOptions::finish: the security headers on every `/ui/`
  /// answer the server gives itself (a 401 for missing credentials, a 403 from the CSRF
  /// check), as on the UI's own.
  void Finish(const registry::HttpRequest& request, registry::HttpResponse& response) const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// Set `options`' handler and finish hooks to `ui` (kept alive by them).
void Install(std::shared_ptr<Ui> ui, registry::ServerOptions& options);

}  // namespace sluice::ui
