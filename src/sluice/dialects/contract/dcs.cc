// Reading the legacy Data Contract Specification. The key names and their YAML types are those of
// datacontract-cli's pydantic model (v0.10.x, DCS 1.2.1); what the model has no slot for is kept
// as JSON in the ColumnSpec, so a contract diff sees every key the file wrote.
#include "sluice/dialects/contract/dcs.h"

#include <fmt/format.h>

#include "sluice/base/strings.h"
#include "sluice/dialects/contract/reader_internal.h"
#include "sluice/dialects/contract/yaml_internal.h"

namespace sluice::dialects::contract {
namespace {

using internal::ExpectKind;
using internal::InvalidAt;
using internal::KeyPath;
using internal::ReadOptionalBool;
using internal::ReadOptionalInt;
using internal::ReadOptionalString;
using internal::ReadString;
using internal::YamlNode;
using schema::Field;
using schema::FieldPath;
using schema::Type;
using schema::TypePtr;

// Field keys that become ColumnSpec members or the field's structure; the rest go to `other`.
constexpr std::string_view kFieldSpecKeys[] = {"type",
                                               "title",
                                               "description",
                                               "classification",
                                               "required",
                                               "unique",
                                               "primaryKey",
                                               "tags",
                                               "quality",
                                               "fields",
                                               "items",
                                               "minLength",
                                               "maxLength",
                                               "pattern",
                                               "format",
                                               "minimum",
                                               "maximum",
                                               "exclusiveMinimum",
                                               "exclusiveMaximum"};

// DCS's constraint keys, which ODCS keeps in logicalTypeOptions (datacontract-cli's ODCS export
// puts them there).
constexpr std::string_view kOptionKeys[] = {"minLength",        "maxLength",       "pattern",
                                            "format",           "minimum",         "maximum",
                                            "exclusiveMinimum", "exclusiveMaximum"};

constexpr std::string_view kModelSpecKeys[] = {"type", "title", "description", "fields", "quality"};

constexpr std::string_view kTopKeys[] = {"dataContractSpecification", "id", "models"};

template <size_t N>
bool Contains(const std::string_view (&list)[N], std::string_view key) {
  for (std::string_view k : list) {
    if (k == key) return true;
  }
  return false;
}

// The ODCS logicalType word for a DCS type, as datacontract-cli's ODCS export maps it (except
// timestamps, which it mapped to `date` before ODCS 3.1 had `timestamp`).
std::optional<std::string> LogicalWord(std::string_view dcs_type) {
  std::string t = AsciiLower(dcs_type);
  for (std::string_view s : {"string", "text", "varchar", "bytes"}) {
    if (t == s) return std::string("string");
  }
  for (std::string_view s : {"number", "decimal", "numeric", "float", "double"}) {
    if (t == s) return std::string("number");
  }
  for (std::string_view s : {"int", "integer", "long", "bigint"}) {
    if (t == s) return std::string("integer");
  }
  for (std::string_view s : {"timestamp", "timestamp_tz", "timestamp_ntz"}) {
    if (t == s) return std::string("timestamp");
  }
  for (std::string_view s : {"map", "object", "record", "struct"}) {
    if (t == s) return std::string("object");
  }
  for (std::string_view s : {"boolean", "date", "time", "array"}) {
    if (t == s) return t;
  }
  return std::nullopt;
}

template <class T>
Status Discard(Result<T> result) {
  if (!result.has_value()) return Unexpected(std::move(result).error());
  return Ok();
}

// Checks a value's YAML shape for keys the DCS model types: a wrong shape is an error there too.
Status CheckShape(const std::string& path, const YamlNode& node, std::string_view key) {
  if (node.is_null()) return Ok();
  if (key == "enum") {
    SLUICE_TRY(ExpectKind(path, node, YamlNode::Kind::kSequence));
    for (size_t i = 0; i < node.items.size(); ++i) {
      SLUICE_TRY(Discard(ReadString(internal::IndexPath(path, i), node.items[i])));
    }
    return Ok();
  }
  if (key == "pii" || key == "primary") return Discard(internal::ReadBool(path, node));
  if (key == "references" || key == "$ref") return Discard(ReadString(path, node));
  if (key == "precision" || key == "scale") return Discard(internal::ReadInt(path, node));
  if (key == "config" || key == "links" || key == "lineage" || key == "keys" || key == "values") {
    return ExpectKind(path, node, YamlNode::Kind::kMap);
  }
  if (key == "examples") return ExpectKind(path, node, YamlNode::Kind::kSequence);
  return Ok();
}

Status CheckOption(const std::string& path, const YamlNode& node, std::string_view key) {
  if (key == "pattern" || key == "format") return Discard(ReadString(path, node));
  if (key == "minLength" || key == "maxLength") return Discard(internal::ReadInt(path, node));
  if (!internal::YamlToJson(node).is_number()) return InvalidAt(path, node, "expected a number");
  return Ok();
}

class DcsReader {
 public:
  explicit DcsReader(ContractObject* object) : object_(object) {}

  Result<std::vector<Field>> ReadFields(const YamlNode& map, const std::string& ypath,
                                        const FieldPath& parent) {
    SLUICE_TRY(ExpectKind(ypath, map, YamlNode::Kind::kMap));
    std::vector<Field> fields;
    for (const auto& [name, node] : map.members) {
      if (name.empty()) return InvalidAt(ypath, node, "a field name is empty");
      FieldPath fpath = parent.empty() ? FieldPath::Of(name) : parent.Child(name);
      SLUICE_ASSIGN_OR_RETURN(Element element, ReadElement(node, KeyPath(ypath, name), fpath));
      Field field(name, element.type, !element.required);
      field.set_doc(element.description);
      fields.push_back(std::move(field));
    }
    return fields;
  }

  schema::NoteSink& notes() { return notes_; }

 private:
  struct Element {
    TypePtr type;
    bool required = false;
    std::optional<std::string> description;
  };

  Result<Element> ReadElement(const YamlNode& node, const std::string& ypath,
                              const FieldPath& fpath) {
    SLUICE_TRY(ExpectKind(ypath, node, YamlNode::Kind::kMap));
    ColumnSpec spec;
    spec.path = fpath;
    SLUICE_ASSIGN_OR_RETURN(spec.physical_type, ReadOptionalString(ypath, node, "type"));
    SLUICE_ASSIGN_OR_RETURN(spec.business_name, ReadOptionalString(ypath, node, "title"));
    SLUICE_ASSIGN_OR_RETURN(spec.description, ReadOptionalString(ypath, node, "description"));
    SLUICE_ASSIGN_OR_RETURN(spec.classification, ReadOptionalString(ypath, node, "classification"));
    SLUICE_ASSIGN_OR_RETURN(auto required, ReadOptionalBool(ypath, node, "required"));
    SLUICE_ASSIGN_OR_RETURN(auto unique, ReadOptionalBool(ypath, node, "unique"));
    SLUICE_ASSIGN_OR_RETURN(auto primary_key, ReadOptionalBool(ypath, node, "primaryKey"));
    // `primary` is DCS 1.0's spelling of primaryKey; it stays in `other` under its own name.
    SLUICE_ASSIGN_OR_RETURN(auto primary, ReadOptionalBool(ypath, node, "primary"));
    spec.required = required.value_or(false);
    spec.unique = unique.value_or(false);
    spec.primary_key = primary_key.value_or(false) || primary.value_or(false);
    if (spec.physical_type.has_value()) spec.logical_type = LogicalWord(*spec.physical_type);
    if (const YamlNode* tags = node.Find("tags"); tags != nullptr && !tags->is_null()) {
      std::string tpath = KeyPath(ypath, "tags");
      SLUICE_TRY(ExpectKind(tpath, *tags, YamlNode::Kind::kSequence));
      for (size_t i = 0; i < tags->items.size(); ++i) {
        SLUICE_ASSIGN_OR_RETURN(std::string tag,
                                ReadString(internal::IndexPath(tpath, i), tags->items[i]));
        spec.tags.push_back(std::move(tag));
      }
    }
    if (const YamlNode* q = node.Find("quality"); q != nullptr && !q->is_null()) {
      SLUICE_TRY(ExpectKind(KeyPath(ypath, "quality"), *q, YamlNode::Kind::kSequence));
      spec.quality = internal::YamlToJson(*q);
    }
    JsonValue options = JsonValue::Object();
    for (const auto& [key, value] : node.members) {
      spec.keys.push_back(key);
      std::string kpath = KeyPath(ypath, key);
      if (Contains(kOptionKeys, key)) {
        if (value.is_null()) continue;
        SLUICE_TRY(CheckOption(kpath, value, key));
        options.mutable_members().push_back(JsonMember{key, internal::YamlToJson(value)});
      } else if (!Contains(kFieldSpecKeys, key)) {
        SLUICE_TRY(CheckShape(kpath, value, key));
        spec.other.mutable_members().push_back(JsonMember{key, internal::YamlToJson(value)});
      }
    }
    if (options.size() > 0) spec.logical_type_options = std::move(options);
    SLUICE_ASSIGN_OR_RETURN(auto precision, ReadOptionalInt(ypath, node, "precision"));
    SLUICE_ASSIGN_OR_RETURN(auto scale, ReadOptionalInt(ypath, node, "scale"));

    Element out;
    out.required = spec.required;
    out.description = spec.description;
    std::optional<std::string> type_text = spec.physical_type;
    object_->columns.push_back(std::move(spec));
    SLUICE_ASSIGN_OR_RETURN(out.type, ResolveType(node, ypath, fpath, type_text, precision, scale));
    return out;
  }

  Result<TypePtr> ResolveType(const YamlNode& node, const std::string& ypath,
                              const FieldPath& fpath, const std::optional<std::string>& type_text,
                              std::optional<int64_t> precision, std::optional<int64_t> scale) {
    const YamlNode* fields = node.Find("fields");
    bool has_fields = fields != nullptr && !fields->is_null();
    std::string t = AsciiLower(type_text.value_or(""));
    if (t.empty()) {
      if (has_fields) return ReadStruct(*fields, ypath, fpath);
      notes_.Add(fpath, "no type: read as string");
      return Type::String();
    }
    if (has_fields && t != "object" && t != "record" && t != "struct") {
      // DCS accepts this; the nested fields still get their specs, so a contract diff sees them.
      SLUICE_TRY(Discard(ReadStruct(*fields, ypath, fpath)));
      notes_.Add(fpath,
                 fmt::format("fields on a {} field are not part of its type", EscapeForMessage(t)));
    }
    if (t == "string" || t == "text" || t == "varchar") return Type::String();
    if (t == "int" || t == "integer") return Type::Int32();
    if (t == "long" || t == "bigint") return Type::Int64();
    if (t == "float") return Type::Float32();
    if (t == "double") return Type::Float64();
    if (t == "boolean") return Type::Boolean();
    if (t == "timestamp" || t == "timestamp_tz") return Type::Timestamp();
    if (t == "timestamp_ntz") return Type::TimestampNtz();
    if (t == "date") return Type::Date();
    if (t == "time") return Type::Time();
    if (t == "bytes") return Type::Binary();
    if (t == "null") return Type::Null();
    if (t == "number" || t == "decimal" || t == "numeric") {
      if (precision.has_value()) {
        int64_t s = scale.value_or(0);
        if (*precision >= 1 && *precision <= schema::kMaxDecimalPrecision && s >= 0 &&
            s <= *precision) {
          return *Type::Decimal(static_cast<int>(*precision), static_cast<int>(s));
        }
        notes_.Add(fpath, fmt::format("precision {} / scale {} out of range: read as a double",
                                      *precision, s));
        return Type::Float64();
      }
      if (t == "number") return Type::Float64();
      notes_.Add(fpath, fmt::format("{} without precision: read as decimal(38,18)", t));
      return *Type::Decimal(38, 18);
    }
    if (t == "object" || t == "record" || t == "struct") {
      if (has_fields) return ReadStruct(*fields, ypath, fpath);
      notes_.Add(fpath, fmt::format("{} without fields: read as an empty struct", t));
      return *Type::Struct({});
    }
    if (t == "array") {
      const YamlNode* items = node.Find("items");
      if (items == nullptr || items->is_null()) {
        notes_.Add(fpath, "array without items: read as an array of strings");
        return *Type::Array(Type::String());
      }
      SLUICE_ASSIGN_OR_RETURN(Element element,
                              ReadElement(*items, KeyPath(ypath, "items"), fpath.Element()));
      auto array = Type::Array(element.type, !element.required);
      if (!array.has_value()) return InvalidAt(ypath, node, array.error().message());
      return *array;
    }
    if (t == "map") {
      TypePtr key = Type::String();
      TypePtr value = Type::String();
      bool value_required = false;
      if (const YamlNode* k = node.Find("keys"); k != nullptr && !k->is_null()) {
        SLUICE_ASSIGN_OR_RETURN(Element e, ReadElement(*k, KeyPath(ypath, "keys"), fpath.Key()));
        key = e.type;
      }
      if (const YamlNode* v = node.Find("values"); v != nullptr && !v->is_null()) {
        SLUICE_ASSIGN_OR_RETURN(Element e,
                                ReadElement(*v, KeyPath(ypath, "values"), fpath.Value()));
        value = e.type;
        value_required = e.required;
      }
      auto map = Type::Map(key, value, !value_required);
      if (!map.has_value()) return InvalidAt(ypath, node, map.error().message());
      return *map;
    }
    if (t == "variant" || t == "json") {
      notes_.Add(fpath, fmt::format("type {} (semi-structured): read as a string of JSON", t));
      return Type::String();
    }
    notes_.Add(fpath, fmt::format("type \"{}\" is not a DCS type: read as string",
                                  EscapeForMessage(*type_text)));
    return Type::String();
  }

  Result<TypePtr> ReadStruct(const YamlNode& fields, const std::string& ypath,
                             const FieldPath& fpath) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<Field> children,
                            ReadFields(fields, KeyPath(ypath, "fields"), fpath));
    auto type = Type::Struct(std::move(children));
    if (!type.has_value()) return InvalidAt(ypath, fields, type.error().message());
    return *type;
  }

  ContractObject* object_;
  schema::NoteSink notes_;
};

Result<ContractObject> ReadModel(const std::string& name, const YamlNode& node,
                                 const std::string& ypath) {
  SLUICE_TRY(ExpectKind(ypath, node, YamlNode::Kind::kMap));
  ContractObject object;
  object.name = name;
  SLUICE_ASSIGN_OR_RETURN(object.physical_type, ReadOptionalString(ypath, node, "type"));
  SLUICE_ASSIGN_OR_RETURN(object.business_name, ReadOptionalString(ypath, node, "title"));
  SLUICE_ASSIGN_OR_RETURN(object.description, ReadOptionalString(ypath, node, "description"));
  if (const YamlNode* q = node.Find("quality"); q != nullptr && !q->is_null()) {
    SLUICE_TRY(ExpectKind(KeyPath(ypath, "quality"), *q, YamlNode::Kind::kSequence));
    object.quality = internal::YamlToJson(*q);
  }
  for (const auto& [key, value] : node.members) {
    if (!Contains(kModelSpecKeys, key)) {
      object.other.mutable_members().push_back(JsonMember{key, internal::YamlToJson(value)});
    }
  }
  std::vector<Field> fields;
  DcsReader reader(&object);
  if (const YamlNode* f = node.Find("fields"); f != nullptr && !f->is_null()) {
    SLUICE_ASSIGN_OR_RETURN(fields, reader.ReadFields(*f, KeyPath(ypath, "fields"), {}));
  }
  for (schema::LossyNote& n : reader.notes().Take()) object.notes.push_back(std::move(n));
  schema::SchemaInfo info;
  info.name = name;
  info.doc = object.description;
  auto made = schema::Schema::Make(std::move(fields), std::move(info));
  if (!made.has_value()) return InvalidAt(ypath, node, made.error().message());
  object.schema = *made;
  return object;
}

}  // namespace

Result<Contract> ParseDcs(std::string_view yaml) {
  SLUICE_ASSIGN_OR_RETURN(YamlNode root, internal::ParseYaml(yaml));
  if (root.is_null()) return InvalidArgument("empty document: expected a DCS data contract");
  SLUICE_TRY(ExpectKind("", root, YamlNode::Kind::kMap));
  const YamlNode* spec_version = root.Find("dataContractSpecification");
  if (spec_version == nullptr || spec_version->is_null()) {
    return InvalidAt("dataContractSpecification", root,
                     "missing: not a Data Contract Specification file (ODCS files are read by "
                     "ParseOdcs)");
  }
  Contract contract;
  contract.format = ContractFormat::kDcs;
  SLUICE_ASSIGN_OR_RETURN(contract.api_version,
                          ReadString("dataContractSpecification", *spec_version));
  SLUICE_ASSIGN_OR_RETURN(auto id, ReadOptionalString("", root, "id"));
  contract.id = id.value_or("");
  if (const YamlNode* info = root.Find("info"); info != nullptr && !info->is_null()) {
    SLUICE_TRY(ExpectKind("info", *info, YamlNode::Kind::kMap));
    SLUICE_ASSIGN_OR_RETURN(auto title, ReadOptionalString("info", *info, "title"));
    SLUICE_ASSIGN_OR_RETURN(auto version, ReadOptionalString("info", *info, "version"));
    SLUICE_ASSIGN_OR_RETURN(auto status, ReadOptionalString("info", *info, "status"));
    contract.name = title.value_or("");
    contract.version = version.value_or("");
    contract.status = status.value_or("");
  }
  for (const auto& [key, value] : root.members) {
    if (!Contains(kTopKeys, key)) {
      contract.other.mutable_members().push_back(JsonMember{key, internal::YamlToJson(value)});
    }
  }
  if (const YamlNode* models = root.Find("models"); models != nullptr && !models->is_null()) {
    SLUICE_TRY(ExpectKind("models", *models, YamlNode::Kind::kMap));
    for (const auto& [name, node] : models->members) {
      if (name.empty()) return InvalidAt("models", node, "a model name is empty");
      SLUICE_ASSIGN_OR_RETURN(ContractObject object,
                              ReadModel(name, node, KeyPath("models", name)));
      contract.objects.push_back(std::move(object));
    }
  }
  return contract;
}

bool LooksLikeDcs(std::string_view text) {
  text = text.substr(0, 8192);
  if (StartsWith(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  if (text.find("\"dataContractSpecification\"") != std::string_view::npos) return true;
  for (std::string_view line : SplitString(text, '\n')) {
    if (StartsWith(line, "dataContractSpecification:") ||
        StartsWith(line, "\"dataContractSpecification\":") ||
        StartsWith(line, "'dataContractSpecification':")) {
      return true;
    }
  }
  return false;
}

}  // namespace sluice::dialects::contract
