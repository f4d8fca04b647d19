#include "storebench/base/stop_signal.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <thread>

namespace storebench::base {
namespace {

std::atomic<uint64_t> g_arrived_ns{0};
std::atomic<bool> g_real_time{false};

uint64_t MonotonicNow() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

sigset_t StopSignals(bool with_sigusr1) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (with_sigusr1) sigaddset(&set, SIGUSR1);
  return set;
}

bool RaiseToLowestRealTime(pid_t tid) {
  sched_param param{};
  param.sched_priority = sched_get_priority_min(SCHED_FIFO);
  return sched_setscheduler(tid, SCHED_FIFO, &param) == 0;
}

void Watch(const sigset_t& set, std::atomic<bool>* stop, pid_t driver_tid) {
  bool seen = false;
  for (;;) {
    siginfo_t info;
    const int sig = sigwaitinfo(&set, &info);
    if (sig < 0) continue;  // EINTR
    if (!seen) {
      seen = true;
      g_arrived_ns.store(MonotonicNow(), std::memory_order_relaxed);
      stop->store(true);
      // Best effort: without the privilege the driving thread waits its turn, as before.
      if (g_real_time.load(std::memory_order_relaxed)) (void)RaiseToLowestRealTime(driver_tid);
      continue;
    }
    // The second: the default action, now, in this thread.
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
    raise(sig);
  }
}

}  // namespace

void WatchStopSignals(std::atomic<bool>* stop, bool with_sigusr1) {
  const sigset_t set = StopSignals(with_sigusr1);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  const pid_t driver_tid = static_cast<pid_t>(syscall(SYS_gettid));
  std::thread([set, stop, driver_tid] {
    // "sb:" marks the client's own threads (driver/cpu_account.h counts their CPU as the client's).
    (void)pthread_setname_np(pthread_self(), "sb:signals");
    g_real_time.store(RaiseToLowestRealTime(0), std::memory_order_relaxed);
    Watch(set, stop, driver_tid);
  }).detach();
}

uint64_t StopSignalArrivedNs() { return g_arrived_ns.load(std::memory_order_relaxed); }

bool StopWatcherIsRealTime() { return g_real_time.load(std::memory_order_relaxed); }

}  // namespace storebench::base
