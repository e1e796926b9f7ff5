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

using internal::ErrorAt;
using internal::IsStructuralKeyword;
using internal::Tok;
using internal::Token;
using schema::Type;
using schema::TypePtr;

using internal::IsIdentStart;
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A decimal literal's type: BigDecimal's precision and scale, with precision >= scale as
// Spark keeps it; nullptr past 38 digits.
TypePtr DecimalLiteralType(std::string_view digits) {
  int64_t exponent = 0;
  const size_t e = digits.find_first_of("eE");
  if (e != std::string_view::npos) {
    const char* start = digits.data() + e + 1;
    if (*start == '+') ++start;
    auto [p, ec] = std::from_chars(start, digits.data() + digits.size(), exponent);
    if (ec != std::errc() || exponent > 100 || exponent < -100) return nullptr;
  }
  const std::string_view mantissa = digits.substr(0, e);
  const size_t point = mantissa.find('.');
  int scale = point == std::string_view::npos ? 0 : static_cast<int>(mantissa.size() - point - 1);
  int significant = 0;
  for (char c : mantissa) {
    if (IsDigit(c) && (significant > 0 || c != '0')) ++significant;
  }
  scale -= static_cast<int>(exponent);
  int precision = std::max(significant, 1);
  if (scale < 0) {
    precision += -scale;
    scale = 0;
  }
  precision = std::max(precision, scale);
  if (precision > schema::kMaxDecimalPrecision) return nullptr;
  auto type = Type::Decimal(precision, scale);
  return type.has_value() ? *type : nullptr;
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
  // Parentheses and prefix operators recurse; a tree of kMaxExpressionDepth levels printed by
  // ToSql (an operator in parentheses is two) must read back, so they may nest twice as deep.
  Status Enter(const DepthGuard&, size_t offset) const {
    if (depth_ > 2 * kMaxExpressionDepth) {
      return ErrorAt(offset, fmt::format("expression nests too deeply: more than {} parentheses "
                                         "and prefix operators",
                                         2 * kMaxExpressionDepth));
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
      return ErrorAt(offset, fmt::format("expression nests too deeply: more than {} levels",
                                         kMaxExpressionDepth));
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
    auto type = DecimalLiteralType(digits);
    if (type == nullptr) return fail("decimal literal out of range");
    n->type = type;
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
  SLUICE_ASSIGN_OR_RETURN(std::vector<Token> tokens, internal::Tokenize(sql));
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
