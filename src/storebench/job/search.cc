#include "storebench/job/search.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "storebench/job/plan.h"

namespace storebench::job {

StatusOr<SearchLoad> CheckSearchJob(const Job& job) {
  for (const char* flag : {"two-phase", "duration", "ops"}) {
    auto it = job.options.find(flag);
    if (it != job.options.end() && !it->second.empty())
      return Status::InvalidArgument(fmt::format(
          "search: RUN-ARGS set --{}; search sets it for each step (--step-duration, open loop at the searched rate)",
          flag));
  }
  auto schedule = job.options.find("schedule");
  if (schedule != job.options.end() && !schedule->second.empty() && schedule->second != "closed")
    return Status::InvalidArgument(
        "search: RUN-ARGS set --schedule; search runs a closed loop, then open loops at the rates it tries");
  Job planned = job;
  planned.options["duration"] = "1s";  // a step's duration; only the plan's shape matters here
  auto plan = MakePlan(planned);
  if (!plan.ok()) return plan.status();
  SearchLoad load;
  for (const driver::WorkerGroup& g : plan->config.groups) {
    if (g.schedule.open_loop() || !g.role.empty()) continue;
    load.groups.push_back(g.name);
    load.threads.push_back(g.threads);
    load.slots += g.threads * g.queue_depth;
  }
  if (load.groups.empty())
    return Status::InvalidArgument(
        "search: no closed-loop group to load: the workload or every --class sets its own arrivals");
  return load;
}

Job StepJob(const Job& job, const SearchLoad& load, double rate, uint64_t duration_ns, uint64_t interval_ns,
            int repeat) {
  Job step = job;
  step.options["duration"] = fmt::format("{}ns", duration_ns);
  if (step.options.find("interval") == step.options.end()) step.options["interval"] = fmt::format("{}ns", interval_ns);
  CoreOptions core;
  (void)CoreOptionTable().Apply(job.options, &core);  // checked by CheckSearchJob
  step.options["seed"] = std::to_string(core.seed + static_cast<uint64_t>(repeat - 1));
  if (!(rate > 0)) return step;
  if (job.classes.empty()) {
    step.options["schedule"] = fmt::format("constant:{:.0f}", rate);
    return step;
  }
  int threads = 0;
  for (int t : load.threads) threads += t;
  for (std::string& text : step.classes) {
    auto c = SplitClass(text);
    if (!c.ok()) continue;  // MakePlan refused it already
    auto it = std::find(load.groups.begin(), load.groups.end(), c->name);
    if (it == load.groups.end()) continue;
    const double share = rate * load.threads[it - load.groups.begin()] / threads;
    std::erase_if(c->settings, [](const auto& kv) { return kv.first == "schedule"; });
    c->settings.emplace_back("schedule", fmt::format("constant:{:.3f}", share));
    text = c->ToText();
  }
  return step;
}

RateSearch RateSearch::Bisect(double bottom, double top, double precision) {
  RateSearch s;
  s.bottom_ = std::round(bottom);
  s.top_ = std::round(top);
  s.precision_ = precision;
  return s;
}

RateSearch RateSearch::Sweep(std::vector<double> rates) {
  RateSearch s;
  s.sweep_ = true;
  for (double& r : rates) r = std::round(r);
  s.rates_ = std::move(rates);
  return s;
}

void RateSearch::Record(double rate, bool pass) {
  done_.emplace_back(rate, pass);
  lowest_fail_ = 0;
  for (const auto& [r, p] : done_)
    if (!p && (lowest_fail_ == 0 || r < lowest_fail_)) lowest_fail_ = r;
  highest_pass_ = 0;
  for (const auto& [r, p] : done_)
    if (p && (lowest_fail_ == 0 || r < lowest_fail_)) highest_pass_ = std::max(highest_pass_, r);
}

RateSearch::Outcome RateSearch::outcome() const {
  if (sweep_) return done_.size() < rates_.size() ? Outcome::kRunning : Outcome::kSwept;
  if (done_.empty()) return Outcome::kRunning;
  if (done_[0].second) return Outcome::kTopPasses;
  if (done_.size() < 2) return Outcome::kRunning;
  if (!done_[1].second) return Outcome::kBottomFails;
  const double mid = std::round((highest_pass_ + lowest_fail_) / 2);
  if (lowest_fail_ - highest_pass_ <= precision_ * lowest_fail_ || mid <= highest_pass_ || mid >= lowest_fail_)
    return Outcome::kBracketed;
  return Outcome::kRunning;
}

std::optional<double> RateSearch::Next() const {
  if (outcome() != Outcome::kRunning) return std::nullopt;
  if (sweep_) return rates_[done_.size()];
  if (done_.empty()) return top_;
  if (done_.size() == 1) return bottom_;
  return std::round((highest_pass_ + lowest_fail_) / 2);
}

}  // namespace storebench::job
