// `sluice check SCHEMA --contract CONTRACT [--previous OLD]`: does a schema keep its data
// contract and the contract's change policy? And `sluice contract breaking OLD NEW`: which
// changes between two versions of a contract break consumers.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "sluice/base/json_writer.h"
#include "sluice/dialects/contract/contract.h"
#include "sluice/dialects/contract/dcs.h"
#include "sluice/evolution/contract_check.h"

namespace sluice::cli {

namespace {

namespace contract = dialects::contract;
using evolution::ContractViolation;

struct CheckOptions {
  std::string schema;
  std::string contract;
  std::string previous;
  std::string object;
  std::string format = "text";
  bool exact_types = false;
  bool quiet = false;
};

int RunCheck(const CheckOptions& opt) {
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
  if (!opt.quiet) PrintNotes(loaded->notes, opt.schema);
  evolution::ContractCheckOptions copt;
  copt.object_name = opt.object;
  copt.exact_types = opt.exact_types;
  auto report = evolution::CheckContract(*loaded->schema, *c,
                                         previous ? previous->schema.get() : nullptr, copt);
  if (!report.has_value()) return ReportError(report.error().WithContext(opt.contract));

  std::string out;
  if (opt.format == "json") {
    JsonFormat f;
    f.indent = 2;
    JsonWriter w(f);
    w.BeginObject();
    w.Key("schema").String(opt.schema);
    w.Key("contract").String(opt.contract);
    w.Key("object").String(report->object);
    if (!opt.previous.empty()) w.Key("previous").String(opt.previous);
    w.Key("passed").Bool(report->ok());
    w.Key("violations").BeginArray();
    for (const ContractViolation& v : report->violations) {
      w.BeginObject();
      w.Key("path").String(v.path.ToString());
      w.Key("rule").String(evolution::ViolationRuleName(v.rule));
      w.Key("message").String(v.message);
      w.Key("fix").String(v.fix);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    out = w.Take() + "\n";
  } else if (opt.format == "github") {
    for (const ContractViolation& v : report->violations) {
      out += fmt::format(
          "::error file={},title={}::{}: {}{}\n", GithubProperty(opt.schema),
          GithubProperty("sluice check " + std::string(evolution::ViolationRuleName(v.rule))),
          GithubData(v.path.ToString()), GithubData(v.message),
          v.fix.empty() ? "" : GithubData(" Fix: " + v.fix));
    }
    out += report->ok() ? "contract kept\n"
                        : fmt::format("{} violation(s)\n", report->violations.size());
  } else {
    out = fmt::format("{} against {}{}: {}\n", opt.schema, opt.contract,
                      report->object.empty() ? "" : " (" + report->object + ")",
                      report->ok() ? "contract kept" : "contract VIOLATED");
    for (const ContractViolation& v : report->violations) {
      out += fmt::format("  {}  {}: {}\n", v.path.ToString(), evolution::ViolationRuleName(v.rule),
                         v.message);
      if (!v.fix.empty()) out += fmt::format("    fix: {}\n", v.fix);
    }
    if (!report->ok()) out += fmt::format("{} violation(s)\n", report->violations.size());
  }
  std::cout << out;
  return report->ok() ? kExitOk : kExitFindings;
}

struct BreakingOptions {
  std::string old_contract;
  std::string new_contract;
  std::string format = "text";
  bool all = false;
};

int RunBreaking(const BreakingOptions& opt) {
  auto before = LoadContract(opt.old_contract);
  if (!before.has_value()) return ReportError(before.error());
  auto after = LoadContract(opt.new_contract);
  if (!after.has_value()) return ReportError(after.error());
  evolution::BreakingChangeReport report = evolution::BreakingChanges(*before, *after);
  if (opt.format == "json") {
    JsonFormat f;
    f.indent = 2;
    JsonWriter w(f);
    w.BeginObject();
    w.Key("old").String(opt.old_contract);
    w.Key("new").String(opt.new_contract);
    w.Key("summary").String(evolution::FormatBreakingHeadline(report));
    w.Key("errors").Int(report.Count(evolution::BreakingSeverity::kError));
    w.Key("warnings").Int(report.Count(evolution::BreakingSeverity::kWarning));
    w.Key("infos").Int(report.Count(evolution::BreakingSeverity::kInfo));
    w.Key("changes").BeginArray();
    for (const auto& c : report.changes) {
      if (!opt.all && c.severity == evolution::BreakingSeverity::kInfo) continue;
      w.BeginObject();
      w.Key("rule").String(c.rule);
      w.Key("severity").String(evolution::BreakingSeverityName(c.severity));
      w.Key("location").String(c.location);
      w.Key("description").String(c.description);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    std::cout << w.Take() << "\n";
  } else if (opt.all) {
    std::cout << evolution::FormatChangelogHeadline(report) << "\n";
    for (const auto& c : report.changes) {
      std::cout << "\n" << evolution::FormatBreakingChange(c, opt.new_contract) << "\n";
    }
  } else {
    std::cout << evolution::FormatBreakingReport(report, opt.new_contract);
  }
  return report.passed() ? kExitOk : kExitFindings;
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
  cmd->add_option("--format", opt->format, "Output: text, json or github (annotations)")
      ->check(CLI::IsMember({"text", "json", "github"}));
  cmd->add_flag("-q,--quiet", opt->quiet, "Do not print notes about lossy conversion");
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
  breaking->add_option("--format", bopt->format, "Output: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  breaking->add_flag("--all", bopt->all, "Also list info-level changes (a changelog)");
  breaking->callback([bopt, &exit_code] { exit_code = RunBreaking(*bopt); });
}

}  // namespace sluice::cli
