#include "cli/serve.h"

#include <atomic>
#include <csignal>

#include "cli/cli_common.h"
#include "sluice/base/file_system.h"

namespace sluice::cli {
namespace {

std::atomic<registry::Server*> g_serving{nullptr};

void StopOnSignal(int) {
  if (registry::Server* server = g_serving.load()) server->Stop();
}

}  // namespace

Result<std::unique_ptr<registry::Users>> LoadUsers(const std::string& path) {
  if (path.empty()) return std::unique_ptr<registry::Users>();
  return registry::Users::Load(*LocalFileSystem(), path);
}

int ServeUntilSignalled(registry::Server& server, const std::string& port_file,
                        const std::function<void(int port)>& announce) {
  if (Status s = server.Bind(); !s.has_value()) return ReportError(s.error());
  const int port = server.port();
  if (!port_file.empty()) {
    if (Status s = WriteOutput(port_file, std::to_string(port) + "\n"); !s.has_value()) {
      return ReportError(s.error());
    }
  }
  announce(port);
  g_serving.store(&server);
  std::signal(SIGINT, StopOnSignal);
  std::signal(SIGTERM, StopOnSignal);
  std::signal(SIGPIPE, SIG_IGN);
  Status run = server.Run();
  g_serving.store(nullptr);
  if (!run.has_value()) return ReportError(run.error());
  return kExitOk;
}

}  // namespace sluice::cli
