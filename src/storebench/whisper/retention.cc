#include "storebench/whisper/retention.h"

#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>

#include "storebench/base/units.h"

namespace storebench::whisper {
namespace {

struct Unit {
  std::string_view name;
  uint64_t seconds;
};
constexpr std::array<Unit, 6> kUnits = {{{"seconds", 1},
                                         {"minutes", 60},
                                         {"hours", 3600},
                                         {"days", 86400},
                                         {"weeks", 86400 * 7},
                                         {"years", 86400 * 365}}};

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Digits that do not fit 64 bits are as invalid as letters: no real schema needs them.
bool ParseDigits(std::string_view s, uint64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// "<digits><lowercase unit prefix>" as whisper.py's regex ^(\d+)([a-z]+)$ accepts it.
StatusOr<uint64_t> ParseWithUnit(std::string_view s, std::string_view error) {
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  std::string_view unit = s.substr(digits);
  uint64_t n = 0;
  if (digits == 0 || unit.empty() ||
      !std::all_of(unit.begin(), unit.end(), [](char c) { return c >= 'a' && c <= 'z'; }) ||
      !ParseDigits(s.substr(0, digits), n)) {
    return Status::InvalidArgument(fmt::format("{} '{}'", error, s));
  }
  for (const Unit& u : kUnits) {
    if (u.name.starts_with(unit)) return n * u.seconds;
  }
  return Status::InvalidArgument(fmt::format("Invalid unit '{}'", unit));
}

// One side of "PRECISION:POINTS": plain digits, or digits and a unit (in seconds).
StatusOr<uint64_t> ParseSide(std::string_view s, std::string_view error) {
  if (!AllDigits(s)) return ParseWithUnit(s, error);
  uint64_t n = 0;
  if (!ParseDigits(s, n)) return Status::InvalidArgument(fmt::format("{} '{}'", error, s));
  return n;
}

std::string_view Strip(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  size_t b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

std::string Repr(const ArchiveSpec& a) { return fmt::format("({}, {})", a.seconds_per_point, a.points); }

}  // namespace

StatusOr<ArchiveSpec> ParseRetentionDef(std::string_view text) {
  std::string_view def = Strip(text);
  size_t colon = def.find(':');
  if (colon == std::string_view::npos) {
    return Status::InvalidArgument(fmt::format("Invalid retention definition '{}'", text));
  }
  std::string_view precision_text = def.substr(0, colon);
  std::string_view points_text = def.substr(colon + 1);
  StatusOr<uint64_t> precision = ParseSide(precision_text, "Invalid precision specification");
  if (!precision.ok()) return precision.status();
  StatusOr<uint64_t> points = ParseSide(points_text, "Invalid retention specification");
  if (!points.ok()) return points.status();
  if (!AllDigits(points_text)) {
    // A duration: whisper.py divides it by the precision (and by zero, too; we say what is wrong).
    if (*precision == 0) {
      return Status::InvalidArgument(fmt::format("Invalid precision specification '{}'", precision_text));
    }
    *points /= *precision;
  }
  if (*precision > UINT32_MAX || *points > UINT32_MAX) {
    return Status::InvalidArgument(fmt::format("Invalid retention definition '{}': does not fit 32 bits", text));
  }
  return ArchiveSpec{static_cast<uint32_t>(*precision), static_cast<uint32_t>(*points)};
}

StatusOr<std::vector<ArchiveSpec>> ParseRetentionList(std::string_view text) {
  std::vector<ArchiveSpec> out;
  for (std::string_view def : Split(text, ',')) {
    StatusOr<ArchiveSpec> a = ParseRetentionDef(def);
    if (!a.ok()) return a.status();
    out.push_back(*a);
  }
  return out;
}

Status ValidateArchiveList(std::vector<ArchiveSpec>& archives) {
  if (archives.empty()) {
    return Status::InvalidArgument("You must specify at least one archive configuration!");
  }
  std::stable_sort(archives.begin(), archives.end(),
                   [](const ArchiveSpec& a, const ArchiveSpec& b) { return a.seconds_per_point < b.seconds_per_point; });
  for (size_t i = 0; i < archives.size(); ++i) {
    const ArchiveSpec& a = archives[i];
    // whisper.py accepts these and writes a file nobody can update; refuse early.
    if (a.seconds_per_point == 0 || a.points == 0) {
      return Status::InvalidArgument(
          fmt::format("Each archive needs a nonzero precision and number of points (archive{}: {})", i, Repr(a)));
    }
    if (uint64_t{a.seconds_per_point} * a.points > UINT32_MAX) {
      return Status::InvalidArgument(
          fmt::format("Retention of archive{} ({} seconds) does not fit the 32-bit maxRetention field", i,
                      uint64_t{a.seconds_per_point} * a.points));
    }
    if (i + 1 == archives.size()) break;
    const ArchiveSpec& next = archives[i + 1];
    if (!(a.seconds_per_point < next.seconds_per_point)) {
      return Status::InvalidArgument(fmt::format(
          "A Whisper database may not be configured having two archives with the same precision "
          "(archive{}: {}, archive{}: {})",
          i, Repr(a), i + 1, Repr(next)));
    }
    if (next.seconds_per_point % a.seconds_per_point != 0) {
      return Status::InvalidArgument(fmt::format(
          "Higher precision archives' precision must evenly divide all lower precision archives' precision "
          "(archive{}: {}, archive{}: {})",
          i, a.seconds_per_point, i + 1, next.seconds_per_point));
    }
    uint64_t retention = uint64_t{a.seconds_per_point} * a.points;
    uint64_t next_retention = uint64_t{next.seconds_per_point} * next.points;
    if (!(next_retention > retention)) {
      return Status::InvalidArgument(fmt::format(
          "Lower precision archives must cover larger time intervals than higher precision archives "
          "(archive{}: {} seconds, archive{}: {} seconds)",
          i, retention, i + 1, next_retention));
    }
    uint32_t per_consolidation = next.seconds_per_point / a.seconds_per_point;
    if (!(a.points >= per_consolidation)) {
      return Status::InvalidArgument(fmt::format(
          "Each archive must have at least enough points to consolidate to the next archive "
          "(archive{} consolidates {} of archive{}'s points but it has only {} total points)",
          i + 1, per_consolidation, i, a.points));
    }
  }
  return Status::Ok();
}

}  // namespace storebench::whisper
