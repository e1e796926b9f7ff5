// Flags and helpers the record commands share (validate, infer, cat): CSV options, input and
// output formats, the progress bar, the CPU check and the input file list.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "sluice/base/result.h"
#include "sluice/base/strings.h"
#include "sluice/data/file_runs.h"
#include "sluice/report/format.h"

namespace sluice::cli {

/// The data plane's JSON parsing is built for AVX2 CPUs unless the build chose otherwise:
/// kUnimplemented on a CPU without them.
Status CheckCpu();

/// The format of the inputs: `flag`, or each file's own when it is "auto" (they must agree).
Result<data::RecordFormat> ResolveFormat(const std::string& flag,
                                         const std::vector<std::string>& files);

/// permissive, dropmalformed or failfast, in any case.
Result<data::ParseMode> ParseModeName(const std::string& m);

/// The files the paths name (folders read as Spark reads them), through the local file system.
Result<std::vector<std::string>> InputFiles(const std::vector<std::string>& paths,
                                            const std::string& pattern);

// Progress on stderr when it is a terminal: bytes, records/s, ETA; redrawn at most 5 times a
// second.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled), start_(Clock::now()) {}
  void Update(const data::Progress& p) {
    if (!enabled_) return;
    auto now = Clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(200) && p.bytes_done < p.bytes_total) {
      return;
    }
    last_ = now;
    drawn_ = true;
    double secs = std::chrono::duration<double>(now - start_).count();
    double mb = static_cast<double>(p.bytes_done) / 1e6;
    double total_mb = static_cast<double>(p.bytes_total) / 1e6;
    double rate = secs > 0 ? static_cast<double>(p.records) / secs : 0;
    double frac = p.bytes_total > 0 ? static_cast<double>(p.bytes_done) / p.bytes_total : 0;
    std::string eta = "--";
    if (frac > 0.01 && frac < 1.0) eta = fmt::format("{:.0f}s", secs / frac - secs);
    int width = 24;
    int filled = static_cast<int>(frac * width);
    fmt::print(stderr, "\r[{}{}] {:.1f}/{:.1f} MB  {:.0f} records/s  ETA {}   ",
               std::string(static_cast<size_t>(filled), '#'),
               std::string(static_cast<size_t>(width - filled), ' '), mb, total_mb, rate, eta);
  }
  void Done() {
    if (enabled_ && drawn_) fmt::print(stderr, "\r{}\r", std::string(90, ' '));
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_;
  Clock::time_point last_;
};

// CSV flags shared by the record commands.
struct CsvFlags {
  std::string sep = ",";
  std::string quote = "\"";
  std::string escape = "\\";
  std::string comment;
  std::string null_value;
  std::string empty_value;
  bool no_header = false;
  bool multi_line = false;
  bool ignore_leading = false;
  bool ignore_trailing = false;

  void Register(CLI::App* cmd) {
    cmd->add_option("--sep", sep, "CSV: field separator, one character ('\\t' for tab)");
    cmd->add_option("--quote", quote, "CSV: quote character");
    cmd->add_option("--escape", escape, "CSV: character escaping a quote inside quotes");
    cmd->add_option("--comment", comment, "CSV: lines starting with this character are skipped");
    cmd->add_option("--null-value", null_value, "CSV: unquoted text read as null (default: empty)");
    cmd->add_option("--empty-value", empty_value, "CSV: what a quoted empty value reads as");
    cmd->add_flag("--no-header", no_header,
                  "CSV: the first line is data; columns are _c0, _c1, ... (by position)");
    cmd->add_flag("--multi-line", multi_line, "CSV: quoted values may span lines");
    cmd->add_flag("--ignore-leading-white-space", ignore_leading,
                  "CSV: drop spaces before unquoted values");
    cmd->add_flag("--ignore-trailing-white-space", ignore_trailing,
                  "CSV: drop spaces after unquoted values");
  }

  Result<data::CsvRunOptions> Build() const {
    auto one_char = [](const std::string& flag, const std::string& v) -> Result<char> {
      if (v == "\\t" || v == "tab") return '\t';
      if (v.size() != 1) {
        return InvalidArgument(fmt::format("{} takes exactly one character, not '{}'", flag, v));
      }
      return v[0];
    };
    data::CsvRunOptions o;
    SLUICE_ASSIGN_OR_RETURN(o.reader.sep, one_char("--sep", sep));
    SLUICE_ASSIGN_OR_RETURN(o.reader.quote, one_char("--quote", quote));
    SLUICE_ASSIGN_OR_RETURN(o.reader.escape, one_char("--escape", escape));
    if (!comment.empty()) {
      SLUICE_ASSIGN_OR_RETURN(char c, one_char("--comment", comment));
      o.reader.comment = c;
    }
    o.reader.multi_line = multi_line;
    o.reader.ignore_leading_white_space = ignore_leading;
    o.reader.ignore_trailing_white_space = ignore_trailing;
    o.header = !no_header;
    o.null_value = null_value;
    o.empty_value = empty_value;
    return o;
  }
};

// The input and output formats of validate and infer. --format names the output's format;
// before 0.2 it named the input's, and the input formats it took then (jsonl, csv, auto) still
// read as --input-format, with a note. `--format json` is the output's now: JSON documents as
// input are `--input-format json` (or found by their '[' and .json name).
struct DataFormats {
  std::string input = "auto";
  std::string format = "text";
  std::string pattern;

  void Register(CLI::App* cmd) {
    cmd->add_option("--input-format", input,
                    "Record format: jsonl, json, csv, parquet, avro or auto (default)")
        ->transform(OneOf({"jsonl", "json", "csv", "parquet", "avro", "auto"}));
    cmd->add_option("--format", format,
                    "Output format: text (default) or json (the report on standard output)")
        ->transform(OneOf({"text", "json", "jsonl", "csv", "auto"}));
    cmd->add_option("--pattern", pattern,
                    "A glob the names of files found in folders must match, e.g. '*.json'");
  }

  // Resolve the deprecated spelling; kInvalidArgument if both flags name an input format.
  Result<report::Format> Output(bool quiet) {
    if (format == "jsonl" || format == "csv" || format == "auto") {
      if (input != "auto") {
        return InvalidArgument("--format " + format + " and --input-format " + input +
                               " both name the input's format; keep --input-format");
      }
      if (!quiet) {
        fmt::print(stderr,
                   "note: --format {0} names the input's format, which is now --input-format {0}; "
                   "--format names the output's (text or json)\n",
                   format);
      }
      input = format;
      format = "text";
    }
    return report::ParseFormat(format);
  }
};

}  // namespace sluice::cli
