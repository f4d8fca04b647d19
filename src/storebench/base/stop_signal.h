// SIGINT and SIGTERM as a stop request that is seen at once, however busy the
// host is.
//
// A signal handler runs in whichever thread the kernel delivers the signal
// to, and only when that thread next gets a CPU. With thousands of runnable
// workers on two CPUs that is a whole scheduler round (seconds) after the
// signal, and until then nothing sees the stop. So the signals are blocked in
// every thread but one, which waits for them in sigwaitinfo(2) at real-time
// priority (SCHED_FIFO 1, when the process may use it): it runs the moment a
// signal comes, sets the stop flag, and raises the thread that installed it
// (the one that drives the run and writes its results) to the same priority,
// so that thread too sees the stop within its next wake-up.
// A second signal ends the process the usual way (default action).
// Thread-safety: WatchStopSignals once, from the main thread, before any other
// thread starts (threads inherit the signal mask); the rest from any thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace storebench::base {

// Blocks SIGINT and SIGTERM (and SIGUSR1 when `with_sigusr1`: mpirun forwards
// it to every rank) in the calling thread, and so in every thread it starts
// later, and starts the thread that waits for them; the first sets *stop,
// which must outlive the process's threads.
void WatchStopSignals(std::atomic<bool>* stop, bool with_sigusr1 = false);

// CLOCK_MONOTONIC ns at which the first stop signal arrived; 0 before one.
uint64_t StopSignalArrivedNs();

// Whether the watcher runs at real-time priority (false without CAP_SYS_NICE
// or an RLIMIT_RTPRIO of at least 1: a stop then waits for the scheduler).
bool StopWatcherIsRealTime();

}  // namespace storebench::base
