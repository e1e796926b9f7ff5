#include "sluice/dialects/jsonschema/json_schema.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "sluice/base/strings.h"

namespace sluice::dialects::jsonschema {

std::string_view DraftName(Draft draft) {
  switch (draft) {
    case Draft::kDraft4:
      return "draft-04";
    case Draft::kDraft6:
      return "draft-06";
    case Draft::kDraft7:
      return "draft-07";
    case Draft::k2019_09:
      return "2019-09";
    case Draft::k2020_12:
      return "2020-12";
  }
  return "2020-12";
}

std::string_view DraftUri(Draft draft) {
  switch (draft) {
    case Draft::kDraft4:
      return "http://json-schema.org/draft-04/schema#";
    case Draft::kDraft6:
      return "http://json-schema.org/draft-06/schema#";
    case Draft::kDraft7:
      return "http://json-schema.org/draft-07/schema#";
    case Draft::k2019_09:
      return "https://json-schema.org/draft/2019-09/schema";
    case Draft::k2020_12:
      return "https://json-schema.org/draft/2020-12/schema";
  }
  return "https://json-schema.org/draft/2020-12/schema";
}

std::optional<Draft> DraftFromUri(std::string_view uri) {
  std::string_view u = TrimWhitespace(uri);
  if (EndsWith(u, "#")) u.remove_suffix(1);
  if (StartsWith(u, "https://")) {
    u.remove_prefix(8);
  } else if (StartsWith(u, "http://")) {
    u.remove_prefix(7);
  } else {
    return std::nullopt;
  }
  if (u == "json-schema.org/draft-04/schema") return Draft::kDraft4;
  if (u == "json-schema.org/draft-06/schema") return Draft::kDraft6;
  if (u == "json-schema.org/draft-07/schema") return Draft::kDraft7;
  if (u == "json-schema.org/draft/2019-09/schema") return Draft::k2019_09;
  if (u == "json-schema.org/draft/2020-12/schema") return Draft::k2020_12;
  return std::nullopt;
}

std::string_view InstanceTypeName(InstanceType type) {
  switch (type) {
    case InstanceType::kNull:
      return "null";
    case InstanceType::kBoolean:
      return "boolean";
    case InstanceType::kObject:
      return "object";
    case InstanceType::kArray:
      return "array";
    case InstanceType::kNumber:
      return "number";
    case InstanceType::kInteger:
      return "integer";
    case InstanceType::kString:
      return "string";
  }
  return "null";
}

std::optional<InstanceType> InstanceTypeFromName(std::string_view name) {
  if (name == "null") return InstanceType::kNull;
  if (name == "boolean") return InstanceType::kBoolean;
  if (name == "object") return InstanceType::kObject;
  if (name == "array") return InstanceType::kArray;
  if (name == "number") return InstanceType::kNumber;
  if (name == "integer") return InstanceType::kInteger;
  if (name == "string") return InstanceType::kString;
  return std::nullopt;
}

std::optional<int64_t> Number::AsInt64() const {
  if (text.find_first_of(".eE") != std::string::npos) return std::nullopt;
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return out;
}

bool TypeKeyword::Contains(InstanceType type) const {
  for (InstanceType t : types) {
    if (t == type) return true;
  }
  return false;
}

const SchemaNode* FindSchema(const SchemaMap& map, std::string_view name) {
  for (const NamedSchema& s : map) {
    if (s.name == name) return s.schema;
  }
  return nullptr;
}

const JsonValue* SchemaKeywords::FindUnknown(std::string_view name) const {
  for (const JsonMember* m : unknown) {
    if (m->key == name) return &m->value;
  }
  return nullptr;
}

JsonSchemaDocument::JsonSchemaDocument() = default;
JsonSchemaDocument::JsonSchemaDocument(JsonSchemaDocument&&) noexcept = default;
JsonSchemaDocument& JsonSchemaDocument::operator=(JsonSchemaDocument&&) noexcept = default;
JsonSchemaDocument::~JsonSchemaDocument() = default;

namespace {

// ---------------------------------------------------------------------------------------------
// URIs: just enough of RFC 3986 to resolve `$id` and `$ref` against a base.

struct Uri {
  std::string scheme;
  std::optional<std::string> authority;
  std::string path;
  std::optional<std::string> query;
  std::optional<std::string> fragment;
};

Uri SplitUri(std::string_view s) {
  Uri u;
  // scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) followed by ':' before any of "/?#".
  size_t colon = s.find(':');
  size_t first_delim = s.find_first_of("/?#");
  if (colon != std::string_view::npos && colon > 0 && colon < first_delim) {
    bool ok = std::isalpha(static_cast<unsigned char>(s[0])) != 0;
    for (size_t i = 1; ok && i < colon; ++i) {
      char c = s[i];
      ok = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
    }
    if (ok) {
      u.scheme = std::string(s.substr(0, colon));
      s.remove_prefix(colon + 1);
    }
  }
  if (StartsWith(s, "//")) {
    s.remove_prefix(2);
    size_t end = s.find_first_of("/?#");
    u.authority = std::string(s.substr(0, end));
    s = end == std::string_view::npos ? std::string_view() : s.substr(end);
  }
  size_t hash = s.find('#');
  if (hash != std::string_view::npos) {
    u.fragment = std::string(s.substr(hash + 1));
    s = s.substr(0, hash);
  }
  size_t q = s.find('?');
  if (q != std::string_view::npos) {
    u.query = std::string(s.substr(q + 1));
    s = s.substr(0, q);
  }
  u.path = std::string(s);
  return u;
}

std::string RemoveDotSegments(std::string_view in) {
  std::string out;
  while (!in.empty()) {
    if (StartsWith(in, "../")) {
      in.remove_prefix(3);
    } else if (StartsWith(in, "./")) {
      in.remove_prefix(2);
    } else if (StartsWith(in, "/./")) {
      in.remove_prefix(2);
    } else if (in == "/.") {
      in = "/";
    } else if (StartsWith(in, "/../") || in == "/..") {
      in = in.size() == 3 ? std::string_view("/") : in.substr(3);
      size_t slash = out.rfind('/');
      out.erase(slash == std::string::npos ? 0 : slash);
    } else if (in == "." || in == "..") {
      in = {};
    } else {
      size_t next = in.find('/', 1);
      if (in[0] != '/') next = in.find('/');
      std::string_view seg = in.substr(0, next);
      out += seg;
      in = next == std::string_view::npos ? std::string_view() : in.substr(next);
    }
  }
  return out;
}

std::string JoinUri(const Uri& u, bool with_fragment) {
  std::string out;
  if (!u.scheme.empty()) out += u.scheme + ":";
  if (u.authority) out += "//" + *u.authority;
  out += u.path;
  if (u.query) out += "?" + *u.query;
  if (with_fragment && u.fragment) out += "#" + *u.fragment;
  return out;
}

// RFC 3986 section 5.2.2, without the strict-parser option.
std::string ResolveUri(std::string_view base_text, std::string_view ref_text) {
  Uri ref = SplitUri(ref_text);
  Uri base = SplitUri(base_text);
  Uri t;
  if (!ref.scheme.empty()) {
    t = ref;
    t.path = RemoveDotSegments(ref.path);
  } else {
    t.scheme = base.scheme;
    if (ref.authority) {
      t.authority = ref.authority;
      t.path = RemoveDotSegments(ref.path);
      t.query = ref.query;
    } else {
      t.authority = base.authority;
      if (ref.path.empty()) {
        t.path = base.path;
        t.query = ref.query ? ref.query : base.query;
      } else {
        if (ref.path[0] == '/') {
          t.path = RemoveDotSegments(ref.path);
        } else {
          std::string merged;
          if (base.authority && base.path.empty()) {
            merged = "/" + ref.path;
          } else {
            size_t slash = base.path.rfind('/');
            merged =
                slash == std::string::npos ? ref.path : base.path.substr(0, slash + 1) + ref.path;
          }
          t.path = RemoveDotSegments(merged);
        }
        t.query = ref.query;
      }
    }
  }
  t.fragment = ref.fragment;
  return JoinUri(t, true);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    int hi = HexValue(s[i + 1]);
    int lo = HexValue(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// Append `token` to a JSON pointer, escaped: most tokens need no escape and are copied whole.
void AppendPointerToken(std::string& out, std::string_view token) {
  bool plain = true;
  for (char c : token) plain = plain && c != '~' && c != '/';
  if (plain) {
    out += token;
    return;
  }
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
}

std::string EscapePointerToken(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  AppendPointerToken(out, token);
  return out;
}

std::optional<std::string> UnescapePointerToken(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '~') {
      out += token[i];
      continue;
    }
    if (i + 1 >= token.size()) return std::nullopt;
    if (token[i + 1] == '0') {
      out += '~';
    } else if (token[i + 1] == '1') {
      out += '/';
    } else {
      return std::nullopt;
    }
    ++i;
  }
  return out;
}

std::string ChildPointer(std::string_view parent, std::string_view token) {
  std::string out;
  out.reserve(parent.size() + 1 + token.size());
  out += parent;
  out += '/';
  AppendPointerToken(out, token);
  return out;
}

// The keywords this parser knows; anything else is kept raw in SchemaKeywords::unknown.
enum class Keyword : uint8_t {
  kSchema,
  kId,
  kLegacyId,
  kRef,
  kAnchor,
  kDynamicRef,
  kDynamicAnchor,
  kRecursiveRef,
  kRecursiveAnchor,
  kComment,
  kDefs,
  kDefinitions,
  kVocabulary,
  kTitle,
  kDescription,
  kDefault,
  kExamples,
  kReadOnly,
  kWriteOnly,
  kDeprecated,
  kType,
  kEnum,
  kConst,
  kAllOf,
  kAnyOf,
  kOneOf,
  kNot,
  kIf,
  kThen,
  kElse,
  kProperties,
  kRequired,
  kAdditionalProperties,
  kPatternProperties,
  kPropertyNames,
  kUnevaluatedProperties,
  kMinProperties,
  kMaxProperties,
  kDependencies,
  kDependentRequired,
  kDependentSchemas,
  kItems,
  kPrefixItems,
  kAdditionalItems,
  kUnevaluatedItems,
  kContains,
  kMinContains,
  kMaxContains,
  kMinItems,
  kMaxItems,
  kUniqueItems,
  kMinLength,
  kMaxLength,
  kPattern,
  kFormat,
  kContentEncoding,
  kContentMediaType,
  kContentSchema,
  kMinimum,
  kMaximum,
  kExclusiveMinimum,
  kExclusiveMaximum,
  kMultipleOf,
};

const std::unordered_map<std::string_view, Keyword>& KeywordTable() {
  static const auto* table = new std::unordered_map<std::string_view, Keyword>{
      {"$schema", Keyword::kSchema},
      {"$id", Keyword::kId},
      {"id", Keyword::kLegacyId},
      {"$ref", Keyword::kRef},
      {"$anchor", Keyword::kAnchor},
      {"$dynamicRef", Keyword::kDynamicRef},
      {"$dynamicAnchor", Keyword::kDynamicAnchor},
      {"$recursiveRef", Keyword::kRecursiveRef},
      {"$recursiveAnchor", Keyword::kRecursiveAnchor},
      {"$comment", Keyword::kComment},
      {"$defs", Keyword::kDefs},
      {"definitions", Keyword::kDefinitions},
      {"$vocabulary", Keyword::kVocabulary},
      {"title", Keyword::kTitle},
      {"description", Keyword::kDescription},
      {"default", Keyword::kDefault},
      {"examples", Keyword::kExamples},
      {"readOnly", Keyword::kReadOnly},
      {"writeOnly", Keyword::kWriteOnly},
      {"deprecated", Keyword::kDeprecated},
      {"type", Keyword::kType},
      {"enum", Keyword::kEnum},
      {"const", Keyword::kConst},
      {"allOf", Keyword::kAllOf},
      {"anyOf", Keyword::kAnyOf},
      {"oneOf", Keyword::kOneOf},
      {"not", Keyword::kNot},
      {"if", Keyword::kIf},
      {"then", Keyword::kThen},
      {"else", Keyword::kElse},
      {"properties", Keyword::kProperties},
      {"required", Keyword::kRequired},
      {"additionalProperties", Keyword::kAdditionalProperties},
      {"patternProperties", Keyword::kPatternProperties},
      {"propertyNames", Keyword::kPropertyNames},
      {"unevaluatedProperties", Keyword::kUnevaluatedProperties},
      {"minProperties", Keyword::kMinProperties},
      {"maxProperties", Keyword::kMaxProperties},
      {"dependencies", Keyword::kDependencies},
      {"dependentRequired", Keyword::kDependentRequired},
      {"dependentSchemas", Keyword::kDependentSchemas},
      {"items", Keyword::kItems},
      {"prefixItems", Keyword::kPrefixItems},
      {"additionalItems", Keyword::kAdditionalItems},
      {"unevaluatedItems", Keyword::kUnevaluatedItems},
      {"contains", Keyword::kContains},
      {"minContains", Keyword::kMinContains},
      {"maxContains", Keyword::kMaxContains},
      {"minItems", Keyword::kMinItems},
      {"maxItems", Keyword::kMaxItems},
      {"uniqueItems", Keyword::kUniqueItems},
      {"minLength", Keyword::kMinLength},
      {"maxLength", Keyword::kMaxLength},
      {"pattern", Keyword::kPattern},
      {"format", Keyword::kFormat},
      {"contentEncoding", Keyword::kContentEncoding},
      {"contentMediaType", Keyword::kContentMediaType},
      {"contentSchema", Keyword::kContentSchema},
      {"minimum", Keyword::kMinimum},
      {"maximum", Keyword::kMaximum},
      {"exclusiveMinimum", Keyword::kExclusiveMinimum},
      {"exclusiveMaximum", Keyword::kExclusiveMaximum},
      {"multipleOf", Keyword::kMultipleOf},
  };
  return *table;
}

std::string_view KindName(const JsonValue& v) {
  if (v.is_number()) return v.is_integer_text() ? "integer" : "number";
  return JsonValue::KindName(v.kind());
}

// The JSON parser's own depth limit is reached first; this guards the node recursion
// independently of how the JSON was parsed.
constexpr size_t kMaxNodeDepth = 512;
constexpr size_t kMaxWarnings = 1000;

}  // namespace

// Builds a JsonSchemaDocument: one recursive pass over the JSON creating nodes, then a worklist
// pass resolving `$ref`s, then a loop check.
class DocumentBuilder {
 public:
  DocumentBuilder(std::string_view text, const ParseOptions& options)
      : text_(text), options_(options) {}

  Result<JsonSchemaDocument> Build() {
    JsonParseOptions json_options;
    json_options.allow_trailing_commas = options_.allow_trailing_commas;
    SLUICE_ASSIGN_OR_RETURN(JsonValue json, ParseJson(text_, json_options));
    doc_.json_ = std::make_unique<JsonValue>(std::move(json));
    const JsonValue& root = *doc_.json_;
    if (!root.is_object() && !root.is_bool()) {
      return Invalid(
          root, "#",
          fmt::format("a JSON Schema is an object or a boolean, found {}", KindName(root)));
    }
    doc_.draft_ = options_.default_draft;
    if (const JsonValue* s = root.Find("$schema")) {
      if (!s->is_string()) return WrongType(*s, "#/$schema", "a string");
      if (auto d = DraftFromUri(s->as_string())) {
        doc_.draft_ = *d;
        doc_.draft_declared_ = true;
      } else {
        Warn(fmt::format("#/$schema: unknown meta-schema \"{}\"; read as {}",
                         EscapeForMessage(s->as_string()), DraftName(doc_.draft_)));
      }
    }
    SLUICE_ASSIGN_OR_RETURN(doc_.root_, ParseNode(root, "#", "", 0));
    // The document itself is a resource even without a root `$id`.
    doc_.resources_.emplace(doc_.root_->base_uri(), doc_.root_);
    SLUICE_TRY(ResolveRefs());
    SLUICE_TRY(CheckRefLoops());
    return std::move(doc_);
  }

 private:
  Unexpected<Error> Invalid(const JsonValue& at, std::string_view pointer,
                            std::string_view message) const {
    return InvalidArgument(
        fmt::format("{}: {} ({})", pointer, message, DescribeOffset(text_, at.offset())));
  }
  Unexpected<Error> WrongType(const JsonValue& v, std::string_view pointer,
                              std::string_view expected) const {
    return Invalid(v, pointer, fmt::format("expected {}, found {}", expected, KindName(v)));
  }
  void Warn(std::string message) {
    if (doc_.warnings_.size() < kMaxWarnings) doc_.warnings_.push_back(std::move(message));
  }

  Result<std::string> ReadString(const JsonValue& v, std::string_view pointer) {
    if (!v.is_string()) return WrongType(v, pointer, "a string");
    return v.as_string();
  }
  Result<bool> ReadBool(const JsonValue& v, std::string_view pointer) {
    if (!v.is_bool()) return WrongType(v, pointer, "a boolean");
    return v.as_bool();
  }
  Result<Number> ReadNumber(const JsonValue& v, std::string_view pointer) {
    if (!v.is_number()) return WrongType(v, pointer, "a number");
    return Number{v.number_text(), v.as_double()};
  }
  // Non-negative integers; drafts 6+ allow them written with a zero fraction ("2.0").
  Result<uint64_t> ReadCount(const JsonValue& v, std::string_view pointer) {
    if (!v.is_number()) return WrongType(v, pointer, "a non-negative integer");
    const std::string& t = v.number_text();
    if (v.is_integer_text()) {
      if (StartsWith(t, "-")) {
        if (v.as_double() == 0) return uint64_t{0};
        return Invalid(v, pointer, fmt::format("expected a non-negative integer, found {}", t));
      }
      uint64_t out = 0;
      auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
      if (ec != std::errc() || ptr != t.data() + t.size()) {
        return Invalid(v, pointer, fmt::format("{} is too large", t));
      }
      return out;
    }
    double d = v.as_double();
    if (!(d >= 0) || std::floor(d) != d) {
      return Invalid(v, pointer, fmt::format("expected a non-negative integer, found {}", t));
    }
    if (d >= 18446744073709551615.0) return Invalid(v, pointer, fmt::format("{} is too large", t));
    return static_cast<uint64_t>(d);
  }
  Result<std::vector<std::string>> ReadStringArray(const JsonValue& v, std::string_view pointer) {
    if (!v.is_array()) return WrongType(v, pointer, "an array of strings");
    std::vector<std::string> out;
    out.reserve(v.items().size());
    for (size_t i = 0; i < v.items().size(); ++i) {
      const JsonValue& item = v.items()[i];
      if (!item.is_string()) {
        return WrongType(item, fmt::format("{}/{}", pointer, i), "a string");
      }
      out.push_back(item.as_string());
    }
    return out;
  }

  Result<const SchemaNode*> ReadSchema(const JsonValue& v, std::string pointer,
                                       const std::string& base, size_t depth) {
    if (!v.is_object() && !v.is_bool())
      return WrongType(v, pointer, "a schema (object or boolean)");
    return ParseNode(v, std::move(pointer), base, depth + 1);
  }
  Result<std::vector<const SchemaNode*>> ReadSchemaArray(const JsonValue& v,
                                                         const std::string& pointer,
                                                         const std::string& base, size_t depth) {
    if (!v.is_array()) return WrongType(v, pointer, "an array of schemas");
    std::vector<const SchemaNode*> out;
    out.reserve(v.items().size());
    for (size_t i = 0; i < v.items().size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(
          const SchemaNode* s,
          ReadSchema(v.items()[i], fmt::format("{}/{}", pointer, i), base, depth));
      out.push_back(s);
    }
    return out;
  }
  Result<SchemaMap> ReadSchemaMap(const JsonValue& v, const std::string& pointer,
                                  const std::string& base, size_t depth) {
    if (!v.is_object()) return WrongType(v, pointer, "an object of schemas");
    SchemaMap out;
    out.reserve(v.members().size());
    for (const JsonMember& m : v.members()) {
      SLUICE_ASSIGN_OR_RETURN(const SchemaNode* s,
                              ReadSchema(m.value, ChildPointer(pointer, m.key), base, depth));
      out.push_back(NamedSchema{m.key, s});
    }
    return out;
  }

  void AddChildren(SchemaNode& node, std::string_view keyword,
                   const std::vector<const SchemaNode*>& children) {
    for (size_t i = 0; i < children.size(); ++i) {
      node.children_.push_back(Subschema{fmt::format("{}/{}", keyword, i), children[i]});
    }
  }
  void AddChildren(SchemaNode& node, std::string_view keyword, const SchemaMap& children) {
    for (const NamedSchema& s : children) {
      std::string location(keyword);
      location += '/';
      AppendPointerToken(location, s.name);
      node.children_.push_back(Subschema{std::move(location), s.schema});
    }
  }
  void AddChild(SchemaNode& node, std::string_view keyword, const SchemaNode* child) {
    node.children_.push_back(Subschema{std::string(keyword), child});
  }

  void RegisterAnchor(const std::string& base, const std::string& name, const SchemaNode* node) {
    doc_.anchors_.emplace(base + "#" + name, node);
  }

  // `value` is an object or a boolean.
  Result<const SchemaNode*> ParseNode(const JsonValue& value, std::string pointer,
                                      const std::string& parent_base, size_t depth) {
    // A location reached twice (a `$ref` pointing into a keyword this parser also reads) is one
    // node.
    if (auto it = doc_.by_pointer_.find(pointer); it != doc_.by_pointer_.end()) {
      return it->second;
    }
    if (depth > kMaxNodeDepth) {
      return Invalid(value, pointer,
                     fmt::format("schemas nest deeper than {} levels", kMaxNodeDepth));
    }
    auto owned = std::make_unique<SchemaNode>();
    SchemaNode& node = *owned;
    node.index_ = doc_.nodes_.size();
    node.pointer_ = pointer;
    node.raw_ = &value;
    node.base_uri_ = parent_base;
    doc_.nodes_.push_back(std::move(owned));
    doc_.by_pointer_.emplace(node.pointer_, &node);
    if (value.is_bool()) {
      node.boolean_ = value.as_bool();
      return &node;
    }

    SchemaKeywords& k = node.keywords_;
    const Draft draft = doc_.draft_;
    // `$id` first: it sets the base URI every other keyword's subschemas resolve against.
    const JsonValue* id_value = value.Find("$id");
    std::string_view id_pointer_key = "$id";
    if (id_value == nullptr && draft == Draft::kDraft4) {
      id_value = value.Find("id");
      id_pointer_key = "id";
    }
    if (id_value != nullptr) {
      SLUICE_ASSIGN_OR_RETURN(std::string id,
                              ReadString(*id_value, ChildPointer(pointer, id_pointer_key)));
      k.id = id;
      if (StartsWith(id, "#")) {
        // Draft 4-7 plain-name fragments ("$id": "#foo") name an anchor in the current resource.
        if (id.size() > 1) RegisterAnchor(parent_base, id.substr(1), &node);
      } else {
        std::string resolved = ResolveUri(parent_base, id);
        size_t hash = resolved.find('#');
        std::string base = resolved.substr(0, hash);
        node.base_uri_ = base;
        doc_.resources_.emplace(base, &node);
        if (hash != std::string::npos && hash + 1 < resolved.size() && resolved[hash + 1] != '/') {
          RegisterAnchor(base, resolved.substr(hash + 1), &node);
        }
      }
    }
    const std::string& base = node.base_uri_;

    for (const JsonMember& m : value.members()) {
      const JsonValue& v = m.value;
      std::string at = ChildPointer(pointer, m.key);
      auto found = KeywordTable().find(m.key);
      if (found == KeywordTable().end()) {
        k.unknown.push_back(&m);
        continue;
      }
      switch (found->second) {
        case Keyword::kSchema: {
          SLUICE_ASSIGN_OR_RETURN(k.schema_uri, ReadString(v, at));
          break;
        }
        case Keyword::kId:
          break;  // read above
        case Keyword::kLegacyId:
          // Draft 4's identifier; in later drafts "id" is an ordinary unknown keyword.
          if (draft != Draft::kDraft4 || id_pointer_key != "id") k.unknown.push_back(&m);
          break;
        case Keyword::kRef: {
          SLUICE_ASSIGN_OR_RETURN(k.ref, ReadString(v, at));
          break;
        }
        case Keyword::kAnchor: {
          SLUICE_ASSIGN_OR_RETURN(k.anchor, ReadString(v, at));
          RegisterAnchor(base, *k.anchor, &node);
          break;
        }
        case Keyword::kDynamicRef: {
          SLUICE_ASSIGN_OR_RETURN(k.dynamic_ref, ReadString(v, at));
          break;
        }
        case Keyword::kDynamicAnchor: {
          SLUICE_ASSIGN_OR_RETURN(k.dynamic_anchor, ReadString(v, at));
          // A dynamic anchor is also a plain anchor for `$ref`.
          RegisterAnchor(base, *k.dynamic_anchor, &node);
          break;
        }
        case Keyword::kRecursiveRef: {
          SLUICE_ASSIGN_OR_RETURN(k.recursive_ref, ReadString(v, at));
          break;
        }
        case Keyword::kRecursiveAnchor: {
          SLUICE_ASSIGN_OR_RETURN(k.recursive_anchor, ReadBool(v, at));
          break;
        }
        case Keyword::kComment: {
          SLUICE_ASSIGN_OR_RETURN(k.comment, ReadString(v, at));
          break;
        }
        case Keyword::kDefs: {
          SLUICE_ASSIGN_OR_RETURN(k.defs, ReadSchemaMap(v, at, base, depth));
          AddChildren(node, m.key, *k.defs);
          break;
        }
        case Keyword::kDefinitions: {
          SLUICE_ASSIGN_OR_RETURN(k.definitions, ReadSchemaMap(v, at, base, depth));
          AddChildren(node, m.key, *k.definitions);
          break;
        }
        case Keyword::kVocabulary:
          // Only meaningful in meta-schemas; kept raw.
          k.unknown.push_back(&m);
          break;
        case Keyword::kTitle: {
          SLUICE_ASSIGN_OR_RETURN(k.title, ReadString(v, at));
          break;
        }
        case Keyword::kDescription: {
          SLUICE_ASSIGN_OR_RETURN(k.description, ReadString(v, at));
          break;
        }
        case Keyword::kDefault:
          k.default_value = v;
          break;
        case Keyword::kExamples:
          if (!v.is_array()) return WrongType(v, at, "an array");
          k.examples = v;
          break;
        case Keyword::kReadOnly: {
          SLUICE_ASSIGN_OR_RETURN(k.read_only, ReadBool(v, at));
          break;
        }
        case Keyword::kWriteOnly: {
          SLUICE_ASSIGN_OR_RETURN(k.write_only, ReadBool(v, at));
          break;
        }
        case Keyword::kDeprecated: {
          SLUICE_ASSIGN_OR_RETURN(k.deprecated, ReadBool(v, at));
          break;
        }
        case Keyword::kType: {
          TypeKeyword t;
          if (v.is_string()) {
            auto it = InstanceTypeFromName(v.as_string());
            if (!it) {
              return Invalid(v, at,
                             fmt::format("unknown type \"{}\"", EscapeForMessage(v.as_string())));
            }
            t.types.push_back(*it);
          } else if (v.is_array()) {
            t.array_form = true;
            for (size_t i = 0; i < v.items().size(); ++i) {
              const JsonValue& item = v.items()[i];
              std::string item_at = fmt::format("{}/{}", at, i);
              if (!item.is_string()) return WrongType(item, item_at, "a type name");
              auto it = InstanceTypeFromName(item.as_string());
              if (!it) {
                return Invalid(
                    item, item_at,
                    fmt::format("unknown type \"{}\"", EscapeForMessage(item.as_string())));
              }
              t.types.push_back(*it);
            }
          } else {
            return WrongType(v, at, "a type name or an array of type names");
          }
          k.type = std::move(t);
          break;
        }
        case Keyword::kEnum:
          if (!v.is_array()) return WrongType(v, at, "an array");
          k.enum_values = v.items();
          break;
        case Keyword::kConst:
          k.const_value = v;
          break;
        case Keyword::kAllOf: {
          SLUICE_ASSIGN_OR_RETURN(k.all_of, ReadSchemaArray(v, at, base, depth));
          AddChildren(node, m.key, *k.all_of);
          break;
        }
        case Keyword::kAnyOf: {
          SLUICE_ASSIGN_OR_RETURN(k.any_of, ReadSchemaArray(v, at, base, depth));
          AddChildren(node, m.key, *k.any_of);
          break;
        }
        case Keyword::kOneOf: {
          SLUICE_ASSIGN_OR_RETURN(k.one_of, ReadSchemaArray(v, at, base, depth));
          AddChildren(node, m.key, *k.one_of);
          break;
        }
        case Keyword::kNot: {
          SLUICE_ASSIGN_OR_RETURN(k.not_schema, ReadSchema(v, at, base, depth));
          AddChild(node, m.key, k.not_schema);
          break;
        }
        case Keyword::kIf: {
          SLUICE_ASSIGN_OR_RETURN(k.if_schema, ReadSchema(v, at, base, depth));
          AddChild(node, m.key, k.if_schema);
          break;
        }
        case Keyword::kThen: {
          SLUICE_ASSIGN_OR_RETURN(k.then_schema, ReadSchema(v, at, base, depth));
          AddChild(node, m.key, k.then_schema);
          break;
        }
        case Keyword::kElse: {
          SLUICE_ASSIGN_OR_RETURN(k.else_schema, ReadSchema(v, at, base, depth));
          AddChild(node, m.key, k.else_schema);
          break;
        }
        case Keyword::kProperties: {
          SLUICE_ASSIGN_OR_RETURN(k.properties, ReadSchemaMap(v, at, base, depth));
          AddChildren(node, m.key, *k.properties);
          break;
        }
        case Keyword::kRequired: {
          SLUICE_ASSIGN_OR_RETURN(k.required, ReadStringArray(v, at));
          break;
        }
        case Keyword::kAdditionalProperties: {
          SLUICE_ASSIGN_OR_RETURN(k.additional_properties, ReadSchema(v, at, base, depth));
          AddChild(node, m.key, k.additional_properties);
          break;
        }
        case Keyword::kPatternProperties: {
          SLUICE_ASSIGN_OR_RETURN(k.pattern_properties, ReadSchemaMap(v, at, base, depth));
          AddChildren(node, m.key, *k.pattern_properties);
          break;
        }
        case Keyword::kPropertyNames: {
          SLUICE_ASSIGN_OR_RETURN(k.property_names, ReadSchema(v, at, base, depth));
          AddChild(node, m.key, k.property_names);
          break;
        }
        case Keyword::kUnevaluatedProperties: {
          SLUICE_ASSIGN_OR_RETURN(k.unevaluated_properties, ReadSchema(v, at, base, depth));
          AddChild(node, m.key, k.unevaluated_properties);
          break;
        }
        case Keyword::kMinProperties: {
          SLUICE_ASSIGN_OR_RETURN(k.min_properties, ReadCount(v, at));
          break;
        }
        case Keyword::kMaxProperties: {
          SLUICE_ASSIGN_OR_RETURN(k.max_properties, ReadCount(v, at));
          break;
        }
        case Keyword::kDependencies: {
          if (!v.is_object()) return WrongType(v, at, "an object");
          std::vector<Dependency> deps;
          for (const JsonMember& d : v.members()) {
            std::string dep_at = ChildPointer(at, d.key);
            Dependency dep;
            dep.property = d.key;
            if (d.value.is_array()) {
              SLUICE_ASSIGN_OR_RETURN(dep.required, ReadStringArray(d.value, dep_at));
            } else if (d.value.is_object() || d.value.is_bool()) {
              SLUICE_ASSIGN_OR_RETURN(dep.schema, ParseNode(d.value, dep_at, base, depth + 1));
              AddChild(node, fmt::format("{}/{}", m.key, EscapePointerToken(d.key)), dep.schema);
            } else {
              return WrongType(d.value, dep_at, "an array of property names or a schema");
            }
            deps.push_back(std::move(dep));
          }
          k.dependencies = std::move(deps);
          break;
        }
        case Keyword::kDependentRequired: {
          if (!v.is_object()) return WrongType(v, at, "an object");
          std::vector<DependentRequired> deps;
          for (const JsonMember& d : v.members()) {
            SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> names,
                                    ReadStringArray(d.value, ChildPointer(at, d.key)));
            deps.push_back(DependentRequired{d.key, std::move(names)});
          }
          k.dependent_required = std::move(deps);
          break;
        }
        case Keyword::kDependentSchemas: {
          SLUICE_ASSIGN_OR_RETURN(k.dependent_schemas, ReadSchemaMap(v, at, base, depth));
          AddChildren(node, m.key, *k.dependent_schemas);
          break;
        }
        case Keyword::kItems: {
          if (v.is_array()) {
            SLUICE_ASSIGN_OR_RETURN(k.items_tuple, ReadSchemaArray(v, at, base, depth));
            AddChildren(node, m.key, *k.items_tuple);
            if (draft == Draft::k2020_12) {
              Warn(
                  fmt::format("{}: an array of schemas is the pre-2020-12 tuple form "
                              "(2020-12 spells it prefixItems); read as the tuple form",
                              at));
            }
          } else {
            SLUICE_ASSIGN_OR_RETURN(k.items, ReadSchema(v, at, base, depth));
            AddChild(node, m.key, k.items);
          }
          break;
        }
        case Keyword::kPrefixItems: {
          SLUICE_ASSIGN_OR_RETURN(k.prefix_items, ReadSchemaArray(v, at, base, depth));
          AddChildren(node, m.key, *k.prefix_items);
          if (draft != Draft::k2020_12) {
            Warn(fmt::format("{}: prefixItems is a 2020-12 keyword, which {} does not define", at,
                             DraftName(draft)));
          }
          break;
        }
        case Keyword::kAdditionalItems: {
          SLUICE_ASSIGN_OR_RETURN(k.additional_items, ReadSchema(v, at, base, depth));
          AddChild(node, m.key, k.additional_items);
          break;
        }
        case Keyword::kUnevaluatedItems: {
          SLUICE_ASSIGN_OR_RETURN(k.unevaluated_items, ReadSchema(v, at, base, depth));
          AddChild(node, m.key, k.unevaluated_items);
          break;
        }
        case Keyword::kContains: {
          SLUICE_ASSIGN_OR_RETURN(k.contains, ReadSchema(v, at, base, depth));
          AddChild(node, m.key, k.contains);
          break;
        }
        case Keyword::kMinContains: {
          SLUICE_ASSIGN_OR_RETURN(k.min_contains, ReadCount(v, at));
          break;
        }
        case Keyword::kMaxContains: {
          SLUICE_ASSIGN_OR_RETURN(k.max_contains, ReadCount(v, at));
          break;
        }
        case Keyword::kMinItems: {
          SLUICE_ASSIGN_OR_RETURN(k.min_items, ReadCount(v, at));
          break;
        }
        case Keyword::kMaxItems: {
          SLUICE_ASSIGN_OR_RETURN(k.max_items, ReadCount(v, at));
          break;
        }
        case Keyword::kUniqueItems: {
          SLUICE_ASSIGN_OR_RETURN(k.unique_items, ReadBool(v, at));
          break;
        }
        case Keyword::kMinLength: {
          SLUICE_ASSIGN_OR_RETURN(k.min_length, ReadCount(v, at));
          break;
        }
        case Keyword::kMaxLength: {
          SLUICE_ASSIGN_OR_RETURN(k.max_length, ReadCount(v, at));
          break;
        }
        case Keyword::kPattern: {
          SLUICE_ASSIGN_OR_RETURN(k.pattern, ReadString(v, at));
          break;
        }
        case Keyword::kFormat: {
          SLUICE_ASSIGN_OR_RETURN(k.format, ReadString(v, at));
          break;
        }
        case Keyword::kContentEncoding: {
          SLUICE_ASSIGN_OR_RETURN(k.content_encoding, ReadString(v, at));
          break;
        }
        case Keyword::kContentMediaType: {
          SLUICE_ASSIGN_OR_RETURN(k.content_media_type, ReadString(v, at));
          break;
        }
        case Keyword::kContentSchema: {
          SLUICE_ASSIGN_OR_RETURN(k.content_schema, ReadSchema(v, at, base, depth));
          AddChild(node, m.key, k.content_schema);
          break;
        }
        case Keyword::kMinimum: {
          SLUICE_ASSIGN_OR_RETURN(k.minimum, ReadNumber(v, at));
          break;
        }
        case Keyword::kMaximum: {
          SLUICE_ASSIGN_OR_RETURN(k.maximum, ReadNumber(v, at));
          break;
        }
        case Keyword::kExclusiveMinimum:
          SLUICE_TRY(ReadExclusive(v, at, k.exclusive_minimum, k.exclusive_minimum_flag));
          break;
        case Keyword::kExclusiveMaximum:
          SLUICE_TRY(ReadExclusive(v, at, k.exclusive_maximum, k.exclusive_maximum_flag));
          break;
        case Keyword::kMultipleOf: {
          SLUICE_ASSIGN_OR_RETURN(k.multiple_of, ReadNumber(v, at));
          if (!(k.multiple_of->value > 0)) {
            return Invalid(
                v, at,
                fmt::format("multipleOf must be greater than 0, found {}", k.multiple_of->text));
          }
          break;
        }
      }
    }
    return &node;
  }

  Status ReadExclusive(const JsonValue& v, const std::string& at, Boxed<Number>& number,
                       std::optional<bool>& flag) {
    if (v.is_bool()) {
      flag = v.as_bool();
      if (doc_.draft_ != Draft::kDraft4) {
        Warn(fmt::format("{}: a boolean is the draft-04 form; {} expects a number", at,
                         DraftName(doc_.draft_)));
      }
      return Ok();
    }
    if (!v.is_number()) return WrongType(v, at, "a number (or, in draft-04, a boolean)");
    number = Number{v.number_text(), v.as_double()};
    if (doc_.draft_ == Draft::kDraft4) {
      Warn(fmt::format("{}: a number is the draft-06+ form; draft-04 expects a boolean", at));
    }
    return Ok();
  }

  // Resolve every `$ref`, including those of nodes that resolution itself adds (a pointer into
  // an unknown keyword parses the schema found there).
  Status ResolveRefs() {
    for (size_t i = 0; i < doc_.nodes_.size(); ++i) {
      SchemaNode& node = *doc_.nodes_[i];
      if (!node.keywords_.ref) continue;
      const std::string& ref = *node.keywords_.ref;
      std::string at = ChildPointer(node.pointer_, "$ref");
      node.ref_uri_ = ResolveUri(node.base_uri_, ref);
      SLUICE_ASSIGN_OR_RETURN(Lookup found, Find(node.ref_uri_));
      if (found.status == LookupStatus::kExternal) continue;
      if (found.status == LookupStatus::kBadPointer) {
        return Invalid(
            *node.raw().Find("$ref"), at,
            fmt::format("\"{}\" is not a valid JSON pointer fragment", EscapeForMessage(ref)));
      }
      if (found.status == LookupStatus::kMissing) {
        return Invalid(
            *node.raw().Find("$ref"), at,
            fmt::format("\"{}\" points at nothing in this document", EscapeForMessage(ref)));
      }
      if (found.node == nullptr) {
        // A JSON value no known keyword made a schema: parse it now, at its own pointer.
        if (!found.value->is_object() && !found.value->is_bool()) {
          return Invalid(*node.raw().Find("$ref"), at,
                         fmt::format("\"{}\" points at {}, not a schema", EscapeForMessage(ref),
                                     KindName(*found.value)));
        }
        SLUICE_ASSIGN_OR_RETURN(found.node, ParseNode(*found.value, found.pointer,
                                                      found.resource->base_uri_, found.depth));
      }
      // `doc_.nodes_` may have grown; `node` is still valid because nodes are heap-allocated.
      node.ref_target_ = found.node;
    }
    return Ok();
  }

 public:
  enum class LookupStatus : uint8_t { kFound, kExternal, kMissing, kBadPointer };
  struct Lookup {
    LookupStatus status = LookupStatus::kMissing;
    const SchemaNode* node = nullptr;      // the schema, when it is already a node
    const JsonValue* value = nullptr;      // else the JSON at the pointer
    const SchemaNode* resource = nullptr;  // the resource the pointer is relative to
    std::string pointer;                   // the canonical pointer of the target
    size_t depth = 0;
  };

  // Find the target of an absolute reference. Shared with JsonSchemaDocument::ResolveRef.
  static Result<Lookup> FindIn(const JsonSchemaDocument& doc, const std::string& uri) {
    Lookup out;
    size_t hash = uri.find('#');
    std::string_view resource_uri = std::string_view(uri).substr(0, hash);
    std::string_view fragment =
        hash == std::string::npos ? std::string_view() : std::string_view(uri).substr(hash + 1);
    auto res = doc.resources_.find(resource_uri);
    if (res == doc.resources_.end()) {
      out.status = LookupStatus::kExternal;
      return out;
    }
    const SchemaNode* resource = res->second;
    out.resource = resource;
    std::optional<std::string> decoded = PercentDecode(fragment);
    if (!decoded) {
      out.status = LookupStatus::kBadPointer;
      return out;
    }
    if (decoded->empty()) {
      out.status = LookupStatus::kFound;
      out.node = resource;
      out.value = &resource->raw();
      out.pointer = resource->pointer();
      return out;
    }
    if ((*decoded)[0] != '/') {
      auto a = doc.anchors_.find(std::string(resource_uri) + "#" + *decoded);
      if (a == doc.anchors_.end()) return out;  // missing
      out.status = LookupStatus::kFound;
      out.node = a->second;
      out.value = &a->second->raw();
      out.pointer = a->second->pointer();
      return out;
    }
    // Split and check the tokens first: the canonical pointer finds an existing node without
    // walking the JSON, whose objects are searched linearly (wide $defs would make that
    // quadratic).
    std::vector<std::string> tokens;
    std::string pointer = resource->pointer();
    std::string_view rest = std::string_view(*decoded).substr(1);
    while (true) {
      size_t slash = rest.find('/');
      std::optional<std::string> token = UnescapePointerToken(rest.substr(0, slash));
      if (!token) {
        out.status = LookupStatus::kBadPointer;
        return out;
      }
      pointer = ChildPointer(pointer, *token);
      tokens.push_back(std::move(*token));
      if (slash == std::string_view::npos) break;
      rest = rest.substr(slash + 1);
    }
    if (auto n = doc.by_pointer_.find(pointer); n != doc.by_pointer_.end()) {
      out.status = LookupStatus::kFound;
      out.node = n->second;
      out.value = &n->second->raw();
      out.pointer = pointer;
      return out;
    }
    const JsonValue* cur = &resource->raw();
    for (const std::string& t : tokens) {
      const std::string* token = &t;
      if (cur->is_object()) {
        cur = cur->Find(*token);
      } else if (cur->is_array()) {
        size_t index = 0;
        auto [ptr, ec] = std::from_chars(token->data(), token->data() + token->size(), index);
        bool canonical = !token->empty() && (token->size() == 1 || (*token)[0] != '0');
        if (ec != std::errc() || ptr != token->data() + token->size() || !canonical ||
            index >= cur->items().size()) {
          cur = nullptr;
        } else {
          cur = &cur->items()[index];
        }
      } else {
        cur = nullptr;
      }
      if (cur == nullptr) return out;  // missing
    }
    out.status = LookupStatus::kFound;
    out.value = cur;
    out.pointer = pointer;
    out.depth = tokens.size();
    return out;
  }

 private:
  Result<Lookup> Find(const std::string& uri) { return FindIn(doc_, uri); }

  // Edges along which a schema applies to the same instance: `$ref` and the in-place
  // applicators. A cycle of them never consumes input, so it is a loop, not a recursive type.
  static void InPlaceEdges(const SchemaNode& n, std::vector<const SchemaNode*>& out) {
    out.clear();
    const SchemaKeywords& k = n.keywords();
    if (n.ref_target()) out.push_back(n.ref_target());
    for (const auto* list : {&k.all_of, &k.any_of, &k.one_of}) {
      if (*list) out.insert(out.end(), (*list)->begin(), (*list)->end());
    }
    for (const SchemaNode* s : {k.not_schema, k.if_schema, k.then_schema, k.else_schema}) {
      if (s) out.push_back(s);
    }
    if (k.dependent_schemas) {
      for (const NamedSchema& s : *k.dependent_schemas) out.push_back(s.schema);
    }
    if (k.dependencies) {
      for (const Dependency& d : *k.dependencies) {
        if (d.schema) out.push_back(d.schema);
      }
    }
  }

  // Iterative depth-first search: a chain of 100k `$ref`s must not exhaust the stack.
  Status CheckRefLoops() {
    const size_t n = doc_.nodes_.size();
    std::vector<uint8_t> color(n, 0);  // 0 unvisited, 1 on the stack, 2 done
    struct Frame {
      const SchemaNode* node;
      std::vector<const SchemaNode*> edges;
      size_t next;
    };
    std::vector<Frame> stack;
    for (size_t start = 0; start < n; ++start) {
      if (color[start] != 0) continue;
      stack.push_back(Frame{doc_.nodes_[start].get(), {}, 0});
      InPlaceEdges(*stack.back().node, stack.back().edges);
      color[start] = 1;
      while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.next == top.edges.size()) {
          color[top.node->index()] = 2;
          stack.pop_back();
          continue;
        }
        const SchemaNode* next = top.edges[top.next++];
        if (color[next->index()] == 2) continue;
        if (color[next->index()] == 1) {
          std::string cycle;
          bool in = false;
          for (const Frame& f : stack) {
            if (f.node == next) in = true;
            if (in) cycle += f.node->pointer() + " -> ";
          }
          cycle += next->pointer();
          return Invalid(next->raw(), next->pointer(),
                         fmt::format("$ref loop: {} applies to the same value forever", cycle));
        }
        color[next->index()] = 1;
        stack.push_back(Frame{next, {}, 0});
        InPlaceEdges(*next, stack.back().edges);
      }
    }
    return Ok();
  }

  std::string_view text_;
  ParseOptions options_;
  JsonSchemaDocument doc_;
};

const SchemaNode* JsonSchemaDocument::FindByPointer(std::string_view pointer) const {
  auto it = by_pointer_.find(pointer);
  return it == by_pointer_.end() ? nullptr : it->second;
}

Result<const SchemaNode*> JsonSchemaDocument::ResolveRef(const SchemaNode& node) const {
  if (!node.keywords().ref) {
    return InvalidArgument(fmt::format("{}: the schema has no $ref", node.pointer()));
  }
  if (node.ref_target() == nullptr) {
    return Unimplemented(fmt::format(
        "{}/$ref: \"{}\" is an external reference (resolved to \"{}\"); only references into "
        "this document are followed",
        node.pointer(), EscapeForMessage(*node.keywords().ref), EscapeForMessage(node.ref_uri())));
  }
  return node.ref_target();
}

Result<const SchemaNode*> JsonSchemaDocument::ResolveRef(std::string_view ref,
                                                         const SchemaNode& from) const {
  std::string uri = ResolveUri(from.base_uri(), ref);
  SLUICE_ASSIGN_OR_RETURN(auto found, DocumentBuilder::FindIn(*this, uri));
  using Status = decltype(found.status);
  if (found.status == Status::kExternal) {
    return Unimplemented(fmt::format(
        "\"{}\" is an external reference (resolved to \"{}\"); only references into this "
        "document are followed",
        EscapeForMessage(ref), EscapeForMessage(uri)));
  }
  if (found.status == Status::kBadPointer) {
    return InvalidArgument(
        fmt::format("\"{}\" is not a valid JSON pointer fragment", EscapeForMessage(ref)));
  }
  if (found.status == Status::kMissing || found.node == nullptr) {
    return NotFound(
        fmt::format("\"{}\" does not point at a schema of this document", EscapeForMessage(ref)));
  }
  return found.node;
}

Result<JsonSchemaDocument> Parse(std::string_view text, const ParseOptions& options) {
  return DocumentBuilder(text, options).Build();
}

}  // namespace sluice::dialects::jsonschema
