// `sluice compat V1 [V2 ...] NEW`: can this schema change ship? Registry compatibility modes over
// a version history, with each schema type's own rules.
#include <iostream>
#include <memory>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "sluice/evolution/compatibility.h"
#include "sluice/report/compat_render.h"

namespace sluice::cli {

namespace {

using evolution::CompatibilityReport;

struct CompatOptions {
  std::vector<std::string> files;
  std::string type = "auto";
  std::string mode = "BACKWARD";
  std::string policy = "strict";
  bool type_widening = false;
  OutputFlags out;
};

// The schema type a file implies when --type is auto: Avro and JSON Schema have their own rules;
// every other language describes a table.
Result<evolution::SchemaType> AutoType(const std::string& path, const std::string& content) {
  SLUICE_ASSIGN_OR_RETURN(dialects::Format f, dialects::DetectFormat(path, content));
  if (f == dialects::Format::kAvro) return evolution::SchemaType::kAvro;
  if (f == dialects::Format::kJsonSchema) return evolution::SchemaType::kJsonSchema;
  return evolution::SchemaType::kTable;
}

int RunCompat(const CompatOptions& opt) {
  auto format = opt.out.Format();
  if (!format.has_value()) return ReportError(format.error());
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
  CompatibilityReport result = evolution::CheckCompatibility(*mode, parsed, *candidate, copt);
  report::CompatContext context;
  context.history.assign(opt.files.begin(), opt.files.end() - 1);
  context.candidate = opt.files.back();
  auto text = report::Render(result, context, *format, opt.out.Render());
  if (!text.has_value()) return ReportError(text.error());
  if (Status st = WriteResult(opt.out, *text); !st.has_value()) return ReportError(st.error());
  return result.compatible ? kExitOk : kExitFindings;
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
      ->transform(OneOf({"auto", "avro", "json-schema", "json", "table", "delta", "iceberg"}));
  cmd->add_option("--mode", opt->mode,
                  "NONE, BACKWARD (default), BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, "
                  "FULL, FULL_TRANSITIVE");
  cmd->add_option("--policy", opt->policy, "JSON Schema: strict (Confluent's default) or lenient")
      ->transform(OneOf({"strict", "lenient"}));
  cmd->add_flag("--type-widening", opt->type_widening,
                "Tables: allow Delta's type widening (delta.enableTypeWidening)");
  opt->out.Register(cmd, {"text", "json", "github"},
                    "Write the verdict here instead of standard output");
  cmd->callback([opt, &exit_code] { exit_code = RunCompat(*opt); });
}

}  // namespace sluice::cli
