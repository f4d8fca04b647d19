// PlatformMeter: how fast the platform ran, over time, measured as a fixed
// unit of work timed at a steady pace on each CPU the workers may use, by
// threads at the workers' own scheduling priority ("sb:meterN", one per CPU,
// pinned). On a VM the host can slow a vCPU down, pause it, or a cgroup
// quota can throttle the process; none of that shows as lost CPU time (steal
// stays ~0 on many hosts), but all of it shows in how long a fixed piece of
// work takes and in how late a sleeping thread wakes.
//
// Each period (default 40 ms) a meter thread wakes and runs two units: an
// integer unit (a dependent multiply/xorshift chain in registers), as the
// faster of two repetitions so that one interrupt inside it does not read as
// a slow platform, and a memory unit (16 dependent loads from lines flushed
// from the caches first: the memory's latency under the bus's load).
// A third, the contention unit, is reported beside them and not used to
// normalize: searches of a small tree (warmed first) and an ALU-bound loop,
// timed apart and combined by their geometric mean. It slows down when
// another tenant's thread shares the core, which the integer unit does not
// see (docs/platform.md, "Which unit"); it also slows down with the engine's
// own threads sharing the caches, which is why it is not the speed.
// Calibration at start-up takes the 10th percentile of 64 repetitions as
// nominal: speed 1.0 = as fast as the platform ran then, 0.5 = half as fast.
//
// Definitions (per meter thread, i.e. per CPU; MeterTick):
//   speed  nominal integer unit / measured, capped at 1: the rate at which the
//          CPU did work while the meter had it; 1 when less than
//          kCountedSlowdown (2%) or the unit's own noise measured at
//          calibration (UnitTimes::cpu_noise) below 1, so that near saturation
//          the steady-platform client does not turn the meter's scatter into a
//          platform share (on an idle machine here single ticks read down to
//          0.96-0.99, run means 0.9955-0.9998). Applies to the span since the
//          previous tick, less the stop below.
//   stop   the part of a wake-up's lateness in which the platform did not run
//          the meter although it was due: lateness − the start-up median
//          wake-up latency − the meter's own run-queue wait (another thread
//          of this machine held the CPU: the CPU-time split in causes.h owns
//          that), plus the cgroup's throttled time in that wait (a quota is
//          the platform's even though the kernel counts it as a wait). A
//          paused VM, a SIGSTOP, a host that did not schedule the vCPU land
//          here. Speed 0 over the stop.
// The memory unit's speed is reported, not used to normalize: how much of an
// engine's service time waits on memory is not known.
//
// Cost: ~3 us of units and one wake-up per period per CPU; the meter's
// own CPU time is measured (CpuNs()) and published with every run.
// Thread-safety: Start/Stop from one owner; TakeTicks() from one reader (the
// reporter) while the meter runs; each thread writes its own SPSC ring.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "storebench/measure/clock.h"
#include "storebench/measure/zeroed_allocator.h"

namespace storebench::driver {

struct MeterTick {
  uint64_t woke_ns = 0;     // Clock ns at which the meter woke
  uint64_t stopped_ns = 0;  // the stop that ended at woke_ns (definition above)
  uint32_t cpu_unit_ns = 0, mem_unit_ns = 0;  // the two units' measured times (faster repetition)
  uint32_t contention_unit_ns = 0;             // the contention unit's (faster repetition; 0: not run this tick)
};

// The stop a late wake-up shows (the definition above), for a thread that
// sleeps to a pace: the meter's threads and the hiccup meter (hiccup.h). It
// reads the thread's own run-queue wait and the cgroup's throttled time when
// a wake-up is late, and every kRefreshWakes wake-ups otherwise, so that what
// the thread waited long before a late wake-up is not subtracted from it.
class StopReader {
 public:
  static constexpr int kRefreshWakes = 64;
  explicit StopReader(uint64_t wakeup_base_ns);
  // The stop in a wake-up `late_ns` after it was due (0 when it was not late).
  uint64_t StopOf(uint64_t late_ns);

 private:
  void Read(uint64_t* waited_ns, uint64_t* throttled_ns);
  uint64_t base_ns_;
  std::string cpu_stat_path_;  // the process's cgroup cpu.stat ("" = none)
  uint64_t wait_seen_ = 0, throttled_seen_ = 0;
  int quiet_ = 0;
};

// A unit's nominal time and its noise from calibration runs (in run order):
// the 10th percentile, and 1 − the slowest nominal / (fastest of each group
// of `group` runs), at most kMaxNoise (a CPU so unsteady at start-up that
// more would hide real slowdowns).
inline constexpr double kMaxNoise = 0.05;
// The smallest slowdown of the integer unit that counts (definition of speed above).
inline constexpr double kCountedSlowdown = 0.02;
void NominalAndNoise(std::vector<uint64_t> runs, size_t group, uint64_t* nominal_ns, double* noise);

// The two units. Exposed for calibration tests and bench/.
uint64_t RunCpuUnit(uint32_t iterations);
uint64_t RunMemoryUnit(const uint32_t* ring, uint32_t steps, uint32_t start);
// The contention unit's ALU loop of four independent multiply chains, timed (ns).
uint64_t RunAluUnit(uint32_t iterations);

// The units' nominal times on one CPU.
struct UnitTimes {
  uint64_t cpu_unit_ns = 0, mem_unit_ns = 0, contention_unit_ns = 0;
  // The integer unit's own noise on a calm CPU: 1 − the slowest speed that a
  // tick (the fastest of kCpuReps runs) read among the calibration's runs
  // taken in groups of kCpuReps. A tick within it reads speed 1.
  double cpu_noise = 0;
};

struct MeterCalibration : UnitTimes {  // the slowest CPU's nominal times (reported)
  // Each meter thread's own, calibrated on its CPU (this VM's two vCPUs
  // differ by ~1%); empty: every meter uses the times above.
  std::vector<UnitTimes> per_meter;
  uint64_t wakeup_base_ns = 0;  // median wake-up latency subtracted from lateness
  const UnitTimes& of(size_t meter) const { return meter < per_meter.size() ? per_meter[meter] : *this; }
};

class PlatformMeter {
 public:
  static constexpr uint64_t kDefaultPeriodNs = 40'000'000;

  // One thread per CPU in `cpus` (empty: one unpinned thread). `wakeup_base_ns`:
  // the median wake-up latency measured at start-up (threads.h).
  PlatformMeter(std::vector<int> cpus, uint64_t period_ns, uint64_t wakeup_base_ns);
  ~PlatformMeter();
  PlatformMeter(const PlatformMeter&) = delete;
  PlatformMeter& operator=(const PlatformMeter&) = delete;

  // Starts the threads and waits until each has calibrated the units on its
  // own CPU (under a millisecond each).
  void Start();
  // Waits (at most ~3 periods) until every thread has ticked after `t_ns`, so
  // the timeline covers ops that ended by then; then stops the threads.
  void Stop(uint64_t cover_until_ns = 0);

  size_t cpus() const { return rings_.size(); }
  int cpu(size_t i) const { return cpus_.empty() ? -1 : cpus_[i]; }
  const MeterCalibration& calibration() const { return cal_; }
  uint64_t period_ns() const { return period_ns_; }
  // Moves every published tick of thread i into `out` (appended).
  void TakeTicks(size_t i, std::vector<MeterTick>* out);
  // The meter threads' own CPU time so far (after Stop(): all of it).
  uint64_t CpuNs() const;
  // Ticks a full ring dropped (the reporter did not drain for a long time).
  uint64_t dropped() const;

 private:
  struct Ring;
  struct Tree;
  void Loop(size_t i);
  UnitTimes Calibrate() const;
  // The contention unit, timed (ns): the geometric mean of the tree searches' and the ALU loop's times.
  uint64_t RunContentionUnit() const;

  std::vector<int> cpus_;
  const uint64_t period_ns_;
  MeterCalibration cal_;
  std::vector<std::unique_ptr<Ring>> rings_;
  std::vector<std::thread> threads_;
  std::unique_ptr<Tree> tree_;  // the contention unit's search tree
  std::vector<uint32_t> walk_;  // the memory unit's ring of indices
  std::atomic<bool> stop_{false};
  std::atomic<size_t> calibrated_{0};  // threads that have written their cal_.per_meter entry
};

}  // namespace storebench::driver
