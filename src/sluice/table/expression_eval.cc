// Evaluating a bound expression on one row: a walk over the typed nodes with SQL's three-valued
// logic. Types were settled at binding, so each node only reads its own kind of value.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/table/expression_internal.h"

namespace sluice::table::internal {

using schema::Type;
using schema::TypeKind;

namespace {

std::string PathText(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& p : path) {
    if (!out.empty()) out += '.';
    out += schema::QuoteFieldName(p);
  }
  return out;
}

Status ReadJson(const JsonValue& json, const Type& type, std::string_view where, Value* out) {
  std::string why;
  if (!ValueFromJson(json, type, out, &why)) {
    return InvalidArgument(fmt::format("{}: {}", where, why));
  }
  return Ok();
}

Status EvalColumn(const BoundNode& n, const JsonValue& row, Value* out) {
  const JsonValue* v = &row;
  for (size_t i = 0; i < n.path.size(); ++i) {
    if (!v->is_object()) {
      return InvalidArgument(fmt::format("column {}: expected an object, found {}",
                                         PathText({n.path.begin(), n.path.begin() + i}),
                                         JsonValue::KindName(v->kind())));
    }
    v = v->Find(n.path[i]);
    if (v == nullptr || v->is_null()) {
      *out = Value::Null();
      return Ok();
    }
  }
  return ReadJson(*v, *n.type, "column " + PathText(n.path), out);
}

Status EvalArithmetic(const BoundNode& n, const Value& l, const Value& r, Value* out) {
  const Type& t = *n.type;
  const TypeKind k = t.kind();
  if (t.kind() == TypeKind::kDecimal) {
    const Type& lt = *n.children[0]->type;
    const Type& rt = *n.children[1]->type;
    Int128 v = 0;
    *out = DecimalArithmetic(n.binary, l.dec, lt.scale(), r.dec, rt.scale(), t.precision(),
                             t.scale(), &v)
               ? Value::Decimal(v)
               : Value::Null();
    return Ok();
  }
  if (t.is_floating()) {
    double v = 0;
    switch (n.binary) {
      case BinaryOp::kAdd:
        v = l.d + r.d;
        break;
      case BinaryOp::kSubtract:
        v = l.d - r.d;
        break;
      case BinaryOp::kMultiply:
        v = l.d * r.d;
        break;
      case BinaryOp::kDivide:
      case BinaryOp::kRemainder:
        // Spark gives null for a zero divisor, doubles included.
        if (r.d == 0) {
          *out = Value::Null();
          return Ok();
        }
        v = n.binary == BinaryOp::kDivide ? l.d / r.d : std::fmod(l.d, r.d);
        break;
      case BinaryOp::kIntDivide:
      case BinaryOp::kConcat:
      case BinaryOp::kBitAnd:
      case BinaryOp::kBitOr:
      case BinaryOp::kBitXor:
      case BinaryOp::kEq:
      case BinaryOp::kNullSafeEq:
      case BinaryOp::kNe:
      case BinaryOp::kLt:
      case BinaryOp::kLe:
      case BinaryOp::kGt:
      case BinaryOp::kGe:
        return Internal("a floating-point node with an integer operator");
    }
    *out = Value::Double(k == TypeKind::kFloat32 ? static_cast<double>(static_cast<float>(v)) : v);
    return Ok();
  }
  // Integers wrap around as Java's do.
  const auto a = static_cast<uint64_t>(l.i);
  const auto b = static_cast<uint64_t>(r.i);
  switch (n.binary) {
    case BinaryOp::kAdd:
      *out = Value::Int(WrapInteger(a + b, k));
      return Ok();
    case BinaryOp::kSubtract:
      *out = Value::Int(WrapInteger(a - b, k));
      return Ok();
    case BinaryOp::kMultiply:
      *out = Value::Int(WrapInteger(a * b, k));
      return Ok();
    case BinaryOp::kRemainder:
      if (r.i == 0) {
        *out = Value::Null();
      } else {
        *out = Value::Int(r.i == -1 ? 0 : l.i % r.i);
      }
      return Ok();
    case BinaryOp::kIntDivide:
      if (r.i == 0) {
        *out = Value::Null();
      } else {
        *out = Value::Int(r.i == -1 ? WrapInteger(0 - a, k) : l.i / r.i);
      }
      return Ok();
    case BinaryOp::kBitAnd:
      *out = Value::Int(l.i & r.i);
      return Ok();
    case BinaryOp::kBitOr:
      *out = Value::Int(l.i | r.i);
      return Ok();
    case BinaryOp::kBitXor:
      *out = Value::Int(l.i ^ r.i);
      return Ok();
    case BinaryOp::kDivide:
    case BinaryOp::kConcat:
    case BinaryOp::kEq:
    case BinaryOp::kNullSafeEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
      return Internal("an integer node with a non-integer operator");
  }
  return Internal("unknown operator");
}

Status EvalCompare(const BoundNode& n, const JsonValue& row, Value* out) {
  Value l;
  Value r;
  SLUICE_TRY(Eval(*n.children[0], row, &l));
  SLUICE_TRY(Eval(*n.children[1], row, &r));
  if (n.binary == BinaryOp::kNullSafeEq) {
    if (l.null || r.null) {
      *out = Value::Bool(l.null && r.null);
    } else {
      *out = Value::Bool(CompareValues(l, r, *n.children[0]->type) == 0);
    }
    return Ok();
  }
  if (l.null || r.null) {
    *out = Value::Null();
    return Ok();
  }
  const int c = CompareValues(l, r, *n.children[0]->type);
  bool v = false;
  switch (n.binary) {
    case BinaryOp::kEq:
      v = c == 0;
      break;
    case BinaryOp::kNe:
      v = c != 0;
      break;
    case BinaryOp::kLt:
      v = c < 0;
      break;
    case BinaryOp::kLe:
      v = c <= 0;
      break;
    case BinaryOp::kGt:
      v = c > 0;
      break;
    case BinaryOp::kGe:
      v = c >= 0;
      break;
    case BinaryOp::kAdd:
    case BinaryOp::kSubtract:
    case BinaryOp::kMultiply:
    case BinaryOp::kDivide:
    case BinaryOp::kRemainder:
    case BinaryOp::kIntDivide:
    case BinaryOp::kConcat:
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr:
    case BinaryOp::kBitXor:
    case BinaryOp::kNullSafeEq:
      return Internal("a comparison node with an arithmetic operator");
  }
  *out = Value::Bool(v);
  return Ok();
}

// AND and OR over any number of terms: a deciding value (false for AND, true for OR) wins,
// else any null makes the result null.
Status EvalLogic(const BoundNode& n, const JsonValue& row, Value* out) {
  const bool decisive = n.op == BoundOp::kOr;
  bool saw_null = false;
  Value v;
  for (const BoundPtr& c : n.children) {
    SLUICE_TRY(Eval(*c, row, &v));
    if (v.null) {
      saw_null = true;
    } else if (v.b == decisive) {
      *out = Value::Bool(decisive);
      return Ok();
    }
  }
  *out = saw_null ? Value::Null() : Value::Bool(!decisive);
  return Ok();
}

Status EvalIn(const BoundNode& n, const JsonValue& row, Value* out) {
  Value v;
  SLUICE_TRY(Eval(*n.children[0], row, &v));
  if (v.null) {
    *out = Value::Null();
    return Ok();
  }
  const Type& t = *n.children[0]->type;
  bool saw_null = false;
  Value item;
  for (size_t i = 1; i < n.children.size(); ++i) {
    SLUICE_TRY(Eval(*n.children[i], row, &item));
    if (item.null) {
      saw_null = true;
    } else if (CompareValues(v, item, t) == 0) {
      *out = Value::Bool(!n.negated);
      return Ok();
    }
  }
  *out = saw_null ? Value::Null() : Value::Bool(n.negated);
  return Ok();
}

Status EvalBetween(const BoundNode& n, const JsonValue& row, Value* out) {
  Value v;
  Value lo;
  Value hi;
  SLUICE_TRY(Eval(*n.children[0], row, &v));
  SLUICE_TRY(Eval(*n.children[1], row, &lo));
  SLUICE_TRY(Eval(*n.children[2], row, &hi));
  // Two comparisons joined by AND, each at its own common type.
  auto side = [&](const Value& bound, const Type& t, bool lower) -> int {  // 1, 0, -1 = null
    if (v.null || bound.null) return -1;
    const Value cv = CastValue(v, *n.children[0]->type, t);
    if (cv.null) return -1;
    const int c = CompareValues(cv, bound, t);
    return (lower ? c >= 0 : c <= 0) ? 1 : 0;
  };
  const int a = side(lo, *n.compare_types[0], true);
  const int b = side(hi, *n.compare_types[1], false);
  Value result;
  if (a == 0 || b == 0) {
    result = Value::Bool(false);
  } else if (a < 0 || b < 0) {
    result = Value::Null();
  } else {
    result = Value::Bool(true);
  }
  if (n.negated && !result.null) result.b = !result.b;
  *out = std::move(result);
  return Ok();
}

Status EvalLike(const BoundNode& n, const JsonValue& row, Value* out) {
  Value v;
  Value p;
  SLUICE_TRY(Eval(*n.children[0], row, &v));
  SLUICE_TRY(Eval(*n.children[1], row, &p));
  if (v.null || p.null) {
    *out = Value::Null();
    return Ok();
  }
  bool match = false;
  if (n.op == BoundOp::kLike) {
    std::shared_ptr<const LikePattern> pattern = n.like_pattern;
    if (pattern == nullptr) {
      const char32_t escape = n.escape.empty() ? U'\\' : static_cast<unsigned char>(n.escape[0]);
      SLUICE_ASSIGN_OR_RETURN(pattern, CompileLike(p.s, escape, n.ilike));
    }
    match = MatchLike(*pattern, v.s);
  } else {
    std::shared_ptr<const RegexPattern> regex = n.regex;
    if (regex == nullptr) {
      SLUICE_ASSIGN_OR_RETURN(regex, CompileRegex(p.s));
    }
    SLUICE_ASSIGN_OR_RETURN(match, SearchRegex(*regex, v.s));
  }
  *out = Value::Bool(match != n.negated);
  return Ok();
}

Status EvalCase(const BoundNode& n, const JsonValue& row, Value* out) {
  size_t i = 0;
  Value operand;
  if (n.has_operand) SLUICE_TRY(Eval(*n.children[i++], row, &operand));
  const size_t pairs_end = n.children.size() - (n.has_else ? 1 : 0);
  Value when;
  for (size_t k = 0; i < pairs_end; i += 2, ++k) {
    SLUICE_TRY(Eval(*n.children[i], row, &when));
    bool hit = false;
    if (n.has_operand) {
      const Type& t = *n.compare_types[k];
      const Value cv = CastValue(operand, *n.children[0]->type, t);
      hit = !cv.null && !when.null && CompareValues(cv, when, t) == 0;
    } else {
      hit = !when.null && when.b;
    }
    if (hit) return Eval(*n.children[i + 1], row, out);
  }
  if (n.has_else) return Eval(*n.children.back(), row, out);
  *out = Value::Null();
  return Ok();
}

Status EvalMapValue(const BoundNode& n, const JsonValue& row, Value* out) {
  Value map;
  Value key;
  SLUICE_TRY(Eval(*n.children[0], row, &map));
  SLUICE_TRY(Eval(*n.children[1], row, &key));
  *out = Value::Null();
  if (map.null || key.null) return Ok();
  const Type& key_type = *n.children[1]->type;
  const JsonValue* found = nullptr;
  if (key_type.kind() == TypeKind::kString) {
    found = map.json->Find(key.s);
  } else {
    // Keys are written as their type's text; read each back to compare values, not spellings.
    for (const JsonMember& m : map.json->members()) {
      const Value k = CastValue(Value::String(m.key), *Type::String(), key_type);
      if (!k.null && CompareValues(k, key, key_type) == 0) {
        found = &m.value;
        break;
      }
    }
  }
  if (found == nullptr) return Ok();
  return ReadJson(*found, *n.type, "map value", out);
}

}  // namespace

namespace {

Status EvalField(const BoundNode& n, const JsonValue& row, Value* out) {
  Value base;
  SLUICE_TRY(Eval(*n.children[0], row, &base));
  const JsonValue* v = base.null ? nullptr : base.json->Find(n.path[0]);
  if (v == nullptr) {
    *out = Value::Null();
    return Ok();
  }
  return ReadJson(*v, *n.type, "field " + schema::QuoteFieldName(n.path[0]), out);
}

Status EvalArrayItem(const BoundNode& n, const JsonValue& row, Value* out) {
  Value base;
  Value index;
  SLUICE_TRY(Eval(*n.children[0], row, &base));
  SLUICE_TRY(Eval(*n.children[1], row, &index));
  // Past either end is null (GetArrayItem without ANSI).
  if (base.null || index.null || index.i < 0 ||
      static_cast<uint64_t>(index.i) >= base.json->items().size()) {
    *out = Value::Null();
    return Ok();
  }
  return ReadJson(base.json->items()[static_cast<size_t>(index.i)], *n.type, "array element", out);
}

// -x, ~x and NOT x.
Status EvalUnary(const BoundNode& n, const JsonValue& row, Value* out) {
  SLUICE_TRY(Eval(*n.children[0], row, out));
  if (out->null) return Ok();
  const Type& t = *n.type;
  if (n.op == BoundOp::kNot) {
    out->b = !out->b;
  } else if (n.op == BoundOp::kBitNot) {
    out->i = WrapInteger(~static_cast<uint64_t>(out->i), t.kind());
  } else if (t.kind() == TypeKind::kDecimal) {
    out->dec = -out->dec;
  } else if (t.is_floating()) {
    out->d = -out->d;
  } else {
    out->i = WrapInteger(0 - static_cast<uint64_t>(out->i), t.kind());
  }
  return Ok();
}

// Arithmetic, date + days and ||: null when either side is.
Status EvalBinary(const BoundNode& n, const JsonValue& row, Value* out) {
  Value l;
  Value r;
  SLUICE_TRY(Eval(*n.children[0], row, &l));
  SLUICE_TRY(Eval(*n.children[1], row, &r));
  if (l.null || r.null) {
    *out = Value::Null();
    return Ok();
  }
  if (n.op == BoundOp::kConcat) {
    *out = Value::String(l.s + r.s);
    return Ok();
  }
  if (n.op == BoundOp::kDateAdd) {
    const int64_t days = n.binary == BinaryOp::kSubtract ? l.i - r.i : l.i + r.i;
    *out = Value::Int(static_cast<int32_t>(static_cast<uint32_t>(days)));
    return Ok();
  }
  return EvalArithmetic(n, l, r, out);
}

// IS [NOT] NULL / TRUE / FALSE / UNKNOWN: never null.
Status EvalIs(const BoundNode& n, const JsonValue& row, Value* out) {
  Value v;
  SLUICE_TRY(Eval(*n.children[0], row, &v));
  bool r = v.null;
  if (n.op == BoundOp::kIsBool && n.is_test == IsTest::kTrue) r = !v.null && v.b;
  if (n.op == BoundOp::kIsBool && n.is_test == IsTest::kFalse) r = !v.null && !v.b;
  *out = Value::Bool(r != n.negated);
  return Ok();
}

}  // namespace

Status Eval(const BoundNode& n, const JsonValue& row, Value* out) {
  switch (n.op) {
    case BoundOp::kLiteral:
      *out = n.literal;
      return Ok();
    case BoundOp::kColumn:
      return EvalColumn(n, row, out);
    case BoundOp::kField:
      return EvalField(n, row, out);
    case BoundOp::kArrayItem:
      return EvalArrayItem(n, row, out);
    case BoundOp::kMapValue:
      return EvalMapValue(n, row, out);
    case BoundOp::kNegate:
    case BoundOp::kBitNot:
    case BoundOp::kNot:
      return EvalUnary(n, row, out);
    case BoundOp::kArithmetic:
    case BoundOp::kDateAdd:
    case BoundOp::kConcat:
      return EvalBinary(n, row, out);
    case BoundOp::kCompare:
      return EvalCompare(n, row, out);
    case BoundOp::kAnd:
    case BoundOp::kOr:
      return EvalLogic(n, row, out);
    case BoundOp::kIsNull:
    case BoundOp::kIsBool:
      return EvalIs(n, row, out);
    case BoundOp::kIn:
      return EvalIn(n, row, out);
    case BoundOp::kBetween:
      return EvalBetween(n, row, out);
    case BoundOp::kLike:
    case BoundOp::kRlike:
      return EvalLike(n, row, out);
    case BoundOp::kCase:
      return EvalCase(n, row, out);
    case BoundOp::kCast: {
      Value v;
      SLUICE_TRY(Eval(*n.children[0], row, &v));
      *out = CastValue(v, *n.children[0]->type, *n.type);
      return Ok();
    }
    case BoundOp::kCall:
      return n.function->eval(n, row, out);
  }
  return Internal("unknown expression node");
}

char32_t FoldAscii(char32_t c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }

std::vector<char32_t> CodePoints(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (i + len > s.size()) len = 1;
    char32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += len;
  }
  return out;
}

// ---- LIKE -----------------------------------------------------------------------------------

struct LikePattern {
  enum class Kind : uint8_t { kChar, kOne, kRun };
  struct Token {
    Kind kind;
    char32_t c;
  };
  std::vector<Token> tokens;
  bool ignore_case = false;
};

namespace {}  // namespace

Result<std::shared_ptr<const LikePattern>> CompileLike(std::string_view pattern, char32_t escape,
                                                       bool ignore_case) {
  auto p = std::make_shared<LikePattern>();
  p->ignore_case = ignore_case;
  const std::vector<char32_t> cps = CodePoints(pattern);
  for (size_t i = 0; i < cps.size(); ++i) {
    const char32_t c = cps[i];
    if (c == escape) {
      // Spark's escapeLikeRegex: the escape may only precede _, % or itself.
      if (i + 1 >= cps.size()) {
        return InvalidArgument(fmt::format("the LIKE pattern '{}' ends with the escape character",
                                           EscapeForMessage(pattern, 80)));
      }
      const char32_t next = cps[++i];
      if (next != '_' && next != '%' && next != escape) {
        return InvalidArgument(fmt::format(
            "the escape character may only precede '_', '%' or itself in the LIKE pattern '{}'",
            EscapeForMessage(pattern, 80)));
      }
      p->tokens.push_back({LikePattern::Kind::kChar, ignore_case ? FoldAscii(next) : next});
    } else if (c == '%') {
      if (p->tokens.empty() || p->tokens.back().kind != LikePattern::Kind::kRun) {
        p->tokens.push_back({LikePattern::Kind::kRun, 0});
      }
    } else if (c == '_') {
      p->tokens.push_back({LikePattern::Kind::kOne, 0});
    } else {
      p->tokens.push_back({LikePattern::Kind::kChar, ignore_case ? FoldAscii(c) : c});
    }
  }
  return std::shared_ptr<const LikePattern>(std::move(p));
}

bool MatchLike(const LikePattern& p, std::string_view text) {
  const std::vector<char32_t> t = CodePoints(text);
  const auto& tok = p.tokens;
  // Greedy matching that returns to the last '%' on a mismatch: O(|text| * |pattern|) at
  // worst, never exponential.
  size_t ti = 0;
  size_t pi = 0;
  size_t star = SIZE_MAX;
  size_t star_t = 0;
  while (ti < t.size()) {
    if (pi < tok.size() && tok[pi].kind != LikePattern::Kind::kRun &&
        (tok[pi].kind == LikePattern::Kind::kOne ||
         tok[pi].c == (p.ignore_case ? FoldAscii(t[ti]) : t[ti]))) {
      ++pi;
      ++ti;
    } else if (pi < tok.size() && tok[pi].kind == LikePattern::Kind::kRun) {
      star = pi++;
      star_t = ti;
    } else if (star != SIZE_MAX) {
      pi = star + 1;
      ti = ++star_t;
    } else {
      return false;
    }
  }
  while (pi < tok.size() && tok[pi].kind == LikePattern::Kind::kRun) ++pi;
  return pi == tok.size();
}

}  // namespace sluice::table::internal
