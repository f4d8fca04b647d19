#include "storebench/driver/threads.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace storebench::driver {
namespace {

// Threads blocked on a flag are raised; each then sees SCHED_FIFO as its own
// policy. A thread that has already ended (not yet joined) is skipped.
TEST(RaiseToFinish, RaisesTheThreadsGivenAndSkipsOnesThatEnded) {
  std::atomic<int> go{0};
  std::atomic<int> fifo{0};
  std::thread ended([] {});
  while (true) {  // until its kernel thread is gone (the tid is cleared at exit)
    sched_param p{};
    int policy = 0;
    if (pthread_getschedparam(ended.native_handle(), &policy, &p) != 0) break;
    std::this_thread::yield();
  }
  std::vector<std::thread> waiting;
  for (int i = 0; i < 3; ++i) {
    waiting.emplace_back([&] {
      go.wait(0);
      sched_param p{};
      int policy = 0;
      if (pthread_getschedparam(pthread_self(), &policy, &p) == 0 && policy == SCHED_FIFO) ++fifo;
    });
  }
  std::vector<pthread_t> handles{ended.native_handle()};
  for (auto& t : waiting) handles.push_back(t.native_handle());
  StatusOr<int> raised = RaiseToFinish(handles);
  go.store(1);
  go.notify_all();
  for (auto& t : waiting) t.join();
  ended.join();
  if (!raised.ok()) GTEST_SKIP() << "this process may not use SCHED_FIFO: " << raised.status().message();
  EXPECT_EQ(*raised, 3);
  EXPECT_EQ(fifo.load(), 3);
}

TEST(KeepThreadScheduling, PutsTheCallersPolicyBack) {
  std::thread([] {
    ASSERT_EQ(sched_getscheduler(0), SCHED_OTHER);
    {
      const KeepThreadScheduling keep;
      sched_param param{};
      param.sched_priority = sched_get_priority_min(SCHED_FIFO);
      if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) != 0)
        GTEST_SKIP() << "this process may not use SCHED_FIFO";
      ASSERT_EQ(sched_getscheduler(0), SCHED_FIFO);
    }
    EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
  }).join();
}

}  // namespace
}  // namespace storebench::driver

namespace storebench::driver {
namespace {

// The reader's figure is the thread's schedstat run-queue wait: between what
// OwnThreadSched read just before and just after it, on the same thread. At
// most kMaxOpen readers hold a descriptor at once; the rest say so.
TEST(RunqueueReader, ReadsTheCallingThreadsWaitAndHoldsFewDescriptors) {
  RunqueueReader reader;
  if (!reader.ok()) GTEST_SKIP() << "no /proc/thread-self/schedstat on this kernel";
  for (int i = 0; i < 50; ++i) {
    const uint64_t before = OwnThreadSched().runqueue_wait_ns;
    const uint64_t read = reader.WaitNs();
    const uint64_t after = OwnThreadSched().runqueue_wait_ns;
    EXPECT_LE(before, read);
    EXPECT_LE(read, after);
    std::this_thread::yield();
  }
  std::vector<std::unique_ptr<RunqueueReader>> many;
  int open = 1;  // `reader`
  for (int i = 0; i < RunqueueReader::kMaxOpen + 10; ++i) {
    many.push_back(std::make_unique<RunqueueReader>());
    open += many.back()->ok() ? 1 : 0;
  }
  EXPECT_EQ(open, RunqueueReader::kMaxOpen);
  many.clear();
  EXPECT_TRUE(RunqueueReader().ok()) << "a closed reader gives its descriptor back";
}

}  // namespace
}  // namespace storebench::driver
