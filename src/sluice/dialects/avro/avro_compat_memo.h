// The compatibility check's memo of compared (reader, writer) pairs: open addressing, reused by
// the next check on the thread without clearing. Not for other modules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace sluice::dialects::avro::internal {

/// A result is a node of a shared tree of incompatibilities; kCompatible is the empty list and
/// kInProgress marks a pair being computed.
constexpr uint32_t kCompatible = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kInProgress = kCompatible - 1;

inline uint64_t MixPair(uint64_t a, uint64_t b) {
  uint64_t x = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL + (a << 6) + (a >> 2));
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 29;
  return x;
}

// Open addressing on (reader key, writer key): the check inserts one entry per compared pair, so
// this is on the hot path. Slots carry the generation of the check that wrote them, so the table
// is reused by the next check without clearing it.
class PairMemo {
 public:
  void Reset() {
    if (slots_.size() > kKeepSlots) {
      slots_ = std::vector<Slot>();
    } else if (++generation_ == 0) {
      std::fill(slots_.begin(), slots_.end(), Slot{});
      generation_ = 1;
    }
    size_ = 0;
  }

  // The stored value, or nullopt when the pair has not been seen.
  std::optional<uint32_t> Find(uint64_t r, uint64_t w) const {
    if (slots_.empty()) return std::nullopt;
    size_t mask = slots_.size() - 1;
    for (size_t i = MixPair(r, w) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.generation != generation_) return std::nullopt;
      if (s.r == r && s.w == w) return s.value;
    }
  }

  // A lookup that reserves the pair when it is absent: `found` and its value, or the slot now
  // holding the pair with kInProgress, which Settle fills in (one probe for both).
  struct Claim {
    bool found = false;
    uint32_t value = 0;
    size_t slot = 0;
    uint32_t epoch = 0;
  };

  Claim FindOrClaim(uint64_t r, uint64_t w) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = MixPair(r, w) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.generation != generation_) {
        s = Slot{r, w, kInProgress, generation_};
        ++size_;
        return Claim{false, 0, i, epoch_};
      }
      if (s.r == r && s.w == w) return Claim{true, s.value, i, epoch_};
    }
  }

  // Store the value of a claimed pair; the table may have grown since the claim.
  void Settle(const Claim& claim, uint64_t r, uint64_t w, uint32_t value) {
    if (claim.epoch == epoch_) {
      slots_[claim.slot].value = value;
    } else {
      Put(r, w, value);
    }
  }

  void Put(uint64_t r, uint64_t w, uint32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = MixPair(r, w) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.generation != generation_) {
        s = Slot{r, w, value, generation_};
        ++size_;
        return;
      }
      if (s.r == r && s.w == w) {
        s.value = value;
        return;
      }
    }
  }

 private:
  // A table larger than this is freed after its check rather than kept for the next one.
  static constexpr size_t kKeepSlots = size_t{1} << 16;

  struct Slot {
    uint64_t r = 0;
    uint64_t w = 0;
    uint32_t value = 0;
    uint32_t generation = 0;
  };

  void Grow() {
    ++epoch_;
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    size_ = 0;
    for (const Slot& s : old) {
      if (s.generation == generation_) Put(s.r, s.w, s.value);
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
  uint32_t generation_ = 1;
  uint32_t epoch_ = 0;  // table growths, which move the slots
};

}  // namespace sluice::dialects::avro::internal
