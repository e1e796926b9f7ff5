// Parsing Spark SQL expressions: a lexer over the whole text, then precedence climbing over
// Spark's grammar (SqlBaseParser's booleanExpression / predicate / valueExpression rules):
//
//   expr      := and (OR and)*
//   and       := not (AND not)*
//   not       := (NOT | '!') not | predicate
//   predicate := value [IS [NOT] (NULL|TRUE|FALSE|UNKNOWN|DISTINCT FROM value)
//                      | [NOT] IN '(' expr (',' expr)* ')' | [NOT] BETWEEN value AND value
//                      | [NOT] (LIKE|ILIKE) value [ESCAPE string] | [NOT] (RLIKE|REGEXP) value]
//   value     := unary (binop unary)*   comparisons < | < ^ < & < + - || < * / % DIV
//   unary     := ('-' | '+' | '~') unary | postfix
//   postfix   := primary ('.' name | '[' expr ']')*
//   primary   := literal | name | name '(' args ')' | '(' expr ')' | CASE ... END
//              | CAST '(' expr AS type ')' | (DATE|TIMESTAMP|TIMESTAMP_NTZ|TIMESTAMP_LTZ) string
//
// Recursion happens only through nesting (parentheses, NOT, unary signs, arguments), each step
// counted against kMaxExpressionDepth; chains of AND / OR are flat nodes, and left-deep chains
// of other operators are refused past the same height.
#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/table/expression.h"
#include "sluice/table/expression_internal.h"

namespace sluice::table {
namespace {

using schema::Type;
using schema::TypePtr;

enum class Tok : uint8_t { kEnd, kIdent, kQuotedIdent, kString, kNumber, kSymbol };

struct Token {
  Tok kind = Tok::kEnd;
  size_t offset = 0;
  size_t length = 0;
  std::string value;  // identifier as written, unquoted name, unescaped string, number, symbol
};

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Unexpected<Error> ErrorAt(size_t offset, std::string_view what) {
  return InvalidArgument(fmt::format("{} at offset {}", what, offset));
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      SLUICE_TRY(SkipSpaceAndComments());
      Token t;
      t.offset = pos_;
      if (pos_ >= text_.size()) {
        out.push_back(std::move(t));
        return out;
      }
      const char c = text_[pos_];
      if (IsIdentStart(c)) {
        while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
        t.kind = Tok::kIdent;
        t.value = std::string(text_.substr(t.offset, pos_ - t.offset));
      } else if (c == '`') {
        SLUICE_TRY(QuotedIdent(&t));
      } else if (c == '\'' || c == '"') {
        SLUICE_TRY(StringLiteral(&t));
      } else if (IsDigit(c) || (c == '.' && pos_ + 1 < text_.size() && IsDigit(text_[pos_ + 1]))) {
        SLUICE_TRY(Number(&t));
      } else {
        SLUICE_TRY(Symbol(&t));
      }
      t.length = pos_ - t.offset;
      out.push_back(std::move(t));
    }
  }

 private:
  Status SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '-') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        const size_t end = text_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) return ErrorAt(pos_, "unterminated comment");
        pos_ = end + 2;
      } else {
        break;
      }
    }
    return Ok();
  }

  Status QuotedIdent(Token* t) {
    const size_t start = pos_++;
    std::string name;
    while (true) {
      if (pos_ >= text_.size()) return ErrorAt(start, "unterminated quoted name");
      const char c = text_[pos_++];
      if (c == '`') {
        if (pos_ < text_.size() && text_[pos_] == '`') {
          name += '`';
          ++pos_;
          continue;
        }
        break;
      }
      name += c;
    }
    if (name.empty()) return ErrorAt(start, "empty quoted name");
    t->kind = Tok::kQuotedIdent;
    t->value = std::move(name);
    return Ok();
  }

  // Spark's unescapeSQLString: backslash escapes, octal \ooo, \uXXXX; an unknown escape
  // stands for the character itself, and \% \_ keep their backslash (for LIKE).
  Status StringLiteral(Token* t) {
    const size_t start = pos_;
    const char quote = text_[pos_++];
    std::string s;
    while (true) {
      if (pos_ >= text_.size()) return ErrorAt(start, "unterminated string literal");
      const char c = text_[pos_++];
      if (c == quote) break;
      if (c != '\\') {
        s += c;
        continue;
      }
      if (pos_ >= text_.size()) return ErrorAt(start, "unterminated string literal");
      const char e = text_[pos_];
      if (e == 'u' && pos_ + 4 < text_.size()) {
        uint32_t cp = 0;
        bool ok = true;
        for (size_t k = 1; k <= 4; ++k) {
          const int h = HexValue(text_[pos_ + k]);
          if (h < 0) ok = false;
          cp = cp * 16 + static_cast<uint32_t>(h < 0 ? 0 : h);
        }
        if (ok) {
          AppendUtf8(s, cp);
          pos_ += 5;
          continue;
        }
      }
      if (e >= '0' && e <= '3' && pos_ + 2 < text_.size() && text_[pos_ + 1] >= '0' &&
          text_[pos_ + 1] <= '7' && text_[pos_ + 2] >= '0' && text_[pos_ + 2] <= '7') {
        s += static_cast<char>((e - '0') * 64 + (text_[pos_ + 1] - '0') * 8 +
                               (text_[pos_ + 2] - '0'));
        pos_ += 3;
        continue;
      }
      ++pos_;
      switch (e) {
        case '0':
          s += '\0';
          break;
        case 'b':
          s += '\b';
          break;
        case 'n':
          s += '\n';
          break;
        case 'r':
          s += '\r';
          break;
        case 't':
          s += '\t';
          break;
        case 'Z':
          s += '\x1A';
          break;
        case '%':
          s += "\\%";
          break;
        case '_':
          s += "\\_";
          break;
        default:
          s += e;
      }
    }
    t->kind = Tok::kString;
    t->value = std::move(s);
    return Ok();
  }

  Status Number(Token* t) {
    const size_t start = pos_;
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
      if (p < text_.size() && IsDigit(text_[p])) {
        while (p < text_.size() && IsDigit(text_[p])) ++p;
        pos_ = p;
      }
    }
    // A suffix (L, S, Y, D, F, BD) is part of the token; any other letter glued on is an error.
    const size_t suffix = pos_;
    while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
    const std::string_view sfx = text_.substr(suffix, pos_ - suffix);
    if (!sfx.empty() && !EqualsIgnoreCase(sfx, "L") && !EqualsIgnoreCase(sfx, "S") &&
        !EqualsIgnoreCase(sfx, "Y") && !EqualsIgnoreCase(sfx, "D") && !EqualsIgnoreCase(sfx, "F") &&
        !EqualsIgnoreCase(sfx, "BD")) {
      return ErrorAt(start, fmt::format("invalid number '{}'",
                                        EscapeForMessage(text_.substr(start, pos_ - start), 40)));
    }
    t->kind = Tok::kNumber;
    t->value = std::string(text_.substr(start, pos_ - start));
    return Ok();
  }

  Status Symbol(Token* t) {
    static constexpr std::string_view kSymbols[] = {
        "<=>", "<>", "<=", ">=", "!=", "==", "||", "(", ")", ",", ".", "[", "]", "+",
        "-",   "*",  "/",  "%",  "=",  "<",  ">",  "&", "|", "^", "~", "!", ":"};
    for (std::string_view s : kSymbols) {
      if (text_.substr(pos_, s.size()) == s) {
        t->kind = Tok::kSymbol;
        t->value = std::string(s);
        pos_ += s.size();
        return Ok();
      }
    }
    return ErrorAt(pos_, fmt::format("unexpected character '{}'",
                                     EscapeForMessage(text_.substr(pos_, 1), 10)));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Words with a role in the grammar: never a bare column name (Spark reserves them too).
bool IsStructuralKeyword(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "AND",    "OR",   "NOT",    "IS",       "IN",   "BETWEEN", "LIKE",   "ILIKE", "RLIKE",
      "REGEXP", "CASE", "WHEN",   "THEN",     "ELSE", "END",     "NULL",   "TRUE",  "FALSE",
      "CAST",   "DIV",  "ESCAPE", "DISTINCT", "FROM", "AS",      "UNKNOWN"};
  for (std::string_view k : kWords) {
    if (EqualsIgnoreCase(w, k)) return true;
  }
  return false;
}

using Node = std::shared_ptr<Expression>;

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens)
      : text_(text), toks_(std::move(tokens)) {}

  Result<ExpressionPtr> Run() {
    SLUICE_ASSIGN_OR_RETURN(Node root, ParseExpr());
    if (Peek().kind != Tok::kEnd) return UnexpectedToken(Peek());
    return ExpressionPtr(std::move(root));
  }

 private:
  // Counts one level of nesting for as long as it lives.
  class DepthGuard {
   public:
    explicit DepthGuard(int* depth) : depth_(depth) { ++*depth_; }
    ~DepthGuard() { --*depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    int* depth_;
  };

  const Token& Peek(size_t ahead = 0) const {
    const size_t i = std::min(pos_ + ahead, toks_.size() - 1);
    return toks_[i];
  }
  const Token& Next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool IsSymbol(std::string_view s, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == Tok::kSymbol && t.value == s;
  }
  bool IsKeyword(std::string_view k, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == Tok::kIdent && EqualsIgnoreCase(t.value, k);
  }
  bool AcceptSymbol(std::string_view s) {
    if (!IsSymbol(s)) return false;
    Next();
    return true;
  }
  bool AcceptKeyword(std::string_view k) {
    if (!IsKeyword(k)) return false;
    Next();
    return true;
  }

  std::string Describe(const Token& t) const {
    if (t.kind == Tok::kEnd) return "end of input";
    return fmt::format("'{}'", EscapeForMessage(text_.substr(t.offset, t.length), 40));
  }
  Unexpected<Error> UnexpectedToken(const Token& t) const {
    return ErrorAt(t.offset, fmt::format("unexpected {}", Describe(t)));
  }
  Status ExpectSymbol(std::string_view s) {
    if (AcceptSymbol(s)) return Ok();
    return ErrorAt(Peek().offset, fmt::format("expected '{}', found {}", s, Describe(Peek())));
  }
  Status ExpectKeyword(std::string_view k) {
    if (AcceptKeyword(k)) return Ok();
    return ErrorAt(Peek().offset, fmt::format("expected {}, found {}", k, Describe(Peek())));
  }
  Status Enter(const DepthGuard&, size_t offset) const {
    if (depth_ > kMaxExpressionDepth) {
      return ErrorAt(offset,
                     fmt::format("expression nests deeper than {} levels", kMaxExpressionDepth));
    }
    return Ok();
  }

  // Build a node over `children`, refusing trees taller than the limit (left-deep operator
  // chains grow without the parser recursing).
  Result<Node> Make(ExprKind kind, size_t offset, std::vector<ExpressionPtr> children = {}) {
    auto n = std::make_shared<Expression>();
    n->kind = kind;
    n->offset = offset;
    int h = 0;
    for (const ExpressionPtr& c : children) {
      auto it = heights_.find(c.get());
      h = std::max(h, it == heights_.end() ? 1 : it->second);
    }
    if (h + 1 > kMaxExpressionDepth) {
      return ErrorAt(offset,
                     fmt::format("expression nests deeper than {} levels", kMaxExpressionDepth));
    }
    n->children = std::move(children);
    // Every node is recorded, leaves too: a freed node's address may come back.
    heights_[n.get()] = h + 1;
    return n;
  }

  Result<Node> ParseExpr() {
    DepthGuard guard(&depth_);
    SLUICE_TRY(Enter(guard, Peek().offset));
    return ParseOr();
  }

  Result<Node> ParseOr() {
    SLUICE_ASSIGN_OR_RETURN(Node first, ParseAnd());
    if (!IsKeyword("OR")) return first;
    std::vector<ExpressionPtr> terms{first};
    while (AcceptKeyword("OR")) {
      SLUICE_ASSIGN_OR_RETURN(Node t, ParseAnd());
      terms.push_back(std::move(t));
    }
    return Make(ExprKind::kOr, first->offset, std::move(terms));
  }

  Result<Node> ParseAnd() {
    SLUICE_ASSIGN_OR_RETURN(Node first, ParseNot());
    if (!IsKeyword("AND")) return first;
    std::vector<ExpressionPtr> terms{first};
    while (AcceptKeyword("AND")) {
      SLUICE_ASSIGN_OR_RETURN(Node t, ParseNot());
      terms.push_back(std::move(t));
    }
    return Make(ExprKind::kAnd, first->offset, std::move(terms));
  }

  Result<Node> ParseNot() {
    if (IsKeyword("NOT") || IsSymbol("!")) {
      const size_t offset = Next().offset;
      DepthGuard guard(&depth_);
      SLUICE_TRY(Enter(guard, offset));
      SLUICE_ASSIGN_OR_RETURN(Node operand, ParseNot());
      SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kUnary, offset, {operand}));
      n->unary = UnaryOp::kNot;
      return n;
    }
    return ParsePredicate();
  }

  Result<Node> ParsePredicate() {
    SLUICE_ASSIGN_OR_RETURN(Node value, ParseValue(1));
    const size_t offset = value->offset;
    if (AcceptKeyword("IS")) {
      const bool negated = AcceptKeyword("NOT");
      std::vector<ExpressionPtr> children{value};
      IsTest test = IsTest::kNull;
      if (AcceptKeyword("NULL")) {
        test = IsTest::kNull;
      } else if (AcceptKeyword("TRUE")) {
        test = IsTest::kTrue;
      } else if (AcceptKeyword("FALSE")) {
        test = IsTest::kFalse;
      } else if (AcceptKeyword("UNKNOWN")) {
        test = IsTest::kUnknown;
      } else if (AcceptKeyword("DISTINCT")) {
        SLUICE_TRY(ExpectKeyword("FROM"));
        SLUICE_ASSIGN_OR_RETURN(Node right, ParseValue(1));
        children.push_back(std::move(right));
        test = IsTest::kDistinctFrom;
      } else {
        return ErrorAt(Peek().offset,
                       fmt::format("expected NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after "
                                   "IS, found {}",
                                   Describe(Peek())));
      }
      SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kIs, offset, std::move(children)));
      n->is_test = test;
      n->negated = negated;
      return n;
    }
    bool negated = false;
    if (IsKeyword("NOT") &&
        (IsKeyword("IN", 1) || IsKeyword("BETWEEN", 1) || IsKeyword("LIKE", 1) ||
         IsKeyword("ILIKE", 1) || IsKeyword("RLIKE", 1) || IsKeyword("REGEXP", 1))) {
      Next();
      negated = true;
    }
    if (AcceptKeyword("IN")) {
      SLUICE_TRY(ExpectSymbol("("));
      std::vector<ExpressionPtr> children{value};
      do {
        SLUICE_ASSIGN_OR_RETURN(Node item, ParseExpr());
        children.push_back(std::move(item));
      } while (AcceptSymbol(","));
      SLUICE_TRY(ExpectSymbol(")"));
      SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kIn, offset, std::move(children)));
      n->negated = negated;
      return n;
    }
    if (AcceptKeyword("BETWEEN")) {
      SLUICE_ASSIGN_OR_RETURN(Node low, ParseValue(1));
      SLUICE_TRY(ExpectKeyword("AND"));
      SLUICE_ASSIGN_OR_RETURN(Node high, ParseValue(1));
      SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kBetween, offset, {value, low, high}));
      n->negated = negated;
      return n;
    }
    LikeKind like = LikeKind::kLike;
    if (AcceptKeyword("LIKE")) {
      like = LikeKind::kLike;
    } else if (AcceptKeyword("ILIKE")) {
      like = LikeKind::kIlike;
    } else if (AcceptKeyword("RLIKE") || AcceptKeyword("REGEXP")) {
      like = LikeKind::kRlike;
    } else {
      return value;
    }
    SLUICE_ASSIGN_OR_RETURN(Node pattern, ParseValue(1));
    SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kLike, offset, {value, pattern}));
    n->like = like;
    n->negated = negated;
    if (like != LikeKind::kRlike && AcceptKeyword("ESCAPE")) {
      const Token& e = Peek();
      if (e.kind != Tok::kString || internal::Utf8Length(e.value) != 1) {
        return ErrorAt(e.offset, "ESCAPE takes a string of one character");
      }
      n->escape = Next().value;
    }
    return n;
  }

  // Binary operators by precedence, lowest first (valueExpression's alternatives).
  static int Precedence(const Token& t, BinaryOp* op) {
    if (t.kind == Tok::kIdent && EqualsIgnoreCase(t.value, "DIV")) {
      *op = BinaryOp::kIntDivide;
      return 6;
    }
    if (t.kind != Tok::kSymbol) return 0;
    static const std::pair<std::string_view, std::pair<BinaryOp, int>> kOps[] = {
        {"=", {BinaryOp::kEq, 1}},           {"==", {BinaryOp::kEq, 1}},
        {"<=>", {BinaryOp::kNullSafeEq, 1}}, {"<>", {BinaryOp::kNe, 1}},
        {"!=", {BinaryOp::kNe, 1}},          {"<", {BinaryOp::kLt, 1}},
        {"<=", {BinaryOp::kLe, 1}},          {">", {BinaryOp::kGt, 1}},
        {">=", {BinaryOp::kGe, 1}},          {"|", {BinaryOp::kBitOr, 2}},
        {"^", {BinaryOp::kBitXor, 3}},       {"&", {BinaryOp::kBitAnd, 4}},
        {"+", {BinaryOp::kAdd, 5}},          {"-", {BinaryOp::kSubtract, 5}},
        {"||", {BinaryOp::kConcat, 5}},      {"*", {BinaryOp::kMultiply, 6}},
        {"/", {BinaryOp::kDivide, 6}},       {"%", {BinaryOp::kRemainder, 6}},
    };
    for (const auto& [s, v] : kOps) {
      if (t.value == s) {
        *op = v.first;
        return v.second;
      }
    }
    return 0;
  }

  Result<Node> ParseValue(int min_precedence) {
    SLUICE_ASSIGN_OR_RETURN(Node left, ParseUnary());
    while (true) {
      BinaryOp op = BinaryOp::kEq;
      const int p = Precedence(Peek(), &op);
      if (p == 0 || p < min_precedence) return left;
      Next();
      SLUICE_ASSIGN_OR_RETURN(Node right, ParseValue(p + 1));
      SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kBinary, left->offset, {left, right}));
      n->binary = op;
      left = std::move(n);
    }
  }

  Result<Node> ParseUnary() {
    if (IsSymbol("-") || IsSymbol("+") || IsSymbol("~")) {
      const Token& op = Next();
      // Spark's grammar reads a minus before a number as part of the literal: -2147483648 is
      // an int.
      if (op.value == "-" && Peek().kind == Tok::kNumber) {
        const Token& number = Next();
        SLUICE_ASSIGN_OR_RETURN(Node lit, NumberLiteral(number, op.offset, true));
        return ParsePostfix(std::move(lit));
      }
      DepthGuard guard(&depth_);
      SLUICE_TRY(Enter(guard, op.offset));
      SLUICE_ASSIGN_OR_RETURN(Node operand, ParseUnary());
      SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kUnary, op.offset, {operand}));
      n->unary = op.value == "-"   ? UnaryOp::kNegate
                 : op.value == "+" ? UnaryOp::kPlus
                                   : UnaryOp::kBitNot;
      return n;
    }
    SLUICE_ASSIGN_OR_RETURN(Node primary, ParsePrimary());
    return ParsePostfix(std::move(primary));
  }

  Result<Node> ParsePostfix(Node base) {
    while (true) {
      if (IsSymbol(".")) {
        Next();
        const Token& name = Peek();
        if (name.kind != Tok::kIdent && name.kind != Tok::kQuotedIdent) {
          return ErrorAt(name.offset,
                         fmt::format("expected a field name after '.', found {}", Describe(name)));
        }
        Next();
        if (base->kind == ExprKind::kColumn) {
          base->names.push_back(name.value);
          continue;
        }
        SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kField, base->offset, {base}));
        n->names.push_back(name.value);
        base = std::move(n);
      } else if (IsSymbol("[")) {
        Next();
        SLUICE_ASSIGN_OR_RETURN(Node index, ParseExpr());
        SLUICE_TRY(ExpectSymbol("]"));
        SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kSubscript, base->offset, {base, index}));
        base = std::move(n);
      } else {
        return base;
      }
    }
  }

  Result<Node> ParsePrimary() {
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kEnd:
        return UnexpectedToken(t);
      case Tok::kNumber:
        Next();
        return NumberLiteral(t, t.offset, false);
      case Tok::kString: {
        SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kLiteral, t.offset));
        n->literal = LiteralKind::kString;
        // Adjacent string literals are one: 'it' 's' is 'its'.
        while (Peek().kind == Tok::kString) n->text += Next().value;
        return n;
      }
      case Tok::kQuotedIdent: {
        Next();
        SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kColumn, t.offset));
        n->names.push_back(t.value);
        return n;
      }
      case Tok::kSymbol:
        if (t.value == "(") {
          Next();
          SLUICE_ASSIGN_OR_RETURN(Node inner, ParseExpr());
          SLUICE_TRY(ExpectSymbol(")"));
          return inner;
        }
        return UnexpectedToken(t);
      case Tok::kIdent:
        break;
    }
    return ParseWord();
  }

  Result<Node> ParseWord() {
    const Token& t = Peek();
    const size_t offset = t.offset;
    if (AcceptKeyword("NULL")) {
      return Make(ExprKind::kLiteral, offset);
    }
    if (IsKeyword("TRUE") || IsKeyword("FALSE")) {
      const bool v = IsKeyword("TRUE");
      Next();
      SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kLiteral, offset));
      n->literal = LiteralKind::kBoolean;
      n->text = v ? "true" : "false";
      return n;
    }
    if (IsKeyword("CASE")) return ParseCase();
    if (IsKeyword("CAST") && IsSymbol("(", 1)) return ParseCast();
    if (Peek(1).kind == Tok::kString) {
      LiteralKind kind = LiteralKind::kNull;
      if (IsKeyword("DATE")) {
        kind = LiteralKind::kDate;
      } else if (IsKeyword("TIMESTAMP") || IsKeyword("TIMESTAMP_LTZ")) {
        kind = LiteralKind::kTimestamp;
      } else if (IsKeyword("TIMESTAMP_NTZ")) {
        kind = LiteralKind::kTimestampNtz;
      }
      if (kind != LiteralKind::kNull) return TypedLiteral(kind);
    }
    if (IsSymbol("(", 1)) return ParseCall();
    if (IsStructuralKeyword(t.value)) return UnexpectedToken(t);
    Next();
    SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kColumn, offset));
    n->names.push_back(t.value);
    return n;
  }

  Result<Node> TypedLiteral(LiteralKind kind) {
    const Token& word = Next();
    const Token& value = Next();
    bool ok = false;
    if (kind == LiteralKind::kDate) {
      int32_t days = 0;
      ok = internal::ParseDate(value.value, &days);
    } else {
      int64_t micros = 0;
      ok = internal::ParseTimestamp(value.value, kind == LiteralKind::kTimestampNtz, &micros);
    }
    if (!ok) {
      return ErrorAt(value.offset, fmt::format("invalid {} literal '{}'", AsciiUpper(word.value),
                                               EscapeForMessage(value.value, 60)));
    }
    SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kLiteral, word.offset));
    n->literal = kind;
    n->text = value.value;
    return n;
  }

  Result<Node> ParseCall() {
    const Token& name = Next();
    const std::string lower = AsciiLower(name.value);
    if (internal::IsNonDeterministicFunction(lower)) {
      return ErrorAt(name.offset,
                     fmt::format("function '{}' is not deterministic and cannot be used in a "
                                 "constraint",
                                 lower));
    }
    if (internal::FindFunction(lower) == nullptr) {
      return ErrorAt(name.offset,
                     fmt::format("unknown function '{}'", EscapeForMessage(name.value, 60)));
    }
    Next();  // (
    std::vector<ExpressionPtr> args;
    if (!IsSymbol(")")) {
      do {
        SLUICE_ASSIGN_OR_RETURN(Node a, ParseExpr());
        args.push_back(std::move(a));
      } while (AcceptSymbol(","));
    }
    SLUICE_TRY(ExpectSymbol(")"));
    SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kCall, name.offset, std::move(args)));
    n->names.push_back(lower);
    return n;
  }

  Result<Node> ParseCase() {
    const size_t offset = Next().offset;
    std::vector<ExpressionPtr> children;
    bool has_operand = false;
    if (!IsKeyword("WHEN")) {
      SLUICE_ASSIGN_OR_RETURN(Node operand, ParseExpr());
      children.push_back(std::move(operand));
      has_operand = true;
    }
    if (!IsKeyword("WHEN")) {
      return ErrorAt(Peek().offset, fmt::format("expected WHEN, found {}", Describe(Peek())));
    }
    while (AcceptKeyword("WHEN")) {
      SLUICE_ASSIGN_OR_RETURN(Node when, ParseExpr());
      SLUICE_TRY(ExpectKeyword("THEN"));
      SLUICE_ASSIGN_OR_RETURN(Node then, ParseExpr());
      children.push_back(std::move(when));
      children.push_back(std::move(then));
    }
    bool has_else = false;
    if (AcceptKeyword("ELSE")) {
      SLUICE_ASSIGN_OR_RETURN(Node otherwise, ParseExpr());
      children.push_back(std::move(otherwise));
      has_else = true;
    }
    SLUICE_TRY(ExpectKeyword("END"));
    SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kCase, offset, std::move(children)));
    n->has_operand = has_operand;
    n->has_else = has_else;
    return n;
  }

  Result<Node> ParseCast() {
    const size_t offset = Next().offset;
    Next();  // (
    SLUICE_ASSIGN_OR_RETURN(Node operand, ParseExpr());
    SLUICE_TRY(ExpectKeyword("AS"));
    // The type runs to the ')' that closes the CAST: hand its text to Spark's type parser.
    const size_t type_start = Peek().offset;
    int parens = 0;
    while (true) {
      const Token& t = Peek();
      if (t.kind == Tok::kEnd) {
        return ErrorAt(t.offset, "expected ')' to close CAST, found end of input");
      }
      if (t.kind == Tok::kSymbol && t.value == "(") ++parens;
      if (t.kind == Tok::kSymbol && t.value == ")") {
        if (parens == 0) break;
        --parens;
      }
      Next();
    }
    const std::string_view type_text = text_.substr(type_start, Peek().offset - type_start);
    auto type = dialects::spark::ParseDataType(type_text);
    if (!type.has_value()) {
      return ErrorAt(type_start, fmt::format("invalid type '{}' in CAST ({})",
                                             EscapeForMessage(TrimWhitespace(type_text), 60),
                                             type.error().message()));
    }
    Next();  // )
    SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kCast, offset, {operand}));
    n->type = *type;
    return n;
  }

  Result<Node> NumberLiteral(const Token& t, size_t offset, bool negative) {
    std::string_view text = t.value;
    std::string suffix;
    while (!text.empty() && IsIdentStart(text.back()) && text.back() != 'e' && text.back() != 'E') {
      suffix.insert(suffix.begin(), static_cast<char>(std::toupper(text.back())));
      text.remove_suffix(1);
    }
    // "1e" without exponent digits lexes the 'e' as a suffix letter; "1BD" ends in D.
    if (suffix == "D" && !text.empty() && (text.back() == 'b' || text.back() == 'B')) {
      suffix = "BD";
      text.remove_suffix(1);
    }
    std::string digits = (negative ? "-" : "") + std::string(text);
    SLUICE_ASSIGN_OR_RETURN(Node n, Make(ExprKind::kLiteral, offset));
    n->literal = LiteralKind::kNumber;
    auto fail = [&](std::string_view why) {
      return ErrorAt(t.offset, fmt::format("{} '{}'", why, EscapeForMessage(t.value, 60)));
    };
    const bool has_point = text.find('.') != std::string_view::npos;
    const bool has_exp = text.find_first_of("eE") != std::string_view::npos;
    const bool integer = !has_point && !has_exp;
    if (suffix == "L" || suffix == "S" || suffix == "Y") {
      if (!integer) return fail("invalid integer literal");
      int64_t v = 0;
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      const int64_t lo = suffix == "L" ? INT64_MIN : suffix == "S" ? INT16_MIN : INT8_MIN;
      const int64_t hi = suffix == "L" ? INT64_MAX : suffix == "S" ? INT16_MAX : INT8_MAX;
      if (ec != std::errc() || v < lo || v > hi) return fail("integer literal out of range");
      n->type = suffix == "L" ? Type::Int64() : suffix == "S" ? Type::Int16() : Type::Int8();
      n->text = std::to_string(v);
      return n;
    }
    if (suffix == "D" || suffix == "F" || (suffix.empty() && has_exp)) {
      double v = 0;
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (ec != std::errc() || p != digits.data() + digits.size()) {
        return fail("number literal out of range");
      }
      if (suffix == "F" && std::abs(v) > 3.4028234663852886e38) {
        return fail("number literal out of range");
      }
      n->type = suffix == "F" ? Type::Float32() : Type::Float64();
      n->text = digits;
      return n;
    }
    if (integer && suffix.empty()) {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (ec == std::errc()) {
        n->type = v >= INT32_MIN && v <= INT32_MAX ? Type::Int32() : Type::Int64();
        n->text = std::to_string(v);
        return n;
      }
    }
    // A decimal: BigDecimal's precision and scale (Spark keeps precision >= scale).
    int scale = 0;
    int64_t exponent = 0;
    const size_t e = digits.find_first_of("eE");
    if (e != std::string::npos) {
      auto [p, ec] = std::from_chars(digits.data() + e + 1 + (digits[e + 1] == '+'),
                                     digits.data() + digits.size(), exponent);
      if (ec != std::errc() || exponent > 100 || exponent < -100) {
        return fail("decimal literal out of range");
      }
    }
    const std::string_view mantissa = std::string_view(digits).substr(0, e);
    const size_t point = mantissa.find('.');
    if (point != std::string_view::npos) scale = static_cast<int>(mantissa.size() - point - 1);
    int significant = 0;
    bool leading = true;
    for (char c : mantissa) {
      if (!IsDigit(c)) continue;
      if (leading && c == '0') continue;
      leading = false;
      ++significant;
    }
    scale -= static_cast<int>(exponent);
    int precision = std::max(significant, 1);
    if (scale < 0) {
      precision += -scale;
      scale = 0;
    }
    precision = std::max(precision, scale);
    if (precision > schema::kMaxDecimalPrecision) return fail("decimal literal out of range");
    auto type = Type::Decimal(precision, scale);
    if (!type.has_value()) return fail("decimal literal out of range");
    n->type = *type;
    n->text = digits;
    return n;
  }

  std::string_view text_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::unordered_map<const Expression*, int> heights_;
};

}  // namespace

Result<ExpressionPtr> ParseExpression(std::string_view sql) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lexer(sql).Run());
  return Parser(sql, std::move(tokens)).Run();
}

Result<std::optional<std::string>> InvariantExpressionText(const JsonValue& field_metadata) {
  const JsonValue* rule = field_metadata.Find("delta.invariants");
  if (rule == nullptr || rule->is_null()) return std::optional<std::string>();
  auto bad = [](std::string_view why) {
    return InvalidArgument(fmt::format("unrecognized delta.invariants: {}", why));
  };
  if (!rule->is_string()) return bad("not a JSON string");
  auto parsed = ParseJson(rule->as_string());
  if (!parsed.has_value()) return bad(parsed.error().message());
  const JsonValue* outer = parsed->Find("expression");
  const JsonValue* inner = outer == nullptr ? nullptr : outer->Find("expression");
  if (inner == nullptr || !inner->is_string()) {
    return bad("expected {\"expression\":{\"expression\":\"<sql>\"}}");
  }
  return std::optional<std::string>(inner->as_string());
}

std::string_view TruthName(Truth t) {
  switch (t) {
    case Truth::kFalse:
      return "false";
    case Truth::kTrue:
      return "true";
    case Truth::kNull:
      return "null";
  }
  return "null";
}

}  // namespace sluice::table
