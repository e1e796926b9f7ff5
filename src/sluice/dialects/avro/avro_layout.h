// A parsed Avro schema's types packed for walks that compare two schemas (the compatibility
// check): every node of a schema in one array indexed by the node's id, every record field in
// another, union branches in a third and every name in one block of characters. A check that
// follows these touches a few contiguous cache lines per schema instead of one scattered object,
// vector and string per node and field. Names carry a hash, so names that differ are told apart
// by one comparison. Built once per schema, by its first check (LayoutSlot); not for other modules.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace sluice::dialects::avro::internal {

/// A name in AvroLayout::chars, with its hash (LayoutNameHash).
struct LayoutName {
  uint64_t hash = 0;
  uint32_t offset = 0;
  uint32_t size = 0;
};

/// The hash every LayoutName carries.
uint64_t LayoutNameHash(std::string_view name);

struct LayoutNode {
  enum Flag : uint8_t {
    kHasAliases = 1,   // a named type with aliases
    kRecordFree = 2,   // no record anywhere in this type, itself included
    kFlatRecord = 4,   // a record none of whose fields holds a record
    kEnumDefault = 8,  // an enum whose default is one of its symbols
  };
  AvroType type = AvroType::kNull;
  uint8_t flags = 0;
  /// Record: its fields are fields[first, first + count). Union: its branches are
  /// branches[first, first + count). Enum: its symbols are symbols[first, first + count).
  /// Array and map: `first` is the child's node id.
  uint32_t first = 0;
  uint32_t count = 0;
  /// Record of more than kFieldScanLimit fields: its name index starts at field_slots[index].
  uint32_t index = 0;
  /// Named types: the unqualified name.
  LayoutName name;

  bool is_primitive() const { return type <= AvroType::kString; }
  bool is_named() const {
    return type == AvroType::kRecord || type == AvroType::kEnum || type == AvroType::kFixed;
  }
  bool is_union() const { return type == AvroType::kUnion; }
  bool has(Flag f) const { return (flags & f) != 0; }
};

struct LayoutField {
  enum Flag : uint8_t {
    kHasDefault = 1,
    kHasAliases = 2,
    kEnumWithDefault = 4,  // the type is an enum with a default
  };
  uint32_t type = 0;  // node id
  uint8_t flags = 0;
  LayoutName name;

  bool has(Flag f) const { return (flags & f) != 0; }
};

/// One schema's packed types. The header and every array are one allocation, so a check that
/// reads a schema it has not seen lately pulls in neighbouring cache lines.
struct AvroLayout {
  /// Records with more fields than this get a name index; smaller ones are scanned.
  static constexpr uint32_t kFieldScanLimit = 8;

  std::span<const LayoutNode> nodes;  // by node id
  std::span<const LayoutField> fields;
  std::span<const uint32_t> branches;  // node ids
  std::span<const LayoutName> symbols;
  /// Names read less often: a named node's full name and then its aliases are
  /// names[node_names[id], node_names[id + 1]); field i's aliases are
  /// names[field_names[i], field_names[i + 1]). Both offset arrays have one entry more than
  /// their nodes or fields.
  std::span<const LayoutName> names;
  std::span<const uint32_t> node_names;
  std::span<const uint32_t> field_names;
  /// Open-addressing tables of field positions + 1 (0: empty), one per indexed record, each of
  /// IndexCapacity(count) slots, probed from hash & (capacity - 1).
  std::span<const uint32_t> field_slots;
  std::string_view chars;
  /// The nodes themselves, by id, and the fields, for what is read rarely (aliases, messages).
  std::span<const AvroNode* const> sources;
  std::span<const AvroField* const> field_sources;
  /// The root's node id.
  uint32_t root = 0;

  static uint32_t IndexCapacity(uint32_t fields) {
    uint32_t cap = 16;
    while (cap < fields * 2) cap *= 2;
    return cap;
  }

  std::string_view Text(const LayoutName& n) const { return {chars.data() + n.offset, n.size}; }
  /// Whether name `a` of this layout is name `b` of `other`.
  bool SameName(const LayoutName& a, const AvroLayout& other, const LayoutName& b) const {
    return a.hash == b.hash && a.size == b.size &&
           SameBytes(chars.data() + a.offset, other.chars.data() + b.offset, a.size);
  }
  /// Whether name `a` is `text`, which hashes to `hash`.
  bool IsName(const LayoutName& a, std::string_view text, uint64_t hash) const {
    return a.hash == hash && a.size == text.size() &&
           SameBytes(chars.data() + a.offset, text.data(), a.size);
  }
  /// A named node's full name.
  const LayoutName& FullName(uint32_t id) const { return names[node_names[id]]; }
  /// A named node's aliases (full names).
  std::span<const LayoutName> NodeAliases(uint32_t id) const {
    return names.subspan(node_names[id] + 1, node_names[id + 1] - node_names[id] - 1);
  }
  /// Field `i`'s aliases.
  std::span<const LayoutName> FieldAliases(uint32_t i) const {
    return names.subspan(field_names[i], field_names[i + 1] - field_names[i]);
  }

  /// The position of the field of record `node` named `name` (hashed `hash`), or -1.
  int64_t FindField(const LayoutNode& node, std::string_view name, uint64_t hash) const;
};

struct LayoutDeleter {
  void operator()(AvroLayout* layout) const;
};

/// Pack `nodes` (a schema's nodes, by id). Pointers into the nodes are kept: the layout lives as
/// long as they do. Fails on a schema whose names add up to 4 GiB or more.
Result<std::unique_ptr<AvroLayout, LayoutDeleter>> BuildLayout(
    std::span<const std::unique_ptr<AvroNode>> nodes, const AvroNode& root);

/// Where a schema keeps its layout: built by the first Get, from whichever thread asks first;
/// later calls cost one atomic load. The schema's nodes do not move once parsed (they are owned
/// one by one), so the slot keeps a view of them.
struct LayoutSlot {
  LayoutSlot(std::span<const std::unique_ptr<AvroNode>> schema_nodes, const AvroNode& schema_root)
      : nodes(schema_nodes), root(&schema_root) {}

  const AvroLayout* Get() {
    const AvroLayout* built = ready.load(std::memory_order_acquire);
    return built != nullptr ? built : Build();
  }

 private:
  const AvroLayout* Build();

  std::span<const std::unique_ptr<AvroNode>> nodes;
  const AvroNode* root;
  std::atomic<const AvroLayout*> ready{nullptr};
  std::mutex mutex;
  bool tried = false;
  std::unique_ptr<AvroLayout, LayoutDeleter> layout;
};

}  // namespace sluice::dialects::avro::internal
