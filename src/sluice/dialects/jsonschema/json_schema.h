// The parsed form of a JSON Schema document: a tree of schema nodes that keeps every keyword as
// written (known keywords typed, unknown ones as raw JSON in order) with `$ref`s resolved within
// the document. It is what the conversion to the sluice model and the Confluent-style
// compatibility diff read. Drafts 4, 6, 7, 2019-09 and 2020-12 are understood.
//
// Ownership: a JsonSchemaDocument owns its JSON text's parsed value and every node; nodes and the
// pointers they hold stay valid, also across moves of the document, until it is destroyed. The
// document is immutable after Parse and safe to read from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"

namespace sluice::dialects::jsonschema {

/// The JSON Schema specification versions that change how keywords are read.
enum class Draft : uint8_t { kDraft4, kDraft6, kDraft7, k2019_09, k2020_12 };

/// "draft-04", "draft-06", "draft-07", "2019-09", "2020-12".
std::string_view DraftName(Draft draft);
/// The canonical `$schema` URI of `draft`, e.g. "https://json-schema.org/draft/2020-12/schema".
std::string_view DraftUri(Draft draft);
/// The draft a `$schema` URI names (http or https, with or without the trailing "#"), or nullopt.
std::optional<Draft> DraftFromUri(std::string_view uri);

/// The seven JSON value kinds the `type` keyword names.
enum class InstanceType : uint8_t { kNull, kBoolean, kObject, kArray, kNumber, kInteger, kString };

/// "null", "boolean", "object", "array", "number", "integer", "string".
std::string_view InstanceTypeName(InstanceType type);
std::optional<InstanceType> InstanceTypeFromName(std::string_view name);

/// A JSON number as written ("1e3", "10.50") and as a double.
struct Number {
  std::string text;
  double value = 0;

  /// The value as an int64 when written as an integer literal that fits.
  std::optional<int64_t> AsInt64() const;
  bool operator==(const Number& other) const { return value == other.value; }
};

class SchemaNode;

/// The `type` keyword: one name (`"type": "string"`) or an array of names.
struct TypeKeyword {
  std::vector<InstanceType> types;
  /// True for the array form, even with one element (`"type": ["string"]`).
  bool array_form = false;

  bool Contains(InstanceType type) const;
};

/// A member of a keyword whose value maps names to schemas (properties, $defs, ...).
struct NamedSchema {
  std::string name;
  const SchemaNode* schema = nullptr;
};
using SchemaMap = std::vector<NamedSchema>;  // in document order

/// Return the schema named `name` in `map`, or nullptr.
const SchemaNode* FindSchema(const SchemaMap& map, std::string_view name);

/// One entry of draft 4-7 `dependencies`: either property names (the dependentRequired form) or
/// a schema (the dependentSchemas form).
struct Dependency {
  std::string property;
  std::optional<std::vector<std::string>> required;
  const SchemaNode* schema = nullptr;
};

/// One entry of 2019-09 `dependentRequired`.
struct DependentRequired {
  std::string property;
  std::vector<std::string> required;
};

/// An optional keyword value kept on the heap: an absent keyword (most are, in most schemas)
/// costs one pointer, so a wide schema's nodes stay small. The part of std::optional's
/// interface the keywords use.
template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT: converts like std::optional
  Boxed(T value) : value_(std::make_unique<T>(std::move(value))) {}  // NOLINT
  Boxed(const Boxed& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  ~Boxed() = default;

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return value_ != nullptr; }
  const T& operator*() const { return *value_; }
  T& operator*() { return *value_; }
  const T* operator->() const { return value_.get(); }
  T* operator->() { return value_.get(); }
  /// The value, or `fallback` when absent.
  template <class U>
  T value_or(U&& fallback) const {
    return value_ ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }
  template <class... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *value_;
  }
  void reset() { value_.reset(); }
  /// A copy as a std::optional.
  operator std::optional<T>() const {  // NOLINT: converts like the std::optional it stands for
    return value_ ? std::optional<T>(*value_) : std::nullopt;
  }

 private:
  std::unique_ptr<T> value_;
};

/// The keywords of an object schema. Absent keywords are nullopt / nullptr / empty optional, so
/// `"required": []` and no `required` differ. Every `const SchemaNode*` is owned by the document;
/// subschema positions that allow `true`/`false` hold a boolean node.
struct SchemaKeywords {
  // Core and identifiers.
  Boxed<std::string> schema_uri;         // $schema (as written; honoured only at the root)
  Boxed<std::string> id;                 // $id; in draft 4 also "id" (its spelling there)
  Boxed<std::string> ref;                // $ref, as written
  Boxed<std::string> anchor;             // $anchor
  Boxed<std::string> dynamic_ref;        // $dynamicRef (kept, not resolved)
  Boxed<std::string> dynamic_anchor;     // $dynamicAnchor (also usable as a plain anchor)
  Boxed<std::string> recursive_ref;      // $recursiveRef (kept, not resolved)
  std::optional<bool> recursive_anchor;  // $recursiveAnchor
  Boxed<std::string> comment;            // $comment
  Boxed<SchemaMap> defs;                 // $defs
  Boxed<SchemaMap> definitions;          // definitions

  // Annotations.
  Boxed<std::string> title;
  Boxed<std::string> description;
  Boxed<JsonValue> default_value;  // default
  Boxed<JsonValue> examples;       // always an array
  std::optional<bool> read_only;
  std::optional<bool> write_only;
  std::optional<bool> deprecated;

  // Any instance.
  Boxed<TypeKeyword> type;
  Boxed<std::vector<JsonValue>> enum_values;  // enum
  Boxed<JsonValue> const_value;               // const
  Boxed<std::vector<const SchemaNode*>> all_of;
  Boxed<std::vector<const SchemaNode*>> any_of;
  Boxed<std::vector<const SchemaNode*>> one_of;
  const SchemaNode* not_schema = nullptr;  // not
  const SchemaNode* if_schema = nullptr;
  const SchemaNode* then_schema = nullptr;
  const SchemaNode* else_schema = nullptr;

  // Objects.
  Boxed<SchemaMap> properties;
  Boxed<std::vector<std::string>> required;
  const SchemaNode* additional_properties = nullptr;
  Boxed<SchemaMap> pattern_properties;
  const SchemaNode* property_names = nullptr;
  const SchemaNode* unevaluated_properties = nullptr;
  std::optional<uint64_t> min_properties;
  std::optional<uint64_t> max_properties;
  Boxed<std::vector<Dependency>> dependencies;               // draft 4-7
  Boxed<std::vector<DependentRequired>> dependent_required;  // 2019-09+
  Boxed<SchemaMap> dependent_schemas;                        // 2019-09+

  // Arrays. `items` is either one schema (`items`) or the pre-2020-12 tuple form
  // (`items_tuple`), never both.
  const SchemaNode* items = nullptr;
  Boxed<std::vector<const SchemaNode*>> items_tuple;
  Boxed<std::vector<const SchemaNode*>> prefix_items;
  const SchemaNode* additional_items = nullptr;
  const SchemaNode* unevaluated_items = nullptr;
  const SchemaNode* contains = nullptr;
  std::optional<uint64_t> min_contains;
  std::optional<uint64_t> max_contains;
  std::optional<uint64_t> min_items;
  std::optional<uint64_t> max_items;
  std::optional<bool> unique_items;

  // Strings.
  std::optional<uint64_t> min_length;
  std::optional<uint64_t> max_length;
  Boxed<std::string> pattern;  // kept as written; not compiled
  Boxed<std::string> format;
  Boxed<std::string> content_encoding;
  Boxed<std::string> content_media_type;
  const SchemaNode* content_schema = nullptr;

  // Numbers. Draft 4 writes exclusive bounds as booleans beside minimum/maximum; drafts 6+
  // write them as numbers. Both forms are kept as written, in separate members.
  Boxed<Number> minimum;
  Boxed<Number> maximum;
  Boxed<Number> exclusive_minimum;
  Boxed<Number> exclusive_maximum;
  std::optional<bool> exclusive_minimum_flag;  // draft-4 boolean form
  std::optional<bool> exclusive_maximum_flag;
  Boxed<Number> multiple_of;

  /// Keywords this parser does not know (vendor extensions like `connect.type`), in document
  /// order, pointing into the document's JSON.
  std::vector<const JsonMember*> unknown;

  /// The value of the unknown keyword `name`, or nullptr.
  const JsonValue* FindUnknown(std::string_view name) const;
};

/// A subschema position: the JSON pointer step(s) from the parent and the child node.
struct Subschema {
  std::string location;  // e.g. "properties/a", "items", "allOf/0" (pointer-escaped)
  const SchemaNode* node = nullptr;
};

/// One schema: `true`, `false`, or an object of keywords.
class SchemaNode {
 public:
  bool is_boolean() const { return boolean_.has_value(); }
  bool is_object() const { return !boolean_.has_value(); }
  /// For a boolean schema: its value. False for object schemas.
  bool boolean_value() const { return boolean_.value_or(false); }
  /// `{}`: an object schema with no keywords at all.
  bool is_empty_object() const { return is_object() && raw_->size() == 0; }
  /// `true` or `{}`: the schemas that accept every instance.
  bool accepts_everything() const { return boolean_value() || is_empty_object(); }

  /// The keywords; all absent for boolean schemas.
  const SchemaKeywords& keywords() const { return keywords_; }

  /// Where the node sits in the document, as a JSON pointer fragment: "#", "#/properties/a/items".
  const std::string& pointer() const { return pointer_; }
  /// The node's JSON, as written (member order kept).
  const JsonValue& raw() const { return *raw_; }
  /// Byte offset of the node in the parsed text.
  size_t offset() const { return raw_->offset(); }
  /// A stable id, unique within the document: the key for memoising node pairs across
  /// reference cycles.
  size_t index() const { return index_; }
  /// The base URI `$ref`s in this node resolve against ("" when no `$id` applies).
  const std::string& base_uri() const { return base_uri_; }

  /// What `$ref` resolved to, when it points into this document; nullptr without a `$ref` or
  /// for an external one (see is_external_ref).
  const SchemaNode* ref_target() const { return ref_target_; }
  /// True when the node's `$ref` names another file or URL, which Parse does not follow.
  bool is_external_ref() const { return keywords_.ref.has_value() && ref_target_ == nullptr; }
  /// `$ref` resolved against base_uri(), e.g. "other.json#/x" or "urn:a#/$defs/b".
  const std::string& ref_uri() const { return ref_uri_; }

  /// The node's direct subschemas in document order (children of known keywords only).
  const std::vector<Subschema>& Subschemas() const { return children_; }

 private:
  friend class DocumentBuilder;

  std::optional<bool> boolean_;
  SchemaKeywords keywords_;
  std::string pointer_;
  std::string base_uri_;
  std::string ref_uri_;
  const JsonValue* raw_ = nullptr;
  const SchemaNode* ref_target_ = nullptr;
  size_t index_ = 0;
  std::vector<Subschema> children_;
};

struct ParseOptions {
  /// Accept `[1,2,]` and `{"a":1,}` (Confluent's published 2020-12 cases use them).
  bool allow_trailing_commas = false;
  /// The draft of a document without `$schema` (or with one this parser does not know).
  Draft default_draft = Draft::k2020_12;
};

/// A parsed JSON Schema document. Move-only; see the file comment for ownership.
class JsonSchemaDocument {
 public:
  JsonSchemaDocument(JsonSchemaDocument&&) noexcept;
  JsonSchemaDocument& operator=(JsonSchemaDocument&&) noexcept;
  ~JsonSchemaDocument();

  const SchemaNode& root() const { return *root_; }
  /// The draft the document was read as: from the root's `$schema`, else the default.
  Draft draft() const { return draft_; }
  /// False when `$schema` was absent or unknown and draft() is ParseOptions::default_draft.
  bool draft_declared() const { return draft_declared_; }
  /// Keywords read in a way their draft does not define (e.g. `items` as an array in 2020-12,
  /// read as the tuple form), and an unknown `$schema`. One line each, with the JSON pointer.
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// The whole document's JSON.
  const JsonValue& json() const { return *json_; }

  /// Every node, indexed by SchemaNode::index().
  size_t node_count() const { return nodes_.size(); }
  const SchemaNode& node(size_t index) const { return *nodes_[index]; }

  /// The node at a JSON pointer fragment as SchemaNode::pointer() spells it ("#/$defs/a"), or
  /// nullptr when no schema sits there.
  const SchemaNode* FindByPointer(std::string_view pointer) const;

  /// Follow `node`'s `$ref`. kInvalidArgument if the node has no `$ref`; kUnimplemented for an
  /// external reference (another file or URL), naming it and the node's pointer.
  Result<const SchemaNode*> ResolveRef(const SchemaNode& node) const;
  /// Resolve `ref` as if it were a `$ref` written in `from`: "#", "#/$defs/x", "#name",
  /// "other.json#/x" (kUnimplemented unless an embedded `$id` names it). kNotFound when the
  /// target is not a schema node of this document.
  Result<const SchemaNode*> ResolveRef(std::string_view ref, const SchemaNode& from) const;

 private:
  friend class DocumentBuilder;
  JsonSchemaDocument();

  std::unique_ptr<JsonValue> json_;
  std::vector<std::unique_ptr<SchemaNode>> nodes_;
  const SchemaNode* root_ = nullptr;
  Draft draft_ = Draft::k2020_12;
  bool draft_declared_ = false;
  std::vector<std::string> warnings_;
  // Every node by its pointer (a view of the node's own pointer() string; nodes never move).
  std::unordered_map<std::string_view, const SchemaNode*> by_pointer_;
  // Schema resources by absolute URI without fragment, and plain-name anchors by "uri#name".
  std::map<std::string, const SchemaNode*, std::less<>> resources_;
  std::map<std::string, const SchemaNode*, std::less<>> anchors_;
};

/// Parse a JSON Schema document and resolve its internal `$ref`s.
///
/// The draft comes from the root's `$schema`; without one the document is read as
/// options.default_draft, which is 2020-12 unless asked otherwise (Confluent reads such
/// schemas as draft 7: pass Draft::kDraft7 to match it). Keywords are accepted in every draft
/// and kept as written (an `items` array is `items_tuple`, `prefixItems` is `prefix_items`);
/// where the draft does not define the form used, a line in warnings() says so. `$ref`
/// siblings are kept in every draft; whether they apply (not in draft 4-7) is the reader's
/// call. `$dynamicRef`/`$recursiveRef` are kept but not resolved; `pattern` is not compiled.
///
/// Errors: kParseError for malformed JSON (line, column and offset); kInvalidArgument, naming
/// the JSON pointer and line/column, for a keyword of the wrong type (`"required": 5`), an
/// unknown `type` name, a `$ref` into this document that points at nothing or at a non-schema,
/// or a `$ref` loop that never reaches a schema (`a -> b -> a` through `$ref`/allOf/anyOf/...).
/// External `$ref`s are not errors: they stay unresolved (SchemaNode::is_external_ref).
Result<JsonSchemaDocument> Parse(std::string_view text, const ParseOptions& options = {});

}  // namespace sluice::dialects::jsonschema
