// The schema side of writes: a new table's metadata, the metadata after a schema change
// (column mapping for new fields, delta.typeChanges for widened ones), and, for JSON and CSV
// input, the data's schema as Delta would see it (write_internal.h).
#include <fmt/format.h>

#include <set>

#include "sluice/base/json_writer.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/properties.h"
#include "sluice/table/protocol.h"
#include "sluice/table/write.h"
#include "sluice/table/write_internal.h"

namespace sluice::table {
namespace {

using schema::Field;
using schema::FieldPath;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

std::string Join(const std::string& prefix, std::string_view step) {
  return prefix.empty() ? std::string(step) : prefix + "." + std::string(step);
}

// `after` with each widened primitive recorded in its nearest struct field's delta.typeChanges
// (PROTOCOL.md "Type Widening"): {"fromType", "toType"} and, for an element, key or value,
// "fieldPath". `changes` is the nearest field's list.
Result<TypePtr> RecordTypeChanges(const TypePtr& before, const TypePtr& after,
                                  const std::string& suffix, JsonValue& changes) {
  if (after->kind() == TypeKind::kStruct) {
    if (before->kind() != TypeKind::kStruct) return after;
    std::vector<Field> fields;
    for (const Field& f : after->fields()) {
      const Field* old = before->FindField(f.name());
      if (old == nullptr) {
        std::vector<size_t> found = before->FindFieldsIgnoreCase(f.name());
        if (found.size() == 1) old = &before->fields()[found[0]];
      }
      Field copy = f;
      if (old != nullptr) {
        const JsonValue* existing = f.metadata().Find("delta.typeChanges");
        JsonValue list =
            existing != nullptr && existing->is_array() ? *existing : JsonValue::Array();
        size_t had = list.items().size();
        SLUICE_ASSIGN_OR_RETURN(TypePtr inner, RecordTypeChanges(old->type(), f.type(), "", list));
        copy.set_type(std::move(inner));
        if (list.items().size() != had) {
          JsonValue meta = copy.metadata();
          meta.Set("delta.typeChanges", std::move(list));
          copy.set_metadata(std::move(meta));
        }
      }
      fields.push_back(std::move(copy));
    }
    return Type::Struct(std::move(fields));
  }
  if (after->kind() == TypeKind::kArray && before->kind() == TypeKind::kArray) {
    SLUICE_ASSIGN_OR_RETURN(TypePtr element,
                            RecordTypeChanges(before->element_type(), after->element_type(),
                                              Join(suffix, "element"), changes));
    return Type::Array(std::move(element), after->contains_null());
  }
  if (after->kind() == TypeKind::kMap && before->kind() == TypeKind::kMap) {
    SLUICE_ASSIGN_OR_RETURN(TypePtr key, RecordTypeChanges(before->key_type(), after->key_type(),
                                                           Join(suffix, "key"), changes));
    SLUICE_ASSIGN_OR_RETURN(TypePtr value,
                            RecordTypeChanges(before->value_type(), after->value_type(),
                                              Join(suffix, "value"), changes));
    return Type::Map(std::move(key), std::move(value), after->value_contains_null());
  }
  if (before->kind() != TypeKind::kNull && !before->Equals(*after) && !before->is_struct() &&
      before->kind() != TypeKind::kArray && before->kind() != TypeKind::kMap) {
    JsonValue change = JsonValue::Object();
    change.Set("fromType", JsonValue::String(dialects::spark::DataTypeName(*before)));
    change.Set("toType", JsonValue::String(dialects::spark::DataTypeName(*after)));
    if (!suffix.empty()) change.Set("fieldPath", JsonValue::String(suffix));
    // evolution::Merge records the widenings it makes in the merged schema already: once only.
    const std::string text = ToJson(change);
    for (const JsonValue& had : changes.items()) {
      if (ToJson(had) == text) return after;
    }
    changes.Append(std::move(change));
  }
  return after;
}

Result<std::string> SchemaString(const schema::Schema& schema) {
  return dialects::spark::WriteJson(schema).value;
}

// Overlay (write_internal.h), one level.
TypePtr OverlayType(const TypePtr& table, const TypePtr& data, const FieldPath& path,
                    const std::set<std::string>& failed) {
  if (table->kind() == TypeKind::kStruct && data->kind() == TypeKind::kStruct) {
    std::vector<Field> fields;
    std::vector<bool> used(data->fields().size(), false);
    for (const Field& tf : table->fields()) {
      std::vector<size_t> found = data->FindFieldsIgnoreCase(tf.name());
      if (found.empty()) {
        fields.push_back(tf);
        continue;
      }
      const Field& df = data->fields()[found[0]];
      used[found[0]] = true;
      FieldPath child = path.Child(tf.name());
      Field copy = tf;
      if (failed.contains(child.ToString())) {
        copy.set_type(df.type());
      } else {
        copy.set_type(OverlayType(tf.type(), df.type(), child, failed));
      }
      fields.push_back(std::move(copy));
    }
    for (size_t i = 0; i < data->fields().size(); ++i) {
      if (!used[i]) fields.push_back(data->fields()[i]);
    }
    auto made = Type::Struct(std::move(fields));
    return made.has_value() ? *made : table;
  }
  if (table->kind() == TypeKind::kArray && data->kind() == TypeKind::kArray) {
    FieldPath child = path.Element();
    TypePtr element = failed.contains(child.ToString())
                          ? data->element_type()
                          : OverlayType(table->element_type(), data->element_type(), child, failed);
    auto made = Type::Array(element, table->contains_null());
    return made.has_value() ? *made : table;
  }
  if (table->kind() == TypeKind::kMap && data->kind() == TypeKind::kMap) {
    FieldPath kp = path.Key();
    FieldPath vp = path.Value();
    TypePtr key = failed.contains(kp.ToString())
                      ? data->key_type()
                      : OverlayType(table->key_type(), data->key_type(), kp, failed);
    TypePtr value = failed.contains(vp.ToString())
                        ? data->value_type()
                        : OverlayType(table->value_type(), data->value_type(), vp, failed);
    auto made = Type::Map(key, value, table->value_contains_null());
    return made.has_value() ? *made : table;
  }
  if (table->kind() == TypeKind::kMap && data->kind() == TypeKind::kStruct) {
    // A JSON object infers as a struct, one field per key: each field is a map entry, and its
    // type is folded into the table's value type, so a new value field under any key is found.
    // Keys stay the table's (JSON keys are text).
    FieldPath vp = path.Value();
    TypePtr value = table->value_type();
    for (const Field& entry : data->fields()) {
      if (entry.type()->kind() == TypeKind::kNull) continue;
      if (failed.contains(vp.ToString())) {
        // The values do not fit the table's value type: the data's is what the entries hold.
        value = entry.type();
        break;
      }
      value = OverlayType(value, entry.type(), vp, failed);
    }
    auto made = Type::Map(table->key_type(), value, table->value_contains_null());
    return made.has_value() ? *made : table;
  }
  return table;
}

}  // namespace

Result<schema::SchemaPtr> OverlayDataSchema(const schema::Schema& table,
                                            const schema::Schema& inferred,
                                            const std::set<std::string>& failed_paths) {
  TypePtr type =
      OverlayType(table.struct_type(), inferred.struct_type(), FieldPath(), failed_paths);
  return schema::Schema::FromStruct(std::move(type), table.info());
}

Result<std::vector<std::string>> ResolvePartitionColumns(const schema::Schema& schema,
                                                         const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& p : names) {
    const Field* f = schema.struct_type()->FindField(p);
    if (f == nullptr) {
      std::vector<size_t> found = schema.struct_type()->FindFieldsIgnoreCase(p);
      if (found.size() == 1) f = &schema.fields()[found[0]];
    }
    if (f == nullptr) {
      return InvalidArgument(
          fmt::format("partition column '{}' is not a top-level column of the schema", p));
    }
    if (f->type()->is_struct() || f->type()->kind() == TypeKind::kArray ||
        f->type()->kind() == TypeKind::kMap) {
      return InvalidArgument(fmt::format("partition column '{}' must have an atomic type, not {}",
                                         p, dialects::spark::DataTypeSql(*f->type())));
    }
    for (const std::string& had : out) {
      if (had == f->name()) {
        return InvalidArgument(fmt::format(
            "[DELTA_DUPLICATE_COLUMNS_FOUND] Found duplicate column(s) in the partition schema: "
            "`{}`",
            f->name()));
      }
    }
    out.push_back(f->name());
  }
  if (!out.empty() && out.size() == schema.fields().size()) {
    return InvalidArgument(
        "[DELTA_CANNOT_USE_ALL_COLUMNS_FOR_PARTITION] Cannot use all columns for partition "
        "columns");
  }
  return out;
}

Result<std::pair<Protocol, Metadata>> NewTableMetadata(
    const schema::Schema& schema, const std::vector<std::string>& partition_by,
    const StringMap& properties,
    const std::vector<std::pair<std::string, std::string>>& constraints) {
  Metadata m;
  m.id = RandomUuid();
  SLUICE_ASSIGN_OR_RETURN(TableProperties given, SplitTableProperties(properties));
  m.configuration = std::move(given.configuration);
  SLUICE_ASSIGN_OR_RETURN(m.partition_columns, ResolvePartitionColumns(schema, partition_by));
  for (const auto& [key, expression] : m.configuration) {
    if (key.starts_with("delta.constraints.")) {
      SLUICE_TRY(CheckConstraintExpression(expression, schema));
    }
  }
  for (const auto& [name, expression] : constraints) {
    SLUICE_TRY(CheckConstraintExpression(expression, schema));
    m.configuration[ConstraintKey(name)] = expression;
  }
  SLUICE_ASSIGN_OR_RETURN(ColumnMappingMode mode, MappingModeOf(m));
  schema::SchemaPtr stored = schema::Schema::FromStruct(schema.struct_type(), {}).value();
  if (mode != ColumnMappingMode::kNone) {
    int64_t max_id = 0;
    SLUICE_ASSIGN_OR_RETURN(stored, AssignColumnMapping(schema, &max_id, false));
    m.configuration[std::string(kMaxColumnIdKey)] = std::to_string(max_id);
  }
  SLUICE_ASSIGN_OR_RETURN(m.schema_string, SchemaString(*stored));
  m.created_time = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  Protocol p = RaiseProtocol(RequiredProtocol(NeedsOf(m, *stored)), given.min_reader_version,
                             given.min_writer_version);
  SLUICE_TRY(CheckWritable(p, m, *stored));
  return std::make_pair(std::move(p), std::move(m));
}

Result<std::pair<Protocol, Metadata>> EvolvedMetadata(const Protocol& current,
                                                      const Metadata& metadata,
                                                      const schema::Schema& before,
                                                      const schema::Schema& after, int64_t) {
  Metadata m = metadata;
  JsonValue unused = JsonValue::Array();
  SLUICE_ASSIGN_OR_RETURN(TypePtr recorded,
                          RecordTypeChanges(before.struct_type(), after.struct_type(), "", unused));
  SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr evolved,
                          schema::Schema::FromStruct(std::move(recorded), after.info()));
  SLUICE_ASSIGN_OR_RETURN(ColumnMappingMode mode, MappingModeOf(m));
  if (mode != ColumnMappingMode::kNone) {
    SLUICE_ASSIGN_OR_RETURN(int64_t max_id, MaxColumnIdOf(m));
    SLUICE_ASSIGN_OR_RETURN(evolved, AssignColumnMapping(*evolved, &max_id, false));
    m.configuration[std::string(kMaxColumnIdKey)] = std::to_string(max_id);
  }
  SLUICE_ASSIGN_OR_RETURN(m.schema_string, SchemaString(*evolved));
  Protocol p = RequiredProtocol(NeedsOf(m, *evolved), &current);
  SLUICE_TRY(CheckWritable(p, m, *evolved));
  return std::make_pair(std::move(p), std::move(m));
}

}  // namespace sluice::table
