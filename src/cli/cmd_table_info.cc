// `sluice table history|check|schema PATH`: what a Delta table went through, whether its log
// and files hold up, and its schema at any version.
#include <memory>
#include <optional>
#include <string>

#include "cli/cli_common.h"
#include "cli/table_commands.h"
#include "sluice/base/file_system.h"
#include "sluice/report/table_info_render.h"
#include "sluice/table/check.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/history.h"
#include "sluice/table/snapshot.h"
#include "sluice/table/time_travel.h"

namespace sluice::cli {

namespace {

// A table's root as the library wants it: without a trailing '/'.
std::string TableRoot(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

struct InfoOptions {
  std::string table;
  OutputFlags out;
};

int RunHistory(const InfoOptions& opt) {
  auto format = opt.out.Format();
  if (!format.has_value()) return ReportError(format.error());
  const std::string root = TableRoot(opt.table);
  auto history = table::TableHistory(*LocalFileSystem(), root);
  if (!history.has_value()) return ReportError(history.error());
  auto text = report::Render(*history, report::HistoryContext{root}, *format, opt.out.Render());
  if (!text.has_value()) return ReportError(text.error());
  if (Status st = WriteResult(opt.out, *text); !st.has_value()) return ReportError(st.error());
  return kExitOk;
}

int RunCheck(const InfoOptions& opt) {
  auto format = opt.out.Format();
  if (!format.has_value()) return ReportError(format.error());
  auto checked = table::CheckTable(*LocalFileSystem(), TableRoot(opt.table));
  if (!checked.has_value()) return ReportError(checked.error());
  auto text = report::Render(*checked, *format, opt.out.Render());
  if (!text.has_value()) return ReportError(text.error());
  if (Status st = WriteResult(opt.out, *text); !st.has_value()) return ReportError(st.error());
  return checked->clean() ? kExitOk : kExitFindings;
}

struct SchemaOptions {
  std::string table;
  std::optional<int64_t> version;
  std::string timestamp;
  std::string as;
  std::string sql_table;
  std::string output;
  bool quiet = false;
};

// The name `sql-*` output gives the table: --table, else the table's own name, else its folder.
std::string SqlTableName(const SchemaOptions& opt, const table::Snapshot& s) {
  if (!opt.sql_table.empty()) return opt.sql_table;
  if (s.metadata.name && !s.metadata.name->empty()) return *s.metadata.name;
  size_t slash = s.root.find_last_of('/');
  return slash == std::string::npos ? s.root : s.root.substr(slash + 1);
}

int RunSchema(const SchemaOptions& opt) {
  table::SnapshotOptions at;
  at.version = opt.version;
  if (!opt.timestamp.empty()) {
    auto ms = table::ParseTimestampMs(opt.timestamp);
    if (!ms.has_value()) return ReportError(ms.error().WithContext("--timestamp"));
    at.timestamp_ms = *ms;
  }
  auto to = OutputFormat(opt.as);
  if (!to.has_value()) return ReportError(to.error());
  auto snapshot = table::LoadSnapshot(*LocalFileSystem(), TableRoot(opt.table), at);
  if (!snapshot.has_value()) return ReportError(snapshot.error());
  dialects::WriteOptions wo;
  wo.table_name = SqlTableName(opt, *snapshot);
  // Spark JSON is Delta's own schemaString, metadata and all; every other language gets the
  // schema as users see it, without the metadata that only says how the table stores it.
  schema::SchemaPtr shown = snapshot->schema;
  if (*to != dialects::Format::kSparkJson) {
    auto logical = table::WithoutStorageMetadata(*shown);
    if (!logical.has_value()) return ReportError(logical.error());
    shown = *logical;
  }
  auto written = dialects::WriteSchema(*shown, *to, wo);
  if (!written.has_value()) return ReportError(written.error());
  if (!opt.quiet) PrintNotes(written->notes, snapshot->root);
  std::string text = std::move(written->value);
  if (!text.empty() && text.back() != '\n') text += '\n';
  Status st = WriteOutput(opt.output, text);
  if (!st.has_value()) return ReportError(st.error().WithContext("--output"));
  return kExitOk;
}

}  // namespace

void RegisterTableInfoCommands(CLI::App* table, int& exit_code) {
  auto history_opt = std::make_shared<InfoOptions>();
  CLI::App* history = table->add_subcommand(
      "history",
      "Every version still in the table's log, newest first: when, what operation, rows and "
      "files added, and the protocol, properties, partitioning and schema it changed (the schema "
      "change as `sluice diff` prints it)");
  history->add_option("table", history_opt->table, "The table's folder")->required();
  history_opt->out.Register(history, {"text", "json"}, "Write the history here");
  history->callback([history_opt, &exit_code] { exit_code = RunHistory(*history_opt); });

  auto check_opt = std::make_shared<InfoOptions>();
  CLI::App* check = table->add_subcommand(
      "check",
      "Check a table's log against the Delta protocol and its live files against the log. Exit "
      "0 when clean, 1 with findings, 2 on usage or input errors");
  check->add_option("table", check_opt->table, "The table's folder")->required();
  check_opt->out.Register(check, {"text", "json"}, "Write the report here");
  check->callback([check_opt, &exit_code] { exit_code = RunCheck(*check_opt); });

  auto schema_opt = std::make_shared<SchemaOptions>();
  CLI::App* schema = table->add_subcommand(
      "schema",
      "Print the table's schema, at the latest version or as of a version or time (a tree on a "
      "terminal, Spark JSON otherwise)");
  schema->add_option("table", schema_opt->table, "The table's folder")->required();
  CLI::Option* version = schema->add_option("--version", schema_opt->version, "The version to read")
                             ->check(CLI::NonNegativeNumber);
  schema
      ->add_option("--timestamp", schema_opt->timestamp,
                   "Read the newest version committed at or before this time: ISO-8601 "
                   "(2026-12-04T10:11:12Z; no zone is UTC) or milliseconds since the epoch")
      ->excludes(version);
  std::string formats;
  for (const auto& n : dialects::FormatNames(false)) formats += (formats.empty() ? "" : ", ") + n;
  schema->add_option("--as", schema_opt->as, "Output format. One of: " + formats);
  schema->add_option("--table", schema_opt->sql_table,
                     "Table name for sql-* output (default: the table's name, else its folder)");
  schema->add_option("-o,--output", schema_opt->output, "Output file (default: standard output)");
  schema->add_flag("-q,--quiet", schema_opt->quiet, "Do not print notes about lossy conversion");
  schema->callback([schema_opt, &exit_code] { exit_code = RunSchema(*schema_opt); });
}

}  // namespace sluice::cli
