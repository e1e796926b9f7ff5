// ODCS v3 reading and writing. The type rules are in contract.h and docs: logicalType decides the
// family, a recognised physicalType of that family refines it.
#include <fmt/format.h>

#include <unordered_set>

#include "sluice/base/strings.h"
#include "sluice/dialects/contract/contract.h"
#include "sluice/dialects/contract/physical_type_internal.h"
#include "sluice/dialects/contract/reader_internal.h"
#include "sluice/dialects/contract/yaml_internal.h"
#include "sluice/dialects/spark/spark.h"

namespace sluice::dialects::contract {
namespace {

using internal::ExpectKind;
using internal::FamilyOf;
using internal::IndexPath;
using internal::InvalidAt;
using internal::KeyPath;
using internal::ParsePhysicalType;
using internal::PhysicalType;
using internal::ReadBool;
using internal::ReadOptionalBool;
using internal::ReadOptionalInt;
using internal::ReadOptionalString;
using internal::ReadString;
using internal::TypeFamily;
using internal::TypeFamilyName;
using internal::YamlNode;
using internal::YamlScalar;
using schema::Field;
using schema::FieldPath;
using schema::TimeUnit;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

constexpr std::string_view kLogicalTypes[] = {"string",  "date",   "timestamp", "time",   "number",
                                              "integer", "object", "array",     "boolean"};

// Property keys read into ColumnSpec fields or the type; every other key lands in `other`.
constexpr std::string_view kPropertyKeys[] = {"name",
                                              "logicalType",
                                              "physicalType",
                                              "physicalName",
                                              "businessName",
                                              "description",
                                              "classification",
                                              "required",
                                              "unique",
                                              "primaryKey",
                                              "primaryKeyPosition",
                                              "partitioned",
                                              "partitionKeyPosition",
                                              "criticalDataElement",
                                              "tags",
                                              "logicalTypeOptions",
                                              "quality",
                                              "properties",
                                              "items"};

// Top-level keys read into Contract fields or objects; the others land in Contract::other.
constexpr std::string_view kTopKeys[] = {"apiVersion", "kind", "id",    "version",
                                         "status",     "name", "schema"};

constexpr std::string_view kObjectKeys[] = {"name",         "logicalType",  "physicalType",
                                            "physicalName", "businessName", "description",
                                            "properties",   "quality"};

template <size_t N>
bool Contains(const std::string_view (&list)[N], std::string_view key) {
  for (std::string_view k : list) {
    if (k == key) return true;
  }
  return false;
}

template <size_t N>
JsonValue OtherKeys(const YamlNode& map, const std::string_view (&known)[N]) {
  JsonValue other = JsonValue::Object();
  for (const auto& [key, value] : map.members) {
    if (!Contains(known, key)) {
      other.mutable_members().push_back(JsonMember{key, internal::YamlToJson(value)});
    }
  }
  return other;
}

// What one property or `items` element says about its type.
struct ElementType {
  TypePtr type;
  bool required = false;
  std::optional<std::string> description;
};

class OdcsReader {
 public:
  explicit OdcsReader(ContractObject* object) : object_(object) {}

  Result<std::vector<Field>> ReadProperties(const YamlNode& list, const std::string& ypath,
                                            const FieldPath& parent) {
    SLUICE_TRY(ExpectKind(ypath, list, YamlNode::Kind::kSequence));
    std::vector<Field> fields;
    std::unordered_set<std::string> names;
    for (size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& p = list.items[i];
      std::string path = IndexPath(ypath, i);
      SLUICE_TRY(ExpectKind(path, p, YamlNode::Kind::kMap));
      const YamlNode* name_node = p.Find("name");
      if (name_node == nullptr || name_node->is_null()) {
        return InvalidAt(path, p, "a property needs a name");
      }
      SLUICE_ASSIGN_OR_RETURN(std::string name, ReadString(KeyPath(path, "name"), *name_node));
      if (name.empty()) return InvalidAt(KeyPath(path, "name"), *name_node, "name is empty");
      if (!names.insert(name).second) {
        return InvalidAt(KeyPath(path, "name"), *name_node,
                         fmt::format("duplicate property \"{}\"", EscapeForMessage(name)));
      }
      FieldPath fpath = parent.empty() ? FieldPath::Of(name) : parent.Child(name);
      SLUICE_ASSIGN_OR_RETURN(ElementType element, ReadElement(p, path, fpath));
      Field field(name, element.type, !element.required);
      field.set_doc(element.description);
      fields.push_back(std::move(field));
    }
    return fields;
  }

  schema::NoteSink& notes() { return notes_; }

 private:
  // A property or an array's `items`: the spec goes into the object's column list, then the type.
  Result<ElementType> ReadElement(const YamlNode& node, const std::string& ypath,
                                  const FieldPath& fpath) {
    SLUICE_TRY(ExpectKind(ypath, node, YamlNode::Kind::kMap));
    ColumnSpec spec;
    spec.path = fpath;
    SLUICE_ASSIGN_OR_RETURN(spec.logical_type, ReadOptionalString(ypath, node, "logicalType"));
    SLUICE_ASSIGN_OR_RETURN(spec.physical_type, ReadOptionalString(ypath, node, "physicalType"));
    SLUICE_ASSIGN_OR_RETURN(spec.physical_name, ReadOptionalString(ypath, node, "physicalName"));
    SLUICE_ASSIGN_OR_RETURN(spec.business_name, ReadOptionalString(ypath, node, "businessName"));
    SLUICE_ASSIGN_OR_RETURN(spec.description, ReadOptionalString(ypath, node, "description"));
    SLUICE_ASSIGN_OR_RETURN(spec.classification, ReadOptionalString(ypath, node, "classification"));
    SLUICE_ASSIGN_OR_RETURN(auto required, ReadOptionalBool(ypath, node, "required"));
    SLUICE_ASSIGN_OR_RETURN(auto unique, ReadOptionalBool(ypath, node, "unique"));
    SLUICE_ASSIGN_OR_RETURN(auto primary_key, ReadOptionalBool(ypath, node, "primaryKey"));
    SLUICE_ASSIGN_OR_RETURN(auto partitioned, ReadOptionalBool(ypath, node, "partitioned"));
    SLUICE_ASSIGN_OR_RETURN(auto critical, ReadOptionalBool(ypath, node, "criticalDataElement"));
    SLUICE_ASSIGN_OR_RETURN(spec.primary_key_position,
                            ReadOptionalInt(ypath, node, "primaryKeyPosition"));
    SLUICE_ASSIGN_OR_RETURN(spec.partition_key_position,
                            ReadOptionalInt(ypath, node, "partitionKeyPosition"));
    spec.required = required.value_or(false);
    spec.unique = unique.value_or(false);
    spec.primary_key = primary_key.value_or(false);
    spec.partitioned = partitioned.value_or(false);
    spec.critical_data_element = critical.value_or(false);
    if (const YamlNode* d = node.Find("description"); d != nullptr && d->is_null()) {
      notes_.Add(fpath, "description is null (ODCS expects a string); ignored");
    }
    if (const YamlNode* tags = node.Find("tags"); tags != nullptr && !tags->is_null()) {
      std::string tpath = KeyPath(ypath, "tags");
      SLUICE_TRY(ExpectKind(tpath, *tags, YamlNode::Kind::kSequence));
      for (size_t i = 0; i < tags->items.size(); ++i) {
        SLUICE_ASSIGN_OR_RETURN(std::string tag, ReadString(IndexPath(tpath, i), tags->items[i]));
        spec.tags.push_back(std::move(tag));
      }
    }
    if (const YamlNode* o = node.Find("logicalTypeOptions"); o != nullptr && !o->is_null()) {
      SLUICE_TRY(ExpectKind(KeyPath(ypath, "logicalTypeOptions"), *o, YamlNode::Kind::kMap));
      spec.logical_type_options = internal::YamlToJson(*o);
    }
    if (const YamlNode* q = node.Find("quality"); q != nullptr && !q->is_null()) {
      SLUICE_TRY(ExpectKind(KeyPath(ypath, "quality"), *q, YamlNode::Kind::kSequence));
      spec.quality = internal::YamlToJson(*q);
    }
    spec.other = OtherKeys(node, kPropertyKeys);
    for (const auto& member : node.members) spec.keys.push_back(member.key);
    if (spec.logical_type.has_value()) {
      std::string lower = AsciiLower(*spec.logical_type);
      if (!Contains(kLogicalTypes, lower)) {
        return InvalidAt(KeyPath(ypath, "logicalType"), *node.Find("logicalType"),
                         fmt::format("unknown logicalType \"{}\"; ODCS has string, date, "
                                     "timestamp, time, number, integer, object, array, boolean",
                                     EscapeForMessage(*spec.logical_type)));
      }
      if (lower != *spec.logical_type) {
        notes_.Add(fpath,
                   fmt::format("logicalType \"{}\" read as \"{}\"", *spec.logical_type, lower));
      }
      spec.logical_type = lower;
    }

    ElementType out;
    out.required = spec.required;
    out.description = spec.description;
    size_t index = object_->columns.size();
    object_->columns.push_back(std::move(spec));
    // Children push their own specs; work on a copy of what the type needs.
    std::optional<std::string> logical = object_->columns[index].logical_type;
    std::optional<std::string> physical = object_->columns[index].physical_type;
    JsonValue options = object_->columns[index].logical_type_options;
    SLUICE_ASSIGN_OR_RETURN(out.type, ResolveType(node, ypath, fpath, logical, physical, options));
    return out;
  }

  void Disagree(const FieldPath& fpath, const std::string& physical, const PhysicalType& pt,
                std::string_view logical) {
    notes_.Add(fpath, fmt::format("physicalType \"{}\" ({}) disagrees with logicalType {}; read "
                                  "as {} per the logicalType",
                                  EscapeForMessage(physical), TypeFamilyName(pt.family), logical,
                                  logical));
  }

  Result<TypePtr> ReadItems(const YamlNode& node, const std::string& ypath,
                            const FieldPath& fpath) {
    const YamlNode* items = node.Find("items");
    SLUICE_ASSIGN_OR_RETURN(ElementType element,
                            ReadElement(*items, KeyPath(ypath, "items"), fpath.Element()));
    if (element.description.has_value()) {
      notes_.Add(fpath.Element(), "the description of array items has no place in the schema");
    }
    auto array = Type::Array(element.type, !element.required);
    if (!array.has_value()) return InvalidAt(ypath, node, array.error().message());
    return *array;
  }

  Result<TypePtr> ReadStruct(const YamlNode& node, const std::string& ypath,
                             const FieldPath& fpath) {
    SLUICE_ASSIGN_OR_RETURN(
        std::vector<Field> fields,
        ReadProperties(*node.Find("properties"), KeyPath(ypath, "properties"), fpath));
    auto type = Type::Struct(std::move(fields));
    if (!type.has_value()) return InvalidAt(ypath, node, type.error().message());
    return *type;
  }

  Result<TypePtr> ResolveType(const YamlNode& node, const std::string& ypath,
                              const FieldPath& fpath, const std::optional<std::string>& logical,
                              const std::optional<std::string>& physical,
                              const JsonValue& options) {
    const YamlNode* properties = node.Find("properties");
    const YamlNode* items = node.Find("items");
    bool has_properties = properties != nullptr && !properties->is_null();
    bool has_items = items != nullptr && !items->is_null();
    PhysicalType pt;
    if (physical.has_value()) {
      pt = ParsePhysicalType(*physical);
      if (pt.family == TypeFamily::kUnknown) {
        notes_.Add(fpath, fmt::format("physicalType \"{}\" is not a recognised SQL type{}{}",
                                      EscapeForMessage(*physical), pt.problem.empty() ? "" : ": ",
                                      pt.problem));
      } else if (!pt.problem.empty()) {
        notes_.Add(fpath,
                   fmt::format("physicalType \"{}\": {}", EscapeForMessage(*physical), pt.problem));
      }
    }
    std::string lt = logical.value_or("");
    if (lt.empty()) {
      if (has_properties)
        lt = "object";
      else if (has_items)
        lt = "array";
      else if (pt.type != nullptr)
        return pt.type;
      else if (pt.family == TypeFamily::kJson) {
        notes_.Add(fpath, "no logicalType and a JSON physicalType: read as a string of JSON");
        return Type::String();
      } else {
        notes_.Add(fpath, "no logicalType and no usable physicalType: read as string");
        return Type::String();
      }
    }
    if (has_properties && lt != "object") {
      return InvalidAt(KeyPath(ypath, "properties"), *properties,
                       fmt::format("properties are only allowed on objects, not {}", lt));
    }
    if (has_items && lt != "array") {
      return InvalidAt(KeyPath(ypath, "items"), *items,
                       fmt::format("items are only allowed on arrays, not {}", lt));
    }
    bool pt_known = pt.family != TypeFamily::kUnknown;
    const std::string phys = physical.value_or("");

    if (lt == "object") {
      if (pt_known && pt.family != TypeFamily::kObject && pt.family != TypeFamily::kJson) {
        Disagree(fpath, phys, pt, lt);
      }
      if (has_properties) return ReadStruct(node, ypath, fpath);
      if (pt.type != nullptr && pt.family == TypeFamily::kObject) return pt.type;
      if (pt.family == TypeFamily::kJson) {
        notes_.Add(fpath, "object without properties stored as JSON: read as a string of JSON");
        return Type::String();
      }
      notes_.Add(fpath, "object without properties: read as an empty struct");
      return *Type::Struct({});
    }
    if (lt == "array") {
      if (pt_known && pt.family != TypeFamily::kArray && pt.family != TypeFamily::kJson) {
        Disagree(fpath, phys, pt, lt);
      }
      if (has_items) return ReadItems(node, ypath, fpath);
      if (pt.type != nullptr && pt.family == TypeFamily::kArray) return pt.type;
      notes_.Add(fpath, "array without items: read as an array of strings");
      return *Type::Array(Type::String());
    }
    if (lt == "string") {
      if (pt.type != nullptr && pt.family == TypeFamily::kString) return pt.type;
      if (pt_known && pt.family != TypeFamily::kString && pt.family != TypeFamily::kJson) {
        Disagree(fpath, phys, pt, lt);
      }
      return Type::String();
    }
    if (lt == "integer") {
      if (pt.type != nullptr && pt.family == TypeFamily::kInteger) return pt.type;
      if (pt.type != nullptr && pt.type->kind() == TypeKind::kDecimal && pt.type->scale() == 0) {
        return pt.type;
      }
      if (pt_known) Disagree(fpath, phys, pt, lt);
      return IntegerFromOptions(fpath, options);
    }
    if (lt == "number") {
      if (pt.type != nullptr &&
          (pt.family == TypeFamily::kNumber || pt.family == TypeFamily::kInteger)) {
        return pt.type;
      }
      if (pt_known) Disagree(fpath, phys, pt, lt);
      return NumberFromOptions(fpath, options);
    }
    if (lt == "boolean") {
      if (pt_known && pt.family != TypeFamily::kBoolean) Disagree(fpath, phys, pt, lt);
      return Type::Boolean();
    }
    if (lt == "date") {
      if (pt_known && pt.family != TypeFamily::kDate) Disagree(fpath, phys, pt, lt);
      return Type::Date();
    }
    if (lt == "time") {
      if (pt.type != nullptr && pt.family == TypeFamily::kTime) return pt.type;
      if (pt_known) Disagree(fpath, phys, pt, lt);
      return Type::Time();
    }
    // timestamp
    std::optional<bool> tz;
    if (const JsonValue* v = options.Find("timezone"); v != nullptr) {
      if (v->is_bool()) {
        tz = v->as_bool();
      } else {
        notes_.Add(fpath, "logicalTypeOptions.timezone is not a boolean; ignored");
      }
    }
    TimeUnit unit = TimeUnit::kMicros;
    if (pt.type != nullptr && pt.family == TypeFamily::kTimestamp) {
      unit = pt.type->unit();
      if (!tz.has_value()) return pt.type;
      TypeKind want = *tz ? TypeKind::kTimestamp : TypeKind::kTimestampNtz;
      if (pt.zone_explicit && pt.type->kind() != want) {
        notes_.Add(fpath, fmt::format("physicalType \"{}\" and logicalTypeOptions.timezone: {} "
                                      "disagree; the timezone option decides",
                                      EscapeForMessage(phys), *tz ? "true" : "false"));
      }
    } else if (pt_known) {
      Disagree(fpath, phys, pt, lt);
    }
    // An instant unless the contract says otherwise: Spark's TIMESTAMP is one.
    return tz.value_or(true) ? Type::Timestamp(unit) : Type::TimestampNtz(unit);
  }

  // ODCS 3.1 `format` names the width the Rust way (i8 ... u128). Without one the column is an
  // int64: the schema's documented default of i32 would overflow on real data more often than
  // it would describe it.
  TypePtr IntegerFromOptions(const FieldPath& fpath, const JsonValue& options) {
    const JsonValue* f = options.Find("format");
    if (f == nullptr || !f->is_string()) return Type::Int64();
    const std::string& format = f->as_string();
    if (format == "i8") return Type::Int8();
    if (format == "i16" || format == "u8") return Type::Int16();
    if (format == "i32" || format == "u16") return Type::Int32();
    if (format == "i64" || format == "u32") return Type::Int64();
    if (format == "u64") return *Type::Decimal(20, 0);
    if (format == "i128" || format == "u128") {
      notes_.Add(fpath,
                 fmt::format("format {} exceeds decimal(38, 0); read as decimal(38, 0)", format));
      return *Type::Decimal(38, 0);
    }
    notes_.Add(fpath, fmt::format("logicalTypeOptions.format \"{}\" is not an integer format; "
                                  "read as int64",
                                  EscapeForMessage(format)));
    return Type::Int64();
  }

  TypePtr NumberFromOptions(const FieldPath& fpath, const JsonValue& options) {
    if (const JsonValue* f = options.Find("format"); f != nullptr && f->is_string()) {
      if (f->as_string() == "f32") return Type::Float32();
      if (f->as_string() == "f64") return Type::Float64();
    }
    // precision/scale are not ODCS keys for numbers, but some producers write them.
    const JsonValue* p = options.Find("precision");
    if (p == nullptr || !p->is_number()) return Type::Float64();
    const JsonValue* s = options.Find("scale");
    int64_t precision = p->as_int64().value_or(-1);
    int64_t scale = (s != nullptr && s->is_number()) ? s->as_int64().value_or(-1) : 0;
    if (precision >= 1 && precision <= schema::kMaxDecimalPrecision && scale >= 0 &&
        scale <= precision) {
      return *Type::Decimal(static_cast<int>(precision), static_cast<int>(scale));
    }
    notes_.Add(fpath, "logicalTypeOptions precision/scale out of range: read as a double");
    return Type::Float64();
  }

  ContractObject* object_;
  schema::NoteSink notes_;
};

Result<ContractObject> ReadObject(const YamlNode& node, const std::string& ypath) {
  SLUICE_TRY(ExpectKind(ypath, node, YamlNode::Kind::kMap));
  ContractObject object;
  const YamlNode* name_node = node.Find("name");
  if (name_node == nullptr || name_node->is_null()) {
    return InvalidAt(ypath, node, "a schema object needs a name");
  }
  SLUICE_ASSIGN_OR_RETURN(object.name, ReadString(KeyPath(ypath, "name"), *name_node));
  SLUICE_ASSIGN_OR_RETURN(auto logical, ReadOptionalString(ypath, node, "logicalType"));
  if (logical.has_value() && *logical != "object") {
    return InvalidAt(KeyPath(ypath, "logicalType"), *node.Find("logicalType"),
                     fmt::format("a schema object's logicalType must be object, not \"{}\"",
                                 EscapeForMessage(*logical)));
  }
  SLUICE_ASSIGN_OR_RETURN(object.physical_name, ReadOptionalString(ypath, node, "physicalName"));
  SLUICE_ASSIGN_OR_RETURN(object.physical_type, ReadOptionalString(ypath, node, "physicalType"));
  SLUICE_ASSIGN_OR_RETURN(object.business_name, ReadOptionalString(ypath, node, "businessName"));
  SLUICE_ASSIGN_OR_RETURN(object.description, ReadOptionalString(ypath, node, "description"));
  if (const YamlNode* d = node.Find("description"); d != nullptr && d->is_null()) {
    object.notes.push_back(
        schema::LossyNote{FieldPath(), fmt::format("{}.description is null (ODCS expects a "
                                                   "string); ignored",
                                                   ypath)});
  }
  if (const YamlNode* q = node.Find("quality"); q != nullptr && !q->is_null()) {
    SLUICE_TRY(ExpectKind(KeyPath(ypath, "quality"), *q, YamlNode::Kind::kSequence));
    object.quality = internal::YamlToJson(*q);
  }
  object.other = OtherKeys(node, kObjectKeys);

  std::vector<Field> fields;
  OdcsReader reader(&object);
  if (const YamlNode* props = node.Find("properties"); props != nullptr && !props->is_null()) {
    SLUICE_ASSIGN_OR_RETURN(fields,
                            reader.ReadProperties(*props, KeyPath(ypath, "properties"), {}));
  }
  for (schema::LossyNote& n : reader.notes().Take()) object.notes.push_back(std::move(n));
  schema::SchemaInfo info;
  info.name = object.name;
  info.doc = object.description;
  auto made = schema::Schema::Make(std::move(fields), std::move(info));
  if (!made.has_value()) return InvalidAt(ypath, node, made.error().message());
  object.schema = *made;
  return object;
}

// Identity keys ODCS requires: missing ones are lint problems, noted but not fatal.
Status ReadIdentity(const YamlNode& root, Contract* contract) {
  struct Key {
    std::string_view name;
    std::string* target;
  };
  const Key keys[] = {{"id", &contract->id},
                      {"version", &contract->version},
                      {"status", &contract->status},
                      {"name", &contract->name}};
  for (const Key& k : keys) {
    SLUICE_ASSIGN_OR_RETURN(auto value, ReadOptionalString("", root, k.name));
    if (value.has_value()) {
      *k.target = std::move(*value);
    } else if (k.name != "name") {
      contract->notes.push_back(schema::LossyNote{
          FieldPath(), fmt::format("'{}' is missing; ODCS v3 requires it", k.name)});
    }
  }
  return Ok();
}

}  // namespace

Result<Contract> ParseOdcs(std::string_view yaml) {
  SLUICE_ASSIGN_OR_RETURN(YamlNode root, internal::ParseYaml(yaml));
  if (root.is_null()) return InvalidArgument("empty document: expected an ODCS data contract");
  SLUICE_TRY(ExpectKind("", root, YamlNode::Kind::kMap));
  if (const YamlNode* dcs = root.Find("dataContractSpecification"); dcs != nullptr) {
    return Unimplemented(fmt::format(
        "this is a Data Contract Specification (DCS) {} file, the legacy datacontract-cli "
        "format; sluice reads ODCS v3 (convert with `datacontract export --format odcs`)",
        dcs->is_scalar() ? EscapeForMessage(dcs->text, 40) : std::string()));
  }
  Contract contract;
  contract.format = ContractFormat::kOdcs;
  const YamlNode* api = root.Find("apiVersion");
  if (api == nullptr || api->is_null()) {
    return InvalidAt("apiVersion", root, "missing: not an ODCS v3 data contract");
  }
  SLUICE_ASSIGN_OR_RETURN(contract.api_version, ReadString("apiVersion", *api));
  const std::string& v = contract.api_version;
  if (StartsWith(v, "v2.") || v == "2.2.2" || StartsWith(v, "2.")) {
    return Unimplemented(fmt::format(
        "apiVersion: ODCS {} (v2, `dataset:` with `columns:`) is not read; sluice reads ODCS v3 "
        "({})",
        EscapeForMessage(v, 40), internal::DescribeNode(*api)));
  }
  if (!StartsWith(v, "v3.")) {
    return InvalidAt("apiVersion", *api,
                     fmt::format("\"{}\" is not an ODCS v3 version (v3.0.0 ... v3.1.0)",
                                 EscapeForMessage(v, 40)));
  }
  if (v != "v3.0.0" && v != "v3.0.1" && v != "v3.0.2" && v != "v3.1.0") {
    contract.notes.push_back(schema::LossyNote{
        FieldPath(), fmt::format("apiVersion {} is newer than v3.1.0; read as v3.1.0", v)});
  }
  const YamlNode* kind = root.Find("kind");
  if (kind == nullptr || kind->is_null()) {
    contract.notes.push_back(
        schema::LossyNote{FieldPath(), "'kind' is missing; ODCS v3 requires kind: DataContract"});
  } else {
    SLUICE_ASSIGN_OR_RETURN(std::string k, ReadString("kind", *kind));
    if (k != "DataContract") {
      return InvalidAt("kind", *kind,
                       fmt::format("expected DataContract, found \"{}\"", EscapeForMessage(k, 40)));
    }
  }
  SLUICE_TRY(ReadIdentity(root, &contract));
  contract.other = OtherKeys(root, kTopKeys);
  if (const YamlNode* objects = root.Find("schema"); objects != nullptr && !objects->is_null()) {
    SLUICE_TRY(ExpectKind("schema", *objects, YamlNode::Kind::kSequence));
    std::unordered_set<std::string> names;
    for (size_t i = 0; i < objects->items.size(); ++i) {
      std::string path = IndexPath("schema", i);
      SLUICE_ASSIGN_OR_RETURN(ContractObject object, ReadObject(objects->items[i], path));
      if (!names.insert(object.name).second) {
        return InvalidAt(
            KeyPath(path, "name"), objects->items[i],
            fmt::format("duplicate schema object \"{}\"", EscapeForMessage(object.name)));
      }
      contract.objects.push_back(std::move(object));
    }
  }
  return contract;
}

namespace {

// The ODCS logicalType of a model type: its family's word; none for null, which ODCS lacks.
std::string_view LogicalTypeOf(const Type& type) {
  TypeFamily family = FamilyOf(type);
  return family == TypeFamily::kNull ? "" : TypeFamilyName(family);
}

// physicalType in Spark SQL; standard SQL for what Spark lacks (UUID, TIME, timestamp precision),
// since ParseOdcs reads those back exactly. Empty for structs and arrays, whose shape is in
// `properties` / `items`.
std::string PhysicalTypeOf(const Type& type, schema::NoteSink& notes, const FieldPath& path) {
  switch (type.kind()) {
    case TypeKind::kNull:
      return "VOID";
    case TypeKind::kBoolean:
      return "BOOLEAN";
    case TypeKind::kInt8:
      return "TINYINT";
    case TypeKind::kInt16:
      return "SMALLINT";
    case TypeKind::kInt32:
      return "INT";
    case TypeKind::kInt64:
      return "BIGINT";
    case TypeKind::kFloat32:
      return "FLOAT";
    case TypeKind::kFloat64:
      return "DOUBLE";
    case TypeKind::kDecimal:
      return fmt::format("DECIMAL({},{})", type.precision(), type.scale());
    case TypeKind::kString:
      if (type.string_length() == schema::StringLength::kChar) {
        return fmt::format("CHAR({})", type.length());
      }
      if (type.string_length() == schema::StringLength::kVarchar) {
        return fmt::format("VARCHAR({})", type.length());
      }
      return "STRING";
    case TypeKind::kBinary:
      return "BINARY";
    case TypeKind::kDate:
      return "DATE";
    case TypeKind::kTimestamp:
      return "TIMESTAMP" + std::string(schema::TimeUnitSuffix(type.unit()));
    case TypeKind::kTimestampNtz:
      return "TIMESTAMP_NTZ" + std::string(schema::TimeUnitSuffix(type.unit()));
    case TypeKind::kTime:
      return "TIME" + std::string(schema::TimeUnitSuffix(type.unit()));
    case TypeKind::kUuid:
      return "UUID";
    case TypeKind::kStruct:
    case TypeKind::kArray:
      return "";
    case TypeKind::kMap: {
      std::string sql = spark::DataTypeSql(type, &notes, path);
      auto back = spark::ParseDataType(sql);
      if (!back.has_value() || !(*back)->Equals(type, true)) {
        notes.Add(path, fmt::format("map written as physicalType {}, which does not hold all of "
                                    "{}",
                                    sql, type.ToString()));
      }
      return sql;
    }
  }
  return "";
}

class OdcsWriter {
 public:
  // One element's keys at `indent`; `first_prefix` replaces the indent of the first line ("- ").
  void Element(const Type& type, bool required, const std::optional<std::string>& doc,
               const std::string* name, const FieldPath& path, int indent) {
    std::string pad(static_cast<size_t>(indent), ' ');
    bool first = true;
    auto line = [&](std::string_view key, const std::string& value) {
      if (first && name != nullptr) {
        out_ += std::string(static_cast<size_t>(indent - 2), ' ') + "- ";
      } else {
        out_ += pad;
      }
      first = false;
      out_ += key;
      out_ += ':';
      if (!value.empty()) {
        out_ += ' ';
        out_ += value;
      }
      out_ += '\n';
    };
    if (name != nullptr) line("name", YamlScalar(*name));
    std::string_view logical = LogicalTypeOf(type);
    if (!logical.empty()) line("logicalType", std::string(logical));
    if (type.kind() == TypeKind::kNull) notes_.Add(path, "ODCS has no null logicalType");
    std::string physical = PhysicalTypeOf(type, notes_, path);
    if (!physical.empty()) line("physicalType", YamlScalar(physical));
    if (type.kind() == TypeKind::kTimestamp || type.kind() == TypeKind::kTimestampNtz) {
      line("logicalTypeOptions",
           type.kind() == TypeKind::kTimestamp ? "{timezone: true}" : "{timezone: false}");
    }
    line("required", required ? "true" : "false");
    if (doc.has_value()) line("description", YamlScalar(*doc));
    if (type.is_struct()) {
      if (type.fields().empty()) {
        notes_.Add(path, "an empty struct has no properties in ODCS");
      } else {
        line("properties", "");
        for (const Field& f : type.fields()) Property(f, path.Child(f.name()), indent + 2);
      }
    } else if (type.is_array()) {
      line("items", "");
      Element(*type.element_type(), !type.contains_null(), std::nullopt, nullptr, path.Element(),
              indent + 2);
    }
  }

  void Property(const Field& field, const FieldPath& path, int indent) {
    if (field.default_value().has_value()) {
      notes_.Add(path, "ODCS has no default values; the default is not written");
    }
    if (field.metadata().size() > 0) {
      notes_.Add(path, "ODCS has no field metadata; it is not written");
    }
    Element(*field.type(), !field.nullable(), field.doc(), &field.name(), path, indent + 2);
  }

  std::string& out() { return out_; }
  schema::NoteSink& notes() { return notes_; }

 private:
  std::string out_;
  schema::NoteSink notes_;
};

}  // namespace

std::string_view OdcsLogicalType(const Type& type) { return LogicalTypeOf(type); }

OdcsPhysicalType ReadOdcsPhysicalType(std::string_view text) {
  PhysicalType pt = ParsePhysicalType(text);
  OdcsPhysicalType out;
  if (pt.family != TypeFamily::kUnknown) out.logical_type = std::string(TypeFamilyName(pt.family));
  out.type = pt.type;
  out.zone_explicit = pt.zone_explicit;
  return out;
}

Result<schema::Converted<std::string>> WriteOdcs(const schema::Schema& schema,
                                                 const OdcsWriteOptions& options) {
  if (options.version.empty()) return InvalidArgument("OdcsWriteOptions.version is empty");
  if (options.status.empty()) return InvalidArgument("OdcsWriteOptions.status is empty");
  std::string object_name = options.object_name;
  if (object_name.empty()) object_name = schema.info().name;
  if (object_name.empty()) object_name = "my_table";
  std::string id = options.id.empty() ? object_name : options.id;
  OdcsWriter w;
  std::string& out = w.out();
  out += "apiVersion: v3.1.0\n";
  out += "kind: DataContract\n";
  out += "id: " + YamlScalar(id) + "\n";
  if (!options.name.empty()) out += "name: " + YamlScalar(options.name) + "\n";
  out += "version: " + YamlScalar(options.version) + "\n";
  out += "status: " + YamlScalar(options.status) + "\n";
  out += "schema:\n";
  out += "  - name: " + YamlScalar(object_name) + "\n";
  if (!options.physical_type.empty()) {
    out += "    physicalType: " + YamlScalar(options.physical_type) + "\n";
  }
  out += "    logicalType: object\n";
  if (schema.info().doc.has_value()) {
    out += "    description: " + YamlScalar(*schema.info().doc) + "\n";
  }
  if (!schema.fields().empty()) {
    out += "    properties:\n";
    for (const Field& f : schema.fields()) w.Property(f, FieldPath::Of(f.name()), 6);
  }
  return schema::Converted<std::string>{w.out(), w.notes().Take()};
}

}  // namespace sluice::dialects::contract
