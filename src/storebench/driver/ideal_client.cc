#include "storebench/driver/ideal_client.h"

#include <algorithm>
#include <bit>

#include "storebench/driver/platform_timeline.h"

namespace storebench::driver {

OpLog::OpLog(size_t capacity)
    : mask_(std::bit_ceil(std::max<size_t>(capacity, 2)) - 1), ring_(mask_ + 1) {}

void OpLog::Drain(std::vector<OpRecord>* out) {
  const uint64_t head = head_.load(std::memory_order_acquire);
  uint64_t tail = tail_.load(std::memory_order_relaxed);
  for (; tail != head; ++tail) out->push_back(ring_[tail & mask_]);
  tail_.store(tail, std::memory_order_release);
}

IdealClient::IdealClient(const measure::HistogramOptions& h, int servers, uint64_t measure_start_ns,
                         uint64_t interval_ns, const PlatformTimeline* timeline)
    : options_(h),
      measure_start_ns_(measure_start_ns),
      interval_ns_(interval_ns),
      timeline_(timeline),
      ideal_(h),
      observed_(h),
      steady_(h),
      own_cpu_(h),
      with_stops_(h),
      interval_ideal_(h),
      interval_observed_(h),
      interval_steady_(h),
      interval_own_cpu_(h),
      interval_with_stops_(h) {
  for (int i = 0; i < std::max(servers, 1); ++i) {
    free_at_.push(0);
    steady_free_at_.push(0);
    own_free_at_.push(0);
    stops_free_at_.push(0);
  }
}

void IdealClient::Add(std::vector<OpRecord>* batch) {
  if (batch->empty()) return;
  auto by_intended = [](const OpRecord& a, const OpRecord& b) { return a.intended_ns < b.intended_ns; };
  std::sort(batch->begin(), batch->end(), by_intended);
  merged_.clear();
  merged_.reserve(waiting() + batch->size());
  std::merge(pending_.begin() + static_cast<long>(head_), pending_.end(), batch->begin(), batch->end(),
             std::back_inserter(merged_), by_intended);
  pending_.swap(merged_);
  head_ = 0;
  batch->clear();
}

void IdealClient::CloseIntervalsBefore(uint64_t t_ns) {
  // Interval k covers intended starts in [start + k·I, start + (k+1)·I).
  while (t_ns >= measure_start_ns_ && (t_ns - measure_start_ns_) / interval_ns_ > done_.size()) {
    CloseInterval();
  }
}

void IdealClient::CloseInterval() {
  done_.push_back({interval_ideal_.Encode(), interval_observed_.Encode(), interval_steady_.Encode(),
                   interval_own_cpu_.Encode(), interval_with_stops_.Encode(), interval_preempted_ns_,
                   interval_stopped_ns_});
  ResetInterval();
}

void IdealClient::ResetInterval() {
  interval_ideal_.Reset();
  interval_observed_.Reset();
  interval_steady_.Reset();
  interval_own_cpu_.Reset();
  interval_with_stops_.Reset();
  interval_preempted_ns_ = 0;
  interval_stopped_ns_ = 0;
}

void IdealClient::Advance(uint64_t watermark_ns) {
  const bool last = watermark_ns == UINT64_MAX;
  const uint64_t covered = timeline_ && !last ? timeline_->covered_ns() : UINT64_MAX;
  for (; head_ < pending_.size() && pending_[head_].intended_ns < watermark_ns; ++head_) {
    const OpRecord& op = pending_[head_];
    if (op.end_ns > covered) break;  // the platform's speed over it is not known yet
    const uint64_t service = op.end_ns - op.start_ns;
    const uint64_t start = std::max(op.intended_ns, free_at_.top());
    free_at_.pop();
    free_at_.push(start + service);
    // The worker's own wait for its CPU inside the op is out of both replays below.
    const uint64_t own = service - std::min<uint64_t>(op.preempted_ns, service);
    const double span_work = timeline_ ? timeline_->Work(static_cast<int>(op.cpu), op.start_ns, op.end_ns)
                                       : static_cast<double>(service);
    // A cgroup's throttling is both a stop the meter sees and, to the kernel,
    // a run-queue wait: the smaller of the two takes it out once.
    const double work = std::min(span_work, static_cast<double>(own));
    const double steady_start = std::max(static_cast<double>(op.intended_ns), steady_free_at_.top());
    steady_free_at_.pop();
    steady_free_at_.push(steady_start + work);
    const uint64_t own_start = std::max(op.intended_ns, own_free_at_.top());
    own_free_at_.pop();
    own_free_at_.push(own_start + own);
    // The platform's stop before the op holds it back when its server is free.
    const uint64_t stops_start = std::max(op.intended_ns + op.stopped_ns, stops_free_at_.top());
    stops_free_at_.pop();
    stops_free_at_.push(stops_start + service);
    ++replayed_;
    if (op.intended_ns < measure_start_ns_) continue;  // warm-up: it shapes the queue, it is not reported
    CloseIntervalsBefore(op.intended_ns);
    const uint64_t ideal = start + service - op.intended_ns, observed = op.end_ns - op.intended_ns;
    const auto steady = static_cast<uint64_t>(steady_start + work - static_cast<double>(op.intended_ns));
    const uint64_t own_cpu = own_start + own - op.intended_ns;
    const uint64_t with_stops = stops_start + service - op.intended_ns;
    ideal_.Record(ideal);
    observed_.Record(observed);
    steady_.Record(steady);
    own_cpu_.Record(own_cpu);
    with_stops_.Record(with_stops);
    interval_ideal_.Record(ideal);
    interval_observed_.Record(observed);
    interval_steady_.Record(steady);
    interval_own_cpu_.Record(own_cpu);
    interval_with_stops_.Record(with_stops);
    preempted_ns_ += op.preempted_ns;
    interval_preempted_ns_ += op.preempted_ns;
    interval_stopped_ns_ += op.stopped_ns;
  }
  if (last) {
    if (interval_ideal_.count()) CloseInterval();
    ResetInterval();
  } else {
    CloseIntervalsBefore(std::min(watermark_ns, next_intended_ns()));
  }
  if (head_ > 4096 && head_ * 2 > pending_.size()) {
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<long>(head_));
    head_ = 0;
  }
}

}  // namespace storebench::driver
