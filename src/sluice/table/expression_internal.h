// The compiled form of a bound expression and the pieces its files share: runtime values, casts,
// exact decimal arithmetic, the function table. Only for expression_*.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/schema/type.h"
#include "sluice/table/expression.h"

namespace sluice::table::internal {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

/// One runtime value. Which member holds it depends on the static type of the node that made
/// it: boolean `b`; integers, dates (days since the epoch) and timestamps (microseconds since
/// the epoch, UTC) `i`; float and double `d`; decimal `dec` (unscaled, the type's scale);
/// string and binary `s`; struct, array and map `json` (a view into the row).
struct Value {
  bool null = true;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  Int128 dec = 0;
  std::string s;
  const JsonValue* json = nullptr;

  static Value Null() { return Value(); }
  static Value Bool(bool v) {
    Value x;
    x.null = false;
    x.b = v;
    return x;
  }
  static Value Int(int64_t v) {
    Value x;
    x.null = false;
    x.i = v;
    return x;
  }
  static Value Double(double v) {
    Value x;
    x.null = false;
    x.d = v;
    return x;
  }
  static Value Decimal(Int128 v) {
    Value x;
    x.null = false;
    x.dec = v;
    return x;
  }
  static Value String(std::string v) {
    Value x;
    x.null = false;
    x.s = std::move(v);
    return x;
  }
};

enum class BoundOp : uint8_t {
  kLiteral,     // literal
  kColumn,      // path: the schema's names from the top
  kField,       // children[0] a struct; path[0] the field's name
  kArrayItem,   // children[0][children[1]] (index int32, 0-based)
  kMapValue,    // children[0][children[1]] (key of the key type)
  kNegate,      // numeric
  kBitNot,      // integral
  kNot,         // boolean
  kArithmetic,  // binary: + - * / % div & | ^ on children of the node's own type (div: bigint)
  kDateAdd,     // date + int / date - int (binary says which)
  kConcat,      // ||: strings
  kCompare,     // binary: a comparison of two children of one type
  kAnd,         // n-ary
  kOr,          // n-ary
  kIsNull,      // negated: IS NOT NULL
  kIsBool,      // children[0] IS [NOT] TRUE/FALSE/UNKNOWN (is_test)
  kIn,          // children[0] [NOT] IN children[1..], all of one type
  kBetween,     // children[0] [NOT] BETWEEN children[1] AND children[2]; compare_types
  kLike,        // children[0] [NOT] LIKE children[1] (strings); matcher when constant
  kRlike,       // children[0] [NOT] RLIKE children[1]; regex when constant
  kCase,        // [operand] (when, then)* [else]: results of the node's type
  kCast,        // children[0] to the node's type
  kCall,        // function: children the arguments, already cast
};

struct Function;
struct LikePattern;
struct RegexPattern;

/// A typed node. `type` is the node's Spark type (the model's; char/varchar and uuid read as
/// string, timestamps in microseconds).
struct BoundNode {
  BoundOp op = BoundOp::kLiteral;
  schema::TypePtr type;
  size_t offset = 0;
  std::vector<std::shared_ptr<const BoundNode>> children;
  BinaryOp binary = BinaryOp::kEq;
  IsTest is_test = IsTest::kNull;
  bool negated = false;
  bool has_else = false;
  bool ilike = false;
  Value literal;
  std::vector<std::string> path;
  const Function* function = nullptr;
  /// kBetween: the types children[0] is compared at against the low and the high bound;
  /// kCase with an operand: the type it is compared at with each WHEN value; nullif: the
  /// type its arguments compare at.
  std::vector<schema::TypePtr> compare_types;
  /// kCase: children[0] is an operand each WHEN value is compared with.
  bool has_operand = false;
  /// kLike / kRlike with a constant pattern: compiled once.
  std::shared_ptr<const LikePattern> like_pattern;
  std::shared_ptr<const RegexPattern> regex;
  std::string escape;
};
using BoundPtr = std::shared_ptr<const BoundNode>;

/// Evaluate `node` on `row`. Errors only for row values not of their column's type and
/// patterns computed from the row that do not compile; everything SQL makes null is a null
/// Value.
Status Eval(const BoundNode& node, const JsonValue& row, Value* out);

// ---- text ---------------------------------------------------------------------------------

enum class Tok : uint8_t { kEnd, kIdent, kQuotedIdent, kString, kNumber, kSymbol };

struct Token {
  Tok kind = Tok::kEnd;
  size_t offset = 0;
  size_t length = 0;
  std::string value;  // identifier as written, unquoted name, unescaped string, number, symbol
};

/// Split `text` into tokens, the last one kEnd. kInvalidArgument naming the offset for an
/// unterminated string, quoted name or comment, a number with letters glued on, or a character
/// outside the grammar.
Result<std::vector<Token>> Tokenize(std::string_view text);
/// Words with a role in the grammar (AND, CASE, NULL...): never a bare column name.
bool IsStructuralKeyword(std::string_view word);
bool IsIdentStart(char c);
bool IsIdentChar(char c);
/// kInvalidArgument "<what> at offset <offset>".
Unexpected<Error> ErrorAt(size_t offset, std::string_view what);
/// The operator as SQL writes it: "+", "div", "<=>"...
std::string_view BinaryOpSql(BinaryOp op);

// ---- types --------------------------------------------------------------------------------

/// Spark's SQL name: INT, BIGINT, DECIMAL(10,2), ARRAY<INT>...
std::string TypeSql(const schema::Type& type);
bool IsIntegral(const schema::Type& t);
bool IsFloating(const schema::Type& t);
bool IsNumeric(const schema::Type& t);  // integral, floating or decimal
bool IsStringLike(const schema::Type& t);
/// The type as expressions see it: char/varchar/uuid as string, timestamps in microseconds;
/// nullptr for a kind expressions cannot hold (time).
schema::TypePtr NormalizeType(const schema::TypePtr& type);
/// Spark's DecimalType.forType for integral types: int8 (3,0) ... int64 (20,0).
schema::TypePtr DecimalForIntegral(const schema::Type& t);
/// A decimal type capped at 38 digits, as Spark's DecimalType.bounded.
schema::TypePtr BoundedDecimal(int precision, int scale);
/// Spark's DecimalType.adjustPrecisionScale (precision loss allowed).
schema::TypePtr AdjustedDecimal(int precision, int scale);
/// findTightestCommonType + wider decimals (findWiderTypeWithoutStringPromotion) for atomic
/// types; with `string_promotion` also string with any atomic (but binary, boolean) gives
/// string, as findWiderTypeForTwo does. nullptr when none.
schema::TypePtr WiderType(const schema::TypePtr& a, const schema::TypePtr& b,
                          bool string_promotion);
/// Whether Spark's Cast (non-ANSI) converts `from` to `to`.
bool CanCast(const schema::Type& from, const schema::Type& to);

// ---- values -------------------------------------------------------------------------------

/// `v` wrapped to the width of integer kind `k`, as Java's narrowing casts do.
int64_t WrapInteger(uint64_t v, schema::TypeKind k);
/// Read a row's JSON value as a value of `type`; false with `*why` for a value the validator
/// would not have written for that type.
bool ValueFromJson(const JsonValue& json, const schema::Type& type, Value* out, std::string* why);
/// Spark's Cast from `from` to `to` with ANSI off: what cannot convert is null.
Value CastValue(const Value& v, const schema::Type& from, const schema::Type& to);
/// Spark's cast to string.
std::string ValueToString(const Value& v, const schema::Type& type);
/// Three-way compare of two non-null values of one atomic type (-1, 0, 1), Spark's ordering.
int CompareValues(const Value& a, const Value& b, const schema::Type& type);

// ---- decimals -----------------------------------------------------------------------------

/// 10^n for 0 <= n <= 38.
UInt128 Pow10(int n);
/// Text of `unscaled` at `scale` ("-12.50").
std::string DecimalToString(Int128 unscaled, int scale);
/// `text` (a BigDecimal literal) at `scale`, rounded half up; false when not a number or past
/// `precision` digits.
bool DecimalFromText(std::string_view text, int precision, int scale, Int128* out);
/// a (scale sa) op b (scale sb) into `precision`/`scale`, rounded half up; false when the
/// result does not fit (or division by zero). op is + - * / or %.
bool DecimalArithmetic(BinaryOp op, Int128 a, int sa, Int128 b, int sb, int precision, int scale,
                       Int128* out);
/// Compare a (scale sa) with b (scale sb) exactly.
int DecimalCompare(Int128 a, int sa, Int128 b, int sb);
/// `unscaled` from scale `from` to `to` (half up) within `precision`; false when past it.
bool DecimalRescale(Int128 unscaled, int from, int to, int precision, Int128* out);
double DecimalToDouble(Int128 unscaled, int scale);

// ---- dates --------------------------------------------------------------------------------

/// Spark's lenient date text as days since the epoch; false when refused.
bool ParseDate(std::string_view text, int32_t* days);
/// Spark's lenient timestamp text as a cast or literal reads it, as microseconds since the epoch:
/// UTC, a zone converting; or with `ntz` the wall clock, a zone ignored and a time alone
/// refused (stringToTimestampWithoutTimeZone). False when refused.
bool ParseTimestamp(std::string_view text, bool ntz, int64_t* micros);
/// Civil date of days since the epoch.
void CivilFromDays(int64_t days, int64_t* year, int* month, int* day);
int64_t DaysFromCivil(int64_t year, int month, int day);

// ---- functions ----------------------------------------------------------------------------

/// Bind a call: check and cast `args` (already bound), set the result type. `offset` is the
/// call's, for messages.
using BindFunctionFn = Result<BoundPtr> (*)(const Function& f, std::vector<BoundPtr> args,
                                            size_t offset);
/// Evaluate a call node (arguments are evaluated by the function: coalesce is lazy).
using EvalFunctionFn = Status (*)(const BoundNode& node, const JsonValue& row, Value* out);

struct Function {
  std::string_view name;
  BindFunctionFn bind;
  EvalFunctionFn eval;
};

/// The function of that name (lower case), or nullptr.
const Function* FindFunction(std::string_view lower_name);
/// Whether `lower_name` is a Spark function refused for being non-deterministic.
bool IsNonDeterministicFunction(std::string_view lower_name);

// ---- binding helpers shared with the function table ----------------------------------------

/// `node` cast to `type` (itself when it already has that type).
BoundPtr CastTo(BoundPtr node, const schema::TypePtr& type);
/// Spark's implicit cast of `node` to `type` for a function's input (ImplicitCastInputTypes):
/// nullptr when Spark has none.
BoundPtr ImplicitCast(BoundPtr node, const schema::TypePtr& type);

/// The wider common type of `items` for CASE, coalesce and friends (findWiderCommonType:
/// strings win over numbers); kInvalidArgument naming `what` when there is none.
Result<schema::TypePtr> CommonTypeOf(const std::vector<BoundPtr>& items, std::string_view what,
                                     size_t offset);
/// The type both sides of a comparison are cast to; nullptr when Spark does not compare them.
schema::TypePtr ComparisonTypeOf(const schema::TypePtr& a, const schema::TypePtr& b);

/// A LIKE pattern compiled once: `%` any run, `_` one character, `escape` before either or
/// itself for the literal. kInvalidArgument for an escape before anything else or at the end.
struct LikePattern;
Result<std::shared_ptr<const LikePattern>> CompileLike(std::string_view pattern, char32_t escape,
                                                       bool ignore_case);
bool MatchLike(const LikePattern& p, std::string_view text);
Result<std::shared_ptr<const RegexPattern>> CompileRegex(std::string_view pattern);
/// Java's Matcher.find(): true when the pattern matches somewhere in `text`.
Result<bool> SearchRegex(const RegexPattern& p, std::string_view text);

/// Number of characters (code points) of UTF-8 text.
size_t Utf8Length(std::string_view s);
/// Byte offset of the character at `index` (clamped to the end).
size_t Utf8Offset(std::string_view s, size_t index);

/// `v` wrapped into integer kind `k` as Java's casts wrap (int8, int16, int32; others: int64).
int64_t WrapInteger(uint64_t v, schema::TypeKind k);

/// An ASCII letter in lower case; every other code point as it is (LIKE, ILIKE and RLIKE fold
/// ASCII letters only).
char32_t FoldAscii(char32_t c);

/// UTF-8 text as code points; a byte that starts no valid sequence stands for itself.
std::vector<char32_t> CodePoints(std::string_view s);

}  // namespace sluice::table::internal
