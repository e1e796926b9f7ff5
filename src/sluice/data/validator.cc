#include "sluice/data/validator.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/data/json_text_internal.h"
#include "sluice/data/lexical_internal.h"
#include "sluice/data/name_index_internal.h"
#include "sluice/data/parquet_values_internal.h"
#include "sluice/data/rescued_object_internal.h"
#include "sluice/data/validator_internal.h"
#include "sluice/schema/field_path.h"

namespace sluice::data {

using schema::TypeKind;

namespace {

using Node = ValidationPlan::Node;
constexpr size_t kMaxViolationsPerRecord = 64;

using internal::AppendJsonQuoted;
using internal::CheckJsonEscape;
using internal::CodePoints;
using internal::CsvValue;
using internal::DecimalResult;
using internal::FindStringSpecial;
using internal::IntRange;
using internal::IsJsonSpace;
using internal::IsNonNumericToken;
using internal::IsSpecialFloatString;
using internal::JsonEscape;
using internal::KeyFits;
using internal::kJsonDelimiter;
using internal::NormalizeDecimal;
using internal::NumberShape;
using internal::TextFits;
using internal::UnescapeJsonString;
using internal::Utf8Sequence;

struct Frame {
  // A struct field's name is its node's (set per field, one store, read only for messages);
  // any other key (a map's, an unknown field's) is `name`.
  const std::string* field = nullptr;
  std::string_view name;
  int64_t index = -1;  // an array index, when >= 0
  void SetKey(std::string_view key) {
    field = nullptr;
    name = key;
  }
};

// The frames of the place being read, outermost first. A frame is written in place, field by
// field: one built on the stack and copied in is read back by a load wider than the stores
// that wrote it, which waits for them to retire, once for every object and array.
class FrameStack {
 public:
  __attribute__((always_inline)) void Push(int64_t index) {
    if (used_ == slots_.size()) [[unlikely]]
      Grow();
    Frame& f = slots_[used_++];
    f.field = nullptr;
    f.name = {};
    f.index = index;
  }
  void Pop() { --used_; }
  Frame& back() { return slots_[used_ - 1]; }
  __attribute__((noinline)) void Grow() { slots_.resize(std::max<size_t>(32, 2 * slots_.size())); }
  void clear() { used_ = 0; }
  const Frame* begin() const { return slots_.data(); }
  const Frame* end() const { return slots_.data() + used_; }

 private:
  std::vector<Frame> slots_;
  size_t used_ = 0;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Reading a JSON record: one pass over its bytes that checks the grammar (RFC 8259, plus
// Jackson's NaN/Infinity tokens), walks the schema plan at the same time and writes the output
// line as it goes. Tokens are kept as their raw text, so a rescued value is exactly what the
// record held.

namespace {

// An integer token (NumberShape 1) as int64; false when it does not fit.
inline bool IntegerValue(std::string_view t, int64_t* value) {
  bool negative = !t.empty() && t[0] == '-';
  size_t i = negative ? 1 : 0;
  uint64_t acc = 0;
  for (; i < t.size(); ++i) {
    uint64_t d = static_cast<uint64_t>(t[i] - '0');
    if (acc > (UINT64_MAX - d) / 10) return false;
    acc = acc * 10 + d;
  }
  if (negative) {
    if (acc > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *value = acc == static_cast<uint64_t>(INT64_MAX) + 1 ? INT64_MIN : -static_cast<int64_t>(acc);
  } else {
    if (acc > static_cast<uint64_t>(INT64_MAX)) return false;
    *value = static_cast<int64_t>(acc);
  }
  return true;
}

// Whether a JSON number token is already a decimal(p,s) as sluice writes it: exactly s fraction
// digits, no exponent, no leading zeros, no negative zero, and at most p digits. If so, and p is
// at most 18, *unscaled (when given) is its unscaled value.
inline bool DecimalAsWritten(std::string_view t, int precision, int scale,
                             int64_t* unscaled = nullptr) {
  if (scale <= 0) return false;
  size_t i = 0;
  const size_t n = t.size();
  const bool negative = n > 0 && t[0] == '-';
  if (negative) ++i;
  const size_t int_start = i;
  // The digits' value: exact for the at most 18 digits of an accepted decimal of p <= 18 (past
  // 19 digits the unsigned arithmetic wraps, and the precision check fails).
  uint64_t v = 0;
  while (i < n && t[i] >= '0' && t[i] <= '9') v = v * 10 + static_cast<unsigned>(t[i++] - '0');
  const size_t int_len = i - int_start;
  if (int_len == 0 || (int_len > 1 && t[int_start] == '0')) return false;
  const bool int_zero = int_len == 1 && t[int_start] == '0';
  if (negative && int_zero) return false;
  if (i >= n || t[i] != '.') return false;
  ++i;
  const size_t frac_start = i;
  while (i < n && t[i] >= '0' && t[i] <= '9') v = v * 10 + static_cast<unsigned>(t[i++] - '0');
  if (i != n || i - frac_start != static_cast<size_t>(scale)) return false;
  if ((int_zero ? 0 : int_len) + static_cast<size_t>(scale) > static_cast<size_t>(precision)) {
    return false;
  }
  if (unscaled != nullptr && precision <= 18) {
    *unscaled = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  }
  return true;
}

// What a bare token is.
enum class Atom : uint8_t { kInvalid, kNull, kTrue, kFalse, kInteger, kFloat, kNonNumeric };
inline Atom ClassifyAtom(std::string_view t) {
  if (t.empty()) return Atom::kInvalid;
  switch (t[0]) {
    case 'n':
      return t.size() == 4 && SameBytes(t.data(), "null", 4) ? Atom::kNull : Atom::kInvalid;
    case 't':
      return t.size() == 4 && SameBytes(t.data(), "true", 4) ? Atom::kTrue : Atom::kInvalid;
    case 'f':
      return t.size() == 5 && SameBytes(t.data(), "false", 5) ? Atom::kFalse : Atom::kInvalid;
    default:
      break;
  }
  switch (NumberShape(t)) {
    case 1:
      return Atom::kInteger;
    case 2:
      return Atom::kFloat;
    default:
      break;
  }
  return IsNonNumericToken(t) ? Atom::kNonNumeric : Atom::kInvalid;
}

// Where a JSON record's output line is written: a window of a std::string's storage, filled
// without per-write capacity checks beyond one compare; when it runs out, `overflow` is set and
// the record is redone with a larger window.
class Out {
 public:
  Out(char* begin, char* limit) : begin_(begin), pos_(begin), limit_(limit) {}
  __attribute__((always_inline)) Out& operator+=(char c) {
    if (pos_ < limit_) {
      *pos_++ = c;
    } else {
      overflow_ = !discard_;
    }
    return *this;
  }
  __attribute__((always_inline)) Out& operator+=(std::string_view s) {
    const size_t n = s.size();
    if (n > static_cast<size_t>(limit_ - pos_)) {
      overflow_ = !discard_;
      return *this;
    }
    // Tokens are short: copied with a few overlapping moves instead of a call.
    CopyBytes(pos_, s.data(), n);
    pos_ += n;
    return *this;
  }
  size_t size() const { return static_cast<size_t>(pos_ - begin_); }
  void resize(size_t n) {
    if (n < size()) pos_ = begin_ + n;
  }
  bool overflow() const { return overflow_; }
  /// Drop what was written and what will be: the record is bad and its line is not kept, so
  /// nothing of a large bad record is written out (and no lack of room matters any more).
  void Discard() {
    pos_ = begin_;
    limit_ = begin_;
    discard_ = true;
    overflow_ = false;
  }

 private:
  char* begin_;
  char* pos_;
  char* limit_;
  bool overflow_ = false;
  bool discard_ = false;
};

}  // namespace

// Aligned to its own cache lines: validators of different threads are allocated side by side, and
// the scanner writes its cursor on every token (false sharing made two threads slower than one).
struct alignas(128) RecordValidator::Impl {
  std::shared_ptr<const ValidationPlan> plan;
  const std::vector<Node>* nodes = nullptr;
  uint32_t max_depth = 1000;
  RecordResult result;
  internal::RescuedObject rescued;  // what did not fit, as views of the record's text
  // The record's own value of the rescued column, if any: a view of the record's text, or of
  // prior_rescued_text (a CSV value made JSON).
  std::string_view prior_rescued;
  std::string prior_rescued_text;
  FrameStack frames;
  std::vector<std::vector<uint8_t>> seen;     // per depth: which fields of the object were seen
  std::vector<std::string> key_store;         // per depth: the current key, unescaped
  std::vector<internal::StringSet> map_keys;  // per depth: a map's keys so far
  std::string scratch;                        // a member name as JSON, for the rescued column
  std::string content;                        // a string's content with escapes resolved
  std::string decimal;                        // a decimal's normalized text
  std::string rescued_key;                    // "<rescued column>": as JSON
  std::string skip_stack;                     // open brackets while skipping a value
  // The order keys come in, learned from the records read so far: for the node at index i,
  // key_order[i] is the position (among its siblings) of the key that followed it last time,
  // and key_order[nodes + c] that of the first key of the struct whose first child is at c
  // (a struct's children are a range of their own). The object walk tries that field's
  // name first. Records of one producer keep one order, which need not be the schema's (Spark
  // infers fields in alphabetical order); until a record says otherwise, the schema's order.
  std::vector<uint32_t> key_order;
  bool fatal = false;
  bool needs_rescue = false;
  // The record carries new fields the options allow: kept in the rescued column.
  bool kept_new = false;
  // How many entries of result.violations are kNewColumn notes.
  size_t notes = 0;
  uint32_t depth = 0;
  std::string malformed_message;
  std::string_view file;
  // The record being read.
  const char* begin = nullptr;
  const char* p = nullptr;
  const char* end = nullptr;
  // The tape of the record being read (CheckJson with a tape), or null: its map, where the
  // record's entries start, and the repetition level of the next value.
  LeafTape* tape = nullptr;
  const TapeMap* tape_map = nullptr;
  size_t tape_first = 0;
  int16_t tape_rep = 0;
  // What the value just read is, when it is more than its output text (WalkNoted).
  // Each part is stored and loaded whole (a load across two narrower stores waits for them to
  // retire): the kind of note, kValue for none, and its value or span (begin, size << 32).
  TapeOp note_op = TapeOp::kValue;
  uint64_t note_bits = 0;

  explicit Impl(std::shared_ptr<const ValidationPlan> pl) : plan(std::move(pl)) {
    nodes = &plan->nodes();
    max_depth = plan->options().max_depth;
    AppendJsonString(rescued_key, plan->options().rescued_column);
    rescued_key += ':';
    // One slot per nesting level, made up front: a nested walk must never reallocate these
    // while an outer level holds a reference into them.
    seen.resize(static_cast<size_t>(max_depth) + 2);
    key_store.resize(static_cast<size_t>(max_depth) + 2);
    map_keys.resize(static_cast<size_t>(max_depth) + 2);
    key_order.assign(2 * nodes->size() + 1, 0);
    for (const Node& n : *nodes) {
      for (uint32_t i = 0; i < n.child_count; ++i) key_order[n.first_child + i] = i + 1;
    }
  }

  const Node& child(const Node& n, uint32_t i) const { return (*nodes)[n.first_child + i]; }

  // Empty a map's key set for the next map. A set that held many keys is replaced: clear()
  // keeps its buckets and would cost the largest map's size on every small map after it.
  static void ResetKeySet(internal::StringSet& keys) {
    if (keys.bucket_count() > 64) {
      keys = internal::StringSet();
    } else {
      keys.clear();
    }
  }

  // Whether the record has all the violations it keeps: callers that build a path for one may
  // skip it.
  bool ViolationsFull() const { return result.violations.size() >= kMaxViolationsPerRecord; }

  void Violation(std::string path, ViolationKind kind, std::string detail = {}) {
    if (!ViolationsFull()) {
      result.violations.push_back({std::move(path), kind, std::move(detail)});
    }
  }

  // The record's own path of the current place, with indexes: `items[2].qty`.
  std::string RuntimePath() const {
    std::string path;
    for (const Frame& f : frames) {
      if (f.index >= 0) {
        path += '[';
        path += std::to_string(f.index);
        path += ']';
      } else {
        if (!path.empty()) path += '.';
        path += f.field != nullptr ? std::string_view(*f.field) : f.name;
      }
    }
    return path;
  }

  // Add a member to the rescued object: `raw_json` is a view of the record's text. Its name is
  // the value's place; a place rescued twice in one record (a duplicate key whose first value
  // was rescued too) gets `#2`, `#3`, ... so the object's names stay unique.
  void AddRescued(std::string_view raw_json) {
    needs_rescue = true;
    rescued.Add(RuntimePath(), raw_json);
  }
  // The same for text that is not JSON (a CSV value, a bare NaN token): rescued as a string.
  void AddRescuedString(std::string_view text) {
    needs_rescue = true;
    rescued.AddString(RuntimePath(), text);
  }
  // Whether an unknown key is a new field the options allow (it is then kept, not rescued).
  bool NewFieldAllowed(bool case_variant) const {
    return !case_variant && plan->options().allow_new_fields &&
           !plan->options().rescued_column.empty();
  }
  // An allowed new field at `path`, its value (JSON, or text when `is_text`) kept.
  void KeepNewField(std::string path, std::string_view value, bool is_text) {
    if (!ViolationsFull()) {
      result.violations.push_back({std::move(path), ViolationKind::kNewColumn, {}});
      ++notes;
    }
    kept_new = true;
    if (is_text) {
      rescued.AddString(RuntimePath(), value);
    } else {
      rescued.Add(RuntimePath(), value);
    }
  }

  bool Malformed(std::string message) {
    malformed_message = std::move(message);
    return false;
  }

  void SkipSpace() { p = internal::SkipJsonSpace(p, end); }

  // A string token at p (its opening quote). On success p is past the closing quote, `body`
  // holds the bytes between the quotes and `escaped` says whether it has escapes.
  bool ScanString(std::string_view* body, bool* escaped) {
    const char* s = ++p;
    bool esc = false;
    while (true) {
      const char* q = FindStringSpecial(p, end);
      if (q >= end) return Malformed("unterminated string");
      unsigned char c = static_cast<unsigned char>(*q);
      if (c == '"') {
        *body = std::string_view(s, static_cast<size_t>(q - s));
        *escaped = esc;
        p = q + 1;
        return true;
      }
      if (c == '\\') {
        esc = true;
        size_t length = 0;
        switch (CheckJsonEscape(q, end, &length)) {
          case JsonEscape::kValid:
            p = q + length;
            continue;
          case JsonEscape::kUnterminated:
            return Malformed("unterminated string");
          case JsonEscape::kInvalid:
            return Malformed("invalid escape in a string");
          case JsonEscape::kInvalidUnicode:
            return Malformed("invalid \\u escape in a string");
          case JsonEscape::kLoneSurrogate:
            return Malformed("lone surrogate in a string");
        }
      }
      if (c < 0x20) return Malformed("control character in a string");
      int len = Utf8Sequence(q, end);
      if (len == 0) return Malformed("invalid UTF-8 in a string");
      p = q + len;
    }
  }

  // A bare token at p (a number or literal); p moves past it.
  std::string_view ScanAtom() {
    const char* s = p;
    p = internal::FindTokenEnd(p, end);
    return std::string_view(s, static_cast<size_t>(p - s));
  }

  // Check one whole value at p and return its text; p moves past it.
  bool SkipValue(std::string_view* raw) {
    const char* s = p;
    skip_stack.clear();
    while (true) {
      // A value is expected at p.
      SkipSpace();
      if (p >= end) return Malformed("missing value");
      char c = *p;
      if (c == '{' || c == '[') {
        if (depth + skip_stack.size() + 1 > max_depth)
          return Malformed("nesting deeper than the limit");
        skip_stack.push_back(c);
        ++p;
        SkipSpace();
        if (p < end && *p == (c == '{' ? '}' : ']')) {
          ++p;
          skip_stack.pop_back();
        } else {
          if (c == '{' && !SkipKey()) return false;
          continue;
        }
      } else if (c == '"') {
        std::string_view body;
        bool esc = false;
        if (!ScanString(&body, &esc)) return false;
      } else {
        std::string_view atom = ScanAtom();
        if (ClassifyAtom(atom) == Atom::kInvalid) return Malformed(InvalidToken(atom));
      }
      // After a value: close brackets, or go on to the next member or element.
      bool next = false;
      while (!skip_stack.empty()) {
        SkipSpace();
        if (p >= end) return Malformed("the record ends inside an object or array");
        char top = skip_stack.back();
        if (*p == ',') {
          ++p;
          if (top == '{') {
            SkipSpace();
            if (!SkipKey()) return false;
          }
          next = true;
          break;
        }
        if (*p != (top == '{' ? '}' : ']')) {
          return Malformed(top == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
        }
        ++p;
        skip_stack.pop_back();
      }
      if (next) continue;
      *raw = std::string_view(s, static_cast<size_t>(p - s));
      return true;
    }
  }

  // `"key" :` at p (after whitespace).
  bool SkipKey() {
    if (p >= end || *p != '"') return Malformed("expected a key");
    std::string_view body;
    bool esc = false;
    if (!ScanString(&body, &esc)) return false;
    return Colon();
  }

  inline __attribute__((always_inline)) bool Colon() {
    SkipSpace();
    if (p >= end || *p != ':') return Malformed("expected ':'");
    ++p;
    SkipSpace();
    if (p >= end) return Malformed("missing value");
    return true;
  }

  static std::string InvalidToken(std::string_view atom) {
    if (atom.empty()) return "missing value";
    return "invalid token " + EscapeForMessage(atom, 40);
  }

  // The record cannot be represented: it will be bad, so its line is no longer written.
  void Fatal(Out& out) {
    fatal = true;
    out.Discard();
  }

  // A value that does not fit `n`: report it, rescue its text, write null.
  void Mismatch(const Node& n, ViolationKind kind, std::string_view raw, Out& out,
                std::string detail = {}) {
    if (!n.refused.empty()) {  // a typed source's column read with loss: every value
      kind = ViolationKind::kTypeMismatch;
      detail = n.refused;
    }
    Violation(n.path, kind, std::move(detail));
    if (!n.nullable) Fatal(out);
    AddRescued(raw);
    out += "null";
  }

  // Mismatch for a bare NaN/Infinity token, rescued as a JSON string (it is not JSON text).
  void MismatchText(const Node& n, ViolationKind kind, std::string_view text, Out& out) {
    if (!n.refused.empty()) {
      Violation(n.path, ViolationKind::kTypeMismatch, n.refused);
    } else {
      Violation(n.path, kind);
    }
    if (!n.nullable) Fatal(out);
    AddRescuedString(text);
    out += "null";
  }

  size_t IndexOf(const Node& n) const { return static_cast<size_t>(&n - nodes->data()); }
  // Put `e` on the tape for writer node `w` at the current repetition level (a place the writer
  // does not store, w < 0, has none).
  void PushEntry(int32_t w, TapeOp op, bool in_record, uint32_t b, uint32_t size) {
    if (w < 0) return;
    tape->Push(static_cast<uint32_t>(w), tape_rep, op, in_record, b, size);
  }
  // An entry of place `n` whose span is [b, b + size) of the output line.
  void Tape(TapeOp op, const Node& n, size_t b, size_t size) {
    PushEntry(tape_map->node[IndexOf(n)], op, false, static_cast<uint32_t>(b),
              static_cast<uint32_t>(size));
  }
  // What the value being read is, for WalkNoted: an integer, a boolean, null, or text of the
  // record that converts to it.
  template <bool kTape>
  void NoteValue(TapeOp op, int64_t v) {
    if constexpr (!kTape) return;
    note_op = op;
    note_bits = static_cast<uint64_t>(v);
  }
  template <bool kTape>
  void NoteText(std::string_view text) {
    if constexpr (!kTape) return;
    note_op = TapeOp::kText;
    note_bits =
        static_cast<uint32_t>(text.data() - begin) | (static_cast<uint64_t>(text.size()) << 32);
  }
  // The repetition level of the later entries of array or map `n`.
  int16_t NextRep(const Node& n) const { return tape_map->next_rep[IndexOf(n)]; }

  // WalkValue, and with a tape an entry for the value unless it was walked as an object or
  // array (whose members and elements have their own): a leaf's value, or the null a misfit
  // becomes.
  template <bool kTape>
  inline __attribute__((always_inline)) bool WalkNoted(const Node& n, Out& out) {
    if constexpr (!kTape) return WalkValue<false>(n, out);
    const size_t b = out.size();
    const char c = *p;
    note_op = TapeOp::kValue;
    if (!WalkValue<true>(n, out)) return false;
    const bool walked = (c == '{' && (n.kind == TypeKind::kStruct || n.kind == TypeKind::kMap)) ||
                        (c == '[' && n.kind == TypeKind::kArray);
    if (walked) return true;
    const int32_t w = tape_map->node[IndexOf(n)];
    if (note_op != TapeOp::kValue) {
      PushEntry(w, note_op, note_op == TapeOp::kText, static_cast<uint32_t>(note_bits),
                static_cast<uint32_t>(note_bits >> 32));
    } else {
      PushEntry(w, TapeOp::kValue, false, static_cast<uint32_t>(b),
                static_cast<uint32_t>(out.size() - b));
    }
    return true;
  }

  // The common numbers in one pass over their digits: an integer in range for an integer
  // place, a decimal written with exactly its scale's digits for a decimal place, a number
  // without an exponent for a float, double or string place (what
  // WalkAtom accepts there after ScanAtom, ClassifyAtom and IntegerValue or DecimalAsWritten
  // have each read the token). False, with p where it was, for anything else, which the
  // general path then reads.
  template <bool kTape>
  __attribute__((always_inline)) bool WalkPlainNumber(const Node& n, Out& out) {
    if (n.kind == TypeKind::kFloat64 || n.kind == TypeKind::kFloat32) {
      return WalkPlainFloat<kTape>(n, out);
    }
    if (n.kind == TypeKind::kString) {
      return *p != '"' && n.max_length < 0 && WalkPlainFloat<kTape>(n, out);
    }
    const bool integer = n.kind == TypeKind::kInt64 || n.kind == TypeKind::kInt32 ||
                         n.kind == TypeKind::kInt16 || n.kind == TypeKind::kInt8;
    if (!integer && !(n.kind == TypeKind::kDecimal && n.scale > 0 && n.precision <= 18)) {
      return false;
    }
    const char* q = p;
    const bool negative = q < end && *q == '-';
    q += negative;
    const char* const digits = q;
    uint64_t v = 0;
    // At most 18 digits: their value fits without a check; a longer number takes the general
    // path, as does one whose next byte is not a delimiter.
    while (q < end && q - digits < 18 && static_cast<unsigned>(*q - '0') < 10) {
      v = v * 10 + static_cast<unsigned>(*q++ - '0');
    }
    const size_t int_len = static_cast<size_t>(q - digits);
    if (int_len == 0 || (int_len > 1 && *digits == '0')) return false;
    int64_t value = 0;
    if (integer) {
      if (q < end && !kJsonDelimiter[static_cast<unsigned char>(*q)]) return false;
      value = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
      int64_t lo = 0;
      int64_t hi = 0;
      IntRange(n.kind, &lo, &hi);
      if (value < lo || value > hi) return false;
    } else {
      const bool int_zero = int_len == 1 && *digits == '0';
      if (negative && int_zero) return false;
      if (q >= end || *q != '.') return false;
      const char* const frac = ++q;
      while (q < end && q - frac < n.scale && static_cast<unsigned>(*q - '0') < 10) {
        v = v * 10 + static_cast<unsigned>(*q++ - '0');
      }
      if (q - frac != n.scale) return false;
      if (q < end && !kJsonDelimiter[static_cast<unsigned char>(*q)]) return false;
      if ((int_zero ? 0 : int_len) + static_cast<size_t>(n.scale) >
          static_cast<size_t>(n.precision)) {
        return false;
      }
      value = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    }
    out += std::string_view(p, static_cast<size_t>(q - p));
    p = q;
    NoteValue<kTape>(integer ? TapeOp::kInt : TapeOp::kDecimal, value);
    return true;
  }

  // A number without an exponent for a float or double place: with at most 38 (float) or 300
  // (double) integer digits its magnitude is below 10^38 or 10^300, finite in its type, so the
  // grammar is all there is to check (what WalkAtom's JavaDoubleValue would have found). For a
  // string place of any length (Spark keeps a number's text), the same, written quoted.
  template <bool kTape>
  __attribute__((always_inline)) bool WalkPlainFloat(const Node& n, Out& out) {
    const bool text = n.kind == TypeKind::kString;
    const long max_digits = text                           ? std::numeric_limits<long>::max()
                            : n.kind == TypeKind::kFloat64 ? 300
                                                           : 38;
    const char* q = p;
    q += q < end && *q == '-';
    const char* const digits = q;
    while (q < end && static_cast<unsigned>(*q - '0') < 10) ++q;
    const long int_len = q - digits;
    if (int_len == 0 || int_len > max_digits || (int_len > 1 && *digits == '0')) return false;
    if (q < end && *q == '.') {
      const char* const frac = ++q;
      while (q < end && static_cast<unsigned>(*q - '0') < 10) ++q;
      if (q == frac) return false;
    }
    if (q < end && !kJsonDelimiter[static_cast<unsigned char>(*q)]) return false;
    const std::string_view token(p, static_cast<size_t>(q - p));
    if (text) out += '"';
    out += token;
    if (text) out += '"';
    p = q;
    NoteText<kTape>(token);
    return true;
  }

  // Read the value at p for place `n`, appending its output to `out`. Inline in the walks: a
  // number that fits its place, a null in a nullable place, any string, an object for a
  // struct and an array for an array. The rest (maps, misfits, other tokens) is WalkAnyValue's,
  // whose frame costs more to set up than a common value costs to read.
  template <bool kTape>
  __attribute__((always_inline)) bool WalkValue(const Node& n, Out& out) {
    if (WalkPlainNumber<kTape>(n, out)) return true;
    const char c = *p;
    if (c == 'n' && n.nullable && end - p >= 4 && SameBytes(p, "null", 4) &&
        (end - p == 4 || kJsonDelimiter[static_cast<unsigned char>(p[4])])) {
      p += 4;
      out += std::string_view("null", 4);
      NoteValue<kTape>(TapeOp::kNull, 0);
      return true;
    }
    if (c == '"') {
      const char* start = p;
      std::string_view body;
      bool esc = false;
      // A string of plain ASCII, without escapes, found whole here; any other by ScanString.
      const char* q = FindStringSpecial(p + 1, end);
      if (q < end && *q == '"') {
        body = std::string_view(p + 1, static_cast<size_t>(q - p - 1));
        p = q + 1;
      } else if (!ScanString(&body, &esc)) {
        return false;
      }
      const std::string_view token(start, static_cast<size_t>(p - start));
      if (n.kind == TypeKind::kString && n.max_length < 0) {
        out += token;
        if (!esc) NoteText<kTape>(body);
        return true;
      }
      return WalkString<kTape>(n, token, body, esc, out);
    }
    if (c == '{' && n.kind == TypeKind::kStruct) return WalkObject<kTape>(n, out, false);
    if (c == '[' && n.kind == TypeKind::kArray) return WalkArray<kTape>(n, out);
    return WalkAnyValue<kTape>(n, out);
  }

  // What WalkValue leaves: never a string, an object for a struct or an array for an array.
  template <bool kTape>
  __attribute__((noinline)) bool WalkAnyValue(const Node& n, Out& out) {
    const char c = *p;
    if (c == '{' || c == '[') {
      if (c == '{' && n.kind == TypeKind::kMap) return WalkMap<kTape>(n, out);
      std::string_view raw;
      if (!SkipValue(&raw)) return false;
      if (n.kind == TypeKind::kString) return StringFromText<kTape>(n, raw, out);
      Mismatch(n, ViolationKind::kTypeMismatch, raw, out,
               c == '{' ? "an object does not fit" : "an array does not fit");
      return true;
    }
    std::string_view atom = ScanAtom();
    Atom kind = ClassifyAtom(atom);
    if (kind == Atom::kInvalid) return Malformed(InvalidToken(atom));
    if (kind == Atom::kNull) {
      if (!n.nullable) {
        Violation(n.path, ViolationKind::kNullNotAllowed);
        Fatal(out);
      }
      out += "null";
      NoteValue<kTape>(TapeOp::kNull, 0);
      return true;
    }
    return WalkAtom<kTape>(n, atom, kind, out);
  }

  // A string (or any value's text) for a string column: Spark keeps non-strings as JSON text.
  // `plain`: the text needs no escaping (a number or literal), so it is noted as the value.
  template <bool kTape>
  bool StringFromText(const Node& n, std::string_view raw, Out& out, bool plain = false) {
    if (n.max_length >= 0 && CodePoints(raw) > static_cast<size_t>(n.max_length)) {
      Mismatch(n, ViolationKind::kStringTooLong, raw, out);
      return true;
    }
    if (plain) {
      // A number or literal token: ASCII letters, digits and signs, nothing to escape.
      out += '"';
      out += raw;
      out += '"';
      NoteText<kTape>(raw);
      return true;
    }
    AppendJsonQuoted(out, raw);
    return true;
  }

  std::string_view Content(std::string_view body, bool esc) {
    if (!esc) return body;
    UnescapeJsonString(body, content);
    return content;
  }

  template <bool kTape>
  bool WalkString(const Node& n, std::string_view token, std::string_view body, bool esc,
                  Out& out) {
    switch (n.kind) {
      case TypeKind::kString:
        if (n.max_length >= 0 &&
            CodePoints(Content(body, esc)) > static_cast<size_t>(n.max_length)) {
          Mismatch(n, ViolationKind::kStringTooLong, token, out);
          return true;
        }
        out += token;
        if (!esc) NoteText<kTape>(body);
        return true;
      case TypeKind::kFloat32:
      case TypeKind::kFloat64:
        if (IsSpecialFloatString(Content(body, esc))) {
          out += token;
          return true;
        }
        Mismatch(n, ViolationKind::kTypeMismatch, token, out, "expected a number");
        return true;
      case TypeKind::kDecimal: {
        std::string_view text = Content(body, esc);
        std::string stripped;
        if (text.find(',') != std::string_view::npos) {
          for (char ch : text) {
            if (ch != ',') stripped += ch;
          }
          text = stripped;
        }
        return WalkDecimal(n, text, token, out);
      }
      case TypeKind::kDate:
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampNtz:
        if constexpr (kTape) {
          if (!esc) return WalkTemporal(n, token, body, out);
        }
        [[fallthrough]];
      case TypeKind::kTime:
      case TypeKind::kUuid:
      case TypeKind::kBinary: {
        if (!TextFits(n, Content(body, esc))) {
          ViolationKind kind = n.kind == TypeKind::kDate ? ViolationKind::kInvalidDate
                               : (n.kind == TypeKind::kTimestamp ||
                                  n.kind == TypeKind::kTimestampNtz || n.kind == TypeKind::kTime)
                                   ? ViolationKind::kInvalidTimestamp
                                   : ViolationKind::kTypeMismatch;
          Mismatch(n, kind, token, out);
          return true;
        }
        out += token;
        if (!esc) NoteText<kTape>(body);
        return true;
      }
      case TypeKind::kBoolean:
        Mismatch(n, ViolationKind::kTypeMismatch, token, out, "expected a boolean");
        return true;
      case TypeKind::kInt8:
      case TypeKind::kInt16:
      case TypeKind::kInt32:
      case TypeKind::kInt64:
        Mismatch(n, ViolationKind::kTypeMismatch, token, out, "expected an integer");
        return true;
      case TypeKind::kStruct:
        Mismatch(n, ViolationKind::kTypeMismatch, token, out, "expected an object");
        return true;
      case TypeKind::kMap:
        Mismatch(n, ViolationKind::kTypeMismatch, token, out, "expected an object");
        return true;
      case TypeKind::kArray:
        Mismatch(n, ViolationKind::kTypeMismatch, token, out, "expected an array");
        return true;
      case TypeKind::kNull:
        Mismatch(n, ViolationKind::kTypeMismatch, token, out, "expected null");
        return true;
    }
    return true;
  }

  // A date or timestamp string without escapes, with a tape: checked as TextFits checks it, and
  // noted as the value the writer stores when it converts (else as its text, which the writer
  // converts or refuses itself; a time alone takes today's date when the writer reads it).
  bool WalkTemporal(const Node& n, std::string_view token, std::string_view body, Out& out) {
    internal::DateTimeFields f;
    const bool date = n.kind == TypeKind::kDate;
    if (!internal::TemporalFits(n, body, &f)) {
      Mismatch(n, date ? ViolationKind::kInvalidDate : ViolationKind::kInvalidTimestamp, token,
               out);
      return true;
    }
    out += token;
    if (date) {
      int32_t days = 0;
      if (internal::DateFromFields(f, &days)) {
        NoteValue<true>(TapeOp::kStored, days);
        return true;
      }
    } else if (!f.time_only) {
      const auto unit = static_cast<schema::TimeUnit>(tape_map->unit[IndexOf(n)]);
      int64_t value = 0;
      const char* why = "";
      if (internal::TimestampFromFields(f, unit, n.kind == TypeKind::kTimestampNtz, &value, &why)) {
        NoteValue<true>(TapeOp::kStored, value);
        return true;
      }
    }
    NoteText<true>(body);
    return true;
  }

  bool WalkDecimal(const Node& n, std::string_view text, std::string_view token, Out& out) {
    decimal.clear();
    switch (NormalizeDecimal(text, n.precision, n.scale, decimal)) {
      case DecimalResult::kOk:
        out += decimal;
        return true;
      case DecimalResult::kNotANumber:
        Mismatch(n, ViolationKind::kTypeMismatch, token, out, "expected a decimal");
        return true;
      case DecimalResult::kPrecision:
        Mismatch(n, ViolationKind::kDecimalPrecision, token, out);
        return true;
    }
    return true;
  }

  // A number or boolean token (not null) for place `n`.
  template <bool kTape>
  bool WalkAtom(const Node& n, std::string_view atom, Atom kind, Out& out) {
    switch (n.kind) {
      case TypeKind::kString:
        return StringFromText<kTape>(n, atom, out, /*plain=*/true);
      case TypeKind::kBoolean:
        if (kind == Atom::kTrue || kind == Atom::kFalse) {
          out += atom;
          NoteValue<kTape>(TapeOp::kBool, kind == Atom::kTrue ? 1 : 0);
          return true;
        }
        break;
      case TypeKind::kInt8:
      case TypeKind::kInt16:
      case TypeKind::kInt32:
      case TypeKind::kInt64: {
        if (kind == Atom::kInteger) {
          int64_t value = 0;
          int64_t lo = 0;
          int64_t hi = 0;
          IntRange(n.kind, &lo, &hi);
          if (!IntegerValue(atom, &value) || value < lo || value > hi) {
            Mismatch(n, ViolationKind::kOutOfRange, atom, out);
            return true;
          }
          out += atom;
          NoteValue<kTape>(TapeOp::kInt, value);
          return true;
        }
        if (kind == Atom::kNonNumeric) {
          MismatchText(n, ViolationKind::kTypeMismatch, atom, out);
          return true;
        }
        Mismatch(n, ViolationKind::kTypeMismatch, atom, out, "expected an integer");
        return true;
      }
      case TypeKind::kFloat32:
      case TypeKind::kFloat64: {
        if (kind == Atom::kNonNumeric) {
          AppendJsonQuoted(out, atom);
          return true;
        }
        if (kind == Atom::kInteger || kind == Atom::kFloat) {
          double d = internal::JavaDoubleValue(atom);
          if (!std::isfinite(d) || (n.kind == TypeKind::kFloat32 && !internal::FitsFloat(d))) {
            Mismatch(n, ViolationKind::kOutOfRange, atom, out);
            return true;
          }
          out += atom;
          NoteText<kTape>(atom);
          return true;
        }
        break;
      }
      case TypeKind::kDecimal:
        if (int64_t unscaled = 0;
            kind == Atom::kFloat &&
            DecimalAsWritten(atom, n.precision, n.scale, kTape ? &unscaled : nullptr)) {
          out += atom;
          if (n.precision <= 18) {
            NoteValue<kTape>(TapeOp::kDecimal, unscaled);
          } else {
            NoteText<kTape>(atom);
          }
          return true;
        }
        if (kind == Atom::kInteger || kind == Atom::kFloat) return WalkDecimal(n, atom, atom, out);
        if (kind == Atom::kNonNumeric) {
          MismatchText(n, ViolationKind::kTypeMismatch, atom, out);
          return true;
        }
        Mismatch(n, ViolationKind::kTypeMismatch, atom, out, "expected a decimal");
        return true;
      case TypeKind::kTimestamp:
        if (kind == Atom::kInteger) {
          // Seconds since the epoch, as Spark reads an integer into a timestamp; the
          // microseconds must fit a long, and so must the value in the place's own unit.
          int64_t secs = 0;
          int64_t stored = 0;
          if (!IntegerValue(atom, &secs) || secs > INT64_MAX / 1000000 ||
              secs < INT64_MIN / 1000000 ||
              !internal::TimestampFromSeconds(secs, static_cast<schema::TimeUnit>(n.unit),
                                              &stored)) {
            Mismatch(n, ViolationKind::kOutOfRange, atom, out);
            return true;
          }
          out += atom;
          NoteValue<kTape>(TapeOp::kInt, secs);
          return true;
        }
        break;
      case TypeKind::kDate:
      case TypeKind::kTimestampNtz:
      case TypeKind::kTime:
      case TypeKind::kUuid:
      case TypeKind::kBinary:
      case TypeKind::kStruct:
      case TypeKind::kArray:
      case TypeKind::kMap:
      case TypeKind::kNull:
        break;
    }
    if (kind == Atom::kNonNumeric) {
      MismatchText(n, ViolationKind::kTypeMismatch, atom, out);
      return true;
    }
    Mismatch(n, ViolationKind::kTypeMismatch, atom, out);
    return true;
  }

  // After a member or element: ',' (more follow) or the closing bracket; anything else makes
  // the record malformed.
  enum class Next : uint8_t { kMore, kDone, kError };
  // Inline in the walks: it runs after every member and item.
  __attribute__((always_inline)) Next AfterItem(char close) {
    if (p < end && *p == ',') [[likely]] {
      ++p;
      return Next::kMore;
    }
    SkipSpace();
    if (p < end && *p == ',') {
      ++p;
      return Next::kMore;
    }
    if (p < end && *p == close) {
      ++p;
      return Next::kDone;
    }
    return AfterItemError(close);
  }
  __attribute__((noinline)) Next AfterItemError(char close) {
    if (p >= end) {
      Malformed(close == ']' ? "the record ends inside an array"
                             : "the record ends inside an object");
    } else {
      Malformed(close == ']' ? "expected ',' or ']'" : "expected ',' or '}'");
    }
    return Next::kError;
  }

  template <bool kTape>
  bool WalkArray(const Node& n, Out& out) {
    if (++depth > max_depth) return Malformed("nesting deeper than the limit");
    const Node& el = child(n, 0);
    ++p;
    SkipSpace();
    out += '[';
    if (p < end && *p == ']') {
      ++p;
      out += ']';
      if constexpr (kTape) Tape(TapeOp::kEmpty, n, 0, 0);
      --depth;
      return true;
    }
    frames.Push(0);
    int64_t index = 0;
    const int16_t rep_in = tape_rep;
    const int16_t rep_next = kTape ? NextRep(n) : 0;
    while (true) {
      SkipSpace();
      if (p >= end) return Malformed("the record ends inside an array");
      if (index > 0) {
        out += ',';
        if constexpr (kTape) tape_rep = rep_next;
      }
      frames.back().index = index++;
      if (!WalkNoted<kTape>(el, out)) return false;
      const Next next = AfterItem(']');
      if (next == Next::kError) return false;
      if (next == Next::kDone) break;
    }
    tape_rep = rep_in;
    frames.Pop();
    out += ']';
    --depth;
    return true;
  }

  template <bool kTape>
  bool WalkMap(const Node& n, Out& out) {
    if (++depth > max_depth) return Malformed("nesting deeper than the limit");
    const Node& key_node = child(n, 0);
    const Node& value_node = child(n, 1);
    ResetKeySet(map_keys[depth]);
    ++p;
    SkipSpace();
    out += '{';
    if (p < end && *p == '}') {
      ++p;
      out += '}';
      if constexpr (kTape) Tape(TapeOp::kEmpty, n, 0, 0);
      --depth;
      return true;
    }
    frames.Push(-1);
    bool first = true;
    const int16_t rep_in = tape_rep;
    const int16_t rep_next = kTape ? NextRep(n) : 0;
    while (true) {
      SkipSpace();
      if (p >= end || *p != '"') return Malformed("expected a key");
      const char* ks = p;
      std::string_view body;
      bool esc = false;
      if (!ScanString(&body, &esc)) return false;
      std::string_view key = body;
      if (esc) {
        UnescapeJsonString(body, key_store[depth]);
        key = key_store[depth];
      }
      frames.back().SetKey(key);
      std::string_view key_token(ks, static_cast<size_t>(p - ks));
      if (!Colon()) return false;
      if (!map_keys[depth].emplace(key).second) {
        // A key seen before in this map: the first entry stands, this one is rescued (Spark's
        // default mapKeyDedupPolicy fails the read instead).
        std::string_view raw;
        if (!SkipValue(&raw)) return false;
        Violation(key_node.path, ViolationKind::kDuplicateKey);
        AddRescued(raw);
      } else {
        if (!first) {
          out += ',';
          if constexpr (kTape) tape_rep = rep_next;
        }
        first = false;
        if constexpr (kTape) Tape(TapeOp::kKey, key_node, out.size(), key_token.size());
        out += key_token;  // as it was written: valid JSON already
        out += ':';
        if (!KeyFits(key_node, key)) {
          std::string_view raw;
          if (!SkipValue(&raw)) return false;
          Violation(key_node.path, ViolationKind::kTypeMismatch, "map key does not fit");
          Fatal(out);  // a map key is never null: the entry cannot be represented
          AddRescued(raw);
          out += "null";
        } else if (!WalkNoted<kTape>(value_node, out)) {
          return false;
        }
      }
      const Next next = AfterItem('}');
      if (next == Next::kError) return false;
      if (next == Next::kDone) break;
    }
    tape_rep = rep_in;
    frames.Pop();
    out += '}';
    --depth;
    return true;
  }

  // Whether the bytes at `q` are `h`'s name followed by a closing quote. Reads 16 bytes (the
  // record's padding covers it).
  static bool KeyAt(const Node& h, const char* q) {
    if (!h.raw_key) return false;
#if defined(__SSE2__)
    if (h.key16_mask != 0) {
      __m128i got = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
      __m128i want = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h.key16.data()));
      uint32_t eq = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(got, want)));
      return (eq & h.key16_mask) == h.key16_mask;
    }
#endif
    const size_t len = h.name.size();
    return std::memcmp(q, h.name.data(), len) == 0 && q[len] == '"';
  }

  // The first child of `n` whose name is `key` when ASCII case is ignored, or -1.
  int FindChildIgnoringCase(const Node& n, std::string_view key) const {
    const std::string lower = AsciiLower(key);
    if (!n.by_lower.empty()) {
      auto it = n.by_lower.find(lower);
      return it == n.by_lower.end() ? -1 : static_cast<int>(it->second);
    }
    for (uint32_t i = 0; i < n.child_count; ++i) {
      if (child(n, i).lower == lower) return static_cast<int>(i);
    }
    return -1;
  }

  // The child of `n` named exactly `key`, or -1.
  int FindChild(const Node& n, std::string_view key) const {
    if (!n.by_name.empty()) {
      auto it = n.by_name.find(key);
      return it == n.by_name.end() ? -1 : static_cast<int>(it->second);
    }
    for (uint32_t i = 0; i < n.child_count; ++i) {
      if (child(n, i).name == key) return static_cast<int>(i);
    }
    return -1;
  }

  template <bool kTape>
  bool WalkObject(const Node& n, Out& out, bool root) {
    if (++depth > max_depth) return Malformed("nesting deeper than the limit");
    std::vector<uint8_t>& seen_here = seen[depth];
    seen_here.assign(n.child_count, 0);
    // The children, held in a local: the output's char stores may alias any member, so a
    // member read (nodes, then its data) would be redone after every write.
    const Node* const kids = nodes->data() + n.first_child;
    uint32_t seen_count = 0;  // so that an object with every field needs no search for nulls
    out += '{';
    bool first = true;
    // Where key_order says which field comes next: the struct's first key, then the one
    // after the field read last. Set to the field that came when the expected name is not it.
    uint32_t* const kids_order = key_order.data() + n.first_child;
    uint32_t* next_slot = kids_order + nodes->size();
    ++p;
    SkipSpace();
    frames.Push(-1);
    if (p < end && *p == '}') {
      ++p;
    } else {
      while (true) {
        SkipSpace();
        if (p >= end || *p != '"') return Malformed("expected a key");
        int idx = -1;
        std::string_view key;
        // Fast path: the key is the next field's name, byte for byte.
        if (const uint32_t hint = *next_slot; hint < n.child_count) {
          const Node& h = kids[hint];
          const size_t len = h.name.size();
          if (KeyAt(h, p + 1) && static_cast<size_t>(end - p) > len + 1) {
            idx = static_cast<int>(hint);
            key = std::string_view(p + 1, len);
            p += len + 2;
          }
        }
        if (idx < 0) {
          std::string_view body;
          bool esc = false;
          if (!ScanString(&body, &esc)) return false;
          key = body;
          if (esc) {
            UnescapeJsonString(body, key_store[depth]);
            key = key_store[depth];
          }
          idx = FindChild(n, key);
          if (idx >= 0) {
            *next_slot = static_cast<uint32_t>(idx);
          } else if (plan->options().match_fields_ignoring_case) {
            idx = FindChildIgnoringCase(n, key);
          }
        }
        // The colon right after the key and a value right after it, as compact JSON has
        // them, without Colon's whitespace steps.
        if (end - p > 1 && p[0] == ':' && static_cast<unsigned char>(p[1]) > ' ') {
          ++p;
        } else if (!Colon()) {
          return false;
        }
        if (idx >= 0) {
          const Node& c = kids[idx];
          frames.back().field = &c.name;
          if (seen_here[static_cast<size_t>(idx)]) {
            std::string_view raw;
            if (!SkipValue(&raw)) return false;
            Violation(c.path, ViolationKind::kDuplicateKey);
            AddRescued(raw);
          } else {
            seen_here[static_cast<size_t>(idx)] = 1;
            ++seen_count;
            next_slot = kids_order + idx;
            if (root && idx == n.rescued_child) {
              std::string_view raw;
              if (!SkipValue(&raw)) return false;
              if (raw != "null") prior_rescued = raw;
            } else {
              if (!first) out += ',';
              first = false;
              out += c.json_key;
              if (!WalkNoted<kTape>(c, out)) return false;
            }
          }
        } else if (root && plan->appends_rescued_column() &&
                   key == plan->options().rescued_column) {
          // The rescued-data column of an earlier pass (a file this validator or Auto Loader
          // wrote): its content is kept as the prior rescued value, as when the schema has it.
          std::string_view raw;
          if (!SkipValue(&raw)) return false;
          if (raw != "null") prior_rescued = raw;
        } else {
          // Not a field of this struct: a case variant of one, or unknown.
          const bool case_variant = FindChildIgnoringCase(n, key) >= 0;
          frames.back().SetKey(key);
          std::string_view raw;
          if (!SkipValue(&raw)) return false;
          auto path = [&] {
            return n.path.empty() ? schema::QuoteFieldName(key)
                                  : n.path + "." + schema::QuoteFieldName(key);
          };
          if (!case_variant && plan->options().ignore_unknown_fields) {
            // dropped: Spark's reader with a schema ignores keys it does not know
          } else if (NewFieldAllowed(case_variant)) {
            KeepNewField(ViolationsFull() ? std::string() : path(), raw, false);
          } else {
            if (!ViolationsFull()) {
              Violation(path(),
                        case_variant ? ViolationKind::kCaseMismatch : ViolationKind::kUnknownField);
            }
            AddRescued(raw);
          }
        }
        const Next next = AfterItem('}');
        if (next == Next::kError) return false;
        if (next == Next::kDone) break;
      }
    }
    frames.Pop();
    for (uint32_t i = 0; seen_count < n.child_count && i < n.child_count; ++i) {
      if (seen_here[i]) continue;
      if (root && static_cast<int>(i) == n.rescued_child) continue;
      const Node& c = kids[i];
      if (!c.nullable) {
        Violation(c.path, ViolationKind::kMissingRequired);
        Fatal(out);
      }
      if (!first) out += ',';
      first = false;
      out += c.json_key;
      out += "null";
      if constexpr (kTape) Tape(TapeOp::kNull, c, 0, 0);
    }
    if (root && !fatal) {
      size_t value_at = 0;
      WriteRescuedColumn(out, first, &value_at);
      if (kTape && value_at != 0) {
        PushEntry(tape_map->rescued_node, TapeOp::kValue, false, static_cast<uint32_t>(value_at),
                  static_cast<uint32_t>(out.size() - value_at));
      }
    }
    out += '}';
    --depth;
    return true;
  }

  // Check one JSON record, writing its output line to `o` (the caller keeps it only for valid
  // and rescued records).
  template <bool kTape>
  void RunJson(std::string_view text, std::string_view f, Out& o) {
    Reset(f);
    begin = text.data();
    p = begin;
    end = begin + text.size();
    SkipSpace();
    if (p >= end) {
      malformed_message = "empty record";
      SetMalformed(o, 0, 0);
      return;
    }
    if (*p != '{') {
      malformed_message = "the record is not a JSON object";
      SetMalformed(o, 0, p - begin);
      return;
    }
    if (!WalkObject<kTape>((*nodes)[0], o, true)) {
      SetMalformed(o, 0, std::min(p, end) - begin);
      return;
    }
    SkipSpace();
    if (p != end) {
      malformed_message = "characters after the end of the record";
      SetMalformed(o, 0, p - begin);
      return;
    }
    Finish(o, 0);
  }

  // The rescued column's key and value; `value_at`, if given, is where the value starts.
  template <typename O>
  void WriteRescuedColumn(O& out, bool first, size_t* value_at = nullptr) {
    const std::string& rc = plan->options().rescued_column;
    if (rc.empty()) return;
    if (!first) out += ',';
    out += rescued_key;
    if (value_at != nullptr) *value_at = out.size();
    const bool rescues = needs_rescue || kept_new;
    if (!rescues && prior_rescued.empty()) {
      out += "null";
      return;
    }
    if (!rescues) {
      // The column is a string: a record's non-string value is kept as its JSON text.
      if (prior_rescued.front() == '"') {
        out += prior_rescued;
      } else {
        AppendJsonQuoted(out, prior_rescued);
      }
      return;
    }
    // The object {members, prior value, file} as a JSON string, escaped as it is written.
    out += '"';
    out += '{';
    rescued.AppendEscapedMembers(out);
    auto escaped_member = [&](std::string_view name, std::string_view json_value) {
      out += ',';
      scratch.clear();
      AppendJsonString(scratch, name);
      internal::AppendJsonEscaped(out, scratch);
      out += ':';
      internal::ForEachStrictJsonPiece(
          json_value, [&](std::string_view piece) { internal::AppendJsonEscaped(out, piece); });
    };
    if (!prior_rescued.empty()) escaped_member(rescued.UniqueName(rc), prior_rescued);
    const std::string& fk = plan->options().file_path_key;
    if (!fk.empty()) {
      std::string file_json;
      AppendJsonString(file_json, file);
      escaped_member(fk, file_json);
    }
    out += '}';
    out += '"';
  }

  void Reset(std::string_view f) {
    result.status = RecordStatus::kValid;
    result.violations.clear();
    result.error.clear();
    result.error_offset = -1;
    rescued.Clear();
    prior_rescued = {};
    frames.clear();
    fatal = false;
    needs_rescue = false;
    kept_new = false;
    notes = 0;
    depth = 0;
    file = f;
    malformed_message.clear();
    if (tape != nullptr) tape->used = tape_first;
    tape_rep = 0;
  }

  template <typename O>
  void Finish(O& out, size_t mark) {
    if (fatal) {
      result.status = RecordStatus::kBad;
    } else if (needs_rescue) {
      result.status =
          plan->options().rescued_column.empty() ? RecordStatus::kBad : RecordStatus::kRescued;
    } else if (result.violations.size() > notes) {
      result.status = RecordStatus::kBad;
    }
    if (result.status == RecordStatus::kBad || result.status == RecordStatus::kMalformed) {
      out.resize(mark);
    } else {
      out += '\n';
    }
  }

  template <typename O>
  void SetMalformed(O& out, size_t mark, int64_t offset) {
    result.status = RecordStatus::kMalformed;
    result.error = malformed_message.empty() ? "malformed JSON" : malformed_message;
    result.error_offset = offset;
    result.violations.clear();
    result.violations.push_back({"", ViolationKind::kMalformed, result.error});
    out.resize(mark);
  }
};

RecordValidator::RecordValidator(std::shared_ptr<const ValidationPlan> plan)
    : impl_(std::make_unique<Impl>(std::move(plan))) {}
RecordValidator::RecordValidator(RecordValidator&&) noexcept = default;
RecordValidator& RecordValidator::operator=(RecordValidator&&) noexcept = default;
RecordValidator::~RecordValidator() = default;

const RecordResult& RecordValidator::CheckJson(std::string_view text, std::string_view file,
                                               std::string& out) {
  return CheckJson(text, file, out, nullptr);
}

const RecordResult& RecordValidator::CheckJson(std::string_view text, std::string_view file,
                                               std::string& out, LeafTape* tape) {
  Impl& s = *impl_;
  const size_t mark = out.size();
  if (tape != nullptr && (tape->map == nullptr || !tape->map->Covers(s.nodes->size()) ||
                          tape->used > UINT32_MAX || text.size() > UINT32_MAX)) {
    tape = nullptr;
  }
  s.tape = tape;
  s.tape_map = tape == nullptr ? nullptr : tape->map.get();
  s.tape_first = tape == nullptr ? 0 : tape->used;
  // Room for the record twice over (rescued text is escaped once more), the fields it may lack
  // and the rescued column; a record that needs more is redone with twice the room.
  size_t room = 2 * text.size() + s.plan->output_slack() + 2 * file.size() + 256;
  while (true) {
    bool overflow = false;
    out.resize_and_overwrite(mark + room, [&](char* buf, size_t) -> size_t {
      Out o(buf + mark, buf + mark + room);
      if (s.tape != nullptr) {
        s.RunJson<true>(text, file, o);
      } else {
        s.RunJson<false>(text, file, o);
      }
      if (o.overflow()) {
        overflow = true;
        return mark;
      }
      const bool keep =
          s.result.status == RecordStatus::kValid || s.result.status == RecordStatus::kRescued;
      return keep ? mark + o.size() : mark;
    });
    if (!overflow) break;
    room *= 2;
  }
  if (tape != nullptr) {
    const size_t count = tape->used - s.tape_first;
    const bool keep =
        s.result.status == RecordStatus::kValid || s.result.status == RecordStatus::kRescued;
    // Offsets are 32-bit: a longer line is read from its text.
    if (keep && out.size() - mark <= UINT32_MAX) {
      tape->records.push_back({mark, text.data(), text.size(), static_cast<uint32_t>(s.tape_first),
                               static_cast<uint32_t>(count)});
    } else {
      tape->used = s.tape_first;
    }
    s.tape = nullptr;
    s.tape_map = nullptr;
  }
  return s.result;
}

const RecordResult& RecordValidator::CheckCsv(const CsvRecord& record, const CsvLayout& layout,
                                              std::string_view file, std::string& out) {
  Impl& s = *impl_;
  s.Reset(file);
  size_t mark = out.size();
  if (record.malformed()) {
    s.malformed_message = record.error;
    s.SetMalformed(out, mark, -1);
    return s.result;
  }
  if (size_t bad = FindInvalidUtf8(record.raw); bad != std::string_view::npos) {
    s.malformed_message = "invalid UTF-8 at byte " + std::to_string(bad) + " of the record";
    s.SetMalformed(out, mark, static_cast<int64_t>(bad));
    return s.result;
  }
  if (record.fields.size() != layout.columns.size()) {
    s.malformed_message = "expected " + std::to_string(layout.columns.size()) + " fields, found " +
                          std::to_string(record.fields.size());
    s.SetMalformed(out, mark, -1);
    return s.result;
  }
  const Node& root = (*s.nodes)[0];
  std::vector<uint8_t>& seen = s.seen[0];
  seen.assign(root.child_count, 0);
  out += '{';
  bool first = true;
  s.frames.Push(-1);
  for (size_t i = 0; i < record.fields.size(); ++i) {
    const CsvField& f = record.fields[i];
    int col = layout.columns[i];
    if (col < 0) {
      s.frames.back().SetKey(layout.header[i]);
      if (col == -1 && s.plan->options().ignore_unknown_fields) continue;
      if (col == -1 && s.NewFieldAllowed(false)) {
        s.KeepNewField(schema::QuoteFieldName(layout.header[i]), f.value, true);
        continue;
      }
      if (!s.ViolationsFull()) {
        s.Violation(schema::QuoteFieldName(layout.header[i]),
                    col == -2   ? ViolationKind::kCaseMismatch
                    : col == -3 ? ViolationKind::kDuplicateKey
                                : ViolationKind::kUnknownField);
      }
      s.AddRescuedString(f.value);
      continue;
    }
    const Node& c = s.child(root, static_cast<uint32_t>(col));
    seen[static_cast<size_t>(col)] = 1;
    if (col == root.rescued_child) {
      if (!f.value.empty()) {
        s.prior_rescued_text.clear();
        AppendJsonString(s.prior_rescued_text, f.value);
        s.prior_rescued = s.prior_rescued_text;
      }
      continue;
    }
    if (!first) out += ',';
    first = false;
    out += c.json_key;
    bool is_null = !f.quoted && f.value == layout.null_value;
    std::string_view value = f.value;
    if (f.quoted && value.empty()) value = layout.empty_value;
    if (is_null) {
      if (!c.nullable) {
        s.Violation(c.path, ViolationKind::kNullNotAllowed);
        s.fatal = true;
      }
      out += "null";
      continue;
    }
    ViolationKind kind;
    if (!CsvValue(c, value, out, &kind)) {
      s.frames.back().SetKey(c.name);
      s.Violation(c.path, kind);
      if (!c.nullable) s.fatal = true;
      s.AddRescuedString(f.value);
      out += "null";
    }
  }
  s.frames.Pop();
  for (uint32_t i = 0; i < root.child_count; ++i) {
    if (seen[i] || static_cast<int>(i) == root.rescued_child) continue;
    const Node& c = s.child(root, i);
    if (!c.nullable) {
      s.Violation(c.path, ViolationKind::kMissingRequired);
      s.fatal = true;
    }
    if (!first) out += ',';
    first = false;
    out += c.json_key;
    out += "null";
  }
  s.WriteRescuedColumn(out, first);
  out += '}';
  s.Finish(out, mark);
  return s.result;
}

}  // namespace sluice::data