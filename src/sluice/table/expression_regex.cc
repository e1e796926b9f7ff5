// RLIKE's regular expressions: Java's Pattern syntax (the part constraints use) compiled to a
// Thompson NFA and run as a Pike VM, so that matching takes time linear in the text whatever
// the pattern (Java backtracks: `(a*)*b` on a long run of a's would never finish). Only
// whether the pattern occurs somewhere (Matcher.find) is asked, so greedy and lazy quantifiers
// are the same. Constructs whose meaning needs backtracking (backreferences, lookaround,
// possessive quantifiers) are refused, as are class intersections and inline flags other than
// a leading (?i).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/table/expression_internal.h"

namespace sluice::table::internal {
namespace {

constexpr char32_t kMaxCodePoint = 0x10FFFF;
// Programs past this many instructions (counted repetition multiplies them) are refused.
constexpr size_t kMaxProgram = 20000;
constexpr int kMaxGroupDepth = 50;

enum class Assert : uint8_t { kStart, kEnd, kWordBoundary, kNotWordBoundary, kTextEnd };

struct Inst {
  enum class Op : uint8_t { kChar, kAny, kClass, kSplit, kJmp, kAssert, kMatch };
  Op op = Op::kMatch;
  char32_t c = 0;
  uint32_t x = 0;  // kSplit, kJmp: target; kClass: class index
  uint32_t y = 0;  // kSplit: second target
  Assert assertion = Assert::kStart;
};

struct CharClass {
  std::vector<std::pair<char32_t, char32_t>> ranges;  // sorted, merged
  bool Contains(char32_t c) const {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(c, kMaxCodePoint));
    return it != ranges.begin() && std::prev(it)->second >= c;
  }
};

// The pattern's syntax tree, compiled to instructions once parsed.
struct Node {
  enum class Kind : uint8_t { kEmpty, kChar, kAny, kClass, kAssert, kConcat, kAlt, kRepeat };
  Kind kind = Kind::kEmpty;
  char32_t c = 0;
  uint32_t cls = 0;
  Assert assertion = Assert::kStart;
  int min = 0;
  int max = -1;  // -1: unbounded
  std::vector<Node> children;
};

bool IsLineTerminator(char32_t c) {
  return c == '\n' || c == '\r' || c == 0x85 || c == 0x2028 || c == 0x2029;
}
bool IsWordChar(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

void Normalize(CharClass* cls) {
  auto& r = cls->ranges;
  std::sort(r.begin(), r.end());
  std::vector<std::pair<char32_t, char32_t>> merged;
  for (const auto& range : r) {
    if (!merged.empty() && range.first <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, range.second);
    } else {
      merged.push_back(range);
    }
  }
  r = std::move(merged);
}

CharClass Complement(CharClass cls) {
  Normalize(&cls);
  CharClass out;
  char32_t next = 0;
  for (const auto& [lo, hi] : cls.ranges) {
    if (lo > next) out.ranges.emplace_back(next, lo - 1);
    next = hi + 1;
  }
  if (next <= kMaxCodePoint) out.ranges.emplace_back(next, kMaxCodePoint);
  return out;
}

// \d \w \s and their complements.
bool PredefinedClass(char32_t letter, CharClass* out) {
  CharClass c;
  switch (FoldAscii(letter)) {
    case 'd':
      c.ranges = {{'0', '9'}};
      break;
    case 'w':
      c.ranges = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
      break;
    case 's':
      c.ranges = {{'\t', '\r'}, {' ', ' '}};
      break;
    default:
      return false;
  }
  *out = letter >= 'A' && letter <= 'Z' ? Complement(std::move(c)) : std::move(c);
  return true;
}

class RegexParser {
 public:
  explicit RegexParser(std::string_view pattern) : pattern_(pattern), p_(CodePoints(pattern)) {}

  Status Parse(Node* root, std::vector<CharClass>* classes, bool* ignore_case) {
    classes_ = classes;
    if (p_.size() >= 4 && p_[0] == '(' && p_[1] == '?' && p_[2] == 'i' && p_[3] == ')') {
      *ignore_case = true;
      ignore_case_ = true;
      i_ = 4;
    }
    SLUICE_TRY(Alternation(root));
    if (i_ < p_.size()) return Fail("unmatched ')'");
    return Ok();
  }

 private:
  Unexpected<Error> Fail(std::string_view what) const {
    return InvalidArgument(fmt::format("invalid regular expression '{}': {} at character {}",
                                       EscapeForMessage(pattern_, 80), what, i_));
  }
  bool More() const { return i_ < p_.size(); }
  char32_t Peek() const { return p_[i_]; }

  Status Alternation(Node* out) {
    if (++depth_ > kMaxGroupDepth) return Fail("groups nest too deeply");
    Node alt;
    alt.kind = Node::Kind::kAlt;
    while (true) {
      Node branch;
      SLUICE_TRY(Concatenation(&branch));
      alt.children.push_back(std::move(branch));
      if (!More() || Peek() != '|') break;
      ++i_;
    }
    --depth_;
    *out = alt.children.size() == 1 ? std::move(alt.children[0]) : std::move(alt);
    return Ok();
  }

  Status Concatenation(Node* out) {
    out->kind = Node::Kind::kConcat;
    while (More() && Peek() != '|' && Peek() != ')') {
      Node atom;
      SLUICE_TRY(Atom(&atom));
      SLUICE_TRY(Quantifiers(&atom));
      out->children.push_back(std::move(atom));
    }
    return Ok();
  }

  // One quantifier, lazy or not: Java refuses `a**` as a dangling metacharacter.
  Status Quantifiers(Node* atom) {
    if (More()) {
      int min = 0;
      int max = -1;
      const char32_t q = Peek();
      if (q == '*') {
        ++i_;
      } else if (q == '+') {
        min = 1;
        ++i_;
      } else if (q == '?') {
        max = 1;
        ++i_;
      } else if (q == '{') {
        SLUICE_TRY(Counted(&min, &max));
      } else {
        return Ok();
      }
      if (More() && Peek() == '?') {
        ++i_;  // lazy: the same for find()
      } else if (More() && Peek() == '+') {
        return Fail("possessive quantifiers are not supported");
      }
      Node repeat;
      repeat.kind = Node::Kind::kRepeat;
      repeat.min = min;
      repeat.max = max;
      repeat.children.push_back(std::move(*atom));
      *atom = std::move(repeat);
      if (More() && (Peek() == '*' || Peek() == '+' || Peek() == '?' || Peek() == '{')) {
        return Fail("dangling quantifier");
      }
    }
    return Ok();
  }

  Status Counted(int* min, int* max) {
    ++i_;  // {
    auto number = [&](int* v) {
      const size_t start = i_;
      *v = 0;
      while (More() && Peek() >= '0' && Peek() <= '9') {
        *v = std::min(*v * 10 + static_cast<int>(Peek() - '0'), 100000);
        ++i_;
      }
      return i_ > start;
    };
    if (!number(min)) return Fail("illegal repetition");
    *max = *min;
    if (More() && Peek() == ',') {
      ++i_;
      if (!number(max)) *max = -1;
    }
    if (!More() || Peek() != '}') return Fail("illegal repetition");
    ++i_;
    if (*max >= 0 && *max < *min) return Fail("illegal repetition range");
    return Ok();
  }

  uint32_t AddClass(CharClass cls) {
    Normalize(&cls);
    classes_->push_back(std::move(cls));
    return static_cast<uint32_t>(classes_->size() - 1);
  }

  Status Atom(Node* out) {
    const char32_t c = p_[i_++];
    switch (c) {
      case '(': {
        if (More() && Peek() == '?') {
          if (i_ + 1 < p_.size() && p_[i_ + 1] == ':') {
            i_ += 2;
          } else {
            return Fail("lookaround and inline flags are not supported");
          }
        }
        SLUICE_TRY(Alternation(out));
        if (!More() || Peek() != ')') return Fail("unclosed group");
        ++i_;
        return Ok();
      }
      case '[':
        return Class(out);
      case '.':
        out->kind = Node::Kind::kAny;
        return Ok();
      case '^':
        out->kind = Node::Kind::kAssert;
        out->assertion = Assert::kStart;
        return Ok();
      case '$':
        out->kind = Node::Kind::kAssert;
        out->assertion = Assert::kEnd;
        return Ok();
      case '*':
      case '+':
      case '?':
      case '{':
        --i_;
        return Fail("dangling quantifier");
      case '\\':
        return Escape(out);
      default:
        out->kind = Node::Kind::kChar;
        out->c = c;
        return Ok();
    }
  }

  // The character an escape stands for, or a class for \d \w \s; false for anything else.
  Status EscapedChar(char32_t* c, CharClass* cls, bool* is_class) {
    if (!More()) return Fail("trailing backslash");
    const char32_t e = p_[i_++];
    *is_class = PredefinedClass(e, cls);
    if (*is_class) return Ok();
    auto hex = [&](size_t digits) -> Status {
      char32_t v = 0;
      for (size_t k = 0; k < digits; ++k) {
        if (!More()) return Fail("bad escape");
        const char32_t h = p_[i_++];
        const int d = h >= '0' && h <= '9'   ? static_cast<int>(h - '0')
                      : h >= 'a' && h <= 'f' ? static_cast<int>(h - 'a' + 10)
                      : h >= 'A' && h <= 'F' ? static_cast<int>(h - 'A' + 10)
                                             : -1;
        if (d < 0) return Fail("bad escape");
        v = v * 16 + static_cast<char32_t>(d);
      }
      *c = v;
      return Ok();
    };
    switch (e) {
      case 't':
        *c = '\t';
        return Ok();
      case 'n':
        *c = '\n';
        return Ok();
      case 'r':
        *c = '\r';
        return Ok();
      case 'f':
        *c = '\f';
        return Ok();
      case 'a':
        *c = '\a';
        return Ok();
      case 'e':
        *c = 0x1B;
        return Ok();
      case 'x':
        return hex(2);
      case 'u':
        return hex(4);
      default:
        if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9')) {
          return Fail(fmt::format("the escape \\{} is not supported", static_cast<char>(e)));
        }
        *c = e;  // an escaped punctuation character stands for itself
        return Ok();
    }
  }

  Status Escape(Node* out) {
    if (More()) {
      const char32_t e = Peek();
      Assert a = Assert::kStart;
      bool assertion = true;
      if (e == 'b') {
        a = Assert::kWordBoundary;
      } else if (e == 'B') {
        a = Assert::kNotWordBoundary;
      } else if (e == 'A') {
        a = Assert::kStart;
      } else if (e == 'z') {
        a = Assert::kTextEnd;
      } else if (e == 'Z') {
        a = Assert::kEnd;
      } else {
        assertion = false;
      }
      if (assertion) {
        ++i_;
        out->kind = Node::Kind::kAssert;
        out->assertion = a;
        return Ok();
      }
    }
    char32_t c = 0;
    CharClass cls;
    bool is_class = false;
    SLUICE_TRY(EscapedChar(&c, &cls, &is_class));
    if (is_class) {
      out->kind = Node::Kind::kClass;
      out->cls = AddClass(std::move(cls));
    } else {
      out->kind = Node::Kind::kChar;
      out->c = c;
    }
    return Ok();
  }

  Status Class(Node* out) {
    CharClass cls;
    bool negated = false;
    if (More() && Peek() == '^') {
      negated = true;
      ++i_;
    }
    bool first = true;
    while (true) {
      if (!More()) return Fail("unclosed character class");
      char32_t c = Peek();
      if (c == ']' && !first) {
        ++i_;
        break;
      }
      first = false;
      if (c == '[' || (c == '&' && i_ + 1 < p_.size() && p_[i_ + 1] == '&')) {
        return Fail("nested classes and intersections are not supported");
      }
      ++i_;
      if (c == '\\') {
        CharClass predefined;
        bool is_class = false;
        SLUICE_TRY(EscapedChar(&c, &predefined, &is_class));
        if (is_class) {
          cls.ranges.insert(cls.ranges.end(), predefined.ranges.begin(), predefined.ranges.end());
          continue;
        }
      }
      char32_t hi = c;
      if (More() && Peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
        ++i_;
        hi = p_[i_++];
        if (hi == '\\') {
          CharClass unused;
          bool is_class = false;
          SLUICE_TRY(EscapedChar(&hi, &unused, &is_class));
          if (is_class) return Fail("a class cannot end a range");
        }
        if (hi < c) return Fail("illegal character range");
      }
      cls.ranges.emplace_back(c, hi);
    }
    if (ignore_case_) {
      // (?i) folds ASCII letters only, as Java's CASE_INSENSITIVE does by default; before a
      // negation, so that [^a] excludes A too.
      std::vector<std::pair<char32_t, char32_t>> other_case;
      for (const auto& [lo, hi] : cls.ranges) {
        for (char32_t k = std::max<char32_t>(lo, 'A'); k <= std::min<char32_t>(hi, 'z'); ++k) {
          if (k >= 'A' && k <= 'Z') other_case.emplace_back(k + 32, k + 32);
          if (k >= 'a' && k <= 'z') other_case.emplace_back(k - 32, k - 32);
        }
      }
      cls.ranges.insert(cls.ranges.end(), other_case.begin(), other_case.end());
    }
    out->kind = Node::Kind::kClass;
    out->cls = AddClass(negated ? Complement(std::move(cls)) : std::move(cls));
    return Ok();
  }

  std::string_view pattern_;
  std::vector<char32_t> p_;
  size_t i_ = 0;
  int depth_ = 0;
  bool ignore_case_ = false;
  std::vector<CharClass>* classes_ = nullptr;
};

class Compiler {
 public:
  explicit Compiler(std::vector<Inst>* prog) : prog_(prog) {}

  Status Emit(const Node& n) {
    if (prog_->size() > kMaxProgram) {
      return InvalidArgument(
          fmt::format("regular expression too large (more than {} steps)", kMaxProgram));
    }
    switch (n.kind) {
      case Node::Kind::kEmpty:
        return Ok();
      case Node::Kind::kChar:
        Add({Inst::Op::kChar, n.c, 0, 0, Assert::kStart});
        return Ok();
      case Node::Kind::kAny:
        Add({Inst::Op::kAny, 0, 0, 0, Assert::kStart});
        return Ok();
      case Node::Kind::kClass:
        Add({Inst::Op::kClass, 0, n.cls, 0, Assert::kStart});
        return Ok();
      case Node::Kind::kAssert:
        Add({Inst::Op::kAssert, 0, 0, 0, n.assertion});
        return Ok();
      case Node::Kind::kConcat:
        for (const Node& c : n.children) SLUICE_TRY(Emit(c));
        return Ok();
      case Node::Kind::kAlt:
        return EmitAlternation(n, 0);
      case Node::Kind::kRepeat:
        return EmitRepeat(n);
    }
    return Ok();
  }

 private:
  uint32_t Add(Inst inst) {
    prog_->push_back(inst);
    return static_cast<uint32_t>(prog_->size() - 1);
  }
  uint32_t Here() const { return static_cast<uint32_t>(prog_->size()); }

  // a|b|c: split to the first branch or to the rest.
  Status EmitAlternation(const Node& n, size_t from) {
    if (from + 1 == n.children.size()) return Emit(n.children[from]);
    const uint32_t split = Add({Inst::Op::kSplit, 0, 0, 0, Assert::kStart});
    (*prog_)[split].x = Here();
    SLUICE_TRY(Emit(n.children[from]));
    const uint32_t jmp = Add({Inst::Op::kJmp, 0, 0, 0, Assert::kStart});
    (*prog_)[split].y = Here();
    SLUICE_TRY(EmitAlternation(n, from + 1));
    (*prog_)[jmp].x = Here();
    return Ok();
  }

  Status EmitRepeat(const Node& n) {
    const Node& body = n.children[0];
    for (int k = 0; k < n.min; ++k) SLUICE_TRY(Emit(body));
    if (n.max < 0) {
      const uint32_t split = Add({Inst::Op::kSplit, 0, 0, 0, Assert::kStart});
      (*prog_)[split].x = Here();
      SLUICE_TRY(Emit(body));
      Add({Inst::Op::kJmp, 0, split, 0, Assert::kStart});
      (*prog_)[split].y = Here();
      return Ok();
    }
    std::vector<uint32_t> splits;
    for (int k = n.min; k < n.max; ++k) {
      splits.push_back(Add({Inst::Op::kSplit, 0, 0, 0, Assert::kStart}));
      (*prog_)[splits.back()].x = Here();
      SLUICE_TRY(Emit(body));
    }
    for (uint32_t s : splits) (*prog_)[s].y = Here();
    return Ok();
  }

  std::vector<Inst>* prog_;
};

}  // namespace

struct RegexPattern {
  std::vector<Inst> prog;
  std::vector<CharClass> classes;
  bool ignore_case = false;
};

Result<std::shared_ptr<const RegexPattern>> CompileRegex(std::string_view pattern) {
  auto re = std::make_shared<RegexPattern>();
  Node root;
  SLUICE_TRY(RegexParser(pattern).Parse(&root, &re->classes, &re->ignore_case));
  SLUICE_TRY(Compiler(&re->prog).Emit(root));
  re->prog.push_back({Inst::Op::kMatch, 0, 0, 0, Assert::kStart});
  return std::shared_ptr<const RegexPattern>(std::move(re));
}

namespace {

bool AssertHolds(Assert a, const std::vector<char32_t>& t, size_t pos) {
  const size_t n = t.size();
  switch (a) {
    case Assert::kStart:
      return pos == 0;
    case Assert::kTextEnd:
      return pos == n;
    case Assert::kEnd:
      // End of input, or before a line terminator that ends it (Java's $ without MULTILINE).
      return pos == n || (pos + 1 == n && IsLineTerminator(t[pos])) ||
             (pos + 2 == n && t[pos] == '\r' && t[pos + 1] == '\n');
    case Assert::kWordBoundary:
    case Assert::kNotWordBoundary: {
      const bool before = pos > 0 && IsWordChar(t[pos - 1]);
      const bool after = pos < n && IsWordChar(t[pos]);
      return (before != after) == (a == Assert::kWordBoundary);
    }
  }
  return false;
}

// The set of instructions threads wait on, without duplicates.
class ThreadList {
 public:
  explicit ThreadList(size_t size) : mark_(size, UINT32_MAX) {}
  void Clear() {
    pcs_.clear();
    ++generation_;
  }
  bool Visit(uint32_t pc) {
    if (mark_[pc] == generation_) return false;
    mark_[pc] = generation_;
    return true;
  }
  void Push(uint32_t pc) { pcs_.push_back(pc); }
  const std::vector<uint32_t>& pcs() const { return pcs_; }

 private:
  std::vector<uint32_t> mark_;
  std::vector<uint32_t> pcs_;
  uint32_t generation_ = 0;
};

}  // namespace

Result<bool> SearchRegex(const RegexPattern& re, std::string_view text) {
  const std::vector<char32_t> t = CodePoints(text);
  const auto& prog = re.prog;
  ThreadList current(prog.size());
  ThreadList next(prog.size());
  std::vector<uint32_t> stack;
  // Follow jumps, splits and assertions from `start` at `pos`; true when a match is reached.
  auto add = [&](ThreadList& list, uint32_t start, size_t pos) {
    stack.assign(1, start);
    while (!stack.empty()) {
      const uint32_t pc = stack.back();
      stack.pop_back();
      if (!list.Visit(pc)) continue;
      const Inst& in = prog[pc];
      switch (in.op) {
        case Inst::Op::kMatch:
          return true;
        case Inst::Op::kJmp:
          stack.push_back(in.x);
          break;
        case Inst::Op::kSplit:
          stack.push_back(in.y);
          stack.push_back(in.x);
          break;
        case Inst::Op::kAssert:
          if (AssertHolds(in.assertion, t, pos)) stack.push_back(pc + 1);
          break;
        case Inst::Op::kChar:
        case Inst::Op::kAny:
        case Inst::Op::kClass:
          list.Push(pc);
          break;
      }
    }
    return false;
  };
  current.Clear();
  for (size_t pos = 0;; ++pos) {
    // find(): a match may start anywhere.
    if (add(current, 0, pos)) return true;
    if (pos == t.size()) return false;
    const char32_t c = re.ignore_case ? FoldAscii(t[pos]) : t[pos];
    next.Clear();
    for (uint32_t pc : current.pcs()) {
      const Inst& in = prog[pc];
      bool step = false;
      if (in.op == Inst::Op::kChar) {
        step = (re.ignore_case ? FoldAscii(in.c) : in.c) == c;
      } else if (in.op == Inst::Op::kAny) {
        step = !IsLineTerminator(t[pos]);
      } else {
        step = re.classes[in.x].Contains(t[pos]);
      }
      if (step && add(next, pc + 1, pos + 1)) return true;
    }
    std::swap(current, next);
  }
}

}  // namespace sluice::table::internal
