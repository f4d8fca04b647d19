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

namespace {

constexpr int kTagUp = 11;        // child to parent in the tree: an interval part ('I') or "done" ('D')
constexpr int kTagFinished = 12;  // stonewall: a rank finished its run (to rank 0)
constexpr int kTagClock = 13;     // clock ping-pong
constexpr int kTagStop = 14;      // stonewall: rank 0 tells every rank to stop

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

// Waits for a request without taking a CPU: Open MPI's blocking calls poll
// the network without sleeping, so a rank that finished before the others
// would take a core from a rank still measuring on the same host. A
// millisecond's sleep between tests costs at most that at the run's end.
void WaitPolitely(MPI_Request* request) {
  for (;;) {
    int done = 0;
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    usleep(1000);
  }
}

// Sends without waiting for the receiver (it takes messages between its own
// intervals); each buffer lives until its send completed.
class Sender {
 public:
  void Send(std::string text, int to, int tag) {
    Reap();
    bytes_ += text.size();
    ++messages_;
    buffers_.push_back(std::move(text));
    requests_.emplace_back();
    MPI_Isend(buffers_.back().data(), static_cast<int>(buffers_.back().size()), MPI_CHAR, to, tag, MPI_COMM_WORLD,
              &requests_.back());
  }
  void Finish() {
    for (MPI_Request& r : requests_) WaitPolitely(&r);
    requests_.clear();
    buffers_.clear();
  }
  uint64_t bytes() const { return bytes_; }
  uint64_t messages() const { return messages_; }

 private:
  // Frees the buffers of the oldest sends that completed.
  void Reap() {
    while (!requests_.empty()) {
      int done = 0;
      MPI_Test(&requests_.front(), &done, MPI_STATUS_IGNORE);
      if (!done) break;
      requests_.pop_front();
      buffers_.pop_front();
    }
  }

  std::deque<std::string> buffers_;
  std::deque<MPI_Request> requests_;
  uint64_t bytes_ = 0, messages_ = 0;
};

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

// The ranks that share this rank's host (and so its CPUs).
int RanksOnThisHost() {
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int n = 1;
  MPI_Comm_size(local, &n);
  MPI_Comm_free(&local);
  return n;
}

// This thread's CPU time: what the live merge costs, whatever else the host runs.
uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
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

// The ranks' measured intervals during the run, merged along the binomial
// tree of interval_message.h: each rank adds its children's parts of an
// interval to its own and sends one part up as soon as it has them all, so
// rank 0 prints the merge of every rank's interval (the one progress line)
// after ceil(log2(size)) messages. Messages are taken at each interval and at
// each of the driver's wakes (every 20 ms at most), so a part climbs the tree
// within about 20 ms a level. A rank that finished tells its parent ("done")
// once all its subtree's parts went up. Also the stonewall: a rank that
// finished tells rank 0, which tells every rank to stop.
class LiveMerge {
 public:
  LiveMerge(int rank, int size, const measure::HistogramOptions& options, const driver::ProgressFn& progress,
            bool stonewall)
      : rank_(rank),
        size_(size),
        options_(options),
        progress_(progress),
        stonewall_(stonewall),
        children_(TreeChildren(rank, size)),
        child_received_(children_.size(), 0),
        child_done_(children_.size(), false) {}

  std::atomic<bool>* stonewall_flag() { return &stonewall_flag_; }

  // This rank's progress hook: warm-up ticks are local only; measured
  // intervals are merged up the tree.
  void OnInterval(const driver::IntervalStats& st) {
    if (st.warmup) {
      if (rank_ == 0 && progress_) progress_(st);
      return;
    }
    const uint64_t t0 = ThreadCpuNs();
    Keep(PartAt(own_count_).AddOwn(st));
    ++own_count_;
    measured_s_ = st.t_s;
    TakeWaiting();
    Forward();
    cpu_ns_ += ThreadCpuNs() - t0;
  }

  // The driver's wake: take what arrived, send up what is complete.
  void OnWake() {
    const uint64_t t0 = ThreadCpuNs();
    TakeWaiting();
    Forward();
    cpu_ns_ += ThreadCpuNs() - t0;
  }

  // After this rank's run: waits for its subtree's last parts and sends them
  // up, then "done"; with the stonewall, also the finish and stop messages.
  Status Finish() {
    const uint64_t t0 = ThreadCpuNs(), printed = progress_cpu_ns_;
    own_done_ = true;
    if (stonewall_) {
      if (rank_ == 0) StopAll();
      else sender_.Send(std::string(), 0, kTagFinished);
    }
    Forward();
    while (!Settled()) {
      MPI_Status st;
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (!flag) {
        usleep(1000);  // as WaitPolitely: the other ranks may still be measuring
        continue;
      }
      Take(st);
      Forward();
    }
    if (rank_ != 0) sender_.Send("D", TreeParent(rank_), kTagUp);
    sender_.Finish();
    // Every rank has finished its run before any enters the final gather (a
    // blocking collective, which would poll).
    MPI_Request all_finished;
    MPI_Ibarrier(MPI_COMM_WORLD, &all_finished);
    WaitPolitely(&all_finished);
    finish_cpu_ns_ = ThreadCpuNs() - t0 - (progress_cpu_ns_ - printed);
    progress_cpu_ns_ = printed;
    return error_;
  }

  // This rank's side of the figures (GatherOutcomes carries them to rank 0).
  nlohmann::json OwnFigures() const {
    return {{"intervals", own_count_},
            {"cpu_ns", cpu_ns_ - progress_cpu_ns_},
            {"finish_cpu_ns", finish_cpu_ns_},
            {"messages_sent", sender_.messages()},
            {"bytes_sent", sender_.bytes()},
            {"messages_received", messages_received_},
            {"bytes_received", bytes_received_},
            {"measured_s", measured_s_}};
  }

  // What the live merge cost: rank 0's CPU (on its reporter thread, not
  // counting the progress line's printing) and messages, per interval, and
  // the bytes each other rank sent up per interval (mean and largest).
  nlohmann::json Figures(const std::vector<nlohmann::json>& ranks) const {
    const nlohmann::json mine = OwnFigures();
    const uint64_t n = own_count_, cpu = mine["cpu_ns"].get<uint64_t>();
    double sent_sum = 0, sent_max = 0;
    for (size_t k = 1; k < ranks.size(); ++k) {
      const uint64_t intervals = ranks[k]["intervals"].get<uint64_t>();
      const double per = intervals ? ranks[k]["bytes_sent"].get<double>() / static_cast<double>(intervals) : 0;
      sent_sum += per;
      sent_max = std::max(sent_max, per);
    }
    return {{"intervals", n},
            {"merged_intervals", merged_},
            {"tree_children", children_.size()},
            {"messages_received", messages_received_},
            {"bytes_received", bytes_received_},
            {"messages_per_interval", n ? static_cast<double>(messages_received_) / static_cast<double>(n) : 0},
            {"cpu_ns", cpu},
            {"cpu_ns_per_interval", n ? cpu / n : 0},
            {"cpu_share", measured_s_ > 0 ? static_cast<double>(cpu) / (measured_s_ * 1e9) : 0},
            {"finish_cpu_ns", finish_cpu_ns_},
            {"bytes_per_rank_interval", ranks.size() > 1 ? sent_sum / static_cast<double>(ranks.size() - 1) : 0},
            {"max_bytes_per_rank_interval", sent_max}};
  }

 private:
  IntervalPart& PartAt(uint64_t index) {
    auto it = pending_.find(index);
    if (it != pending_.end()) return *it->second;
    std::unique_ptr<IntervalPart> part;
    if (pool_.empty()) {
      part = std::make_unique<IntervalPart>(options_);
    } else {
      part = std::move(pool_.back());
      pool_.pop_back();
    }
    part->index = index;
    return *pending_.emplace(index, std::move(part)).first->second;
  }

  void Keep(const Status& s) {
    if (error_.ok() && !s.ok()) error_ = s;
  }

  void TakeWaiting() {
    for (;;) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (!flag) return;
      Take(st);
    }
  }

  // Receives the probed message and acts on it.
  void Take(const MPI_Status& st) {
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    buffer_.resize(static_cast<size_t>(n));
    MPI_Recv(buffer_.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ++messages_received_;
    bytes_received_ += static_cast<uint64_t>(n);
    if (st.MPI_TAG == kTagFinished && rank_ == 0) {
      ++finished_;
      StopAll();
    } else if (st.MPI_TAG == kTagStop && rank_ != 0) {
      got_stop_ = true;
      stonewall_flag_.store(true);
    } else if (st.MPI_TAG == kTagUp) {
      TakeUp(st.MPI_SOURCE);
    } else {
      Keep(Status::IOError(fmt::format("MPI: unexpected message with tag {} from rank {}", st.MPI_TAG, st.MPI_SOURCE)));
    }
  }

  // A child's interval part or its "done"; a child's messages arrive in the order it sent them.
  void TakeUp(int source) {
    const auto it = std::find(children_.begin(), children_.end(), source);
    const size_t c = static_cast<size_t>(it - children_.begin());
    if (it == children_.end() || buffer_.empty() || child_done_[c]) {
      Keep(Status::IOError(fmt::format("MPI: an unexpected interval message from rank {}", source)));
    } else if (buffer_[0] == 'D') {
      child_done_[c] = true;
    } else {
      auto index = PartIndex(buffer_, 1);
      if (!index.ok() || *index != child_received_[c]) {
        Keep(index.ok() ? Status::IOError(fmt::format("MPI: rank {} sent interval {} out of order", source, *index))
                        : index.status());
        return;
      }
      size_t pos = 1;
      Keep(PartAt(*index).MergeFrom(buffer_, &pos));
      child_received_[c] = *index + 1;
    }
  }

  // Interval i has all its parts here once this rank and every child either sent it or finished.
  bool Complete(uint64_t i) const {
    if (!own_done_ && own_count_ <= i) return false;
    for (size_t c = 0; c < children_.size(); ++c)
      if (!child_done_[c] && child_received_[c] <= i) return false;
    return true;
  }

  // Sends up (rank 0: prints) every interval that is complete, in order.
  void Forward() {
    while (Complete(next_)) {
      auto it = pending_.find(next_);
      if (it == pending_.end()) return;  // no rank of the subtree has this interval: all are done
      IntervalPart& part = *it->second;
      if (rank_ != 0) {
        std::string message = "I";
        part.AppendTo(&message);
        sender_.Send(std::move(message), TreeParent(rank_), kTagUp);
      } else if (part.ranks == static_cast<uint64_t>(size_)) {
        // An interval some rank never had (it ended earlier) has no merged line.
        ++merged_;
        if (progress_) {
          const uint64_t t0 = ThreadCpuNs();
          progress_(part.Stats());
          progress_cpu_ns_ += ThreadCpuNs() - t0;
        }
      }
      part.Reset();
      pool_.push_back(std::move(it->second));
      pending_.erase(it);
      ++next_;
    }
  }

  // Stonewall, rank 0: every rank stops (once).
  void StopAll() {
    if (stop_sent_) return;
    stop_sent_ = true;
    stonewall_flag_.store(true);
    for (int k = 1; k < size_; ++k) sender_.Send(std::string(), k, kTagStop);
  }

  // Finish() can return: every child is done, every part went up, and with the
  // stonewall, rank 0 heard every rank finish and every rank heard the stop.
  bool Settled() const {
    for (bool done : child_done_)
      if (!done) return false;
    if (!pending_.empty()) return false;
    if (!stonewall_) return true;
    return rank_ == 0 ? finished_ + 1 == static_cast<size_t>(size_) : got_stop_;
  }

  const int rank_, size_;
  const measure::HistogramOptions options_;
  const driver::ProgressFn& progress_;
  const bool stonewall_;
  const std::vector<int> children_;
  std::vector<uint64_t> child_received_;  // per child: intervals received (the next index it sends)
  std::vector<bool> child_done_;
  std::atomic<bool> stonewall_flag_{false};
  uint64_t own_count_ = 0, next_ = 0;  // this rank's intervals; the next index to send up
  bool own_done_ = false, stop_sent_ = false, got_stop_ = false;
  size_t finished_ = 0;  // rank 0, stonewall: ranks that finished
  std::map<uint64_t, std::unique_ptr<IntervalPart>> pending_;
  std::vector<std::unique_ptr<IntervalPart>> pool_;  // parts sent, kept for their histograms' memory
  std::string buffer_;
  Sender sender_;
  Status error_;
  uint64_t merged_ = 0, messages_received_ = 0, bytes_received_ = 0;
  uint64_t cpu_ns_ = 0, progress_cpu_ns_ = 0;  // measured window: merging and sending, and printing (rank 0)
  uint64_t finish_cpu_ns_ = 0;                  // after the run: the subtree's last parts, the barrier
  double measured_s_ = 0;
};

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
