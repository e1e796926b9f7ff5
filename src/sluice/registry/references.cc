// Schema references: resolving a schema's references against the store, and writing a schema
// with references out standalone for the compatibility engine.
#include <algorithm>
#include <functional>
#include <map>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/registry/schemas_internal.h"

namespace sluice::registry::internal {

Result<std::string> BundleJsonSchema(std::string_view text, const std::vector<RefText>& refs) {
  SLUICE_ASSIGN_OR_RETURN(JsonValue root, ParseJson(text));
  if (!root.is_object()) {
    return InvalidArgument("a JSON Schema with references must be an object");
  }
  std::map<std::string, std::string, std::less<>> key_of;
  for (size_t i = 0; i < refs.size(); ++i) {
    key_of.emplace(refs[i].name, "sluice-ref-" + std::to_string(i + 1));
  }
  auto rewrite = [&](auto& self, JsonValue& v, const std::string* moved_to, int depth) -> void {
    if (depth > 256) return;
    if (v.is_array()) {
      for (JsonValue& item : v.mutable_items()) self(self, item, moved_to, depth + 1);
      return;
    }
    if (!v.is_object()) return;
    for (JsonMember& m : v.mutable_members()) {
      if (m.key == "$ref" && m.value.is_string()) {
        const std::string& r = m.value.as_string();
        const size_t hash = r.find('#');
        const std::string base = r.substr(0, hash);
        const std::string fragment = hash == std::string::npos ? "" : r.substr(hash + 1);
        if (base.empty() && moved_to != nullptr) {
          m.value = JsonValue::String("#/$defs/" + *moved_to + fragment);
        } else if (auto it = key_of.find(base); !base.empty() && it != key_of.end()) {
          m.value = JsonValue::String("#/$defs/" + it->second + fragment);
        }
      } else {
        self(self, m.value, moved_to, depth + 1);
      }
    }
  };
  rewrite(rewrite, root, nullptr, 0);
  JsonValue defs = root.Find("$defs") != nullptr ? *root.Find("$defs") : JsonValue::Object();
  if (!defs.is_object()) return InvalidArgument("$defs must be an object");
  for (size_t i = 0; i < refs.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(JsonValue referenced, ParseJson(refs[i].text));
    const std::string key = "sluice-ref-" + std::to_string(i + 1);
    const bool own_base = referenced.is_object() && referenced.Find("$id") != nullptr;
    rewrite(rewrite, referenced, own_base ? nullptr : &key, 0);
    defs.Set(key, std::move(referenced));
  }
  root.Set("$defs", std::move(defs));
  return ToJson(root);
}

Result<std::string> Standalone(SchemaType type, std::string_view text,
                               const std::vector<RefText>& refs) {
  switch (type) {
    case SchemaType::kJson:
      return BundleJsonSchema(text, refs);
    case SchemaType::kAvro:
      break;
  }
  std::vector<std::string_view> views;
  for (const RefText& r : refs) views.push_back(r.text);
  SLUICE_ASSIGN_OR_RETURN(auto avro, dialects::avro::Parse(text, views));
  return dialects::avro::WriteJson(avro);
}

namespace {

// The live version a reference names: its number, or the latest for -1.
Result<VersionRow> ReferencedVersion(Catalog& catalog, const SchemaRef& ref) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<VersionRow> versions, catalog.Versions(ref.subject));
  const VersionRow* found = nullptr;
  for (const VersionRow& v : versions) {
    if (v.deleted) continue;
    if (ref.version == -1 || v.version == ref.version) found = &v;
  }
  if (!found) {
    return Fail(InvalidSchema("Invalid schema: reference '" + ref.name + "' names version " +
                              std::to_string(ref.version) + " of subject '" + ref.subject +
                              "', which does not exist"));
  }
  return *found;
}

}  // namespace

Status CollectReferences(Catalog& catalog, std::vector<SchemaRef>& refs, int depth, SchemaType type,
                         std::vector<RefText>& texts) {
  if (depth > 32) return Fail(InvalidSchema("Invalid schema: references nest too deeply"));
  for (SchemaRef& ref : refs) {
    SLUICE_ASSIGN_OR_RETURN(VersionRow found, ReferencedVersion(catalog, ref));
    ref.version = found.version;
    SLUICE_ASSIGN_OR_RETURN(SchemaRow row, catalog.SchemaOf(found));
    if (row.type != type) {
      return Fail(InvalidSchema("Invalid schema: reference '" + ref.name + "' names a " +
                                std::string(SchemaTypeName(row.type)) + " schema, not " +
                                std::string(SchemaTypeName(type))));
    }
    if (row.refs != "[]") {
      std::optional<std::vector<SchemaRef>> inner = StoredRefs(row.refs);
      if (!inner) return Fail(StoreInconsistent("stored references do not parse"));
      SLUICE_TRY(CollectReferences(catalog, *inner, depth + 1, type, texts));
    }
    // Avro types are known by their own names, so a schema reached twice is parsed once; a
    // JSON Schema is known by the reference's name.
    const bool seen = std::any_of(texts.begin(), texts.end(), [&](const RefText& t) {
      return type == SchemaType::kAvro ? t.text == row.text : t.name == ref.name;
    });
    if (!seen) texts.push_back({ref.name, std::move(row.text)});
  }
  return {};
}

}  // namespace sluice::registry::internal
