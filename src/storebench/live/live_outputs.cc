#include "storebench/live/live_outputs.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "storebench/base/build_info.h"
#include "storebench/base/units.h"

namespace storebench::live {

StatusOr<std::unique_ptr<LiveOutputs>> LiveOutputs::Start(const job::Outputs& out, const std::string& backend,
                                                          const measure::HistogramOptions& histograms) {
  auto live = std::make_unique<LiveOutputs>();
  live->out_ = out;
  if (!out.metrics_listen.empty()) {
    auto at = ParseListenAddress(out.metrics_listen);
    if (!at.ok()) return at.status();
    live->metrics_ = std::make_unique<LiveMetrics>(backend, GetBuildInfo().version, histograms);
    auto started = MetricsServer::Start(*at, live->metrics_.get());
    if (!started.ok()) return started.status();
    live->server_ = std::move(*started);
    if (!out.quiet) std::fprintf(stderr, "metrics: serving %s\n", live->server_->url().c_str());
  }
  if (!out.graphite.empty()) {
    auto target = ParseGraphiteTarget(out.graphite);
    if (!target.ok()) return target.status();
    live->graphite_ = std::make_unique<GraphitePusher>(std::move(*target));
  }
  return live;
}

void LiveOutputs::OnInterval(const driver::IntervalStats& st) {
  if (metrics_) metrics_->OnInterval(st);
  if (graphite_ && !st.warmup && !st.folded) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    graphite_->Push(GraphiteLines(graphite_->target().prefix, st,
                                  std::chrono::duration_cast<std::chrono::seconds>(now).count()));
  }
}

void LiveOutputs::StartPhase(const std::string& phase) {
  if (metrics_) metrics_->StartPhase(phase);
}

void LiveOutputs::FinishPhase(const driver::RunResult& r) {
  if (metrics_) metrics_->FinishPhase(r);
}

nlohmann::json LiveOutputs::Finish() {
  nlohmann::json live;
  if (server_) live["prometheus"] = {{"url", server_->url()}};
  if (graphite_) {
    const GraphitePusher::Counts c = graphite_->Finish(kFinishGrace);
    const GraphiteTarget& t = graphite_->target();
    live["graphite"] = {{"server", t.host + ":" + std::to_string(t.port)},
                        {"prefix", t.prefix},
                        {"points_pushed", c.points_pushed},
                        {"points_sent", c.points_sent},
                        {"points_dropped", c.points_dropped},
                        {"connect_failures", c.connect_failures}};
    if (c.points_dropped && !out_.quiet)
      std::fprintf(stderr, "graphite: %llu of %llu points not sent to %s:%d (%llu failed connections)\n",
                   static_cast<unsigned long long>(c.points_dropped), static_cast<unsigned long long>(c.points_pushed),
                   t.host.c_str(), t.port, static_cast<unsigned long long>(c.connect_failures));
  }
  return live;
}

void LiveOutputs::Linger(const std::atomic<bool>* stop) {
  if (!server_ || out_.metrics_linger.empty()) return;
  auto linger = ParseDurationNs(out_.metrics_linger, "--metrics-linger");
  if (!linger.ok() || *linger == 0) return;
  if (!out_.quiet)
    std::fprintf(stderr, "metrics: the run ended; %s serves its final figures for %s (Ctrl-C ends this)\n",
                 server_->url().c_str(), out_.metrics_linger.c_str());
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(*linger);
  while (std::chrono::steady_clock::now() < until && !(stop && stop->load()))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

}  // namespace storebench::live
