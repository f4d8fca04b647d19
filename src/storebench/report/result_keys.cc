#include "storebench/report/result_keys.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace storebench::report {
namespace {

using enum KeyShape;

// In the order docs/json.md lists them. Meanings are one sentence; the
// units are in the names (_ns, _s, _bytes, _per_sec) unless said.
constexpr ResultKey kKeys[] = {
    // The document
    {"schema", kValue, "`storebench.run/2` (readers also take `storebench.run/1`)"},
    {"tool", kSection, "the build: name, version, git_commit, build_type, compiler, the rocksdb, liburing and mpi versions, sanitizers"},
    {"command[]", kValue, "the command line that made the result, one argument per element"},
    {"finished_at", kValue, "when the run ended, UTC, ISO 8601"},
    {"config", kSection, "the job as given (a job file: `storebench run --job RESULT.json` reruns it); "
                         "`storebench run --default-job --print-job` shows its keys"},
    {"environment", kSection, "the machine: hostname, kernel, cpu_model, cpus, cpus_allowed, memory_bytes, clock, "
                              "the data path's filesystem, the measured wake-up latency and the open-loop wait window"},
    // Totals and rates
    {"throughput.ops_per_sec", kValue, "measured ops (warm-up excluded) per second of the measured window"},
    {"throughput.ok_ops_per_sec", kValue, "the same, of ops that did not fail"},
    {"throughput.bytes_per_sec", kValue, "bytes the ops moved, per second"},
    {"totals.ops", kValue, "measured ops"},
    {"totals.errors", kValue, "measured ops whose outcome is an error"},
    {"totals.bytes", kValue, "bytes the measured ops moved"},
    {"totals.elapsed_s", kValue, "the measured window's length"},
    {"totals.warmup_ops", kValue, "ops that started during --warmup (not in any other figure)"},
    {"totals.unfinished", kValue, "ops still in flight when the run ended"},
    {"totals.unstarted", kValue, "open loop: ops that were due before the end and never started"},
    {"totals.interrupted", kValue, "true when SIGINT/SIGTERM ended the run (the figures are of what ran)"},
    {"totals.stopped_on_errors", kValue, "true when --max-errors ended the run"},
    {"totals.outcomes", kOutcomes, "measured ops per outcome"},
    {"totals.stop.wait_s", kValue, "interrupted runs: how long the workers took to stop"},
    {"totals.stop.workers_raised", kValue, "interrupted runs: workers whose priority was raised so that they could stop"},
    {"totals.stop.raise_refused", kValue, "interrupted runs: workers whose priority could not be raised"},
    // Latency
    {"latency.response", kLatency, "response time: from each op's intended start (its arrival; in a closed loop its "
                                   "actual start) to its end"},
    {"latency.service", kLatency, "service time: from each op's actual start to its end"},
    {"latency.ideal", kLatency, "open loop: the ideal client's response times (the same arrivals and service times "
                                "through FIFO servers, no client or platform delay)"},
    {"latency.steady", kLatency, "open loop, with the platform meter: the steady-platform ideal client's response "
                                 "times (the ideal client with each service time as the work its CPU could do at "
                                 "its calibrated speed while the op ran, less the worker's own run-queue wait in it)"},
    {"latency.own_cpu", kLatency, "open loop: the own-CPU ideal client's response times (the ideal client with each "
                                  "service time less the worker's own run-queue wait in it: another thread held its "
                                  "CPU; measured for ops of 0.5 ms or longer)"},
    {"latency.with_stops", kLatency, "open loop: the ideal client's response times with the platform's stops "
                                     "between ops (each op also held back by the time its worker, awake and "
                                     "waiting for its arrival, did not run while no other thread held its CPU)"},
    {"latency.ideal.servers", kValue, "the ideal client's servers: the workers' threads times their queue depth"},
    {"latency.ideal.exact", kValue, "false when the ideal client's op log overflowed"},
    {"latency.ideal.dropped_ops", kValue, "ops the ideal client's log could not hold"},
    {"latency.client_added", kPercentiles, "observed response less the ideal client's, at p50, p99, p99.9 and max "
                                           "(signed; the summary's `beyond` line)"},
    {"schedule.open_loop", kValue, "true for an open loop (a schedule of arrivals), false for a closed loop"},
    {"schedule.effective", kValue, "the schedule that ran (two-phase: the rate phase 2 ran at, e.g. `constant:75141`)"},
    {"schedule.start_lag", kLatency, "actual start less intended start of each op (0 in a closed loop)"},
    {"schedule.sustained", kValue, "open loop: at least 99% of the offered ops ran (or all but one per worker) and "
                                   "at most 1% of them were due and never started"},
    {"schedule.offered_ops_per_sec", kValue, "open loop: the rate the schedule asked for"},
    {"schedule.achieved_ops_per_sec", kValue, "open loop: the rate that ran"},
    {"schedule.achieved_fraction", kValue, "open loop: achieved / offered"},
    {"schedule.end_backlog_ops", kValue, "open loop: ops due and not started at the end (as totals.unstarted)"},
    {"schedule.no_arrivals_due", kValue, "open loop: true when no arrival fell due in the measured window (the "
                                         "rate stayed zero, or the next arrival lay beyond the end): 0 ops, on time"},
    {"causes.definition", kValue, "the formula of the shares below, in words"},
    {"causes.p99", kCauses, "open loop: what the response p99 is made of"},
    {"causes.max", kCauses, "open loop: what the response maximum is made of"},
    // Per kind and per group
    {"kinds.*.ops", kValue, "measured ops of this kind (`get`, `put`, …; `GROUP/KIND` with several --class groups)"},
    {"kinds.*.ops_per_sec", kValue, "the same, per second"},
    {"kinds.*.bytes", kValue, "bytes this kind moved"},
    {"kinds.*.outcomes", kOutcomes, "this kind's ops per outcome"},
    {"kinds.*.response", kLatency, "this kind's response time"},
    {"kinds.*.service", kLatency, "this kind's service time"},
    {"groups.*.ops", kValue, "several --class groups: the group's measured ops"},
    {"groups.*.ops_per_sec", kValue, "the same, per second"},
    {"groups.*.response", kLatency, "the group's response time (all its kinds)"},
    {"groups.*.service", kLatency, "the group's service time"},
    // The workers and the platform
    {"workers.threads", kValue, "worker threads"},
    {"workers.cpus", kValue, "CPUs the workers may run on (--cpus, else the process's)"},
    {"workers.process_cpus", kValue, "CPUs the process may run on"},
    {"workers.cpu_ns", kValue, "CPU time the workers used in the measured window (schedstat)"},
    {"workers.runqueue_wait_ns", kValue, "time the workers were runnable but had no CPU (schedstat)"},
    {"workers.involuntary_switches", kValue, "the workers' involuntary context switches"},
    {"workers.wait.sleeps", kValue, "open loop: waits for an arrival that slept"},
    {"workers.wait.late_sleeps", kValue, "open loop: sleeps that woke after the arrival they waited for"},
    {"workers.wait.late_yields", kValue, "open loop, as many workers as CPUs: yielding stretches that ended later than "
                                         "the spin window (a busy neighbour ran first); each made the worker sleep "
                                         "through its next 256 windows"},
    {"workers.wait.max_spin_window_ns", kValue, "open loop: the widest gap --wait adaptive stayed awake for"},
    {"platform.cpu_held", kCpuHeld, "who held the CPU during the measured window"},
    {"platform.unsteady", kValue, "true when the platform ran below 0.8 of its calibrated speed for more than 5% of "
                                  "the measured time (platform.speed.slow_share > 0.05)"},
    {"platform.meter.cpu_ns", kValue, "the platform meter's own CPU time (its cost)"},
    {"platform.meter.cost_share_of_cpu", kValue, "that, as a share of one CPU over the measured window"},
    {"platform.meter.cpus", kValue, "CPUs the meter ran on (one thread each, pinned: the workers' CPUs)"},
    {"platform.meter.period_ns", kValue, "how often each meter thread wakes and runs its units"},
    {"platform.meter.cpu_unit_ns", kValue, "the integer unit's calibrated (nominal) time, each meter on its own CPU: the slowest CPU's"},
    {"platform.meter.memory_unit_ns", kValue, "the memory unit's calibrated time"},
    {"platform.meter.contention_unit_ns", kValue, "the contention unit's calibrated time (tree searches and an ALU "
                                                   "loop, geometric mean)"},
    {"platform.meter.cpu_unit_noise", kValue, "the integer unit's own noise at calibration (the largest CPU's): a tick this close to its nominal time reads speed 1"},
    {"platform.meter.wakeup_base_ns", kValue, "the median wake-up latency not counted as a stop"},
    {"platform.meter.ticks", kValue, "the meter's wake-ups in the measured window, over its CPUs"},
    {"platform.meter.dropped", kValue, "ticks lost to a full ring (0 unless the reporter stalled)"},
    {"platform.speed.span_ns", kValue, "time the meter covered, summed over its CPUs"},
    {"platform.speed.work_ns", kValue, "work the CPUs could do in it at their calibrated speed (speed × time)"},
    {"platform.speed.stopped_ns", kValue, "of the span, time the platform did not run the meter although it was due "
                                          "and no thread of this machine held its CPU (a pause, a stopped VM, a "
                                          "quota), summed over CPUs"},
    {"platform.speed.slow_ns", kValue, "of the span, time at a speed below 0.8 (stops included)"},
    {"platform.speed.mean", kValue, "work_ns / span_ns: the platform's mean speed (1.0 = calibrated)"},
    {"platform.speed.slow_share", kValue, "slow_ns / span_ns"},
    {"platform.speed.min", kValue, "the slowest integer unit's speed"},
    {"platform.speed.memory_min", kValue, "the slowest memory unit's speed (reported, not used to normalize)"},
    {"platform.contention.run_ns", kValue, "time the meter ran (span less stops), summed over its CPUs"},
    {"platform.contention.work_ns", kValue, "the contention unit's speed × that time: work of a lookup-heavy kind"},
    {"platform.contention.mean", kValue, "work_ns / run_ns: how fast lookup-heavy work ran against its calibration; it "
                                         "drops when another tenant shares the core, and with the engine's own threads "
                                         "(reported, not used in the causes: docs/platform.md)"},
    {"platform.contention.min", kValue, "the slowest contention unit's speed"},
    {"platform.kernel.cgroup_nr_throttled", kValue, "periods in which the process's cgroup was throttled (cpu.stat; "
                                                    "absent when the kernel has no such source)"},
    {"platform.kernel.cgroup_throttled_ns", kValue, "time it was throttled"},
    {"platform.kernel.psi_cpu_some_ns", kValue, "pressure stall time (/proc/pressure/cpu `some`; absent without PSI)"},
    {"platform.kernel.psi_cpu_full_ns", kValue, "the same, `full`"},
    {"platform.kernel.psi_memory_some_ns", kValue, "/proc/pressure/memory `some`"},
    {"platform.kernel.psi_memory_full_ns", kValue, "the same, `full`"},
    {"platform.kernel.psi_io_some_ns", kValue, "/proc/pressure/io `some`"},
    {"platform.kernel.psi_io_full_ns", kValue, "the same, `full`"},
    {"platform.kernel.missing", kValue, "the platform sources this machine lacks, named (their figures are absent, "
                                        "never 0)"},
    {"platform.hiccup.p50_ns", kValue, "the hiccup meter (a thread that sleeps a fixed period): median lateness of its wake-ups"},
    {"platform.hiccup.p99_ns", kValue, "the same, p99"},
    {"platform.hiccup.p999_ns", kValue, "the same, p99.9"},
    {"platform.hiccup.max_ns", kValue, "the same, the largest"},
    {"platform.hiccup.samples", kValue, "the meter's wake-ups"},
    {"platform.hiccup.period_ns", kValue, "the meter's sleep (--hiccup-period)"},
    {"resources.cpu_user_s", kValue, "the process's user CPU time in the measured window (as cpu.user_s)"},
    {"resources.cpu_sys_s", kValue, "its system CPU time (as cpu.sys_s)"},
    {"resources.voluntary_context_switches", kValue, "its voluntary context switches"},
    {"resources.involuntary_context_switches", kValue, "its involuntary context switches"},
    // Process-wide and backend figures (typed metrics)
    {"cpu", kSection, "getrusage of the process over the measured window: user_s, sys_s, minor_faults, major_faults, "
                      "voluntary_switches, involuntary_switches"},
    {"io", kSection, "the process's I/O over the measured window (`/proc/self/io`: rchar_bytes, syscr, "
                     "device_read_bytes, device_write_bytes; `scope` says what is excluded) and, for the file and "
                     "whisper backends, requested_bytes, transferred_bytes, syscalls, read_amplification, "
                     "syscalls_per_op (docs/read-methods.md, docs/whisper.md)"},
    {"cache", kSection, "the data set's page cache: state (--cache), dataset_bytes, and before/after: resident_bytes, "
                        "dirty_bytes, known_bytes, fraction, source (cachestat or mincore); hit_ratio (by page lookup) "
                        "and byte_hit_ratio (by byte) where a backend counts them"},
    {"null", kSection, "the null backend's figures (its options)"},
    {"file", kSection, "the file backend's figures: method, harness_ns_per_op, per-group counters (docs/read-methods.md)"},
    {"whisper", kSection, "the whisper backend's figures: syscalls, bytes per update and fetch (docs/whisper.md)"},
    {"rocksdb", kSection, "the rocksdb backend's figures: workload, keys, found ratio, write stalls, statistics "
                          "(docs/rocksdb.md)"},
    // The interval timeline
    {"intervals[]", kValue, "the interval timeline, one element per --interval (empty when the run was shorter)"},
    {"intervals[].t_s", kValue, "the interval's end, seconds after the measured window began"},
    {"intervals[].length_s", kValue, "its length (the last one at least half of --interval: a shorter remainder is folded into it)"},
    {"intervals[].ops", kValue, "ops that ended in it"},
    {"intervals[].errors", kValue, "of those, failed"},
    {"intervals[].bytes", kValue, "bytes they moved"},
    {"intervals[].ops_per_sec", kValue, "ops / length_s"},
    {"intervals[].offered_ops_per_sec", kValue, "open loop: the arrivals the schedule asked for in it, per second"},
    {"intervals[].response", kPercentiles, "response time of its ops"},
    {"intervals[].service", kPercentiles, "service time of its ops"},
    {"intervals[].ideal", kPercentiles, "open loop: the ideal client's response time of the ops that arrived in it"},
    {"intervals[].steady", kPercentiles, "open loop, with the platform meter: the steady-platform ideal client's "
                                         "response time of the ops that arrived in it"},
    {"intervals[].own_cpu", kPercentiles, "open loop: the own-CPU ideal client's response time of the ops that "
                                          "arrived in it"},
    {"intervals[].with_stops", kPercentiles, "open loop: the ideal client's with the platform's stops, response "
                                             "time of the ops that arrived in it"},
    {"intervals[].effective_load", kValue, "two-phase phase 2: offered ÷ (phase 1's capacity × the platform's speed "
                                           "in it): the load the engine really saw"},
    {"intervals[].platform.speed", kValue, "the platform's mean speed in it (null without the meter)"},
    {"intervals[].platform.speed_min", kValue, "its slowest integer unit's speed"},
    {"intervals[].platform.memory_speed_min", kValue, "its slowest memory unit's speed"},
    {"intervals[].platform.contention_speed", kValue, "the contention unit's mean speed in it"},
    {"intervals[].platform.contention_speed_min", kValue, "its slowest contention unit's speed"},
    {"intervals[].platform.stopped_ns", kValue, "time the platform stopped the meter in it (mean over its CPUs)"},
    {"intervals[].platform.slow_share", kValue, "share of it at a speed below 0.8"},
    {"intervals[].platform.cgroup", kSection, "nr_throttled and throttled_ns of the process's cgroup in it (null "
                                              "without a cgroup cpu.stat)"},
    {"intervals[].platform.psi", kSection, "cpu, memory and io pressure in it: some_ns, full_ns (null without PSI)"},
    {"intervals[].client_added_p99_ns", kValue, "open loop: observed p99 less the ideal client's, of the ops that "
                                                "arrived in it"},
    {"intervals[].causes.p99", kCauses, "open loop: the causes of its p99"},
    {"intervals[].causes.max", kCauses, "open loop: the causes of its maximum"},
    {"intervals[].backlog", kValue, "open loop: arrivals due and not started at its end"},
    {"intervals[].lag_ns", kValue, "open loop: how far the most-behind worker was behind schedule at its end"},
    {"intervals[].max_backlog", kValue, "open loop: the largest backlog within it"},
    {"intervals[].max_lag_ns", kValue, "open loop: the largest start lag within it (at least every start lag recorded in it)"},
    {"intervals[].runqueue_wait_ns", kValue, "the workers' run-queue wait in it"},
    {"intervals[].hiccup_p99_ns", kValue, "the hiccup meter's p99 lateness in it"},
    {"intervals[].hiccup_max_ns", kValue, "its largest lateness in it"},
    {"intervals[].group_ops[]", kValue, "several --class groups: ops per group, in --class order"},
    {"intervals[].cpu", kCpuHeld, "who held the CPU in it"},
    {"intervals[].backend", kSection, "the backend's gauges at its end (rocksdb: l0_files, immutable_memtables, "
                                      "pending_compaction_bytes, running_compactions, write_stopped, delayed_write_rate)"},
    // Two-phase runs
    {"two_phase.capacity_ops_per_sec", kValue, "phase 1's capacity: the median of its intervals' ops_per_sec"},
    {"two_phase.capacity_method", kValue, "how the capacity was taken, in words"},
    {"two_phase.phase1_mean_ops_per_sec", kValue, "phase 1's ops over its whole window, per second"},
    {"two_phase.fraction", kValue, "--two-phase's fraction of the capacity (0 when a rate was given)"},
    {"two_phase.target_ops_per_sec", kValue, "the rate phase 2 (the top level) ran at"},
    {"two_phase.engine", kSection, "how busy the engine was in phase 2 and how fast it served against phase 1"},
    {"two_phase.engine.busy", kValue, "phase 2's ops' service time summed ÷ (servers × measured time)"},
    {"two_phase.engine.offered_load", kValue, "offered ops/s × phase 2's mean service time ÷ servers: the load at "
                                              "the engine's own phase-2 speed (above 1, no client could keep up)"},
    {"two_phase.engine.service_mean_ns", kValue, "phase 2's mean service time (exact: sum ÷ count)"},
    {"two_phase.engine.phase1_service_mean_ns", kValue, "phase 1's mean service time (exact)"},
    {"two_phase.engine.slowdown", kValue, "service_mean_ns ÷ phase1_service_mean_ns; from 1.05 the summary's "
                                          "engine line says what it did to the load"},
    {"two_phase.phase1", kSection, "phase 1, the closed loop: the same run keys as the top level (throughput, totals, "
                                   "latency, schedule, kinds, intervals, workers, platform, cpu, io, cache, the backend's)"},
    // Live outputs (docs/live-metrics.md)
    {"live.prometheus.url", kValue, "run --metrics-listen: where the run's page was served"},
    {"live.graphite.server", kValue, "run --graphite: the server's HOST:PORT"},
    {"live.graphite.prefix", kValue, "the prefix of every path pushed"},
    {"live.graphite.points_pushed", kValue, "points (one per field and interval) the run gave the push"},
    {"live.graphite.points_sent", kValue, "of them, written to the server's socket"},
    {"live.graphite.points_dropped", kValue, "of them, not sent: the buffer was full (a slow server), the server "
                                             "was down, or the end's grace ran out; never waited for"},
    {"live.graphite.connect_failures", kValue, "connections to the server that failed"},
    // MPI runs
    {"mpi", kSection, "runs under mpirun: ranks, hosts, start_skew_ns, stonewall, finish_spread_s, live_merge "
                      "(docs/scale-out.md)"},
    {"ranks", kSection, "runs under mpirun: per rank its host, ops, errors, elapsed_s, ops_per_sec, p50/p99, "
                        "stonewalled, response_histogram, interval_ops, environment"},
};

constexpr const char* kLatencyKeys[] = {"count", "min_ns", "mean_ns", "stddev_ns", "p50_ns", "p90_ns",
                                        "p99_ns", "p999_ns", "p9999_ns", "max_ns", "saturated", "histogram"};
constexpr const char* kPercentileKeys[] = {"p50_ns", "p90_ns", "p99_ns", "p999_ns", "p9999_ns", "max_ns"};
constexpr const char* kCauseKeys[] = {"queueing",  "engine",   "client",    "platform",   "platform_speed",
                                      "platform_stops", "largest", "cpu_wait", "ideal_ns", "steady_ns",
                                      "own_cpu_ns", "with_stops_ns", "observed_ns"};
constexpr const char* kCpuHeldKeys[] = {"workers_ns", "engine_ns", "engine_threads", "client_ns", "others_ns",
                                        "steal_ns", "capacity_ns", "backlogged_ns", "backlogged_runqueue_ns",
                                        "preempted_in_ops_ns", "stopped_between_ops_ns"};

std::vector<std::string_view> Split(std::string_view path) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

template <size_t N>
bool OneOf(std::string_view s, const char* const (&names)[N]) {
  return std::any_of(std::begin(names), std::end(names), [&](const char* n) { return s == n; });
}

// Whether the keys below a matched pattern (`rest`) are those of its shape.
bool ShapeHolds(KeyShape shape, std::span<const std::string_view> rest) {
  switch (shape) {
    case kValue: return rest.empty();
    case kSection: return true;
    case kLatency: return rest.size() == 1 && OneOf(rest[0], kLatencyKeys);
    case kPercentiles: return rest.size() == 1 && OneOf(rest[0], kPercentileKeys);
    case kCauses: return rest.size() == 1 && OneOf(rest[0], kCauseKeys);
    case kOutcomes: return rest.size() == 1;
    case kCpuHeld:
      return (rest.size() == 1 && OneOf(rest[0], kCpuHeldKeys)) || (rest.size() == 2 && rest[0] == "engine_threads");
  }
  return false;
}

bool Matches(const ResultKey& key, std::span<const std::string_view> path) {
  const std::vector<std::string_view> pattern = Split(key.pattern);
  if (path.size() < pattern.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i)
    if (pattern[i] != "*" && pattern[i] != path[i]) return false;
  return ShapeHolds(key.shape, path.subspan(pattern.size()));
}

std::string ShapeNote(KeyShape shape) {
  switch (shape) {
    case kLatency: return " *(a latency object)*";
    case kPercentiles: return " *(percentiles)*";
    case kCauses: return " *(tail causes)*";
    case kCpuHeld: return " *(CPU held)*";
    case kOutcomes: return " *(outcomes)*";
    case kSection: return " *(and every key below it)*";
    case kValue: return "";
  }
  return "";
}

}  // namespace

std::span<const ResultKey> ResultKeys() { return kKeys; }

const ResultKey* DescribingKey(std::string_view path) {
  std::vector<std::string_view> parts = Split(path);
  // Phase 1 of a two-phase run carries the top level's run keys.
  if (parts.size() > 2 && parts[0] == "two_phase" && parts[1] == "phase1") parts.erase(parts.begin(), parts.begin() + 2);
  for (const ResultKey& k : kKeys)
    if (Matches(k, parts)) return &k;
  return nullptr;
}

std::string ResultKeysMarkdown() {
  std::string s =
      "# The result document's keys\n\n"
      "<!-- Generated by `storebench help --markdown keys` from src/storebench/report/result_keys.cc;\n"
      "     cli/docs_test.cc fails when this file differs or when a run writes a key the table lacks. -->\n\n"
      "Every `run` writes one JSON document (`--json FILE`; schema `storebench.run/2`). A two-phase run's\n"
      "top level is phase 2, with phase 1 under `two_phase.phase1` (docs/reading-results.md). Units are in\n"
      "the names: `_ns` nanoseconds, `_s` seconds, `_bytes` bytes, `_per_sec` per second. `*` is a kind's\n"
      "or a group's name, `[]` an element of an array. Keys that only some runs have say which.\n\n"
      "| key | meaning |\n| --- | --- |\n";
  for (const ResultKey& k : kKeys) s += fmt::format("| `{}` | {}{} |\n", k.pattern, k.meaning, ShapeNote(k.shape));
  auto list = [](const auto& names) {
    std::string out;
    for (const char* n : names) out += fmt::format("{}`{}`", out.empty() ? "" : ", ", n);
    return out;
  };
  s += "\n## Shapes\n\n";
  s += "* **A latency object**: " + list(kLatencyKeys) +
       ". Percentiles are exact by HdrHistogram's definition (the value at rank ceil(p/100 * count)) on the lossless "
       "histogram (3 significant digits by default, --histogram-digits); `histogram` is that histogram in "
       "storebench's lossless text form (`hlog1:DIGITS:HIGHEST:MIN:MAX:SUM:SATURATED:` and base64 varints of the "
       "buckets; `storebench report --hlog` converts a run to HdrHistogram's own log); `saturated` counts values "
       "beyond the histogram's range, recorded at its top.\n";
  s += "* **Percentiles**: " + list(kPercentileKeys) + ".\n";
  s += "* **Tail causes**: " + list(kCauseKeys) +
       ": the shares (0 to 1, summing to 1) of queueing behind the engine, the engine's threads, the client and the "
       "platform; of the platform's, `platform_speed`, the part the platform meter measured in the service times, and "
       "`platform_stops`, the part the platform's stops between ops delayed (measured by the workers while they "
       "waited, awake); the largest one's name; the share of the backlogged time the workers spent on the run queue beyond the waits "
       "measured inside ops (those are out of the replays already); the ideal client's, the steady-platform ideal "
       "client's, the own-CPU ideal client's, the ideal client's with the platform's stops and the observed value of "
       "that percentile.\n";
  s += "* **CPU held**: " + list(kCpuHeldKeys) +
       ": CPU time of the workers, the engine's threads (and per thread name under `engine_threads`), the client's "
       "own threads, other processes on the workers' CPUs, steal, and the CPUs' capacity over the window; "
       "`backlogged_ns` is the time workers had arrivals waiting and `backlogged_runqueue_ns` the part of it they "
       "spent on the run queue; `preempted_in_ops_ns` the workers' waits for a CPU measured inside ops of 0.5 ms "
       "or longer that arrived in the window; `stopped_between_ops_ns` the platform's stops the workers measured "
       "while they waited, awake, for those ops (gaps in the wait that no other thread's hold on the CPU explains).\n";
  s += "* **Outcomes**: ops per outcome name: `ok`, `not_found`, and `error` or `error:REASON` (`error:io`, "
       "`error:verify`, RocksDB's status codes such as `error:Busy`).\n";
  return s;
}

}  // namespace storebench::report
