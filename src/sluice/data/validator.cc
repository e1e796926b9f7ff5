#include "sluice/data/validator.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/data/lexical_internal.h"
#include "sluice/schema/field_path.h"

namespace sluice::data {

namespace od = simdjson::ondemand;
using schema::TypeKind;

std::string_view ViolationKindName(ViolationKind kind) {
  switch (kind) {
    case ViolationKind::kMalformed: return "malformed";
    case ViolationKind::kTypeMismatch: return "type_mismatch";
    case ViolationKind::kOutOfRange: return "out_of_range";
    case ViolationKind::kDecimalPrecision: return "decimal_precision";
    case ViolationKind::kStringTooLong: return "string_too_long";
    case ViolationKind::kInvalidDate: return "invalid_date";
    case ViolationKind::kInvalidTimestamp: return "invalid_timestamp";
    case ViolationKind::kNullNotAllowed: return "null_not_allowed";
    case ViolationKind::kMissingRequired: return "missing_required";
    case ViolationKind::kUnknownField: return "unknown_field";
    case ViolationKind::kCaseMismatch: return "case_mismatch";
    case ViolationKind::kDuplicateKey: return "duplicate_key";
  }
  return "unknown";
}

struct ValidationPlan::Node {
  TypeKind kind = TypeKind::kNull;
  /// Whether this place may hold null (the field's nullable, containsNull, valueContainsNull).
  bool nullable = true;
  int precision = 0;
  int scale = 0;
  int max_length = -1;  // char/varchar
  std::string name;     // struct children only
  std::string lower;    // ASCII-lowercased name
  std::string json_key; // "name": as JSON, ready to append
  std::string path;     // the schema path, for reports
  uint32_t first_child = 0;
  uint32_t child_count = 0;
  /// Wide structs: exact name -> child position.
  std::unordered_map<std::string, uint32_t> by_name;
  /// Root only: the position of the rescued column among the children, or -1.
  int rescued_child = -1;
};

ValidationPlan::~ValidationPlan() = default;

namespace {

using Node = ValidationPlan::Node;
constexpr uint32_t kWideStruct = 12;
constexpr size_t kMaxViolationsPerRecord = 64;

bool Supported(TypeKind kind) {
  switch (kind) {
    case TypeKind::kNull:
    case TypeKind::kBoolean:
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
    case TypeKind::kDecimal:
    case TypeKind::kString:
    case TypeKind::kBinary:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return true;
  }
  return false;
}

// Fill nodes[at] from `type`, appending its children at the end of `nodes`.
Status CompileNode(const schema::Type& type, bool nullable, std::string path, uint32_t at,
                   std::vector<Node>& nodes) {
  if (!Supported(type.kind())) return InvalidArgument("cannot validate type " + type.ToString());
  {
    Node& n = nodes[at];
    n.kind = type.kind();
    n.nullable = nullable;
    n.path = path;
    if (type.kind() == TypeKind::kDecimal) {
      n.precision = type.precision();
      n.scale = type.scale();
    }
    if (type.kind() == TypeKind::kString &&
        type.string_length() != schema::StringLength::kUnbounded) {
      n.max_length = type.length();
    }
  }
  auto add_children = [&](size_t count) {
    uint32_t first = static_cast<uint32_t>(nodes.size());
    nodes.resize(nodes.size() + count);
    nodes[at].first_child = first;
    nodes[at].child_count = static_cast<uint32_t>(count);
    return first;
  };
  const std::string prefix = path.empty() ? "" : path + ".";
  switch (type.kind()) {
    case TypeKind::kStruct: {
      uint32_t first = add_children(type.fields().size());
      for (size_t i = 0; i < type.fields().size(); ++i) {
        const schema::Field& f = type.fields()[i];
        Node& c = nodes[first + i];
        c.name = f.name();
        c.lower = AsciiLower(f.name());
        c.json_key.clear();
        AppendJsonString(c.json_key, f.name());
        c.json_key += ':';
        SLUICE_TRY(CompileNode(*f.type(), f.nullable(), prefix + schema::QuoteFieldName(f.name()),
                               first + static_cast<uint32_t>(i), nodes));
      }
      if (type.fields().size() > kWideStruct) {
        for (size_t i = 0; i < type.fields().size(); ++i) {
          nodes[at].by_name.emplace(type.fields()[i].name(), static_cast<uint32_t>(i));
        }
      }
      break;
    }
    case TypeKind::kArray: {
      uint32_t first = add_children(1);
      SLUICE_TRY(CompileNode(*type.element_type(), type.contains_null(),
                             (path.empty() ? std::string() : path) + "[]", first, nodes));
      break;
    }
    case TypeKind::kMap: {
      uint32_t first = add_children(2);
      SLUICE_TRY(CompileNode(*type.key_type(), false, path + "{key}", first, nodes));
      SLUICE_TRY(
          CompileNode(*type.value_type(), type.value_contains_null(), path + "{value}", first + 1,
                      nodes));
      break;
    }
    case TypeKind::kNull:
    case TypeKind::kBoolean:
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
    case TypeKind::kDecimal:
    case TypeKind::kString:
    case TypeKind::kBinary:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
    case TypeKind::kTime:
    case TypeKind::kUuid:
      break;
  }
  return {};
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' ||
                        s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool IsNonNumericToken(std::string_view t) {
  return t == "NaN" || t == "Infinity" || t == "+Infinity" || t == "-Infinity";
}

bool IsSpecialFloatString(std::string_view t) {
  return t == "NaN" || t == "Infinity" || t == "+Infinity" || t == "-Infinity" || t == "INF" ||
         t == "+INF" || t == "-INF";
}

// Integer range of an integer kind.
void IntRange(TypeKind kind, int64_t* lo, int64_t* hi) {
  switch (kind) {
    case TypeKind::kInt8: *lo = INT8_MIN; *hi = INT8_MAX; return;
    case TypeKind::kInt16: *lo = INT16_MIN; *hi = INT16_MAX; return;
    case TypeKind::kInt32: *lo = INT32_MIN; *hi = INT32_MAX; return;
    case TypeKind::kNull:
    case TypeKind::kBoolean:
    case TypeKind::kInt64:
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
    case TypeKind::kDecimal:
    case TypeKind::kString:
    case TypeKind::kBinary:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      break;
  }
  *lo = INT64_MIN;
  *hi = INT64_MAX;
}

enum class DecimalResult : uint8_t { kOk, kNotANumber, kPrecision };

// java.math.BigDecimal(text).setScale(scale, HALF_UP), checked against precision; the value is
// appended to `out` as a JSON number with exactly `scale` fraction digits.
DecimalResult NormalizeDecimal(std::string_view text, int precision, int scale, std::string& out) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  char digits[80];
  int nd = 0;          // significant digits kept (leading zeros dropped)
  int64_t shift = 0;   // value = digits * 10^shift
  bool any = false;
  bool overflow = false;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (seen_point) --shift;
      if (nd == 0 && c == '0') continue;
      if (nd < 78) {
        digits[nd++] = c;
      } else {
        overflow = true;  // far more digits than any decimal holds
        if (!seen_point) ++shift;
        if (seen_point) ++shift;  // dropped digit: keep the magnitude, lose precision
      }
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any) return DecimalResult::kNotANumber;
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') return DecimalResult::kNotANumber;
    ++i;
    bool eneg = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
      eneg = text[i] == '-';
      ++i;
    }
    if (i >= text.size()) return DecimalResult::kNotANumber;
    int64_t e = 0;
    for (; i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9') return DecimalResult::kNotANumber;
      if (e < 100000000) e = e * 10 + (text[i] - '0');
    }
    shift += eneg ? -e : e;
  }
  if (overflow && nd > 0) {
    // More significant digits than fit 38 places: the integer part alone decides.
    if (nd + shift > precision - scale) return DecimalResult::kPrecision;
  }
  // Unscaled value at the target scale: digits * 10^(shift + scale).
  int64_t t = shift + scale;
  std::string unscaled;
  if (nd == 0) {
    unscaled = "0";
  } else if (t >= 0) {
    if (nd + t > 38) return DecimalResult::kPrecision;
    unscaled.assign(digits, static_cast<size_t>(nd));
    unscaled.append(static_cast<size_t>(t), '0');
  } else {
    int64_t drop = -t;
    if (drop > nd) {
      unscaled = "0";
    } else {
      unscaled.assign(digits, static_cast<size_t>(nd - drop));
      bool round_up = digits[nd - drop] >= '5';
      if (unscaled.empty()) unscaled = "0";
      if (round_up) {
        int k = static_cast<int>(unscaled.size()) - 1;
        while (k >= 0 && unscaled[static_cast<size_t>(k)] == '9') {
          unscaled[static_cast<size_t>(k)] = '0';
          --k;
        }
        if (k < 0) {
          unscaled.insert(unscaled.begin(), '1');
        } else {
          unscaled[static_cast<size_t>(k)]++;
        }
      }
      size_t nz = unscaled.find_first_not_of('0');
      unscaled = nz == std::string::npos ? "0" : unscaled.substr(nz);
    }
  }
  bool zero = unscaled == "0";
  if (!zero && static_cast<int>(unscaled.size()) > precision) return DecimalResult::kPrecision;
  if (negative && !zero) out += '-';
  if (scale == 0) {
    out += unscaled;
    return DecimalResult::kOk;
  }
  if (static_cast<int>(unscaled.size()) <= scale) {
    out += "0.";
    out.append(static_cast<size_t>(scale) - unscaled.size(), '0');
    out += unscaled;
  } else {
    out.append(unscaled, 0, unscaled.size() - static_cast<size_t>(scale));
    out += '.';
    out.append(unscaled, unscaled.size() - static_cast<size_t>(scale), std::string::npos);
  }
  return DecimalResult::kOk;
}

bool IsBase64(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && s[n - 1] == '=') --n;
  if (s.size() - n > 2) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
          c == '+' || c == '/')) {
      return false;
    }
  }
  if (n % 4 == 1) return false;
  return s.size() == n || s.size() % 4 == 0;
}

bool IsUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < 36; ++i) {
    char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

bool IsTimeOfDay(std::string_view s) {
  // [h]h:mm[:ss[.fraction]]
  size_t i = 0;
  auto num = [&](size_t min, size_t max, int limit) {
    size_t start = i;
    int v = 0;
    while (i < s.size() && i - start < max && s[i] >= '0' && s[i] <= '9') v = v * 10 + (s[i++] - '0');
    return i - start >= min && v <= limit;
  };
  if (!num(1, 2, 23) || i >= s.size() || s[i++] != ':' || !num(2, 2, 59)) return false;
  if (i < s.size() && s[i] == ':') {
    ++i;
    if (!num(2, 2, 59)) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      if (!num(1, 9, 999999999)) return false;
    }
  }
  return i == s.size();
}

// UTF-8 code points in `s`.
size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Bytes a JSON string's content may not hold raw, and whether it holds escapes.
struct StringScan {
  bool control = false;
  bool backslash = false;
};
StringScan ScanString(std::string_view body) {
  unsigned control = 0;
  unsigned backslash = 0;
  for (unsigned char c : body) {
    control |= c < 0x20;
    backslash |= c == '\\';
  }
  return {control != 0, backslash != 0};
}

struct Frame {
  std::string_view name;  // a struct key or map key
  int64_t index = -1;     // an array index, when >= 0
};

}  // namespace

Result<std::shared_ptr<const ValidationPlan>> ValidationPlan::Compile(schema::SchemaPtr schema,
                                                                      ValidatorOptions options) {
  if (!schema) return InvalidArgument("no schema to validate against");
  std::shared_ptr<ValidationPlan> plan(new ValidationPlan());
  plan->options_ = std::move(options);
  plan->nodes_.resize(1);
  SLUICE_TRY(CompileNode(*schema->struct_type(), false, "", 0, plan->nodes_));
  const std::string& rc = plan->options_.rescued_column;
  if (!rc.empty()) {
    const schema::Field* f = schema->struct_type()->FindField(rc);
    if (f != nullptr) {
      if (f->type()->kind() != TypeKind::kString) {
        return InvalidArgument("the rescued-data column `" + rc + "` is in the schema as " +
                               f->type()->ToString() + "; it must be a string");
      }
      const auto& fields = schema->fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].name() == rc) plan->nodes_[0].rescued_child = static_cast<int>(i);
      }
    } else {
      plan->append_rescued_ = true;
    }
  }
  plan->schema_ = std::move(schema);
  return std::shared_ptr<const ValidationPlan>(std::move(plan));
}

struct RecordValidator::Impl {
  std::shared_ptr<const ValidationPlan> plan;
  const std::vector<Node>* nodes = nullptr;
  od::parser parser;
  simdjson::dom::parser dom;
  std::string dom_buffer;
  RecordResult result;
  std::string rescued;          // the rescued object's members, comma-separated
  std::string prior_rescued;    // the record's own value of the rescued column, if any
  std::vector<Frame> frames;
  std::vector<std::vector<uint8_t>> seen;
  std::string scratch;
  bool fatal = false;
  bool needs_rescue = false;
  std::string_view record_text;
  uint32_t depth = 0;
  std::string malformed_message;

  explicit Impl(std::shared_ptr<const ValidationPlan> p) : plan(std::move(p)) {
    nodes = &plan->nodes();
    frames.reserve(32);
  }

  const Node& child(const Node& n, uint32_t i) const { return (*nodes)[n.first_child + i]; }

  void Violation(std::string path, ViolationKind kind, std::string detail = {}) {
    if (result.violations.size() < kMaxViolationsPerRecord) {
      result.violations.push_back({std::move(path), kind, std::move(detail)});
    }
  }

  // The record's own path of the current place, with indexes: `items[2].qty`.
  std::string RuntimePath() const {
    std::string p;
    for (const Frame& f : frames) {
      if (f.index >= 0) {
        p += '[';
        p += std::to_string(f.index);
        p += ']';
      } else {
        if (!p.empty()) p += '.';
        p += f.name;
      }
    }
    return p;
  }

  void AddRescued(std::string_view raw_json) {
    needs_rescue = true;
    if (!rescued.empty()) rescued += ',';
    AppendJsonString(rescued, RuntimePath());
    rescued += ':';
    rescued += raw_json;
  }

  bool Malformed(std::string message) {
    malformed_message = std::move(message);
    return false;
  }
  bool Malformed(simdjson::error_code e) { return Malformed(simdjson::error_message(e)); }

  // Check that `raw` is one complete JSON value (used for text copied without walking it).
  bool ValidateRaw(std::string_view raw) {
    dom_buffer.assign(raw);
    dom_buffer.append(simdjson::SIMDJSON_PADDING, ' ');
    simdjson::dom::element el;
    auto e = dom.parse(dom_buffer.data(), raw.size(), false).get(el);
    if (e) return Malformed(e);
    return true;
  }

  // The full JSON text of `v`, whose token starts with `first`; validated.
  bool RawOf(od::value& v, std::string_view token, std::string_view* raw) {
    char first = token.empty() ? 0 : token[0];
    if (first == '{') {
      od::object o;
      auto e = v.get_object().get(o);
      if (e) return Malformed(e);
      e = o.raw_json().get(*raw);
      if (e) return Malformed(e);
      *raw = TrimRight(*raw);
      return ValidateRaw(*raw);
    }
    if (first == '[') {
      od::array a;
      auto e = v.get_array().get(a);
      if (e) return Malformed(e);
      e = a.raw_json().get(*raw);
      if (e) return Malformed(e);
      *raw = TrimRight(*raw);
      return ValidateRaw(*raw);
    }
    *raw = TrimRight(token);
    return ValidateScalar(v, *raw);
  }

  // A scalar token is well-formed JSON.
  bool ValidateScalar(od::value& v, std::string_view tok) {
    if (tok.empty()) return Malformed("empty value");
    switch (tok[0]) {
      case '"': {
        if (tok.size() < 2 || tok.back() != '"') return Malformed("unterminated string");
        StringScan s = ScanString(tok.substr(1, tok.size() - 2));
        if (s.control) return Malformed("control character in a string");
        if (s.backslash) {
          std::string_view ignored;
          auto e = v.get_string().get(ignored);
          if (e) return Malformed(e);
        }
        return true;
      }
      case 't': return tok == "true" || Malformed("invalid literal");
      case 'f': return tok == "false" || Malformed("invalid literal");
      case 'n': return tok == "null" || Malformed("invalid literal");
      default: {
        internal::DecimalShape shape;
        if (internal::ClassifyJsonNumber(tok, &shape) == internal::JsonNumberClass::kInvalid) {
          return Malformed("invalid number " + std::string(tok.substr(0, 40)));
        }
        return true;
      }
    }
  }

  // A value that does not fit `n`: report it, rescue it, write null.
  bool Mismatch(const Node& n, ViolationKind kind, od::value& v, std::string_view token,
                std::string& out, std::string detail = {}) {
    std::string_view raw;
    if (!RawOf(v, token, &raw)) return false;
    Violation(n.path, kind, std::move(detail));
    if (!n.nullable) fatal = true;
    AddRescued(raw);
    out += "null";
    return true;
  }

  // Mismatch for a string value whose text is known valid (the non-numeric number tokens).
  void MismatchText(const Node& n, ViolationKind kind, std::string_view text, std::string& out) {
    Violation(n.path, kind);
    if (!n.nullable) fatal = true;
    std::string s;
    AppendJsonString(s, text);
    AddRescued(s);
    out += "null";
  }

  // The unescaped content of a string token.
  bool StringContent(od::value& v, std::string_view tok, std::string_view* content) {
    if (tok.size() < 2 || tok.back() != '"') return Malformed("unterminated string");
    std::string_view body = tok.substr(1, tok.size() - 2);
    StringScan s = ScanString(body);
    if (s.control) return Malformed("control character in a string");
    if (!s.backslash) {
      *content = body;
      return true;
    }
    auto e = v.get_string().get(*content);
    if (e) return Malformed(e);
    return true;
  }

  bool WalkValue(od::value v, const Node& n, std::string& out) {
    std::string_view token = TrimRight(v.raw_json_token());
    if (token.empty()) return Malformed("missing value");
    char c = token[0];
    if (c == 'n') {
      if (token != "null") return Malformed("invalid literal");
      if (!n.nullable) {
        Violation(n.path, ViolationKind::kNullNotAllowed);
        fatal = true;
      }
      out += "null";
      return true;
    }
    switch (n.kind) {
      case TypeKind::kStruct: {
        if (c != '{') return Mismatch(n, ViolationKind::kTypeMismatch, v, token, out, "expected an object");
        od::object obj;
        auto e = v.get_object().get(obj);
        if (e) return Malformed(e);
        return WalkObject(obj, n, out, false);
      }
      case TypeKind::kArray: {
        if (c != '[') return Mismatch(n, ViolationKind::kTypeMismatch, v, token, out, "expected an array");
        od::array arr;
        auto e = v.get_array().get(arr);
        if (e) return Malformed(e);
        if (++depth > plan->options().max_depth) return Malformed("nesting deeper than the limit");
        const Node& el = child(n, 0);
        out += '[';
        int64_t index = 0;
        frames.push_back({{}, 0});
        for (auto item : arr) {
          od::value ev;
          e = item.get(ev);
          if (e) return Malformed(e);
          if (index > 0) out += ',';
          frames.back().index = index++;
          if (!WalkValue(ev, el, out)) return false;
        }
        frames.pop_back();
        --depth;
        out += ']';
        return true;
      }
      case TypeKind::kMap: {
        if (c != '{') return Mismatch(n, ViolationKind::kTypeMismatch, v, token, out, "expected an object");
        od::object obj;
        auto e = v.get_object().get(obj);
        if (e) return Malformed(e);
        if (++depth > plan->options().max_depth) return Malformed("nesting deeper than the limit");
        const Node& key_node = child(n, 0);
        const Node& value_node = child(n, 1);
        out += '{';
        bool first = true;
        frames.push_back({});
        for (auto fr : obj) {
          od::field field;
          e = std::move(fr).get(field);
          if (e) return Malformed(e);
          std::string_view key;
          e = field.unescaped_key().get(key);
          if (e) return Malformed(e);
          if (ScanString(key).control) return Malformed("control character in a key");
          frames.back().name = key;
          if (!first) out += ',';
          first = false;
          AppendJsonString(out, key);
          out += ':';
          if (!KeyFits(key_node, key)) {
            Violation(key_node.path, ViolationKind::kTypeMismatch, "map key does not fit");
            std::string_view raw;
            od::value fv = field.value();
            std::string_view tok = TrimRight(fv.raw_json_token());
            if (!RawOf(fv, tok, &raw)) return false;
            AddRescued(raw);
            out += "null";
            continue;
          }
          if (!WalkValue(field.value(), value_node, out)) return false;
        }
        frames.pop_back();
        --depth;
        out += '}';
        return true;
      }
      case TypeKind::kString: {
        if (c == '"') {
          std::string_view content;
          if (!StringContent(v, token, &content)) return false;
          if (n.max_length >= 0 && CodePoints(content) > static_cast<size_t>(n.max_length)) {
            return Mismatch(n, ViolationKind::kStringTooLong, v, token, out);
          }
          out += token;
          return true;
        }
        // Spark keeps any other value as its JSON text.
        std::string_view raw;
        if (!RawOf(v, token, &raw)) return false;
        if (IsNonNumericToken(raw)) {
          // not JSON text anyone can read back, but Spark keeps it
        }
        if (n.max_length >= 0 && CodePoints(raw) > static_cast<size_t>(n.max_length)) {
          Violation(n.path, ViolationKind::kStringTooLong);
          if (!n.nullable) fatal = true;
          AddRescued(raw);
          out += "null";
          return true;
        }
        AppendJsonString(out, raw);
        return true;
      }
      case TypeKind::kBoolean:
        if (c == 't' || c == 'f') {
          if (token != "true" && token != "false") return Malformed("invalid literal");
          out += token;
          return true;
        }
        return Mismatch(n, ViolationKind::kTypeMismatch, v, token, out, "expected a boolean");
      case TypeKind::kInt8:
      case TypeKind::kInt16:
      case TypeKind::kInt32:
      case TypeKind::kInt64: {
        if (c == '-' || (c >= '0' && c <= '9')) {
          if (IsNonNumericToken(token)) {
            MismatchText(n, ViolationKind::kTypeMismatch, token, out);
            return true;
          }
          int64_t value = 0;
          auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
          if (ec == std::errc() && ptr == token.data() + token.size() &&
              !(token.size() > 1 && (token[0] == '0' || (token[0] == '-' && token[1] == '0')))) {
            int64_t lo = 0;
            int64_t hi = 0;
            IntRange(n.kind, &lo, &hi);
            if (value < lo || value > hi) return Mismatch(n, ViolationKind::kOutOfRange, v, token, out);
            out += token;
            return true;
          }
          internal::DecimalShape shape;
          switch (internal::ClassifyJsonNumber(token, &shape)) {
            case internal::JsonNumberClass::kInvalid:
              return Malformed("invalid number " + std::string(token.substr(0, 40)));
            case internal::JsonNumberClass::kLong:
            case internal::JsonNumberClass::kBigInteger:
              return Mismatch(n, ViolationKind::kOutOfRange, v, token, out);
            case internal::JsonNumberClass::kFloat:
            case internal::JsonNumberClass::kNonNumeric:
              return Mismatch(n, ViolationKind::kTypeMismatch, v, token, out, "expected an integer");
          }
          return Malformed("invalid number");
        }
        if (IsNonNumericToken(token)) {
          MismatchText(n, ViolationKind::kTypeMismatch, token, out);
          return true;
        }
        return Mismatch(n, ViolationKind::kTypeMismatch, v, token, out, "expected an integer");
      }
      case TypeKind::kFloat32:
      case TypeKind::kFloat64: {
        if (IsNonNumericToken(token)) {
          AppendJsonString(out, token);
          return true;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
          double d = 0;
          auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), d);
          internal::DecimalShape shape;
          if (internal::ClassifyJsonNumber(token, &shape) == internal::JsonNumberClass::kInvalid) {
            return Malformed("invalid number " + std::string(token.substr(0, 40)));
          }
          if (ec == std::errc::result_out_of_range || !std::isfinite(d) ||
              (n.kind == TypeKind::kFloat32 &&
               std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))) {
            if (ec == std::errc::result_out_of_range && std::fabs(d) < 1) {
              out += token;  // underflow: a tiny number is still a number (Jackson gives 0.0)
              return true;
            }
            return Mismatch(n, ViolationKind::kOutOfRange, v, token, out);
          }
          out += token;
          return true;
        }
        if (c == '"') {
          std::string_view content;
          if (!StringContent(v, token, &content)) return false;
          if (IsSpecialFloatString(content)) {
            out += token;
            return true;
          }
        }
        return Mismatch(n, ViolationKind::kTypeMismatch, v, token, out, "expected a number");
      }
      case TypeKind::kDecimal: {
        std::string_view text;
        std::string stripped;
        if (c == '"') {
          if (!StringContent(v, token, &text)) return false;
          if (text.find(',') != std::string_view::npos) {
            for (char ch : text) {
              if (ch != ',') stripped += ch;
            }
            text = stripped;
          }
        } else if (c == '-' || (c >= '0' && c <= '9')) {
          internal::DecimalShape shape;
          if (internal::ClassifyJsonNumber(token, &shape) == internal::JsonNumberClass::kInvalid) {
            return Malformed("invalid number " + std::string(token.substr(0, 40)));
          }
          text = token;
        } else {
          if (IsNonNumericToken(token)) {
            MismatchText(n, ViolationKind::kTypeMismatch, token, out);
            return true;
          }
          return Mismatch(n, ViolationKind::kTypeMismatch, v, token, out, "expected a decimal");
        }
        size_t mark = out.size();
        switch (NormalizeDecimal(text, n.precision, n.scale, out)) {
          case DecimalResult::kOk: return true;
          case DecimalResult::kNotANumber:
            out.resize(mark);
            return Mismatch(n, ViolationKind::kTypeMismatch, v, token, out, "expected a decimal");
          case DecimalResult::kPrecision:
            out.resize(mark);
            return Mismatch(n, ViolationKind::kDecimalPrecision, v, token, out);
        }
        return true;
      }
      case TypeKind::kDate:
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampNtz:
      case TypeKind::kTime:
      case TypeKind::kUuid:
      case TypeKind::kBinary: {
        if (c != '"') {
          if (n.kind == TypeKind::kTimestamp && (c == '-' || (c >= '0' && c <= '9'))) {
            internal::DecimalShape shape;
            switch (internal::ClassifyJsonNumber(token, &shape)) {
              case internal::JsonNumberClass::kInvalid:
                return Malformed("invalid number " + std::string(token.substr(0, 40)));
              case internal::JsonNumberClass::kLong: {
                // Seconds since the epoch, as Spark reads an integer into a timestamp; the
                // microseconds must fit a long.
                int64_t secs = 0;
                std::from_chars(token.data(), token.data() + token.size(), secs);
                if (secs > INT64_MAX / 1000000 || secs < INT64_MIN / 1000000) {
                  return Mismatch(n, ViolationKind::kOutOfRange, v, token, out);
                }
                out += token;
                return true;
              }
              case internal::JsonNumberClass::kBigInteger:
                return Mismatch(n, ViolationKind::kOutOfRange, v, token, out);
              case internal::JsonNumberClass::kFloat:
              case internal::JsonNumberClass::kNonNumeric:
                break;
            }
          }
          if (IsNonNumericToken(token)) {
            MismatchText(n, ViolationKind::kTypeMismatch, token, out);
            return true;
          }
          return Mismatch(n, ViolationKind::kTypeMismatch, v, token, out, "expected a string");
        }
        std::string_view content;
        if (!StringContent(v, token, &content)) return false;
        if (!TextFits(n, content)) {
          ViolationKind kind = n.kind == TypeKind::kDate ? ViolationKind::kInvalidDate
                               : (n.kind == TypeKind::kTimestamp || n.kind == TypeKind::kTimestampNtz ||
                                  n.kind == TypeKind::kTime)
                                   ? ViolationKind::kInvalidTimestamp
                                   : ViolationKind::kTypeMismatch;
          return Mismatch(n, kind, v, token, out);
        }
        out += token;
        return true;
      }
      case TypeKind::kNull:
        return Mismatch(n, ViolationKind::kTypeMismatch, v, token, out, "expected null");
    }
    return true;
  }

  // Text (a JSON string's content or a CSV value) parses as the string-shaped type of `n`.
  static bool TextFits(const Node& n, std::string_view s) {
    internal::DateTimeFields f;
    switch (n.kind) {
      case TypeKind::kDate: return internal::ParseLenientDate(s, &f);
      case TypeKind::kTimestamp: return internal::ParseLenientTimestamp(s, &f);
      case TypeKind::kTimestampNtz: return internal::ParseLenientTimestamp(s, &f) && !f.has_zone;
      case TypeKind::kTime: return IsTimeOfDay(s);
      case TypeKind::kUuid: return IsUuid(s);
      case TypeKind::kBinary: return IsBase64(s);
      case TypeKind::kString:
        return n.max_length < 0 || CodePoints(s) <= static_cast<size_t>(n.max_length);
      case TypeKind::kNull:
      case TypeKind::kBoolean:
      case TypeKind::kInt8:
      case TypeKind::kInt16:
      case TypeKind::kInt32:
      case TypeKind::kInt64:
      case TypeKind::kFloat32:
      case TypeKind::kFloat64:
      case TypeKind::kDecimal:
      case TypeKind::kStruct:
      case TypeKind::kArray:
      case TypeKind::kMap:
        break;
    }
    return false;
  }

  // A map key (always a JSON string) fits the key type.
  static bool KeyFits(const Node& key, std::string_view s) {
    switch (key.kind) {
      case TypeKind::kString:
      case TypeKind::kDate:
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampNtz:
      case TypeKind::kTime:
      case TypeKind::kUuid:
      case TypeKind::kBinary:
        return TextFits(key, s);
      case TypeKind::kBoolean: return s == "true" || s == "false";
      case TypeKind::kInt8:
      case TypeKind::kInt16:
      case TypeKind::kInt32:
      case TypeKind::kInt64: {
        int64_t v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size()) return false;
        int64_t lo = 0;
        int64_t hi = 0;
        IntRange(key.kind, &lo, &hi);
        return v >= lo && v <= hi;
      }
      case TypeKind::kFloat32:
      case TypeKind::kFloat64:
        return internal::ParseJavaDouble(s);
      case TypeKind::kDecimal: {
        std::string ignored;
        return NormalizeDecimal(s, key.precision, key.scale, ignored) == DecimalResult::kOk;
      }
      case TypeKind::kNull:
      case TypeKind::kStruct:
      case TypeKind::kArray:
      case TypeKind::kMap:
        break;
    }
    return false;
  }

  // Find the child of `n` named exactly `key` (raw match first, from `hint`), or -1.
  int FindExact(const Node& n, od::raw_json_string raw, std::string_view unescaped, bool have_unescaped,
                uint32_t hint) const {
    if (!have_unescaped) {
      for (uint32_t k = 0; k < n.child_count; ++k) {
        uint32_t i = hint + k;
        if (i >= n.child_count) i -= n.child_count;
        if (raw.unsafe_is_equal(child(n, i).name)) return static_cast<int>(i);
        if (k == 2 && n.child_count > kWideStruct) break;  // wide: let the hash decide
      }
      return -2;  // not found by raw comparison
    }
    if (!n.by_name.empty()) {
      auto it = n.by_name.find(std::string(unescaped));
      return it == n.by_name.end() ? -1 : static_cast<int>(it->second);
    }
    for (uint32_t i = 0; i < n.child_count; ++i) {
      if (child(n, i).name == unescaped) return static_cast<int>(i);
    }
    return -1;
  }

  bool WalkObject(od::object obj, const Node& n, std::string& out, bool root) {
    if (++depth > plan->options().max_depth) return Malformed("nesting deeper than the limit");
    if (seen.size() < depth + 1) seen.resize(depth + 1);
    std::vector<uint8_t>& seen_here = seen[depth];
    seen_here.assign(n.child_count, 0);
    out += '{';
    bool first = true;
    uint32_t hint = 0;
    frames.push_back({});
    for (auto fr : obj) {
      od::field field;
      auto e = std::move(fr).get(field);
      if (e) return Malformed(e);
      od::raw_json_string raw_key = field.key();
      int idx = -2;
      std::string_view key;
      // Names with quotes or backslashes never match raw; they go through the unescaped path.
      if (n.child_count > 0) idx = FindExact(n, raw_key, {}, false, hint);
      bool have_key = false;
      if (idx == -2 || idx >= 0) {
        // Validate the key when it was not matched against a plain schema name.
        if (idx == -2) {
          e = field.unescaped_key().get(key);
          if (e) return Malformed(e);
          if (ScanString(key).control) return Malformed("control character in a key");
          have_key = true;
          idx = FindExact(n, raw_key, key, true, 0);
        }
      }
      if (idx >= 0) {
        const Node& c = child(n, static_cast<uint32_t>(idx));
        frames.back().name = c.name;
        if (seen_here[static_cast<size_t>(idx)]) {
          od::value fv = field.value();
          std::string_view tok = TrimRight(fv.raw_json_token());
          std::string_view raw;
          if (!RawOf(fv, tok, &raw)) return false;
          Violation(c.path, ViolationKind::kDuplicateKey);
          AddRescued(raw);
          continue;
        }
        seen_here[static_cast<size_t>(idx)] = 1;
        hint = static_cast<uint32_t>(idx) + 1;
        if (root && idx == n.rescued_child) {
          od::value fv = field.value();
          std::string_view tok = TrimRight(fv.raw_json_token());
          std::string_view raw;
          if (!RawOf(fv, tok, &raw)) return false;
          if (raw != "null") prior_rescued.assign(raw);
          continue;
        }
        if (!first) out += ',';
        first = false;
        out += c.json_key;
        if (!WalkValue(field.value(), c, out)) return false;
        continue;
      }
      // Not a field of this struct: a case variant of one, or unknown.
      if (!have_key) {
        e = field.unescaped_key().get(key);
        if (e) return Malformed(e);
      }
      std::string lower = AsciiLower(key);
      int ci = -1;
      for (uint32_t i = 0; i < n.child_count; ++i) {
        if (child(n, i).lower == lower) {
          ci = static_cast<int>(i);
          break;
        }
      }
      frames.back().name = key;
      od::value fv = field.value();
      std::string_view tok = TrimRight(fv.raw_json_token());
      std::string_view raw;
      if (!RawOf(fv, tok, &raw)) return false;
      std::string path = n.path.empty() ? schema::QuoteFieldName(key)
                                        : n.path + "." + schema::QuoteFieldName(key);
      Violation(std::move(path),
                ci >= 0 ? ViolationKind::kCaseMismatch : ViolationKind::kUnknownField);
      AddRescued(raw);
    }
    frames.pop_back();
    for (uint32_t i = 0; i < n.child_count; ++i) {
      if (seen_here[i]) continue;
      if (root && static_cast<int>(i) == n.rescued_child) continue;
      const Node& c = child(n, i);
      if (!c.nullable) {
        Violation(c.path, ViolationKind::kMissingRequired);
        fatal = true;
      }
      if (!first) out += ',';
      first = false;
      out += c.json_key;
      out += "null";
    }
    if (root) WriteRescuedColumn(out, first);
    out += '}';
    --depth;
    return true;
  }

  std::string_view file;

  void WriteRescuedColumn(std::string& out, bool first) {
    const std::string& rc = plan->options().rescued_column;
    if (rc.empty()) return;
    if (!first) out += ',';
    AppendJsonString(out, rc);
    out += ':';
    if (!needs_rescue && prior_rescued.empty()) {
      out += "null";
      return;
    }
    if (!needs_rescue) {
      out += prior_rescued;
      return;
    }
    scratch.clear();
    scratch += '{';
    scratch += rescued;
    if (!prior_rescued.empty()) {
      scratch += ',';
      AppendJsonString(scratch, rc);
      scratch += ':';
      scratch += prior_rescued;
    }
    const std::string& fk = plan->options().file_path_key;
    if (!fk.empty()) {
      scratch += ',';
      AppendJsonString(scratch, fk);
      scratch += ':';
      AppendJsonString(scratch, file);
    }
    scratch += '}';
    AppendJsonString(out, scratch);
  }

  void Reset(std::string_view f) {
    result.status = RecordStatus::kValid;
    result.violations.clear();
    result.error.clear();
    result.error_offset = -1;
    rescued.clear();
    prior_rescued.clear();
    frames.clear();
    fatal = false;
    needs_rescue = false;
    depth = 0;
    file = f;
    malformed_message.clear();
  }

  void Finish(std::string& out, size_t mark) {
    if (fatal) {
      result.status = RecordStatus::kBad;
    } else if (needs_rescue) {
      result.status = plan->options().rescued_column.empty() ? RecordStatus::kBad
                                                             : RecordStatus::kRescued;
    } else if (!result.violations.empty()) {
      result.status = RecordStatus::kBad;
    }
    if (result.status == RecordStatus::kBad || result.status == RecordStatus::kMalformed) {
      out.resize(mark);
    } else {
      out += '\n';
    }
  }

  void SetMalformed(std::string& out, size_t mark, int64_t offset) {
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
  Impl& s = *impl_;
  s.Reset(file);
  size_t mark = out.size();
  s.record_text = text;
  auto offset_of = [&](od::document& doc) -> int64_t {
    const char* loc = nullptr;
    if (doc.current_location().get(loc) || loc == nullptr) return -1;
    return loc - text.data();
  };
  od::document doc;
  auto e = s.parser.iterate(text.data(), text.size(), text.size() + simdjson::SIMDJSON_PADDING)
               .get(doc);
  if (e) {
    s.malformed_message = simdjson::error_message(e);
    s.SetMalformed(out, mark, -1);
    return s.result;
  }
  od::object obj;
  e = doc.get_object().get(obj);
  if (e) {
    s.malformed_message = e == simdjson::INCORRECT_TYPE ? "the record is not a JSON object"
                                                        : simdjson::error_message(e);
    s.SetMalformed(out, mark, 0);
    return s.result;
  }
  if (!s.WalkObject(obj, (*s.nodes)[0], out, true)) {
    s.SetMalformed(out, mark, offset_of(doc));
    return s.result;
  }
  if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) {
    s.malformed_message = "characters after the end of the record";
    s.SetMalformed(out, mark, offset_of(doc));
    return s.result;
  }
  s.Finish(out, mark);
  return s.result;
}

namespace {

// Text of a CSV value converted for a column of kind `n`, appended to `out` as JSON; false when
// it does not fit (with the kind of violation).
bool CsvValue(const Node& n, std::string_view v, std::string& out, ViolationKind* kind) {
  *kind = ViolationKind::kTypeMismatch;
  switch (n.kind) {
    case TypeKind::kString:
      if (n.max_length >= 0 && CodePoints(v) > static_cast<size_t>(n.max_length)) {
        *kind = ViolationKind::kStringTooLong;
        return false;
      }
      AppendJsonString(out, v);
      return true;
    case TypeKind::kBoolean:
      if (!internal::ParseScalaBoolean(v)) return false;
      out += (v.size() == 4) ? "true" : "false";
      return true;
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64: {
      std::string_view t = v;
      if (!t.empty() && t[0] == '+') t.remove_prefix(1);
      int64_t value = 0;
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
      if (ec == std::errc::result_out_of_range) {
        *kind = ViolationKind::kOutOfRange;
        return false;
      }
      if (ec != std::errc() || p != t.data() + t.size() || t.empty()) return false;
      int64_t lo = 0;
      int64_t hi = 0;
      IntRange(n.kind, &lo, &hi);
      if (value < lo || value > hi) {
        *kind = ViolationKind::kOutOfRange;
        return false;
      }
      out += std::to_string(value);
      return true;
    }
    case TypeKind::kFloat32:
    case TypeKind::kFloat64: {
      if (IsSpecialFloatString(v)) {
        AppendJsonString(out, v);
        return true;
      }
      if (!internal::ParseJavaDouble(v)) return false;
      std::string t(v);
      while (!t.empty() && static_cast<unsigned char>(t.back()) <= ' ') t.pop_back();
      if (!t.empty() && (t.back() == 'd' || t.back() == 'D' || t.back() == 'f' || t.back() == 'F')) {
        t.pop_back();
      }
      char* end = nullptr;
      double d = std::strtod(t.c_str(), &end);
      if (!std::isfinite(d) ||
          (n.kind == TypeKind::kFloat32 &&
           std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))) {
        *kind = ViolationKind::kOutOfRange;
        return false;
      }
      char buf[64];
      auto [p, ec] = std::to_chars(buf, buf + sizeof buf, d);
      std::string_view s(buf, static_cast<size_t>(p - buf));
      out += s;
      if (s.find_first_of(".eE") == std::string_view::npos) out += ".0";
      return true;
    }
    case TypeKind::kDecimal: {
      size_t mark = out.size();
      switch (NormalizeDecimal(v, n.precision, n.scale, out)) {
        case DecimalResult::kOk: return true;
        case DecimalResult::kNotANumber: break;
        case DecimalResult::kPrecision: *kind = ViolationKind::kDecimalPrecision; break;
      }
      out.resize(mark);
      return false;
    }
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kBinary: {
      internal::DateTimeFields f;
      bool ok = false;
      switch (n.kind) {
        case TypeKind::kDate:
          ok = internal::ParseLenientDate(v, &f);
          *kind = ViolationKind::kInvalidDate;
          break;
        case TypeKind::kTimestamp:
          ok = internal::ParseLenientTimestamp(v, &f);
          *kind = ViolationKind::kInvalidTimestamp;
          break;
        case TypeKind::kTimestampNtz:
          ok = internal::ParseLenientTimestamp(v, &f) && !f.has_zone;
          *kind = ViolationKind::kInvalidTimestamp;
          break;
        case TypeKind::kTime:
          ok = IsTimeOfDay(v);
          *kind = ViolationKind::kInvalidTimestamp;
          break;
        case TypeKind::kUuid: ok = IsUuid(v); break;
        case TypeKind::kBinary: ok = true; break;  // CSV binary is the text's bytes
        case TypeKind::kNull:
        case TypeKind::kBoolean:
        case TypeKind::kInt8:
        case TypeKind::kInt16:
        case TypeKind::kInt32:
        case TypeKind::kInt64:
        case TypeKind::kFloat32:
        case TypeKind::kFloat64:
        case TypeKind::kDecimal:
        case TypeKind::kString:
        case TypeKind::kStruct:
        case TypeKind::kArray:
        case TypeKind::kMap:
          break;
      }
      if (!ok) return false;
      AppendJsonString(out, v);
      return true;
    }
    case TypeKind::kNull:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      break;
  }
  return false;
}

}  // namespace

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
  if (record.fields.size() != layout.columns.size()) {
    s.malformed_message = "expected " + std::to_string(layout.columns.size()) + " fields, found " +
                          std::to_string(record.fields.size());
    s.SetMalformed(out, mark, -1);
    return s.result;
  }
  const Node& root = (*s.nodes)[0];
  std::vector<uint8_t>& seen = s.seen.empty() ? s.seen.emplace_back() : s.seen[0];
  seen.assign(root.child_count, 0);
  out += '{';
  bool first = true;
  s.frames.push_back({});
  for (size_t i = 0; i < record.fields.size(); ++i) {
    const CsvField& f = record.fields[i];
    int col = layout.columns[i];
    if (col < 0) {
      s.frames.back().name = layout.header[i];
      std::string raw;
      AppendJsonString(raw, f.value);
      s.Violation(schema::QuoteFieldName(layout.header[i]),
                  col == -2 ? ViolationKind::kCaseMismatch : ViolationKind::kUnknownField);
      s.AddRescued(raw);
      continue;
    }
    const Node& c = s.child(root, static_cast<uint32_t>(col));
    seen[static_cast<size_t>(col)] = 1;
    if (col == root.rescued_child) {
      if (!f.value.empty()) {
        s.prior_rescued.clear();
        AppendJsonString(s.prior_rescued, f.value);
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
      s.frames.back().name = c.name;
      std::string raw;
      AppendJsonString(raw, f.value);
      s.Violation(c.path, kind);
      if (!c.nullable) s.fatal = true;
      s.AddRescued(raw);
      out += "null";
    }
  }
  s.frames.pop_back();
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
