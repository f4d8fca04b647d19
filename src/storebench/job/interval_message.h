// A scale-out run's live merge, the part that needs no MPI: the tree the
// ranks' intervals travel along to rank 0, and an interval merged over some
// ranks in the compact binary form those messages carry.
//
// Each rank merges its own interval with its children's parts of the same
// interval and sends one part to its parent, so rank 0 receives
// ceil(log2(size)) messages an interval, not size - 1, each about as large
// as one rank's (its histograms hold the used buckets only, a byte or two
// each: Histogram::AppendBinary). Thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/driver/runner.h"
#include "storebench/measure/histogram.h"

namespace storebench::job {

// The binomial tree over the ranks, rooted at rank 0: rank r's parent is r
// with its lowest set bit cleared; its children are r + 2^k for each 2^k
// below r's lowest set bit (every k for rank 0) and r + 2^k < size. A rank
// is as deep as it has set bits, so the depth is at most ceil(log2(size)),
// which is rank 0's number of children.
int TreeParent(int rank);
std::vector<int> TreeChildren(int rank, int size);

// One measured interval (by index, from 0) merged over `ranks` ranks: counts,
// the backlog and the offered rate add, the end time, length and start lags are the largest,
// the histograms merge.
struct IntervalPart {
  explicit IntervalPart(const measure::HistogramOptions& options) : response(options), service(options) {}

  uint64_t index = 0;
  uint64_t ranks = 0;
  double t_s = 0, length_s = 0;
  uint64_t ops = 0, errors = 0, bytes = 0;
  double backlog = 0;
  uint64_t lag_ns = 0;
  uint64_t max_lag_ns = 0;          // the largest start lag within the interval, over the ranks
  double offered_ops_per_sec = 0;   // open loop: the ranks' offered rates, summed
  measure::Histogram response, service;

  // Empty again, keeping the histograms' memory (a part is reused).
  void Reset();
  // Adds a rank's own interval (its histograms as IntervalStats carries them).
  Status AddOwn(const driver::IntervalStats& st);
  // Appends this part's binary form: varints and doubles, then both histograms.
  void AppendTo(std::string* out) const;
  // Adds a part in AppendTo's form read from in[*pos...], advancing *pos.
  // Corruption when malformed, InvalidArgument when its histograms have other
  // options; either way the part is then unusable (the run fails).
  Status MergeFrom(std::string_view in, size_t* pos);
  // The merged interval as the progress line shows it.
  driver::IntervalStats Stats() const;
};

// The interval index of a part in AppendTo's form at in[pos...].
StatusOr<uint64_t> PartIndex(std::string_view in, size_t pos);

}  // namespace storebench::job
