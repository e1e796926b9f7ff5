// The models the JSON Schema comparison runs on, built per draft the way Confluent loads a schema,
// and the views that read each model's keywords from its node.
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/dialects/jsonschema/json_schema_diff_internal.h"

namespace sluice::dialects::jsonschema::internal {
namespace {

bool HasAny(const JsonValue& raw, std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) {
    if (raw.Find(k) != nullptr) return true;
  }
  return false;
}

}  // namespace

Model* Loader::New(Kind kind, const SchemaNode* node) {
  Model& m = arena_.emplace_back();
  m.kind = kind;
  m.loader = this;
  m.node = node;
  m.id = static_cast<uint32_t>(arena_.size() - 1);
  return &m;
}

Model* Loader::Typed(InstanceType type, const SchemaNode* node) {
  switch (type) {
    case InstanceType::kNull:
      return New(Kind::kNull, node);
    case InstanceType::kBoolean:
      return New(Kind::kBoolean, node);
    case InstanceType::kObject:
      return New(Kind::kObject, node);
    case InstanceType::kArray:
      return New(Kind::kArray, node);
    case InstanceType::kNumber:
      return New(Kind::kNumber, node);
    case InstanceType::kInteger: {
      Model* m = New(Kind::kNumber, node);
      m->requires_integer = true;
      return m;
    }
    case InstanceType::kString:
      return New(Kind::kString, node);
  }
  return New(Kind::kEmpty, node);
}

// No part: an empty schema; one: that part; more: an implicit allOf. The annotations go on
// the result, as both everit and Confluent's translator put them.
const Model* Loader::Finish(std::vector<Model*>& parts, const SchemaNode* node) {
  Model* out = nullptr;
  if (parts.empty()) {
    out = New(Kind::kEmpty, node);
  } else if (parts.size() == 1) {
    out = parts[0];
  } else {
    out = New(Kind::kCombined, node);
    out->criterion = Criterion::kAllOf;
    out->sub_models.assign(parts.begin(), parts.end());
  }
  out->annotated = true;
  return out;
}

// Drafts 4-7 as everit's SchemaLoader reads them: `$ref` alone (siblings ignored), else the
// extractors in everit's order (enum, combiners, not, const, type, then keywords sniffed from
// what `type` did not consume).
const Model* Loader::BuildEverit(const SchemaNode* node) {
  if (node->is_boolean()) return New(node->boolean_value() ? Kind::kTrue : Kind::kFalse, node);
  const SchemaKeywords& k = node->keywords();
  const JsonValue& raw = node->raw();
  if (k.ref) {
    Model* ref = New(Kind::kReference, node);
    ref->annotated = true;
    return ref;
  }
  const Draft draft = doc_.draft();
  std::vector<Model*> parts;
  if (k.enum_values) parts.push_back(New(Kind::kEnum, node));
  // everit collects the combiner keys into a HashSet: allOf, oneOf, anyOf is its order.
  const std::pair<Criterion, const Boxed<std::vector<const SchemaNode*>>*> combiners[] = {
      {Criterion::kAllOf, &k.all_of},
      {Criterion::kOneOf, &k.one_of},
      {Criterion::kAnyOf, &k.any_of}};
  for (const auto& [criterion, list] : combiners) {
    if (!*list) continue;
    Model* m = New(Kind::kCombined, node);
    m->criterion = criterion;
    m->sub_nodes = **list;
    parts.push_back(m);
  }
  if (k.not_schema) parts.push_back(New(Kind::kNot, node));
  if (draft != Draft::kDraft4 && k.const_value) parts.push_back(New(Kind::kConst, node));
  bool typed[4] = {false, false, false, false};  // array, object, number, string consumed
  auto consume = [&](InstanceType t) {
    if (t == InstanceType::kArray) typed[0] = true;
    if (t == InstanceType::kObject) typed[1] = true;
    if (t == InstanceType::kNumber || t == InstanceType::kInteger) typed[2] = true;
    if (t == InstanceType::kString) typed[3] = true;
  };
  if (k.type && !k.type->types.empty()) {
    if (k.type->array_form) {
      Model* any = New(Kind::kCombined, node);
      any->criterion = Criterion::kAnyOf;
      for (InstanceType t : k.type->types) {
        any->sub_models.push_back(Typed(t, node));
        consume(t);
      }
      parts.push_back(any);
    } else {
      parts.push_back(Typed(k.type->types[0], node));
      consume(k.type->types[0]);
    }
  }
  const bool draft6 = draft != Draft::kDraft4;
  if (!typed[0] &&
      (HasAny(raw, {"items", "additionalItems", "minItems", "maxItems", "uniqueItems"}) ||
       (draft6 && raw.Find("contains") != nullptr))) {
    parts.push_back(New(Kind::kArray, node));
  }
  if (!typed[1] && (HasAny(raw, {"properties", "required", "minProperties", "maxProperties",
                                 "dependencies", "patternProperties", "additionalProperties"}) ||
                    (draft6 && raw.Find("propertyNames") != nullptr))) {
    parts.push_back(New(Kind::kObject, node));
  }
  if (!typed[2] &&
      HasAny(raw, {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})) {
    parts.push_back(New(Kind::kNumber, node));
  }
  if (!typed[3] && HasAny(raw, {"minLength", "maxLength", "pattern", "format"})) {
    parts.push_back(New(Kind::kString, node));
  }
  if (draft == Draft::kDraft7 && HasAny(raw, {"if", "then", "else"})) {
    parts.push_back(New(Kind::kConditional, node));
  }
  return Finish(parts, node);
}

// 2019-09 and 2020-12 as Confluent's SchemaTranslator turns json-sKema's model into everit's:
// every keyword is a partial schema, partials of one kind merge, the rest form an implicit
// allOf in keyword order. A `type` array is an anyOf of bare types.
const Model* Loader::BuildModern(const SchemaNode* node) {
  if (node->is_boolean()) return New(node->boolean_value() ? Kind::kTrue : Kind::kFalse, node);
  const SchemaKeywords& k = node->keywords();
  std::vector<Model*> parts;
  Model* slots[4] = {nullptr, nullptr, nullptr, nullptr};  // string, number, object, array
  auto merged = [&](int slot, Kind kind) {
    if (slots[slot] == nullptr) {
      slots[slot] = New(kind, node);
      parts.push_back(slots[slot]);
    }
    return slots[slot];
  };
  bool conditional = false;
  for (const JsonMember& m : node->raw().members()) {
    std::string_view key = m.key;
    if (key == "$ref") {
      if (k.ref) parts.push_back(New(Kind::kReference, node));
    } else if (key == "enum") {
      parts.push_back(New(Kind::kEnum, node));
    } else if (key == "const") {
      parts.push_back(New(Kind::kConst, node));
    } else if (key == "not") {
      parts.push_back(New(Kind::kNot, node));
    } else if (key == "allOf" || key == "anyOf" || key == "oneOf") {
      Model* c = New(Kind::kCombined, node);
      c->criterion = key == "allOf"   ? Criterion::kAllOf
                     : key == "anyOf" ? Criterion::kAnyOf
                                      : Criterion::kOneOf;
      const auto& list = key == "allOf" ? k.all_of : key == "anyOf" ? k.any_of : k.one_of;
      if (list) c->sub_nodes = *list;
      parts.push_back(c);
    } else if (key == "type") {
      if (!k.type || k.type->types.empty()) continue;
      if (k.type->array_form) {
        Model* any = New(Kind::kCombined, node);
        any->criterion = Criterion::kAnyOf;
        for (InstanceType t : k.type->types) {
          Model* bare = Typed(t, node);
          bare->bare = true;
          any->sub_models.push_back(bare);
        }
        parts.push_back(any);
        continue;
      }
      switch (k.type->types[0]) {
        case InstanceType::kString:
          merged(0, Kind::kString);
          break;
        case InstanceType::kNumber:
          merged(1, Kind::kNumber);
          break;
        case InstanceType::kInteger:
          merged(1, Kind::kNumber)->requires_integer = true;
          break;
        case InstanceType::kObject:
          merged(2, Kind::kObject);
          break;
        case InstanceType::kArray:
          merged(3, Kind::kArray);
          break;
        case InstanceType::kBoolean:
          parts.push_back(New(Kind::kBoolean, node));
          break;
        case InstanceType::kNull:
          parts.push_back(New(Kind::kNull, node));
          break;
      }
    } else if (key == "minLength" || key == "maxLength" || key == "pattern") {
      merged(0, Kind::kString);
    } else if (key == "minimum" || key == "maximum" || key == "exclusiveMinimum" ||
               key == "exclusiveMaximum" || key == "multipleOf") {
      merged(1, Kind::kNumber);
    } else if ((key == "properties" || key == "patternProperties") && m.value.size() == 0) {
      // json-sKema keeps these as maps with one entry per name: empty, they add nothing.
    } else if (key == "properties" || key == "patternProperties" || key == "additionalProperties" ||
               key == "required" || key == "minProperties" || key == "maxProperties" ||
               key == "dependentRequired" || key == "dependentSchemas" || key == "propertyNames" ||
               key == "unevaluatedProperties") {
      merged(2, Kind::kObject);
    } else if (key == "items" || key == "prefixItems" || key == "minItems" || key == "maxItems" ||
               key == "uniqueItems" || key == "contains" || key == "unevaluatedItems" ||
               (key == "additionalItems" && doc_.draft() == Draft::k2019_09)) {
      merged(3, Kind::kArray);
    } else if ((key == "if" || key == "then" || key == "else") && !conditional) {
      conditional = true;
      parts.push_back(New(Kind::kConditional, node));
    }
  }
  return Finish(parts, node);
}

// ---------------------------------------------------------------------------------------------
// Views: what each everit class holds, read from the node as its draft defines it.

Annotations AnnotationsOf(const Model& m) {
  Annotations a;
  if (!m.annotated || m.node == nullptr || m.node->is_boolean()) return a;
  const SchemaKeywords& k = m.node->keywords();
  // Confluent's 2020-12 translation does not carry `$id` over: it is never compared there.
  if (!m.loader->modern() && k.id) a.id = &*k.id;
  if (k.title) a.title = &*k.title;
  if (k.description) a.description = &*k.description;
  if (k.default_value) a.default_value = &*k.default_value;
  return a;
}

namespace {

// `true` permits without a schema, `false` forbids, anything else is the schema.
void ReadOpenness(const SchemaNode* node, bool* permits, const SchemaNode** schema) {
  if (node == nullptr) return;
  if (node->is_boolean()) {
    *permits = node->boolean_value();
  } else {
    *schema = node;
  }
}

}  // namespace

ObjectView ViewObject(const Model& m) {
  ObjectView v;
  if (m.bare) return v;
  const SchemaKeywords& k = m.node->keywords();
  if (k.properties) v.properties = &*k.properties;
  if (k.required) v.required = &*k.required;
  ReadOpenness(k.additional_properties, &v.permits_additional, &v.additional);
  if (k.pattern_properties && !k.pattern_properties->empty()) v.patterns = &*k.pattern_properties;
  ReadOpenness(k.unevaluated_properties, &v.permits_unevaluated, &v.unevaluated);
  v.min_properties = k.min_properties;
  v.max_properties = k.max_properties;
  if (m.loader->modern()) {
    if (k.dependent_required) {
      for (const DependentRequired& d : *k.dependent_required) {
        if (!d.required.empty()) v.property_deps.emplace_back(d.property, &d.required);
      }
    }
    if (k.dependent_schemas) {
      for (const NamedSchema& s : *k.dependent_schemas)
        v.schema_deps.emplace_back(s.name, s.schema);
    }
  } else if (k.dependencies) {
    for (const Dependency& d : *k.dependencies) {
      // everit records a property dependency per listed name: an empty list records nothing.
      if (d.required) {
        if (!d.required->empty()) v.property_deps.emplace_back(d.property, &*d.required);
      } else if (d.schema != nullptr) {
        v.schema_deps.emplace_back(d.property, d.schema);
      }
    }
  }
  return v;
}

ArrayView ViewArray(const Model& m) {
  ArrayView v;
  if (m.bare) return v;
  const SchemaKeywords& k = m.node->keywords();
  const Draft draft = m.loader->draft();
  if (!IsModern(draft)) {
    // everit: `items` is the all-items schema (true and false included) or the tuple.
    v.all_items = k.items;
    if (k.items_tuple) v.tuple = &*k.items_tuple;
    ReadOpenness(k.additional_items, &v.permits_additional, &v.additional);
    if (draft != Draft::kDraft4) v.contains = k.contains;
  } else {
    // Confluent's translation: `items` after a tuple is the additional-items schema; alone it
    // is the all-items schema, except that true adds nothing and false forbids every item.
    const std::vector<const SchemaNode*>* tuple = nullptr;
    bool legacy_tuple = false;
    if (draft == Draft::k2020_12 && k.prefix_items) {
      tuple = &*k.prefix_items;
    } else if (k.items_tuple) {
      tuple = &*k.items_tuple;
      legacy_tuple = true;
    }
    v.tuple = tuple;
    if (legacy_tuple || draft == Draft::k2019_09) {
      ReadOpenness(k.additional_items, &v.permits_additional, &v.additional);
    }
    if (k.items != nullptr) {
      if (k.items->is_boolean()) {
        if (!k.items->boolean_value()) v.permits_additional = false;
      } else if (tuple == nullptr || tuple->empty() || draft == Draft::k2019_09) {
        v.all_items = k.items;
      } else {
        v.additional = k.items;
      }
    }
    v.contains = k.contains;
    if (k.contains != nullptr) {
      v.min_contains = k.min_contains.value_or(1);  // json-sKema's default
      v.max_contains = k.max_contains;
    }
  }
  ReadOpenness(k.unevaluated_items, &v.permits_unevaluated, &v.unevaluated);
  v.min_items = k.min_items;
  v.max_items = k.max_items;
  v.unique = k.unique_items.value_or(false);
  return v;
}

}  // namespace sluice::dialects::jsonschema::internal
