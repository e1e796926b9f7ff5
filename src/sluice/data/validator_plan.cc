// The validator's names for statuses and violations, and the compilation of a schema into the
// flat plan the JSON walk and the CSV row read.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/data/validator.h"
#include "sluice/data/validator_internal.h"

namespace sluice::data {

using schema::TypeKind;

std::string_view RecordStatusName(RecordStatus status) {
  switch (status) {
    case RecordStatus::kValid:
      return "valid";
    case RecordStatus::kRescued:
      return "rescued";
    case RecordStatus::kBad:
      return "bad";
    case RecordStatus::kMalformed:
      return "malformed";
  }
  return "unknown";
}

std::string_view ViolationKindName(ViolationKind kind) {
  switch (kind) {
    case ViolationKind::kMalformed:
      return "malformed";
    case ViolationKind::kTypeMismatch:
      return "type_mismatch";
    case ViolationKind::kOutOfRange:
      return "out_of_range";
    case ViolationKind::kDecimalPrecision:
      return "decimal_precision";
    case ViolationKind::kStringTooLong:
      return "string_too_long";
    case ViolationKind::kInvalidDate:
      return "invalid_date";
    case ViolationKind::kInvalidTimestamp:
      return "invalid_timestamp";
    case ViolationKind::kNullNotAllowed:
      return "null_not_allowed";
    case ViolationKind::kMissingRequired:
      return "missing_required";
    case ViolationKind::kUnknownField:
      return "unknown_field";
    case ViolationKind::kCaseMismatch:
      return "case_mismatch";
    case ViolationKind::kDuplicateKey:
      return "duplicate_key";
    case ViolationKind::kNewColumn:
      return "new_column";
  }
  return "unknown";
}

ValidationPlan::~ValidationPlan() = default;

namespace {

using Node = ValidationPlan::Node;
constexpr uint32_t kWideStruct = 12;

// Why a value of type `source` cannot be read as `target` without losing part of it, or ""
// when it can, or when a value's own text decides (as in JSON records).
std::string LossyRead(const schema::Type& source, const schema::Type& target) {
  const TypeKind s = source.kind();
  const TypeKind t = target.kind();
  const bool lossy =
      (t == TypeKind::kDate && (s == TypeKind::kTimestamp || s == TypeKind::kTimestampNtz)) ||
      (t == TypeKind::kDecimal && s == TypeKind::kDecimal && source.scale() > target.scale()) ||
      (t == TypeKind::kDecimal && (s == TypeKind::kFloat32 || s == TypeKind::kFloat64)) ||
      (t == TypeKind::kFloat32 && (s == TypeKind::kFloat64 || s == TypeKind::kDecimal)) ||
      (t == TypeKind::kFloat32 && s == TypeKind::kInt64);
  if (!lossy) return "";
  return "the source's " + source.ToString() + " is not read as " + target.ToString() +
         " without loss";
}

// The source's field for a field of the schema: by name, or ignoring case when keys match so.
const schema::Field* SourceField(const schema::Type* source, const std::string& name,
                                 bool ignoring_case) {
  if (source == nullptr || !source->is_struct()) return nullptr;
  if (const schema::Field* f = source->FindField(name)) return f;
  if (!ignoring_case) return nullptr;
  std::vector<size_t> found = source->FindFieldsIgnoreCase(name);
  return found.empty() ? nullptr : &source->fields()[found[0]];
}

// Fill nodes[at] from `type`, appending its children at the end of `nodes`. `source`: the type
// a typed source gives this place, if known (CompileForSource).
Status CompileNode(const schema::Type& type, bool nullable, std::string path, uint32_t at,
                   std::vector<Node>& nodes, const schema::Type* source = nullptr,
                   bool ignoring_case = false) {
  if (source != nullptr && at != 0) {
    std::string why = LossyRead(*source, type);
    if (!why.empty()) {
      Node& n = nodes[at];
      n.kind = TypeKind::kNull;
      n.nullable = nullable;
      n.path = std::move(path);
      n.refused = std::move(why);
      return {};
    }
  }
  {
    Node& n = nodes[at];
    n.kind = type.kind();
    n.nullable = nullable;
    n.path = path;
    if (type.kind() == TypeKind::kDecimal) {
      n.precision = type.precision();
      n.scale = type.scale();
    }
    if (type.kind() == TypeKind::kString &&
        type.string_length() != schema::StringLength::kUnbounded) {
      n.max_length = type.length();
    }
    if (type.kind() == TypeKind::kTimestamp || type.kind() == TypeKind::kTimestampNtz) {
      n.unit = static_cast<uint8_t>(type.unit());
    }
  }
  auto add_children = [&](size_t count) {
    uint32_t first = static_cast<uint32_t>(nodes.size());
    nodes.resize(nodes.size() + count);
    nodes[at].first_child = first;
    nodes[at].child_count = static_cast<uint32_t>(count);
    return first;
  };
  const std::string prefix = path.empty() ? "" : path + ".";
  switch (type.kind()) {
    case TypeKind::kStruct: {
      uint32_t first = add_children(type.fields().size());
      for (size_t i = 0; i < type.fields().size(); ++i) {
        const schema::Field& f = type.fields()[i];
        Node& c = nodes[first + i];
        c.name = f.name();
        c.lower = AsciiLower(f.name());
        c.raw_key = f.name().find_first_of(std::string_view("\"\\", 2)) == std::string::npos &&
                    std::none_of(f.name().begin(), f.name().end(),
                                 [](char ch) { return static_cast<unsigned char>(ch) < 0x20; });
        if (c.raw_key && f.name().size() <= 15) {
          std::memcpy(c.key16.data(), f.name().data(), f.name().size());
          c.key16[f.name().size()] = '"';
          c.key16_mask = (1u << (f.name().size() + 1)) - 1;
        }
        c.json_key.clear();
        AppendJsonString(c.json_key, f.name());
        c.json_key += ':';
        const schema::Field* from = SourceField(source, f.name(), ignoring_case);
        SLUICE_TRY(CompileNode(*f.type(), f.nullable(), prefix + schema::QuoteFieldName(f.name()),
                               first + static_cast<uint32_t>(i), nodes,
                               from == nullptr ? nullptr : from->type().get(), ignoring_case));
      }
      if (type.fields().size() > kWideStruct) {
        for (size_t i = 0; i < type.fields().size(); ++i) {
          nodes[at].by_name.emplace(type.fields()[i].name(), static_cast<uint32_t>(i));
          nodes[at].by_lower.emplace(nodes[first + i].lower, static_cast<uint32_t>(i));
        }
      }
      break;
    }
    case TypeKind::kArray: {
      uint32_t first = add_children(1);
      const schema::Type* element =
          source != nullptr && source->is_array() ? source->element_type().get() : nullptr;
      SLUICE_TRY(CompileNode(*type.element_type(), type.contains_null(),
                             (path.empty() ? std::string() : path) + "[]", first, nodes, element,
                             ignoring_case));
      break;
    }
    case TypeKind::kMap: {
      uint32_t first = add_children(2);
      const bool map = source != nullptr && source->is_map();
      SLUICE_TRY(CompileNode(*type.key_type(), false, path + "{key}", first, nodes,
                             map ? source->key_type().get() : nullptr, ignoring_case));
      SLUICE_TRY(CompileNode(*type.value_type(), type.value_contains_null(), path + "{value}",
                             first + 1, nodes, map ? source->value_type().get() : nullptr,
                             ignoring_case));
      break;
    }
    case TypeKind::kNull:
    case TypeKind::kBoolean:
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
    case TypeKind::kDecimal:
    case TypeKind::kString:
    case TypeKind::kBinary:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
    case TypeKind::kTime:
    case TypeKind::kUuid:
      break;
  }
  return {};
}

}  // namespace

Result<std::shared_ptr<const ValidationPlan>> ValidationPlan::Compile(schema::SchemaPtr schema,
                                                                      ValidatorOptions options) {
  if (!schema) return InvalidArgument("no schema to validate against");
  return Build(std::move(schema), nullptr, std::move(options));
}

Result<std::shared_ptr<const ValidationPlan>> ValidationPlan::CompileForSource(
    schema::SchemaPtr schema, const schema::Type& source, ValidatorOptions options) {
  if (!schema) return InvalidArgument("no schema to validate against");
  return Build(std::move(schema), &source, std::move(options));
}

Result<std::shared_ptr<const ValidationPlan>> ValidationPlan::Build(schema::SchemaPtr schema,
                                                                    const schema::Type* source,
                                                                    ValidatorOptions options) {
  std::shared_ptr<ValidationPlan> plan(new ValidationPlan());
  plan->options_ = std::move(options);
  plan->nodes_.resize(1);
  SLUICE_TRY(CompileNode(*schema->struct_type(), false, "", 0, plan->nodes_, source,
                         plan->options_.match_fields_ignoring_case));
  for (const Node& n : plan->nodes_) plan->refuses_ = plan->refuses_ || !n.refused.empty();
  const std::string& rc = plan->options_.rescued_column;
  if (!rc.empty()) {
    const schema::Field* f = schema->struct_type()->FindField(rc);
    if (f != nullptr) {
      if (f->type()->kind() != TypeKind::kString) {
        return InvalidArgument("the rescued-data column `" + rc + "` is in the schema as " +
                               f->type()->ToString() + "; it must be a string");
      }
      const auto& fields = schema->fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].name() == rc) plan->nodes_[0].rescued_child = static_cast<int>(i);
      }
    } else {
      plan->append_rescued_ = true;
    }
  }
  for (const Node& n : plan->nodes_) plan->output_slack_ += n.json_key.size() + 8;
  plan->output_slack_ += 2 * rc.size() + 2 * plan->options_.file_path_key.size() + 64;
  plan->schema_ = std::move(schema);
  return std::shared_ptr<const ValidationPlan>(std::move(plan));
}

}  // namespace sluice::data
