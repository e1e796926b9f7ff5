#include <fmt/format.h>
#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "sluice/base/strings.h"
#include "sluice/dialects/contract/yaml_internal.h"

namespace sluice::dialects::contract::internal {
namespace {

Unexpected<Error> YamlError(std::string_view text, size_t offset, std::string_view message) {
  return ParseError(fmt::format("{}: {}", DescribeOffset(text, offset), message));
}

// YAML's character set: no C0 controls but tab, LF and CR, and no DEL. yaml-cpp accepts some of
// them and silently stops at NUL, which would hide the rest of a file.
Status CheckCharacters(std::string_view text) {
  size_t bad = FindInvalidUtf8(text);
  if (bad != std::string_view::npos) return YamlError(text, bad, "invalid UTF-8");
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      return YamlError(text, i,
                       fmt::format("control character 0x{:02x} is not allowed in YAML", c));
    }
  }
  return Ok();
}

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsBreak(char c) { return c == '\n' || c == '\r'; }
bool IsBlankOrEnd(std::string_view t, size_t i) {
  return i >= t.size() || IsBlank(t[i]) || IsBreak(t[i]);
}

// A linear scan that estimates how deep collections nest, so a hostile document is refused in
// microseconds with a clear message instead of after yaml-cpp has tokenised all of it. It is an
// estimate (block scalars and odd plain scalars are read approximately); the hard guarantee
// against stack exhaustion is yaml-cpp's own DepthGuard, and ParseYaml checks the depth of the
// tree it builds.
class NestingScanner {
 public:
  NestingScanner(std::string_view text, int max_depth) : t_(text), max_depth_(max_depth) {}

  Status Run() {
    while (i_ < t_.size()) SLUICE_TRY(Line());
    return Ok();
  }

 private:
  Status TooDeep(size_t at) {
    return YamlError(t_, at, fmt::format("collections nest deeper than {} levels", max_depth_));
  }

  void SkipToLineEnd() {
    while (i_ < t_.size() && !IsBreak(t_[i_])) ++i_;
  }
  void SkipBreak() {
    if (i_ < t_.size() && t_[i_] == '\r') ++i_;
    if (i_ < t_.size() && t_[i_] == '\n') ++i_;
  }
  void SkipBlanks() {
    while (i_ < t_.size() && IsBlank(t_[i_])) ++i_;
  }

  // Skip a quoted scalar starting at i_ (which holds the quote); it may span lines.
  void SkipQuoted() {
    char q = t_[i_++];
    while (i_ < t_.size()) {
      char c = t_[i_];
      if (q == '"' && c == '\\') {
        i_ += 2;
        continue;
      }
      if (c == q) {
        if (q == '\'' && i_ + 1 < t_.size() && t_[i_ + 1] == '\'') {
          i_ += 2;
          continue;
        }
        ++i_;
        return;
      }
      ++i_;
    }
  }

  // Inside `[` / `{`: brackets always count, quotes start scalars where a node may start.
  Status Flow(int block_depth) {
    bool expect_node = true;
    while (i_ < t_.size() && flow_ > 0) {
      char c = t_[i_];
      if (c == '[' || c == '{') {
        ++flow_;
        if (block_depth + flow_ > max_depth_) return TooDeep(i_);
        ++i_;
        expect_node = true;
      } else if (c == ']' || c == '}') {
        --flow_;
        ++i_;
        expect_node = false;
      } else if (c == ',') {
        ++i_;
        expect_node = true;
      } else if (IsBlank(c) || IsBreak(c)) {
        ++i_;
        if (i_ < t_.size() && t_[i_] == '#') SkipToLineEnd();
      } else if ((c == '"' || c == '\'') && expect_node) {
        SkipQuoted();
        expect_node = false;
      } else if (c == ':' || c == '?') {
        ++i_;
        expect_node = true;
      } else {
        ++i_;
        expect_node = false;
      }
    }
    return Ok();
  }

  // One block-context line, and any flow collection or quoted scalar that starts on it.
  Status Line() {
    size_t start = i_;
    while (i_ < t_.size() && t_[i_] == ' ') ++i_;
    int indent = static_cast<int>(i_ - start);
    if (i_ >= t_.size()) return Ok();
    if (IsBreak(t_[i_]) || t_[i_] == '#' || t_[i_] == '\t' || t_[i_] == '%') {
      SkipToLineEnd();
      SkipBreak();
      return Ok();
    }
    if ((t_.substr(i_, 3) == "---" || t_.substr(i_, 3) == "...") && IsBlankOrEnd(t_, i_ + 3)) {
      indents_.clear();
      i_ += 3;
    }
    while (!indents_.empty() && indents_.back() > indent) indents_.pop_back();
    if (indents_.empty() || indents_.back() < indent) indents_.push_back(indent);
    int depth = static_cast<int>(indents_.size());
    int owner_column = indent;
    // Compact nesting: `- - - x`, `? ? x`.
    SkipBlanks();
    while (i_ < t_.size() && (t_[i_] == '-' || t_[i_] == '?' || t_[i_] == ':') &&
           IsBlankOrEnd(t_, i_ + 1)) {
      owner_column = static_cast<int>(i_ - start);
      ++depth;
      if (depth > max_depth_) return TooDeep(i_);
      ++i_;
      SkipBlanks();
    }
    bool expect_node = true;
    bool first_token = true;
    while (i_ < t_.size() && !IsBreak(t_[i_])) {
      char c = t_[i_];
      if (IsBlank(c)) {
        ++i_;
        if (i_ < t_.size() && t_[i_] == '#') SkipToLineEnd();
        continue;
      }
      if (expect_node && (c == '&' || c == '!')) {
        while (i_ < t_.size() && !IsBlankOrEnd(t_, i_)) ++i_;
        continue;
      }
      if (expect_node && (c == '"' || c == '\'')) {
        SkipQuoted();
        expect_node = false;
        first_token = false;
        continue;
      }
      if (expect_node && (c == '[' || c == '{')) {
        flow_ = 1;
        if (depth + 1 > max_depth_) return TooDeep(i_);
        ++i_;
        SLUICE_TRY(Flow(depth));
        expect_node = false;
        first_token = false;
        continue;
      }
      if (expect_node && (c == '|' || c == '>')) {
        SkipToLineEnd();
        SkipBreak();
        SkipBlockScalar(owner_column);
        return Ok();
      }
      if (c == ':' && IsBlankOrEnd(t_, i_ + 1)) {
        ++i_;
        expect_node = true;
        continue;
      }
      if (expect_node && first_token) owner_column = static_cast<int>(i_ - start);
      expect_node = false;
      first_token = false;
      ++i_;
    }
    SkipBreak();
    return Ok();
  }

  // Block scalar content: blank lines and lines indented deeper than the node that owns it.
  void SkipBlockScalar(int owner_column) {
    while (i_ < t_.size()) {
      size_t j = i_;
      while (j < t_.size() && t_[j] == ' ') ++j;
      bool blank = j >= t_.size() || IsBreak(t_[j]);
      if (!blank && static_cast<int>(j - i_) <= owner_column) return;
      i_ = j;
      SkipToLineEnd();
      SkipBreak();
    }
  }

  std::string_view t_;
  int max_depth_;
  size_t i_ = 0;
  int flow_ = 0;
  std::vector<int> indents_;
};

// Thrown from inside yaml-cpp's event callbacks to stop a parse; never leaves ParseYaml.
struct AbortParse {
  Error error;
};

// Builds the YamlNode tree from yaml-cpp's parse events. Working from events rather than
// YAML::Node lets it refuse alias expansion beyond the budgets before copying, reject
// self-referencing aliases, duplicate and non-scalar keys, and stop at the first problem.
class TreeBuilder : public YAML::EventHandler {
 public:
  TreeBuilder(std::string_view text, const YamlLimits& limits) : text_(text), limits_(limits) {
    max_nodes_ = std::max(limits.min_nodes, limits.nodes_per_byte * text.size());
    max_bytes_ = std::max(limits.min_scalar_bytes, 8 * text.size());
  }

  bool has_root() const { return has_root_; }
  YamlNode TakeRoot() { return std::move(root_); }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    YamlNode n = Leaf(mark, YamlNode::Kind::kNull);
    Charge(1, 0, n);
    Complete(std::move(n), anchor, 1, 0);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    YamlNode at = Leaf(mark, YamlNode::Kind::kNull);
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      Abort(at, "an alias refers to a node that contains it");
    }
    const Anchored& a = it->second;
    Charge(a.nodes, a.bytes, at);
    YamlNode copy = a.node;
    Complete(std::move(copy), YAML::NullAnchor, a.nodes, a.bytes);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    YamlNode n = Leaf(mark, YamlNode::Kind::kScalar);
    Charge(1, value.size(), n);
    n.quoted = tag == "!" || tag == "tag:yaml.org,2002:str";
    n.text = value;
    Complete(std::move(n), anchor, 1, value.size());
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, YamlNode::Kind::kSequence, anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, YamlNode::Kind::kMap, anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Frame {
    YamlNode node;
    YAML::anchor_t anchor = YAML::NullAnchor;
    size_t nodes_before = 0;
    size_t bytes_before = 0;
    bool has_key = false;
    std::string key;
    std::unordered_set<std::string> keys;  // filled once the map is wide (IsRepeatedKey)
  };
  struct Anchored {
    YamlNode node;
    size_t nodes = 0;
    size_t bytes = 0;
  };

  [[noreturn]] void Abort(const YamlNode& at, std::string_view message) {
    throw AbortParse{
        Error(ErrorCode::kParseError, fmt::format("{}: {}", DescribeNode(at), message))};
  }

  YamlNode Leaf(const YAML::Mark& mark, YamlNode::Kind kind) const {
    YamlNode n;
    n.kind = kind;
    if (!mark.is_null() && mark.pos >= 0) {
      n.offset = std::min(static_cast<size_t>(mark.pos), text_.size());
      n.line = mark.line + 1;
      n.column = mark.column + 1;
    }
    return n;
  }

  void Charge(size_t nodes, size_t bytes, const YamlNode& at) {
    if (nodes > max_nodes_ - nodes_) {
      Abort(at, fmt::format("aliases expand the document beyond {} nodes", max_nodes_));
    }
    if (bytes > max_bytes_ - bytes_) {
      Abort(at, fmt::format("aliases expand the document's scalars beyond {} bytes", max_bytes_));
    }
    nodes_ += nodes;
    bytes_ += bytes;
  }

  void Open(const YAML::Mark& mark, YamlNode::Kind kind, YAML::anchor_t anchor) {
    Frame f;
    f.node = Leaf(mark, kind);
    if (static_cast<int>(stack_.size()) >= limits_.max_depth) {
      Abort(f.node, fmt::format("collections nest deeper than {} levels", limits_.max_depth));
    }
    Charge(1, 0, f.node);
    f.anchor = anchor;
    f.nodes_before = nodes_ - 1;
    f.bytes_before = bytes_;
    stack_.push_back(std::move(f));
  }

  void Close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (f.has_key) Abort(f.node, "a mapping key has no value");
    Complete(std::move(f.node), f.anchor, nodes_ - f.nodes_before, bytes_ - f.bytes_before);
  }

  // Whether `key` is already a key of the map being built: a scan of its members while the map
  // is small (most are), a set of the keys once it is wide, so wide maps stay linear.
  static bool IsRepeatedKey(Frame& map, const std::string& key) {
    const std::vector<YamlMember>& members = map.node.members;
    if (members.size() < kKeyScanLimit) {
      for (const YamlMember& m : members) {
        if (m.key == key) return true;
      }
      return false;
    }
    if (map.keys.empty()) {
      for (const YamlMember& m : members) map.keys.insert(m.key);
    }
    return map.keys.contains(key);
  }

  // A finished node: remember it for aliases, then attach it to its parent.
  void Complete(YamlNode n, YAML::anchor_t anchor, size_t nodes, size_t bytes) {
    if (anchor != YAML::NullAnchor) {
      // The copy kept for aliases counts against the budget like any other.
      Charge(nodes, bytes, n);
      anchors_[anchor] = Anchored{n, nodes, bytes};
    }
    if (stack_.empty()) {
      root_ = std::move(n);
      has_root_ = true;
      return;
    }
    Frame& top = stack_.back();
    if (top.node.kind == YamlNode::Kind::kSequence) {
      top.node.items.push_back(std::move(n));
      return;
    }
    if (!top.has_key) {
      if (!n.is_scalar()) Abort(n, "mapping keys must be scalars");
      if (IsRepeatedKey(top, n.text)) {
        Abort(n, fmt::format("duplicate key \"{}\"", EscapeForMessage(n.text)));
      }
      top.key = std::move(n.text);
      top.has_key = true;
      return;
    }
    top.node.members.push_back(YamlMember{std::move(top.key), std::move(n)});
    if (!top.keys.empty()) top.keys.insert(top.node.members.back().key);
    top.has_key = false;
  }

  static constexpr size_t kKeyScanLimit = 16;

  std::string_view text_;
  YamlLimits limits_;
  size_t max_nodes_ = 0;
  size_t max_bytes_ = 0;
  size_t nodes_ = 0;
  size_t bytes_ = 0;
  std::vector<Frame> stack_;
  std::unordered_map<YAML::anchor_t, Anchored> anchors_;
  YamlNode root_;
  bool has_root_ = false;
};

// Stops at the start of a second document, if there is one.
struct SecondDocument {
  YAML::Mark mark;
};
class DocumentProbe : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { throw SecondDocument{mark}; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// A JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool IsJsonNumber(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  if (i >= s.size()) return false;
  if (s[i] == '0') {
    ++i;
  } else if (s[i] >= '1' && s[i] <= '9') {
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  } else {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    size_t start = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) return false;
  }
  return i == s.size();
}

// YAML numbers that JSON spells differently: "+1", ".5", "1.", "0x1f", "0o17".
std::optional<std::string> YamlNumberAsJson(std::string_view s) {
  if (IsJsonNumber(s)) return std::string(s);
  std::string t(s);
  if (!t.empty() && t[0] == '+') t.erase(0, 1);
  if (IsJsonNumber(t)) return t;
  std::string_view body = t;
  bool negative = false;
  if (!body.empty() && body[0] == '-') {
    negative = true;
    body.remove_prefix(1);
  }
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o')) {
    int base = body[1] == 'x' ? 16 : 8;
    std::string digits(body.substr(2));
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(digits.c_str(), &end, base);
    if (errno != 0 || end != digits.c_str() + digits.size() || digits.empty()) return std::nullopt;
    if (negative && v > 9223372036854775808ull) return std::nullopt;
    return (negative && v != 0 ? "-" : "") + std::to_string(v);
  }
  // ".5" and "1." and "1.e3"
  std::string fixed(negative ? "-" : "");
  size_t dot = body.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view int_part = body.substr(0, dot);
  std::string_view rest = body.substr(dot + 1);
  size_t e = rest.find_first_of("eE");
  std::string_view frac = rest.substr(0, e);
  std::string_view exp = e == std::string_view::npos ? std::string_view() : rest.substr(e);
  if (int_part.empty() && frac.empty()) return std::nullopt;
  fixed += int_part.empty() ? "0" : std::string(int_part);
  fixed += ".";
  fixed += frac.empty() ? "0" : std::string(frac);
  fixed += exp;
  if (IsJsonNumber(fixed)) return fixed;
  return std::nullopt;
}

bool HasSpecialUnicode(std::string_view s);

bool NeedsQuotes(std::string_view s, bool flow) {
  if (s.empty()) return true;
  if (IsBlank(s.front()) || IsBlank(s.back())) return true;
  static constexpr std::string_view kIndicators = "-?:,[]{}#&*!|>'\"%@`";
  if (kIndicators.find(s.front()) != std::string_view::npos) return true;
  if (s.back() == ':') return true;
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return true;
    if (c == ':' && i + 1 < s.size() && IsBlank(s[i + 1])) return true;
    if (c == '#' && i > 0 && IsBlank(s[i - 1])) return true;
    if (flow && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}')) return true;
    if (flow && c == ':') return true;
  }
  if (!IsValidUtf8(s) || HasSpecialUnicode(s)) return true;
  bool ignored;
  if (IsYamlNullText(s) || ParseYamlBool(s, &ignored)) return true;
  // YAML 1.1 readers also take y/n as booleans.
  if (s == "y" || s == "Y" || s == "n" || s == "N") return true;
  if (YamlNumberAsJson(s).has_value()) return true;
  std::string lower = AsciiLower(s);
  if (lower == ".inf" || lower == "-.inf" || lower == "+.inf" || lower == ".nan") return true;
  // Numbers with digit separators and sexagesimal forms (YAML 1.1): quote anything number-like.
  if ((s[0] >= '0' && s[0] <= '9') || s[0] == '.' || s[0] == '+') {
    bool numeric = true;
    for (char c : s) {
      if (!((c >= '0' && c <= '9') || c == '_' || c == ':' || c == '.' || c == 'e' || c == 'E' ||
            c == '+' || c == '-')) {
        numeric = false;
        break;
      }
    }
    // "1.2.0" has two dots: no YAML resolver reads it as a number.
    if (numeric && std::count(s.begin(), s.end(), '.') <= 1) return true;
  }
  return false;
}

// Characters some YAML readers take as line breaks or markers even inside quotes: NEL, LINE and
// PARAGRAPH SEPARATOR, BOM. They and the C1 controls are written as escapes.
bool IsSpecialUnicode(std::string_view s, size_t i, uint32_t* cp) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  if (b(i) == 0xC2 && i + 1 < s.size() && b(i + 1) >= 0x80 && b(i + 1) <= 0x9F) {
    *cp = b(i + 1);
    return true;
  }
  if (b(i) == 0xE2 && i + 2 < s.size() && b(i + 1) == 0x80 &&
      (b(i + 2) == 0xA8 || b(i + 2) == 0xA9)) {
    *cp = 0x2000 + (b(i + 2) - 0x80u);
    return true;
  }
  if (b(i) == 0xEF && i + 2 < s.size() && b(i + 1) == 0xBB && b(i + 2) == 0xBF) {
    *cp = 0xFEFF;
    return true;
  }
  return false;
}

bool HasSpecialUnicode(std::string_view s) {
  uint32_t cp = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (IsSpecialUnicode(s, i, &cp)) return true;
  }
  return false;
}

// A YAML double-quoted scalar; YAML's escapes are a superset of JSON's.
std::string QuotedScalar(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    uint32_t cp = 0;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else if (c >= 0x80 && IsSpecialUnicode(s, i, &cp)) {
      out += fmt::format("\\u{:04x}", cp);
      i += cp <= 0xFF ? 1 : 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

std::string FlowScalar(std::string_view s) {
  return NeedsQuotes(s, /*flow=*/true) ? QuotedScalar(s) : std::string(s);
}

void AppendFlow(std::string& out, const JsonValue& v) {
  switch (v.kind()) {
    case JsonValue::Kind::kNull:
      out += "null";
      return;
    case JsonValue::Kind::kBool:
      out += v.as_bool() ? "true" : "false";
      return;
    case JsonValue::Kind::kNumber:
      out += v.number_text();
      return;
    case JsonValue::Kind::kString:
      out += FlowScalar(v.as_string());
      return;
    case JsonValue::Kind::kArray: {
      out += '[';
      bool first = true;
      for (const JsonValue& item : v.items()) {
        if (!first) out += ", ";
        first = false;
        AppendFlow(out, item);
      }
      out += ']';
      return;
    }
    case JsonValue::Kind::kObject: {
      out += '{';
      bool first = true;
      for (const JsonMember& m : v.members()) {
        if (!first) out += ", ";
        first = false;
        out += FlowScalar(m.key);
        out += ": ";
        AppendFlow(out, m.value);
      }
      out += '}';
      return;
    }
  }
}

}  // namespace

const YamlNode* YamlNode::Find(std::string_view key) const {
  for (const auto& [name, value] : members) {
    if (name == key) return &value;
  }
  return nullptr;
}

std::string_view YamlKindName(YamlNode::Kind kind) {
  switch (kind) {
    case YamlNode::Kind::kNull:
      return "null";
    case YamlNode::Kind::kScalar:
      return "a scalar";
    case YamlNode::Kind::kSequence:
      return "a list";
    case YamlNode::Kind::kMap:
      return "a mapping";
  }
  return "?";
}

std::string DescribeNode(const YamlNode& node) {
  if (node.line == 0) return "line ?, column ?";
  return fmt::format("line {}, column {}", node.line, node.column);
}

Result<YamlNode> ParseYaml(std::string_view text, const YamlLimits& limits) {
  SLUICE_TRY(CheckCharacters(text));
  SLUICE_TRY(NestingScanner(text, limits.max_depth).Run());
  YamlNode root;
  root.line = 1;
  root.column = 1;
  try {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    TreeBuilder builder(text, limits);
    if (!parser.HandleNextDocument(builder)) return root;
    if (builder.has_root()) root = builder.TakeRoot();
    // Only one more step: yaml-cpp 0.7 reports an endless run of empty documents for a stray
    // ',' ']' or '}' at block level (LoadAll never returns), so anything after the first
    // document is refused here, whatever it is.
    DocumentProbe probe;
    try {
      parser.HandleNextDocument(probe);
    } catch (const SecondDocument& second) {
      return ParseError(fmt::format(
          "line {}, column {}: expected one YAML document; found more content (another document, "
          "or a stray ',', ']' or '}}')",
          second.mark.line + 1, second.mark.column + 1));
    }
  } catch (const AbortParse& abort) {
    return Fail(abort.error);
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) return ParseError(fmt::format("YAML: {}", e.msg));
    return ParseError(
        fmt::format("line {}, column {}: {}", e.mark.line + 1, e.mark.column + 1, e.msg));
  } catch (const std::exception& e) {
    return ParseError(fmt::format("YAML: {}", e.what()));
  } catch (...) {
    return ParseError("YAML: unknown error");
  }
  return root;
}

bool ParseYamlBool(std::string_view text, bool* value) {
  static constexpr std::string_view kTrue[] = {"true", "True", "TRUE", "yes", "Yes",
                                               "YES",  "on",   "On",   "ON"};
  static constexpr std::string_view kFalse[] = {"false", "False", "FALSE", "no", "No",
                                                "NO",    "off",   "Off",   "OFF"};
  for (std::string_view t : kTrue) {
    if (text == t) {
      *value = true;
      return true;
    }
  }
  for (std::string_view f : kFalse) {
    if (text == f) {
      *value = false;
      return true;
    }
  }
  return false;
}

bool IsYamlNullText(std::string_view text) {
  return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
}

JsonValue YamlToJson(const YamlNode& node) {
  JsonValue out;
  switch (node.kind) {
    case YamlNode::Kind::kNull:
      break;
    case YamlNode::Kind::kScalar: {
      bool b = false;
      if (node.quoted) {
        out = JsonValue::String(node.text);
      } else if (IsYamlNullText(node.text)) {
        out = JsonValue::Null();
      } else if (ParseYamlBool(node.text, &b)) {
        out = JsonValue::Bool(b);
      } else if (auto number = YamlNumberAsJson(node.text)) {
        out = JsonValue::NumberText(*number);
      } else {
        out = JsonValue::String(node.text);
      }
      break;
    }
    case YamlNode::Kind::kSequence: {
      out = JsonValue::Array();
      for (const YamlNode& item : node.items) out.Append(YamlToJson(item));
      break;
    }
    case YamlNode::Kind::kMap: {
      out = JsonValue::Object();
      for (const auto& [key, value] : node.members) {
        out.mutable_members().push_back(JsonMember{key, YamlToJson(value)});
      }
      break;
    }
  }
  out.set_offset(node.offset);
  return out;
}

std::string YamlScalar(std::string_view s) {
  return NeedsQuotes(s, /*flow=*/false) ? QuotedScalar(s) : std::string(s);
}

std::string JsonToYamlFlow(const JsonValue& value) {
  std::string out;
  AppendFlow(out, value);
  return out;
}

}  // namespace sluice::dialects::contract::internal
