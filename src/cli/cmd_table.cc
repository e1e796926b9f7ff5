// `sluice table create|append|overwrite PATH ...`: writes into Delta tables with Delta's rules
// (sluice::table::WriteTable); the other `table` subcommands live in cmd_table_*.cc.
#include <fmt/format.h>
#include <unistd.h>

#include <memory>
#include <thread>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/data_flags.h"
#include "cli/notify_flags.h"
#include "cli/record_output.h"
#include "cli/table_commands.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/std_io.h"
#include "sluice/data/input_files.h"
#include "sluice/report/data_render.h"
#include "sluice/report/table_write_render.h"
#include "sluice/table/write.h"

namespace sluice::cli {
namespace {

// KEY=VALUE flags (--property, --constraint).
Result<std::vector<std::pair<std::string, std::string>>> KeyValues(
    std::string_view flag, const std::vector<std::string>& items) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& item : items) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument(fmt::format("{} takes NAME=VALUE, not '{}'", flag, item));
    }
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

std::vector<std::string> SplitColumns(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size() && !list.empty()) {
    size_t comma = list.find(',', start);
    std::string part =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

struct WriteFlags {
  std::string path;
  NotifyFlags notify;
  std::vector<std::string> files;
  table::WriteMode mode = table::WriteMode::kAppend;
  bool merge_schema = false;
  bool type_widening = false;
  bool overwrite_schema = false;
  std::string replace_where;
  std::string schema;
  std::string schema_from;
  std::string input_format = "auto";
  std::string pattern;
  std::string parse_mode = "permissive";
  std::string on_violation = "fail";
  std::string quarantine;
  std::string report;
  std::string rescued_column = "_rescued_data";
  std::string partition_by;
  std::vector<std::string> properties;
  std::vector<std::string> constraints;
  std::string compression;
  uint64_t max_rows_per_file = 0;
  std::string txn_app_id;
  int64_t txn_version = -1;
  unsigned threads = 0;
  std::string format = "text";
  bool quiet = false;
  CsvFlags csv;

  void Register(CLI::App* cmd, bool overwrite) {
    notify.Register(cmd);
    cmd->add_option("path", path, "The table's folder")->required();
    cmd->add_option("files", files,
                    "Record files or folders (JSON lines, JSON, CSV, Parquet, Avro)")
        ->required();
    if (overwrite) {
      cmd->add_flag("--overwrite-schema", overwrite_schema,
                    "Replace the table's schema and partitioning with the data's "
                    "(overwriteSchema)");
      cmd->add_option("--replace-where", replace_where,
                      "Overwrite only the rows this predicate holds for (replaceWhere)");
    }
    cmd->add_flag("--merge-schema", merge_schema,
                  "Add the data's new columns to the table (mergeSchema)");
    cmd->add_flag("--type-widening", type_widening,
                  "Turn on delta.enableTypeWidening and let the write widen column types");
    cmd->add_option("--schema", schema,
                    "The data's schema, as a DataFrame's (default: Parquet footers, Avro "
                    "writer schemas, or the fields the records hold)");
    cmd->add_option("--from", schema_from, "The --schema's format, when detection is not enough");
    cmd->add_option("--input-format", input_format,
                    "Record format: jsonl, json, csv, parquet, avro or auto (default)")
        ->transform(OneOf({"jsonl", "json", "csv", "parquet", "avro", "auto"}));
    cmd->add_option("--pattern", pattern,
                    "A glob the names of files found in folders must match, e.g. '*.json'");
    cmd->add_option("--mode", parse_mode, "permissive (default), dropmalformed or failfast")
        ->transform(OneOf({"permissive", "dropmalformed", "failfast"}));
    cmd->add_option("--on-violation", on_violation,
                    "Rows that break NOT NULL or a CHECK constraint: fail (default, as Delta) or "
                    "quarantine (the rest is committed)")
        ->transform(OneOf({"fail", "quarantine"}));
    cmd->add_option("--quarantine", quarantine,
                    "Quarantined records as JSON lines (default: standard error)");
    cmd->add_option("--report", report, "The write's result as JSON");
    cmd->add_option("--rescued-column", rescued_column,
                    "The rescued-data column, used when the table has it");
    cmd->add_option("--partition-by", partition_by,
                    "A new table's partition columns, comma-separated (with --overwrite-schema, "
                    "the new partitioning)");
    cmd->add_option("--property", properties, "A new table's property KEY=VALUE (repeatable)");
    cmd->add_option("--constraint", constraints,
                    "A new table's CHECK constraint NAME=EXPR (repeatable)");
    cmd->add_option("--compression", compression,
                    "Codec of the data files: snappy (default), zstd, gzip, lz4_raw, none")
        ->transform(OneOf({"snappy", "zstd", "gzip", "lz4_raw", "none"}));
    cmd->add_option("--max-rows-per-file", max_rows_per_file,
                    "Start a new data file after this many rows");
    cmd->add_option("--txn-app-id", txn_app_id,
                    "An idempotent writer's id: with --txn-version, a version the table already "
                    "holds for it is skipped");
    cmd->add_option("--txn-version", txn_version, "The idempotent writer's batch version");
    AddThreadsFlag(cmd, threads);
    cmd->add_option("--format", format, "Output: text (default) or json")
        ->transform(OneOf({"text", "json"}));
    cmd->add_flag("-q,--quiet", quiet, "No summary or progress on standard error");
    csv.Register(cmd);
  }
};

Result<table::TableWriteOptions> WriteOptions(const WriteFlags& f,
                                              const std::vector<std::string>& files) {
  table::TableWriteOptions o;
  o.mode = f.mode;
  o.merge_schema = f.merge_schema;
  o.type_widening = f.type_widening;
  o.overwrite_schema = f.overwrite_schema;
  if (!f.replace_where.empty()) o.replace_where = f.replace_where;
  if (!f.schema.empty()) {
    SLUICE_ASSIGN_OR_RETURN(LoadedSchema loaded, LoadSchema(f.schema, f.schema_from));
    if (!f.quiet) PrintNotes(loaded.notes, f.schema);
    o.data_schema = loaded.schema;
  }
  o.partition_by = SplitColumns(f.partition_by);
  SLUICE_ASSIGN_OR_RETURN(auto properties, KeyValues("--property", f.properties));
  for (auto& [k, v] : properties) o.properties[k] = v;
  SLUICE_ASSIGN_OR_RETURN(o.constraints, KeyValues("--constraint", f.constraints));
  if (f.input_format == "parquet") {
    o.format = data::RecordFormat::kParquet;
  } else {
    SLUICE_ASSIGN_OR_RETURN(o.format, ResolveFormat(f.input_format, files));
  }
  SLUICE_ASSIGN_OR_RETURN(o.parse_mode, ParseModeName(f.parse_mode));
  SLUICE_ASSIGN_OR_RETURN(o.csv, f.csv.Build());
  o.threads = f.threads;
  o.rescued_column = f.rescued_column;
  o.on_violation =
      f.on_violation == "quarantine" ? table::OnViolation::kQuarantine : table::OnViolation::kFail;
  if (!f.compression.empty()) {
    SLUICE_ASSIGN_OR_RETURN(o.codec, CodecNamed(f.compression));
  }
  o.max_rows_per_file = f.max_rows_per_file;
  if (f.txn_app_id.empty() != (f.txn_version < 0)) {
    return InvalidArgument("--txn-app-id and --txn-version go together");
  }
  if (!f.txn_app_id.empty())
    o.txns.push_back(table::Txn{f.txn_app_id, f.txn_version, std::nullopt});
  return o;
}

int RunWrite(WriteFlags f) {
  if (Status cpu = CheckCpu(); !cpu.has_value()) return ReportError(cpu.error());
  for (const auto& [flag, path] :
       {std::pair<std::string_view, const std::string&>{"--quarantine", f.quarantine},
        {"--report", f.report}}) {
    if (Status st = CheckWritable(flag, path); !st.has_value()) return ReportError(st.error());
  }
  auto files = InputFiles(f.files, f.pattern);
  if (!files.has_value()) return ReportError(files.error());
  auto options = WriteOptions(f, *files);
  if (!options.has_value()) return ReportError(options.error());
  ProgressBar bar(IsTerminal(2) && !f.quiet);
  options->progress = [&bar](const data::Progress& p) { bar.Update(p); };
  FileSystem& local = *LocalFileSystem();
  auto quarantine = OpenOutput(local, f.quarantine, STDERR_FILENO, {.sync = false});
  if (!quarantine.has_value()) return ReportError(quarantine.error().WithContext("--quarantine"));
  auto result = table::WriteTable(LocalFileSystem(), f.path, *files, *options, **quarantine);
  bar.Done();
  if (!result.has_value()) return ReportError(result.error());
  if (Status s = (*quarantine)->Commit(); !s.has_value()) return ReportError(s.error());
  auto json = report::Render(*result, f.path, report::Format::kJson);
  if (!json.has_value()) return ReportError(json.error());
  if (!f.report.empty()) {
    if (Status s = WriteOutput(f.report, *json); !s.has_value()) {
      return ReportError(s.error().WithContext("--report"));
    }
  }
  if (f.format == "json") {
    if (Status s = WriteOutput("-", *json); !s.has_value()) return ReportError(s.error());
  } else if (!f.quiet || result->outcome == table::WriteOutcome::kRejected) {
    auto text = report::Render(*result, f.path, report::Format::kText,
                               {.color = ColorEnabled(STDOUT_FILENO)});
    if (!text.has_value()) return ReportError(text.error());
    if (result->outcome == table::WriteOutcome::kRejected) {
      fmt::print(stderr, "{}", *text);
    } else {
      fmt::print("{}", *text);
    }
  }
  return result->outcome == table::WriteOutcome::kRejected ? kExitFindings : kExitOk;
}

struct CreateFlags {
  std::string path;
  std::string schema;
  std::string schema_from;
  std::string partition_by;
  std::vector<std::string> properties;
  std::vector<std::string> constraints;
  bool quiet = false;
};

int RunCreate(const CreateFlags& f) {
  auto loaded = LoadSchema(f.schema, f.schema_from);
  if (!loaded.has_value()) return ReportError(loaded.error());
  if (!f.quiet) PrintNotes(loaded->notes, f.schema);
  auto properties = KeyValues("--property", f.properties);
  if (!properties.has_value()) return ReportError(properties.error());
  auto constraints = KeyValues("--constraint", f.constraints);
  if (!constraints.has_value()) return ReportError(constraints.error());
  table::StringMap props(properties->begin(), properties->end());
  auto created =
      table::NewTableMetadata(*loaded->schema, SplitColumns(f.partition_by), props, *constraints);
  if (!created.has_value()) return ReportError(created.error());
  auto txn = table::Transaction::Begin(LocalFileSystem(), f.path);
  if (!txn.has_value()) return ReportError(txn.error());
  if (txn->snapshot() != nullptr) {
    return ReportError(Error(ErrorCode::kAlreadyExists,
                             fmt::format("[DELTA_TABLE_ALREADY_EXISTS] a Delta table already "
                                         "exists at {} (version {})",
                                         f.path, txn->read_version())));
  }
  txn->SetProtocol(created->first);
  txn->SetMetadata(created->second);
  table::CommitOptions co;
  co.operation = "CREATE TABLE";
  co.operation_parameters.Set("isManaged", JsonValue::String("false"));
  co.operation_parameters.Set("description", JsonValue());
  std::string partitions = "[";
  for (size_t i = 0; i < created->second.partition_columns.size(); ++i) {
    partitions += (i > 0 ? ",\"" : "\"") + created->second.partition_columns[i] + "\"";
  }
  co.operation_parameters.Set("partitionBy", JsonValue::String(partitions + "]"));
  JsonValue props_json = JsonValue::Object();
  for (const auto& [k, v] : created->second.configuration) props_json.Set(k, JsonValue::String(v));
  co.operation_parameters.Set("properties", JsonValue::String(ToJson(props_json)));
  auto done = txn->Commit(co);
  if (!done.has_value()) return ReportError(done.error());
  if (!f.quiet) {
    fmt::print("{}: created at version {} (protocol {},{})\n", f.path, done->version,
               created->first.min_reader_version, created->first.min_writer_version);
  }
  return kExitOk;
}

}  // namespace

void RegisterTableWriteCommands(CLI::App* table, int& exit_code) {
  auto create = std::make_shared<CreateFlags>();
  CLI::App* c = table->add_subcommand("create", "Create an empty Delta table with a schema");
  c->add_option("path", create->path, "The table's folder")->required();
  c->add_option("--schema", create->schema, "The table's schema (any schema language)")->required();
  c->add_option("--from", create->schema_from, "The schema's format, when detection is not enough");
  c->add_option("--partition-by", create->partition_by, "Partition columns, comma-separated");
  c->add_option("--property", create->properties, "A table property KEY=VALUE (repeatable)");
  c->add_option("--constraint", create->constraints, "A CHECK constraint NAME=EXPR (repeatable)");
  c->add_flag("-q,--quiet", create->quiet, "Print nothing when it succeeds");
  c->callback([create, &exit_code] { exit_code = RunCreate(*create); });

  auto append = std::make_shared<WriteFlags>();
  CLI::App* a = table->add_subcommand(
      "append",
      "Append records to a Delta table with Delta's schema enforcement (creating it "
      "from the data when there is none)");
  append->Register(a, false);
  a->callback([append, &exit_code] {
    exit_code = WithTableAlerts(append->notify, append->path, [&] { return RunWrite(*append); });
  });

  auto overwrite = std::make_shared<WriteFlags>();
  overwrite->mode = table::WriteMode::kOverwrite;
  CLI::App* o = table->add_subcommand("overwrite", "Replace a Delta table's rows with records");
  overwrite->Register(o, true);
  o->callback([overwrite, &exit_code] {
    exit_code =
        WithTableAlerts(overwrite->notify, overwrite->path, [&] { return RunWrite(*overwrite); });
  });
}

void RegisterTableCommand(CLI::App& app, int& exit_code) {
  CLI::App* table = app.add_subcommand("table", "Delta Lake tables: write, evolve, read, history");
  table->require_subcommand(1);
  RegisterTableWriteCommands(table, exit_code);
  RegisterTableAlterCommand(table, exit_code);
  RegisterTableInfoCommands(table, exit_code);
  RegisterTableReadCommands(table, exit_code);
}

}  // namespace sluice::cli
