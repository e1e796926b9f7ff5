// The table rules' shared vocabulary: how Delta (Spark) and Iceberg see a model type and name
// it in their messages, the name checks both formats make, and the pair walk as they read it.
#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/evolution/table_rules_internal.h"

namespace sluice::evolution {

using schema::Field;
using schema::FieldPath;
using schema::PathSegment;
using schema::Schema;
using schema::TimeUnit;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

namespace internal {

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

namespace {
bool IcebergNanos(const Type& t) { return t.unit() == TimeUnit::kNanos; }
}  // namespace

bool IcebergAtomicEquals(const Type& a, const Type& b) {
  if (IcebergKind(a.kind()) != IcebergKind(b.kind())) return false;
  if (a.kind() == TypeKind::kDecimal)
    return a.precision() == b.precision() && a.scale() == b.scale();
  if (a.kind() == TypeKind::kTimestamp || a.kind() == TypeKind::kTimestampNtz) {
    return IcebergNanos(a) == IcebergNanos(b);
  }
  return true;
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

namespace {

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

}  // namespace

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

Status CheckIcebergVersion(TableFormat format, int version) {
  if (format == TableFormat::kIceberg && (version < 1 || version > 3)) {
    return InvalidArgument(
        fmt::format("Iceberg format version {} is not one of 1, 2 or 3", version));
  }
  return Ok();
}

}  // namespace internal

using internal::IcebergAtomicEquals;
using internal::IcebergKind;
using internal::IsAtomic;
using internal::SparkAtomicEquals;
using internal::SparkKind;
using schema::IntegerRank;

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

}  // namespace sluice::evolution
