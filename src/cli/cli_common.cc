#include "cli/cli_common.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "cli/usage_errors.h"
#include "sluice/base/std_io.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/contract/dcs.h"
#include "sluice/dialects/parquet/parquet_schema.h"

namespace sluice::cli {

Result<std::string> ReadInput(const std::string& path) {
  return sluice::ReadInput(*LocalFileSystem(), path, kMaxSchemaFileBytes);
}

namespace {

// A Parquet file's schema is in its footer: only the file's tail is read, whatever its size,
// and checked here, where its place in the file is known (errors name file offsets).
Result<std::string> ReadParquetTail(const std::string& path) {
  namespace pqd = dialects::parquet;
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                          LocalFileSystem()->OpenRandomAccess(path));
  const uint64_t size = file->size();
  if (size < 12) {
    return InvalidArgument(fmt::format(
        "{}: not a Parquet file: {} bytes, a Parquet file has at least 12", path, size));
  }
  std::string tail(pqd::kTailBytes, '\0');
  SLUICE_TRY(file->ReadAt(size - tail.size(), tail.size(), tail.data()));
  auto length = pqd::FooterLength(tail, size - tail.size());
  if (!length.has_value()) return Fail(length.error().WithContext(path));
  if (*length > size - 12) {
    return InvalidArgument(
        fmt::format("{}: byte {}: the footer's length ({} bytes) runs past the start "
                    "of the file ({} bytes)",
                    path, size - tail.size(), *length, size));
  }
  std::string content(*length + tail.size(), '\0');
  SLUICE_TRY(file->ReadAt(size - content.size(), content.size(), content.data()));
  auto read = pqd::ReadSchema(content, size - content.size());
  if (!read.has_value()) return Fail(read.error().WithContext(path));
  return content;
}

bool IsParquetPath(const std::string& path, const std::string& from) {
  return EndsWith(AsciiLower(path), ".parquet") && (from.empty() || AsciiLower(from) == "parquet");
}

}  // namespace

Result<std::string> ReadSchemaInput(const std::string& path, const std::string& from) {
  if (IsParquetPath(path, from) && path != "-") return ReadParquetTail(path);
  return ReadInput(path);
}

Result<LoadedSchema> LoadSchema(const std::string& path, const std::string& from) {
  LoadedSchema out;
  out.path = path;
  SLUICE_ASSIGN_OR_RETURN(out.content, ReadSchemaInput(path, from));
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

namespace {

std::string_view Red(bool color) { return color ? "\x1b[31m" : ""; }
std::string_view Yellow(bool color) { return color ? "\x1b[33m" : ""; }
std::string_view Reset(bool color) { return color ? "\x1b[0m" : ""; }

}  // namespace

void PrintNotes(const std::vector<schema::LossyNote>& notes, std::string_view source) {
  const bool color = ColorEnabled(2);
  for (const auto& n : notes) {
    std::cerr << Yellow(color) << "note:" << Reset(color) << " " << source << ": " << n.ToString()
              << "\n";
  }
}

int ReportError(const Error& error) {
  const bool color = ColorEnabled(2);
  std::cerr << "sluice: " << Red(color) << "error:" << Reset(color) << " " << error.message()
            << "\n";
  return kExitError;
}

bool ColorEnabled(int fd) {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return IsTerminal(fd);
}

void OutputFlags::Register(CLI::App* cmd, const std::vector<std::string>& formats,
                           const std::string& output_help) {
  format = formats.front();
  std::string names;
  for (const std::string& f : formats) names += (names.empty() ? "" : ", ") + f;
  cmd->add_option("--format", format, "Output format: " + names)
      ->transform(OneOf(formats))
      ->capture_default_str();
  cmd->add_option("-o,--output", output, output_help);
  cmd->add_flag("-q,--quiet", quiet, "Quiet: no notes, summaries or progress on standard error");
}

report::RenderOptions OutputFlags::Render() const {
  return {.color = format == "text" && IsStandardStream(output) && ColorEnabled(1)};
}

Status WriteResult(const OutputFlags& flags, std::string_view text) {
  Status st = WriteOutput(flags.output, text);
  if (!st.has_value() && !IsStandardStream(flags.output)) {
    return Fail(st.error().WithContext("--output"));
  }
  return st;
}

Status CheckWritable(std::string_view flag, const std::string& path) {
  if (IsStandardStream(path)) return Ok();
  auto file = LocalFileSystem()->OpenWritable(path, {.sync = false});
  if (!file.has_value()) return Fail(file.error().WithContext(flag));
  return Ok();
}

void AddThreadsFlag(CLI::App* cmd, unsigned& threads) {
  CLI::Validator at_least_one(
      [](std::string& v) -> std::string {
        char* end = nullptr;
        long n = std::strtol(v.c_str(), &end, 10);
        if (end == v.c_str() || *end != '\0' || n < 1 || n > 1024) {
          return "takes a number of threads from 1 to 1024, not '" + v +
                 "' (leave it out for one thread per core)";
        }
        return "";
      },
      "N >= 1");
  cmd->add_option("--threads", threads, "Worker threads, 1 or more (default: one per core)")
      ->check(at_least_one);
}

CLI::Validator OneOf(std::vector<std::string> values) {
  std::string list;
  for (const std::string& v : values) list += (list.empty() ? "" : "|") + v;
  return CLI::Validator(
      [values](std::string& v) -> std::string {
        const std::string lower = AsciiLower(v);
        for (const std::string& m : values) {
          if (AsciiLower(m) == lower) {
            v = m;
            return "";
          }
        }
        std::string all;
        for (const std::string& m : values) all += (all.empty() ? "" : ", ") + m;
        std::string near = NearestWord(lower, values);
        return "'" + v + "' is not one of " + all +
               (near.empty() ? "" : "; did you mean '" + near + "'?");
      },
      list);
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

Status ParseListen(const std::string& listen, std::string& host, int& port) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return InvalidArgument("--listen must be HOST:PORT");
  host = listen.substr(0, colon);
  const std::string digits = listen.substr(colon + 1);
  port = digits.empty() || digits.size() > 5 ? -1 : 0;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      port = -1;
      break;
    }
    port = port * 10 + (c - '0');
  }
  if (port < 0 || port > 65535) return InvalidArgument("--listen: bad port in " + listen);
  return Ok();
}

}  // namespace sluice::cli
