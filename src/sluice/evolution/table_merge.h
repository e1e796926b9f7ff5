// Table evolution as the table formats decide it: what happens to a table's schema when data with
// another schema is written to it (Delta Lake's schema enforcement, mergeSchema and
// overwriteSchema; Iceberg's merge-schema writes), and whether one table schema can become another
// in place, without rewriting data (Delta ALTER TABLE with or without type widening, Iceberg
// schema evolution).
//
// Rules followed: Delta Lake 4.0 (delta-io/delta SchemaMergingUtils.mergeSchemas,
// ImplicitMetadataOperation.updateMetadata, TypeWidening, DeltaErrors, the type-widening docs) and
// the Iceberg table spec (format versions 2 and 3, "Schema Evolution"), with Iceberg's Spark
// writer (UnionByNameVisitor, CheckCompatibility).
//
// Where sluice judges differently, the functions below say so: it reports every violation where
// Delta stops at the first, and it matches Iceberg columns ignoring case as Spark's default
// resolution does (Iceberg's own merge-schema ignores spark.sql.caseSensitive, iceberg#5408).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/schema/schema.h"

namespace sluice::evolution {

/// Whose rules decide.
enum class TableFormat : uint8_t { kDelta, kIceberg };

/// How the data is written, as Delta names it.
enum class TableWriteMode : uint8_t {
  /// Append without evolution: the table's schema must not change. Delta's DataFrame writer
  /// (df.write.format("delta").mode("append"), also saveAsTable and writeStream) casts nothing:
  /// a column's type must equal the table's, except byte/short data into a wider byte/short/int
  /// column (all Parquet INT32) and void data into any column, which is what mergeSchemas
  /// accepts without changing the table. SQL INSERT's ANSI store-assignment casts are not
  /// modelled. Iceberg: the data must be write-compatible (CheckCompatibility): each type equal
  /// to or promotable to the table's, nothing nullable into a required column.
  kEnforce,
  /// mergeSchema=true (or spark.databricks.delta.schema.autoMerge.enabled; Iceberg: merge-schema
  /// with write.spark.accept-any-schema): new columns are added, nothing is dropped or retyped
  /// beyond the widenings the format applies on its own.
  kMerge,
  /// mode("overwrite") with overwriteSchema=true: the data's schema replaces the table's.
  kOverwrite,
};

struct MergeOptions {
  TableFormat format = TableFormat::kDelta;
  TableWriteMode mode = TableWriteMode::kEnforce;
  /// Delta: the table has delta.enableTypeWidening=true. Under kMerge the widenings Delta applies
  /// automatically (IsDeltaAutomaticWidening) then change the column's type. Ignored by Iceberg.
  bool type_widening = false;
  /// Delta: the table has column mapping (delta.columnMapping.mode name or id), so new column
  /// names may hold any of ` ,;{}()\n\t=`; without it they fail with
  /// DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES.
  bool column_mapping = false;
  /// Iceberg: the table's format version, 1 to 3. Version 3 adds date -> timestamp promotion,
  /// the unknown (void) type and required columns with defaults.
  int iceberg_format_version = 2;
};

enum class TableChangeKind : uint8_t {
  kColumnAdded,         // a new column or nested field
  kColumnRemoved,       // overwrite or in-place evolution only
  kTypeWidened,         // the column's type became a wider one
  kTypeChanged,         // the column's type was replaced (overwrite only)
  kNullabilityRelaxed,  // NOT NULL / required dropped
  kCaseChanged,         // in-place evolution: same column, new spelling
  kFilledWithNull,      // a table column the data lacks is written as null
  kValuesCast,          // the data's values are stored as the table column's type
  kNameCaseNormalized,  // the data spells a column differently; the table's spelling is kept
};

/// "column_added", "type_widened", ...: the names used in JSON output and the docs.
std::string_view TableChangeKindName(TableChangeKind kind);

/// One thing the write or evolution does to the table or to the data.
struct TableChange {
  TableChangeKind kind;
  /// In the resulting table's spelling (the table's, for columns both sides have).
  schema::FieldPath path;
  /// Before and after, in Spark SQL type names for Delta ("INT", "BIGINT NOT NULL") and Iceberg
  /// type names for Iceberg ("int", "long"); column names for kNameCaseNormalized and
  /// kCaseChanged. Empty where a side does not exist.
  std::string from;
  std::string to;
  /// Why it is allowed or how it happens, e.g. "via ALTER TABLE only (Delta 4.0 does not widen
  /// integers to DOUBLE during schema evolution)".
  std::string note;
};

/// Something that makes the write fail or the evolution impossible.
struct TableViolation {
  /// Where, in sluice field-path syntax (`items[].price`), spelled as the table spells it when the
  /// table has the column, else as the incoming schema does.
  schema::FieldPath path;
  /// Delta's error class (DELTA_FAILED_TO_MERGE_FIELDS, _LEGACY_ERROR_TEMP_DELTA_0007, ...) or
  /// Spark's; empty for Iceberg, whose errors have no classes.
  std::string error_class;
  /// For a wrapped Delta error, the innermost class (DELTA_MERGE_INCOMPATIBLE_DATATYPE under
  /// DELTA_FAILED_TO_MERGE_FIELDS); empty otherwise.
  std::string cause_class;
  /// The system's own wording, e.g. "Failed to merge fields 'order_amount' and 'order_amount'.
  /// Failed to merge incompatible data types DoubleType and StringType".
  std::string message;
  /// What to do about it: "cast order_amount to DOUBLE before writing, or use overwriteSchema".
  std::string hint;
};

enum class MergeVerdict : uint8_t {
  kUnchanged,  // the write succeeds and the table's schema stays as it is
  kEvolved,    // the write succeeds and changes the table's schema
  kRejected,   // the write fails
};
std::string_view MergeVerdictName(MergeVerdict verdict);

struct MergeResult {
  MergeVerdict verdict = MergeVerdict::kUnchanged;
  /// The table's schema after the write; the table's own schema when the write is rejected.
  schema::SchemaPtr schema;
  /// Depth first: in each struct the table's fields in table order, then the fields the data
  /// adds in the data's order. Empty when rejected.
  std::vector<TableChange> changes;
  /// Every reason the write fails. Delta stops at the first; sluice reports them all.
  std::vector<TableViolation> violations;

  bool ok() const { return violations.empty(); }
};

/// Decide what writing data of schema `incoming` to a table of schema `table` does, under the
/// rules of options.format in options.mode. Names match ignoring ASCII case and keep the table's
/// spelling. kInvalidArgument if the table itself has names that differ only in case, or for an
/// Iceberg format version outside 1..3; every other outcome is in the result.
Result<MergeResult> Merge(const schema::Schema& table, const schema::Schema& incoming,
                          const MergeOptions& options = {});

struct TableEvolutionOptions {
  TableFormat format = TableFormat::kDelta;
  /// Delta: delta.enableTypeWidening=true, so ALTER TABLE ... ALTER COLUMN ... TYPE may widen.
  bool type_widening = false;
  /// Delta: delta.columnMapping.mode is name or id, so columns may be dropped (and renamed;
  /// a rename shows here as a drop and an add), and names may hold ` ,;{}()\n\t=`.
  bool column_mapping = false;
  /// Iceberg: the table's format version, 1 to 3.
  int iceberg_format_version = 2;
};

struct TableEvolutionReport {
  /// What the evolution does, every change the format allows, in `before`'s field order with
  /// additions after.
  std::vector<TableChange> changes;
  /// Each change the format does not allow in place (without rewriting the data).
  std::vector<TableViolation> violations;

  bool ok() const { return violations.empty(); }
};

/// Check whether a table whose schema is `before` can be changed in place (no data rewritten) to
/// `after`. Fields match by name ignoring case at every level, arrays and maps included. Every
/// difference is either a change (allowed) or a violation (not allowed); moves are neither.
///
/// Delta (ALTER TABLE, plus what mergeSchema does by itself):
///   added field         change if it and all its nested fields are nullable, else
///                       DELTA_OPERATION_NOT_ALLOWED (no NOT NULL in ADD COLUMNS); without
///                       column mapping, DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES for a name
///                       holding one of ` ,;{}()\n\t=`
///   removed field       change with column_mapping, else DELTA_UNSUPPORTED_DROP_COLUMN
///   new spelling        change (kCaseChanged): Delta resolves names ignoring case
///   NOT NULL dropped    change; NOT NULL added: DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP
///   type                change for void -> any, byte -> short -> int (Parquet INT32),
///                       char/varchar -> longer varchar or string, and with type_widening every
///                       IsDeltaSupportedWidening; else DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP
/// Iceberg (the spec's Schema Evolution, SchemaUpdate's messages):
///   added field         change if optional, or required with a non-null default in v3;
///                       else "Incompatible change: cannot add required column"
///   removed field       change (an Iceberg rename, which keeps the field id, also shows as a
///                       removal plus an addition: sluice's model has no field ids)
///   required dropped    change; optional -> required: "Cannot change column nullability"
///   type                change for IsIcebergPromotion or the same Iceberg type (Spark byte and
///                       short are int); else "Cannot change column type"
///   map keys            any change is a violation ("Cannot add fields to map keys", ...)
/// A Delta `after` with names that differ only in case is a DELTA_DUPLICATE_COLUMNS_FOUND
/// violation (Spark's COLUMN_ALREADY_EXISTS for Iceberg), and nothing else is checked then.
/// kInvalidArgument if `before` has such names, or for an Iceberg format version outside 1..3.
Result<TableEvolutionReport> CheckTableEvolution(const schema::Schema& before,
                                                 const schema::Schema& after,
                                                 const TableEvolutionOptions& options = {});

/// True if Delta 4.0's type widening feature supports changing atomic type `from` to `to`
/// (PROTOCOL.md "Type Widening"): byte -> short -> int -> long, float -> double,
/// byte/short/int -> double, decimal(p,s) -> decimal(p+k1,s+k2) with k1 >= k2 >= 0,
/// byte/short/int -> decimal(10+k1,k2), long -> decimal(20+k1,k2), date -> timestamp_ntz.
bool IsDeltaSupportedWidening(const schema::Type& from, const schema::Type& to);

/// The subset Delta applies by itself during schema evolution (mergeSchema, MERGE): all of
/// IsDeltaSupportedWidening except integer -> double and integer -> decimal, which only
/// ALTER TABLE applies.
bool IsDeltaAutomaticWidening(const schema::Type& from, const schema::Type& to);

/// True if Iceberg allows promoting primitive `from` to `to` in place: int -> long,
/// float -> double, decimal(P,S) -> decimal(P',S) with P' > P, and from format version 3
/// date -> timestamp / timestamp_ns (without time zone) and unknown -> any type. Spark's byte and
/// short are Iceberg ints.
bool IsIcebergPromotion(const schema::Type& from, const schema::Type& to, int format_version);

}  // namespace sluice::evolution
