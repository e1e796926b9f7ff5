// `sluice cat FILE...`: records of JSON lines, JSON documents, CSV, Parquet and Avro container
// files as JSON lines, with a projection and a limit; `--meta` describes a Parquet file's layout
// instead.
#include <unistd.h>

#include <optional>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/data_flags.h"
#include "sluice/base/std_io.h"
#include "sluice/base/strings.h"
#include "sluice/data/record_cat.h"
#include "sluice/parquet/file_reader.h"
#include "sluice/parquet/file_summary.h"
#include "sluice/report/parquet_render.h"

namespace sluice::cli {
namespace {

struct CatFlags {
  std::vector<std::string> files;
  std::string input = "auto";
  std::string pattern;
  std::string columns;
  std::optional<uint64_t> limit;
  std::string output;
  bool meta = false;
  std::string format = "text";
  CsvFlags csv;
};

// `--meta`: each Parquet file's layout, rendered by the report module.
int RunMeta(const CatFlags& flags, const std::vector<std::string>& files) {
  auto format = report::ParseFormat(flags.format);
  if (!format.has_value()) return ReportError(format.error());
  std::string text;
  for (const std::string& path : files) {
    auto reader = parquet::FileReader::Open(LocalFileSystem(), path);
    if (!reader.has_value()) return ReportError(reader.error());
    auto rendered = report::Render(parquet::Summarize(**reader), *format,
                                   {.color = flags.output.empty() && ColorEnabled(STDOUT_FILENO)});
    if (!rendered.has_value()) return ReportError(rendered.error());
    text += *rendered;
  }
  if (Status s = WriteOutput(flags.output, text); !s.has_value()) {
    return ReportError(s.error().WithContext("--output"));
  }
  return kExitOk;
}

int RunCat(const CatFlags& flags) {
  auto files = InputFiles(flags.files, flags.pattern);
  if (!files.has_value()) return ReportError(files.error());
  if (flags.meta) return RunMeta(flags, *files);
  auto csv = flags.csv.Build();
  if (!csv.has_value()) return ReportError(csv.error());
  if (Status st = CheckWritable("--output", flags.output); !st.has_value()) {
    return ReportError(st.error());
  }
  data::CatOptions options;
  options.csv = *csv;
  options.limit = flags.limit;
  if (flags.input != "auto") {
    auto format = data::ParseRecordFormat(flags.input);
    if (!format.has_value()) return ReportError(format.error());
    options.format = *format;
  }
  for (std::string_view c : SplitString(flags.columns, ',')) {
    if (!c.empty()) options.columns.emplace_back(c);
  }
  auto out = OpenOutput(*LocalFileSystem(), flags.output, STDOUT_FILENO, {.sync = false});
  if (!out.has_value()) return ReportError(out.error().WithContext("--output"));
  auto written = data::CatFiles(*files, options, **out);
  if (!written.has_value()) return ReportError(written.error());
  if (Status s = (*out)->Commit(); !s.has_value()) return ReportError(s.error());
  return kExitOk;
}

}  // namespace

void RegisterCatCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<CatFlags>();
  CLI::App* cmd = app.add_subcommand(
      "cat", "Print the records of JSON lines, JSON, CSV, Parquet or Avro files as JSON lines");
  cmd->add_option("paths", flags->files, "Files or folders ('-' for standard input)")->required();
  cmd->add_option("--input-format", flags->input,
                  "Record format: jsonl, json, csv, parquet, avro or auto (default: by name and "
                  "content)")
      ->transform(OneOf({"jsonl", "json", "csv", "parquet", "avro", "auto"}));
  cmd->add_option("--pattern", flags->pattern,
                  "A glob the names of files found in folders must match, e.g. '*.parquet'");
  cmd->add_option("--columns", flags->columns,
                  "Columns to print, comma-separated field paths (a,b.c); default: all");
  cmd->add_option("--limit", flags->limit, "Print at most this many records");
  cmd->add_option("-o,--output", flags->output,
                  "Write the records here instead of standard output");
  cmd->add_flag("--meta", flags->meta,
                "Parquet: print each file's row groups, column chunks, encodings, sizes and "
                "statistics instead of its rows");
  cmd->add_option("--format", flags->format, "--meta's format: text (default) or json")
      ->transform(OneOf({"text", "json"}));
  flags->csv.Register(cmd);
  cmd->callback([flags, &exit_code] { exit_code = RunCat(*flags); });
}

}  // namespace sluice::cli
