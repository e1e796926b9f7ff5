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

// How many entries each of a layout's arrays holds, counted before anything is written, so that
// the layout is one allocation and nothing is built twice (a wide schema's intermediate arrays,
// grown and freed, made the allocator return and take back memory on every parse).
struct LayoutSizes {
  size_t nodes = 0;
  size_t fields = 0;
  size_t symbols = 0;
  size_t branches = 0;
  size_t slots = 0;
  size_t chars = 0;
  size_t names = 0;

  explicit LayoutSizes(std::span<const std::unique_ptr<AvroNode>> all) : nodes(all.size()) {
    for (const std::unique_ptr<AvroNode>& node : all) {
      if (node->is_named()) {
        chars += node->name().size() + node->full_name().size();
        names += 1 + node->aliases().size();
        for (const std::string& a : node->aliases()) chars += a.size();
      }
      for (const AvroField& f : node->fields()) {
        chars += f.name().size();
        names += f.aliases().size();
        for (const std::string& a : f.aliases()) chars += a.size();
      }
      fields += node->fields().size();
      if (node->fields().size() > AvroLayout::kFieldScanLimit) {
        slots += AvroLayout::IndexCapacity(static_cast<uint32_t>(node->fields().size()));
      }
      symbols += node->symbols().size();
      for (const std::string& s : node->symbols()) chars += s.size();
      branches += node->branches().size();
    }
  }
};

// Writes a layout into its allocation: the header, then the arrays in the order a check reads
// them, what is read less often last.
class LayoutWriter {
 public:
  LayoutWriter(std::span<const std::unique_ptr<AvroNode>> sources, const LayoutSizes& sizes)
      : sources_(sources), record_free_(sources.size()) {
    size_t at = sizeof(AvroLayout);
    auto reserve = [&at](size_t bytes, size_t align) {
      at = (at + align - 1) / align * align;
      size_t begin = at;
      at += bytes;
      return begin;
    };
    const size_t nodes = reserve(sizes.nodes * sizeof(LayoutNode), alignof(LayoutNode));
    const size_t fields = reserve(sizes.fields * sizeof(LayoutField), alignof(LayoutField));
    const size_t symbols = reserve(sizes.symbols * sizeof(LayoutName), alignof(LayoutName));
    const size_t branches = reserve(sizes.branches * sizeof(uint32_t), alignof(uint32_t));
    const size_t slots = reserve(sizes.slots * sizeof(uint32_t), alignof(uint32_t));
    const size_t chars = reserve(sizes.chars, 1);
    const size_t names = reserve(sizes.names * sizeof(LayoutName), alignof(LayoutName));
    const size_t node_names = reserve((sizes.nodes + 1) * sizeof(uint32_t), alignof(uint32_t));
    const size_t field_names = reserve((sizes.fields + 1) * sizeof(uint32_t), alignof(uint32_t));
    const size_t node_sources =
        reserve(sizes.nodes * sizeof(const AvroNode*), alignof(const AvroNode*));
    const size_t field_sources =
        reserve(sizes.fields * sizeof(const AvroField*), alignof(const AvroField*));
    static_assert(alignof(AvroLayout) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    block_ = static_cast<std::byte*>(::operator new(at));
    layout_ = new (block_) AvroLayout();
    nodes_ = Array<LayoutNode>(nodes, sizes.nodes);
    fields_ = Array<LayoutField>(fields, sizes.fields);
    symbols_ = Array<LayoutName>(symbols, sizes.symbols);
    branches_ = Array<uint32_t>(branches, sizes.branches);
    slots_ = Array<uint32_t>(slots, sizes.slots);
    chars_ = reinterpret_cast<char*>(block_ + chars);
    names_ = Array<LayoutName>(names, sizes.names);
    node_names_ = Array<uint32_t>(node_names, sizes.nodes + 1);
    field_names_ = Array<uint32_t>(field_names, sizes.fields + 1);
    node_sources_ = Array<const AvroNode*>(node_sources, sizes.nodes);
    field_sources_ = Array<const AvroField*>(field_sources, sizes.fields);
    layout_->nodes = {nodes_, sizes.nodes};
    layout_->fields = {fields_, sizes.fields};
    layout_->symbols = {symbols_, sizes.symbols};
    layout_->branches = {branches_, sizes.branches};
    layout_->field_slots = {slots_, sizes.slots};
    layout_->chars = {chars_, sizes.chars};
    layout_->names = {names_, sizes.names};
    layout_->node_names = {node_names_, sizes.nodes + 1};
    layout_->field_names = {field_names_, sizes.fields + 1};
    layout_->sources = {node_sources_, sizes.nodes};
    layout_->field_sources = {field_sources_, sizes.fields};
  }

  LayoutWriter(const LayoutWriter&) = delete;
  LayoutWriter& operator=(const LayoutWriter&) = delete;
  ~LayoutWriter() {
    if (layout_ != nullptr) LayoutDeleter()(layout_);
  }

  std::unique_ptr<AvroLayout, LayoutDeleter> Write(const AvroNode& root) {
    // Nodes arrive by id: the parser numbers them in order.
    for (size_t id = 0; id < sources_.size(); ++id) node_sources_[id] = sources_[id].get();
    for (const std::unique_ptr<AvroNode>& node : sources_) Pack(*node);
    for (size_t id = 0; id < sources_.size(); ++id) {
      const AvroNode& node = *sources_[id];
      node_names_[id] = static_cast<uint32_t>(names_used_);
      if (!node.is_named()) continue;
      names_[names_used_++] = Name(node.full_name());
      for (const std::string& alias : node.aliases()) names_[names_used_++] = Name(alias);
    }
    node_names_[sources_.size()] = static_cast<uint32_t>(names_used_);
    for (size_t i = 0; i < fields_used_; ++i) {
      field_names_[i] = static_cast<uint32_t>(names_used_);
      for (const std::string& alias : field_sources_[i]->aliases()) {
        names_[names_used_++] = Name(alias);
      }
    }
    field_names_[fields_used_] = static_cast<uint32_t>(names_used_);
    for (size_t id = 0; id < sources_.size(); ++id) {
      LayoutNode& n = nodes_[id];
      if (RecordFree(static_cast<uint32_t>(id))) n.flags |= LayoutNode::kRecordFree;
      if (n.type == AvroType::kRecord && FieldsRecordFree(n)) n.flags |= LayoutNode::kFlatRecord;
    }
    layout_->root = static_cast<uint32_t>(root.id());
    AvroLayout* done = layout_;
    layout_ = nullptr;
    return std::unique_ptr<AvroLayout, LayoutDeleter>(done);
  }

 private:
  template <class T>
  T* Array(size_t offset, size_t count) {
    T* first = reinterpret_cast<T*>(block_ + offset);
    std::uninitialized_value_construct_n(first, count);
    return first;
  }

  LayoutName Name(std::string_view text) {
    LayoutName n;
    n.hash = LayoutNameHash(text);
    n.offset = static_cast<uint32_t>(chars_used_);
    n.size = static_cast<uint32_t>(text.size());
    if (!text.empty()) std::memcpy(chars_ + chars_used_, text.data(), text.size());
    chars_used_ += text.size();
    return n;
  }

  void Pack(const AvroNode& node) {
    LayoutNode& n = nodes_[node.id()];
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
        n.first = static_cast<uint32_t>(branches_used_);
        n.count = static_cast<uint32_t>(node.branches().size());
        for (const AvroNode* b : node.branches()) {
          branches_[branches_used_++] = static_cast<uint32_t>(b->id());
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
    n.first = static_cast<uint32_t>(symbols_used_);
    n.count = static_cast<uint32_t>(node.symbols().size());
    for (const std::string& symbol : node.symbols()) symbols_[symbols_used_++] = Name(symbol);
    const std::optional<std::string>& fallback = node.enum_default();
    if (fallback.has_value() && std::find(node.symbols().begin(), node.symbols().end(),
                                          *fallback) != node.symbols().end()) {
      n.flags |= LayoutNode::kEnumDefault;
    }
  }

  void PackFields(const AvroNode& node, LayoutNode& n) {
    n.first = static_cast<uint32_t>(fields_used_);
    n.count = static_cast<uint32_t>(node.fields().size());
    for (const AvroField& f : node.fields()) {
      LayoutField lf;
      lf.type = static_cast<uint32_t>(f.type().id());
      if (f.default_value().has_value()) lf.flags |= LayoutField::kHasDefault;
      if (!f.aliases().empty()) lf.flags |= LayoutField::kHasAliases;
      if (f.type().type() == AvroType::kEnum && f.type().enum_default().has_value()) {
        lf.flags |= LayoutField::kEnumWithDefault;
      }
      lf.name = Name(f.name());
      field_sources_[fields_used_] = &f;
      fields_[fields_used_++] = lf;
    }
    if (n.count <= AvroLayout::kFieldScanLimit) return;
    n.index = static_cast<uint32_t>(slots_used_);
    uint32_t cap = AvroLayout::IndexCapacity(n.count);
    uint32_t* slots = slots_ + slots_used_;
    slots_used_ += cap;
    for (uint32_t i = 0; i < n.count; ++i) {
      for (uint64_t s = fields_[n.first + i].name.hash & (cap - 1);; s = (s + 1) & (cap - 1)) {
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
    const LayoutNode& n = nodes_[id];
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
        for (uint32_t i = 0; i < n.count && free; ++i) free = RecordFree(branches_[n.first + i]);
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
      if (!RecordFree(fields_[record.first + i].type)) return false;
    }
    return true;
  }

  std::span<const std::unique_ptr<AvroNode>> sources_;
  std::vector<uint8_t> record_free_;  // 0 unknown, 1 free, 2 not
  std::byte* block_ = nullptr;
  AvroLayout* layout_ = nullptr;  // owned until Write hands it over
  LayoutNode* nodes_ = nullptr;
  LayoutField* fields_ = nullptr;
  LayoutName* symbols_ = nullptr;
  uint32_t* branches_ = nullptr;
  uint32_t* slots_ = nullptr;
  char* chars_ = nullptr;
  LayoutName* names_ = nullptr;
  uint32_t* node_names_ = nullptr;
  uint32_t* field_names_ = nullptr;
  const AvroNode** node_sources_ = nullptr;
  const AvroField** field_sources_ = nullptr;
  size_t fields_used_ = 0;
  size_t symbols_used_ = 0;
  size_t branches_used_ = 0;
  size_t slots_used_ = 0;
  size_t chars_used_ = 0;
  size_t names_used_ = 0;
};

}  // namespace

Result<std::unique_ptr<AvroLayout, LayoutDeleter>> BuildLayout(
    std::span<const std::unique_ptr<AvroNode>> nodes, const AvroNode& root) {
  LayoutSizes sizes(nodes);
  if (sizes.chars >= std::numeric_limits<uint32_t>::max() ||
      sizes.nodes >= std::numeric_limits<uint32_t>::max() ||
      sizes.fields >= std::numeric_limits<uint32_t>::max()) {
    return InvalidArgument("the schema's names add up to 4 GiB or more");
  }
  return LayoutWriter(nodes, sizes).Write(root);
}

const AvroLayout* LayoutSlot::Build() {
  std::lock_guard<std::mutex> lock(mutex);
  if (!tried) {
    tried = true;
    auto built = BuildLayout(nodes, *root);
    if (built.has_value()) {
      layout = std::move(built).value();
      ready.store(layout.get(), std::memory_order_release);
    }
  }
  return layout.get();
}

void LayoutSlotDeleter::operator()(LayoutSlot* slot) const { delete slot; }

void LayoutDeleter::operator()(AvroLayout* layout) const {
  layout->~AvroLayout();
  ::operator delete(static_cast<void*>(layout));
}

}  // namespace sluice::dialects::avro::internal
