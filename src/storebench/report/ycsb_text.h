// YCSB's text output (`--output ycsb`), so that scripts written for YCSB's
// results read storebench's unchanged:
//
//   [OVERALL], RunTime(ms), 10110
//   [OVERALL], Throughput(ops/sec), 98.91196834817013
//   [READ], Operations, 496
//   [READ], AverageLatency(us), 574.1411290322581
//   [READ], MinLatency(us), 186
//   [READ], MaxLatency(us), 35935
//   [READ], 95thPercentileLatency(us), 944
//   [READ], 99thPercentileLatency(us), 2447
//   [READ], Return=OK, 496
//
// as YCSB prints it with its default hdrhistogram measurements: latencies in
// whole microseconds (truncated, as YCSB records them) except the average,
// doubles in Java's shortest form. The latency is storebench's: from each
// op's intended start in an open loop (YCSB's "Intended" measurement), from
// its start in a closed loop.
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "storebench/measure/histogram.h"

namespace storebench::report {

struct YcsbOperation {
  std::string name;                 // "READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"
  const measure::Histogram* latency = nullptr;  // ns
  std::vector<std::pair<std::string, uint64_t>> returns;  // "OK", "NOT_FOUND", "ERROR" and their counts
};

// The text for a run of `runtime_ms` at `ops_per_sec`; operations with no ops
// are left out, as YCSB leaves out measurements it never took; `percentiles`
// are YCSB's hdrhistogram.percentiles (95 and 99 by default).
std::string YcsbText(uint64_t runtime_ms, double ops_per_sec, const std::vector<YcsbOperation>& ops,
                     const std::vector<int>& percentiles = {95, 99});

// A double as Java's Double.toString prints it in these lines: the shortest
// digits that read back as the same double (as Java 19 and later do), NaN,
// Infinity, a ".0" on whole numbers, E notation outside [10^-3, 10^7).
std::string JavaDouble(double v);

}  // namespace storebench::report
