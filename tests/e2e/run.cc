#include "e2e/run.h"

#include <fcntl.h>
#include <pty.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sluice_test_paths.h"

extern char** environ;

namespace sluice::e2e {

namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The files TempFile made, removed when the test process exits so that runs leave nothing
// behind in /tmp.
class TempFiles {
 public:
  ~TempFiles() {
    for (const std::string& path : paths_) ::unlink(path.c_str());
  }
  void Add(std::string path) { paths_.push_back(std::move(path)); }

 private:
  std::vector<std::string> paths_;
};

TempFiles& CreatedTempFiles() {
  static TempFiles files;
  return files;
}

}  // namespace

std::string TempFile(const std::string& suffix, const std::string& content) {
  std::string tmpl = "/tmp/sluice_e2e_XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  int fd = ::mkstemp(buf.data());
  ::close(fd);
  std::string path = std::string(buf.data()) + suffix;
  ::rename(buf.data(), path.c_str());
  std::ofstream(path, std::ios::binary) << content;
  CreatedTempFiles().Add(path);
  return path;
}

RunResult RunSluice(const std::vector<std::string>& args, const std::string& stdin_text) {
  std::string in_path = TempFile(".in", stdin_text);
  std::string out_path = TempFile(".out", "");
  std::string err_path = TempFile(".err", "");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&actions, SLUICE_SOURCE_DIR);

  std::vector<std::string> argv_store = {SLUICE_BINARY};
  argv_store.insert(argv_store.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);

  RunResult r;
  pid_t pid = 0;
  if (posix_spawn(&pid, SLUICE_BINARY, &actions, nullptr, argv.data(), environ) == 0) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  }
  posix_spawn_file_actions_destroy(&actions);
  r.out = Slurp(out_path);
  r.err = Slurp(err_path);
  ::unlink(in_path.c_str());
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return r;
}

RunResult RunSluiceOnTerminal(const std::vector<std::string>& args,
                              const std::vector<std::string>& env) {
  std::vector<std::string> argv_store = {SLUICE_BINARY};
  argv_store.insert(argv_store.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_store;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv = *e;
    // The test decides about colour; the caller's own settings stay out.
    if (kv.starts_with("NO_COLOR=") || kv.starts_with("TERM=")) continue;
    env_store.emplace_back(kv);
  }
  bool term_given = false;
  for (const std::string& e : env) term_given = term_given || e.starts_with("TERM=");
  if (!term_given) env_store.emplace_back("TERM=xterm");
  env_store.insert(env_store.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);

  RunResult r;
  int master = -1;
  pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) return r;
  if (pid == 0) {
    if (::chdir(SLUICE_SOURCE_DIR) != 0) ::_exit(127);
    ::execve(SLUICE_BINARY, argv.data(), envp.data());
    ::_exit(127);
  }
  char buf[4096];
  while (true) {
    ssize_t n = ::read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the child has closed the terminal
    r.out.append(buf, static_cast<size_t>(n));
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace sluice::e2e
