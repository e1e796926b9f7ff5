// The parts of JSON inference that both of its walks over a record share: the rules for one
// token (the contract in json_infer.h), and where each key of an object merges into the struct
// inferred so far. One walk reads records with simdjson (json_infer.cc); the other reads records
// too large for simdjson's index with a scanner of its own (json_infer_scanner.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/data/inferred_type.h"
#include "sluice/data/json_infer.h"
#include "sluice/data/json_text_internal.h"
#include "sluice/data/lexical_internal.h"
#include "sluice/data/name_index_internal.h"

namespace sluice::data::internal {

/// Why a record could not be inferred. kMalformed follows the parse mode; kFatal fails always.
enum class InferOutcome : uint8_t { kOk, kMalformed, kFatal };

/// The rules for one token. Not thread-safe: `reason` is the current record's.
struct JsonTypeRules {
  const JsonInferOptions* options = nullptr;
  DecimalLocale locale;
  std::optional<DateTimePattern> timestamp_pattern;
  std::optional<DateTimePattern> timestamp_ntz_pattern;
  std::string reason;  // why the current record is malformed

  InferOutcome Fail(InferOutcome o, std::string why) {
    reason = std::move(why);
    return o;
  }
  /// A string's content (unescaped).
  InferOutcome String(std::string_view s, InferredType* out) const;
  /// What a number token (trailing whitespace allowed) is at a glance: kShortLong an integer of
  /// at most 18 digits (so it fits a long); kPlain any other number of JSON's grammar (no
  /// leading zeros, as Jackson); kOther anything else (NaN, Infinity, not a number), which
  /// ClassifyJsonNumber decides on.
  enum class Form : uint8_t { kOther, kShortLong, kPlain };
  static Form NumberForm(std::string_view t);
  /// NumberForm's kShortLong: the common case, decided without the full number grammar.
  static bool ShortLong(std::string_view t) { return NumberForm(t) == Form::kShortLong; }
  /// A number token, as simdjson's raw_json_token gives it (with the whitespace after it).
  InferOutcome Number(std::string_view token, InferredType* out);
  /// A token that is not JSON (simdjson has no type for it): Jackson's NaN and Infinity are
  /// numbers; anything else is malformed, with `error` as the reason.
  InferOutcome NonNumeric(std::string_view raw, InferredType* acc, const char* error);
  /// Merge a scalar's type into `acc` (null: validating only).
  static void Merge(InferredType* acc, const InferredType& t) {
    if (acc == nullptr || t.is_null()) return;
    if (acc->kind() == t.kind() && t.kind() != InferredKind::kDecimal) return;
    MergeInto(acc, t);
  }
  InferOutcome CheckDepth(uint32_t depth);
};

inline JsonTypeRules::Form JsonTypeRules::NumberForm(std::string_view t) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const char* p = t.data();
  const char* end = p + t.size();
  while (end > p && IsJsonSpace(end[-1])) --end;
  if (p < end && *p == '-') ++p;
  const char* digits = p;
  if (p < end && *p == '0') {
    ++p;
  } else {
    while (p < end && digit(*p)) ++p;
  }
  if (p == digits) return Form::kOther;
  if (p == end) return p - digits <= 18 ? Form::kShortLong : Form::kPlain;
  if (digit(*p)) return Form::kOther;  // a leading zero
  if (*p == '.') {
    const char* fraction = ++p;
    while (p < end && digit(*p)) ++p;
    if (p == fraction) return Form::kOther;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    const char* exponent = p;
    while (p < end && digit(*p)) ++p;
    if (p == exponent) return Form::kOther;
  }
  return p == end ? Form::kPlain : Form::kOther;
}

/// Where each key of an object goes in the struct inferred so far: the field of that name, or a
/// new field. New fields are collected while the object is read and merged into the sorted
/// fields once, at its end, so an object with many new keys costs O(k log k) rather than an
/// insertion into the middle of the fields for each. Records repeat their shape: the field the
/// key at each position found last time, at each depth, is tried first.
class FieldSlots {
 public:
  /// Start reading an object at `depth`: forget what an unfinished one left there.
  void Begin(uint32_t depth);
  /// The type that the value of the `ordinal`-th key of the object at `depth` merges into:
  /// the field of `fields` (sorted by JavaStringCompare) named `key`, or a new one. Valid until
  /// the next Slot or End at this depth.
  InferredType* Slot(std::vector<InferredField>& fields, uint32_t depth, uint32_t ordinal,
                     std::string_view key);
  /// Merge the object's new fields into `fields`, keeping them sorted.
  void End(std::vector<InferredField>& fields, uint32_t depth);

  /// What the slots keep for the objects at one depth. Levels stay where they are while deeper
  /// ones are added: a walk holds on to its own.
  struct Level {
    std::vector<uint32_t> hints;       // per key position: the field it matched last
    std::vector<InferredField> added;  // this object's new fields, in key order
    StringMap<uint32_t> added_index;   // their positions in `added`, once there are several
  };
  Level& At(uint32_t depth) {
    if (depth < levels_.size()) return *levels_[depth];
    return Grow(depth);
  }
  /// The field of `fields` named `key`, or null: Slot without adding (the check's lookup), at
  /// the level of the object's depth.
  const InferredType* Find(const std::vector<InferredField>& fields, Level& level, uint32_t ordinal,
                           std::string_view key) {
    const size_t i = Locate(fields, level, ordinal, key);
    return i < fields.size() ? &fields[i].type : nullptr;
  }

 private:
  Level& Grow(uint32_t depth);
  // The position in `fields` of `key`, trying the hint for `ordinal` first; fields.size() when
  // it is not there.
  size_t Locate(const std::vector<InferredField>& fields, Level& level, uint32_t ordinal,
                std::string_view key) {
    const std::vector<uint32_t>& hints = level.hints;
    if (ordinal < hints.size() && hints[ordinal] < fields.size()) {
      const std::string& name = fields[hints[ordinal]].name;
      if (name.size() == key.size() && SameBytes(name.data(), key.data(), key.size())) {
        return hints[ordinal];
      }
    }
    return Search(fields, level, ordinal, key);
  }
  // Locate's binary search, which sets the hint.
  size_t Search(const std::vector<InferredField>& fields, Level& level, uint32_t ordinal,
                std::string_view key);
  std::vector<std::unique_ptr<Level>> levels_;
};

/// Infer one record from its text with a scanner of its own, for records whose simdjson index
/// (4 bytes for every token) would take several times the record's size: the same rules, in
/// memory that does not grow with the record. The scanner is strict (RFC 8259, Jackson's NaN
/// and Infinity tokens, one value and nothing but whitespace after it); for a record it
/// accepts, simdjson accepts it too and the walk merges exactly what the simdjson walk would.
/// Any other outcome is not a verdict: the caller reads the record with simdjson instead, for
/// its own verdict and message.
///
/// `json` must be followed by at least 32 readable bytes (AddPaddedRecord's padding): string
/// contents are searched 32 bytes at a time.
///
/// `root` is the struct inferred so far and `root_type` gets the record's type when its root
/// is not an object, as the simdjson walk's Document does; both null to check the record only.
InferOutcome InferWithScanner(std::string_view json, JsonTypeRules& rules, FieldSlots& slots,
                              InferredType* root, InferredType* root_type);

}  // namespace sluice::data::internal
