// What a write must hold to besides the schema's types: Delta's CHECK constraints
// (`delta.constraints.<name>` table properties) and column invariants (`delta.invariants`
// field metadata), each a Spark SQL boolean expression that every written row must make true.
// NOT NULL comes from the schema's nullability and is checked by the validator.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/schema/schema.h"
#include "sluice/table/actions.h"

namespace sluice::table {

/// A row that breaks a constraint.
struct ConstraintViolation {
  /// The constraint's name (for an invariant, the column's path).
  std::string name;
  std::string expression;
  /// The row's values of the columns the expression reads, as (column, JSON text).
  std::vector<std::pair<std::string, std::string>> values;
  bool invariant = false;

  /// Delta's message: "[DELTA_VIOLATE_CONSTRAINT_WITH_VALUES] CHECK constraint positive
  /// (amount > 0) violated by row with values:\n - amount : -1".
  std::string Message() const;
};

/// The compiled constraints of a table. Immutable; share between threads.
class TableConstraints {
 public:
  /// Compile every CHECK constraint and invariant of a table against its (logical) schema.
  /// kInvalidArgument naming the constraint for one that does not parse or names a column
  /// the schema lacks.
  static Result<TableConstraints> Compile(const Metadata& metadata, const schema::Schema& schema);

  bool empty() const { return checks_.empty(); }
  size_t size() const { return checks_.size(); }

  /// The first constraint `row` (a record as the validator writes it) breaks; nullopt when it
  /// holds every one. A row breaks a constraint whose expression is false or null.
  Result<std::optional<ConstraintViolation>> Check(const JsonValue& row) const;

  struct Compiled;
  TableConstraints();
  ~TableConstraints();
  TableConstraints(TableConstraints&&) noexcept;
  TableConstraints& operator=(TableConstraints&&) noexcept;

 private:
  std::vector<std::shared_ptr<const Compiled>> checks_;
};

/// The table property that holds constraint `name`: "delta.constraints.<name>" (lower-cased,
/// as Delta stores names).
std::string ConstraintKey(std::string_view name);

/// Check one expression against a schema without a table: kInvalidArgument when it does not
/// parse or names a column the schema lacks.
Status CheckConstraintExpression(std::string_view expression, const schema::Schema& schema);

}  // namespace sluice::table
