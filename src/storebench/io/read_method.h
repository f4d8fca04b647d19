// ReadMethod: one way of reading bytes from files (read, pread,
// pread_threadpool, mmap, io_uring), behind one submit/reap contract that
// serves synchronous and asynchronous methods alike (fio's contract).
//
//   auto m = CreateReadMethod("io_uring", options);   // registry by name
//   int f = m.value()->Open("/data/col3").value();    // file index
//   m->Submit({.file = f, .offset = 0, .length = 4096, .buf = p, .tag = 7}, &c);
//     -> kCompleted: `c` holds the result now (sync methods, cache hits);
//     -> kQueued:    the result arrives later through Reap();
//     -> kBusy:      too many reads in flight; Reap some, then submit again.
//   m->Reap(1, 16, out);                              // wait for >= 1, take <= 16
//
// A read returns fewer bytes than asked only at end of file; errors arrive in the
// ReadCompletion as an errno (ErrorStatus() turns one into a Status naming the path).
// Requests that can never succeed (bad file index, misaligned O_DIRECT read) are
// refused by Submit itself with InvalidArgument.
//
// Thread-safety: a ReadMethod object belongs to one thread at a time (one per
// worker); it is not synchronised. Several objects may share one ThreadPool.
// Buffers passed in a request must stay valid until the read completes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/io/aligned_buffer.h"
#include "storebench/io/counters.h"
#include "storebench/io/direct.h"
#include "storebench/io/read_loop.h"
#include "storebench/measure/clock.h"

namespace storebench::io {

class ThreadPool;

// What a method can do, so callers test flags instead of comparing names.
enum MethodCapability : uint32_t {
  kCapAsync = 1u << 0,          // several reads in flight per object; Submit may return kQueued
  kCapDirect = 1u << 1,         // accepts MethodOptions::direct (O_DIRECT)
  kCapBatchSubmit = 1u << 2,    // SubmitBatch costs one syscall for the whole batch
  kCapPriorities = 1u << 3,     // ReadRequest::priority orders queued reads
  kCapUserBuffer = 1u << 4,     // reads through a user-space buffer (bytes transferred > returned)
  kCapMapped = 1u << 5,         // reads copy from a memory mapping (page faults, no read syscalls)
  kCapFixedBuffers = 1u << 6,   // registers fixed buffers with the kernel
};

enum class Madvise { kNormal, kRandom, kSequential, kWillNeed };

// Plain configuration, built once by the caller; each method reads the fields it owns.
struct MethodOptions {
  bool direct = false;               // O_DIRECT (methods with kCapDirect only)
  size_t buffer_size = 8192;         // read: user-space buffer; 0 = exact-size unbuffered reads
  Madvise madvise = Madvise::kNormal;  // mmap
  unsigned queue_depth = 32;         // io_uring: ring entries and reads in flight
  bool register_files = false;       // io_uring: IOSQE_FIXED_FILE
  bool sqpoll = false;               // io_uring: kernel submission thread
  unsigned sqpoll_idle_ms = 100;     // io_uring: SQPOLL thread idle time
  ThreadPool* pool = nullptr;        // pread_threadpool: shared pool; null = a private one
  unsigned pool_threads = 4;         // pread_threadpool: size of the private pool
  unsigned max_in_flight = 16;       // pread_threadpool: per-query (per-object) limit
  bool nowait_probe = true;          // pread_threadpool: try preadv2(RWF_NOWAIT) inline first
  int priority = 0;                  // default request priority, lower runs first
  unsigned fixed_buffers = 0;        // buffers owned by the method (registered with io_uring)
  size_t fixed_buffer_size = 0;      // size of each of them
};

struct ReadRequest {
  int file = 0;           // index returned by Open()
  uint64_t offset = 0;
  size_t length = 0;
  char* buf = nullptr;    // >= length bytes, caller-owned until completion
  uint64_t tag = 0;       // returned unchanged in the ReadCompletion
  int priority = 0;       // lower first (kCapPriorities); added to MethodOptions::priority
  int fixed_buffer = -1;  // index of the fixed buffer `buf` lies in, or -1
};

// One finished read (a backend's finished op is backend::Completion).
struct ReadCompletion {
  uint64_t tag = 0;
  int file = 0;
  uint64_t offset = 0;
  size_t length = 0;   // requested
  size_t bytes = 0;    // returned; < length only at end of file or on error
  int error = 0;       // errno, 0 on success
};

// What Submit did with a read: the same contract as backend::SubmitResult, one level down.
enum class ReadSubmitResult { kCompleted, kQueued, kBusy };

class ReadMethod {
 public:
  virtual ~ReadMethod();
  ReadMethod(const ReadMethod&) = delete;
  ReadMethod& operator=(const ReadMethod&) = delete;

  std::string_view name() const { return name_; }
  uint32_t capabilities() const { return caps_; }
  bool Has(MethodCapability c) const { return (caps_ & c) != 0; }
  const MethodOptions& options() const { return options_; }

  // Opens `path` for this method and returns its index for ReadRequest::file.
  StatusOr<int> Open(const std::string& path);
  const OpenedFile& file(int index) const { return files_[static_cast<size_t>(index)]; }
  size_t file_count() const { return files_.size(); }
  // Alignment buffers and offsets must follow (1 unless direct).
  DirectAlignment alignment(int file_index) const { return file(file_index).alignment; }

  // Starts a read (see the file comment for the three outcomes); `done` is
  // written only on kCompleted. Non-ok only when the request is malformed.
  // The per-read path: one virtual call into the method, the full check only
  // for requests that need it (O_DIRECT, fixed buffers, anything out of range).
  StatusOr<ReadSubmitResult> Submit(const ReadRequest& req, ReadCompletion* done);
  // Submits reads together (one syscall for kCapBatchSubmit methods): returns how
  // many of `reqs` were accepted, in order; those finished at once are written to
  // done[0..*n_done). The rest were refused as busy: reap, then submit them again.
  StatusOr<size_t> SubmitBatch(std::span<const ReadRequest> reqs, ReadCompletion* done, size_t* n_done);
  // Waits until at least min(min, in_flight()) reads finish and stores up to `max` in `out`.
  StatusOr<size_t> Reap(size_t min, size_t max, ReadCompletion* out);
  // Reads submitted and not yet reaped.
  size_t in_flight() const { return in_flight_; }

  // The per-read fast path for a caller that submits the same plain request
  // millions of times (a benchmark's worker): a synchronous read with the
  // caller's own buffer (no fixed buffer), of a file not opened O_DIRECT, with
  // nothing in flight. One indirect call into the method's read loop, the same
  // counters and timing as Submit, no ReadCompletion, no validation: the caller
  // checks PlainReads() once (methods without a plain read return false).
  bool PlainReads(int file) const {
    return plain_ != nullptr && in_flight_ == 0 && static_cast<size_t>(file) < files_.size() &&
           !files_[static_cast<size_t>(file)].direct;
  }
  [[gnu::always_inline]] ReadOutcome ReadPlain(int file, uint64_t offset, size_t length, char* buf) {
    const uint64_t t0 = TimerStart();
    // pread, the baseline every method is measured against, is inline here.
    const ReadOutcome r = plain_is_pread_ ? PlainPread(file, buf, length, offset)
                                          : plain_(*this, file, buf, length, offset);
    TimerStop(t0);
    counters_.requests++;
    counters_.completions++;
    counters_.bytes_requested += length;
    counters_.bytes_returned += r.bytes;
    counters_.errors += r.error != 0;
    return r;
  }

  // Synchronous read; only valid with nothing in flight. Returns bytes read (short at EOF).
  StatusOr<size_t> Read(int file, uint64_t offset, size_t length, char* buf, int priority = 0);

  // "<op> <path> at <offset>: <strerror>" for a failed completion.
  Status ErrorStatus(const ReadCompletion& c) const;

  // Buffer i of MethodOptions::fixed_buffers (registered with the kernel where
  // the method supports it), aligned for O_DIRECT.
  std::span<char> fixed_buffer(int i) const;

  // While on, every call into the method (DoSubmit, DoSubmitBatch, DoReap) is
  // timed into counters().timed_ns: the caller samples some ops this way to
  // tell its own cost from the method's (two clock reads per call, so not all).
  void set_timing(bool on) { timing_ = on; }

  const IoCounters& counters() const { return counters_; }
  IoCounters& mutable_counters() { return counters_; }

 protected:
  ReadMethod(std::string_view name, uint32_t caps, const MethodOptions& options);

  // Method hooks. DoSubmit receives validated requests; methods with priorities
  // order by req.priority + options().priority.
  virtual Status OnOpen(int /*index*/) { return Status::Ok(); }
  virtual StatusOr<ReadSubmitResult> DoSubmit(const ReadRequest& req, ReadCompletion* done) = 0;
  // Default: DoSubmit one by one. Returns the accepted count; completed reads
  // are written to done[0..*n_done).
  virtual StatusOr<size_t> DoSubmitBatch(std::span<const ReadRequest> reqs, ReadCompletion* done, size_t* n_done);
  // Only async methods queue reads; sync ones never reach here with work to do.
  virtual StatusOr<size_t> DoReap(size_t /*min*/, size_t /*max*/, ReadCompletion* /*out*/) { return size_t{0}; }
  // Syscall name used in ErrorStatus.
  virtual std::string_view ReadOpName() const { return "read"; }

  // A method that can read synchronously registers its read here (see
  // PlainReads); it must count syscalls and transferred bytes as DoSubmit does,
  // and DoSubmit should call the same function so both paths read alike.
  using PlainReadFn = ReadOutcome (*)(ReadMethod& self, int file, char* buf, size_t length, uint64_t offset);
  void set_plain_read(PlainReadFn fn) { plain_ = fn; }
  // The plain read of a method that is one pread(2) per request, inline in ReadPlain.
  void set_plain_pread() {
    plain_ = [](ReadMethod& self, int file, char* buf, size_t length, uint64_t offset) {
      return self.PlainPread(file, buf, length, offset);
    };
    plain_is_pread_ = true;
  }
  [[gnu::always_inline]] ReadOutcome PlainPread(int file, char* buf, size_t length, uint64_t offset) {
    const OpenedFile& f = files_[static_cast<size_t>(file)];
    return PreadLoop(f.fd, buf, length, offset, f.alignment.offset, 0, counters_);
  }

  // Method setup that can fail (rings, pools); runs after the fixed buffers exist.
  virtual Status Init() { return Status::Ok(); }
  const std::vector<AlignedBuffer>& fixed_buffers() const { return fixed_; }

  std::vector<OpenedFile> files_;
  IoCounters counters_;

 private:
  Status Validate(const ReadRequest& req) const;
  StatusOr<ReadSubmitResult> SubmitValid(const ReadRequest& req, ReadCompletion* done);
  [[gnu::noinline]] StatusOr<ReadSubmitResult> TimedDoSubmit(const ReadRequest& req, ReadCompletion* done);
  // True when `req` needs no more checking than this (the common read).
  bool Plain(const ReadRequest& req) const {
    return static_cast<size_t>(req.file) < files_.size() && req.buf != nullptr && req.fixed_buffer < 0 &&
           !files_[static_cast<size_t>(req.file)].direct;
  }
  void Account(const ReadCompletion* done, size_t n);
  uint64_t TimerStart() const { return timing_ ? clock_.NowNs() : 0; }
  void TimerStop(uint64_t start_ns) {
    if (!timing_) return;
    counters_.timed_calls++;
    counters_.timed_ns += clock_.NowNs() - start_ns;
  }
  Status AllocateFixedBuffers();
  friend StatusOr<std::unique_ptr<ReadMethod>> CreateReadMethod(std::string_view, const MethodOptions&);

  std::string_view name_;
  uint32_t caps_;
  MethodOptions options_;
  std::vector<AlignedBuffer> fixed_;
  size_t in_flight_ = 0;
  bool timing_ = false;
  PlainReadFn plain_ = nullptr;
  bool plain_is_pread_ = false;
  const measure::Clock& clock_ = measure::Clock::Default();
};

// Registry entry: a method's name, capabilities and a one-line description.
struct MethodInfo {
  std::string_view name;
  uint32_t capabilities;
  std::string_view description;
};

// All methods this build knows, in a stable order.
std::span<const MethodInfo> ReadMethods();
// Creates the method called `name`; InvalidArgument for an unknown name or an
// option the method cannot honour (e.g. direct with mmap), NotSupported when the
// kernel or build lacks it (io_uring).
StatusOr<std::unique_ptr<ReadMethod>> CreateReadMethod(std::string_view name, const MethodOptions& options);

}  // namespace storebench::io
