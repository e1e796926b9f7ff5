// What the Roaring codec needs of RowIndexSet's chunks: only for the table module.
#pragma once

#include <cstdint>
#include <vector>

#include "sluice/table/row_index_set.h"

namespace sluice::table::internal {

struct RowIndexSetAccess {
  using Chunk = RowIndexSet::Chunk;
  using ChunkKind = RowIndexSet::ChunkKind;

  static const std::vector<Chunk>& Chunks(const RowIndexSet& set) { return set.chunks_; }
  /// A set of `chunks` the caller has checked: keys ascending, each chunk non-empty and true to
  /// its kind and cardinality.
  static RowIndexSet FromChunks(std::vector<Chunk> chunks);
};

}  // namespace sluice::table::internal
