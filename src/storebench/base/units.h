// Parsing of human-written quantities: durations ("10s", "250ms", "2m"),
// sizes ("4k", "8KiB", "2G"), rates ("50k/s", "1M", "1000") and counts ("5e6", "10k").
//
// Every parser returns InvalidArgument with a message naming `flag` and the
// accepted form, so the CLI can print it verbatim. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/base/status.h"

namespace storebench {

// "1.5s", "200ns", "3us", "10ms", "2m", "1h"; a bare number means seconds.
StatusOr<uint64_t> ParseDurationNs(std::string_view text, std::string_view flag);
// "4096", "4k", "4K", "4KiB", "1m", "2G": binary multiples (k = 1024).
StatusOr<uint64_t> ParseSize(std::string_view text, std::string_view flag);
// "1000", "50k/s", "1.5M/s", "2000/s": operations per second (k = 1000). Must be > 0.
StatusOr<double> ParseRate(std::string_view text, std::string_view flag);
// "5000000", "5e6", "10k", "2M" (k = 1000). Non-negative integer.
StatusOr<uint64_t> ParseCount(std::string_view text, std::string_view flag);
// A plain finite double ("0.8", "-2.917", "1e-3").
StatusOr<double> ParseDouble(std::string_view text, std::string_view flag);
// Every number above is decimal: [+-] digits [. digits] [e [+-] digits]
// (no "0x10", "inf", "nan" or leading blanks), and one beyond a double's range
// or the parser's own maximum is refused as "too large", never as malformed.
// True when the number leading `text` is beyond a double's range (1e309):
// for callers that word their own message around these parsers.
bool NumberTooLarge(std::string_view text);

std::vector<std::string_view> Split(std::string_view text, char sep);
// The words of a command line as a POSIX shell splits it, without expanding
// anything: blanks separate words; '…' keeps everything; "…" keeps everything
// but \", \\, \$ and \` (backslash escapes); a backslash outside quotes
// keeps the next character. InvalidArgument naming `flag` for an unterminated
// quote or a trailing backslash.
StatusOr<std::vector<std::string>> SplitShellWords(std::string_view text, std::string_view flag);

// "1.23 ms", "456 ns", "2.0 s": for human output.
std::string FormatDurationNs(double ns);
// "84,000", "1,234,567": a count or rate rounded to a whole number, with thousands separators.
std::string FormatCount(double value);
// A count in 3 or 4 figures, for a live line: "950", "12.3k", "14.70M"; with
// unit "bytes", FormatBytes().
std::string FormatCompactCount(double value, std::string_view unit = "");
// "a, b, c": the items joined by ", ".
std::string JoinComma(const std::vector<std::string>& items);
// "4.0 KiB", "1.5 GiB".
std::string FormatBytes(double bytes);

}  // namespace storebench
