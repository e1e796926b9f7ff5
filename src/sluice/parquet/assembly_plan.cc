#include "sluice/parquet/assembly_plan.h"

#include <fmt/format.h>

#include "sluice/schema/field_path.h"

namespace sluice::parquet {
namespace {

using Kind = AssemblyNode::Kind;

bool IsGroup(const SchemaElement& e) { return !e.type.has_value(); }

bool IsListAnnotated(const SchemaElement& e) {
  return (e.logical_type && e.logical_type->kind == LogicalType::Kind::kList) ||
         (!e.logical_type && e.converted_type == ConvertedType::kList);
}

bool IsMapAnnotated(const SchemaElement& e) {
  if (e.logical_type) return e.logical_type->kind == LogicalType::Kind::kMap;
  return e.converted_type == ConvertedType::kMap || e.converted_type == ConvertedType::kMapKeyValue;
}

std::string JsonKey(std::string_view name) {
  std::string key;
  AppendJsonText(key, name);
  key.push_back(':');
  return key;
}

class Builder {
 public:
  Builder(const std::vector<SchemaElement>& elements, size_t max_depth)
      : e_(elements), max_depth_(max_depth), children_(elements.size()) {}

  Result<ReadSchema> Run() {
    SLUICE_TRY(ParseTree());
    AssemblyNode root;
    root.kind = Kind::kStruct;
    out_.plan.nodes.push_back(root);
    out_.names.emplace_back();
    for (uint32_t c : children_[0]) {
      SLUICE_ASSIGN_OR_RETURN(uint32_t child, Build(c, 0, 0, false, 1));
      out_.plan.nodes[0].children.push_back(child);
    }
    out_.plan.nodes[0].leaf_end = static_cast<uint32_t>(out_.leaves.size());
    for (size_t i = 0; i < out_.leaves.size(); ++i) out_.plan.leaf_columns.push_back(i);
    return std::move(out_);
  }

 private:
  // Rebuild the tree from the depth-first list and its children counts.
  Status ParseTree() {
    if (e_.empty()) return InvalidArgument("the schema has no elements");
    if (!IsGroup(e_[0])) return InvalidArgument("the schema's root element is not a group");
    struct Open {
      uint32_t element;
      int64_t left;
    };
    std::vector<Open> stack;
    stack.push_back({0, e_[0].num_children.value_or(0)});
    if (stack.back().left < 0) return InvalidArgument("the schema's root has a negative count");
    size_t next = 1;
    while (!stack.empty()) {
      if (stack.back().left == 0) {
        stack.pop_back();
        continue;
      }
      --stack.back().left;
      if (next >= e_.size()) {
        return InvalidArgument(
            fmt::format("schema element {} ('{}') counts more children than the list holds",
                        stack.back().element, e_[stack.back().element].name));
      }
      const auto i = static_cast<uint32_t>(next++);
      children_[stack.back().element].push_back(i);
      const SchemaElement& e = e_[i];
      if (IsGroup(e)) {
        const int64_t n = e.num_children.value_or(0);
        if (n <= 0) {
          return InvalidArgument(
              fmt::format("schema element {} ('{}') is a group without children", i, e.name));
        }
        if (stack.size() >= max_depth_) {
          return InvalidArgument(fmt::format("schema element {} ('{}') is nested deeper than {}", i,
                                             e.name, max_depth_));
        }
        stack.push_back({i, n});
      } else if (e.num_children.value_or(0) != 0) {
        return InvalidArgument(
            fmt::format("schema element {} ('{}') has a physical type and children", i, e.name));
      }
    }
    if (next != e_.size()) {
      return InvalidArgument(fmt::format(
          "the schema lists {} elements, its children counts cover {}", e_.size(), next));
    }
    return Ok();
  }

  uint32_t NewNode(Kind kind, uint32_t element, std::string key) {
    AssemblyNode n;
    n.kind = kind;
    n.key = std::move(key);
    n.leaf_begin = static_cast<uint32_t>(out_.leaves.size());
    out_.plan.nodes.push_back(std::move(n));
    out_.names.push_back(e_[element].name);
    return static_cast<uint32_t>(out_.plan.nodes.size() - 1);
  }

  void Finish(uint32_t node) {
    out_.plan.nodes[node].leaf_end = static_cast<uint32_t>(out_.leaves.size());
  }

  // Build the node of element `i` whose parent is present at `parent_def` and repeated at
  // `rep`. `as_required`: a list's element whose repetition the list already counted.
  Result<uint32_t> Build(uint32_t i, int16_t parent_def, int16_t rep, bool as_required,
                         size_t depth) {
    const SchemaElement& e = e_[i];
    if (depth > max_depth_) {
      return InvalidArgument(
          fmt::format("schema element '{}' is nested deeper than {}", e.name, max_depth_));
    }
    path_.push_back(e.name);
    const std::string key = as_required ? std::string() : JsonKey(e.name);
    const Repetition r =
        as_required ? Repetition::kRequired : e.repetition.value_or(Repetition::kRequired);
    Result<uint32_t> node;
    if (r == Repetition::kRepeated) {
      // A repeated field outside a LIST or MAP is a required list of required elements.
      node = NewNode(Kind::kList, i, key);
      AssemblyNode& n = out_.plan.nodes[*node];
      n.def = parent_def;
      n.null_def = -1;
      n.rep = static_cast<int16_t>(rep + 1);
      const int16_t list_rep = n.rep;
      // The list and its element are the same element, so its name is in the path once.
      path_.pop_back();
      auto element = Build(i, static_cast<int16_t>(parent_def + 1), list_rep, true, depth + 1);
      path_.push_back(e.name);
      if (!element) return element;
      out_.plan.nodes[*node].children.push_back(*element);
      Finish(*node);
    } else {
      const bool optional = r == Repetition::kOptional;
      const auto def = static_cast<int16_t>(parent_def + (optional ? 1 : 0));
      const int16_t null_def = optional ? parent_def : int16_t{-1};
      if (!IsGroup(e)) {
        node = BuildLeaf(i, def, null_def, rep, key);
      } else if (IsListAnnotated(e) && ListShape(i)) {
        node = BuildList(i, def, null_def, rep, key, depth);
      } else if (IsMapAnnotated(e) && MapShape(i)) {
        node = BuildMap(i, def, null_def, rep, key, depth);
      } else {
        node = BuildStruct(i, def, null_def, rep, key, depth);
      }
    }
    path_.pop_back();
    return node;
  }

  Result<uint32_t> BuildLeaf(uint32_t i, int16_t def, int16_t null_def, int16_t rep,
                             const std::string& key) {
    const SchemaElement& e = e_[i];
    LeafColumn leaf;
    for (size_t k = 0; k < path_.size(); ++k) {
      if (k > 0) leaf.path.push_back('.');
      leaf.path += path_[k];
    }
    leaf.type = *e.type;
    leaf.type_length = e.type_length.value_or(0);
    leaf.max_def = def;
    leaf.max_rep = rep;
    auto format = ResolveValueFormat(e);
    if (!format) return Fail(format.error().WithContext(fmt::format("column {}", leaf.path)));
    leaf.format = *format;
    const uint32_t node = NewNode(Kind::kLeaf, i, key);
    out_.plan.nodes[node].def = def;
    out_.plan.nodes[node].null_def = null_def;
    out_.leaves.push_back(std::move(leaf));
    Finish(node);
    return node;
  }

  Result<uint32_t> BuildStruct(uint32_t i, int16_t def, int16_t null_def, int16_t rep,
                               const std::string& key, size_t depth) {
    const uint32_t node = NewNode(Kind::kStruct, i, key);
    out_.plan.nodes[node].def = def;
    out_.plan.nodes[node].null_def = null_def;
    for (uint32_t c : children_[i]) {
      SLUICE_ASSIGN_OR_RETURN(uint32_t child, Build(c, def, rep, false, depth + 1));
      out_.plan.nodes[node].children.push_back(child);
    }
    Finish(node);
    return node;
  }

  // LIST: one child, repeated.
  bool ListShape(uint32_t i) const {
    return children_[i].size() == 1 && e_[children_[i][0]].repetition == Repetition::kRepeated;
  }

  // MAP: one repeated group child holding the key and, optionally, the value.
  bool MapShape(uint32_t i) const {
    if (children_[i].size() != 1) return false;
    const uint32_t kv = children_[i][0];
    return e_[kv].repetition == Repetition::kRepeated && IsGroup(e_[kv]) &&
           (children_[kv].size() == 1 || children_[kv].size() == 2);
  }

  Result<uint32_t> BuildList(uint32_t i, int16_t def, int16_t null_def, int16_t rep,
                             const std::string& key, size_t depth) {
    const uint32_t node = NewNode(Kind::kList, i, key);
    const auto list_rep = static_cast<int16_t>(rep + 1);
    const auto element_def = static_cast<int16_t>(def + 1);
    out_.plan.nodes[node].def = def;
    out_.plan.nodes[node].null_def = null_def;
    out_.plan.nodes[node].rep = list_rep;
    const uint32_t repeated = children_[i][0];
    const SchemaElement& r = e_[repeated];
    // LogicalTypes.md's backward-compatibility rules 1-4: the repeated field is the element.
    const bool repeated_is_element =
        !IsGroup(r) || children_[repeated].size() > 1 ||
        e_[children_[repeated][0]].repetition == Repetition::kRepeated || r.name == "array" ||
        r.name == e_[i].name + "_tuple";
    Result<uint32_t> element =
        repeated_is_element
            ? Build(repeated, element_def, list_rep, true, depth + 1)
            : BuildWithin(repeated, children_[repeated][0], element_def, list_rep, depth + 1);
    if (!element) return element;
    out_.plan.nodes[node].children.push_back(*element);
    Finish(node);
    return node;
  }

  // Build `child` of the repeated group `repeated`, which adds no node of its own.
  Result<uint32_t> BuildWithin(uint32_t repeated, uint32_t child, int16_t def, int16_t rep,
                               size_t depth) {
    path_.push_back(e_[repeated].name);
    auto node = Build(child, def, rep, false, depth);
    path_.pop_back();
    if (node) out_.plan.nodes[*node].key.clear();
    return node;
  }

  Result<uint32_t> BuildMap(uint32_t i, int16_t def, int16_t null_def, int16_t rep,
                            const std::string& key, size_t depth) {
    const uint32_t node = NewNode(Kind::kMap, i, key);
    const auto map_rep = static_cast<int16_t>(rep + 1);
    const auto entry_def = static_cast<int16_t>(def + 1);
    out_.plan.nodes[node].def = def;
    out_.plan.nodes[node].null_def = null_def;
    out_.plan.nodes[node].rep = map_rep;
    const uint32_t kv = children_[i][0];
    for (uint32_t c : children_[kv]) {
      SLUICE_ASSIGN_OR_RETURN(uint32_t part, BuildWithin(kv, c, entry_def, map_rep, depth + 1));
      out_.plan.nodes[node].children.push_back(part);
    }
    Finish(node);
    return node;
  }

  const std::vector<SchemaElement>& e_;
  size_t max_depth_;
  std::vector<std::vector<uint32_t>> children_;
  std::vector<std::string> path_;
  ReadSchema out_;
};

// Copies the selected part of a plan.
class Pruner {
 public:
  Pruner(const AssemblyPlan& full, const std::vector<bool>& selected)
      : full_(full), selected_(selected) {}

  AssemblyPlan Run() {
    Copy(0, false);
    return std::move(out_);
  }

 private:
  bool AnySelected(const AssemblyNode& n) const {
    for (uint32_t l = n.leaf_begin; l < n.leaf_end; ++l) {
      if (selected_[l]) return true;
    }
    return false;
  }

  uint32_t Copy(uint32_t i, bool all) {
    const AssemblyNode& src = full_.nodes[i];
    AssemblyNode n = src;
    n.children.clear();
    n.leaf_begin = static_cast<uint32_t>(out_.leaf_columns.size());
    out_.nodes.push_back(std::move(n));
    const auto node = static_cast<uint32_t>(out_.nodes.size() - 1);
    if (src.kind == Kind::kLeaf) {
      out_.leaf_columns.push_back(full_.leaf_columns[src.leaf_begin]);
    }
    for (uint32_t c : src.children) {
      const bool has = AnySelected(full_.nodes[c]);
      uint32_t copy;
      if (src.kind == Kind::kStruct) {
        if (!all && !has) continue;  // a field the projection left out
        copy = Copy(c, all);
      } else {
        // A list's element, a map's key and value: kept, whole when nothing below is selected.
        copy = Copy(c, all || !has);
      }
      out_.nodes[node].children.push_back(copy);
    }
    out_.nodes[node].leaf_end = static_cast<uint32_t>(out_.leaf_columns.size());
    return node;
  }

  const AssemblyPlan& full_;
  const std::vector<bool>& selected_;
  AssemblyPlan out_;
};

std::string ChildNames(const ReadSchema& s, const AssemblyNode& n) {
  std::string names;
  for (uint32_t c : n.children) {
    if (!names.empty()) names += ", ";
    names += schema::QuoteFieldName(s.names[c]);
  }
  return names;
}

Result<uint32_t> Resolve(const ReadSchema& s, const std::string& text) {
  SLUICE_ASSIGN_OR_RETURN(schema::FieldPath path, schema::FieldPath::Parse(text));
  if (path.empty()) return InvalidArgument("an empty column path");
  const auto& nodes = s.plan.nodes;
  uint32_t at = 0;
  for (const schema::PathSegment& seg : path.segments()) {
    using SK = schema::PathSegment::Kind;
    if (seg.kind == SK::kField) {
      while (nodes[at].kind == Kind::kList) at = nodes[at].children[0];
      const AssemblyNode& n = nodes[at];
      uint32_t found = 0;
      if (n.kind == Kind::kStruct) {
        for (uint32_t c : n.children) {
          if (s.names[c] == seg.name) found = c;
        }
      }
      if (found == 0) {
        return InvalidArgument(fmt::format(
            "no column '{}' in the file{}", text,
            n.kind == Kind::kStruct ? fmt::format(" (there: {})", ChildNames(s, n)) : ""));
      }
      at = found;
      continue;
    }
    const AssemblyNode& n = nodes[at];
    if (seg.kind == SK::kElement && n.kind == Kind::kList) {
      at = n.children[0];
    } else if (seg.kind == SK::kKey && n.kind == Kind::kMap) {
      at = n.children[0];
    } else if (seg.kind == SK::kValue && n.kind == Kind::kMap && n.children.size() > 1) {
      at = n.children[1];
    } else {
      return InvalidArgument(fmt::format("no column '{}' in the file", text));
    }
  }
  return at;
}

}  // namespace

Result<ReadSchema> BuildReadSchema(const std::vector<SchemaElement>& elements, size_t max_depth) {
  return Builder(elements, max_depth).Run();
}

Result<AssemblyPlan> ProjectPlan(const ReadSchema& schema, const Projection& projection) {
  if (projection.columns.empty()) return schema.plan;
  std::vector<bool> selected(schema.leaves.size(), false);
  for (const std::string& column : projection.columns) {
    SLUICE_ASSIGN_OR_RETURN(uint32_t node, Resolve(schema, column));
    const AssemblyNode& n = schema.plan.nodes[node];
    for (uint32_t l = n.leaf_begin; l < n.leaf_end; ++l) selected[l] = true;
  }
  return Pruner(schema.plan, selected).Run();
}

}  // namespace sluice::parquet
