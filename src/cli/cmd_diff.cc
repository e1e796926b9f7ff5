// `sluice diff OLD NEW`: what changed between two schema versions, in any two languages.
#include <iostream>
#include <memory>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "sluice/evolution/diff.h"
#include "sluice/report/diff_render.h"

namespace sluice::cli {

namespace {

using evolution::SchemaDiff;

struct DiffOptions {
  std::string old_file;
  std::string new_file;
  std::string old_from;
  std::string new_from;
  bool case_sensitive = false;
  OutputFlags out;
};

int RunDiff(const DiffOptions& opt) {
  auto format = opt.out.Format();
  if (!format.has_value()) return ReportError(format.error());
  auto before = LoadSchema(opt.old_file, opt.old_from);
  if (!before.has_value()) return ReportError(before.error());
  auto after = LoadSchema(opt.new_file, opt.new_from);
  if (!after.has_value()) return ReportError(after.error());
  if (!opt.out.quiet) {
    PrintNotes(before->notes, opt.old_file);
    PrintNotes(after->notes, opt.new_file);
  }
  evolution::DiffOptions dopt;
  dopt.case_sensitive = opt.case_sensitive;
  SchemaDiff d = evolution::Diff(*before->schema, *after->schema, dopt);
  auto text =
      report::Render(d, report::DiffContext{opt.old_file, opt.new_file}, *format, opt.out.Render());
  if (!text.has_value()) return ReportError(text.error());
  if (Status st = WriteResult(opt.out, *text); !st.has_value()) return ReportError(st.error());
  return d.empty() ? kExitOk : kExitFindings;
}

}  // namespace

void RegisterDiffCommand(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<DiffOptions>();
  CLI::App* diff = app.add_subcommand(
      "diff",
      "Compare two schema versions (in any two languages) down to nested paths. Exit 0 when "
      "identical, 1 when changes were found, 2 on usage or input errors");
  diff->add_option("old", opt->old_file, "The earlier schema")->required();
  diff->add_option("new", opt->new_file, "The later schema")->required();
  diff->add_flag("--case-sensitive", opt->case_sensitive,
                 "Match field names exactly (default: ignoring case, as Spark does)");
  diff->add_option("--old-from", opt->old_from, "Format of OLD (default: detected)");
  diff->add_option("--new-from", opt->new_from, "Format of NEW (default: detected)");
  opt->out.Register(diff, {"text", "json", "github"},
                    "Write the diff here instead of standard output");
  diff->callback([opt, &exit_code] { exit_code = RunDiff(*opt); });
}

}  // namespace sluice::cli
