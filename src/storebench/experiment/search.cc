#include "storebench/experiment/search.h"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "storebench/base/atomic_file.h"
#include "storebench/base/json_file.h"
#include "storebench/base/units.h"
#include "storebench/experiment/search_steps.h"
#include "storebench/experiment/stored_run.h"
#include "storebench/report/compare.h"

namespace storebench::experiment {
namespace {

namespace fs = std::filesystem;

constexpr const char* kManifest = "manifest.json";
constexpr double kDefaultTopFraction = 1.2;  // of the closed-loop capacity, for bisection
constexpr double kAbove = 1.1;               // confirmation's second rate, and each step down
constexpr int kConfirmRounds = 5;

// Refuses a directory that holds steps of another job: their results would answer another question.
Status PrepareOutDir(const fs::path& dir, const nlohmann::json& manifest) {
  const fs::path path = dir / kManifest;
  if (fs::exists(path)) return CheckResumableManifest(path, manifest, {"run_args", "step_duration_ns"}, "search");
  return WriteFileAtomically(path.string(), manifest.dump(1) + "\n");
}

// The closed-loop capacity, always: the top comes from it unless max_rate
// gives a rate, and an answer is reported as a fraction of it.
Status MeasureCapacity(SearchSteps& steps, const SearchSettings& settings,
                       const std::function<void(const std::string&)>& print, report::SearchResult* r) {
  auto cap = steps.Run(0);
  if (!cap.ok()) return cap.status();
  print("[capacity] " + report::StepLine(*cap));
  const double capacity = cap->verdict.achieved;
  if (!(capacity > 0)) return Status::IOError("search: the closed-loop run completed no ops");
  bool meets = !r->slos.empty();
  for (const auto& c : cap->verdict.slos) meets = meets && c.pass;
  if (meets)
    print(fmt::format("the closed-loop capacity, {} ops/s, meets {}: latency does not limit this load below its "
                      "capacity; searching for the highest rate an open loop sustains",
                      FormatCount(capacity), report::SloList(r->slos)));
  r->capacity = std::move(*cap);
  if (settings.max_rate > 0) {
    r->top = settings.max_rate;
    r->top_source = "--max-rate";
  } else {
    const double fraction = settings.max_fraction > 0 ? settings.max_fraction : r->sweep ? 1 : kDefaultTopFraction;
    r->top = std::round(capacity * fraction);
    r->top_source = fraction == 1 ? std::string("the closed-loop capacity")
                                  : fmt::format("{:g}% of the closed-loop capacity", fraction * 100);
  }
  return Status::Ok();
}

// The bisection from the top down to min_rate, or the sweep.
StatusOr<job::RateSearch> RatesToTry(const SearchSettings& settings, const report::SearchResult& r) {
  const double bottom = settings.min_rate > 0 ? settings.min_rate : std::round(0.1 * r.top);
  if (bottom >= r.top)
    return Status::InvalidArgument(fmt::format("--min-rate: {} ops/s is not below the top rate, {} ops/s",
                                               FormatCount(bottom), FormatCount(r.top)));
  std::vector<double> sweep_rates;
  for (double fraction : settings.sweep) sweep_rates.push_back(fraction * r.top);
  return r.sweep ? job::RateSearch::Sweep(sweep_rates) : job::RateSearch::Bisect(bottom, r.top, settings.precision);
}

// A step at each rate `search` asks for, into `r`. The answers are not kept
// here: DeriveAnswers reads them from r's rows, whenever the search stops.
Status SearchRates(SearchSteps& steps, job::RateSearch& search, const std::function<void(const std::string&)>& print,
                   report::SearchResult* r) {
  while (auto rate = search.Next()) {
    auto step = steps.Run(*rate);
    if (!step.ok()) return step.status();
    search.Record(*rate, step->verdict.pass);
    print(fmt::format("[{}] {}", r->steps.size() + 1, report::StepLine(*step, r->capacity->verdict.achieved)));
    r->steps.push_back(std::move(*step));
  }
  r->outcome = search.outcome();
  return Status::Ok();
}

// Confirmation: the answer holds when run again, or the search steps down by 10% and tries again.
Status ConfirmAnswer(SearchSteps& steps, const SearchSettings& settings,
                     const std::function<void(const std::string&)>& print, report::SearchResult* r) {
  if (settings.confirm == 0) return Status::Ok();
  double candidate = r->answers().search_pass;
  for (int round = 0; candidate > 0 && round < kConfirmRounds; ++round) {
    auto c = steps.Confirm(candidate, std::round(candidate * kAbove));
    if (!c.ok()) return c.status();
    print(fmt::format("[confirm {}] {}", round + 1, report::ConfirmLine(*c, settings.confirm)));
    const bool held = c->pass();
    r->confirmations.push_back(std::move(*c));
    if (held) break;
    candidate = std::round(candidate / kAbove);
    if (candidate < 1) break;
  }
  return Status::Ok();
}

}  // namespace

StatusOr<DirLock> OpenSearchDir(const std::string& out_dir, const std::vector<std::string>& run_args,
                                uint64_t step_ns) {
  DirLock lock;
  if (out_dir.empty()) return lock;
  auto locked = DirLock::CreateAndAcquire(out_dir, "--out");
  if (!locked.ok()) return locked.status();
  lock = std::move(*locked);
  nlohmann::json manifest = {
      {"schema", report::kSearchDirSchema}, {"run_args", run_args}, {"step_duration_ns", step_ns}};
  STOREBENCH_RETURN_IF_ERROR(PrepareOutDir(out_dir, manifest));
  return lock;
}

Status RunSearch(const SearchRequest& request, const std::atomic<bool>* stop,
                 const std::function<void(const std::string&)>& print, report::SearchResult* r) {
  const SearchSettings& s = request.settings;
  r->slos = s.slos;
  r->confidence = s.confidence;
  r->precision = s.precision;
  r->repeat = s.repeat;
  r->step_duration_s = static_cast<double>(s.step_ns) / 1e9;
  r->sweep = !s.sweep.empty();
  r->confirm_runs = s.confirm;
  SearchSteps steps(request, stop);
  STOREBENCH_RETURN_IF_ERROR(MeasureCapacity(steps, s, print, r));
  auto search = RatesToTry(s, *r);
  if (!search.ok()) return search.status();
  Status searched = SearchRates(steps, *search, print, r);
  if (searched.ok()) searched = ConfirmAnswer(steps, s, print, r);
  if (!searched.ok()) r->interrupted = true;
  return searched;
}

}  // namespace storebench::experiment
