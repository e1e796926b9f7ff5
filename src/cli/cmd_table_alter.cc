// `sluice table alter PATH --add-column 'DDL' | --rename-column OLD NEW | --drop-column C |
// --widen 'C TYPE' | --set k=v | --unset k | --add-constraint NAME EXPR | --drop-constraint NAME`:
// one in-place change, one commit (sluice::table::AlterTable).
#include <fmt/format.h>

#include <memory>

#include "cli/cli_common.h"
#include "cli/notify_flags.h"
#include "cli/table_commands.h"
#include "sluice/table/alter.h"
#include "sluice/table/scan.h"

namespace sluice::cli {
namespace {

struct AlterFlags {
  std::string path;
  NotifyFlags notify;
  std::string add_column;
  std::vector<std::string> rename_column;
  std::string drop_column;
  std::string widen;
  std::string set;
  std::string unset;
  std::vector<std::string> add_constraint;
  std::string drop_constraint;
  bool quiet = false;
};

Result<table::AlterChange> ChangeOf(const AlterFlags& f) {
  std::vector<table::AlterChange> changes;
  using Kind = table::AlterChange::Kind;
  if (!f.add_column.empty()) changes.push_back({Kind::kAddColumn, f.add_column, ""});
  if (!f.rename_column.empty()) {
    changes.push_back({Kind::kRenameColumn, f.rename_column[0], f.rename_column[1]});
  }
  if (!f.drop_column.empty()) changes.push_back({Kind::kDropColumn, f.drop_column, ""});
  if (!f.widen.empty()) changes.push_back({Kind::kWiden, f.widen, ""});
  if (!f.set.empty()) {
    size_t eq = f.set.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("--set takes KEY=VALUE, not '" + f.set + "'");
    }
    changes.push_back({Kind::kSetProperty, f.set.substr(0, eq), f.set.substr(eq + 1)});
  }
  if (!f.unset.empty()) changes.push_back({Kind::kUnsetProperty, f.unset, ""});
  if (!f.add_constraint.empty()) {
    changes.push_back({Kind::kAddConstraint, f.add_constraint[0], f.add_constraint[1]});
  }
  if (!f.drop_constraint.empty()) {
    changes.push_back({Kind::kDropConstraint, f.drop_constraint, ""});
  }
  if (changes.size() != 1) {
    return InvalidArgument(
        "give exactly one change: --add-column, --rename-column, --drop-column, --widen, --set, "
        "--unset, --add-constraint or --drop-constraint");
  }
  return changes[0];
}

int RunAlter(const AlterFlags& f) {
  auto change = ChangeOf(f);
  if (!change.has_value()) return ReportError(change.error());
  auto done = table::AlterTable(LocalFileSystem(), f.path, *change,
                                table::TableRows(LocalFileSystem(), f.path));
  if (!done.has_value()) {
    // A change Delta refuses is a finding (exit 1), like a rejected write.
    if (done.error().code() == ErrorCode::kIncompatible ||
        (done.error().code() == ErrorCode::kInvalidArgument &&
         done.error().message().starts_with("["))) {
      fmt::print(stderr, "{}: change refused, nothing committed\n  {}\n", f.path,
                 done.error().message());
      return kExitFindings;
    }
    return ReportError(done.error());
  }
  if (!f.quiet) {
    for (const std::string& note : done->notes) fmt::print("{}: {}\n", f.path, note);
    fmt::print("{}: committed version {}\n", f.path, done->version);
  }
  return kExitOk;
}

}  // namespace

void RegisterTableAlterCommand(CLI::App* table, int& exit_code) {
  auto f = std::make_shared<AlterFlags>();
  CLI::App* cmd = table->add_subcommand(
      "alter", "Change a Delta table in place: columns, types, properties, constraints");
  cmd->add_option("path", f->path, "The table's folder")->required();
  cmd->add_option("--add-column", f->add_column,
                  "A column as DDL: 'a.b TYPE [COMMENT \\'c\\'] [FIRST | AFTER x]'");
  cmd->add_option("--rename-column", f->rename_column, "OLD NEW (turns on column mapping)")
      ->expected(2);
  cmd->add_option("--drop-column", f->drop_column, "A column path (turns on column mapping)");
  cmd->add_option("--widen", f->widen, "'C TYPE': widen a column's type (type widening)");
  cmd->add_option("--set", f->set, "Set a table property KEY=VALUE");
  cmd->add_option("--unset", f->unset, "Remove a table property");
  cmd->add_option("--add-constraint", f->add_constraint,
                  "NAME EXPR: a CHECK constraint, checked against every row first")
      ->expected(2);
  cmd->add_option("--drop-constraint", f->drop_constraint, "A CHECK constraint's name");
  cmd->add_flag("-q,--quiet", f->quiet, "Print nothing when it succeeds");
  f->notify.Register(cmd);
  cmd->callback([f, &exit_code] {
    exit_code = WithTableAlerts(f->notify, f->path, [&] { return RunAlter(*f); });
  });
}

}  // namespace sluice::cli
