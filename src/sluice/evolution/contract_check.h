// Contract checks, two of them:
//
//  * CheckContract: does a schema (what a producer writes, or what arrived at the Bronze->Silver
//    boundary) keep a contract, and, given the previous schema, its change policy?
//  * BreakingChanges: which changes between two versions of a contract break consumers, with
//    the rule ids and severities of datacontract-cli v0.10.41's `breaking` command.
//
// Both return values, never errors, for expected outcomes; docs/contracts.md has the rule
// tables, report/contract_render.h renders the reports. Thread-safe; nothing here prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/dialects/contract/contract.h"
#include "sluice/schema/field_path.h"
#include "sluice/schema/schema.h"

namespace sluice::evolution {

// ---------------------------------------------------------------------------------------------
// Schema against contract.

enum class ViolationRule : uint8_t {
  // Seed contracts (`required_columns`).
  kRequiredColumnMissing,      // a required column is absent
  kRequiredColumnType,         // its type does not fit the contract's
  kRequiredColumnNullability,  // its nullability differs from the contract's `nullable`
  // Any format, from the change policy.
  kNewColumnNotAllowed,      // allowed_new_columns: false, and a column the contract lacks
  kTypeChangeNotAllowed,     // allowed_type_changes: false, and a type changed since previous
  kColumnRemovalNotAllowed,  // allowed_column_removal: false, and a column gone since previous
  // ODCS and DCS.
  kColumnMissing,         // a property the contract declares is absent
  kRequiredNotNull,       // `required: true` on a nullable column
  kLogicalTypeMismatch,   // the column's type is not of the logicalType
  kPhysicalTypeMismatch,  // the column's type does not fit the physicalType
};

/// "required_column_missing", "logical_type_mismatch", ...: the ids in reports and docs.
std::string_view ViolationRuleName(ViolationRule rule);

struct ContractViolation {
  /// The column, `a.b` or `tags[]` for nested ones.
  schema::FieldPath path;
  ViolationRule rule;
  /// What is wrong, naming the expected and the actual ("expected decimal(10,2), got string").
  std::string message;
  /// One way to fix it, on the producer's side or the contract's.
  std::string fix;
};

struct ContractCheckOptions {
  /// The schema object to check against in a contract with several; empty means the one named
  /// like the schema (SchemaInfo.name, matched against object names, then physical names),
  /// else the first.
  std::string object_name;
  /// Seed contracts: require the column's type to equal the contract's (ignoring nested docs and
  /// metadata). By default a type that widens losslessly to the contract's also passes (an int
  /// column under `type: long`): every value it holds is a valid value of the contract's type.
  bool exact_types = false;
  /// Seed contracts: compare nullability both ways, as the seed's `validate_against_contract`
  /// does (`field.nullable != nullable`). When false, only a nullable column under
  /// `nullable: false` is a violation.
  bool exact_nullability = true;
};

struct ContractCheckReport {
  /// The object checked (its name; empty for an unnamed seed contract).
  std::string object;
  /// In contract order, then the schema's extra columns, then changes since previous.
  std::vector<ContractViolation> violations;

  bool ok() const { return violations.empty(); }
  int Count(ViolationRule rule) const;
};

/// Check `schema` against `contract` and, when `previous` is given, the changes from `previous`
/// to `schema` against the contract's change policy (ChangePolicy; for ODCS and DCS, which have
/// no policy keys, its defaults: new columns allowed, type changes and removals not; a DCS model
/// with `additionalFields: false` allows no new columns).
/// Seed contracts: every required column present by exact name, its type fitting the contract's
/// (see ContractCheckOptions), its nullability as the seed checks it. ODCS and DCS: every
/// declared property present (nested ones too), `required: true` not nullable, the type of the
/// logicalType's family (an integer column fits `number`), and fitting what pins the type down:
/// a recognised physicalType (DCS: the type with its precision and scale), else an integer
/// `format` or a timestamp `timezone` in logicalTypeOptions. "Fits" is the same type or one that
/// widens losslessly to it (IsWidening; members of nested types one by one, a nullable member
/// never fitting a NOT NULL one); a bare TIMESTAMP accepts either timestamp kind. kNotFound when
/// options.object_name names no object or the contract has none.
Result<ContractCheckReport> CheckContract(const schema::Schema& schema,
                                          const dialects::contract::Contract& contract,
                                          const schema::Schema* previous = nullptr,
                                          const ContractCheckOptions& options = {});

// ---------------------------------------------------------------------------------------------
// Contract against contract.

enum class BreakingSeverity : uint8_t { kError, kWarning, kInfo };

/// "error", "warning", "info".
std::string_view BreakingSeverityName(BreakingSeverity severity);

struct BreakingChange {
  /// `<scope>_<attribute>_<added|removed|updated>` ("field_type_updated", "model_removed"),
  /// attributes in snake case, as datacontract-cli names its checks.
  std::string rule;
  BreakingSeverity severity;
  /// Dot path in DCS terms: "models.orders.fields.total_amount.required"; nested fields go
  /// through `fields` and `items`. ODCS objects are models, their properties fields.
  std::string location;
  /// "changed from `string` to `integer`", "removed the field", "added with value: `email`".
  std::string description;
};

struct BreakingChangeReport {
  /// Every change, all three severities, in document order of the new contract's models.
  std::vector<BreakingChange> changes;

  int Count(BreakingSeverity severity) const;
  /// What datacontract-cli's exit code says: no error-level change.
  bool passed() const { return Count(BreakingSeverity::kError) == 0; }
};

/// Compare two contracts as datacontract-cli v0.10.41 `breaking`/`changelog` does: models by
/// name, fields by name recursively, each attribute added, removed or updated, and the rule's
/// severity looked up in its table (unknown rules fall back to `<scope>__<verb>`, then error).
/// Contracts of any format and mixed formats: ODCS objects and properties are first read as DCS
/// models and fields (logicalType -> type, businessName -> title, logicalTypeOptions ->
/// minLength ... format, customProperties -> pii and extension keys, quality validValues ->
/// enum, relationships -> references). Where sluice departs from v0.10.41 (ODCS physicalType
/// and physicalName, which it did not compare) is in docs/contracts.md.
BreakingChangeReport BreakingChanges(const dialects::contract::Contract& old_contract,
                                     const dialects::contract::Contract& new_contract);

}  // namespace sluice::evolution
