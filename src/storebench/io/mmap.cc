// mmap: each file mapped whole and read by memcpy, with an madvise hint. No
// read syscalls: the cost moves into page faults, which /proc/self/io and
// getrusage (major faults) show instead of IoCounters.
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "storebench/io/methods.h"

namespace storebench::io {

const MethodInfo kMmapInfo = {"mmap", kCapMapped, "memcpy from a whole-file mmap with madvise"};

namespace {

int AdviceFor(Madvise m) {
  switch (m) {
    case Madvise::kRandom:
      return MADV_RANDOM;
    case Madvise::kSequential:
      return MADV_SEQUENTIAL;
    case Madvise::kWillNeed:
      return MADV_WILLNEED;
    case Madvise::kNormal:
      break;
  }
  return MADV_NORMAL;
}

class MmapMethod final : public ReadMethod {
 public:
  explicit MmapMethod(const MethodOptions& o) : ReadMethod(kMmapInfo.name, kMmapInfo.capabilities, o) {
    set_plain_read(&PlainRead);
  }
  ~MmapMethod() override {
    for (size_t i = 0; i < maps_.size(); ++i) {
      if (maps_[i] != nullptr) munmap(maps_[i], files_[i].size);
    }
  }

 protected:
  Status OnOpen(int index) override {
    const OpenedFile& f = files_[static_cast<size_t>(index)];
    char* base = nullptr;
    // mmap of length 0 is EINVAL; an empty file simply has nothing to map.
    if (f.size > 0) {
      void* p = mmap(nullptr, f.size, PROT_READ, MAP_SHARED, f.fd, 0);
      counters_.Count(Syscall::kMmap);
      if (p == MAP_FAILED) return ErrnoStatus("mmap", f.path, errno);
      base = static_cast<char*>(p);
      counters_.Count(Syscall::kMadvise);
      if (madvise(p, f.size, AdviceFor(options().madvise)) != 0) {
        const int err = errno;
        munmap(p, f.size);
        return ErrnoStatus("madvise", f.path, err);
      }
    }
    maps_.push_back(base);
    return Status::Ok();
  }

  StatusOr<ReadSubmitResult> DoSubmit(const ReadRequest& req, ReadCompletion* done) override {
    const ReadOutcome r = PlainRead(*this, req.file, req.buf, req.length, req.offset);
    *done = MakeCompletion(req, r.bytes, r.error);
    return ReadSubmitResult::kCompleted;
  }
  std::string_view ReadOpName() const override { return "memcpy from mmap"; }

 private:
  static ReadOutcome PlainRead(ReadMethod& self, int file, char* buf, size_t length, uint64_t offset) {
    auto& m = static_cast<MmapMethod&>(self);
    const auto i = static_cast<size_t>(file);
    const uint64_t size = m.files_[i].size;
    const size_t n = offset >= size ? 0 : static_cast<size_t>(std::min<uint64_t>(length, size - offset));
    if (n > 0) std::memcpy(buf, m.maps_[i] + offset, n);
    return {n, 0};
  }

  std::vector<char*> maps_;
};

}  // namespace

std::unique_ptr<ReadMethod> NewMmap(const MethodOptions& options) { return std::make_unique<MmapMethod>(options); }

}  // namespace storebench::io
