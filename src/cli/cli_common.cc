#include "cli/cli_common.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <cstdio>
#include <iostream>
#include <iterator>

#include "sluice/base/file_system.h"
#include "sluice/dialects/contract/dcs.h"

namespace sluice::cli {

Result<std::string> ReadInput(const std::string& path) {
  if (path == "-") {
    std::string data;
    char buf[1 << 16];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
      data.append(buf, n);
      if (data.size() > kMaxSchemaFileBytes) {
        return InvalidArgument(fmt::format("standard input is larger than the limit of {} bytes",
                                           kMaxSchemaFileBytes));
      }
    }
    return data;
  }
  auto fs = NewLocalFileSystem();
  return fs->ReadFile(path, kMaxSchemaFileBytes);
}

Result<LoadedSchema> LoadSchema(const std::string& path, const std::string& from) {
  LoadedSchema out;
  out.path = path;
  SLUICE_ASSIGN_OR_RETURN(out.content, ReadInput(path));
  auto format =
      from.empty() ? dialects::DetectFormat(path, out.content) : dialects::ParseFormatName(from);
  if (!format.has_value()) return Fail(format.error().WithContext(path));
  out.format = *format;
  auto read = dialects::ReadSchema(out.content, out.format);
  if (!read.has_value()) return Fail(read.error().WithContext(path));
  out.schema = std::move(read->value);
  out.notes = std::move(read->notes);
  return out;
}

Result<dialects::contract::Contract> LoadContract(const std::string& path) {
  namespace contract = dialects::contract;
  SLUICE_ASSIGN_OR_RETURN(std::string text, ReadInput(path));
  Result<contract::Contract> c = contract::LooksLikeDcs(text) ? contract::ParseDcs(text)
                                 : contract::LooksLikeOdcs(text)
                                     ? contract::ParseOdcs(text)
                                     : contract::ParseSeedContract(text);
  if (!c.has_value()) return Fail(c.error().WithContext(path));
  return c;
}

void PrintNotes(const std::vector<schema::LossyNote>& notes, std::string_view source) {
  for (const auto& n : notes) {
    std::cerr << "note: " << source << ": " << n.ToString() << "\n";
  }
}

int ReportError(const Error& error) {
  std::cerr << "sluice: error: " << error.message() << "\n";
  return kExitError;
}

Status WriteOutput(const std::string& path, std::string_view text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) return IoError("cannot write to standard output");
    return Ok();
  }
  if (IsSpecialFile(path)) return WriteSpecialFile(path, text);
  auto fs = NewLocalFileSystem();
  return fs->WriteFile(path, text);
}

bool IsSpecialFile(const std::string& path) {
  struct stat st{};
  // stat follows links: /dev/stdout is a link to a descriptor, /dev/null a character device.
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

Status WriteSpecialFile(const std::string& path, std::string_view text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return IoError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return IoError(fmt::format("{}: write failed: {}", path, std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return Ok();
}

bool IsTerminal(int fd) { return ::isatty(fd) == 1; }

void AddRegistryFlags(CLI::App* cmd, RegistryFlags& flags, const std::string& url_flag) {
  cmd->add_option(url_flag, flags.url, "The registry: http(s)://HOST:PORT")
      ->envname("SLUICE_REGISTRY_URL")
      ->capture_default_str();
  cmd->add_option("--user", flags.user, "USER:PASSWORD for basic auth")
      ->envname("SLUICE_REGISTRY_USER");
  cmd->add_option("--ca-cert", flags.ca_cert, "PEM file to trust for https");
}

Result<std::unique_ptr<registry::Client>> ConnectRegistry(const RegistryFlags& flags) {
  return registry::Client::Create({flags.url, flags.user, flags.ca_cert});
}

Result<dialects::Format> OutputFormat(const std::string& as) {
  if (!as.empty()) return dialects::ParseFormatName(as);
  return IsTerminal(1) ? dialects::Format::kTree : dialects::Format::kSparkJson;
}

}  // namespace sluice::cli
