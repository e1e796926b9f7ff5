// In-place table evolution (CheckTableEvolution): the pair walk over the schemas before and after,
// each difference judged by Delta's ALTER TABLE rules or Iceberg's schema evolution.
#include <fmt/format.h>

#include <string>
#include <utility>

#include "sluice/base/strings.h"
#include "sluice/evolution/diff.h"
#include "sluice/evolution/table_merge.h"
#include "sluice/evolution/table_rules_internal.h"

namespace sluice::evolution {

using internal::CheckIcebergVersion;
using internal::CheckIncomingDuplicates;
using internal::CheckTableNames;
using internal::CollectInvalidDeltaNames;
using internal::ContainsNotNullField;
using internal::DeltaColumnName;
using internal::DuplicateNames;
using internal::IcebergAtomicEquals;
using internal::IcebergType;
using internal::IcebergTypeString;
using internal::IsAtomic;
using internal::SparkAtomicEquals;
using internal::SqlType;
using internal::TableDifferences;
using internal::WalkTables;
using schema::Field;
using schema::FieldPath;
using schema::IntegerRank;
using schema::Schema;
using schema::Type;
using schema::TypeKind;

namespace {

// In-place evolution under Delta: ALTER TABLE, plus the widenings mergeSchema applies by itself.
class DeltaEvolution final : public TableDifferences {
 public:
  DeltaEvolution(const TableEvolutionOptions& options, TableEvolutionReport& report)
      : options_(options), report_(report) {}

  void OnlyAfter(const FieldPath& path, const Field& field, bool) override {
    if (!options_.column_mapping) {
      size_t before = report_.violations.size();
      CollectInvalidDeltaNames(field, path, report_.violations);
      if (report_.violations.size() != before) return;
    }
    if (!field.nullable() || ContainsNotNullField(*field.type())) {
      Violate(path, "DELTA_OPERATION_NOT_ALLOWED",
              "Operation not allowed: `NOT NULL in ALTER TABLE ADD COLUMNS` is not supported for "
              "Delta tables",
              fmt::format("add {} as nullable: Delta adds no NOT NULL column or field to an "
                          "existing table (delta#3360); rewrite the table with overwriteSchema "
                          "and a CHECK constraint if it must never be null",
                          path.ToString()));
      return;
    }
    Change(TableChangeKind::kColumnAdded, path, "", SqlType(*field.type()),
           "ALTER TABLE ADD COLUMNS, or mergeSchema");
  }
  void OnlyBefore(const FieldPath& path, const Field& field, bool) override {
    if (options_.column_mapping) {
      Change(TableChangeKind::kColumnRemoved, path, SqlType(*field.type(), field.nullable()), "",
             "ALTER TABLE DROP COLUMN (column mapping)");
      return;
    }
    Violate(path, "DELTA_UNSUPPORTED_DROP_COLUMN",
            "DROP COLUMN is not supported for your Delta table. Please enable Column Mapping on "
            "your Delta table with mapping mode 'name'.",
            fmt::format("set delta.columnMapping.mode = 'name' to drop (or rename) {} in place, "
                        "or rewrite the table with overwriteSchema",
                        path.ToString()));
  }
  void Respelled(const FieldPath& path, const Field& from, const Field& to) override {
    // Delta resolves columns ignoring case, so a new spelling reads the same data.
    Change(TableChangeKind::kCaseChanged, path, from.name(), to.name(),
           "Delta resolves names ignoring case; the data files still match");
  }
  void NullabilityDiffers(const FieldPath& path, bool, bool to, bool) override {
    if (to) {
      Change(TableChangeKind::kNullabilityRelaxed, path, "NOT NULL", "nullable",
             "ALTER TABLE ... ALTER COLUMN ... DROP NOT NULL");
      return;
    }
    Violate(path, "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP",
            fmt::format("ALTER TABLE ALTER COLUMN is not supported for changing column {} from "
                        "nullable to NOT NULL",
                        DeltaColumnName(path)),
            fmt::format("Delta cannot SET NOT NULL on an existing column (delta#831); add a "
                        "CHECK ({} IS NOT NULL) constraint instead",
                        DeltaColumnName(path)));
  }
  void TypesDiffer(const FieldPath& path, const Type& from, const Type& to, bool) override {
    std::string f = SqlType(from);
    std::string t = SqlType(to);
    if (IsAtomic(from) && IsAtomic(to)) {
      if (from.kind() == TypeKind::kNull) {
        Change(TableChangeKind::kTypeWidened, path, f, t,
               "a void column takes any type without type widening");
        return;
      }
      if (from.kind() == TypeKind::kString && to.kind() == TypeKind::kString) {
        if (IsWidening(from, to)) {
          Change(TableChangeKind::kTypeWidened, path, from.ToString(), to.ToString(),
                 "char/varchar are strings in Delta files; only the length check changes");
          return;
        }
        Violate(path, "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP",
                AlterMessage(path, from.ToString(), to.ToString()),
                fmt::format("keep {} at least as long as {}, or rewrite the table with "
                            "overwriteSchema",
                            path.ToString(), from.ToString()));
        return;
      }
      if (options_.type_widening && IsDeltaSupportedWidening(from, to)) {
        Change(TableChangeKind::kTypeWidened, path, f, t,
               IsDeltaAutomaticWidening(from, to)
                   ? "type widening: ALTER TABLE ... ALTER COLUMN ... TYPE, or automatically "
                     "under mergeSchema"
                   : "type widening: only by ALTER TABLE ... ALTER COLUMN ... TYPE (Delta 4.0 "
                     "never widens integers to DOUBLE or DECIMAL during schema evolution)");
        return;
      }
      int fr = IntegerRank(from.kind());
      int tr = IntegerRank(to.kind());
      if (fr > 0 && tr > 0 && fr < tr && tr <= 3) {
        Change(TableChangeKind::kTypeWidened, path, f, t,
               "mergeSchema merges byte, short and int to the wider without type widening "
               "(Parquet INT32)");
        return;
      }
    }
    std::string hint;
    if (IsAtomic(from) && IsAtomic(to) && IsDeltaSupportedWidening(from, to)) {
      hint = fmt::format(
          "set delta.enableTypeWidening = true, then ALTER TABLE ... ALTER COLUMN "
          "{} TYPE {}",
          DeltaColumnName(path), t);
    } else {
      hint = fmt::format(
          "{} to {} is no widening Delta supports: rewrite the table with "
          "overwriteSchema, or add a new column",
          f, t);
    }
    Violate(path, "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP", AlterMessage(path, f, t),
            std::move(hint));
  }

 private:
  static std::string AlterMessage(const FieldPath& path, const std::string& from,
                                  const std::string& to) {
    return fmt::format(
        "ALTER TABLE ALTER COLUMN is not supported for changing column {} from {} "
        "to {}",
        DeltaColumnName(path), from, to);
  }
  void Change(TableChangeKind kind, const FieldPath& path, std::string from, std::string to,
              std::string note) {
    report_.changes.push_back({kind, path, std::move(from), std::move(to), std::move(note)});
  }
  void Violate(const FieldPath& path, std::string error_class, std::string message,
               std::string hint) {
    report_.violations.push_back(
        {path, std::move(error_class), "", std::move(message), std::move(hint)});
  }

  const TableEvolutionOptions& options_;
  TableEvolutionReport& report_;
};

// In-place evolution under Iceberg's spec (SchemaUpdate's rules and messages).
class IcebergEvolution final : public TableDifferences {
 public:
  IcebergEvolution(const TableEvolutionOptions& options, TableEvolutionReport& report)
      : version_(options.iceberg_format_version), report_(report) {}

  void OnlyAfter(const FieldPath& path, const Field& field, bool in_key) override {
    if (in_key) {
      Violate(path, fmt::format("Cannot add fields to map keys: {}", path.Parent().ToString()),
              "Iceberg map keys cannot change");
      return;
    }
    if (!field.nullable()) {
      bool has_default = field.default_value().has_value() && !field.default_value()->is_null();
      if (version_ >= 3 && has_default) {
        Change(TableChangeKind::kColumnAdded, path, "", IcebergType(*field.type(), false),
               "required, with its default as initial-default and write-default (v3)");
        return;
      }
      Violate(
          path, fmt::format("Incompatible change: cannot add required column: {}", path.ToString()),
          version_ >= 3
              ? fmt::format("add {} as optional, or give it a non-null default", path.ToString())
              : fmt::format("add {} as optional: format version {} cannot add "
                            "required columns (version 3 can, with a default)",
                            path.ToString(), version_));
      return;
    }
    Change(TableChangeKind::kColumnAdded, path, "", IcebergType(*field.type(), true),
           "new optional column with a new field id; old files read it as null");
  }
  void OnlyBefore(const FieldPath& path, const Field& field, bool in_key) override {
    if (in_key) {
      Violate(path, fmt::format("Cannot delete map keys: {}", path.Parent().ToString()),
              "Iceberg map keys cannot change");
      return;
    }
    Change(TableChangeKind::kColumnRemoved, path, IcebergType(*field.type(), field.nullable()), "",
           "dropped by field id; if it was renamed instead, Iceberg keeps its id and data");
  }
  void Respelled(const FieldPath& path, const Field& from, const Field& to) override {
    Change(TableChangeKind::kCaseChanged, path, from.name(), to.name(),
           "a rename: the field id stays");
  }
  void NullabilityDiffers(const FieldPath& path, bool, bool to, bool in_key) override {
    if (to) {
      if (in_key) {
        Violate(path, fmt::format("Cannot update map keys: {}", path.ToString()),
                "Iceberg map keys cannot change");
        return;
      }
      Change(TableChangeKind::kNullabilityRelaxed, path, "required", "optional",
             "a required field may become optional");
      return;
    }
    Violate(
        path,
        fmt::format("Cannot change column nullability: {}: optional -> required", path.ToString()),
        "Iceberg never makes an optional field required: old files may hold nulls");
  }
  void TypesDiffer(const FieldPath& path, const Type& from, const Type& to, bool in_key) override {
    std::string f = IcebergTypeString(from);
    std::string t = IcebergTypeString(to);
    if (in_key) {
      Violate(path, fmt::format("Cannot alter map keys: {}", path.ToString()),
              "Iceberg map keys cannot change");
      return;
    }
    if (IsAtomic(from) && IsAtomic(to)) {
      if (IcebergAtomicEquals(from, to)) {
        Change(TableChangeKind::kTypeWidened, path, from.ToString(), to.ToString(),
               fmt::format("the same Iceberg type ({})", t));
        return;
      }
      if (IsIcebergPromotion(from, to, version_)) {
        Change(TableChangeKind::kTypeWidened, path, f, t, "an Iceberg type promotion");
        return;
      }
    }
    std::string hint = "add a new column and backfill it, or replace the table";
    if (IsAtomic(from) && IsAtomic(to) && version_ < 3 && IsIcebergPromotion(from, to, 3)) {
      hint = fmt::format("{} -> {} needs format version 3; or {}", f, t, hint);
    }
    Violate(path, fmt::format("Cannot change column type: {}: {} -> {}", path.ToString(), f, t),
            std::move(hint));
  }

 private:
  void Change(TableChangeKind kind, const FieldPath& path, std::string from, std::string to,
              std::string note) {
    report_.changes.push_back({kind, path, std::move(from), std::move(to), std::move(note)});
  }
  void Violate(const FieldPath& path, std::string message, std::string hint) {
    report_.violations.push_back({path, "", "", std::move(message), std::move(hint)});
  }

  int version_;
  TableEvolutionReport& report_;
};

}  // namespace

Result<TableEvolutionReport> CheckTableEvolution(const Schema& before, const Schema& after,
                                                 const TableEvolutionOptions& options) {
  SLUICE_TRY(CheckIcebergVersion(options.format, options.iceberg_format_version));
  SLUICE_TRY(CheckTableNames(before, "the schema before"));
  TableEvolutionReport report;
  CheckIncomingDuplicates(after, options.format, report.violations);
  if (!report.violations.empty()) {
    for (TableViolation& v : report.violations) {
      if (options.format == TableFormat::kDelta) {
        v.message = fmt::format("Found duplicate column(s) in the metadata update: {}",
                                JoinStrings(DuplicateNames(*after.struct_type()), ", "));
      }
    }
    return report;
  }
  if (options.format == TableFormat::kDelta) {
    DeltaEvolution sink(options, report);
    WalkTables(*before.struct_type(), *after.struct_type(), SparkAtomicEquals, sink);
  } else {
    IcebergEvolution sink(options, report);
    WalkTables(*before.struct_type(), *after.struct_type(), IcebergAtomicEquals, sink);
  }
  return report;
}

}  // namespace sluice::evolution
