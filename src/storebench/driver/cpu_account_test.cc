#include "storebench/driver/cpu_account.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <thread>

#include "storebench/driver/threads.h"
#include "storebench/measure/clock.h"
#include "storebench/measure/wait.h"

namespace storebench::driver {
namespace {

// Burns CPU until told to stop; named like an engine's pool thread or the client's own.
void Burn(const std::atomic<bool>* stop, const char* name, std::atomic<pid_t>* tid) {
  (void)pthread_setname_np(pthread_self(), name);
  tid->store(CurrentTid());
  volatile uint64_t x = 0;
  while (!stop->load(std::memory_order_relaxed)) x = x + 1;
}

TEST(CpuAccount, ClassifiesWorkersTheClientsThreadsAndTheEnginesByName) {
  std::atomic<bool> stop{false};
  std::atomic<pid_t> worker_tid{0}, engine_tid{0}, client_tid{0};
  std::thread worker(Burn, &stop, "anything", &worker_tid);
  std::thread engine(Burn, &stop, "pool:low7", &engine_tid);
  std::thread client(Burn, &stop, "sb:aux", &client_tid);
  while (!worker_tid.load() || !engine_tid.load() || !client_tid.load()) std::this_thread::yield();
  const measure::Clock& clock = measure::Clock::Default();
  CpuAccount account({{worker_tid.load(), nullptr}}, {CurrentTid()});
  account.Begin(clock.NowNs());
  // Long enough for each busy thread to get CPU time on a loaded machine: the
  // assertions are on who is counted where, not on how much.
  measure::SleepUntil(clock, clock.NowNs() + 300'000'000);
  const CpuHeld held = account.Take(clock.NowNs());
  stop.store(true);
  worker.join();
  engine.join();
  client.join();
  EXPECT_GT(held.workers_ns, 0u);
  EXPECT_GT(held.client_ns, 0u);
  EXPECT_GT(held.engine_ns, 0u);
  ASSERT_EQ(held.engine_threads.count("pool:low"), 1u) << "trailing digits group a pool under one name";
  EXPECT_GT(held.engine_threads.at("pool:low"), 0u);
  EXPECT_EQ(held.engine_threads.count("sb:aux"), 0u);
  EXPECT_GT(held.capacity_ns, 0u);
}

TEST(CpuAccount, AWorkerThatEndedIsReadFromWhatItLeft) {
  std::atomic<uint64_t> at_end{0};
  const pid_t gone = 1 << 30;  // no such thread
  CpuAccount account({{gone, &at_end}}, {});
  account.Begin(1);
  at_end.store(5'000'000);
  // The first reading of a thread is its baseline; the next counts what it added.
  (void)account.Take(2);
  at_end.store(7'000'000);
  EXPECT_EQ(account.Take(3).workers_ns, 2'000'000u);
}

// Two workers pinned to one CPU, both busy: while one runs the other waits on
// the run queue. Slots in which a worker is behind count its time as
// backlogged, with its run-queue wait, at most the slot; slots in which it is
// not count nothing.
TEST(CpuAccount, SlotsCountTheRunQueueWaitOfWorkersThatWereBehind) {
  if (!PinCurrentThread({0}).ok()) GTEST_SKIP() << "cannot pin to CPU 0 here";
  std::atomic<bool> stop{false};
  std::atomic<pid_t> a{0}, b{0};
  std::thread ta(Burn, &stop, "w", &a), tb(Burn, &stop, "w", &b);  // inherit CPU 0
  while (!a.load() || !b.load()) std::this_thread::yield();
  const measure::Clock& clock = measure::Clock::Default();
  CpuAccount account({{a.load(), nullptr}, {b.load(), nullptr}}, {CurrentTid()}, {0});
  account.Begin(clock.NowNs());
  uint64_t slots_behind = 0;
  for (int slot = 0; slot < 20; ++slot) {
    measure::SleepUntil(clock, clock.NowNs() + 10'000'000);
    const bool behind = slot % 2 == 1;  // the first slot is the baseline
    account.Slot(clock.NowNs(), [&](size_t) { return behind; });
    slots_behind += behind;
  }
  const CpuHeld held = account.Take(clock.NowNs());
  // A window with no slot behind has nothing backlogged.
  for (int slot = 0; slot < 3; ++slot) {
    measure::SleepUntil(clock, clock.NowNs() + 10'000'000);
    account.Slot(clock.NowNs(), [](size_t) { return false; });
  }
  const CpuHeld none = account.Take(clock.NowNs());
  stop.store(true);
  ta.join();
  tb.join();
  EXPECT_EQ(none.backlogged_ns, 0u);
  EXPECT_EQ(none.backlogged_runqueue_ns, 0u);
  EXPECT_GT(none.workers_ns, 0u);
  // Two workers, 10 behind slots of >= 10 ms each: >= 200 ms backlogged, and
  // less than the whole window's two workers' time.
  EXPECT_GE(held.backlogged_ns, 2 * slots_behind * 10'000'000);
  EXPECT_LE(held.backlogged_runqueue_ns, held.backlogged_ns);
  EXPECT_GT(held.backlogged_runqueue_ns, 0u) << "two busy threads on one CPU wait for each other";
}

// Under --cpus the reporter and the hiccup meter are kept off the workers'
// CPUs: a client thread that may not run on any of them held none of them and
// is in no share (before, its time on the other CPU made the client's weight).
TEST(CpuAccount, AThreadKeptOffTheWorkersCpusCountsInNoShare) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs: one for the workers, one kept off them";
  std::atomic<bool> stop{false};
  std::atomic<pid_t> worker_tid{0}, off_tid{0};
  std::thread worker(Burn, &stop, "anything", &worker_tid);
  std::thread off([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[1], &one);
    (void)pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    Burn(&stop, "sb:reporter", &off_tid);
  });
  while (!worker_tid.load() || !off_tid.load()) std::this_thread::yield();
  const measure::Clock& clock = measure::Clock::Default();
  CpuAccount account({{worker_tid.load(), nullptr}}, {}, {cpus[0]});
  account.Begin(clock.NowNs());
  measure::SleepUntil(clock, clock.NowNs() + 300'000'000);
  const CpuHeld held = account.Take(clock.NowNs());
  stop.store(true);
  worker.join();
  off.join();
  EXPECT_EQ(held.client_ns, 0u) << "the thread pinned off the workers' CPU burned there, not on theirs";
  EXPECT_EQ(held.engine_threads.count("sb:reporter"), 0u);
  // Its time is not taken for the engine's either (process − known).
  EXPECT_LT(held.engine_ns, 50'000'000u);
}

TEST(ThreadPoolName, DropsTrailingDigitsAndSeparators) {
  EXPECT_EQ(ThreadPoolName("rocksdb:low12"), "rocksdb:low");
  EXPECT_EQ(ThreadPoolName("io:pool"), "io:pool");
  EXPECT_EQ(ThreadPoolName("worker-3"), "worker");
  EXPECT_EQ(ThreadPoolName("123"), "unnamed");
}

}  // namespace
}  // namespace storebench::driver
