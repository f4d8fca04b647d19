#include "storebench/whisper/tools_output.h"

#include <cmath>
#include <ctime>

#include <fmt/format.h>
#include <fmt/printf.h>

#include "storebench/whisper/python_compat.h"

namespace storebench::whisper::tools {
namespace {

std::string Xff(const Header& h) { return PyFloatRepr(static_cast<double>(h.x_files_factor)); }

}  // namespace

std::string InfoText(const Header& h, uint64_t file_size) {
  std::string out = fmt::format("aggregationMethod: {}\nmaxRetention: {}\nxFilesFactor: {}\nfileSize: {}\n\n",
                                AggregationName(h.aggregation), h.max_retention, Xff(h), file_size);
  for (size_t i = 0; i < h.archives.size(); ++i) {
    const ArchiveInfo& a = h.archives[i];
    out += fmt::format("Archive {}\noffset: {}\nsecondsPerPoint: {}\npoints: {}\nretention: {}\nsize: {}\n\n", i,
                       a.offset, a.seconds_per_point, a.points, a.retention(), a.size_bytes());
  }
  return out;
}

std::string InfoJson(const Header& h, uint64_t file_size) {
  std::string out = fmt::format(
      "{{\n  \"aggregationMethod\": \"{}\",\n  \"maxRetention\": {},\n  \"xFilesFactor\": {},\n  \"archives\": [",
      AggregationName(h.aggregation), h.max_retention, Xff(h));
  for (size_t i = 0; i < h.archives.size(); ++i) {
    const ArchiveInfo& a = h.archives[i];
    out += fmt::format(
        "{}\n    {{\n      \"offset\": {},\n      \"secondsPerPoint\": {},\n      \"points\": {},\n"
        "      \"retention\": {},\n      \"size\": {}\n    }}",
        i == 0 ? "" : ",", a.offset, a.seconds_per_point, a.points, a.retention(), a.size_bytes());
  }
  out += fmt::format("\n  ],\n  \"fileSize\": {}\n}}\n", file_size);
  return out;
}

std::optional<std::string> InfoField(const Header& h, uint64_t file_size, const std::string& field) {
  if (field == "aggregationMethod") return std::string(AggregationName(h.aggregation));
  if (field == "maxRetention") return std::to_string(h.max_retention);
  if (field == "xFilesFactor") return Xff(h);
  if (field == "fileSize") return std::to_string(file_size);
  if (field != "archives") return std::nullopt;
  std::string out = "[";
  for (size_t i = 0; i < h.archives.size(); ++i) {
    const ArchiveInfo& a = h.archives[i];
    out += fmt::format("{}{{'offset': {}, 'secondsPerPoint': {}, 'points': {}, 'retention': {}, 'size': {}}}",
                       i == 0 ? "" : ", ", a.offset, a.seconds_per_point, a.points, a.retention(), a.size_bytes());
  }
  return out + "]";
}

std::string InfoFieldNames() { return "aggregationMethod,maxRetention,xFilesFactor,archives,fileSize"; }

std::string DumpHeaderText(const Header& h) {
  std::string out = fmt::format("Meta data:\n  aggregation method: {}\n  max retention: {}\n  xFilesFactor: {}\n\n",
                                AggregationName(h.aggregation), h.max_retention,
                                fmt::sprintf("%g", static_cast<double>(h.x_files_factor)));
  for (size_t i = 0; i < h.archives.size(); ++i) {
    const ArchiveInfo& a = h.archives[i];
    out += fmt::format(
        "Archive {} info:\n  offset: {}\n  seconds per point: {}\n  points: {}\n  retention: {}\n  size: {}\n\n", i,
        a.offset, a.seconds_per_point, a.points, a.retention(), a.size_bytes());
  }
  return out;
}

std::string DumpPointLine(uint32_t index, const std::string& time, double value) {
  // Python's %-formatting of nan/inf ignores the sign of nan and the precision.
  std::string v = std::isnan(value)   ? fmt::format("{:>10}", "nan")
                  : std::isinf(value) ? fmt::format("{:>10}", value > 0 ? "inf" : "-inf")
                                      : fmt::sprintf("%10.35g", value);
  return fmt::format("{}: {}, {}\n", index, time, v);
}

std::string PyListJson(const std::vector<std::optional<double>>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += values[i] ? PyFloatRepr(*values[i]) : "null";
  }
  return out + "]";
}

std::string FormatTime(int64_t t, const std::string* format) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  if (format == nullptr) {
    // asctime()'s layout, which time.ctime() uses, without its newline.
    static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    return fmt::format("{} {} {:2} {:02}:{:02}:{:02} {}", kDays[tm.tm_wday], kMonths[tm.tm_mon], tm.tm_mday,
                       tm.tm_hour, tm.tm_min, tm.tm_sec, tm.tm_year + 1900);
  }
  if (format->empty()) return "";
  char buf[1024];
  size_t n = std::strftime(buf, sizeof(buf), format->c_str(), &tm);
  return std::string(buf, n);
}

std::string ByteFormat(double num) {
  for (const char* unit : {"bytes", "KB", "MB"}) {
    if (num < 1024.0) return fmt::sprintf("%.3f%s", num, unit);
    num /= 1024.0;
  }
  return fmt::sprintf("%.3f%s", num, "GB");
}

}  // namespace storebench::whisper::tools
