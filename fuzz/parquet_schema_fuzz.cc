// Fuzz the Parquet schema text form and the element tree reader behind it: text that parses
// prints to a text that is its own fixed point; elements that read as a model give a node tree
// whose ranges and levels agree with the leaves; and a model that writes without notes reads
// back as itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/parquet/schema_map.h"
#include "sluice/parquet/schema_text.h"

namespace {

void CheckNodes(const sluice::parquet::ParquetSchema& ps) {
  const auto& nodes = ps.nodes();
  const auto& leaves = ps.leaves();
  for (const auto& n : nodes) {
    if (n.first_child < 0 || n.num_children < 0 ||
        static_cast<size_t>(n.first_child) + static_cast<size_t>(n.num_children) > nodes.size()) {
      std::abort();
    }
    if (n.first_leaf < 0 || n.num_leaves < 0 ||
        static_cast<size_t>(n.first_leaf) + static_cast<size_t>(n.num_leaves) > leaves.size()) {
      std::abort();
    }
    if (n.type == nullptr) std::abort();
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    const auto& node = nodes.at(static_cast<size_t>(leaves[i].node));
    if (node.leaf != static_cast<int32_t>(i) || node.def_level != leaves[i].max_def ||
        node.rep_level != leaves[i].max_rep || !node.type->Equals(*leaves[i].type)) {
      std::abort();
    }
  }
  if (ps.root().num_leaves != static_cast<int32_t>(leaves.size())) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using sluice::parquet::MessageTypeText;
  using sluice::parquet::ParquetSchema;
  using sluice::parquet::ParseMessageType;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto elements = ParseMessageType(text);
  if (!elements.has_value()) return 0;
  const std::string printed = MessageTypeText(*elements);
  auto again = ParseMessageType(printed);
  if (!again.has_value() || MessageTypeText(*again) != printed) std::abort();

  auto read = ParquetSchema::FromElements(*elements);
  if (!read.has_value()) return 0;
  CheckNodes(read->value);
  auto written = ParquetSchema::FromModel(read->value.model());
  if (!written.has_value()) return 0;
  CheckNodes(written->value);
  if (!written->notes.empty()) return 0;
  auto back = ParquetSchema::FromElements(written->value.elements());
  if (!back.has_value() || !back->value.model()->Equals(*read->value.model())) std::abort();
  return 0;
}
