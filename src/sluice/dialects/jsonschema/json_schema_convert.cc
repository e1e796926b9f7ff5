#include "sluice/dialects/jsonschema/json_schema_convert.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"

namespace sluice::dialects::jsonschema {

namespace {

using schema::Converted;
using schema::Field;
using schema::FieldPath;
using schema::NoteSink;
using schema::SchemaPtr;
using schema::StringLength;
using schema::TimeUnit;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

constexpr uint8_t Bit(InstanceType t) { return static_cast<uint8_t>(1u << static_cast<int>(t)); }
constexpr uint8_t kAnyType = 0x7f;
constexpr uint8_t kNullBit = Bit(InstanceType::kNull);
// In-place nesting (`$ref` chains, allOf inside anyOf, ...) past this depth is refused before it
// can exhaust the stack; real schemas stay in single digits. A level's Gather frames are gone
// before its children convert, so the stack holds at most this many plus the type levels.
constexpr int kMaxGatherDepth = 512;
constexpr int kMaxStringLength = 1 << 30;

// A JSON value for a one-line note, shortened.
std::string Brief(const JsonValue& v) { return EscapeForMessage(ToJson(v), 80); }

std::string Quoted(std::string_view s) {
  std::string out;
  AppendJsonString(out, s);
  return EscapeForMessage(out, 80);
}

std::string KeywordPointer(const SchemaNode& node, std::string_view keyword) {
  std::string out = node.pointer();
  out += '/';
  for (char c : keyword) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

uint8_t TypeBits(const TypeKeyword& t) {
  uint8_t bits = 0;
  for (InstanceType it : t.types) {
    bits |= Bit(it);
    // Every integer is a number: "number" admits integers.
    if (it == InstanceType::kNumber) bits |= Bit(InstanceType::kInteger);
  }
  return bits;
}

uint8_t ValueBits(const JsonValue& v) {
  switch (v.kind()) {
    case JsonValue::Kind::kNull:
      return Bit(InstanceType::kNull);
    case JsonValue::Kind::kBool:
      return Bit(InstanceType::kBoolean);
    case JsonValue::Kind::kNumber:
      return v.is_integer_text() ? Bit(InstanceType::kInteger) : Bit(InstanceType::kNumber);
    case JsonValue::Kind::kString:
      return Bit(InstanceType::kString);
    case JsonValue::Kind::kArray:
      return Bit(InstanceType::kArray);
    case JsonValue::Kind::kObject:
      return Bit(InstanceType::kObject);
  }
  return 0;
}

std::string BitsToString(uint8_t bits) {
  std::vector<std::string> names;
  for (InstanceType t :
       {InstanceType::kNull, InstanceType::kBoolean, InstanceType::kObject, InstanceType::kArray,
        InstanceType::kNumber, InstanceType::kInteger, InstanceType::kString}) {
    if (bits & Bit(t)) names.emplace_back(InstanceTypeName(t));
  }
  return JoinStrings(names, " | ");
}

// What one or more schema nodes, merged (a node, its `$ref` target, its allOf branches, the
// chosen anyOf alternative), say about one value. Each fact remembers the node that gave it, so
// notes can name the keyword's pointer.
struct Facts {
  std::string where;                      // pointer of the first node, for notes about the whole
  uint8_t types = kAnyType;               // the instance types every node admits
  bool typed = false;                     // some node constrained the type (type, enum, const)
  bool never = false;                     // a `false` schema or contradictory types
  bool null_alternative = false;          // an anyOf/oneOf alternative admits only null
  std::optional<std::string> union_note;  // several alternatives, no one model type

  std::vector<std::pair<std::string, std::vector<const SchemaNode*>>> properties;
  bool has_properties = false;
  std::vector<std::pair<std::string, const SchemaNode*>> required;  // name, node
  // Indexes of the two lists above by name, so that merging and lookups stay linear in wide
  // objects. The views point into the document's keywords, which outlive the Facts.
  std::unordered_map<std::string_view, size_t> property_index;
  std::unordered_set<std::string_view> required_names;
  std::vector<const SchemaNode*> additional_properties;  // schemas other than true / {}
  const SchemaNode* closed = nullptr;                    // additionalProperties: false
  std::vector<NamedSchema> pattern_properties;
  const SchemaNode* pattern_properties_node = nullptr;

  std::vector<const SchemaNode*> items;
  const std::vector<const SchemaNode*>* tuple = nullptr;
  const SchemaNode* tuple_node = nullptr;
  std::string tuple_keyword;
  const SchemaNode* tuple_rest = nullptr;

  const SchemaNode* enum_node = nullptr;  // enum or const
  const SchemaNode* format_node = nullptr;
  const SchemaNode* encoding_node = nullptr;
  const SchemaNode* min_length_node = nullptr;
  const SchemaNode* max_length_node = nullptr;
  const SchemaNode* minimum_node = nullptr;
  const SchemaNode* maximum_node = nullptr;
  const SchemaNode* description_node = nullptr;
  const SchemaNode* title_node = nullptr;
  const SchemaNode* default_node = nullptr;
  // Kafka Connect's JsonConverter writes the exact type beside `type`: "connect.type": "int32".
  const SchemaNode* connect_type_node = nullptr;
};

// The converted type of one value position, with what the caller may still use.
struct Slot {
  TypePtr type;
  bool null_ok = false;
  bool never = false;
  std::string where;
  const SchemaNode* description_node = nullptr;
  const SchemaNode* title_node = nullptr;
  const SchemaNode* default_node = nullptr;
};

enum class Branch : uint8_t { kNever, kNullOnly, kConstraintOnly, kTyped };

class ToModel {
 public:
  ToModel(const JsonSchemaDocument& doc, const ToSchemaOptions& options)
      : doc_(doc), options_(options) {}

  Result<Converted<SchemaPtr>> Run() {
    SLUICE_ASSIGN_OR_RETURN(Slot root, Convert({&doc_.root()}, FieldPath(), 0));
    if (root.never) {
      return InvalidArgument(
          fmt::format("{}: the root schema accepts no value at all", root.where));
    }
    schema::SchemaInfo info;
    if (root.title_node) info.name = *root.title_node->keywords().title;
    if (root.description_node) info.doc = root.description_node->keywords().description;
    if (root.default_node) {
      NoteNotKept(FieldPath(), *root.default_node, "default",
                  *root.default_node->keywords().default_value);
    }
    if (root.type->is_struct()) {
      SLUICE_ASSIGN_OR_RETURN(SchemaPtr s, schema::Schema::FromStruct(root.type, info));
      return Converted<SchemaPtr>{std::move(s), notes_.Take()};
    }
    notes_.Add(FieldPath(),
               fmt::format("the root schema is {}, not an object with properties; wrapped as "
                           "the single field `value` ({})",
                           root.type->ToString(), root.where));
    SLUICE_ASSIGN_OR_RETURN(SchemaPtr s,
                            schema::Schema::Make({Field("value", root.type, root.null_ok)}, info));
    return Converted<SchemaPtr>{std::move(s), notes_.Take()};
  }

 private:
  void NoteNotKept(const FieldPath& path, const SchemaNode& node, std::string_view keyword,
                   const JsonValue& value) {
    notes_.Add(path, fmt::format("{} {} not kept ({})", keyword, Brief(value),
                                 KeywordPointer(node, keyword)));
  }
  void NoteNotKept(const FieldPath& path, const SchemaNode& node, std::string_view keyword) {
    const JsonValue* v = node.raw().Find(keyword);
    if (v) {
      NoteNotKept(path, node, keyword, *v);
    } else {
      notes_.Add(path, fmt::format("{} not kept ({})", keyword, KeywordPointer(node, keyword)));
    }
  }

  bool IsAncestor(const SchemaNode* node, size_t mark) const {
    return std::find(active_.begin(), active_.begin() + static_cast<std::ptrdiff_t>(mark), node) !=
           active_.begin() + static_cast<std::ptrdiff_t>(mark);
  }
  bool InThisGather(const SchemaNode* node, size_t mark) const {
    return std::find(active_.begin() + static_cast<std::ptrdiff_t>(mark), active_.end(), node) !=
           active_.end();
  }

  Result<const SchemaNode*> FollowRef(const SchemaNode& node, size_t mark) {
    SLUICE_ASSIGN_OR_RETURN(const SchemaNode* target, doc_.ResolveRef(node));
    if (IsAncestor(target, mark)) {
      return Unimplemented(fmt::format(
          "{}/$ref: \"{}\" refers back to {}, which contains it: a recursive schema has no "
          "equivalent in the sluice model, whose types are trees",
          node.pointer(), EscapeForMessage(*node.keywords().ref), target->pointer()));
    }
    return target;
  }

  // Classify an anyOf/oneOf alternative without converting it (no notes).
  Branch Classify(const SchemaNode* node, size_t mark) {
    for (int hops = 0; hops < kMaxGatherDepth; ++hops) {
      if (node->is_boolean()) return node->boolean_value() ? Branch::kTyped : Branch::kNever;
      const SchemaKeywords& k = node->keywords();
      bool null_only =
          (k.type && TypeBits(*k.type) == kNullBit) ||
          (k.const_value && k.const_value->is_null()) ||
          (k.enum_values && k.enum_values->size() == 1 && (*k.enum_values)[0].is_null());
      if (null_only) return Branch::kNullOnly;
      if (k.ref && !k.type && !k.enum_values && !k.const_value && !k.properties && !k.items &&
          !k.all_of && !k.any_of && !k.one_of && node->ref_target() &&
          !IsAncestor(node->ref_target(), mark)) {
        node = node->ref_target();
        continue;
      }
      bool typed = k.type || k.enum_values || k.const_value || k.properties ||
                   k.additional_properties || k.pattern_properties || k.items || k.items_tuple ||
                   k.prefix_items || k.format || k.content_encoding || k.ref || k.all_of ||
                   k.any_of || k.one_of || k.dynamic_ref || k.recursive_ref;
      return typed ? Branch::kTyped : Branch::kConstraintOnly;
    }
    return Branch::kTyped;
  }

  // Add what `node` says to `f`. Nodes gathered are pushed on active_ (above `mark`) so that a
  // `$ref` back to one of them, from inside, is recognised as recursion.
  Status Gather(const SchemaNode* node, Facts& f, const FieldPath& path, size_t mark) {
    if (++visited_ > options_.max_visited_nodes) {
      return InvalidArgument(fmt::format(
          "{}: the schema expands to more than {} schema nodes once its $refs are inlined",
          node->pointer(), options_.max_visited_nodes));
    }
    if (gather_depth_ >= kMaxGatherDepth) {
      return InvalidArgument(fmt::format("{}: more than {} nested $ref/allOf/anyOf/oneOf levels",
                                         node->pointer(), kMaxGatherDepth));
    }
    ++gather_depth_;
    Status status = GatherKeywords(node, f, path, mark);
    --gather_depth_;
    return status;
  }

  Status GatherKeywords(const SchemaNode* node, Facts& f, const FieldPath& path, size_t mark) {
    if (InThisGather(node, mark)) return Ok();  // the same schema merged twice adds nothing
    active_.push_back(node);
    if (f.where.empty()) f.where = node->pointer();
    if (node->is_boolean()) {
      if (!node->boolean_value()) f.never = true;
      return Ok();
    }
    const SchemaKeywords& k = node->keywords();
    if (k.dynamic_ref || k.recursive_ref) {
      std::string_view kw = k.dynamic_ref ? "$dynamicRef" : "$recursiveRef";
      return Unimplemented(
          fmt::format("{}: {} is not followed; only $ref is", KeywordPointer(*node, kw), kw));
    }
    const bool ref_replaces_siblings = k.ref && doc_.draft() <= Draft::kDraft7;

    // Annotations: the first node to give one wins, which makes the referring schema's
    // description beat its $ref target's.
    if (k.description && !f.description_node) f.description_node = node;
    if (k.title && !f.title_node) f.title_node = node;
    if (k.default_value && !f.default_node) f.default_node = node;

    if (ref_replaces_siblings) {
      for (const JsonMember& m : node->raw().members()) {
        static const std::vector<std::string_view> kKept = {"$ref",     "$id",         "$schema",
                                                            "$comment", "definitions", "$defs",
                                                            "title",    "description", "default"};
        if (std::find(kKept.begin(), kKept.end(), m.key) != kKept.end()) continue;
        notes_.Add(path, fmt::format("{} beside $ref ignored, as {} ignores keywords beside $ref "
                                     "({})",
                                     m.key, DraftName(doc_.draft()), KeywordPointer(*node, m.key)));
      }
      SLUICE_ASSIGN_OR_RETURN(const SchemaNode* target, FollowRef(*node, mark));
      return Gather(target, f, path, mark);
    }

    if (k.type) {
      f.types &= TypeBits(*k.type);
      f.typed = true;
    }
    if (k.enum_values || k.const_value) {
      uint8_t bits = 0;
      if (k.const_value) {
        bits = ValueBits(*k.const_value);
      } else {
        for (const JsonValue& v : *k.enum_values) bits |= ValueBits(v);
      }
      f.types &= bits;
      f.typed = true;
      if (!f.enum_node) {
        f.enum_node = node;
      } else {
        NoteNotKept(path, *node, k.const_value ? "const" : "enum");
      }
    }
    // Objects.
    if (k.properties) {
      f.has_properties = true;
      for (const NamedSchema& p : *k.properties) {
        auto [it, added] = f.property_index.try_emplace(p.name, f.properties.size());
        if (added) {
          f.properties.push_back({p.name, {p.schema}});
        } else {
          f.properties[it->second].second.push_back(p.schema);
        }
      }
    }
    if (k.required) {
      for (const std::string& r : *k.required) {
        if (f.required_names.insert(r).second) f.required.push_back({r, node});
      }
    }
    if (const SchemaNode* ap = k.additional_properties) {
      if (ap->is_boolean() && !ap->boolean_value()) {
        if (!f.closed) f.closed = node;
      } else if (!ap->accepts_everything()) {
        f.additional_properties.push_back(ap);
      }
    }
    if (k.pattern_properties) {
      if (!f.pattern_properties_node) f.pattern_properties_node = node;
      f.pattern_properties.insert(f.pattern_properties.end(), k.pattern_properties->begin(),
                                  k.pattern_properties->end());
    }
    // Arrays. 2020-12: prefixItems is the tuple and items the rest; before: an items array is
    // the tuple and additionalItems the rest.
    const std::vector<const SchemaNode*>* tuple = nullptr;
    const SchemaNode* rest = nullptr;
    std::string_view tuple_keyword;
    if (k.prefix_items) {
      tuple = &*k.prefix_items;
      tuple_keyword = "prefixItems";
      rest = k.items;
      if (k.additional_items) NoteNotKept(path, *node, "additionalItems");
    } else if (k.items_tuple) {
      tuple = &*k.items_tuple;
      tuple_keyword = "items";
      rest = k.additional_items;
    } else {
      if (k.items) f.items.push_back(k.items);
      // Without a tuple, additionalItems has no effect.
      if (k.additional_items) NoteNotKept(path, *node, "additionalItems");
    }
    if (tuple) {
      if (!f.tuple) {
        f.tuple = tuple;
        f.tuple_node = node;
        f.tuple_keyword = std::string(tuple_keyword);
        f.tuple_rest = rest;
      } else {
        NoteNotKept(path, *node, tuple_keyword);
      }
    }
    // Strings and numbers.
    if (k.format && !f.format_node) f.format_node = node;
    if (k.content_encoding && !f.encoding_node) f.encoding_node = node;
    if (k.min_length && !f.min_length_node) f.min_length_node = node;
    if (k.max_length && !f.max_length_node) f.max_length_node = node;
    if (k.minimum && !f.minimum_node) f.minimum_node = node;
    if (k.maximum && !f.maximum_node) f.maximum_node = node;

    // Keywords the model has no place for at all.
    static const std::vector<std::string_view> kNeverKept = {"pattern",
                                                             "multipleOf",
                                                             "exclusiveMinimum",
                                                             "exclusiveMaximum",
                                                             "minItems",
                                                             "maxItems",
                                                             "uniqueItems",
                                                             "contains",
                                                             "minContains",
                                                             "maxContains",
                                                             "minProperties",
                                                             "maxProperties",
                                                             "propertyNames",
                                                             "unevaluatedProperties",
                                                             "unevaluatedItems",
                                                             "dependencies",
                                                             "dependentRequired",
                                                             "dependentSchemas",
                                                             "not",
                                                             "if",
                                                             "then",
                                                             "else",
                                                             "examples",
                                                             "$comment",
                                                             "readOnly",
                                                             "writeOnly",
                                                             "deprecated",
                                                             "contentMediaType",
                                                             "contentSchema"};
    for (const JsonMember& m : node->raw().members()) {
      if (std::find(kNeverKept.begin(), kNeverKept.end(), m.key) != kNeverKept.end()) {
        NoteNotKept(path, *node, m.key, m.value);
      }
    }
    for (const JsonMember* m : k.unknown) {
      if (m->key == "connect.type" && m->value.is_string() && !f.connect_type_node) {
        f.connect_type_node = node;  // used, or noted, when the type is built
        continue;
      }
      notes_.Add(path, fmt::format("unknown keyword {} not kept ({})", Quoted(m->key),
                                   KeywordPointer(*node, m->key)));
    }

    if (k.ref) {
      SLUICE_ASSIGN_OR_RETURN(const SchemaNode* target, FollowRef(*node, mark));
      SLUICE_TRY(Gather(target, f, path, mark));
    }
    if (k.all_of) {
      if (k.all_of->size() > 1) {
        notes_.Add(path, fmt::format("allOf of {} schemas merged into one type ({})",
                                     k.all_of->size(), KeywordPointer(*node, "allOf")));
      }
      for (const SchemaNode* s : *k.all_of) SLUICE_TRY(Gather(s, f, path, mark));
    }
    for (std::string_view kw : {std::string_view("anyOf"), std::string_view("oneOf")}) {
      const auto& list = kw == "anyOf" ? k.any_of : k.one_of;
      if (!list) continue;
      SLUICE_TRY(GatherAlternatives(*node, kw, *list, f, path, mark));
    }
    return Ok();
  }

  Status GatherAlternatives(const SchemaNode& node, std::string_view keyword,
                            const std::vector<const SchemaNode*>& list, Facts& f,
                            const FieldPath& path, size_t mark) {
    std::vector<const SchemaNode*> typed;
    bool has_null = false;
    size_t ignored = 0;
    for (const SchemaNode* s : list) {
      switch (Classify(s, mark)) {
        case Branch::kNever:
          ++ignored;
          break;
        case Branch::kNullOnly:
          has_null = true;
          break;
        case Branch::kConstraintOnly:
          ++ignored;
          break;
        case Branch::kTyped:
          typed.push_back(s);
          break;
      }
    }
    std::string at = KeywordPointer(node, keyword);
    if (ignored > 0) {
      notes_.Add(path, fmt::format("{} of {} {} alternatives without a type (constraints only, "
                                   "or false) not kept ({})",
                                   ignored, list.size(), keyword, at));
    }
    if (typed.empty()) {
      if (has_null) {
        f.types &= kNullBit;
        f.typed = true;
      }
      return Ok();
    }
    if (has_null) f.null_alternative = true;
    if (typed.size() == 1) {
      if (keyword == "oneOf" && list.size() - ignored > 1 && !has_null) {
        notes_.Add(path, fmt::format("oneOf read as its one typed alternative ({})", at));
      }
      return Gather(typed[0], f, path, mark);
    }
    if (!f.union_note) {
      f.union_note = fmt::format(
          "{} with {} alternatives has no single model type; read as "
          "string holding the value as JSON text ({})",
          keyword, typed.size(), at);
    }
    return Ok();
  }

  Result<Slot> Convert(const std::vector<const SchemaNode*>& nodes, const FieldPath& path,
                       int depth) {
    if (depth > schema::kMaxNestingDepth) {
      return InvalidArgument(fmt::format("{}: types nest deeper than {} levels",
                                         nodes.front()->pointer(), schema::kMaxNestingDepth));
    }
    size_t mark = active_.size();
    Facts f;
    for (const SchemaNode* n : nodes) SLUICE_TRY(Gather(n, f, path, mark));
    Result<Slot> slot = Build(f, path, depth);
    active_.resize(mark);
    return slot;
  }

  // A property, element or map value: annotations only a field can hold become notes.
  Result<Slot> ConvertNested(const std::vector<const SchemaNode*>& nodes, const FieldPath& path,
                             int depth) {
    SLUICE_ASSIGN_OR_RETURN(Slot s, Convert(nodes, path, depth));
    NoteAnnotations(s, path);
    return s;
  }
  void NoteAnnotations(const Slot& s, const FieldPath& path) {
    if (s.description_node) NoteNotKept(path, *s.description_node, "description");
    if (s.title_node) NoteNotKept(path, *s.title_node, "title");
    if (s.default_node) NoteNotKept(path, *s.default_node, "default");
  }

  TypePtr JsonText(const FieldPath& path, std::string why) {
    notes_.Add(path, std::move(why));
    return Type::String();
  }

  Result<Slot> Build(Facts& f, const FieldPath& path, int depth) {
    Slot s;
    s.where = f.where;
    s.description_node = f.description_node;
    s.title_node = f.title_node;
    s.default_node = f.default_node;
    if (f.typed && f.types == 0) {
      notes_.Add(path, fmt::format("the merged schemas admit no type at all ({})", f.where));
      f.never = true;
    }
    if (f.never) {
      s.never = true;
      s.type = Type::Null();
      return s;
    }
    s.null_ok = (f.types & kNullBit) != 0 || f.null_alternative;
    if (f.enum_node) {
      const SchemaKeywords& k = f.enum_node->keywords();
      NoteNotKept(path, *f.enum_node, k.const_value ? "const" : "enum");
    }

    uint8_t bits = static_cast<uint8_t>(f.types & ~kNullBit);
    if (!f.typed) {
      // No type keyword: the keywords present say what the value is.
      if (f.has_properties || !f.required.empty() || !f.additional_properties.empty() || f.closed ||
          !f.pattern_properties.empty()) {
        bits = Bit(InstanceType::kObject);
      } else if (!f.items.empty() || f.tuple) {
        bits = Bit(InstanceType::kArray);
      } else if (f.format_node || f.encoding_node || f.min_length_node || f.max_length_node) {
        bits = Bit(InstanceType::kString);
      } else if (f.minimum_node || f.maximum_node) {
        bits = Bit(InstanceType::kNumber) | Bit(InstanceType::kInteger);
      } else if (!f.union_note) {
        s.null_ok = true;
        s.type = JsonText(path, fmt::format("the schema accepts any JSON value; read as string "
                                            "holding the value as JSON text ({})",
                                            f.where));
        NoteUnusedScalars(f, path, nullptr);
        return s;
      }
    }
    if (f.union_note) {
      s.type = JsonText(path, *f.union_note);
      NoteUnusedScalars(f, path, nullptr);
      NoteUnusedShapes(f, path);
      return s;
    }
    if (bits & Bit(InstanceType::kNumber))
      bits &= static_cast<uint8_t>(~Bit(InstanceType::kInteger));
    if (bits == 0) {
      // Only null.
      s.type = Type::Null();
      s.null_ok = true;
      NoteUnusedScalars(f, path, nullptr);
      NoteUnusedShapes(f, path);
      return s;
    }
    if ((bits & (bits - 1)) != 0) {
      s.type = JsonText(path, fmt::format("type {} has no single model type; read as string "
                                          "holding the value as JSON text ({})",
                                          BitsToString(bits), f.where));
      NoteUnusedScalars(f, path, nullptr);
      NoteUnusedShapes(f, path);
      return s;
    }
    if (TypePtr exact = ConnectType(f, bits)) {
      s.type = exact;
      NoteUnusedScalars(f, path, nullptr);
      NoteUnusedShapes(f, path);
      return s;
    }
    if (f.connect_type_node) NoteNotKept(path, *f.connect_type_node, "connect.type");
    if (bits == Bit(InstanceType::kBoolean)) {
      s.type = Type::Boolean();
      NoteUnusedScalars(f, path, nullptr);
      NoteUnusedShapes(f, path);
    } else if (bits == Bit(InstanceType::kInteger)) {
      s.type = IntegerType(f, path);
      NoteUnusedShapes(f, path);
    } else if (bits == Bit(InstanceType::kNumber)) {
      s.type = Type::Float64();
      NoteUnusedScalars(f, path, nullptr);
      NoteUnusedShapes(f, path);
    } else if (bits == Bit(InstanceType::kString)) {
      s.type = StringType(f, path);
      NoteUnusedShapes(f, path);
    } else if (bits == Bit(InstanceType::kObject)) {
      SLUICE_ASSIGN_OR_RETURN(s.type, ObjectType(f, path, depth));
      NoteUnusedScalars(f, path, nullptr);
    } else {
      SLUICE_ASSIGN_OR_RETURN(s.type, ArrayType(f, path, depth));
      NoteUnusedScalars(f, path, nullptr);
    }
    return s;
  }

  // The exact type a Kafka Connect "connect.type" names, when it agrees with `type`.
  static TypePtr ConnectType(const Facts& f, uint8_t bits) {
    if (!f.connect_type_node) return nullptr;
    const std::string& name =
        f.connect_type_node->keywords().FindUnknown("connect.type")->as_string();
    if (bits == Bit(InstanceType::kInteger)) {
      if (name == "int8") return Type::Int8();
      if (name == "int16") return Type::Int16();
      if (name == "int32") return Type::Int32();
      if (name == "int64") return Type::Int64();
    } else if (bits == Bit(InstanceType::kNumber)) {
      if (name == "float32") return Type::Float32();
      if (name == "float64") return Type::Float64();
    } else if (bits == Bit(InstanceType::kString)) {
      if (name == "bytes") return Type::Binary();
    }
    return nullptr;
  }

  // Notes for string/number keywords the chosen type did not use. `used` lists the nodes'
  // keywords consumed, by pointer to the Facts member.
  void NoteUnusedScalars(const Facts& f, const FieldPath& path,
                         const std::vector<const SchemaNode* const*>* used) {
    auto is_used = [&](const SchemaNode* const* member) {
      return used && std::find(used->begin(), used->end(), member) != used->end();
    };
    struct Entry {
      const SchemaNode* const* member;
      std::string_view keyword;
    };
    for (const Entry& e :
         {Entry{&f.format_node, "format"}, Entry{&f.encoding_node, "contentEncoding"},
          Entry{&f.min_length_node, "minLength"}, Entry{&f.max_length_node, "maxLength"},
          Entry{&f.minimum_node, "minimum"}, Entry{&f.maximum_node, "maximum"}}) {
      if (*e.member && !is_used(e.member)) NoteNotKept(path, **e.member, e.keyword);
    }
  }

  // Notes for object and array keywords on a value that is neither.
  void NoteUnusedShapes(const Facts& f, const FieldPath& path) {
    if (f.has_properties || !f.required.empty() || !f.additional_properties.empty() ||
        f.pattern_properties_node || f.closed) {
      notes_.Add(path, fmt::format("object keywords on a value that is not an object not kept "
                                   "({})",
                                   f.where));
    }
    if (!f.items.empty() || f.tuple) {
      notes_.Add(path, fmt::format("array keywords on a value that is not an array not kept "
                                   "({})",
                                   f.where));
    }
  }

  TypePtr IntegerType(const Facts& f, const FieldPath& path) {
    std::vector<const SchemaNode* const*> used;
    TypePtr type = Type::Int64();
    if (f.minimum_node && f.maximum_node) {
      auto lo = f.minimum_node->keywords().minimum->AsInt64();
      auto hi = f.maximum_node->keywords().maximum->AsInt64();
      struct Width {
        int64_t lo, hi;
        TypePtr type;
      };
      for (const Width& w :
           {Width{INT8_MIN, INT8_MAX, Type::Int8()}, Width{INT16_MIN, INT16_MAX, Type::Int16()},
            Width{INT32_MIN, INT32_MAX, Type::Int32()}}) {
        if (lo && hi && *lo == w.lo && *hi == w.hi) {
          // Exactly a width's range is how WriteSchema writes int8/16/32.
          type = w.type;
          used = {&f.minimum_node, &f.maximum_node};
        }
      }
    }
    NoteUnusedScalars(f, path, &used);
    return type;
  }

  TypePtr StringType(const Facts& f, const FieldPath& path) {
    std::vector<const SchemaNode* const*> used;
    TypePtr type;
    if (f.format_node) {
      const std::string& format = *f.format_node->keywords().format;
      if (format == "date") {
        type = Type::Date();
      } else if (format == "date-time") {
        type = Type::Timestamp();
      } else if (format == "time") {
        type = Type::Time();
      } else if (format == "uuid") {
        type = Type::Uuid();
      }
      if (type) used.push_back(&f.format_node);
    }
    if (!type && f.encoding_node && *f.encoding_node->keywords().content_encoding == "base64") {
      type = Type::Binary();
      used.push_back(&f.encoding_node);
    }
    if (!type && f.max_length_node) {
      uint64_t max = *f.max_length_node->keywords().max_length;
      std::optional<uint64_t> min;
      if (f.min_length_node) min = *f.min_length_node->keywords().min_length;
      if (max >= 1 && max <= static_cast<uint64_t>(kMaxStringLength)) {
        int n = static_cast<int>(max);
        if (min && *min == max) {
          type = *Type::Char(n);
          used = {&f.max_length_node, &f.min_length_node};
        } else {
          type = *Type::Varchar(n);
          used = {&f.max_length_node};
        }
      }
    }
    if (!type) type = Type::String();
    NoteUnusedScalars(f, path, &used);
    return type;
  }

  Result<TypePtr> ObjectType(Facts& f, const FieldPath& path, int depth) {
    if (f.has_properties) {
      std::vector<Field> fields;
      fields.reserve(f.properties.size());
      // No structured bindings here: clang 14 cannot capture them in the lambdas below.
      for (const auto& property : f.properties) {
        const std::string& name = property.first;
        const std::vector<const SchemaNode*>& nodes = property.second;
        if (name.empty()) {
          notes_.Add(path, fmt::format("a property with an empty name cannot be a field; "
                                       "dropped ({})",
                                       nodes.front()->pointer()));
          continue;
        }
        FieldPath child = path.Child(name);
        SLUICE_ASSIGN_OR_RETURN(Slot s, Convert(nodes, child, depth + 1));
        if (s.never) {
          notes_.Add(child, fmt::format("the property can never be present (false schema); "
                                        "dropped ({})",
                                        s.where));
          continue;
        }
        bool required = f.required_names.contains(name);
        Field field(name, s.type, !required || s.null_ok);
        if (s.description_node) field.set_doc(*s.description_node->keywords().description);
        if (s.default_node) field.set_default_value(*s.default_node->keywords().default_value);
        if (s.title_node) {
          JsonValue meta = JsonValue::Object();
          meta.Set("title", JsonValue::String(*s.title_node->keywords().title));
          field.set_metadata(std::move(meta));
        }
        fields.push_back(std::move(field));
      }
      for (const auto& r : f.required) {
        const std::string& name = r.first;
        const SchemaNode* node = r.second;
        bool declared = f.property_index.contains(name);
        if (!declared) {
          notes_.Add(path, fmt::format("required property {} is not declared in properties; "
                                       "ignored ({})",
                                       Quoted(name), KeywordPointer(*node, "required")));
        }
      }
      for (const SchemaNode* ap : f.additional_properties) {
        notes_.Add(path, fmt::format("additionalProperties schema not kept: a struct holds only "
                                     "the declared properties ({})",
                                     ap->pointer()));
      }
      if (f.pattern_properties_node) {
        NoteNotKept(path, *f.pattern_properties_node, "patternProperties");
      }
      if (f.closed) {
        notes_.Add(path, fmt::format("additionalProperties false (a closed object) not kept "
                                     "({})",
                                     KeywordPointer(*f.closed, "additionalProperties")));
      }
      return Type::Struct(std::move(fields));
    }
    // No declared properties: a map if the values have a schema.
    for (const auto& [name, node] : f.required) {
      notes_.Add(path, fmt::format("required property {} is not declared in properties; "
                                   "ignored ({})",
                                   Quoted(name), KeywordPointer(*node, "required")));
    }
    std::vector<const SchemaNode*> values = f.additional_properties;
    if (values.empty() && f.pattern_properties.size() == 1) {
      values.push_back(f.pattern_properties[0].schema);
      notes_.Add(path,
                 fmt::format("patternProperties read as a map whose keys match {}; the "
                             "pattern is not kept ({})",
                             Quoted(f.pattern_properties[0].name),
                             KeywordPointer(*f.pattern_properties_node, "patternProperties")));
    } else if (f.pattern_properties_node) {
      NoteNotKept(path, *f.pattern_properties_node, "patternProperties");
    }
    if (values.empty()) {
      if (f.closed) {
        notes_.Add(path, fmt::format("an object with no properties allowed read as an empty "
                                     "struct ({})",
                                     f.where));
        return Type::Struct({});
      }
      notes_.Add(path, fmt::format("an object without declared properties read as "
                                   "map<string, string> holding each value as JSON text ({})",
                                   f.where));
      return Type::Map(Type::String(), Type::String(), true);
    }
    if (values.size() > 1) {
      notes_.Add(path, fmt::format("{} schemas for the object's values merged ({})", values.size(),
                                   f.where));
    }
    SLUICE_ASSIGN_OR_RETURN(Slot v, ConvertNested(values, path.Value(), depth + 1));
    if (v.never) {
      notes_.Add(path.Value(), "map values can never be present (false schema); read as null");
    }
    return Type::Map(Type::String(), v.type, v.null_ok || v.never);
  }

  Result<TypePtr> ArrayType(Facts& f, const FieldPath& path, int depth) {
    FieldPath element = path.Element();
    if (f.tuple) {
      std::vector<const SchemaNode*> positions = *f.tuple;
      if (f.tuple_rest && !f.tuple_rest->is_boolean()) positions.push_back(f.tuple_rest);
      TypePtr common;
      bool null_ok = false;
      bool same = !positions.empty();
      for (const SchemaNode* p : positions) {
        SLUICE_ASSIGN_OR_RETURN(Slot s, ConvertNested({p}, element, depth + 1));
        if (s.never) continue;
        null_ok = null_ok || s.null_ok;
        if (!common) {
          common = s.type;
        } else if (!common->Equals(*s.type)) {
          same = false;
        }
      }
      std::string at = KeywordPointer(*f.tuple_node, f.tuple_keyword);
      if (same && common) {
        notes_.Add(path, fmt::format("a tuple ({} of {} positions) read as array<{}>; the "
                                     "positions and length are not kept ({})",
                                     f.tuple_keyword, f.tuple->size(), common->ToString(), at));
        return Type::Array(common, null_ok);
      }
      notes_.Add(path, fmt::format("a tuple ({} of {} positions) with different types read as "
                                   "array<string> holding each item as JSON text ({})",
                                   f.tuple_keyword, f.tuple->size(), at));
      return Type::Array(Type::String(), true);
    }
    if (f.items.empty()) {
      notes_.Add(path, fmt::format("an array without items read as array<string> holding each "
                                   "item as JSON text ({})",
                                   f.where));
      return Type::Array(Type::String(), true);
    }
    SLUICE_ASSIGN_OR_RETURN(Slot s, ConvertNested(f.items, element, depth + 1));
    if (s.never) {
      notes_.Add(element, "items can never be present (false schema); read as null");
    }
    return Type::Array(s.type, s.null_ok || s.never);
  }

  const JsonSchemaDocument& doc_;
  ToSchemaOptions options_;
  NoteSink notes_;
  std::vector<const SchemaNode*> active_;
  size_t visited_ = 0;
  int gather_depth_ = 0;  // Gather frames on the stack
};

// ---------------------------------------------------------------------------------------------
// Model -> JSON Schema.

class FromModel {
 public:
  explicit FromModel(const WriteOptions& options) : options_(options) {}

  Result<Converted<JsonValue>> Run(const schema::Schema& s) {
    JsonValue out = JsonValue::Object();
    out.Set("$schema", JsonValue::String(std::string(DraftUri(options_.draft))));
    if (!s.info().name.empty()) out.Set("title", JsonValue::String(s.info().name));
    if (s.info().doc) out.Set("description", JsonValue::String(*s.info().doc));
    if (!s.info().namespace_name.empty()) {
      notes_.Add(FieldPath(), fmt::format("namespace {} not written: JSON Schema has no slot for "
                                          "it",
                                          Quoted(s.info().namespace_name)));
    }
    JsonValue body = WriteStruct(*s.struct_type(), FieldPath());
    for (JsonMember& m : body.mutable_members()) out.Set(m.key, std::move(m.value));
    return Converted<JsonValue>{std::move(out), notes_.Take()};
  }

 private:
  static JsonValue TypeName(std::string_view name, bool nullable) {
    if (!nullable || name == "null") return JsonValue::String(std::string(name));
    return JsonValue::Array({JsonValue::String(std::string(name)), JsonValue::String("null")});
  }

  JsonValue WriteStruct(const Type& type, const FieldPath& path) {
    JsonValue out = JsonValue::Object();
    out.Set("type", JsonValue::String("object"));
    JsonValue properties = JsonValue::Object();
    JsonValue required = JsonValue::Array();
    for (const Field& f : type.fields()) {
      FieldPath child = path.Child(f.name());
      JsonValue prop = WriteType(*f.type(), f.nullable(), child);
      if (f.doc()) prop.Set("description", JsonValue::String(*f.doc()));
      if (f.default_value()) prop.Set("default", *f.default_value());
      for (const JsonMember& m : f.metadata().members()) {
        if (m.key == "title" && m.value.is_string()) {
          prop.Set("title", m.value);
        } else {
          notes_.Add(child, fmt::format("field metadata {} not written", Quoted(m.key)));
        }
      }
      properties.mutable_members().push_back(JsonMember{f.name(), std::move(prop)});
      if (!f.nullable()) required.Append(JsonValue::String(f.name()));
    }
    out.Set("properties", std::move(properties));
    if (required.size() > 0) out.Set("required", std::move(required));
    if (options_.close_objects) out.Set("additionalProperties", JsonValue::Bool(false));
    return out;
  }

  JsonValue StringWith(bool nullable, std::string_view keyword, std::string value) {
    JsonValue out = JsonValue::Object();
    out.Set("type", TypeName("string", nullable));
    out.Set(std::string(keyword), JsonValue::String(std::move(value)));
    return out;
  }

  void NoteUnit(const Type& type, const FieldPath& path, std::string_view format) {
    if (type.unit() != TimeUnit::kMicros) {
      notes_.Add(path, fmt::format("{} written as format {}, which does not carry the "
                                   "fractional-second precision; reads back with microseconds",
                                   type.ToString(), format));
    }
  }

  JsonValue WriteType(const Type& type, bool nullable, const FieldPath& path) {
    JsonValue out = JsonValue::Object();
    switch (type.kind()) {
      case TypeKind::kNull:
        out.Set("type", JsonValue::String("null"));
        return out;
      case TypeKind::kBoolean:
        out.Set("type", TypeName("boolean", nullable));
        return out;
      case TypeKind::kInt8:
      case TypeKind::kInt16:
      case TypeKind::kInt32: {
        // The width's range as bounds, so that reading back restores the width.
        int64_t lo = type.kind() == TypeKind::kInt8    ? INT8_MIN
                     : type.kind() == TypeKind::kInt16 ? INT16_MIN
                                                       : INT32_MIN;
        int64_t hi = type.kind() == TypeKind::kInt8    ? INT8_MAX
                     : type.kind() == TypeKind::kInt16 ? INT16_MAX
                                                       : INT32_MAX;
        out.Set("type", TypeName("integer", nullable));
        out.Set("minimum", JsonValue::Int(lo));
        out.Set("maximum", JsonValue::Int(hi));
        return out;
      }
      case TypeKind::kInt64:
        out.Set("type", TypeName("integer", nullable));
        return out;
      case TypeKind::kFloat32:
        notes_.Add(path,
                   "float32 written as number (JSON Schema has one number type); reads "
                   "back as float64");
        out.Set("type", TypeName("number", nullable));
        return out;
      case TypeKind::kFloat64:
        out.Set("type", TypeName("number", nullable));
        return out;
      case TypeKind::kDecimal:
        notes_.Add(path, fmt::format("{} written as number: precision and scale are not kept; "
                                     "reads back as float64",
                                     type.ToString()));
        out.Set("type", TypeName("number", nullable));
        return out;
      case TypeKind::kString:
        out.Set("type", TypeName("string", nullable));
        if (type.string_length() == StringLength::kChar) {
          out.Set("minLength", JsonValue::Int(type.length()));
          out.Set("maxLength", JsonValue::Int(type.length()));
        } else if (type.string_length() == StringLength::kVarchar) {
          out.Set("maxLength", JsonValue::Int(type.length()));
        }
        return out;
      case TypeKind::kBinary:
        return StringWith(nullable, "contentEncoding", "base64");
      case TypeKind::kDate:
        return StringWith(nullable, "format", "date");
      case TypeKind::kTimestamp:
        NoteUnit(type, path, "date-time");
        return StringWith(nullable, "format", "date-time");
      case TypeKind::kTimestampNtz:
        notes_.Add(path, fmt::format("{} written as format date-time, which carries a UTC "
                                     "offset; reads back as timestamp",
                                     type.ToString()));
        return StringWith(nullable, "format", "date-time");
      case TypeKind::kTime:
        NoteUnit(type, path, "time");
        return StringWith(nullable, "format", "time");
      case TypeKind::kUuid:
        return StringWith(nullable, "format", "uuid");
      case TypeKind::kStruct: {
        JsonValue s = WriteStruct(type, path);
        s.Set("type", TypeName("object", nullable));
        return s;
      }
      case TypeKind::kArray:
        out.Set("type", TypeName("array", nullable));
        out.Set("items", WriteType(*type.element_type(), type.contains_null(), path.Element()));
        return out;
      case TypeKind::kMap:
        if (type.key_type()->kind() != TypeKind::kString ||
            type.key_type()->string_length() != StringLength::kUnbounded) {
          notes_.Add(path.Key(), fmt::format("map keys of type {} written as JSON object keys, "
                                             "which are strings",
                                             type.key_type()->ToString()));
        }
        out.Set("type", TypeName("object", nullable));
        out.Set("additionalProperties",
                WriteType(*type.value_type(), type.value_contains_null(), path.Value()));
        return out;
    }
    return out;
  }

  WriteOptions options_;
  NoteSink notes_;
};

}  // namespace

Result<Converted<SchemaPtr>> ToSchema(const JsonSchemaDocument& document,
                                      const ToSchemaOptions& options) {
  return ToModel(document, options).Run();
}

Result<Converted<JsonValue>> FromSchema(const schema::Schema& schema, const WriteOptions& options) {
  if (options.draft == Draft::kDraft4 || options.draft == Draft::kDraft6) {
    return InvalidArgument(
        fmt::format("writing JSON Schema {} is not supported; use draft-07, "
                    "2019-09 or 2020-12",
                    DraftName(options.draft)));
  }
  return FromModel(options).Run(schema);
}

Result<Converted<SchemaPtr>> ReadSchema(std::string_view text) {
  SLUICE_ASSIGN_OR_RETURN(JsonSchemaDocument doc, Parse(text));
  SLUICE_ASSIGN_OR_RETURN(Converted<SchemaPtr> out, ToSchema(doc));
  std::vector<schema::LossyNote> notes;
  notes.reserve(doc.warnings().size() + out.notes.size());
  for (const std::string& w : doc.warnings()) notes.push_back(schema::LossyNote{FieldPath(), w});
  for (schema::LossyNote& n : out.notes) notes.push_back(std::move(n));
  out.notes = std::move(notes);
  return out;
}

Result<Converted<std::string>> WriteSchema(const schema::Schema& schema, Draft draft, int indent) {
  WriteOptions options;
  options.draft = draft;
  SLUICE_ASSIGN_OR_RETURN(Converted<JsonValue> json, FromSchema(schema, options));
  JsonFormat format;
  format.indent = std::max(indent, 0);
  return Converted<std::string>{ToJson(json.value, format), std::move(json.notes)};
}

}  // namespace sluice::dialects::jsonschema
