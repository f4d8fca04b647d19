// Whether an interval of the timeline counts: the one rule that the runner,
// the summary, the CSV, the HTML page, `compare` and the two-phase capacity
// all follow, so that a run shows the same intervals everywhere.
//
// Every interval but the last counts. The last counts when it covers at least
// kCompleteShare of the nominal length (the run's --interval; for a file that
// does not say, the median length of the others), or when it is the only one
// (then it is the whole run). A shorter last interval holds a few ops over a
// sliver of time: its rate and tail would be noise of another kind. Only the
// last: with short intervals (1 ms) the reporter's wake-ups vary every
// interval's length, and those rows are real.
//
// The runner folds a last interval that does not count into the one before it
// (its ops stay in the figures), so results storebench writes hold only
// intervals that count; the readers apply the rule to files written otherwise
// (HdrHistogram logs of other tools, results of older versions).
#pragma once

#include <cstddef>
#include <vector>

namespace storebench::driver {

inline constexpr double kCompleteShare = 0.5;

// Whether a last interval of `length_s` counts, after `before` others, against
// the nominal length `nominal_s` (> 0).
bool LastIntervalCounts(double length_s, double nominal_s, size_t before);

// How many of `lengths_s` (in order) count: all, or all but the last.
// `nominal_s` <= 0: not known, the median of the others stands for it.
size_t CountedIntervals(const std::vector<double>& lengths_s, double nominal_s);

}  // namespace storebench::driver
