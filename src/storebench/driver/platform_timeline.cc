#include "storebench/driver/platform_timeline.h"

#include <algorithm>

namespace storebench::driver {
namespace {

void AddKernel(KernelReading* a, const KernelReading& b) {
  if (b.cgroup) {
    CgroupCpu& c = a->cgroup ? *a->cgroup : a->cgroup.emplace();
    c.nr_periods += b.cgroup->nr_periods, c.nr_throttled += b.cgroup->nr_throttled;
    c.throttled_ns += b.cgroup->throttled_ns;
  }
  for (auto [into, from] : {std::pair{&a->cpu, &b.cpu}, std::pair{&a->memory, &b.memory}, std::pair{&a->io, &b.io}}) {
    if (!*from) continue;
    Pressure& p = *into ? **into : into->emplace();
    p.some_ns += (*from)->some_ns, p.full_ns += (*from)->full_ns;
  }
}

double MinSpeed(double a, double b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); }

}  // namespace

void PlatformFigures::Add(const PlatformFigures& o) {
  cpus = std::max(cpus, o.cpus);
  span_ns += o.span_ns, work_ns += o.work_ns, stopped_ns += o.stopped_ns, slow_ns += o.slow_ns;
  ticks += o.ticks;
  speed_min = MinSpeed(speed_min, o.speed_min);
  memory_speed_min = MinSpeed(memory_speed_min, o.memory_speed_min);
  contention_work_ns += o.contention_work_ns;
  contention_speed_min = MinSpeed(contention_speed_min, o.contention_speed_min);
  AddKernel(&kernel, o.kernel);
}

void PlatformFigures::AddProcess(const PlatformFigures& o) {
  const uint32_t both = cpus + o.cpus;
  Add(o);
  cpus = both;
}

PlatformTimeline::PlatformTimeline(std::vector<int> cpus, MeterCalibration cal, uint64_t start_ns) : cal_(cal) {
  for (int c : cpus) {
    Meter m;
    m.cpu = c;
    m.last_ns = start_ns;
    m.points.push_back({start_ns, 0});
    meters_.push_back(std::move(m));
  }
  window_.cpus = static_cast<uint32_t>(meters_.size());
}

void PlatformTimeline::Add(size_t i, const MeterTick& t) {
  Meter& m = meters_[i];
  if (t.woke_ns <= m.last_ns) return;
  const uint64_t span = t.woke_ns - m.last_ns;
  uint64_t stop = std::min(t.stopped_ns, span);
  if (stop) stop = t.woke_ns - StopBegin(t.woke_ns - stop, m.last_ns);
  const UnitTimes& cal = cal_.of(i);
  const double unit_speed = t.cpu_unit_ns ? std::min(1.0, static_cast<double>(cal.cpu_unit_ns) / t.cpu_unit_ns) : 1.0;
  const double speed = unit_speed > 1 - std::max(cal.cpu_noise, kCountedSlowdown) ? 1.0 : unit_speed;
  const double mem = t.mem_unit_ns ? std::min(1.0, static_cast<double>(cal.mem_unit_ns) / t.mem_unit_ns) : 1.0;
  if (t.contention_unit_ns)
    m.contention = std::min(1.0, static_cast<double>(cal.contention_unit_ns) / t.contention_unit_ns);
  const double contention = m.contention;
  const double run_work = speed * static_cast<double>(span - stop);
  m.work_ns += run_work;
  m.points.push_back({t.woke_ns - stop, m.work_ns});
  if (stop) m.points.push_back({t.woke_ns, m.work_ns});
  m.last_ns = t.woke_ns;

  window_.span_ns += span;
  window_.stopped_ns += stop;
  window_.work_ns += static_cast<uint64_t>(run_work);
  window_.slow_ns += stop + (speed < kSlowSpeed ? span - stop : 0);
  window_.speed_min = MinSpeed(window_.speed_min, unit_speed);
  window_.memory_speed_min = MinSpeed(window_.memory_speed_min, mem);
  window_.contention_work_ns += static_cast<uint64_t>(contention * static_cast<double>(span - stop));
  if (t.contention_unit_ns) window_.contention_speed_min = MinSpeed(window_.contention_speed_min, contention);
  ++window_.ticks;
}

void PlatformTimeline::AddStop(uint64_t begin_ns, uint64_t end_ns) {
  if (end_ns > begin_ns) stops_.emplace_back(begin_ns, end_ns);
}

uint64_t PlatformTimeline::StopBegin(uint64_t from, uint64_t not_before) const {
  uint64_t begin = from;
  // Newest first; the hiccup meter's stops end in time order, so none before the first that ended by `from` overlaps.
  for (auto it = stops_.rbegin(); it != stops_.rend() && it->second > from; ++it)
    if (it->first < begin) begin = it->first;  // began earlier and lasted into the tick's stop
  return std::max(begin, not_before);
}

double PlatformTimeline::WorkOf(const Meter& m, uint64_t t) const {
  const Point* first = m.points.data() + m.head;
  const Point* last = m.points.data() + m.points.size() - 1;
  if (t <= first->t_ns) return first->work_ns - static_cast<double>(first->t_ns - t);
  if (t >= last->t_ns) return last->work_ns + static_cast<double>(t - last->t_ns);
  const Point* hi = std::upper_bound(first, last + 1, t, [](uint64_t v, const Point& p) { return v < p.t_ns; });
  const Point* lo = hi - 1;
  const double f = static_cast<double>(t - lo->t_ns) / static_cast<double>(hi->t_ns - lo->t_ns);
  return lo->work_ns + f * (hi->work_ns - lo->work_ns);
}

double PlatformTimeline::Work(int cpu, uint64_t a, uint64_t b) const {
  if (b <= a || meters_.empty()) return 0;
  for (const Meter& m : meters_)
    if (m.cpu == cpu && cpu >= 0) return std::max(0.0, WorkOf(m, b) - WorkOf(m, a));
  double sum = 0;
  for (const Meter& m : meters_) sum += std::max(0.0, WorkOf(m, b) - WorkOf(m, a));
  return sum / static_cast<double>(meters_.size());
}

uint64_t PlatformTimeline::covered_ns() const {
  uint64_t t = UINT64_MAX;
  for (const Meter& m : meters_) t = std::min(t, m.last_ns);
  return meters_.empty() ? UINT64_MAX : t;
}

void PlatformTimeline::PruneBefore(uint64_t t_ns) {
  // A stop still matters to a tick whose own stop it could have begun (no tick spans more than a few seconds).
  const uint64_t keep_from = t_ns > 60'000'000'000 ? t_ns - 60'000'000'000 : 0;
  std::erase_if(stops_, [&](const auto& s) { return s.second < keep_from; });
  for (Meter& m : meters_) {
    // Keep the last point at or before t_ns: it anchors the interpolation.
    while (m.head + 1 < m.points.size() && m.points[m.head + 1].t_ns <= t_ns) ++m.head;
    if (m.head > 4096 && m.head * 2 > m.points.size()) {
      m.points.erase(m.points.begin(), m.points.begin() + static_cast<long>(m.head));
      m.head = 0;
    }
  }
}

PlatformFigures PlatformTimeline::TakeWindow() {
  PlatformFigures out = window_;
  window_ = PlatformFigures{};
  window_.cpus = static_cast<uint32_t>(meters_.size());
  return out;
}

}  // namespace storebench::driver
