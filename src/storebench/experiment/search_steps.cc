#include "storebench/experiment/search_steps.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <thread>

#include "storebench/base/atomic_file.h"
#include "storebench/experiment/stored_run.h"
#include "storebench/job/plan.h"
#include "storebench/job/run.h"
#include "storebench/report/result.h"

namespace storebench::experiment {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kBootstrapSeed = 1;
// Seeds of confirmation runs: step seed + these + i, apart from the steps' repeats.
constexpr int kConfirmSeed = 1000, kAboveSeed = 2000;
// A run the platform spoilt is run again up to this many times; repeat k
// adds k × kRepeatSeed to its seed.
constexpr int kPlatformRepeats = 2, kRepeatSeed = 100000;

}  // namespace

StatusOr<report::SearchStep> SearchSteps::Run(double rate) {
  report::SearchStep step;
  std::vector<nlohmann::json> docs;
  for (int rep = 1; rep <= request_.settings.repeat; ++rep) {
    const std::string file = rate > 0 ? fmt::format("rate-{:.0f}-{}.json", rate, rep) : fmt::format("closed-{}.json", rep);
    STOREBENCH_RETURN_IF_ERROR(Add(rate, rep, file, &step, &docs));
  }
  STOREBENCH_RETURN_IF_ERROR(Judge(rate, std::move(docs), /*across_runs=*/false, &step));
  return step;
}

StatusOr<report::ConfirmRound> SearchSteps::Confirm(double rate, double above) {
  report::ConfirmRound round;
  round.rate = rate;
  round.above_rate = above;
  std::vector<nlohmann::json> at, over;
  for (int i = 1; i <= request_.settings.confirm; ++i) {
    STOREBENCH_RETURN_IF_ERROR(
        Add(rate, kConfirmSeed + i, fmt::format("confirm-{:.0f}-{}.json", rate, i), &round.confirm, &at));
    STOREBENCH_RETURN_IF_ERROR(
        Add(above, kAboveSeed + i, fmt::format("above-{:.0f}-{}.json", above, i), &round.above, &over));
  }
  STOREBENCH_RETURN_IF_ERROR(Judge(rate, std::move(at), true, &round.confirm));
  STOREBENCH_RETURN_IF_ERROR(Judge(above, std::move(over), true, &round.above));
  return round;
}

// Runs (or reads) one run into `step` and `docs`. A run the platform spoilt
// (dipped or stalled, report::PlatformSpoilt) is set aside, recorded, and run
// again with other keys, up to kPlatformRepeats times: its verdict would be
// the neighbour's. Passing or failing alike, so the repeats do not lean the
// search either way. The last repeat counts even if it was spoilt too, marked.
Status SearchSteps::Add(double rate, int seed_offset, const std::string& file, report::SearchStep* step,
                        std::vector<nlohmann::json>* docs) {
  if (docs->empty()) step->stored = true;
  for (int attempt = 0;; ++attempt) {
    const std::string name =
        attempt == 0 ? file : fmt::format("{}-repeat{}.json", file.substr(0, file.size() - 5), attempt);
    bool stored = false;
    auto doc = RunOne(rate, seed_offset + attempt * kRepeatSeed, name, &stored);
    if (!doc.ok()) return doc.status();
    step->stored = step->stored && stored;
    auto spoilt = report::PlatformSpoilt(*doc, request_.settings.slos);
    if (spoilt && attempt < kPlatformRepeats) {
      spoilt->file = name;
      step->set_aside.push_back(std::move(*spoilt));
      continue;
    }
    if (spoilt) ++step->unsteady_kept;
    step->files.push_back(name);
    docs->push_back(std::move(*doc));
    return Status::Ok();
  }
}

Status SearchSteps::Judge(double rate, std::vector<nlohmann::json> docs, bool across_runs,
                          report::SearchStep* step) {
  report::StepInput input;
  input.target = rate;
  input.load_groups = request_.load.groups;
  input.slots = request_.load.slots;
  input.runs = std::move(docs);
  input.across_runs = across_runs;
  auto verdict =
      report::JudgeStep(input, request_.settings.slos, request_.settings.confidence, kBootstrapSeed);
  if (!verdict.ok()) return verdict.status();
  step->verdict = std::move(*verdict);
  return Status::Ok();
}

StatusOr<nlohmann::json> SearchSteps::RunOne(double rate, int rep, const std::string& file, bool* stored) {
  const SearchSettings& s = request_.settings;
  const uint64_t interval = std::max<uint64_t>(s.step_ns / 10, 1'000'000);
  job::Job step_job = job::StepJob(request_.job, request_.load, rate, s.step_ns, interval, rep);
  step_job.outputs = {};
  step_job.outputs.quiet = true;
  auto plan = job::MakePlan(step_job);
  if (!plan.ok()) return plan.status();
  const fs::path path = fs::path(request_.out_dir) / file;
  if (!request_.out_dir.empty()) {
    const nlohmann::json config = plan->job.ToJson();
    auto reusable = ReusableRun(path, &config);
    if (!reusable.ok()) return reusable.status();
    if (reusable->has_value()) {
      *stored = true;
      return std::move(**reusable);
    }
  }
  if (ran_any_) Settle();
  ran_any_ = true;
  job::RunHooks hooks;
  hooks.stop = stop_;
  auto result = job::RunPlan(*plan, hooks);
  if (!result.ok()) return result.status();
  if (result->run.interrupted || stop_->load())
    return Status::Interrupted("search interrupted; the steps stored in --out are kept: run the same command to resume");
  if (!result->failure.ok()) return result->failure;
  auto doc = report::BuildRunJson(*result, request_.argv);
  if (!doc.ok()) return doc.status();
  if (!request_.out_dir.empty()) STOREBENCH_RETURN_IF_ERROR(WriteFileAtomically(path.string(), doc->dump(1) + "\n"));
  return *doc;
}

// Idles the settle time before a run that follows another, in slices so SIGINT is seen.
void SearchSteps::Settle() const {
  const auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(request_.settings.settle_ns);
  while (!stop_->load() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(
        std::min<std::chrono::nanoseconds>(end - std::chrono::steady_clock::now(), std::chrono::milliseconds(10)));
}

}  // namespace storebench::experiment
