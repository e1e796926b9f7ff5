// `sluice schema show|convert|fingerprint|formats`: read a schema in any language, print it in
// any other, or fingerprint it.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "sluice/base/hash.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/schema/canonical.h"

namespace sluice::cli {

namespace {

struct ShowOptions {
  std::string file;
  std::string from;
  std::string as;
  std::string table;
  std::string output;
  bool quiet = false;
};

std::string FormatList(bool readable_only) {
  std::string out;
  for (const auto& n : dialects::FormatNames(readable_only)) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

int RunShow(const ShowOptions& opt) {
  auto input = ReadSchemaInput(opt.file, opt.from);
  if (!input.has_value()) return ReportError(input.error());
  auto from = opt.from.empty() ? dialects::DetectFormat(opt.file, *input)
                               : dialects::ParseFormatName(opt.from);
  if (!from.has_value()) return ReportError(from.error().WithContext(opt.file));
  auto parsed_to = OutputFormat(opt.as);
  if (!parsed_to.has_value()) return ReportError(parsed_to.error());
  const dialects::Format to = *parsed_to;
  dialects::WriteOptions wo;
  wo.table_name = opt.table;
  auto out = dialects::Convert(*input, *from, to, wo);
  if (!out.has_value()) return ReportError(out.error().WithContext(opt.file));
  if (!opt.quiet) PrintNotes(out->notes, opt.file);
  std::string text = std::move(out->value);
  if (!text.empty() && text.back() != '\n') text += '\n';
  Status st = WriteOutput(opt.output, text);
  if (!st.has_value()) return ReportError(st.error().WithContext("--output"));
  return kExitOk;
}

struct FingerprintOptions {
  std::string file;
  std::string from;
  std::string algo = "sha256";
  std::string output;
  bool quiet = false;
};

int RunFingerprint(const FingerprintOptions& opt) {
  std::vector<std::string> algos;
  if (opt.algo == "all") {
    algos = {"sha256", "spark-md5", "crc64-avro", "md5", "avro-sha256"};
  } else {
    algos = {opt.algo};
  }
  auto input = ReadSchemaInput(opt.file, opt.from);
  if (!input.has_value()) return ReportError(input.error().WithContext(opt.file));
  auto format = opt.from.empty() ? dialects::DetectFormat(opt.file, *input)
                                 : dialects::ParseFormatName(opt.from);
  if (!format.has_value()) return ReportError(format.error().WithContext(opt.file));

  // Each kind of fingerprint reads the file only as far as it needs: the model for sha256 and
  // spark-md5, Avro's canonical form for the Avro fingerprints.
  std::vector<schema::LossyNote> notes;
  schema::SchemaPtr model;
  std::optional<std::string> pcf;
  std::string out;
  for (const auto& algo : algos) {
    std::string value;
    if (algo == "sha256" || algo == "spark-md5") {
      if (model == nullptr) {
        auto r = dialects::ReadSchema(*input, *format);
        if (!r.has_value()) return ReportError(r.error().WithContext(opt.file));
        model = r->value;
        notes.insert(notes.end(), r->notes.begin(), r->notes.end());
      }
      value = algo == "sha256" ? schema::Fingerprint(*model) : dialects::spark::SparkMd5(*model);
    } else {
      if (!pcf.has_value()) {
        auto r = dialects::AvroCanonicalForm(*input, *format);
        if (!r.has_value()) return ReportError(r.error().WithContext(opt.file));
        pcf = r->value;
        notes.insert(notes.end(), r->notes.begin(), r->notes.end());
      }
      if (algo == "crc64-avro") {
        value = fmt::format("{:016x}", Crc64Avro(*pcf));
      } else if (algo == "md5") {
        value = Md5Hex(*pcf);
      } else {
        value = Sha256Hex(*pcf);
      }
    }
    out += algos.size() > 1 ? fmt::format("{:<12} {}\n", algo, value) : value + "\n";
  }
  if (!opt.quiet) PrintNotes(notes, opt.file);
  Status st = WriteOutput(opt.output, out);
  if (!st.has_value()) return ReportError(st.error().WithContext("--output"));
  return kExitOk;
}

}  // namespace

void RegisterSchemaCommand(CLI::App& app, int& exit_code) {
  CLI::App* schema = app.add_subcommand("schema", "Show, convert and fingerprint schemas");
  schema->require_subcommand(1);

  auto show_opt = std::make_shared<ShowOptions>();
  CLI::App* show = schema->add_subcommand(
      "show", "Print a schema in any language (a tree on a terminal, Spark JSON otherwise)");
  show->add_option("file", show_opt->file, "Schema file, or - for standard input")->required();
  show->add_option("--from", show_opt->from,
                   "Input format (default: detected). One of: " + FormatList(true));
  show->add_option("--as", show_opt->as, "Output format. One of: " + FormatList(false));
  show->add_option("--table", show_opt->table, "Table name for sql-* output");
  show->add_option("-o,--output", show_opt->output, "Output file (default: standard output)");
  show->add_flag("-q,--quiet", show_opt->quiet, "Do not print notes about lossy conversion");
  show->callback([show_opt, &exit_code] { exit_code = RunShow(*show_opt); });

  auto conv_opt = std::make_shared<ShowOptions>();
  CLI::App* convert = schema->add_subcommand("convert", "Convert a schema to another language");
  convert->add_option("file", conv_opt->file, "Schema file, or - for standard input")->required();
  convert->add_option("--to", conv_opt->as, "Output format. One of: " + FormatList(false))
      ->required();
  convert->add_option("--from", conv_opt->from, "Input format (default: detected)");
  convert->add_option("-o,--output", conv_opt->output, "Output file (default: standard output)");
  convert->add_option("--table", conv_opt->table, "Table name for sql-* output");
  convert->add_flag("-q,--quiet", conv_opt->quiet, "Do not print notes about lossy conversion");
  convert->callback([conv_opt, &exit_code] { exit_code = RunShow(*conv_opt); });

  auto fp_opt = std::make_shared<FingerprintOptions>();
  CLI::App* fp = schema->add_subcommand(
      "fingerprint",
      "Print a schema fingerprint: sha256 (sluice's canonical form, the default), spark-md5 "
      "(MD5 of PySpark's schema.json()), crc64-avro, md5 or avro-sha256 (of Avro's Parsing "
      "Canonical Form), or all");
  fp->add_option("file", fp_opt->file, "Schema file, or - for standard input")->required();
  fp->add_option("--algo", fp_opt->algo, "Fingerprint algorithm")
      ->transform(OneOf({"sha256", "spark-md5", "crc64-avro", "md5", "avro-sha256", "all"}));
  fp->add_option("-o,--output", fp_opt->output, "Output file (default: standard output)");
  fp->add_option("--from", fp_opt->from, "Input format (default: detected)");
  fp->add_flag("-q,--quiet", fp_opt->quiet, "Do not print notes about lossy conversion");
  fp->callback([fp_opt, &exit_code] { exit_code = RunFingerprint(*fp_opt); });

  CLI::App* formats = schema->add_subcommand("formats", "List the schema formats");
  formats->callback([&exit_code] {
    for (const auto& f : dialects::AllFormats()) {
      std::cout << fmt::format("{:<16} {:<10} {}\n", f.name,
                               f.readable && f.writable ? "read/write"
                               : f.readable             ? "read"
                                                        : "write",
                               f.description);
    }
    exit_code = kExitOk;
  });
}

}  // namespace sluice::cli
