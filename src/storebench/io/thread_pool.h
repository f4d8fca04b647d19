// ThreadPool: a fixed set of threads running PoolTasks from one priority
// queue — lower priority value first, first-in first-out among equals.
//
// It is what pread_threadpool hands blocking reads to, and it may be shared by
// the method objects of several workers and query classes of a process, which
// is how a high-priority query overtakes a low-priority one. Tasks are intrusive
// (owned by the submitter, typically preallocated per method object), so
// Enqueue allocates nothing once the queue has grown to its working size.
// Thread-safety: Enqueue may be called from any thread; the destructor runs the
// tasks still queued, then joins, and must not race with Enqueue.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace storebench::io {

// A unit of work for a ThreadPool. Run() executes on a pool thread; after it
// returns the pool never touches the task again, so Run() may hand the task
// back to its owner (who may then reuse or free it).
class PoolTask {
 public:
  virtual void Run() = 0;

 protected:
  ~PoolTask() = default;
};

class ThreadPool {
 public:
  // Starts `threads` threads (at least 1); `queue_reserve` slots are allocated up front.
  explicit ThreadPool(unsigned threads, size_t queue_reserve = 1024);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `task` to run once; lower `priority` runs earlier. `task` must stay alive until Run() returns.
  void Enqueue(PoolTask* task, int priority);
  size_t threads() const { return threads_.size(); }
  // Tasks queued and not yet started (a snapshot).
  size_t queued() const;

 private:
  struct Entry {
    int priority;
    uint64_t seq;
    PoolTask* task;
  };
  // std heap is a max-heap: "a < b" means a runs later.
  static bool RunsLater(const Entry& a, const Entry& b) {
    return a.priority != b.priority ? a.priority > b.priority : a.seq > b.seq;
  }
  void Loop();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Entry> heap_;
  uint64_t next_seq_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace storebench::io
