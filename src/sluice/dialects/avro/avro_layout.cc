#include "sluice/dialects/avro/avro_layout.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <type_traits>

namespace sluice::dialects::avro::internal {

uint64_t LayoutNameHash(std::string_view name) { return std::hash<std::string_view>{}(name); }

int64_t AvroLayout::FindField(const LayoutNode& node, std::string_view name, uint64_t hash) const {
  if (node.count <= kFieldScanLimit) {
    for (uint32_t i = 0; i < node.count; ++i) {
      if (IsName(fields[node.first + i].name, name, hash)) return i;
    }
    return -1;
  }
  const uint32_t* slots = field_slots.data() + node.index;
  uint32_t mask = IndexCapacity(node.count) - 1;
  for (uint64_t s = hash & mask;; s = (s + 1) & mask) {
    uint32_t v = slots[s];
    if (v == 0) return -1;
    if (IsName(fields[node.first + v - 1].name, name, hash)) return v - 1;
  }
}

namespace {

class LayoutBuilder {
 public:
  LayoutBuilder(const std::vector<const AvroNode*>& nodes, const AvroNode& root, size_t chars)
      : sources_(nodes), root_(root), record_free_(nodes.size()) {
    out_.nodes.resize(nodes.size());
    out_.chars.reserve(chars);
  }

  std::unique_ptr<AvroLayout, LayoutDeleter> Build() {
    for (const AvroNode* node : sources_) Pack(*node);
    // The names read less often, after the ones every check reads.
    for (const AvroNode* node : sources_) {
      out_.node_names.push_back(static_cast<uint32_t>(out_.names.size()));
      if (!node->is_named()) continue;
      out_.names.push_back(Name(node->full_name()));
      for (const std::string& alias : node->aliases()) out_.names.push_back(Name(alias));
    }
    out_.node_names.push_back(static_cast<uint32_t>(out_.names.size()));
    for (const AvroField* field : out_.field_sources) {
      out_.field_names.push_back(static_cast<uint32_t>(out_.names.size()));
      for (const std::string& alias : field->aliases()) out_.names.push_back(Name(alias));
    }
    out_.field_names.push_back(static_cast<uint32_t>(out_.names.size()));
    for (size_t id = 0; id < sources_.size(); ++id) {
      LayoutNode& n = out_.nodes[id];
      if (RecordFree(static_cast<uint32_t>(id))) n.flags |= LayoutNode::kRecordFree;
      if (n.type == AvroType::kRecord && FieldsRecordFree(n)) n.flags |= LayoutNode::kFlatRecord;
    }
    return Place();
  }

 private:
  LayoutName Name(std::string_view text) {
    LayoutName n;
    n.hash = LayoutNameHash(text);
    n.offset = static_cast<uint32_t>(out_.chars.size());
    n.size = static_cast<uint32_t>(text.size());
    out_.chars.append(text);
    return n;
  }

  void Pack(const AvroNode& node) {
    LayoutNode& n = out_.nodes[node.id()];
    n.type = node.type();
    if (node.is_named()) {
      n.name = Name(node.name());
      if (!node.aliases().empty()) n.flags |= LayoutNode::kHasAliases;
    }
    switch (node.type()) {
      case AvroType::kRecord:
        PackFields(node, n);
        break;
      case AvroType::kUnion:
        n.first = static_cast<uint32_t>(out_.branches.size());
        n.count = static_cast<uint32_t>(node.branches().size());
        for (const AvroNode* b : node.branches()) {
          out_.branches.push_back(static_cast<uint32_t>(b->id()));
        }
        break;
      case AvroType::kArray:
        n.first = static_cast<uint32_t>(node.items().id());
        break;
      case AvroType::kEnum:
        PackSymbols(node, n);
        break;
      case AvroType::kMap:
        n.first = static_cast<uint32_t>(node.values().id());
        break;
      case AvroType::kNull:
      case AvroType::kBoolean:
      case AvroType::kInt:
      case AvroType::kLong:
      case AvroType::kFloat:
      case AvroType::kDouble:
      case AvroType::kBytes:
      case AvroType::kString:
      case AvroType::kFixed:
        break;
    }
  }

  void PackSymbols(const AvroNode& node, LayoutNode& n) {
    n.first = static_cast<uint32_t>(out_.symbols.size());
    n.count = static_cast<uint32_t>(node.symbols().size());
    for (const std::string& symbol : node.symbols()) out_.symbols.push_back(Name(symbol));
    const std::optional<std::string>& fallback = node.enum_default();
    if (fallback.has_value() && std::find(node.symbols().begin(), node.symbols().end(),
                                          *fallback) != node.symbols().end()) {
      n.flags |= LayoutNode::kEnumDefault;
    }
  }

  void PackFields(const AvroNode& node, LayoutNode& n) {
    n.first = static_cast<uint32_t>(out_.fields.size());
    n.count = static_cast<uint32_t>(node.fields().size());
    for (const AvroField& f : node.fields()) {
      LayoutField lf;
      lf.type = static_cast<uint32_t>(f.type().id());
      if (f.default_value().has_value()) lf.flags |= LayoutField::kHasDefault;
      if (!f.aliases().empty()) lf.flags |= LayoutField::kHasAliases;
      if (f.type().type() == AvroType::kEnum && f.type().enum_default().has_value()) {
        lf.flags |= LayoutField::kEnumWithDefault;
      }
      out_.field_sources.push_back(&f);
      lf.name = Name(f.name());
      out_.fields.push_back(lf);
    }
    if (n.count <= AvroLayout::kFieldScanLimit) return;
    n.index = static_cast<uint32_t>(out_.field_slots.size());
    uint32_t cap = AvroLayout::IndexCapacity(n.count);
    out_.field_slots.resize(out_.field_slots.size() + cap, 0);
    uint32_t* slots = out_.field_slots.data() + n.index;
    for (uint32_t i = 0; i < n.count; ++i) {
      for (uint64_t s = out_.fields[n.first + i].name.hash & (cap - 1);; s = (s + 1) & (cap - 1)) {
        if (slots[s] == 0) {
          slots[s] = i + 1;
          break;
        }
      }
    }
  }

  // Records end the descent, so a cycle (which runs through a record) is never followed, and
  // the depth is that of the schema's nesting, which the parser bounds.
  bool RecordFree(uint32_t id) {
    uint8_t& known = record_free_[id];
    if (known != 0) return known == 1;
    const LayoutNode& n = out_.nodes[id];
    bool free = true;
    switch (n.type) {
      case AvroType::kRecord:
        free = false;
        break;
      case AvroType::kArray:
      case AvroType::kMap:
        free = RecordFree(n.first);
        break;
      case AvroType::kUnion:
        for (uint32_t i = 0; i < n.count && free; ++i)
          free = RecordFree(out_.branches[n.first + i]);
        break;
      case AvroType::kNull:
      case AvroType::kBoolean:
      case AvroType::kInt:
      case AvroType::kLong:
      case AvroType::kFloat:
      case AvroType::kDouble:
      case AvroType::kBytes:
      case AvroType::kString:
      case AvroType::kEnum:
      case AvroType::kFixed:
        break;
    }
    record_free_[id] = free ? 1 : 2;
    return free;
  }

  bool FieldsRecordFree(const LayoutNode& record) {
    for (uint32_t i = 0; i < record.count; ++i) {
      if (!RecordFree(out_.fields[record.first + i].type)) return false;
    }
    return true;
  }

  // The header and the arrays in one allocation, in the order a check reads them.
  std::unique_ptr<AvroLayout, LayoutDeleter> Place() const {
    size_t at = sizeof(AvroLayout);
    auto reserve = [&at](size_t bytes, size_t align) {
      at = (at + align - 1) / align * align;
      size_t begin = at;
      at += bytes;
      return begin;
    };
    const size_t nodes = reserve(out_.nodes.size() * sizeof(LayoutNode), alignof(LayoutNode));
    const size_t fields = reserve(out_.fields.size() * sizeof(LayoutField), alignof(LayoutField));
    const size_t symbols = reserve(out_.symbols.size() * sizeof(LayoutName), alignof(LayoutName));
    const size_t branches = reserve(out_.branches.size() * sizeof(uint32_t), alignof(uint32_t));
    const size_t slots = reserve(out_.field_slots.size() * sizeof(uint32_t), alignof(uint32_t));
    const size_t chars = reserve(out_.chars.size(), 1);
    // What is read less often comes last.
    const size_t names = reserve(out_.names.size() * sizeof(LayoutName), alignof(LayoutName));
    const size_t node_names = reserve(out_.node_names.size() * sizeof(uint32_t), alignof(uint32_t));
    const size_t field_names =
        reserve(out_.field_names.size() * sizeof(uint32_t), alignof(uint32_t));
    const size_t sources =
        reserve(sources_.size() * sizeof(const AvroNode*), alignof(const AvroNode*));
    const size_t field_sources =
        reserve(out_.field_sources.size() * sizeof(const AvroField*), alignof(const AvroField*));
    static_assert(alignof(AvroLayout) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    auto* block = static_cast<std::byte*>(::operator new(at));
    auto* layout = new (block) AvroLayout();
    auto copy = [block](size_t offset, const auto& from) {
      using T = typename std::decay_t<decltype(from)>::value_type;
      T* to = reinterpret_cast<T*>(block + offset);
      if (!from.empty()) std::memcpy(static_cast<void*>(to), from.data(), from.size() * sizeof(T));
      return std::span<const T>(to, from.size());
    };
    layout->nodes = copy(nodes, out_.nodes);
    layout->fields = copy(fields, out_.fields);
    layout->symbols = copy(symbols, out_.symbols);
    layout->names = copy(names, out_.names);
    layout->branches = copy(branches, out_.branches);
    layout->node_names = copy(node_names, out_.node_names);
    layout->field_names = copy(field_names, out_.field_names);
    layout->field_slots = copy(slots, out_.field_slots);
    std::span<const char> text = copy(chars, out_.chars);
    layout->chars = std::string_view(text.data(), text.size());
    layout->sources = copy(sources, sources_);
    layout->field_sources = copy(field_sources, out_.field_sources);
    layout->root = static_cast<uint32_t>(root_.id());
    return std::unique_ptr<AvroLayout, LayoutDeleter>(layout);
  }

  // The arrays as they grow; Place packs them.
  struct Parts {
    std::vector<LayoutNode> nodes;
    std::vector<LayoutField> fields;
    std::vector<uint32_t> branches;
    std::vector<LayoutName> symbols;
    std::vector<LayoutName> names;
    std::vector<uint32_t> node_names;
    std::vector<uint32_t> field_names;
    std::vector<uint32_t> field_slots;
    std::string chars;
    std::vector<const AvroField*> field_sources;
  };

  const std::vector<const AvroNode*>& sources_;
  const AvroNode& root_;
  Parts out_;
  std::vector<uint8_t> record_free_;  // 0 unknown, 1 free, 2 not
};

}  // namespace

Result<std::unique_ptr<AvroLayout, LayoutDeleter>> BuildLayout(
    const std::vector<const AvroNode*>& nodes, const AvroNode& root) {
  size_t chars = 0;
  for (const AvroNode* node : nodes) {
    if (node->is_named()) chars += node->name().size() + node->full_name().size();
    for (const std::string& s : node->aliases()) chars += s.size();
    for (const AvroField& f : node->fields()) {
      chars += f.name().size();
      for (const std::string& s : f.aliases()) chars += s.size();
    }
    for (const std::string& s : node->symbols()) chars += s.size();
  }
  if (chars >= std::numeric_limits<uint32_t>::max() ||
      nodes.size() >= std::numeric_limits<uint32_t>::max()) {
    return InvalidArgument("the schema's names add up to 4 GiB or more");
  }
  return LayoutBuilder(nodes, root, chars).Build();
}

void LayoutDeleter::operator()(AvroLayout* layout) const {
  layout->~AvroLayout();
  ::operator delete(static_cast<void*>(layout));
}

}  // namespace sluice::dialects::avro::internal
