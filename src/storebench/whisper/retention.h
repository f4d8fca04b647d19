// Retention definitions ("60s:1d", "5m:30d", "60:1440") and the archive-list
// rules of whisper.py's parseRetentionDef() and validateArchiveList(), with
// the same meaning and messages. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/base/status.h"

namespace storebench::whisper {

// One archive as the user asks for it: seconds per point and number of points.
struct ArchiveSpec {
  uint32_t seconds_per_point = 0;
  uint32_t points = 0;
  bool operator==(const ArchiveSpec&) const = default;
};

// Parses "PRECISION:POINTS" where each side is digits or digits+unit (s, m, h, d, w, y
// or any prefix of seconds/minutes/hours/days/weeks/years); a unit on POINTS means a
// duration divided by the precision. InvalidArgument with whisper.py's message otherwise.
StatusOr<ArchiveSpec> ParseRetentionDef(std::string_view text);
// Parses a comma-separated list ("60s:1d,5m:30d") in the order given.
StatusOr<std::vector<ArchiveSpec>> ParseRetentionList(std::string_view text);
// Sorts `archives` by precision and applies whisper.py's five rules (at least one
// archive, distinct precisions, divisibility, growing retention, enough points to
// consolidate) plus nonzero precision and points; InvalidArgument naming the rule.
Status ValidateArchiveList(std::vector<ArchiveSpec>& archives);

}  // namespace storebench::whisper
