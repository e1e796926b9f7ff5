#include "sluice/base/large_buffer.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>

namespace sluice::internal {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kMap = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kMap = false;
#else
constexpr bool kMap = true;
#endif
#else
constexpr bool kMap = true;
#endif

// Whole huge pages, so that the mapping's end does not fall back to small pages.
size_t MappedSize(size_t bytes) {
  return (bytes + kLargeBufferBytes - 1) / kLargeBufferBytes * kLargeBufferBytes;
}

}  // namespace

bool LargeBuffersAreMapped() { return kMap; }

void* AllocateBuffer(size_t bytes) {
  if (kMap && bytes >= kLargeBufferBytes) {
    // A huge page must start on a 2 MiB boundary: map 2 MiB more, keep the aligned part.
    const size_t size = MappedSize(bytes);
    void* raw = ::mmap(nullptr, size + kLargeBufferBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kLargeBufferBytes - 1) & ~(uintptr_t{kLargeBufferBytes} - 1);
    if (aligned > start) ::munmap(raw, aligned - start);
    const size_t tail = kLargeBufferBytes - (aligned - start);
    if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + size), tail);
    void* p = reinterpret_cast<void*>(aligned);
    // Advice only: where the kernel has no huge pages to give, small ones do.
    ::madvise(p, size, MADV_HUGEPAGE);
    return p;
  }
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void FreeBuffer(void* p, size_t bytes) noexcept {
  if (p == nullptr) return;
  if (kMap && bytes >= kLargeBufferBytes) {
    ::munmap(p, MappedSize(bytes));
    return;
  }
  std::free(p);
}

}  // namespace sluice::internal

namespace sluice {

void KeepFreedMemoryForReuse() {
  // glibc maps every allocation from 128 KiB up on its own (until frees raise that threshold)
  // and gives the top of a heap back to the system once 128 KiB of it is free; such memory is
  // faulted in again, 4 KiB at a time and zeroed by the kernel, by the next allocation that
  // needs it. A process that streams blocks of a few hundred KiB to a few MiB through its
  // threads (blocks read, their output, chunks handed between threads) paid that on each.
  ::mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMallocMapThreshold));
  ::mallopt(M_TRIM_THRESHOLD, static_cast<int>(kMallocTrimThreshold));
}

}  // namespace sluice
