#include "sluice/evolution/table_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/evolution/diff.h"
#include "sluice/evolution/pair_walk.h"

namespace sluice::evolution {

using schema::Field;
using schema::FieldPath;
using schema::PathSegment;
using schema::Schema;
using schema::SchemaPtr;
using schema::TimeUnit;
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
// How each system sees a model type.

// Spark has no uuid or time type: the Spark dialect writes them as string and long, so that is
// what Delta compares.
TypeKind SparkKind(TypeKind kind) {
  if (kind == TypeKind::kUuid) return TypeKind::kString;
  if (kind == TypeKind::kTime) return TypeKind::kInt64;
  return kind;
}

bool IsAtomic(const Type& t) { return !t.is_nested(); }

// Equal as Spark types: char/varchar are strings carrying metadata, timestamps are micros.
bool SparkAtomicEquals(const Type& a, const Type& b) {
  if (SparkKind(a.kind()) != SparkKind(b.kind())) return false;
  if (a.kind() == TypeKind::kDecimal)
    return a.precision() == b.precision() && a.scale() == b.scale();
  return true;
}

// Iceberg has one integer type for Spark's byte, short and int, one string type, and
// distinguishes timestamp precision only between micros and nanos.
TypeKind IcebergKind(TypeKind kind) {
  if (kind == TypeKind::kInt8 || kind == TypeKind::kInt16) return TypeKind::kInt32;
  return kind;
}

bool IcebergNanos(const Type& t) { return t.unit() == TimeUnit::kNanos; }

bool IcebergAtomicEquals(const Type& a, const Type& b) {
  if (IcebergKind(a.kind()) != IcebergKind(b.kind())) return false;
  if (a.kind() == TypeKind::kDecimal)
    return a.precision() == b.precision() && a.scale() == b.scale();
  if (a.kind() == TypeKind::kTimestamp || a.kind() == TypeKind::kTimestampNtz) {
    return IcebergNanos(a) == IcebergNanos(b);
  }
  return true;
}

int IntegerRank(TypeKind k) {
  if (k == TypeKind::kInt8) return 1;
  if (k == TypeKind::kInt16) return 2;
  if (k == TypeKind::kInt32) return 3;
  if (k == TypeKind::kInt64) return 4;
  return 0;
}

// Spark's DataType.toString, which Delta's merge errors print ("IntegerType", "DecimalType(10,2)").
std::string ScalaTypeString(const Type& t) {
  switch (SparkKind(t.kind())) {
    case TypeKind::kNull:
      return "NullType";
    case TypeKind::kBoolean:
      return "BooleanType";
    case TypeKind::kInt8:
      return "ByteType";
    case TypeKind::kInt16:
      return "ShortType";
    case TypeKind::kInt32:
      return "IntegerType";
    case TypeKind::kInt64:
    case TypeKind::kTime:
      return "LongType";
    case TypeKind::kFloat32:
      return "FloatType";
    case TypeKind::kFloat64:
      return "DoubleType";
    case TypeKind::kDecimal:
      return fmt::format("DecimalType({},{})", t.precision(), t.scale());
    case TypeKind::kString:
    case TypeKind::kUuid:
      return "StringType";
    case TypeKind::kBinary:
      return "BinaryType";
    case TypeKind::kDate:
      return "DateType";
    case TypeKind::kTimestamp:
      return "TimestampType";
    case TypeKind::kTimestampNtz:
      return "TimestampNTZType";
    case TypeKind::kArray:
      return fmt::format("ArrayType({},{})", ScalaTypeString(*t.element_type()), t.contains_null());
    case TypeKind::kMap:
      return fmt::format("MapType({},{},{})", ScalaTypeString(*t.key_type()),
                         ScalaTypeString(*t.value_type()), t.value_contains_null());
    case TypeKind::kStruct: {
      std::vector<std::string> parts;
      for (const Field& f : t.fields()) {
        parts.push_back(fmt::format("StructField({},{},{})", f.name(), ScalaTypeString(*f.type()),
                                    f.nullable()));
      }
      return fmt::format("StructType({})", JoinStrings(parts, ","));
    }
  }
  return t.ToString();
}

// Iceberg's Type.toString ("int", "decimal(10, 2)", "struct<...>"), as its errors print types.
std::string IcebergTypeString(const Type& t) {
  switch (IcebergKind(t.kind())) {
    case TypeKind::kNull:
      return "unknown";
    case TypeKind::kBoolean:
      return "boolean";
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
      return "int";
    case TypeKind::kInt64:
      return "long";
    case TypeKind::kFloat32:
      return "float";
    case TypeKind::kFloat64:
      return "double";
    case TypeKind::kDecimal:
      return fmt::format("decimal({}, {})", t.precision(), t.scale());
    case TypeKind::kString:
      return "string";
    case TypeKind::kBinary:
      return "binary";
    case TypeKind::kDate:
      return "date";
    case TypeKind::kTimestamp:
      return IcebergNanos(t) ? "timestamptz_ns" : "timestamptz";
    case TypeKind::kTimestampNtz:
      return IcebergNanos(t) ? "timestamp_ns" : "timestamp";
    case TypeKind::kTime:
      return "time";
    case TypeKind::kUuid:
      return "uuid";
    case TypeKind::kArray:
      return fmt::format("list<{}>", IcebergTypeString(*t.element_type()));
    case TypeKind::kMap:
      return fmt::format("map<{}, {}>", IcebergTypeString(*t.key_type()),
                         IcebergTypeString(*t.value_type()));
    case TypeKind::kStruct: {
      std::vector<std::string> parts;
      for (const Field& f : t.fields()) {
        parts.push_back(fmt::format("{}: {}{}", f.name(), IcebergTypeString(*f.type()),
                                    f.nullable() ? "" : " (required)"));
      }
      return fmt::format("struct<{}>", JoinStrings(parts, ", "));
    }
  }
  return t.ToString();
}

std::string SqlType(const Type& t) { return dialects::spark::DataTypeSql(t); }

std::string SqlType(const Type& t, bool nullable) {
  return nullable ? SqlType(t) : SqlType(t) + " NOT NULL";
}

std::string IcebergType(const Type& t, bool nullable) {
  return nullable ? IcebergTypeString(t) : IcebergTypeString(t) + " (required)";
}

// A column as Delta prints it: parts joined by '.', back-quoted when they hold a '.', and arrays
// and maps stepped through as `element`, `key` and `value` (SchemaMergingUtils.explode).
std::string DeltaColumnName(const FieldPath& path) {
  std::vector<std::string> parts;
  for (const PathSegment& s : path.segments()) {
    switch (s.kind) {
      case PathSegment::Kind::kField:
        parts.push_back(s.name.find('.') == std::string::npos ? s.name : "`" + s.name + "`");
        break;
      case PathSegment::Kind::kElement:
        parts.push_back("element");
        break;
      case PathSegment::Kind::kKey:
        parts.push_back("key");
        break;
      case PathSegment::Kind::kValue:
        parts.push_back("value");
        break;
    }
  }
  return JoinStrings(parts, ".");
}

// The path of a change below the nearest struct field, as delta.typeChanges' fieldPath spells it.
std::string RelativeStep(const std::string& rel, std::string_view step) {
  return rel.empty() ? std::string(step) : rel + "." + std::string(step);
}

// ---------------------------------------------------------------------------------------------
// Names that differ only in case.

// Every nested name in Delta's explode order, lower-cased, so a repeat is a case duplicate.
void ExplodeLowerNames(const Type& type, const std::string& prefix, std::vector<std::string>& out) {
  if (type.is_struct()) {
    for (const Field& f : type.fields()) {
      std::string name =
          prefix.empty() ? AsciiLower(f.name()) : prefix + "." + AsciiLower(f.name());
      out.push_back(name);
      ExplodeLowerNames(*f.type(), name, out);
    }
  } else if (type.is_array()) {
    ExplodeLowerNames(*type.element_type(), prefix + ".element", out);
  } else if (type.is_map()) {
    ExplodeLowerNames(*type.key_type(), prefix + ".key", out);
    ExplodeLowerNames(*type.value_type(), prefix + ".value", out);
  }
}

// The paths (with the first spelling seen) of fields whose name repeats another ignoring case.
void FindCaseDuplicates(const Type& type, const FieldPath& path, std::vector<FieldPath>& out) {
  if (type.is_struct()) {
    std::map<std::string, int> seen;
    for (const Field& f : type.fields()) {
      if (++seen[AsciiLower(f.name())] == 2) out.push_back(path.Child(f.name()));
    }
    for (const Field& f : type.fields()) FindCaseDuplicates(*f.type(), path.Child(f.name()), out);
  } else if (type.is_array()) {
    FindCaseDuplicates(*type.element_type(), path.Element(), out);
  } else if (type.is_map()) {
    FindCaseDuplicates(*type.key_type(), path.Key(), out);
    FindCaseDuplicates(*type.value_type(), path.Value(), out);
  }
}

std::vector<std::string> DuplicateNames(const Type& type) {
  std::vector<std::string> names;
  ExplodeLowerNames(type, "", names);
  std::map<std::string, int> count;
  std::vector<std::string> dups;
  for (const std::string& n : names) {
    if (++count[n] == 2) dups.push_back(n);
  }
  return dups;
}

// A case duplicate makes the write fail before any merging, as checkColumnNameDuplication does.
void CheckIncomingDuplicates(const Schema& incoming, TableFormat format,
                             std::vector<TableViolation>& out) {
  std::vector<FieldPath> paths;
  FindCaseDuplicates(*incoming.struct_type(), FieldPath(), paths);
  if (paths.empty()) return;
  std::vector<std::string> names = DuplicateNames(*incoming.struct_type());
  for (const FieldPath& p : paths) {
    TableViolation v;
    v.path = p;
    if (format == TableFormat::kDelta) {
      v.error_class = "DELTA_DUPLICATE_COLUMNS_FOUND";
      v.message = fmt::format("Found duplicate column(s) in the data to save: {}",
                              JoinStrings(names, ", "));
    } else {
      v.error_class = "COLUMN_ALREADY_EXISTS";
      v.message = fmt::format(
          "The column `{}` already exists. Choose another name or rename the existing column.",
          AsciiLower(DeltaColumnName(p)));
    }
    v.hint = fmt::format(
        "rename or drop one of the columns named like {}: names that differ only in case are one "
        "column to {}",
        p.ToString(), format == TableFormat::kDelta ? "Delta" : "Spark");
    out.push_back(std::move(v));
  }
}

Status CheckTableNames(const Schema& schema, std::string_view what) {
  std::vector<FieldPath> paths;
  FindCaseDuplicates(*schema.struct_type(), FieldPath(), paths);
  if (paths.empty()) return Ok();
  return InvalidArgument(fmt::format(
      "{} has columns whose names differ only in case ({}); table formats resolve names ignoring "
      "case",
      what, paths.front().ToString()));
}

// A table struct's fields paired with the data's, ignoring case. Both sides were checked to hold
// no names that differ only in case, so each pairing is the one the formats' case-insensitive
// lookups make.
FieldPairing PairTableFields(const Type& table, const Type& data) {
  return PairFields(table.fields(), data.fields(), /*case_sensitive=*/false);
}

bool ContainsNotNullField(const Type& type) {
  if (type.is_struct()) {
    for (const Field& f : type.fields()) {
      if (!f.nullable() || ContainsNotNullField(*f.type())) return true;
    }
    return false;
  }
  if (type.is_array()) return ContainsNotNullField(*type.element_type());
  if (type.is_map()) {
    return ContainsNotNullField(*type.key_type()) || ContainsNotNullField(*type.value_type());
  }
  return false;
}

// Without column mapping Delta stores names in Parquet as they are, and refuses the characters
// Parquet and Hive treat specially (SchemaUtils.checkFieldNames).
constexpr std::string_view kInvalidNameChars = " ,;{}()\n\t=";

void CollectInvalidDeltaNames(const Type& type, const FieldPath& path,
                              std::vector<TableViolation>& out) {
  auto check = [&](const FieldPath& p, const std::string& name) {
    if (name.find_first_of(kInvalidNameChars) == std::string::npos) return;
    out.push_back({p, "DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES", "",
                   fmt::format("Found invalid character(s) among ' ,;{{}}()\\n\\t=' in the "
                               "column names of your schema. Invalid column names: {}. Please "
                               "use other characters and try again.",
                               EscapeForMessage(name)),
                   fmt::format("rename {} without spaces or any of ,;{{}}()=, or enable column "
                               "mapping (delta.columnMapping.mode = 'name')",
                               p.ToString())});
  };
  if (type.is_struct()) {
    for (const Field& f : type.fields()) {
      FieldPath child = path.Child(f.name());
      check(child, f.name());
      CollectInvalidDeltaNames(*f.type(), child, out);
    }
  } else if (type.is_array()) {
    CollectInvalidDeltaNames(*type.element_type(), path.Element(), out);
  } else if (type.is_map()) {
    CollectInvalidDeltaNames(*type.key_type(), path.Key(), out);
    CollectInvalidDeltaNames(*type.value_type(), path.Value(), out);
  }
}

void CollectInvalidDeltaNames(const Field& field, const FieldPath& path,
                              std::vector<TableViolation>& out) {
  std::vector<Field> one{field};
  Result<TypePtr> wrapper = Type::Struct(std::move(one));
  if (wrapper.has_value()) CollectInvalidDeltaNames(**wrapper, path.Parent(), out);
}

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

// v1 and v2 have no type for a column of nulls; v3's unknown type is one.
void CollectUnknownTypes(int version, const FieldPath& path, const Type& type,
                         std::vector<TableViolation>& out) {
  if (version >= 3) return;
  if (type.kind() == TypeKind::kNull) {
    out.push_back({path, "", "",
                   fmt::format("Cannot convert NullType to an Iceberg type: {} has no type, and "
                               "Iceberg format version {} has no unknown type",
                               path.ToString(), version),
                   fmt::format("cast {} to a concrete type before writing, or upgrade the table "
                               "to format version 3",
                               path.ToString())});
  } else if (type.is_struct()) {
    for (const Field& f : type.fields()) {
      CollectUnknownTypes(version, path.Child(f.name()), *f.type(), out);
    }
  } else if (type.is_array()) {
    CollectUnknownTypes(version, path.Element(), *type.element_type(), out);
  } else if (type.is_map()) {
    CollectUnknownTypes(version, path.Key(), *type.key_type(), out);
    CollectUnknownTypes(version, path.Value(), *type.value_type(), out);
  }
}

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
    std::vector<Field> out;
    std::vector<bool> matched(current.fields().size(), false);
    bool failed = false;
    for (const Field& cf : current.fields()) out.push_back(cf);
    // UnionByNameVisitor adds a new field right after the data's preceding field (moveAfter), or
    // first when it leads the data.
    std::optional<size_t> last;
    FieldPairing pairing = PairTableFields(current, update);
    for (size_t ui = 0; ui < update.fields().size(); ++ui) {
      const Field& uf = update.fields()[ui];
      if (pairing.before_of[ui] < 0) {
        FieldPath child = path.Child(uf.name());
        if (!CheckConvertible(child, *uf.type())) failed = true;
        if (in_key) {
          Violate(child, fmt::format("Cannot add fields to map keys: {}", path.ToString()),
                  "Iceberg map keys cannot change; write the data without the new key field");
          failed = true;
        } else if (!evolve_) {
          Violate(child,
                  fmt::format("{} is not a column of the table: Iceberg adds columns only when "
                              "writing with merge-schema",
                              child.ToString()),
                  fmt::format("write with .option(\"merge-schema\", \"true\") to a table with "
                              "write.spark.accept-any-schema=true, or drop {} from the data",
                              child.ToString()));
          failed = true;
        }
        Field f = uf;
        f.set_nullable(true);  // addColumn always adds an optional column
        changes_.push_back({TableChangeKind::kColumnAdded, child, "", IcebergType(*f.type(), true),
                            "added as an optional column after the data's preceding column"});
        size_t at = last.has_value() ? *last + 1 : 0;
        // Field indexes after `at` move one down; keep `matched` aligned.
        out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), std::move(f));
        matched.insert(matched.begin() + static_cast<std::ptrdiff_t>(at), true);
        last = at;
        continue;
      }
      const Field& cf = current.fields()[static_cast<size_t>(pairing.before_of[ui])];
      // The table field's index in `out`, which insertions may have shifted.
      size_t oi = 0;
      for (; oi < out.size(); ++oi) {
        if (out[oi].name() == cf.name()) break;
      }
      matched[oi] = true;
      last = oi;
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
      out[oi] = std::move(f);
    }
    for (size_t i = 0; i < out.size(); ++i) {
      if (matched[i]) continue;
      FieldPath child = path.Child(out[i].name());
      if (!out[i].nullable()) {
        Violate(child, fmt::format("{} is required, but is missing", child.ToString()),
                fmt::format("add {} to the data: it is a required column of the table",
                            child.ToString()));
        failed = true;
      } else {
        changes_.push_back({TableChangeKind::kFilledWithNull, child,
                            IcebergTypeString(*out[i].type()), "",
                            "the data lacks this optional column; it is read as null"});
      }
    }
    if (failed) return nullptr;
    Result<TypePtr> st = Type::Struct(std::move(out));
    return st.has_value() ? *st : nullptr;
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
// Comparing two table schemas: overwriteSchema's report and in-place evolution.

using AtomicEquals = bool (*)(const Type&, const Type&);

// The table rules read the pair walk column by column, in the table's spelling, with the data's
// new columns after the table's (as the formats append them).
class TableDifferences : public PairVisitor {
 public:
  void StructsPaired(const FieldPath&, const Type&, const Type&, const FieldPairing&) override {}
  // Table formats resolve columns by name: a new order alone is neither a change nor a violation.
  void Moved(const FieldPath&, size_t, size_t) override {}
  // Docs, defaults and metadata are not the table rules' concern.
  void FieldPaired(const FieldPath&, const Field&, const Field&) override {}
};

// Names pair ignoring case: the callers have checked both sides hold no names that differ only
// in case, so each pairing is the one Delta's and Iceberg's case-insensitive lookups make.
void WalkTables(const Type& before, const Type& after, AtomicEquals equals,
                TableDifferences& sink) {
  PairWalkOptions options;
  options.atomic_equal = equals;
  options.added = AddedFieldPlacement::kAtEndOfStruct;
  options.spelling = PairedPathSpelling::kBefore;
  WalkPair(before, after, options, sink);
}

// overwriteSchema: everything is allowed; report it.
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

Status CheckIcebergVersion(TableFormat format, int version) {
  if (format == TableFormat::kIceberg && (version < 1 || version > 3)) {
    return InvalidArgument(
        fmt::format("Iceberg format version {} is not one of 1, 2 or 3", version));
  }
  return Ok();
}

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

bool IsDeltaSupportedWidening(const Type& from, const Type& to) {
  if (!IsAtomic(from) || !IsAtomic(to) || SparkAtomicEquals(from, to)) return false;
  TypeKind f = SparkKind(from.kind());
  TypeKind t = SparkKind(to.kind());
  int fr = IntegerRank(f);
  int tr = IntegerRank(t);
  if (fr > 0 && tr > 0) return tr > fr;
  if (fr > 0 && fr <= 3 && t == TypeKind::kFloat64) return true;
  if (f == TypeKind::kFloat32 && t == TypeKind::kFloat64) return true;
  if (f == TypeKind::kDate && t == TypeKind::kTimestampNtz) return true;
  if (t != TypeKind::kDecimal) return false;
  // decimal(p,s) -> decimal(p+k1,s+k2) with k1 >= k2 >= 0: the scale may grow, the integer
  // digits may not shrink. Integers need as many integer digits as their widest value.
  int int_digits = to.precision() - to.scale();
  if (f == TypeKind::kDecimal) {
    int k1 = to.precision() - from.precision();
    int k2 = to.scale() - from.scale();
    return k2 >= 0 && k1 >= k2;
  }
  if (fr > 0 && fr <= 3) return int_digits >= 10;
  if (fr == 4) return int_digits >= 20;
  return false;
}

bool IsDeltaAutomaticWidening(const Type& from, const Type& to) {
  if (!IsDeltaSupportedWidening(from, to)) return false;
  bool integral = IntegerRank(SparkKind(from.kind())) > 0;
  TypeKind t = SparkKind(to.kind());
  return !(integral && (t == TypeKind::kFloat64 || t == TypeKind::kDecimal));
}

bool IsIcebergPromotion(const Type& from, const Type& to, int format_version) {
  if (!IsAtomic(from) || !IsAtomic(to) || IcebergAtomicEquals(from, to)) return false;
  TypeKind f = IcebergKind(from.kind());
  TypeKind t = IcebergKind(to.kind());
  if (f == TypeKind::kNull) return format_version >= 3;
  if (f == TypeKind::kInt32 && t == TypeKind::kInt64) return true;
  if (f == TypeKind::kFloat32 && t == TypeKind::kFloat64) return true;
  if (f == TypeKind::kDecimal && t == TypeKind::kDecimal) {
    return to.scale() == from.scale() && to.precision() > from.precision();
  }
  // Not to timestamptz: a date has no zone to adjust from.
  if (f == TypeKind::kDate && t == TypeKind::kTimestampNtz) return format_version >= 3;
  return false;
}

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
