#include "sluice/sqlgen/align_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "sluice/evolution/diff.h"
#include "sluice/evolution/table_merge.h"

namespace sluice::sqlgen {

using schema::Field;
using schema::FieldPath;
using schema::NoteSink;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

namespace {

// Digits left of the point an integer kind needs, as Delta counts them for integer -> decimal
// widening (long needs 20 there, one more than its widest value has).
int IntegerDigits(TypeKind kind) {
  switch (schema::IntegerRank(kind)) {
    case 1:
      return 3;
    case 2:
      return 5;
    case 3:
      return 10;
    default:
      return 20;
  }
}

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view x, std::string_view y) {
  return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), [](char c, char d) {
           return LowerAscii(c) == LowerAscii(d);
         });
}

bool IsNumber(const Type& t) {
  return t.is_integer() || t.is_floating() || t.kind() == TypeKind::kDecimal;
}

bool IsPlainString(const Type& t) {
  return t.kind() == TypeKind::kString && t.string_length() == schema::StringLength::kUnbounded;
}

bool IsWider(const Type& from, const Type& to) {
  return evolution::IsWidening(from, to) || evolution::IsDeltaSupportedWidening(from, to);
}

// The narrowest type holding two numbers neither of which widens to the other.
TypePtr CommonNumber(const Type& a, const Type& b) {
  if (a.is_floating() || b.is_floating()) return Type::Float64();
  auto digits = [](const Type& t) {
    return t.kind() == TypeKind::kDecimal ? t.precision() - t.scale() : IntegerDigits(t.kind());
  };
  auto scale = [](const Type& t) { return t.kind() == TypeKind::kDecimal ? t.scale() : 0; };
  int s = std::max(scale(a), scale(b));
  int p = std::max(digits(a), digits(b)) + s;
  if (p > schema::kMaxDecimalPrecision) return Type::String();
  return *Type::Decimal(p, s);  // 1 <= p <= 38 and 0 <= s <= p hold here
}

// The narrowest type holding both atomic types (or a nested and an atomic one).
TypePtr Common(const Type& a, const Type& b) {
  if (IsNumber(a) && IsNumber(b)) return CommonNumber(a, b);
  bool a_date = a.kind() == TypeKind::kDate;
  bool b_date = b.kind() == TypeKind::kDate;
  if ((a_date && b.kind() == TypeKind::kTimestamp) ||
      (b_date && a.kind() == TypeKind::kTimestamp)) {
    return Type::Timestamp(a_date ? b.unit() : a.unit());
  }
  return Type::String();
}

class Merger {
 public:
  Result<TypePtr> Merge(const TypePtr& a, const TypePtr& b, const FieldPath& path, int depth) {
    if (depth > schema::kMaxNestingDepth) {
      return InvalidArgument(path.ToString() + ": types nest too deeply");
    }
    if (a->kind() == TypeKind::kNull) return b;
    if (b->kind() == TypeKind::kNull) return a;
    if (a->is_struct() && b->is_struct()) return MergeFields(a->fields(), b->fields(), path, depth);
    if (a->is_array() && b->is_array()) {
      SLUICE_ASSIGN_OR_RETURN(
          TypePtr element, Merge(a->element_type(), b->element_type(), path.Element(), depth + 1));
      return Type::Array(element, a->contains_null() || b->contains_null());
    }
    if (a->is_map() && b->is_map()) {
      SLUICE_ASSIGN_OR_RETURN(TypePtr key,
                              Merge(a->key_type(), b->key_type(), path.Key(), depth + 1));
      SLUICE_ASSIGN_OR_RETURN(TypePtr value,
                              Merge(a->value_type(), b->value_type(), path.Value(), depth + 1));
      return Type::Map(key, value, a->value_contains_null() || b->value_contains_null());
    }
    if (SameShape(*a, *b)) return a;
    if (!a->is_nested() && !b->is_nested()) {
      if (IsWider(*a, *b)) return b;
      if (IsWider(*b, *a)) return a;
    }
    TypePtr common = Common(*a, *b);
    sink_.Add(path, fmt::format("{} and {} meet; {} holds both", a->ToString(), b->ToString(),
                                common->ToString()));
    return common;
  }

  Result<TypePtr> MergeFields(const std::vector<Field>& a, const std::vector<Field>& b,
                              const FieldPath& path, int depth) {
    std::vector<Field> out = a;
    std::vector<bool> seen(out.size(), false);
    for (const Field& f : b) {
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const Field& o) { return EqualsIgnoreCase(o.name(), f.name()); });
      if (it == out.end()) {
        Field added = f;
        added.set_nullable(true);
        out.push_back(std::move(added));
        continue;
      }
      seen[static_cast<size_t>(it - out.begin())] = true;
      FieldPath child = path.Child(it->name());
      SLUICE_ASSIGN_OR_RETURN(TypePtr merged, Merge(it->type(), f.type(), child, depth + 1));
      it->set_type(merged);
      it->set_nullable(it->nullable() || f.nullable());
    }
    // Fields of the earlier versions this one lacks are NULL in its rows.
    for (size_t i = 0; i < seen.size(); ++i) {
      if (!seen[i]) out[i].set_nullable(true);
    }
    return Type::Struct(std::move(out));
  }

  NoteSink& sink() { return sink_; }

 private:
  NoteSink sink_;
};

std::string LambdaName(int depth) { return depth == 0 ? "x" : "x" + std::to_string(depth + 1); }

class Planner {
 public:
  Planner(bool allow_lossy, VersionPlan& plan) : allow_lossy_(allow_lossy), plan_(plan) {}

  // The expression giving `to` from the source value at column path `at` of type `from`.
  Result<ExprPtr> Value(const std::vector<std::string>& at, const Type& from, bool from_nullable,
                        const TypePtr& to, const FieldPath& path, int lambdas) {
    if (SameShape(from, *to)) return Expr::Column(at);
    if (from.is_struct() && to->is_struct()) {
      return Struct(at, from, from_nullable, *to, path, lambdas);
    }
    if (from.is_array() && to->is_array()) {
      std::string var = LambdaName(lambdas);
      SLUICE_ASSIGN_OR_RETURN(ExprPtr body, Value({var}, *from.element_type(), from.contains_null(),
                                                  to->element_type(), path.Element(), lambdas + 1));
      return Lambda(ExprKind::kArrayTransform, at, std::move(var), std::move(body));
    }
    if (from.is_map() && to->is_map()) {
      if (!SameShape(*from.key_type(), *to->key_type())) {
        return Unimplemented(fmt::format("{}: map keys of {} cannot be aligned to {}",
                                         path.ToString(), from.key_type()->ToString(),
                                         to->key_type()->ToString()));
      }
      std::string var = LambdaName(lambdas);
      SLUICE_ASSIGN_OR_RETURN(ExprPtr body,
                              Value({var}, *from.value_type(), from.value_contains_null(),
                                    to->value_type(), path.Value(), lambdas + 1));
      return Lambda(ExprKind::kMapValues, at, std::move(var), std::move(body));
    }
    if (IsLosslessCast(from, *to)) return Expr::Cast(Expr::Column(at), to, false);
    std::string what = fmt::format("{} to {}", from.ToString(), to->ToString());
    if (from.is_nested() || to->is_nested()) {
      return Fail(ErrorCode::kIncompatible,
                  fmt::format("{}: cannot align {}", path.ToString(), what));
    }
    if (!allow_lossy_) {
      return Fail(ErrorCode::kIncompatible,
                  fmt::format("{}: casting {} may lose values; refused unless lossy casts are "
                              "allowed (then try_cast gives NULL where a value does not fit)",
                              path.ToString(), what));
    }
    ++plan_.lossy_casts;
    sink_.Add(path, fmt::format("{} cast with try_cast: values that do not fit become NULL", what));
    return Expr::Cast(Expr::Column(at), to, true);
  }

  Result<ExprPtr> Struct(const std::vector<std::string>& at, const Type& from, bool from_nullable,
                         const Type& to, const FieldPath& path, int lambdas) {
    auto out = std::make_shared<Expr>();
    out->kind = ExprKind::kStruct;
    if (from_nullable) out->null_if = Expr::Column(at);
    SLUICE_ASSIGN_OR_RETURN(out->fields, Members(at, from.fields(), to.fields(), path, lambdas));
    return ExprPtr(std::move(out));
  }

  // One member per target field, in the target's order; notes for fields added or dropped.
  Result<std::vector<StructMember>> Members(const std::vector<std::string>& at,
                                            const std::vector<Field>& from,
                                            const std::vector<Field>& to, const FieldPath& path,
                                            int lambdas) {
    std::vector<StructMember> members;
    std::vector<bool> used(from.size(), false);
    for (const Field& t : to) {
      FieldPath child = path.empty() ? FieldPath::Of(t.name()) : path.Child(t.name());
      auto it = std::find_if(from.begin(), from.end(),
                             [&](const Field& f) { return EqualsIgnoreCase(f.name(), t.name()); });
      if (it == from.end()) {
        sink_.Add(child, "not in this version: NULL");
        members.push_back({t.name(), Expr::Null(t.type())});
        continue;
      }
      used[static_cast<size_t>(it - from.begin())] = true;
      std::vector<std::string> sub = at;
      sub.push_back(it->name());
      SLUICE_ASSIGN_OR_RETURN(ExprPtr e,
                              Value(sub, *it->type(), it->nullable(), t.type(), child, lambdas));
      members.push_back({t.name(), std::move(e)});
    }
    for (size_t i = 0; i < from.size(); ++i) {
      if (used[i]) continue;
      FieldPath child = path.empty() ? FieldPath::Of(from[i].name()) : path.Child(from[i].name());
      sink_.Add(child, "not in the target: dropped");
    }
    return members;
  }

  NoteSink& sink() { return sink_; }

 private:
  static ExprPtr Lambda(ExprKind kind, const std::vector<std::string>& at, std::string var,
                        ExprPtr body) {
    auto out = std::make_shared<Expr>();
    out->kind = kind;
    out->operand = Expr::Column(at);
    out->var = std::move(var);
    out->body = std::move(body);
    return out;
  }

  bool allow_lossy_;
  VersionPlan& plan_;
  NoteSink sink_;
};

}  // namespace

ExprPtr Expr::Column(std::vector<std::string> path) {
  auto out = std::make_shared<Expr>();
  out->kind = ExprKind::kColumn;
  out->path = std::move(path);
  return out;
}

ExprPtr Expr::Cast(ExprPtr operand, TypePtr type, bool lossy) {
  auto out = std::make_shared<Expr>();
  out->kind = ExprKind::kCast;
  out->operand = std::move(operand);
  out->type = std::move(type);
  out->lossy = lossy;
  return out;
}

ExprPtr Expr::Null(TypePtr type) {
  auto out = std::make_shared<Expr>();
  out->kind = ExprKind::kNull;
  out->type = std::move(type);
  return out;
}

bool SameShape(const Type& from, const Type& to) {
  if (from.kind() != to.kind()) return false;
  switch (from.kind()) {
    case TypeKind::kStruct: {
      if (from.fields().size() != to.fields().size()) return false;
      for (size_t i = 0; i < from.fields().size(); ++i) {
        const Field& a = from.fields()[i];
        const Field& b = to.fields()[i];
        if (a.name() != b.name() || !SameShape(*a.type(), *b.type())) return false;
      }
      return true;
    }
    case TypeKind::kArray:
      return SameShape(*from.element_type(), *to.element_type());
    case TypeKind::kMap:
      return SameShape(*from.key_type(), *to.key_type()) &&
             SameShape(*from.value_type(), *to.value_type());
    case TypeKind::kNull:
    case TypeKind::kBoolean:
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
    case TypeKind::kDecimal:
    case TypeKind::kString:
    case TypeKind::kBinary:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
    case TypeKind::kTime:
    case TypeKind::kUuid:
      return from.Equals(to, /*compare_details=*/false);
  }
  return false;
}

bool IsLosslessCast(const Type& from, const Type& to) {
  if (SameShape(from, to) || from.kind() == TypeKind::kNull) return true;
  if (IsPlainString(to)) return from.kind() != TypeKind::kBinary;
  if (from.is_nested() || to.is_nested()) return false;
  if (IsWider(from, to)) return true;
  // Every integer fits a decimal with as many integer digits as its widest value.
  if (from.is_integer() && to.kind() == TypeKind::kDecimal) {
    return to.precision() - to.scale() >=
           IntegerDigits(from.kind()) - (from.kind() == TypeKind::kInt64);
  }
  return false;
}

Result<AlignTarget> MergeTarget(const std::vector<schema::SchemaPtr>& versions) {
  if (versions.empty()) return InvalidArgument("no schema versions to merge");
  Merger merger;
  TypePtr merged = versions.front()->struct_type();
  for (size_t i = 1; i < versions.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(
        merged, merger.MergeFields(merged->fields(), versions[i]->fields(), FieldPath(), 0));
  }
  SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr out,
                          schema::Schema::FromStruct(merged, versions.front()->info()));
  return AlignTarget{std::move(out), merger.sink().Take()};
}

Result<VersionPlan> PlanVersion(const schema::Schema& source, const schema::Schema& target,
                                bool allow_lossy) {
  VersionPlan plan;
  Planner planner(allow_lossy, plan);
  SLUICE_ASSIGN_OR_RETURN(std::vector<StructMember> members,
                          planner.Members({}, source.fields(), target.fields(), FieldPath(), 0));
  for (StructMember& m : members) plan.columns.push_back({std::move(m.name), std::move(m.expr)});
  plan.notes = planner.sink().Take();
  return plan;
}

}  // namespace sluice::sqlgen
