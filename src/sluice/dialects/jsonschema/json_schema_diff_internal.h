// The comparison behind Compare: the schema model it runs on (everit-json-schema's classes, built
// per draft the way Confluent loads a schema), the views of each model's keywords, and the
// Differ, whose members json_schema_diff.cc (the pair walk) and json_schema_diff_keywords.cc (the
// per-class comparisons) define. Not for other modules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/dialects/jsonschema/json_schema.h"
#include "sluice/dialects/jsonschema/json_schema_diff.h"
#include "sluice/dialects/jsonschema/json_schema_regex_internal.h"

namespace sluice::dialects::jsonschema::internal {

// ---------------------------------------------------------------------------------------------
// The schema model the comparison runs on: everit-json-schema's classes, as Confluent sees them.
// A Model reads its keywords from the SchemaNode it came from; one node can give several models
// (the branches of a `type` array, the parts of an implicit allOf).

enum class Kind : uint8_t {
  kEmpty,  // {} (everit EmptySchema), also a schema with no keyword the model knows
  kTrue,   // true (everit TrueSchema, a subclass of EmptySchema)
  kFalse,  // false
  kString,
  kNumber,  // number and integer (requires_integer)
  kBoolean,
  kNull,
  kObject,
  kArray,
  kEnum,
  kConst,
  kNot,
  kCombined,     // allOf / anyOf / oneOf, written or implicit
  kReference,    // $ref, followed before comparing
  kConditional,  // if/then/else: compared by annotations only, as Confluent does
};

enum class Criterion : uint8_t { kAllOf, kAnyOf, kOneOf };

class Loader;

struct Model {
  Kind kind = Kind::kEmpty;
  const Loader* loader = nullptr;
  const SchemaNode* node = nullptr;
  uint32_t id = 0;
  // Carries the node's $id/title/description/default: the outermost model of a node only.
  bool annotated = false;
  // A branch of a 2019-09/2020-12 `type` array: the type alone, no keyword of the node.
  bool bare = false;
  bool requires_integer = false;  // kNumber
  Criterion criterion = Criterion::kAllOf;
  std::vector<const SchemaNode*> sub_nodes;  // kCombined from allOf/anyOf/oneOf
  std::vector<const Model*> sub_models;      // kCombined made by the loader
};

inline bool IsModern(Draft d) { return d == Draft::k2019_09 || d == Draft::k2020_12; }

// Builds and owns-by-arena the models of one document, one node at a time and only when the
// comparison reaches it, so building never recurses.
class Loader {
 public:
  Loader(const JsonSchemaDocument& doc, std::deque<Model>& arena)
      : doc_(doc), arena_(arena), by_node_(doc.node_count(), nullptr) {}

  const JsonSchemaDocument& doc() const { return doc_; }
  Draft draft() const { return doc_.draft(); }
  bool modern() const { return IsModern(doc_.draft()); }

  const Model* ModelFor(const SchemaNode* node) {
    const Model*& slot = by_node_[node->index()];
    if (slot == nullptr) slot = modern() ? BuildModern(node) : BuildEverit(node);
    return slot;
  }

 private:
  Model* New(Kind kind, const SchemaNode* node);
  Model* Typed(InstanceType type, const SchemaNode* node);
  const Model* Finish(std::vector<Model*>& parts, const SchemaNode* node);
  const Model* BuildEverit(const SchemaNode* node);
  const Model* BuildModern(const SchemaNode* node);

  const JsonSchemaDocument& doc_;
  std::deque<Model>& arena_;
  std::vector<const Model*> by_node_;
};

// ---------------------------------------------------------------------------------------------
// Views: what each everit class holds, read from the node as its draft defines it.

struct Annotations {
  const std::string* id = nullptr;
  const std::string* title = nullptr;
  const std::string* description = nullptr;
  const JsonValue* default_value = nullptr;
};

/// The annotations `m` carries: its node's if `m` is the node's outermost model, else none.
Annotations AnnotationsOf(const Model& m);

struct ObjectView {
  const SchemaMap* properties = nullptr;
  const std::vector<std::string>* required = nullptr;
  bool permits_additional = true;
  const SchemaNode* additional = nullptr;
  const SchemaMap* patterns = nullptr;
  bool permits_unevaluated = true;
  const SchemaNode* unevaluated = nullptr;
  std::optional<uint64_t> min_properties;
  std::optional<uint64_t> max_properties;
  std::vector<std::pair<std::string_view, const std::vector<std::string>*>> property_deps;
  std::vector<std::pair<std::string_view, const SchemaNode*>> schema_deps;
};

/// The object keywords of `m`'s node, as the everit ObjectSchema of its draft holds them.
ObjectView ViewObject(const Model& m);

struct ArrayView {
  const SchemaNode* all_items = nullptr;
  const std::vector<const SchemaNode*>* tuple = nullptr;
  bool permits_additional = true;
  const SchemaNode* additional = nullptr;
  bool permits_unevaluated = true;
  const SchemaNode* unevaluated = nullptr;
  const SchemaNode* contains = nullptr;
  std::optional<uint64_t> min_items;
  std::optional<uint64_t> max_items;
  std::optional<uint64_t> min_contains;
  std::optional<uint64_t> max_contains;
  bool unique = false;
};

/// The array keywords of `m`'s node, as the everit ArraySchema of its draft holds them.
ArrayView ViewArray(const Model& m);

// ---------------------------------------------------------------------------------------------
// The comparison: Confluent's SchemaDiff and the per-class *SchemaDiff, with each pair of
// schemas compared once.

struct PairResult {
  std::vector<Difference> diffs;  // json_path relative to the pair: "", "properties/a"
  bool compatible = true;
};
using PairPtr = std::shared_ptr<const PairResult>;

// Appends `step` to a relative path for as long as it lives.
class PathScope {
 public:
  PathScope(std::string& path, std::string_view step) : path_(path), size_(path.size()) {
    if (!path_.empty()) path_ += '/';
    path_ += step;
  }
  ~PathScope() { path_.resize(size_); }
  PathScope(const PathScope&) = delete;
  PathScope& operator=(const PathScope&) = delete;

 private:
  std::string& path_;
  size_t size_;
};

inline constexpr size_t kNoDependency = std::numeric_limits<size_t>::max();

class Differ {
 public:
  Differ(const JsonSchemaDocument& original, const JsonSchemaDocument& update,
         const CompareOptions& options);

  /// The differences of the two documents, with paths from "#/".
  Result<std::vector<Difference>> Run();

 private:
  // One pair being compared: its differences so far, the path inside it, and the shallowest
  // in-progress pair its result assumed compatible.
  struct Frame {
    std::vector<Difference> diffs;
    std::string path;
    size_t dependency = kNoDependency;
  };

  enum class State : uint8_t { kInProgress, kProvisional, kFinal };
  struct Entry {
    PairPtr result;
    State state = State::kInProgress;
    size_t depth = 0;  // in progress: its stack depth; provisional: the depth it relies on
  };

  // --- Bookkeeping (json_schema_diff.cc) -----------------------------------------------------

  Status Step(size_t n = 1);

  static void Add(Frame& f, DifferenceType type) { f.diffs.push_back({type, f.path}); }
  static void AddAt(Frame& f, std::string_view step, DifferenceType type) {
    PathScope scope(f.path, step);
    Add(f, type);
  }
  Status Splice(Frame& f, const PairResult& r);
  const Model* Child(const Model& parent, const SchemaNode* node);
  Result<const Model*> Normalize(const Model* m);
  Result<const std::vector<const Model*>*> Subschemas(const Model& m, bool distinct);

  // --- The pair comparison (json_schema_diff.cc) ---------------------------------------------

  Result<PairPtr> Pair(const Model* o, const Model* u, Frame& caller);
  Status Include(Frame& f, const Model* o, const Model* u);
  Status Body(const Model& o, const Model& u, Frame& f);

  // --- Per class (json_schema_diff_keywords.cc) ----------------------------------------------

  template <class T>
  static void Bound(Frame& f, std::string_view keyword, const std::optional<T>& o,
                    const std::optional<T>& u, DifferenceType added, DifferenceType removed,
                    DifferenceType increased, DifferenceType decreased);
  static std::optional<double> Value(const Boxed<Number>& n);
  void CompareString(const Model& o, const Model& u, Frame& f);
  void CompareNumber(const Model& o, const Model& u, Frame& f);
  static bool IsMultiple(double a, double b);
  static uint64_t EqualsHash(const JsonValue& v);
  Status CompareEnum(const Model& o, const Model& u, Frame& f);
  Status CompareNot(const Model& o, const Model& u, Frame& f);
  Status CompareCombined(const Model& o, const Model& u, Frame& f);
  template <class Edges>
  Result<std::vector<size_t>> MaximumMatching(const Edges& edges, size_t right_count);
  static bool IsOpen(const ObjectView& v);
  Result<const SchemaNode*> PartialSchema(const ObjectView& v, std::string_view name);
  Result<bool> PatternFinds(const std::string& pattern, std::string_view name);
  Status CompareObject(const Model& o, const Model& u, Frame& f);
  Status CompareOpenness(Frame& f, const Model& o, const Model& u, std::string_view keyword,
                         bool o_permits, const SchemaNode* o_schema, bool u_permits,
                         const SchemaNode* u_schema, DifferenceType added, DifferenceType removed,
                         DifferenceType extended, DifferenceType narrowed);
  static bool IsOpen(const ArrayView& v);
  static const SchemaNode* PartialSchema(const ArrayView& v);
  Status CompareArray(const Model& o, const Model& u, Frame& f);
  void CompareMetadata(const Model& root_u, std::vector<Difference>& out) const;

  const CompareOptions& options_;
  std::deque<Model> arena_;  // before the loaders, which hold a reference to it
  Loader original_;
  Loader update_;
  PairPtr optimistic_;
  std::unordered_map<uint64_t, Entry> memo_;
  std::vector<std::vector<uint64_t>> provisional_on_;  // per stack depth: entries relying on it
  std::unordered_map<uint32_t, std::vector<const Model*>> raw_subs_;
  std::unordered_map<uint32_t, std::vector<const Model*>> distinct_subs_;
  std::unordered_map<std::string, std::shared_ptr<regex::Program>> patterns_;
  size_t steps_ = 0;
};

}  // namespace sluice::dialects::jsonschema::internal
