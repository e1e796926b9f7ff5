// What `sluice registry serve` and `sluice ui` share once their server is built: the users file,
// binding, the port file, the banner, and serving until SIGINT or SIGTERM.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "sluice/base/result.h"
#include "sluice/registry/server.h"

namespace sluice::cli {

/// The users of `--auth FILE` (basic auth and permissions), or none when `path` is empty.
Result<std::unique_ptr<registry::Users>> LoadUsers(const std::string& path);

/// Bind `server`, write the bound port to `port_file` (unless empty), call `announce` with the
/// port, then serve until SIGINT or SIGTERM stops it. Returns the command's exit code.
int ServeUntilSignalled(registry::Server& server, const std::string& port_file,
                        const std::function<void(int port)>& announce);

}  // namespace sluice::cli
