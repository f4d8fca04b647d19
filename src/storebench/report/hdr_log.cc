#include "storebench/report/hdr_log.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <fmt/format.h>

#include "storebench/base/units.h"
#include "storebench/measure/base64.h"
#include "storebench/base/json_file.h"
#include "storebench/report/hdr_codec.h"

namespace storebench::report {
namespace {

constexpr std::string_view kLegend =
    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"";

// Java's Date.toString() shape, in UTC: "Tue Nov 14 22:13:20 UTC 2023".
std::string DateText(double epoch_s) {
  std::time_t t = static_cast<std::time_t>(epoch_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %d %H:%M:%S UTC %Y", &tm);
  return buf;
}

bool ParseDouble(std::string_view text, double* out) {
  std::string s(text);
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0';
}

// The number after a "#[Name: " prefix, up to the first space or ']'.
bool HeaderNumber(std::string_view line, std::string_view prefix, double* out) {
  if (line.substr(0, prefix.size()) != prefix) return false;
  std::string_view rest = line.substr(prefix.size());
  return ParseDouble(rest.substr(0, rest.find_first_of(" ]")), out);
}

measure::Histogram MergeAll(const HistogramLog& log, bool (*keep)(const std::string&, const std::string&),
                            const std::string& arg) {
  measure::HistogramOptions opt;
  bool first = true;
  for (const auto& i : log.intervals) {
    if (!keep(i.tag, arg)) continue;
    if (first) opt = i.histogram.options();
    opt.highest = std::max(opt.highest, i.histogram.options().highest);
    first = false;
  }
  measure::Histogram out(opt);
  for (const auto& i : log.intervals)
    if (keep(i.tag, arg)) MergeLenient(&out, i.histogram);
  return out;
}

}  // namespace

void MergeLenient(measure::Histogram* dst, const measure::Histogram& src) {
  if (dst->Merge(src).ok()) return;
  src.ForEachBucket([&](uint64_t lo, uint64_t hi, uint64_t n) { dst->Record(lo + (hi - lo + 1) / 2, n); });
}

std::string HistogramLogHeader(double start_time_s) {
  std::string out = "#[Histogram log format version 1.3]\n";
  out += fmt::format("#[StartTime: {:.3f} (seconds since epoch), {}]\n", start_time_s, DateText(start_time_s));
  out += fmt::format("#[BaseTime: {:.3f} (seconds since epoch)]\n", start_time_s);
  out += kLegend;
  out += '\n';
  return out;
}

StatusOr<std::string> HistogramLogLine(const HlogInterval& i, double max_unit_ratio) {
  auto bytes = EncodeHdrV2Compressed(i.histogram);
  if (!bytes.ok()) return bytes.status();
  std::string out;
  if (!i.tag.empty()) out += fmt::format("Tag={},", i.tag);
  // HdrHistogram reports a histogram's max as its bucket's highest equivalent value.
  uint64_t max = i.histogram.count() ? HdrLayout::Of(i.histogram).HighestEquivalent(i.histogram.max()) : 0;
  out += fmt::format("{:.3f},{:.3f},{:.3f},{}\n", i.start_s, i.length_s, static_cast<double>(max) / max_unit_ratio,
                     measure::Base64Encode(*bytes));
  return out;
}

StatusOr<std::string> WriteHistogramLog(double start_time_s, const std::vector<HlogInterval>& intervals,
                                        double max_unit_ratio) {
  std::string out = HistogramLogHeader(start_time_s);
  for (const auto& i : intervals) {
    auto line = HistogramLogLine(i, max_unit_ratio);
    if (!line.ok()) return line.status();
    out += *line;
  }
  return out;
}

StatusOr<HistogramLog> ReadHistogramLog(std::string_view text) {
  HistogramLog log;
  bool have_start = false, have_base = false;
  double base = 0;
  size_t line_no = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    auto bad = [&](std::string_view why) {
      return Status::Corruption(fmt::format("hlog line {}: {}", line_no, why));
    };
    double v;
    if (HeaderNumber(line, "#[StartTime: ", &v)) {
      log.start_time_s = v;
      have_start = true;
      continue;
    }
    if (HeaderNumber(line, "#[BaseTime: ", &v)) {
      base = v;
      have_base = true;
      continue;
    }
    if (line[0] == '#' || line.substr(0, 16) == "\"StartTimestamp\"") continue;
    HlogInterval i;
    if (line.substr(0, 4) == "Tag=") {
      size_t comma = line.find(',');
      if (comma == std::string_view::npos) return bad("a Tag= without fields");
      i.tag = std::string(line.substr(4, comma - 4));
      line.remove_prefix(comma + 1);
    }
    std::vector<std::string_view> f = Split(line, ',');
    if (f.size() != 4) return bad("expected start,length,max,histogram");
    double stamp, max;
    if (!ParseDouble(f[0], &stamp) || !ParseDouble(f[1], &i.length_s) || !ParseDouble(f[2], &max))
      return bad("start, length and max must be numbers");
    std::string bytes;
    if (!measure::Base64Decode(f[3], &bytes)) return bad("the histogram is not base64");
    auto h = DecodeHdr(bytes);
    if (!h.ok()) return bad(h.status().message());
    if (!have_base) {
      // HistogramLogReader's rule for logs without a BaseTime.
      base = (have_start && stamp < log.start_time_s - 365 * 24 * 3600.0) ? log.start_time_s : 0;
      have_base = true;
    }
    double absolute = stamp + base;
    i.start_s = have_start ? absolute - log.start_time_s : absolute;
    i.histogram = std::move(*h);
    log.intervals.push_back(std::move(i));
  }
  if (log.intervals.empty()) return Status::Corruption("hlog: no interval lines (is this an HdrHistogram log?)");
  return log;
}

StatusOr<HistogramLog> ReadHistogramLogFile(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  auto log = ReadHistogramLog(*text);
  if (!log.ok()) return Status::Corruption(fmt::format("{}: {}", path, log.status().message()));
  return log;
}

std::vector<std::string> Tags(const HistogramLog& log) {
  std::vector<std::string> tags;
  for (const auto& i : log.intervals)
    if (std::find(tags.begin(), tags.end(), i.tag) == tags.end()) tags.push_back(i.tag);
  return tags;
}

bool IsServiceTag(const std::string& tag) {
  std::string_view suffix = kServiceTagSuffix;
  return tag.size() > suffix.size() && tag.compare(tag.size() - suffix.size(), suffix.size(), suffix) == 0;
}

measure::Histogram MergedTag(const HistogramLog& log, const std::string& tag) {
  return MergeAll(log, [](const std::string& t, const std::string& want) { return t == want; }, tag);
}

namespace {

bool Untagged(const std::string& t, const std::string&) { return t.empty(); }
bool NotService(const std::string& t, const std::string&) { return !IsServiceTag(t); }
bool Service(const std::string& t, const std::string&) { return IsServiceTag(t); }

}  // namespace

ResponseLines ResponseLinesOf(const HistogramLog& log) {
  return {std::any_of(log.intervals.begin(), log.intervals.end(), [](const HlogInterval& i) { return i.tag.empty(); })};
}

LatencyPair ResponseAndService(const HistogramLog& log) {
  LatencyPair p{MergeAll(log, ResponseLinesOf(log).untagged ? Untagged : NotService, ""), MergeAll(log, Service, "")};
  if (p.service.count() == 0) p.service = p.response;
  return p;
}

}  // namespace storebench::report
