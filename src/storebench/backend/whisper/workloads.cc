#include "storebench/backend/whisper/workloads.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "storebench/whisper/whisper.h"
#include "storebench/workload/key_distribution.h"
#include "storebench/workload/random.h"

namespace storebench::backend::wsp {
namespace {

class WhisperWorker final : public Worker {
 public:
  WhisperWorker(const WhisperShared& shared, const WorkerContext& context)
      : shared_(shared),
        o_(shared.options),
        d_(shared.dataset),
        rng_(workload::Random::SeedFor(context.seed, static_cast<uint64_t>(context.index))),
        self_(static_cast<uint64_t>(context.index)),
        stride_(static_cast<uint64_t>(std::max(1, shared.total_threads))),
        step_(d_.archives.front().seconds_per_point),
        first_retention_(static_cast<int64_t>(uint64_t{step_} * d_.archives.front().points)),
        start_(whisper::AlignDown(d_.start, step_)) {
    totals_.last_now = d_.start;
  }

  ~WhisperWorker() override {
    // The simulated clock runs on the whole run's update count; the results cover the measured window.
    WhisperWorkerTotals measured = totals_;
    measured.update = totals_.update - at_measure_start_.update;
    measured.fetch = totals_.fetch - at_measure_start_.fetch;
    shared_.accounting->AddWorker(measured);
  }

  void MeasureStarted() override { at_measure_start_ = totals_; }

  Status Init() {
    const uint64_t owned = (d_.metrics - self_ + stride_ - 1) / stride_;
    auto dist = workload::MakeKeyDistribution(o_.metric_dist, owned, "--metric-dist");
    if (!dist.ok()) return dist.status();
    dist_ = std::move(*dist);
    // Each metric's first flush ends at the start: its K points are the K intervals up to it.
    next_.assign(owned, start_ - int64_t{step_} * (o_.points_per_update - 1));
    points_.reserve(o_.points_per_update);
    return Status::Ok();
  }

  SubmitResult Submit(uint64_t tag, Completion* out) override {
    const uint64_t local = dist_->Next(rng_);
    const uint64_t metric = local * stride_ + self_;
    const bool update = o_.workload == Workload::kUpdate ||
                        (o_.workload == Workload::kMixed && rng_.Bernoulli(o_.update_ratio));
    *out = Completion{tag, update ? kUpdateKind : kFetchKind, kOk, 0};
    Status st = update ? Update(local, metric, out) : Fetch(metric, out);
    if (!st.ok()) {
      out->outcome = kError;
      OpTotals& t = update ? totals_.update : totals_.fetch;
      ++t.errors;
      if (totals_.first_error.ok()) totals_.first_error = st;
    }
    return SubmitResult::kCompleted;
  }

 private:
  // The simulated clock: K intervals per owned metric per flush, on average.
  int64_t SimulatedNow() const {
    const uint64_t owned = next_.size();
    return d_.start + static_cast<int64_t>(totals_.update.ops * o_.points_per_update * step_ / owned);
  }

  Status Update(uint64_t local, uint64_t metric, Completion* out) {
    const int64_t sim = SimulatedNow();
    const int64_t k = o_.points_per_update;
    int64_t& next = next_[local];
    if (next + (k - 1) * step_ < sim - (first_retention_ - k * step_))
      next = whisper::AlignDown(sim, step_) - (k - 1) * step_;
    points_.clear();
    for (int64_t i = 0; i < k; ++i) {
      const int64_t t = next + i * step_;
      points_.push_back({t, PointValue(d_, metric, t)});
    }
    next += k * step_;
    const int64_t now = std::max(sim, points_.back().timestamp);
    totals_.last_now = std::max(totals_.last_now, now);
    OpTotals& t = totals_.update;
    ++t.ops;
    t.points += static_cast<uint64_t>(k);
    auto f = whisper::WhisperFile::Open(d_.paths[metric], whisper::OpenMode::kReadWrite, o_.io, &t.io);
    if (!f.ok()) return f.status();
    Status st = whisper::UpdateManyFile(**f, points_, now);
    Status closed = (*f)->Close();
    t.requested_read_bytes += (*f)->requested_read_bytes();
    out->bytes = static_cast<uint64_t>(k) * whisper::kPointSize;
    return st.ok() ? closed : st;
  }

  Status Fetch(uint64_t metric, Completion* out) {
    const int64_t now = SimulatedNow();
    OpTotals& t = totals_.fetch;
    ++t.ops;
    auto f = whisper::WhisperFile::Open(d_.paths[metric], whisper::OpenMode::kRead, o_.io, &t.io);
    if (!f.ok()) return f.status();
    auto r = whisper::FetchFile(**f, now - o_.fetch_range_s, now, now);
    Status closed = (*f)->Close();
    t.requested_read_bytes += (*f)->requested_read_bytes();
    if (!r.ok()) return r.status();
    if (r->has_value()) out->bytes = (*r)->values.size() * whisper::kPointSize;
    return closed;
  }

  const WhisperShared& shared_;
  const WhisperOptions& o_;
  const Dataset& d_;
  workload::Random rng_;
  const uint64_t self_, stride_;
  const uint32_t step_;            // the finest archive's seconds per point
  const int64_t first_retention_;  // and its retention
  const int64_t start_;            // the data set's start, aligned to step_
  std::unique_ptr<workload::KeyDistribution> dist_;
  std::vector<int64_t> next_;      // per owned metric: the interval its next flush starts at
  std::vector<whisper::TimedValue> points_;
  WhisperWorkerTotals totals_;
  WhisperWorkerTotals at_measure_start_;
};

}  // namespace

double PointValue(const Dataset& dataset, uint64_t metric, int64_t interval) {
  const uint32_t step = dataset.archives.front().seconds_per_point;
  return static_cast<double>(metric + 1) * 1e6 +
         static_cast<double>((interval - whisper::AlignDown(dataset.start, step)) / step);
}

StatusOr<std::unique_ptr<Worker>> NewWhisperWorker(const WhisperShared& shared, const WorkerContext& context) {
  auto w = std::make_unique<WhisperWorker>(shared, context);
  STOREBENCH_RETURN_IF_ERROR(w->Init());
  return std::unique_ptr<Worker>(std::move(w));
}

}  // namespace storebench::backend::wsp
