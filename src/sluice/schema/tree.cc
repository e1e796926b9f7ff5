#include "sluice/schema/tree.h"

#include "sluice/base/strings.h"

namespace sluice::schema {

namespace {

// A child line in the tree: a label and, for nested types, the type to expand below it.
struct Node {
  std::string label;
  const Type* expand = nullptr;
};

// Short form for a type whose parts are shown as children; full form when it has none.
std::string Summary(const Type& t) {
  if (t.is_struct()) return "struct";
  if (t.is_array()) return t.element_type()->is_nested() ? "array" : t.ToString();
  if (t.is_map()) {
    return (t.key_type()->is_nested() || t.value_type()->is_nested()) ? "map" : t.ToString();
  }
  return t.ToString();
}

std::vector<Node> Children(const Type& t, const TreeOptions& opt) {
  std::vector<Node> out;
  if (t.is_struct()) {
    for (const Field& f : t.fields()) {
      std::string label = QuoteFieldName(f.name()) + ": " + Summary(*f.type());
      if (!f.nullable()) label += " not null";
      if (opt.show_docs && f.doc().has_value()) {
        label += "  -- " + EscapeForMessage(*f.doc(), 120);
      }
      out.push_back(Node{std::move(label), f.type()->is_nested() ? f.type().get() : nullptr});
    }
  } else if (t.is_array()) {
    if (t.element_type()->is_nested()) {
      std::string label = "[]: " + Summary(*t.element_type());
      if (!t.contains_null()) label += " not null";
      out.push_back(Node{std::move(label), t.element_type().get()});
    }
  } else if (t.is_map()) {
    if (t.key_type()->is_nested() || t.value_type()->is_nested()) {
      out.push_back(Node{"{key}: " + Summary(*t.key_type()),
                         t.key_type()->is_nested() ? t.key_type().get() : nullptr});
      std::string label = "{value}: " + Summary(*t.value_type());
      if (!t.value_contains_null()) label += " not null";
      out.push_back(
          Node{std::move(label), t.value_type()->is_nested() ? t.value_type().get() : nullptr});
    }
  }
  return out;
}

void Render(const Type& t, const std::string& prefix, const TreeOptions& opt, std::string& out) {
  std::vector<Node> kids = Children(t, opt);
  const char* tee = opt.unicode ? "├── " : "|-- ";
  const char* elbow = opt.unicode ? "└── " : "`-- ";
  const char* bar = opt.unicode ? "│   " : "|   ";
  for (size_t i = 0; i < kids.size(); ++i) {
    bool last = i + 1 == kids.size();
    out += prefix;
    out += last ? elbow : tee;
    out += kids[i].label;
    out += '\n';
    if (kids[i].expand != nullptr) {
      Render(*kids[i].expand, prefix + (last ? "    " : bar), opt, out);
    }
  }
}

}  // namespace

std::string RenderTree(const Schema& schema, const TreeOptions& options) {
  std::string out = schema.info().name.empty() ? "root" : schema.info().name;
  out += '\n';
  Render(*schema.struct_type(), "", options, out);
  return out;
}

}  // namespace sluice::schema
