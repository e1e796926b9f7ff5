// Binding: names resolved against the schema (ignoring case, as Spark's default resolver does),
// every node typed, and Spark 3.5's implicit casts (TypeCoercion, non-ANSI) made explicit as
// cast nodes, so that evaluation never decides a type.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/table/expression.h"
#include "sluice/table/expression_internal.h"

namespace sluice::table {
namespace internal {

using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

BoundPtr CastTo(BoundPtr node, const TypePtr& type) {
  if (node->type->Equals(*type, false)) return node;
  auto n = std::make_shared<BoundNode>();
  n->type = type;
  n->offset = node->offset;
  if (node->op == BoundOp::kLiteral) {
    // A cast of a constant is a constant.
    n->op = BoundOp::kLiteral;
    n->literal = CastValue(node->literal, *node->type, *type);
    return n;
  }
  n->op = BoundOp::kCast;
  n->children.push_back(std::move(node));
  return n;
}

BoundPtr ImplicitCast(BoundPtr node, const TypePtr& type) {
  const Type& from = *node->type;
  if (from.Equals(*type, false) || from.kind() == TypeKind::kNull) {
    return CastTo(std::move(node), type);
  }
  if (from.is_nested() || type->is_nested()) return nullptr;
  const TypeKind f = from.kind();
  const TypeKind t = type->kind();
  const bool ok =
      (IsNumeric(from) && IsNumeric(*type)) ||
      (f == TypeKind::kString &&
       (IsNumeric(*type) || t == TypeKind::kDate || t == TypeKind::kTimestamp ||
        t == TypeKind::kTimestampNtz || t == TypeKind::kBinary)) ||
      (t == TypeKind::kString && f != TypeKind::kBinary) ||
      ((f == TypeKind::kDate || f == TypeKind::kTimestamp || f == TypeKind::kTimestampNtz) &&
       (t == TypeKind::kDate || t == TypeKind::kTimestamp || t == TypeKind::kTimestampNtz));
  return ok ? CastTo(std::move(node), type) : nullptr;
}

}  // namespace internal

namespace {

using internal::BoundNode;
using internal::BoundOp;
using internal::BoundPtr;
using internal::CastTo;
using internal::ErrorAt;
using internal::IsNumeric;
using internal::TypeSql;
using internal::Value;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

std::shared_ptr<BoundNode> MakeNode(BoundOp op, TypePtr type, size_t offset,
                                    std::vector<BoundPtr> children = {}) {
  auto n = std::make_shared<BoundNode>();
  n->op = op;
  n->type = std::move(type);
  n->offset = offset;
  n->children = std::move(children);
  return n;
}

bool IsDatetime(const Type& t) {
  return t.kind() == TypeKind::kDate || t.kind() == TypeKind::kTimestamp ||
         t.kind() == TypeKind::kTimestampNtz;
}

// The type two sides of a comparison meet at (findCommonTypeForBinaryComparison, then the
// numeric widening); nullptr when Spark would not compare them.
TypePtr ComparisonType(const TypePtr& a, const TypePtr& b) {
  if (a->kind() == TypeKind::kNull) return b;
  if (b->kind() == TypeKind::kNull) return a;
  if (a->is_nested() || b->is_nested()) return nullptr;
  if (a->Equals(*b, false)) return a;
  const bool sa = a->kind() == TypeKind::kString;
  const bool sb = b->kind() == TypeKind::kString;
  if (sa || sb) {
    const TypePtr& other = sa ? b : a;
    if (other->kind() == TypeKind::kDecimal) return Type::Float64();
    return other;
  }
  if (IsNumeric(*a) && IsNumeric(*b)) return internal::WiderType(a, b, false);
  if (IsDatetime(*a) && IsDatetime(*b)) return internal::WiderType(a, b, false);
  return nullptr;
}

// An integer literal next to a decimal takes its own digits as precision
// (DecimalType.fromLiteral; spark.sql.legacy.literal.pickMinimumPrecision).
TypePtr DecimalOperandType(const BoundNode& n) {
  if (n.type->kind() == TypeKind::kDecimal) return n.type;
  if (n.op == BoundOp::kLiteral && !n.literal.null && n.type->is_integer()) {
    const uint64_t magnitude = n.literal.i < 0 ? 0 - static_cast<uint64_t>(n.literal.i)
                                               : static_cast<uint64_t>(n.literal.i);
    const std::string digits = std::to_string(magnitude);
    return *Type::Decimal(static_cast<int>(digits.size()), 0);
  }
  return internal::DecimalForIntegral(*n.type);
}

TypePtr DecimalResultType(BinaryOp op, const Type& a, const Type& b) {
  const int p1 = a.precision(), s1 = a.scale(), p2 = b.precision(), s2 = b.scale();
  if (op == BinaryOp::kAdd || op == BinaryOp::kSubtract) {
    return internal::AdjustedDecimal(std::max(p1 - s1, p2 - s2) + std::max(s1, s2) + 1,
                                     std::max(s1, s2));
  }
  if (op == BinaryOp::kMultiply) return internal::AdjustedDecimal(p1 + p2 + 1, s1 + s2);
  if (op == BinaryOp::kDivide) {
    const int scale = std::max(6, s1 + p2 + 1);
    return internal::AdjustedDecimal(p1 - s1 + s2 + scale, scale);
  }
  // Remainder.
  return internal::AdjustedDecimal(std::min(p1 - s1, p2 - s2) + std::max(s1, s2), std::max(s1, s2));
}

bool IsComparison(BinaryOp op) {
  return op == BinaryOp::kEq || op == BinaryOp::kNullSafeEq || op == BinaryOp::kNe ||
         op == BinaryOp::kLt || op == BinaryOp::kLe || op == BinaryOp::kGt || op == BinaryOp::kGe;
}

class Binder {
 public:
  explicit Binder(const schema::Schema& schema) : schema_(schema) {}

  Result<BoundPtr> Bind(const Expression& e) {
    if (++depth_ > 2 * kMaxExpressionDepth) {
      return ErrorAt(e.offset, fmt::format("expression nests too deeply: more than {} levels",
                                           kMaxExpressionDepth));
    }
    auto result = BindNode(e);
    --depth_;
    return result;
  }

  std::vector<schema::FieldPath> columns;

 private:
  Result<BoundPtr> BindNode(const Expression& e) {
    switch (e.kind) {
      case ExprKind::kLiteral:
        return BindLiteral(e);
      case ExprKind::kColumn:
        return BindColumn(e);
      case ExprKind::kField: {
        SLUICE_ASSIGN_OR_RETURN(BoundPtr base, Bind(*e.children[0]));
        return Step(std::move(base), e.names[0], e.offset);
      }
      case ExprKind::kSubscript:
        return BindSubscript(e);
      case ExprKind::kUnary:
        return BindUnary(e);
      case ExprKind::kBinary:
        return BindBinary(e);
      case ExprKind::kAnd:
      case ExprKind::kOr: {
        std::vector<BoundPtr> terms;
        for (const ExpressionPtr& c : e.children) {
          SLUICE_ASSIGN_OR_RETURN(BoundPtr t,
                                  BindBoolean(*c, e.kind == ExprKind::kAnd ? "AND" : "OR"));
          terms.push_back(std::move(t));
        }
        return BoundPtr(MakeNode(e.kind == ExprKind::kAnd ? BoundOp::kAnd : BoundOp::kOr,
                                 Type::Boolean(), e.offset, std::move(terms)));
      }
      case ExprKind::kIs:
        return BindIs(e);
      case ExprKind::kIn:
        return BindIn(e);
      case ExprKind::kBetween:
        return BindBetween(e);
      case ExprKind::kLike:
        return BindLike(e);
      case ExprKind::kCase:
        return BindCase(e);
      case ExprKind::kCast: {
        SLUICE_ASSIGN_OR_RETURN(BoundPtr operand, Bind(*e.children[0]));
        const TypePtr target = internal::NormalizeType(e.type);
        if (target == nullptr || !internal::CanCast(*operand->type, *target)) {
          return ErrorAt(e.offset, fmt::format("cannot cast {} to {}", TypeSql(*operand->type),
                                               TypeSql(*e.type)));
        }
        return CastTo(std::move(operand), target);
      }
      case ExprKind::kCall: {
        const internal::Function* f = internal::FindFunction(e.names[0]);
        if (f == nullptr) {
          return ErrorAt(e.offset, fmt::format("unknown function '{}'", e.names[0]));
        }
        std::vector<BoundPtr> args;
        for (const ExpressionPtr& c : e.children) {
          SLUICE_ASSIGN_OR_RETURN(BoundPtr a, Bind(*c));
          args.push_back(std::move(a));
        }
        return f->bind(*f, std::move(args), e.offset);
      }
    }
    return ErrorAt(e.offset, "unknown expression");
  }

  Result<BoundPtr> BindLiteral(const Expression& e) {
    auto n = MakeNode(BoundOp::kLiteral, Type::Null(), e.offset);
    switch (e.literal) {
      case LiteralKind::kNull:
        return BoundPtr(n);
      case LiteralKind::kBoolean:
        n->type = Type::Boolean();
        n->literal = Value::Bool(e.text == "true");
        return BoundPtr(n);
      case LiteralKind::kString:
        n->type = Type::String();
        n->literal = Value::String(e.text);
        return BoundPtr(n);
      case LiteralKind::kDate: {
        int32_t days = 0;
        if (!internal::ParseDate(e.text, &days)) return ErrorAt(e.offset, "invalid DATE literal");
        n->type = Type::Date();
        n->literal = Value::Int(days);
        return BoundPtr(n);
      }
      case LiteralKind::kTimestamp:
      case LiteralKind::kTimestampNtz: {
        const bool ntz = e.literal == LiteralKind::kTimestampNtz;
        int64_t micros = 0;
        if (!internal::ParseTimestamp(e.text, ntz, &micros)) {
          return ErrorAt(e.offset, "invalid TIMESTAMP literal");
        }
        n->type = ntz ? Type::TimestampNtz() : Type::Timestamp();
        n->literal = Value::Int(micros);
        return BoundPtr(n);
      }
      case LiteralKind::kNumber:
        break;
    }
    if (e.type == nullptr) return ErrorAt(e.offset, "number literal without a type");
    n->type = e.type;
    const std::string& t = e.text;
    if (e.type->is_integer()) {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (ec != std::errc()) return ErrorAt(e.offset, "invalid integer literal");
      n->literal = Value::Int(v);
    } else if (e.type->is_floating()) {
      double v = 0;
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (ec != std::errc()) return ErrorAt(e.offset, "invalid number literal");
      n->literal = Value::Double(
          e.type->kind() == TypeKind::kFloat32 ? static_cast<double>(static_cast<float>(v)) : v);
    } else if (e.type->kind() == TypeKind::kDecimal) {
      internal::Int128 v = 0;
      if (!internal::DecimalFromText(t, e.type->precision(), e.type->scale(), &v)) {
        return ErrorAt(e.offset, "invalid decimal literal");
      }
      n->literal = Value::Decimal(v);
    } else {
      return ErrorAt(e.offset, "invalid number literal");
    }
    return BoundPtr(n);
  }

  std::string FieldList(const std::vector<schema::Field>& fields) const {
    std::string out;
    const size_t shown = std::min<size_t>(fields.size(), 30);
    for (size_t i = 0; i < shown; ++i) {
      if (i > 0) out += ", ";
      out += schema::QuoteFieldName(fields[i].name());
    }
    if (fields.size() > shown) out += fmt::format(", ... ({} in all)", fields.size());
    return out.empty() ? "none" : out;
  }

  // The field of `fields` named `name` ignoring case.
  Result<const schema::Field*> FindField(const std::vector<schema::Field>& fields,
                                         const Type& parent, std::string_view name,
                                         std::string_view where, size_t offset) const {
    const std::vector<size_t> found = parent.FindFieldsIgnoreCase(name);
    if (found.size() > 1) {
      return ErrorAt(offset, fmt::format("column '{}'{} is ambiguous: {} and {} differ only in "
                                         "case",
                                         EscapeForMessage(name, 80), where, fields[found[0]].name(),
                                         fields[found[1]].name()));
    }
    if (found.empty()) {
      return ErrorAt(offset, fmt::format("column '{}'{} not found; there are: {}",
                                         EscapeForMessage(name, 80), where, FieldList(fields)));
    }
    return &fields[found[0]];
  }

  Result<TypePtr> Normalized(const TypePtr& type, std::string_view name, size_t offset) const {
    TypePtr t = internal::NormalizeType(type);
    if (t == nullptr) {
      return ErrorAt(offset, fmt::format("column '{}' has type {}, which expressions cannot use",
                                         EscapeForMessage(name, 80), type->ToString()));
    }
    return t;
  }

  void Record(const std::vector<std::string>& path) {
    std::vector<schema::PathSegment> segments;
    for (const std::string& n : path) segments.push_back({schema::PathSegment::Kind::kField, n});
    schema::FieldPath p(std::move(segments));
    if (std::find(columns.begin(), columns.end(), p) == columns.end()) {
      columns.push_back(std::move(p));
    }
  }

  Result<BoundPtr> BindColumn(const Expression& e) {
    const schema::Field* field = nullptr;
    SLUICE_ASSIGN_OR_RETURN(
        field, FindField(schema_.fields(), *schema_.struct_type(), e.names[0], "", e.offset));
    auto column = MakeNode(BoundOp::kColumn, nullptr, e.offset);
    column->path.push_back(field->name());
    SLUICE_ASSIGN_OR_RETURN(column->type, Normalized(field->type(), field->name(), e.offset));
    // Steps into structs stay in the column's path; a map or anything else ends it.
    size_t i = 1;
    for (; i < e.names.size() && column->type->is_struct(); ++i) {
      const std::string where = " in " + schema::QuoteFieldName(column->path.back());
      SLUICE_ASSIGN_OR_RETURN(
          field, FindField(column->type->fields(), *column->type, e.names[i], where, e.offset));
      column->path.push_back(field->name());
      SLUICE_ASSIGN_OR_RETURN(column->type, Normalized(field->type(), field->name(), e.offset));
    }
    Record(column->path);
    BoundPtr node = column;
    for (; i < e.names.size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(node, Step(std::move(node), e.names[i], e.offset));
    }
    return node;
  }

  // `.name` on a computed value: a struct's field or a map's value for that key.
  Result<BoundPtr> Step(BoundPtr base, std::string_view name, size_t offset) {
    const TypePtr type = base->type;
    if (type->is_struct()) {
      const schema::Field* field = nullptr;
      SLUICE_ASSIGN_OR_RETURN(field, FindField(type->fields(), *type, name, "", offset));
      auto n = MakeNode(BoundOp::kField, nullptr, offset, {std::move(base)});
      n->path.push_back(field->name());
      SLUICE_ASSIGN_OR_RETURN(n->type, Normalized(field->type(), field->name(), offset));
      return BoundPtr(n);
    }
    if (type->is_map()) {
      auto key = MakeNode(BoundOp::kLiteral, Type::String(), offset);
      key->literal = Value::String(std::string(name));
      return MapLookup(std::move(base), key, offset);
    }
    return ErrorAt(offset, fmt::format("cannot read field '{}' of a value of type {}",
                                       EscapeForMessage(name, 80), TypeSql(*type)));
  }

  Result<BoundPtr> MapLookup(BoundPtr map, BoundPtr key, size_t offset) {
    const TypePtr key_type = internal::NormalizeType(map->type->key_type());
    const TypePtr value_type = internal::NormalizeType(map->type->value_type());
    if (key_type == nullptr || value_type == nullptr) {
      return ErrorAt(offset, fmt::format("maps of type {} cannot be read in expressions",
                                         TypeSql(*map->type)));
    }
    BoundPtr cast = internal::ImplicitCast(key, key_type);
    if (cast == nullptr) {
      return ErrorAt(key->offset, fmt::format("map key of type {} cannot be looked up with a {}",
                                              TypeSql(*key_type), TypeSql(*key->type)));
    }
    return BoundPtr(
        MakeNode(BoundOp::kMapValue, value_type, offset, {std::move(map), std::move(cast)}));
  }

  Result<BoundPtr> BindSubscript(const Expression& e) {
    SLUICE_ASSIGN_OR_RETURN(BoundPtr base, Bind(*e.children[0]));
    SLUICE_ASSIGN_OR_RETURN(BoundPtr index, Bind(*e.children[1]));
    if (base->type->is_map()) return MapLookup(std::move(base), std::move(index), e.offset);
    if (!base->type->is_array()) {
      return ErrorAt(e.offset,
                     fmt::format("cannot subscript a value of type {}", TypeSql(*base->type)));
    }
    if (!index->type->is_integer() && index->type->kind() != TypeKind::kNull) {
      return ErrorAt(e.children[1]->offset,
                     fmt::format("array index must be an integer, not {}", TypeSql(*index->type)));
    }
    const TypePtr element = internal::NormalizeType(base->type->element_type());
    if (element == nullptr) {
      return ErrorAt(e.offset, fmt::format("arrays of type {} cannot be read in expressions",
                                           TypeSql(*base->type)));
    }
    return BoundPtr(MakeNode(BoundOp::kArrayItem, element, e.offset,
                             {std::move(base), CastTo(std::move(index), Type::Int32())}));
  }

  Result<BoundPtr> BindBoolean(const Expression& e, std::string_view what) {
    SLUICE_ASSIGN_OR_RETURN(BoundPtr b, Bind(e));
    if (b->type->kind() == TypeKind::kNull) return CastTo(std::move(b), Type::Boolean());
    if (b->type->kind() != TypeKind::kBoolean) {
      return ErrorAt(e.offset,
                     fmt::format("{} needs a boolean operand, not {}", what, TypeSql(*b->type)));
    }
    return b;
  }

  Result<BoundPtr> BindUnary(const Expression& e) {
    if (e.unary == UnaryOp::kNot) {
      SLUICE_ASSIGN_OR_RETURN(BoundPtr b, BindBoolean(*e.children[0], "NOT"));
      return BoundPtr(MakeNode(BoundOp::kNot, Type::Boolean(), e.offset, {std::move(b)}));
    }
    SLUICE_ASSIGN_OR_RETURN(BoundPtr operand, Bind(*e.children[0]));
    const TypeKind k = operand->type->kind();
    if (e.unary == UnaryOp::kBitNot) {
      if (!operand->type->is_integer()) {
        return ErrorAt(e.offset,
                       fmt::format("~ needs an integer operand, not {}", TypeSql(*operand->type)));
      }
      TypePtr t = operand->type;
      return BoundPtr(MakeNode(BoundOp::kBitNot, t, e.offset, {std::move(operand)}));
    }
    if (k == TypeKind::kString || k == TypeKind::kNull) {
      operand = CastTo(std::move(operand), Type::Float64());
    } else if (!IsNumeric(*operand->type)) {
      return ErrorAt(e.offset,
                     fmt::format("unary {} needs a number, not {}",
                                 e.unary == UnaryOp::kNegate ? "-" : "+", TypeSql(*operand->type)));
    }
    if (e.unary == UnaryOp::kPlus) return operand;
    TypePtr t = operand->type;
    return BoundPtr(MakeNode(BoundOp::kNegate, t, e.offset, {std::move(operand)}));
  }

  Result<BoundPtr> Compare(BinaryOp op, BoundPtr l, BoundPtr r, size_t offset) {
    const TypePtr t = ComparisonType(l->type, r->type);
    if (t == nullptr) {
      return ErrorAt(
          offset, fmt::format("cannot compare {} with {}", TypeSql(*l->type), TypeSql(*r->type)));
    }
    auto n = MakeNode(BoundOp::kCompare, Type::Boolean(), offset,
                      {CastTo(std::move(l), t), CastTo(std::move(r), t)});
    n->binary = op;
    return BoundPtr(n);
  }

  Result<BoundPtr> BindBinary(const Expression& e) {
    SLUICE_ASSIGN_OR_RETURN(BoundPtr l, Bind(*e.children[0]));
    SLUICE_ASSIGN_OR_RETURN(BoundPtr r, Bind(*e.children[1]));
    if (IsComparison(e.binary)) return Compare(e.binary, std::move(l), std::move(r), e.offset);
    auto mismatch = [&]() {
      return ErrorAt(e.offset,
                     fmt::format("{} cannot take {} and {}", internal::BinaryOpSql(e.binary),
                                 TypeSql(*l->type), TypeSql(*r->type)));
    };
    if (e.binary == BinaryOp::kConcat) {
      BoundPtr lc = internal::ImplicitCast(l, Type::String());
      BoundPtr rc = internal::ImplicitCast(r, Type::String());
      if (lc == nullptr || rc == nullptr) return mismatch();
      auto n = MakeNode(BoundOp::kConcat, Type::String(), e.offset, {lc, rc});
      n->binary = e.binary;
      return BoundPtr(n);
    }
    // date + n, n + date, date - n (DateAdd / DateSub).
    const bool date_l = l->type->kind() == TypeKind::kDate;
    const bool date_r = r->type->kind() == TypeKind::kDate;
    if ((date_l || date_r) && (e.binary == BinaryOp::kAdd || e.binary == BinaryOp::kSubtract)) {
      if (date_r && (date_l || e.binary == BinaryOp::kSubtract)) return mismatch();
      BoundPtr date = date_l ? l : r;
      BoundPtr days = date_l ? r : l;
      if (!days->type->is_integer() && days->type->kind() != TypeKind::kNull) return mismatch();
      auto n =
          MakeNode(BoundOp::kDateAdd, Type::Date(), e.offset, {date, CastTo(days, Type::Int32())});
      n->binary = e.binary;
      return BoundPtr(n);
    }
    // Strings in arithmetic are read as doubles (PromoteStrings); null takes the other side.
    for (BoundPtr* side : {&l, &r}) {
      const TypeKind k = (*side)->type->kind();
      if (k == TypeKind::kString) *side = CastTo(*side, Type::Float64());
    }
    if (l->type->kind() == TypeKind::kNull && r->type->kind() == TypeKind::kNull) {
      l = CastTo(l, Type::Float64());
    }
    if (l->type->kind() == TypeKind::kNull) l = CastTo(l, r->type);
    if (r->type->kind() == TypeKind::kNull) r = CastTo(r, l->type);
    if (!IsNumeric(*l->type) || !IsNumeric(*r->type)) return mismatch();
    return Arithmetic(e, std::move(l), std::move(r));
  }

  Result<BoundPtr> Arithmetic(const Expression& e, BoundPtr l, BoundPtr r) {
    const BinaryOp op = e.binary;
    auto node = [&](TypePtr type, BoundPtr a, BoundPtr b) {
      auto n =
          MakeNode(BoundOp::kArithmetic, std::move(type), e.offset, {std::move(a), std::move(b)});
      n->binary = op;
      return BoundPtr(n);
    };
    const bool integral = l->type->is_integer() && r->type->is_integer();
    if (op == BinaryOp::kBitAnd || op == BinaryOp::kBitOr || op == BinaryOp::kBitXor) {
      if (!integral) {
        return ErrorAt(e.offset,
                       fmt::format("{} needs integers, not {} and {}", internal::BinaryOpSql(op),
                                   TypeSql(*l->type), TypeSql(*r->type)));
      }
      const TypePtr t = internal::WiderType(l->type, r->type, false);
      return node(t, CastTo(l, t), CastTo(r, t));
    }
    if (op == BinaryOp::kIntDivide) {
      if (!integral) {
        return ErrorAt(e.offset, fmt::format("div needs integers, not {} and {}", TypeSql(*l->type),
                                             TypeSql(*r->type)));
      }
      return node(Type::Int64(), CastTo(l, Type::Int64()), CastTo(r, Type::Int64()));
    }
    const bool dl = l->type->kind() == TypeKind::kDecimal;
    const bool dr = r->type->kind() == TypeKind::kDecimal;
    const bool floating = l->type->is_floating() || r->type->is_floating();
    if ((dl || dr) && !floating) {
      const TypePtr tl = DecimalOperandType(*l);
      const TypePtr tr = DecimalOperandType(*r);
      return node(DecimalResultType(op, *tl, *tr), CastTo(l, tl), CastTo(r, tr));
    }
    if (op == BinaryOp::kDivide) {
      return node(Type::Float64(), CastTo(l, Type::Float64()), CastTo(r, Type::Float64()));
    }
    const TypePtr t = internal::WiderType(l->type, r->type, false);
    return node(t, CastTo(l, t), CastTo(r, t));
  }

  Result<BoundPtr> BindIs(const Expression& e) {
    if (e.is_test == IsTest::kNull) {
      SLUICE_ASSIGN_OR_RETURN(BoundPtr operand, Bind(*e.children[0]));
      auto n = MakeNode(BoundOp::kIsNull, Type::Boolean(), e.offset, {std::move(operand)});
      n->negated = e.negated;
      return BoundPtr(n);
    }
    if (e.is_test == IsTest::kDistinctFrom) {
      SLUICE_ASSIGN_OR_RETURN(BoundPtr l, Bind(*e.children[0]));
      SLUICE_ASSIGN_OR_RETURN(BoundPtr r, Bind(*e.children[1]));
      SLUICE_ASSIGN_OR_RETURN(BoundPtr same,
                              Compare(BinaryOp::kNullSafeEq, std::move(l), std::move(r), e.offset));
      if (e.negated) return same;
      return BoundPtr(MakeNode(BoundOp::kNot, Type::Boolean(), e.offset, {std::move(same)}));
    }
    SLUICE_ASSIGN_OR_RETURN(BoundPtr operand, BindBoolean(*e.children[0], "IS TRUE/FALSE"));
    auto n = MakeNode(BoundOp::kIsBool, Type::Boolean(), e.offset, {std::move(operand)});
    n->is_test = e.is_test;
    n->negated = e.negated;
    return BoundPtr(n);
  }

  Result<BoundPtr> BindIn(const Expression& e) {
    std::vector<BoundPtr> items;
    TypePtr common = Type::Null();
    for (const ExpressionPtr& c : e.children) {
      SLUICE_ASSIGN_OR_RETURN(BoundPtr item, Bind(*c));
      TypePtr wider =
          item->type->is_nested() ? nullptr : internal::WiderType(common, item->type, true);
      if (wider == nullptr) {
        return ErrorAt(c->offset, fmt::format("IN cannot compare {} with {}", TypeSql(*common),
                                              TypeSql(*item->type)));
      }
      common = std::move(wider);
      items.push_back(std::move(item));
    }
    for (BoundPtr& item : items) item = CastTo(std::move(item), common);
    auto n = MakeNode(BoundOp::kIn, Type::Boolean(), e.offset, std::move(items));
    n->negated = e.negated;
    return BoundPtr(n);
  }

  Result<BoundPtr> BindBetween(const Expression& e) {
    SLUICE_ASSIGN_OR_RETURN(BoundPtr v, Bind(*e.children[0]));
    SLUICE_ASSIGN_OR_RETURN(BoundPtr lo, Bind(*e.children[1]));
    SLUICE_ASSIGN_OR_RETURN(BoundPtr hi, Bind(*e.children[2]));
    const TypePtr tl = ComparisonType(v->type, lo->type);
    const TypePtr th = ComparisonType(v->type, hi->type);
    if (tl == nullptr || th == nullptr) {
      return ErrorAt(e.offset,
                     fmt::format("BETWEEN cannot compare {} with {} and {}", TypeSql(*v->type),
                                 TypeSql(*lo->type), TypeSql(*hi->type)));
    }
    auto n = MakeNode(BoundOp::kBetween, Type::Boolean(), e.offset,
                      {std::move(v), CastTo(std::move(lo), tl), CastTo(std::move(hi), th)});
    n->compare_types = {tl, th};
    n->negated = e.negated;
    return BoundPtr(n);
  }

  Result<BoundPtr> BindLike(const Expression& e) {
    SLUICE_ASSIGN_OR_RETURN(BoundPtr v, Bind(*e.children[0]));
    SLUICE_ASSIGN_OR_RETURN(BoundPtr p, Bind(*e.children[1]));
    std::string_view word = e.like == LikeKind::kRlike ? "RLIKE" : "LIKE";
    BoundPtr vs = internal::ImplicitCast(v, Type::String());
    BoundPtr ps = internal::ImplicitCast(p, Type::String());
    if (vs == nullptr || ps == nullptr) {
      return ErrorAt(e.offset, fmt::format("{} needs strings, not {} and {}", word,
                                           TypeSql(*v->type), TypeSql(*p->type)));
    }
    const bool rlike = e.like == LikeKind::kRlike;
    auto n =
        MakeNode(rlike ? BoundOp::kRlike : BoundOp::kLike, Type::Boolean(), e.offset, {vs, ps});
    n->negated = e.negated;
    n->ilike = e.like == LikeKind::kIlike;
    n->escape = e.escape;
    if (ps->op == BoundOp::kLiteral && !ps->literal.null) {
      if (rlike) {
        auto re = internal::CompileRegex(ps->literal.s);
        if (!re.has_value()) return ErrorAt(ps->offset, re.error().message());
        n->regex = *re;
      } else {
        auto like = internal::CompileLike(ps->literal.s, DecodeEscape(e.escape), n->ilike);
        if (!like.has_value()) return ErrorAt(ps->offset, like.error().message());
        n->like_pattern = *like;
      }
    }
    return BoundPtr(n);
  }

  static char32_t DecodeEscape(std::string_view s) {
    if (s.empty()) return U'\\';
    const auto c0 = static_cast<unsigned char>(s[0]);
    if (c0 < 0x80) return c0;
    char32_t cp = c0 >= 0xF0 ? c0 & 0x07 : c0 >= 0xE0 ? c0 & 0x0F : c0 & 0x1F;
    for (size_t i = 1; i < s.size(); ++i)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3F);
    return cp;
  }

  Result<BoundPtr> BindCase(const Expression& e) {
    size_t i = 0;
    BoundPtr operand;
    if (e.has_operand) {
      SLUICE_ASSIGN_OR_RETURN(operand, Bind(*e.children[i++]));
    }
    const size_t pairs_end = e.children.size() - (e.has_else ? 1 : 0);
    std::vector<BoundPtr> conditions;
    std::vector<BoundPtr> results;
    std::vector<TypePtr> compare_types;
    for (; i < pairs_end; i += 2) {
      if (operand != nullptr) {
        SLUICE_ASSIGN_OR_RETURN(BoundPtr when, Bind(*e.children[i]));
        const TypePtr t = ComparisonType(operand->type, when->type);
        if (t == nullptr) {
          return ErrorAt(e.children[i]->offset,
                         fmt::format("CASE cannot compare {} with {}", TypeSql(*operand->type),
                                     TypeSql(*when->type)));
        }
        compare_types.push_back(t);
        conditions.push_back(CastTo(std::move(when), t));
      } else {
        SLUICE_ASSIGN_OR_RETURN(BoundPtr when, BindBoolean(*e.children[i], "WHEN"));
        conditions.push_back(std::move(when));
      }
      SLUICE_ASSIGN_OR_RETURN(BoundPtr then, Bind(*e.children[i + 1]));
      results.push_back(std::move(then));
    }
    if (e.has_else) {
      SLUICE_ASSIGN_OR_RETURN(BoundPtr otherwise, Bind(*e.children.back()));
      results.push_back(std::move(otherwise));
    }
    SLUICE_ASSIGN_OR_RETURN(TypePtr common, CommonType(results, "CASE", e.offset));
    std::vector<BoundPtr> children;
    if (operand != nullptr) children.push_back(operand);
    for (size_t k = 0; k < conditions.size(); ++k) {
      children.push_back(conditions[k]);
      children.push_back(CastTo(results[k], common));
    }
    if (e.has_else) children.push_back(CastTo(results.back(), common));
    auto n = MakeNode(BoundOp::kCase, common, e.offset, std::move(children));
    n->has_operand = operand != nullptr;
    n->has_else = e.has_else;
    n->compare_types = std::move(compare_types);
    return BoundPtr(n);
  }

 public:
  // The wider common type of `items` (findWiderCommonType, strings winning over numbers).
  static Result<TypePtr> CommonType(const std::vector<BoundPtr>& items, std::string_view what,
                                    size_t offset) {
    TypePtr common = Type::Null();
    for (const BoundPtr& item : items) {
      TypePtr wider = item->type->Equals(*common, false) ? common
                      : item->type->is_nested() || common->is_nested()
                          ? (common->kind() == TypeKind::kNull ? item->type : nullptr)
                          : internal::WiderType(common, item->type, true);
      if (wider == nullptr) {
        return ErrorAt(offset, fmt::format("{} has no common type for {} and {}", what,
                                           TypeSql(*common), TypeSql(*item->type)));
      }
      common = std::move(wider);
    }
    return common;
  }

 private:
  const schema::Schema& schema_;
  int depth_ = 0;
};

}  // namespace

namespace internal {

Result<schema::TypePtr> CommonTypeOf(const std::vector<BoundPtr>& items, std::string_view what,
                                     size_t offset) {
  return Binder::CommonType(items, what, offset);
}

TypePtr ComparisonTypeOf(const TypePtr& a, const TypePtr& b) { return ComparisonType(a, b); }

}  // namespace internal

BoundExpression::BoundExpression() = default;
BoundExpression::~BoundExpression() = default;
BoundExpression::BoundExpression(const BoundExpression&) = default;
BoundExpression::BoundExpression(BoundExpression&&) noexcept = default;
BoundExpression& BoundExpression::operator=(const BoundExpression&) = default;
BoundExpression& BoundExpression::operator=(BoundExpression&&) noexcept = default;

Result<BoundExpression> Bind(const Expression& expr, const schema::Schema& schema) {
  Binder binder(schema);
  SLUICE_ASSIGN_OR_RETURN(BoundPtr root, binder.Bind(expr));
  if (root->type->kind() == TypeKind::kNull) root = CastTo(root, Type::Boolean());
  if (root->type->kind() != TypeKind::kBoolean) {
    return ErrorAt(expr.offset,
                   fmt::format("a constraint must be a boolean expression, but this one is {}",
                               TypeSql(*root->type)));
  }
  BoundExpression out;
  out.root_ = std::move(root);
  out.columns_ = std::move(binder.columns);
  return out;
}

Result<Truth> BoundExpression::Evaluate(const JsonValue& row) const {
  if (root_ == nullptr) return InvalidArgument("evaluating an expression that was never bound");
  if (!row.is_object()) return InvalidArgument("a row must be a JSON object");
  internal::Value v;
  SLUICE_TRY(internal::Eval(*root_, row, &v));
  if (v.null) return Truth::kNull;
  return v.b ? Truth::kTrue : Truth::kFalse;
}

}  // namespace sluice::table
