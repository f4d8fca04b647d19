#include "storebench/driver/interval_collector.h"

#include <algorithm>
#include <utility>

namespace storebench::driver::internal {

IntervalCollector::IntervalCollector(CollectorSetup setup, measure::Sample* total)
    : setup_(std::move(setup)),
      timing_(*setup_.timing),
      total_(total),
      interval_(setup_.layout),
      response_(setup_.layout.histogram),
      service_(setup_.layout.histogram),
      kinds_(std::make_shared<const std::vector<std::string>>(setup_.layout.kinds)),
      start_ns_(timing_.measure_start_ns) {
  for (const CollectedWorker& w : setup_.workers) recorders_.push_back(w.recorder);
}

IntervalStats IntervalCollector::Collect(uint64_t now, const std::function<void()>& while_waiting,
                                         const PlatformFn& platform) {
  interval_.Reset();
  measure::Collect(recorders_, &interval_, while_waiting);
  for (uint32_t k : setup_.closed_kinds) interval_.CopyServiceToResponse(k);
  IntervalStats st;
  AddCounts(now, &st);
  AddHistograms(&st);
  AddGroupOps(&st);
  AddBacklogAndLag(now, &st);
  AddSeenMaxima(&st);
  if (platform) platform(now, &st);
  total_->Merge(interval_);
  start_ns_ = now;
  return st;
}

// Length, counts and rates, and the open loop's offered rate over the part of
// the interval before the end of arrivals.
void IntervalCollector::AddCounts(uint64_t now, IntervalStats* st) const {
  const uint64_t from = std::max(start_ns_, timing_.measure_start_ns);
  st->length_s = now > from ? static_cast<double>(now - from) / 1e9 : 0;
  st->t_s = static_cast<double>(now - timing_.measure_start_ns) / 1e9;
  st->ops = interval_.ops();
  st->errors = interval_.errors();
  st->bytes = interval_.bytes();
  st->ops_per_sec = st->length_s > 0 ? static_cast<double>(st->ops) / st->length_s : 0;
  const uint64_t to = std::min(now, timing_.end_ns);
  double offered = 0;
  for (const SourceRef& ref : setup_.sources)
    if (to > from)
      offered += ref.source->ExpectedBefore(to - timing_.start_ns) - ref.source->ExpectedBefore(from - timing_.start_ns);
  st->offered_ops_per_sec = st->length_s > 0 ? offered / st->length_s : 0;
}

void IntervalCollector::AddHistograms(IntervalStats* st) {
  response_.Reset();
  service_.Reset();
  for (const measure::KindSample& k : interval_.kinds()) {
    (void)response_.Merge(k.response);
    (void)service_.Merge(k.service);
  }
  st->response = PercentilesOf(response_);
  st->service = PercentilesOf(service_);
  st->response_histogram = response_.Encode();
  st->service_histogram = service_.Encode();
  st->kinds = kinds_;
  for (const measure::KindSample& ks : interval_.kinds()) {
    st->kind_response_histograms.push_back(ks.response.Encode());
    st->kind_service_histograms.push_back(ks.service.Encode());
  }
}

void IntervalCollector::AddGroupOps(IntervalStats* st) const {
  const std::vector<uint32_t>& first = setup_.group_first_kind;
  st->group_ops.assign(first.size(), 0);
  for (size_t k = 0; k < setup_.layout.kinds.size(); ++k) {
    size_t gi = static_cast<size_t>(std::upper_bound(first.begin(), first.end(), static_cast<uint32_t>(k)) -
                                    first.begin()) - 1;
    for (uint64_t o : interval_.kinds()[k].outcomes) st->group_ops[gi] += o;
  }
}

// Backlog and lag at this instant: arrivals due and not yet taken (at the
// end of the run, those are what is counted as unstarted).
void IntervalCollector::AddBacklogAndLag(uint64_t now, IntervalStats* st) const {
  const uint64_t until = std::min(now, timing_.end_ns);
  for (const SourceRef& ref : setup_.sources) {
    const uint64_t next = ref.own ? ref.own->next_intended_ns.load(std::memory_order_relaxed)
                                  : (ref.source->Peek() == UINT64_MAX ? UINT64_MAX : timing_.start_ns + ref.source->Peek());
    if (next == UINT64_MAX || next >= until) continue;
    st->lag_ns = std::max(st->lag_ns, now - next);
    st->backlog += std::max(0.0, ref.source->ExpectedBefore(until - timing_.start_ns) -
                                     ref.source->ExpectedBefore(next - timing_.start_ns));
  }
}

// The maxima within the interval, from what the workers saw at each op's
// start: per shared source the largest any of its workers saw, per own
// source its worker's (their sum bounds the group's backlog from above).
void IntervalCollector::AddSeenMaxima(IntervalStats* st) const {
  std::vector<uint64_t> group_shared_backlog(setup_.group_first_kind.size(), 0);
  uint64_t own_backlog = 0;
  for (const CollectedWorker& w : setup_.workers) {
    WorkerProgress& p = *w.progress;
    st->max_lag_ns = std::max(st->max_lag_ns, p.max_lag_ns.exchange(0, std::memory_order_relaxed));
    const uint64_t b = p.max_backlog.exchange(0, std::memory_order_relaxed);
    if (w.shared_source)
      group_shared_backlog[w.group] = std::max(group_shared_backlog[w.group], b);
    else
      own_backlog += b;
  }
  double seen_backlog = static_cast<double>(own_backlog);
  for (uint64_t b : group_shared_backlog) seen_backlog += static_cast<double>(b);
  st->max_backlog = std::max(st->backlog, seen_backlog);
  st->max_lag_ns = std::max({st->max_lag_ns, st->lag_ns, interval_.start_lag().count() ? interval_.start_lag().max() : 0});
}

void FoldInto(IntervalStats* a, const IntervalStats& b) {
  const double length = a->length_s + b.length_s;
  if (length > 0)
    a->offered_ops_per_sec = (a->offered_ops_per_sec * a->length_s + b.offered_ops_per_sec * b.length_s) / length;
  a->length_s = length;
  a->t_s = b.t_s;
  a->ops += b.ops, a->errors += b.errors, a->bytes += b.bytes;
  a->ops_per_sec = a->length_s > 0 ? static_cast<double>(a->ops) / a->length_s : 0;
  for (auto [into, from] : {std::pair{&a->response_histogram, &b.response_histogram},
                            std::pair{&a->service_histogram, &b.service_histogram}}) {
    auto x = measure::Histogram::Decode(*into), y = measure::Histogram::Decode(*from);
    if (x.ok() && y.ok() && x->Merge(*y).ok()) *into = x->Encode();
  }
  for (auto [into, from] : {std::pair{&a->kind_response_histograms, &b.kind_response_histograms},
                            std::pair{&a->kind_service_histograms, &b.kind_service_histograms}}) {
    for (size_t k = 0; k < into->size() && k < from->size(); ++k) {
      auto x = measure::Histogram::Decode((*into)[k]), y = measure::Histogram::Decode((*from)[k]);
      if (x.ok() && y.ok() && x->Merge(*y).ok()) (*into)[k] = x->Encode();
    }
  }
  if (auto h = measure::Histogram::Decode(a->response_histogram); h.ok()) a->response = PercentilesOf(*h);
  if (auto h = measure::Histogram::Decode(a->service_histogram); h.ok()) a->service = PercentilesOf(*h);
  if (a->group_ops.size() < b.group_ops.size()) a->group_ops.resize(b.group_ops.size());
  for (size_t g = 0; g < b.group_ops.size(); ++g) a->group_ops[g] += b.group_ops[g];
  a->backlog = b.backlog;
  a->lag_ns = b.lag_ns;
  a->max_backlog = std::max(a->max_backlog, b.max_backlog);
  a->max_lag_ns = std::max(a->max_lag_ns, b.max_lag_ns);
  a->runqueue_wait_ns += b.runqueue_wait_ns;
  a->hiccup_max_ns = std::max(a->hiccup_max_ns, b.hiccup_max_ns);
  a->hiccup_p99_ns = std::max(a->hiccup_p99_ns, b.hiccup_p99_ns);
  a->cpu.Add(b.cpu);
  a->platform.Add(b.platform);
  a->backend.FollowedBy(b.backend);
}

}  // namespace storebench::driver::internal
