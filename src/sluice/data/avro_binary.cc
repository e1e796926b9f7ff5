#include "sluice/data/avro_binary.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/data/name_index_internal.h"
#include "sluice/dialects/avro/avro_compatibility.h"

namespace sluice::data {

using dialects::avro::AvroField;
using dialects::avro::AvroNode;
using dialects::avro::AvroSchema;
using dialects::avro::AvroType;

namespace {

// ---- shared helpers ----

std::string UnionDescription(const AvroNode& u) {
  std::vector<std::string> names;
  for (const AvroNode* b : u.branches()) names.push_back(AvroBranchName(*b));
  return "union [" + JoinStrings(names, ", ") + "]";
}

// What a JSON value is, for "expected X, got Y".
std::string DescribeJson(const JsonValue& v) {
  switch (v.kind()) {
    case JsonValue::Kind::kNull:
      return "null";
    case JsonValue::Kind::kBool:
      return v.as_bool() ? "true" : "false";
    case JsonValue::Kind::kNumber:
      return "number " + EscapeForMessage(v.number_text(), 40);
    case JsonValue::Kind::kString:
      return "string \"" + EscapeForMessage(v.as_string(), 40) + "\"";
    case JsonValue::Kind::kArray:
      return "array";
    case JsonValue::Kind::kObject:
      return "object";
  }
  return "value";
}

bool IsSpecialFloatWord(const JsonValue& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.as_string();
  return s == "NaN" || s == "Infinity" || s == "-Infinity";
}

double SpecialFloatValue(const std::string& s) {
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  return s == "Infinity" ? std::numeric_limits<double>::infinity()
                         : -std::numeric_limits<double>::infinity();
}

// A JSON string whose code points are all <= U+00FF, as the bytes they stand for. The string is
// UTF-8, so such code points are one byte (ASCII) or a 0xC2/0xC3 lead and one continuation.
std::optional<std::string> Latin1Bytes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    if ((c != 0xC2 && c != 0xC3) || i + 1 >= s.size()) return std::nullopt;
    const auto next = static_cast<unsigned char>(s[i + 1]);
    if ((next & 0xC0) != 0x80) return std::nullopt;
    out.push_back(static_cast<char>(((c & 0x1F) << 6) | (next & 0x3F)));
    ++i;
  }
  return out;
}

// Bytes as the JSON string of code points U+0000..U+00FF that stands for them.
std::string Latin1Text(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x80) {
      out.push_back(ch);
    } else {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

// Bytes read as a string: each byte that is not part of valid UTF-8 becomes U+FFFD, as Java's
// UTF-8 decoder does for the bytes-to-string promotion. (A string the writer wrote as a string
// must be valid UTF-8; there an invalid byte is an error.)
std::string ReplaceInvalidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    const size_t bad = FindInvalidUtf8(s);
    if (bad == std::string_view::npos) {
      out += s;
      break;
    }
    out += s.substr(0, bad);
    out += "\xEF\xBF\xBD";
    s.remove_prefix(bad + 1);
  }
  return out;
}

// Floats print as the shortest text that reads back as the same float ("0.1", not the double
// 0.10000000149011612), with ".0" on integral values as Java prints them; what JSON cannot hold
// is the string Jackson writes.
JsonValue FloatJson(float f) {
  if (std::isnan(f)) return JsonValue::String("NaN");
  if (std::isinf(f)) return JsonValue::String(f > 0 ? "Infinity" : "-Infinity");
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, f);
  std::string text(buf, r.ptr);
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return JsonValue::NumberText(std::move(text));
}

JsonValue DoubleJson(double d) {
  if (std::isnan(d)) return JsonValue::String("NaN");
  if (std::isinf(d)) return JsonValue::String(d > 0 ? "Infinity" : "-Infinity");
  return JsonValue::Double(d);
}

void AppendVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void AppendLong(std::string& out, int64_t v) {
  AppendVarint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

void AppendLittleEndian(std::string& out, uint64_t bits, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
}

void AppendFloat(std::string& out, float f) {
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  AppendLittleEndian(out, bits, 4);
}

void AppendDouble(std::string& out, double d) {
  uint64_t bits = 0;
  std::memcpy(&bits, &d, sizeof bits);
  AppendLittleEndian(out, bits, 8);
}

// A failure inside a datum: the message, and the path segments collected innermost first while
// the recursion unwinds (nothing is spent on paths while all goes well).
struct Failure {
  std::string message;
  std::vector<std::string> path;  // innermost first: ".qty", "[2]", ".items"
  size_t offset = 0;              // decoding only

  std::string Path() const {
    std::string p;
    for (auto it = path.rbegin(); it != path.rend(); ++it) p += *it;
    if (!p.empty() && p[0] == '.') p.erase(0, 1);
    return p;
  }
};

std::string FieldSegment(const std::string& name) { return "." + name; }
std::string IndexSegment(uint64_t i) { return "[" + std::to_string(i) + "]"; }
std::string KeySegment(std::string_view key) {
  std::string s = "[";
  AppendJsonString(s, key.size() > 80 ? std::string(key.substr(0, 80)) + "..." : key);
  return s + "]";
}

// The first position of a name in a list: found by a scan for a list's first few lookups, and
// through an index built after them, so that a datum that looks a name up once pays nothing
// more, and one that looks up thousands (an array of enum symbols, the members of a wide
// record) pays O(1) each.
class FirstIndex {
 public:
  /// `name_at(i)` is the i-th of `count` names.
  template <typename NameAt>
  std::optional<size_t> Find(size_t count, NameAt&& name_at, std::string_view name) {
    if (!built_ && ++lookups_ <= kScanLookups) {
      for (size_t i = 0; i < count; ++i) {
        if (name_at(i) == name) return i;
      }
      return std::nullopt;
    }
    if (!built_) {
      for (size_t i = 0; i < count; ++i) index_.emplace(std::string(name_at(i)), i);
      built_ = true;
    }
    auto it = index_.find(name);
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }

 private:
  static constexpr size_t kScanLookups = 16;
  size_t lookups_ = 0;
  bool built_ = false;
  internal::StringMap<size_t> index_;  // emplace keeps the first of a name
};

// ---- encoding ----

// A union value that more than one branch may take is tried in each (EncodeUnion), by encoders
// that only check. The outcome for a (union, value, depth) is kept, so that a value met again by
// the trials of an enclosing union is not tried again, and a trial stops at a union whose
// outcome is known: without that, unions nested in unions whose branches all reach them take
// time exponential in the nesting; with it, each union value is tried once and encoded once.
struct UnionOutcome {
  bool ok = false;
  size_t branch = 0;  // ok: the one branch that takes the value
  Failure failure;    // else: the failure, as EncodeUnion returns it
};

// A union's branch for the name that tags a wrapped value (see BranchNamed), by a scan for the
// union's first lookups and through an index after them.
class BranchLookup {
 public:
  std::optional<size_t> Find(const AvroNode& node, const std::string& key) {
    const std::vector<const AvroNode*>& branches = node.branches();
    if (!built_ && ++lookups_ <= kScanLookups) {
      for (size_t i = 0; i < branches.size(); ++i) {
        if (AvroBranchName(*branches[i]) == key) return i;
      }
      std::optional<size_t> found;
      for (size_t i = 0; i < branches.size(); ++i) {
        if (branches[i]->is_named() && branches[i]->name() == key) {
          if (found) return std::nullopt;
          found = i;
        }
      }
      return found;
    }
    if (!built_) {
      for (size_t i = 0; i < branches.size(); ++i) {
        tags_.emplace(AvroBranchName(*branches[i]), i);
        if (branches[i]->is_named()) {
          auto [it, inserted] = short_names_.emplace(branches[i]->name(), i);
          if (!inserted) it->second = kAmbiguous;
        }
      }
      built_ = true;
    }
    if (auto it = tags_.find(key); it != tags_.end()) return it->second;
    if (auto it = short_names_.find(key); it != short_names_.end() && it->second != kAmbiguous) {
      return it->second;
    }
    return std::nullopt;
  }

 private:
  static constexpr size_t kScanLookups = 16;
  static constexpr size_t kAmbiguous = static_cast<size_t>(-1);
  size_t lookups_ = 0;
  bool built_ = false;
  internal::StringMap<size_t> tags_;         // the first branch of each tag
  internal::StringMap<size_t> short_names_;  // a named branch's short name, or kAmbiguous
};

// What the encoders of one datum share: its union outcomes and name lookups.
struct EncodeMemo {
  // By the union's and the value's addresses, and the depth.
  std::map<std::tuple<uintptr_t, uintptr_t, size_t>, UnionOutcome> unions;
  std::unordered_map<const AvroNode*, FirstIndex> symbols;  // of enums
  std::unordered_map<const AvroNode*, BranchLookup> branches;
};

class Encoder {
 public:
  Encoder(std::string& out, size_t max_depth) : Encoder(out, max_depth, &own_memo_, false) {}

  // Encode `v` as `node`. `as_default` reads `v` as a schema default: a union's value is its
  // first branch's, unwrapped. As in the decoder, the recursive path keeps small frames: scalars
  // and messages are encoded and written in functions of their own.
  bool Encode(const AvroNode& node, const JsonValue& v, size_t depth, bool as_default) {
    switch (node.type()) {
      case AvroType::kRecord:
        if (depth >= max_depth_) return TooDeep();
        return EncodeRecord(node, v, depth, as_default);
      case AvroType::kArray:
        if (depth >= max_depth_) return TooDeep();
        return EncodeArray(node, v, depth, as_default);
      case AvroType::kMap:
        if (depth >= max_depth_) return TooDeep();
        return EncodeMap(node, v, depth, as_default);
      case AvroType::kUnion:
        if (depth >= max_depth_) return TooDeep();
        return EncodeUnion(node, v, depth, as_default);
      case AvroType::kNull:
      case AvroType::kBoolean:
      case AvroType::kInt:
      case AvroType::kLong:
      case AvroType::kFloat:
      case AvroType::kDouble:
      case AvroType::kBytes:
      case AvroType::kString:
      case AvroType::kEnum:
      case AvroType::kFixed:
        return EncodeScalar(node, v);
    }
    return Fail("unknown Avro type");
  }

  Failure& failure() { return failure_; }

 private:
  [[gnu::noinline]] bool EncodeScalar(const AvroNode& node, const JsonValue& v) {
    switch (node.type()) {
      case AvroType::kNull:
        if (!v.is_null()) return Expected(node, v);
        return true;
      case AvroType::kBoolean:
        if (!v.is_bool()) return Expected(node, v);
        out_.push_back(v.as_bool() ? 1 : 0);
        return true;
      case AvroType::kInt:
      case AvroType::kLong: {
        if (!v.is_number()) return Expected(node, v);
        std::optional<int64_t> i = v.as_int64();
        const bool is_int = node.type() == AvroType::kInt;
        if (i && is_int &&
            (*i < std::numeric_limits<int32_t>::min() ||
             *i > std::numeric_limits<int32_t>::max())) {
          i.reset();
        }
        if (!i) {
          if (!v.is_integer_text()) return Expected(node, v);
          return Fail(fmt::format("{} is out of the range of {}", v.number_text(),
                                  is_int ? "int (32 bits)" : "long (64 bits)"));
        }
        AppendLong(out_, *i);
        return true;
      }
      case AvroType::kFloat:
      case AvroType::kDouble: {
        double d = 0;
        if (v.is_number()) {
          d = v.as_double();
          if (!std::isfinite(d)) {
            return Fail(fmt::format("{} is out of the range of double", v.number_text()));
          }
        } else if (IsSpecialFloatWord(v)) {
          d = SpecialFloatValue(v.as_string());
        } else {
          return Expected(node, v);
        }
        if (node.type() == AvroType::kDouble) {
          AppendDouble(out_, d);
          return true;
        }
        auto f = static_cast<float>(d);
        if (v.is_number()) {
          // Read the text as a float directly: rounding it to a double first could land on a
          // midpoint between two floats and round to the wrong one.
          const std::string& text = v.number_text();
          float direct = 0;
          auto r = std::from_chars(text.data(), text.data() + text.size(), direct);
          if (r.ec == std::errc() && r.ptr == text.data() + text.size()) f = direct;
        }
        if (std::isfinite(d) && !std::isfinite(f)) {
          return Fail(fmt::format("{} is out of the range of float", v.number_text()));
        }
        AppendFloat(out_, f);
        return true;
      }
      case AvroType::kString:
        if (!v.is_string()) return Expected(node, v);
        if (!IsValidUtf8(v.as_string())) return Fail("string is not valid UTF-8");
        AppendLong(out_, static_cast<int64_t>(v.as_string().size()));
        out_ += v.as_string();
        return true;
      case AvroType::kBytes: {
        if (!v.is_string()) return Expected(node, v);
        std::optional<std::string> bytes = Latin1Bytes(v.as_string());
        if (!bytes) return Fail("bytes are a string of code points U+0000..U+00FF, one per byte");
        AppendLong(out_, static_cast<int64_t>(bytes->size()));
        out_ += *bytes;
        return true;
      }
      case AvroType::kFixed: {
        if (!v.is_string()) return Expected(node, v);
        std::optional<std::string> bytes = Latin1Bytes(v.as_string());
        if (!bytes) {
          return Fail("fixed bytes are a string of code points U+0000..U+00FF, one per byte");
        }
        if (static_cast<int64_t>(bytes->size()) != node.size()) {
          return Fail(fmt::format("fixed {} holds {} bytes, got {}", node.full_name(), node.size(),
                                  bytes->size()));
        }
        out_ += *bytes;
        return true;
      }
      case AvroType::kEnum: {
        if (!v.is_string()) return Expected(node, v);
        const std::vector<std::string>& symbols = node.symbols();
        const std::optional<size_t> at = SymbolIndex(node, v.as_string());
        if (!at) {
          std::vector<std::string> shown(symbols.begin(),
                                         symbols.begin() + std::min<size_t>(symbols.size(), 10));
          return Fail(fmt::format("\"{}\" is not a symbol of enum {} [{}{}]",
                                  EscapeForMessage(v.as_string(), 40), node.full_name(),
                                  JoinStrings(shown, ", "), symbols.size() > 10 ? ", ..." : ""));
        }
        AppendLong(out_, static_cast<int64_t>(*at));
        return true;
      }
      case AvroType::kRecord:
      case AvroType::kArray:
      case AvroType::kMap:
      case AvroType::kUnion:
        break;
    }
    return Fail("not a scalar type");
  }

  bool EncodeArray(const AvroNode& node, const JsonValue& v, size_t depth, bool as_default) {
    if (!v.is_array()) return Expected(node, v);
    if (!v.items().empty()) AppendLong(out_, static_cast<int64_t>(v.items().size()));
    for (size_t i = 0; i < v.items().size(); ++i) {
      if (!Encode(node.items(), v.items()[i], depth + 1, as_default)) {
        return Within(IndexSegment(i));
      }
    }
    out_.push_back(0);
    return true;
  }

  bool EncodeMap(const AvroNode& node, const JsonValue& v, size_t depth, bool as_default) {
    if (!v.is_object()) return Expected(node, v);
    if (!v.members().empty()) AppendLong(out_, static_cast<int64_t>(v.members().size()));
    for (const JsonMember& m : v.members()) {
      if (!IsValidUtf8(m.key)) return Fail("map key is not valid UTF-8");
      AppendLong(out_, static_cast<int64_t>(m.key.size()));
      out_ += m.key;
      if (!Encode(node.values(), m.value, depth + 1, as_default)) {
        return Within(KeySegment(m.key));
      }
    }
    out_.push_back(0);
    return true;
  }

  bool Fail(std::string message) {
    failure_.message = std::move(message);
    return false;
  }
  bool Within(std::string segment) {
    failure_.path.push_back(std::move(segment));
    return false;
  }
  [[gnu::noinline]] bool TooDeep() {
    return Fail(fmt::format("nested deeper than {} levels", max_depth_));
  }
  [[gnu::noinline]] bool Expected(const AvroNode& node, const JsonValue& v) {
    return Fail(
        fmt::format("expected {}, got {}", dialects::avro::DescribeNode(node), DescribeJson(v)));
  }

  std::optional<size_t> SymbolIndex(const AvroNode& node, std::string_view symbol) {
    const std::vector<std::string>& symbols = node.symbols();
    return memo_->symbols[&node].Find(
        symbols.size(), [&](size_t i) -> std::string_view { return symbols[i]; }, symbol);
  }

  bool EncodeRecord(const AvroNode& node, const JsonValue& v, size_t depth, bool as_default) {
    if (!v.is_object()) return Expected(node, v);
    const std::vector<JsonMember>& members = v.members();
    const std::vector<AvroField>& fields = node.fields();
    // Small records are scanned; wide ones go through an index of the datum's members.
    constexpr size_t kScan = 16;
    if (members.size() <= kScan && fields.size() <= kScan) {
      for (const JsonMember& m : members) {
        if (node.FindField(m.key) == nullptr) return NotAField(node, m.key);
      }
      for (const AvroField& f : fields) {
        if (!EncodeField(node, f, v.Find(f.name()), depth, as_default)) return false;
      }
      return true;
    }
    // Each key's first member (as Find takes it), and whether a field has that name.
    internal::StringMap<std::pair<const JsonValue*, bool>> by_key;
    for (const JsonMember& m : members) by_key.emplace(m.key, std::make_pair(&m.value, false));
    size_t matched = 0;
    for (const AvroField& f : fields) {
      auto it = by_key.find(f.name());
      if (it != by_key.end() && !it->second.second) {
        it->second.second = true;
        ++matched;
      }
    }
    if (matched < by_key.size()) {
      for (const JsonMember& m : members) {
        if (!by_key.find(m.key)->second.second) return NotAField(node, m.key);
      }
    }
    for (const AvroField& f : fields) {
      auto it = by_key.find(f.name());
      if (!EncodeField(node, f, it == by_key.end() ? nullptr : it->second.first, depth,
                       as_default)) {
        return false;
      }
    }
    return true;
  }

  bool NotAField(const AvroNode& node, const std::string& key) {
    Fail(fmt::format("not a field of record {}", node.full_name()));
    return Within(FieldSegment(key));
  }

  // Field `f` of record `node`, from the datum's member (null when the datum lacks it).
  bool EncodeField(const AvroNode& node, const AvroField& f, const JsonValue* member, size_t depth,
                   bool as_default) {
    bool ok = true;
    if (member != nullptr) {
      ok = Encode(f.type(), *member, depth + 1, as_default);
    } else if (f.default_value()) {
      ok = Encode(f.type(), *f.default_value(), depth + 1, /*as_default=*/true);
    } else {
      Fail(fmt::format("missing, and field {} of record {} has no default", f.name(),
                       node.full_name()));
      ok = false;
    }
    if (!ok) return Within(FieldSegment(f.name()));
    return true;
  }

  bool EncodeUnion(const AvroNode& node, const JsonValue& v, size_t depth, bool as_default) {
    const std::vector<const AvroNode*>& branches = node.branches();
    if (branches.empty()) return Fail("an empty union holds no value");
    if (as_default) {
      AppendLong(out_, 0);
      return Encode(*branches[0], v, depth + 1, true);
    }
    if (v.is_null()) {
      std::optional<size_t> null_branch = node.NullBranch();
      if (!null_branch) return Fail("null is not a branch of " + UnionDescription(node));
      AppendLong(out_, static_cast<int64_t>(*null_branch));
      return true;
    }
    // Avro's JSON encoding: {"branch name": value}.
    if (v.is_object() && v.members().size() == 1) {
      if (std::optional<size_t> b = BranchNamed(node, v.members()[0].key)) {
        AppendLong(out_, static_cast<int64_t>(*b));
        return Encode(*branches[*b], v.members()[0].value, depth + 1, false);
      }
    }
    // A bare value: the one branch that accepts it.
    std::vector<size_t> candidates;
    for (size_t i = 0; i < branches.size(); ++i) {
      if (MayAccept(*branches[i], v)) candidates.push_back(i);
    }
    if (candidates.empty()) {
      return Fail(fmt::format("expected {}, got {}", UnionDescription(node), DescribeJson(v)));
    }
    if (candidates.size() == 1) {
      AppendLong(out_, static_cast<int64_t>(candidates[0]));
      return Encode(*branches[candidates[0]], v, depth + 1, false);
    }
    // Tried in each candidate, once for this value here (see UnionOutcome).
    const auto key =
        std::make_tuple(reinterpret_cast<uintptr_t>(&node), reinterpret_cast<uintptr_t>(&v), depth);
    auto known = memo_->unions.find(key);
    if (known == memo_->unions.end()) {
      known = memo_->unions.emplace(key, TryBranches(node, v, depth, candidates)).first;
    }
    const UnionOutcome& outcome = known->second;
    if (!outcome.ok) {
      failure_ = outcome.failure;
      return false;
    }
    if (checking_) return true;
    AppendLong(out_, static_cast<int64_t>(outcome.branch));
    return Encode(*branches[outcome.branch], v, depth + 1, false);
  }

  // Try `v` in each candidate branch: the one that takes it, or why not exactly one does.
  UnionOutcome TryBranches(const AvroNode& node, const JsonValue& v, size_t depth,
                           const std::vector<size_t>& candidates) {
    const std::vector<const AvroNode*>& branches = node.branches();
    std::vector<size_t> fits;
    std::vector<std::string> problems;
    for (size_t i : candidates) {
      std::string scratch;
      Encoder trial(scratch, max_depth_, memo_, /*checking=*/true);
      if (trial.Encode(*branches[i], v, depth + 1, false)) {
        fits.push_back(i);
      } else {
        std::string where = trial.failure().Path();
        problems.push_back(AvroBranchName(*branches[i]) + ": " +
                           (where.empty() ? "" : where + ": ") + trial.failure().message);
      }
    }
    UnionOutcome outcome;
    if (fits.size() == 1) {
      outcome.ok = true;
      outcome.branch = fits[0];
      return outcome;
    }
    if (fits.empty()) {
      outcome.failure.message =
          fmt::format("no branch of {} accepts {} ({})", UnionDescription(node), DescribeJson(v),
                      JoinStrings(problems, "; "));
      return outcome;
    }
    std::vector<std::string> names;
    for (size_t i : fits) names.push_back(AvroBranchName(*branches[i]));
    outcome.failure.message =
        fmt::format("{} fits branches {} of {}: write it as {{\"{}\": ...}}", DescribeJson(v),
                    JoinStrings(names, " and "), UnionDescription(node), names[0]);
    return outcome;
  }

  // The branch a wrapped union value names: by full name (or type name), else by a short name
  // no other branch shares.
  std::optional<size_t> BranchNamed(const AvroNode& node, const std::string& key) {
    return memo_->branches[&node].Find(node, key);
  }

  // Whether `v` has the shape `branch` takes (the shallow test; the encoder decides the rest).
  bool MayAccept(const AvroNode& branch, const JsonValue& v) {
    switch (branch.type()) {
      case AvroType::kNull:
        return v.is_null();
      case AvroType::kBoolean:
        return v.is_bool();
      case AvroType::kInt: {
        std::optional<int64_t> i = v.is_number() ? v.as_int64() : std::nullopt;
        return i && *i >= std::numeric_limits<int32_t>::min() &&
               *i <= std::numeric_limits<int32_t>::max();
      }
      case AvroType::kLong:
        return v.is_number() && v.as_int64().has_value();
      case AvroType::kFloat:
      case AvroType::kDouble:
        return v.is_number() || IsSpecialFloatWord(v);
      case AvroType::kString:
        return v.is_string();
      case AvroType::kBytes:
        return v.is_string() && Latin1Bytes(v.as_string()).has_value();
      case AvroType::kFixed: {
        if (!v.is_string()) return false;
        std::optional<std::string> bytes = Latin1Bytes(v.as_string());
        return bytes && static_cast<int64_t>(bytes->size()) == branch.size();
      }
      case AvroType::kEnum:
        return v.is_string() && SymbolIndex(branch, v.as_string()).has_value();
      case AvroType::kArray:
        return v.is_array();
      case AvroType::kMap:
      case AvroType::kRecord:
        return v.is_object();
      case AvroType::kUnion:
        return false;
    }
    return false;
  }

  // A trial shares the datum's memo, and only checks: a union whose outcome is known is not
  // looked into again (its bytes, written into the trial's scratch, are never used).
  Encoder(std::string& out, size_t max_depth, EncodeMemo* memo, bool checking)
      : out_(out), max_depth_(max_depth), memo_(memo), checking_(checking) {}

  std::string& out_;
  size_t max_depth_;
  Failure failure_;
  EncodeMemo own_memo_;  // the datum's (a trial uses its encoder's)
  EncodeMemo* memo_;
  bool checking_ = false;
};

Error EncodeError(const Failure& f) {
  std::string where = f.Path();
  return Error(ErrorCode::kInvalidArgument, where.empty() ? f.message : where + ": " + f.message);
}

// ---- field defaults in the JSON encoding ----

Result<JsonValue> DefaultToJson(const AvroNode& node, const JsonValue& v, size_t depth) {
  auto mismatch = [&]() {
    return InvalidArgument(fmt::format("default: expected {}, got {}",
                                       dialects::avro::DescribeNode(node), DescribeJson(v)));
  };
  if (depth > 512) return InvalidArgument("default: nested too deep");
  switch (node.type()) {
    case AvroType::kNull:
      if (!v.is_null()) return mismatch();
      return v;
    case AvroType::kBoolean:
      if (!v.is_bool()) return mismatch();
      return v;
    case AvroType::kInt:
    case AvroType::kLong:
      if (!v.is_number() || !v.as_int64()) return mismatch();
      return JsonValue::Int(*v.as_int64());
    case AvroType::kFloat:
    case AvroType::kDouble: {
      if (IsSpecialFloatWord(v)) return v;
      if (!v.is_number()) return mismatch();
      // Written as the decoder writes a value of the type, so defaults and decoded data agree.
      if (node.type() == AvroType::kFloat) return FloatJson(static_cast<float>(v.as_double()));
      return DoubleJson(v.as_double());
    }
    case AvroType::kString:
    case AvroType::kBytes:
    case AvroType::kFixed:
    case AvroType::kEnum:
      if (!v.is_string()) return mismatch();
      return v;
    case AvroType::kRecord: {
      if (!v.is_object()) return mismatch();
      std::vector<JsonMember> members;
      for (const AvroField& f : node.fields()) {
        const JsonValue* member = v.Find(f.name());
        if (member == nullptr) member = f.default_value() ? &*f.default_value() : nullptr;
        if (member == nullptr) {
          return InvalidArgument(
              fmt::format("default: field {} of record {} is missing", f.name(), node.full_name()));
        }
        SLUICE_ASSIGN_OR_RETURN(JsonValue value, DefaultToJson(f.type(), *member, depth + 1));
        members.push_back({f.name(), std::move(value)});
      }
      return JsonValue::Object(std::move(members));
    }
    case AvroType::kArray: {
      if (!v.is_array()) return mismatch();
      JsonValue out = JsonValue::Array();
      for (const JsonValue& item : v.items()) {
        SLUICE_ASSIGN_OR_RETURN(JsonValue value, DefaultToJson(node.items(), item, depth + 1));
        out.Append(std::move(value));
      }
      return out;
    }
    case AvroType::kMap: {
      if (!v.is_object()) return mismatch();
      std::vector<JsonMember> members;
      for (const JsonMember& m : v.members()) {
        SLUICE_ASSIGN_OR_RETURN(JsonValue value, DefaultToJson(node.values(), m.value, depth + 1));
        members.push_back({m.key, std::move(value)});
      }
      return JsonValue::Object(std::move(members));
    }
    case AvroType::kUnion: {
      if (node.branches().empty()) return InvalidArgument("default: the union is empty");
      const AvroNode& first = *node.branches()[0];
      SLUICE_ASSIGN_OR_RETURN(JsonValue value, DefaultToJson(first, v, depth + 1));
      if (first.type() == AvroType::kNull) return value;
      std::vector<JsonMember> wrapper(1);
      wrapper[0].key = AvroBranchName(first);
      wrapper[0].value = std::move(value);
      return JsonValue::Object(std::move(wrapper));
    }
  }
  return mismatch();
}

}  // namespace

// ---- the decoding plan ----

namespace internal {

// What the decoder does for one (writer node, reader node) pair, decided once when the plan is
// compiled.
enum class StepKind : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kIntAsLong,
  kIntAsFloat,
  kIntAsDouble,
  kLongAsFloat,
  kLongAsDouble,
  kFloatAsDouble,
  kStringAsBytes,
  kBytesAsString,
  kFixed,
  kEnum,
  kRecord,
  kArray,
  kMap,
  kWriterUnion,  // the writer wrote a union: its index picks a branch
  kReaderUnion,  // only the reader has a union: the value goes into one fixed branch
};

struct Step;

struct FieldStep {
  const std::string* name = nullptr;  // the writer's field name, for paths
  const Step* read = nullptr;         // into reader field `reader_index`; nullptr: skip
  const AvroNode* skip = nullptr;     // the writer's type, when skipped
  size_t reader_index = 0;
};

struct BranchStep {
  const Step* read = nullptr;  // nullptr: the reader cannot read this writer branch
  std::string error;           // why, when read is nullptr
  bool wrap = false;           // wrap the value as {tag: value} (a non-null reader union branch)
  std::string tag;
};

struct Step {
  StepKind kind = StepKind::kNull;
  const AvroNode* writer = nullptr;
  const AvroNode* reader = nullptr;
  // kEnum: the reader's symbol index for each writer index (-1: none, and no default).
  std::vector<int64_t> enum_map;
  // kRecord: one per writer field, in writer order; reader fields the writer lacks.
  std::vector<FieldStep> fields;
  std::vector<std::pair<size_t, JsonValue>> defaults;
  // kArray, kMap: the items' (values') step and the fewest bytes one item (entry) takes.
  const Step* items = nullptr;
  uint64_t min_item_bytes = 0;
  // kWriterUnion: one per writer branch. kReaderUnion: one.
  std::vector<BranchStep> branches;
};

struct AvroDecodePlan {
  AvroDecodeOptions options;
  std::vector<std::unique_ptr<Step>> steps;
  const Step* root = nullptr;
  // The fewest bytes a value of each writer node takes, by AvroNode::id(), to bound block counts
  // of arrays and maps that are skipped.
  std::vector<uint64_t> writer_min_bytes;
};

}  // namespace internal

namespace {

using internal::AvroDecodePlan;
using internal::BranchStep;
using internal::FieldStep;
using internal::Step;
using internal::StepKind;

constexpr uint64_t kMinBytesCap = uint64_t{1} << 40;
constexpr uint64_t kReserveItems = 1024;
constexpr uint64_t kMinBytesUnknown = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kMinBytesInProgress = kMinBytesUnknown - 1;

// The fewest bytes a value of `node` can take. A record met again while it is being computed
// (it contains itself without a union or array in between) counts 0: still a lower bound.
uint64_t MinBytes(const AvroNode& node, std::vector<uint64_t>& memo) {
  uint64_t& slot = memo[node.id()];
  if (slot == kMinBytesInProgress) return 0;
  if (slot != kMinBytesUnknown) return slot;
  slot = kMinBytesInProgress;
  uint64_t n = 0;
  switch (node.type()) {
    case AvroType::kNull:
      n = 0;
      break;
    case AvroType::kBoolean:
    case AvroType::kInt:
    case AvroType::kLong:
    case AvroType::kBytes:
    case AvroType::kString:
    case AvroType::kEnum:
    case AvroType::kUnion:
      n = 1;
      break;
    case AvroType::kFloat:
      n = 4;
      break;
    case AvroType::kDouble:
      n = 8;
      break;
    case AvroType::kFixed:
      n = std::min<uint64_t>(static_cast<uint64_t>(std::max<int64_t>(node.size(), 0)),
                             kMinBytesCap);
      break;
    case AvroType::kArray:
      n = 1;
      MinBytes(node.items(), memo);
      break;
    case AvroType::kMap:
      n = 1;
      MinBytes(node.values(), memo);
      break;
    case AvroType::kRecord:
      for (const AvroField& f : node.fields()) {
        n = std::min(kMinBytesCap, n + MinBytes(f.type(), memo));
      }
      break;
  }
  if (node.type() == AvroType::kUnion) {
    for (const AvroNode* b : node.branches()) MinBytes(*b, memo);
  }
  memo[node.id()] = n;
  return n;
}

bool SameTypeAndName(const AvroNode& a, const AvroNode& b) {
  return a.type() == b.type() && (!a.is_named() || a.full_name() == b.full_name());
}

bool Compatible(const AvroNode& reader, const AvroNode& writer) {
  dialects::avro::AvroCompatibilityOptions o;
  o.explain = false;
  o.max_incompatibilities = 1;
  auto r = dialects::avro::CheckCompatibility(reader, writer, o);
  return r.has_value() && r->compatible;
}

// The reader branch that reads a value of writer type `w`: the first of the same type and full
// name (Java's first pass), else the first `w` can be read as (a renamed or aliased named type,
// or a promotion).
std::optional<size_t> ChooseReaderBranch(const AvroNode& reader_union, const AvroNode& w) {
  const std::vector<const AvroNode*>& branches = reader_union.branches();
  for (size_t i = 0; i < branches.size(); ++i) {
    if (SameTypeAndName(*branches[i], w)) return i;
  }
  for (size_t i = 0; i < branches.size(); ++i) {
    if (Compatible(*branches[i], w)) return i;
  }
  return std::nullopt;
}

class PlanBuilder {
 public:
  explicit PlanBuilder(AvroDecodePlan& plan) : plan_(plan) {}

  Result<const Step*> Build(const AvroNode& w, const AvroNode& r) {
    auto key = std::make_pair(w.id(), r.id());
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    plan_.steps.push_back(std::make_unique<Step>());
    Step* step = plan_.steps.back().get();
    step->writer = &w;
    step->reader = &r;
    // Memoised before the children, so recursive schemas refer back to this step.
    memo_.emplace(key, step);
    Status s = Fill(*step, w, r);
    if (!s.has_value()) {
      memo_.erase(key);
      return Fail(std::move(s).error());
    }
    return step;
  }

 private:
  Status Fill(Step& step, const AvroNode& w, const AvroNode& r) {
    if (w.is_union()) {
      step.kind = StepKind::kWriterUnion;
      for (const AvroNode* wb : w.branches()) {
        SLUICE_ASSIGN_OR_RETURN(BranchStep b, Branch(*wb, r));
        step.branches.push_back(std::move(b));
      }
      return Ok();
    }
    if (r.is_union()) {
      step.kind = StepKind::kReaderUnion;
      SLUICE_ASSIGN_OR_RETURN(BranchStep b, Branch(w, r));
      if (b.read == nullptr) return InvalidArgument(b.error);
      step.branches.push_back(std::move(b));
      return Ok();
    }
    auto cannot = [&]() {
      return InvalidArgument(fmt::format("writer type {} cannot be read as {}",
                                         dialects::avro::DescribeNode(w),
                                         dialects::avro::DescribeNode(r)));
    };
    auto promote = [&](StepKind kind) {
      step.kind = kind;
      return Ok();
    };
    switch (w.type()) {
      case AvroType::kNull:
        return r.type() == AvroType::kNull ? promote(StepKind::kNull) : cannot();
      case AvroType::kBoolean:
        return r.type() == AvroType::kBoolean ? promote(StepKind::kBoolean) : cannot();
      case AvroType::kInt:
        if (r.type() == AvroType::kInt) return promote(StepKind::kInt);
        if (r.type() == AvroType::kLong) return promote(StepKind::kIntAsLong);
        if (r.type() == AvroType::kFloat) return promote(StepKind::kIntAsFloat);
        if (r.type() == AvroType::kDouble) return promote(StepKind::kIntAsDouble);
        return cannot();
      case AvroType::kLong:
        if (r.type() == AvroType::kLong) return promote(StepKind::kLong);
        if (r.type() == AvroType::kFloat) return promote(StepKind::kLongAsFloat);
        if (r.type() == AvroType::kDouble) return promote(StepKind::kLongAsDouble);
        return cannot();
      case AvroType::kFloat:
        if (r.type() == AvroType::kFloat) return promote(StepKind::kFloat);
        if (r.type() == AvroType::kDouble) return promote(StepKind::kFloatAsDouble);
        return cannot();
      case AvroType::kDouble:
        return r.type() == AvroType::kDouble ? promote(StepKind::kDouble) : cannot();
      case AvroType::kBytes:
        if (r.type() == AvroType::kBytes) return promote(StepKind::kBytes);
        if (r.type() == AvroType::kString) return promote(StepKind::kBytesAsString);
        return cannot();
      case AvroType::kString:
        if (r.type() == AvroType::kString) return promote(StepKind::kString);
        if (r.type() == AvroType::kBytes) return promote(StepKind::kStringAsBytes);
        return cannot();
      case AvroType::kFixed:
        if (r.type() != AvroType::kFixed || r.size() != w.size()) return cannot();
        return promote(StepKind::kFixed);
      case AvroType::kEnum: {
        if (r.type() != AvroType::kEnum) return cannot();
        step.kind = StepKind::kEnum;
        const std::vector<std::string>& rs = r.symbols();
        internal::StringMap<int64_t> reader_index;  // each symbol's first position
        for (size_t i = 0; i < rs.size(); ++i) reader_index.emplace(rs[i], static_cast<int64_t>(i));
        auto find = [&](std::string_view symbol) -> std::optional<int64_t> {
          auto it = reader_index.find(symbol);
          if (it == reader_index.end()) return std::nullopt;
          return it->second;
        };
        std::optional<int64_t> fallback;
        if (r.enum_default()) fallback = find(*r.enum_default());
        for (const std::string& symbol : w.symbols()) {
          step.enum_map.push_back(find(symbol).value_or(fallback.value_or(-1)));
        }
        return Ok();
      }
      case AvroType::kArray: {
        if (r.type() != AvroType::kArray) return cannot();
        step.kind = StepKind::kArray;
        SLUICE_ASSIGN_OR_RETURN(step.items, Build(w.items(), r.items()));
        step.min_item_bytes = plan_.writer_min_bytes[w.items().id()];
        return Ok();
      }
      case AvroType::kMap: {
        if (r.type() != AvroType::kMap) return cannot();
        step.kind = StepKind::kMap;
        SLUICE_ASSIGN_OR_RETURN(step.items, Build(w.values(), r.values()));
        step.min_item_bytes = 1 + plan_.writer_min_bytes[w.values().id()];
        return Ok();
      }
      case AvroType::kRecord:
        if (r.type() != AvroType::kRecord) return cannot();
        return FillRecord(step, w, r);
      case AvroType::kUnion:
        return cannot();  // handled above
    }
    return cannot();
  }

  Status FillRecord(Step& step, const AvroNode& w, const AvroNode& r) {
    step.kind = StepKind::kRecord;
    const std::vector<AvroField>& wf = w.fields();
    const std::vector<AvroField>& rf = r.fields();
    // For each writer field, the reader field it feeds: by name first, then by reader alias.
    std::vector<std::optional<size_t>> target(wf.size());
    std::vector<bool> fed(rf.size(), false);
    // The writer's fields by name (the first of a name, as FindField finds it).
    internal::StringMap<const AvroField*> writer_fields;
    for (const AvroField& f : wf) writer_fields.emplace(f.name(), &f);
    auto find = [&](std::string_view name) -> const AvroField* {
      auto it = writer_fields.find(name);
      return it == writer_fields.end() ? nullptr : it->second;
    };
    for (size_t i = 0; i < rf.size(); ++i) {
      const AvroField* match = find(rf[i].name());
      for (size_t a = 0; match == nullptr && a < rf[i].aliases().size(); ++a) {
        match = find(rf[i].aliases()[a]);
      }
      if (match != nullptr && !target[match->position()]) {
        target[match->position()] = i;
        fed[i] = true;
      }
    }
    for (size_t j = 0; j < wf.size(); ++j) {
      FieldStep f;
      f.name = &wf[j].name();
      if (target[j]) {
        f.reader_index = *target[j];
        auto read = Build(wf[j].type(), rf[*target[j]].type());
        if (!read.has_value()) {
          return InvalidArgument(fmt::format("field {}: {}", wf[j].name(), read.error().message()));
        }
        f.read = *read;
      } else {
        f.skip = &wf[j].type();
      }
      step.fields.push_back(f);
    }
    for (size_t i = 0; i < rf.size(); ++i) {
      if (fed[i]) continue;
      if (!rf[i].default_value()) {
        return InvalidArgument(fmt::format(
            "reader field {} of record {} has no default and the writer's record {} lacks it",
            rf[i].name(), r.full_name(), w.full_name()));
      }
      auto value = AvroDefaultToJsonEncoding(rf[i].type(), *rf[i].default_value());
      if (!value.has_value()) {
        return InvalidArgument(
            fmt::format("reader field {}: {}", rf[i].name(), value.error().message()));
      }
      step.defaults.emplace_back(i, std::move(value).value());
    }
    return Ok();
  }

  // How a value of writer type `w` (not a union) is read into `r` (a union or not). A pair the
  // compatibility checker rejects becomes a branch that fails when the data takes it; anything
  // else that fails to compile is an error of the whole plan.
  Result<BranchStep> Branch(const AvroNode& w, const AvroNode& r) {
    BranchStep b;
    const AvroNode* target = &r;
    if (r.is_union()) {
      std::optional<size_t> i = ChooseReaderBranch(r, w);
      if (!i) {
        b.error = fmt::format("the reader's {} has no branch for the writer's {}",
                              UnionDescription(r), dialects::avro::DescribeNode(w));
        return b;
      }
      target = r.branches()[*i];
      b.wrap = target->type() != AvroType::kNull;
      if (b.wrap) b.tag = AvroBranchName(*target);
    }
    if (target != &w && !Compatible(*target, w)) {
      b.error = fmt::format("the writer's {} cannot be read as the reader's {}",
                            dialects::avro::DescribeNode(w), dialects::avro::DescribeNode(*target));
      return b;
    }
    SLUICE_ASSIGN_OR_RETURN(b.read, Build(w, *target));
    return b;
  }

  AvroDecodePlan& plan_;
  std::map<std::pair<size_t, size_t>, Step*> memo_;
};

// ---- decoding ----

class Decoder {
 public:
  Decoder(const AvroDecodePlan& plan, std::string_view bytes)
      : plan_(plan),
        data_(reinterpret_cast<const uint8_t*>(bytes.data())),
        size_(bytes.size()),
        zero_byte_budget_(plan.options.max_zero_byte_items) {}

  // The recursive path (Read, ReadRecord, ReadArray, ReadMap, ReadBranch) keeps small frames:
  // the scalar cases and the messages live in functions of their own, so the depth bound, not
  // the stack, ends deep data (sanitizer builds give every local its own slot).
  bool Read(const Step& step, JsonValue& out, size_t depth) {
    switch (step.kind) {
      case StepKind::kRecord:
        return ReadRecord(step, out, depth);
      case StepKind::kArray:
        return ReadArray(step, out, depth);
      case StepKind::kMap:
        return ReadMap(step, out, depth);
      case StepKind::kWriterUnion:
        return ReadWriterUnion(step, out, depth);
      case StepKind::kReaderUnion:
        if (depth >= plan_.options.max_depth) return TooDeep();
        return ReadBranch(step.branches[0], pos_, out, depth);
      case StepKind::kNull:
      case StepKind::kBoolean:
      case StepKind::kInt:
      case StepKind::kLong:
      case StepKind::kFloat:
      case StepKind::kDouble:
      case StepKind::kBytes:
      case StepKind::kString:
      case StepKind::kIntAsLong:
      case StepKind::kIntAsFloat:
      case StepKind::kIntAsDouble:
      case StepKind::kLongAsFloat:
      case StepKind::kLongAsDouble:
      case StepKind::kFloatAsDouble:
      case StepKind::kStringAsBytes:
      case StepKind::kBytesAsString:
      case StepKind::kFixed:
      case StepKind::kEnum:
        return ReadScalar(step, out);
    }
    return Fail(pos_, "unknown decoding step");
  }

  [[gnu::noinline]] bool ReadScalar(const Step& step, JsonValue& out) {
    switch (step.kind) {
      case StepKind::kNull:
        out = JsonValue::Null();
        return true;
      case StepKind::kBoolean: {
        if (pos_ >= size_) return Truncated(pos_, "boolean");
        const uint8_t b = data_[pos_];
        if (b > 1) return Fail(pos_, fmt::format("invalid boolean byte 0x{:02x}", b));
        ++pos_;
        out = JsonValue::Bool(b == 1);
        return true;
      }
      case StepKind::kInt: {
        int32_t v = 0;
        if (!ReadInt(v, "int")) return false;
        out = JsonValue::Int(v);
        return true;
      }
      case StepKind::kIntAsLong: {
        int32_t v = 0;
        if (!ReadInt(v, "int")) return false;
        out = JsonValue::Int(v);
        return true;
      }
      case StepKind::kIntAsFloat: {
        int32_t v = 0;
        if (!ReadInt(v, "int")) return false;
        out = FloatJson(static_cast<float>(v));
        return true;
      }
      case StepKind::kIntAsDouble: {
        int32_t v = 0;
        if (!ReadInt(v, "int")) return false;
        out = DoubleJson(static_cast<double>(v));
        return true;
      }
      case StepKind::kLong: {
        int64_t v = 0;
        if (!ReadLong(v, "long")) return false;
        out = JsonValue::Int(v);
        return true;
      }
      case StepKind::kLongAsFloat: {
        int64_t v = 0;
        if (!ReadLong(v, "long")) return false;
        out = FloatJson(static_cast<float>(v));
        return true;
      }
      case StepKind::kLongAsDouble: {
        int64_t v = 0;
        if (!ReadLong(v, "long")) return false;
        out = DoubleJson(static_cast<double>(v));
        return true;
      }
      case StepKind::kFloat:
      case StepKind::kFloatAsDouble: {
        if (size_ - pos_ < 4) return Truncated(pos_, "float");
        uint32_t bits = 0;
        for (int i = 0; i < 4; ++i) bits |= static_cast<uint32_t>(data_[pos_ + i]) << (8 * i);
        pos_ += 4;
        float f = 0;
        std::memcpy(&f, &bits, sizeof f);
        out = step.kind == StepKind::kFloat ? FloatJson(f) : DoubleJson(static_cast<double>(f));
        return true;
      }
      case StepKind::kDouble: {
        if (size_ - pos_ < 8) return Truncated(pos_, "double");
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
        pos_ += 8;
        double d = 0;
        std::memcpy(&d, &bits, sizeof d);
        out = DoubleJson(d);
        return true;
      }
      case StepKind::kString: {
        std::string_view s;
        if (!ReadText(s, "string")) return false;
        out = JsonValue::String(std::string(s));
        return true;
      }
      case StepKind::kBytesAsString: {
        std::string_view s;
        if (!ReadLengthPrefixed(s, "bytes")) return false;
        out = JsonValue::String(ReplaceInvalidUtf8(s));
        return true;
      }
      case StepKind::kBytes:
      case StepKind::kStringAsBytes: {
        std::string_view s;
        if (!ReadLengthPrefixed(s, step.kind == StepKind::kBytes ? "bytes" : "string")) {
          return false;
        }
        out = JsonValue::String(Latin1Text(s));
        return true;
      }
      case StepKind::kFixed: {
        const auto n = static_cast<uint64_t>(step.writer->size());
        if (size_ - pos_ < n) {
          return Fail(pos_, fmt::format("truncated fixed {}: {} bytes, {} remain",
                                        step.writer->full_name(), n, size_ - pos_));
        }
        out = JsonValue::String(
            Latin1Text(std::string_view(reinterpret_cast<const char*>(data_ + pos_), n)));
        pos_ += n;
        return true;
      }
      case StepKind::kEnum: {
        const size_t at = pos_;
        int32_t i = 0;
        if (!ReadInt(i, "enum index")) return false;
        const std::vector<std::string>& ws = step.writer->symbols();
        if (i < 0 || static_cast<size_t>(i) >= ws.size()) {
          return Fail(at, fmt::format("enum index {} out of range: {} has {} symbols", i,
                                      step.writer->full_name(), ws.size()));
        }
        const int64_t r = step.enum_map[i];
        if (r < 0) {
          return Fail(at, fmt::format("symbol {} is not in the reader's enum {}, which has no "
                                      "default",
                                      ws[i], step.reader->full_name()));
        }
        out = JsonValue::String(step.reader->symbols()[r]);
        return true;
      }
      case StepKind::kRecord:
      case StepKind::kArray:
      case StepKind::kMap:
      case StepKind::kWriterUnion:
      case StepKind::kReaderUnion:
        break;
    }
    return Fail(pos_, "not a scalar decoding step");
  }

  [[gnu::noinline]] bool ReadWriterUnion(const Step& step, JsonValue& out, size_t depth) {
    if (depth >= plan_.options.max_depth) return TooDeep();
    const size_t at = pos_;
    int64_t i = 0;
    if (!ReadLong(i, "union index")) return false;
    if (i < 0 || static_cast<uint64_t>(i) >= step.branches.size()) {
      return BadUnionIndex(at, i, *step.writer);
    }
    return ReadBranch(step.branches[i], at, out, depth);
  }

  [[gnu::noinline]] bool BlockSizeMismatch(size_t at, bool is_map, int64_t declared,
                                           size_t actual) {
    return Fail(
        at, fmt::format("{} block size {} does not match its {}' {} bytes",
                        is_map ? "map" : "array", declared, is_map ? "entries" : "items", actual));
  }

  [[gnu::noinline]] bool BadUnionIndex(size_t at, int64_t i, const AvroNode& u) {
    return Fail(at, fmt::format("union index {} out of range: {} has {} branches", i,
                                UnionDescription(u), u.branches().size()));
  }

  bool Skip(const AvroNode& w, size_t depth) {
    switch (w.type()) {
      case AvroType::kNull:
        return true;
      case AvroType::kBoolean:
        if (pos_ >= size_) return Truncated(pos_, "boolean");
        ++pos_;
        return true;
      case AvroType::kInt:
      case AvroType::kEnum: {
        int32_t v = 0;
        return ReadInt(v, w.type() == AvroType::kInt ? "int" : "enum index");
      }
      case AvroType::kLong: {
        int64_t v = 0;
        return ReadLong(v, "long");
      }
      case AvroType::kFloat:
        return SkipBytes(4, "float");
      case AvroType::kDouble:
        return SkipBytes(8, "double");
      case AvroType::kBytes:
      case AvroType::kString: {
        std::string_view s;
        return ReadLengthPrefixed(s, w.type() == AvroType::kBytes ? "bytes" : "string");
      }
      case AvroType::kFixed:
        return SkipBytes(static_cast<uint64_t>(w.size()), "fixed");
      case AvroType::kRecord:
        if (depth >= plan_.options.max_depth) return TooDeep();
        for (const AvroField& f : w.fields()) {
          if (!Skip(f.type(), depth + 1)) return Within(FieldSegment(f.name()));
        }
        return true;
      case AvroType::kArray:
      case AvroType::kMap: {
        if (depth >= plan_.options.max_depth) return TooDeep();
        const bool is_map = w.type() == AvroType::kMap;
        const AvroNode& item = is_map ? w.values() : w.items();
        const uint64_t min = plan_.writer_min_bytes[item.id()] + (is_map ? 1 : 0);
        uint64_t index = 0;
        for (;;) {
          Block block;
          if (!ReadBlockHeader(block, min, is_map ? "map" : "array")) return false;
          if (block.count == 0) return true;
          if (block.byte_size >= 0) {
            // The writer told the size: jump over the whole block.
            pos_ += static_cast<size_t>(block.byte_size);
            index += block.count;
            continue;
          }
          for (uint64_t i = 0; i < block.count; ++i, ++index) {
            if (is_map) {
              std::string_view key;
              if (!ReadLengthPrefixed(key, "map key")) return Within(IndexSegment(index));
            }
            if (!Skip(item, depth + 1)) return Within(IndexSegment(index));
          }
        }
      }
      case AvroType::kUnion: {
        if (depth >= plan_.options.max_depth) return TooDeep();
        const size_t at = pos_;
        int64_t i = 0;
        if (!ReadLong(i, "union index")) return false;
        if (i < 0 || static_cast<uint64_t>(i) >= w.branches().size()) {
          return BadUnionIndex(at, i, w);
        }
        return Skip(*w.branches()[i], depth + 1);
      }
    }
    return Fail(pos_, "unknown Avro type");
  }

  size_t pos() const { return pos_; }
  bool Fail(size_t offset, std::string message) {
    failure_.offset = offset;
    failure_.message = std::move(message);
    return false;
  }
  const Failure& failure() const { return failure_; }

 private:
  struct Block {
    uint64_t count = 0;
    int64_t byte_size = -1;  // given by the writer (a negative count), else -1
  };

  bool Within(std::string segment) {
    failure_.path.push_back(std::move(segment));
    return false;
  }
  [[gnu::noinline]] bool Truncated(size_t at, std::string_view what) {
    return Fail(at, fmt::format("truncated {}: the data ends", what));
  }
  [[gnu::noinline]] bool TooDeep() {
    return Fail(pos_, fmt::format("nested deeper than {} levels", plan_.options.max_depth));
  }

  [[gnu::noinline]] bool ReadVarint(uint64_t& out, int max_bytes, std::string_view what) {
    const size_t start = pos_;
    uint64_t v = 0;
    for (int i = 0; i < max_bytes; ++i) {
      if (pos_ >= size_) return Truncated(start, what);
      const uint8_t b = data_[pos_++];
      // The last byte may only hold the bits left: 64 = 9*7 + 1, 32 = 4*7 + 4.
      if (i == max_bytes - 1 && b > (max_bytes == 10 ? 0x01 : 0x0F)) {
        return Fail(start,
                    fmt::format("{} does not fit in {} bits", what, max_bytes == 10 ? 64 : 32));
      }
      v |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) {
        out = v;
        return true;
      }
    }
    return Fail(start, fmt::format("{} does not fit in {} bits", what, max_bytes == 10 ? 64 : 32));
  }

  bool ReadLong(int64_t& out, std::string_view what) {
    uint64_t v = 0;
    if (!ReadVarint(v, 10, what)) return false;
    out = static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
    return true;
  }

  bool ReadInt(int32_t& out, std::string_view what) {
    uint64_t v = 0;
    if (!ReadVarint(v, 5, what)) return false;
    const auto u = static_cast<uint32_t>(v);
    out = static_cast<int32_t>((u >> 1) ^ (~(u & 1) + 1));
    return true;
  }

  [[gnu::noinline]] bool SkipBytes(uint64_t n, std::string_view what) {
    if (size_ - pos_ < n) {
      return Fail(pos_, fmt::format("truncated {}: {} bytes, {} remain", what, n, size_ - pos_));
    }
    pos_ += n;
    return true;
  }

  [[gnu::noinline]] bool ReadLengthPrefixed(std::string_view& out, std::string_view what) {
    const size_t at = pos_;
    int64_t n = 0;
    if (!ReadLong(n, std::string(what) + " length")) return false;
    if (n < 0) return Fail(at, fmt::format("negative {} length {}", what, n));
    if (static_cast<uint64_t>(n) > size_ - pos_) {
      return Fail(at, fmt::format("{} length {} is beyond the {} bytes that remain", what, n,
                                  size_ - pos_));
    }
    out = std::string_view(reinterpret_cast<const char*>(data_ + pos_), static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return true;
  }

  [[gnu::noinline]] bool ReadText(std::string_view& out, std::string_view what) {
    const size_t at = pos_;
    if (!ReadLengthPrefixed(out, what)) return false;
    if (size_t bad = FindInvalidUtf8(out); bad != std::string_view::npos) {
      return Fail(at,
                  fmt::format("{} is not valid UTF-8 (at byte {})", what, pos_ - out.size() + bad));
    }
    return true;
  }

  // A block's item count, bounded by the bytes that remain (each item takes at least
  // `min_item_bytes`) or, for items that take no bytes, by the datum's budget for them.
  [[gnu::noinline]] bool ReadBlockHeader(Block& block, uint64_t min_item_bytes,
                                         std::string_view what) {
    const size_t at = pos_;
    int64_t count = 0;
    if (!ReadLong(count, std::string(what) + " block count")) return false;
    if (count == 0) {
      block.count = 0;
      return true;
    }
    if (count < 0) {
      if (count == std::numeric_limits<int64_t>::min()) {
        return Fail(at, fmt::format("{} block count {} is out of range", what, count));
      }
      count = -count;
      const size_t size_at = pos_;
      if (!ReadLong(block.byte_size, std::string(what) + " block size")) return false;
      if (block.byte_size < 0 || static_cast<uint64_t>(block.byte_size) > size_ - pos_) {
        return Fail(size_at, fmt::format("{} block size {} is beyond the {} bytes that remain",
                                         what, block.byte_size, size_ - pos_));
      }
    }
    block.count = static_cast<uint64_t>(count);
    const uint64_t remaining =
        block.byte_size >= 0 ? static_cast<uint64_t>(block.byte_size) : size_ - pos_;
    if (min_item_bytes > 0) {
      if (block.count > remaining / min_item_bytes) {
        return Fail(at, fmt::format("{} block count {} is beyond what the {} remaining bytes "
                                    "can hold",
                                    what, block.count, remaining));
      }
    } else {
      if (block.count > zero_byte_budget_) {
        return Fail(at, fmt::format("{} block count {} of items that take no bytes is over "
                                    "the limit of {} such items in a datum",
                                    what, block.count, plan_.options.max_zero_byte_items));
      }
      zero_byte_budget_ -= block.count;
    }
    return true;
  }

  bool ReadBranch(const BranchStep& b, size_t at, JsonValue& out, size_t depth) {
    if (b.read == nullptr) return Fail(at, b.error);
    if (!b.wrap) return Read(*b.read, out, depth + 1);
    JsonValue value;
    if (!Read(*b.read, value, depth + 1)) return false;
    // Moved into place: an initializer list would copy the whole value.
    std::vector<JsonMember> wrapper(1);
    wrapper[0].key = b.tag;
    wrapper[0].value = std::move(value);
    out = JsonValue::Object(std::move(wrapper));
    return true;
  }

  bool ReadRecord(const Step& step, JsonValue& out, size_t depth) {
    if (depth >= plan_.options.max_depth) return TooDeep();
    const std::vector<AvroField>& rf = step.reader->fields();
    std::vector<JsonMember> members(rf.size());
    for (size_t i = 0; i < rf.size(); ++i) members[i].key = rf[i].name();
    for (const FieldStep& f : step.fields) {
      bool ok = f.read != nullptr ? Read(*f.read, members[f.reader_index].value, depth + 1)
                                  : Skip(*f.skip, depth + 1);
      if (!ok) return Within(FieldSegment(*f.name));
    }
    for (const auto& [i, value] : step.defaults) members[i].value = value;
    out = JsonValue::Object(std::move(members));
    return true;
  }

  bool ReadArray(const Step& step, JsonValue& out, size_t depth) {
    if (depth >= plan_.options.max_depth) return TooDeep();
    out = JsonValue::Array();
    std::vector<JsonValue>& items = out.mutable_items();
    for (;;) {
      const size_t at = pos_;
      Block block;
      if (!ReadBlockHeader(block, step.min_item_bytes, "array")) return false;
      if (block.count == 0) return true;
      // A count is only a claim until the items are read: reserve a little, grow as they come.
      if (items.empty()) items.reserve(std::min<uint64_t>(block.count, kReserveItems));
      const size_t start = pos_;
      for (uint64_t i = 0; i < block.count; ++i) {
        items.emplace_back();
        if (!Read(*step.items, items.back(), depth + 1)) {
          return Within(IndexSegment(items.size() - 1));
        }
      }
      if (block.byte_size >= 0 && pos_ - start != static_cast<uint64_t>(block.byte_size)) {
        return BlockSizeMismatch(at, false, block.byte_size, pos_ - start);
      }
    }
  }

  bool ReadMap(const Step& step, JsonValue& out, size_t depth) {
    if (depth >= plan_.options.max_depth) return TooDeep();
    out = JsonValue::Object();
    std::vector<JsonMember>& members = out.mutable_members();
    for (;;) {
      const size_t at = pos_;
      Block block;
      if (!ReadBlockHeader(block, step.min_item_bytes, "map")) return false;
      if (block.count == 0) break;
      if (members.empty()) members.reserve(std::min<uint64_t>(block.count, kReserveItems));
      const size_t start = pos_;
      for (uint64_t i = 0; i < block.count; ++i) {
        std::string_view key;
        if (!ReadText(key, "map key")) return Within(IndexSegment(members.size()));
        members.push_back({std::string(key), JsonValue()});
        if (!Read(*step.items, members.back().value, depth + 1)) {
          return Within(KeySegment(members.back().key));
        }
      }
      if (block.byte_size >= 0 && pos_ - start != static_cast<uint64_t>(block.byte_size)) {
        return BlockSizeMismatch(at, true, block.byte_size, pos_ - start);
      }
    }
    DropRepeatedKeys(members);
    return true;
  }

  // A key written twice keeps its first place and its last value, as a Java map would read it.
  static void DropRepeatedKeys(std::vector<JsonMember>& members) {
    if (members.size() < 2) return;
    std::vector<uint32_t> order(members.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return members[a].key < members[b].key; });
    std::vector<bool> drop(members.size(), false);
    bool any = false;
    for (size_t i = 0; i + 1 < order.size();) {
      size_t j = i;
      while (j + 1 < order.size() && members[order[j + 1]].key == members[order[i]].key) ++j;
      if (j > i) {
        any = true;
        members[order[i]].value = std::move(members[order[j]].value);
        for (size_t k = i + 1; k <= j; ++k) drop[order[k]] = true;
      }
      i = j + 1;
    }
    if (!any) return;
    size_t w = 0;
    for (size_t i = 0; i < members.size(); ++i) {
      if (!drop[i]) {
        if (w != i) members[w] = std::move(members[i]);
        ++w;
      }
    }
    members.resize(w);
  }

  const AvroDecodePlan& plan_;
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  uint64_t zero_byte_budget_;
  Failure failure_;
};

Result<std::unique_ptr<AvroDecodePlan>> MakePlan(const AvroSchema& writer, const AvroSchema& reader,
                                                 const AvroDecodeOptions& options) {
  auto plan = std::make_unique<AvroDecodePlan>();
  plan->options = options;
  plan->writer_min_bytes.assign(writer.node_count(), kMinBytesUnknown);
  MinBytes(writer.root(), plan->writer_min_bytes);
  // Nodes a walk from the root does not reach (none in a parsed schema) still get a bound.
  for (uint64_t& m : plan->writer_min_bytes) {
    if (m == kMinBytesUnknown || m == kMinBytesInProgress) m = 0;
  }
  PlanBuilder builder(*plan);
  SLUICE_ASSIGN_OR_RETURN(plan->root, builder.Build(writer.root(), reader.root()));
  return plan;
}

}  // namespace

std::string AvroBranchName(const AvroNode& branch) {
  return branch.is_named() ? branch.full_name() : std::string(AvroTypeName(branch.type()));
}

Result<JsonValue> AvroDefaultToJsonEncoding(const AvroNode& node, const JsonValue& value) {
  return DefaultToJson(node, value, 0);
}

Status AppendAvro(const AvroNode& node, const JsonValue& datum, std::string& out,
                  const AvroEncodeOptions& options) {
  const size_t size = out.size();
  Encoder encoder(out, options.max_depth);
  if (!encoder.Encode(node, datum, 0, false)) {
    out.resize(size);
    return Fail(EncodeError(encoder.failure()));
  }
  return Ok();
}

Result<std::string> EncodeAvro(const AvroNode& node, const JsonValue& datum,
                               const AvroEncodeOptions& options) {
  std::string out;
  SLUICE_TRY(AppendAvro(node, datum, out, options));
  return out;
}

Result<std::string> EncodeAvro(const AvroSchema& schema, const JsonValue& datum,
                               const AvroEncodeOptions& options) {
  return EncodeAvro(schema.root(), datum, options);
}

AvroDecoder::AvroDecoder(std::unique_ptr<internal::AvroDecodePlan> plan) : plan_(std::move(plan)) {}
AvroDecoder::AvroDecoder(AvroDecoder&&) noexcept = default;
AvroDecoder& AvroDecoder::operator=(AvroDecoder&&) noexcept = default;
AvroDecoder::~AvroDecoder() = default;

Result<AvroDecoder> AvroDecoder::Make(const AvroSchema& writer, const AvroDecodeOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(auto plan, MakePlan(writer, writer, options));
  return AvroDecoder(std::move(plan));
}

Result<AvroDecoder> AvroDecoder::Make(const AvroSchema& writer, const AvroSchema& reader,
                                      const AvroDecodeOptions& options) {
  dialects::avro::AvroCompatibilityOptions co;
  co.explain = false;
  co.max_incompatibilities = 3;
  SLUICE_ASSIGN_OR_RETURN(auto verdict, dialects::avro::CheckCompatibility(reader, writer, co));
  if (!verdict.compatible) {
    std::vector<std::string> reasons;
    for (const auto& i : verdict.incompatibilities) {
      reasons.push_back(fmt::format("{} at {}: {}",
                                    dialects::avro::AvroIncompatibilityKindName(i.kind), i.location,
                                    i.message));
    }
    if (verdict.incompatibility_count > reasons.size()) {
      reasons.push_back(
          fmt::format("{} more", verdict.incompatibility_count - verdict.incompatibilities.size()));
    }
    return Fail(ErrorCode::kIncompatible,
                "the reader schema cannot read data written with the writer schema: " +
                    JoinStrings(reasons, "; "));
  }
  SLUICE_ASSIGN_OR_RETURN(auto plan, MakePlan(writer, reader, options));
  return AvroDecoder(std::move(plan));
}

namespace {

Unexpected<Error> DecodeError(const Failure& f) {
  std::string where = f.Path();
  return ParseError(
      fmt::format("byte {}: {}{}", f.offset, where.empty() ? "" : where + ": ", f.message));
}

}  // namespace

Result<JsonValue> AvroDecoder::Decode(std::string_view bytes) const {
  Decoder decoder(*plan_, bytes);
  JsonValue out;
  bool ok = decoder.Read(*plan_->root, out, 0);
  if (ok && decoder.pos() != bytes.size()) {
    const size_t extra = bytes.size() - decoder.pos();
    ok = decoder.Fail(decoder.pos(),
                      fmt::format("{} byte{} after the datum", extra, extra == 1 ? "" : "s"));
  }
  if (!ok) return DecodeError(decoder.failure());
  return out;
}

Result<JsonValue> AvroDecoder::DecodePrefix(std::string_view bytes, size_t* consumed) const {
  Decoder decoder(*plan_, bytes);
  JsonValue out;
  if (!decoder.Read(*plan_->root, out, 0)) return DecodeError(decoder.failure());
  *consumed = decoder.pos();
  return out;
}

Result<JsonValue> DecodeAvro(const AvroSchema& writer, std::string_view bytes,
                             const AvroDecodeOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(AvroDecoder decoder, AvroDecoder::Make(writer, options));
  return decoder.Decode(bytes);
}

Result<JsonValue> DecodeAvro(const AvroSchema& writer, const AvroSchema& reader,
                             std::string_view bytes, const AvroDecodeOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(AvroDecoder decoder, AvroDecoder::Make(writer, reader, options));
  return decoder.Decode(bytes);
}

}  // namespace sluice::data
