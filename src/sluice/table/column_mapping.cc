#include "sluice/table/column_mapping.h"

#include <fmt/format.h>

#include <unordered_map>

#include "sluice/table/transaction.h"

namespace sluice::table {
namespace {

// Rebuild `type` with `edit` applied to every field, depth first (children before the field).
Result<schema::TypePtr> MapFields(const schema::TypePtr& type,
                                  const std::function<Status(schema::Field&)>& edit) {
  switch (type->kind()) {
    case schema::TypeKind::kStruct: {
      std::vector<schema::Field> fields;
      fields.reserve(type->fields().size());
      for (const schema::Field& f : type->fields()) {
        schema::Field copy = f;
        SLUICE_ASSIGN_OR_RETURN(schema::TypePtr inner, MapFields(f.type(), edit));
        copy.set_type(std::move(inner));
        SLUICE_TRY(edit(copy));
        fields.push_back(std::move(copy));
      }
      return schema::Type::Struct(std::move(fields));
    }
    case schema::TypeKind::kArray: {
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr element, MapFields(type->element_type(), edit));
      return schema::Type::Array(std::move(element), type->contains_null());
    }
    case schema::TypeKind::kMap: {
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr key, MapFields(type->key_type(), edit));
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr value, MapFields(type->value_type(), edit));
      return schema::Type::Map(std::move(key), std::move(value), type->value_contains_null());
    }
    case schema::TypeKind::kNull:
    case schema::TypeKind::kBoolean:
    case schema::TypeKind::kInt8:
    case schema::TypeKind::kInt16:
    case schema::TypeKind::kInt32:
    case schema::TypeKind::kInt64:
    case schema::TypeKind::kFloat32:
    case schema::TypeKind::kFloat64:
    case schema::TypeKind::kDecimal:
    case schema::TypeKind::kString:
    case schema::TypeKind::kBinary:
    case schema::TypeKind::kDate:
    case schema::TypeKind::kTimestamp:
    case schema::TypeKind::kTimestampNtz:
    case schema::TypeKind::kTime:
    case schema::TypeKind::kUuid:
      return type;
  }
  return type;
}

Result<schema::SchemaPtr> MapSchema(const schema::Schema& schema,
                                    const std::function<Status(schema::Field&)>& edit) {
  SLUICE_ASSIGN_OR_RETURN(schema::TypePtr type, MapFields(schema.struct_type(), edit));
  return schema::Schema::FromStruct(std::move(type), schema.info());
}

}  // namespace

Result<ColumnMappingMode> MappingModeOf(const Metadata& metadata) {
  auto it = metadata.configuration.find(kColumnMappingModeKey);
  if (it == metadata.configuration.end() || it->second == "none") return ColumnMappingMode::kNone;
  if (it->second == "name") return ColumnMappingMode::kName;
  if (it->second == "id") return ColumnMappingMode::kId;
  return InvalidArgument(
      fmt::format("{} is '{}'; it must be none, name or id", kColumnMappingModeKey, it->second));
}

std::optional<int64_t> ColumnId(const schema::Field& field) {
  const JsonValue* id = field.metadata().Find(kColumnIdKey);
  return id != nullptr && id->is_number() ? id->as_int64() : std::nullopt;
}

std::string PhysicalName(const schema::Field& field) {
  const JsonValue* name = field.metadata().Find(kPhysicalNameKey);
  return name != nullptr && name->is_string() ? name->as_string() : field.name();
}

Result<int64_t> MaxColumnIdOf(const Metadata& metadata) {
  auto it = metadata.configuration.find(kMaxColumnIdKey);
  if (it == metadata.configuration.end()) return 0;
  char* end = nullptr;
  long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (end == nullptr || *end != '\0' || v < 0) {
    return InvalidArgument(fmt::format("{} is '{}', not a number", kMaxColumnIdKey, it->second));
  }
  return static_cast<int64_t>(v);
}

int64_t MaxColumnIdIn(const schema::Schema& schema) {
  int64_t max = 0;
  schema::VisitFields(schema, [&](const schema::FieldPath&, const schema::Field& f) {
    if (auto id = ColumnId(f)) max = std::max(max, *id);
  });
  return max;
}

// Parents first, in field order, as Delta numbers fields: a field takes its id before the
// fields nested in it.
Result<schema::TypePtr> AssignIn(const schema::TypePtr& type, int64_t* max_column_id,
                                 bool keep_names) {
  if (type->kind() == schema::TypeKind::kStruct) {
    std::vector<schema::Field> fields;
    fields.reserve(type->fields().size());
    for (const schema::Field& f : type->fields()) {
      schema::Field copy = f;
      JsonValue meta = copy.metadata();
      if (!ColumnId(f)) meta.Set(std::string(kColumnIdKey), JsonValue::Int(++*max_column_id));
      if (meta.Find(kPhysicalNameKey) == nullptr) {
        meta.Set(std::string(kPhysicalNameKey),
                 JsonValue::String(keep_names ? f.name() : "col-" + RandomUuid()));
      }
      copy.set_metadata(std::move(meta));
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr inner, AssignIn(f.type(), max_column_id, keep_names));
      copy.set_type(std::move(inner));
      fields.push_back(std::move(copy));
    }
    return schema::Type::Struct(std::move(fields));
  }
  if (type->kind() == schema::TypeKind::kArray) {
    SLUICE_ASSIGN_OR_RETURN(schema::TypePtr element,
                            AssignIn(type->element_type(), max_column_id, keep_names));
    return schema::Type::Array(std::move(element), type->contains_null());
  }
  if (type->kind() == schema::TypeKind::kMap) {
    SLUICE_ASSIGN_OR_RETURN(schema::TypePtr key,
                            AssignIn(type->key_type(), max_column_id, keep_names));
    SLUICE_ASSIGN_OR_RETURN(schema::TypePtr value,
                            AssignIn(type->value_type(), max_column_id, keep_names));
    return schema::Type::Map(std::move(key), std::move(value), type->value_contains_null());
  }
  return type;
}

Result<schema::SchemaPtr> AssignColumnMapping(const schema::Schema& schema, int64_t* max_column_id,
                                              bool keep_names) {
  *max_column_id = std::max(*max_column_id, MaxColumnIdIn(schema));
  SLUICE_ASSIGN_OR_RETURN(schema::TypePtr type,
                          AssignIn(schema.struct_type(), max_column_id, keep_names));
  return schema::Schema::FromStruct(std::move(type), schema.info());
}

Result<schema::SchemaPtr> PhysicalSchema(const schema::Schema& schema) {
  return MapSchema(schema, [](schema::Field& f) -> Status {
    f.set_name(PhysicalName(f));
    return Ok();
  });
}

Result<schema::SchemaPtr> StripColumnMapping(const schema::Schema& schema) {
  return MapSchema(schema, [](schema::Field& f) -> Status {
    if (f.metadata().Find(kColumnIdKey) == nullptr &&
        f.metadata().Find(kPhysicalNameKey) == nullptr) {
      return Ok();
    }
    JsonValue meta = f.metadata();
    meta.Remove(kColumnIdKey);
    meta.Remove(kPhysicalNameKey);
    meta.Remove("parquet.field.id");
    f.set_metadata(std::move(meta));
    return Ok();
  });
}

Result<schema::SchemaPtr> WithoutStorageMetadata(const schema::Schema& schema) {
  return MapSchema(schema, [](schema::Field& f) -> Status {
    const JsonValue& m = f.metadata();
    if (m.Find(kColumnIdKey) == nullptr && m.Find(kPhysicalNameKey) == nullptr &&
        m.Find("parquet.field.id") == nullptr && m.Find("delta.typeChanges") == nullptr) {
      return Ok();
    }
    JsonValue meta = m;
    meta.Remove(kColumnIdKey);
    meta.Remove(kPhysicalNameKey);
    meta.Remove("parquet.field.id");
    meta.Remove("delta.typeChanges");
    f.set_metadata(std::move(meta));
    return Ok();
  });
}

namespace {

// Rebuild `type` renaming fields by id; `old_path` and `new_path` are where `type` sits in
// `before` and after the renames above it, `after` the type at that place in the newer schema
// (or nullptr). A field without an id (the table had no column mapping yet) is matched by its
// name as the physical name of a field of `after` at the same place: turning column mapping on
// keeps each column's name as its physical name.
Result<schema::TypePtr> RenameIn(const schema::TypePtr& type, const schema::Type* after,
                                 const std::unordered_map<int64_t, std::string>& names,
                                 const schema::FieldPath& old_path,
                                 const schema::FieldPath& new_path,
                                 std::vector<ColumnRename>* renames) {
  if (type->kind() == schema::TypeKind::kStruct) {
    std::vector<schema::Field> fields;
    for (const schema::Field& f : type->fields()) {
      schema::Field copy = f;
      schema::FieldPath from = old_path.Child(f.name());
      std::optional<std::string> name;
      if (auto id = ColumnId(f)) {
        if (auto it = names.find(*id); it != names.end()) name = it->second;
      } else if (after != nullptr && after->is_struct()) {
        for (const schema::Field& g : after->fields()) {
          if (g.metadata().Find(kPhysicalNameKey) != nullptr && PhysicalName(g) == f.name()) {
            name = g.name();
          }
        }
      }
      if (name && *name != f.name()) {
        renames->push_back({from, new_path.Child(*name)});
        copy.set_name(*name);
      }
      const schema::Field* next =
          after != nullptr && after->is_struct() ? after->FindField(copy.name()) : nullptr;
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr inner,
                              RenameIn(f.type(), next != nullptr ? next->type().get() : nullptr,
                                       names, from, new_path.Child(copy.name()), renames));
      copy.set_type(std::move(inner));
      fields.push_back(std::move(copy));
    }
    return schema::Type::Struct(std::move(fields));
  }
  auto same = [&](schema::TypeKind k) { return after != nullptr && after->kind() == k; };
  if (type->kind() == schema::TypeKind::kArray) {
    const schema::Type* element =
        same(schema::TypeKind::kArray) ? after->element_type().get() : nullptr;
    SLUICE_ASSIGN_OR_RETURN(schema::TypePtr inner,
                            RenameIn(type->element_type(), element, names, old_path.Element(),
                                     new_path.Element(), renames));
    return schema::Type::Array(std::move(inner), type->contains_null());
  }
  if (type->kind() == schema::TypeKind::kMap) {
    const bool map = same(schema::TypeKind::kMap);
    SLUICE_ASSIGN_OR_RETURN(schema::TypePtr key,
                            RenameIn(type->key_type(), map ? after->key_type().get() : nullptr,
                                     names, old_path.Key(), new_path.Key(), renames));
    SLUICE_ASSIGN_OR_RETURN(schema::TypePtr value,
                            RenameIn(type->value_type(), map ? after->value_type().get() : nullptr,
                                     names, old_path.Value(), new_path.Value(), renames));
    return schema::Type::Map(std::move(key), std::move(value), type->value_contains_null());
  }
  return type;
}

}  // namespace

Result<schema::SchemaPtr> RenamedByColumnId(const schema::Schema& before,
                                            const schema::Schema& after,
                                            std::vector<ColumnRename>* renames) {
  std::unordered_map<int64_t, std::string> names;
  schema::VisitFields(after, [&](const schema::FieldPath&, const schema::Field& f) {
    if (auto id = ColumnId(f)) names.emplace(*id, f.name());
  });
  if (names.empty()) return schema::Schema::FromStruct(before.struct_type(), before.info());
  SLUICE_ASSIGN_OR_RETURN(schema::TypePtr type,
                          RenameIn(before.struct_type(), after.struct_type().get(), names,
                                   schema::FieldPath(), schema::FieldPath(), renames));
  return schema::Schema::FromStruct(std::move(type), before.info());
}

}  // namespace sluice::table
