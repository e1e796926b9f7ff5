#include "sluice/evolution/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/evolution/pair_walk.h"

namespace sluice::evolution {

using schema::Field;
using schema::FieldPath;
using schema::IntegerRank;
using schema::StringLength;
using schema::Type;
using schema::TypeKind;

std::string_view ChangeKindName(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kFieldAdded:
      return "field_added";
    case ChangeKind::kFieldRemoved:
      return "field_removed";
    case ChangeKind::kTypeWidened:
      return "type_widened";
    case ChangeKind::kTypeNarrowed:
      return "type_narrowed";
    case ChangeKind::kTypeChanged:
      return "type_changed";
    case ChangeKind::kNullabilityRelaxed:
      return "nullability_relaxed";
    case ChangeKind::kNullabilityTightened:
      return "nullability_tightened";
    case ChangeKind::kFieldMoved:
      return "field_moved";
    case ChangeKind::kCaseChanged:
      return "case_changed";
    case ChangeKind::kDocChanged:
      return "doc_changed";
    case ChangeKind::kDefaultChanged:
      return "default_changed";
    case ChangeKind::kMetadataChanged:
      return "metadata_changed";
  }
  return "unknown";
}

std::string_view ChangeSeverityName(ChangeSeverity severity) {
  switch (severity) {
    case ChangeSeverity::kBreaking:
      return "breaking";
    case ChangeSeverity::kCompatible:
      return "compatible";
    case ChangeSeverity::kCosmetic:
      return "cosmetic";
  }
  return "unknown";
}

ChangeSeverity Change::severity() const {
  switch (kind) {
    case ChangeKind::kFieldRemoved:
    case ChangeKind::kTypeNarrowed:
    case ChangeKind::kTypeChanged:
    case ChangeKind::kNullabilityTightened:
      return ChangeSeverity::kBreaking;
    case ChangeKind::kFieldAdded:
      return required ? ChangeSeverity::kBreaking : ChangeSeverity::kCompatible;
    case ChangeKind::kTypeWidened:
    case ChangeKind::kNullabilityRelaxed:
    case ChangeKind::kCaseChanged:
      return ChangeSeverity::kCompatible;
    case ChangeKind::kFieldMoved:
    case ChangeKind::kDocChanged:
    case ChangeKind::kDefaultChanged:
    case ChangeKind::kMetadataChanged:
      return ChangeSeverity::kCosmetic;
  }
  return ChangeSeverity::kBreaking;
}

std::map<ChangeKind, int> SchemaDiff::CountByKind() const {
  std::map<ChangeKind, int> out;
  for (const Change& c : changes) ++out[c.kind];
  return out;
}

int SchemaDiff::CountBySeverity(ChangeSeverity severity) const {
  return static_cast<int>(std::count_if(changes.begin(), changes.end(),
                                        [&](const Change& c) { return c.severity() == severity; }));
}

bool IsWidening(const Type& from, const Type& to) {
  if (from.is_nested() || to.is_nested()) return false;
  if (from.Equals(to)) return false;
  if (from.kind() == TypeKind::kNull) return true;
  int fi = IntegerRank(from.kind());
  int ti = IntegerRank(to.kind());
  if (fi > 0 && ti > 0) return ti > fi;
  if (fi > 0 && fi <= 3 && to.kind() == TypeKind::kFloat64) return true;
  if (from.kind() == TypeKind::kFloat32 && to.kind() == TypeKind::kFloat64) return true;
  if (from.kind() == TypeKind::kDecimal && to.kind() == TypeKind::kDecimal) {
    return to.scale() >= from.scale() &&
           to.precision() - to.scale() >= from.precision() - from.scale();
  }
  if (from.kind() == TypeKind::kDate && to.kind() == TypeKind::kTimestampNtz) return true;
  if (from.kind() == TypeKind::kString && to.kind() == TypeKind::kString) {
    if (from.string_length() == StringLength::kUnbounded) return false;
    if (to.string_length() == StringLength::kUnbounded) return true;
    return to.string_length() == StringLength::kVarchar && to.length() >= from.length();
  }
  if (from.kind() == to.kind() &&
      (from.kind() == TypeKind::kTimestamp || from.kind() == TypeKind::kTimestampNtz ||
       from.kind() == TypeKind::kTime)) {
    return schema::TimeUnitRank(to.unit()) > schema::TimeUnitRank(from.unit());
  }
  return false;
}

namespace {

std::string JsonText(const JsonValue& v) {
  JsonFormat f;
  f.sort_keys = true;
  return ToJson(v, f);
}

// Diff as a consumer of the pair walk: each difference becomes a Change with its kind, and
// each struct's unpaired fields are searched for rename candidates.
class Differ final : public PairVisitor {
 public:
  SchemaDiff Run(const schema::Schema& before, const schema::Schema& after,
                 const DiffOptions& options) {
    PairWalkOptions walk;
    walk.case_sensitive = options.case_sensitive;
    WalkPair(*before.struct_type(), *after.struct_type(), walk, *this);
    return std::move(out_);
  }

  void StructsPaired(const FieldPath& path, const Type& before, const Type& after,
                     const FieldPairing& pairing) override {
    Hints(path, before.fields(), after.fields(), pairing);
  }
  void OnlyBefore(const FieldPath& path, const Field& f, bool) override {
    Add(path, ChangeKind::kFieldRemoved, schema::TypeWithNullability(*f.type(), f.nullable()),
        std::nullopt);
  }
  void OnlyAfter(const FieldPath& path, const Field& f, bool) override {
    Add(path, ChangeKind::kFieldAdded, std::nullopt,
        schema::TypeWithNullability(*f.type(), f.nullable()), !f.nullable());
  }
  void Respelled(const FieldPath& path, const Field& before, const Field& after) override {
    Add(path, ChangeKind::kCaseChanged, before.name(), after.name());
  }
  void Moved(const FieldPath& path, size_t before_index, size_t after_index) override {
    Add(path, ChangeKind::kFieldMoved, std::to_string(before_index + 1),
        std::to_string(after_index + 1));
  }
  void NullabilityDiffers(const FieldPath& path, bool before, bool after, bool) override {
    Add(path, after ? ChangeKind::kNullabilityRelaxed : ChangeKind::kNullabilityTightened,
        before ? "nullable" : "not null", after ? "nullable" : "not null");
  }
  void TypesDiffer(const FieldPath& path, const Type& a, const Type& b, bool) override {
    ChangeKind kind = IsWidening(a, b)   ? ChangeKind::kTypeWidened
                      : IsWidening(b, a) ? ChangeKind::kTypeNarrowed
                                         : ChangeKind::kTypeChanged;
    Add(path, kind, a.ToString(), b.ToString());
  }
  void FieldPaired(const FieldPath& path, const Field& a, const Field& b) override {
    if (a.doc() != b.doc()) Add(path, ChangeKind::kDocChanged, a.doc(), b.doc());
    // A null default on a nullable field says what having no default says (Avro spells out
    // `"default": null` where Spark leaves it implicit), so the two compare equal.
    std::optional<JsonValue> da = EffectiveDefault(a);
    std::optional<JsonValue> db = EffectiveDefault(b);
    bool default_differs = da.has_value() != db.has_value() || (da.has_value() && !da->Equals(*db));
    if (default_differs) {
      Add(path, ChangeKind::kDefaultChanged, da ? std::optional(JsonText(*da)) : std::nullopt,
          db ? std::optional(JsonText(*db)) : std::nullopt);
    }
    if (!a.metadata().Equals(b.metadata())) {
      Add(path, ChangeKind::kMetadataChanged, JsonText(a.metadata()), JsonText(b.metadata()));
    }
  }

 private:
  void Add(FieldPath path, ChangeKind kind, std::optional<std::string> from,
           std::optional<std::string> to, bool required = false) {
    out_.changes.push_back(Change{std::move(path), kind, std::move(from), std::move(to), required});
  }

  static std::optional<JsonValue> EffectiveDefault(const Field& f) {
    if (f.nullable() && f.default_value().has_value() && f.default_value()->is_null()) {
      return std::nullopt;
    }
    return f.default_value();
  }

  static std::string NormalizedName(std::string_view name) {
    std::string out;
    for (char c : AsciiLower(name)) {
      if (c != '_' && c != '-' && c != ' ') out += c;
    }
    return out;
  }

  // Whether the edit distance of `a` and `b` is at most `k`: the dynamic program restricted to
  // the band |i - j| <= k, where every path of cost k or less runs, stopping once a whole row
  // costs more. O(k * length) rather than O(length^2).
  static bool WithinEditDistance(std::string_view a, std::string_view b, size_t k) {
    if (a.size() > b.size()) std::swap(a, b);
    if (b.size() - a.size() > k) return false;  // the distance is at least the length difference
    const size_t over = k + 1;                  // any cost above k
    std::vector<size_t> prev(b.size() + 1, over);
    std::vector<size_t> cur(b.size() + 1, over);
    for (size_t j = 0; j <= std::min(b.size(), k); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t lo = i > k ? i - k : 1;
      size_t hi = std::min(b.size(), i + k);
      std::fill(cur.begin() + static_cast<std::ptrdiff_t>(lo - 1),
                cur.begin() + static_cast<std::ptrdiff_t>(std::min(b.size(), hi + 1) + 1), over);
      cur[0] = i <= k ? i : over;
      size_t row_min = cur[0];
      for (size_t j = lo; j <= hi; ++j) {
        size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub, over});
        row_min = std::min(row_min, cur[j]);
      }
      if (row_min > k) return false;
      std::swap(prev, cur);
    }
    return prev[b.size()] <= k;
  }

  // Names already normalized.
  static bool SimilarNormalized(const std::string& x, const std::string& y) {
    if (x == y) return true;
    size_t longest = std::max(x.size(), y.size());
    if (WithinEditDistance(x, y, std::max<size_t>(1, longest / 4))) return true;
    const std::string& shorter = x.size() < y.size() ? x : y;
    const std::string& other = x.size() < y.size() ? y : x;
    return shorter.size() >= 3 && (StartsWith(other, shorter) || EndsWith(other, shorter));
  }

  // Numbers the distinct types (by Type::Equals without details) it is shown, so that comparing
  // two fields' types is comparing two numbers.
  class TypeClasses {
   public:
    size_t Of(const Type& t) {
      std::vector<std::pair<const Type*, size_t>>& bucket = buckets_[schema::StructuralHash(t)];
      for (const auto& [rep, id] : bucket) {
        if (rep->Equals(t, false)) return id;
      }
      bucket.emplace_back(&t, next_);
      return next_++;
    }

   private:
    std::unordered_map<uint64_t, std::vector<std::pair<const Type*, size_t>>> buckets_;
    size_t next_ = 0;
  };

  // Rename candidates among a struct's unpaired fields, before any of its changes are reported
  // (so hints come parents first, as changes do).
  void Hints(const FieldPath& parent, const std::vector<Field>& before,
             const std::vector<Field>& after, const FieldPairing& pairing) {
    const std::vector<int>& match = pairing.after_of;
    const std::vector<int>& reverse = pairing.before_of;
    std::vector<bool> used(after.size(), false);
    std::vector<size_t> removed;
    std::vector<size_t> added;
    for (size_t i = 0; i < match.size(); ++i) {
      if (match[i] < 0) removed.push_back(i);
    }
    for (size_t j = 0; j < reverse.size(); ++j) {
      if (reverse[j] < 0) added.push_back(j);
    }
    if (removed.empty() || added.empty()) return;
    // Name similarity costs removed x added comparisons; past a million, only positions count.
    if (removed.size() * added.size() > 1'000'000) {
      for (size_t i : removed) {
        if (i < after.size() && reverse[i] < 0 && !used[i] &&
            before[i].type()->Equals(*after[i].type(), false)) {
          used[i] = true;
          out_.hints.push_back(RenameHint{parent.Child(before[i].name()),
                                          parent.Child(after[i].name()),
                                          "same type, same position"});
        }
      }
      return;
    }
    // Each comparison is then two numbers and, for fields of one type, two names normalized once.
    TypeClasses classes;
    std::vector<size_t> added_class(after.size());
    std::vector<std::string> added_name(after.size());
    for (size_t j : added) {
      added_class[j] = classes.Of(*after[j].type());
      added_name[j] = NormalizedName(after[j].name());
    }
    for (size_t i : removed) {
      const size_t type_class = classes.Of(*before[i].type());
      const std::string name = NormalizedName(before[i].name());
      int best = -1;
      bool best_similar = false;
      for (size_t j : added) {
        if (used[j] || added_class[j] != type_class) continue;
        bool similar = SimilarNormalized(name, added_name[j]);
        bool same_position = i == j;
        if (!similar && !same_position) continue;
        if (best < 0 || (similar && !best_similar)) {
          best = static_cast<int>(j);
          best_similar = similar;
        }
        if (best_similar) break;  // a later candidate never replaces a similar name
      }
      if (best < 0) continue;
      used[static_cast<size_t>(best)] = true;
      out_.hints.push_back(RenameHint{
          parent.Child(before[i].name()), parent.Child(after[static_cast<size_t>(best)].name()),
          best_similar ? "same type, similar name" : "same type, same position"});
    }
  }

  SchemaDiff out_;
};

}  // namespace

SchemaDiff Diff(const schema::Schema& before, const schema::Schema& after,
                const DiffOptions& options) {
  return Differ().Run(before, after, options);
}

}  // namespace sluice::evolution
