#include "sluice/table/row_index_set.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <optional>

#include "sluice/table/row_index_set_internal.h"

namespace sluice::table {
namespace {

using internal::RowIndexSetAccess;
using Chunk = RowIndexSetAccess::Chunk;
using ChunkKind = RowIndexSetAccess::ChunkKind;

constexpr uint32_t kChunkValues = 1u << 16;
constexpr uint32_t kMaxArrayValues = 4096;  // Roaring's array/bitmap threshold
constexpr size_t kBitmapWords = kChunkValues / 64;

// Collects the runs of one chunk from ascending input, then picks the smallest of Roaring's
// three container forms for them (as runOptimize does).
class ChunkBuilder {
 public:
  explicit ChunkBuilder(uint64_t key) : key_(key) {}
  uint64_t key() const { return key_; }

  // Add [first, last] (low 16 bits); `first` is past every value added before.
  void Add(uint32_t first, uint32_t last) {
    if (!runs_.empty() && runs_.back().second + 1 == first) {
      runs_.back().second = last;
    } else {
      runs_.emplace_back(first, last);
    }
    cardinality_ += last - first + 1;
  }

  Chunk Finish() const {
    Chunk c;
    c.key = key_;
    c.cardinality = cardinality_;
    const size_t run_bytes = 2 + 4 * runs_.size();
    const size_t plain_bytes = cardinality_ <= kMaxArrayValues ? 2 * size_t{cardinality_} : 8192;
    if (run_bytes < plain_bytes) {
      c.kind = ChunkKind::kRun;
      c.data.reserve(2 * runs_.size());
      for (const auto& [first, last] : runs_) {
        c.data.push_back(static_cast<uint16_t>(first));
        c.data.push_back(static_cast<uint16_t>(last - first));
      }
    } else if (cardinality_ <= kMaxArrayValues) {
      c.kind = ChunkKind::kArray;
      c.data.reserve(cardinality_);
      for (const auto& [first, last] : runs_) {
        for (uint32_t v = first; v <= last; ++v) c.data.push_back(static_cast<uint16_t>(v));
      }
    } else {
      c.kind = ChunkKind::kBitmap;
      c.bits.assign(kBitmapWords, 0);
      for (const auto& [first, last] : runs_) {
        for (uint32_t v = first; v <= last; ++v) c.bits[v / 64] |= uint64_t{1} << (v % 64);
      }
    }
    return c;
  }

 private:
  uint64_t key_;
  uint32_t cardinality_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> runs_;
};

// Builds a set from ascending, disjoint, non-adjacent inclusive ranges.
RowIndexSet FromSortedRanges(const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
  std::vector<Chunk> chunks;
  std::optional<ChunkBuilder> current;
  for (auto [first, last] : ranges) {
    while (true) {
      const uint64_t key = first >> 16;
      if (!current || current->key() != key) {
        if (current) chunks.push_back(current->Finish());
        current.emplace(key);
      }
      const uint64_t chunk_last = first | 0xFFFF;
      const uint64_t piece_last = std::min(last, chunk_last);
      current->Add(static_cast<uint32_t>(first & 0xFFFF),
                   static_cast<uint32_t>(piece_last & 0xFFFF));
      if (piece_last == last) break;
      first = piece_last + 1;
    }
  }
  if (current) chunks.push_back(current->Finish());
  return RowIndexSetAccess::FromChunks(std::move(chunks));
}

}  // namespace

RowIndexSet internal::RowIndexSetAccess::FromChunks(std::vector<Chunk> chunks) {
  RowIndexSet set;
  for (const Chunk& c : chunks) set.cardinality_ += c.cardinality;
  set.chunks_ = std::move(chunks);
  return set;
}

RowIndexSet RowIndexSet::Of(std::vector<uint64_t> values) {
  std::sort(values.begin(), values.end());
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (uint64_t v : values) {
    // Sorted, so v >= the last range's end; the subtraction cannot wrap.
    if (!ranges.empty() && v - ranges.back().second <= 1) {
      ranges.back().second = v;
    } else {
      ranges.emplace_back(v, v);
    }
  }
  return FromSortedRanges(ranges);
}

RowIndexSet RowIndexSet::OfRanges(std::vector<std::pair<uint64_t, uint64_t>> ranges) {
  std::erase_if(ranges, [](const auto& r) { return r.first >= r.second; });
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;  // inclusive
  for (const auto& [begin, end] : ranges) {
    if (!merged.empty() && merged.back().second + 1 >= begin) {
      merged.back().second = std::max(merged.back().second, end - 1);
    } else {
      merged.emplace_back(begin, end - 1);
    }
  }
  return FromSortedRanges(merged);
}

bool RowIndexSet::Contains(uint64_t row) const {
  const uint64_t key = row >> 16;
  auto it = std::lower_bound(chunks_.begin(), chunks_.end(), key,
                             [](const Chunk& c, uint64_t k) { return c.key < k; });
  if (it == chunks_.end() || it->key != key) return false;
  const auto low = static_cast<uint16_t>(row & 0xFFFF);
  switch (it->kind) {
    case ChunkKind::kArray:
      return std::binary_search(it->data.begin(), it->data.end(), low);
    case ChunkKind::kBitmap:
      return (it->bits[low / 64] >> (low % 64)) & 1;
    case ChunkKind::kRun: {
      // The last run starting at or before `low`.
      size_t lo = 0;
      size_t hi = it->data.size() / 2;
      while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (it->data[2 * mid] <= low) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      if (lo == 0) return false;
      const uint32_t start = it->data[2 * (lo - 1)];
      return low <= start + uint32_t{it->data[2 * (lo - 1) + 1]};
    }
  }
  return false;
}

uint64_t RowIndexSet::Max() const {
  assert(!chunks_.empty());
  const Chunk& c = chunks_.back();
  uint64_t low = 0;
  switch (c.kind) {
    case ChunkKind::kArray:
      low = c.data.back();
      break;
    case ChunkKind::kBitmap:
      for (size_t w = kBitmapWords; w-- > 0;) {
        if (c.bits[w] != 0) {
          low = w * 64 + 63 - static_cast<uint64_t>(std::countl_zero(c.bits[w]));
          break;
        }
      }
      break;
    case ChunkKind::kRun:
      low = uint64_t{c.data[c.data.size() - 2]} + c.data.back();
      break;
  }
  return (c.key << 16) | low;
}

RowIndexSet::Iterator RowIndexSet::begin() const { return Iterator(&chunks_, 0); }
RowIndexSet::Iterator RowIndexSet::end() const { return Iterator(&chunks_, chunks_.size()); }

std::vector<uint64_t> RowIndexSet::ToVector() const {
  std::vector<uint64_t> out;
  out.reserve(cardinality_);
  for (uint64_t v : *this) out.push_back(v);
  return out;
}

bool RowIndexSet::operator==(const RowIndexSet& other) const {
  if (cardinality_ != other.cardinality_ || chunks_.size() != other.chunks_.size()) return false;
  for (size_t i = 0; i < chunks_.size(); ++i) {
    if (chunks_[i].key != other.chunks_[i].key ||
        chunks_[i].cardinality != other.chunks_[i].cardinality) {
      return false;
    }
  }
  return std::equal(begin(), end(), other.begin(), other.end());
}

RowIndexSet::Iterator::Iterator(const std::vector<Chunk>* chunks, size_t chunk)
    : chunks_(chunks), chunk_(chunk) {
  Settle();
}

void RowIndexSet::Iterator::NextChunk() {
  ++chunk_;
  pos_ = 0;
  run_ = 0;
  Settle();
}

void RowIndexSet::Iterator::Settle() {
  if (chunk_ >= chunks_->size()) {
    chunk_ = chunks_->size();
    pos_ = 0;
    run_ = 0;
    return;
  }
  const Chunk& c = (*chunks_)[chunk_];
  switch (c.kind) {
    case ChunkKind::kArray:
      if (pos_ >= c.data.size()) return NextChunk();
      value_ = (c.key << 16) | c.data[pos_];
      return;
    case ChunkKind::kBitmap: {
      size_t w = pos_ / 64;
      if (w >= kBitmapWords) return NextChunk();
      uint64_t word = c.bits[w] & (~uint64_t{0} << (pos_ % 64));
      while (word == 0) {
        if (++w >= kBitmapWords) return NextChunk();
        word = c.bits[w];
      }
      pos_ = static_cast<uint32_t>(w * 64 + static_cast<size_t>(std::countr_zero(word)));
      value_ = (c.key << 16) | pos_;
      return;
    }
    case ChunkKind::kRun: {
      if (2 * size_t{run_} >= c.data.size()) return NextChunk();
      const uint32_t start = c.data[2 * run_];
      const uint32_t last = start + c.data[2 * run_ + 1];
      if (pos_ < start) pos_ = start;
      if (pos_ > last) {
        ++run_;
        pos_ = 0;
        return Settle();
      }
      value_ = (c.key << 16) | pos_;
      return;
    }
  }
}

RowIndexSet::Iterator& RowIndexSet::Iterator::operator++() {
  ++pos_;
  Settle();
  return *this;
}

}  // namespace sluice::table
