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

TEST(ThreadPoolName, DropsTrailingDigitsAndSeparators) {
  EXPECT_EQ(ThreadPoolName("rocksdb:low12"), "rocksdb:low");
  EXPECT_EQ(ThreadPoolName("io:pool"), "io:pool");
  EXPECT_EQ(ThreadPoolName("worker-3"), "worker");
  EXPECT_EQ(ThreadPoolName("123"), "unnamed");
}

}  // namespace
}  // namespace storebench::driver
