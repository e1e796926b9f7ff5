#include "sluice/schema/canonical.h"

#include "sluice/base/hash.h"
#include "sluice/base/json_writer.h"

namespace sluice::schema {

namespace {

void WriteType(JsonWriter& w, const Type& type);

void WriteFields(JsonWriter& w, const std::vector<Field>& fields) {
  JsonFormat normalized;
  normalized.sort_keys = true;
  normalized.python_numbers = true;
  w.BeginArray();
  for (const Field& f : fields) {
    w.BeginObject();
    w.Key("name").String(f.name());
    w.Key("type");
    WriteType(w, *f.type());
    w.Key("nullable").Bool(f.nullable());
    if (f.doc().has_value()) w.Key("doc").String(*f.doc());
    if (f.default_value().has_value()) w.Key("default").Raw(ToJson(*f.default_value(), normalized));
    if (f.metadata().size() > 0) w.Key("metadata").Raw(ToJson(f.metadata(), normalized));
    w.EndObject();
  }
  w.EndArray();
}

void WriteType(JsonWriter& w, const Type& type) {
  if (type.is_struct()) {
    w.BeginObject().Key("type").String("struct").Key("fields");
    WriteFields(w, type.fields());
    w.EndObject();
  } else if (type.is_array()) {
    w.BeginObject().Key("type").String("array").Key("element");
    WriteType(w, *type.element_type());
    w.Key("contains_null").Bool(type.contains_null()).EndObject();
  } else if (type.is_map()) {
    w.BeginObject().Key("type").String("map").Key("key");
    WriteType(w, *type.key_type());
    w.Key("value");
    WriteType(w, *type.value_type());
    w.Key("value_contains_null").Bool(type.value_contains_null()).EndObject();
  } else {
    w.String(type.ToString());
  }
}

}  // namespace

std::string CanonicalForm(const Schema& schema) {
  JsonWriter w;
  WriteType(w, *schema.struct_type());
  return w.Take();
}

std::string Fingerprint(const Schema& schema) { return Sha256Hex(CanonicalForm(schema)); }

}  // namespace sluice::schema
