// Skipping files a predicate cannot hold for (scan.h lists the rules). Every rule errs towards
// reading: a file is skipped only when one conjunct of the predicate is provably not TRUE for
// each of its rows, and anything unknown (no stats, a value that does not parse, an operator
// or type not listed) keeps the file.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/data/parquet_values_internal.h"
#include "sluice/table/expression_internal.h"
#include "sluice/table/scan_internal.h"

namespace sluice::table::internal {

namespace dint = sluice::data::internal;
using schema::Field;
using schema::Type;
using schema::TypeKind;

namespace {

enum class BoundKind : uint8_t { kNumber, kString, kInteger };

// An exact decimal number: 0.digits * 10^exponent, digits without leading or trailing zeros
// (none at all for zero).
struct Decimal {
  bool negative = false;
  std::string digits;
  int64_t exponent = 0;
};

std::optional<Decimal> ParseDecimal(std::string_view s) {
  Decimal d;
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) d.negative = s[i++] == '-';
  std::string digits;
  int64_t point = -1;
  bool any = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      digits += c;
      any = true;
    } else if (c == '.' && point < 0) {
      point = static_cast<int64_t>(digits.size());
    } else {
      break;
    }
  }
  if (!any || digits.size() > 100000) return std::nullopt;
  int64_t exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool neg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    if (i == s.size()) return std::nullopt;
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9' || exp > 100000000) return std::nullopt;
      exp = exp * 10 + (s[i] - '0');
    }
    if (neg) exp = -exp;
  }
  if (i != s.size()) return std::nullopt;
  if (point < 0) point = static_cast<int64_t>(digits.size());
  size_t lead = 0;
  while (lead < digits.size() && digits[lead] == '0') ++lead;
  if (lead == digits.size()) return Decimal{};  // zero, whatever its sign
  d.exponent = point - static_cast<int64_t>(lead) + exp;
  d.digits = digits.substr(lead);
  while (!d.digits.empty() && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

int Compare(const Decimal& a, const Decimal& b) {
  const bool a_zero = a.digits.empty();
  const bool b_zero = b.digits.empty();
  const int sa = a_zero ? 0 : (a.negative ? -1 : 1);
  const int sb = b_zero ? 0 : (b.negative ? -1 : 1);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  int magnitude = 0;
  if (a.exponent != b.exponent) {
    magnitude = a.exponent < b.exponent ? -1 : 1;
  } else {
    const int c = a.digits.compare(b.digits);
    magnitude = c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return sa < 0 ? -magnitude : magnitude;
}

}  // namespace

// A literal or a stats value in the domain of its column.
struct FilePruner::Bound {
  BoundKind kind = BoundKind::kNumber;
  Decimal number;
  std::string text;
  int64_t integer = 0;
};

struct FilePruner::StatsTerm {
  enum class Test : uint8_t { kCompare, kIn, kIsNull, kIsNotNull };
  /// The column's keys in the stats objects, struct by struct.
  std::vector<std::string> path;
  TypeKind column = TypeKind::kInt64;
  Test test = Test::kCompare;
  /// kCompare: column `op` literals[0]; kIn: column = any of literals.
  BinaryOp op = BinaryOp::kEq;
  std::vector<Bound> literals;
};

namespace {

using Bound = FilePruner::Bound;
using StatsTerm = FilePruner::StatsTerm;

int CompareBounds(const Bound& a, const Bound& b) {
  switch (a.kind) {
    case BoundKind::kNumber:
      return Compare(a.number, b.number);
    case BoundKind::kString: {
      // Spark orders strings by their UTF-8 bytes; char_traits<char> compares as unsigned.
      const int c = a.text.compare(b.text);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case BoundKind::kInteger:
      return a.integer < b.integer ? -1 : (a.integer > b.integer ? 1 : 0);
  }
  return 0;
}

bool IsSupportedColumn(TypeKind k) {
  switch (k) {
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
    case TypeKind::kDecimal:
    case TypeKind::kString:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      return true;
    case TypeKind::kNull:
    case TypeKind::kBoolean:
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
    case TypeKind::kBinary:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return false;
  }
  return false;
}

constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;

// A value of the column's domain from text (a stats value or a literal's text).
std::optional<Bound> TimeBound(TypeKind column, std::string_view text, bool literal_has_zone) {
  Bound b;
  b.kind = BoundKind::kInteger;
  if (column == TypeKind::kDate) {
    int32_t days = 0;
    if (!dint::DateFromText(text, &days)) return std::nullopt;
    b.integer = days;
    return b;
  }
  const char* why = nullptr;
  const bool local = column == TypeKind::kTimestampNtz && !literal_has_zone;
  if (!dint::TimestampFromText(text, schema::TimeUnit::kMicros, local, &b.integer, &why)) {
    return std::nullopt;
  }
  return b;
}

// A literal of the expression as a bound of `column`'s domain; nullopt when comparing them
// would need a cast this file does not follow.
std::optional<Bound> LiteralBound(const Expression& e, TypeKind column) {
  const Expression* lit = &e;
  bool negate = false;
  if (lit->kind == ExprKind::kUnary && lit->unary == UnaryOp::kNegate) {
    negate = true;
    lit = lit->children[0].get();
  }
  if (lit->kind != ExprKind::kLiteral) return std::nullopt;
  const bool numeric_column = column == TypeKind::kDecimal || IntegerRank(column) > 0;
  switch (lit->literal) {
    case LiteralKind::kNumber: {
      if (!numeric_column || lit->type == nullptr) return std::nullopt;
      if (!lit->type->is_integer() && lit->type->kind() != TypeKind::kDecimal) return std::nullopt;
      auto d = ParseDecimal(lit->text);
      if (!d) return std::nullopt;
      if (negate && !d->digits.empty()) d->negative = !d->negative;
      Bound b;
      b.kind = BoundKind::kNumber;
      b.number = std::move(*d);
      return b;
    }
    case LiteralKind::kString:
      if (negate) return std::nullopt;
      if (column == TypeKind::kString) {
        Bound b;
        b.kind = BoundKind::kString;
        b.text = lit->text;
        return b;
      }
      if (column == TypeKind::kTimestampNtz) {
        // As the row's comparison casts it: a zone in the text is ignored.
        Bound b;
        b.kind = BoundKind::kInteger;
        if (!internal::ParseTimestamp(lit->text, /*ntz=*/true, &b.integer)) return std::nullopt;
        return b;
      }
      if (column == TypeKind::kDate || column == TypeKind::kTimestamp) {
        return TimeBound(column, lit->text, false);
      }
      return std::nullopt;
    case LiteralKind::kDate: {
      if (negate || (column != TypeKind::kDate && column != TypeKind::kTimestamp &&
                     column != TypeKind::kTimestampNtz)) {
        return std::nullopt;
      }
      auto b = TimeBound(TypeKind::kDate, lit->text, false);
      if (b && column != TypeKind::kDate) b->integer *= kMicrosPerDay;
      return b;
    }
    case LiteralKind::kTimestamp:
    case LiteralKind::kTimestampNtz:
      if (negate || (column != TypeKind::kTimestamp && column != TypeKind::kTimestampNtz)) {
        return std::nullopt;
      }
      // Spark compares the two kinds in the session zone, which sluice takes to be UTC: a
      // TIMESTAMP literal's wall clock against a timestamp_ntz column is its UTC clock.
      return TimeBound(TypeKind::kTimestamp, lit->text, lit->literal == LiteralKind::kTimestamp);
    case LiteralKind::kNull:
    case LiteralKind::kBoolean:
      return std::nullopt;
  }
  return std::nullopt;
}

// The stats keys of a column reference, or nullopt when it is not a plain column of a type
// the stats can bound (or is a partition column, which the stats do not hold).
struct ColumnRef {
  std::vector<std::string> path;
  TypeKind kind = TypeKind::kInt64;
};

std::optional<ColumnRef> ResolveColumn(const Expression& e, const schema::Schema& schema,
                                       const std::vector<std::string>& partition_columns,
                                       ColumnMappingMode mode) {
  if (e.kind != ExprKind::kColumn || e.names.empty()) return std::nullopt;
  const Type* at = schema.struct_type().get();
  ColumnRef ref;
  for (size_t i = 0; i < e.names.size(); ++i) {
    if (!at->is_struct()) return std::nullopt;
    std::optional<size_t> index = FindFieldIndex(*at, e.names[i]);
    if (!index) return std::nullopt;
    const Field& field = at->fields()[*index];
    if (i == 0) {
      for (const std::string& p : partition_columns) {
        if (EqualsIgnoreCase(p, field.name())) return std::nullopt;
      }
    }
    ref.path.push_back(mode == ColumnMappingMode::kNone ? field.name() : PhysicalName(field));
    at = field.type().get();
  }
  if (!IsSupportedColumn(at->kind())) return std::nullopt;
  ref.kind = at->kind();
  return ref;
}

BinaryOp Flip(BinaryOp op) {
  if (op == BinaryOp::kLt) return BinaryOp::kGt;
  if (op == BinaryOp::kLe) return BinaryOp::kGe;
  if (op == BinaryOp::kGt) return BinaryOp::kLt;
  if (op == BinaryOp::kGe) return BinaryOp::kLe;
  return op;
}

bool IsOrdering(BinaryOp op) {
  return op == BinaryOp::kEq || op == BinaryOp::kLt || op == BinaryOp::kLe || op == BinaryOp::kGt ||
         op == BinaryOp::kGe;
}

StatsTerm MakeTerm(const ColumnRef& ref, StatsTerm::Test test, BinaryOp op = BinaryOp::kEq,
                   std::vector<Bound> literals = {}) {
  StatsTerm t;
  t.path = ref.path;
  t.column = ref.kind;
  t.test = test;
  t.op = op;
  t.literals = std::move(literals);
  return t;
}

// The stats terms one conjunct gives (BETWEEN gives two).
std::vector<StatsTerm> TermsOf(const Expression& c, const schema::Schema& schema,
                               const std::vector<std::string>& partitions, ColumnMappingMode mode) {
  std::vector<StatsTerm> out;
  auto column = [&](const Expression& e) { return ResolveColumn(e, schema, partitions, mode); };
  using Test = StatsTerm::Test;
  switch (c.kind) {
    case ExprKind::kBinary: {
      if (!IsOrdering(c.binary)) break;
      BinaryOp op = c.binary;
      auto ref = column(*c.children[0]);
      const Expression* other = c.children[1].get();
      if (!ref) {  // `literal op column`
        ref = column(*c.children[1]);
        other = c.children[0].get();
        op = Flip(op);
      }
      if (!ref) break;
      if (auto lit = LiteralBound(*other, ref->kind)) {
        out.push_back(MakeTerm(*ref, Test::kCompare, op, {std::move(*lit)}));
      }
      break;
    }
    case ExprKind::kBetween: {
      auto ref = c.negated ? std::nullopt : column(*c.children[0]);
      if (!ref) break;
      if (auto lo = LiteralBound(*c.children[1], ref->kind)) {
        out.push_back(MakeTerm(*ref, Test::kCompare, BinaryOp::kGe, {std::move(*lo)}));
      }
      if (auto hi = LiteralBound(*c.children[2], ref->kind)) {
        out.push_back(MakeTerm(*ref, Test::kCompare, BinaryOp::kLe, {std::move(*hi)}));
      }
      break;
    }
    case ExprKind::kIn: {
      auto ref = c.negated ? std::nullopt : column(*c.children[0]);
      if (!ref) break;
      std::vector<Bound> items;
      for (size_t i = 1; i < c.children.size(); ++i) {
        auto lit = LiteralBound(*c.children[i], ref->kind);
        if (!lit) return out;  // one item we cannot bound: the file may hold it
        items.push_back(std::move(*lit));
      }
      if (!items.empty()) out.push_back(MakeTerm(*ref, Test::kIn, BinaryOp::kEq, std::move(items)));
      break;
    }
    case ExprKind::kIs: {
      auto ref = c.is_test == IsTest::kNull ? column(*c.children[0]) : std::nullopt;
      if (ref) out.push_back(MakeTerm(*ref, c.negated ? Test::kIsNotNull : Test::kIsNull));
      break;
    }
    case ExprKind::kLiteral:
    case ExprKind::kColumn:
    case ExprKind::kField:
    case ExprKind::kSubscript:
    case ExprKind::kUnary:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kLike:
    case ExprKind::kCase:
    case ExprKind::kCast:
    case ExprKind::kCall:
      break;
  }
  return out;
}

const JsonValue* StatsValue(const JsonValue& object, const std::vector<std::string>& path) {
  const JsonValue* at = &object;
  for (const std::string& key : path) {
    if (!at->is_object()) return nullptr;
    at = at->Find(key);
    if (at == nullptr) return nullptr;
  }
  return at;
}

std::optional<Bound> StatsBound(const JsonValue* v, TypeKind column, bool is_max) {
  if (v == nullptr) return std::nullopt;
  if (column == TypeKind::kString) {
    if (!v->is_string()) return std::nullopt;
    Bound b;
    b.kind = BoundKind::kString;
    b.text = v->as_string();
    return b;
  }
  if (column == TypeKind::kDate || column == TypeKind::kTimestamp ||
      column == TypeKind::kTimestampNtz) {
    if (!v->is_string()) return std::nullopt;
    auto b = TimeBound(column, v->as_string(), false);
    // Stats keep milliseconds, floored: the true maximum may be up to 999 us above.
    if (b && is_max && column != TypeKind::kDate) b->integer += 999;
    return b;
  }
  if (!v->is_number()) return std::nullopt;
  auto d = ParseDecimal(v->number_text());
  if (!d) return std::nullopt;
  Bound b;
  b.kind = BoundKind::kNumber;
  b.number = std::move(*d);
  return b;
}

std::optional<int64_t> NullCount(const ParsedStats& stats, const std::vector<std::string>& path) {
  const JsonValue* v = StatsValue(stats.null_count, path);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->as_int64();
}

// Whether `column op literal` is false for every value in [min, max].
bool OutsideRange(BinaryOp op, const Bound& lit, const std::optional<Bound>& min,
                  const std::optional<Bound>& max) {
  if (op == BinaryOp::kEq) {
    return (min && CompareBounds(lit, *min) < 0) || (max && CompareBounds(lit, *max) > 0);
  }
  if (op == BinaryOp::kLt) return min && CompareBounds(*min, lit) >= 0;
  if (op == BinaryOp::kLe) return min && CompareBounds(*min, lit) > 0;
  if (op == BinaryOp::kGt) return max && CompareBounds(*max, lit) <= 0;
  if (op == BinaryOp::kGe) return max && CompareBounds(*max, lit) < 0;
  return false;
}

bool TermPrunes(const StatsTerm& t, const ParsedStats& stats) {
  const std::optional<int64_t> nulls = NullCount(stats, t.path);
  const bool all_null = nulls && stats.num_records && *nulls == *stats.num_records;
  switch (t.test) {
    case StatsTerm::Test::kIsNull:
      return nulls && *nulls == 0;
    case StatsTerm::Test::kIsNotNull:
      return all_null;
    case StatsTerm::Test::kCompare:
    case StatsTerm::Test::kIn:
      break;
  }
  // Every value null: each comparison is NULL.
  if (all_null) return true;
  const auto min = StatsBound(StatsValue(stats.min_values, t.path), t.column, false);
  const auto max = StatsBound(StatsValue(stats.max_values, t.path), t.column, true);
  if ((min && min->kind != t.literals[0].kind) || (max && max->kind != t.literals[0].kind)) {
    return false;
  }
  if (t.test == StatsTerm::Test::kCompare) return OutsideRange(t.op, t.literals[0], min, max);
  return std::all_of(t.literals.begin(), t.literals.end(),
                     [&](const Bound& lit) { return OutsideRange(BinaryOp::kEq, lit, min, max); });
}

}  // namespace

std::vector<const Expression*> Conjuncts(const Expression& expr) {
  std::vector<const Expression*> out;
  std::vector<const Expression*> stack = {&expr};
  while (!stack.empty()) {
    const Expression* e = stack.back();
    stack.pop_back();
    if (e->kind == ExprKind::kAnd) {
      for (auto it = e->children.rbegin(); it != e->children.rend(); ++it) {
        stack.push_back(it->get());
      }
    } else {
      out.push_back(e);
    }
  }
  return out;
}

Result<FilePruner> FilePruner::Make(const Expression& where, const schema::Schema& schema,
                                    const std::vector<std::string>& partition_columns,
                                    ColumnMappingMode mode) {
  FilePruner pruner;
  for (const Expression* c : Conjuncts(where)) {
    auto bound = Bind(*c, schema);
    // A conjunct that does not bind alone (Bind of the whole predicate succeeded) prunes
    // nothing.
    if (bound.has_value()) {
      bool partition_only = true;
      for (const schema::FieldPath& path : bound->referenced_columns()) {
        const std::string& top = path.segments().front().name;
        partition_only =
            partition_only &&
            std::any_of(partition_columns.begin(), partition_columns.end(),
                        [&](const std::string& p) { return EqualsIgnoreCase(p, top); });
      }
      if (partition_only) {
        pruner.partition_terms_.push_back(std::move(*bound));
        continue;
      }
    }
    for (StatsTerm& t : TermsOf(*c, schema, partition_columns, mode)) {
      pruner.stats_terms_.push_back(std::make_shared<const StatsTerm>(std::move(t)));
    }
  }
  return pruner;
}

Result<bool> FilePruner::PrunedByPartitions(const JsonValue& partition_row) const {
  for (const BoundExpression& term : partition_terms_) {
    SLUICE_ASSIGN_OR_RETURN(Truth t, term.Evaluate(partition_row));
    if (t != Truth::kTrue) return true;
  }
  return false;
}

bool FilePruner::PrunedByStats(const ParsedStats& stats) const {
  return std::any_of(stats_terms_.begin(), stats_terms_.end(),
                     [&](const auto& t) { return TermPrunes(*t, stats); });
}

}  // namespace sluice::table::internal
