#include "storebench/driver/platform_meter.h"

#include <time.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "storebench/driver/cpu_account.h"
#include "storebench/driver/kernel_platform.h"
#include "storebench/driver/threads.h"
#include "storebench/measure/wait.h"
#include "storebench/workload/random.h"

namespace storebench::driver {
namespace {

// The integer unit: ~2 us on a current x86 core, timed kCpuReps times per
// tick, the fastest kept. Measured on this project's VM (2026-12-07): the
// clock advances in ~10 ns steps, so a 0.5 us unit read 2% slow from one step
// alone, and the first repetition after the meter's 40 ms sleep ran cold (mean
// 0.88-0.97 of the calibration); with a 0.5 us unit and the fastest of 2 an
// idle machine read a mean speed of 0.953-0.982, a bias that near saturation
// the steady-platform client turned into a platform share. At ~2 us and the
// fastest of 4 the idle mean is within 0.5% of 1.
constexpr uint32_t kCpuIterations = 1024;
constexpr int kCpuReps = 4;
// The memory unit: a walk through kWalkSteps lines, each on a page of its own
// within a buffer far larger than they are, flushed from the caches first,
// so that every step is a load from memory: its time is the memory's latency
// under whatever else loads the memory bus (a neighbour's bandwidth).
constexpr uint32_t kWalkSteps = 16;
constexpr uint32_t kWalkStride = (4096 + 64) / 4;  // in uint32_t: a page and a line apart
// The contention unit: kLookups searches of a kTreeNodes-node tree (512 KiB
// of 16-byte nodes) and kAluIterations of the ALU loop, ~0.4 us together here.
constexpr uint32_t kTreeNodes = 32768;
constexpr uint32_t kLookups = 20;
constexpr uint32_t kAluIterations = 500;
// It runs on every kContentionEvery-th tick only: beside an engine that
// evicts the caches its untimed warming pass is most of a tick's cost (a
// tick cost ~100 us of CPU beside RocksDB with it every tick, ~50 us beside
// the null backend), and the figure is reported, not used in the speed.
constexpr uint64_t kContentionEvery = 4;
constexpr int kCalibrationReps = 64;
// Lateness above the median wake-up latency by more than this reads the
// meter's own run-queue wait and the cgroup's throttling (two /proc reads).
constexpr uint64_t kLateNs = 500'000;

// The clock read in order with the work it times: rdtsc is not ordered, so
// without the fences it could be read before the walk's loads completed
// (the memory unit read ~10 ns for 16 loads from memory).
uint64_t OrderedNowNs(const measure::Clock& clock) {
#if defined(__x86_64__)
  __builtin_ia32_lfence();
  const uint64_t t = clock.NowNs();
  __builtin_ia32_lfence();
  return t;
#else
  return clock.NowNs();
#endif
}

uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

void NominalAndNoise(std::vector<uint64_t> runs, size_t group, uint64_t* nominal_ns, double* noise) {
  *nominal_ns = 1;
  *noise = 0;
  if (runs.empty()) return;
  std::vector<uint64_t> sorted = runs;
  std::sort(sorted.begin(), sorted.end());
  *nominal_ns = std::max<uint64_t>(1, sorted[sorted.size() / 10]);
  group = std::max<size_t>(group, 1);
  for (size_t g = 0; g + group <= runs.size(); g += group) {
    const uint64_t fastest = *std::min_element(runs.begin() + static_cast<long>(g), runs.begin() + static_cast<long>(g + group));
    const double speed = std::min(1.0, static_cast<double>(*nominal_ns) / static_cast<double>(std::max<uint64_t>(fastest, 1)));
    *noise = std::max(*noise, 1 - speed);
  }
  *noise = std::min(*noise, kMaxNoise);
}

StopReader::StopReader(uint64_t wakeup_base_ns)
    : base_ns_(wakeup_base_ns), cpu_stat_path_(KernelPlatform().cpu_stat_path()) {
  Read(&wait_seen_, &throttled_seen_);
}

void StopReader::Read(uint64_t* waited_ns, uint64_t* throttled_ns) {
  const uint64_t wait_now = OwnThreadSched().runqueue_wait_ns, throttled_now = ReadThrottledNs(cpu_stat_path_);
  *waited_ns = wait_now > wait_seen_ ? wait_now - wait_seen_ : 0;
  *throttled_ns = throttled_now > throttled_seen_ ? throttled_now - throttled_seen_ : 0;
  wait_seen_ = wait_now;
  throttled_seen_ = throttled_now;
}

uint64_t StopReader::StopOf(uint64_t late_ns) {
  uint64_t waited = 0, quota = 0;
  if (late_ns <= base_ns_ + kLateNs) {
    if (++quiet_ == kRefreshWakes) quiet_ = 0, Read(&waited, &quota);
    return 0;
  }
  quiet_ = 0;
  Read(&waited, &quota);
  const uint64_t beyond = late_ns - base_ns_;
  return std::min(beyond, (beyond > waited ? beyond - waited : 0) + std::min(waited, quota));
}

struct PlatformMeter::Ring {
  static constexpr size_t kSize = 4096;  // 164 s of ticks at 40 ms: the reporter drains every 20 ms
  std::vector<MeterTick, measure::ZeroedAllocator<MeterTick>> ticks = decltype(ticks)(kSize);
  alignas(64) std::atomic<uint64_t> head{0};
  std::atomic<uint64_t> dropped{0};
  std::atomic<uint64_t> cpu_ns{0};
  std::atomic<uint64_t> last_woke{0};
  alignas(64) std::atomic<uint64_t> tail{0};

  void Push(const MeterTick& t) {
    const uint64_t h = head.load(std::memory_order_relaxed);
    if (h - tail.load(std::memory_order_acquire) == kSize) {
      dropped.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    ticks[h % kSize] = t;
    head.store(h + 1, std::memory_order_release);
    last_woke.store(t.woke_ns, std::memory_order_release);
  }
};

uint64_t RunCpuUnit(uint32_t iterations) {
  const measure::Clock& clock = measure::Clock::Default();
  uint64_t x = 0x9e3779b97f4a7c15ull;
  const uint64_t t0 = OrderedNowNs(clock);
  for (uint32_t i = 0; i < iterations; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x *= 0xff51afd7ed558ccdull;
  }
  const uint64_t t1 = OrderedNowNs(clock);
  asm volatile("" : : "r"(x));
  return t1 - t0;
}

// A balanced search tree over keys 0, 2, 4, … whose nodes sit at random
// places in the array, so each step of a search is a dependent load from
// another line and a branch the key decides.
struct PlatformMeter::Tree {
  struct Node {
    uint32_t key, left, right, pad;
  };
  static constexpr uint32_t kNil = UINT32_MAX;
  std::vector<Node> nodes = std::vector<Node>(kTreeNodes);
  uint32_t root = kNil;
  uint32_t keys[kLookups] = {};

  Tree() {
    std::vector<uint32_t> place(kTreeNodes);
    std::iota(place.begin(), place.end(), 0u);
    workload::Random rng(0x7ee);
    for (uint32_t i = kTreeNodes - 1; i > 0; --i) std::swap(place[i], place[rng() % (i + 1)]);
    root = Build(place, 0, kTreeNodes);
    for (uint32_t& k : keys) k = static_cast<uint32_t>(rng() % (2 * kTreeNodes));
  }
  // The subtree of sorted ranks [lo, hi), placed by `place` (depth log2 kTreeNodes).
  uint32_t Build(const std::vector<uint32_t>& place, uint32_t lo, uint32_t hi) {
    if (lo >= hi) return kNil;
    const uint32_t mid = lo + (hi - lo) / 2;
    Node& n = nodes[place[mid]];
    n.key = 2 * mid;
    n.left = Build(place, lo, mid);
    n.right = Build(place, mid + 1, hi);
    return place[mid];
  }
  uint32_t Search() const {
    uint32_t found = 0;
    for (uint32_t key : keys) {
      for (uint32_t at = root; at != kNil;) {
        const Node& n = nodes[at];
        if (key == n.key) {
          ++found;
          break;
        }
        at = key < n.key ? n.left : n.right;
      }
    }
    return found;
  }
};

uint64_t RunAluUnit(uint32_t iterations) {
  const measure::Clock& clock = measure::Clock::Default();
  uint64_t a = 1, b = 2, c = 3, d = 4;
  const uint64_t t0 = OrderedNowNs(clock);
  for (uint32_t i = 0; i < iterations; ++i) {
    a = (a * 0xbf58476d1ce4e5b9ull) ^ (a >> 31);
    b = (b * 0xbf58476d1ce4e5b9ull) ^ (b >> 29);
    c = (c * 0x94d049bb133111ebull) ^ (c >> 27);
    d = (d * 0x94d049bb133111ebull) ^ (d >> 30);
  }
  const uint64_t t1 = OrderedNowNs(clock);
  asm volatile("" : : "r"(a ^ b ^ c ^ d));
  return t1 - t0;
}

uint64_t PlatformMeter::RunContentionUnit() const {
  const measure::Clock& clock = measure::Clock::Default();
  uint32_t found = tree_->Search();  // warms the searched paths: what is timed is the core, not a cold cache
  const uint64_t t0 = OrderedNowNs(clock);
  found += tree_->Search();
  const uint64_t lookups = std::max<uint64_t>(1, OrderedNowNs(clock) - t0);
  asm volatile("" : : "r"(found));
  const uint64_t alu = std::max<uint64_t>(1, RunAluUnit(kAluIterations));
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(std::sqrt(double(lookups) * double(alu)))));
}

uint64_t RunMemoryUnit(const uint32_t* ring, uint32_t steps, uint32_t start) {
  const measure::Clock& clock = measure::Clock::Default();
#if defined(__x86_64__)
  // Every line of the walk (line k at k × kWalkStride): flushing along the
  // walk itself would read each line back in to find the next.
  for (uint32_t k = 0; k < steps; ++k) __builtin_ia32_clflush(ring + static_cast<size_t>(k) * kWalkStride);
  __builtin_ia32_mfence();
#endif
  uint32_t at = start;
  const uint64_t t0 = OrderedNowNs(clock);
  for (uint32_t i = 0; i < steps; ++i) at = ring[at];
  const uint64_t t1 = OrderedNowNs(clock);
  asm volatile("" : : "r"(at));
  return t1 - t0;
}

PlatformMeter::PlatformMeter(std::vector<int> cpus, uint64_t period_ns, uint64_t wakeup_base_ns)
    : cpus_(std::move(cpus)), period_ns_(period_ns), tree_(std::make_unique<Tree>()) {
  cal_.wakeup_base_ns = wakeup_base_ns;
  const size_t n = cpus_.empty() ? 1 : cpus_.size();
  for (size_t i = 0; i < n; ++i) rings_.push_back(std::make_unique<Ring>());
  // A random cycle through kWalkSteps lines, each on its own page, so the walk defeats the prefetchers.
  std::vector<uint32_t> order(kWalkSteps);
  std::iota(order.begin(), order.end(), 0u);
  workload::Random rng(0x5eed);
  for (uint32_t i = kWalkSteps - 1; i > 0; --i) std::swap(order[i], order[rng() % (i + 1)]);
  walk_.assign(static_cast<size_t>(kWalkSteps) * kWalkStride, 0);
  for (uint32_t i = 0; i < kWalkSteps; ++i)
    walk_[static_cast<size_t>(order[i]) * kWalkStride] = order[(i + 1) % kWalkSteps] * kWalkStride;
}

PlatformMeter::~PlatformMeter() { Stop(); }

// The units' nominal times on the calling thread's CPU: the 10th percentile
// of kCalibrationReps back-to-back runs of each.
UnitTimes PlatformMeter::Calibrate() const {
  std::vector<uint64_t> cpu(kCalibrationReps), mem(kCalibrationReps), contention(kCalibrationReps);
  for (int i = 0; i < kCalibrationReps; ++i) {
    cpu[i] = RunCpuUnit(kCpuIterations);
    mem[i] = RunMemoryUnit(walk_.data(), kWalkSteps, 0);
    contention[i] = RunContentionUnit();
  }
  UnitTimes u;
  NominalAndNoise(cpu, kCpuReps, &u.cpu_unit_ns, &u.cpu_noise);
  std::sort(mem.begin(), mem.end());
  std::sort(contention.begin(), contention.end());
  u.mem_unit_ns = std::max<uint64_t>(1, mem[kCalibrationReps / 10]);
  u.contention_unit_ns = std::max<uint64_t>(1, contention[kCalibrationReps / 10]);
  return u;
}

void PlatformMeter::Start() {
  stop_.store(false);
  cal_.per_meter.assign(rings_.size(), UnitTimes{});
  calibrated_.store(0);
  for (size_t i = 0; i < rings_.size(); ++i) threads_.emplace_back([this, i] { Loop(i); });
  // Each thread calibrates on its own CPU before it ticks; the run starts once all have.
  for (size_t n; (n = calibrated_.load(std::memory_order_acquire)) < rings_.size();) calibrated_.wait(n);
  UnitTimes& slowest = cal_;
  slowest = cal_.per_meter[0];
  for (const UnitTimes& u : cal_.per_meter) {
    slowest.cpu_unit_ns = std::max(slowest.cpu_unit_ns, u.cpu_unit_ns);
    slowest.mem_unit_ns = std::max(slowest.mem_unit_ns, u.mem_unit_ns);
    slowest.contention_unit_ns = std::max(slowest.contention_unit_ns, u.contention_unit_ns);
    slowest.cpu_noise = std::max(slowest.cpu_noise, u.cpu_noise);
  }
}

void PlatformMeter::Stop(uint64_t cover_until_ns) {
  if (threads_.empty()) return;
  const measure::Clock& clock = measure::Clock::Default();
  if (cover_until_ns) {
    const uint64_t give_up = clock.NowNs() + 3 * period_ns_ + 250'000'000;
    for (const auto& r : rings_)
      while (r->last_woke.load(std::memory_order_acquire) < cover_until_ns && clock.NowNs() < give_up)
        measure::SleepUntil(clock, clock.NowNs() + 1'000'000);
  }
  stop_.store(true);
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void PlatformMeter::Loop(size_t i) {
  NameClientThread(("meter" + std::to_string(i)).c_str());
  if (!cpus_.empty()) (void)PinCurrentThread({cpus_[i]});
  Ring& ring = *rings_[i];
  cal_.per_meter[i] = Calibrate();
  calibrated_.fetch_add(1, std::memory_order_release);
  calibrated_.notify_all();
  const measure::Clock& clock = measure::Clock::Default();
  StopReader stops(cal_.wakeup_base_ns);
  uint64_t intended = clock.NowNs() + period_ns_;
  uint64_t tick = 0;
  while (!stop_.load(std::memory_order_relaxed)) {
    measure::SleepUntil(clock, intended);
    const uint64_t woke = clock.NowNs();
    MeterTick t;
    t.woke_ns = woke;
    t.stopped_ns = stops.StopOf(woke > intended ? woke - intended : 0);
    uint64_t c = RunCpuUnit(kCpuIterations);
    for (int r = 1; r < kCpuReps; ++r) c = std::min(c, RunCpuUnit(kCpuIterations));
    const uint64_t m = RunMemoryUnit(walk_.data(), kWalkSteps, 0);
    t.cpu_unit_ns = static_cast<uint32_t>(std::min<uint64_t>(c, UINT32_MAX));
    t.mem_unit_ns = static_cast<uint32_t>(std::min<uint64_t>(m, UINT32_MAX));
    if (tick++ % kContentionEvery == 0) {
      const uint64_t k = std::min(RunContentionUnit(), RunContentionUnit());
      t.contention_unit_ns = static_cast<uint32_t>(std::clamp<uint64_t>(k, 1, UINT32_MAX));
    }
    ring.Push(t);
    // Paced from the wake-up: one long stop is one tick, as the hiccup meter counts it.
    intended = woke + period_ns_;
  }
  ring.cpu_ns.store(ThreadCpuNs(), std::memory_order_relaxed);
}

void PlatformMeter::TakeTicks(size_t i, std::vector<MeterTick>* out) {
  Ring& r = *rings_[i];
  const uint64_t head = r.head.load(std::memory_order_acquire);
  uint64_t tail = r.tail.load(std::memory_order_relaxed);
  for (; tail != head; ++tail) out->push_back(r.ticks[tail % Ring::kSize]);
  r.tail.store(tail, std::memory_order_release);
}

uint64_t PlatformMeter::CpuNs() const {
  uint64_t sum = 0;
  for (const auto& r : rings_) sum += r->cpu_ns.load(std::memory_order_relaxed);
  return sum;
}

uint64_t PlatformMeter::dropped() const {
  uint64_t sum = 0;
  for (const auto& r : rings_) sum += r->dropped.load(std::memory_order_relaxed);
  return sum;
}

}  // namespace storebench::driver
