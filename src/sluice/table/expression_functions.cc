// The functions constraints may call: each binds (argument count, Spark's implicit casts of
// its inputs, result type) and evaluates. The list is in expression.h.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/table/expression_internal.h"

namespace sluice::table::internal {
namespace {

using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

Status Arity(const Function& f, const std::vector<BoundPtr>& args, size_t min, size_t max,
             size_t offset) {
  if (args.size() >= min && args.size() <= max) return Ok();
  std::string expected = min == max        ? std::to_string(min)
                         : max == SIZE_MAX ? fmt::format("at least {}", min)
                                           : fmt::format("{} to {}", min, max);
  return ErrorAt(offset, fmt::format("{}() takes {} argument{}, not {}", f.name, expected,
                                     max == 1 && min == 1 ? "" : "s", args.size()));
}

// Cast argument `i` as Spark's ImplicitCastInputTypes would, or fail naming the function.
Result<BoundPtr> Input(const Function& f, const std::vector<BoundPtr>& args, size_t i,
                       const TypePtr& type) {
  BoundPtr cast = ImplicitCast(args[i], type);
  if (cast == nullptr) {
    return ErrorAt(args[i]->offset,
                   fmt::format("{}() cannot take {} as argument {} (it needs {})", f.name,
                               TypeSql(*args[i]->type), i + 1, TypeSql(*type)));
  }
  return cast;
}

Result<BoundPtr> Call(const Function& f, TypePtr type, std::vector<BoundPtr> args, size_t offset) {
  auto n = std::make_shared<BoundNode>();
  n->op = BoundOp::kCall;
  n->type = std::move(type);
  n->offset = offset;
  n->function = &f;
  n->children = std::move(args);
  return BoundPtr(n);
}

// Evaluate every argument; false (and a null result) when one is null.
Result<bool> Args(const BoundNode& n, const JsonValue& row, std::vector<Value>* values,
                  Value* out) {
  values->resize(n.children.size());
  for (size_t i = 0; i < n.children.size(); ++i) {
    SLUICE_TRY(Eval(*n.children[i], row, &(*values)[i]));
    if ((*values)[i].null) {
      *out = Value::Null();
      return false;
    }
  }
  return true;
}

#define SLUICE_EVAL_ARGS(n, row, out)                                 \
  std::vector<Value> v;                                               \
  {                                                                   \
    SLUICE_ASSIGN_OR_RETURN(bool all_present, Args(n, row, &v, out)); \
    if (!all_present) return Ok();                                    \
  }

// ---- numbers ------------------------------------------------------------------------------

Result<BoundPtr> BindAbs(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  SLUICE_TRY(Arity(f, args, 1, 1, offset));
  BoundPtr a = args[0];
  if (a->type->kind() == TypeKind::kString || a->type->kind() == TypeKind::kNull) {
    a = CastTo(a, Type::Float64());
  }
  if (!IsNumeric(*a->type)) {
    return ErrorAt(a->offset, fmt::format("abs() needs a number, not {}", TypeSql(*a->type)));
  }
  TypePtr t = a->type;
  return Call(f, t, {a}, offset);
}

Status EvalAbs(const BoundNode& n, const JsonValue& row, Value* out) {
  SLUICE_TRY(Eval(*n.children[0], row, out));
  if (out->null) return Ok();
  const Type& t = *n.type;
  if (t.kind() == TypeKind::kDecimal) {
    if (out->dec < 0) out->dec = -out->dec;
  } else if (t.is_floating()) {
    out->d = std::fabs(out->d);
  } else if (out->i < 0) {
    // Math.abs of the smallest value is itself.
    const uint64_t m = 0 - static_cast<uint64_t>(out->i);
    out->i = WrapInteger(m, t.kind());
  }
  return Ok();
}

// ceil / floor: bigint for integers and doubles, decimal(p - s + 1, 0) for decimals.
Result<BoundPtr> BindRound(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  SLUICE_TRY(Arity(f, args, 1, 1, offset));
  BoundPtr a = args[0];
  if (a->type->kind() == TypeKind::kString || a->type->kind() == TypeKind::kNull ||
      a->type->is_floating()) {
    a = CastTo(a, Type::Float64());
  }
  if (a->type->kind() == TypeKind::kDecimal) {
    const int p = std::min(a->type->precision() - a->type->scale() + 1, 38);
    return Call(f, *Type::Decimal(p, 0), {a}, offset);
  }
  if (!IsNumeric(*a->type)) {
    return ErrorAt(a->offset,
                   fmt::format("{}() needs a number, not {}", f.name, TypeSql(*a->type)));
  }
  return Call(f, Type::Int64(), {a}, offset);
}

Status EvalRound(const BoundNode& n, const JsonValue& row, Value* out) {
  Value a;
  SLUICE_TRY(Eval(*n.children[0], row, &a));
  if (a.null) {
    *out = Value::Null();
    return Ok();
  }
  const bool ceil = n.function->name.starts_with("ceil");
  const Type& t = *n.children[0]->type;
  if (t.kind() == TypeKind::kDecimal) {
    const auto unit = static_cast<Int128>(Pow10(t.scale()));
    Int128 q = a.dec / unit;
    const Int128 r = a.dec % unit;
    if (r != 0 && ceil && a.dec > 0) ++q;
    if (r != 0 && !ceil && a.dec < 0) --q;
    *out = Value::Decimal(q);
    return Ok();
  }
  if (t.is_floating()) {
    *out = CastValue(Value::Double(ceil ? std::ceil(a.d) : std::floor(a.d)), *Type::Float64(),
                     *Type::Int64());
    return Ok();
  }
  *out = Value::Int(a.i);
  return Ok();
}

// ---- strings ------------------------------------------------------------------------------

// One string argument (numbers and dates are cast to string); the result type given.
template <TypeKind kResult>
Result<BoundPtr> BindStringFn(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  SLUICE_TRY(Arity(f, args, 1, 1, offset));
  BoundPtr a = args[0];
  const bool binary_ok = f.name.find("length") != std::string_view::npos;
  if (!(binary_ok && a->type->kind() == TypeKind::kBinary)) {
    SLUICE_ASSIGN_OR_RETURN(a, Input(f, args, 0, Type::String()));
  }
  return Call(f, Type::Primitive(kResult), {a}, offset);
}

Status EvalLength(const BoundNode& n, const JsonValue& row, Value* out) {
  SLUICE_EVAL_ARGS(n, row, out);
  const bool bytes =
      n.function->name == "octet_length" || n.children[0]->type->kind() == TypeKind::kBinary;
  *out = Value::Int(static_cast<int64_t>(bytes ? v[0].s.size() : Utf8Length(v[0].s)));
  return Ok();
}

Status EvalCase(const BoundNode& n, const JsonValue& row, Value* out) {
  SLUICE_EVAL_ARGS(n, row, out);
  const bool upper = n.function->name == "upper" || n.function->name == "ucase";
  *out = Value::String(upper ? AsciiUpper(v[0].s) : AsciiLower(v[0].s));
  return Ok();
}

Status EvalTrim(const BoundNode& n, const JsonValue& row, Value* out) {
  SLUICE_EVAL_ARGS(n, row, out);
  // Spark's trim removes the space character only.
  std::string_view s = v[0].s;
  const std::string_view name = n.function->name;
  if (name != "rtrim") {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  }
  if (name != "ltrim") {
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  }
  *out = Value::String(std::string(s));
  return Ok();
}

Result<BoundPtr> BindSubstring(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  const bool two = f.name == "left" || f.name == "right";
  SLUICE_TRY(Arity(f, args, two ? 2 : 2, two ? 2 : 3, offset));
  std::vector<BoundPtr> cast;
  SLUICE_ASSIGN_OR_RETURN(BoundPtr s, Input(f, args, 0, Type::String()));
  cast.push_back(std::move(s));
  for (size_t i = 1; i < args.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(BoundPtr a, Input(f, args, i, Type::Int32()));
    cast.push_back(std::move(a));
  }
  return Call(f, Type::String(), std::move(cast), offset);
}

// UTF8String.substringSQL: 1-based; 0 is the start; negative counts from the end.
std::string SubstringSql(const std::string& s, int64_t pos, int64_t len) {
  const auto n = static_cast<int64_t>(Utf8Length(s));
  int64_t start = pos > 0 ? pos - 1 : pos < 0 ? n + pos : 0;
  const int64_t end = std::min(start + len, n);
  start = std::max<int64_t>(start, 0);
  if (start >= end) return "";
  const size_t b = Utf8Offset(s, static_cast<size_t>(start));
  const size_t e = Utf8Offset(s, static_cast<size_t>(end));
  return s.substr(b, e - b);
}

Status EvalSubstring(const BoundNode& n, const JsonValue& row, Value* out) {
  SLUICE_EVAL_ARGS(n, row, out);
  const std::string_view name = n.function->name;
  if (name == "left" || name == "right") {
    const int64_t len = v[1].i;
    if (len <= 0) {
      *out = Value::String("");
    } else {
      *out = Value::String(name == "left" ? SubstringSql(v[0].s, 1, len)
                                          : SubstringSql(v[0].s, -len, len));
    }
    return Ok();
  }
  *out = Value::String(SubstringSql(v[0].s, v[1].i, v.size() > 2 ? v[2].i : INT32_MAX));
  return Ok();
}

Result<BoundPtr> BindConcat(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  std::vector<BoundPtr> cast;
  for (size_t i = 0; i < args.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(BoundPtr a, Input(f, args, i, Type::String()));
    cast.push_back(std::move(a));
  }
  return Call(f, Type::String(), std::move(cast), offset);
}

Status EvalConcat(const BoundNode& n, const JsonValue& row, Value* out) {
  SLUICE_EVAL_ARGS(n, row, out);
  std::string s;
  for (const Value& x : v) s += x.s;
  *out = Value::String(std::move(s));
  return Ok();
}

// Two strings to a boolean (contains, startswith, endswith) or an int (instr).
template <TypeKind kResult>
Result<BoundPtr> BindTwoStrings(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  SLUICE_TRY(Arity(f, args, 2, 2, offset));
  SLUICE_ASSIGN_OR_RETURN(BoundPtr a, Input(f, args, 0, Type::String()));
  SLUICE_ASSIGN_OR_RETURN(BoundPtr b, Input(f, args, 1, Type::String()));
  return Call(f, Type::Primitive(kResult), {a, b}, offset);
}

Status EvalTwoStrings(const BoundNode& n, const JsonValue& row, Value* out) {
  SLUICE_EVAL_ARGS(n, row, out);
  const std::string& a = v[0].s;
  const std::string& b = v[1].s;
  const std::string_view name = n.function->name;
  if (name == "contains") {
    *out = Value::Bool(a.find(b) != std::string::npos);
  } else if (name == "startswith") {
    *out = Value::Bool(a.starts_with(b));
  } else if (name == "endswith") {
    *out = Value::Bool(a.ends_with(b));
  } else {  // instr: 1-based character position, 0 when absent
    const size_t at = a.find(b);
    *out =
        Value::Int(at == std::string::npos
                       ? 0
                       : static_cast<int64_t>(Utf8Length(std::string_view(a).substr(0, at))) + 1);
  }
  return Ok();
}

Result<BoundPtr> BindRegexp(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  SLUICE_TRY(Arity(f, args, 2, 2, offset));
  SLUICE_ASSIGN_OR_RETURN(BoundPtr a, Input(f, args, 0, Type::String()));
  SLUICE_ASSIGN_OR_RETURN(BoundPtr b, Input(f, args, 1, Type::String()));
  auto n = std::make_shared<BoundNode>();
  n->op = BoundOp::kRlike;
  n->type = Type::Boolean();
  n->offset = offset;
  n->children = {a, b};
  if (b->op == BoundOp::kLiteral && !b->literal.null) {
    auto re = CompileRegex(b->literal.s);
    if (!re.has_value()) return ErrorAt(b->offset, re.error().message());
    n->regex = *re;
  }
  return BoundPtr(n);
}

Status EvalUnused(const BoundNode&, const JsonValue&, Value*) {
  return Internal("a function bound to another node evaluated as a call");
}

// ---- nulls and choices --------------------------------------------------------------------

Result<BoundPtr> BindCoalesce(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  const bool pair = f.name == "nvl" || f.name == "ifnull";
  SLUICE_TRY(Arity(f, args, pair ? 2 : 1, pair ? 2 : SIZE_MAX, offset));
  SLUICE_ASSIGN_OR_RETURN(TypePtr common, CommonTypeOf(args, fmt::format("{}()", f.name), offset));
  for (BoundPtr& a : args) a = CastTo(a, common);
  return Call(f, common, std::move(args), offset);
}

Status EvalCoalesce(const BoundNode& n, const JsonValue& row, Value* out) {
  for (const BoundPtr& c : n.children) {
    SLUICE_TRY(Eval(*c, row, out));
    if (!out->null) return Ok();
  }
  *out = Value::Null();
  return Ok();
}

Result<BoundPtr> BindNullIf(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  SLUICE_TRY(Arity(f, args, 2, 2, offset));
  const TypePtr t = ComparisonTypeOf(args[0]->type, args[1]->type);
  if (t == nullptr) {
    return ErrorAt(offset, fmt::format("nullif() cannot compare {} with {}",
                                       TypeSql(*args[0]->type), TypeSql(*args[1]->type)));
  }
  TypePtr result = args[0]->type;
  SLUICE_ASSIGN_OR_RETURN(BoundPtr call, Call(f, result, {args[0], CastTo(args[1], t)}, offset));
  auto n = std::const_pointer_cast<BoundNode>(call);
  n->compare_types = {t};
  return BoundPtr(n);
}

Status EvalNullIf(const BoundNode& n, const JsonValue& row, Value* out) {
  Value b;
  SLUICE_TRY(Eval(*n.children[0], row, out));
  SLUICE_TRY(Eval(*n.children[1], row, &b));
  if (out->null || b.null) return Ok();
  const Type& t = *n.compare_types[0];
  const Value a = CastValue(*out, *n.children[0]->type, t);
  if (!a.null && CompareValues(a, b, t) == 0) *out = Value::Null();
  return Ok();
}

Result<BoundPtr> BindIf(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  SLUICE_TRY(Arity(f, args, 3, 3, offset));
  BoundPtr cond = args[0];
  if (cond->type->kind() == TypeKind::kNull) cond = CastTo(cond, Type::Boolean());
  if (cond->type->kind() != TypeKind::kBoolean) {
    return ErrorAt(cond->offset,
                   fmt::format("if() needs a boolean condition, not {}", TypeSql(*cond->type)));
  }
  SLUICE_ASSIGN_OR_RETURN(TypePtr common, CommonTypeOf({args[1], args[2]}, "if()", offset));
  return Call(f, common, {cond, CastTo(args[1], common), CastTo(args[2], common)}, offset);
}

Status EvalIf(const BoundNode& n, const JsonValue& row, Value* out) {
  Value c;
  SLUICE_TRY(Eval(*n.children[0], row, &c));
  return Eval(*n.children[!c.null && c.b ? 1 : 2], row, out);
}

Result<BoundPtr> BindIsNull(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  SLUICE_TRY(Arity(f, args, 1, 1, offset));
  auto n = std::make_shared<BoundNode>();
  n->op = BoundOp::kIsNull;
  n->type = Type::Boolean();
  n->offset = offset;
  n->negated = f.name == "isnotnull";
  n->children = {args[0]};
  return BoundPtr(n);
}

Result<BoundPtr> BindGreatest(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  SLUICE_TRY(Arity(f, args, 2, SIZE_MAX, offset));
  TypePtr common = Type::Null();
  for (const BoundPtr& a : args) {
    TypePtr wider = a->type->is_nested() ? nullptr : WiderType(common, a->type, false);
    if (wider == nullptr) {
      return ErrorAt(a->offset, fmt::format("{}() cannot compare {} with {}", f.name,
                                            TypeSql(*common), TypeSql(*a->type)));
    }
    common = std::move(wider);
  }
  for (BoundPtr& a : args) a = CastTo(a, common);
  return Call(f, common, std::move(args), offset);
}

Status EvalGreatest(const BoundNode& n, const JsonValue& row, Value* out) {
  // Nulls are skipped; null only when every argument is.
  const bool greatest = n.function->name == "greatest";
  *out = Value::Null();
  Value v;
  for (const BoundPtr& c : n.children) {
    SLUICE_TRY(Eval(*c, row, &v));
    if (v.null) continue;
    if (out->null || (CompareValues(v, *out, *n.type) > 0) == greatest) *out = std::move(v);
  }
  return Ok();
}

// ---- collections --------------------------------------------------------------------------

Result<BoundPtr> BindSize(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  SLUICE_TRY(Arity(f, args, 1, 1, offset));
  const TypeKind k = args[0]->type->kind();
  if (k != TypeKind::kArray && k != TypeKind::kMap && k != TypeKind::kNull) {
    return ErrorAt(args[0]->offset, fmt::format("{}() needs an array or a map, not {}", f.name,
                                                TypeSql(*args[0]->type)));
  }
  return Call(f, Type::Int32(), std::move(args), offset);
}

Status EvalSize(const BoundNode& n, const JsonValue& row, Value* out) {
  Value a;
  SLUICE_TRY(Eval(*n.children[0], row, &a));
  // spark.sql.legacy.sizeOfNull, on by default without ANSI: the size of null is -1.
  *out = Value::Int(a.null ? -1 : static_cast<int64_t>(a.json->size()));
  return Ok();
}

// ---- dates --------------------------------------------------------------------------------

Result<BoundPtr> BindDatePart(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  SLUICE_TRY(Arity(f, args, 1, 1, offset));
  SLUICE_ASSIGN_OR_RETURN(BoundPtr d, Input(f, args, 0, Type::Date()));
  return Call(f, f.name == "to_date" ? Type::Date() : Type::Int32(), {d}, offset);
}

Status EvalDatePart(const BoundNode& n, const JsonValue& row, Value* out) {
  SLUICE_EVAL_ARGS(n, row, out);
  const std::string_view name = n.function->name;
  if (name == "to_date") {
    *out = v[0];
    return Ok();
  }
  int64_t year = 0;
  int month = 0;
  int day = 0;
  CivilFromDays(v[0].i, &year, &month, &day);
  *out = Value::Int(name == "year" ? year : name == "month" ? month : day);
  return Ok();
}

Result<BoundPtr> BindDateAdd(const Function& f, std::vector<BoundPtr> args, size_t offset) {
  SLUICE_TRY(Arity(f, args, 2, 2, offset));
  SLUICE_ASSIGN_OR_RETURN(BoundPtr d, Input(f, args, 0, Type::Date()));
  if (f.name == "datediff") {
    SLUICE_ASSIGN_OR_RETURN(BoundPtr e, Input(f, args, 1, Type::Date()));
    return Call(f, Type::Int32(), {d, e}, offset);
  }
  const TypeKind k = args[1]->type->kind();
  if (k != TypeKind::kInt8 && k != TypeKind::kInt16 && k != TypeKind::kInt32 &&
      k != TypeKind::kNull && k != TypeKind::kString) {
    return ErrorAt(args[1]->offset, fmt::format("{}() needs an INT number of days, not {}", f.name,
                                                TypeSql(*args[1]->type)));
  }
  return Call(f, Type::Date(), {d, CastTo(args[1], Type::Int32())}, offset);
}

Status EvalDateAdd(const BoundNode& n, const JsonValue& row, Value* out) {
  SLUICE_EVAL_ARGS(n, row, out);
  const std::string_view name = n.function->name;
  const int64_t r = name == "datediff"   ? v[0].i - v[1].i
                    : name == "date_sub" ? v[0].i - v[1].i
                                         : v[0].i + v[1].i;
  *out = Value::Int(static_cast<int32_t>(static_cast<uint32_t>(r)));
  return Ok();
}

constexpr Function kFunctions[] = {
    {"abs", BindAbs, EvalAbs},
    {"ceil", BindRound, EvalRound},
    {"ceiling", BindRound, EvalRound},
    {"floor", BindRound, EvalRound},
    {"length", BindStringFn<TypeKind::kInt32>, EvalLength},
    {"char_length", BindStringFn<TypeKind::kInt32>, EvalLength},
    {"character_length", BindStringFn<TypeKind::kInt32>, EvalLength},
    {"octet_length", BindStringFn<TypeKind::kInt32>, EvalLength},
    {"upper", BindStringFn<TypeKind::kString>, EvalCase},
    {"ucase", BindStringFn<TypeKind::kString>, EvalCase},
    {"lower", BindStringFn<TypeKind::kString>, EvalCase},
    {"lcase", BindStringFn<TypeKind::kString>, EvalCase},
    {"trim", BindStringFn<TypeKind::kString>, EvalTrim},
    {"ltrim", BindStringFn<TypeKind::kString>, EvalTrim},
    {"rtrim", BindStringFn<TypeKind::kString>, EvalTrim},
    {"substring", BindSubstring, EvalSubstring},
    {"substr", BindSubstring, EvalSubstring},
    {"left", BindSubstring, EvalSubstring},
    {"right", BindSubstring, EvalSubstring},
    {"concat", BindConcat, EvalConcat},
    {"contains", BindTwoStrings<TypeKind::kBoolean>, EvalTwoStrings},
    {"startswith", BindTwoStrings<TypeKind::kBoolean>, EvalTwoStrings},
    {"endswith", BindTwoStrings<TypeKind::kBoolean>, EvalTwoStrings},
    {"instr", BindTwoStrings<TypeKind::kInt32>, EvalTwoStrings},
    {"regexp", BindRegexp, EvalUnused},
    {"regexp_like", BindRegexp, EvalUnused},
    {"coalesce", BindCoalesce, EvalCoalesce},
    {"nvl", BindCoalesce, EvalCoalesce},
    {"ifnull", BindCoalesce, EvalCoalesce},
    {"nullif", BindNullIf, EvalNullIf},
    {"if", BindIf, EvalIf},
    {"isnull", BindIsNull, EvalUnused},
    {"isnotnull", BindIsNull, EvalUnused},
    {"greatest", BindGreatest, EvalGreatest},
    {"least", BindGreatest, EvalGreatest},
    {"size", BindSize, EvalSize},
    {"cardinality", BindSize, EvalSize},
    {"year", BindDatePart, EvalDatePart},
    {"month", BindDatePart, EvalDatePart},
    {"day", BindDatePart, EvalDatePart},
    {"dayofmonth", BindDatePart, EvalDatePart},
    {"to_date", BindDatePart, EvalDatePart},
    {"date_add", BindDateAdd, EvalDateAdd},
    {"date_sub", BindDateAdd, EvalDateAdd},
    {"datediff", BindDateAdd, EvalDateAdd},
};

}  // namespace

const Function* FindFunction(std::string_view lower_name) {
  for (const Function& f : kFunctions) {
    if (f.name == lower_name) return &f;
  }
  return nullptr;
}

bool IsNonDeterministicFunction(std::string_view lower_name) {
  static constexpr std::string_view kNames[] = {"current_date",
                                                "current_timestamp",
                                                "now",
                                                "localtimestamp",
                                                "curdate",
                                                "unix_timestamp",
                                                "rand",
                                                "random",
                                                "randn",
                                                "uuid",
                                                "shuffle",
                                                "monotonically_increasing_id",
                                                "spark_partition_id",
                                                "input_file_name",
                                                "current_timezone",
                                                "current_user",
                                                "user",
                                                "session_user"};
  return std::find(std::begin(kNames), std::end(kNames), lower_name) != std::end(kNames);
}

}  // namespace sluice::table::internal
