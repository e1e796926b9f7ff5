// The writer schemas of several Avro container files, merged (MergeAvroSchemas).
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "sluice/data/avro_container.h"
#include "sluice/data/typed_schema_merge_internal.h"
#include "sluice/dialects/avro/avro_convert.h"

namespace sluice::data {

namespace internal {

namespace {

using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

// The decimal an integer reads as without loss (Spark's DecimalType.forType).
std::optional<std::pair<int, int>> AsDecimal(const Type& t) {
  if (t.kind() == TypeKind::kDecimal) return std::pair{t.precision(), t.scale()};
  switch (IntegerRank(t.kind())) {
    case 1:
      return std::pair{3, 0};
    case 2:
      return std::pair{5, 0};
    case 3:
      return std::pair{10, 0};
    case 4:
      return std::pair{20, 0};
    default:
      return std::nullopt;
  }
}

bool IsTimestamp(TypeKind k) { return k == TypeKind::kTimestamp || k == TypeKind::kTimestampNtz; }

}  // namespace

// The widenings Auto Loader applies, and, the model keeping units apart where Spark has one
// timestamp type, finer units.
TypePtr WiderAtomicType(const TypePtr& a, const TypePtr& b) {
  if (a->Equals(*b)) return a;
  if (a->kind() == TypeKind::kNull) return b;
  if (b->kind() == TypeKind::kNull) return a;
  const int ra = IntegerRank(a->kind());
  const int rb = IntegerRank(b->kind());
  if (ra > 0 && rb > 0) return ra >= rb ? a : b;
  auto to_double = [](const Type& t) {
    return (IntegerRank(t.kind()) > 0 && IntegerRank(t.kind()) <= 3) ||
           t.kind() == TypeKind::kFloat32 || t.kind() == TypeKind::kFloat64;
  };
  if ((a->is_floating() || b->is_floating()) && to_double(*a) && to_double(*b)) {
    return Type::Float64();
  }
  if (a->kind() == TypeKind::kDecimal || b->kind() == TypeKind::kDecimal) {
    auto da = AsDecimal(*a);
    auto db = AsDecimal(*b);
    if (!da || !db) return nullptr;
    // DecimalType.bounded: past 38 digits the precision is capped (the scale never exceeds
    // 38), as Spark widens decimals; values with more integer digits than are left are then
    // rescued when read rather than the files refused.
    const int scale = std::max(da->second, db->second);
    const int digits = std::max(da->first - da->second, db->first - db->second);
    auto d = Type::Decimal(std::min(digits + scale, schema::kMaxDecimalPrecision), scale);
    return d.has_value() ? *d : nullptr;
  }
  if (a->kind() == TypeKind::kDate && IsTimestamp(b->kind())) return b;
  if (b->kind() == TypeKind::kDate && IsTimestamp(a->kind())) return a;
  if (a->kind() == b->kind() && (IsTimestamp(a->kind()) || a->kind() == TypeKind::kTime)) {
    return schema::TimeUnitRank(a->unit()) >= schema::TimeUnitRank(b->unit()) ? a : b;
  }
  return nullptr;
}

}  // namespace internal

namespace {

using schema::FieldPath;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

class Merger {
 public:
  Merger(const std::string& left_file, const std::string& right_file)
      : left_(left_file), right_(right_file) {}

  Result<TypePtr> Merge(const TypePtr& a, const TypePtr& b, const FieldPath& path) {
    if (a->is_struct() && b->is_struct()) return MergeStruct(*a, *b, path);
    if (a->is_array() && b->is_array()) {
      SLUICE_ASSIGN_OR_RETURN(TypePtr e,
                              Merge(a->element_type(), b->element_type(), path.Element()));
      return Type::Array(std::move(e), a->contains_null() || b->contains_null());
    }
    if (a->is_map() && b->is_map()) {
      SLUICE_ASSIGN_OR_RETURN(TypePtr k, Merge(a->key_type(), b->key_type(), path.Key()));
      SLUICE_ASSIGN_OR_RETURN(TypePtr v, Merge(a->value_type(), b->value_type(), path.Value()));
      return Type::Map(std::move(k), std::move(v),
                       a->value_contains_null() || b->value_contains_null());
    }
    if (!a->is_nested() && !b->is_nested()) {
      if (TypePtr w = internal::WiderAtomicType(a, b)) return w;
    }
    return Fail(ErrorCode::kIncompatible,
                fmt::format("{}: {} has {} and {} has {}, and neither type widens to the other",
                            path.empty() ? "value" : path.ToString(), left_, a->ToString(), right_,
                            b->ToString()));
  }

 private:
  Result<TypePtr> MergeStruct(const Type& a, const Type& b, const FieldPath& path) {
    std::unordered_map<std::string_view, size_t> in_b;
    for (size_t i = 0; i < b.fields().size(); ++i) in_b.emplace(b.fields()[i].name(), i);
    std::vector<schema::Field> fields;
    std::vector<bool> used(b.fields().size(), false);
    for (const schema::Field& f : a.fields()) {
      auto it = in_b.find(f.name());
      if (it == in_b.end()) {
        // Records of the files without it read it as null.
        schema::Field kept = f;
        kept.set_nullable(true);
        fields.push_back(std::move(kept));
        continue;
      }
      const schema::Field& g = b.fields()[it->second];
      used[it->second] = true;
      FieldPath child = path.empty() ? FieldPath::Of(f.name()) : path.Child(f.name());
      SLUICE_ASSIGN_OR_RETURN(TypePtr t, Merge(f.type(), g.type(), child));
      schema::Field merged = f;
      merged.set_type(std::move(t));
      merged.set_nullable(f.nullable() || g.nullable());
      fields.push_back(std::move(merged));
    }
    for (size_t i = 0; i < b.fields().size(); ++i) {
      if (used[i]) continue;
      schema::Field added = b.fields()[i];
      added.set_nullable(true);
      fields.push_back(std::move(added));
    }
    return Type::Struct(std::move(fields));
  }

  const std::string& left_;
  const std::string& right_;
};

}  // namespace

Result<schema::Converted<schema::SchemaPtr>> MergeAvroSchemas(FileSystem& fs,
                                                              const std::vector<std::string>& files,
                                                              uint64_t* rows) {
  if (files.empty()) return InvalidArgument("no Avro files to read a schema from");
  schema::Converted<schema::SchemaPtr> out;
  std::string first;
  if (rows != nullptr) *rows = 0;
  for (const std::string& path : files) {
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<AvroContainerReader> reader,
                            AvroContainerReader::Open(fs, path));
    auto converted = dialects::avro::ToModel(reader->schema());
    if (!converted.has_value()) {
      return Fail(converted.error().WithContext(path + ": avro.schema"));
    }
    for (const schema::LossyNote& note : converted->notes) {
      out.notes.push_back({note.path, path + ": " + note.message});
    }
    if (rows != nullptr) {
      SLUICE_ASSIGN_OR_RETURN(uint64_t n, reader->CountRemaining());
      *rows += n;
    }
    if (out.value == nullptr) {
      out.value = converted->value;
      first = path;
      continue;
    }
    Merger merger(first, path);
    SLUICE_ASSIGN_OR_RETURN(
        TypePtr merged,
        merger.Merge(out.value->struct_type(), converted->value->struct_type(), FieldPath()));
    SLUICE_ASSIGN_OR_RETURN(out.value, schema::Schema::FromStruct(std::move(merged)));
  }
  return out;
}

}  // namespace sluice::data
