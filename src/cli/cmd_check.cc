// `sluice check SCHEMA --contract CONTRACT [--previous OLD]`: does a schema keep its data
// contract and the contract's change policy? And `sluice contract breaking OLD NEW`: which
// changes between two versions of a contract break consumers.
#include <iostream>
#include <memory>
#include <optional>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "sluice/dialects/contract/contract.h"
#include "sluice/evolution/contract_check.h"
#include "sluice/report/contract_render.h"

namespace sluice::cli {

namespace {

struct CheckOptions {
  std::string schema;
  std::string contract;
  std::string previous;
  std::string object;
  bool exact_types = false;
  OutputFlags out;
};

int RunCheck(const CheckOptions& opt) {
  auto format = opt.out.Format();
  if (!format.has_value()) return ReportError(format.error());
  auto loaded = LoadSchema(opt.schema, "");
  if (!loaded.has_value()) return ReportError(loaded.error());
  auto c = LoadContract(opt.contract);
  if (!c.has_value()) return ReportError(c.error());
  std::optional<LoadedSchema> previous;
  if (!opt.previous.empty()) {
    auto p = LoadSchema(opt.previous, "");
    if (!p.has_value()) return ReportError(p.error());
    previous = std::move(*p);
  }
  if (!opt.out.quiet) PrintNotes(loaded->notes, opt.schema);
  evolution::ContractCheckOptions copt;
  copt.object_name = opt.object;
  copt.exact_types = opt.exact_types;
  auto result = evolution::CheckContract(*loaded->schema, *c,
                                         previous ? previous->schema.get() : nullptr, copt);
  if (!result.has_value()) return ReportError(result.error().WithContext(opt.contract));

  report::CheckContext context{opt.schema, opt.contract, opt.previous};
  auto text = report::Render(*result, context, *format, opt.out.Render());
  if (!text.has_value()) return ReportError(text.error());
  if (Status st = WriteResult(opt.out, *text); !st.has_value()) return ReportError(st.error());
  return result->ok() ? kExitOk : kExitFindings;
}

struct BreakingOptions {
  std::string old_contract;
  std::string new_contract;
  bool all = false;
  OutputFlags out;
};

int RunBreaking(const BreakingOptions& opt) {
  auto format = opt.out.Format();
  if (!format.has_value()) return ReportError(format.error());
  auto before = LoadContract(opt.old_contract);
  if (!before.has_value()) return ReportError(before.error());
  auto after = LoadContract(opt.new_contract);
  if (!after.has_value()) return ReportError(after.error());
  evolution::BreakingChangeReport result = evolution::BreakingChanges(*before, *after);
  report::BreakingContext context{opt.old_contract, opt.new_contract, opt.all};
  auto text = report::Render(result, context, *format, opt.out.Render());
  if (!text.has_value()) return ReportError(text.error());
  if (Status st = WriteResult(opt.out, *text); !st.has_value()) return ReportError(st.error());
  return result.passed() ? kExitOk : kExitFindings;
}

}  // namespace

void RegisterCheckCommand(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Check a schema against a data contract (seed YAML, ODCS v3 or DCS) and, with --previous, "
      "the change from the previous schema against the contract's policy. Exit 0 when the "
      "contract holds, 1 on violations, 2 on usage or input errors");
  cmd->add_option("schema", opt->schema, "The schema to check (any schema language)")->required();
  cmd->add_option("--contract", opt->contract, "The contract")->required();
  cmd->add_option("--previous", opt->previous, "The schema's previous version");
  cmd->add_option("--object", opt->object,
                  "The contract's schema object (default: by name, else the first)");
  cmd->add_flag(
      "--exact-types", opt->exact_types,
      "Seed contracts: types must equal the contract's (default: lossless widening passes)");
  opt->out.Register(cmd, {"text", "json", "github"},
                    "Write the verdict here instead of standard output");
  cmd->callback([opt, &exit_code] { exit_code = RunCheck(*opt); });

  auto bopt = std::make_shared<BreakingOptions>();
  CLI::App* contract_cmd = app.add_subcommand("contract", "Data contract commands");
  contract_cmd->require_subcommand(1);
  CLI::App* breaking = contract_cmd->add_subcommand(
      "breaking",
      "List the changes between two versions of a contract that break consumers, with "
      "datacontract-cli's rules and severities. Exit 1 when any is an error");
  breaking->add_option("old", bopt->old_contract, "The earlier contract")->required();
  breaking->add_option("new", bopt->new_contract, "The later contract")->required();
  bopt->out.Register(breaking, {"text", "json"},
                     "Write the changes here instead of standard output");
  breaking->add_flag("--all", bopt->all, "Also list info-level changes (a changelog)");
  breaking->callback([bopt, &exit_code] { exit_code = RunBreaking(*bopt); });
}

}  // namespace sluice::cli
