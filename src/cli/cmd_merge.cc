// `sluice merge TABLE_SCHEMA INCOMING`: what writing data of one schema into a table of another
// does, under Delta's (or Iceberg's) enforcement, mergeSchema, overwriteSchema and type widening.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "sluice/base/json_writer.h"
#include "sluice/evolution/table_merge.h"

namespace sluice::cli {

namespace {

using evolution::MergeResult;
using evolution::TableChange;
using evolution::TableViolation;

struct MergeOptions {
  std::string table;
  std::string incoming;
  std::string mode = "enforce";
  std::string table_format = "delta";
  std::string as = "spark-json";
  std::string format = "text";
  std::string output;
  bool type_widening = false;
  bool quiet = false;
};

std::string ModeWords(const MergeOptions& opt) {
  std::string words = opt.table_format == "iceberg" ? "Iceberg" : "Delta";
  if (opt.mode == "merge") {
    words += ", mergeSchema";
  } else if (opt.mode == "overwrite") {
    words += ", overwriteSchema";
  } else {
    words += ", enforcement";
  }
  if (opt.type_widening) words += ", type widening";
  return words;
}

std::string RenderText(const MergeResult& r, const MergeOptions& opt, const std::string& schema) {
  std::string out = fmt::format("{} into {} ({}): {}\n", opt.incoming, opt.table, ModeWords(opt),
                                evolution::MergeVerdictName(r.verdict));
  for (const TableViolation& v : r.violations) {
    out += fmt::format("  ! {}: {}{}\n", v.path.empty() ? "(table)" : v.path.ToString(),
                       v.error_class.empty() ? "" : "[" + v.error_class + "] ", v.message);
    if (!v.hint.empty()) out += fmt::format("    fix: {}\n", v.hint);
  }
  for (const TableChange& c : r.changes) {
    std::string what = c.from.empty() ? c.to : c.to.empty() ? c.from : c.from + " -> " + c.to;
    out +=
        fmt::format("  ~ {}  {}  {}{}\n", c.path.ToString(), evolution::TableChangeKindName(c.kind),
                    what, c.note.empty() ? "" : "  (" + c.note + ")");
  }
  if (!r.ok()) return out;
  if (opt.output.empty()) out += "\n" + schema;
  return out;
}

std::string RenderJson(const MergeResult& r, const MergeOptions& opt, const std::string& schema) {
  JsonFormat f;
  f.indent = 2;
  JsonWriter w(f);
  w.BeginObject();
  w.Key("table").String(opt.table);
  w.Key("incoming").String(opt.incoming);
  w.Key("format").String(opt.table_format);
  w.Key("mode").String(opt.mode);
  w.Key("type_widening").Bool(opt.type_widening);
  w.Key("verdict").String(evolution::MergeVerdictName(r.verdict));
  w.Key("violations").BeginArray();
  for (const TableViolation& v : r.violations) {
    w.BeginObject();
    w.Key("path").String(v.path.ToString());
    w.Key("error_class").String(v.error_class);
    w.Key("cause_class").String(v.cause_class);
    w.Key("message").String(v.message);
    w.Key("hint").String(v.hint);
    w.EndObject();
  }
  w.EndArray();
  w.Key("changes").BeginArray();
  for (const TableChange& c : r.changes) {
    w.BeginObject();
    w.Key("path").String(c.path.ToString());
    w.Key("kind").String(evolution::TableChangeKindName(c.kind));
    w.Key("from").String(c.from);
    w.Key("to").String(c.to);
    w.Key("note").String(c.note);
    w.EndObject();
  }
  w.EndArray();
  w.Key("schema_format").String(opt.as);
  w.Key("schema").String(schema);
  w.EndObject();
  return w.Take() + "\n";
}

int RunMerge(const MergeOptions& opt) {
  auto table = LoadSchema(opt.table, "");
  if (!table.has_value()) return ReportError(table.error());
  auto incoming = LoadSchema(opt.incoming, "");
  if (!incoming.has_value()) return ReportError(incoming.error());
  auto as = dialects::ParseFormatName(opt.as);
  if (!as.has_value()) return ReportError(as.error());
  if (!opt.quiet) {
    PrintNotes(table->notes, opt.table);
    PrintNotes(incoming->notes, opt.incoming);
  }
  evolution::MergeOptions mopt;
  mopt.format = opt.table_format == "iceberg" ? evolution::TableFormat::kIceberg
                                              : evolution::TableFormat::kDelta;
  mopt.mode = opt.mode == "merge"       ? evolution::TableWriteMode::kMerge
              : opt.mode == "overwrite" ? evolution::TableWriteMode::kOverwrite
                                        : evolution::TableWriteMode::kEnforce;
  mopt.type_widening = opt.type_widening;
  auto result = evolution::Merge(*table->schema, *incoming->schema, mopt);
  if (!result.has_value()) return ReportError(result.error());
  std::string schema_text;
  if (result->ok()) {
    auto written = dialects::WriteSchema(*result->schema, *as);
    if (!written.has_value()) return ReportError(written.error());
    if (!opt.quiet) PrintNotes(written->notes, "result");
    schema_text = written->value;
    if (!schema_text.empty() && schema_text.back() != '\n') schema_text += '\n';
    if (!opt.output.empty()) {
      Status st = WriteOutput(opt.output, schema_text);
      if (!st.has_value()) return ReportError(st.error());
    }
  }
  std::cout << (opt.format == "json" ? RenderJson(*result, opt, schema_text)
                                     : RenderText(*result, opt, schema_text));
  return result->ok() ? kExitOk : kExitFindings;
}

}  // namespace

void RegisterMergeCommand(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<MergeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Decide what appending data of schema INCOMING to a table of schema TABLE_SCHEMA does, "
      "with Delta's rules (or Iceberg's): print the table's resulting schema and the changes. "
      "Exit 0 when the write succeeds, 1 when it is rejected, 2 on usage or input errors");
  cmd->add_option("table_schema", opt->table, "The table's current schema")->required();
  cmd->add_option("incoming", opt->incoming, "The schema of the data being written")->required();
  cmd->add_option("--mode", opt->mode,
                  "enforce (plain append, the default), merge (mergeSchema), overwrite "
                  "(overwriteSchema)")
      ->check(CLI::IsMember({"enforce", "merge", "overwrite"}));
  cmd->add_flag("--type-widening", opt->type_widening,
                "The table has delta.enableTypeWidening=true");
  cmd->add_option("--table-format", opt->table_format, "delta (default) or iceberg")
      ->check(CLI::IsMember({"delta", "iceberg"}));
  cmd->add_option("--as", opt->as, "Format of the resulting schema (default spark-json)");
  cmd->add_option("--format", opt->format, "Report: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("-o,--output", opt->output, "Write the resulting schema to this file");
  cmd->add_flag("-q,--quiet", opt->quiet, "Do not print notes about lossy conversion");
  cmd->callback([opt, &exit_code] { exit_code = RunMerge(*opt); });
}

}  // namespace sluice::cli
