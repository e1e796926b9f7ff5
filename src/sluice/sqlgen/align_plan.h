// Aligning schema versions under one target: the target as the merge of every version (Delta's
// widening rules, conflicts resolved to the narrowest type that holds both sides), and per version
// a plan of expressions that turns a row of that version into a row of the target. The plan is
// dialect-free; align_sql.h renders it as Spark SQL or DuckDB SQL.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::sqlgen {

/// The schema every version is aligned to, and a note on each conflict the merge resolved.
using AlignTarget = schema::Converted<schema::SchemaPtr>;

/// The merge of `versions` as the target. Fields are matched by name ignoring ASCII case and
/// kept in first-seen order (fields new in a later version are appended). Equal types are kept; a
/// widening Delta allows (int8 < int16 < int32 < int64, float < double, an integer to a decimal
/// that holds it, decimal widening, date -> timestamp_ntz) gives the wider type; any other pair
/// gives the narrowest type that holds both (two numbers: a decimal or double; anything with a
/// string, or two unrelated types: string) and a note "a[].b: int32 and string meet; string holds
/// both". Structs, arrays and maps merge member by member. A field is nullable when any version
/// lacks it or has it nullable. kInvalidArgument for no versions.
Result<AlignTarget> MergeTarget(const std::vector<schema::SchemaPtr>& versions);

enum class ExprKind : uint8_t {
  kColumn,          // a column of the source row, or a lambda variable, then struct fields
  kCast,            // CAST(operand AS type); try_cast when lossy
  kNull,            // a NULL of type
  kStruct,          // a struct built field by field (NULL when `null_if` is NULL)
  kArrayTransform,  // every element of operand mapped through body (lambda variable `var`)
  kMapValues,       // every value of map operand mapped through body (lambda variable `var`)
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct StructMember {
  std::string name;
  ExprPtr expr;
};

/// One node of a plan's expression tree. Which members matter depends on `kind`.
struct Expr {
  ExprKind kind = ExprKind::kNull;
  /// kColumn: a top-level column or a lambda variable, then the struct fields to step into.
  std::vector<std::string> path;
  /// kCast, kArrayTransform, kMapValues: the value converted.
  ExprPtr operand;
  /// kCast, kNull: the type produced.
  schema::TypePtr type;
  /// kCast: values may fail to convert (try_cast); only with allow_lossy.
  bool lossy = false;
  /// kStruct: the fields, in the target's order.
  std::vector<StructMember> fields;
  /// kStruct: when set, the result is NULL where this value is NULL (a NULL struct stays NULL
  /// rather than becoming a struct of NULLs).
  ExprPtr null_if;
  /// kArrayTransform, kMapValues: the lambda variable and the expression of it.
  std::string var;
  ExprPtr body;

  static ExprPtr Column(std::vector<std::string> path);
  static ExprPtr Cast(ExprPtr operand, schema::TypePtr type, bool lossy);
  static ExprPtr Null(schema::TypePtr type);
};

/// One output column of a version: the target column `name` computed by `expr`.
struct ColumnPlan {
  std::string name;
  ExprPtr expr;
};

/// How one version's rows become target rows: one column plan per target column, in the target's
/// order, and notes on what was dropped, added as NULL or cast with possible loss.
struct VersionPlan {
  std::vector<ColumnPlan> columns;
  std::vector<schema::LossyNote> notes;
  /// try_cast expressions in the plan (only with allow_lossy).
  int lossy_casts = 0;
};

/// Plan `source` into `target`. Per target column: the source column itself when its type has
/// the same shape (nullability aside); a CAST for a lossless change (any widening, anything to
/// string); a typed NULL for a field the source lacks; a struct rebuilt field by field; arrays
/// and map values rebuilt through a lambda. A cast that may lose values (string to number, double
/// to a decimal, timestamp to date, any narrowing) is kIncompatible naming the path unless
/// `allow_lossy`, then a lossy (try_cast) cast with a note. Source columns the target lacks are
/// dropped with a note. Map keys of different types are kUnimplemented.
Result<VersionPlan> PlanVersion(const schema::Schema& source, const schema::Schema& target,
                                bool allow_lossy);

/// True when `from` and `to` have the same shape: equal types with nullability, docs and
/// metadata ignored at every level.
bool SameShape(const schema::Type& from, const schema::Type& to);

/// True when every value of `from` converts to `to` without loss (widening, or to a string).
bool IsLosslessCast(const schema::Type& from, const schema::Type& to);

}  // namespace sluice::sqlgen
