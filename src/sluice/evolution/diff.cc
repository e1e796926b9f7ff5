#include "sluice/evolution/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"

namespace sluice::evolution {

using schema::Field;
using schema::FieldPath;
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

namespace {

int IntegerRank(TypeKind k) {
  if (k == TypeKind::kInt8) return 1;
  if (k == TypeKind::kInt16) return 2;
  if (k == TypeKind::kInt32) return 3;
  if (k == TypeKind::kInt64) return 4;
  return 0;
}

int UnitRank(schema::TimeUnit u) {
  switch (u) {
    case schema::TimeUnit::kMillis:
      return 1;
    case schema::TimeUnit::kMicros:
      return 2;
    case schema::TimeUnit::kNanos:
      return 3;
  }
  return 0;
}

}  // namespace

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
    return UnitRank(to.unit()) > UnitRank(from.unit());
  }
  return false;
}

namespace {

std::string JsonText(const JsonValue& v) {
  JsonFormat f;
  f.sort_keys = true;
  return ToJson(v, f);
}

class Differ {
 public:
  explicit Differ(const DiffOptions& options) : options_(options) {}

  SchemaDiff Run(const schema::Schema& before, const schema::Schema& after) {
    DiffStruct(FieldPath(), before.fields(), after.fields());
    return std::move(out_);
  }

 private:
  void Add(FieldPath path, ChangeKind kind, std::optional<std::string> from,
           std::optional<std::string> to, bool required = false) {
    out_.changes.push_back(Change{std::move(path), kind, std::move(from), std::move(to), required});
  }

  // Pair each old field with at most one new field: exact names first, then (unless
  // case-sensitive) names equal ignoring case, when that pairing is unambiguous.
  std::vector<int> Match(const std::vector<Field>& before, const std::vector<Field>& after) {
    // Hash the new names so that wide structs (tens of thousands of columns) stay linear.
    std::vector<int> match(before.size(), -1);
    std::vector<bool> taken(after.size(), false);
    std::unordered_map<std::string_view, size_t> exact;
    exact.reserve(after.size());
    for (size_t j = 0; j < after.size(); ++j) exact.emplace(after[j].name(), j);
    for (size_t i = 0; i < before.size(); ++i) {
      auto it = exact.find(before[i].name());
      if (it != exact.end() && !taken[it->second]) {
        match[i] = static_cast<int>(it->second);
        taken[it->second] = true;
      }
    }
    if (options_.case_sensitive) return match;
    std::unordered_map<std::string, std::vector<size_t>> folded;
    for (size_t j = 0; j < after.size(); ++j) {
      if (!taken[j]) folded[AsciiLower(after[j].name())].push_back(j);
    }
    for (size_t i = 0; i < before.size(); ++i) {
      if (match[i] >= 0) continue;
      auto it = folded.find(AsciiLower(before[i].name()));
      if (it == folded.end()) continue;
      int candidate = -1;
      int count = 0;
      for (size_t j : it->second) {
        if (!taken[j]) {
          candidate = static_cast<int>(j);
          ++count;
        }
      }
      // Only an unambiguous pairing is a case change; otherwise they stay removed and added.
      if (count == 1) {
        match[i] = candidate;
        taken[static_cast<size_t>(candidate)] = true;
      }
    }
    return match;
  }

  void DiffStruct(const FieldPath& parent, const std::vector<Field>& before,
                  const std::vector<Field>& after) {
    std::vector<int> match = Match(before, after);
    std::vector<int> reverse(after.size(), -1);
    for (size_t i = 0; i < match.size(); ++i) {
      if (match[i] >= 0) reverse[static_cast<size_t>(match[i])] = static_cast<int>(i);
    }
    std::vector<bool> moved = MovedFields(match);
    Hints(parent, before, after, match, reverse);

    // Old fields in order; each new-only field is reported right after the shared field that
    // precedes it in the new schema (or first, if none does).
    auto report_added_after = [&](int new_index) {
      for (size_t j = static_cast<size_t>(new_index + 1); j < after.size() && reverse[j] < 0; ++j) {
        const Field& f = after[j];
        Add(parent.Child(f.name()), ChangeKind::kFieldAdded, std::nullopt,
            schema::TypeWithNullability(*f.type(), f.nullable()), !f.nullable());
      }
    };
    report_added_after(-1);
    for (size_t i = 0; i < before.size(); ++i) {
      const Field& old_f = before[i];
      if (match[i] < 0) {
        Add(parent.Child(old_f.name()), ChangeKind::kFieldRemoved,
            schema::TypeWithNullability(*old_f.type(), old_f.nullable()), std::nullopt);
        continue;
      }
      size_t j = static_cast<size_t>(match[i]);
      const Field& new_f = after[j];
      FieldPath path = parent.Child(new_f.name());
      if (old_f.name() != new_f.name()) {
        Add(path, ChangeKind::kCaseChanged, old_f.name(), new_f.name());
      }
      if (moved[i]) {
        Add(path, ChangeKind::kFieldMoved, std::to_string(i + 1), std::to_string(j + 1));
      }
      DiffField(path, old_f, new_f);
      report_added_after(static_cast<int>(j));
    }
  }

  // A shared field moved if it is outside a longest run of shared fields that keep their
  // relative order (so inserting one field does not make every later field "moved").
  static std::vector<bool> MovedFields(const std::vector<int>& match) {
    // A longest increasing run of new positions, in old order, stays put; the shared fields
    // outside it moved. Of several longest runs the one keeping the earliest fields is chosen.
    // O(n log n): from the back, the length of the longest run starting at each field.
    std::vector<size_t> olds;
    for (size_t i = 0; i < match.size(); ++i) {
      if (match[i] >= 0) olds.push_back(i);
    }
    std::vector<size_t> starting(olds.size(), 0);
    std::vector<int> tails;  // for runs read backwards: negated new positions, increasing
    for (size_t a = olds.size(); a-- > 0;) {
      int v = -match[olds[a]];
      auto it = std::lower_bound(tails.begin(), tails.end(), v);
      starting[a] = static_cast<size_t>(it - tails.begin()) + 1;
      if (it == tails.end()) {
        tails.push_back(v);
      } else {
        *it = v;
      }
    }
    std::vector<bool> moved(match.size(), false);
    size_t need = tails.size();
    int last = -1;
    for (size_t a = 0; a < olds.size(); ++a) {
      if (need > 0 && starting[a] == need && match[olds[a]] > last) {
        last = match[olds[a]];
        --need;
      } else {
        moved[olds[a]] = true;
      }
    }
    return moved;
  }

  void DiffField(const FieldPath& path, const Field& a, const Field& b) {
    if (a.nullable() != b.nullable()) {
      Add(path, b.nullable() ? ChangeKind::kNullabilityRelaxed : ChangeKind::kNullabilityTightened,
          a.nullable() ? "nullable" : "not null", b.nullable() ? "nullable" : "not null");
    }
    DiffType(path, *a.type(), *b.type());
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

  static std::optional<JsonValue> EffectiveDefault(const Field& f) {
    if (f.nullable() && f.default_value().has_value() && f.default_value()->is_null()) {
      return std::nullopt;
    }
    return f.default_value();
  }

  void DiffContainsNull(const FieldPath& path, bool before, bool after) {
    if (before == after) return;
    Add(path, after ? ChangeKind::kNullabilityRelaxed : ChangeKind::kNullabilityTightened,
        before ? "nullable" : "not null", after ? "nullable" : "not null");
  }

  void DiffType(const FieldPath& path, const Type& a, const Type& b) {
    if (a.is_struct() && b.is_struct()) {
      DiffStruct(path, a.fields(), b.fields());
      return;
    }
    if (a.is_array() && b.is_array()) {
      FieldPath elem = path.Element();
      DiffContainsNull(elem, a.contains_null(), b.contains_null());
      DiffType(elem, *a.element_type(), *b.element_type());
      return;
    }
    if (a.is_map() && b.is_map()) {
      DiffType(path.Key(), *a.key_type(), *b.key_type());
      FieldPath value = path.Value();
      DiffContainsNull(value, a.value_contains_null(), b.value_contains_null());
      DiffType(value, *a.value_type(), *b.value_type());
      return;
    }
    if (a.Equals(b, false)) return;
    ChangeKind kind = IsWidening(a, b)   ? ChangeKind::kTypeWidened
                      : IsWidening(b, a) ? ChangeKind::kTypeNarrowed
                                         : ChangeKind::kTypeChanged;
    Add(path, kind, a.ToString(), b.ToString());
  }

  static std::string NormalizedName(std::string_view name) {
    std::string out;
    for (char c : AsciiLower(name)) {
      if (c != '_' && c != '-' && c != ' ') out += c;
    }
    return out;
  }

  static bool SimilarNames(std::string_view a, std::string_view b) {
    std::string x = NormalizedName(a);
    std::string y = NormalizedName(b);
    if (x == y) return true;
    size_t longest = std::max(x.size(), y.size());
    if (EditDistance(x, y) <= std::max<size_t>(1, longest / 4)) return true;
    const std::string& shorter = x.size() < y.size() ? x : y;
    const std::string& other = x.size() < y.size() ? y : x;
    return shorter.size() >= 3 && (StartsWith(other, shorter) || EndsWith(other, shorter));
  }

  void Hints(const FieldPath& parent, const std::vector<Field>& before,
             const std::vector<Field>& after, const std::vector<int>& match,
             const std::vector<int>& reverse) {
    std::vector<bool> used(after.size(), false);
    size_t removed = 0;
    size_t added = 0;
    for (int m : match) removed += m < 0 ? 1 : 0;
    for (int r : reverse) added += r < 0 ? 1 : 0;
    // Name similarity costs removed x added comparisons; past a million, only positions count.
    bool compare_names = removed * added <= 1'000'000;
    for (size_t i = 0; i < before.size(); ++i) {
      if (match[i] >= 0) continue;
      if (!compare_names) {
        if (i < after.size() && reverse[i] < 0 && !used[i] &&
            before[i].type()->Equals(*after[i].type(), false)) {
          used[i] = true;
          out_.hints.push_back(RenameHint{parent.Child(before[i].name()),
                                          parent.Child(after[i].name()),
                                          "same type, same position"});
        }
        continue;
      }
      int best = -1;
      bool best_similar = false;
      for (size_t j = 0; j < after.size(); ++j) {
        if (reverse[j] >= 0 || used[j]) continue;
        if (!before[i].type()->Equals(*after[j].type(), false)) continue;
        bool similar = SimilarNames(before[i].name(), after[j].name());
        bool same_position = i == j;
        if (!similar && !same_position) continue;
        if (best < 0 || (similar && !best_similar)) {
          best = static_cast<int>(j);
          best_similar = similar;
        }
      }
      if (best < 0) continue;
      used[static_cast<size_t>(best)] = true;
      out_.hints.push_back(RenameHint{
          parent.Child(before[i].name()), parent.Child(after[static_cast<size_t>(best)].name()),
          best_similar ? "same type, similar name" : "same type, same position"});
    }
  }

  DiffOptions options_;
  SchemaDiff out_;
};

}  // namespace

SchemaDiff Diff(const schema::Schema& before, const schema::Schema& after,
                const DiffOptions& options) {
  Differ d(options);
  return d.Run(before, after);
}

}  // namespace sluice::evolution
