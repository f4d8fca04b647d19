#include "storebench/io/thread_pool.h"

#include <pthread.h>

#include <algorithm>

namespace storebench::io {

ThreadPool::ThreadPool(unsigned threads, size_t queue_reserve) {
  heap_.reserve(queue_reserve);
  threads_.reserve(std::max(threads, 1u));
  for (unsigned i = 0; i < std::max(threads, 1u); ++i) threads_.emplace_back([this] {
      // Named for what it is in a run's CPU account: the read method's own threads, not the client's.
      (void)pthread_setname_np(pthread_self(), "io:pool");
      Loop();
    });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::Enqueue(PoolTask* task, int priority) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    heap_.push_back(Entry{priority, next_seq_++, task});
    std::push_heap(heap_.begin(), heap_.end(), RunsLater);
  }
  cv_.notify_one();
}

size_t ThreadPool::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return heap_.size();
}

void ThreadPool::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !heap_.empty(); });
    // Queued work still runs at shutdown: its owners are waiting for the completions.
    if (heap_.empty()) return;
    std::pop_heap(heap_.begin(), heap_.end(), RunsLater);
    PoolTask* task = heap_.back().task;
    heap_.pop_back();
    lock.unlock();
    task->Run();
    lock.lock();
  }
}

}  // namespace storebench::io
