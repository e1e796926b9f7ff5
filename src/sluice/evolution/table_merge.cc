#include "sluice/evolution/table_merge.h"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/evolution/diff.h"
#include "sluice/evolution/pair_walk.h"
#include "sluice/evolution/table_rules_internal.h"

namespace sluice::evolution {

using internal::CheckIcebergVersion;
using internal::CheckIncomingDuplicates;
using internal::CheckTableNames;
using internal::CollectInvalidDeltaNames;
using internal::CollectUnknownTypes;
using internal::DeltaColumnName;
using internal::IcebergAtomicEquals;
using internal::IcebergType;
using internal::IcebergTypeString;
using internal::IsAtomic;
using internal::PairTableFields;
using internal::RelativeStep;
using internal::ScalaTypeString;
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
using schema::TypePtr;

std::string_view TableChangeKindName(TableChangeKind kind) {
  switch (kind) {
    case TableChangeKind::kColumnAdded:
      return "column_added";
    case TableChangeKind::kColumnRemoved:
      return "column_removed";
    case TableChangeKind::kTypeWidened:
      return "type_widened";
    case TableChangeKind::kTypeChanged:
      return "type_changed";
    case TableChangeKind::kNullabilityRelaxed:
      return "nullability_relaxed";
    case TableChangeKind::kCaseChanged:
      return "case_changed";
    case TableChangeKind::kFilledWithNull:
      return "filled_with_null";
    case TableChangeKind::kValuesCast:
      return "values_cast";
    case TableChangeKind::kNameCaseNormalized:
      return "name_case_normalized";
  }
  return "unknown";
}

std::string_view MergeVerdictName(MergeVerdict verdict) {
  switch (verdict) {
    case MergeVerdict::kUnchanged:
      return "unchanged";
    case MergeVerdict::kEvolved:
      return "evolved";
    case MergeVerdict::kRejected:
      return "rejected";
  }
  return "unknown";
}

namespace {

// ---------------------------------------------------------------------------------------------
// Delta: enforcement and mergeSchema, as ImplicitMetadataOperation runs them. Both call
// SchemaMergingUtils.mergeSchemas(table, data.asNullable); enforcement then fails when the merged
// schema differs from the table's.

constexpr std::string_view kSchemaMismatchClass = "_LEGACY_ERROR_TEMP_DELTA_0007";
constexpr std::string_view kSchemaMismatchMessage =
    "A schema mismatch detected when writing to the Delta table. To enable schema migration "
    "using DataFrameWriter or DataStreamWriter, please set: '.option(\"mergeSchema\", \"true\")'. "
    "For other operations, set the session configuration "
    "spark.databricks.delta.schema.autoMerge.enabled to \"true\".";

class DeltaMerger {
 public:
  explicit DeltaMerger(const MergeOptions& options)
      : options_(options), evolve_(options.mode == TableWriteMode::kMerge) {}

  // Merge the top-level structs; nullptr if merging failed somewhere.
  TypePtr MergeTop(const TypePtr& table, const TypePtr& data) {
    return MergeStruct(FieldPath(), *table, *data);
  }

  std::vector<TableChange>& changes() { return changes_; }
  std::vector<TableViolation>& failures() { return failures_; }
  std::vector<TableViolation>& mismatches() { return mismatches_; }
  std::vector<TableViolation>& missing() { return missing_; }
  std::vector<TableViolation>& names() { return names_; }

 private:
  TypePtr MergeStruct(const FieldPath& path, const Type& current, const Type& update) {
    std::vector<Field> out;
    bool failed = false;
    FieldPairing pairing = PairTableFields(current, update);
    for (size_t ci = 0; ci < current.fields().size(); ++ci) {
      const Field& cf = current.fields()[ci];
      FieldPath child = path.Child(cf.name());
      if (pairing.after_of[ci] < 0) {
        NoteMissing(child, cf);
        out.push_back(cf);
        continue;
      }
      const Field& uf = update.fields()[static_cast<size_t>(pairing.after_of[ci])];
      if (uf.name() != cf.name()) {
        changes_.push_back({TableChangeKind::kNameCaseNormalized, child, uf.name(), cf.name(),
                            "Delta matches names ignoring case and keeps the table's spelling"});
      }
      size_t first_failure = failures_.size();
      std::vector<JsonValue> type_changes;
      TypePtr merged = MergeType(child, cf.type(), uf.type(), &type_changes, "");
      // mergeSchemas wraps every failure below a struct field in DELTA_FAILED_TO_MERGE_FIELDS.
      for (size_t i = first_failure; i < failures_.size(); ++i) {
        TableViolation& v = failures_[i];
        if (v.cause_class.empty()) v.cause_class = v.error_class;
        v.error_class = "DELTA_FAILED_TO_MERGE_FIELDS";
        v.message = fmt::format("Failed to merge fields '{}' and '{}'. {}", cf.name(), uf.name(),
                                v.message);
      }
      if (merged == nullptr) {
        failed = true;
        out.push_back(cf);
        continue;
      }
      Field f = cf;
      f.set_type(merged);
      if (!type_changes.empty()) f.set_metadata(WithTypeChanges(cf.metadata(), type_changes));
      out.push_back(std::move(f));
    }
    for (size_t ui = 0; ui < update.fields().size(); ++ui) {
      if (pairing.before_of[ui] >= 0) continue;
      const Field& uf = update.fields()[ui];
      FieldPath child = path.Child(uf.name());
      if (!evolve_) {
        Mismatch(child,
                 fmt::format("the data has {} {}, which the table does not have",
                             path.empty() ? "column" : "field", child.ToString()),
                 fmt::format("enable mergeSchema (.option(\"mergeSchema\", \"true\")) to add {}, "
                             "or drop it from the data",
                             child.ToString()));
      }
      if (evolve_ && !options_.column_mapping) CollectInvalidDeltaNames(uf, child, names_);
      // The data is made nullable before merging: new fields never carry NOT NULL.
      Field f = uf;
      f.set_type(schema::AsNullable(uf.type())).set_nullable(true);
      changes_.push_back({TableChangeKind::kColumnAdded, child, "", SqlType(*f.type()),
                          path.empty() ? "appended as the last column, nullable"
                                       : "appended as the last field of its struct, nullable"});
      out.push_back(std::move(f));
    }
    if (failed) return nullptr;
    // Names were checked unique ignoring case on both sides, so the struct is valid.
    Result<TypePtr> st = Type::Struct(std::move(out));
    return st.has_value() ? *st : nullptr;
  }

  void NoteMissing(const FieldPath& path, const Field& field) {
    if (!field.nullable()) {
      missing_.push_back(
          {path, "DELTA_MISSING_NOT_NULL_COLUMN_VALUE", "",
           fmt::format("Column {}, which has a NOT NULL constraint, is missing from the data "
                       "being written into the table.",
                       DeltaColumnName(path)),
           fmt::format("add {} to the data (it is NOT NULL in the table), or drop the constraint "
                       "with ALTER TABLE ... ALTER COLUMN {} DROP NOT NULL",
                       path.ToString(), DeltaColumnName(path))});
      return;
    }
    changes_.push_back({TableChangeKind::kFilledWithNull, path, SqlType(*field.type()), "",
                        "the data lacks this column; it is written as null"});
  }

  JsonValue WithTypeChanges(const JsonValue& metadata, const std::vector<JsonValue>& entries) {
    JsonValue out = metadata;
    JsonValue list = JsonValue::Array();
    if (const JsonValue* existing = metadata.Find("delta.typeChanges");
        existing != nullptr && existing->is_array()) {
      list = *existing;
    }
    for (const JsonValue& e : entries) list.Append(e);
    out.Set("delta.typeChanges", std::move(list));
    return out;
  }

  TypePtr MergeType(const FieldPath& path, const TypePtr& current, const TypePtr& update,
                    std::vector<JsonValue>* type_changes, const std::string& rel) {
    const Type& c = *current;
    const Type& u = *update;
    if (c.is_struct() && u.is_struct()) return MergeStruct(path, c, u);
    if (c.is_array() && u.is_array()) {
      TypePtr e = MergeType(path.Element(), c.element_type(), u.element_type(), type_changes,
                            RelativeStep(rel, "element"));
      if (e == nullptr) return nullptr;
      // The table's containsNull is kept; the data's is not trusted.
      Result<TypePtr> out = Type::Array(e, c.contains_null());
      return out.has_value() ? *out : nullptr;
    }
    if (c.is_map() && u.is_map()) {
      TypePtr k =
          MergeType(path.Key(), c.key_type(), u.key_type(), type_changes, RelativeStep(rel, "key"));
      TypePtr v = MergeType(path.Value(), c.value_type(), u.value_type(), type_changes,
                            RelativeStep(rel, "value"));
      if (k == nullptr || v == nullptr) return nullptr;
      Result<TypePtr> out = Type::Map(k, v, c.value_contains_null());
      return out.has_value() ? *out : nullptr;
    }
    bool atomic = IsAtomic(c) && IsAtomic(u);
    // Type widening wins over every other rule when the table has it on.
    if (options_.type_widening && atomic && c.kind() != TypeKind::kNull &&
        u.kind() != TypeKind::kNull && IsDeltaAutomaticWidening(c, u)) {
      Widen(path, c, u,
            "delta.enableTypeWidening is on: Delta widens the column during schema "
            "evolution and records it in delta.typeChanges");
      JsonValue entry = JsonValue::Object();
      entry.Set("fromType", JsonValue::String(dialects::spark::DataTypeName(c)));
      entry.Set("toType", JsonValue::String(dialects::spark::DataTypeName(u)));
      if (!rel.empty()) entry.Set("fieldPath", JsonValue::String(rel));
      type_changes->push_back(std::move(entry));
      return update;
    }
    if (c.kind() == TypeKind::kDecimal && u.kind() == TypeKind::kDecimal) {
      if (c.precision() == u.precision() && c.scale() == u.scale()) return current;
      std::string ranges;
      if (c.precision() != u.precision() && c.scale() != u.scale()) {
        ranges = fmt::format("precision {} and {} & scale {} and {}", c.precision(), u.precision(),
                             c.scale(), u.scale());
      } else if (c.precision() != u.precision()) {
        ranges = fmt::format("precision {} and {}", c.precision(), u.precision());
      } else {
        ranges = fmt::format("scale {} and {}", c.scale(), u.scale());
      }
      Fail(path, "DELTA_MERGE_INCOMPATIBLE_DECIMAL_TYPE",
           fmt::format("Failed to merge decimal types with incompatible {}", ranges), c, u);
      return nullptr;
    }
    if (atomic && SparkAtomicEquals(c, u)) return current;
    // Parquet stores byte, short and int alike as INT32, so Delta lets them merge to the wider.
    int cr = IntegerRank(c.kind());
    int ur = IntegerRank(u.kind());
    if (cr > 0 && ur > 0 && cr <= 3 && ur <= 3) {
      if (cr > ur) {
        changes_.push_back({TableChangeKind::kValuesCast, path, SqlType(u), SqlType(c),
                            "byte, short and int are all Parquet INT32: the values are stored "
                            "as they are and read as the table's type"});
        return current;
      }
      Widen(path, c, u,
            "Delta merges byte, short and int to the wider (they share Parquet INT32), even "
            "without type widening");
      return update;
    }
    if (c.kind() == TypeKind::kNull) {
      Widen(path, c, u, "a NullType (void) column takes the type of the first data written to it");
      return update;
    }
    if (u.kind() == TypeKind::kNull) {
      changes_.push_back({TableChangeKind::kValuesCast, path, SqlType(u), SqlType(c),
                          "the data's column is NullType: every value written is null"});
      return current;
    }
    Fail(path, "DELTA_MERGE_INCOMPATIBLE_DATATYPE",
         fmt::format("Failed to merge incompatible data types {} and {}", ScalaTypeString(c),
                     ScalaTypeString(u)),
         c, u);
    return nullptr;
  }

  // The merged type differs from the table's: a change under mergeSchema, a mismatch otherwise.
  void Widen(const FieldPath& path, const Type& from, const Type& to, std::string note) {
    if (!evolve_) {
      Mismatch(path,
               fmt::format("{} is {} in the table and {} in the data", path.ToString(),
                           SqlType(from), SqlType(to)),
               fmt::format("enable mergeSchema to change {} from {} to {}, or cast it to {} before "
                           "writing",
                           path.ToString(), SqlType(from), SqlType(to), SqlType(from)));
    }
    changes_.push_back(
        {TableChangeKind::kTypeWidened, path, SqlType(from), SqlType(to), std::move(note)});
  }

  void Mismatch(const FieldPath& path, const std::string& detail, std::string hint) {
    mismatches_.push_back({path, std::string(kSchemaMismatchClass), "",
                           fmt::format("{} ({})", kSchemaMismatchMessage, detail),
                           std::move(hint)});
  }

  void Fail(const FieldPath& path, std::string error_class, std::string message,
            const Type& table_type, const Type& data_type) {
    std::string p = path.ToString();
    std::string cast = fmt::format("cast {} to {} before writing", p, SqlType(table_type));
    std::string hint;
    if (IsAtomic(table_type) && IsAtomic(data_type) &&
        IsDeltaAutomaticWidening(table_type, data_type)) {
      hint = fmt::format(
          "set delta.enableTypeWidening = true on the table{} to widen {} from {} to {}; or {}",
          evolve_ ? "" : " and enable mergeSchema", p, SqlType(table_type), SqlType(data_type),
          cast);
    } else if (IsAtomic(table_type) && IsAtomic(data_type) &&
               IsDeltaSupportedWidening(table_type, data_type)) {
      hint = fmt::format(
          "Delta widens {} to {} only by ALTER TABLE ... ALTER COLUMN {} TYPE {} (with "
          "delta.enableTypeWidening = true), never during a write; or {}",
          SqlType(table_type), SqlType(data_type), DeltaColumnName(path), SqlType(data_type), cast);
    } else {
      hint = cast + ", or use overwriteSchema";
    }
    failures_.push_back({path, std::move(error_class), "", std::move(message), std::move(hint)});
  }

  const MergeOptions& options_;
  bool evolve_;
  std::vector<TableChange> changes_;
  std::vector<TableViolation> failures_;
  std::vector<TableViolation> mismatches_;
  std::vector<TableViolation> missing_;
  std::vector<TableViolation> names_;
};

// ---------------------------------------------------------------------------------------------
// Iceberg: Spark writes checked by CheckCompatibility.writeCompatibilityErrors (no merge-schema)
// or evolved by UnionByNameVisitor (merge-schema).

// A struct's fields in the order Iceberg's merge leaves them: the table's fields, with new ones
// inserted after a given field. A list linked by index, so that each insertion is O(1) however
// wide the struct: slot i < the table's field count is the table's field i, later slots are new
// fields in the order they were inserted.
class FieldOrder {
 public:
  explicit FieldOrder(const std::vector<Field>& table)
      : slots_(table.begin(), table.end()), matched_(table.size(), false), next_(table.size()) {
    for (size_t i = 0; i < next_.size(); ++i) next_[i] = i + 1 < next_.size() ? i + 1 : kEnd;
    head_ = slots_.empty() ? kEnd : 0;
  }

  size_t size() const { return slots_.size(); }

  /// Insert a new (matched) field after slot `after`, or first; return its slot.
  size_t InsertAfter(std::optional<size_t> after, Field f) {
    size_t slot = slots_.size();
    slots_.push_back(std::move(f));
    matched_.push_back(true);
    next_.push_back(after.has_value() ? next_[*after] : head_);
    (after.has_value() ? next_[*after] : head_) = slot;
    return slot;
  }

  /// Replace the table's field `slot` by its merged form.
  void Match(size_t slot, Field f) {
    slots_[slot] = std::move(f);
    matched_[slot] = true;
  }

  /// Call `take(field, matched)` for every field in order, moving it out.
  template <class Fn>
  void Take(Fn&& take) {
    for (size_t i = head_; i != kEnd; i = next_[i]) take(std::move(slots_[i]), matched_[i]);
  }

 private:
  static constexpr size_t kEnd = static_cast<size_t>(-1);
  std::vector<Field> slots_;
  std::vector<bool> matched_;
  std::vector<size_t> next_;
  size_t head_ = kEnd;
};

class IcebergMerger {
 public:
  explicit IcebergMerger(const MergeOptions& options)
      : version_(options.iceberg_format_version), evolve_(options.mode == TableWriteMode::kMerge) {}

  TypePtr MergeTop(const TypePtr& table, const TypePtr& data) {
    return MergeStruct(FieldPath(), *table, *data, false);
  }

  std::vector<TableChange>& changes() { return changes_; }
  std::vector<TableViolation>& violations() { return violations_; }

 private:
  TypePtr MergeStruct(const FieldPath& path, const Type& current, const Type& update, bool in_key) {
    // UnionByNameVisitor adds a new field right after the data's preceding field (moveAfter), or
    // first when it leads the data.
    FieldOrder order(current.fields());
    std::optional<size_t> last;  // the slot of the data's preceding field
    bool failed = false;
    FieldPairing pairing = PairTableFields(current, update);
    for (size_t ui = 0; ui < update.fields().size(); ++ui) {
      const Field& uf = update.fields()[ui];
      if (pairing.before_of[ui] < 0) {
        Field f = uf;
        f.set_nullable(true);  // addColumn always adds an optional column
        if (!AddField(path, f, in_key)) failed = true;
        last = order.InsertAfter(last, std::move(f));
        continue;
      }
      const size_t ci = static_cast<size_t>(pairing.before_of[ui]);
      const Field& cf = current.fields()[ci];
      last = ci;
      FieldPath child = path.Child(cf.name());
      if (uf.name() != cf.name()) {
        changes_.push_back({TableChangeKind::kNameCaseNormalized, child, uf.name(), cf.name(),
                            "matched ignoring case (Spark's default); the table's spelling is "
                            "kept"});
      }
      Field f = cf;
      if (!MergeNullability(child, cf.nullable(), uf.nullable(), in_key, f)) failed = true;
      TypePtr merged = MergeType(child, cf.type(), uf.type(), in_key);
      if (merged == nullptr) {
        failed = true;
      } else {
        f.set_type(merged);
      }
      order.Match(ci, std::move(f));
    }
    std::vector<Field> out;
    out.reserve(order.size());
    order.Take([&](Field f, bool matched) {
      if (!matched) {
        FieldPath child = path.Child(f.name());
        if (!f.nullable()) {
          Violate(child, fmt::format("{} is required, but is missing", child.ToString()),
                  fmt::format("add {} to the data: it is a required column of the table",
                              child.ToString()));
          failed = true;
        } else {
          changes_.push_back({TableChangeKind::kFilledWithNull, child, IcebergTypeString(*f.type()),
                              "", "the data lacks this optional column; it is read as null"});
        }
      }
      out.push_back(std::move(f));
    });
    if (failed) return nullptr;
    Result<TypePtr> st = Type::Struct(std::move(out));
    return st.has_value() ? *st : nullptr;
  }

  // A field the table does not have: checked and reported. Returns false on a violation.
  bool AddField(const FieldPath& path, const Field& f, bool in_key) {
    bool ok = true;
    FieldPath child = path.Child(f.name());
    if (!CheckConvertible(child, *f.type())) ok = false;
    if (in_key) {
      Violate(child, fmt::format("Cannot add fields to map keys: {}", path.ToString()),
              "Iceberg map keys cannot change; write the data without the new key field");
      ok = false;
    } else if (!evolve_) {
      Violate(child,
              fmt::format("{} is not a column of the table: Iceberg adds columns only when "
                          "writing with merge-schema",
                          child.ToString()),
              fmt::format("write with .option(\"merge-schema\", \"true\") to a table with "
                          "write.spark.accept-any-schema=true, or drop {} from the data",
                          child.ToString()));
      ok = false;
    }
    changes_.push_back({TableChangeKind::kColumnAdded, std::move(child), "",
                        IcebergType(*f.type(), true),
                        "added as an optional column after the data's preceding column"});
    return ok;
  }

  // Returns false on a violation. `out` gets the merged nullability.
  bool MergeNullability(const FieldPath& path, bool table_nullable, bool data_nullable, bool in_key,
                        Field& out) {
    if (table_nullable || !data_nullable) return true;
    if (evolve_ && !in_key) {
      out.set_nullable(true);
      changes_.push_back({TableChangeKind::kNullabilityRelaxed, path, "required", "optional",
                          "merge-schema makes a required column optional when the data's is "
                          "optional"});
      return true;
    }
    Violate(path, fmt::format("{} should be required, but is optional", path.ToString()),
            fmt::format("write {} as NOT NULL data (Spark: a non-nullable column), or {}",
                        path.ToString(),
                        evolve_ ? "make the column optional first"
                                : "write with merge-schema, which makes the column optional"));
    return false;
  }

  bool CheckConvertible(const FieldPath& path, const Type& type) {
    size_t before = violations_.size();
    CollectUnknownTypes(version_, path, type, violations_);
    return violations_.size() == before;
  }

  TypePtr MergeType(const FieldPath& path, const TypePtr& current, const TypePtr& update,
                    bool in_key) {
    const Type& c = *current;
    const Type& u = *update;
    if (c.is_struct() && u.is_struct()) return MergeStruct(path, c, u, in_key);
    if (c.is_array() && u.is_array()) {
      bool nullable = c.contains_null();
      bool ok = true;
      if (!c.contains_null() && u.contains_null()) {
        if (evolve_ && !in_key) {
          nullable = true;
          changes_.push_back({TableChangeKind::kNullabilityRelaxed, path.Element(), "required",
                              "optional", "merge-schema makes the list's elements optional"});
        } else {
          Violate(path.Element(),
                  fmt::format("{}: elements should be required, but are optional", path.ToString()),
                  "write the list without null elements (containsNull = false)");
          ok = false;
        }
      }
      TypePtr e = MergeType(path.Element(), c.element_type(), u.element_type(), in_key);
      if (e == nullptr || !ok) return nullptr;
      Result<TypePtr> out = Type::Array(e, nullable);
      return out.has_value() ? *out : nullptr;
    }
    if (c.is_map() && u.is_map()) {
      bool nullable = c.value_contains_null();
      bool ok = true;
      if (!c.value_contains_null() && u.value_contains_null()) {
        if (evolve_ && !in_key) {
          nullable = true;
          changes_.push_back({TableChangeKind::kNullabilityRelaxed, path.Value(), "required",
                              "optional", "merge-schema makes the map's values optional"});
        } else {
          Violate(path.Value(),
                  fmt::format("{}: values should be required, but are optional", path.ToString()),
                  "write the map without null values (valueContainsNull = false)");
          ok = false;
        }
      }
      TypePtr k = MergeType(path.Key(), c.key_type(), u.key_type(), true);
      TypePtr v = MergeType(path.Value(), c.value_type(), u.value_type(), in_key);
      if (k == nullptr || v == nullptr || !ok) return nullptr;
      Result<TypePtr> out = Type::Map(k, v, nullable);
      return out.has_value() ? *out : nullptr;
    }
    if (IsAtomic(c) && IsAtomic(u)) {
      if (u.kind() == TypeKind::kNull && !CheckConvertible(path, u)) return nullptr;
      if (IcebergAtomicEquals(c, u)) return current;
      if (IsIcebergPromotion(u, c, version_)) {
        changes_.push_back({TableChangeKind::kValuesCast, path, IcebergTypeString(u),
                            IcebergTypeString(c),
                            "the data's type promotes to the table's: values are written as the "
                            "table's type"});
        return current;
      }
      if (evolve_ && !in_key && IsIcebergPromotion(c, u, version_)) {
        changes_.push_back({TableChangeKind::kTypeWidened, path, IcebergTypeString(c),
                            IcebergTypeString(u),
                            "merge-schema promotes the column to the data's type"});
        return update;
      }
    }
    std::string p = path.ToString();
    if (in_key && evolve_) {
      Violate(path, fmt::format("Cannot update map keys: {}", p),
              fmt::format("cast {} to {} before writing: Iceberg map keys cannot change", p,
                          IcebergTypeString(c)));
    } else if (evolve_) {
      Violate(path,
              fmt::format("Cannot change column type: {}: {} -> {}", p, IcebergTypeString(c),
                          IcebergTypeString(u)),
              fmt::format("cast {} to {} before writing, or replace the table", p,
                          IcebergTypeString(c)));
    } else if (c.is_nested() || u.is_nested()) {
      Violate(path,
              fmt::format("{}: {} cannot be read as a {}", p, IcebergTypeString(u),
                          c.is_struct()  ? "struct"
                          : c.is_array() ? "list"
                          : c.is_map()   ? "map"
                                         : IcebergTypeString(c)),
              fmt::format("write {} with the table's type {}", p, IcebergTypeString(c)));
    } else {
      std::string hint = fmt::format("cast {} to {} before writing", p, IcebergTypeString(c));
      if (IsIcebergPromotion(c, u, version_)) {
        hint += fmt::format(", or write with merge-schema to promote {} to {}", p,
                            IcebergTypeString(u));
      }
      Violate(path,
              fmt::format("{}: {} cannot be promoted to {}", p, IcebergTypeString(u),
                          IcebergTypeString(c)),
              std::move(hint));
    }
    return nullptr;
  }

  void Violate(const FieldPath& path, std::string message, std::string hint) {
    violations_.push_back({path, "", "", std::move(message), std::move(hint)});
  }

  int version_;
  bool evolve_;
  std::vector<TableChange> changes_;
  std::vector<TableViolation> violations_;
};

// ---------------------------------------------------------------------------------------------
// overwriteSchema: the data's schema replaces the table's; the walk reports what that changes.

// Everything is allowed; report it.
class OverwriteReport final : public TableDifferences {
 public:
  OverwriteReport(TableFormat format, std::vector<TableChange>& out)
      : delta_(format == TableFormat::kDelta), out_(out) {}

  void OnlyAfter(const FieldPath& path, const Field& field, bool) override {
    out_.push_back({TableChangeKind::kColumnAdded, path, "", Name(*field.type(), true), ""});
  }
  void OnlyBefore(const FieldPath& path, const Field& field, bool) override {
    out_.push_back({TableChangeKind::kColumnRemoved, path, Name(*field.type(), field.nullable()),
                    "", "the new schema has no such column; its data is overwritten"});
  }
  void Respelled(const FieldPath& path, const Field& from, const Field& to) override {
    out_.push_back({TableChangeKind::kCaseChanged, path, from.name(), to.name(), ""});
  }
  void NullabilityDiffers(const FieldPath& path, bool from, bool to, bool) override {
    if (from || !to) return;  // the new schema is all nullable
    out_.push_back({TableChangeKind::kNullabilityRelaxed, path, "NOT NULL", "nullable",
                    delta_ ? "overwriteSchema writes the data's schema as nullable, so NOT NULL "
                             "is lost (delta#873)"
                           : "Spark replaces the table with the data's schema made nullable"});
  }
  void TypesDiffer(const FieldPath& path, const Type& from, const Type& to, bool) override {
    bool widened = IsWidening(from, to) ||
                   (delta_ ? IsDeltaSupportedWidening(from, to) : IsIcebergPromotion(from, to, 3));
    out_.push_back({widened ? TableChangeKind::kTypeWidened : TableChangeKind::kTypeChanged, path,
                    Name(from, true), Name(to, true), "the data is rewritten with the new type"});
  }

 private:
  std::string Name(const Type& t, bool nullable) const {
    return delta_ ? SqlType(t, nullable) : IcebergType(t, nullable);
  }
  bool delta_;
  std::vector<TableChange>& out_;
};

Result<MergeResult> Finish(const Schema& table, TypePtr merged, std::vector<TableChange> changes,
                           std::vector<TableViolation> violations) {
  MergeResult result;
  if (!violations.empty() || merged == nullptr) {
    result.verdict = MergeVerdict::kRejected;
    result.schema = std::make_shared<Schema>(table.struct_type(), table.info());
    result.violations = std::move(violations);
    return result;
  }
  SLUICE_ASSIGN_OR_RETURN(result.schema, Schema::FromStruct(std::move(merged), table.info()));
  result.verdict = result.schema->Equals(table) ? MergeVerdict::kUnchanged : MergeVerdict::kEvolved;
  result.changes = std::move(changes);
  return result;
}

}  // namespace

Result<MergeResult> Merge(const Schema& table, const Schema& incoming,
                          const MergeOptions& options) {
  SLUICE_TRY(CheckIcebergVersion(options.format, options.iceberg_format_version));
  SLUICE_TRY(CheckTableNames(table, "the table schema"));

  std::vector<TableViolation> violations;
  CheckIncomingDuplicates(incoming, options.format, violations);
  // Merging needs unambiguous names; Delta and Spark stop here too.
  if (!violations.empty()) return Finish(table, nullptr, {}, std::move(violations));

  if (options.mode == TableWriteMode::kOverwrite) {
    TypePtr replaced = schema::AsNullable(incoming.struct_type());
    std::vector<TableChange> changes;
    OverwriteReport report(options.format, changes);
    WalkTables(*table.struct_type(), *replaced,
               options.format == TableFormat::kDelta ? SparkAtomicEquals : IcebergAtomicEquals,
               report);
    if (options.format == TableFormat::kIceberg) {
      CollectUnknownTypes(options.iceberg_format_version, FieldPath(), *replaced, violations);
    } else if (!options.column_mapping) {
      CollectInvalidDeltaNames(*replaced, FieldPath(), violations);
    }
    if (!violations.empty()) return Finish(table, nullptr, {}, std::move(violations));
    return Finish(table, replaced, std::move(changes), {});
  }

  if (options.format == TableFormat::kDelta) {
    DeltaMerger m(options);
    // Delta does not trust the data's nullability: it merges data.asNullable.
    TypePtr merged = m.MergeTop(table.struct_type(), schema::AsNullable(incoming.struct_type()));
    for (TableViolation& v : m.failures()) violations.push_back(std::move(v));
    for (TableViolation& v : m.mismatches()) violations.push_back(std::move(v));
    for (TableViolation& v : m.names()) violations.push_back(std::move(v));
    for (TableViolation& v : m.missing()) violations.push_back(std::move(v));
    return Finish(table, merged, std::move(m.changes()), std::move(violations));
  }

  IcebergMerger m(options);
  TypePtr merged = m.MergeTop(table.struct_type(), incoming.struct_type());
  for (TableViolation& v : m.violations()) violations.push_back(std::move(v));
  return Finish(table, merged, std::move(m.changes()), std::move(violations));
}

}  // namespace sluice::evolution
