#include "storebench/job/mpi.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <deque>
#include <map>

#include "storebench/driver/runner.h"
#include "storebench/job/interval_message.h"
#include "storebench/job/plan.h"
#include "storebench/job/result_codec.h"
#include "storebench/measure/clock.h"

#if STOREBENCH_HAVE_MPI
// The C API only: Open MPI's deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "storebench/job/mpi_live_merge.h"
#include "storebench/job/mpi_transport.h"
#endif

namespace storebench::job {

bool LaunchedByMpi() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr; }

Job ForRank(const Job& job, int rank, const std::string& host) {
  Job out = job;
  for (auto& [name, value] : out.backend_options) {
    for (const auto& [key, with] : {std::pair<std::string, std::string>{"{rank}", std::to_string(rank)},
                                    std::pair<std::string, std::string>{"{host}", host}}) {
      for (size_t at = value.find(key); at != std::string::npos; at = value.find(key, at + with.size()))
        value.replace(at, key.size(), with);
    }
  }
  return out;
}

void ShareLoad(driver::RunConfig* config, int rank, int size) {
  if (size <= 1) return;
  for (driver::WorkerGroup& g : config->groups) {
    if (g.ops) g.ops = g.ops / static_cast<uint64_t>(size) + (static_cast<uint64_t>(rank) < g.ops % size ? 1 : 0);
    g.schedule = g.schedule.ShareOf(rank, size);
  }
}

#if !STOREBENCH_HAVE_MPI

StatusOr<std::unique_ptr<MpiSession>> MpiSession::Init(int*, char***) {
  return Status::NotSupported(
      "this binary was built without Open MPI (apt-get install libopenmpi-dev, then rebuild): no MPI mode");
}
MpiSession::~MpiSession() = default;
StatusOr<Job> MpiSession::ShareJob(const StatusOr<Job>& job) { return job; }
StatusOr<MpiRunResult> RunJobMpi(MpiSession&, const Job&, const MpiRunOptions&, const RunHooks&) {
  return Status::NotSupported("no MPI mode in this binary");
}
StatusOr<std::vector<std::string>> PrepareJobMpi(MpiSession&, const Job&) {
  return Status::NotSupported("no MPI mode in this binary");
}

#else

using mpi_internal::AgreeOn;
using mpi_internal::Broadcast;
using mpi_internal::CommonStart;
using mpi_internal::Gather;
using mpi_internal::LiveMerge;
using mpi_internal::RanksOnThisHost;

StatusOr<std::unique_ptr<MpiSession>> MpiSession::Init(int* argc, char*** argv) {
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    return Status::IOError("MPI_Init_thread failed");
  std::unique_ptr<MpiSession> s(new MpiSession());
  MPI_Comm_rank(MPI_COMM_WORLD, &s->rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &s->size_);
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  s->host_.assign(name, static_cast<size_t>(len));
  return s;
}

MpiSession::~MpiSession() { MPI_Finalize(); }

StatusOr<Job> MpiSession::ShareJob(const StatusOr<Job>& job) {
  nlohmann::json j;
  if (rank_ == 0) {
    if (job.ok()) {
      j = {{"ok", true}, {"job", job.value().ToJson()}};
    } else {
      j = {{"ok", false}, {"message", job.status().message()}, {"bad_input", job.status().IsBadInput()}};
    }
  }
  nlohmann::json got = nlohmann::json::parse(Broadcast(j.dump(), rank_));
  if (!got["ok"].get<bool>()) {
    const std::string m = got["message"].get<std::string>();
    return got["bad_input"].get<bool>() ? Status::InvalidArgument(m) : Status::IOError(m);
  }
  if (rank_ == 0) return job.value();  // keeps the outputs, which the config leaves out
  return Job::FromJson(got["job"], "rank 0");
}

namespace {

// This rank's plan, checked on every rank: planned, not two-phase, and made
// from the same job as rank 0's. Any rank's failure fails every rank.
StatusOr<Plan> PlanForRank(MpiSession& session, const Job& given, const MpiRunOptions& options) {
  const int rank = session.rank(), size = session.size();
  Job job = ForRank(given, rank, session.host());
  auto plan = MakePlan(job);
  Status planned = plan.ok() ? Status::Ok() : plan.status();
  if (planned.ok() && plan->core.two_phase.on)
    planned = Status::InvalidArgument("--two-phase: not yet under MPI; measure the capacity with a closed-loop run "
                                      "and give the open-loop rate with --schedule");
  const nlohmann::json shared = given.ToJson();
  if (planned.ok() && !options.own_job.is_null() && options.own_job != shared) {
    std::string key;
    for (const auto& [k, v] : shared.items())
      if (key.empty() && (!options.own_job.contains(k) || options.own_job[k] != v)) key = k;
    planned = Status::InvalidArgument(fmt::format(
        "started with other run flags than rank 0 ({} differs); give every rank the same command", key.empty() ? "the job" : key));
  }
  STOREBENCH_RETURN_IF_ERROR(AgreeOn(planned, rank, size, session.host()));
  ShareLoad(&plan->config, rank, size);
  return std::move(*plan);
}


// Every rank's outcome, gathered at rank 0 (in rank order; empty elsewhere).
std::vector<nlohmann::json> GatherOutcomes(MpiSession& session, const StatusOr<JobResult>& result,
                                           const LiveMerge& live) {
  const Status ran = result.ok() ? Status::Ok() : result.status();
  nlohmann::json mine = {{"ok", ran.ok()},
                         {"message", ran.message()},
                         {"host", session.host()},
                         {"rank", session.rank()},
                         {"live_merge", live.OwnFigures()}};
  if (result.ok()) {
    mine["result"] = EncodeRunResult(result.value().run);
    mine["environment"] = result.value().environment;
  }
  std::vector<nlohmann::json> parts;
  for (const std::string& text : Gather(mine.dump(), session.rank(), session.size()))
    parts.push_back(nlohmann::json::parse(text));
  return parts;
}

// Every rank's side of the live merge, in rank order.
std::vector<nlohmann::json> RankFigures(const std::vector<nlohmann::json>& parts) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& p : parts) out.push_back(p["live_merge"]);
  return out;
}

// A rank's line in the document's "ranks".
nlohmann::json RankJson(int k, const std::string& host, const driver::RunResult& r, const nlohmann::json& environment) {
  const measure::Histogram response = r.total->AllResponse();
  nlohmann::json interval_ops = nlohmann::json::array();
  for (const auto& st : r.intervals) interval_ops.push_back(st.ops);
  const double ops_per_sec = r.elapsed_s > 0 ? static_cast<double>(r.total->ops()) / r.elapsed_s : 0;
  return {{"rank", k},
          {"host", host},
          {"ops", r.total->ops()},
          {"errors", r.total->errors()},
          {"elapsed_s", r.elapsed_s},
          {"ops_per_sec", ops_per_sec},
          {"p50_ns", response.ValueAtPercentile(50)},
          {"p99_ns", response.ValueAtPercentile(99)},
          {"stonewalled", r.stonewalled},
          {"response_histogram", response.Encode()},
          {"interval_ops", interval_ops},
          {"environment", environment}};
}

// Rank 0: every rank's result merged into its own, and the per-rank lines.
// `hosts`, `fastest` and `slowest` (elapsed seconds) are filled for the MPI facts.
Status MergeRanks(const std::vector<nlohmann::json>& parts, MpiRunResult* out, std::vector<std::string>* hosts,
                  double* fastest, double* slowest) {
  const int size = static_cast<int>(parts.size());
  for (int k = 0; k < size; ++k)
    if (!parts[k]["ok"].get<bool>())
      return Status::IOError(
          fmt::format("rank {} on {}: {}", k, parts[k]["host"].get<std::string>(), parts[k]["message"].get<std::string>()));
  out->ranks = nlohmann::json::array();
  for (int k = 0; k < size; ++k) {
    auto r = DecodeRunResult(parts[k]["result"]);
    if (!r.ok()) return r.status();
    const std::string host = parts[k]["host"].get<std::string>();
    if (std::find(hosts->begin(), hosts->end(), host) == hosts->end()) hosts->push_back(host);
    *fastest = std::min(*fastest, r->elapsed_s);
    *slowest = std::max(*slowest, r->elapsed_s);
    out->ranks.push_back(RankJson(k, host, *r, parts[k]["environment"]));
    if (k > 0) STOREBENCH_RETURN_IF_ERROR(MergeRunResults(&out->merged.run, *r));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<MpiRunResult> RunJobMpi(MpiSession& session, const Job& given, const MpiRunOptions& given_options,
                                 const RunHooks& user_hooks) {
  MpiRunOptions options = given_options;
  const int rank = session.rank(), size = session.size();
  auto plan = PlanForRank(session, given, options);
  if (!plan.ok()) return plan.status();
  options.stonewall = options.stonewall || plan->core.stonewall;

  uint64_t skew_ns = 0;
  LiveMerge live(rank, size, plan->config.histogram, user_hooks.progress, options.stonewall);
  RunHooks hooks = user_hooks;
  hooks.stonewall = live.stonewall_flag();
  hooks.before_run = [&](Plan& p, const Status& opened) -> Status {
    STOREBENCH_RETURN_IF_ERROR(AgreeOn(opened, rank, size, session.host()));
    p.config.start_at_ns = CommonStart(rank, size, 1'000'000'000, &skew_ns);
    p.config.host_processes = RanksOnThisHost();
    return Status::Ok();
  };
  hooks.progress = [&](const driver::IntervalStats& st) { live.OnInterval(st); };
  hooks.wake = [&] { live.OnWake(); };
  auto result = RunPlan(*plan, hooks);
  // Every rank reaches the gather, so a failed merge is named by rank 0 like a failed run.
  if (Status merged = live.Finish(); !merged.ok() && result.ok()) result = merged;

  const std::vector<nlohmann::json> parts = GatherOutcomes(session, result, live);
  MpiRunResult out;
  if (!result.ok()) return result.status();  // a failure every rank agreed on names its rank already
  if (rank != 0) return out;
  out.merged = std::move(*result);
  // The config reruns the job on every rank: its templates ({rank}, {host}), not rank 0's values.
  if (const backend::BackendInfo* info = backend::FindBackend(given.backend))
    for (const auto& [name, value] : AbsolutePathOptions(*info, given.backend_options))
      if (value.find("{rank}") != std::string::npos || value.find("{host}") != std::string::npos)
        out.merged.config["backend_options"][name] = value;
  std::vector<std::string> hosts;
  double fastest = 1e300, slowest = 0;
  STOREBENCH_RETURN_IF_ERROR(MergeRanks(parts, &out, &hosts, &fastest, &slowest));
  out.mpi = {{"ranks", size},
             {"hosts", hosts},
             {"start_skew_ns", skew_ns},
             {"stonewall", options.stonewall},
             {"finish_spread_s", slowest - fastest},
             {"live_merge", live.Figures(RankFigures(parts))}};
  return out;
}

StatusOr<std::vector<std::string>> PrepareJobMpi(MpiSession& session, const Job& given) {
  const int rank = session.rank(), size = session.size();
  Job job = ForRank(given, rank, session.host());
  auto report = PrepareJob(job);
  nlohmann::json mine = {{"ok", report.ok()},
                         {"message", report.ok() ? "" : report.status().message()},
                         {"bad_input", report.ok() ? false : report.status().IsBadInput()},
                         {"host", session.host()}};
  if (report.ok())
    mine["line"] = fmt::format("rank {} on {}: {}: {} in {} {}", rank, session.host(), job.backend,
                               report->description, report->where,
                               report->created ? "prepared (" + report->how + ")"
                                               : std::string("already prepared and matching: nothing to do"));
  std::vector<std::string> all = Gather(mine.dump(), rank, size);
  if (rank != 0) return std::vector<std::string>{};
  std::vector<std::string> lines;
  for (int k = 0; k < size; ++k) {
    auto e = nlohmann::json::parse(all[k]);
    if (!e["ok"].get<bool>()) {
      const std::string m = fmt::format("rank {} on {}: {}", k, e["host"].get<std::string>(), e["message"].get<std::string>());
      return e["bad_input"].get<bool>() ? Status::InvalidArgument(m) : Status::IOError(m);
    }
    lines.push_back(e["line"].get<std::string>());
  }
  return lines;
}

#endif

}  // namespace storebench::job
