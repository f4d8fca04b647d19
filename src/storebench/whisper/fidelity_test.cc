// Proof of fidelity against the real whisper.py (python3-whisper, run with
// /usr/bin/python3 through testdata/wsp_helper.py, one interpreter per test):
// identical files after the same operations, each side reading the other's
// files, and a seeded randomized differential test. Set WHISPER_DIFF_SEED to
// replay a seed; a mismatch prints the seed and the first differing operation.
#include <nlohmann/json.hpp>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "storebench/whisper/python_compat.h"
#include "storebench/whisper/python_helper.h"
#include "storebench/whisper/whisper.h"

namespace storebench::whisper {
namespace {

using nlohmann::json;

#define SKIP_WITHOUT_WHISPER_PY()                                                     \
  if (!testing::PythonWhisperAvailable()) GTEST_SKIP() << "/usr/bin/python3 cannot import whisper"

std::string Hex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(ss.str().size() * 2);
  for (unsigned char c : ss.str()) out += kDigits[c >> 4], out += kDigits[c & 15];
  return out;
}

// The first byte offset where two hex dumps differ, for failure messages.
std::string FirstDifference(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return fmt::format("first difference at byte {} (sizes {} and {})", i / 2, a.size() / 2, b.size() / 2);
}

json FetchJson(const std::optional<FetchResult>& r) {
  if (!r) return nullptr;
  json values = json::array();
  for (const auto& v : r->values) values.push_back(v ? json(*v) : json(nullptr));
  return json::array({json::array({r->from, r->until, r->step}), values});
}

// One operation of a differential case, applied to storebench and described for whisper.py.
struct Op {
  json py;           // for wsp_helper.py, without "path"
  std::string text;  // for the failure message
};

Status Apply(const Op& op, const std::string& path, const IoOptions& io) {
  const json& j = op.py;
  const std::string kind = j["op"];
  if (kind == "update_many") {
    std::vector<TimedValue> pts;
    for (const json& p : j["points"]) pts.push_back({p[0].get<int64_t>(), p[1].get<double>()});
    return UpdateMany(path, pts, j["now"], io);
  }
  if (kind == "update") return Update(path, j["value"], j["timestamp"].get<int64_t>(), j["now"], io);
  StatusOr<AggregationSetting> s = SetAggregation(path, *ParseAggregation(j["agg"].get<std::string>()),
                                                  j["xff"].get<double>(), io);
  return s.status();
}

struct FidelityCase {
  std::vector<ArchiveSpec> archives;
  std::string agg;
  double xff = 0.5;
  bool sparse = false;
  std::vector<Op> ops;
  std::vector<std::array<int64_t, 3>> fetches;  // from, until, now
};

const char* kAggs[] = {"average", "sum", "last", "max", "min", "avg_zero", "absmax", "absmin"};

FidelityCase RandomCase(std::mt19937_64& rng) {
  auto uni = [&rng](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  FidelityCase c;
  const int count = static_cast<int>(uni(1, 4));
  const uint32_t base_steps[] = {1, 5, 10, 60};
  ArchiveSpec a{base_steps[uni(0, 3)], static_cast<uint32_t>(uni(2, 40))};
  c.archives.push_back(a);
  for (int i = 1; i < count; ++i) {
    const auto k = static_cast<uint32_t>(uni(2, std::min<int64_t>(6, a.points)));
    ArchiveSpec next{a.seconds_per_point * k, 0};
    next.points = static_cast<uint32_t>(uint64_t{a.seconds_per_point} * a.points / next.seconds_per_point + uni(1, 20));
    c.archives.push_back(next);
    a = next;
  }
  c.agg = kAggs[uni(0, 7)];
  const double xffs[] = {0, 0.1, 0.25, 0.5, 0.7, 1.0, std::uniform_real_distribution<double>(0, 1)(rng)};
  c.xff = xffs[uni(0, 6)];
  c.sparse = uni(0, 1) == 1;
  const int64_t step = c.archives.front().seconds_per_point;
  const int64_t max_ret = static_cast<int64_t>(uint64_t{c.archives.back().seconds_per_point} * c.archives.back().points);
  int64_t now = 1600000000 + uni(0, 1000000);
  auto value = [&] { return uni(0, 3) == 0 ? static_cast<double>(uni(-5, 5)) : std::uniform_real_distribution<double>(-100, 100)(rng); };
  const int n_ops = static_cast<int>(uni(4, 12));
  for (int i = 0; i < n_ops; ++i) {
    if (uni(0, 2) > 0) now += uni(0, std::max<int64_t>(1, max_ret / 3));
    const int64_t kind = uni(0, 19);
    Op op;
    if (kind < 16) {
      json pts = json::array();
      const int pattern = static_cast<int>(uni(0, 3));
      const int n = static_cast<int>(uni(1, 30));
      int64_t t = now - uni(0, max_ret);
      for (int j = 0; j < n; ++j) {
        if (pattern == 0) {
          t += step;  // a contiguous run: wraps when it crosses the archive end
        } else if (pattern == 1) {
          t = now - uni(-2 * step, max_ret * 13 / 10);  // anywhere, some too old, a few in the future
        } else if (pattern == 2 && j > 0 && uni(0, 1) == 0) {
          // a duplicate timestamp or another one in the same interval
        } else {
          t = now - uni(0, max_ret);
        }
        pts.push_back(json::array({pattern == 2 && uni(0, 1) == 0 ? t - uni(0, step - 1) : t, value()}));
      }
      op.py = {{"op", "update_many"}, {"points", pts}, {"now", now}};
      op.text = fmt::format("update_many(now={}, points={})", now, pts.dump());
    } else if (kind < 19) {
      const int64_t t = now - uni(-step, max_ret * 11 / 10);
      const double v = value();
      op.py = {{"op", "update"}, {"timestamp", t}, {"value", v}, {"now", now}};
      op.text = fmt::format("update(now={}, timestamp={}, value={})", now, t, v);
    } else {
      const std::string agg = kAggs[uni(0, 7)];
      const double xff = static_cast<double>(uni(0, 4)) / 4;
      op.py = {{"op", "set_aggregation"}, {"agg", agg}, {"xff", xff}};
      op.text = fmt::format("set_aggregation({}, {})", agg, xff);
    }
    c.ops.push_back(op);
  }
  for (int i = 0; i < 3; ++i) {
    const int64_t from = now - uni(0, max_ret * 12 / 10);
    c.fetches.push_back({from, from + uni(0, max_ret / 2), now});
  }
  return c;
}

std::string Describe(const FidelityCase& c) {
  std::string archives;
  for (const ArchiveSpec& a : c.archives) archives += fmt::format("{}:{} ", a.seconds_per_point, a.points);
  return fmt::format("archives {}agg {} xff {} sparse {}", archives, c.agg, c.xff, c.sparse);
}

json CreateOp(const FidelityCase& c, const std::string& path) {
  json archives = json::array();
  for (const ArchiveSpec& a : c.archives) archives.push_back({a.seconds_per_point, a.points});
  return {{"op", "create"}, {"path", path}, {"archives", archives}, {"xff", c.xff}, {"agg", c.agg},
          {"sparse", c.sparse}, {"read_back", true}};
}

Status CreateLike(const FidelityCase& c, const std::string& path, const IoOptions& io) {
  CreateOptions o;
  o.aggregation = *ParseAggregation(c.agg);
  o.x_files_factor = c.xff;
  o.allocation = c.sparse ? Allocation::kSparse : Allocation::kZeroFill;
  return Create(path, c.archives, o, io);
}

// Runs `cases` through both implementations (storebench with I/O mode `mode`)
// and compares after every operation.
void RunDifferential(const std::vector<FidelityCase>& cases, uint64_t seed, IoMode mode) {
  IoOptions io;
  io.mode = mode;
  const std::string dir = testing::MakeTempDir();
  json py_ops = json::array();
  std::vector<std::vector<std::string>> ours(cases.size());
  std::vector<std::vector<std::string>> our_status(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const FidelityCase& c = cases[i];
    const std::string sb = fmt::format("{}/sb{}.wsp", dir, i), py = fmt::format("{}/py{}.wsp", dir, i);
    ASSERT_TRUE(CreateLike(c, sb, io).ok());
    ours[i].push_back(Hex(sb));
    py_ops.push_back(CreateOp(c, py));
    for (const Op& op : c.ops) {
      Status st = Apply(op, sb, io);
      our_status[i].push_back(st.ok() ? "" : st.message());
      ours[i].push_back(Hex(sb));
      json j = op.py;
      j["path"] = py;
      j["read_back"] = true;
      py_ops.push_back(j);
    }
    for (const auto& [from, until, now] : c.fetches) {
      py_ops.push_back({{"op", "fetch"}, {"path", sb}, {"from", from}, {"until", until}, {"now", now}});
    }
  }
  json results = testing::RunWhisperPy(py_ops);
  ASSERT_EQ(results.size(), py_ops.size());
  size_t at = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const FidelityCase& c = cases[i];
    const std::string py = fmt::format("{}/py{}.wsp", dir, i);
    for (size_t k = 0; k < ours[i].size(); ++k, ++at) {
      if (results[at].is_string() && results[at] == ours[i][k]) continue;
      // A refused update leaves no bytes behind in either implementation.
      if (k > 0 && !our_status[i][k - 1].empty() && results[at] == "not covered") continue;
      ADD_FAILURE() << IoModeName(mode) << " seed " << seed << " case " << i << " (" << Describe(c) << "): "
                    << (k == 0 ? std::string("create") : "operation " + std::to_string(k - 1) + " " + c.ops[k - 1].text)
                    << " leaves different files: "
                    << (results[at].is_string() ? FirstDifference(ours[i][k], results[at]) : results[at].dump())
                    << (k > 0 && !our_status[i][k - 1].empty() ? " (storebench: " + our_status[i][k - 1] + ")" : "");
      return;
    }
    for (const auto& [from, until, now] : c.fetches) {
      StatusOr<std::optional<FetchResult>> r = Fetch(py, from, until, now, io);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(FetchJson(*r), results[at++])
          << IoModeName(mode) << " seed " << seed << " case " << i << " (" << Describe(c) << "): fetch(" << from << ", " << until
          << ", now=" << now << ") differs between storebench on whisper.py's file and whisper.py on storebench's";
    }
  }
}

uint64_t SeedFromEnv(uint64_t fallback) {
  const char* s = std::getenv("WHISPER_DIFF_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 10) : fallback;
}

// Every differential test runs for the I/O modes that reorganize whisper.py's I/O
// (the Python modes issue whisper.py's own calls; file_test.cc checks their files).
class FidelityByModeTest : public ::testing::TestWithParam<IoMode> {};

INSTANTIATE_TEST_SUITE_P(Modes, FidelityByModeTest, ::testing::Values(IoMode::kExact, IoMode::kMinimal),
                         [](const ::testing::TestParamInfo<IoMode>& p) {
                           return std::string(IoModeName(p.param));
                         });

TEST_P(FidelityByModeTest, RandomizedDifferential) {
  SKIP_WITHOUT_WHISPER_PY();
  const uint64_t seed = SeedFromEnv(20240501);
  std::cout << "whisper differential seed " << seed << " (replay with WHISPER_DIFF_SEED=" << seed << ")\n";
  std::mt19937_64 rng(seed);
  std::vector<FidelityCase> cases;
  for (int i = 0; i < 250; ++i) cases.push_back(RandomCase(rng));
  RunDifferential(cases, seed, GetParam());
}

TEST_P(FidelityByModeTest, IdenticalFilesForACarbonLikeSchema) {
  SKIP_WITHOUT_WHISPER_PY();
  FidelityCase c;
  c.archives = *ParseRetentionList("60s:1d,5m:30d,1h:5y");
  c.agg = "average";
  int64_t now = 1700000000;
  for (int flush = 0; flush < 12; ++flush, now += 600) {
    json pts = json::array();
    for (int i = 0; i < 10; ++i) pts.push_back(json::array({now - 60 * i, flush * 10 + i}));
    c.ops.push_back({{{"op", "update_many"}, {"points", pts}, {"now", now}}, fmt::format("flush {}", flush)});
  }
  c.fetches = {{{now - 3600, now, now}}, {{now - 40 * 86400, now, now}}, {{now - 86400, now - 3600, now}}};
  RunDifferential({c}, 0, GetParam());
}

TEST(FidelityTest, SetIterationOrderMatchesCPython) {
  SKIP_WITHOUT_WHISPER_PY();
  std::mt19937_64 rng(7);
  json ops = json::array();
  std::vector<std::vector<int64_t>> inputs;
  for (int i = 0; i < 200; ++i) {
    std::vector<int64_t> v;
    const int n = std::uniform_int_distribution<int>(1, 120)(rng);
    const int64_t base = 1600000000 + std::uniform_int_distribution<int64_t>(0, 100000)(rng);
    const int64_t step = std::uniform_int_distribution<int64_t>(1, 7200)(rng);
    for (int j = 0; j < n; ++j) v.push_back(base + step * std::uniform_int_distribution<int64_t>(0, 200)(rng));
    inputs.push_back(v);
    ops.push_back({{"op", "set_order"}, {"values", v}});
  }
  json results = testing::RunWhisperPy(ops);
  ASSERT_EQ(results.size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(json(CPythonSetOrder(inputs[i])), results[i]) << i;
}

TEST(FidelityTest, FloatReprAndRetentionParsingMatchPython) {
  SKIP_WITHOUT_WHISPER_PY();
  std::vector<double> values = {0.5, 0.1, 1e-7, 123456789.125, 1e22, -2.5e-5, 1.0 / 3, static_cast<double>(0.3f)};
  std::vector<std::string> defs = {"60:1440", "60s:1d", "5min:30d", "1h:5y", "1w:2y", "60", "60x:1", "a:1", "60:1.5"};
  std::vector<std::vector<std::array<uint32_t, 2>>> lists = {
      {{60, 1440}, {300, 100}}, {{60, 10}, {60, 20}}, {{60, 100}, {90, 100}}, {{60, 100}, {120, 50}},
      {{60, 1}, {120, 100}}, {}};
  json ops = json::array();
  ops.push_back({{"op", "repr"}, {"values", values}});
  for (const std::string& d : defs) ops.push_back({{"op", "parse_retention"}, {"text", d}});
  for (const auto& l : lists) ops.push_back({{"op", "validate"}, {"archives", l}});
  json results = testing::RunWhisperPy(ops);
  ASSERT_EQ(results.size(), ops.size());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(PyFloatRepr(values[i]), results[0][i]);
  for (size_t i = 0; i < defs.size(); ++i) {
    StatusOr<ArchiveSpec> a = ParseRetentionDef(defs[i]);
    json ours = a.ok() ? json::array({a->seconds_per_point, a->points}) : json("error: " + a.status().message());
    EXPECT_EQ(ours, results[1 + i]) << defs[i];
  }
  for (size_t i = 0; i < lists.size(); ++i) {
    std::vector<ArchiveSpec> specs;
    for (const auto& a : lists[i]) specs.push_back({a[0], a[1]});
    Status st = ValidateArchiveList(specs);
    EXPECT_EQ(st.ok() ? "ok" : st.message(), results[1 + defs.size() + i]) << i;
  }
}

}  // namespace
}  // namespace storebench::whisper
