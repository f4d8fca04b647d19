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
  NullWorker(const NullShared* shared, int queue_depth) : shared_(shared), clock_(Clock::Default()), qd_(queue_depth) {}

  SubmitResult Submit(uint64_t tag, Completion* out) override {
    const NullOptions& o = shared_->options;
    if (o.async) {
      if (static_cast<int>(queue_.size()) >= qd_) return SubmitResult::kBusy;
      queue_.push_back({tag, clock_.NowNs() + o.service_ns});
      return SubmitResult::kQueued;
    }
    if (o.stall_ns) WaitOutStall();
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
      if (shared_->options.stall_ns) now = WaitOutStall();
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
  std::deque<Pending> queue_;
  uint64_t ops_ = 0;
};

class NullBackend : public Backend {
 public:
  explicit NullBackend(NullOptions options) { shared_.options = options; }
  uint32_t capabilities() const override { return kAsync; }
  Status BeforeRun() override {
    shared_.epoch_ns = Clock::Default().NowNs();
    return Status::Ok();
  }
  StatusOr<std::unique_ptr<Worker>> NewWorker(const WorkerContext& context) override {
    return std::unique_ptr<Worker>(new NullWorker(&shared_, context.queue_depth));
  }
  nlohmann::json Results() const override {
    const NullOptions& o = shared_.options;
    return {{"null",
             {{"service_ns", o.service_ns},
              {"service", o.service == NullOptions::Service::kZero   ? "zero"
                          : o.service == NullOptions::Service::kSpin ? "spin"
                                                                     : "sleep"},
              {"stall_ns", o.stall_ns},
              {"stall_period_ns", o.stall_period_ns},
              {"async", o.async},
              {"fail_every", o.fail_every}}}};
  }

 private:
  NullShared shared_;
};

}  // namespace

StatusOr<NullOptions> ParseNullOptions(const OptionValues& values) {
  NullOptions o;
  auto get = [&](const char* name) { return OptionValue(values, name); };
  std::string service = get("service-time");
  if (!service.empty() && service != "0") {
    constexpr const char* kForm = "--service-time: expected 0, spin:DURATION or sleep:DURATION (e.g. spin:200ns, sleep:1ms)";
    auto colon = service.find(':');
    if (colon == std::string::npos) return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, service));
    std::string mode = service.substr(0, colon);
    if (mode == "spin") o.service = NullOptions::Service::kSpin;
    else if (mode == "sleep") o.service = NullOptions::Service::kSleep;
    else return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, service));
    auto ns = ParseDurationNs(service.substr(colon + 1), "--service-time");
    if (!ns.ok()) return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, service));
    o.service_ns = *ns;
  }
  std::string stall = get("stall");
  if (!stall.empty() && stall != "0") {
    constexpr const char* kForm = "--stall: expected PAUSE/PERIOD with PAUSE < PERIOD, e.g. 100ms/1s";
    auto slash = stall.find('/');
    if (slash == std::string::npos) return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, stall));
    auto pause = ParseDurationNs(stall.substr(0, slash), "--stall");
    auto period = ParseDurationNs(stall.substr(slash + 1), "--stall");
    if (!pause.ok() || !period.ok() || *pause == 0 || *pause >= *period)
      return Status::InvalidArgument(fmt::format("{}; got '{}'", kForm, stall));
    o.stall_ns = *pause;
    o.stall_period_ns = *period;
  }
  o.async = get("null-async") == "1";
  std::string fail = get("fail-every");
  if (!fail.empty()) {
    auto n = ParseCount(fail, "--fail-every");
    if (!n.ok()) return n.status();
    o.fail_every = *n;
  }
  return o;
}

BackendInfo NullBackendInfo() {
  BackendInfo info;
  info.name = "null";
  info.description = "does nothing (or spins/sleeps): measures the driver itself";
  info.capabilities = kAsync;
  info.options = {
      {"service-time", "null: time each op takes: 0, spin:DURATION or sleep:DURATION (e.g. spin:200ns)", "0", false},
      {"stall", "null: pause every worker for PAUSE once per PERIOD, e.g. 100ms/1s (a hiccuping device)", "", false},
      {"null-async", "null: complete ops through the async path (with --iodepth > 1)", "", true},
      {"fail-every", "null: every Nth op of each worker fails (outcome error), e.g. 100; 0 = none", "0", false},
  };
  info.create = [](const OptionValues& values, const CommonOptions&) -> StatusOr<std::unique_ptr<Backend>> {
    auto o = ParseNullOptions(values);
    if (!o.ok()) return o.status();
    return std::unique_ptr<Backend>(new NullBackend(*o));
  };
  return info;
}

}  // namespace storebench::backend
