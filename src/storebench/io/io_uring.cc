// io_uring: reads submitted to a liburing ring of queue_depth entries, with
// optional registered (fixed) files and buffers and an optional SQPOLL thread.
// A short read is continued with another SQE for the rest, and -EAGAIN/-EINTR
// completions are resubmitted, so callers see "short = end of file" as with
// pread. Submit only queues the SQE; the next Reap submits what is queued with
// the io_uring_enter that waits (a bare submit when it must not block), so
// reads started back to back share one syscall; SubmitBatch submits at once.
// With SQPOLL the kernel thread picks SQEs up, so io_uring_enter is counted
// only when the ring is waited on: the counts are then a lower bound.
#include "storebench/io/methods.h"

#ifdef STOREBENCH_HAVE_LIBURING

#include <liburing.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace storebench::io {

const MethodInfo kIoUringInfo = {"io_uring", kCapAsync | kCapDirect | kCapBatchSubmit | kCapFixedBuffers,
                                 "liburing ring: queue depth, fixed files/buffers, SQPOLL"};

namespace {

// Files registered per ring: the sparse table is sized once at setup.
constexpr unsigned kMaxRegisteredFiles = 256;

class IoUringMethod final : public ReadMethod {
 public:
  explicit IoUringMethod(const MethodOptions& o) : ReadMethod(kIoUringInfo.name, kIoUringInfo.capabilities, o) {}
  ~IoUringMethod() override {
    if (!ring_ready_) return;
    // The kernel may still write into caller buffers: drain before tearing down.
    while (running_ > 0) {
      io_uring_cqe* cqe = nullptr;
      if (io_uring_wait_cqe(&ring_, &cqe) != 0) break;
      io_uring_cqe_seen(&ring_, cqe);
      --running_;
    }
    io_uring_queue_exit(&ring_);
  }

 protected:
  Status Init() override {
    const unsigned depth = options().queue_depth;
    if (depth == 0) return Status::InvalidArgument("io_uring: queue depth must be at least 1");
    // The kernel refuses larger rings with a bare EINVAL from io_uring_setup.
    constexpr unsigned kMaxEntries = 32768;  // IORING_MAX_ENTRIES
    if (depth > kMaxEntries)
      return Status::InvalidArgument(fmt::format("--iodepth {}: an io_uring ring holds at most {} entries (the "
                                                 "kernel's IORING_MAX_ENTRIES); give --iodepth {} or less",
                                                 depth, kMaxEntries, kMaxEntries));
    io_uring_params p{};
    if (options().sqpoll) {
      p.flags |= IORING_SETUP_SQPOLL;
      p.sq_thread_idle = options().sqpoll_idle_ms;
    }
    const int rc = io_uring_queue_init_params(depth, &ring_, &p);
    if (rc < 0) {
      const Status st = ErrnoStatus("io_uring_setup", options().sqpoll ? "(SQPOLL)" : "", -rc);
      return Status::NotSupported(st.message());
    }
    ring_ready_ = true;
    // With nothing in flight a read can be one io_uring_enter that submits and
    // waits (what a depth-1 loop does); with SQPOLL submission is the kernel
    // thread's, so those reads keep the general path.
    if (!options().sqpoll) set_plain_read(&PlainRead);
    slots_.resize(depth);
    free_slots_.reserve(depth);
    for (unsigned i = depth; i-- > 0;) free_slots_.push_back(i);
    if (options().register_files) {
      counters_.Count(Syscall::kIoUringRegister);
      const int r = io_uring_register_files_sparse(&ring_, kMaxRegisteredFiles);
      if (r < 0) return ErrnoStatus("io_uring_register_files_sparse", "", -r);
    }
    if (!fixed_buffers().empty()) {
      std::vector<iovec> iov;
      for (const AlignedBuffer& b : fixed_buffers()) iov.push_back({b.data(), b.size()});
      counters_.Count(Syscall::kIoUringRegister);
      const int r = io_uring_register_buffers(&ring_, iov.data(), static_cast<unsigned>(iov.size()));
      if (r < 0) return ErrnoStatus("io_uring_register_buffers", "", -r);
    }
    return Status::Ok();
  }

  Status OnOpen(int index) override {
    if (!options().register_files) return Status::Ok();
    if (static_cast<unsigned>(index) >= kMaxRegisteredFiles) {
      return Status::InvalidArgument(
          fmt::format("io_uring: more than {} registered files per ring", kMaxRegisteredFiles));
    }
    int fd = files_[static_cast<size_t>(index)].fd;
    counters_.Count(Syscall::kIoUringRegister);
    const int r = io_uring_register_files_update(&ring_, static_cast<unsigned>(index), &fd, 1);
    if (r < 0) return ErrnoStatus("io_uring_register_files_update", files_[static_cast<size_t>(index)].path, -r);
    return Status::Ok();
  }

  // A batch is queued read by read, then submitted at once.
  StatusOr<size_t> DoSubmitBatch(std::span<const ReadRequest> reqs, ReadCompletion* /*done*/, size_t* n_done) override {
    *n_done = 0;
    size_t accepted = 0;
    while (accepted < reqs.size() && Queue(reqs[accepted])) ++accepted;
    if (accepted > 0) STOREBENCH_RETURN_IF_ERROR(SubmitQueued());
    return accepted;
  }

  // One read is only queued in the ring: the next Reap submits everything
  // queued since the last one with the same io_uring_enter that waits (fio's
  // batching), so a caller that submits several reads before reaping pays
  // one syscall for all of them.
  StatusOr<ReadSubmitResult> DoSubmit(const ReadRequest& req, ReadCompletion* /*done*/) override {
    return Queue(req) ? ReadSubmitResult::kQueued : ReadSubmitResult::kBusy;
  }

  StatusOr<size_t> DoReap(size_t min, size_t max, ReadCompletion* out) override {
    if (queued_ > 0) {
      if (min > 0 && !options().sqpoll) {
        STOREBENCH_RETURN_IF_ERROR(SubmitQueued(1));
      } else {
        STOREBENCH_RETURN_IF_ERROR(SubmitQueued());
      }
    }
    size_t n = 0;
    while (n < max) {
      io_uring_cqe* cqe = nullptr;
      int rc = io_uring_peek_cqe(&ring_, &cqe);
      if (rc == -EAGAIN) {
        if (n >= min) break;
        counters_.Count(Syscall::kIoUringEnter);
        rc = io_uring_wait_cqe(&ring_, &cqe);
        if (rc == -EINTR) continue;
      }
      if (rc < 0) return ErrnoStatus("io_uring_wait_cqe", "", -rc);
      const auto s = static_cast<unsigned>(io_uring_cqe_get_data64(cqe));
      const int res = cqe->res;
      io_uring_cqe_seen(&ring_, cqe);
      --running_;
      Slot& slot = slots_[s];
      const OpenedFile& f = files_[static_cast<size_t>(slot.req.file)];
      if (res == -EAGAIN || res == -EINTR) {
        STOREBENCH_RETURN_IF_ERROR(Resubmit(s));
        continue;
      }
      if (res > 0) {
        counters_.bytes_transferred += static_cast<uint64_t>(res);
        slot.done += static_cast<size_t>(res);
        const bool on_grid = (slot.req.offset + slot.done) % f.alignment.offset == 0;
        if (slot.done < slot.req.length && on_grid) {
          STOREBENCH_RETURN_IF_ERROR(Resubmit(s));
          continue;
        }
      }
      out[n++] = MakeCompletion(slot.req, slot.done, res < 0 ? -res : 0);
      free_slots_.push_back(s);
    }
    return n;
  }

  std::string_view ReadOpName() const override { return "io_uring read"; }

 private:
  struct Slot {
    ReadRequest req;
    size_t done = 0;
  };

  // One read with nothing else in flight (ReadMethod::PlainReads): the ring is
  // this read's alone, so each SQE is submitted and waited for by one
  // io_uring_enter and the only CQE is its own. Short reads and -EAGAIN/-EINTR
  // continue as in DoReap.
  static ReadOutcome PlainRead(ReadMethod& self, int file, char* buf, size_t length, uint64_t offset) {
    auto& m = static_cast<IoUringMethod&>(self);
    const OpenedFile& f = m.files_[static_cast<size_t>(file)];
    const bool fixed_file = m.options().register_files;
    ReadOutcome out;
    while (out.bytes < length) {
      io_uring_sqe* sqe = io_uring_get_sqe(&m.ring_);  // never null: the ring is empty
      io_uring_prep_read(sqe, fixed_file ? file : f.fd, buf + out.bytes, static_cast<unsigned>(length - out.bytes),
                         offset + out.bytes);
      if (fixed_file) sqe->flags |= IOSQE_FIXED_FILE;
      io_uring_sqe_set_data64(sqe, UINT64_MAX);
      int rc;
      do {  // -EINTR/-EAGAIN: nothing was submitted, the SQE is still queued
        m.counters_.Count(Syscall::kIoUringEnter);
        rc = io_uring_submit_and_wait(&m.ring_, 1);
      } while (rc == -EINTR || rc == -EAGAIN);
      if (rc < 0) {
        out.error = -rc;
        return out;
      }
      io_uring_cqe* cqe = nullptr;
      while ((rc = io_uring_peek_cqe(&m.ring_, &cqe)) == -EAGAIN) {  // submitted, the wait was interrupted
        m.counters_.Count(Syscall::kIoUringEnter);
        if ((rc = io_uring_wait_cqe(&m.ring_, &cqe)) != -EINTR) break;
      }
      if (rc < 0) {
        out.error = -rc;
        return out;
      }
      const int res = cqe->res;
      io_uring_cqe_seen(&m.ring_, cqe);
      if (res == -EAGAIN || res == -EINTR) {
        m.counters_.resubmissions++;
        continue;
      }
      if (res < 0) {
        out.error = -res;
        return out;
      }
      if (res == 0) return out;  // end of file
      m.counters_.bytes_transferred += static_cast<uint64_t>(res);
      out.bytes += static_cast<size_t>(res);
      if (out.bytes < length && (offset + out.bytes) % f.alignment.offset != 0) return out;
      if (out.bytes < length) m.counters_.resubmissions++;
    }
    return out;
  }

  // Takes a free slot for `req` and fills its SQE; false when no slot or SQE is free.
  bool Queue(const ReadRequest& req) {
    if (free_slots_.empty()) return false;
    const unsigned s = free_slots_.back();
    free_slots_.pop_back();
    slots_[s] = Slot{req, 0};
    if (Prepare(s)) return true;
    free_slots_.push_back(s);
    return false;
  }

  // Fills one SQE for the unread part of slot `s`; false when the SQ is full.
  bool Prepare(unsigned s) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) return false;
    const Slot& slot = slots_[s];
    const auto len = static_cast<unsigned>(slot.req.length - slot.done);
    char* dst = slot.req.buf + slot.done;
    const uint64_t off = slot.req.offset + slot.done;
    const bool fixed_file = options().register_files;
    const int fd = fixed_file ? slot.req.file : files_[static_cast<size_t>(slot.req.file)].fd;
    if (slot.req.fixed_buffer >= 0) {
      io_uring_prep_read_fixed(sqe, fd, dst, len, off, slot.req.fixed_buffer);
    } else {
      io_uring_prep_read(sqe, fd, dst, len, off);
    }
    if (fixed_file) sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data64(sqe, s);
    ++queued_;
    return true;
  }

  // Submits the queued SQEs; with wait > 0 the same io_uring_enter also waits
  // for that many completions.
  Status SubmitQueued(unsigned wait = 0) {
    while (queued_ > 0) {
      if (!options().sqpoll || wait > 0) counters_.Count(Syscall::kIoUringEnter);
      const int rc = wait > 0 ? io_uring_submit_and_wait(&ring_, wait) : io_uring_submit(&ring_);
      if (rc == -EINTR || rc == -EAGAIN) continue;
      if (rc < 0) return ErrnoStatus("io_uring_submit", "", -rc);
      running_ += static_cast<size_t>(rc);
      queued_ -= static_cast<unsigned>(rc);
    }
    return Status::Ok();
  }

  Status Resubmit(unsigned s) {
    counters_.resubmissions++;
    // Every slot has at most one SQE; only an SQPOLL thread that has not yet
    // consumed the ring can leave it full, and then waiting for room is enough.
    while (!Prepare(s)) {
      const int rc = io_uring_sqring_wait(&ring_);
      if (rc < 0 && rc != -EINTR) return ErrnoStatus("io_uring_sqring_wait", "", -rc);
    }
    return SubmitQueued();
  }

  io_uring ring_{};
  bool ring_ready_ = false;
  std::vector<Slot> slots_;
  std::vector<unsigned> free_slots_;
  unsigned queued_ = 0;   // SQEs prepared, not yet submitted
  size_t running_ = 0;    // SQEs submitted, CQE not yet seen
};

}  // namespace

std::unique_ptr<ReadMethod> NewIoUring(const MethodOptions& options) { return std::make_unique<IoUringMethod>(options); }

}  // namespace storebench::io

#else  // !STOREBENCH_HAVE_LIBURING

namespace storebench::io {

const MethodInfo kIoUringInfo = {"io_uring", kCapAsync | kCapDirect | kCapBatchSubmit,
                                 "liburing ring (not built: liburing missing)"};

namespace {

class IoUringUnavailable final : public ReadMethod {
 public:
  explicit IoUringUnavailable(const MethodOptions& o) : ReadMethod(kIoUringInfo.name, kIoUringInfo.capabilities, o) {}

 protected:
  Status Init() override { return Status::NotSupported("io_uring: storebench was built without liburing"); }
  StatusOr<ReadSubmitResult> DoSubmit(const ReadRequest&, ReadCompletion*) override {
    return Status::NotSupported("io_uring: storebench was built without liburing");
  }
};

}  // namespace

std::unique_ptr<ReadMethod> NewIoUring(const MethodOptions& options) {
  return std::make_unique<IoUringUnavailable>(options);
}

}  // namespace storebench::io

#endif  // STOREBENCH_HAVE_LIBURING
