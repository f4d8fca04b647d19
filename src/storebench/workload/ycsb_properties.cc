#include "storebench/workload/ycsb_properties.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <vector>

namespace storebench::workload {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// The logical lines of a properties text: a line ending in an odd number of
// backslashes continues on the next one, whose leading whitespace is dropped.
// Each with the number of its first physical line.
std::vector<std::pair<std::string, size_t>> LogicalLines(std::string_view text) {
  std::vector<std::pair<std::string, size_t>> out;
  std::string cur;
  size_t line = 0, first = 0;
  bool continuing = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    ++line;
    if (continuing) {
      while (!raw.empty() && IsSpace(raw.front())) raw.remove_prefix(1);
    } else {
      first = line;
      cur.clear();
    }
    size_t slashes = 0;
    while (slashes < raw.size() && raw[raw.size() - 1 - slashes] == '\\') ++slashes;
    continuing = slashes % 2 == 1;
    cur.append(raw.substr(0, continuing ? raw.size() - 1 : raw.size()));
    if (!continuing) out.emplace_back(cur, first);
    if (end == text.size()) break;
    pos = end + (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n' ? 2 : 1);
  }
  if (continuing) out.emplace_back(cur, first);
  return out;
}

// java.util.Properties' escapes: \t \n \r \f, \uXXXX, and \x for any other x.
bool Unescape(std::string_view s, std::string* out) {
  out->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out->push_back(s[i]);
      continue;
    }
    const char c = s[++i];
    switch (c) {
      case 't': out->push_back('\t'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 'f': out->push_back('\f'); break;
      case 'u': {
        unsigned v = 0;
        if (i + 4 >= s.size()) return false;
        auto [p, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 5, v, 16);
        if (ec != std::errc() || p != s.data() + i + 5) return false;
        i += 4;
        // UTF-8 of a BMP code point.
        if (v < 0x80) {
          out->push_back(static_cast<char>(v));
        } else if (v < 0x800) {
          out->push_back(static_cast<char>(0xC0 | (v >> 6)));
          out->push_back(static_cast<char>(0x80 | (v & 0x3F)));
        } else {
          out->push_back(static_cast<char>(0xE0 | (v >> 12)));
          out->push_back(static_cast<char>(0x80 | ((v >> 6) & 0x3F)));
          out->push_back(static_cast<char>(0x80 | (v & 0x3F)));
        }
        break;
      }
      default: out->push_back(c);
    }
  }
  return true;
}

// Splits a logical line into its raw key and value (escapes still in them).
void SplitKeyValue(std::string_view line, std::string_view* key, std::string_view* value) {
  size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '=' || c == ':' || IsSpace(c)) break;
    ++i;
  }
  *key = line.substr(0, std::min(i, line.size()));
  size_t j = std::min(i, line.size());
  while (j < line.size() && IsSpace(line[j])) ++j;
  if (j < line.size() && (line[j] == '=' || line[j] == ':')) ++j;
  while (j < line.size() && IsSpace(line[j])) ++j;
  *value = line.substr(j);
}

}  // namespace

void YcsbProperties::Set(std::string key, std::string value, std::string where) {
  origin[key] = std::move(where);
  values[std::move(key)] = std::move(value);
}

Status ParseYcsbProperties(std::string_view text, std::string_view source, YcsbProperties* into) {
  for (const auto& [logical, number] : LogicalLines(text)) {
    std::string_view line = logical;
    while (!line.empty() && IsSpace(line.front())) line.remove_prefix(1);
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    std::string_view raw_key, raw_value;
    SplitKeyValue(line, &raw_key, &raw_value);
    std::string key, value;
    if (!Unescape(raw_key, &key) || !Unescape(raw_value, &value))
      return Status::InvalidArgument(fmt::format("{}:{}: a \\u escape needs four hex digits", source, number));
    into->Set(std::move(key), std::move(value), fmt::format("{}:{}", source, number));
  }
  return Status::Ok();
}

Status SetYcsbProperty(std::string_view assignment, YcsbProperties* into) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return Status::InvalidArgument(
        fmt::format("-p: expected NAME=VALUE (a YCSB property, e.g. recordcount=100000), got '{}'", assignment));
  into->Set(std::string(assignment.substr(0, eq)), std::string(assignment.substr(eq + 1)), "-p");
  return Status::Ok();
}

std::string_view YcsbRequestDistributionName(YcsbRequestDistribution d) {
  switch (d) {
    case YcsbRequestDistribution::kUniform: return "uniform";
    case YcsbRequestDistribution::kZipfian: return "zipfian";
    case YcsbRequestDistribution::kLatest: return "latest";
    case YcsbRequestDistribution::kHotspot: return "hotspot";
    case YcsbRequestDistribution::kSequential: return "sequential";
    case YcsbRequestDistribution::kExponential: return "exponential";
  }
  return "?";
}

namespace {

// Reads one property's value into the workload; false with a message when its form is wrong.
struct Reader {
  const YcsbProperties& p;
  std::string error;

  std::string Where(const std::string& key) const {
    auto it = p.origin.find(key);
    return it == p.origin.end() ? key : fmt::format("{} ({})", key, it->second);
  }
  bool Fail(const std::string& key, std::string_view form) {
    error = fmt::format("YCSB property {}: expected {}, got '{}'", Where(key), form, p.values.at(key));
    return false;
  }
  bool Unsigned(const std::string& key, uint64_t lo, uint64_t hi, uint64_t* out) {
    const std::string& v = p.values.at(key);
    uint64_t x = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || ptr != v.data() + v.size() || x < lo || x > hi)
      return Fail(key, fmt::format("a whole number from {} to {}", lo, hi));
    *out = x;
    return true;
  }
  bool Unsigned32(const std::string& key, uint32_t lo, uint32_t* out) {
    uint64_t x = 0;
    if (!Unsigned(key, lo, UINT32_MAX, &x)) return false;
    *out = static_cast<uint32_t>(x);
    return true;
  }
  bool Real(const std::string& key, double lo, double hi, double* out) {
    const std::string& v = p.values.at(key);
    double x = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || ptr != v.data() + v.size() || !std::isfinite(x) || x < lo || x > hi)
      return Fail(key, fmt::format("a number from {} to {}", lo, hi));
    *out = x;
    return true;
  }
  bool Bool(const std::string& key, bool* out) {
    const std::string& v = p.values.at(key);
    if (v == "true" || v == "false") {
      *out = v == "true";
      return true;
    }
    return Fail(key, "true or false");
  }
  template <typename E>
  bool OneOf(const std::string& key, const std::vector<std::pair<std::string_view, E>>& names, E* out) {
    const std::string& v = p.values.at(key);
    std::string list;
    for (const auto& [name, e] : names) {
      if (v == name) {
        *out = e;
        return true;
      }
      list += list.empty() ? std::string(name) : ", " + std::string(name);
    }
    return Fail(key, "one of " + list);
  }
};

using Apply = std::function<bool(Reader&, const std::string&, YcsbWorkload*)>;
constexpr uint64_t kMaxCount = UINT64_MAX / 2;

Apply Count(uint64_t YcsbWorkload::*m) {
  return [m](Reader& r, const std::string& k, YcsbWorkload* w) { return r.Unsigned(k, 0, kMaxCount, &(w->*m)); };
}
Apply Count32(uint32_t YcsbWorkload::*m, uint32_t lo) {
  return [m, lo](Reader& r, const std::string& k, YcsbWorkload* w) { return r.Unsigned32(k, lo, &(w->*m)); };
}
Apply Number(double YcsbWorkload::*m, double hi) {
  return [m, hi](Reader& r, const std::string& k, YcsbWorkload* w) { return r.Real(k, 0, hi, &(w->*m)); };
}
Apply Flag(bool YcsbWorkload::*m) {
  return [m](Reader& r, const std::string& k, YcsbWorkload* w) { return r.Bool(k, &(w->*m)); };
}
Apply Text(std::string YcsbWorkload::*m) {
  return [m](Reader& r, const std::string& k, YcsbWorkload* w) {
    w->*m = r.p.values.at(k);
    return true;
  };
}
// A property whose only accepted values are those storebench behaves as YCSB does with.
template <typename E>
Apply Choice(E YcsbWorkload::*m, std::initializer_list<std::pair<std::string_view, E>> names) {
  std::vector<std::pair<std::string_view, E>> list(names);
  return [m, list](Reader& r, const std::string& k, YcsbWorkload* w) { return r.OneOf<E>(k, list, &(w->*m)); };
}

using Table = std::map<std::string, Apply, std::less<>>;

void AddRecordProperties(Table* t) {
  using L = YcsbLengthDistribution;
  t->emplace("recordcount", Count(&YcsbWorkload::recordcount));
  t->emplace("operationcount", Count(&YcsbWorkload::operationcount));
  t->emplace("insertstart", Count(&YcsbWorkload::insertstart));
  t->emplace("insertcount", [](Reader& r, const std::string& k, YcsbWorkload* w) {
    uint64_t x = 0;
    if (!r.Unsigned(k, 0, kMaxCount, &x)) return false;
    w->insertcount = x;
    return true;
  });
  t->emplace("table", Text(&YcsbWorkload::table));
  t->emplace("fieldcount", Count32(&YcsbWorkload::fieldcount, 1));
  t->emplace("fieldlength", Count32(&YcsbWorkload::fieldlength, 1));
  t->emplace("minfieldlength", Count32(&YcsbWorkload::minfieldlength, 1));
  t->emplace("fieldlengthdistribution",
             Choice<L>(&YcsbWorkload::fieldlengthdistribution,
                       {{"constant", L::kConstant}, {"uniform", L::kUniform}, {"zipfian", L::kZipfian}}));
  t->emplace("fieldnameprefix", Text(&YcsbWorkload::fieldnameprefix));
  t->emplace("readallfields", Flag(&YcsbWorkload::readallfields));
  t->emplace("readallfieldsbyname", Flag(&YcsbWorkload::readallfieldsbyname));
  t->emplace("writeallfields", Flag(&YcsbWorkload::writeallfields));
  t->emplace("insertorder", Choice<bool>(&YcsbWorkload::orderedinserts, {{"hashed", false}, {"ordered", true}}));
  t->emplace("zeropadding", Count32(&YcsbWorkload::zeropadding, 1));
}

void AddOperationProperties(Table* t) {
  using R = YcsbRequestDistribution;
  using L = YcsbLengthDistribution;
  t->emplace("readproportion", Number(&YcsbWorkload::readproportion, 1));
  t->emplace("updateproportion", Number(&YcsbWorkload::updateproportion, 1));
  t->emplace("insertproportion", Number(&YcsbWorkload::insertproportion, 1));
  t->emplace("scanproportion", Number(&YcsbWorkload::scanproportion, 1));
  t->emplace("readmodifywriteproportion", Number(&YcsbWorkload::readmodifywriteproportion, 1));
  t->emplace("requestdistribution",
             Choice<R>(&YcsbWorkload::requestdistribution,
                       {{"uniform", R::kUniform}, {"zipfian", R::kZipfian}, {"latest", R::kLatest},
                        {"hotspot", R::kHotspot}, {"sequential", R::kSequential}, {"exponential", R::kExponential}}));
  t->emplace("minscanlength", Count32(&YcsbWorkload::minscanlength, 1));
  t->emplace("maxscanlength", Count32(&YcsbWorkload::maxscanlength, 1));
  t->emplace("scanlengthdistribution",
             Choice<L>(&YcsbWorkload::scanlengthdistribution, {{"uniform", L::kUniform}, {"zipfian", L::kZipfian}}));
  t->emplace("hotspotdatafraction", Number(&YcsbWorkload::hotspotdatafraction, 1));
  t->emplace("hotspotopnfraction", Number(&YcsbWorkload::hotspotopnfraction, 1));
  t->emplace("exponential.percentile", Number(&YcsbWorkload::exponential_percentile, 100));
  t->emplace("exponential.frac", Number(&YcsbWorkload::exponential_frac, 1));
}

void AddClientProperties(Table* t) {
  t->emplace("threadcount", Count32(&YcsbWorkload::threadcount, 1));
  t->emplace("target", Number(&YcsbWorkload::target, 1e12));
  t->emplace("maxexecutiontime", Count(&YcsbWorkload::maxexecutiontime_s));
  // The workload class: only the core workload, under either of its package names.
  t->emplace("workload", Choice<bool>(&YcsbWorkload::core, {{"site.ycsb.workloads.CoreWorkload", true},
                                                            {"com.yahoo.ycsb.workloads.CoreWorkload", true}}));
  // YCSB retries a failed insert; storebench counts a failure as an error outcome: only no retries.
  t->emplace("core_workload_insertion_retry_limit", Choice<uint32_t>(&YcsbWorkload::insertion_retry_limit, {{"0", 0}}));
  t->emplace("core_workload_insertion_retry_interval", Count32(&YcsbWorkload::insertion_retry_interval_s, 0));
  // Data integrity checks are not implemented: only false.
  t->emplace("dataintegrity", Choice<bool>(&YcsbWorkload::dataintegrity, {{"false", false}}));
}

// Every property YCSB's core workload and client define, and what storebench does with it.
const Table& Known() {
  static const Table* known = [] {
    auto* t = new Table;
    AddRecordProperties(t);
    AddOperationProperties(t);
    AddClientProperties(t);
    return t;
  }();
  return *known;
}

// YCSB's client and measurement properties, which name its own machinery (the
// binding, the exporters, its histograms): accepted, and said to do nothing here.
bool IsClientOnly(std::string_view key) {
  static constexpr std::string_view kKeys[] = {"db", "exporter", "exportfile", "measurementtype", "measurement.interval",
                                               "histogram.buckets", "hdrhistogram.percentiles", "hdrhistogram.fileoutput",
                                               "hdrhistogram.output.path", "status.interval", "timeseries.granularity",
                                               "measurement.trackjvm", "fieldlengthhistogram"};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

}  // namespace

StatusOr<YcsbWorkload> YcsbWorkloadOf(const YcsbProperties& p) {
  YcsbWorkload w;
  Reader r{p, {}};
  for (const auto& [key, value] : p.values) {
    if (IsClientOnly(key)) continue;
    const auto it = Known().find(key);
    if (it == Known().end())
      return Status::InvalidArgument(fmt::format(
          "unknown YCSB property {} (YCSB would ignore it and run its default; docs/ycsb.md lists the properties)",
          r.Where(key)));
    if (!it->second(r, key, &w)) return Status::InvalidArgument(r.error);
  }
  if (w.minfieldlength > w.fieldlength)
    return Status::InvalidArgument(fmt::format("YCSB properties minfieldlength ({}) > fieldlength ({})",
                                               w.minfieldlength, w.fieldlength));
  if (w.minscanlength > w.maxscanlength)
    return Status::InvalidArgument(fmt::format("YCSB properties minscanlength ({}) > maxscanlength ({})",
                                               w.minscanlength, w.maxscanlength));
  const double sum = w.readproportion + w.updateproportion + w.insertproportion + w.scanproportion +
                     w.readmodifywriteproportion;
  if (sum <= 0)
    return Status::InvalidArgument(
        "YCSB properties: every operation proportion is 0 (readproportion, updateproportion, insertproportion, "
        "scanproportion, readmodifywriteproportion)");
  // As YCSB: insertcount defaults to recordcount − insertstart, and recordcount must hold them both.
  const uint64_t insertcount = w.insertcount.value_or(w.recordcount >= w.insertstart ? w.recordcount - w.insertstart : 0);
  if (w.recordcount < w.insertstart + insertcount || (!w.insertcount && w.insertstart > w.recordcount))
    return Status::InvalidArgument(fmt::format(
        "YCSB properties recordcount ({}) must be at least insertstart ({}) + insertcount ({})", w.recordcount,
        w.insertstart, insertcount));
  w.insertcount = insertcount;
  return w;
}

}  // namespace storebench::workload
