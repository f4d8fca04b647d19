#include "storebench/io/read_method.h"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

namespace storebench::io {

ReadMethod::ReadMethod(std::string_view name, uint32_t caps, const MethodOptions& options)
    : name_(name), caps_(caps), options_(options) {}

ReadMethod::~ReadMethod() {
  for (OpenedFile& f : files_) {
    if (f.fd >= 0) close(f.fd);
  }
}

StatusOr<int> ReadMethod::Open(const std::string& path) {
  StatusOr<OpenedFile> f = OpenForRead(path, options_.direct);
  counters_.Count(Syscall::kOpen);
  if (!f.ok()) return f.status();
  counters_.Count(Syscall::kStatx, options_.direct ? 3 : 1);  // fstat; + fstatfs, statx for direct
  files_.push_back(std::move(*f));
  const int index = static_cast<int>(files_.size() - 1);
  Status st = OnOpen(index);
  if (!st.ok()) {
    close(files_.back().fd);
    files_.pop_back();
    return st;
  }
  return index;
}

Status ReadMethod::AllocateFixedBuffers() {
  if (options_.fixed_buffers == 0) return Status::Ok();
  if (options_.fixed_buffer_size == 0) {
    return Status::InvalidArgument("fixed buffers: fixed_buffer_size must be > 0 when fixed_buffers > 0");
  }
  fixed_.reserve(options_.fixed_buffers);
  for (unsigned i = 0; i < options_.fixed_buffers; ++i) {
    fixed_.emplace_back(options_.fixed_buffer_size, 4096);
    if (fixed_.back().empty()) {
      return Status::IOError(fmt::format("allocate fixed buffer of {} bytes: out of memory", options_.fixed_buffer_size));
    }
  }
  return Status::Ok();
}

std::span<char> ReadMethod::fixed_buffer(int i) const {
  if (i < 0 || static_cast<size_t>(i) >= fixed_.size()) return {};
  const AlignedBuffer& b = fixed_[static_cast<size_t>(i)];
  return {b.data(), b.size()};
}

Status ReadMethod::Validate(const ReadRequest& req) const {
  if (req.file < 0 || static_cast<size_t>(req.file) >= files_.size()) {
    return Status::InvalidArgument(fmt::format("{} read: file index {} is not open ({} files)", name_, req.file,
                                               files_.size()));
  }
  if (req.buf == nullptr && req.length > 0) {
    return Status::InvalidArgument(fmt::format("{} read of {}: null buffer", name_, files_[req.file].path));
  }
  if (req.fixed_buffer >= 0) {
    const std::span<char> b = fixed_buffer(req.fixed_buffer);
    if (b.empty() || req.buf < b.data() || req.buf + req.length > b.data() + b.size()) {
      return Status::InvalidArgument(
          fmt::format("{} read: buffer does not lie inside fixed buffer {}", name_, req.fixed_buffer));
    }
  }
  return CheckDirectRead(files_[static_cast<size_t>(req.file)], req.offset, req.length, req.buf);
}

void ReadMethod::Account(const ReadCompletion* done, size_t n) {
  counters_.completions += n;
  for (size_t i = 0; i < n; ++i) {
    counters_.bytes_returned += done[i].bytes;
    counters_.errors += done[i].error != 0;
  }
}

// Only the plain request's path is inline, and every return hands back a
// prvalue or the one named result, so the StatusOr is built in the caller's
// slot: the per-read cost is the hook call and four counter adds.
StatusOr<ReadSubmitResult> ReadMethod::Submit(const ReadRequest& req, ReadCompletion* done) {
  if (!Plain(req)) [[unlikely]] {
    Status st = Validate(req);
    if (!st.ok()) return st;
  }
  return SubmitValid(req, done);
}

inline StatusOr<ReadSubmitResult> ReadMethod::SubmitValid(const ReadRequest& req, ReadCompletion* done) {
  StatusOr<ReadSubmitResult> res = timing_ ? TimedDoSubmit(req, done) : DoSubmit(req, done);
  if (res.ok() && *res != ReadSubmitResult::kBusy) [[likely]] {
    counters_.requests++;
    counters_.bytes_requested += req.length;
    if (*res == ReadSubmitResult::kCompleted) {
      Account(done, 1);
    } else {
      ++in_flight_;
    }
  }
  return res;
}

StatusOr<ReadSubmitResult> ReadMethod::TimedDoSubmit(const ReadRequest& req, ReadCompletion* done) {
  const uint64_t t0 = TimerStart();
  StatusOr<ReadSubmitResult> res = DoSubmit(req, done);
  TimerStop(t0);
  return res;
}

StatusOr<size_t> ReadMethod::SubmitBatch(std::span<const ReadRequest> reqs, ReadCompletion* done, size_t* n_done) {
  *n_done = 0;
  // Validation walks the whole batch first so a bad request never leaves half of it in flight.
  for (const ReadRequest& r : reqs) STOREBENCH_RETURN_IF_ERROR(Validate(r));
  const uint64_t t0 = TimerStart();
  StatusOr<size_t> acc = DoSubmitBatch(reqs, done, n_done);
  TimerStop(t0);
  if (!acc.ok()) return acc.status();
  Account(done, *n_done);
  counters_.requests += *acc;
  for (size_t i = 0; i < *acc; ++i) counters_.bytes_requested += reqs[i].length;
  in_flight_ += *acc - *n_done;
  return *acc;
}

StatusOr<size_t> ReadMethod::DoSubmitBatch(std::span<const ReadRequest> reqs, ReadCompletion* done, size_t* n_done) {
  size_t accepted = 0;
  for (const ReadRequest& r : reqs) {
    StatusOr<ReadSubmitResult> res = DoSubmit(r, done + *n_done);
    if (!res.ok()) return res.status();
    if (*res == ReadSubmitResult::kBusy) break;
    if (*res == ReadSubmitResult::kCompleted) ++*n_done;
    ++accepted;
  }
  return accepted;
}

StatusOr<size_t> ReadMethod::Reap(size_t min, size_t max, ReadCompletion* out) {
  if (in_flight_ == 0 || max == 0) return size_t{0};
  const uint64_t t0 = TimerStart();
  StatusOr<size_t> n = DoReap(std::min({min, max, in_flight_}), max, out);
  TimerStop(t0);
  if (!n.ok()) return n.status();
  Account(out, *n);
  in_flight_ -= *n;
  return *n;
}

StatusOr<size_t> ReadMethod::Read(int file_index, uint64_t offset, size_t length, char* buf, int priority) {
  if (in_flight_ != 0) {
    return Status::InvalidArgument(fmt::format("{}: synchronous Read with {} reads in flight", name_, in_flight_));
  }
  ReadRequest req;
  req.file = file_index;
  req.offset = offset;
  req.length = length;
  req.buf = buf;
  req.priority = priority;
  ReadCompletion c;
  StatusOr<ReadSubmitResult> r = Submit(req, &c);
  if (!r.ok()) return r.status();
  if (*r != ReadSubmitResult::kCompleted) {
    StatusOr<size_t> n = Reap(1, 1, &c);
    if (!n.ok()) return n.status();
  }
  if (c.error != 0) return ErrorStatus(c);
  return c.bytes;
}

Status ReadMethod::ErrorStatus(const ReadCompletion& c) const {
  if (c.error == 0) return Status::Ok();
  const std::string path = c.file >= 0 && static_cast<size_t>(c.file) < files_.size()
                                ? fmt::format("{} at offset {}", files_[static_cast<size_t>(c.file)].path, c.offset)
                                : fmt::format("file #{} at offset {}", c.file, c.offset);
  return ErrnoStatus(fmt::format("{} ({})", ReadOpName(), name_), path, c.error);
}

}  // namespace storebench::io
