// A running storebench's figures in Prometheus' text exposition format
// (version 0.0.4), for `run --metrics-listen` (metrics_server.h).
//
// LiveMetrics is fed by the reporter thread once per interval, with what the
// reporter has already merged (driver::IntervalStats): it never touches a
// worker's path. It renders the whole page then, once, and a scrape reads
// that page (Page()), so a scrape costs the run nothing but a copy of a
// pointer under a mutex, however often it comes.
//
// Cost per interval (bench/live_page_cost): merging each kind's encoded
// histograms into a reused one and walking its buckets, then rendering.
//
// The metrics (docs/live-metrics.md; MetricReference() lists them):
//   storebench_op_latency_seconds{phase,op,timing}  histogram, cumulative over the phase's measured
//       intervals: `le` bounds 10 per decade (1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8 × 10^k s) from
//       1 us to the run's histogram's highest trackable value; a bucket holds the HDR histogram's
//       buckets whose lowest value is <= le (measure::Histogram::CountAtOrBelow's rule), so
//       histogram_quantile() agrees with the result's percentile within one bucket.
//       timing: response (from the intended start: open loop) and service (from the actual start).
//       op: the run's op kinds; "all" for a scale-out run's intervals, which rank 0 has merged over
//       the kinds.
//   storebench_ideal_latency_seconds{phase}  histogram of the ideal client's response times (open
//       loop): its streamed replay's closed arrival intervals as the ticks bring them (lagging the
//       response series by the longest op in flight), replaced by the whole replay when the phase ends.
//   storebench_ops_total, storebench_errors_total, storebench_bytes_total{phase}  counters.
//   gauges of the last interval: offered and achieved ops/s, backlog, start lag, the platform speed.
//   storebench_phase{phase}  1 for the phase being run (warm-up included), absent otherwise.
//   storebench_tail_cause_ratio{phase,tail,cause}  an open-loop phase's causes of its p99 and max
//       (report/causes.h), published when the phase ends (they need its whole replay).
// phase: "run" for a single-phase run, "phase1" and "phase2" for a two-phase one.
// Thread-safety: OnInterval/StartPhase/FinishPhase from one thread (the
// reporter or the main thread between phases); Page() from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/driver/runner.h"
#include "storebench/report/causes.h"

namespace storebench::live {

// The `le` bounds (ns) up to `highest_ns` (the first bound at or above it is the last).
std::vector<uint64_t> LatencyBounds(uint64_t highest_ns);

// One metric family of the page, for the reference (docs/live-metrics.md).
struct MetricInfo {
  std::string name, type, labels, help;
};
const std::vector<MetricInfo>& MetricReference();
// The reference as a markdown table (storebench help --markdown metrics; docs/live-metrics.md).
std::string MetricsMarkdown();

class LiveMetrics {
 public:
  // `backend` and `version` label storebench_run_info; `histograms`: the run's
  // histogram options (the intervals' histograms are merged in that form).
  LiveMetrics(std::string backend, std::string version, const measure::HistogramOptions& histograms);

  // A phase begins ("run", "phase1", "phase2"): its series start from 0.
  void StartPhase(std::string phase);
  // The reporter's tick: a warm-up tick updates the gauges only; a measured
  // one adds its ops to the phase's histograms and counters.
  void OnInterval(const driver::IntervalStats& st);
  // The phase ended: its ideal-client histogram (open loop), and no phase is running.
  void FinishPhase(const driver::RunResult& r);
  // The page as rendered at the last update.
  std::shared_ptr<const std::string> Page() const;

 private:
  struct Series {  // one histogram series: counts per bound (not cumulative), +Inf, sum
    std::vector<uint64_t> counts;
    uint64_t count = 0;
    double sum_s = 0;
  };
  struct Phase {
    std::string name;
    std::map<std::pair<std::string, std::string>, Series> latency;  // (op, timing)
    Series ideal;
    bool has_ideal = false;
    std::optional<report::RunCauses> causes;
    uint64_t ops = 0, errors = 0, bytes = 0;
  };
  void Add(Series* s, const measure::Histogram& h) const;
  void Render();
  void RenderSeries(std::string* out, std::string_view name, std::string_view labels, const Series& s) const;

  const std::string backend_, version_;
  const std::vector<uint64_t> bounds_;
  measure::Histogram scratch_;  // an interval's histogram, decoded into memory kept from one to the next
  std::vector<std::string> bound_text_;
  std::vector<Phase> phases_;
  struct Gauges {  // the last interval's (absent before the phase's first)
    double t_s, achieved, offered, backlog, lag_s, max_lag_s;
    std::optional<double> speed;  // absent without the platform meter
  };
  bool running_ = false, warmup_ = false;
  std::optional<Gauges> last_;
  mutable std::mutex mu_;
  std::shared_ptr<const std::string> page_;
};

}  // namespace storebench::live
