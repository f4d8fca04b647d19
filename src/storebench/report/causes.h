// Who made an open loop's response tail, as measured shares of it, at a
// percentile (p99) and at the max, for the run and per interval. Four causes:
//
//   queueing  queueing behind the engine: what the ideal client (the same
//             arrivals and service times through the same servers, with no
//             client in between: driver/ideal_client.h) also waits. Its tail
//             is the engine's, service time included.
//   engine    the engine's threads holding the CPU (compaction, flush, any
//             thread of the process that is neither a worker nor the client's)
//   client    the client's own threads (reporter, hiccup meter, signal waiter),
//             and the workers themselves when there are more of them than CPUs
//   platform  other processes, the kernel, the hypervisor's steal, and late
//             wake-ups on an otherwise idle machine
//
// Definition: at tail quantile q, with observed response R_q, the ideal
// client's I_q and the steady-platform ideal client's N_q over the same ops
// (ideal_client.h; N_q = I_q without the platform meter), I = min(I_q, R_q)
// and N = min(N_q, I):
//   queueing          = (1 − f) · N / R_q
//   platform (speed)  = (1 − f) · (I − N) / R_q: the service times the
//                       platform stretched (slow or stopped CPUs, measured by
//                       the platform meter), and the queue they built
// and the rest is split as below (the platform's share of it adds to the
// platform's). The ideal client with the platform's stops P_q (the stops
// the workers measured while they waited, awake, for an arrival) is at least
// I_q; with P = min(P_q, R_q) and I = min(I_q, P):
//   platform (stops)  = (P − I) / R_q: the starts the platform's stops delayed
//                       between ops, where the meter does not see them
// Without the meter N = I, and this is the former definition:
// queueing = (1 − f) · min(I_q, R_q) / R_q,
// where f is the share of the time the workers had arrivals waiting for them
// that they spent on the run queue (CpuHeld::backlogged_*, sampled every 20 ms
// or less). The ideal client replays service times as measured, so a worker
// taken off its CPU while ops queue behind it stretches the queue the ideal
// client reproduces; that part, f of it, is the wait for a CPU, not the
// engine's own work (a write delay the worker sleeps through, a device), and
// goes with the rest. The rest, R_q − I_q plus that part, is what CPU
// contention and late wake-ups added: it is split among the other three in
// proportion to the CPU time each held on the workers' CPUs during the window
// (driver/cpu_account.h), that is, to how much of what the workers queued
// behind was theirs; the platform's includes the CPU time the platform meter
// saw it take (a stopped or slowed CPU: span − work, platform_timeline.h). With no competing CPU time at all, a late start is the
// platform's wake-up latency. The shares sum to 1. An estimate, stated as
// one: the split does not see which CPU an engine or client thread ran on,
// and f is the window's rate, not the tail op's own. The run's max is one op:
// its causes are those of the interval it arrived in (IntervalCauses), so the
// window is that interval; its p99 is the run's.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "storebench/driver/cpu_account.h"
#include "storebench/driver/runner.h"

namespace storebench::report {

struct TailCauses {
  bool known = false;  // false: no ideal-client figures (closed loop, or merged processes)
  uint64_t observed_ns = 0, ideal_ns = 0;
  uint64_t steady_ns = 0;  // the steady-platform ideal client's (= own_cpu_ns without the meter)
  uint64_t own_cpu_ns = 0;  // the own-CPU ideal client's (= ideal_ns without per-op preemption)
  uint64_t with_stops_ns = 0;  // the ideal client's with the platform's stops between ops (>= ideal_ns)
  double cpu_wait = 0;  // f: the workers' run-queue wait over their backlogged time
  double queueing = 0, engine = 0, client = 0, platform = 0;
  double platform_speed = 0;  // of `platform`, the part the meter measured in the service times
  double platform_stops = 0;  // of `platform`, the part the workers' stops between ops delayed
  // "queueing", "engine", "client" or "platform": the largest share (ties in that order).
  const char* largest() const;
  double share(const char* cause) const;
};

struct RunCauses {
  TailCauses p99, max;
};

// The weights the added part is split by, in ns of CPU held: the engine's,
// the client's threads' (and workers' beyond `worker_cpus`), the platform's.
struct CauseWeights {
  double engine = 0, client = 0, platform = 0;
};
// `platform_lost_ns`: the CPU time the platform meter saw the platform take
// from the workers' CPUs (span − work: stops and slow running, summed over
// the metered CPUs); it adds to the platform's weight.
CauseWeights WeightsOf(const driver::CpuHeld& cpu, double workers, double worker_cpus, double platform_lost_ns = 0);
// f: the workers' run-queue wait while backlogged, less the waits measured
// inside ops (CpuHeld::preempted_in_ops_ns: the replays leave those out
// already), over their backlogged time (0 without a backlog). A wait inside an
// op shorter than kPreemptedFromNs is not measured per op; f covers it.
double CpuWaitShare(const driver::CpuHeld& cpu);
TailCauses Attribute(uint64_t observed_ns, uint64_t ideal_ns, const CauseWeights& w, double cpu_wait = 0,
                     std::optional<uint64_t> steady_ns = std::nullopt,
                     std::optional<uint64_t> own_cpu_ns = std::nullopt,
                     std::optional<uint64_t> with_stops_ns = std::nullopt);

// The run's CPU held, from its metrics (platform.cpu_held.*).
driver::CpuHeld RunCpuHeld(const driver::RunResult& r);
// The run's causes (unknown without the ideal client), and one interval's.
RunCauses CausesOf(const driver::RunResult& r);
RunCauses IntervalCauses(const driver::RunResult& r, const driver::IntervalStats& st);

// "queueing behind the engine", "the engine's threads", "the client's own threads", "the platform"
const char* CauseLabel(const char* cause);

}  // namespace storebench::report
