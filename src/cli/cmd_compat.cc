// `sluice compat V1 [V2 ...] NEW`: can this schema change ship? Registry compatibility modes over
// a version history, with each schema type's own rules.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/evolution/compatibility.h"

namespace sluice::cli {

namespace {

using evolution::CompatibilityReport;
using evolution::Incompatibility;

struct CompatOptions {
  std::vector<std::string> files;
  std::string type = "auto";
  std::string mode = "BACKWARD";
  std::string format = "text";
  std::string policy = "strict";
  bool type_widening = false;
};

// The schema type a file implies when --type is auto: Avro and JSON Schema have their own rules;
// every other language describes a table.
Result<evolution::SchemaType> AutoType(const std::string& path, const std::string& content) {
  SLUICE_ASSIGN_OR_RETURN(dialects::Format f, dialects::DetectFormat(path, content));
  if (f == dialects::Format::kAvro) return evolution::SchemaType::kAvro;
  if (f == dialects::Format::kJsonSchema) return evolution::SchemaType::kJsonSchema;
  return evolution::SchemaType::kTable;
}

std::string Against(const CompatOptions& opt, const Incompatibility& inc) {
  return opt.files[inc.version_index];
}

std::string RenderText(const CompatibilityReport& r, const CompatOptions& opt) {
  const std::string& candidate = opt.files.back();
  std::string out;
  std::string mode(evolution::CompatibilityModeName(r.mode));
  if (r.checked_versions.empty()) {
    return fmt::format("{}: {} is compatible ({})\n", mode, candidate,
                       r.mode == evolution::CompatibilityMode::kNone ? "mode NONE checks nothing"
                                                                     : "no earlier versions");
  }
  out += fmt::format("{} ({}): {} is {}\n", mode, evolution::SchemaTypeName(r.type), candidate,
                     r.compatible ? "compatible" : "NOT compatible");
  for (const Incompatibility& inc : r.incompatibilities) {
    std::string who =
        inc.direction == evolution::CheckDirection::kBackward
            ? fmt::format("new schema reading data written with {}", Against(opt, inc))
            : fmt::format("{} reading data written with the new schema", Against(opt, inc));
    out += fmt::format("  {} at {} ({})\n    {}\n", inc.kind,
                       inc.location.empty() ? "the top level" : inc.location, who, inc.message);
    if (!inc.hint.empty()) out += fmt::format("    fix: {}\n", inc.hint);
  }
  std::vector<std::string> names;
  for (size_t i : r.checked_versions) names.push_back(opt.files[i]);
  out += fmt::format("{} incompatibilit{}; checked against {}\n", r.incompatibilities.size(),
                     r.incompatibilities.size() == 1 ? "y" : "ies", JoinStrings(names, ", "));
  return out;
}

std::string RenderJson(const CompatibilityReport& r, const CompatOptions& opt) {
  JsonFormat f;
  f.indent = 2;
  JsonWriter w(f);
  w.BeginObject();
  w.Key("mode").String(evolution::CompatibilityModeName(r.mode));
  w.Key("type").String(evolution::SchemaTypeName(r.type));
  w.Key("candidate").String(opt.files.back());
  w.Key("compatible").Bool(r.compatible);
  w.Key("checked").BeginArray();
  for (size_t i : r.checked_versions) w.String(opt.files[i]);
  w.EndArray();
  w.Key("incompatibilities").BeginArray();
  for (const Incompatibility& inc : r.incompatibilities) {
    w.BeginObject();
    w.Key("kind").String(inc.kind);
    w.Key("location").String(inc.location);
    w.Key("message").String(inc.message);
    w.Key("hint").String(inc.hint);
    w.Key("direction").String(evolution::CheckDirectionName(inc.direction));
    w.Key("against").String(Against(opt, inc));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take() + "\n";
}

std::string RenderGithub(const CompatibilityReport& r, const CompatOptions& opt) {
  std::string out;
  for (const Incompatibility& inc : r.incompatibilities) {
    std::string msg =
        fmt::format("{} at {} (against {}, {}): {}", inc.kind, inc.location, Against(opt, inc),
                    evolution::CheckDirectionName(inc.direction), inc.message);
    if (!inc.hint.empty()) msg += " Fix: " + inc.hint;
    out += fmt::format("::error file={},title={}::{}\n", GithubProperty(opt.files.back()),
                       GithubProperty("sluice compat " + inc.kind), GithubData(msg));
  }
  out += fmt::format("{}: {}\n", evolution::CompatibilityModeName(r.mode),
                     r.compatible ? "compatible" : "NOT compatible");
  return out;
}

int RunCompat(const CompatOptions& opt) {
  auto mode = evolution::ParseCompatibilityMode(opt.mode);
  if (!mode.has_value()) return ReportError(mode.error());
  evolution::CompatibilityOptions copt;
  copt.type_widening = opt.type_widening;
  copt.json_policy = opt.policy == "lenient" ? evolution::JsonSchemaPolicy::kLenient
                                             : evolution::JsonSchemaPolicy::kStrict;
  std::vector<std::string> contents;
  for (const auto& f : opt.files) {
    auto text = ReadInput(f);
    if (!text.has_value()) return ReportError(text.error().WithContext(f));
    contents.push_back(std::move(*text));
  }
  evolution::SchemaType type;
  if (opt.type == "auto") {
    auto t = AutoType(opt.files.back(), contents.back());
    if (!t.has_value()) return ReportError(t.error().WithContext(opt.files.back()));
    type = *t;
  } else {
    auto t = evolution::ParseSchemaType(opt.type);
    if (!t.has_value()) return ReportError(t.error());
    type = *t;
  }
  std::vector<evolution::ParsedSchemaPtr> parsed;
  for (size_t i = 0; i < opt.files.size(); ++i) {
    auto p = evolution::ParsedSchema::Parse(type, contents[i], opt.files[i]);
    if (!p.has_value()) return ReportError(p.error().WithContext(opt.files[i]));
    parsed.push_back(std::move(*p));
  }
  evolution::ParsedSchemaPtr candidate = parsed.back();
  parsed.pop_back();
  CompatibilityReport report = evolution::CheckCompatibility(*mode, parsed, *candidate, copt);
  std::string text = opt.format == "json"     ? RenderJson(report, opt)
                     : opt.format == "github" ? RenderGithub(report, opt)
                                              : RenderText(report, opt);
  std::cout << text;
  return report.compatible ? kExitOk : kExitFindings;
}

}  // namespace

void RegisterCompatCommand(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<CompatOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compat",
      "Check a new schema against earlier versions in a registry compatibility mode. The last "
      "file is the candidate, the others its history, oldest first. Exit 0 compatible, 1 "
      "incompatible, 2 usage or input error");
  cmd->add_option("files", opt->files, "V1 [V2 ...] NEW")->required()->expected(2, -1);
  cmd->add_option("--type", opt->type,
                  "avro, json-schema, table (Delta rules), iceberg, or auto (from NEW's format)")
      ->check(CLI::IsMember({"auto", "avro", "json-schema", "json", "table", "delta", "iceberg"}));
  cmd->add_option("--mode", opt->mode,
                  "NONE, BACKWARD (default), BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, "
                  "FULL, FULL_TRANSITIVE");
  cmd->add_option("--format", opt->format, "Output: text, json or github (annotations)")
      ->check(CLI::IsMember({"text", "json", "github"}));
  cmd->add_option("--policy", opt->policy, "JSON Schema: strict (Confluent's default) or lenient")
      ->check(CLI::IsMember({"strict", "lenient"}));
  cmd->add_flag("--type-widening", opt->type_widening,
                "Tables: allow Delta's type widening (delta.enableTypeWidening)");
  cmd->callback([opt, &exit_code] { exit_code = RunCompat(*opt); });
}

}  // namespace sluice::cli
