// Running a peer implementation from a differential test: the process, its log and output, a
// scratch folder.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/temp_dir_testing.h"

extern char** environ;

namespace sluice::testing {

// Run argv (argv[0] a path) with stdout and stderr appended to `log`; return its exit status,
// or -1 when it could not be started or did not exit normally.
inline int RunProcess(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Every line of a peer's JSON lines output, parsed; a line that does not parse fails the test.
inline std::vector<JsonValue> ReadJsonLines(const std::filesystem::path& path) {
  std::vector<JsonValue> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto v = ParseJson(line);
    EXPECT_TRUE(v.has_value()) << line.substr(0, 200);
    if (v) out.push_back(std::move(v).value());
  }
  return out;
}

// The last 4,000 bytes of a log, for a failure message.
inline std::string LogTail(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > 4000 ? text.substr(text.size() - 4000) : text;
}

}  // namespace sluice::testing
