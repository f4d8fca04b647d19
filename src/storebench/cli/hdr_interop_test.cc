// storebench's HdrHistogram formats against HdrHistogram's own Java library
// (Debian's libhdrhistogram-java): a .hlog written by storebench is read by
// HistogramLogReader with the same count and percentiles, and its .hgrm is the
// text outputPercentileDistribution prints; a .hlog written by Java's
// HistogramLogWriter is read by `storebench report` and `compare` with the
// same figures; HistogramLogProcessor reads storebench's logs with no options.
// Skips visibly without java/javac or the library.
#include "storebench/testing/binary_test_fixture.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

namespace storebench::cli {
namespace {

namespace fs = std::filesystem;
using storebench::testing::Outcome;
using storebench::testing::Slurp;

struct Figures {
  std::string tag;
  uint64_t count = 0, p50 = 0, p99 = 0, p999 = 0, max = 0;
};

// Relative precision of a 3-digit histogram: one bucket is at most 1/1024 of its value.
void ExpectWithinPrecision(double a, double b, const char* what) {
  EXPECT_NEAR(a, b, std::max(a, b) / 1024.0 + 1) << what;
}

class Interop : public storebench::testing::BinaryTest {
 protected:
  void SetUp() override {
    BinaryTest::SetUp();
    for (const char* tool : {"java", "javac"})
      if (std::system((std::string("command -v ") + tool + " > /dev/null 2>&1").c_str()) != 0)
        GTEST_SKIP() << tool << " is missing (scripts/setup.sh installs default-jdk-headless)";
    for (const char* jar : {"/usr/share/java/HdrHistogram.jar", "/usr/share/java/hdrhistogram.jar"})
      if (fs::exists(jar)) jar_ = jar;
    if (jar_.empty()) GTEST_SKIP() << "HdrHistogram's Java library is missing (apt-get install libhdrhistogram-java)";
    const char* src = std::getenv("STOREBENCH_SOURCE_DIR");
    ASSERT_NE(src, nullptr) << "STOREBENCH_SOURCE_DIR is set by CTest";
    std::string cmd = "javac -d " + (dir_ / "classes").string() + " -cp " + jar_ + " " + src +
                      "/src/storebench/report/interop/HlogFigures.java 2> " + (dir_ / "javac.err").string();
    ASSERT_EQ(std::system(cmd.c_str()), 0) << Slurp(dir_ / "javac.err");
  }

  std::vector<Figures> Java(const std::string& args) {
    std::string cmd = "java -cp " + (dir_ / "classes").string() + ":" + jar_ + " HlogFigures " + args + " > " +
                      (dir_ / "java.out").string() + " 2> " + (dir_ / "java.err").string();
    EXPECT_EQ(std::system(cmd.c_str()), 0) << Slurp(dir_ / "java.err");
    std::vector<Figures> out;
    std::istringstream in(Slurp(dir_ / "java.out"));
    Figures f;
    while (in >> f.tag >> f.count >> f.p50 >> f.p99 >> f.p999 >> f.max) out.push_back(f);
    return out;
  }

  // HdrHistogram's own HistogramLogProcessor on `hlog` (extra arguments
  // such as "-tag op"); returns the .hgrm it writes beside its interval table.
  std::string Processor(const fs::path& hlog, const std::string& extra, const std::string& name) {
    const fs::path out = dir_ / name;
    std::string cmd = "java -cp " + jar_ + " org.HdrHistogram.HistogramLogProcessor -i " + hlog.string() + " -o " +
                      out.string() + " " + extra + " > " + (dir_ / "proc.out").string() + " 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << Slurp(dir_ / "proc.out");
    EXPECT_TRUE(fs::exists(out)) << "the interval table";
    return Slurp(out.string() + ".hgrm");
  }

  std::string jar_;
};

// The .hgrm footer's "Total count".
uint64_t HgrmTotal(const std::string& hgrm) {
  std::smatch m;
  static const std::regex total(R"(Total count += +(\d+)\])");
  return std::regex_search(hgrm, m, total) ? std::stoull(m[1]) : 0;
}

// The .hgrm's value at the first row at or above `percentile` (0..1), in the file's unit.
double HgrmValueAt(const std::string& hgrm, double percentile) {
  std::istringstream in(hgrm);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    double value, p;
    if (line.empty() || line[0] == '#' || !(row >> value >> p)) continue;
    if (p >= percentile) return value;
  }
  return -1;
}

// The .hgrm's rows and totals: without the two lines HistogramLogProcessor
// puts first (the time range, StartTime) and the "#[Buckets" line (it sums
// into an auto-resizing histogram, so that count is its own, not the log's).
std::string RowsAndTotals(const std::string& hgrm) {
  return std::regex_replace(hgrm, std::regex(R"(#\[(Overall percentile|StartTime|Buckets)[^\n]*\n)"), "");
}

TEST_F(Interop, JavaReadsStorebenchsLogWithTheSameFigures) {
  fs::path run = dir_ / "a.json";
  // 10,000 ops: p99.9 is the 9,990th, a rank a floating-point ceil(p/100*n) puts one higher.
  Outcome o = Run("run --backend null --ops 10000 --threads 1 --service-time spin:1us --quiet --json " + run.string());
  ASSERT_EQ(o.code, 0) << o.err;
  o = Run("report --hlog " + (dir_ / "a.hlog").string() + " --hgrm " + (dir_ / "a.hgrm").string() + " " + run.string());
  ASSERT_EQ(o.code, 0) << o.err;
  std::vector<Figures> java = Java("read " + (dir_ / "a.hlog").string() + " " + (dir_ / "java.hgrm").string());
  auto doc = nlohmann::json::parse(Slurp(run));
  ASSERT_EQ(java.size(), 3u) << Slurp(dir_ / "java.out");  // untagged (every op), op and op.service
  EXPECT_EQ(java[0].tag, "-");
  ASSERT_EQ(doc["latency"]["response"]["count"].get<uint64_t>(), 10000u);
  for (const Figures& f : java) {
    const auto& lat = doc["latency"][f.tag == "op.service" ? "service" : "response"];
    EXPECT_EQ(f.count, lat["count"].get<uint64_t>()) << f.tag;
    // The same ranks and buckets: HdrHistogram's value, which is a bucket's
    // highest equivalent, clamped to the exact maximum storebench knows.
    const auto max_ns = lat["max_ns"].get<uint64_t>();
    EXPECT_EQ(std::min(f.p50, max_ns), lat["p50_ns"].get<uint64_t>()) << f.tag << " p50";
    EXPECT_EQ(std::min(f.p99, max_ns), lat["p99_ns"].get<uint64_t>()) << f.tag << " p99";
    EXPECT_EQ(std::min(f.p999, max_ns), lat["p999_ns"].get<uint64_t>()) << f.tag << " p99.9";
    ExpectWithinPrecision(static_cast<double>(f.max), lat["max_ns"].get<double>(), "max");
  }
  // The percentile distribution is HdrHistogram's own text, byte for byte.
  EXPECT_EQ(Slurp(dir_ / "a.hgrm"), Slurp(dir_ / "java.hgrm"));
}

// HdrHistogram's HistogramLogProcessor, as wrk2 and YCSB users run it, on
// `run --hlog`: with no -tag it reads the untagged lines, which are the run's
// response time of every op; -tag KIND and -tag KIND.service give a kind's.
// Counts are exact and every percentile row is storebench's own .hgrm.
TEST_F(Interop, HistogramLogProcessorReadsARunsLogWithNoOptions) {
  const fs::path run = dir_ / "p.json", hlog = dir_ / "p.hlog";
  Outcome o = Run("run --backend null --duration 600ms --interval 100ms --service-time spin:1us --quiet --json " +
                  run.string() + " --hlog " + hlog.string());
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(Slurp(run));
  const uint64_t ops = doc["totals"]["ops"].get<uint64_t>();
  ASSERT_GT(ops, 0u);

  // With no options (the processor's default unit, ms) the count is the run's.
  EXPECT_EQ(HgrmTotal(Processor(hlog, "", "default")), ops);
  // In nanoseconds every row is storebench's own .hgrm of the run's response time.
  const std::string all = Processor(hlog, "-outputValueUnitRatio 1", "all");
  EXPECT_EQ(HgrmTotal(all), ops) << all;
  EXPECT_EQ(HgrmTotal(all), doc["latency"]["response"]["count"].get<uint64_t>());
  o = Run("report --hgrm " + (dir_ / "s.hgrm").string() + " --hgrm-unit ns " + run.string());
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(RowsAndTotals(all), RowsAndTotals(Slurp(dir_ / "s.hgrm")));
  // The iterator's rows land exactly on 50% and 90% (higher rows on its own levels, 99.06%, …).
  for (auto [p, key] : {std::pair{0.5, "p50_ns"}, {0.9, "p90_ns"}})
    ExpectWithinPrecision(HgrmValueAt(all, p), doc["latency"]["response"][key].get<double>(), key);

  const std::string op = Processor(hlog, "-tag op -outputValueUnitRatio 1", "op");
  EXPECT_EQ(HgrmTotal(op), doc["kinds"]["op"]["ops"].get<uint64_t>()) << op;
  const std::string service = Processor(hlog, "-tag op.service -outputValueUnitRatio 1", "service");
  EXPECT_EQ(HgrmTotal(service), ops) << service;
  ExpectWithinPrecision(HgrmValueAt(service, 0.9), doc["latency"]["service"]["p90_ns"].get<double>(),
                        "service p90");

  // storebench reads its own log back with every op once.
  o = Run("report --hgrm " + (dir_ / "back.hgrm").string() + " " + hlog.string());
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(HgrmTotal(Slurp(dir_ / "back.hgrm")), ops);
}

TEST_F(Interop, StorebenchReadsJavasLogWithTheSameFigures) {
  std::vector<Figures> java = Java("write " + (dir_ / "j.hlog").string());
  ASSERT_EQ(java.size(), 1u);
  const Figures& f = java[0];
  EXPECT_EQ(f.count, 100000u);

  Outcome o = Run("report --hgrm " + (dir_ / "s.hgrm").string() + " " + (dir_ / "j.hlog").string());
  ASSERT_EQ(o.code, 0) << o.err;
  Java("read " + (dir_ / "j.hlog").string() + " " + (dir_ / "java.hgrm").string());
  EXPECT_EQ(Slurp(dir_ / "s.hgrm"), Slurp(dir_ / "java.hgrm"));

  // compare refuses one file given twice: the second side is a copy.
  fs::copy_file(dir_ / "j.hlog", dir_ / "k.hlog");
  o = Run("compare " + (dir_ / "j.hlog").string() + " " + (dir_ / "k.hlog").string() + " --json " +
          (dir_ / "c.json").string());
  ASSERT_EQ(o.code, 0) << o.err;
  auto cmp = nlohmann::json::parse(Slurp(dir_ / "c.json"));
  // 100000 values over five 1-second intervals.
  EXPECT_NEAR(cmp["groups"][0]["ops_per_sec"]["median"].get<double>(), 20000.0, 1e-6);
  const auto& lat = cmp["comparisons"][0]["latency"];
  ExpectWithinPrecision(lat["p50"]["baseline_ns"].get<double>(), static_cast<double>(f.p50), "p50");
  ExpectWithinPrecision(lat["p99"]["baseline_ns"].get<double>(), static_cast<double>(f.p99), "p99");
  ExpectWithinPrecision(lat["p99.9"]["baseline_ns"].get<double>(), static_cast<double>(f.p999), "p99.9");

  if (fs::exists("/usr/share/javascript/chart.js/chart.min.js")) {
    o = Run("report " + (dir_ / "j.hlog").string() + " -o " + (dir_ / "j.html").string());
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_NE(Slurp(dir_ / "j.html").find("tags get: 100000 values"), std::string::npos);
  }
}

}  // namespace
}  // namespace storebench::cli
