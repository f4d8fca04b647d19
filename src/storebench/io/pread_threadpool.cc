// pread_threadpool: ClickHouse's method. A read first tries
// preadv2(RWF_NOWAIT) in the caller's thread, which succeeds when the pages are
// cached; on EAGAIN the rest of the read goes to a thread pool that does plain
// pread, ordered by priority. Never probes with RWF_NOWAIT on an O_DIRECT
// descriptor: there it can start device I/O in the caller's thread.
//
// Each object owns max_in_flight preallocated jobs (the per-query limit); pool
// threads fill a job, including its own IoCounters, and push it on this
// object's done list; Reap folds the job's counters into the object's, so the
// counters stay owned by one thread.
#include <sys/uio.h>

#include <cerrno>
#include <condition_variable>
#include <mutex>

#include <fmt/format.h>

#include "storebench/io/methods.h"
#include "storebench/io/read_loop.h"
#include "storebench/io/thread_pool.h"

namespace storebench::io {

const MethodInfo kPreadThreadPoolInfo = {
    "pread_threadpool", kCapAsync | kCapDirect | kCapPriorities,
    "preadv2(RWF_NOWAIT) inline for cached data, else pread in a priority thread pool"};

namespace {

class PreadThreadPoolMethod;

struct PoolJob final : PoolTask {
  void Run() override;

  PreadThreadPoolMethod* owner = nullptr;
  ReadRequest req;
  int fd = -1;
  uint32_t offset_align = 1;
  size_t done_before = 0;  // bytes the inline probe already read
  ReadOutcome outcome;
  IoCounters counters;
  PoolJob* next = nullptr;  // free list or done list
};

class PreadThreadPoolMethod final : public ReadMethod {
 public:
  explicit PreadThreadPoolMethod(const MethodOptions& o)
      : ReadMethod(kPreadThreadPoolInfo.name, kPreadThreadPoolInfo.capabilities, o) {}

  ~PreadThreadPoolMethod() override {
    // Jobs reference this object and the caller's buffers: wait for all of them.
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return running_ == 0; });
  }

  void Finish(PoolJob* job) {
    // Notify under the lock: once it is released the owner may destroy cv_.
    std::lock_guard<std::mutex> lock(mu_);
    job->next = done_head_;
    done_head_ = job;
    ++done_count_;
    --running_;
    cv_.notify_one();
  }

 protected:
  Status Init() override {
    if (options().max_in_flight == 0) {
      return Status::InvalidArgument("pread_threadpool: max_in_flight must be at least 1");
    }
    pool_ = options().pool;
    if (pool_ == nullptr) {
      own_pool_ = std::make_unique<ThreadPool>(options().pool_threads, options().max_in_flight);
      pool_ = own_pool_.get();
    }
    jobs_ = std::make_unique<PoolJob[]>(options().max_in_flight);
    for (unsigned i = 0; i < options().max_in_flight; ++i) {
      jobs_[i].owner = this;
      jobs_[i].next = free_;
      free_ = &jobs_[i];
    }
    return Status::Ok();
  }

  StatusOr<ReadSubmitResult> DoSubmit(const ReadRequest& req, ReadCompletion* done) override {
    const OpenedFile& f = files_[static_cast<size_t>(req.file)];
    ReadOutcome inline_read;
    if (!f.direct && nowait_supported_) {
      inline_read = PreadLoop(f.fd, req.buf, req.length, req.offset, 1, RWF_NOWAIT, counters_);
      if (inline_read.error == EOPNOTSUPP) {
        nowait_supported_ = false;  // old kernel or filesystem: every read goes to the pool
      } else if (inline_read.error != EAGAIN) {
        counters_.inline_reads++;
        *done = MakeCompletion(req, inline_read.bytes, inline_read.error);
        return ReadSubmitResult::kCompleted;
      }
      // Bytes the probe got stay in the buffer; the pool reads only the rest.
    }
    if (free_ == nullptr) return ReadSubmitResult::kBusy;
    PoolJob* job = free_;
    free_ = job->next;
    job->req = req;
    job->fd = f.fd;
    job->offset_align = f.alignment.offset;
    job->done_before = inline_read.error == EAGAIN ? inline_read.bytes : 0;
    job->outcome = {};
    job->counters = {};
    counters_.pool_reads++;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++running_;
    }
    pool_->Enqueue(job, req.priority + options().priority);
    return ReadSubmitResult::kQueued;
  }

  StatusOr<size_t> DoReap(size_t min, size_t max, ReadCompletion* out) override {
    PoolJob* got = nullptr;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return done_count_ >= min; });
      // Take the whole list; what exceeds `max` goes back below.
      got = done_head_;
      done_head_ = nullptr;
      done_count_ = 0;
    }
    size_t n = 0;
    while (got != nullptr && n < max) {
      PoolJob* job = got;
      got = got->next;
      counters_ += job->counters;
      out[n++] = MakeCompletion(job->req, job->done_before + job->outcome.bytes, job->outcome.error);
      job->next = free_;
      free_ = job;
    }
    if (got != nullptr) {
      std::lock_guard<std::mutex> lock(mu_);
      PoolJob* tail = got;
      size_t extra = 1;
      for (; tail->next != nullptr; tail = tail->next) ++extra;
      tail->next = done_head_;
      done_head_ = got;
      done_count_ += extra;
    }
    return n;
  }

  std::string_view ReadOpName() const override { return "pread"; }

 private:
  ThreadPool* pool_ = nullptr;
  std::unique_ptr<ThreadPool> own_pool_;
  std::unique_ptr<PoolJob[]> jobs_;
  PoolJob* free_ = nullptr;  // owner thread only
  bool nowait_supported_ = options().nowait_probe;

  std::mutex mu_;
  std::condition_variable cv_;
  PoolJob* done_head_ = nullptr;  // guarded by mu_
  size_t done_count_ = 0;         // guarded by mu_
  size_t running_ = 0;            // guarded by mu_
};

void PoolJob::Run() {
  outcome = PreadLoop(fd, req.buf + done_before, req.length - done_before, req.offset + done_before, offset_align, 0,
                      counters);
  owner->Finish(this);
}

}  // namespace

std::unique_ptr<ReadMethod> NewPreadThreadPool(const MethodOptions& options) {
  return std::make_unique<PreadThreadPoolMethod>(options);
}

}  // namespace storebench::io
