#include "storebench/report/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>

#include "storebench/base/units.h"

namespace storebench::report {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void WriteAll(int fd, std::string_view s) {
  while (!s.empty()) {
    const ssize_t n = ::write(fd, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // progress is best effort: a closed stderr loses it, never the run
    s.remove_prefix(static_cast<size_t>(n));
  }
}

int TerminalWidth(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

std::string RateOf(double per_s, std::string_view unit) {
  if (unit == "bytes") return FormatBytes(per_s) + "/s";
  return FormatCompactCount(per_s, "") + " " + std::string(unit) + "/s";
}

// "[####......]  40% 4.0s/10.0s[ ELAPSED][ 6.0s left]"
std::string Done(double done, double total, const std::string& done_text, const std::string& total_text,
                 double elapsed_s, double left_s) {
  const double f = total > 0 ? std::clamp(done / total, 0.0, 1.0) : 0;
  std::string s = fmt::format("{} {:3.0f}% {}/{}", ProgressBar(f, 12), std::floor(f * 100), done_text, total_text);
  if (elapsed_s >= 0) s += " " + FormatSeconds(elapsed_s);
  if (left_s >= 0) s += " " + FormatSeconds(left_s) + " left";
  return s;
}

}  // namespace

ProgressDisplay::ProgressDisplay(job::ProgressMode mode, bool quiet, Options options) : options_(options) {
  terminal_ = ::isatty(options.fd) == 1;
  on_ = !quiet && (mode == job::ProgressMode::kAlways || (mode == job::ProgressMode::kAuto && terminal_));
}

bool ProgressDisplay::Due() const {
  return on_ && (!drawn_ || Since(last_) >= (terminal_ ? options_.redraw_period_s : options_.plain_period_s));
}

void ProgressDisplay::Update(std::string_view line, bool force) {
  if (!on_ || (!force && !Due())) return;
  last_ = Clock::now();
  std::fflush(stdout);
  if (!terminal_) {
    WriteAll(options_.fd, std::string(line) + "\n");
    drawn_ = true;
    return;
  }
  // One column short of the width: writing the last column wraps on some terminals.
  const size_t width = static_cast<size_t>(std::max(TerminalWidth(options_.fd) - 1, 10));
  std::string out = "\r\033[K";
  size_t cut = std::min(width, line.size());
  while (cut > 0 && cut < line.size() && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // "µs"
  out.append(line.substr(0, cut));
  WriteAll(options_.fd, out);
  drawn_ = true;
}

void ProgressDisplay::Clear() {
  if (!on_ || !drawn_) return;
  if (terminal_) WriteAll(options_.fd, "\r\033[K");
  drawn_ = false;
}

std::string ProgressBar(double fraction, int width) {
  const int inner = std::max(width - 2, 1);
  const int full = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * inner + 1e-9);
  return "[" + std::string(static_cast<size_t>(full), '#') + std::string(static_cast<size_t>(inner - full), '.') + "]";
}

std::string FormatSeconds(double s) {
  if (!(s >= 0)) s = 0;
  if (s < 60) return fmt::format("{:.1f}s", s);
  const auto t = static_cast<uint64_t>(s + 0.5);
  if (t < 3600) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}h{:02}m", t / 3600, t / 60 % 60);
}

std::string PrepareProgressText::Line(const backend::PrepareProgress& p) {
  if (!started_) start_ = Clock::now(), started_ = true;
  if (p.step != step_) step_ = std::string(p.step), step_start_ = Clock::now();
  const double step_s = Since(step_start_), all_s = Since(start_);
  const auto done = static_cast<double>(p.done), total = static_cast<double>(p.total);
  if (p.total == 0) return fmt::format("prepare: {}  {} elapsed", p.step, FormatSeconds(all_s));
  const double rate = step_s > 0.25 ? done / step_s : 0;  // sooner, the rate is noise
  const double left = rate > 0 ? (total - done) / rate : -1;
  const std::string total_text = FormatCompactCount(total, p.unit) + (p.unit == "bytes" ? "" : " " + std::string(p.unit));
  std::string line =
      fmt::format("prepare: {} {}", p.step, Done(done, total, FormatCompactCount(done, p.unit), total_text, all_s, left));
  if (rate > 0) line += "  " + RateOf(rate, p.unit);
  return line;
}

void RunProgressText::StartPhase(RunPhaseInfo info) {
  info_ = std::move(info);
  ops_ = 0;
}

std::string RunProgressText::MeasuredHead(double t_s) const {
  const double by_time = info_.duration_s > 0 ? t_s / info_.duration_s : 0;
  const double by_ops = info_.ops > 0 ? static_cast<double>(ops_) / static_cast<double>(info_.ops) : 0;
  if (info_.duration_s > 0 && by_time >= by_ops)
    return Done(t_s, info_.duration_s, FormatSeconds(t_s), FormatSeconds(info_.duration_s), -1,
                std::max(info_.duration_s - t_s, 0.0));
  if (info_.ops > 0) {
    const double rate = t_s > 0 ? static_cast<double>(ops_) / t_s : 0;
    const double left = rate > 0 ? static_cast<double>(info_.ops - std::min(ops_, info_.ops)) / rate : -1;
    return Done(static_cast<double>(ops_), static_cast<double>(info_.ops), FormatCompactCount(static_cast<double>(ops_), ""),
                FormatCompactCount(static_cast<double>(info_.ops), "") + " ops", t_s, left);
  }
  return FormatSeconds(t_s) + " elapsed";
}

std::string RunProgressText::Starting() const {
  if (info_.warmup_s > 0)
    return fmt::format("{} warm-up {} | starting", info_.phase,
                       Done(0, info_.warmup_s, FormatSeconds(0), FormatSeconds(info_.warmup_s), -1, -1));
  return fmt::format("{} measuring {} | starting", info_.phase, MeasuredHead(0));
}

std::string RunProgressText::Line(const driver::IntervalStats& t) {
  // Most important first: a narrow terminal cuts the end of the line.
  if (t.warmup) {
    const double left = -t.t_s, done = std::max(info_.warmup_s - left, 0.0);
    return fmt::format("{} warm-up {} | {} ops", info_.phase,
                       Done(done, info_.warmup_s, FormatSeconds(done), FormatSeconds(info_.warmup_s), -1, left),
                       FormatCompactCount(static_cast<double>(t.ops)));
  }
  ops_ += t.ops;
  const std::string head = MeasuredHead(t.t_s);
  std::string line = fmt::format("{} measuring {} | {} ops/s", info_.phase, head, FormatCompactCount(t.ops_per_sec, ""));
  double target = 0;
  const auto since_arrivals_ns = static_cast<uint64_t>((info_.warmup_s + t.t_s) * 1e9);  // arrivals start with warm-up
  for (const driver::ScheduleSpec& spec : info_.schedules) target += spec.RateAt(since_arrivals_ns);
  if (target > 0) line += " of " + FormatCompactCount(target, "");
  if (t.backlog >= 1 || t.max_backlog >= 1) line += fmt::format(" backlog {:.0f}", t.backlog);
  if (t.errors) line += fmt::format(" errors {}", t.errors);
  line += fmt::format(" p99 {} p50 {} max {}", FormatDurationNs(static_cast<double>(t.response.p99)),
                      FormatDurationNs(static_cast<double>(t.response.p50)),
                      FormatDurationNs(static_cast<double>(t.response.max)));
  return line;
}

}  // namespace storebench::report
