// Schema references: resolving a schema's references against the store, and writing a schema
// with references out standalone for the compatibility engine.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

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
  // The keys $defs had, so that each reference is appended (or replaces a key of that name)
  // without a scan of $defs: many references stay linear.
  std::unordered_map<std::string, size_t> had;
  for (size_t i = 0; i < defs.members().size(); ++i) had.try_emplace(defs.members()[i].key, i);
  for (size_t i = 0; i < refs.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(JsonValue referenced, ParseJson(refs[i].text));
    std::string key = "sluice-ref-" + std::to_string(i + 1);
    const bool own_base = referenced.is_object() && referenced.Find("$id") != nullptr;
    rewrite(rewrite, referenced, own_base ? nullptr : &key, 0);
    if (auto it = had.find(key); it != had.end()) {
      defs.mutable_members()[it->second].value = std::move(referenced);
    } else {
      defs.mutable_members().push_back(JsonMember{std::move(key), std::move(referenced)});
    }
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

// Collects references depth first, in time linear in the references however they share: a
// schema whose references were collected once is not walked again (everything it needs is in
// `texts` already; only the depth limit is checked again, from the height of its references),
// each subject's versions are read once, and whether a text is already in is a lookup.
class ReferenceCollector {
 public:
  ReferenceCollector(Catalog& catalog, SchemaType type, std::vector<RefText>& texts)
      : catalog_(catalog), type_(type), texts_(texts) {
    for (size_t i = 0; i < texts_.size(); ++i) Index(i);
  }

  // Returns how many levels of references lie below `refs` (0 when none of them has any).
  Result<int> Collect(std::vector<SchemaRef>& refs, int depth) {
    if (depth > kMaxDepth) return Fail(InvalidSchema("Invalid schema: references nest too deeply"));
    int height = 0;
    for (SchemaRef& ref : refs) {
      SLUICE_ASSIGN_OR_RETURN(VersionRow found, ReferencedVersion(ref));
      ref.version = found.version;
      SLUICE_ASSIGN_OR_RETURN(SchemaRow row, catalog_.SchemaOf(found));
      if (row.type != type_) {
        return Fail(InvalidSchema("Invalid schema: reference '" + ref.name + "' names a " +
                                  std::string(SchemaTypeName(row.type)) + " schema, not " +
                                  std::string(SchemaTypeName(type_))));
      }
      if (row.refs != "[]") {
        int below = 0;
        if (auto done = heights_.find(row.id); done != heights_.end()) {
          // Walking it again would add nothing, but could go past the depth limit.
          below = done->second;
          if (depth + 1 + below > kMaxDepth) {
            return Fail(InvalidSchema("Invalid schema: references nest too deeply"));
          }
        } else {
          std::optional<std::vector<SchemaRef>> inner = StoredRefs(row.refs);
          if (!inner) return Fail(StoreInconsistent("stored references do not parse"));
          SLUICE_ASSIGN_OR_RETURN(below, Collect(*inner, depth + 1));
          heights_.emplace(row.id, below);
        }
        height = std::max(height, below + 1);
      }
      // Avro types are known by their own names, so a schema reached twice is parsed once; a
      // JSON Schema is known by the reference's name.
      if (!Seen(ref.name, row.text)) {
        texts_.push_back({ref.name, std::move(row.text)});
        Index(texts_.size() - 1);
      }
    }
    return height;
  }

 private:
  static constexpr int kMaxDepth = 32;

  // The live version a reference names: its number, or the latest for -1.
  Result<VersionRow> ReferencedVersion(const SchemaRef& ref) {
    auto cached = versions_.find(ref.subject);
    if (cached == versions_.end()) {
      SLUICE_ASSIGN_OR_RETURN(std::vector<VersionRow> versions, catalog_.Versions(ref.subject));
      cached = versions_.emplace(ref.subject, std::move(versions)).first;
    }
    const VersionRow* found = nullptr;
    for (const VersionRow& v : cached->second) {
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

  const std::string& Key(const RefText& t) const {
    return type_ == SchemaType::kAvro ? t.text : t.name;
  }
  void Index(size_t i) { by_key_[std::hash<std::string>()(Key(texts_[i]))].push_back(i); }
  bool Seen(const std::string& name, const std::string& text) const {
    const std::string& key = type_ == SchemaType::kAvro ? text : name;
    auto it = by_key_.find(std::hash<std::string>()(key));
    if (it == by_key_.end()) return false;
    for (size_t i : it->second) {
      if (Key(texts_[i]) == key) return true;
    }
    return false;
  }

  Catalog& catalog_;
  SchemaType type_;
  std::vector<RefText>& texts_;
  std::map<std::string, std::vector<VersionRow>, std::less<>> versions_;
  std::unordered_map<int64_t, int> heights_;                // schema id -> levels below
  std::unordered_map<size_t, std::vector<size_t>> by_key_;  // hash of Key -> texts_ indexes
};

}  // namespace

Status CollectReferences(Catalog& catalog, std::vector<SchemaRef>& refs, int depth, SchemaType type,
                         std::vector<RefText>& texts) {
  ReferenceCollector collector(catalog, type, texts);
  SLUICE_TRY(collector.Collect(refs, depth));
  return {};
}

}  // namespace sluice::registry::internal
