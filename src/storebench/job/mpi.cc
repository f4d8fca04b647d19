#include "storebench/job/mpi.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <deque>
#include <map>

#include "storebench/driver/runner.h"
#include "storebench/job/plan.h"
#include "storebench/job/result_codec.h"
#include "storebench/measure/clock.h"

#if STOREBENCH_HAVE_MPI
// The C API only: Open MPI's deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
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
  const double share = 1.0 / size;
  for (driver::WorkerGroup& g : config->groups) {
    if (g.ops) g.ops = g.ops / static_cast<uint64_t>(size) + (static_cast<uint64_t>(rank) < g.ops % size ? 1 : 0);
    driver::ScheduleSpec& s = g.schedule;
    switch (s.kind) {
      case driver::ScheduleSpec::Kind::kClosed:
        break;
      case driver::ScheduleSpec::Kind::kConstant:
        s.rate *= share;
        // The ranks' arrivals interleave evenly instead of coinciding.
        s.phase_ns = 1e9 / (s.rate * size) * rank;
        break;
      case driver::ScheduleSpec::Kind::kPoisson:
        s.rate *= share;
        break;
      case driver::ScheduleSpec::Kind::kSine:
        s.a *= share;
        s.d *= share;
        break;
      case driver::ScheduleSpec::Kind::kSteps:
        for (auto& step : s.steps) step.rate *= share;
        break;
      case driver::ScheduleSpec::Kind::kTrace: {
        auto mine = std::make_shared<std::vector<uint64_t>>();
        for (size_t i = static_cast<size_t>(rank); i < s.trace->size(); i += static_cast<size_t>(size))
          mine->push_back((*s.trace)[i]);
        s.trace = std::move(mine);
        break;
      }
    }
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

namespace {

constexpr int kTagInterval = 11;  // a rank's interval, sent to rank 0 as it ends
constexpr int kTagDone = 12;      // a rank finished its run (stonewall)
constexpr int kTagClock = 13;     // clock ping-pong

// Broadcasts `text` from rank 0.
std::string Broadcast(const std::string& text, int rank) {
  uint64_t n = rank == 0 ? text.size() : 0;
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::string out = rank == 0 ? text : std::string(n, '\0');
  if (n) MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  return out;
}

// Gathers every rank's `text` at rank 0 (in rank order; empty elsewhere).
std::vector<std::string> Gather(const std::string& text, int rank, int size) {
  int n = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<size_t>(size)), offsets(static_cast<size_t>(size));
  MPI_Gather(&n, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (rank == 0) {
    int at = 0;
    for (int i = 0; i < size; ++i) offsets[i] = at, at += lengths[i];
    all.resize(static_cast<size_t>(at));
  }
  MPI_Gatherv(text.data(), n, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (rank == 0)
    for (int i = 0; i < size; ++i) out.push_back(all.substr(static_cast<size_t>(offsets[i]), static_cast<size_t>(lengths[i])));
  return out;
}

// Sends without waiting for the receiver (rank 0 receives only between its
// own intervals); the buffers live until Finish().
class Sender {
 public:
  void Send(std::string text, int to, int tag) {
    buffers_.push_back(std::move(text));
    requests_.emplace_back();
    MPI_Isend(buffers_.back().data(), static_cast<int>(buffers_.back().size()), MPI_CHAR, to, tag, MPI_COMM_WORLD,
              &requests_.back());
  }
  void Finish() {
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    buffers_.clear();
  }

 private:
  std::deque<std::string> buffers_;
  std::vector<MPI_Request> requests_;
};

std::string ReceiveText(int from, int tag, int* source) {
  MPI_Status st;
  MPI_Probe(from, tag, MPI_COMM_WORLD, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::string text(static_cast<size_t>(n), '\0');
  MPI_Recv(text.data(), n, MPI_CHAR, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (source) *source = st.MPI_SOURCE;
  return text;
}

bool Pending(int tag) {
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  return flag != 0;
}

// Every rank's status: OK everywhere, or the first failure, named by rank and host.
Status AgreeOn(const Status& mine, int rank, int size, const std::string& host) {
  int bad = mine.ok() ? 0 : 1, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any) return Status::Ok();
  nlohmann::json j = {{"ok", mine.ok()}, {"message", mine.message()}, {"bad_input", mine.IsBadInput()}, {"host", host}};
  std::vector<std::string> all = Gather(j.dump(), rank, size);
  std::string first;
  bool bad_input = false;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      auto e = nlohmann::json::parse(all[r]);
      if (e["ok"].get<bool>()) continue;
      first = fmt::format("rank {} on {}: {}", r, e["host"].get<std::string>(), e["message"].get<std::string>());
      bad_input = e["bad_input"].get<bool>();
      break;
    }
  }
  nlohmann::json verdict = nlohmann::json::parse(Broadcast(nlohmann::json{{"m", first}, {"b", bad_input}}.dump(), rank));
  const std::string message = verdict["m"].get<std::string>();
  return verdict["b"].get<bool>() ? Status::InvalidArgument(message) : Status::IOError(message);
}

// Each rank's clock offset to rank 0 by ping-pong (the round with the
// shortest round trip, as NTP does), then one start instant in each rank's
// own clock. Returns the start for this rank; *skew_ns (rank 0) is the
// largest half round trip: how far apart the ranks' starts may be.
uint64_t CommonStart(int rank, int size, uint64_t lead_ns, uint64_t* skew_ns) {
  const measure::Clock& clock = measure::Clock::Default();
  constexpr int kRounds = 16;
  std::vector<int64_t> offset(static_cast<size_t>(size), 0);
  uint64_t worst = 0;
  for (int k = 1; k < size; ++k) {
    if (rank == 0) {
      uint64_t best_rtt = UINT64_MAX;
      for (int i = 0; i < kRounds; ++i) {
        uint64_t t0 = clock.NowNs(), tk = 0;
        MPI_Send(&t0, 1, MPI_UINT64_T, k, kTagClock, MPI_COMM_WORLD);
        MPI_Recv(&tk, 1, MPI_UINT64_T, k, kTagClock, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        uint64_t t1 = clock.NowNs();
        if (t1 - t0 < best_rtt) {
          best_rtt = t1 - t0;
          offset[k] = static_cast<int64_t>(tk) - static_cast<int64_t>(t0 + (t1 - t0) / 2);
        }
      }
      worst = std::max(worst, best_rtt / 2);
    } else if (rank == k) {
      for (int i = 0; i < kRounds; ++i) {
        uint64_t t0 = 0;
        MPI_Recv(&t0, 1, MPI_UINT64_T, 0, kTagClock, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        uint64_t tk = clock.NowNs();
        MPI_Send(&tk, 1, MPI_UINT64_T, 0, kTagClock, MPI_COMM_WORLD);
      }
    }
  }
  std::vector<uint64_t> starts(static_cast<size_t>(size));
  if (rank == 0) {
    const uint64_t start0 = clock.NowNs() + lead_ns;
    for (int k = 0; k < size; ++k) starts[k] = static_cast<uint64_t>(static_cast<int64_t>(start0) + offset[k]);
  }
  uint64_t mine = 0;
  MPI_Scatter(starts.data(), 1, MPI_UINT64_T, &mine, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (skew_ns) *skew_ns = worst;
  return mine;
}

// An interval as rank 0 needs it for the merged progress line.
nlohmann::json IntervalMessage(size_t index, const driver::IntervalStats& st) {
  return {{"i", index},       {"t", st.t_s},      {"len", st.length_s}, {"ops", st.ops},
          {"errors", st.errors}, {"bytes", st.bytes}, {"backlog", st.backlog}, {"lag", st.lag_ns},
          {"resp", st.response_histogram}, {"serv", st.service_histogram}, {"warmup", st.warmup}};
}

// Merges interval messages of one index into the stats rank 0 prints.
driver::IntervalStats MergeIntervalMessages(const std::vector<nlohmann::json>& parts) {
  driver::IntervalStats st;
  measure::Histogram resp, serv;
  bool first = true;
  for (const auto& p : parts) {
    st.t_s = std::max(st.t_s, p["t"].get<double>());
    st.length_s = std::max(st.length_s, p["len"].get<double>());
    st.ops += p["ops"].get<uint64_t>();
    st.errors += p["errors"].get<uint64_t>();
    st.bytes += p["bytes"].get<uint64_t>();
    st.backlog += p["backlog"].get<double>();
    st.lag_ns = std::max(st.lag_ns, p["lag"].get<uint64_t>());
    auto r = measure::Histogram::Decode(p["resp"].get<std::string>());
    auto s = measure::Histogram::Decode(p["serv"].get<std::string>());
    if (r.ok() && s.ok()) {
      if (first) {
        resp = std::move(*r), serv = std::move(*s);
        first = false;
      } else {
        (void)resp.Merge(*r);
        (void)serv.Merge(*s);
      }
    }
  }
  st.ops_per_sec = st.length_s > 0 ? static_cast<double>(st.ops) / st.length_s : 0;
  st.response = driver::PercentilesOf(resp);
  st.service = driver::PercentilesOf(serv);
  return st;
}

}  // namespace

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

// The ranks' measured intervals during the run: each rank sends its own to
// rank 0 as they end, and rank 0 prints their merge (the one progress line)
// as soon as every rank's part of an interval arrived. Also the stonewall:
// a rank that finished its run tells the others.
class LiveMerge {
 public:
  LiveMerge(int rank, int size, const driver::ProgressFn& progress, bool stonewall)
      : rank_(rank), size_(size), progress_(progress), stonewall_(stonewall) {}

  std::atomic<bool>* stonewall_flag() { return &stonewall_flag_; }

  // This rank's progress hook: warm-up ticks are local only; measured
  // intervals go to rank 0, which prints the merged line.
  void OnInterval(const driver::IntervalStats& st) {
    if (st.warmup) {
      if (rank_ == 0 && progress_) progress_(st);
    } else {
      nlohmann::json m = IntervalMessage(interval_index_++, st);
      if (rank_ == 0) {
        Take(std::move(m));
        while (Pending(kTagInterval)) {
          Take(ReceivePart(MPI_ANY_SOURCE, kTagInterval));
          ++remote_received_;
        }
      } else {
        sender_.Send(m.dump(), 0, kTagInterval);
        ++sent_;
      }
    }
    if (stonewall_ && Pending(kTagDone)) stonewall_flag_.store(true);
  }

  // After this rank's run: every rank tells every other it is done (the
  // stonewall signal), with how many intervals it sent rank 0; rank 0 takes
  // the intervals still in flight.
  Status Finish() {
    for (int k = 0; k < size_; ++k)
      if (k != rank_) sender_.Send(std::to_string(sent_), k, kTagDone);
    size_t dones = 0, expected = 0;
    while (dones + 1 < static_cast<size_t>(size_) || (rank_ == 0 && remote_received_ < expected)) {
      MPI_Status st;
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      if (st.MPI_TAG == kTagDone) {
        expected += std::stoull(ReceiveText(st.MPI_SOURCE, kTagDone, nullptr));
        ++dones;
      } else if (st.MPI_TAG == kTagInterval && rank_ == 0) {
        Take(ReceivePart(st.MPI_SOURCE, kTagInterval));
        ++remote_received_;
      } else {
        return Status::IOError(fmt::format("MPI: unexpected message with tag {} from rank {}", st.MPI_TAG, st.MPI_SOURCE));
      }
    }
    sender_.Finish();
    return Status::Ok();
  }

  // What the live merge cost rank 0 over the run: intervals merged, bytes received, time spent.
  nlohmann::json Figures() const {
    const size_t n = interval_index_;
    return {{"intervals", n},
            {"bytes_received", merge_bytes_},
            {"ns", merge_ns_},
            {"ns_per_interval", n ? merge_ns_ / n : 0},
            {"bytes_per_rank_interval", n && size_ > 1 ? merge_bytes_ / (n * (size_ - 1)) : 0}};
  }

 private:
  nlohmann::json ReceivePart(int source, int tag) {
    const uint64_t t0 = clock_.NowNs();
    std::string text = ReceiveText(source, tag, nullptr);
    merge_bytes_ += text.size();
    nlohmann::json part = nlohmann::json::parse(text);
    merge_ns_ += clock_.NowNs() - t0;
    return part;
  }

  void Take(nlohmann::json part) {
    const uint64_t t0 = clock_.NowNs();
    const size_t i = part["i"].get<size_t>();
    pending_[i].push_back(std::move(part));
    if (pending_[i].size() == static_cast<size_t>(size_)) {
      driver::IntervalStats merged = MergeIntervalMessages(pending_[i]);
      pending_.erase(i);
      merge_ns_ += clock_.NowNs() - t0;
      if (progress_) progress_(merged);
    } else {
      merge_ns_ += clock_.NowNs() - t0;
    }
  }

  const int rank_, size_;
  const driver::ProgressFn& progress_;
  const bool stonewall_;
  const measure::Clock& clock_ = measure::Clock::Default();
  std::atomic<bool> stonewall_flag_{false};
  size_t sent_ = 0, remote_received_ = 0;  // interval messages sent (ranks > 0), received (rank 0)
  size_t interval_index_ = 0;
  Sender sender_;
  std::map<size_t, std::vector<nlohmann::json>> pending_;  // rank 0: interval index -> parts
  uint64_t merge_ns_ = 0, merge_bytes_ = 0;
};

// Every rank's outcome, gathered at rank 0 (in rank order; empty elsewhere).
std::vector<nlohmann::json> GatherOutcomes(MpiSession& session, const StatusOr<JobResult>& result) {
  const Status ran = result.ok() ? Status::Ok() : result.status();
  nlohmann::json mine = {{"ok", ran.ok()}, {"message", ran.message()}, {"host", session.host()}, {"rank", session.rank()}};
  if (result.ok()) {
    mine["result"] = EncodeRunResult(result.value().run);
    mine["environment"] = result.value().environment;
  }
  std::vector<nlohmann::json> parts;
  for (const std::string& text : Gather(mine.dump(), session.rank(), session.size()))
    parts.push_back(nlohmann::json::parse(text));
  return parts;
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
  LiveMerge live(rank, size, user_hooks.progress, options.stonewall);
  RunHooks hooks = user_hooks;
  hooks.stonewall = live.stonewall_flag();
  hooks.before_run = [&](Plan& p, const Status& opened) -> Status {
    STOREBENCH_RETURN_IF_ERROR(AgreeOn(opened, rank, size, session.host()));
    p.config.start_at_ns = CommonStart(rank, size, 1'000'000'000, &skew_ns);
    return Status::Ok();
  };
  hooks.progress = [&](const driver::IntervalStats& st) { live.OnInterval(st); };
  auto result = RunPlan(*plan, hooks);
  STOREBENCH_RETURN_IF_ERROR(live.Finish());

  const std::vector<nlohmann::json> parts = GatherOutcomes(session, result);
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
             // The live merge at rank 0 over the run: intervals merged, bytes received, time spent.
             {"live_merge", live.Figures()}};
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
