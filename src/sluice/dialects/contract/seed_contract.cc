// The seed YAML contract (required_columns + allowed_* policy), as the seed pipeline's
// `validate_against_contract` reads it with yaml.safe_load.
#include <fmt/format.h>

#include <unordered_set>

#include "sluice/base/strings.h"
#include "sluice/dialects/contract/contract.h"
#include "sluice/dialects/contract/reader_internal.h"
#include "sluice/dialects/contract/yaml_internal.h"
#include "sluice/dialects/spark/spark.h"

namespace sluice::dialects::contract {
namespace {

using internal::ExpectKind;
using internal::IndexPath;
using internal::InvalidAt;
using internal::KeyPath;
using internal::ReadOptionalBool;
using internal::ReadOptionalString;
using internal::ReadString;
using internal::YamlNode;
using internal::YamlScalar;
using schema::Field;
using schema::FieldPath;

constexpr std::string_view kTopKeys[] = {"version",
                                         "name",
                                         "description",
                                         "required_columns",
                                         "allowed_new_columns",
                                         "allowed_type_changes",
                                         "allowed_column_removal"};
constexpr std::string_view kColumnKeys[] = {"name", "type", "nullable", "description"};

template <size_t N>
bool Contains(const std::string_view (&list)[N], std::string_view key) {
  for (std::string_view k : list) {
    if (k == key) return true;
  }
  return false;
}

// The Spark parser places its errors in the type text ("line 1, column 5 (offset 4): ...");
// inside a contract the YAML position is the useful one, so keep only the offset.
std::string WithinType(std::string_view message) {
  if (StartsWith(message, "line ")) {
    size_t open = message.find("(offset ");
    size_t close = message.find("): ", open);
    if (open != std::string_view::npos && close != std::string_view::npos) {
      std::string_view offset = message.substr(open + 8, close - open - 8);
      return fmt::format("{} at offset {} of the type", message.substr(close + 3), offset);
    }
  }
  return std::string(message);
}

Status ReadPolicy(const YamlNode& root, ChangePolicy* policy) {
  SLUICE_ASSIGN_OR_RETURN(auto add, ReadOptionalBool("", root, "allowed_new_columns"));
  SLUICE_ASSIGN_OR_RETURN(auto change, ReadOptionalBool("", root, "allowed_type_changes"));
  SLUICE_ASSIGN_OR_RETURN(auto remove, ReadOptionalBool("", root, "allowed_column_removal"));
  if (add) policy->allow_new_columns = *add;
  if (change) policy->allow_type_changes = *change;
  if (remove) policy->allow_column_removal = *remove;
  return Ok();
}

Result<Field> ReadColumn(const YamlNode& node, const std::string& path, ContractObject* object) {
  SLUICE_TRY(ExpectKind(path, node, YamlNode::Kind::kMap));
  const YamlNode* name_node = node.Find("name");
  if (name_node == nullptr || name_node->is_null()) {
    return InvalidAt(path, node, "a column needs a name");
  }
  SLUICE_ASSIGN_OR_RETURN(std::string name, ReadString(KeyPath(path, "name"), *name_node));
  if (name.empty()) return InvalidAt(KeyPath(path, "name"), *name_node, "name is empty");
  const YamlNode* type_node = node.Find("type");
  if (type_node == nullptr || type_node->is_null()) {
    return InvalidAt(path, node, fmt::format("column \"{}\" needs a type", EscapeForMessage(name)));
  }
  std::string type_path = KeyPath(path, "type");
  SLUICE_ASSIGN_OR_RETURN(std::string type_text, ReadString(type_path, *type_node));
  auto type = spark::ParseDataType(type_text);
  if (!type.has_value()) {
    return InvalidAt(type_path, *type_node,
                     fmt::format("\"{}\" is not a Spark type ({})", EscapeForMessage(type_text),
                                 WithinType(type.error().message())));
  }
  // The seed's checker reads `col_spec.get("nullable", True)`.
  SLUICE_ASSIGN_OR_RETURN(auto nullable, ReadOptionalBool(path, node, "nullable"));
  SLUICE_ASSIGN_OR_RETURN(auto description, ReadOptionalString(path, node, "description"));
  Field field(name, *type, nullable.value_or(true));
  field.set_doc(description);

  ColumnSpec spec;
  spec.path = FieldPath::Of(name);
  spec.physical_type = type_text;
  spec.required = !field.nullable();
  spec.description = description;
  for (const auto& [key, value] : node.members) {
    if (!Contains(kColumnKeys, key)) {
      spec.other.mutable_members().push_back(JsonMember{key, internal::YamlToJson(value)});
      object->notes.push_back(schema::LossyNote{
          spec.path, fmt::format("key \"{}\" of {} is not part of the seed contract; kept in the "
                                 "column spec only",
                                 EscapeForMessage(key), path)});
    }
  }
  object->columns.push_back(std::move(spec));
  return field;
}

// Spark type strings drop what the model holds inside nested types (docs, metadata); say so
// rather than let a round trip lose it quietly.
void NoteNestedLoss(const Field& field, const std::string& type_text, schema::NoteSink& notes) {
  auto back = spark::ParseDataType(type_text);
  if (back.has_value() && (*back)->Equals(*field.type(), true)) return;
  notes.Add(FieldPath::Of(field.name()), fmt::format("type \"{}\" does not hold everything in {}",
                                                     type_text, field.type()->ToString()));
}

bool IsPlainVersion(std::string_view v) {
  // `1`, `1.0`, `2.10`: written unquoted as the seed does; they read back as the same text.
  size_t dots = 0;
  if (v.empty() || v.front() == '.' || v.back() == '.') return false;
  for (char c : v) {
    if (c == '.') {
      ++dots;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dots <= 1;
}

}  // namespace

Result<Contract> ParseSeedContract(std::string_view yaml) {
  SLUICE_ASSIGN_OR_RETURN(YamlNode root, internal::ParseYaml(yaml));
  if (root.is_null()) return InvalidArgument("empty document: expected a seed contract");
  SLUICE_TRY(ExpectKind("", root, YamlNode::Kind::kMap));
  for (std::string_view marker : {"apiVersion", "kind", "dataContractSpecification"}) {
    if (const YamlNode* m = root.Find(marker); m != nullptr) {
      return InvalidAt(
          marker, *m,
          "this is an ODCS or DCS data contract, not a seed contract (required_columns)");
    }
  }
  Contract contract;
  contract.format = ContractFormat::kSeed;
  if (const YamlNode* v = root.Find("version"); v != nullptr && !v->is_null()) {
    SLUICE_ASSIGN_OR_RETURN(contract.version, ReadString("version", *v));
  }
  SLUICE_ASSIGN_OR_RETURN(auto name, ReadOptionalString("", root, "name"));
  SLUICE_ASSIGN_OR_RETURN(auto description, ReadOptionalString("", root, "description"));
  contract.name = name.value_or("");
  SLUICE_TRY(ReadPolicy(root, &contract.policy));
  for (const auto& [key, value] : root.members) {
    if (!Contains(kTopKeys, key)) {
      contract.notes.push_back(schema::LossyNote{
          FieldPath(), fmt::format("key \"{}\" is not part of the seed contract; ignored",
                                   EscapeForMessage(key))});
    }
  }

  ContractObject object;
  object.name = contract.name;
  object.description = description;
  std::vector<Field> fields;
  if (const YamlNode* cols = root.Find("required_columns"); cols != nullptr && !cols->is_null()) {
    SLUICE_TRY(ExpectKind("required_columns", *cols, YamlNode::Kind::kSequence));
    std::unordered_set<std::string> names;
    for (size_t i = 0; i < cols->items.size(); ++i) {
      std::string path = IndexPath("required_columns", i);
      SLUICE_ASSIGN_OR_RETURN(Field field, ReadColumn(cols->items[i], path, &object));
      if (!names.insert(field.name()).second) {
        return InvalidAt(KeyPath(path, "name"), cols->items[i],
                         fmt::format("duplicate column \"{}\"", EscapeForMessage(field.name())));
      }
      fields.push_back(std::move(field));
    }
  } else {
    contract.notes.push_back(
        schema::LossyNote{FieldPath(), "no required_columns: the contract requires no columns"});
  }
  schema::SchemaInfo info;
  info.name = contract.name;
  info.doc = description;
  auto made = schema::Schema::Make(std::move(fields), std::move(info));
  if (!made.has_value()) return InvalidAt("required_columns", root, made.error().message());
  object.schema = *made;
  contract.objects.push_back(std::move(object));
  return contract;
}

Result<schema::Converted<std::string>> WriteSeedContract(const schema::Schema& schema,
                                                         const ChangePolicy& policy,
                                                         std::string_view version) {
  if (version.empty()) return InvalidArgument("the contract version is empty");
  schema::NoteSink notes;
  std::string out;
  out += "version: ";
  out += IsPlainVersion(version) ? std::string(version) : YamlScalar(version);
  out += '\n';
  if (!schema.info().name.empty()) out += "name: " + YamlScalar(schema.info().name) + "\n";
  if (schema.info().doc.has_value()) {
    out += "description: " + YamlScalar(*schema.info().doc) + "\n";
  }
  if (schema.fields().empty()) {
    out += "required_columns: []\n";
  } else {
    out += "required_columns:\n";
  }
  for (const Field& f : schema.fields()) {
    std::string type_text = spark::DataTypeName(*f.type());
    NoteNestedLoss(f, type_text, notes);
    out += "  - name: " + YamlScalar(f.name()) + "\n";
    out += "    type: " + YamlScalar(type_text) + "\n";
    out += std::string("    nullable: ") + (f.nullable() ? "true" : "false") + "\n";
    if (f.doc().has_value()) out += "    description: " + YamlScalar(*f.doc()) + "\n";
    if (f.default_value().has_value()) {
      notes.Add(FieldPath::Of(f.name()), "the seed contract has no default values; not written");
    }
    if (f.metadata().size() > 0) {
      notes.Add(FieldPath::Of(f.name()), "the seed contract has no field metadata; not written");
    }
  }
  out += fmt::format("allowed_new_columns: {}\n", policy.allow_new_columns);
  out += fmt::format("allowed_type_changes: {}\n", policy.allow_type_changes);
  out += fmt::format("allowed_column_removal: {}\n", policy.allow_column_removal);
  return schema::Converted<std::string>{std::move(out), notes.Take()};
}

}  // namespace sluice::dialects::contract
