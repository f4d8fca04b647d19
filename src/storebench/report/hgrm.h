// HdrHistogram's percentile distribution ("hgrm", as outputPercentileDistribution
// prints it and wrk2 -L shows it):
//
//        Value     Percentile TotalCount 1/(1-Percentile)
//
//        0.051 0.000000000000          1           1.00
//        …
//   #[Mean    =        0.060, StdDeviation   =        0.010]
//   #[Max     =        0.204, Total count    =      59321]
//   #[Buckets =           27, SubBuckets     =       2048]
//
// The rows follow HdrHistogram's PercentileIterator (ticks per half distance,
// 5 by default): each row is the highest value equivalent to the bucket where
// the running count first reaches the percentile level, the levels getting
// denser toward 100%. Mean and standard deviation come from bucket medians
// and Max is the highest value equivalent to the max, as HdrHistogram
// computes them, so a histogram printed here and by HdrHistogram's Java
// library from the same .hlog is the same text.
// Thread-safety: pure functions over values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storebench/measure/histogram.h"

namespace storebench::report {

struct PercentileRow {
  uint64_t value = 0;       // highest equivalent value of the bucket (histogram units, e.g. ns)
  double percentile = 0;    // level iterated to, 0..100
  uint64_t total_count = 0; // observations at or below value
};

// The percentile iterator's rows (the spectrum the HTML report draws too).
std::vector<PercentileRow> PercentileRows(const measure::Histogram& h, int ticks_per_half_distance = 5);

// The whole text. `unit_ratio` divides values: 1000 shows nanoseconds as
// microseconds (wrk2 -L), 1e6 as milliseconds. Empty histogram: header and footer only.
std::string PercentileDistribution(const measure::Histogram& h, double unit_ratio, int ticks_per_half_distance = 5);

}  // namespace storebench::report
