#include "sluice/evolution/compatibility.h"

#include <fmt/format.h>

#include <variant>

#include "sluice/base/strings.h"
#include "sluice/dialects/avro/avro_compatibility.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/dialects/format.h"
#include "sluice/dialects/jsonschema/json_schema.h"
#include "sluice/dialects/jsonschema/json_schema_diff.h"
#include "sluice/evolution/table_merge.h"

namespace sluice::evolution {

namespace {

struct ModeName {
  CompatibilityMode mode;
  std::string_view name;
};

constexpr ModeName kModes[] = {
    {CompatibilityMode::kNone, "NONE"},
    {CompatibilityMode::kBackward, "BACKWARD"},
    {CompatibilityMode::kBackwardTransitive, "BACKWARD_TRANSITIVE"},
    {CompatibilityMode::kForward, "FORWARD"},
    {CompatibilityMode::kForwardTransitive, "FORWARD_TRANSITIVE"},
    {CompatibilityMode::kFull, "FULL"},
    {CompatibilityMode::kFullTransitive, "FULL_TRANSITIVE"},
};

}  // namespace

std::string_view CompatibilityModeName(CompatibilityMode mode) {
  for (const auto& m : kModes) {
    if (m.mode == mode) return m.name;
  }
  return "UNKNOWN";
}

Result<CompatibilityMode> ParseCompatibilityMode(std::string_view name) {
  std::string upper = AsciiUpper(TrimWhitespace(name));
  for (const auto& m : kModes) {
    if (m.name == upper) return m.mode;
  }
  return InvalidArgument(fmt::format(
      "unknown compatibility mode \"{}\"; modes are NONE, BACKWARD, BACKWARD_TRANSITIVE, "
      "FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE",
      EscapeForMessage(name, 40)));
}

std::string_view SchemaTypeName(SchemaType type) {
  switch (type) {
    case SchemaType::kAvro:
      return "avro";
    case SchemaType::kJsonSchema:
      return "json-schema";
    case SchemaType::kTable:
      return "table";
    case SchemaType::kIceberg:
      return "iceberg";
  }
  return "unknown";
}

Result<SchemaType> ParseSchemaType(std::string_view name) {
  std::string lower = AsciiLower(TrimWhitespace(name));
  if (lower == "avro") return SchemaType::kAvro;
  if (lower == "json-schema" || lower == "json") return SchemaType::kJsonSchema;
  if (lower == "table" || lower == "delta") return SchemaType::kTable;
  if (lower == "iceberg") return SchemaType::kIceberg;
  return InvalidArgument(
      fmt::format("unknown schema type \"{}\"; types are avro, json-schema, table, iceberg",
                  EscapeForMessage(name, 40)));
}

std::string_view CheckDirectionName(CheckDirection direction) {
  return direction == CheckDirection::kBackward ? "backward" : "forward";
}

class ParsedSchema::Impl {
 public:
  std::variant<std::monostate, dialects::avro::AvroSchema, dialects::jsonschema::JsonSchemaDocument,
               schema::SchemaPtr>
      parsed;
};

ParsedSchema::ParsedSchema(SchemaType type, std::unique_ptr<Impl> impl)
    : type_(type), impl_(std::move(impl)) {}
ParsedSchema::~ParsedSchema() = default;

std::shared_ptr<const ParsedSchema> ParsedSchema::FromModel(SchemaType type,
                                                            schema::SchemaPtr model) {
  auto impl = std::make_unique<Impl>();
  impl->parsed = std::move(model);
  // Only table types hold a model; Avro and JSON Schema have parsed forms of their own.
  if (type != SchemaType::kIceberg) type = SchemaType::kTable;
  return std::make_shared<const ParsedSchema>(type, std::move(impl));
}

std::shared_ptr<const ParsedSchema> ParsedSchema::FromAvro(dialects::avro::AvroSchema avro) {
  auto impl = std::make_unique<Impl>();
  impl->parsed = std::move(avro);
  return std::make_shared<const ParsedSchema>(SchemaType::kAvro, std::move(impl));
}

Result<std::shared_ptr<const ParsedSchema>> ParsedSchema::Parse(SchemaType type,
                                                                std::string_view text,
                                                                std::string_view path) {
  auto impl = std::make_unique<Impl>();
  switch (type) {
    case SchemaType::kAvro: {
      SLUICE_ASSIGN_OR_RETURN(dialects::avro::AvroSchema avro, dialects::avro::Parse(text));
      impl->parsed = std::move(avro);
      break;
    }
    case SchemaType::kJsonSchema: {
      // Confluent reads a schema without $schema as draft 7.
      dialects::jsonschema::ParseOptions opt;
      opt.default_draft = dialects::jsonschema::Draft::kDraft7;
      SLUICE_ASSIGN_OR_RETURN(dialects::jsonschema::JsonSchemaDocument doc,
                              dialects::jsonschema::Parse(text, opt));
      impl->parsed = std::move(doc);
      break;
    }
    case SchemaType::kTable:
    case SchemaType::kIceberg: {
      SLUICE_ASSIGN_OR_RETURN(dialects::Format format, dialects::DetectFormat(path, text));
      SLUICE_ASSIGN_OR_RETURN(schema::Converted<schema::SchemaPtr> read,
                              dialects::ReadSchema(text, format));
      impl->parsed = std::move(read.value);
      break;
    }
  }
  return std::make_shared<const ParsedSchema>(type, std::move(impl));
}

namespace {

Incompatibility CheckFailed(const Error& e) {
  Incompatibility inc;
  inc.kind = "CHECK_FAILED";
  inc.message = e.message();
  inc.hint = "the pair could not be checked; fix the schema the message names";
  return inc;
}

std::vector<Incompatibility> AvroCanRead(const dialects::avro::AvroSchema& reader,
                                         const dialects::avro::AvroSchema& writer) {
  auto result = dialects::avro::CheckCompatibility(reader, writer);
  if (!result.has_value()) return {CheckFailed(result.error())};
  std::vector<Incompatibility> out;
  for (const auto& a : result->incompatibilities) {
    Incompatibility inc;
    inc.kind = std::string(dialects::avro::AvroIncompatibilityKindName(a.kind));
    inc.location = a.location;
    inc.message = a.message;
    // Java's messages for type mismatches and union branches already name both types.
    bool names_types = a.kind == dialects::avro::AvroIncompatibilityKind::kTypeMismatch ||
                       a.kind == dialects::avro::AvroIncompatibilityKind::kMissingUnionBranch;
    if (!names_types && (!a.reader_type.empty() || !a.writer_type.empty())) {
      inc.message += fmt::format(" (reader: {}; writer: {})", a.reader_type, a.writer_type);
    }
    inc.hint = a.hint;
    out.push_back(std::move(inc));
  }
  if (result->truncated()) {
    Incompatibility more;
    more.kind = "TRUNCATED";
    more.message = fmt::format("{} incompatibilities in all; the first {} are listed",
                               result->incompatibility_count, result->incompatibilities.size());
    out.push_back(std::move(more));
  }
  return out;
}

std::vector<Incompatibility> JsonCanRead(const dialects::jsonschema::JsonSchemaDocument& reader,
                                         const dialects::jsonschema::JsonSchemaDocument& writer,
                                         const CompatibilityOptions& options) {
  namespace js = dialects::jsonschema;
  js::CompareOptions copt;
  copt.policy = options.json_policy == JsonSchemaPolicy::kLenient
                    ? js::CompatibilityPolicy::kLenient
                    : js::CompatibilityPolicy::kStrict;
  // Confluent: the writer's schema is the original, the reader's the update.
  auto diffs = js::Compare(writer, reader, copt);
  if (!diffs.has_value()) return {CheckFailed(diffs.error())};
  std::vector<Incompatibility> out;
  for (const js::Difference& d : *diffs) {
    if (js::IsCompatibleChange(d.type, copt.policy)) continue;
    Incompatibility inc;
    inc.kind = std::string(js::DifferenceTypeName(d.type));
    inc.location = d.json_path;
    inc.message = js::DescribeDifference(d);
    inc.hint = js::FixHint(d);
    out.push_back(std::move(inc));
  }
  return out;
}

std::vector<Incompatibility> TableCanRead(const schema::Schema& reader,
                                          const schema::Schema& writer, SchemaType type,
                                          const CompatibilityOptions& options) {
  TableEvolutionOptions topt;
  topt.format = type == SchemaType::kIceberg ? TableFormat::kIceberg : TableFormat::kDelta;
  topt.type_widening = options.type_widening;
  // Reading the writer's data with the reader's schema in place is evolving the table from the
  // writer's schema to the reader's without a rewrite.
  auto report = CheckTableEvolution(writer, reader, topt);
  if (!report.has_value()) return {CheckFailed(report.error())};
  std::vector<Incompatibility> out;
  for (const TableViolation& v : report->violations) {
    Incompatibility inc;
    inc.kind = !v.cause_class.empty()   ? v.cause_class
               : !v.error_class.empty() ? v.error_class
                                        : "ICEBERG_INCOMPATIBLE_CHANGE";
    inc.location = v.path.ToString();
    inc.message = v.message;
    inc.hint = v.hint;
    out.push_back(std::move(inc));
  }
  return out;
}

}  // namespace

std::vector<Incompatibility> CheckCanRead(const ParsedSchema& reader, const ParsedSchema& writer,
                                          const CompatibilityOptions& options) {
  if (reader.type() != writer.type()) {
    Incompatibility inc;
    inc.kind = "SCHEMA_TYPE_MISMATCH";
    inc.message = fmt::format("Incompatible because of different schema type: {} and {}",
                              SchemaTypeName(reader.type()), SchemaTypeName(writer.type()));
    return {inc};
  }
  const auto& r = reader.impl().parsed;
  const auto& w = writer.impl().parsed;
  switch (reader.type()) {
    case SchemaType::kAvro:
      return AvroCanRead(std::get<dialects::avro::AvroSchema>(r),
                         std::get<dialects::avro::AvroSchema>(w));
    case SchemaType::kJsonSchema:
      return JsonCanRead(std::get<dialects::jsonschema::JsonSchemaDocument>(r),
                         std::get<dialects::jsonschema::JsonSchemaDocument>(w), options);
    case SchemaType::kTable:
    case SchemaType::kIceberg:
      return TableCanRead(*std::get<schema::SchemaPtr>(r), *std::get<schema::SchemaPtr>(w),
                          reader.type(), options);
  }
  return {};
}

CompatibilityReport CheckCompatibility(CompatibilityMode mode,
                                       const std::vector<ParsedSchemaPtr>& history,
                                       const ParsedSchema& candidate,
                                       const CompatibilityOptions& options) {
  CompatibilityReport report;
  report.mode = mode;
  report.type = candidate.type();
  if (mode == CompatibilityMode::kNone || history.empty()) return report;

  bool transitive = mode == CompatibilityMode::kBackwardTransitive ||
                    mode == CompatibilityMode::kForwardTransitive ||
                    mode == CompatibilityMode::kFullTransitive;
  bool backward =
      mode != CompatibilityMode::kForward && mode != CompatibilityMode::kForwardTransitive;
  bool forward =
      mode != CompatibilityMode::kBackward && mode != CompatibilityMode::kBackwardTransitive;

  // Confluent checks the latest version, or every version newest first.
  size_t last = history.size() - 1;
  size_t first = transitive ? 0 : last;
  for (size_t i = last + 1; i-- > first;) {
    report.checked_versions.push_back(i);
    size_t before = report.incompatibilities.size();
    auto record = [&](std::vector<Incompatibility> found, CheckDirection direction) {
      for (Incompatibility& inc : found) {
        inc.direction = direction;
        inc.version_index = i;
        report.incompatibilities.push_back(std::move(inc));
      }
    };
    if (backward) record(CheckCanRead(candidate, *history[i], options), CheckDirection::kBackward);
    if (forward) record(CheckCanRead(*history[i], candidate, options), CheckDirection::kForward);
    if (report.incompatibilities.size() > before && options.stop_at_first_failure) break;
  }
  report.compatible = report.incompatibilities.empty();
  return report;
}

}  // namespace sluice::evolution
