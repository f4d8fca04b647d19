// Loading what `compare` compares: run documents, groups of repeats and
// matrix directories (see compare.h).
#include <algorithm>
#include <cmath>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "storebench/base/units.h"
#include "storebench/driver/interval_rule.h"
#include "storebench/measure/histogram.h"
#include "storebench/report/compare.h"
#include "storebench/base/json_file.h"
#include "storebench/report/hdr_log.h"
#include "storebench/report/run_histograms.h"
#include "storebench/report/result.h"

namespace storebench::report {
namespace {

namespace fs = std::filesystem;

std::string ValueText(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string out;
    for (const auto& e : v) out += (out.empty() ? "" : ";") + ValueText(e);
    return out;
  }
  return v.dump();
}

// config keys → the `run` flag that sets them, so settings, --vary keys and
// warnings all speak the user's language.
nlohmann::json FlattenConfig(const nlohmann::json& config) {
  nlohmann::json out = nlohmann::json::object();
  if (!config.is_object()) return out;
  for (auto it = config.begin(); it != config.end(); ++it) {
    if (it.key() == "backend_options" && it.value().is_object()) {
      for (auto b = it.value().begin(); b != it.value().end(); ++b) out[b.key()] = ValueText(b.value());
      continue;
    }
    std::string flag = it.key() == "classes" ? "class" : it.key();
    std::replace(flag.begin(), flag.end(), '_', '-');
    out[flag] = ValueText(it.value());
  }
  return out;
}

// The bucket's highest equivalent value, clamped to the exact max, is what
// Histogram::ValueAtPercentile reports, so merged percentiles match `run`.
Buckets BucketsOf(const measure::Histogram& h) {
  Buckets out;
  h.ForEachBucket([&](uint64_t, uint64_t hi, uint64_t count) { out.emplace_back(std::min(hi, h.max()), count); });
  return out;
}

// The throughputs of the intervals that count (driver/interval_rule.h) of
// (length_s, ops/s) pairs.
std::vector<double> FullLengthRates(const std::vector<std::pair<double, double>>& intervals) {
  std::vector<double> lengths, out;
  for (const auto& [len, rate] : intervals) lengths.push_back(len), out.push_back(rate);
  out.resize(driver::CountedIntervals(lengths, 0));
  return out;
}

// An HdrHistogram interval log as a run: latency from the merged histograms
// (hdr_log.h says which lines are response and which service, each op once),
// throughput from the response lines' counts per interval.
StatusOr<RunRecord> LoadHlogRun(const std::string& path) {
  auto log = ReadHistogramLogFile(path);
  if (!log.ok()) return log.status();
  std::map<double, std::pair<double, uint64_t>> by_start;  // start -> (length, count)
  double first = 1e300, end = -1e300;
  const ResponseLines response = ResponseLinesOf(*log);
  for (const auto& i : log->intervals) {
    if (!response(i.tag)) continue;
    auto& slot = by_start[i.start_s];
    slot.first = std::max(slot.first, i.length_s);
    slot.second += i.histogram.count();
    first = std::min(first, i.start_s);
    end = std::max(end, i.start_s + i.length_s);
  }
  LatencyPair lat = ResponseAndService(*log);
  RunRecord r;
  r.path = path;
  r.ops_per_sec = end > first ? static_cast<double>(lat.response.count()) / (end - first) : 0;
  std::vector<std::pair<double, double>> rates;
  for (const auto& [start, slot] : by_start)
    if (slot.first > 0) rates.emplace_back(slot.first, static_cast<double>(slot.second) / slot.first);
  r.interval_ops_per_sec = FullLengthRates(rates);
  r.response = BucketsOf(lat.response);
  r.service = BucketsOf(lat.service);
  r.response_p99_ns = static_cast<double>(lat.response.ValueAtPercentile(99));
  r.settings = nlohmann::json::object();
  r.environment = nlohmann::json::object();
  return r;
}

// Common prefix of the files' stems without a trailing rep number, e.g.
// "pread-1.json,pread-2.json" → "pread". A single file keeps its whole stem:
// its digits are what tells "run1.json" from "run2.json".
std::string GroupName(const std::vector<std::string>& paths) {
  if (paths.size() == 1) return fs::path(paths.front()).stem().string();
  std::string prefix = fs::path(paths.front()).stem().string();
  for (const auto& p : paths) {
    std::string stem = fs::path(p).stem().string();
    size_t n = 0;
    while (n < prefix.size() && n < stem.size() && prefix[n] == stem[n]) ++n;
    prefix.resize(n);
  }
  while (!prefix.empty() && (std::isdigit(static_cast<unsigned char>(prefix.back())) || prefix.back() == '-' ||
                             prefix.back() == '_' || prefix.back() == '.'))
    prefix.pop_back();
  return prefix.empty() ? fs::path(paths.front()).stem().string() : prefix;
}

StatusOr<RunGroup> LoadGroup(const std::string& name, const std::vector<std::string>& paths) {
  RunGroup g;
  g.name = name;
  for (const auto& p : paths) {
    auto run = LoadRun(p);
    if (!run.ok()) return run.status();
    g.runs.push_back(std::move(*run));
  }
  return g;
}

Status LoadMatrixDir(const fs::path& dir, CompareInput* input) {
  auto manifest = ReadJsonFile((dir / kMatrixManifest).string());
  if (!manifest.ok()) return manifest.status();
  const nlohmann::json& m = *manifest;
  if (m.value("schema", "") == kSearchDirSchema)
    return Status::InvalidArgument(fmt::format(
        "{}: a search directory, not a matrix: its answer is {}, and each step is a run result to report or compare "
        "(e.g. storebench report {})",
        dir.string(), (dir / "search.json").string(), (dir / "closed-1.json").string()));
  if (m.value("schema", "") != kMatrixSchema || !m.contains("variants") || !m["variants"].is_array())
    return Status::Corruption(fmt::format("{}: not a storebench matrix manifest", (dir / kMatrixManifest).string()));
  for (const auto& v : m.value("vary", nlohmann::json::array()))
    if (v.contains("key")) input->varied_keys.push_back(v["key"].get<std::string>());
  for (const auto& v : m["variants"]) {
    RunGroup g;
    g.name = v.value("name", "");
    for (const auto& f : v.value("files", nlohmann::json::array())) {
      ++g.planned_runs;
      fs::path p = dir / f.get<std::string>();
      // A missing run is one the matrix has not reached yet; compare what exists.
      if (!fs::exists(p)) continue;
      auto run = LoadRun(p.string());
      if (!run.ok()) return run.status();
      g.runs.push_back(std::move(*run));
    }
    input->groups.push_back(std::move(g));
  }
  return Status::Ok();
}

// db_bench's printed report of one benchmark ("readrandom : 16.8 micros/op
// 59523 ops/sec 10.0 seconds 595231 operations; ..." and, with --histogram=1,
// "Percentiles: P50: … P99: …" in microseconds); nullopt when `text` has none.
std::optional<RunRecord> DbBenchReport(const std::string& path, const std::string& text) {
  std::smatch m;
  static const std::regex kLine(R"(\n(\w+)\s*:\s*[\d.]+ micros/op (\d+) ops/sec)");
  if (!std::regex_search(text, m, kLine)) return std::nullopt;
  RunRecord r;
  r.path = path;
  r.producer = "db_bench";
  r.ops_per_sec = std::stod(m[2]);
  static const std::regex kP99(R"(Percentiles: P50: [\d.]+ P75: [\d.]+ P99: ([\d.]+))");
  if (std::regex_search(text, m, kP99)) r.response_p99_ns = std::stod(m[1]) * 1e3;
  r.settings = {{"benchmark", "db_bench"}};
  return r;
}

}  // namespace

StatusOr<Buckets> HistogramBuckets(const nlohmann::json& latency, const std::string& which, const std::string& where) {
  const auto* node = latency.is_object() && latency.contains(which) ? &latency[which] : nullptr;
  if (!node || !(*node).contains("histogram") || !(*node)["histogram"].is_string())
    return Status::Corruption(fmt::format("{}.{}.histogram is missing", where, which));
  auto h = measure::Histogram::Decode((*node)["histogram"].get<std::string>());
  if (!h.ok()) return Status::Corruption(fmt::format("{}.{}.histogram: {}", where, which, h.status().message()));
  return BucketsOf(*h);
}

StatusOr<RunRecord> LoadRun(const std::string& path) {
  if (fs::path(path).extension() == ".hlog") return LoadHlogRun(path);
  if (path.ends_with(".txt")) {
    auto text = ReadTextFile(path);
    if (!text.ok()) return text.status();
    if (auto r = DbBenchReport(path, "\n" + *text)) return *r;
    return Status::Corruption(fmt::format("{}: neither a storebench run result nor a db_bench report", path));
  }
  auto parsed = ReadJsonFile(path);
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& doc = *parsed;
  STOREBENCH_RETURN_IF_ERROR(CheckRunDocument(doc, path));  // the verdict run --job gives too
  RunRecord r;
  r.path = path;
  try {
    r.ops_per_sec = doc.at("throughput").at("ops_per_sec").get<double>();
    const auto& totals = doc.at("totals");
    r.interrupted = totals.value("interrupted", false);
    r.errors = totals.value("errors", uint64_t{0});
    std::vector<std::pair<double, double>> rates;
    for (const auto& i : doc.value("intervals", nlohmann::json::array()))
      rates.emplace_back(i.value("length_s", 0.0), i.at("ops_per_sec").get<double>());
    r.interval_ops_per_sec = FullLengthRates(rates);
    r.response_p99_ns = doc.at("latency").at("response").value("p99_ns", 0.0);
    if (const auto speed = doc.value("/platform/speed/mean"_json_pointer, nlohmann::json()); speed.is_number())
      r.platform_speed = speed.get<double>();
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(fmt::format("{}: malformed run result: {}", path, e.what()));
  }
  // A rate is never negative nor infinite; such a document was edited or broken, and would poison the statistics.
  if (!(r.ops_per_sec >= 0) || !std::isfinite(r.ops_per_sec))
    return Status::Corruption(fmt::format("{}: malformed run result: throughput.ops_per_sec is {}", path, r.ops_per_sec));
  for (double rate : r.interval_ops_per_sec)
    if (!(rate >= 0) || !std::isfinite(rate))
      return Status::Corruption(fmt::format("{}: malformed run result: an interval's ops_per_sec is {}", path, rate));
  auto resp = HistogramBuckets(doc["latency"], "response", path + ": latency");
  if (!resp.ok()) return resp.status();
  auto serv = HistogramBuckets(doc["latency"], "service", path + ": latency");
  if (!serv.ok()) return serv.status();
  r.response = std::move(*resp);
  r.service = std::move(*serv);
  r.settings = FlattenConfig(doc.value("config", nlohmann::json::object()));
  r.environment = doc.value("environment", nlohmann::json::object());
  return r;
}

StatusOr<CompareInput> LoadCompareInput(const std::vector<std::string>& operands) {
  CompareInput input;
  for (const std::string& operand : operands) {
    fs::path p(operand);
    if (fs::is_directory(p)) {
      if (fs::exists(p / kMatrixManifest)) {
        STOREBENCH_RETURN_IF_ERROR(LoadMatrixDir(p, &input));
        continue;
      }
      std::vector<std::string> files;
      for (const auto& e : fs::directory_iterator(p))
        if (e.path().extension() == ".json") files.push_back(e.path().string());
      if (files.empty()) return Status::NotFound(fmt::format("{}: no *.json run results in this directory", operand));
      std::sort(files.begin(), files.end());
      auto g = LoadGroup(p.filename().empty() ? p.parent_path().filename().string() : p.filename().string(), files);
      if (!g.ok()) return g.status();
      input.groups.push_back(std::move(*g));
      continue;
    }
    std::vector<std::string> files;
    if (!fs::exists(p) && operand.find(',') != std::string::npos) {
      for (std::string_view f : Split(operand, ','))
        if (!f.empty()) files.emplace_back(f);
    } else {
      files.push_back(operand);
    }
    auto g = LoadGroup(GroupName(files), files);
    if (!g.ok()) return g.status();
    input.groups.push_back(std::move(*g));
  }
  std::set<std::string> seen;
  for (RunGroup& g : input.groups) {
    std::string base = g.name;
    for (int k = 2; !seen.insert(g.name).second; ++k) g.name = fmt::format("{}#{}", base, k);
  }
  return input;
}

}  // namespace storebench::report
