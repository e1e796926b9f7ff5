#include "sluice/evolution/pair_walk.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sluice/base/strings.h"

namespace sluice::evolution {

using schema::Field;
using schema::FieldPath;
using schema::Type;

FieldPairing PairFields(const std::vector<Field>& before, const std::vector<Field>& after,
                        bool case_sensitive) {
  // Hash the new names so that wide structs (tens of thousands of columns) stay linear.
  FieldPairing p;
  p.after_of.assign(before.size(), -1);
  p.before_of.assign(after.size(), -1);
  std::unordered_map<std::string_view, size_t> exact;
  exact.reserve(after.size());
  for (size_t j = 0; j < after.size(); ++j) exact.emplace(after[j].name(), j);
  auto pair = [&](size_t i, size_t j) {
    p.after_of[i] = static_cast<int>(j);
    p.before_of[j] = static_cast<int>(i);
  };
  for (size_t i = 0; i < before.size(); ++i) {
    auto it = exact.find(before[i].name());
    if (it != exact.end() && p.before_of[it->second] < 0) pair(i, it->second);
  }
  if (case_sensitive) return p;
  // The unpaired names after, by their lower-case spelling. A bucket counts its fields still
  // unpaired, so that many spellings of one name (hostile, but cheap to write) stay linear: a
  // bucket is searched for its last free field only once, when that count reaches one.
  struct Bucket {
    std::vector<size_t> fields;
    size_t unpaired = 0;
  };
  std::unordered_map<std::string, Bucket> folded;
  for (size_t j = 0; j < after.size(); ++j) {
    if (p.before_of[j] >= 0) continue;
    Bucket& b = folded[AsciiLower(after[j].name())];
    b.fields.push_back(j);
    ++b.unpaired;
  }
  for (size_t i = 0; i < before.size(); ++i) {
    if (p.after_of[i] >= 0) continue;
    auto it = folded.find(AsciiLower(before[i].name()));
    // Only an unambiguous pairing is a new spelling; otherwise both stay unpaired.
    if (it == folded.end() || it->second.unpaired != 1) continue;
    Bucket& b = it->second;
    for (size_t j : b.fields) {
      if (p.before_of[j] < 0) {
        pair(i, j);
        break;
      }
    }
    b.unpaired = 0;
  }
  return p;
}

namespace {

// A paired field moved if it is outside a longest run of paired fields that keep their relative
// order. Of several longest runs the one keeping the earliest fields is chosen. O(n log n): from
// the back, the length of the longest run starting at each field.
std::vector<bool> MovedFields(const std::vector<int>& after_of) {
  std::vector<size_t> olds;
  for (size_t i = 0; i < after_of.size(); ++i) {
    if (after_of[i] >= 0) olds.push_back(i);
  }
  std::vector<size_t> starting(olds.size(), 0);
  std::vector<int> tails;  // for runs read backwards: negated new positions, increasing
  for (size_t a = olds.size(); a-- > 0;) {
    int v = -after_of[olds[a]];
    auto it = std::lower_bound(tails.begin(), tails.end(), v);
    starting[a] = static_cast<size_t>(it - tails.begin()) + 1;
    if (it == tails.end()) {
      tails.push_back(v);
    } else {
      *it = v;
    }
  }
  std::vector<bool> moved(after_of.size(), false);
  size_t need = tails.size();
  int last = -1;
  for (size_t a = 0; a < olds.size(); ++a) {
    if (need > 0 && starting[a] == need && after_of[olds[a]] > last) {
      last = after_of[olds[a]];
      --need;
    } else {
      moved[olds[a]] = true;
    }
  }
  return moved;
}

bool ModelAtomicEqual(const Type& a, const Type& b) { return a.Equals(b, false); }

class PairWalker {
 public:
  PairWalker(const PairWalkOptions& options, PairVisitor& visitor)
      : options_(options),
        atomic_equal_(options.atomic_equal != nullptr ? options.atomic_equal : ModelAtomicEqual),
        visitor_(visitor) {}

  void Types(const FieldPath& path, const Type& a, const Type& b, bool in_key) {
    if (a.is_struct() && b.is_struct()) {
      Structs(path, a, b, in_key);
      return;
    }
    if (a.is_array() && b.is_array()) {
      FieldPath element = path.Element();
      if (a.contains_null() != b.contains_null()) {
        visitor_.NullabilityDiffers(element, a.contains_null(), b.contains_null(), in_key);
      }
      Types(element, *a.element_type(), *b.element_type(), in_key);
      return;
    }
    if (a.is_map() && b.is_map()) {
      Types(path.Key(), *a.key_type(), *b.key_type(), true);
      FieldPath value = path.Value();
      if (a.value_contains_null() != b.value_contains_null()) {
        visitor_.NullabilityDiffers(value, a.value_contains_null(), b.value_contains_null(),
                                    in_key);
      }
      Types(value, *a.value_type(), *b.value_type(), in_key);
      return;
    }
    if (!a.is_nested() && !b.is_nested() && atomic_equal_(a, b)) return;
    visitor_.TypesDiffer(path, a, b, in_key);
  }

 private:
  void Structs(const FieldPath& parent, const Type& a, const Type& b, bool in_key) {
    const std::vector<Field>& before = a.fields();
    const std::vector<Field>& after = b.fields();
    FieldPairing pairing = PairFields(before, after, options_.case_sensitive);
    visitor_.StructsPaired(parent, a, b, pairing);
    std::vector<bool> moved = MovedFields(pairing.after_of);
    bool interleave = options_.added == AddedFieldPlacement::kAfterPrecedingField;

    // The after-only fields that follow after[from - 1], up to the next paired field.
    auto added_from = [&](size_t from) {
      for (size_t j = from; j < after.size() && pairing.before_of[j] < 0; ++j) {
        visitor_.OnlyAfter(parent.Child(after[j].name()), after[j], in_key);
      }
    };
    if (interleave) added_from(0);
    for (size_t i = 0; i < before.size(); ++i) {
      const Field& fa = before[i];
      if (pairing.after_of[i] < 0) {
        visitor_.OnlyBefore(parent.Child(fa.name()), fa, in_key);
        continue;
      }
      size_t j = static_cast<size_t>(pairing.after_of[i]);
      const Field& fb = after[j];
      FieldPath path =
          parent.Child(options_.spelling == PairedPathSpelling::kAfter ? fb.name() : fa.name());
      if (fa.name() != fb.name()) visitor_.Respelled(path, fa, fb);
      if (moved[i]) visitor_.Moved(path, i, j);
      if (fa.nullable() != fb.nullable()) {
        visitor_.NullabilityDiffers(path, fa.nullable(), fb.nullable(), in_key);
      }
      Types(path, *fa.type(), *fb.type(), in_key);
      visitor_.FieldPaired(path, fa, fb);
      if (interleave) added_from(j + 1);
    }
    if (interleave) return;
    for (size_t j = 0; j < after.size(); ++j) {
      if (pairing.before_of[j] < 0) {
        visitor_.OnlyAfter(parent.Child(after[j].name()), after[j], in_key);
      }
    }
  }

  const PairWalkOptions& options_;
  bool (*atomic_equal_)(const Type&, const Type&);
  PairVisitor& visitor_;
};

}  // namespace

void WalkPair(const Type& before, const Type& after, const PairWalkOptions& options,
              PairVisitor& visitor) {
  PairWalker(options, visitor).Types(FieldPath(), before, after, false);
}

}  // namespace sluice::evolution
