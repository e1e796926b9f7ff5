#include "cli/cli_common.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "sluice/base/std_io.h"
#include "sluice/dialects/contract/dcs.h"

namespace sluice::cli {

Result<std::string> ReadInput(const std::string& path) {
  return sluice::ReadInput(*LocalFileSystem(), path, kMaxSchemaFileBytes);
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
  return sluice::WriteOutput(*LocalFileSystem(), path, text);
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
