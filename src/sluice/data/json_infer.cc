#include "sluice/data/json_infer.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "sluice/base/strings.h"
#include "sluice/base/swar.h"
#include "sluice/data/json_infer_internal.h"
#include "sluice/data/lexical_internal.h"

namespace sluice::data {

namespace od = simdjson::ondemand;
using Outcome = internal::InferOutcome;

namespace {

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}

Result<bool> ParseBool(std::string_view key, std::string_view v) {
  if (EqualsIgnoreCase(v, "true")) return true;
  if (EqualsIgnoreCase(v, "false")) return false;
  return InvalidArgument(
      fmt::format("option {}: \"{}\" is not a boolean", key, EscapeForMessage(v)));
}

}  // namespace

// On cache lines of its own: the inferrers of different threads are allocated side by side and
// write their state on every record.
//
// A record is read once to check it and to learn whether it adds anything to the type inferred
// so far ("covered": merging it would change nothing, which after the first records is the common
// case), and a second time, to merge it, only when it does. Checking first keeps a malformed
// record from leaving a trace; since CompatibleType is a join (commutative, associative,
// idempotent), a record every value of which the type already absorbs leaves it as it is.
struct alignas(128) JsonInferrer::Impl {
  od::parser parser;
  std::vector<char> buffer;  // record text plus SIMDJSON_PADDING, reused
  internal::JsonTypeRules rules;
  internal::FieldSlots slots;
  // The record being read and the end of its padding.
  const char* doc_begin = nullptr;
  const char* doc_limit = nullptr;
  // Set by the check when merging the record would change the type inferred so far.
  bool uncovered = false;

  // The key's bytes when it has no escapes or control bytes (the common case), without
  // unescaping it. The key ends at the quote before the colon before its value: stage 1 put the
  // colon in its index, so the bytes between are whitespace only.
  bool RawKey(od::field& field, const char* value_start, std::string_view* key) const {
    const char* start = field.key().raw();
    if (start < doc_begin || value_start > doc_limit || value_start <= start) return false;
    const char* p = value_start - 1;
    while (p > start && internal::IsJsonSpace(*p)) --p;
    if (*p != ':') return false;
    --p;
    while (p >= start && internal::IsJsonSpace(*p)) --p;
    if (p < start || *p != '"') return false;
    const std::string_view k(start, static_cast<size_t>(p - start));
    // Escapes and control bytes go to simdjson's own key parser, which decides on them.
    if (HasEscapeOrControl(k)) return false;
    *key = k;
    return true;
  }
  // Whether `s` holds a backslash or a byte below 0x20, eight bytes at a time. Reads up to 7
  // bytes past `s`, which a key inside a padded record has.
  static bool HasEscapeOrControl(std::string_view s) {
    if constexpr (std::endian::native != std::endian::little) {
      for (char c : s) {
        if (c == '\\' || static_cast<unsigned char>(c) < 0x20) return true;
      }
      return false;
    }
    for (size_t i = 0; i < s.size(); i += 8) {
      const uint64_t w = swar::Load8(s.data() + i);
      // A byte's high bit is set where it is below 0x20 or a backslash; a borrow only marks
      // bytes above a real one, so the bytes past the end are masked off afterwards.
      uint64_t hits = swar::BytesBelow(w, 0x20) | swar::BytesEqual(w, '\\');
      if (const size_t left = s.size() - i; left < 8) hits &= (uint64_t{1} << (8 * left)) - 1;
      if (hits != 0) return true;
    }
    return false;
  }

  // The field's key. Its value is read in place (field.value()): a copy of simdjson's value
  // iterator, written as scalars and read back as a vector, stalls store forwarding.
  Outcome Key(od::field& field, std::string_view* key) {
    if (RawKey(field, field.value().raw_json_token().data(), key)) return Outcome::kOk;
    if (auto e = field.unescaped_key().get(*key); e) {
      return Fail(Outcome::kMalformed, simdjson::error_message(e));
    }
    return Outcome::kOk;
  }

  Outcome Fail(Outcome o, std::string why) { return rules.Fail(o, std::move(why)); }
  // The object or array a value (or the document's root) starts.
  template <class V>
  Outcome Open(V& v, od::object* obj) {
    if (auto e = v.get_object().get(*obj); e) {
      return Fail(Outcome::kMalformed, simdjson::error_message(e));
    }
    return Outcome::kOk;
  }
  template <class V>
  Outcome Open(V& v, od::array* arr) {
    if (auto e = v.get_array().get(*arr); e) {
      return Fail(Outcome::kMalformed, simdjson::error_message(e));
    }
    return Outcome::kOk;
  }
  // A boolean or null literal of `type`, checked (a value or the document's root).
  template <class V>
  Outcome Literal(V& v, od::json_type type) {
    if (type == od::json_type::boolean) {
      bool b = false;
      if (auto e = v.get_bool().get(b); e) {
        return Fail(Outcome::kMalformed, simdjson::error_message(e));
      }
      return Outcome::kOk;
    }
    bool is_null = false;
    if (auto e = v.is_null().get(is_null); e || !is_null) {
      return Fail(Outcome::kMalformed, e ? simdjson::error_message(e) : "invalid literal");
    }
    return Outcome::kOk;
  }
  static void Merge(InferredType* acc, const InferredType& t) {
    internal::JsonTypeRules::Merge(acc, t);
  }
  const JsonInferOptions& options() const { return *rules.options; }

  // Whether merging the scalar type `t` into `seen` leaves it as it is.
  static bool Covers(const InferredType& seen, const InferredType& t) {
    if (t.is_null() || seen.kind() == InferredKind::kString) return true;
    if (seen.kind() == t.kind() && t.kind() != InferredKind::kDecimal) return true;
    if (seen.is_struct() || seen.is_array()) return false;
    InferredType merged = seen;
    MergeInto(&merged, t);
    return merged == seen;
  }
  // After a scalar is checked: note whether `seen` absorbs its type `t`.
  void Note(const InferredType* seen, const InferredType& t) {
    if (seen != nullptr && !Covers(*seen, t)) uncovered = true;
  }

  // ---- The check: every byte of the record, and whether the type so far covers it. `seen` is
  // the type the value would merge into; null below a point where the answer is known already.

  Outcome Check(od::value& v, const InferredType* seen, uint32_t depth) {
    od::json_type type;
    if (auto e = v.type().get(type); e) {
      // NaN and Infinity are not JSON, but Jackson reads them (allowNonNumericNumbers).
      const std::string_view raw = v.raw_json_token();
      if (seen != nullptr && seen->kind() != InferredKind::kString) uncovered = true;
      return rules.NonNumeric(raw, nullptr, simdjson::error_message(e));
    }
    switch (type) {
      case od::json_type::object: {
        od::object obj;
        if (Outcome o = Open(v, &obj); o != Outcome::kOk) return o;
        return CheckObject(obj, seen, depth + 1);
      }
      case od::json_type::array: {
        od::array arr;
        if (Outcome o = Open(v, &arr); o != Outcome::kOk) return o;
        return CheckArray(arr, seen, depth + 1);
      }
      case od::json_type::number:
        return CheckNumber(v.raw_json_token(), seen);
      case od::json_type::string:
        return CheckString(v, seen);
      case od::json_type::boolean:
        if (Outcome o = Literal(v, type); o != Outcome::kOk) return o;
        Note(seen,
             options().primitives_as_string ? InferredType::String() : InferredType::Boolean());
        return Outcome::kOk;
      case od::json_type::null:
        return Literal(v, type);
    }
    return Fail(Outcome::kMalformed, "unknown JSON value");
  }

  Outcome CheckNumber(std::string_view token, const InferredType* seen) {
    if (!options().prefers_decimal) {
      const internal::JsonTypeRules::Form form = internal::JsonTypeRules::NumberForm(token);
      const bool short_long = form == internal::JsonTypeRules::Form::kShortLong;
      if (form == internal::JsonTypeRules::Form::kOther) {
        internal::DecimalShape shape;
        if (internal::ClassifyJsonNumber(token, &shape) == internal::JsonNumberClass::kInvalid) {
          return Fail(Outcome::kMalformed,
                      fmt::format("invalid number \"{}\"", EscapeForMessage(token, 40)));
        }
      }
      if (seen == nullptr) return Outcome::kOk;
      // Any number merged into a double or a string stays what it is; a long into a long too.
      if (seen->kind() == InferredKind::kString) return Outcome::kOk;
      if (!options().primitives_as_string) {
        if (seen->kind() == InferredKind::kDouble) return Outcome::kOk;
        if (seen->kind() == InferredKind::kLong && short_long) return Outcome::kOk;
      }
    }
    InferredType t;
    if (Outcome o = rules.Number(token, &t); o != Outcome::kOk) return o;
    Note(seen, t);
    return Outcome::kOk;
  }

  Outcome CheckString(od::value& v, const InferredType* seen) {
    // Stage 1 checked the UTF-8 and the control bytes: a string without a backslash needs
    // nothing more, and its content only when a rule looks at it. Its token runs from its
    // opening quote to the next structural byte.
    const std::string_view token = v.raw_json_token();
    const bool absorbed = seen == nullptr || seen->kind() == InferredKind::kString;
    if (std::memchr(token.data(), '\\', token.size()) == nullptr) {
      const bool empty = token.size() >= 2 && token[1] == '"';  // a null
      if (absorbed || empty) return Outcome::kOk;
      if (!options().prefers_decimal && !options().infer_timestamp) {
        uncovered = true;  // a string into anything but a string
        return Outcome::kOk;
      }
    }
    std::string_view s;
    if (auto e = v.get_string().get(s); e) {
      return Fail(Outcome::kMalformed, simdjson::error_message(e));
    }
    if (absorbed) return Outcome::kOk;
    InferredType t;
    if (Outcome o = rules.String(s, &t); o != Outcome::kOk) return o;
    Note(seen, t);
    return Outcome::kOk;
  }

  Outcome CheckObject(od::object& obj, const InferredType* seen, uint32_t depth) {
    if (Outcome o = rules.CheckDepth(depth); o != Outcome::kOk) return o;
    const std::vector<InferredField>* fields = nullptr;
    internal::FieldSlots::Level* level = nullptr;
    if (seen != nullptr) {
      if (seen->is_struct()) {
        fields = &seen->fields();
        level = &slots.At(depth);
      } else if (seen->kind() != InferredKind::kString) {
        uncovered = true;  // null becomes a struct; anything else a string
      }
    }
    uint32_t ordinal = 0;
    for (auto field_result : obj) {
      if (auto e = field_result.error(); e) {
        return Fail(Outcome::kMalformed, simdjson::error_message(e));
      }
      // Used where it is: copying simdjson's iterators stalls (see Key).
      od::field& field = field_result.value_unsafe();
      std::string_view key;
      if (Outcome o = Key(field, &key); o != Outcome::kOk) return o;
      const InferredType* slot = nullptr;
      if (fields != nullptr) {
        slot = slots.Find(*fields, *level, ordinal++, key);
        if (slot == nullptr) uncovered = true;  // a new field
      }
      if (Outcome o = Check(field.value(), slot, depth); o != Outcome::kOk) return o;
    }
    return Outcome::kOk;
  }

  Outcome CheckArray(od::array& arr, const InferredType* seen, uint32_t depth) {
    if (Outcome o = rules.CheckDepth(depth); o != Outcome::kOk) return o;
    const InferredType* element = nullptr;
    if (seen != nullptr) {
      if (seen->is_array()) {
        element = &seen->element();
      } else if (seen->kind() != InferredKind::kString) {
        uncovered = true;
      }
    }
    for (auto item_result : arr) {
      if (auto e = item_result.error(); e) {
        return Fail(Outcome::kMalformed, simdjson::error_message(e));
      }
      od::value& item = item_result.value_unsafe();  // in place, as the fields (see Key)
      if (Outcome o = Check(item, element, depth); o != Outcome::kOk) return o;
    }
    return Outcome::kOk;
  }

  // ---- The merge, of a record the check passed: only what can change the type is looked at.

  Outcome MergeValue(od::value& v, InferredType* acc, uint32_t depth) {
    od::json_type type;
    if (auto e = v.type().get(type); e) {
      return rules.NonNumeric(v.raw_json_token(), acc, simdjson::error_message(e));
    }
    switch (type) {
      case od::json_type::object: {
        od::object obj;
        if (Outcome o = Open(v, &obj); o != Outcome::kOk) return o;
        return MergeObject(obj, acc, depth + 1);
      }
      case od::json_type::array: {
        od::array arr;
        if (Outcome o = Open(v, &arr); o != Outcome::kOk) return o;
        return MergeArray(arr, acc, depth + 1);
      }
      case od::json_type::number: {
        const std::string_view token = v.raw_json_token();
        if (!options().primitives_as_string && !options().prefers_decimal) {
          if (acc->kind() == InferredKind::kString || acc->kind() == InferredKind::kDouble) {
            return Outcome::kOk;
          }
          if (acc->kind() == InferredKind::kLong && internal::JsonTypeRules::ShortLong(token))
            return Outcome::kOk;
        }
        InferredType t;
        const Outcome o = rules.Number(token, &t);
        if (o != Outcome::kOk) return o;
        Merge(acc, t);
        return Outcome::kOk;
      }
      case od::json_type::string: {
        // The string's content is only needed when a rule looks at it.
        if (acc->kind() == InferredKind::kString) return Outcome::kOk;
        if (!options().prefers_decimal && !options().infer_timestamp) {
          const std::string_view token = v.raw_json_token();
          const bool empty = token.size() >= 2 && token[1] == '"';
          Merge(acc, empty ? InferredType::Null() : InferredType::String());
          return Outcome::kOk;
        }
        std::string_view s;
        if (auto e = v.get_string().get(s); e) {
          return Fail(Outcome::kMalformed, simdjson::error_message(e));
        }
        InferredType t;
        const Outcome o = rules.String(s, &t);
        if (o != Outcome::kOk) return o;
        Merge(acc, t);
        return Outcome::kOk;
      }
      case od::json_type::boolean:
        Merge(acc,
              options().primitives_as_string ? InferredType::String() : InferredType::Boolean());
        return Outcome::kOk;
      case od::json_type::null:
        return Outcome::kOk;
    }
    return Fail(Outcome::kMalformed, "unknown JSON value");
  }

  // Merge the object's fields into `acc` in place: acc becomes (or stays) a struct, or a string
  // when it already holds another kind (CompatibleType of anything and a struct).
  Outcome MergeObject(od::object& obj, InferredType* acc, uint32_t depth) {
    if (acc->is_null()) *acc = InferredType::Struct({});
    if (!acc->is_struct()) {
      // The record was checked, so nothing inside needs looking at.
      *acc = InferredType::String();
      return Outcome::kOk;
    }
    slots.Begin(depth);
    uint32_t ordinal = 0;
    for (auto field_result : obj) {
      if (auto e = field_result.error(); e) {
        return Fail(Outcome::kMalformed, simdjson::error_message(e));
      }
      // Used where it is: copying simdjson's iterators stalls (see Key).
      od::field& field = field_result.value_unsafe();
      std::string_view key;
      if (Outcome o = Key(field, &key); o != Outcome::kOk) return o;
      InferredType* slot = slots.Slot(acc->mutable_fields(), depth, ordinal++, key);
      if (Outcome o = MergeValue(field.value(), slot, depth); o != Outcome::kOk) return o;
    }
    slots.End(acc->mutable_fields(), depth);
    return Outcome::kOk;
  }

  Outcome MergeArray(od::array& arr, InferredType* acc, uint32_t depth) {
    if (acc->is_null()) *acc = InferredType::Array(InferredType::Null());
    if (!acc->is_array()) {
      *acc = InferredType::String();
      return Outcome::kOk;
    }
    InferredType* element = &acc->mutable_element();
    for (auto item_result : arr) {
      if (auto e = item_result.error(); e) {
        return Fail(Outcome::kMalformed, simdjson::error_message(e));
      }
      od::value& item = item_result.value_unsafe();  // in place, as the fields (see Key)
      if (Outcome o = MergeValue(item, element, depth); o != Outcome::kOk) return o;
    }
    return Outcome::kOk;
  }

  // The document's root. `root` is the accumulated struct. With `merge`, `root_type` gets the
  // record's type when the root is not an object (null type for an object, which merges in
  // place); without, the record is checked, and one whose root is not an object is uncovered.
  Outcome Document(od::document& doc, InferredType* root, InferredType* root_type, bool merge) {
    od::json_type type;
    if (auto e = doc.type().get(type); e) {
      std::string_view raw;
      if (doc.raw_json_token().get(raw) != simdjson::SUCCESS) {
        return Fail(Outcome::kMalformed, simdjson::error_message(e));
      }
      InferredType t;
      if (Outcome o = rules.NonNumeric(raw, &t, simdjson::error_message(e)); o != Outcome::kOk) {
        return o;
      }
      uncovered = true;
      if (merge) *root_type = t;
      return Outcome::kOk;
    }
    if (type != od::json_type::object) uncovered = true;
    switch (type) {
      case od::json_type::object: {
        od::object obj;
        if (Outcome o = Open(doc, &obj); o != Outcome::kOk) return o;
        return merge ? MergeObject(obj, root, 1) : CheckObject(obj, root, 1);
      }
      case od::json_type::array: {
        od::array arr;
        if (Outcome o = Open(doc, &arr); o != Outcome::kOk) return o;
        if (!merge) return CheckArray(arr, nullptr, 1);
        *root_type = InferredType::Array(InferredType::Null());
        return MergeArray(arr, root_type, 1);
      }
      case od::json_type::number: {
        std::string_view raw;
        if (auto e = doc.raw_json_token().get(raw); e) {
          return Fail(Outcome::kMalformed, simdjson::error_message(e));
        }
        InferredType t;
        if (Outcome o = rules.Number(raw, &t); o != Outcome::kOk) return o;
        if (merge) *root_type = t;
        return Outcome::kOk;
      }
      case od::json_type::string: {
        std::string_view s;
        if (auto e = doc.get_string().get(s); e) {
          return Fail(Outcome::kMalformed, simdjson::error_message(e));
        }
        InferredType t;
        if (Outcome o = rules.String(s, &t); o != Outcome::kOk) return o;
        if (merge) *root_type = t;
        return Outcome::kOk;
      }
      case od::json_type::boolean:
        if (Outcome o = Literal(doc, type); o != Outcome::kOk) return o;
        if (merge) {
          *root_type =
              options().primitives_as_string ? InferredType::String() : InferredType::Boolean();
        }
        return Outcome::kOk;
      case od::json_type::null:
        return Literal(doc, type);
    }
    return Fail(Outcome::kMalformed, "unknown JSON value");
  }
};

Result<JsonInferOptions> JsonInferOptions::FromMap(
    const std::vector<std::pair<std::string, std::string>>& options) {
  JsonInferOptions o;
  bool corrupt_from_option = false;
  AutoLoaderOptions auto_loader;
  bool any_auto_loader = false;
  for (const auto& [raw_key, value] : options) {
    const std::string key = AsciiLower(raw_key);
    if (key == "primitivesasstring") {
      SLUICE_ASSIGN_OR_RETURN(o.primitives_as_string, ParseBool(raw_key, value));
    } else if (key == "prefersdecimal") {
      SLUICE_ASSIGN_OR_RETURN(o.prefers_decimal, ParseBool(raw_key, value));
    } else if (key == "dropfieldifallnull") {
      SLUICE_ASSIGN_OR_RETURN(o.drop_field_if_all_null, ParseBool(raw_key, value));
    } else if (key == "infertimestamp") {
      SLUICE_ASSIGN_OR_RETURN(o.infer_timestamp, ParseBool(raw_key, value));
    } else if (key == "timestampformat") {
      o.timestamp_format = value;
    } else if (key == "timestampntzformat") {
      o.timestamp_ntz_format = value;
    } else if (key == "mode") {
      // ParseMode.fromString: case-insensitive; anything else is PERMISSIVE (with a warning).
      if (EqualsIgnoreCase(value, "DROPMALFORMED")) {
        o.mode = ParseMode::kDropMalformed;
      } else if (EqualsIgnoreCase(value, "FAILFAST")) {
        o.mode = ParseMode::kFailFast;
      } else {
        o.mode = ParseMode::kPermissive;
      }
    } else if (key == "columnnameofcorruptrecord") {
      o.column_name_of_corrupt_record = value;
      corrupt_from_option = true;
    } else if (key == "spark.sql.columnnameofcorruptrecord") {
      if (!corrupt_from_option) o.column_name_of_corrupt_record = value;
    } else if (key == "locale") {
      o.locale = value;
    } else if (key == "spark.sql.timestamptype") {
      o.timestamp_type_ntz = EqualsIgnoreCase(value, "TIMESTAMP_NTZ");
    } else if (key == "samplingratio") {
      char* end = nullptr;
      const double r = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || r <= 0) {
        return InvalidArgument(
            fmt::format("samplingRatio \"{}\" must be > 0", EscapeForMessage(value)));
      }
      if (r <= 0.99) {
        return InvalidArgument("samplingRatio below 1: sample the records before inference");
      }
    } else if (key == "cloudfiles.infercolumntypes") {
      SLUICE_ASSIGN_OR_RETURN(auto_loader.infer_column_types, ParseBool(raw_key, value));
      any_auto_loader = true;
    } else if (key == "cloudfiles.schemahints") {
      auto_loader.schema_hints = value;
      any_auto_loader = true;
    }
  }
  if (any_auto_loader) o.auto_loader = auto_loader;
  return o;
}

JsonInferrer::JsonInferrer(std::unique_ptr<Impl> impl, JsonInferOptions options)
    : impl_(std::move(impl)), options_(std::move(options)) {
  impl_->rules.options = &options_;
}

JsonInferrer::JsonInferrer(JsonInferrer&& other) noexcept
    : impl_(std::move(other.impl_)),
      options_(std::move(other.options_)),
      root_(std::move(other.root_)),
      saw_non_struct_root_(other.saw_non_struct_root_),
      records_(other.records_),
      malformed_(other.malformed_),
      last_malformed_reason_(std::move(other.last_malformed_reason_)) {
  if (impl_) impl_->rules.options = &options_;
}

JsonInferrer& JsonInferrer::operator=(JsonInferrer&& other) noexcept {
  impl_ = std::move(other.impl_);
  options_ = std::move(other.options_);
  root_ = std::move(other.root_);
  saw_non_struct_root_ = other.saw_non_struct_root_;
  records_ = other.records_;
  malformed_ = other.malformed_;
  last_malformed_reason_ = std::move(other.last_malformed_reason_);
  if (impl_) impl_->rules.options = &options_;
  return *this;
}

JsonInferrer::~JsonInferrer() = default;

Result<JsonInferrer> JsonInferrer::Make(JsonInferOptions options) {
  if (options.auto_loader.has_value() && !options.auto_loader->infer_column_types) {
    options.primitives_as_string = true;
    options.prefers_decimal = false;
    options.infer_timestamp = false;
  }
  if (options.max_depth == 0) return InvalidArgument("max_depth must be at least 1");
  auto impl = std::make_unique<Impl>();
  SLUICE_ASSIGN_OR_RETURN(impl->rules.locale, internal::DecimalLocaleFor(options.locale));
  if (options.timestamp_format) {
    SLUICE_ASSIGN_OR_RETURN(impl->rules.timestamp_pattern,
                            internal::DateTimePattern::Compile(*options.timestamp_format));
  }
  if (options.timestamp_ntz_format) {
    SLUICE_ASSIGN_OR_RETURN(impl->rules.timestamp_ntz_pattern,
                            internal::DateTimePattern::Compile(*options.timestamp_ntz_format));
  }
  if (options.auto_loader.has_value()) {
    // Fail early on bad hints rather than at Finish.
    SLUICE_TRY(ParseSchemaHints(options.auto_loader->schema_hints));
  }
  // Our own depth check fires first; simdjson's limit only has to be no lower.
  if (impl->parser.allocate(4096, options.max_depth + 2) != simdjson::SUCCESS) {
    return Internal("simdjson could not allocate its parser");
  }
  return JsonInferrer(std::move(impl), std::move(options));
}

Status JsonInferrer::AddRecord(std::string_view json) {
  if (IsBlank(json)) {
    ++records_;
    return Ok();
  }
  Impl& impl = *impl_;
  const size_t needed = json.size() + simdjson::SIMDJSON_PADDING;
  if (impl.buffer.size() < needed) impl.buffer.resize(needed);
  std::memcpy(impl.buffer.data(), json.data(), json.size());
  std::memset(impl.buffer.data() + json.size(), 0, simdjson::SIMDJSON_PADDING);
  return AddPaddedRecord(std::string_view(impl.buffer.data(), json.size()));
}

Status JsonInferrer::AddPaddedRecord(std::string_view json) {
  ++records_;
  if (IsBlank(json)) return Ok();
  Impl& impl = *impl_;
  impl.rules.reason.clear();
  impl.doc_begin = json.data();
  impl.doc_limit = json.data() + json.size() + simdjson::SIMDJSON_PADDING;

  auto malformed = [&](std::string why) -> Status {
    ++malformed_;
    last_malformed_reason_ = fmt::format("record {}: {}", records_, why);
    switch (options_.mode) {
      case ParseMode::kPermissive:
        // JsonInferSchema returns struct<corrupt:string> for the record, merged like any other.
        MergeInto(&root_, InferredType::Struct({InferredField{
                              options_.column_name_of_corrupt_record, InferredType::String()}}));
        return Ok();
      case ParseMode::kDropMalformed:
        return Ok();
      case ParseMode::kFailFast:
        return ParseError(
            fmt::format("malformed record in FAILFAST mode: {}", last_malformed_reason_));
    }
    return Ok();
  };

  InferredType root_type;
  // Validate the whole record first: a corrupt record must leave no trace in the schema. A
  // large record is read by a scanner of our own, when it takes it (see InferWithScanner);
  // simdjson reads the rest.
  if (json.size() >= options_.scanner_min_record_bytes &&
      internal::InferWithScanner(json, impl.rules, impl.slots, nullptr, nullptr) == Outcome::kOk) {
    const Outcome o = internal::InferWithScanner(json, impl.rules, impl.slots, &root_, &root_type);
    if (o != Outcome::kOk) return Internal("record changed between passes: " + impl.rules.reason);
  } else {
    impl.rules.reason.clear();
    od::document doc;
    if (auto e =
            impl.parser.iterate(json.data(), json.size(), json.size() + simdjson::SIMDJSON_PADDING)
                .get(doc);
        e) {
      return malformed(simdjson::error_message(e));
    }
    impl.uncovered = false;
    Outcome o = impl.Document(doc, &root_, nullptr, /*merge=*/false);
    if (o == Outcome::kFatal) {
      --records_;
      return InvalidArgument(fmt::format("record {}: {}", records_ + 1, impl.rules.reason));
    }
    if (o == Outcome::kMalformed) return malformed(impl.rules.reason);
    // A record the type inferred so far covers changes nothing.
    if (!impl.uncovered) return Ok();

    doc.rewind();
    o = impl.Document(doc, &root_, &root_type, /*merge=*/true);
    if (o != Outcome::kOk) return Internal("record changed between passes: " + impl.rules.reason);
  }

  // compatibleRootType: unwrap top-level arrays, drop nulls, merge structs, flag the rest.
  const InferredType* t = &root_type;
  while (t->is_array()) t = &t->element();
  if (t->is_null()) return Ok();
  if (t->is_struct()) {
    MergeInto(&root_, *t);
    return Ok();
  }
  switch (options_.mode) {
    case ParseMode::kPermissive:
      saw_non_struct_root_ = true;
      return Ok();
    case ParseMode::kDropMalformed:
      return Ok();
    case ParseMode::kFailFast:
      return ParseError(
          fmt::format("record {}: a top-level {} is not a record (FAILFAST: Spark's "
                      "malformedRecordsDetectedInSchemaInferenceError)",
                      records_, t->ToString()));
  }
  return Ok();
}

void JsonInferrer::Merge(const JsonInferrer& other) {
  MergeInto(&root_, other.root_);
  saw_non_struct_root_ = saw_non_struct_root_ || other.saw_non_struct_root_;
  records_ += other.records_;
  malformed_ += other.malformed_;
  if (!other.last_malformed_reason_.empty()) last_malformed_reason_ = other.last_malformed_reason_;
}

std::optional<InferredType> CanonicalizeType(const InferredType& type,
                                             bool drop_field_if_all_null) {
  switch (type.kind()) {
    case InferredKind::kArray: {
      std::optional<InferredType> e = CanonicalizeType(type.element(), drop_field_if_all_null);
      if (!e) return std::nullopt;
      return InferredType::Array(std::move(*e), type.contains_null());
    }
    case InferredKind::kStruct: {
      std::vector<InferredField> fields;
      for (const InferredField& f : type.fields()) {
        if (f.name.empty()) continue;
        std::optional<InferredType> t = CanonicalizeType(f.type, drop_field_if_all_null);
        if (t) fields.push_back(InferredField{f.name, std::move(*t)});
      }
      // SPARK-8093: empty structs are deleted.
      if (fields.empty()) return std::nullopt;
      return InferredType::Struct(std::move(fields));
    }
    case InferredKind::kNull:
      if (drop_field_if_all_null) return std::nullopt;
      return InferredType::String();
    case InferredKind::kBoolean:
    case InferredKind::kInt:
    case InferredKind::kLong:
    case InferredKind::kDouble:
    case InferredKind::kDecimal:
    case InferredKind::kString:
    case InferredKind::kDate:
    case InferredKind::kTimestamp:
    case InferredKind::kTimestampNtz:
      return type;
  }
  return type;
}

InferredType JsonInferrer::FinishType() const {
  InferredType root = root_;
  if (saw_non_struct_root_) {
    // withCorruptField adds the column only when the struct lacks it.
    const std::string& name = options_.column_name_of_corrupt_record;
    const bool present = std::any_of(root.fields().begin(), root.fields().end(),
                                     [&](const InferredField& f) { return f.name == name; });
    if (!present) {
      MergeInto(&root, InferredType::Struct({InferredField{name, InferredType::String()}}));
    }
  }
  std::optional<InferredType> canonical = CanonicalizeType(root, options_.drop_field_if_all_null);
  if (!canonical || !canonical->is_struct()) return InferredType::Struct({});
  return std::move(*canonical);
}

Result<schema::SchemaPtr> JsonInferrer::Finish() const {
  InferredType type = FinishType();
  if (options_.auto_loader.has_value()) {
    return FinishAutoLoaderSchema(std::move(type), *options_.auto_loader);
  }
  SLUICE_ASSIGN_OR_RETURN(schema::TypePtr t, ToSchemaType(type));
  return schema::Schema::FromStruct(std::move(t));
}

}  // namespace sluice::data
