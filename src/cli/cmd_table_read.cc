// `sluice table cat PATH`: a Delta table's rows as JSON lines (sluice::table::ScanTable), at a
// version or a time, with a projection, a predicate and a limit.
#include <fmt/format.h>
#include <unistd.h>

#include <memory>
#include <optional>

#include "cli/cli_common.h"
#include "cli/table_commands.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/std_io.h"
#include "sluice/base/strings.h"
#include "sluice/table/scan.h"
#include "sluice/table/time_travel.h"

namespace sluice::cli {
namespace {

struct CatFlags {
  std::string path;
  std::optional<int64_t> version;
  std::string timestamp;
  std::string columns;
  std::string where;
  std::optional<int64_t> limit;
  std::string partition_timezone = "UTC";
  std::string output;
  unsigned threads = 0;
  bool stats = false;
};

// Rows go out a megabyte at a time.
class RowWriter {
 public:
  explicit RowWriter(ByteSink& out) : out_(out) {}
  Status Row(std::string_view row) {
    buffer_.append(row);
    buffer_ += '\n';
    if (buffer_.size() >= (size_t{1} << 20)) return Flush();
    return Ok();
  }
  Status Flush() {
    if (buffer_.empty()) return Ok();
    Status s = out_.Write(buffer_);
    buffer_.clear();
    return s;
  }

 private:
  ByteSink& out_;
  std::string buffer_;
};

Result<table::ScanOptions> ScanOptionsOf(const CatFlags& f) {
  table::ScanOptions o;
  o.at.version = f.version;
  if (!f.timestamp.empty()) {
    auto ms = table::ParseTimestampMs(f.timestamp);
    if (!ms.has_value()) return Fail(ms.error().WithContext("--timestamp"));
    o.at.timestamp_ms = *ms;
  }
  for (std::string_view c : SplitString(f.columns, ',')) {
    c = TrimWhitespace(c);
    if (!c.empty()) o.columns.emplace_back(c);
  }
  if (!f.where.empty()) o.where = f.where;
  if (f.limit) {
    if (*f.limit < 0) return InvalidArgument("--limit takes 0 or more rows");
    o.limit = *f.limit;
  }
  o.partition_timezone = f.partition_timezone;
  o.threads = f.threads;
  return o;
}

std::string StatsJson(const table::ScanStats& s) {
  JsonWriter w;
  w.BeginObject();
  w.Key("version").Int(s.version);
  w.Key("files_read").Uint(s.files_read);
  w.Key("files_pruned").Uint(s.files_pruned);
  w.Key("files_pruned_by_stats").Uint(s.files_pruned_by_stats);
  w.Key("rows_returned").Uint(s.rows_returned);
  w.Key("rows_deleted").Uint(s.rows_deleted);
  w.Key("rows_filtered").Uint(s.rows_filtered);
  w.EndObject();
  return w.Take();
}

int RunCat(const CatFlags& f) {
  auto options = ScanOptionsOf(f);
  if (!options.has_value()) return ReportError(options.error());
  if (Status st = CheckWritable("--output", f.output); !st.has_value()) {
    return ReportError(st.error());
  }
  auto out = OpenOutput(*LocalFileSystem(), f.output, STDOUT_FILENO, {.sync = false});
  if (!out.has_value()) return ReportError(out.error().WithContext("--output"));
  RowWriter writer(**out);
  auto scanned = table::ScanTable(LocalFileSystem(), f.path, *options,
                                  [&](std::string_view row) { return writer.Row(row); });
  // Rows read before an error are still written: they are the table's.
  Status flushed = writer.Flush();
  if (!scanned.has_value()) return ReportError(scanned.error());
  if (!flushed.has_value()) return ReportError(flushed.error());
  if (Status s = (*out)->Commit(); !s.has_value()) return ReportError(s.error());
  if (f.stats) fmt::print(stderr, "{}\n", StatsJson(*scanned));
  return kExitOk;
}

}  // namespace

void RegisterTableReadCommands(CLI::App* table, int& exit_code) {
  auto flags = std::make_shared<CatFlags>();
  CLI::App* cmd = table->add_subcommand(
      "cat", "Print a Delta table's rows as JSON lines, with its logical column names");
  cmd->add_option("path", flags->path, "The table's folder")->required();
  CLI::Option* version =
      cmd->add_option("--version", flags->version, "Read this version (time travel)");
  CLI::Option* timestamp = cmd->add_option(
      "--timestamp", flags->timestamp,
      "Read the newest version committed at or before this time (2024-09-09T12:00:00Z; UTC "
      "when it names no zone)");
  version->excludes(timestamp);
  timestamp->excludes(version);
  cmd->add_option("--columns", flags->columns,
                  "Columns to print, comma-separated logical paths (a,b.c); default: all");
  cmd->add_option("--where", flags->where,
                  "Print only rows for which this Spark SQL predicate is TRUE; files whose "
                  "partition values or stats rule it out are not read");
  cmd->add_option("--limit", flags->limit, "Print at most this many rows");
  cmd->add_option("--partition-timezone", flags->partition_timezone,
                  "The zone of partition timestamps written without one (old Delta writers): "
                  "a fixed offset such as -07:00, or UTC (default)");
  cmd->add_option("-o,--output", flags->output, "Write the rows here instead of standard output");
  AddThreadsFlag(cmd, flags->threads);
  cmd->add_flag("--stats", flags->stats,
                "Print what the scan did (files read and skipped, rows) as JSON on standard "
                "error");
  cmd->callback([flags, &exit_code] { exit_code = RunCat(*flags); });
}

}  // namespace sluice::cli
