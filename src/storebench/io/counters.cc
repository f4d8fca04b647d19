#include "storebench/io/counters.h"

namespace storebench::io {
namespace {

constexpr std::array<std::string_view, kSyscallKinds> kNames = {
    "open", "close", "statx", "read", "pread", "preadv2", "lseek", "mmap", "munmap", "madvise",
    "io_uring_enter", "io_uring_register",
};

// One list of the scalar fields, so += and -= cannot drift apart when a field is added.
template <typename Op>
void ForEachField(IoCounters& a, const IoCounters& b, Op op) {
  for (size_t i = 0; i < kSyscallKinds; ++i) op(a.syscalls[i], b.syscalls[i]);
  op(a.requests, b.requests);
  op(a.completions, b.completions);
  op(a.errors, b.errors);
  op(a.bytes_requested, b.bytes_requested);
  op(a.bytes_returned, b.bytes_returned);
  op(a.bytes_transferred, b.bytes_transferred);
  op(a.inline_reads, b.inline_reads);
  op(a.pool_reads, b.pool_reads);
  op(a.resubmissions, b.resubmissions);
  op(a.timed_calls, b.timed_calls);
  op(a.timed_ns, b.timed_ns);
}

}  // namespace

std::string_view SyscallName(Syscall kind) {
  const auto i = static_cast<size_t>(kind);
  return i < kSyscallKinds ? kNames[i] : "unknown";
}

uint64_t IoCounters::TotalSyscalls() const {
  uint64_t total = 0;
  for (uint64_t n : syscalls) total += n;
  return total;
}

uint64_t IoCounters::DataSyscalls() const {
  return Of(Syscall::kRead) + Of(Syscall::kPread) + Of(Syscall::kPreadv2) + Of(Syscall::kLseek) +
         Of(Syscall::kIoUringEnter);
}

IoCounters& IoCounters::operator+=(const IoCounters& other) {
  ForEachField(*this, other, [](uint64_t& x, uint64_t y) { x += y; });
  return *this;
}

IoCounters& IoCounters::operator-=(const IoCounters& other) {
  ForEachField(*this, other, [](uint64_t& x, uint64_t y) { x -= y; });
  return *this;
}

}  // namespace storebench::io
