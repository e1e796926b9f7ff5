// Parquet -> model: a file's schema elements from any writer, checked as a tree first and then
// read into the model type tree, the node tree and the leaf columns in one recursion.
#include <fmt/format.h>

#include <limits>

#include "sluice/base/strings.h"
#include "sluice/parquet/schema_map_internal.h"

namespace sluice::parquet::internal {

using schema::Field;
using schema::FieldPath;
using schema::NoteSink;
using schema::Type;
using schema::TypePtr;

namespace {

struct Levels {
  int16_t def = 0;
  int16_t rep = 0;
};

bool KnownPhysical(PhysicalType t) {
  const auto v = static_cast<int32_t>(t);
  return v >= 0 && v <= 7;
}

bool KnownRepetition(Repetition r) {
  const auto v = static_cast<int32_t>(r);
  return v >= 0 && v <= 2;
}

std::string Quoted(std::string_view name) { return "\"" + EscapeForMessage(name) + "\""; }

// Checks that the elements form one tree and finds where each element's subtree ends, so that
// the recursion after it can step from a child to its next sibling in one move. An explicit
// stack: nothing here recurses on input the tree check has not bounded yet.
Status CheckTree(const std::vector<SchemaElement>& elements, std::vector<int32_t>& end) {
  if (elements.empty()) return InvalidArgument("the Parquet schema has no elements");
  if (elements.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return InvalidArgument("the Parquet schema has too many elements");
  }
  const auto n = static_cast<int32_t>(elements.size());
  end.assign(elements.size(), 0);
  struct Open {
    int32_t index;
    int32_t remaining;
  };
  std::vector<Open> open;
  for (int32_t i = 0; i < n; ++i) {
    const SchemaElement& e = elements[i];
    if (i > 0 && open.empty()) {
      return InvalidArgument(fmt::format(
          "element {} ({}) comes after the root's last child: the root declares {} children", i,
          Quoted(e.name), elements[0].num_children.value_or(0)));
    }
    if (e.type && !KnownPhysical(*e.type)) {
      return InvalidArgument(fmt::format("element {} ({}) has an unknown physical type {}", i,
                                         Quoted(e.name), static_cast<int32_t>(*e.type)));
    }
    if (e.repetition && !KnownRepetition(*e.repetition)) {
      return InvalidArgument(fmt::format("element {} ({}) has an unknown repetition {}", i,
                                         Quoted(e.name), static_cast<int32_t>(*e.repetition)));
    }
    const bool group = !e.type.has_value();
    if (i == 0) {
      if (!group) return InvalidArgument("the root element is not a group");
      if (e.repetition == Repetition::kRepeated) {
        return InvalidArgument("the root element is repeated");
      }
    } else {
      if (e.name.empty()) return InvalidArgument(fmt::format("element {} has an empty name", i));
      if (!e.repetition) {
        return InvalidArgument(fmt::format("element {} ({}) has no repetition", i, Quoted(e.name)));
      }
      --open.back().remaining;
    }
    if (group) {
      if (!e.num_children || *e.num_children <= 0) {
        return InvalidArgument(
            fmt::format("element {} ({}) is a group without children", i, Quoted(e.name)));
      }
      if (static_cast<int>(open.size()) >= kMaxElementDepth) {
        return InvalidArgument(fmt::format("element {} ({}) nests deeper than {} levels", i,
                                           Quoted(e.name), kMaxElementDepth));
      }
      open.push_back(Open{i, *e.num_children});
    } else {
      if (e.num_children.value_or(0) != 0) {
        return InvalidArgument(fmt::format("element {} ({}) is a primitive with {} children", i,
                                           Quoted(e.name), *e.num_children));
      }
      end[i] = i + 1;
    }
    while (!open.empty() && open.back().remaining == 0) {
      end[open.back().index] = i + 1;
      open.pop_back();
    }
  }
  if (!open.empty()) {
    const Open& o = open.back();
    return InvalidArgument(
        fmt::format("element {} ({}) declares {} children but the schema ends after {} elements",
                    o.index, Quoted(elements[o.index].name), *elements[o.index].num_children, n));
  }
  return Ok();
}

class ElementReader {
 public:
  ElementReader(std::vector<SchemaElement> elements, NoteSink& notes)
      : elements_(std::move(elements)), notes_(notes) {}

  Result<SchemaParts> Run() {
    SLUICE_TRY(CheckTree(elements_, end_));
    nodes_.emplace_back();
    nodes_[0].kind = SchemaNode::Kind::kStruct;
    nodes_[0].element = 0;
    std::vector<Field> fields;
    SLUICE_TRY(ReadFields(0, Levels{}, 0, FieldPath(), fields));
    auto model = schema::Schema::Make(std::move(fields));
    if (!model) return InvalidArgument("the Parquet schema's root: " + model.error().message());
    nodes_[0].type = (*model)->struct_type().get();
    nodes_[0].num_leaves = static_cast<int32_t>(leaves_.size());
    return SchemaParts{std::move(elements_), std::move(*model), std::move(nodes_),
                       std::move(leaves_)};
  }

 private:
  const SchemaElement& At(int32_t i) const { return elements_[static_cast<size_t>(i)]; }

  std::vector<int32_t> Children(int32_t group) const {
    std::vector<int32_t> out(static_cast<size_t>(*At(group).num_children));
    int32_t c = group + 1;
    for (int32_t& child : out) {
      child = c;
      c = end_[static_cast<size_t>(c)];
    }
    return out;
  }

  int32_t AllocateChildren(int32_t slot, size_t count) {
    const auto first = static_cast<int32_t>(nodes_.size());
    nodes_.resize(nodes_.size() + count);
    nodes_[slot].first_child = first;
    nodes_[slot].num_children = static_cast<int32_t>(count);
    return first;
  }

  void StartNode(int32_t slot, SchemaNode::Kind kind, int32_t element, bool nullable,
                 Levels levels) {
    SchemaNode& n = nodes_[slot];
    n.kind = kind;
    n.element = element;
    n.nullable = nullable;
    n.def_level = levels.def;
    n.rep_level = levels.rep;
    n.first_leaf = static_cast<int32_t>(leaves_.size());
  }

  TypePtr FinishNode(int32_t slot, TypePtr type) {
    nodes_[slot].type = type.get();
    nodes_[slot].num_leaves = static_cast<int32_t>(leaves_.size()) - nodes_[slot].first_leaf;
    return type;
  }

  Unexpected<Error> Bad(int32_t element, const FieldPath& path, std::string_view what) const {
    return InvalidArgument(fmt::format("{}: {}", ElementAt(element, path), what));
  }

  // A model factory's error, placed.
  Unexpected<Error> Placed(int32_t element, const FieldPath& path, const Error& error) const {
    return Bad(element, path, error.message());
  }

  // The children of a group as struct fields, into the block of nodes below `slot`.
  Status ReadFields(int32_t group, Levels levels, int32_t slot, const FieldPath& path,
                    std::vector<Field>& fields) {
    const std::vector<int32_t> children = Children(group);
    const int32_t first = AllocateChildren(slot, children.size());
    fields.reserve(children.size());
    for (size_t j = 0; j < children.size(); ++j) {
      const SchemaElement& e = At(children[j]);
      FieldPath child_path = path.Child(e.name);
      SLUICE_ASSIGN_OR_RETURN(
          Member m, ReadMember(children[j], levels, first + static_cast<int32_t>(j), child_path));
      Field f(e.name, std::move(m.type), m.nullable);
      if (e.field_id) {
        JsonValue metadata = JsonValue::Object();
        metadata.Set(std::string(kParquetFieldIdKey), JsonValue::Int(*e.field_id));
        f.set_metadata(std::move(metadata));
      }
      fields.push_back(std::move(f));
    }
    return Ok();
  }

  struct Member {
    TypePtr type;
    bool nullable = false;
  };

  // A struct field, a 3-level list element or a map value: its repetition says whether it may
  // be null, and a repeated one is a list of its own (LogicalTypes.md: a repeated field that is
  // not in a LIST or MAP group is a required list of required elements).
  Result<Member> ReadMember(int32_t index, Levels parent, int32_t slot, const FieldPath& path) {
    const SchemaElement& e = At(index);
    if (*e.repetition == Repetition::kRepeated) {
      StartNode(slot, SchemaNode::Kind::kList, index, false, parent);
      const int32_t child = AllocateChildren(slot, 1);
      const Levels entry{static_cast<int16_t>(parent.def + 1),
                         static_cast<int16_t>(parent.rep + 1)};
      StartNode(child, SchemaNode::Kind::kLeaf, index, false, entry);
      SLUICE_ASSIGN_OR_RETURN(TypePtr element, ReadValue(index, entry, child, path.Element()));
      auto list = Type::Array(std::move(element), false);
      if (!list) return Placed(index, path, list.error());
      return Member{FinishNode(slot, std::move(*list)), false};
    }
    const bool nullable = *e.repetition == Repetition::kOptional;
    const Levels here{static_cast<int16_t>(parent.def + (nullable ? 1 : 0)), parent.rep};
    StartNode(slot, SchemaNode::Kind::kLeaf, index, nullable, here);
    SLUICE_ASSIGN_OR_RETURN(TypePtr type, ReadValue(index, here, slot, path));
    return Member{std::move(type), nullable};
  }

  // The value an element holds, whatever its repetition: `levels` already count it. The
  // caller has started the node at `slot`; this sets its kind and finishes it.
  Result<TypePtr> ReadValue(int32_t index, Levels levels, int32_t slot, const FieldPath& path) {
    const SchemaElement& e = At(index);
    if (e.type) return ReadLeaf(index, levels, slot, path);
    SLUICE_ASSIGN_OR_RETURN(Annotation a, ResolveAnnotation(e, ElementAt(index, path)));
    using K = LogicalType::Kind;
    if (a.map_key_value || (a.logical && a.logical->kind == K::kMap)) {
      return ReadMap(index, levels, slot, path);
    }
    if (a.logical && a.logical->kind == K::kList) return ReadList(index, levels, slot, path);
    if (a.logical && a.logical->kind == K::kVariant) {
      notes_.Add(path, "VARIANT is read as the struct of its parts");
    } else if (a.logical || a.interval) {
      return Bad(index, path, fmt::format("{} cannot annotate a group", AnnotationText(e)));
    }
    nodes_[slot].kind = SchemaNode::Kind::kStruct;
    std::vector<Field> fields;
    names_.push_back(e.name);
    SLUICE_TRY(ReadFields(index, levels, slot, path, fields));
    names_.pop_back();
    auto type = Type::Struct(std::move(fields));
    if (!type) return Placed(index, path, type.error());
    return FinishNode(slot, std::move(*type));
  }

  Result<TypePtr> ReadLeaf(int32_t index, Levels levels, int32_t slot, const FieldPath& path) {
    const SchemaElement& e = At(index);
    const std::string where = ElementAt(index, path);
    if (*e.type == PhysicalType::kFixedLenByteArray && (!e.type_length || *e.type_length <= 0)) {
      return Bad(index, path, "a fixed_len_byte_array needs a positive type_length");
    }
    SLUICE_ASSIGN_OR_RETURN(LeafType leaf, LeafTypeOf(e, where, path, notes_));
    ColumnDescriptor d;
    d.path.reserve(names_.size() + 1);
    d.path = names_;
    d.path.push_back(e.name);
    d.field_path = path;
    d.physical = *e.type;
    d.type_length = *e.type == PhysicalType::kFixedLenByteArray ? *e.type_length
                    : *e.type == PhysicalType::kInt96           ? 12
                                                                : 0;
    d.max_def = levels.def;
    d.max_rep = levels.rep;
    d.type = leaf.type;
    d.is_unsigned = leaf.is_unsigned;
    d.sort_order = leaf.sort_order;
    d.element = index;
    d.node = slot;
    nodes_[slot].kind = SchemaNode::Kind::kLeaf;
    nodes_[slot].leaf = static_cast<int32_t>(leaves_.size());
    leaves_.push_back(std::move(d));
    return FinishNode(slot, std::move(leaf.type));
  }

  // Element ids of the parts of a list or map have no Field to live in.
  void NoteDroppedId(int32_t index, const FieldPath& path) {
    const SchemaElement& e = At(index);
    if (e.field_id) {
      notes_.Add(path, fmt::format("the field id {} of element {} is not kept", *e.field_id,
                                   Quoted(e.name)));
    }
  }

  // A LIST group, by the backward-compatibility rules of LogicalTypes.md.
  Result<TypePtr> ReadList(int32_t index, Levels levels, int32_t slot, const FieldPath& path) {
    const SchemaElement& list = At(index);
    nodes_[slot].kind = SchemaNode::Kind::kList;
    if (*list.num_children != 1) {
      return Bad(index, path, "a LIST group must have exactly one child");
    }
    const int32_t r = index + 1;
    const SchemaElement& repeated = At(r);
    if (*repeated.repetition != Repetition::kRepeated) {
      return Bad(r, path, "the child of a LIST group must be repeated");
    }
    const Levels entry{static_cast<int16_t>(levels.def + 1), static_cast<int16_t>(levels.rep + 1)};
    const int32_t child = AllocateChildren(slot, 1);
    names_.push_back(list.name);
    // Rules 1 to 4: the repeated field itself is the element, and elements are required.
    // Rule 5: it is the 3-level form's middle group, and its one child is the element.
    bool repeated_is_element = repeated.type.has_value() || *repeated.num_children > 1;
    if (!repeated_is_element) {
      const SchemaElement& only = At(r + 1);
      repeated_is_element = *only.repetition == Repetition::kRepeated || repeated.name == "array" ||
                            repeated.name == list.name + "_tuple";
    }
    Result<TypePtr> element;
    bool contains_null = false;
    if (repeated_is_element) {
      StartNode(child, SchemaNode::Kind::kLeaf, r, false, entry);
      element = ReadValue(r, entry, child, path.Element());
    } else {
      NoteDroppedId(r, path);
      names_.push_back(repeated.name);
      auto member = ReadMember(r + 1, entry, child, path.Element());
      names_.pop_back();
      if (!member) return Fail(std::move(member).error());
      NoteDroppedId(r + 1, path.Element());
      contains_null = member->nullable;
      element = std::move(member->type);
    }
    names_.pop_back();
    if (!element) return Fail(std::move(element).error());
    auto type = Type::Array(std::move(*element), contains_null);
    if (!type) return Placed(index, path, type.error());
    return FinishNode(slot, std::move(*type));
  }

  // A MAP (or lone MAP_KEY_VALUE) group: one repeated group of a key and perhaps a value,
  // whatever their names.
  Result<TypePtr> ReadMap(int32_t index, Levels levels, int32_t slot, const FieldPath& path) {
    const SchemaElement& map = At(index);
    nodes_[slot].kind = SchemaNode::Kind::kMap;
    if (*map.num_children != 1) {
      return Bad(index, path, "a MAP group must have exactly one child");
    }
    const int32_t kv = index + 1;
    const SchemaElement& key_value = At(kv);
    if (*key_value.repetition != Repetition::kRepeated || key_value.type) {
      return Bad(kv, path, "the child of a MAP group must be a repeated group");
    }
    if (*key_value.num_children > 2) {
      return Bad(kv, path, "a map's key-value group holds more than a key and a value");
    }
    NoteDroppedId(kv, path);
    const int32_t key = kv + 1;
    if (*At(key).repetition != Repetition::kRequired) {
      return Bad(key, path.Key(), "a map key must be required");
    }
    const Levels entry{static_cast<int16_t>(levels.def + 1), static_cast<int16_t>(levels.rep + 1)};
    const int32_t first = AllocateChildren(slot, 2);
    names_.push_back(map.name);
    names_.push_back(key_value.name);
    auto key_member = ReadMember(key, entry, first, path.Key());
    if (!key_member) return Fail(std::move(key_member).error());
    NoteDroppedId(key, path.Key());
    Member value{Type::Null(), true};
    if (*key_value.num_children == 2) {
      const int32_t v = end_[static_cast<size_t>(key)];
      auto value_member = ReadMember(v, entry, first + 1, path.Value());
      if (!value_member) return Fail(std::move(value_member).error());
      NoteDroppedId(v, path.Value());
      value = std::move(*value_member);
    } else {
      SchemaNode& n = nodes_[first + 1];
      n.kind = SchemaNode::Kind::kAbsent;
      n.type = value.type.get();
      n.nullable = true;
      n.def_level = static_cast<int16_t>(entry.def + 1);
      n.rep_level = entry.rep;
      n.first_leaf = static_cast<int32_t>(leaves_.size());
    }
    names_.pop_back();
    names_.pop_back();
    auto type = Type::Map(std::move(key_member->type), std::move(value.type), value.nullable);
    if (!type) return Placed(index, path, type.error());
    return FinishNode(slot, std::move(*type));
  }

  std::vector<SchemaElement> elements_;
  // end_[i]: one past the last element of element i's subtree, so its next sibling.
  std::vector<int32_t> end_;
  NoteSink& notes_;
  std::vector<SchemaNode> nodes_;
  std::vector<ColumnDescriptor> leaves_;
  // The names of the elements above the one being read, below the root.
  std::vector<std::string> names_;
};

}  // namespace

Result<SchemaParts> BuildFromElements(std::vector<SchemaElement> elements, NoteSink& notes) {
  return ElementReader(std::move(elements), notes).Run();
}

}  // namespace sluice::parquet::internal
