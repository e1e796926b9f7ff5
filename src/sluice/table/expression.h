// Spark SQL boolean expressions, as Delta stores them for CHECK constraints
// (`metaData.configuration["delta.constraints.<name>"]`) and column invariants (field metadata
// `delta.invariants` = `{"expression":{"expression":"x > 3"}}`): parsed once into a tree, bound
// to a table schema (names resolved, types checked, Spark's implicit casts inserted), then
// evaluated on each row a writer is about to add.
//
// Delta's rule, followed here: a row violates a constraint when the expression is false OR null
// (CheckDeltaInvariant throws on `result == null || result == false`, and ADD CONSTRAINT counts
// existing rows matching `NOT expr OR expr IS UNKNOWN`). Truth::kNull is therefore a violation;
// Violates() says so in one place.
//
// Semantics are Spark 3.5's with ANSI mode off (the default), the session time zone UTC:
// - Integer arithmetic wraps around at the result type's width, as Java's does (Spark non-ANSI
//   does not null it); division and remainder by zero give null, for every numeric type.
// - Decimals are exact: 128-bit unscaled values with 256-bit intermediates. Result types follow
//   Spark's DecimalPrecision (precision loss allowed: at most 38 digits, scale kept >= 6 for
//   division); results are rounded half up to that scale once; a result past the precision is
//   null. Integer literals next to a decimal take their own precision (`1` is decimal(1,0)).
// - `/` on integers and floats is double division; `div` is integral division (bigint).
// - Comparisons and arithmetic coerce as Spark's TypeCoercion does: narrower integers widen,
//   integer with decimal widens to a decimal, anything with float/double becomes double,
//   string compared with a number is cast to that number's type (to double against a decimal),
//   string compared with a date or timestamp is cast to it, string in arithmetic is cast to
//   double. IN, CASE, coalesce and friends find the wider common type, where a string wins
//   over numbers (`1 IN ('1')` compares strings). Casts of bad text give null.
// - Doubles order NaN above everything and NaN = NaN, as Spark does.
// - `size(null)` is -1 (spark.sql.legacy.sizeOfNull, on without ANSI); array and map subscripts
//   past the end or missing keys give null.
// - upper/lower change ASCII letters only (Spark uses Java's full Unicode case mapping).
// - RLIKE takes Java's regular expression syntax with Matcher.find()'s meaning, run by a
//   Thompson NFA in time linear in the text (Java backtracks); constructs that need
//   backtracking (backreferences, lookaround, possessive quantifiers), class intersections and
//   inline flags other than a leading (?i) are an error. \b, \w, \d, \s and (?i) are ASCII.
// - Timestamps without a zone (literals, casts, row values) are read in UTC, the session time
//   zone of a UTC job; TIMESTAMP_NTZ keeps the wall clock.
// - Non-deterministic functions (current_date, now, rand, uuid...) are refused: Delta accepts
//   current_date() in a constraint and evaluates it once per write; a stored constraint that
//   passes today and fails tomorrow is refused here on purpose.
//
// Functions: abs, ceil, ceiling, floor, length, char_length, character_length, octet_length,
// upper, ucase, lower, lcase, trim, ltrim, rtrim, substring, substr, left, right, concat,
// contains, startswith, endswith, instr, coalesce, nvl, ifnull, nullif, if, isnull, isnotnull,
// greatest, least, size, cardinality, year, month, day, dayofmonth, date_add, date_sub,
// datediff, to_date, regexp, regexp_like. Anything else is an unknown function at parse time.
//
// Not supported (an error, never a silent difference): subqueries, lambdas and higher-order
// functions, intervals, `::` casts, TRY_CAST, EXTRACT, TRIM(BOTH ... FROM ...), comparing
// structs, arrays or maps, and projecting a field out of an array of structs (`arr.x`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/schema/field_path.h"
#include "sluice/schema/schema.h"
#include "sluice/schema/type.h"

namespace sluice::table {

/// Expression trees taller than this (operators, function calls, subscripts) are refused with
/// an error before any recursion can exhaust the stack; parentheses and prefix operators may
/// nest twice as deep in the text. Chains of AND, OR and IN lists do not nest: they are one
/// node however long.
inline constexpr int kMaxExpressionDepth = 128;

/// A three-valued truth: SQL's TRUE, FALSE and NULL (unknown).
enum class Truth : uint8_t { kFalse, kTrue, kNull };

/// Delta's rule: a constraint is violated unless it evaluates to true.
inline bool Violates(Truth t) { return t != Truth::kTrue; }

/// "true", "false" or "null".
std::string_view TruthName(Truth t);

enum class ExprKind : uint8_t {
  kLiteral,    // literal, text, type
  kColumn,     // names: the dotted parts as written (`a.b.c`)
  kField,      // children[0].names[0]: a struct field (or map key) of a computed value
  kSubscript,  // children[0][children[1]]: array element (0-based) or map value
  kUnary,      // unary children[0]
  kBinary,     // children[0] binary children[1]
  kAnd,        // every child; two or more
  kOr,         // any child; two or more
  kIs,         // children[0] IS [NOT] is_test [children[1] for DISTINCT FROM]
  kIn,         // children[0] [NOT] IN (children[1..])
  kBetween,    // children[0] [NOT] BETWEEN children[1] AND children[2]
  kLike,       // children[0] [NOT] LIKE|ILIKE|RLIKE children[1] [ESCAPE escape]
  kCase,       // CASE [operand] (WHEN c THEN r)+ [ELSE e] END
  kCast,       // CAST(children[0] AS type)
  kCall,       // names[0](children...): the function's name in lower case
};

enum class LiteralKind : uint8_t {
  kNull,
  kBoolean,       // text "true" or "false"
  kNumber,        // text: the digits as written, without suffix; type: its Spark type
  kString,        // text: the value, escapes resolved
  kDate,          // DATE 'text'
  kTimestamp,     // TIMESTAMP 'text' (and TIMESTAMP_LTZ)
  kTimestampNtz,  // TIMESTAMP_NTZ 'text'
};

enum class UnaryOp : uint8_t { kNegate, kPlus, kNot, kBitNot };

enum class BinaryOp : uint8_t {
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kRemainder,
  kIntDivide,  // div
  kConcat,     // ||
  kBitAnd,
  kBitOr,
  kBitXor,
  kEq,          // = and ==
  kNullSafeEq,  // <=>
  kNe,          // <> and !=
  kLt,
  kLe,
  kGt,
  kGe,
};

enum class IsTest : uint8_t { kNull, kTrue, kFalse, kUnknown, kDistinctFrom };

enum class LikeKind : uint8_t { kLike, kIlike, kRlike };

struct Expression;
using ExpressionPtr = std::shared_ptr<const Expression>;

/// One node of a parsed (unbound) expression. Immutable once parsed; share it freely between
/// threads. Fields not listed for a kind (see ExprKind) keep their defaults.
struct Expression {
  ExprKind kind = ExprKind::kLiteral;
  /// Byte offset of the node's first token in the parsed text.
  size_t offset = 0;
  std::vector<ExpressionPtr> children;
  std::vector<std::string> names;
  LiteralKind literal = LiteralKind::kNull;
  std::string text;
  /// A number literal's type, or a CAST's target type.
  schema::TypePtr type;
  UnaryOp unary = UnaryOp::kNegate;
  BinaryOp binary = BinaryOp::kEq;
  IsTest is_test = IsTest::kNull;
  LikeKind like = LikeKind::kLike;
  /// IS NOT, NOT IN, NOT BETWEEN, NOT LIKE.
  bool negated = false;
  /// kCase: children are [operand] (when, then)* [else].
  bool has_operand = false;
  bool has_else = false;
  /// kLike with LIKE/ILIKE: the escape character (default backslash).
  std::string escape = "\\";
};

/// Parse a Spark SQL expression. kInvalidArgument naming the byte offset and the token for
/// syntax errors ("unexpected ')' at offset 7"), unknown or non-deterministic functions
/// ("unknown function 'foo' at offset 12"), bad literals, and nesting deeper than
/// kMaxExpressionDepth. Linear in the text's length.
Result<ExpressionPtr> ParseExpression(std::string_view sql);

/// The SQL text of a column invariant: `field_metadata` is a field's metadata object, whose
/// "delta.invariants" member is a JSON string holding {"expression":{"expression":"<sql>"}}.
/// nullopt when the field has none; kInvalidArgument when the member has another shape (Delta
/// refuses such a table as an unrecognized invariant).
Result<std::optional<std::string>> InvariantExpressionText(const JsonValue& field_metadata);

/// A normalized text form for messages: keywords upper case, names quoted where needed, every
/// operator application in parentheses except the outermost. Parsing it gives the same tree.
std::string ToSql(const Expression& expr);

namespace internal {
struct BoundNode;
}

/// An expression resolved against a schema and compiled to a tree of typed nodes, ready to
/// evaluate rows without parsing again. Immutable; Evaluate may run on many threads at once.
class BoundExpression {
 public:
  /// Evaluate on one row: a JSON object in the form sluice's validator writes records (fields
  /// by name, absent = null; integers as numbers; decimals as numbers or strings; floats as
  /// numbers or "NaN"/"Infinity"/"-Infinity"; dates "YYYY-MM-DD"; timestamps as text Spark
  /// parses, or integer seconds; binary as base64; nested objects for structs, arrays, objects
  /// for maps). kInvalidArgument naming the column for a value not of its column's type, or
  /// for a pattern computed from the row that is not a valid LIKE or RLIKE pattern.
  Result<Truth> Evaluate(const JsonValue& row) const;

  /// The columns the expression reads, by their schema spelling, each once, in order of first
  /// use. A subscript reads its whole column (`arr[0]` reads `arr`).
  const std::vector<schema::FieldPath>& referenced_columns() const { return columns_; }

  /// The expression as bound: names in the schema's spelling, implicit casts shown.
  std::string ToSql() const;

  BoundExpression();
  ~BoundExpression();
  BoundExpression(const BoundExpression&);
  BoundExpression(BoundExpression&&) noexcept;
  BoundExpression& operator=(const BoundExpression&);
  BoundExpression& operator=(BoundExpression&&) noexcept;

 private:
  friend Result<BoundExpression> Bind(const Expression& expr, const schema::Schema& schema);
  std::shared_ptr<const internal::BoundNode> root_;
  std::vector<schema::FieldPath> columns_;
};

/// Resolve columns (ignoring case, as Spark does; `a.b` steps into structs), type every node
/// and insert Spark's implicit casts. kInvalidArgument for an unknown column (naming it and the
/// columns there are), an ambiguous one, operands of types the operator cannot take, a wrong
/// number of function arguments, and an expression that is not boolean (Delta's "CHECK
/// constraint should be a boolean expression"); every message names the offset.
Result<BoundExpression> Bind(const Expression& expr, const schema::Schema& schema);

}  // namespace sluice::table
