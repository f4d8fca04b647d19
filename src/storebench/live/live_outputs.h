// What a run's live flags start, as one: the Prometheus page and its server
// (--metrics-listen, --metrics-linger) and the Graphite push (--graphite),
// fed by the reporter's ticks and the run's phases (cli/run_command.cc).
// Thread-safety: OnInterval() on the reporter thread; the rest from the
// thread that runs the job, between phases or after the run.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "storebench/base/status.h"
#include "storebench/driver/runner.h"
#include "storebench/job/job.h"
#include "storebench/live/exposition.h"
#include "storebench/live/graphite.h"
#include "storebench/live/metrics_server.h"

namespace storebench::live {

class LiveOutputs {
 public:
  // How long the end of a run waits for the Graphite push to send what is queued.
  static constexpr std::chrono::milliseconds kFinishGrace{2000};

  // Binds the endpoint and starts the push that `out` asks for (nothing when
  // it asks for none): InvalidArgument naming the flag when the address
  // cannot be bound, before anything is measured. Says where it serves on
  // stderr unless `out.quiet`.
  static StatusOr<std::unique_ptr<LiveOutputs>> Start(const job::Outputs& out, const std::string& backend,
                                                      const measure::HistogramOptions& histograms);
  bool on() const { return metrics_ || graphite_; }

  void OnInterval(const driver::IntervalStats& st);
  void StartPhase(const std::string& phase);
  void FinishPhase(const driver::RunResult& r);
  // After the run: stops the push (at most kFinishGrace more) and returns the
  // result's `live` object (what was served and pushed; null when nothing
  // was on). Says on stderr when points were dropped.
  nlohmann::json Finish();
  // --metrics-linger: keeps serving the final page until the time is up or
  // `stop` (SIGINT, SIGTERM) is raised (checked every 50 ms: the run is over).
  void Linger(const std::atomic<bool>* stop);

 private:
  job::Outputs out_;
  std::unique_ptr<LiveMetrics> metrics_;
  std::unique_ptr<MetricsServer> server_;
  std::unique_ptr<GraphitePusher> graphite_;
};

}  // namespace storebench::live
