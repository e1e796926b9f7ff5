// An allocator for buffers that grow to many megabytes (a row group's column values, its
// levels): allocations of at least kLargeBufferBytes are mapped in whole 2 MiB steps and marked
// for transparent huge pages (madvise(MADV_HUGEPAGE), which Debian's default "madvise" mode of
// the kernel honours), so that filling them costs one page fault per 2 MiB rather than one per
// 4 KiB. Smaller ones come from malloc. Under AddressSanitizer everything comes from malloc, so
// the sanitizer still watches every byte.
//
// Use as the allocator of std::vector or std::basic_string: LargeVector<T>, LargeString.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "sluice/base/strings.h"

namespace sluice {

inline constexpr size_t kLargeBufferBytes = size_t{2} << 20;

/// What KeepFreedMemoryForReuse sets: allocations from this size up are mapped on their own
/// (glibc's default starts at 128 KiB and rises as such blocks are freed), and a heap gives
/// memory back to the system once this much is free at its top (glibc's default: 128 KiB).
inline constexpr size_t kMallocMapThreshold = size_t{32} << 20;
inline constexpr size_t kMallocTrimThreshold = size_t{256} << 20;

/// Have malloc keep freed memory for the next allocation instead of giving it back to the
/// system at once, so that blocks streamed through threads are not faulted in (and zeroed by
/// the kernel) again and again. The CLI calls it first thing; peak memory does not grow, as
/// the memory kept is what the next blocks take.
void KeepFreedMemoryForReuse();

namespace internal {
/// `bytes` of memory: mapped (huge pages advised) from kLargeBufferBytes up, else malloc'd.
/// Throws std::bad_alloc when neither gives it.
void* AllocateBuffer(size_t bytes);
/// Give back what AllocateBuffer(bytes) returned, with the same `bytes`.
void FreeBuffer(void* p, size_t bytes) noexcept;
/// Whether large buffers are mapped (false under AddressSanitizer, where malloc serves all).
bool LargeBuffersAreMapped();
}  // namespace internal

template <class T>
class LargeBufferAllocator {
 public:
  using value_type = T;

  LargeBufferAllocator() noexcept = default;
  template <class U>
  LargeBufferAllocator(const LargeBufferAllocator<U>&) noexcept {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(internal::AllocateBuffer(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { internal::FreeBuffer(p, n * sizeof(T)); }

  template <class U>
  bool operator==(const LargeBufferAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using LargeVector = std::vector<T, LargeBufferAllocator<T>>;
using LargeString = std::basic_string<char, std::char_traits<char>, LargeBufferAllocator<char>>;

/// A growing array of trivially copyable values in large buffers, as LargeVector holds them,
/// whose append is a store and a compare where it is called: the growth is out of line (a
/// std::vector's push_back brings its whole reallocation along, so a function that appends
/// stops being inlined).
template <class T>
class LargeArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  LargeArray() = default;
  LargeArray(const LargeArray& other) { Append(other.data(), other.size()); }
  LargeArray(LargeArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  LargeArray& operator=(LargeArray other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    return *this;
  }
  ~LargeArray() {
    if (data_ != nullptr) LargeBufferAllocator<T>().deallocate(data_, capacity_);
  }

  void push_back(T v) {
    if (size_ == capacity_) [[unlikely]]
      Grow(1);
    data_[size_++] = v;
  }
  void Append(const T* values, size_t n) {
    if (n == 0) return;
    std::memcpy(static_cast<void*>(Extend(n)), values, n * sizeof(T));
  }
  /// Room for `n` more values at the end, counted as held: the caller writes them.
  T* Extend(size_t n) {
    if (capacity_ - size_ < n) Grow(n);
    T* at = data_ + size_;
    size_ += n;
    return at;
  }
  /// Grow or shrink to `n` values; new ones are zero.
  void resize(size_t n) {
    if (n > capacity_) Grow(n - size_);
    if (n > size_) std::memset(static_cast<void*>(data_ + size_), 0, (n - size_) * sizeof(T));
    size_ = n;
  }
  /// Empty, keeping the storage.
  void clear() { size_ = 0; }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& back() { return data_[size_ - 1]; }

 private:
  __attribute__((noinline)) void Grow(size_t n) {
    const size_t want = std::max(size_ + n, capacity_ * 2 < 64 ? size_t{64} : capacity_ * 2);
    T* bigger = LargeBufferAllocator<T>().allocate(want);
    if (size_ > 0) std::memcpy(static_cast<void*>(bigger), data_, size_ * sizeof(T));
    if (data_ != nullptr) LargeBufferAllocator<T>().deallocate(data_, capacity_);
    data_ = bigger;
    capacity_ = want;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

/// Bytes appended a few at a time (a column's string values): LargeString's storage, with the
/// append of a short piece inline (a few overlapping word moves) where std::string's calls
/// memcpy for each one.
class LargeBytes {
 public:
  void Append(std::string_view s) { CopyBytes(bytes_.Extend(s.size()), s.data(), s.size()); }
  /// Empty, keeping the storage.
  void clear() { bytes_.clear(); }
  size_t size() const { return bytes_.size(); }
  size_t capacity() const { return bytes_.capacity(); }
  std::string_view view() const { return std::string_view(bytes_.data(), bytes_.size()); }

 private:
  LargeArray<char> bytes_;
};

}  // namespace sluice
