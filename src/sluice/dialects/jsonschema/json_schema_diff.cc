// Compare and CompareSchemaTexts: Confluent's SchemaDiff over the schema model, with each pair of
// schemas compared once and the pairs met again while in progress assumed compatible.
#include "sluice/dialects/jsonschema/json_schema_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "sluice/dialects/jsonschema/json_schema_diff_internal.h"

namespace sluice::dialects::jsonschema {
namespace internal {
namespace {

// An order-insensitive hash of a JSON value, for collapsing duplicate subschemas.
uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

uint64_t HashString(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ULL;
  return h;
}

uint64_t HashJson(const JsonValue& v) {
  switch (v.kind()) {
    case JsonValue::Kind::kNull:
      return 0x9e3779b97f4a7c15ULL;
    case JsonValue::Kind::kBool:
      return v.as_bool() ? 3 : 5;
    case JsonValue::Kind::kNumber: {
      double d = v.as_double();
      if (d == 0) d = 0;  // -0 equals 0
      uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof bits);
      return Mix(bits ^ 7);
    }
    case JsonValue::Kind::kString:
      return Mix(HashString(v.as_string()) ^ 11);
    case JsonValue::Kind::kArray: {
      uint64_t h = 13;
      for (const JsonValue& item : v.items()) h = Mix(h * 31 + HashJson(item));
      return h;
    }
    case JsonValue::Kind::kObject: {
      uint64_t h = 17;
      for (const JsonMember& m : v.members()) h += Mix(HashString(m.key) * 31 + HashJson(m.value));
      return Mix(h);
    }
  }
  return 0;
}

bool ConnectBytes(const Model& m) {
  if (!m.annotated || m.node == nullptr || m.node->is_boolean()) return false;
  const JsonValue* v = m.node->keywords().FindUnknown("connect.type");
  return v != nullptr && v->is_string() && v->as_string() == "bytes";
}

bool SameOptional(const std::string* a, const std::string* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return *a == *b;
}

bool SameJson(const JsonValue* a, const JsonValue* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return a->Equals(*b);
}

}  // namespace

Differ::Differ(const JsonSchemaDocument& original, const JsonSchemaDocument& update,
               const CompareOptions& options)
    : options_(options),
      original_(original, arena_),
      update_(update, arena_),
      optimistic_(std::make_shared<PairResult>()) {}

Result<std::vector<Difference>> Differ::Run() {
  std::vector<Difference> out;
  const Model* root_o = original_.ModelFor(&original_.doc().root());
  const Model* root_u = update_.ModelFor(&update_.doc().root());
  CompareMetadata(*root_u, out);
  Frame root;
  SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(root_o, root_u, root));
  out.reserve(out.size() + r->diffs.size());
  for (const Difference& d : r->diffs) out.push_back({d.type, "#/" + d.json_path});
  return out;
}

// --- Bookkeeping -----------------------------------------------------------------------------

Status Differ::Step(size_t n) {
  steps_ += n;
  if (steps_ > options_.max_steps) {
    return InvalidArgument(
        fmt::format("comparing the schemas takes more than {} steps (CompareOptions::max_steps)",
                    options_.max_steps));
  }
  return Ok();
}

// Confluent's ctx.addDifferences(subctx.getDifferences()): the pair's differences, placed
// under the current path.
Status Differ::Splice(Frame& f, const PairResult& r) {
  if (f.diffs.size() + r.diffs.size() > options_.max_differences) {
    return InvalidArgument(
        fmt::format("the schemas differ in more than {} places (CompareOptions::max_differences)",
                    options_.max_differences));
  }
  SLUICE_TRY(Step(r.diffs.size()));
  for (const Difference& d : r.diffs) {
    if (f.path.empty()) {
      f.diffs.push_back(d);
    } else if (d.json_path.empty()) {
      f.diffs.push_back({d.type, f.path});
    } else {
      f.diffs.push_back({d.type, f.path + "/" + d.json_path});
    }
  }
  return Ok();
}

const Model* Differ::Child(const Model& parent, const SchemaNode* node) {
  if (node == nullptr) return nullptr;
  // The loaders are members; a model's loader is one of them.
  Loader* loader = parent.loader == &original_ ? &original_ : &update_;
  return loader->ModelFor(node);
}

// Follow `$ref`s (Confluent follows one; a chain of them compares the targets here).
Result<const Model*> Differ::Normalize(const Model* m) {
  for (size_t hops = 0; m->kind == Kind::kReference; ++hops) {
    const Loader* loader = m->loader;
    SLUICE_ASSIGN_OR_RETURN(const SchemaNode* target, loader->doc().ResolveRef(*m->node));
    if (hops > loader->doc().node_count()) {
      return InvalidArgument(fmt::format("{}: $ref chain does not end", m->node->pointer()));
    }
    m = Child(*m, target);
  }
  return m;
}

// The subschemas of a combined model, as listed and with duplicates collapsed (Confluent
// puts them in a LinkedHashSet before matching).
Result<const std::vector<const Model*>*> Differ::Subschemas(const Model& m, bool distinct) {
  auto& cache = distinct ? distinct_subs_ : raw_subs_;
  auto it = cache.find(m.id);
  if (it != cache.end()) return &it->second;
  std::vector<const Model*> out;
  if (!m.sub_nodes.empty()) {
    if (!distinct || m.sub_nodes.size() < 2) {
      for (const SchemaNode* n : m.sub_nodes) out.push_back(Child(m, n));
    } else {
      std::unordered_multimap<uint64_t, const SchemaNode*> seen;
      for (const SchemaNode* n : m.sub_nodes) {
        SLUICE_TRY(Step());
        uint64_t h = HashJson(n->raw());
        bool duplicate = false;
        auto [lo, hi] = seen.equal_range(h);
        for (auto s = lo; s != hi && !duplicate; ++s) duplicate = s->second->raw().Equals(n->raw());
        if (duplicate) continue;
        seen.emplace(h, n);
        out.push_back(Child(m, n));
      }
    }
  } else {
    for (const Model* s : m.sub_models) {
      bool duplicate = false;
      if (distinct) {
        for (const Model* t : out) {
          duplicate |= t->kind == s->kind && t->requires_integer == s->requires_integer &&
                       t->bare == s->bare;
        }
      }
      if (!duplicate) out.push_back(s);
    }
  }
  return &cache.emplace(m.id, std::move(out)).first->second;
}

// --- The pair comparison ---------------------------------------------------------------------

// Compare a pair once. A pair met again while it is being compared counts as compatible with
// no differences (Confluent skips a schema already on its stack); a result that relied on
// that stays provisional until the assumed pair is done, and is dropped if the assumption was
// wrong.
Result<PairPtr> Differ::Pair(const Model* o, const Model* u, Frame& caller) {
  SLUICE_ASSIGN_OR_RETURN(o, Normalize(o));
  SLUICE_ASSIGN_OR_RETURN(u, Normalize(u));
  const uint64_t key = (uint64_t{o->id} << 32) | u->id;
  auto it = memo_.find(key);
  if (it != memo_.end()) {
    const Entry& e = it->second;
    if (e.state == State::kInProgress) {
      caller.dependency = std::min(caller.dependency, e.depth);
      return optimistic_;
    }
    if (e.state == State::kProvisional) caller.dependency = std::min(caller.dependency, e.depth);
    return e.result;
  }
  const size_t depth = provisional_on_.size();
  if (depth >= options_.max_depth) {
    return InvalidArgument(
        fmt::format("{} / {}: subschemas nest deeper than {} levels (CompareOptions::max_depth)",
                    o->node->pointer(), u->node->pointer(), options_.max_depth));
  }
  SLUICE_TRY(Step());
  memo_.emplace(key, Entry{nullptr, State::kInProgress, depth});
  provisional_on_.emplace_back();
  Frame f;
  Status body = Body(*o, *u, f);
  std::vector<uint64_t> dependents = std::move(provisional_on_.back());
  provisional_on_.pop_back();
  if (!body.has_value()) return Fail(std::move(body).error());

  auto result = std::make_shared<PairResult>();
  result->compatible = IsCompatible(f.diffs, options_.policy);
  result->diffs = std::move(f.diffs);
  const bool settled = f.dependency >= depth;
  Entry& entry = memo_.find(key)->second;
  entry.result = result;
  if (settled) {
    entry.state = State::kFinal;
  } else {
    entry.state = State::kProvisional;
    entry.depth = f.dependency;
    provisional_on_[f.dependency].push_back(key);
    caller.dependency = std::min(caller.dependency, f.dependency);
  }
  for (uint64_t k : dependents) {
    auto d = memo_.find(k);
    if (d == memo_.end()) continue;
    if (!d->second.result->compatible) {
      // Assuming more compatibility never adds an incompatibility: this one stands.
      d->second.state = State::kFinal;
    } else if (!result->compatible) {
      memo_.erase(d);  // it assumed this pair compatible, which it is not
    } else if (settled) {
      d->second.state = State::kFinal;
    } else {
      d->second.depth = f.dependency;
      provisional_on_[f.dependency].push_back(k);
    }
  }
  return PairPtr(result);
}

// SchemaDiff.compare(ctx, original, update) with both present.
Status Differ::Include(Frame& f, const Model* o, const Model* u) {
  if (o == nullptr && u == nullptr) return Ok();
  if (o == nullptr) {
    Add(f, DifferenceType::kSchemaAdded);
    return Ok();
  }
  if (u == nullptr) {
    Add(f, DifferenceType::kSchemaRemoved);
    return Ok();
  }
  SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(o, u, f));
  return Splice(f, *r);
}

Status Differ::Body(const Model& o, const Model& u, Frame& f) {
  const bool o_combined = o.kind == Kind::kCombined;
  const bool u_combined = u.kind == Kind::kCombined;
  if (!o_combined && u_combined) {
    SLUICE_ASSIGN_OR_RETURN(const auto* subs, Subschemas(u, false));
    if (subs->size() == 1) {
      SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(&o, (*subs)[0], f));
      if (r->compatible) return Splice(f, *r);
    } else if (u.criterion != Criterion::kAllOf) {
      for (const Model* s : *subs) {
        SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(&o, s, f));
        if (r->compatible) {
          SLUICE_TRY(Splice(f, *r));
          Add(f, DifferenceType::kSumTypeExtended);
          return Ok();
        }
      }
    }
  } else if (o_combined && !u_combined) {
    SLUICE_ASSIGN_OR_RETURN(const auto* subs, Subschemas(o, false));
    if (subs->size() == 1) {
      SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair((*subs)[0], &u, f));
      if (r->compatible) return Splice(f, *r);
    } else if (o.criterion == Criterion::kAllOf) {
      for (const Model* s : *subs) {
        SLUICE_ASSIGN_OR_RETURN(PairPtr r, Pair(s, &u, f));
        if (r->compatible) {
          SLUICE_TRY(Splice(f, *r));
          Add(f, DifferenceType::kProductTypeNarrowed);
          return Ok();
        }
      }
    }
  }

  // Confluent compares Java classes; every combined schema is one class, as is every number.
  if (o.kind != u.kind) {
    if (o.kind == Kind::kFalse || u.kind == Kind::kEmpty || u.kind == Kind::kTrue) return Ok();
    if (ConnectBytes(o) && ConnectBytes(u)) return Ok();
    Add(f, DifferenceType::kTypeChanged);
    return Ok();
  }

  const Annotations ao = AnnotationsOf(o);
  const Annotations au = AnnotationsOf(u);
  if (!SameOptional(ao.id, au.id)) Add(f, DifferenceType::kIdChanged);
  if (!SameOptional(ao.title, au.title)) Add(f, DifferenceType::kTitleChanged);
  if (!SameOptional(ao.description, au.description)) Add(f, DifferenceType::kDescriptionChanged);
  if (!SameJson(ao.default_value, au.default_value)) Add(f, DifferenceType::kDefaultChanged);

  switch (o.kind) {
    case Kind::kString:
      CompareString(o, u, f);
      return Ok();
    case Kind::kNumber:
      CompareNumber(o, u, f);
      return Ok();
    case Kind::kEnum:
      return CompareEnum(o, u, f);
    case Kind::kConst:
      if (!o.node->keywords().const_value->Equals(*u.node->keywords().const_value)) {
        AddAt(f, "const", DifferenceType::kEnumArrayChanged);
      }
      return Ok();
    case Kind::kCombined:
      return CompareCombined(o, u, f);
    case Kind::kNot:
      return CompareNot(o, u, f);
    case Kind::kObject:
      return CompareObject(o, u, f);
    case Kind::kArray:
      return CompareArray(o, u, f);
    case Kind::kEmpty:
    case Kind::kTrue:
    case Kind::kFalse:
    case Kind::kBoolean:
    case Kind::kNull:
    case Kind::kReference:
    case Kind::kConditional:
      return Ok();
  }
  return Ok();
}

}  // namespace internal

Result<std::vector<Difference>> Compare(const JsonSchemaDocument& original,
                                        const JsonSchemaDocument& update,
                                        const CompareOptions& options) {
  return internal::Differ(original, update, options).Run();
}

Result<std::vector<Difference>> CompareSchemaTexts(std::string_view original,
                                                   std::string_view update,
                                                   const CompareOptions& options) {
  ParseOptions parse;
  parse.default_draft = Draft::kDraft7;  // Confluent's reading of a schema without $schema
  auto a = Parse(original, parse);
  if (!a.has_value()) return Fail(a.error().WithContext("original schema"));
  auto b = Parse(update, parse);
  if (!b.has_value()) return Fail(b.error().WithContext("update schema"));
  return Compare(*a, *b, options);
}

}  // namespace sluice::dialects::jsonschema
