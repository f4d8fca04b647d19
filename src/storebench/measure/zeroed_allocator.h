// ZeroedAllocator: a std::allocator for arrays that start all zero and are
// mostly left untouched — a latency histogram's buckets, of which a run uses
// a few pages out of ~270 KiB. Large arrays are mapped anonymous memory,
// which the kernel hands out as zero pages: a bucket costs memory only once
// written. Value-initialisation is then a no-op, so `resize(n)` touches
// nothing (std::vector's assign(n, 0) would write every page: with 4096
// workers, each holding a dozen histograms, that was 6.6 GB of RSS).
// Thread-safety: stateless.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <utility>

namespace storebench::measure {

template <typename T>
struct ZeroedAllocator {
  using value_type = T;
  static constexpr size_t kMapAtLeast = 64 << 10;  // bytes; smaller arrays come from calloc

  ZeroedAllocator() = default;
  template <typename U>
  ZeroedAllocator(const ZeroedAllocator<U>&) noexcept {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    void* p = nullptr;
    if (bytes >= kMapAtLeast) {
      p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
    } else {
      p = std::calloc(n ? n : 1, sizeof(T));
      if (p == nullptr) throw std::bad_alloc();
    }
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) >= kMapAtLeast) ::munmap(p, n * sizeof(T));
    else std::free(p);
  }
  // Value-initialisation: the memory is zero already.
  template <typename U>
  void construct(U*) noexcept {}
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const ZeroedAllocator&, const ZeroedAllocator&) { return true; }
};

}  // namespace storebench::measure
