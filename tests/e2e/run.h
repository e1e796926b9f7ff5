// Run the sluice binary from a test and capture what it prints and how it exits.
#pragma once

#include <string>
#include <vector>

namespace sluice::e2e {

struct RunResult {
  int exit_code = -1;  // -1 if killed by a signal
  int signal = 0;
  std::string out;
  std::string err;
};

/// Run build/sluice with `args` (no shell involved), in the source folder so example paths work.
RunResult RunSluice(const std::vector<std::string>& args, const std::string& stdin_text = "");

/// Run build/sluice with `args` on a pseudo-terminal (standard output and error both the
/// terminal, read back into `out`), with `env` ("NAME=value") added to the environment, so
/// tests see what a person at a terminal sees.
RunResult RunSluiceOnTerminal(const std::vector<std::string>& args,
                              const std::vector<std::string>& env = {});

/// Write `content` to a fresh temporary file whose name ends in `suffix`; return its path.
std::string TempFile(const std::string& suffix, const std::string& content);

}  // namespace sluice::e2e
