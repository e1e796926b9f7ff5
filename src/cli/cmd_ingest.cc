// `sluice ingest SOURCE --to TABLE --checkpoint CKPT ...`: a folder (or a Kafka topic) landed
// into a Delta table batch by batch with Auto Loader's options (sluice::ingest).
#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <filesystem>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/data_flags.h"
#include "cli/notify_flags.h"
#include "sluice/base/strings.h"
#include "sluice/ingest/ingest.h"
#include "sluice/ingest/kafka_ingest.h"
#include "sluice/report/diff_render.h"
#include "sluice/report/ingest_render.h"
#include "sluice/table/snapshot.h"

namespace sluice::cli {
namespace {

std::atomic<bool> g_stop{false};
void StopOnSignal(int) { g_stop = true; }

struct IngestFlags {
  NotifyFlags notify;
  std::string source;
  std::string table;
  std::string checkpoint;
  std::string input_format = "auto";
  std::string schema_location;
  std::string mode;
  bool infer_column_types = false;
  std::string hints;
  std::string rescued_column;
  std::string schema;
  std::string schema_from;
  std::string pattern;
  // Signed, so that a negative number is refused rather than wrapped to a huge limit.
  double min_file_age = 0;
  int64_t max_files = 1000;
  int64_t max_bytes = 0;
  std::string quarantine;
  std::string report;
  bool once = false;
  bool watch = false;
  double interval = 10;
  std::string partition_by;
  std::vector<std::string> properties;
  bool allow_new_checkpoint = false;
  unsigned threads = 0;
  std::string format = "text";
  bool quiet = false;
  CsvFlags csv;
  // Kafka sources
  std::string group_id;
  std::string registry;
  std::string registry_user_info;
  std::string value_format = "avro";
  std::string starting_offsets = "latest";
  bool with_metadata = false;
  int64_t max_messages = 100000;
  std::vector<std::string> kafka_options;
};

// Absolute and in the ingest's normal form (no trailing slash, `.` or `//`): the ingest compares
// these paths, to leave what it writes out of the folder it reads and to tie a checkpoint to
// its table.
std::string Absolute(const std::string& path) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(path, ec);
  return ingest::NormalPath(ec ? path : abs.string());
}

// A number of seconds a flag takes: 0 or more, and finite (an age or interval of 1e300 seconds
// does not fit the milliseconds it becomes).
Status CheckSeconds(const char* flag, double seconds) {
  if (std::isfinite(seconds) && seconds >= 0 && seconds <= 1e12) return Ok();
  return InvalidArgument(fmt::format("{} must be 0 or more seconds, not {}", flag, seconds));
}

Result<ingest::IngestOptions> Options(const IngestFlags& f) {
  ingest::IngestOptions o;
  o.source = f.source.starts_with("kafka://") ? f.source : Absolute(f.source);
  o.table = Absolute(f.table);
  o.checkpoint = Absolute(f.checkpoint);
  if (!f.schema_location.empty()) o.schema_location = Absolute(f.schema_location);
  if (f.input_format != "auto") {
    // cloudFiles.format "json" is JSON lines, as Auto Loader reads it.
    SLUICE_ASSIGN_OR_RETURN(
        o.format, data::ParseRecordFormat(f.input_format == "json" ? "jsonl" : f.input_format));
  }
  SLUICE_ASSIGN_OR_RETURN(o.csv, f.csv.Build());
  if (!f.schema.empty()) {
    SLUICE_ASSIGN_OR_RETURN(LoadedSchema loaded, LoadSchema(f.schema, f.schema_from));
    o.schema = loaded.schema;
  }
  if (!f.mode.empty()) {
    SLUICE_ASSIGN_OR_RETURN(o.evolution_mode, ingest::ParseEvolutionMode(f.mode));
  }
  o.auto_loader.infer_column_types = f.infer_column_types;
  o.auto_loader.schema_hints = f.hints;
  if (!f.hints.empty()) {
    if (auto hints = data::ParseSchemaHints(f.hints); !hints.has_value()) {
      return Fail(hints.error().WithContext("--schema-hints"));
    }
  }
  if (!f.rescued_column.empty()) {
    o.auto_loader.rescued_data_column = f.rescued_column;
    o.rescued_column_given = true;
  }
  o.pattern = f.pattern;
  SLUICE_TRY(CheckSeconds("--min-file-age", f.min_file_age));
  SLUICE_TRY(CheckSeconds("--interval", f.interval));
  o.min_file_age_ms = static_cast<int64_t>(f.min_file_age * 1000);
  if (f.max_files < 1) return InvalidArgument("--max-files-per-batch must be at least 1");
  o.max_files_per_batch = static_cast<size_t>(f.max_files);
  if (f.max_bytes < 0) {
    return InvalidArgument(
        "--max-bytes-per-batch must be at least 1 (or 0, the default: no limit)");
  }
  o.max_bytes_per_batch = static_cast<uint64_t>(f.max_bytes);
  if (f.max_messages < 1) return InvalidArgument("--max-messages-per-batch must be at least 1");
  o.quarantine = f.quarantine.empty() ? "" : Absolute(f.quarantine);
  o.report = f.report.empty() ? "" : Absolute(f.report);
  for (std::string_view c : SplitString(f.partition_by, ',')) {
    std::string t(TrimWhitespace(c));
    if (!t.empty()) o.partition_by.push_back(t);
  }
  for (const std::string& p : f.properties) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("--property takes KEY=VALUE, not '" + p + "'");
    }
    o.table_properties.emplace_back(p.substr(0, eq), p.substr(eq + 1));
  }
  o.allow_new_checkpoint = f.allow_new_checkpoint;
  o.threads = f.threads;
  return o;
}

// failOnNewColumns and refused batches: the reason on stderr, the schema change on stdout.
int ReportStop(const ingest::IngestStop& stop, bool json) {
  fmt::print(stderr, "sluice ingest: stopped: {}\n", stop.message);
  if (stop.kind == ingest::IngestStop::Kind::kNewColumns && stop.before && stop.after) {
    auto diff = evolution::Diff(*stop.before, *stop.after);
    auto text = report::Render(diff, {"schema", "batch"},
                               json ? report::Format::kJson : report::Format::kText);
    if (text.has_value()) fmt::print("{}", *text);
  }
  return kExitFindings;
}

int RunIngest(const IngestFlags& f) {
  if (Status cpu = CheckCpu(); !cpu.has_value()) return ReportError(cpu.error());
  auto options = Options(f);
  if (!options.has_value()) return ReportError(options.error());
  const bool json = f.format == "json";
  ingest::RunControl control;
  control.watch = f.watch;
  control.interval_ms = static_cast<int64_t>(f.interval * 1000);
  control.stop = &g_stop;
  // --notify: an alert for each schema evolution a batch applies, stored in the outbox beside
  // the checkpoint and delivered on a thread of its own.
  if (!f.notify.targets.empty()) {
    if (Status st = LocalFileSystem()->CreateDirs(options->checkpoint); !st.has_value()) {
      return ReportError(st.error().WithContext(options->checkpoint));
    }
  }
  auto notifier = f.notify.Open(options->checkpoint + "/" + alert::kOutboxFileName);
  if (!notifier.has_value()) return ReportError(notifier.error());
  const std::string alert_source = f.source + " -> " + f.table;
  if (*notifier != nullptr) {
    // A run killed between a batch's commit and its alert left that alert unstored: the
    // table's newest commit is checked again (a stored alert is not stored twice).
    auto latest = table::LoadSnapshot(*LocalFileSystem(), options->table, {});
    if (latest.has_value()) {
      Status st =
          AlertTableCommit(**notifier, options->table, alert_source, "ingest", latest->version);
      if (!st.has_value()) {
        fmt::print(stderr, "sluice ingest: alert not stored: {}\n", st.error().message());
      }
    }
    (*notifier)->StartBackground();
  }
  control.on_batch = [&](const ingest::BatchReport& r) {
    if (*notifier != nullptr && (!r.added_columns.empty() || !r.widened_columns.empty())) {
      Status st =
          AlertTableCommit(**notifier, options->table, alert_source, "ingest", r.table_version);
      if (!st.has_value()) {
        fmt::print(stderr, "sluice ingest: alert not stored: {}\n", st.error().message());
      }
    }
    if (f.quiet) return;
    auto text = report::Render(r, json ? report::Format::kJson : report::Format::kText);
    if (text.has_value()) {
      fmt::print("{}", *text);
      std::fflush(stdout);
    }
  };
  if (f.watch) {
    std::signal(SIGINT, StopOnSignal);
    std::signal(SIGTERM, StopOnSignal);
  }
  Result<ingest::IngestRun> run = [&]() -> Result<ingest::IngestRun> {
    if (!f.source.starts_with("kafka://")) return ingest::RunFolderIngest(*options, control);
    ingest::KafkaIngestOptions k;
    SLUICE_ASSIGN_OR_RETURN(auto where, ingest::ParseKafkaSource(f.source));
    k.brokers = where.first;
    k.topic = where.second;
    k.group_id = f.group_id;
    k.registry_url = f.registry;
    k.registry_user_info = f.registry_user_info;
    SLUICE_ASSIGN_OR_RETURN(k.value_format, ingest::ParseValueFormat(f.value_format));
    k.start_at_earliest = f.starting_offsets == "earliest";
    k.with_metadata = f.with_metadata;
    k.max_messages_per_batch = static_cast<size_t>(f.max_messages);
    for (const std::string& o : f.kafka_options) {
      size_t eq = o.find('=');
      if (eq == std::string::npos || eq == 0) {
        return InvalidArgument("--kafka-option takes KEY=VALUE, not '" + o + "'");
      }
      k.config.emplace_back(o.substr(0, eq), o.substr(eq + 1));
    }
    return ingest::RunKafkaIngest(*options, k, control);
  }();
  if (*notifier != nullptr) {
    // Give alerts a moment to go out before a --once run exits; the rest wait in the outbox.
    (*notifier)->StopBackground();
    auto summary = (*notifier)->Deliver(alert::NowMs() + 10000);
    if (summary.has_value()) PrintDeliverySummary(*summary);
  }
  if (!run.has_value()) return ReportError(run.error());
  if (run->stopped) return ReportStop(*run->stopped, json);
  if (!f.quiet && !json && run->batches.empty()) {
    fmt::print(stderr, "sluice ingest: nothing new in {}\n", options->source);
  }
  return kExitOk;
}

}  // namespace

void RegisterIngestCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<IngestFlags>();
  IngestFlags& f = *flags;
  CLI::App* cmd = app.add_subcommand(
      "ingest",
      "Land new files of a folder into a Delta table, batch by batch, exactly once, evolving the "
      "schema as Auto Loader does");
  cmd->add_option("source", f.source,
                  "The folder to read (its files, recursively), or kafka://BROKERS/TOPIC")
      ->required();
  cmd->add_option("--to", f.table, "The Delta table written (created when absent)")->required();
  cmd->add_option("--checkpoint", f.checkpoint,
                  "Folder of the ingest's state (what was read, batch by batch)")
      ->required();
  cmd->add_option("--input-format", f.input_format,
                  "cloudFiles.format: json (JSON lines), csv, parquet, avro, or auto (default)")
      ->transform(OneOf({"json", "jsonl", "csv", "parquet", "avro", "auto"}));
  cmd->add_option("--schema-location", f.schema_location,
                  "cloudFiles.schemaLocation: where schema versions live (default: the "
                  "checkpoint)");
  cmd->add_option("--schema-evolution-mode", f.mode,
                  "cloudFiles.schemaEvolutionMode: addNewColumns (default without --schema), "
                  "addNewColumnsWithTypeWidening, rescue, failOnNewColumns, none (default with "
                  "--schema)");
  cmd->add_flag("--infer-column-types", f.infer_column_types,
                "cloudFiles.inferColumnTypes: infer types (default: JSON and CSV leaves are "
                "strings)");
  cmd->add_option("--schema-hints", f.hints,
                  "cloudFiles.schemaHints, e.g. 'amount DECIMAL(10,2), tags MAP<STRING,STRING>'");
  cmd->add_option("--rescued-column", f.rescued_column,
                  "rescuedDataColumn (default _rescued_data; naming it makes `none` rescue)");
  cmd->add_option("--schema", f.schema, "The schema to read with (any schema language)");
  cmd->add_option("--from", f.schema_from, "The --schema's format, when detection is not enough");
  cmd->add_option("--pattern", f.pattern, "pathGlobFilter: a glob file names must match");
  cmd->add_option("--min-file-age", f.min_file_age,
                  "Seconds a file must be unchanged before it is read (files still being "
                  "written wait)");
  cmd->add_option("--max-files-per-batch", f.max_files,
                  "cloudFiles.maxFilesPerTrigger (default 1000)");
  cmd->add_option("--max-bytes-per-batch", f.max_bytes,
                  "cloudFiles.maxBytesPerTrigger, a soft limit in bytes (default: none)");
  cmd->add_option("--quarantine", f.quarantine,
                  "Quarantined records as JSON lines, appended once per batch (default: "
                  "CKPT/quarantine.jsonl)");
  cmd->add_option("--report", f.report, "Batch reports as JSON lines, appended once per batch");
  auto* once =
      cmd->add_flag("--once", f.once, "Process what is there and exit (availableNow; the default)");
  auto* watch = cmd->add_flag("--watch", f.watch, "Keep looking for new files until stopped");
  once->excludes(watch);
  cmd->add_option("--interval", f.interval, "--watch: seconds between looks (default 10)");
  cmd->add_option("--partition-by", f.partition_by, "A new table's partition columns");
  cmd->add_option("--property", f.properties, "A new table's property KEY=VALUE (repeatable)");
  cmd->add_flag("--allow-new-checkpoint", f.allow_new_checkpoint,
                "Start a new checkpoint although the table holds batches of this source from "
                "another one (they are written again)");
  AddThreadsFlag(cmd, f.threads);
  cmd->add_option("--format", f.format, "Batch lines: text (default) or json")
      ->transform(OneOf({"text", "json"}));
  cmd->add_flag("-q,--quiet", f.quiet, "No batch lines (text or JSON)");
  f.csv.Register(cmd);
  cmd->add_option("--group-id", f.group_id,
                  "Kafka: the consumer group (group.id); members split the topic's partitions");
  cmd->add_option("--registry", f.registry,
                  "Kafka: the schema registry URL (schema.registry.url) the avro values' writer "
                  "schemas are read from");
  cmd->add_option("--registry-user-info", f.registry_user_info,
                  "Kafka: USER:PASSWORD for the registry's basic auth");
  cmd->add_option("--value-format", f.value_format,
                  "Kafka: avro (Confluent wire format, default), json, json-schema or string")
      ->transform(OneOf({"avro", "json", "json-schema", "string"}));
  cmd->add_option("--starting-offsets", f.starting_offsets,
                  "Kafka: startingOffsets where the table holds none: earliest or latest "
                  "(default)")
      ->transform(OneOf({"earliest", "latest"}));
  cmd->add_flag("--with-kafka-metadata", f.with_metadata,
                "Kafka: add key, topic, partition, offset, timestamp, timestampType, headers");
  cmd->add_option("--max-messages-per-batch", f.max_messages,
                  "Kafka: maxOffsetsPerTrigger (default 100000)");
  cmd->add_option("--kafka-option", f.kafka_options,
                  "Kafka: a librdkafka property KEY=VALUE (repeatable)");
  f.notify.Register(cmd);
  cmd->callback([flags, &exit_code] { exit_code = RunIngest(*flags); });
}

}  // namespace sluice::cli
