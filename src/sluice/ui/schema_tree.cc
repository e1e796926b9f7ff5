// A schema as the tree the page draws: one Node per field, with the element of an array and the
// value of a map as one child each, and paths in sluice's field-path syntax.
#include "sluice/base/json_writer.h"
#include "sluice/dialects/format.h"
#include "sluice/schema/field_path.h"
#include "sluice/schema/type_visitor.h"
#include "sluice/ui/api_internal.h"

namespace sluice::ui::internal {
namespace {

using schema::FieldPath;
using schema::Type;

void WriteNode(JsonWriter& w, std::string_view name, const FieldPath& path, const Type& type,
               bool nullable, const schema::Field* field);

// The children of a type: a struct's fields, an array's element, a map's value.
void WriteChildren(JsonWriter& w, const FieldPath& path, const Type& type) {
  w.Key("children").BeginArray();
  schema::VisitType(type, schema::Overloaded{
                              [&](const schema::StructType& t) {
                                for (const schema::Field& f : t.type.fields()) {
                                  WriteNode(
                                      w, f.name(),
                                      path.empty() ? FieldPath::Of(f.name()) : path.Child(f.name()),
                                      *f.type(), f.nullable(), &f);
                                }
                              },
                              [&](const schema::ArrayType& t) {
                                WriteNode(w, "[]", path.Element(), *t.type.element_type(),
                                          t.type.contains_null(), nullptr);
                              },
                              [&](const schema::MapType& t) {
                                WriteNode(w, "{}", path.Value(), *t.type.value_type(),
                                          t.type.value_contains_null(), nullptr);
                              },
                              [&](const schema::AtomicType&) {},
                          });
  w.EndArray();
}

// Nested types are named by their kind ("struct", "array", "map"; their children carry the
// rest); leaves as `sluice diff` prints them ("int32", "decimal(10,2)", "timestamp(3)").
std::string TypeWord(const Type& type) {
  if (type.is_nested()) return std::string(schema::TypeKindName(type.kind()));
  return type.ToString();
}

std::string_view KindWord(const Type& type) {
  if (type.is_struct()) return "struct";
  if (type.is_array()) return "array";
  if (type.is_map()) return "map";
  return "primitive";
}

void WriteNode(JsonWriter& w, std::string_view name, const FieldPath& path, const Type& type,
               bool nullable, const schema::Field* field) {
  w.BeginObject();
  w.Key("name").String(name);
  w.Key("path").String(path.ToString());
  w.Key("type").String(TypeWord(type));
  w.Key("kind").String(KindWord(type));
  w.Key("nullable").Bool(nullable);
  w.Key("doc");
  if (field && field->doc()) {
    w.String(*field->doc());
  } else {
    w.Null();
  }
  if (field && field->default_value()) w.Key("default").Value(*field->default_value());
  if (type.is_map()) w.Key("keyType").String(type.key_type()->ToString());
  WriteChildren(w, path, type);
  w.EndObject();
}

}  // namespace

std::string FieldsJson(const schema::Schema& schema) {
  JsonWriter w;
  w.BeginArray();
  for (const schema::Field& f : schema.fields()) {
    WriteNode(w, f.name(), FieldPath::Of(f.name()), *f.type(), f.nullable(), &f);
  }
  w.EndArray();
  return w.Take();
}

Result<schema::SchemaPtr> ReadRegistrySchema(std::string_view schema_type, std::string_view text) {
  dialects::Format format;
  if (schema_type.empty() || schema_type == "AVRO") {
    format = dialects::Format::kAvro;
  } else if (schema_type == "JSON") {
    format = dialects::Format::kJsonSchema;
  } else {
    return Fail(ErrorCode::kUnimplemented,
                "the UI cannot show " + std::string(schema_type) + " schemas as a tree");
  }
  SLUICE_ASSIGN_OR_RETURN(auto converted, dialects::ReadSchema(text, format));
  return converted.value;
}

}  // namespace sluice::ui::internal
