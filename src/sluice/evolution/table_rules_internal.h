// What Merge (table_merge.cc) and CheckTableEvolution (table_evolution.cc) share: how Delta
// (through Spark) and Iceberg see a model type and print it in their messages, the name checks
// both formats make before anything else, and the pair walk as the table rules read it. Not for
// other modules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/evolution/pair_walk.h"
#include "sluice/evolution/table_merge.h"
#include "sluice/schema/schema.h"

namespace sluice::evolution::internal {

// ---------------------------------------------------------------------------------------------
// Types as each system sees them.

/// Spark has no uuid or time type: the Spark dialect writes them as string and long, so those
/// are the kinds Delta compares.
schema::TypeKind SparkKind(schema::TypeKind kind);
/// Iceberg has one integer type for Spark's byte, short and int.
schema::TypeKind IcebergKind(schema::TypeKind kind);
/// Not struct, array or map.
bool IsAtomic(const schema::Type& t);
/// Equal as Spark types: char/varchar are strings carrying metadata, timestamps are micros.
bool SparkAtomicEquals(const schema::Type& a, const schema::Type& b);
/// Equal as Iceberg types: byte/short/int are int, strings are strings, timestamps differ only
/// between micros and nanos.
bool IcebergAtomicEquals(const schema::Type& a, const schema::Type& b);

/// Spark's DataType.toString, as Delta's merge errors print it ("IntegerType",
/// "DecimalType(10,2)").
std::string ScalaTypeString(const schema::Type& t);
/// Iceberg's Type.toString ("int", "decimal(10, 2)", "struct<...>"), as its errors print types.
std::string IcebergTypeString(const schema::Type& t);
/// Spark SQL type names ("BIGINT"), with " NOT NULL" when not nullable.
std::string SqlType(const schema::Type& t);
std::string SqlType(const schema::Type& t, bool nullable);
/// Iceberg type names, with " (required)" when not nullable.
std::string IcebergType(const schema::Type& t, bool nullable);
/// A column as Delta prints it: parts joined by '.', back-quoted when they hold a '.', arrays and
/// maps stepped through as `element`, `key` and `value` (SchemaMergingUtils.explode).
std::string DeltaColumnName(const schema::FieldPath& path);
/// `rel` + "." + `step` (or `step` alone): a path below the nearest struct field, as
/// delta.typeChanges' fieldPath spells it.
std::string RelativeStep(const std::string& rel, std::string_view step);

// ---------------------------------------------------------------------------------------------
// Names.

/// Every lower-cased nested name (Delta's explode order) that repeats another.
std::vector<std::string> DuplicateNames(const schema::Type& type);
/// A violation per field of `incoming` whose name repeats a sibling's ignoring case: the write
/// fails before any merging, as checkColumnNameDuplication does.
void CheckIncomingDuplicates(const schema::Schema& incoming, TableFormat format,
                             std::vector<TableViolation>& out);
/// kInvalidArgument if `schema` (named `what` in the message) has names differing only in case.
Status CheckTableNames(const schema::Schema& schema, std::string_view what);
/// A table struct's fields paired with the data's ignoring case. Call only on structs whose
/// names are unique ignoring case, so each pairing is the one the formats' lookups make.
FieldPairing PairTableFields(const schema::Type& table, const schema::Type& data);
/// Whether `type` holds a NOT NULL field at any depth.
bool ContainsNotNullField(const schema::Type& type);
/// DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES for every name in `type` (or `field` and beneath)
/// holding one of ` ,;{}()\n\t=`, which Delta refuses without column mapping.
void CollectInvalidDeltaNames(const schema::Type& type, const schema::FieldPath& path,
                              std::vector<TableViolation>& out);
void CollectInvalidDeltaNames(const schema::Field& field, const schema::FieldPath& path,
                              std::vector<TableViolation>& out);
/// Before format version 3, Iceberg has no type for a column of nulls: a violation for each.
void CollectUnknownTypes(int version, const schema::FieldPath& path, const schema::Type& type,
                         std::vector<TableViolation>& out);
/// kInvalidArgument for an Iceberg format version outside 1..3.
Status CheckIcebergVersion(TableFormat format, int version);

// ---------------------------------------------------------------------------------------------
// The pair walk as the table rules read it.

using AtomicEquals = bool (*)(const schema::Type&, const schema::Type&);

/// A pair-walk consumer that judges columns: moves, docs and struct pairings are not its
/// concern, so only the differences the formats rule on remain to implement.
class TableDifferences : public PairVisitor {
 public:
  void StructsPaired(const schema::FieldPath&, const schema::Type&, const schema::Type&,
                     const FieldPairing&) override {}
  // Table formats resolve columns by name: a new order alone is neither a change nor a violation.
  void Moved(const schema::FieldPath&, size_t, size_t) override {}
  // Docs, defaults and metadata are not the table rules' concern.
  void FieldPaired(const schema::FieldPath&, const schema::Field&, const schema::Field&) override {}
};

/// Walk two table schemas (struct types) as the formats compare them: names pair ignoring case,
/// paths keep `before`'s spelling, new fields come after each struct's own, and atomic types are
/// equal under `equals`. Both sides must hold no names that differ only in case.
void WalkTables(const schema::Type& before, const schema::Type& after, AtomicEquals equals,
                TableDifferences& sink);

}  // namespace sluice::evolution::internal
