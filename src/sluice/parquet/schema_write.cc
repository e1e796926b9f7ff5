// Model -> Parquet: the elements Spark writes for a Delta table, built together with the node
// tree and the leaf columns the page writer shreds records into.
#include <fmt/format.h>

#include <limits>

#include "sluice/parquet/schema_map_internal.h"

namespace sluice::parquet::internal {

using schema::Field;
using schema::FieldPath;
using schema::NoteSink;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

namespace {

struct Levels {
  int16_t def = 0;
  int16_t rep = 0;
};

class ModelWriter {
 public:
  ModelWriter(const WriteSchemaOptions& options, NoteSink& notes)
      : options_(options), notes_(notes) {}

  Result<SchemaParts> Run(schema::SchemaPtr model) {
    SchemaElement root;
    root.name = options_.root_name;
    root.num_children = 0;
    elements_.push_back(std::move(root));
    nodes_.emplace_back();
    nodes_[0].kind = SchemaNode::Kind::kStruct;
    nodes_[0].type = model->struct_type().get();
    nodes_[0].element = 0;
    SLUICE_TRY(WriteStruct(*model->struct_type(), Levels{}, 0, 0, FieldPath()));
    return SchemaParts{std::move(elements_), std::move(model), std::move(nodes_),
                       std::move(leaves_)};
  }

 private:
  // Reserves the children of `slot` as one block at the end of nodes_, so that they are
  // contiguous; their own children go after, when the recursion reaches them.
  int32_t AllocateChildren(int32_t slot, size_t count) {
    const auto first = static_cast<int32_t>(nodes_.size());
    nodes_.resize(nodes_.size() + count);
    nodes_[slot].first_child = first;
    nodes_[slot].num_children = static_cast<int32_t>(count);
    return first;
  }

  Status WriteStruct(const Type& st, Levels levels, int32_t slot, int32_t group,
                     const FieldPath& path) {
    const std::vector<Field>& fields = st.fields();
    const int32_t first = AllocateChildren(slot, fields.size());
    nodes_[slot].first_leaf = static_cast<int32_t>(leaves_.size());
    int32_t written = 0;
    for (size_t j = 0; j < fields.size(); ++j) {
      const Field& f = fields[j];
      const int32_t child = first + static_cast<int32_t>(j);
      FieldPath child_path = path.Child(f.name());
      if (f.type()->kind() == TypeKind::kNull) {
        SetAbsent(child, *f.type(), levels);
        notes_.Add(child_path,
                   "a column of type null is not written (Spark leaves void columns out of "
                   "Parquet files)");
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(std::string name, ElementName(f, child_path));
      SLUICE_ASSIGN_OR_RETURN(std::optional<int32_t> id, FieldId(f, child_path));
      SLUICE_TRY(
          WriteValue(f.type(), std::move(name), f.nullable(), id, levels, child, child_path));
      ++written;
    }
    if (written == 0) {
      if (path.empty()) {
        return InvalidArgument(
            "the schema has no columns Parquet can hold (null-typed columns are left out)");
      }
      return InvalidArgument(fmt::format(
          "{}: a struct without columns cannot be written to Parquet (null-typed fields are "
          "left out)",
          path.ToString()));
    }
    elements_[group].num_children = written;
    nodes_[slot].num_leaves = static_cast<int32_t>(leaves_.size()) - nodes_[slot].first_leaf;
    return Ok();
  }

  void SetAbsent(int32_t slot, const Type& type, Levels parent) {
    SchemaNode& n = nodes_[slot];
    n.kind = SchemaNode::Kind::kAbsent;
    n.type = &type;
    n.nullable = true;
    n.def_level = static_cast<int16_t>(parent.def + 1);
    n.rep_level = parent.rep;
    n.element = -1;
    n.first_leaf = static_cast<int32_t>(leaves_.size());
  }

  // Appends the element (or elements, for lists and maps) of one value and fills its node.
  Status WriteValue(const TypePtr& type, std::string name, bool nullable, std::optional<int32_t> id,
                    Levels parent, int32_t slot, const FieldPath& path) {
    const auto index = static_cast<int32_t>(elements_.size());
    const Levels here{static_cast<int16_t>(parent.def + (nullable ? 1 : 0)), parent.rep};
    {
      SchemaNode& n = nodes_[slot];
      n.type = type.get();
      n.nullable = nullable;
      n.def_level = here.def;
      n.rep_level = here.rep;
      n.element = index;
      n.first_leaf = static_cast<int32_t>(leaves_.size());
    }
    SchemaElement e;
    e.name = std::move(name);
    e.repetition = nullable ? Repetition::kOptional : Repetition::kRequired;
    e.field_id = id;
    names_.push_back(e.name);
    switch (type->kind()) {
      case TypeKind::kNull:
        // Null-typed fields and map values are left out before this point; an array element
        // has no such way out.
        return InvalidArgument(fmt::format("{}: an array of null cannot be written to Parquet",
                                           path.Parent().ToString()));
      case TypeKind::kStruct:
        nodes_[slot].kind = SchemaNode::Kind::kStruct;
        e.num_children = 0;
        elements_.push_back(std::move(e));
        SLUICE_TRY(WriteStruct(*type, here, slot, index, path));
        break;
      case TypeKind::kArray:
        SLUICE_TRY(WriteList(*type, std::move(e), here, slot, path));
        break;
      case TypeKind::kMap:
        SLUICE_TRY(WriteMap(*type, std::move(e), here, slot, path));
        break;
      case TypeKind::kBoolean:
      case TypeKind::kInt8:
      case TypeKind::kInt16:
      case TypeKind::kInt32:
      case TypeKind::kInt64:
      case TypeKind::kFloat32:
      case TypeKind::kFloat64:
      case TypeKind::kDecimal:
      case TypeKind::kString:
      case TypeKind::kBinary:
      case TypeKind::kDate:
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampNtz:
      case TypeKind::kTime:
      case TypeKind::kUuid:
        SLUICE_TRY(WriteLeaf(type, std::move(e), here, slot, path));
        break;
    }
    names_.pop_back();
    nodes_[slot].num_leaves = static_cast<int32_t>(leaves_.size()) - nodes_[slot].first_leaf;
    return Ok();
  }

  // <name> (LIST) { repeated group list { <element> element; } }
  Status WriteList(const Type& type, SchemaElement e, Levels here, int32_t slot,
                   const FieldPath& path) {
    nodes_[slot].kind = SchemaNode::Kind::kList;
    e.num_children = 1;
    e.logical_type = LogicalType{.kind = LogicalType::Kind::kList};
    e.converted_type = ConvertedType::kList;
    elements_.push_back(std::move(e));
    SchemaElement repeated;
    repeated.name = "list";
    repeated.repetition = Repetition::kRepeated;
    repeated.num_children = 1;
    elements_.push_back(std::move(repeated));
    names_.push_back("list");
    const int32_t child = AllocateChildren(slot, 1);
    const Levels entry{static_cast<int16_t>(here.def + 1), static_cast<int16_t>(here.rep + 1)};
    SLUICE_TRY(WriteValue(type.element_type(), "element", type.contains_null(), std::nullopt, entry,
                          child, path.Element()));
    names_.pop_back();
    return Ok();
  }

  // <name> (MAP) { repeated group key_value { required <key> key; <value> value; } }
  Status WriteMap(const Type& type, SchemaElement e, Levels here, int32_t slot,
                  const FieldPath& path) {
    nodes_[slot].kind = SchemaNode::Kind::kMap;
    const bool has_value = type.value_type()->kind() != TypeKind::kNull;
    e.num_children = 1;
    e.logical_type = LogicalType{.kind = LogicalType::Kind::kMap};
    e.converted_type = ConvertedType::kMap;
    elements_.push_back(std::move(e));
    SchemaElement repeated;
    repeated.name = "key_value";
    repeated.repetition = Repetition::kRepeated;
    repeated.num_children = has_value ? 2 : 1;
    elements_.push_back(std::move(repeated));
    names_.push_back("key_value");
    const int32_t first = AllocateChildren(slot, 2);
    const Levels entry{static_cast<int16_t>(here.def + 1), static_cast<int16_t>(here.rep + 1)};
    SLUICE_TRY(WriteValue(type.key_type(), "key", false, std::nullopt, entry, first, path.Key()));
    if (has_value) {
      SLUICE_TRY(WriteValue(type.value_type(), "value", type.value_contains_null(), std::nullopt,
                            entry, first + 1, path.Value()));
    } else {
      // LogicalTypes.md allows a key_value group without a value: a map whose values are all
      // null, which is what a map of null holds.
      SetAbsent(first + 1, *type.value_type(), entry);
    }
    names_.pop_back();
    return Ok();
  }

  Status WriteLeaf(const TypePtr& type, SchemaElement e, Levels here, int32_t slot,
                   const FieldPath& path) {
    SLUICE_ASSIGN_OR_RETURN(SchemaElement primitive, PrimitiveElement(*type, path, notes_));
    e.type = primitive.type;
    e.type_length = primitive.type_length;
    e.logical_type = primitive.logical_type;
    e.converted_type = primitive.converted_type;
    e.scale = primitive.scale;
    e.precision = primitive.precision;
    // The reader's rules give the sort order, so both directions agree on it.
    NoteSink unused;
    const auto index = static_cast<int32_t>(elements_.size());
    SLUICE_ASSIGN_OR_RETURN(LeafType read_back,
                            LeafTypeOf(e, ElementAt(index, path), path, unused));
    ColumnDescriptor d;
    d.path = names_;
    d.field_path = path;
    d.physical = *e.type;
    d.type_length = e.type_length.value_or(0);
    d.max_def = here.def;
    d.max_rep = here.rep;
    d.type = type;
    d.sort_order = read_back.sort_order;
    d.element = index;
    d.node = slot;
    nodes_[slot].kind = SchemaNode::Kind::kLeaf;
    nodes_[slot].leaf = static_cast<int32_t>(leaves_.size());
    elements_.push_back(std::move(e));
    leaves_.push_back(std::move(d));
    return Ok();
  }

  Result<std::string> ElementName(const Field& f, const FieldPath& path) const {
    if (!options_.use_physical_names) return f.name();
    const JsonValue* physical = f.metadata().Find(kColumnMappingPhysicalNameKey);
    if (physical == nullptr || !physical->is_string() || physical->as_string().empty()) {
      return InvalidArgument(fmt::format("{}: no {} to name the column by", path.ToString(),
                                         kColumnMappingPhysicalNameKey));
    }
    return physical->as_string();
  }

  static Result<std::optional<int32_t>> FieldId(const Field& f, const FieldPath& path) {
    for (std::string_view key : {kParquetFieldIdKey, kColumnMappingIdKey}) {
      const JsonValue* v = f.metadata().Find(key);
      if (v == nullptr) continue;
      std::optional<int64_t> id = v->is_number() ? v->as_int64() : std::nullopt;
      if (!id || *id < std::numeric_limits<int32_t>::min() ||
          *id > std::numeric_limits<int32_t>::max()) {
        return InvalidArgument(
            fmt::format("{}: {} must be a 32-bit integer to be a field id", path.ToString(), key));
      }
      return std::optional<int32_t>(static_cast<int32_t>(*id));
    }
    return std::optional<int32_t>();
  }

  const WriteSchemaOptions& options_;
  NoteSink& notes_;
  std::vector<SchemaElement> elements_;
  std::vector<SchemaNode> nodes_;
  std::vector<ColumnDescriptor> leaves_;
  // The element names from below the root down to the element being written.
  std::vector<std::string> names_;
};

}  // namespace

Result<SchemaParts> BuildFromModel(schema::SchemaPtr model, const WriteSchemaOptions& options,
                                   NoteSink& notes) {
  if (model == nullptr) return InvalidArgument("no schema to map to Parquet");
  return ModelWriter(options, notes).Run(std::move(model));
}

}  // namespace sluice::parquet::internal
