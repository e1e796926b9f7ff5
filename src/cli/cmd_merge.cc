// `sluice merge TABLE_SCHEMA INCOMING`: what writing data of one schema into a table of another
// does, under Delta's (or Iceberg's) enforcement, mergeSchema, overwriteSchema and type widening.
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "sluice/evolution/table_merge.h"
#include "sluice/report/merge_render.h"

namespace sluice::cli {

namespace {

struct MergeOptions {
  std::string table;
  std::string incoming;
  std::string mode = "enforce";
  std::string table_format = "delta";
  std::string as = "spark-json";
  bool type_widening = false;
  OutputFlags out;
};

int RunMerge(const MergeOptions& opt) {
  auto format = opt.out.Format();
  if (!format.has_value()) return ReportError(format.error());
  auto table = LoadSchema(opt.table, "");
  if (!table.has_value()) return ReportError(table.error());
  auto incoming = LoadSchema(opt.incoming, "");
  if (!incoming.has_value()) return ReportError(incoming.error());
  auto as = dialects::ParseFormatName(opt.as);
  if (!as.has_value()) return ReportError(as.error());
  if (!opt.out.quiet) {
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
  report::MergeContext context;
  context.table_name = opt.table;
  context.incoming_name = opt.incoming;
  context.options = mopt;
  context.schema_format = opt.as;
  context.schema_in_text = IsStandardStream(opt.out.output);
  if (result->ok()) {
    auto written = dialects::WriteSchema(*result->schema, *as);
    if (!written.has_value()) return ReportError(written.error());
    if (!opt.out.quiet) PrintNotes(written->notes, "result");
    std::string schema_text = std::move(written->value);
    if (!schema_text.empty() && schema_text.back() != '\n') schema_text += '\n';
    context.schema_text = std::move(schema_text);
    if (!context.schema_in_text) {
      Status st = WriteResult(opt.out, context.schema_text);
      if (!st.has_value()) return ReportError(st.error());
    }
  }
  auto text = report::Render(*result, context, *format, opt.out.Render());
  if (!text.has_value()) return ReportError(text.error());
  std::cout << *text;
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
      ->transform(OneOf({"enforce", "merge", "overwrite"}));
  cmd->add_flag("--type-widening", opt->type_widening,
                "The table has delta.enableTypeWidening=true");
  cmd->add_option("--table-format", opt->table_format, "delta (default) or iceberg")
      ->transform(OneOf({"delta", "iceberg"}));
  cmd->add_option("--as", opt->as, "Format of the resulting schema (default spark-json)");
  // -o writes the schema, not the report: the report stays on standard output.
  opt->out.Register(cmd, {"text", "json"}, "Write the resulting schema to this file");
  cmd->callback([opt, &exit_code] { exit_code = RunMerge(*opt); });
}

}  // namespace sluice::cli
