// AlignedBuffer: an owned heap buffer whose address is a multiple of a given
// alignment, as O_DIRECT and registered io_uring buffers need.
//
// Move-only; allocation happens once, outside the hot path.
// Thread-safety: a value type; not synchronised.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace storebench::io {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // Allocates `size` bytes aligned to `alignment` (a power of two); an empty buffer on failure.
  AlignedBuffer(size_t size, size_t alignment) {
    void* p = nullptr;
    if (size > 0 && posix_memalign(&p, alignment < sizeof(void*) ? sizeof(void*) : alignment, size) == 0) {
      data_.reset(static_cast<char*>(p));
      size_ = size;
    }
  }
  char* data() const { return data_.get(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data_;
  size_t size_ = 0;
};

}  // namespace storebench::io
