// The regular expression engine of patternProperties: a parser of the ECMA-262 subset that
// compiles to a program for a Pike VM, and the VM, which walks every thread in step so a match
// costs time linear in the subject.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <utility>

#include "sluice/dialects/jsonschema/json_schema_diff.h"
#include "sluice/dialects/jsonschema/json_schema_regex_internal.h"

namespace sluice::dialects::jsonschema::internal {
namespace regex {
namespace {

constexpr uint32_t kMaxCodePoint = 0x10FFFF;
constexpr uint32_t kUnbounded = std::numeric_limits<uint32_t>::max();
constexpr size_t kMaxProgram = 20000;  // instructions, after expanding {n,m}
constexpr size_t kMaxNesting = 200;    // group depth: the parser recurses on it
constexpr uint32_t kMaxRepeat = 1000;  // the largest n or m of {n,m}

}  // namespace

std::vector<uint32_t> Decode(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<uint8_t>(s[i]);
    int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    bool ok = len > 0 && i + len <= s.size();
    for (int j = 1; ok && j < len; ++j) {
      auto c = static_cast<uint8_t>(s[i + j]);
      if ((c >> 6) != 2) ok = false;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (!ok || cp > kMaxCodePoint) {
      out.push_back(b);
      ++i;
    } else {
      out.push_back(cp);
      i += len;
    }
  }
  return out;
}

void CharSet::Add(uint32_t lo, uint32_t hi) { ranges.push_back({lo, hi}); }

void CharSet::AddAll(const CharSet& other) {
  ranges.insert(ranges.end(), other.ranges.begin(), other.ranges.end());
}

void CharSet::Normalize() {
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.lo < b.lo; });
  std::vector<Range> merged;
  for (const Range& r : ranges) {
    if (!merged.empty() && r.lo <= merged.back().hi + 1) {
      merged.back().hi = std::max(merged.back().hi, r.hi);
    } else {
      merged.push_back(r);
    }
  }
  ranges = std::move(merged);
}

void CharSet::Negate() {
  Normalize();
  std::vector<Range> out;
  uint32_t next = 0;
  for (const Range& r : ranges) {
    if (r.lo > next) out.push_back({next, r.lo - 1});
    next = r.hi + 1;
  }
  if (next <= kMaxCodePoint) out.push_back({next, kMaxCodePoint});
  ranges = std::move(out);
}

bool CharSet::Contains(uint32_t c) const {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), c,
                             [](uint32_t v, const Range& r) { return v < r.lo; });
  return it != ranges.begin() && c <= std::prev(it)->hi;
}

namespace {

CharSet Digits() {
  CharSet s;
  s.Add('0', '9');
  return s;
}
CharSet WordChars() {
  CharSet s;
  s.Add('0', '9');
  s.Add('A', 'Z');
  s.Add('_', '_');
  s.Add('a', 'z');
  return s;
}
CharSet Spaces() {
  CharSet s;
  for (uint32_t c : {0x09u, 0x0Au, 0x0Bu, 0x0Cu, 0x0Du, 0x20u, 0xA0u, 0x1680u, 0x2028u, 0x2029u,
                     0x202Fu, 0x205Fu, 0x3000u, 0xFEFFu}) {
    s.Add(c, c);
  }
  s.Add(0x2000, 0x200A);
  return s;
}
bool IsWordChar(uint32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

enum class NodeKind : uint8_t {
  kSet,
  kBegin,
  kEnd,
  kWordBoundary,
  kNotWordBoundary,
  kConcat,
  kAlternate,
  kRepeat,
};

struct Node {
  NodeKind kind;
  std::vector<size_t> children;
  size_t set = 0;
  uint32_t min = 0;
  uint32_t max = 0;
};

class Compiler {
 public:
  explicit Compiler(std::string_view pattern) : p_(Decode(pattern)) {}

  Result<Program> Compile() {
    size_t root = 0;
    SLUICE_TRY(Alternation(0, &root));
    if (pos_ < p_.size()) return Invalid("unmatched ')'");
    SLUICE_TRY(Emit(root, 0));
    SLUICE_TRY(Push({Op::kMatch}));
    program_.sets = std::move(sets_);
    return std::move(program_);
  }

 private:
  Unexpected<Error> Invalid(std::string_view what) {
    return InvalidArgument(
        fmt::format("invalid regular expression: {} at character {}", what, pos_));
  }
  Unexpected<Error> Unsupported(std::string_view what) {
    return Unimplemented(fmt::format("unsupported regular expression feature: {}", what));
  }

  bool AtEnd() const { return pos_ >= p_.size(); }
  uint32_t Peek(size_t ahead = 0) const {
    return pos_ + ahead < p_.size() ? p_[pos_ + ahead] : 0xFFFFFFFF;
  }

  size_t NewNode(Node n) {
    nodes_.push_back(std::move(n));
    return nodes_.size() - 1;
  }
  size_t NewSet(CharSet s) {
    s.Normalize();
    sets_.push_back(std::move(s));
    return NewNode(Node{NodeKind::kSet, {}, sets_.size() - 1});
  }

  Status Alternation(size_t depth, size_t* out) {
    if (depth > kMaxNesting) return Unsupported("groups nested too deeply");
    std::vector<size_t> alternatives;
    size_t first = 0;
    SLUICE_TRY(Concat(depth, &first));
    alternatives.push_back(first);
    while (Peek() == '|') {
      ++pos_;
      size_t next = 0;
      SLUICE_TRY(Concat(depth, &next));
      alternatives.push_back(next);
    }
    *out = alternatives.size() == 1 ? alternatives[0]
                                    : NewNode(Node{NodeKind::kAlternate, std::move(alternatives)});
    return Ok();
  }

  Status Concat(size_t depth, size_t* out) {
    std::vector<size_t> items;
    while (!AtEnd() && Peek() != '|' && Peek() != ')') {
      size_t item = 0;
      SLUICE_TRY(Repeat(depth, &item));
      items.push_back(item);
    }
    *out = NewNode(Node{NodeKind::kConcat, std::move(items)});
    return Ok();
  }

  // Read `{n}`, `{n,}` or `{n,m}` at pos_ without consuming it unless it is one.
  bool ReadBraces(uint32_t* min, uint32_t* max) {
    size_t at = pos_ + 1;
    auto number = [&](uint32_t* v) {
      size_t start = at;
      uint64_t n = 0;
      while (at < p_.size() && p_[at] >= '0' && p_[at] <= '9') {
        n = std::min<uint64_t>(n * 10 + (p_[at] - '0'), uint64_t{kUnbounded} - 1);
        ++at;
      }
      *v = static_cast<uint32_t>(n);
      return at > start;
    };
    if (!number(min)) return false;
    *max = *min;
    if (at < p_.size() && p_[at] == ',') {
      ++at;
      if (!number(max)) *max = kUnbounded;
    }
    if (at >= p_.size() || p_[at] != '}') return false;
    pos_ = at + 1;
    return true;
  }

  Status Repeat(size_t depth, size_t* out) {
    size_t atom = 0;
    bool assertion = false;
    SLUICE_TRY(Atom(depth, &atom, &assertion));
    uint32_t min = 0;
    uint32_t max = 0;
    uint32_t c = Peek();
    if (c == '*') {
      min = 0, max = kUnbounded, ++pos_;
    } else if (c == '+') {
      min = 1, max = kUnbounded, ++pos_;
    } else if (c == '?') {
      min = 0, max = 1, ++pos_;
    } else if (c == '{' && ReadBraces(&min, &max)) {
      if (max < min) return Invalid("numbers out of order in {} quantifier");
    } else {
      *out = atom;
      return Ok();
    }
    if (assertion) return Invalid("nothing to repeat");
    if (Peek() == '?') ++pos_;  // lazy: whether a match exists does not depend on it
    uint32_t save = static_cast<uint32_t>(pos_);
    uint32_t m1 = 0;
    uint32_t m2 = 0;
    if (Peek() == '*' || Peek() == '+' || Peek() == '?' ||
        (Peek() == '{' && ReadBraces(&m1, &m2))) {
      pos_ = save;
      return Invalid("nothing to repeat");
    }
    if (min > kMaxRepeat || (max != kUnbounded && max > kMaxRepeat)) {
      return Unsupported("a repetition count above 1000");
    }
    *out = NewNode(Node{NodeKind::kRepeat, {atom}, 0, min, max});
    return Ok();
  }

  Status Atom(size_t depth, size_t* out, bool* assertion) {
    uint32_t c = p_[pos_++];
    *assertion = false;
    if (c == '^' || c == '$') {
      *assertion = true;
      *out = NewNode(Node{c == '^' ? NodeKind::kBegin : NodeKind::kEnd});
      return Ok();
    }
    if (c == '.') {
      CharSet s;
      for (uint32_t t : {0x0Au, 0x0Du, 0x2028u, 0x2029u}) s.Add(t, t);
      s.Negate();
      *out = NewSet(std::move(s));
      return Ok();
    }
    if (c == '(') {
      if (Peek() == '?') {
        if (Peek(1) == ':') {
          pos_ += 2;
        } else if (Peek(1) == '<' && Peek(2) != '=' && Peek(2) != '!') {
          pos_ += 2;  // a named group: skip the name
          while (!AtEnd() && Peek() != '>') ++pos_;
          if (AtEnd()) return Invalid("unterminated group name");
          ++pos_;
        } else {
          return Unsupported("lookahead and lookbehind");
        }
      }
      SLUICE_TRY(Alternation(depth + 1, out));
      if (Peek() != ')') return Invalid("missing ')'");
      ++pos_;
      return Ok();
    }
    if (c == '[') return Class(out);
    if (c == '\\') return Escape(out, assertion);
    if (c == '*' || c == '+' || c == '?') return Invalid("nothing to repeat");
    if (c == '{') {
      --pos_;
      uint32_t a = 0;
      uint32_t b = 0;
      if (ReadBraces(&a, &b)) return Invalid("nothing to repeat");
      ++pos_;  // a lone '{' is a literal (ECMA-262 Annex B)
    }
    CharSet s;
    s.Add(c, c);
    *out = NewSet(std::move(s));
    return Ok();
  }

  // Hex digits at pos_: consume `count` of them, or none.
  bool ReadHex(size_t count, uint32_t* value) {
    if (pos_ + count > p_.size()) return false;
    uint32_t v = 0;
    for (size_t i = 0; i < count; ++i) {
      uint32_t d = p_[pos_ + i];
      int digit = d >= '0' && d <= '9'   ? int(d - '0')
                  : d >= 'a' && d <= 'f' ? int(d - 'a' + 10)
                  : d >= 'A' && d <= 'F' ? int(d - 'A' + 10)
                                         : -1;
      if (digit < 0) return false;
      v = v * 16 + static_cast<uint32_t>(digit);
    }
    pos_ += count;
    *value = v;
    return true;
  }

  // An escape after '\': a class (\d), an assertion (\b, outside classes) or one code point.
  // Returns the class in `set` when it is one, else the code point in `cp`.
  Status EscapeAtom(bool in_class, CharSet* set, bool* is_set, uint32_t* cp, int* assertion) {
    if (AtEnd()) return Invalid("\\ at end of pattern");
    uint32_t c = p_[pos_++];
    *is_set = false;
    *assertion = 0;
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 's':
      case 'S': {
        *set = c == 'd' || c == 'D' ? Digits() : c == 'w' || c == 'W' ? WordChars() : Spaces();
        if (c == 'D' || c == 'W' || c == 'S') set->Negate();
        *is_set = true;
        return Ok();
      }
      case 'b':
        if (in_class) {
          *cp = 0x08;
        } else {
          *assertion = 1;
        }
        return Ok();
      case 'B':
        if (in_class) return Invalid("\\B in a class");
        *assertion = 2;
        return Ok();
      case 't':
        *cp = 0x09;
        return Ok();
      case 'n':
        *cp = 0x0A;
        return Ok();
      case 'v':
        *cp = 0x0B;
        return Ok();
      case 'f':
        *cp = 0x0C;
        return Ok();
      case 'r':
        *cp = 0x0D;
        return Ok();
      case '0':
        *cp = 0;
        return Ok();
      case 'x':
        if (!ReadHex(2, cp)) *cp = 'x';
        return Ok();
      case 'u':
        if (Peek() == '{') {
          size_t save = pos_++;
          uint32_t v = 0;
          size_t digits = 0;
          uint32_t one = 0;
          while (ReadHex(1, &one)) {
            v = std::min<uint32_t>(v * 16 + one, kMaxCodePoint + 1);
            ++digits;
          }
          if (digits > 0 && Peek() == '}' && v <= kMaxCodePoint) {
            ++pos_;
            *cp = v;
            return Ok();
          }
          pos_ = save;
          *cp = 'u';
          return Ok();
        }
        if (!ReadHex(4, cp)) *cp = 'u';
        return Ok();
      case 'c':
        if ((Peek() >= 'a' && Peek() <= 'z') || (Peek() >= 'A' && Peek() <= 'Z')) {
          *cp = p_[pos_++] % 32;
        } else {
          --pos_;
          *cp = '\\';  // Annex B: "\c" not followed by a letter is a backslash and a 'c'
        }
        return Ok();
      case 'p':
      case 'P':
      case 'k':
        return Unsupported("\\p, \\P and \\k");
      default:
        if (c >= '1' && c <= '9') return Unsupported("backreferences");
        *cp = c;  // an identity escape: \. \\ \/ \- ...
        return Ok();
    }
  }

  Status Escape(size_t* out, bool* assertion) {
    CharSet set;
    bool is_set = false;
    uint32_t cp = 0;
    int which = 0;
    SLUICE_TRY(EscapeAtom(false, &set, &is_set, &cp, &which));
    if (which != 0) {
      *assertion = true;
      *out = NewNode(Node{which == 1 ? NodeKind::kWordBoundary : NodeKind::kNotWordBoundary});
      return Ok();
    }
    if (!is_set) set.Add(cp, cp);
    *out = NewSet(std::move(set));
    return Ok();
  }

  Status ClassAtom(CharSet* set, bool* is_set, uint32_t* cp) {
    uint32_t c = p_[pos_++];
    *is_set = false;
    if (c != '\\') {
      *cp = c;
      return Ok();
    }
    int which = 0;
    return EscapeAtom(true, set, is_set, cp, &which);
  }

  Status Class(size_t* out) {
    bool negated = Peek() == '^';
    if (negated) ++pos_;
    CharSet s;
    while (true) {
      if (AtEnd()) return Invalid("missing ']'");
      if (Peek() == ']') {
        ++pos_;
        break;
      }
      CharSet a_set;
      bool a_is_set = false;
      uint32_t a = 0;
      SLUICE_TRY(ClassAtom(&a_set, &a_is_set, &a));
      if (Peek() == '-' && Peek(1) != ']' && pos_ + 1 < p_.size()) {
        ++pos_;
        CharSet b_set;
        bool b_is_set = false;
        uint32_t b = 0;
        SLUICE_TRY(ClassAtom(&b_set, &b_is_set, &b));
        if (a_is_set || b_is_set) {
          // Annex B: a class escape beside '-' makes the '-' literal.
          if (a_is_set)
            s.AddAll(a_set);
          else
            s.Add(a, a);
          s.Add('-', '-');
          if (b_is_set)
            s.AddAll(b_set);
          else
            s.Add(b, b);
          continue;
        }
        if (a > b) return Invalid("range out of order in character class");
        s.Add(a, b);
        continue;
      }
      if (a_is_set) {
        s.AddAll(a_set);
      } else {
        s.Add(a, a);
      }
    }
    if (negated) s.Negate();
    *out = NewSet(std::move(s));
    return Ok();
  }

  Status Push(Inst inst) {
    if (program_.insts.size() >= kMaxProgram) {
      return Unsupported("a pattern that expands to more than 20000 instructions");
    }
    program_.insts.push_back(inst);
    return Ok();
  }
  uint32_t Pc() const { return static_cast<uint32_t>(program_.insts.size()); }

  Status Emit(size_t index, size_t depth) {
    if (depth > 2 * kMaxNesting + 8) return Unsupported("groups nested too deeply");
    const Node& n = nodes_[index];
    switch (n.kind) {
      case NodeKind::kSet:
        return Push({Op::kChar, static_cast<uint32_t>(n.set)});
      case NodeKind::kBegin:
        return Push({Op::kBegin});
      case NodeKind::kEnd:
        return Push({Op::kEnd});
      case NodeKind::kWordBoundary:
        return Push({Op::kWordBoundary});
      case NodeKind::kNotWordBoundary:
        return Push({Op::kNotWord});
      case NodeKind::kConcat:
        for (size_t child : n.children) SLUICE_TRY(Emit(child, depth + 1));
        return Ok();
      case NodeKind::kAlternate: {
        std::vector<uint32_t> jumps;
        for (size_t i = 0; i < n.children.size(); ++i) {
          if (i + 1 < n.children.size()) {
            uint32_t split = Pc();
            SLUICE_TRY(Push({Op::kSplit, split + 1, 0}));
            SLUICE_TRY(Emit(n.children[i], depth + 1));
            jumps.push_back(Pc());
            SLUICE_TRY(Push({Op::kJump}));
            program_.insts[split].y = Pc();
          } else {
            SLUICE_TRY(Emit(n.children[i], depth + 1));
          }
        }
        for (uint32_t j : jumps) program_.insts[j].x = Pc();
        return Ok();
      }
      case NodeKind::kRepeat: {
        size_t child = n.children[0];
        uint32_t min = n.min;
        uint32_t max = n.max;
        for (uint32_t i = 0; i < min; ++i) SLUICE_TRY(Emit(child, depth + 1));
        if (max == kUnbounded) {
          uint32_t loop = Pc();
          SLUICE_TRY(Push({Op::kSplit, loop + 1, 0}));
          SLUICE_TRY(Emit(child, depth + 1));
          SLUICE_TRY(Push({Op::kJump, loop}));
          program_.insts[loop].y = Pc();
          return Ok();
        }
        std::vector<uint32_t> splits;
        for (uint32_t i = min; i < max; ++i) {
          splits.push_back(Pc());
          SLUICE_TRY(Push({Op::kSplit, Pc() + 1, 0}));
          SLUICE_TRY(Emit(child, depth + 1));
        }
        for (uint32_t s : splits) program_.insts[s].y = Pc();
        return Ok();
      }
    }
    return Ok();
  }

  std::vector<uint32_t> p_;
  size_t pos_ = 0;
  std::vector<Node> nodes_;
  std::vector<CharSet> sets_;
  Program program_;
};

}  // namespace

Result<Program> Compile(std::string_view pattern) { return Compiler(pattern).Compile(); }

Result<bool> Run(const Program& program, const std::vector<uint32_t>& text, size_t* steps,
                 size_t max_steps) {
  const size_t n = text.size();
  const size_t size = program.insts.size();
  std::vector<size_t> mark(size, 0);  // the generation (position + 1) a pc was last added at
  std::vector<uint32_t> current;
  std::vector<uint32_t> next;
  std::vector<uint32_t> stack;
  bool matched = false;
  // Follow jumps, splits and assertions from `pc` at position `pos`; collect kChar threads.
  auto add = [&](std::vector<uint32_t>& list, uint32_t start, size_t pos) {
    stack.push_back(start);
    while (!stack.empty()) {
      uint32_t pc = stack.back();
      stack.pop_back();
      if (mark[pc] == pos + 1) continue;
      mark[pc] = pos + 1;
      ++*steps;
      const Inst& in = program.insts[pc];
      switch (in.op) {
        case Op::kChar:
          list.push_back(pc);
          break;
        case Op::kSplit:
          stack.push_back(in.y);
          stack.push_back(in.x);
          break;
        case Op::kJump:
          stack.push_back(in.x);
          break;
        case Op::kMatch:
          matched = true;
          break;
        case Op::kBegin:
          if (pos == 0) stack.push_back(pc + 1);
          break;
        case Op::kEnd:
          if (pos == n) stack.push_back(pc + 1);
          break;
        case Op::kWordBoundary:
        case Op::kNotWord: {
          bool before = pos > 0 && IsWordChar(text[pos - 1]);
          bool after = pos < n && IsWordChar(text[pos]);
          if ((before != after) == (in.op == Op::kWordBoundary)) stack.push_back(pc + 1);
          break;
        }
      }
    }
  };
  for (size_t pos = 0; pos <= n; ++pos) {
    add(current, 0, pos);
    if (matched) return true;
    if (*steps > max_steps) return InvalidArgument("regular expression work bound exceeded");
    if (pos == n) break;
    next.clear();
    for (uint32_t pc : current) {
      ++*steps;
      if (program.sets[program.insts[pc].x].Contains(text[pos])) add(next, pc + 1, pos + 1);
      if (matched) return true;
    }
    current.swap(next);
  }
  return false;
}

}  // namespace regex

Result<bool> RegexSearch(std::string_view pattern, std::string_view text, size_t* steps) {
  SLUICE_ASSIGN_OR_RETURN(regex::Program program, regex::Compile(pattern));
  size_t local = 0;
  size_t* counter = steps != nullptr ? steps : &local;
  return regex::Run(program, regex::Decode(text), counter, std::numeric_limits<size_t>::max());
}

}  // namespace sluice::dialects::jsonschema::internal
