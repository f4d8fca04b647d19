#include "storebench/backend/null/null_backend.h"

#include <deque>
#include <fmt/format.h>

#include "storebench/base/units.h"
#include "storebench/measure/clock.h"
#include "storebench/measure/wait.h"


namespace storebench::backend {
namespace {

using measure::Clock;

using measure::SleepUntil;
using measure::SpinUntil;

// State shared by all workers of one run: the options and the stall epoch.
struct NullShared {
  NullOptions options;
  uint64_t epoch_ns = 0;  // stalls are placed relative to this instant
};

class NullWorker : public Worker {
 public:
  NullWorker(const NullShared* shared, const WorkerContext& context)
      : shared_(shared), clock_(Clock::Default()), qd_(context.queue_depth),
        stalls_(shared->options.stall_ns && (shared->options.stall_worker < 0 ||
                                              shared->options.stall_worker == context.index)) {}

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
        SpinUntil(clock_, clock_.NowNs() + o.service_ns);
        break;
      case NullOptions::Service::kSleep:
        SleepUntil(clock_, clock_.NowNs() + o.service_ns);
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
  std::deque<Pending> queue_;
  uint64_t ops_ = 0;
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
    shared_.epoch_ns = Clock::Default().NowNs();
    return Status::Ok();
  }
  StatusOr<std::unique_ptr<Worker>> NewWorker(const WorkerContext& context) override {
    return std::unique_ptr<Worker>(new NullWorker(&shared_, context));
  }
  void Figures(measure::MetricSet* out) const override {
    const NullOptions& o = shared_.options;
    out->Gauge({"null", "service_ns"}, static_cast<double>(o.service_ns), measure::Unit::kNanoseconds,
               measure::MergeRule::kSame);
    out->Text({"null", "service"}, o.service == NullOptions::Service::kZero   ? "zero"
                                   : o.service == NullOptions::Service::kSpin ? "spin"
                                                                              : "sleep");
    out->Gauge({"null", "stall_ns"}, static_cast<double>(o.stall_ns), measure::Unit::kNanoseconds,
               measure::MergeRule::kSame);
    out->Gauge({"null", "stall_period_ns"}, static_cast<double>(o.stall_period_ns), measure::Unit::kNanoseconds,
               measure::MergeRule::kSame);
    out->Flag({"null", "async"}, o.async).merge = measure::MergeRule::kSame;
    out->Gauge({"null", "stall_worker"}, o.stall_worker, measure::Unit::kCount, measure::MergeRule::kSame);
    out->Gauge({"null", "fail_every"}, static_cast<double>(o.fail_every), measure::Unit::kCount,
               measure::MergeRule::kSame);
  }

 private:
  NullShared shared_;
};

// "spin:200ns" / "sleep:1ms" / "0".
Status SetServiceTime(NullOptions& o, const std::string& text) {
  o.service = NullOptions::Service::kZero;
  o.service_ns = 0;
  if (text == "0") return Status::Ok();
  constexpr const char* kForm = "--service-time: expected 0, spin:DURATION or sleep:DURATION (e.g. spin:200ns, sleep:1ms)";
  auto colon = text.find(':');
  std::string mode = colon == std::string::npos ? "" : text.substr(0, colon);
  auto ns = colon == std::string::npos ? StatusOr<uint64_t>(Status::InvalidArgument(""))
                                       : ParseDurationNs(text.substr(colon + 1), "--service-time");
  if ((mode != "spin" && mode != "sleep") || !ns.ok())
    return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, text));
  o.service = mode == "spin" ? NullOptions::Service::kSpin : NullOptions::Service::kSleep;
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

}  // namespace

const OptionTable<NullOptions>& NullOptionTable() {
  static const OptionTable<NullOptions> table = [] {
    OptionTable<NullOptions> t("backend 'null'");
    t.Custom({"service-time", OptionType::kText, "null: time each op takes", "0", {}, "", "0 | spin:DURATION | sleep:DURATION"},
             SetServiceTime)
        .Custom({"stall", OptionType::kText, "null: pause every worker for PAUSE once per PERIOD (a hiccuping device)",
                 "", {}, "", "PAUSE/PERIOD, e.g. 100ms/1s"},
                SetStall)
        .Integer("stall-worker", &NullOptions::stall_worker,
                 "null: only this worker (0, 1, …) stalls; -1 = every worker", "-1", -1, 4095)
        .Flag("null-async", &NullOptions::async, "null: complete ops through the async path (with --iodepth > 1)")
        .Count("fail-every", &NullOptions::fail_every, "null: every Nth op of each worker fails (outcome error); 0 = none",
               "0");
    return t;
  }();
  return table;
}

BackendInfo NullBackendInfo() {
  return MakeBackendInfo<NullOptions>(
      "null", "does nothing (or spins/sleeps): measures the driver itself", 0, NullOptionTable(),
      [](NullOptions o, const CommonOptions&) -> StatusOr<std::unique_ptr<Backend>> {
        return std::unique_ptr<Backend>(new NullBackend(o));
      });
}

}  // namespace storebench::backend
