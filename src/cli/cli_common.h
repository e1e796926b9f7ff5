// What every sluice subcommand shares: exit codes, reading schema files, printing notes and
// errors. Only src/cli talks to the terminal.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/base/std_io.h"
#include "sluice/dialects/contract/contract.h"
#include "sluice/dialects/format.h"
#include "sluice/registry/client.h"
#include "sluice/report/format.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace CLI {
class App;
class Validator;
}  // namespace CLI

namespace sluice::cli {

/// Exit codes: 0 when all holds, 1 when a check found changes or violations, 2 for usage or
/// input errors.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitError = 2;

/// Schema files larger than this are refused before parsing.
inline constexpr size_t kMaxSchemaFileBytes = size_t{64} << 20;

/// Read a file through the local file system, or standard input for "-".
Result<std::string> ReadInput(const std::string& path);

/// A schema file's bytes: ReadInput's, but of a Parquet file (a `.parquet` name, read as
/// `from` or detected) only the footer and what follows it, checked, whatever the file's size.
Result<std::string> ReadSchemaInput(const std::string& path, const std::string& from);

/// A schema file read into the model, with its detected format and the text it came from.
struct LoadedSchema {
  std::string path;
  std::string content;
  dialects::Format format;
  schema::SchemaPtr schema;
  std::vector<schema::LossyNote> notes;
};

/// Read `path` and parse it as `from` (a format name) or, when empty, as detected.
/// Errors carry the path in front of the message.
Result<LoadedSchema> LoadSchema(const std::string& path, const std::string& from);

/// Read any contract file: the seed YAML contract, ODCS v3, or the legacy Data Contract
/// Specification. Errors carry the path in front of the message.
Result<dialects::contract::Contract> LoadContract(const std::string& path);

/// Print notes to stderr as "note: <source>: <path>: <message>" ("note:" in yellow on a terminal).
void PrintNotes(const std::vector<schema::LossyNote>& notes, std::string_view source);

/// Print "sluice: error: <message>" to stderr ("error:" in red on a terminal) and return
/// kExitError.
int ReportError(const Error& error);

/// Write `text` to `path` through the local file system (sluice::WriteOutput: replaced
/// atomically, devices and pipes written in place), or to stdout when `path` is empty or "-".
Status WriteOutput(const std::string& path, std::string_view text);

/// The schema format named by an `--as` flag; when it is empty, a tree on a terminal (easiest to
/// read) and Spark JSON in a pipe (what other tools take).
Result<dialects::Format> OutputFormat(const std::string& as);

/// True if standard output (fd 1) or standard error (fd 2) is a terminal.
bool IsTerminal(int fd);

/// Whether text written to `fd` may be coloured, as git and buf decide: `fd` is a terminal,
/// NO_COLOR is unset or empty, and TERM is not "dumb".
bool ColorEnabled(int fd);

/// The output flags of every command that prints a result: `--format` (the output's format,
/// in any case), `-o/--output` (a file instead of standard output) and `-q/--quiet`.
struct OutputFlags {
  std::string format = "text";
  std::string output;
  bool quiet = false;

  /// Add the three flags to `cmd`; `formats` are the values --format takes, the first the
  /// default. `output_help` says what -o writes.
  void Register(
      CLI::App* cmd, const std::vector<std::string>& formats,
      const std::string& output_help = "Write the result here instead of standard output");
  Result<report::Format> Format() const { return report::ParseFormat(format); }
  /// Colour for text going to a terminal.
  report::RenderOptions Render() const;
};

/// Write a rendered result where `flags` say: the -o file (replaced atomically) or standard
/// output. The error names the flag and the path.
Status WriteResult(const OutputFlags& flags, std::string_view text);

/// Check that `path` can be written before a long run starts: open it for writing and discard
/// it. "" and "-" always can. The error names `flag` and the path.
Status CheckWritable(std::string_view flag, const std::string& path);

/// `--listen HOST:PORT` into its parts (port 0: any free port); kInvalidArgument otherwise.
Status ParseListen(const std::string& listen, std::string& host, int& port);

/// `--threads N`, N at least 1 (leave the flag out for one thread per core).
void AddThreadsFlag(CLI::App* cmd, unsigned& threads);

/// A check for an option that takes one of `values`, in any case: the value becomes the
/// member's own spelling ("Merge" -> "merge"); anything else is refused with the list and the
/// nearest member.
CLI::Validator OneOf(std::vector<std::string> values);

/// Where a schema registry is and how to log in to it: the flags of every command that talks to
/// one (`sluice registry ...`, `sluice decode`, `sluice encode`).
struct RegistryFlags {
  std::string url = "http://127.0.0.1:8081";
  std::string user;
  std::string ca_cert;
};

/// Add `url_flag` (the registry's URL, else SLUICE_REGISTRY_URL), `--user` (USER:PASSWORD, else
/// SLUICE_REGISTRY_USER) and `--ca-cert` to `cmd`.
void AddRegistryFlags(CLI::App* cmd, RegistryFlags& flags, const std::string& url_flag = "--url");

/// A client for the registry the flags name.
Result<std::unique_ptr<registry::Client>> ConnectRegistry(const RegistryFlags& flags);

}  // namespace sluice::cli
