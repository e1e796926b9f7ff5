#include "sluice/parquet/assembly_plan.h"

#include <fmt/format.h>

#include "sluice/schema/field_path.h"

namespace sluice::parquet {
namespace {

using Kind = AssemblyNode::Kind;

std::string JsonKey(std::string_view name) {
  std::string key;
  AppendJsonText(key, name);
  key.push_back(':');
  return key;
}

// Turns the schema mapping's node tree into an assembly plan: the same tree, depth first with
// each parent before its children, and the levels as assembly uses them.
class PlanBuilder {
 public:
  explicit PlanBuilder(const ParquetSchema& ps) : ps_(ps) {}

  Result<ReadSchema> Run(std::shared_ptr<const ParquetSchema> owner,
                         std::vector<schema::LossyNote> notes) {
    out_.parquet = std::move(owner);
    out_.notes = std::move(notes);
    for (const ColumnDescriptor& d : ps_.leaves()) {
      LeafColumn leaf;
      for (const std::string& p : d.path) {
        if (!leaf.path.empty()) leaf.path.push_back('.');
        leaf.path += p;
      }
      leaf.type = d.physical;
      leaf.type_length = d.type_length;
      leaf.max_def = d.max_def;
      leaf.max_rep = d.max_rep;
      auto format = ResolveValueFormat(ps_.elements()[static_cast<size_t>(d.element)]);
      if (!format) return Fail(format.error().WithContext(fmt::format("column {}", leaf.path)));
      leaf.format = *format;
      out_.leaves.push_back(std::move(leaf));
      out_.plan.leaf_columns.push_back(out_.leaves.size() - 1);
    }
    Add(ps_.root(), "");
    return std::move(out_);
  }

 private:
  uint32_t Add(const SchemaNode& src, const std::string& name) {
    AssemblyNode n;
    switch (src.kind) {
      case SchemaNode::Kind::kLeaf:
        n.kind = Kind::kLeaf;
        break;
      case SchemaNode::Kind::kStruct:
        n.kind = Kind::kStruct;
        break;
      case SchemaNode::Kind::kList:
        n.kind = Kind::kList;
        break;
      case SchemaNode::Kind::kMap:
        n.kind = Kind::kMap;
        break;
      case SchemaNode::Kind::kAbsent:
        n.kind = Kind::kAbsent;
        break;
    }
    if (!name.empty()) n.key = JsonKey(name);
    n.def = src.def_level;
    n.null_def = src.nullable ? static_cast<int16_t>(src.def_level - 1) : int16_t{-1};
    // A list's entries after the first repeat at one more than the list's own level.
    n.rep = static_cast<int16_t>(src.rep_level + 1);
    n.leaf_begin = static_cast<uint32_t>(src.first_leaf);
    n.leaf_end = static_cast<uint32_t>(src.first_leaf + src.num_leaves);
    out_.plan.nodes.push_back(std::move(n));
    out_.names.push_back(name);
    const auto index = static_cast<uint32_t>(out_.plan.nodes.size() - 1);
    const auto children = ps_.children(src);
    for (size_t k = 0; k < children.size(); ++k) {
      const std::string child_name =
          src.kind == SchemaNode::Kind::kStruct ? src.type->fields()[k].name() : std::string();
      const uint32_t child = Add(children[k], child_name);
      out_.plan.nodes[index].children.push_back(child);
    }
    return index;
  }

  const ParquetSchema& ps_;
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

Result<ReadSchema> BuildReadSchema(std::vector<SchemaElement> elements) {
  SLUICE_ASSIGN_OR_RETURN(auto converted, ParquetSchema::FromElements(std::move(elements)));
  auto ps = std::make_shared<const ParquetSchema>(std::move(converted.value));
  SLUICE_ASSIGN_OR_RETURN(ReadSchema schema, PlanBuilder(*ps).Run(ps, std::move(converted.notes)));
  SLUICE_TRY(ValidatePlan(schema.plan));
  return schema;
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
