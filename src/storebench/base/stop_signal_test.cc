#include "storebench/base/stop_signal.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace storebench::base {
namespace {

// Runs `child` in a forked process (WatchStopSignals changes the process's
// signal mask for good) and returns its wait status. The child reports a
// failed check as exit code 10 + the check's number.
template <typename Fn>
int InChild(Fn&& child) {
  pid_t pid = fork();
  if (pid == 0) _exit(child());
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

bool Blocked(int sig) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, nullptr, &now);
  return sigismember(&now, sig) == 1;
}

// Waits up to 10 s (generous: the check is that it happens, not how fast).
template <typename Pred>
bool Eventually(Pred&& pred) {
  for (int i = 0; i < 10'000; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return pred();
}

TEST(StopSignal, TheStopSignalsAreBlockedInEveryThreadButTheWatcher) {
  int status = InChild([] {
    static std::atomic<bool> stop{false};
    WatchStopSignals(&stop);
    if (!Blocked(SIGINT) || !Blocked(SIGTERM)) return 11;
    if (Blocked(SIGUSR1)) return 12;  // only under mpirun
    bool in_thread = false;
    std::thread([&] { in_thread = Blocked(SIGINT) && Blocked(SIGTERM); }).join();
    if (!in_thread) return 13;
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(StopSignal, TheFirstSignalSetsTheFlagAndTheSecondEndsTheProcess) {
  for (int sig : {SIGINT, SIGTERM}) {
    int status = InChild([sig] {
      static std::atomic<bool> stop{false};
      WatchStopSignals(&stop);
      if (StopSignalArrivedNs() != 0) return 11;
      kill(getpid(), sig);
      if (!Eventually([] { return stop.load(); })) return 12;
      if (StopSignalArrivedNs() == 0) return 13;
      kill(getpid(), sig);
      Eventually([] { return false; });  // the second signal ends the process meanwhile
      return 14;
    });
    ASSERT_TRUE(WIFSIGNALED(status)) << "signal " << sig << ": exit " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), sig);
  }
}

TEST(StopSignal, SigusrOneIsAStopUnderMpi) {
  int status = InChild([] {
    static std::atomic<bool> stop{false};
    WatchStopSignals(&stop, /*with_sigusr1=*/true);
    kill(getpid(), SIGUSR1);
    return Eventually([] { return stop.load(); }) ? 0 : 11;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// Where the process may use real-time priority, the watcher runs at it and
// raises the thread that installed it at the stop, so that thread is not left
// waiting its turn among busy workers.
TEST(StopSignal, TheStopRaisesTheDrivingThreadWhenPermitted) {
  int status = InChild([] {
    static std::atomic<bool> stop{false};
    WatchStopSignals(&stop);
    // The watcher sets its own priority as it starts.
    Eventually([] { return StopWatcherIsRealTime(); });
    if (!StopWatcherIsRealTime()) return 20;  // not permitted: the parent skips
    if (sched_getscheduler(0) != SCHED_OTHER) return 11;
    kill(getpid(), SIGTERM);
    if (!Eventually([] { return stop.load(); })) return 12;
    if (!Eventually([] { return sched_getscheduler(0) == SCHED_FIFO; })) return 13;
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 20) GTEST_SKIP() << "SCHED_FIFO is not permitted here (needs CAP_SYS_NICE or RLIMIT_RTPRIO)";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace storebench::base
