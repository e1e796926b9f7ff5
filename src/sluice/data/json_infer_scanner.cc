// Inference of records too large for simdjson's index, with a scanner of its own: the walk of
// json_infer.cc's Impl (Document, Value, Object, Array) step for step, over the record's bytes,
// in memory that does not grow with the record.
// The scanner is strict, so that a record it accepts is one simdjson accepts too; everything
// else is left to simdjson (see InferWithScanner in json_infer_internal.h).
#include <array>

#include "sluice/data/json_infer_internal.h"
#include "sluice/data/json_text_internal.h"

namespace sluice::data::internal {

namespace {

class RecordScanner {
 public:
  RecordScanner(std::string_view json, JsonTypeRules& rules, FieldSlots& slots)
      : p_(json.data()), end_(json.data() + json.size()), rules_(rules), slots_(slots) {}

  // As the simdjson walk's Document: the root value, then nothing but whitespace.
  InferOutcome Document(InferredType* root, InferredType* root_type) {
    SkipSpace();
    if (p_ >= end_) return Reject();
    InferOutcome o = InferOutcome::kOk;
    switch (*p_) {
      case '{':
        o = Object(root, 1);
        break;
      case '[':
        if (root_type != nullptr) *root_type = InferredType::Array(InferredType::Null());
        o = Array(root_type, 1);
        break;
      case '"': {
        std::string_view body;
        bool escaped = false;
        if (!ScanString(&body, &escaped)) return Reject();
        InferredType t;
        o = rules_.String(Content(body, escaped), &t);
        if (o == InferOutcome::kOk && root_type != nullptr) *root_type = t;
        break;
      }
      default: {
        InferredType t;
        o = Scalar(&t, /*root=*/true);
        if (o == InferOutcome::kOk && root_type != nullptr && !t.is_null()) *root_type = t;
        break;
      }
    }
    if (o != InferOutcome::kOk) return o;
    SkipSpace();
    return p_ == end_ ? InferOutcome::kOk : Reject();
  }

 private:
  InferOutcome Reject() { return rules_.Fail(InferOutcome::kMalformed, "not strict JSON"); }

  void SkipSpace() { p_ = SkipJsonSpace(p_, end_); }

  // A string at p_ (its opening quote), checked as the validator checks strings: escapes,
  // control bytes, UTF-8. p_ moves past its closing quote.
  bool ScanString(std::string_view* body, bool* escaped) {
    const char* s = ++p_;
    bool esc = false;
    while (true) {
      p_ = FindStringSpecial(p_, end_);
      if (p_ >= end_) return false;
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') break;
      if (c == '\\') {
        size_t length = 0;
        if (CheckJsonEscape(p_, end_, &length) != JsonEscape::kValid) return false;
        esc = true;
        p_ += length;
      } else if (c >= 0x80) {
        const int length = Utf8Sequence(p_, end_);
        if (length == 0) return false;
        p_ += length;
      } else {
        return false;  // a control byte
      }
    }
    *body = std::string_view(s, static_cast<size_t>(p_ - s));
    *escaped = esc;
    ++p_;
    return true;
  }

  std::string_view Content(std::string_view body, bool escaped) {
    if (!escaped) return body;
    UnescapeJsonString(body, content_);
    return content_;
  }

  // The bare token at p_, and the same token as simdjson's raw_json_token gives it: through
  // the whitespace after it, up to the next structural byte (or the end, for a root value).
  void ScanAtom(std::string_view* atom, std::string_view* token) {
    const char* s = p_;
    p_ = FindTokenEnd(p_, end_);
    const char* t = p_;
    while (t < end_ && IsJsonSpace(*t)) ++t;
    *atom = std::string_view(s, static_cast<size_t>(p_ - s));
    *token = std::string_view(s, static_cast<size_t>(t - s));
  }

  // A literal, number or NaN/Infinity token merged into `acc` (null: check only), dispatched
  // on its first byte as simdjson's type() does.
  InferOutcome Scalar(InferredType* acc, bool root) {
    const char first = *p_;
    std::string_view atom;
    std::string_view token;
    ScanAtom(&atom, &token);
    const JsonInferOptions& o = *rules_.options;
    switch (first) {
      case 't':
      case 'f':
        if (atom != "true" && atom != "false") return Reject();
        JsonTypeRules::Merge(
            acc, o.primitives_as_string ? InferredType::String() : InferredType::Boolean());
        return InferOutcome::kOk;
      case 'n':
        return atom == "null" ? InferOutcome::kOk : Reject();
      case '-':
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
      case '8':
      case '9':
        return Number(token, acc, root);
      default:
        return rules_.NonNumeric(token, acc, "not a JSON value");
    }
  }

  InferOutcome Number(std::string_view token, InferredType* acc, bool root) {
    // The root's type is always worked out; values inside take the simdjson walk's shortcuts.
    if (!root) {
      const JsonInferOptions& o = *rules_.options;
      if (acc != nullptr && !o.primitives_as_string && !o.prefers_decimal) {
        if (acc->kind() == InferredKind::kString || acc->kind() == InferredKind::kDouble) {
          return InferOutcome::kOk;
        }
        if (acc->kind() == InferredKind::kLong && JsonTypeRules::ShortLong(token)) {
          return InferOutcome::kOk;
        }
      }
      if (acc == nullptr && !o.prefers_decimal) {
        if (JsonTypeRules::ShortLong(token)) return InferOutcome::kOk;
        DecimalShape shape;
        return ClassifyJsonNumber(token, &shape) == JsonNumberClass::kInvalid ? Reject()
                                                                              : InferOutcome::kOk;
      }
    }
    InferredType t;
    if (InferOutcome r = rules_.Number(token, &t); r != InferOutcome::kOk) return r;
    JsonTypeRules::Merge(acc, t);
    return InferOutcome::kOk;
  }

  // As Value: the value at p_ (not whitespace) merged into `acc` (null: check only).
  InferOutcome Value(InferredType* acc, uint32_t depth) {
    switch (*p_) {
      case '{':
        return Object(acc, depth + 1);
      case '[':
        return Array(acc, depth + 1);
      case '"':
        return String(acc);
      default:
        return Scalar(acc, /*root=*/false);
    }
  }

  InferOutcome String(InferredType* acc) {
    std::string_view body;
    bool escaped = false;
    if (!ScanString(&body, &escaped)) return Reject();
    if (acc == nullptr || acc->kind() == InferredKind::kString) return InferOutcome::kOk;
    const JsonInferOptions& o = *rules_.options;
    if (!o.prefers_decimal && !o.infer_timestamp) {
      JsonTypeRules::Merge(acc, body.empty() ? InferredType::Null() : InferredType::String());
      return InferOutcome::kOk;
    }
    InferredType t;
    if (InferOutcome r = rules_.String(Content(body, escaped), &t); r != InferOutcome::kOk) {
      return r;
    }
    JsonTypeRules::Merge(acc, t);
    return InferOutcome::kOk;
  }

  // After a member or element: ',' (true, more follow) or `close` (false); anything else (or
  // the end) rejects.
  bool Next(char close, bool* more) {
    SkipSpace();
    if (p_ >= end_) return false;
    if (*p_ == ',') {
      ++p_;
      SkipSpace();
      *more = true;
      return p_ < end_;
    }
    if (*p_ != close) return false;
    ++p_;
    *more = false;
    return true;
  }

  InferOutcome Object(InferredType* acc, uint32_t depth) {
    if (InferOutcome o = rules_.CheckDepth(depth); o != InferOutcome::kOk) return o;
    if (acc != nullptr && acc->is_null()) *acc = InferredType::Struct({});
    if (acc != nullptr && !acc->is_struct()) {
      // The record was checked first: nothing inside needs looking at.
      *acc = InferredType::String();
      SkipContainer();
      return InferOutcome::kOk;
    }
    if (acc != nullptr) slots_.Begin(depth);
    ++p_;
    SkipSpace();
    if (p_ < end_ && *p_ == '}') {
      ++p_;
      return InferOutcome::kOk;
    }
    uint32_t ordinal = 0;
    for (bool more = true; more;) {
      if (p_ >= end_ || *p_ != '"') return Reject();
      std::string_view body;
      bool escaped = false;
      if (!ScanString(&body, &escaped)) return Reject();
      std::string_view key = body;
      if (escaped) {
        UnescapeJsonString(body, key_);
        key = key_;
      }
      SkipSpace();
      if (p_ >= end_ || *p_ != ':') return Reject();
      ++p_;
      SkipSpace();
      if (p_ >= end_) return Reject();
      InferredType* slot = nullptr;
      if (acc != nullptr) slot = slots_.Slot(acc->mutable_fields(), depth, ordinal++, key);
      if (InferOutcome o = Value(slot, depth); o != InferOutcome::kOk) return o;
      if (!Next('}', &more)) return Reject();
    }
    if (acc != nullptr) slots_.End(acc->mutable_fields(), depth);
    return InferOutcome::kOk;
  }

  InferOutcome Array(InferredType* acc, uint32_t depth) {
    if (InferOutcome o = rules_.CheckDepth(depth); o != InferOutcome::kOk) return o;
    if (acc != nullptr && acc->is_null()) *acc = InferredType::Array(InferredType::Null());
    if (acc != nullptr && !acc->is_array()) {
      *acc = InferredType::String();
      SkipContainer();
      return InferOutcome::kOk;
    }
    InferredType* element = acc == nullptr ? nullptr : &acc->mutable_element();
    ++p_;
    SkipSpace();
    if (p_ < end_ && *p_ == ']') {
      ++p_;
      return InferOutcome::kOk;
    }
    for (bool more = true; more;) {
      if (p_ >= end_) return Reject();
      if (InferOutcome o = Value(element, depth); o != InferOutcome::kOk) return o;
      if (!Next(']', &more)) return Reject();
    }
    return InferOutcome::kOk;
  }

  // Past the object or array at p_, which the first pass checked.
  void SkipContainer() {
    size_t open = 0;
    while (p_ < end_) {
      const char c = *p_++;
      if (c == '"') {
        while (p_ < end_ && *p_ != '"') p_ += *p_ == '\\' ? 2 : 1;
        ++p_;
      } else if (c == '{' || c == '[') {
        ++open;
      } else if ((c == '}' || c == ']') && --open == 0) {
        return;
      }
    }
  }

  const char* p_;
  const char* end_;
  JsonTypeRules& rules_;
  FieldSlots& slots_;
  std::string content_;  // a string's content, unescaped
  std::string key_;      // a key, unescaped
};

}  // namespace

InferOutcome InferWithScanner(std::string_view json, JsonTypeRules& rules, FieldSlots& slots,
                              InferredType* root, InferredType* root_type) {
  RecordScanner reader(json, rules, slots);
  return reader.Document(root, root_type);
}

}  // namespace sluice::data::internal
