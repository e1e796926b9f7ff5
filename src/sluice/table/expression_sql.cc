// Expressions back to SQL text, for messages: every operator application in parentheses (as
// Spark's Expression.sql writes them), so the text says how it was read.
#include <string>
#include <string_view>

#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/table/expression.h"
#include "sluice/table/expression_internal.h"

namespace sluice::table {
namespace {

bool NeedsQuotes(std::string_view name) {
  return internal::IsStructuralKeyword(name) || dialects::spark::QuoteIdentifier(name) != name;
}

std::string QuoteName(std::string_view name) {
  if (!NeedsQuotes(name)) return std::string(name);
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

std::string QuoteString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    switch (c) {
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\0':
        // Not \0: digits after it would read as an octal escape.
        out += "\\u0000";
        break;
      default:
        out += c;
    }
  }
  return out + "'";
}

}  // namespace

std::string_view internal::BinaryOpSql(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSubtract:
      return "-";
    case BinaryOp::kMultiply:
      return "*";
    case BinaryOp::kDivide:
      return "/";
    case BinaryOp::kRemainder:
      return "%";
    case BinaryOp::kIntDivide:
      return "div";
    case BinaryOp::kConcat:
      return "||";
    case BinaryOp::kBitAnd:
      return "&";
    case BinaryOp::kBitOr:
      return "|";
    case BinaryOp::kBitXor:
      return "^";
    case BinaryOp::kEq:
      return "=";
    case BinaryOp::kNullSafeEq:
      return "<=>";
    case BinaryOp::kNe:
      return "!=";
    case BinaryOp::kLt:
      return "<";
    case BinaryOp::kLe:
      return "<=";
    case BinaryOp::kGt:
      return ">";
    case BinaryOp::kGe:
      return ">=";
  }
  return "?";
}

namespace {

using internal::BinaryOpSql;

std::string_view IsTestSql(IsTest t) {
  switch (t) {
    case IsTest::kNull:
      return "NULL";
    case IsTest::kTrue:
      return "TRUE";
    case IsTest::kFalse:
      return "FALSE";
    case IsTest::kUnknown:
      return "UNKNOWN";
    case IsTest::kDistinctFrom:
      return "DISTINCT FROM";
  }
  return "?";
}

std::string NumberSql(const std::string& text, const schema::Type& type) {
  using schema::TypeKind;
  const TypeKind k = type.kind();
  if (k == TypeKind::kInt8) return text + "Y";
  if (k == TypeKind::kInt16) return text + "S";
  if (k == TypeKind::kInt64) return text + "L";
  if (k == TypeKind::kFloat32) return text + "F";
  if (k == TypeKind::kFloat64) return text + "D";
  if (k == TypeKind::kDecimal &&
      (text.find('.') == std::string::npos || text.find_first_of("eE") != std::string::npos)) {
    return text + "BD";
  }
  return text;
}

std::string LiteralSql(const Expression& e) {
  switch (e.literal) {
    case LiteralKind::kNull:
      return "NULL";
    case LiteralKind::kBoolean:
      return e.text == "true" ? "TRUE" : "FALSE";
    case LiteralKind::kNumber:
      return NumberSql(e.text, *e.type);
    case LiteralKind::kString:
      return QuoteString(e.text);
    case LiteralKind::kDate:
      return "DATE " + QuoteString(e.text);
    case LiteralKind::kTimestamp:
      return "TIMESTAMP " + QuoteString(e.text);
    case LiteralKind::kTimestampNtz:
      return "TIMESTAMP_NTZ " + QuoteString(e.text);
  }
  return "NULL";
}

// Where a node is written: at the top (no parentheses of its own), or as an operand (every
// operator application in parentheses, as Spark's Expression.sql writes them). Each node then
// adds at most two levels of nesting when read back (its parentheses, and a prefix operator's
// or an argument list's own), which the parser allows for.
enum class Ctx : uint8_t { kTop, kLogic, kValue };

std::string Sql(const Expression& e, Ctx ctx);

std::string Join(const std::vector<ExpressionPtr>& items, size_t from, std::string_view sep,
                 Ctx ctx) {
  std::string out;
  for (size_t i = from; i < items.size(); ++i) {
    if (i > from) out += sep;
    out += Sql(*items[i], ctx);
  }
  return out;
}

// The base of `.name` or `[index]`: a literal goes in parentheses, so that `(100).x` does not
// read back as the number `100.` followed by a name.
std::string PostfixBase(const Expression& e) {
  const std::string s = Sql(e, Ctx::kValue);
  return e.kind == ExprKind::kLiteral ? "(" + s + ")" : s;
}

std::string UnarySql(const Expression& e, Ctx ctx) {
  const Expression& operand = *e.children[0];
  std::string s;
  if (e.unary == UnaryOp::kNot) {
    s = "NOT " + Sql(operand, Ctx::kLogic);
  } else {
    std::string o = Sql(operand, Ctx::kValue);
    // `- 5` would read back as the literal -5.
    if (operand.kind == ExprKind::kLiteral && operand.literal == LiteralKind::kNumber) {
      o = "(" + o + ")";
    }
    s = (e.unary == UnaryOp::kNegate ? "- " : e.unary == UnaryOp::kPlus ? "+ " : "~ ") + o;
  }
  return ctx == Ctx::kTop ? s : "(" + s + ")";
}

std::string Sql(const Expression& e, Ctx ctx) {
  auto wrap = [ctx](std::string s) { return ctx == Ctx::kTop ? s : "(" + s + ")"; };
  const auto& c = e.children;
  constexpr Ctx kValue = Ctx::kValue;
  switch (e.kind) {
    case ExprKind::kLiteral:
      return LiteralSql(e);
    case ExprKind::kColumn: {
      std::string out;
      for (size_t i = 0; i < e.names.size(); ++i) {
        if (i > 0) out += '.';
        out += QuoteName(e.names[i]);
      }
      return out;
    }
    case ExprKind::kField:
      return PostfixBase(*c[0]) + "." + QuoteName(e.names[0]);
    case ExprKind::kSubscript:
      return PostfixBase(*c[0]) + "[" + Sql(*c[1], Ctx::kTop) + "]";
    case ExprKind::kUnary:
      return UnarySql(e, ctx);
    case ExprKind::kBinary:
      return wrap(Sql(*c[0], kValue) + " " + std::string(BinaryOpSql(e.binary)) + " " +
                  Sql(*c[1], kValue));
    case ExprKind::kAnd:
      return wrap(Join(c, 0, " AND ", Ctx::kLogic));
    case ExprKind::kOr:
      return wrap(Join(c, 0, " OR ", Ctx::kLogic));
    case ExprKind::kIs: {
      std::string s = Sql(*c[0], kValue) + (e.negated ? " IS NOT " : " IS ") +
                      std::string(IsTestSql(e.is_test));
      if (e.is_test == IsTest::kDistinctFrom) s += " " + Sql(*c[1], kValue);
      return wrap(s);
    }
    case ExprKind::kIn:
      return wrap(Sql(*c[0], kValue) + (e.negated ? " NOT IN (" : " IN (") +
                  Join(c, 1, ", ", Ctx::kTop) + ")");
    case ExprKind::kBetween:
      return wrap(Sql(*c[0], kValue) + (e.negated ? " NOT BETWEEN " : " BETWEEN ") +
                  Sql(*c[1], kValue) + " AND " + Sql(*c[2], kValue));
    case ExprKind::kLike: {
      std::string_view word = e.like == LikeKind::kLike    ? "LIKE"
                              : e.like == LikeKind::kIlike ? "ILIKE"
                                                           : "RLIKE";
      std::string s = Sql(*c[0], kValue) + (e.negated ? " NOT " : " ") + std::string(word) + " " +
                      Sql(*c[1], kValue);
      if (e.like != LikeKind::kRlike && e.escape != "\\") s += " ESCAPE " + QuoteString(e.escape);
      return wrap(s);
    }
    case ExprKind::kCase: {
      std::string s = "CASE";
      size_t i = 0;
      if (e.has_operand) s += " " + Sql(*c[i++], Ctx::kTop);
      const size_t pairs_end = c.size() - (e.has_else ? 1 : 0);
      for (; i < pairs_end; i += 2) {
        s += " WHEN " + Sql(*c[i], Ctx::kTop) + " THEN " + Sql(*c[i + 1], Ctx::kTop);
      }
      if (e.has_else) s += " ELSE " + Sql(*c.back(), Ctx::kTop);
      return s + " END";
    }
    case ExprKind::kCast:
      return "CAST(" + Sql(*c[0], Ctx::kTop) + " AS " + internal::TypeSql(*e.type) + ")";
    case ExprKind::kCall:
      return e.names[0] + "(" + Join(c, 0, ", ", Ctx::kTop) + ")";
  }
  return "";
}

}  // namespace

std::string ToSql(const Expression& expr) { return Sql(expr, Ctx::kTop); }

namespace internal {

std::string TypeSql(const schema::Type& type) { return dialects::spark::DataTypeSql(type); }

}  // namespace internal

namespace {

using internal::BoundNode;
using internal::BoundOp;

std::string BoundSql(const BoundNode& n, bool top);

std::string BoundLiteralSql(const BoundNode& n) {
  using schema::TypeKind;
  const TypeKind k = n.type->kind();
  const std::string text = internal::ValueToString(n.literal, *n.type);
  if (k == TypeKind::kString) return QuoteString(n.literal.s);
  if (k == TypeKind::kBoolean) return n.literal.b ? "TRUE" : "FALSE";
  if (k == TypeKind::kDate) return "DATE " + QuoteString(text);
  if (k == TypeKind::kTimestamp) return "TIMESTAMP " + QuoteString(text);
  if (k == TypeKind::kTimestampNtz) return "TIMESTAMP_NTZ " + QuoteString(text);
  if (k == TypeKind::kBinary) return "CAST(" + QuoteString(text) + " AS BINARY)";
  if ((k == TypeKind::kFloat32 || k == TypeKind::kFloat64) &&
      (text == "NaN" || text == "Infinity" || text == "-Infinity")) {
    return "CAST(" + QuoteString(text) + " AS " + internal::TypeSql(*n.type) + ")";
  }
  return NumberSql(text, *n.type);
}

std::string BoundJoin(const BoundNode& n, size_t from, std::string_view sep, bool top_items) {
  std::string out;
  for (size_t i = from; i < n.children.size(); ++i) {
    if (i > from) out += sep;
    out += BoundSql(*n.children[i], top_items);
  }
  return out;
}

std::string BoundSql(const BoundNode& n, bool top) {
  auto wrap = [top](std::string s) { return top ? s : "(" + s + ")"; };
  const auto& c = n.children;
  switch (n.op) {
    case BoundOp::kLiteral:
      if (n.literal.null) return "NULL";
      return BoundLiteralSql(n);
    case BoundOp::kColumn: {
      std::string out;
      for (size_t i = 0; i < n.path.size(); ++i) {
        if (i > 0) out += '.';
        out += QuoteName(n.path[i]);
      }
      return out;
    }
    case BoundOp::kField:
      return BoundSql(*c[0], false) + "." + QuoteName(n.path[0]);
    case BoundOp::kArrayItem:
    case BoundOp::kMapValue:
      return BoundSql(*c[0], false) + "[" + BoundSql(*c[1], true) + "]";
    case BoundOp::kNegate:
      return wrap("- " + BoundSql(*c[0], false));
    case BoundOp::kBitNot:
      return wrap("~ " + BoundSql(*c[0], false));
    case BoundOp::kNot:
      return wrap("NOT " + BoundSql(*c[0], false));
    case BoundOp::kArithmetic:
    case BoundOp::kDateAdd:
    case BoundOp::kConcat:
    case BoundOp::kCompare:
      return wrap(BoundSql(*c[0], false) + " " + std::string(BinaryOpSql(n.binary)) + " " +
                  BoundSql(*c[1], false));
    case BoundOp::kAnd:
      return wrap(BoundJoin(n, 0, " AND ", false));
    case BoundOp::kOr:
      return wrap(BoundJoin(n, 0, " OR ", false));
    case BoundOp::kIsNull:
      return wrap(BoundSql(*c[0], false) + (n.negated ? " IS NOT NULL" : " IS NULL"));
    case BoundOp::kIsBool:
      return wrap(BoundSql(*c[0], false) + (n.negated ? " IS NOT " : " IS ") +
                  std::string(IsTestSql(n.is_test)));
    case BoundOp::kIn:
      return wrap(BoundSql(*c[0], false) + (n.negated ? " NOT IN (" : " IN (") +
                  BoundJoin(n, 1, ", ", true) + ")");
    case BoundOp::kBetween:
      return wrap(BoundSql(*c[0], false) + (n.negated ? " NOT BETWEEN " : " BETWEEN ") +
                  BoundSql(*c[1], false) + " AND " + BoundSql(*c[2], false));
    case BoundOp::kLike:
    case BoundOp::kRlike: {
      std::string_view word = n.op == BoundOp::kRlike ? "RLIKE" : n.ilike ? "ILIKE" : "LIKE";
      std::string s = BoundSql(*c[0], false) + (n.negated ? " NOT " : " ") + std::string(word) +
                      " " + BoundSql(*c[1], false);
      if (n.op == BoundOp::kLike && n.escape != "\\") s += " ESCAPE " + QuoteString(n.escape);
      return wrap(s);
    }
    case BoundOp::kCase: {
      std::string s = "CASE";
      size_t i = 0;
      if (n.has_operand) s += " " + BoundSql(*c[i++], true);
      const size_t pairs_end = c.size() - (n.has_else ? 1 : 0);
      for (; i < pairs_end; i += 2) {
        s += " WHEN " + BoundSql(*c[i], true) + " THEN " + BoundSql(*c[i + 1], true);
      }
      if (n.has_else) s += " ELSE " + BoundSql(*c.back(), true);
      return s + " END";
    }
    case BoundOp::kCast:
      return "CAST(" + BoundSql(*c[0], true) + " AS " + internal::TypeSql(*n.type) + ")";
    case BoundOp::kCall:
      return std::string(n.function->name) + "(" + BoundJoin(n, 0, ", ", true) + ")";
  }
  return "";
}

}  // namespace

std::string BoundExpression::ToSql() const {
  return root_ == nullptr ? std::string() : BoundSql(*root_, true);
}

}  // namespace sluice::table
