// The `null` backend: ops that do nothing, or wait a known time, so the driver
// and the measurement core can be tested and measured on their own (fio's
// null engine). Optional injected stalls pause every worker at once for a
// fixed time once per period, like a storage device that hiccups — the case
// that shows coordinated omission. With --null-async ops complete through
// Reap() after their service time, exercising queue depth > 1. A service
// time may be fixed or exponentially distributed (a known distribution whose
// percentiles are known), and a periodic slowdown stretches it for part of
// every period, as a store whose capacity drops now and then. --burn gives
// the backend background threads ("null:burn") that spin on the first
// worker's CPUs, as an engine's compaction threads take the CPU from the
// threads that serve requests.
#pragma once

#include <vector>

#include "storebench/backend/backend.h"

namespace storebench::backend {

BackendInfo NullBackendInfo();

// The walk service's ring (exposed for tests): `lines` entries 16 uint32_t (a
// cache line) apart, each holding the index of the next, in one random cycle
// through every line.
std::vector<uint32_t> NullWalkRing(uint32_t lines, uint64_t seed);

// Parsed null-backend options (exposed for tests).
struct NullOptions {
  // kWork: a fixed amount of CPU work calibrated at start-up to take service_ns,
  // so that a slow or stolen CPU stretches it as it stretches an engine's own work.
  // kWalk: a fixed number of dependent loads from random lines of a 64 MiB
  // buffer (far larger than the caches), calibrated the same way: a service
  // bound by the memory's latency, which a neighbour loading the memory stretches.
  enum class Service { kZero, kSpin, kSleep, kSpinExponential, kWork, kWalk } service = Service::kZero;
  uint64_t service_ns = 0;       // the fixed time, or the mean of the exponential one
  double slow_factor = 1;        // service time × this during the slow part of each slow period
  uint64_t slow_ns = 0;          // 0 = no slowdown
  uint64_t slow_period_ns = 0;   // the first slow_ns of every period is slow
  uint64_t stall_ns = 0;         // 0 = no stalls
  uint64_t stall_period_ns = 0;  // a stall of stall_ns ends every period
  int stall_worker = -1;         // the worker (index over the run) that stalls; -1 = every worker
  bool async = false;
  uint64_t fail_every = 0;       // every Nth op of a worker fails (outcome "error"); 0 = none
  uint64_t burn_ns = 0;          // background threads spin burn_ns of every burn_period_ns; 0 = none
  uint64_t burn_period_ns = 0;
  int burn_threads = 1;
};
// The null backend's options, declared once.
const OptionTable<NullOptions>& NullOptionTable();

// Whether an op begun `since_epoch_ns` after the backend opened falls in the slow
// part of a --slow period (the first slow_ns of each slow_period_ns: a run
// of whole periods sees every slow part and the queue it leaves drain).
bool InSlowPart(const NullOptions& o, uint64_t since_epoch_ns);

}  // namespace storebench::backend
