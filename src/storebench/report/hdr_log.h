// HdrHistogram's interval log (".hlog", HistogramLogWriter format 1.3):
//
//   #[Histogram log format version 1.3]
//   #[StartTime: 1700000000.000 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]
//   #[BaseTime: 1700000000.000 (seconds since epoch)]
//   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//   Tag=read,0.000,1.000,0.250,HISTFAAAA…
//
// one line per interval and tag: start (seconds after BaseTime), length (s),
// the interval's max divided by a unit ratio (1e6: ns shown as ms, as
// HdrHistogram's writer does) and the base64 of the compressed V2 histogram
// (hdr_codec.h). Readers: HdrHistogram's HistogramLogReader and
// HistogramLogProcessor, and ReadHistogramLog below.
//
// storebench's layout, per interval: first an untagged line, the response
// time of every op of the interval (what HdrHistogram's
// HistogramLogProcessor reads without -tag: the run's overall distribution),
// then breakdowns of it: each op kind's response time tagged with the kind
// ("read"), its service time tagged with the kind and ".service"
// ("read.service"). The tagged lines repeat ops the untagged line holds, so
// a reader that wants every op once takes the untagged lines alone (or the
// kind tags alone, or the ".service" tags alone) — never all of them; see
// ResponseAndService(). Logs of other tools are read as they are.
// Thread-safety: pure functions over values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/measure/histogram.h"

namespace storebench::report {

inline constexpr const char* kServiceTagSuffix = ".service";

// One line of a log: the histogram of `tag` over [start_s, start_s + length_s).
struct HlogInterval {
  double start_s = 0;   // seconds after the log's start (BaseTime-relative as written)
  double length_s = 0;
  std::string tag;      // empty: an untagged line
  measure::Histogram histogram;
};

struct HistogramLog {
  double start_time_s = 0;  // seconds since the epoch (0: the log did not say)
  std::vector<HlogInterval> intervals;  // in file order
};

// The same log in pieces, for a writer that appends while a run goes on:
// the header lines (StartTime, BaseTime, legend), then one line per interval
// and tag (IOError if compression fails). Tags must not contain ',' or spaces.
std::string HistogramLogHeader(double start_time_s);
StatusOr<std::string> HistogramLogLine(const HlogInterval& interval, double max_unit_ratio = 1e6);

// Writes a log: header lines (StartTime and BaseTime = start_time_s), the
// legend, then one line per interval in the given order. `max_unit_ratio`
// divides the Interval_Max column (1e6 for nanosecond values shown in ms).
// IOError if compression fails.
StatusOr<std::string> WriteHistogramLog(double start_time_s, const std::vector<HlogInterval>& intervals,
                                        double max_unit_ratio = 1e6);

// Parses a log written by HdrHistogram's writers or by WriteHistogramLog.
// Interval starts are made relative to StartTime (HistogramLogReader's rule:
// without a BaseTime, timestamps more than a year before StartTime are
// relative). Corruption names the line number.
StatusOr<HistogramLog> ReadHistogramLog(std::string_view text);

// ReadHistogramLog of a file; errors name the path.
StatusOr<HistogramLog> ReadHistogramLogFile(const std::string& path);

// Each tag once, in order of first appearance.
std::vector<std::string> Tags(const HistogramLog& log);
// Adds `src` to `dst`. Histograms of other tools may differ in range (not
// in digits): then each bucket is re-recorded at its median value, which
// lands in the same bucket.
void MergeLenient(measure::Histogram* dst, const measure::Histogram& src);
// All of a tag's intervals merged.
measure::Histogram MergedTag(const HistogramLog& log, const std::string& tag);

// What compare and the report read as a run's latencies, each op once:
// response = the merge of the untagged lines when there are any (storebench's
// logs, and most other tools'), else of every tag not ending in ".service"
// (older storebench logs and tools that tag everything); service = the merge
// of the ".service" tags, or the response when there are none.
struct LatencyPair {
  measure::Histogram response, service;
};
LatencyPair ResponseAndService(const HistogramLog& log);
bool IsServiceTag(const std::string& tag);
// Which lines of a log hold its response time as ResponseAndService() reads
// it: the untagged lines if the log has any, else every non-service tag.
struct ResponseLines {
  bool untagged = false;  // the log has untagged lines
  bool operator()(const std::string& tag) const { return untagged ? tag.empty() : !IsServiceTag(tag); }
};
ResponseLines ResponseLinesOf(const HistogramLog& log);

}  // namespace storebench::report
