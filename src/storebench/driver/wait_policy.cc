#include "storebench/driver/wait_policy.h"

#include <sched.h>

#include <algorithm>

#include "storebench/measure/wait.h"

namespace storebench::driver {

bool RunsRealtime() {
  const int policy = sched_getscheduler(0);
  return policy == SCHED_FIFO || policy == SCHED_RR;
}

WaitPolicy WaitPolicyFor(WaitMode mode, uint64_t tail_ns, bool cpus_left, bool realtime) {
  constexpr uint64_t kCapNs = 2'000'000;   // beyond this the lateness is a hiccup, not a wake-up
  constexpr uint64_t kFloorNs = 20'000;
  switch (mode) {
    case WaitMode::kSpin:  // the last 60 µs, on a CPU of its own
      return {60'000, 60'000, false, false};
    case WaitMode::kSleep:
      return {0, 0, false, false};
    case WaitMode::kAdaptive:
      break;
  }
  const uint64_t floor = std::clamp<uint64_t>(tail_ns, kFloorNs, kCapNs);
  if (realtime) return {floor, floor, false, !cpus_left};
  return {floor, kCapNs, true, !cpus_left};
}

// Stays awake until `deadline_ns`, calling `turn` between clock reads; the
// last gap (last read before the deadline, first at or after it), or none
// when the deadline had passed already.
template <typename Turn>
Waiter::Gap AwakeUntil(const measure::Clock& clock, uint64_t now, uint64_t deadline_ns, Turn turn) {
  uint64_t before = 0;
  while (now < deadline_ns) {
    turn();
    before = now;
    now = clock.NowNs();
  }
  return before ? Waiter::Gap{before, now} : Waiter::Gap{};
}

void Waiter::WaitTowards(const measure::Clock& clock, uint64_t deadline_ns, uint64_t max_sleep_ns) {
  gap_ = {};
  late_pending_ = false;
  uint64_t now = clock.NowNs();
  if (deadline_ns > now + window_ns_) {
    const uint64_t target = now + std::min(deadline_ns - now - window_ns_, max_sleep_ns);
    measure::SleepUntil(clock, target);
    ++sleeps_;
    if (!p_.adapt) return;
    const uint64_t late = clock.NowNs() - target;
    if (late > window_ns_) {
      ++late_sleeps_;
      window_ns_ = std::min(late + late / 4, p_.cap_ns);
      max_window_ns_ = std::max(max_window_ns_, window_ns_);
    } else if (window_ns_ > p_.floor_ns) {
      window_ns_ -= std::max<uint64_t>((window_ns_ - p_.floor_ns) / 64, 1);
    }
    return;
  }
  if (p_.yield) {
    if (sleep_turns_ > 0) {
      --sleep_turns_;
      if (deadline_ns > now) {
        measure::SleepUntil(clock, deadline_ns);
        ++sleeps_;
        while (clock.NowNs() < deadline_ns) sched_yield();  // the TSC and the timer's clock may disagree by a hair
      }
      return;
    }
    gap_ = AwakeUntil(clock, now, deadline_ns, [] { sched_yield(); });
    if (gap_.after_ns == 0) return;
    if (gap_.after_ns - deadline_ns > window_ns_) {
      if (confirm_late_yields_)
        late_pending_ = true;
      else
        YieldWasLate();
    }
  } else {
    gap_ = AwakeUntil(clock, now, deadline_ns, [] { measure::Pause(); });
  }
}

}  // namespace storebench::driver
