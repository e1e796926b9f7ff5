// Parsing and validating Avro schema JSON into the arena-backed AvroSchema.
#include "sluice/dialects/avro/avro_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "sluice/base/strings.h"
#include "sluice/dialects/avro/avro_internal.h"
#include "sluice/dialects/avro/avro_layout.h"
#include "sluice/schema/field_path.h"

namespace sluice::dialects::avro {

using schema::FieldPath;

std::string_view AvroTypeName(AvroType type) {
  switch (type) {
    case AvroType::kNull:
      return "null";
    case AvroType::kBoolean:
      return "boolean";
    case AvroType::kInt:
      return "int";
    case AvroType::kLong:
      return "long";
    case AvroType::kFloat:
      return "float";
    case AvroType::kDouble:
      return "double";
    case AvroType::kBytes:
      return "bytes";
    case AvroType::kString:
      return "string";
    case AvroType::kRecord:
      return "record";
    case AvroType::kEnum:
      return "enum";
    case AvroType::kArray:
      return "array";
    case AvroType::kMap:
      return "map";
    case AvroType::kUnion:
      return "union";
    case AvroType::kFixed:
      return "fixed";
  }
  return "";
}

std::string_view LogicalKindName(LogicalKind kind) {
  switch (kind) {
    case LogicalKind::kNone:
      return "";
    case LogicalKind::kDecimal:
      return "decimal";
    case LogicalKind::kUuid:
      return "uuid";
    case LogicalKind::kDate:
      return "date";
    case LogicalKind::kTimeMillis:
      return "time-millis";
    case LogicalKind::kTimeMicros:
      return "time-micros";
    case LogicalKind::kTimestampMillis:
      return "timestamp-millis";
    case LogicalKind::kTimestampMicros:
      return "timestamp-micros";
    case LogicalKind::kTimestampNanos:
      return "timestamp-nanos";
    case LogicalKind::kLocalTimestampMillis:
      return "local-timestamp-millis";
    case LogicalKind::kLocalTimestampMicros:
      return "local-timestamp-micros";
    case LogicalKind::kLocalTimestampNanos:
      return "local-timestamp-nanos";
    case LogicalKind::kDuration:
      return "duration";
  }
  return "";
}

int MaxDecimalPrecisionForFixedSize(int64_t size) {
  if (size <= 0) return 0;
  // floor(log10(2^(8n-1) - 1)) == floor((8n-1) * log10(2)) because no power of two is a power
  // of ten; long double keeps the product exact enough for any size an int64 can hold.
  long double bits = static_cast<long double>(size) * 8.0L - 1.0L;
  long double digits = std::floor(bits * 0.301029995663981195213738894724493027L);
  if (digits > static_cast<long double>(std::numeric_limits<int>::max())) {
    return std::numeric_limits<int>::max();
  }
  return static_cast<int>(digits);
}

const AvroField* AvroNode::FindField(std::string_view name) const {
  for (const AvroField& f : fields_) {
    if (f.name() == name) return &f;
  }
  return nullptr;
}

std::optional<size_t> AvroNode::NullBranch() const {
  for (size_t i = 0; i < branches_.size(); ++i) {
    if (branches_[i]->type() == AvroType::kNull) return i;
  }
  return std::nullopt;
}

AvroSchema::AvroSchema() = default;
AvroSchema::AvroSchema(AvroSchema&&) noexcept = default;
AvroSchema& AvroSchema::operator=(AvroSchema&&) noexcept = default;
AvroSchema::~AvroSchema() = default;

namespace internal {

const AvroLayout* LayoutOf(const AvroNode& node) { return node.layout_->Get(); }
const AvroLayout* LayoutOf(const AvroSchema& schema) { return schema.layout_->Get(); }

}  // namespace internal

const AvroNode* AvroSchema::FindNamed(std::string_view full_name) const {
  auto it = by_name_.find(full_name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::string DescribeNode(const AvroNode& node) {
  std::string out = node.is_named() ? node.full_name() : std::string(AvroTypeName(node.type()));
  if (node.logical_type().kind != LogicalKind::kNone) {
    out += fmt::format(" ({})", LogicalKindName(node.logical_type().kind));
  }
  return out;
}

namespace internal {

bool IsValidName(std::string_view s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(s[0])) return false;
  for (char c : s.substr(1)) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool IsValidFullName(std::string_view s) {
  if (s.empty()) return false;
  for (std::string_view part : SplitString(s, '.')) {
    if (!IsValidName(part)) return false;
  }
  return true;
}

std::optional<AvroType> PrimitiveType(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, AvroType>, 8> kPrimitives = {{
      {"null", AvroType::kNull},
      {"boolean", AvroType::kBoolean},
      {"int", AvroType::kInt},
      {"long", AvroType::kLong},
      {"float", AvroType::kFloat},
      {"double", AvroType::kDouble},
      {"bytes", AvroType::kBytes},
      {"string", AvroType::kString},
  }};
  for (const auto& [n, t] : kPrimitives) {
    if (n == name) return t;
  }
  return std::nullopt;
}

std::optional<std::vector<uint8_t>> DecodeByteString(std::string_view s) {
  std::vector<uint8_t> out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out.push_back(c);
      ++i;
    } else if ((c == 0xC2 || c == 0xC3) && i + 1 < s.size()) {
      // U+0080..U+00FF are the two-byte sequences C2 80 .. C3 BF.
      auto d = static_cast<unsigned char>(s[i + 1]);
      if ((d & 0xC0) != 0x80) return std::nullopt;
      out.push_back(static_cast<uint8_t>(((c & 0x03) << 6) | (d & 0x3F)));
      i += 2;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::string EncodeByteString(const std::vector<uint8_t>& bytes) {
  std::string out;
  for (uint8_t b : bytes) AppendUtf8(out, b);
  return out;
}

size_t JsonLevels(const JsonValue& v) {
  size_t deepest = 0;
  if (v.is_array()) {
    for (const JsonValue& item : v.items()) deepest = std::max(deepest, JsonLevels(item));
  } else if (v.is_object()) {
    for (const JsonMember& m : v.members()) deepest = std::max(deepest, JsonLevels(m.value));
  }
  return deepest + 1;
}

namespace {

// Avro type nesting the parser follows before giving up. The JSON parser's own depth limit (512)
// is reached first for any text; this one guards the recursion on its own terms.
constexpr int kMaxTypeDepth = 512;
// The JSON parser rejects documents nesting deeper than this; WriteJson must stay within it.
constexpr size_t kMaxJsonLevels = 512;

bool IsComplexTypeKeyword(std::string_view s) {
  return s == "record" || s == "error" || s == "enum" || s == "array" || s == "map" ||
         s == "fixed" || s == "union";
}

std::string_view KindWord(const JsonValue& v) { return JsonValue::KindName(v.kind()); }

}  // namespace

class AvroParser {
 public:
  explicit AvroParser(std::string_view text, std::span<const std::string_view> references = {})
      : text_(text), references_(references) {}

  Result<AvroSchema> Run() {
    // Referenced schemas first, in order: their named types become known to what follows.
    const std::string_view main = text_;
    for (size_t i = 0; i < references_.size(); ++i) {
      text_ = references_[i];
      auto ref = ParseReference();
      if (!ref.has_value()) {
        return sluice::Fail(ref.error().code(), "referenced schema " + std::to_string(i + 1) +
                                                    ": " + ref.error().message());
      }
    }
    text_ = main;
    SLUICE_ASSIGN_OR_RETURN(JsonValue json, ParseJson(text_));
    SLUICE_ASSIGN_OR_RETURN(const AvroNode* root, ParseType(json, "", kRootField, 0));
    SLUICE_TRY(ResolvePending());
    schema_.root_ = Resolved(root);
    SLUICE_TRY(CheckUnions());
    SLUICE_TRY(CheckDefaults());
    if (!placeholders_.empty()) SLUICE_TRY(CheckWrittenDepth());
    SLUICE_TRY(Pack());
    return std::move(schema_);
  }

 private:
  Status ParseReference() {
    SLUICE_ASSIGN_OR_RETURN(JsonValue json, ParseJson(text_));
    reference_json_.push_back(std::move(json));
    SLUICE_ASSIGN_OR_RETURN(const AvroNode* node,
                            ParseType(reference_json_.back(), "", kRootField, 0));
    (void)node;
    return Ok();
  }

  // The JSON pointer of the place being parsed, as a chain of steps each linked to the step it
  // is in. A site checked after the parse (a union, a default, a forward reference) pins its step
  // and keeps that index rather than a copy of its path, so deep schemas with long paths stay
  // linear in memory; steps no site pinned are dropped when their scope ends.
  static constexpr size_t kRootStep = std::numeric_limits<size_t>::max();
  struct PointerStep {
    size_t parent;
    size_t index;  // kRootStep when the step is `key`
    std::string_view key;
  };

  // One JSON pointer step for the lifetime of the scope. `key` must outlive the parse (a literal,
  // or a string of the parsed JSON).
  class Step {
   public:
    Step(AvroParser& parser, std::string_view key) : Step(parser, kRootStep, key) {}
    Step(AvroParser& parser, size_t index) : Step(parser, index, {}) {}
    ~Step() {
      std::vector<PointerStep>& trail = parser_.trail_;
      if (parser_.at_ + 1 == trail.size() && parser_.at_ >= parser_.pinned_) trail.pop_back();
      parser_.at_ = saved_;
    }
    Step(const Step&) = delete;
    Step& operator=(const Step&) = delete;

   private:
    Step(AvroParser& parser, size_t index, std::string_view key)
        : parser_(parser), saved_(parser.at_) {
      parser.trail_.push_back(PointerStep{parser.at_, index, key});
      parser.at_ = parser.trail_.size() - 1;
    }
    AvroParser& parser_;
    size_t saved_;
  };

  // Keep the current step (and so its chain) for a later check; return its index.
  size_t Pin() {
    if (at_ != kRootStep) pinned_ = std::max(pinned_, at_ + 1);
    return at_;
  }

  // The JSON pointer of step `at`: "" at the root, else "/fields/2/type" and so on.
  std::string Pointer(size_t at) const {
    std::vector<const PointerStep*> chain;
    for (size_t i = at; i != kRootStep; i = trail_[i].parent) chain.push_back(&trail_[i]);
    std::string out;
    for (size_t i = chain.size(); i-- > 0;) {
      out += '/';
      if (chain[i]->index == kRootStep) {
        out += chain[i]->key;
      } else {
        out += std::to_string(chain[i]->index);
      }
    }
    return out;
  }

  // Where a field is, as the model names it: a chain like the pointer's, one link a record field,
  // array element or map value. Kept whole (a link is small and points into the parsed JSON), as
  // every default of a record field pins its field.
  static constexpr size_t kRootField = std::numeric_limits<size_t>::max();
  struct FieldLink {
    size_t parent;
    schema::PathSegment::Kind kind;
    std::string_view name;  // kField only
  };
  size_t FieldChild(size_t parent, schema::PathSegment::Kind kind, std::string_view name = {}) {
    field_links_.push_back(FieldLink{parent, kind, name});
    return field_links_.size() - 1;
  }
  FieldPath FieldPathOf(size_t at) const {
    std::vector<schema::PathSegment> segments;
    for (size_t i = at; i != kRootField; i = field_links_[i].parent) {
      segments.push_back(
          schema::PathSegment{field_links_[i].kind, std::string(field_links_[i].name)});
    }
    std::reverse(segments.begin(), segments.end());
    return FieldPath(std::move(segments));
  }

  struct Pending {
    AvroNode* placeholder;
    std::string name;      // as written
    std::string primary;   // full name in the enclosing namespace
    std::string fallback;  // the null-namespace name, or "" when there is none
    size_t step;           // the JSON pointer of the reference
    size_t offset;
  };

  struct UnionSite {
    AvroNode* node;
    size_t step;  // the JSON pointer of the union
    std::vector<size_t> offsets;
  };

  struct DefaultSite {
    const AvroNode* record;
    size_t field;
    size_t step;      // the JSON pointer of the "default" value
    size_t field_at;  // the field, for the message
  };

  std::string Where(const std::string& path, size_t offset) const {
    return fmt::format("{} ({})", path.empty() ? std::string("/") : path,
                       DescribeOffset(text_, offset));
  }
  Unexpected<Error> FailAt(const std::string& path, size_t offset, std::string_view what) const {
    return InvalidArgument(fmt::format("{}: {}", Where(path, offset), what));
  }
  Unexpected<Error> Fail(const JsonValue& at, std::string_view what) const {
    return FailAt(Pointer(at_), at.offset(), what);
  }

  // The place of the packed form the compatibility check walks (avro_layout.h), built by the
  // first check, and every node's link to it. A schema that is only parsed pays nothing more.
  Status Pack() {
    schema_.layout_.reset(new LayoutSlot(schema_.nodes_, *schema_.root_));
    for (auto& n : schema_.nodes_) n->layout_ = schema_.layout_.get();
    return Ok();
  }

  AvroNode* NewNode(AvroType type) {
    auto node = std::make_unique<AvroNode>();
    node->type_ = type;
    node->id_ = schema_.nodes_.size();
    AvroNode* raw = node.get();
    schema_.nodes_.push_back(std::move(node));
    return raw;
  }

  // A bare primitive is one shared node per schema: "int" and {"type": "int"} are the same type.
  const AvroNode* Primitive(AvroType type) {
    auto& slot = primitives_[static_cast<size_t>(type)];
    if (slot == nullptr) slot = NewNode(type);
    return slot;
  }

  Result<const AvroNode*> ParseType(const JsonValue& j, const std::string& ns, size_t field_at,
                                    int depth) {
    if (depth > kMaxTypeDepth) {
      return Fail(j, fmt::format("types nested deeper than {} levels", kMaxTypeDepth));
    }
    if (j.is_string()) return Reference(j, j.as_string(), ns);
    if (j.is_array()) return ParseUnion(j, ns, field_at, depth);
    if (j.is_object()) return ParseObject(j, ns, field_at, depth);
    return Fail(j, fmt::format("a schema must be a type name, an object or a union array; got {}",
                               KindWord(j)));
  }

  Result<const AvroNode*> Reference(const JsonValue& at, const std::string& name,
                                    const std::string& ns) {
    if (auto primitive = PrimitiveType(name)) return Primitive(*primitive);
    bool dotted = name.find('.') != std::string::npos;
    std::string primary = (dotted || ns.empty()) ? name : ns + "." + name;
    std::string fallback = (dotted || ns.empty()) ? std::string() : name;
    // Resolve now when possible, so a schema Java accepts (no forward references) means what
    // Java says it means; otherwise wait for the end of the document.
    if (const AvroNode* found = schema_.FindNamed(primary)) return found;
    if (!fallback.empty()) {
      if (const AvroNode* found = schema_.FindNamed(fallback)) return found;
    }
    std::string key = primary + '\n' + fallback;
    auto it = pending_by_key_.find(key);
    if (it != pending_by_key_.end()) return it->second;
    auto holder = std::make_unique<AvroNode>();
    AvroNode* raw = holder.get();
    placeholders_.push_back(std::move(holder));
    pending_.push_back(Pending{raw, name, primary, fallback, Pin(), at.offset()});
    pending_by_key_.emplace(std::move(key), raw);
    return raw;
  }

  Result<const AvroNode*> ParseUnion(const JsonValue& j, const std::string& ns, size_t field_at,
                                     int depth) {
    AvroNode* node = NewNode(AvroType::kUnion);
    UnionSite site{node, Pin(), {}};
    for (size_t i = 0; i < j.items().size(); ++i) {
      Step step(*this, i);
      const JsonValue& item = j.items()[i];
      if (item.is_array()) return Fail(item, "a union may not immediately contain another union");
      SLUICE_ASSIGN_OR_RETURN(const AvroNode* branch, ParseType(item, ns, field_at, depth + 1));
      node->branches_.push_back(branch);
      site.offsets.push_back(item.offset());
    }
    unions_.push_back(std::move(site));
    return node;
  }

  Result<const AvroNode*> ParseObject(const JsonValue& j, const std::string& ns, size_t field_at,
                                      int depth) {
    const JsonValue* type = j.Find("type");
    if (type == nullptr) return Fail(j, "missing \"type\"");
    if (!type->is_string()) {
      Step step(*this, "type");
      return Fail(*type,
                  fmt::format("\"type\" must be a string naming a type; got {}", KindWord(*type)));
    }
    const std::string& t = type->as_string();
    if (auto primitive = PrimitiveType(t)) return ParsePrimitive(j, *primitive);
    if (t == "record" || t == "error") return ParseRecord(j, ns, field_at, depth, t == "error");
    if (t == "enum") return ParseEnum(j, ns);
    if (t == "fixed") return ParseFixed(j, ns);
    if (t == "array" || t == "map") return ParseContainer(j, ns, field_at, depth, t == "array");
    Step step(*this, "type");
    if (t == "union") {
      return Fail(*type, "a union is written as a JSON array of its branches, not as \"union\"");
    }
    // Java reads {"type": "Name"} as a reference to a named type (other attributes ignored).
    return Reference(*type, t, ns);
  }

  // Copy every member not in `reserved` into node props, in source order.
  static JsonValue CollectProps(const JsonValue& j,
                                std::initializer_list<std::string_view> reserved,
                                bool logical_consumed) {
    JsonValue props = JsonValue::Object();
    for (const JsonMember& m : j.members()) {
      bool skip = false;
      for (std::string_view r : reserved) {
        if (m.key == r) skip = true;
      }
      if (logical_consumed &&
          (m.key == "logicalType" || m.key == "precision" || m.key == "scale")) {
        skip = true;
      }
      if (!skip) props.mutable_members().push_back(m);
    }
    return props;
  }

  // An int attribute of a logical type: a JSON integer within int32.
  static std::optional<int> IntAttribute(const JsonValue* v) {
    if (v == nullptr || !v->is_number()) return std::nullopt;
    auto i = v->as_int64();
    if (!i || *i < std::numeric_limits<int>::min() || *i > std::numeric_limits<int>::max()) {
      return std::nullopt;
    }
    return static_cast<int>(*i);
  }

  // The logical type `j` declares, if it is valid for `base`; kNone otherwise (the spec says
  // implementations ignore invalid logical types, and the attributes stay as props).
  static LogicalType ReadLogicalType(const JsonValue& j, AvroType base, int64_t fixed_size) {
    LogicalType none;
    const JsonValue* lt = j.Find("logicalType");
    if (lt == nullptr || !lt->is_string()) return none;
    const std::string& name = lt->as_string();
    auto on = [&](AvroType want, LogicalKind kind) {
      LogicalType out;
      if (base == want) out.kind = kind;
      return out;
    };
    if (name == "decimal") {
      if (base != AvroType::kBytes && base != AvroType::kFixed) return none;
      auto precision = IntAttribute(j.Find("precision"));
      if (!precision || *precision < 1) return none;
      int scale = 0;
      if (const JsonValue* s = j.Find("scale")) {
        auto sv = IntAttribute(s);
        if (!sv) return none;
        scale = *sv;
      }
      if (scale < 0 || scale > *precision) return none;
      if (base == AvroType::kFixed && *precision > MaxDecimalPrecisionForFixedSize(fixed_size)) {
        return none;
      }
      return LogicalType{LogicalKind::kDecimal, *precision, scale};
    }
    if (name == "uuid") {
      if (base == AvroType::kString || (base == AvroType::kFixed && fixed_size == 16)) {
        return LogicalType{LogicalKind::kUuid};
      }
      return none;
    }
    if (name == "date") return on(AvroType::kInt, LogicalKind::kDate);
    if (name == "time-millis") return on(AvroType::kInt, LogicalKind::kTimeMillis);
    if (name == "time-micros") return on(AvroType::kLong, LogicalKind::kTimeMicros);
    if (name == "timestamp-millis") return on(AvroType::kLong, LogicalKind::kTimestampMillis);
    if (name == "timestamp-micros") return on(AvroType::kLong, LogicalKind::kTimestampMicros);
    if (name == "timestamp-nanos") return on(AvroType::kLong, LogicalKind::kTimestampNanos);
    if (name == "local-timestamp-millis") {
      return on(AvroType::kLong, LogicalKind::kLocalTimestampMillis);
    }
    if (name == "local-timestamp-micros") {
      return on(AvroType::kLong, LogicalKind::kLocalTimestampMicros);
    }
    if (name == "local-timestamp-nanos") {
      return on(AvroType::kLong, LogicalKind::kLocalTimestampNanos);
    }
    if (name == "duration") {
      if (base == AvroType::kFixed && fixed_size == 12) return LogicalType{LogicalKind::kDuration};
      return none;
    }
    return none;
  }

  Result<const AvroNode*> ParsePrimitive(const JsonValue& j, AvroType type) {
    LogicalType logical = ReadLogicalType(j, type, 0);
    bool consumed = logical.kind != LogicalKind::kNone;
    JsonValue props = CollectProps(j, {"type"}, consumed);
    if (!consumed && props.members().empty()) return Primitive(type);
    AvroNode* node = NewNode(type);
    node->logical_ = logical;
    node->props_ = std::move(props);
    return node;
  }

  Result<std::optional<std::string>> OptionalString(const JsonValue& j, std::string_view key) {
    const JsonValue* v = j.Find(key);
    if (v == nullptr) return std::optional<std::string>();
    if (!v->is_string()) {
      Step step(*this, key);
      return Fail(*v, fmt::format("\"{}\" must be a string; got {}", key, KindWord(*v)));
    }
    return std::optional<std::string>(v->as_string());
  }

  // Name, namespace, aliases and doc of a record, enum or fixed; registers the full name so the
  // type's own fields can refer to it.
  Status ParseNamed(AvroNode* node, const JsonValue& j, const std::string& enclosing_ns) {
    const JsonValue* name = j.Find("name");
    if (name == nullptr) {
      return Fail(j, fmt::format("a {} needs a \"name\"", AvroTypeName(node->type())));
    }
    {
      Step step(*this, "name");
      if (!name->is_string()) {
        return Fail(*name, fmt::format("\"name\" must be a string; got {}", KindWord(*name)));
      }
      if (!IsValidFullName(name->as_string())) {
        return Fail(*name, fmt::format("invalid name \"{}\": a name is [A-Za-z_][A-Za-z0-9_]*, "
                                       "a full name such names joined by dots",
                                       EscapeForMessage(name->as_string())));
      }
    }
    const std::string& n = name->as_string();
    size_t dot = n.rfind('.');
    if (dot != std::string::npos) {
      // A dotted name is a full name: its namespace wins over the "namespace" attribute.
      node->namespace_ = n.substr(0, dot);
      node->name_ = n.substr(dot + 1);
    } else {
      node->name_ = n;
      const JsonValue* ns = j.Find("namespace");
      if (ns == nullptr || ns->is_null()) {
        node->namespace_ = enclosing_ns;
      } else {
        Step step(*this, "namespace");
        if (!ns->is_string()) {
          return Fail(*ns, fmt::format("\"namespace\" must be a string; got {}", KindWord(*ns)));
        }
        if (!ns->as_string().empty() && !IsValidFullName(ns->as_string())) {
          return Fail(*ns, fmt::format("invalid namespace \"{}\": names joined by dots",
                                       EscapeForMessage(ns->as_string())));
        }
        node->namespace_ = ns->as_string();
      }
    }
    if (PrimitiveType(node->name_)) {
      Step step(*this, "name");
      return Fail(*name, fmt::format("\"{}\" is a primitive type name and cannot name a {}",
                                     node->name_, AvroTypeName(node->type())));
    }
    node->full_name_ =
        node->namespace_.empty() ? node->name_ : node->namespace_ + "." + node->name_;
    if (schema_.FindNamed(node->full_name_) != nullptr) {
      Step step(*this, "name");
      return Fail(*name, fmt::format("redefinition of type \"{}\"", node->full_name_));
    }
    schema_.by_name_.emplace(node->full_name_, node);
    schema_.named_.push_back(node);

    SLUICE_ASSIGN_OR_RETURN(node->doc_, OptionalString(j, "doc"));
    if (const JsonValue* aliases = j.Find("aliases")) {
      Step step(*this, "aliases");
      if (!aliases->is_array()) {
        return Fail(*aliases, fmt::format("\"aliases\" must be an array of names; got {}",
                                          KindWord(*aliases)));
      }
      for (size_t i = 0; i < aliases->items().size(); ++i) {
        const JsonValue& a = aliases->items()[i];
        Step item(*this, i);
        if (!a.is_string() || !IsValidFullName(a.as_string())) {
          return Fail(a, "an alias must be a name or a full name");
        }
        const std::string& s = a.as_string();
        bool dotted = s.find('.') != std::string::npos;
        node->aliases_.push_back(dotted || node->namespace_.empty() ? s
                                                                    : node->namespace_ + "." + s);
      }
    }
    return Ok();
  }

  Result<const AvroNode*> ParseRecord(const JsonValue& j, const std::string& ns, size_t field_at,
                                      int depth, bool is_error) {
    AvroNode* node = NewNode(AvroType::kRecord);
    node->is_error_ = is_error;
    SLUICE_TRY(ParseNamed(node, j, ns));
    const JsonValue* fields = j.Find("fields");
    if (fields == nullptr) return Fail(j, "a record needs \"fields\"");
    Step step(*this, "fields");
    if (!fields->is_array()) {
      return Fail(*fields, fmt::format("\"fields\" must be an array; got {}", KindWord(*fields)));
    }
    std::unordered_set<std::string> seen;
    for (size_t i = 0; i < fields->items().size(); ++i) {
      Step item(*this, i);
      const JsonValue& fj = fields->items()[i];
      if (!fj.is_object()) {
        return Fail(fj, fmt::format("a field must be an object; got {}", KindWord(fj)));
      }
      AvroField field;
      field.position_ = i;
      const JsonValue* name = fj.Find("name");
      if (name == nullptr) return Fail(fj, "a field needs a \"name\"");
      {
        Step s(*this, "name");
        if (!name->is_string() || !IsValidName(name->as_string())) {
          return Fail(*name, fmt::format("invalid field name {}: a name is [A-Za-z_][A-Za-z0-9_]*",
                                         name->is_string()
                                             ? "\"" + EscapeForMessage(name->as_string()) + "\""
                                             : std::string(KindWord(*name))));
        }
        if (!seen.insert(name->as_string()).second) {
          return Fail(*name, fmt::format("duplicate field name \"{}\" in record {}",
                                         name->as_string(), node->full_name_));
        }
      }
      field.name_ = name->as_string();
      const size_t child_at =
          FieldChild(field_at, schema::PathSegment::Kind::kField, name->as_string());
      const JsonValue* type = fj.Find("type");
      if (type == nullptr)
        return Fail(fj, fmt::format("field \"{}\" needs a \"type\"", field.name_));
      {
        Step s(*this, "type");
        SLUICE_ASSIGN_OR_RETURN(field.type_,
                                ParseType(*type, node->namespace_, child_at, depth + 1));
      }
      SLUICE_ASSIGN_OR_RETURN(field.doc_, OptionalString(fj, "doc"));
      if (const JsonValue* order = fj.Find("order")) {
        Step s(*this, "order");
        std::string_view o = order->is_string() ? std::string_view(order->as_string()) : "";
        if (o == "ascending") {
          field.order_ = SortOrder::kAscending;
        } else if (o == "descending") {
          field.order_ = SortOrder::kDescending;
        } else if (o == "ignore") {
          field.order_ = SortOrder::kIgnore;
        } else {
          return Fail(*order, "\"order\" must be \"ascending\", \"descending\" or \"ignore\"");
        }
      }
      if (const JsonValue* aliases = fj.Find("aliases")) {
        Step s(*this, "aliases");
        if (!aliases->is_array()) {
          return Fail(*aliases, fmt::format("\"aliases\" must be an array of names; got {}",
                                            KindWord(*aliases)));
        }
        for (size_t k = 0; k < aliases->items().size(); ++k) {
          Step a(*this, k);
          const JsonValue& alias = aliases->items()[k];
          if (!alias.is_string() || !IsValidName(alias.as_string())) {
            return Fail(alias, "a field alias must be a name ([A-Za-z_][A-Za-z0-9_]*)");
          }
          field.aliases_.push_back(alias.as_string());
        }
      }
      if (const JsonValue* def = fj.Find("default")) {
        field.default_ = *def;
        Step s(*this, "default");
        defaults_.push_back(DefaultSite{node, i, Pin(), child_at});
      }
      field.props_ =
          CollectProps(fj, {"name", "type", "doc", "default", "order", "aliases"}, false);
      node->fields_.push_back(std::move(field));
    }
    node->props_ =
        CollectProps(j, {"type", "name", "namespace", "doc", "aliases", "fields"}, false);
    return node;
  }

  Result<const AvroNode*> ParseEnum(const JsonValue& j, const std::string& ns) {
    AvroNode* node = NewNode(AvroType::kEnum);
    SLUICE_TRY(ParseNamed(node, j, ns));
    const JsonValue* symbols = j.Find("symbols");
    if (symbols == nullptr) return Fail(j, "an enum needs \"symbols\"");
    {
      Step step(*this, "symbols");
      if (!symbols->is_array()) {
        return Fail(*symbols, fmt::format("\"symbols\" must be an array of names; got {}",
                                          KindWord(*symbols)));
      }
      std::unordered_set<std::string> seen;
      for (size_t i = 0; i < symbols->items().size(); ++i) {
        Step item(*this, i);
        const JsonValue& s = symbols->items()[i];
        if (!s.is_string() || !IsValidName(s.as_string())) {
          return Fail(s, "an enum symbol must be a name ([A-Za-z_][A-Za-z0-9_]*)");
        }
        if (!seen.insert(s.as_string()).second) {
          return Fail(s, fmt::format("duplicate enum symbol \"{}\"", s.as_string()));
        }
        node->symbols_.push_back(s.as_string());
      }
    }
    if (const JsonValue* def = j.Find("default")) {
      Step step(*this, "default");
      if (!def->is_string()) {
        return Fail(*def, fmt::format("an enum default must be one of its symbols; got {}",
                                      KindWord(*def)));
      }
      bool found = false;
      for (const std::string& s : node->symbols_) found = found || s == def->as_string();
      if (!found) {
        return Fail(*def, fmt::format("enum default \"{}\" is not one of the symbols of {}",
                                      EscapeForMessage(def->as_string()), node->full_name_));
      }
      node->enum_default_ = def->as_string();
    }
    node->props_ = CollectProps(
        j, {"type", "name", "namespace", "doc", "aliases", "symbols", "default"}, false);
    return node;
  }

  Result<const AvroNode*> ParseFixed(const JsonValue& j, const std::string& ns) {
    AvroNode* node = NewNode(AvroType::kFixed);
    SLUICE_TRY(ParseNamed(node, j, ns));
    const JsonValue* size = j.Find("size");
    if (size == nullptr) return Fail(j, "a fixed needs a \"size\"");
    {
      Step step(*this, "size");
      std::optional<int64_t> n = size->is_number() ? size->as_int64() : std::nullopt;
      if (!n || *n < 0 || *n > std::numeric_limits<int32_t>::max()) {
        return Fail(*size, fmt::format("\"size\" must be an integer from 0 to {}; got {}",
                                       std::numeric_limits<int32_t>::max(),
                                       size->is_number() ? EscapeForMessage(size->number_text())
                                                         : std::string(KindWord(*size))));
      }
      node->size_ = *n;
    }
    node->logical_ = ReadLogicalType(j, AvroType::kFixed, node->size_);
    node->props_ = CollectProps(j, {"type", "name", "namespace", "doc", "aliases", "size"},
                                node->logical_.kind != LogicalKind::kNone);
    return node;
  }

  Result<const AvroNode*> ParseContainer(const JsonValue& j, const std::string& ns, size_t field_at,
                                         int depth, bool is_array) {
    AvroNode* node = NewNode(is_array ? AvroType::kArray : AvroType::kMap);
    std::string_view key = is_array ? "items" : "values";
    const JsonValue* child = j.Find(key);
    if (child == nullptr) {
      return Fail(j, fmt::format("an {} needs \"{}\"", is_array ? "array" : "map", key));
    }
    {
      Step step(*this, key);
      const size_t child_at = FieldChild(field_at, is_array ? schema::PathSegment::Kind::kElement
                                                            : schema::PathSegment::Kind::kValue);
      SLUICE_ASSIGN_OR_RETURN(node->child_, ParseType(*child, ns, child_at, depth + 1));
    }
    node->props_ = CollectProps(j, {"type", key}, false);
    return node;
  }

  const AvroNode* Resolved(const AvroNode* n) const {
    auto it = resolved_.find(n);
    return it == resolved_.end() ? n : it->second;
  }

  Status ResolvePending() {
    if (pending_.empty()) return Ok();
    for (const Pending& p : pending_) {
      const AvroNode* found = schema_.FindNamed(p.primary);
      if (found == nullptr && !p.fallback.empty()) found = schema_.FindNamed(p.fallback);
      if (found == nullptr) {
        std::string hint;
        if (IsComplexTypeKeyword(p.name)) {
          hint = fmt::format(" (a complex type is written as an object: {{\"type\": \"{}\", ...}})",
                             p.name);
        }
        return FailAt(Pointer(p.step), p.offset,
                      fmt::format("unknown type \"{}\": not a primitive type and no named type "
                                  "{} is defined{}",
                                  EscapeForMessage(p.name), EscapeForMessage(p.primary), hint));
      }
      resolved_.emplace(p.placeholder, found);
    }
    for (auto& owned : schema_.nodes_) {
      AvroNode& n = *owned;
      if (n.child_ != nullptr) n.child_ = Resolved(n.child_);
      for (const AvroNode*& b : n.branches_) b = Resolved(b);
      for (AvroField& f : n.fields_) f.type_ = Resolved(f.type_);
    }
    return Ok();
  }

  static std::string_view BranchKey(const AvroNode& b) {
    return b.is_named() ? std::string_view(b.full_name()) : AvroTypeName(b.type());
  }

  // Branch rules: no unions inside unions, no two branches of one unnamed type, no two named
  // branches with the same full name. Logical types do not make a branch distinct (Java agrees).
  Status CheckUnions() {
    std::unordered_set<std::string_view> seen;
    for (const UnionSite& site : unions_) {
      const std::vector<const AvroNode*>& branches = site.node->branches_;
      seen.clear();
      for (size_t i = 0; i < branches.size(); ++i) {
        const AvroNode& b = *branches[i];
        std::string_view key = BranchKey(b);
        // Most unions are two branches: compared directly, a set only for wide ones.
        bool repeated = false;
        if (branches.size() <= 8) {
          for (size_t k = 0; k < i && !repeated; ++k) repeated = BranchKey(*branches[k]) == key;
        } else {
          repeated = !seen.insert(key).second;
        }
        if (repeated) {
          return FailAt(fmt::format("{}/{}", Pointer(site.step), i), site.offsets[i],
                        fmt::format("union has more than one branch of type {}", key));
        }
      }
    }
    return Ok();
  }

  static std::string Describe(const JsonValue& v) {
    if (v.is_string()) return fmt::format("string \"{}\"", EscapeForMessage(v.as_string(), 40));
    if (v.is_number()) return fmt::format("number {}", EscapeForMessage(v.number_text(), 40));
    if (v.is_bool()) return v.as_bool() ? "true" : "false";
    return std::string(KindWord(v));
  }

  // Why `v` is not a valid default for `type`, or nullopt when it is. `where` names the place
  // inside the default value ("" at its top). Record members missing from `v` fall back to the
  // member field's own default, which is checked where that field is declared; so the recursion
  // follows `v` and ends with it.
  std::optional<std::string> DefaultProblem(const AvroNode& type, const JsonValue& v,
                                            const std::string& where, int depth) const {
    auto expected = [&](std::string_view what) {
      return fmt::format("{}expected {} for {}, got {}", where.empty() ? "" : where + ": ", what,
                         DescribeNode(type), Describe(v));
    };
    if (depth > kMaxTypeDepth * 2) return expected("a shallower value");
    switch (type.type()) {
      case AvroType::kNull:
        return v.is_null() ? std::nullopt : std::optional(expected("null"));
      case AvroType::kBoolean:
        return v.is_bool() ? std::nullopt : std::optional(expected("true or false"));
      case AvroType::kInt: {
        auto i = v.is_number() ? v.as_int64() : std::nullopt;
        bool ok = i && *i >= std::numeric_limits<int32_t>::min() &&
                  *i <= std::numeric_limits<int32_t>::max();
        return ok ? std::nullopt : std::optional(expected("an integer in the 32-bit range"));
      }
      case AvroType::kLong: {
        auto i = v.is_number() ? v.as_int64() : std::nullopt;
        return i ? std::nullopt : std::optional(expected("an integer in the 64-bit range"));
      }
      case AvroType::kFloat:
      case AvroType::kDouble: {
        // Java writes NaN and the infinities, which JSON lacks, as these strings.
        bool special = v.is_string() && (v.as_string() == "NaN" || v.as_string() == "Infinity" ||
                                         v.as_string() == "-Infinity");
        return (v.is_number() || special) ? std::nullopt : std::optional(expected("a number"));
      }
      case AvroType::kBytes:
        if (v.is_string() && DecodeByteString(v.as_string())) return std::nullopt;
        return expected("a string of code points U+0000..U+00FF (one per byte)");
      case AvroType::kString:
        return v.is_string() ? std::nullopt : std::optional(expected("a string"));
      case AvroType::kFixed: {
        if (v.is_string()) {
          auto bytes = DecodeByteString(v.as_string());
          if (bytes && static_cast<int64_t>(bytes->size()) == type.size()) return std::nullopt;
        }
        return expected(
            fmt::format("a string of exactly {} code points U+0000..U+00FF", type.size()));
      }
      case AvroType::kEnum: {
        if (v.is_string() && Symbols(type).Contains(v.as_string())) return std::nullopt;
        return expected("one of the enum's symbols");
      }
      case AvroType::kArray: {
        if (!v.is_array()) return expected("an array");
        for (size_t i = 0; i < v.items().size(); ++i) {
          auto p = DefaultProblem(type.items(), v.items()[i], fmt::format("{}[{}]", where, i),
                                  depth + 1);
          if (p) return p;
        }
        return std::nullopt;
      }
      case AvroType::kMap: {
        if (!v.is_object()) return expected("an object");
        for (const JsonMember& m : v.members()) {
          auto p = DefaultProblem(type.values(), m.value,
                                  fmt::format("{}{{{}}}", where, EscapeForMessage(m.key, 40)),
                                  depth + 1);
          if (p) return p;
        }
        return std::nullopt;
      }
      case AvroType::kRecord: {
        if (!v.is_object()) return expected("an object");
        MemberLookup members(v);
        for (const AvroField& f : type.fields()) {
          std::string inner = where.empty() ? f.name() : where + "." + f.name();
          const JsonValue* member = members.Find(f.name());
          if (member == nullptr) {
            if (!f.default_value()) {
              return fmt::format("{}: missing, and field {} of {} has no default", inner, f.name(),
                                 type.full_name());
            }
            continue;
          }
          auto p = DefaultProblem(f.type(), *member, inner, depth + 1);
          if (p) return p;
        }
        return std::nullopt;
      }
      case AvroType::kUnion: {
        if (type.branches().empty()) return expected("no value at all (the union is empty)");
        auto p = DefaultProblem(*type.branches()[0], v, where, depth + 1);
        if (p) *p += " (a union's default belongs to its first branch)";
        return p;
      }
    }
    return std::nullopt;
  }

  // An enum's symbols as a set, built on first use: defaults (an array of enum values, say) may
  // check many values against one enum.
  const SymbolSet& Symbols(const AvroNode& e) const {
    auto it = symbol_sets_.find(&e);
    if (it == symbol_sets_.end()) it = symbol_sets_.emplace(&e, SymbolSet(e)).first;
    return it->second;
  }

  Status CheckDefaults() {
    for (const DefaultSite& site : defaults_) {
      const AvroField& f = site.record->fields()[site.field];
      auto problem = DefaultProblem(f.type(), *f.default_value(), "", 0);
      if (problem) {
        return FailAt(Pointer(site.step), f.default_value()->offset(),
                      fmt::format("invalid default for field {}: {}",
                                  FieldPathOf(site.field_at).ToString(), *problem));
      }
    }
    return Ok();
  }

  // WriteJson and ParsingCanonicalForm write a named type in full where a depth-first walk meets
  // it first. With forward references that place can be deeper than the definition in the source,
  // so check that the written form still fits the JSON depth limit (and thereby that the writers'
  // recursion is bounded). Levels count JSON containers the way the JSON parser does.
  Status CheckWrittenDepth() {
    std::unordered_set<const AvroNode*> written;
    bool ok = WrittenLevels(*schema_.root_, 1, written);
    if (!ok) {
      return InvalidArgument(fmt::format(
          "/: the schema's forward references nest its written form deeper than {} levels",
          kMaxJsonLevels));
    }
    return Ok();
  }

  // Return false as soon as anything written at `level` (1 for the document) exceeds the limit.
  bool WrittenLevels(const AvroNode& n, size_t level,
                     std::unordered_set<const AvroNode*>& written) {
    if (level > kMaxJsonLevels) return false;
    auto props_fit = [&](const JsonValue& props) {
      for (const JsonMember& m : props.members()) {
        if (level + JsonLevels(m.value) > kMaxJsonLevels) return false;
      }
      return true;
    };
    if (n.is_named()) {
      if (!written.insert(&n).second) return true;
      // Aliases and symbols sit two levels below the type's object, field aliases four:
      // record object (level) > "fields" array > field object > "aliases" array > alias.
      size_t below = n.type() == AvroType::kRecord && !n.fields().empty() ? 4 : 2;
      if (level + below > kMaxJsonLevels || !props_fit(n.props())) return false;
      for (const AvroField& f : n.fields()) {
        if (f.default_value() && level + 2 + JsonLevels(*f.default_value()) > kMaxJsonLevels) {
          return false;
        }
        for (const JsonMember& m : f.props().members()) {
          if (level + 2 + JsonLevels(m.value) > kMaxJsonLevels) return false;
        }
        if (!WrittenLevels(f.type(), level + 3, written)) return false;
      }
      return true;
    }
    if (n.is_union()) {
      for (const AvroNode* b : n.branches()) {
        if (!WrittenLevels(*b, level + 1, written)) return false;
      }
      return true;
    }
    if (!props_fit(n.props())) return false;
    if (n.type() == AvroType::kArray || n.type() == AvroType::kMap) {
      return WrittenLevels(*n.child_, level + 1, written);
    }
    return true;
  }

  std::string_view text_;
  std::span<const std::string_view> references_;
  std::deque<JsonValue> reference_json_;  // kept alive while the parse refers to them
  std::vector<PointerStep> trail_;
  size_t at_ = kRootStep;  // the step being parsed
  size_t pinned_ = 0;      // steps below this index are kept for sites
  std::vector<FieldLink> field_links_;
  AvroSchema schema_;
  std::array<const AvroNode*, 8> primitives_{};
  std::vector<std::unique_ptr<AvroNode>> placeholders_;
  std::vector<Pending> pending_;
  std::unordered_map<std::string, AvroNode*> pending_by_key_;
  std::unordered_map<const AvroNode*, const AvroNode*> resolved_;
  std::vector<UnionSite> unions_;
  std::vector<DefaultSite> defaults_;
  mutable std::unordered_map<const AvroNode*, SymbolSet> symbol_sets_;
};

}  // namespace internal

Result<AvroSchema> Parse(std::string_view json_text) {
  internal::AvroParser parser(json_text);
  return parser.Run();
}

Result<AvroSchema> Parse(std::string_view json_text, std::span<const std::string_view> references) {
  internal::AvroParser parser(json_text, references);
  return parser.Run();
}

}  // namespace sluice::dialects::avro
