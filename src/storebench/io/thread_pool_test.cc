#include "storebench/io/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <vector>

namespace storebench::io {
namespace {

// Records its id in a shared log when run.
class Recorder final : public PoolTask {
 public:
  Recorder(int id, std::mutex* mu, std::vector<int>* log) : id_(id), mu_(mu), log_(log) {}
  void Run() override {
    std::lock_guard<std::mutex> lock(*mu_);
    log_->push_back(id_);
  }

 private:
  int id_;
  std::mutex* mu_;
  std::vector<int>* log_;
};

// Occupies a pool thread until released, so later tasks queue up deterministically.
// Declare it before the pool so it outlives the pool's threads.
class Blocker final : public PoolTask {
 public:
  void Run() override {
    started.set_value();
    released.wait();
  }
  std::promise<void> started;
  std::promise<void> release;
  std::future<void> released = release.get_future();
};

TEST(ThreadPool, RunsLowerPriorityValuesFirst) {
  std::mutex mu;
  std::vector<int> log;
  Recorder p5(5, &mu, &log), p1(1, &mu, &log), p3(3, &mu, &log);
  Blocker blocker;
  {
    ThreadPool pool(1);
    pool.Enqueue(&blocker, 0);
    blocker.started.get_future().wait();
    pool.Enqueue(&p5, 5);
    pool.Enqueue(&p1, 1);
    pool.Enqueue(&p3, 3);
    EXPECT_EQ(pool.queued(), 3u);
    blocker.release.set_value();
  }  // the destructor runs what is queued, then joins
  EXPECT_EQ(log, (std::vector<int>{1, 3, 5}));
}

TEST(ThreadPool, EqualPrioritiesRunInSubmissionOrder) {
  std::mutex mu;
  std::vector<int> log;
  std::vector<Recorder> tasks;
  tasks.reserve(6);
  for (int i = 0; i < 6; ++i) tasks.emplace_back(i, &mu, &log);
  Blocker blocker;
  {
    ThreadPool pool(1);
    pool.Enqueue(&blocker, 0);
    blocker.started.get_future().wait();
    for (int i = 0; i < 6; ++i) pool.Enqueue(&tasks[i], i % 2);  // evens priority 0, odds 1
    blocker.release.set_value();
  }
  EXPECT_EQ(log, (std::vector<int>{0, 2, 4, 1, 3, 5}));
}

TEST(ThreadPool, ManyProducersAllTasksRun) {
  constexpr int kProducers = 4, kPerProducer = 500;
  std::mutex mu;
  std::vector<int> log;
  std::vector<Recorder> tasks;
  tasks.reserve(kProducers * kPerProducer);
  for (int i = 0; i < kProducers * kPerProducer; ++i) tasks.emplace_back(i, &mu, &log);
  {
    ThreadPool pool(3, 16);  // a small reserve makes the queue grow under contention
    std::vector<std::thread> producers;
    for (int p = 0; p < kProducers; ++p) {
      producers.emplace_back([&, p] {
        for (int i = 0; i < kPerProducer; ++i) pool.Enqueue(&tasks[p * kPerProducer + i], i % 7);
      });
    }
    for (std::thread& t : producers) t.join();
  }
  std::sort(log.begin(), log.end());
  ASSERT_EQ(log.size(), size_t(kProducers * kPerProducer));
  for (int i = 0; i < kProducers * kPerProducer; ++i) ASSERT_EQ(log[i], i);
}

}  // namespace
}  // namespace storebench::io
