// The set of row indexes a deletion vector removes from a data file. Row indexes are 64-bit and
// held as Roaring bitmaps hold them: in chunks of 2^16 values, each an array of values, a bitmap
// or a list of runs, whichever is smallest, so a set costs about what its serialized form does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

namespace sluice::table {

namespace internal {
struct RowIndexSetAccess;
}  // namespace internal

/// An immutable set of row indexes (0-based positions of rows in a data file). A value type;
/// safe to read from several threads.
class RowIndexSet {
 public:
  class Iterator;

  /// The empty set.
  RowIndexSet() = default;

  /// The set of `values`, given in any order, duplicates allowed.
  static RowIndexSet Of(std::vector<uint64_t> values);
  /// The union of half-open ranges [first, second); empty ranges are ignored.
  static RowIndexSet OfRanges(std::vector<std::pair<uint64_t, uint64_t>> ranges);

  bool Contains(uint64_t row) const;
  uint64_t Cardinality() const { return cardinality_; }
  bool empty() const { return cardinality_ == 0; }
  /// The largest row index in the set; the set must not be empty.
  uint64_t Max() const;

  /// The row indexes in ascending order.
  Iterator begin() const;
  Iterator end() const;
  std::vector<uint64_t> ToVector() const;

  /// Same row indexes, however each set holds them.
  bool operator==(const RowIndexSet& other) const;

 private:
  friend struct internal::RowIndexSetAccess;

  enum class ChunkKind : uint8_t { kArray, kBitmap, kRun };
  /// The values whose bits above the low 16 are `key`: never empty.
  struct Chunk {
    uint64_t key = 0;
    ChunkKind kind = ChunkKind::kArray;
    uint32_t cardinality = 0;  // 1..65536
    /// kArray: the low 16 bits of each value, ascending. kRun: (start, length - 1) pairs,
    /// ascending and apart.
    std::vector<uint16_t> data;
    /// kBitmap: 1024 words; bit b of word w is the value w * 64 + b.
    std::vector<uint64_t> bits;
  };

  std::vector<Chunk> chunks_;  // ascending keys
  uint64_t cardinality_ = 0;
};

/// Walks a RowIndexSet in ascending order. Valid while the set lives and is not assigned to.
class RowIndexSet::Iterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = uint64_t;
  using difference_type = std::ptrdiff_t;
  using pointer = const uint64_t*;
  using reference = uint64_t;

  Iterator() = default;
  uint64_t operator*() const { return value_; }
  Iterator& operator++();
  Iterator operator++(int) {
    Iterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const Iterator& other) const {
    return chunk_ == other.chunk_ && pos_ == other.pos_ && run_ == other.run_;
  }

 private:
  friend class RowIndexSet;
  Iterator(const std::vector<Chunk>* chunks, size_t chunk);
  // Point at the first value of chunk_ at or after pos_ (and run_), or move to the next chunk.
  void Settle();
  void NextChunk();

  const std::vector<Chunk>* chunks_ = nullptr;
  size_t chunk_ = 0;  // chunks_->size() at the end
  uint32_t pos_ = 0;  // kArray: index into data; kBitmap and kRun: the value's low 16 bits
  uint32_t run_ = 0;  // kRun: the run pos_ lies in
  uint64_t value_ = 0;
};

}  // namespace sluice::table
