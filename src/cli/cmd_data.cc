// `sluice validate FILE... (--schema S | --contract C)`: every record valid, rescued or
// quarantined, with a report that accounts for each one. `sluice infer FILE...`: the schema
// Spark (or Auto Loader) would infer from the records.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/data_flags.h"
#include "cli/record_output.h"
#include "sluice/base/std_io.h"
#include "sluice/base/strings.h"
#include "sluice/data/file_runs.h"
#include "sluice/data/input_files.h"
#include "sluice/report/data_render.h"

namespace sluice::cli {

namespace {

using data::ParseMode;
using data::RecordFormat;

struct ValidateOptions {
  std::vector<std::string> files;
  std::string schema;
  std::string schema_from;
  std::string contract;
  std::string object;
  DataFormats formats;
  std::string mode = "permissive";
  std::string out;
  std::string quarantine;
  std::string report;
  std::string rescued_column = "_rescued_data";
  unsigned threads = 0;
  bool quiet = false;
  CsvFlags csv;
  RecordOutputFlags output;
};

// The schema records are checked against, and whether keys outside it are allowed new columns.
struct ValidationTarget {
  schema::SchemaPtr schema;
  bool allow_new_columns = false;
};

// A bare schema allows nothing outside it; a contract says through its change policy
// (`allowed_new_columns`, true when the contract does not say, as Delta's mergeSchema).
Result<ValidationTarget> LoadValidationTarget(const ValidateOptions& opt) {
  if (opt.schema.empty() == opt.contract.empty()) {
    return InvalidArgument("give exactly one of --schema or --contract");
  }
  if (!opt.schema.empty()) {
    SLUICE_ASSIGN_OR_RETURN(LoadedSchema loaded, LoadSchema(opt.schema, opt.schema_from));
    if (!opt.quiet) PrintNotes(loaded.notes, opt.schema);
    return ValidationTarget{loaded.schema, false};
  }
  SLUICE_ASSIGN_OR_RETURN(dialects::contract::Contract c, LoadContract(opt.contract));
  auto object = c.Object(opt.object);
  if (!object.has_value()) return Fail(object.error().WithContext(opt.contract));
  return ValidationTarget{(*object)->schema, c.policy.allow_new_columns};
}

int RunValidate(ValidateOptions opt) {
  if (Status cpu = CheckCpu(); !cpu.has_value()) return ReportError(cpu.error());
  auto output_format = opt.formats.Output(opt.quiet);
  if (!output_format.has_value()) return ReportError(output_format.error());
  const bool json = *output_format == report::Format::kJson;
  if (json && opt.out == "-") {
    return ReportError(Error(ErrorCode::kInvalidArgument,
                             "--format json writes the report to standard output; give -o FILE "
                             "for the valid records"));
  }
  // Every output path is tried before the run, so a typo does not cost a long run.
  for (const auto& [flag, path] :
       {std::pair<std::string_view, const std::string&>{"--output", opt.out},
        {"--quarantine", opt.quarantine},
        {"--report", opt.report}}) {
    if (Status st = CheckWritable(flag, path); !st.has_value()) return ReportError(st.error());
  }
  auto target = LoadValidationTarget(opt);
  if (!target.has_value()) return ReportError(target.error());
  auto files = InputFiles(opt.files, opt.formats.pattern);
  if (!files.has_value()) return ReportError(files.error());
  auto format = ResolveFormat(opt.formats.input, *files);
  if (!format.has_value()) return ReportError(format.error());
  auto mode = ParseModeName(opt.mode);
  if (!mode.has_value()) return ReportError(mode.error());
  auto csv = opt.csv.Build();
  if (!csv.has_value()) return ReportError(csv.error());

  data::ValidateRunOptions ro;
  ro.format = *format;
  ro.mode = *mode;
  ro.threads = opt.threads;
  ro.csv = *csv;
  ro.rescued_column = opt.rescued_column;
  ro.allow_new_columns = target->allow_new_columns;
  ProgressBar bar(IsTerminal(2) && !opt.quiet && !IsStandardStream(opt.out));
  ro.progress = [&bar](const data::Progress& p) { bar.Update(p); };

  // Outputs can be recomputed from the inputs: no fsync.
  FileSystem& fs = *LocalFileSystem();
  std::unique_ptr<ByteSink> discard;
  std::unique_ptr<RecordOutput> out;
  // Records nobody reads are not made: with --json and no --out, or -o /dev/null.
  ro.discard_valid = (json && opt.out.empty()) || opt.out == "/dev/null";
  if (ro.discard_valid) {
    discard = std::make_unique<DiscardSink>();
  } else {
    const std::string rescued = *mode == ParseMode::kPermissive ? opt.rescued_column : "";
    auto opened =
        RecordOutput::Open(opt.out, opt.output, target->schema, rescued,
                           opt.threads == 0 ? std::thread::hardware_concurrency() : opt.threads);
    if (!opened.has_value()) return ReportError(opened.error());
    out = std::move(opened).value();
  }
  // Without --quarantine, quarantined records go to standard error: nothing is dropped unseen.
  auto quarantine = OpenOutput(
      fs, opt.quarantine, opt.quarantine.empty() ? STDERR_FILENO : STDOUT_FILENO, {.sync = false});
  if (!quarantine.has_value()) return ReportError(quarantine.error().WithContext("--quarantine"));
  ByteSink& records = out ? static_cast<ByteSink&>(*out) : *discard;
  if (out) ro.stage = out->stage();
  auto report = data::ValidateFiles(*files, target->schema, ro, records, **quarantine);
  bar.Done();
  if (!report.has_value()) return ReportError(report.error());
  if (out) {
    if (Status s = out->Commit(); !s.has_value()) return ReportError(s.error());
  }
  if (Status s = (*quarantine)->Commit(); !s.has_value()) return ReportError(s.error());
  auto report_json = report::Render(*report, report::Format::kJson);
  if (!report_json.has_value()) return ReportError(report_json.error());
  if (!opt.report.empty()) {
    Status s = WriteOutput(opt.report, *report_json);
    if (!s.has_value()) return ReportError(s.error().WithContext("--report"));
  }
  if (json) {
    Status s = WriteOutput("-", *report_json);
    if (!s.has_value()) return ReportError(s.error());
  } else if (!opt.quiet) {
    auto summary =
        report::Render(*report, report::Format::kText, {.color = ColorEnabled(STDERR_FILENO)});
    if (!summary.has_value()) return ReportError(summary.error());
    fmt::print(stderr, "{}", *summary);
  }
  return report->clean() ? kExitOk : kExitFindings;
}

struct InferOptions {
  std::vector<std::string> files;
  DataFormats formats;
  std::string mode = "spark";
  double sampling_ratio = 1.0;
  bool infer_column_types = false;
  std::string hints;
  std::string rescued_column = "_rescued_data";
  std::vector<std::string> spark_options;
  unsigned threads = 0;
  std::string as;
  std::string output;
  bool quiet = false;
  CsvFlags csv;
};

// The reader options of an inference run, from the flags.
Result<data::InferRunOptions> InferRunOptions(const InferOptions& opt, RecordFormat format) {
  SLUICE_ASSIGN_OR_RETURN(data::CsvRunOptions csv, opt.csv.Build());
  if (!(opt.sampling_ratio > 0.0 && opt.sampling_ratio <= 1.0)) {
    return InvalidArgument("--sampling-ratio must be in (0, 1]");
  }
  if (opt.mode == "spark" && (opt.infer_column_types || !opt.hints.empty())) {
    return InvalidArgument(
        "--infer-column-types and --hints are Auto Loader options; add --mode autoloader");
  }
  std::vector<std::pair<std::string, std::string>> kv;
  for (const std::string& o : opt.spark_options) {
    size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("--option takes KEY=VALUE, not '" + o + "'");
    }
    kv.emplace_back(o.substr(0, eq), o.substr(eq + 1));
  }
  data::InferRunOptions ro;
  ro.format = format;
  ro.threads = opt.threads;
  ro.sampling_ratio = opt.sampling_ratio;
  ro.csv = csv;
  std::optional<data::AutoLoaderOptions> al;
  if (opt.mode == "autoloader") {
    al.emplace();
    al->infer_column_types = opt.infer_column_types;
    al->schema_hints = opt.hints;
    al->rescued_data_column = opt.rescued_column;
    auto hints = data::ParseSchemaHints(opt.hints);
    if (!hints.has_value()) return Fail(hints.error().WithContext("--hints"));
  }
  if (format == RecordFormat::kCsv) {
    SLUICE_ASSIGN_OR_RETURN(ro.csv_infer, data::CsvInferOptions::FromMap(kv));
    // Spark infers CSV types only with inferSchema=true; `sluice infer` is asked for types.
    bool has_infer_key = false;
    for (const auto& [k, v] : kv) has_infer_key = has_infer_key || AsciiLower(k) == "inferschema";
    if (!has_infer_key) ro.csv_infer.infer_schema = true;
    if (ro.csv_infer.null_value.empty()) ro.csv_infer.null_value = csv.null_value;
    ro.csv_infer.auto_loader = al;
  } else {
    SLUICE_ASSIGN_OR_RETURN(ro.json, data::JsonInferOptions::FromMap(kv));
    ro.json.auto_loader = al;
  }
  return ro;
}

int RunInfer(InferOptions opt) {
  if (Status cpu = CheckCpu(); !cpu.has_value()) return ReportError(cpu.error());
  auto output_format = opt.formats.Output(opt.quiet);
  if (!output_format.has_value()) return ReportError(output_format.error());
  const bool json = *output_format == report::Format::kJson;
  if (Status st = CheckWritable("--output", opt.output); !st.has_value()) {
    return ReportError(st.error());
  }
  auto files = InputFiles(opt.files, opt.formats.pattern);
  if (!files.has_value()) return ReportError(files.error());
  auto format = ResolveFormat(opt.formats.input, *files);
  if (!format.has_value()) return ReportError(format.error());
  auto ro = InferRunOptions(opt, *format);
  if (!ro.has_value()) return ReportError(ro.error());
  ProgressBar bar(IsTerminal(2) && !opt.quiet);
  ro->progress = [&bar](const data::Progress& p) { bar.Update(p); };
  auto result = data::InferFiles(*files, *ro);
  bar.Done();
  if (!result.has_value()) return ReportError(result.error());
  if (!opt.quiet && !result->notes.empty()) PrintNotes(result->notes, "infer");
  if (json) {
    auto summary = report::Render(*result, report::Format::kJson);
    if (!summary.has_value()) return ReportError(summary.error());
    if (Status st = WriteOutput("-", *summary); !st.has_value()) return ReportError(st.error());
    if (opt.output.empty()) return kExitOk;
  }
  auto to = OutputFormat(opt.as);
  if (!to.has_value()) return ReportError(to.error());
  auto text = dialects::WriteSchema(*result->schema, *to);
  if (!text.has_value()) return ReportError(text.error());
  if (!opt.quiet) PrintNotes(text->notes, "inferred schema");
  std::string s = std::move(text->value);
  if (!s.empty() && s.back() != '\n') s += '\n';
  if (Status st = WriteOutput(opt.output, s); !st.has_value()) {
    return ReportError(IsStandardStream(opt.output) ? st.error()
                                                    : st.error().WithContext("--output"));
  }
  if (!opt.quiet && !json) {
    auto summary = report::Render(*result, report::Format::kText);
    if (!summary.has_value()) return ReportError(summary.error());
    fmt::print(stderr, "{}", *summary);
  }
  return kExitOk;
}

}  // namespace

void RegisterValidateCommand(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Check records against a schema or contract: valid records out, bad ones to quarantine, "
      "a report that accounts for every record");
  cmd->add_option("files", opt->files,
                  "Record files or folders (JSON lines, JSON, CSV, Parquet, Avro)")
      ->required();
  cmd->add_option("--schema", opt->schema, "The schema (any schema language)");
  cmd->add_option("--from", opt->schema_from, "The schema's format, when detection is not enough");
  cmd->add_option("--contract", opt->contract, "A data contract whose schema the records keep");
  cmd->add_option("--object", opt->object, "The contract's schema object (default: the first)");
  opt->formats.Register(cmd);
  cmd->add_option("--mode", opt->mode, "permissive (default), dropmalformed or failfast")
      ->transform(OneOf({"permissive", "dropmalformed", "failfast"}));
  cmd->add_option("-o,--output,--out", opt->out,
                  "Valid records: JSON lines, or Parquet for a .parquet name (default: standard "
                  "output; with --format json, not written unless given)");
  opt->output.Register(cmd);
  cmd->add_option("--quarantine", opt->quarantine,
                  "Quarantined records as JSON lines (default: standard error)");
  cmd->add_option("--report", opt->report, "The run's report as JSON");
  cmd->add_option("--rescued-column", opt->rescued_column,
                  "Name of the rescued-data column (permissive mode)");
  AddThreadsFlag(cmd, opt->threads);
  cmd->add_flag("-q,--quiet", opt->quiet, "No summary, notes or progress on standard error");
  opt->csv.Register(cmd);
  cmd->callback([opt, &exit_code] { exit_code = RunValidate(*opt); });
}

void RegisterInferCommand(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<InferOptions>();
  CLI::App* cmd = app.add_subcommand(
      "infer", "Infer the schema of record files as Spark (or Auto Loader) would");
  cmd->add_option("files", opt->files,
                  "Record files or folders (JSON lines, JSON, CSV, Parquet, Avro)")
      ->required();
  opt->formats.Register(cmd);
  cmd->add_option("--mode", opt->mode,
                  "spark (inferSchema, the default) or autoloader (cloudFiles: strings unless "
                  "--infer-column-types)")
      ->transform(OneOf({"spark", "autoloader"}));
  cmd->add_option("--sampling-ratio", opt->sampling_ratio,
                  "Share of records to infer from, 0 < R <= 1 (Spark's samplingRatio)");
  cmd->add_flag("--infer-column-types", opt->infer_column_types,
                "Auto Loader: infer types instead of strings (cloudFiles.inferColumnTypes)");
  cmd->add_option("--hints", opt->hints,
                  "Auto Loader: schema hints, e.g. \"amount decimal(10,2), items[].qty int\"");
  cmd->add_option("--rescued-column", opt->rescued_column,
                  "Auto Loader: rescued-data column added to the schema ('' for none)");
  cmd->add_option("--option", opt->spark_options,
                  "A Spark reader option KEY=VALUE (primitivesAsString, prefersDecimal, "
                  "dropFieldIfAllNull, inferTimestamp, timestampFormat, mode, nanValue, ...)");
  AddThreadsFlag(cmd, opt->threads);
  cmd->add_option("--as", opt->as,
                  "Output schema format (default: tree on a terminal, spark-json otherwise)");
  cmd->add_option("-o,--output", opt->output, "Write the schema here instead of standard output");
  cmd->add_flag("-q,--quiet", opt->quiet, "No summary, notes or progress on standard error");
  opt->csv.Register(cmd);
  cmd->callback([opt, &exit_code] { exit_code = RunInfer(*opt); });
}

}  // namespace sluice::cli
