#include "storebench/backend/null/null_backend.h"

#include <algorithm>
#include <pthread.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "storebench/base/units.h"
#include "storebench/measure/clock.h"
#include "storebench/measure/wait.h"
#include "storebench/workload/random.h"


namespace storebench::backend {
namespace {

using measure::Clock;

using measure::SleepUntil;
using measure::SpinUntil;

// State shared by all workers of one run: the options and the stall epoch.
struct NullShared {
  NullOptions options;
  uint64_t epoch_ns = 0;  // stalls are placed relative to this instant
  double work_per_ns = 0;  // --service-time work: iterations of DoWork per ns, calibrated in BeforeRun()
  std::vector<uint32_t> walk;  // --service-time walk: the ring (NullWalkRing) and its steps per ns
  double walk_per_ns = 0;
};

constexpr uint32_t kLineWords = 16;                  // uint32_t per cache line
constexpr uint32_t kWalkLines = (64u << 20) / 64;  // 64 MiB of lines

// `steps` dependent loads along the ring from *pos (left at the last line read).
void DoWalk(const std::vector<uint32_t>& ring, uint64_t steps, uint32_t* pos) {
  uint32_t p = *pos;
  for (uint64_t i = 0; i < steps; ++i) p = ring[p];
  asm volatile("" : : "r"(p));  // the loads happen even where *pos is not read again
  *pos = p;
}

// A dependent multiply/xorshift chain: work that takes as long as the CPU is slow.
uint64_t DoWork(uint64_t iterations) {
  uint64_t x = 0x2545f4914f6cdd1dull;
  for (uint64_t i = 0; i < iterations; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x *= 0x9e3779b97f4a7c15ull;
  }
  asm volatile("" : : "r"(x));
  return x;
}

// Units of `run(n)` per ns on this CPU as it runs now: the fastest of several tries of `n`.
template <typename Run>
double UnitsPerNs(uint64_t n, Run run) {
  const Clock& clock = Clock::Default();
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 15; ++i) {
    const uint64_t t0 = clock.NowNs();
    run(n);
    best = std::min(best, clock.NowNs() - t0);
  }
  return static_cast<double>(n) / static_cast<double>(std::max<uint64_t>(best, 1));
}

class NullWorker : public Worker {
 public:
  NullWorker(const NullShared* shared, const WorkerContext& context)
      : shared_(shared), clock_(Clock::Default()), qd_(context.queue_depth),
        stalls_(shared->options.stall_ns && (shared->options.stall_worker < 0 ||
                                              shared->options.stall_worker == context.index)),
        random_(workload::Random::SeedFor(context.seed, 0x6e756c6c)),
        walk_pos_(static_cast<uint32_t>(context.index % kWalkLines) * kLineWords) {}

  SubmitResult Submit(uint64_t tag, Completion* out) override {
    const NullOptions& o = shared_->options;
    if (o.async) {
      if (static_cast<int>(queue_.size()) >= qd_) return SubmitResult::kBusy;
      queue_.push_back({tag, clock_.NowNs() + o.service_ns});
      return SubmitResult::kQueued;
    }
    if (stalls_) WaitOutStall();
    switch (o.service) {
      case NullOptions::Service::kZero:
        break;
      case NullOptions::Service::kSpin:
      case NullOptions::Service::kSpinExponential: {
        const uint64_t now = clock_.NowNs();
        SpinUntil(clock_, now + ServiceNs(now));
        break;
      }
      case NullOptions::Service::kSleep: {
        const uint64_t now = clock_.NowNs();
        SleepUntil(clock_, now + ServiceNs(now));
        break;
      }
      case NullOptions::Service::kWork:
        DoWork(static_cast<uint64_t>(static_cast<double>(ServiceNs(clock_.NowNs())) * shared_->work_per_ns));
        break;
      case NullOptions::Service::kWalk:
        DoWalk(shared_->walk, static_cast<uint64_t>(static_cast<double>(ServiceNs(clock_.NowNs())) * shared_->walk_per_ns),
               &walk_pos_);
        break;
    }
    out->tag = tag;
    out->kind = 0;
    out->outcome = NextOutcome();
    out->bytes = 0;
    return SubmitResult::kCompleted;
  }

  size_t Reap(size_t min, std::span<Completion> out) override {
    size_t n = 0;
    while (n < out.size() && !queue_.empty()) {
      uint64_t now = clock_.NowNs();
      if (stalls_) now = WaitOutStall();
      if (queue_.front().due_ns > now) {
        if (n >= min) break;
        SpinUntil(clock_, queue_.front().due_ns);
      }
      out[n++] = Completion{queue_.front().tag, 0, NextOutcome(), 0};
      queue_.pop_front();
    }
    return n;
  }

 private:
  // 1 ("error") for every fail_every-th op, else 0 ("ok").
  uint32_t NextOutcome() {
    const uint64_t every = shared_->options.fail_every;
    return every && ++ops_ % every == 0 ? 1u : 0u;
  }

  // This op's service time, begun at `now`: fixed or drawn, stretched inside a slow window.
  uint64_t ServiceNs(uint64_t now) {
    const NullOptions& o = shared_->options;
    double ns = o.service == NullOptions::Service::kSpinExponential
                    ? random_.Exponential(static_cast<double>(o.service_ns))
                    : static_cast<double>(o.service_ns);
    if (now >= shared_->epoch_ns && InSlowPart(o, now - shared_->epoch_ns)) ns *= o.slow_factor;
    return static_cast<uint64_t>(ns);
  }

  // Blocks while the current instant lies inside a stall window; returns the time after it.
  uint64_t WaitOutStall() {
    const NullOptions& o = shared_->options;
    uint64_t now = clock_.NowNs();
    if (now < shared_->epoch_ns) return now;
    uint64_t pos = (now - shared_->epoch_ns) % o.stall_period_ns;
    uint64_t stall_begin = o.stall_period_ns - o.stall_ns;
    if (pos < stall_begin) return now;
    uint64_t end = now + (o.stall_period_ns - pos);
    SleepUntil(clock_, end);
    return clock_.NowNs();
  }

  struct Pending {
    uint64_t tag;
    uint64_t due_ns;
  };
  const NullShared* shared_;
  const Clock& clock_;
  int qd_;
  bool stalls_;
  workload::Random random_;
  uint32_t walk_pos_;  // where this worker's walk goes on from
  std::deque<Pending> queue_;
  uint64_t ops_ = 0;
};


// Threads that spin `burn_ns` of every `burn_period_ns` until stopped: an
// engine's own background work. Made from the first worker's thread, they
// inherit its CPU affinity (--cpus), so they compete with the workers.
class Burners {
 public:
  ~Burners() { Stop(); }
  void StartOnce(const NullOptions& o) {
    if (!o.burn_ns) return;
    std::call_once(started_, [&] {
      for (int i = 0; i < o.burn_threads; ++i)
        threads_.emplace_back([this, duty = o.burn_ns, period = o.burn_period_ns] { Burn(duty, period); });
    });
  }
  void Stop() {
    stop_.store(true, std::memory_order_relaxed);
    for (auto& t : threads_)
      if (t.joinable()) t.join();
    threads_.clear();
  }

 private:
  void Burn(uint64_t duty, uint64_t period) {
    (void)pthread_setname_np(pthread_self(), "null:burn");
    const Clock& clock = Clock::Default();
    constexpr uint64_t kStopCheckNs = 5'000'000;  // how late a stop may be noticed
    uint64_t begin = clock.NowNs();
    while (!stop_.load(std::memory_order_relaxed)) {
      const uint64_t spin_end = begin + duty;
      for (uint64_t now = clock.NowNs(); now < spin_end && !stop_.load(std::memory_order_relaxed);
           now = clock.NowNs())
        SpinUntil(clock, std::min(spin_end, now + kStopCheckNs));
      const uint64_t next = begin + period;
      for (uint64_t now = clock.NowNs(); now < next && !stop_.load(std::memory_order_relaxed); now = clock.NowNs())
        SleepUntil(clock, std::min(next, now + kStopCheckNs));
      begin = next;
    }
  }

  std::once_flag started_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

class NullBackend : public Backend {
 public:
  explicit NullBackend(NullOptions options) { shared_.options = options; }
  uint32_t capabilities() const override { return 0; }
  Status CheckGroup(const GroupSettings& group) const override {
    if (group.queue_depth > 1 && !shared_.options.async)
      return Status::InvalidArgument(fmt::format(
          "--iodepth {}: the null backend completes ops synchronously unless --null-async is given",
          group.queue_depth));
    return Status::Ok();
  }
  Status BeforeRun() override {
    if (shared_.options.service == NullOptions::Service::kWork) shared_.work_per_ns = UnitsPerNs(200'000, DoWork);
    if (shared_.options.service == NullOptions::Service::kWalk && shared_.walk.empty()) {
      shared_.walk = NullWalkRing(kWalkLines, 0x77616c6b);
      uint32_t pos = 0;
      shared_.walk_per_ns = UnitsPerNs(20'000, [&](uint64_t n) { DoWalk(shared_.walk, n, &pos); });
    }
    shared_.epoch_ns = Clock::Default().NowNs();
    return Status::Ok();
  }
  StatusOr<std::unique_ptr<Worker>> NewWorker(const WorkerContext& context) override {
    burners_.StartOnce(shared_.options);
    return std::unique_ptr<Worker>(new NullWorker(&shared_, context));
  }
  Status AfterRun() override {
    burners_.Stop();
    return Status::Ok();
  }
  void Figures(measure::MetricSet* out) const override {
    const NullOptions& o = shared_.options;
    out->Gauge({"null", "service_ns"}, static_cast<double>(o.service_ns), measure::Unit::kNanoseconds,
               measure::MergeRule::kSame);
    out->Text({"null", "service"}, o.service == NullOptions::Service::kZero   ? "zero"
                                   : o.service == NullOptions::Service::kSpin ? "spin"
                                   : o.service == NullOptions::Service::kSleep ? "sleep"
                                   : o.service == NullOptions::Service::kWork  ? "work"
                                   : o.service == NullOptions::Service::kWalk  ? "walk"
                                                                               : "spin-exp");
    out->Gauge({"null", "slow_factor"}, o.slow_factor, measure::Unit::kRatio, measure::MergeRule::kSame);
    out->Gauge({"null", "slow_ns"}, static_cast<double>(o.slow_ns), measure::Unit::kNanoseconds,
               measure::MergeRule::kSame);
    out->Gauge({"null", "slow_period_ns"}, static_cast<double>(o.slow_period_ns), measure::Unit::kNanoseconds,
               measure::MergeRule::kSame);
    out->Gauge({"null", "stall_ns"}, static_cast<double>(o.stall_ns), measure::Unit::kNanoseconds,
               measure::MergeRule::kSame);
    out->Gauge({"null", "stall_period_ns"}, static_cast<double>(o.stall_period_ns), measure::Unit::kNanoseconds,
               measure::MergeRule::kSame);
    out->Flag({"null", "async"}, o.async).merge = measure::MergeRule::kSame;
    out->Gauge({"null", "stall_worker"}, o.stall_worker, measure::Unit::kCount, measure::MergeRule::kSame);
    out->Gauge({"null", "fail_every"}, static_cast<double>(o.fail_every), measure::Unit::kCount,
               measure::MergeRule::kSame);
    out->Gauge({"null", "burn_ns"}, static_cast<double>(o.burn_ns), measure::Unit::kNanoseconds,
               measure::MergeRule::kSame);
    out->Gauge({"null", "burn_period_ns"}, static_cast<double>(o.burn_period_ns), measure::Unit::kNanoseconds,
               measure::MergeRule::kSame);
    out->Gauge({"null", "burn_threads"}, o.burn_threads, measure::Unit::kCount, measure::MergeRule::kSame);
  }

 private:
  NullShared shared_;
  Burners burners_;
};

// "spin:200ns" / "sleep:1ms" / "spin-exp:20us" / "work:20us" / "0".
Status SetServiceTime(NullOptions& o, const std::string& text) {
  o.service = NullOptions::Service::kZero;
  o.service_ns = 0;
  if (text == "0") return Status::Ok();
  constexpr const char* kForm =
      "--service-time: expected 0, spin:DURATION, sleep:DURATION, spin-exp:MEAN, work:DURATION or walk:DURATION (e.g. "
      "spin:200ns, sleep:1ms, spin-exp:20us, work:20us, walk:20us)";
  auto colon = text.find(':');
  std::string mode = colon == std::string::npos ? "" : text.substr(0, colon);
  auto ns = colon == std::string::npos ? StatusOr<uint64_t>(Status::InvalidArgument(""))
                                       : ParseDurationNs(text.substr(colon + 1), "--service-time");
  if ((mode != "spin" && mode != "sleep" && mode != "spin-exp" && mode != "work" && mode != "walk") || !ns.ok() ||
      (mode == "spin-exp" && *ns == 0))
    return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, text));
  o.service = mode == "spin"       ? NullOptions::Service::kSpin
              : mode == "sleep"    ? NullOptions::Service::kSleep
              : mode == "work"     ? NullOptions::Service::kWork
              : mode == "walk"     ? NullOptions::Service::kWalk
                                   : NullOptions::Service::kSpinExponential;
  o.service_ns = *ns;
  return Status::Ok();
}

// "100ms/1s" / "0".
Status SetStall(NullOptions& o, const std::string& text) {
  o.stall_ns = o.stall_period_ns = 0;
  if (text == "0") return Status::Ok();
  constexpr const char* kForm = "--stall: expected PAUSE/PERIOD with PAUSE < PERIOD, e.g. 100ms/1s";
  auto slash = text.find('/');
  if (slash == std::string::npos) return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, text));
  auto pause = ParseDurationNs(text.substr(0, slash), "--stall");
  auto period = ParseDurationNs(text.substr(slash + 1), "--stall");
  if (!pause.ok() || !period.ok() || *pause == 0 || *pause >= *period)
    return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, text));
  o.stall_ns = *pause;
  o.stall_period_ns = *period;
  return Status::Ok();
}

// "20ms/40ms" / "0": spin for the first part of every period; equal parts = all the time.
Status SetBurn(NullOptions& o, const std::string& text) {
  o.burn_ns = o.burn_period_ns = 0;
  if (text == "0") return Status::Ok();
  constexpr const char* kForm = "--burn: expected SPIN/PERIOD with 0 < SPIN <= PERIOD, e.g. 20ms/40ms";
  auto slash = text.find('/');
  if (slash == std::string::npos) return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, text));
  auto spin = ParseDurationNs(text.substr(0, slash), "--burn");
  auto period = ParseDurationNs(text.substr(slash + 1), "--burn");
  if (!spin.ok() || !period.ok() || *spin == 0 || *spin > *period)
    return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, text));
  o.burn_ns = *spin;
  o.burn_period_ns = *period;
  return Status::Ok();
}

// "1.25x:1s/5s" / "0".
Status SetSlow(NullOptions& o, const std::string& text) {
  o.slow_factor = 1;
  o.slow_ns = o.slow_period_ns = 0;
  if (text == "0") return Status::Ok();
  constexpr const char* kForm =
      "--slow: expected FACTORx:LENGTH/PERIOD with FACTOR >= 1 and LENGTH < PERIOD, e.g. 1.25x:1s/5s (service "
      "time 1.25 times longer for 1 s of every 5 s)";
  auto bad = [&] { return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, text)); };
  const auto x = text.find("x:");
  const auto slash = text.find('/');
  if (x == std::string::npos || slash == std::string::npos || slash < x) return bad();
  auto factor = ParseDouble(text.substr(0, x), "--slow");
  auto length = ParseDurationNs(text.substr(x + 2, slash - x - 2), "--slow");
  auto period = ParseDurationNs(text.substr(slash + 1), "--slow");
  if (!factor.ok() || !(*factor >= 1 && *factor <= 1000) || !length.ok() || !period.ok() || *length == 0 ||
      *length >= *period)
    return bad();
  o.slow_factor = *factor;
  o.slow_ns = *length;
  o.slow_period_ns = *period;
  return Status::Ok();
}

}  // namespace

const OptionTable<NullOptions>& NullOptionTable() {
  static const OptionTable<NullOptions> table = [] {
    OptionTable<NullOptions> t("backend 'null'");
    t.Custom({"service-time", OptionType::kText,
              "null: time each op takes (spin-exp: exponential with that mean; work: CPU work calibrated to take that "
              "long, so a slow CPU stretches it; walk: dependent loads from a 64 MiB buffer calibrated the same way, "
              "so slow memory stretches it)",
              "0", {}, "", "0 | spin:DURATION | sleep:DURATION | spin-exp:MEAN | work:DURATION | walk:DURATION"},
             SetServiceTime)
        .Custom({"slow", OptionType::kText,
                 "null: service time FACTOR times longer for the first LENGTH of every PERIOD (capacity that drops now "
                 "and then)",
                 "", {}, "", "FACTORx:LENGTH/PERIOD, e.g. 1.25x:1s/5s"},
                SetSlow)
        .Custom({"stall", OptionType::kText, "null: pause every worker for PAUSE once per PERIOD (a hiccuping device)",
                 "", {}, "", "PAUSE/PERIOD, e.g. 100ms/1s"},
                SetStall)
        .Integer("stall-worker", &NullOptions::stall_worker,
                 "null: only this worker (0, 1, …) stalls; -1 = every worker", "-1", -1, 4095)
        .Flag("null-async", &NullOptions::async, "null: complete ops through the async path (with --iodepth > 1)")
        .Count("fail-every", &NullOptions::fail_every, "null: every Nth op of each worker fails (outcome error); 0 = none",
               "0")
        .Custom({"burn", OptionType::kText,
                 "null: background threads (null:burn) spin for SPIN of every PERIOD on the first worker's CPUs, as "
                 "an engine's compaction threads do",
                 "", {}, "", "SPIN/PERIOD, e.g. 20ms/40ms"},
                SetBurn)
        .Integer("burn-threads", &NullOptions::burn_threads, "null: how many --burn threads", "1", 1, 64);
    return t;
  }();
  return table;
}

std::vector<uint32_t> NullWalkRing(uint32_t lines, uint64_t seed) {
  // Sattolo's shuffle: a random permutation that is one cycle through every line.
  std::vector<uint32_t> order(lines);
  for (uint32_t i = 0; i < lines; ++i) order[i] = i;
  workload::Random rng(seed);
  for (uint32_t i = lines - 1; i > 0; --i) std::swap(order[i], order[rng() % i]);
  std::vector<uint32_t> ring(static_cast<size_t>(lines) * kLineWords, 0);
  for (uint32_t i = 0; i < lines; ++i) ring[static_cast<size_t>(i) * kLineWords] = order[i] * kLineWords;
  return ring;
}

bool InSlowPart(const NullOptions& o, uint64_t since_epoch_ns) {
  return o.slow_ns && since_epoch_ns % o.slow_period_ns < o.slow_ns;
}

BackendInfo NullBackendInfo() {
  return MakeBackendInfo<NullOptions>(
      "null", "does nothing (or spins/sleeps): measures the driver itself", 0, NullOptionTable(),
      [](NullOptions o, const CommonOptions&) -> StatusOr<std::unique_ptr<Backend>> {
        return std::unique_ptr<Backend>(new NullBackend(o));
      });
}

}  // namespace storebench::backend
