// End-to-end tests of `storebench report` without a browser: the HTML page
// inlines everything (no network at view time), a missing Chart.js is named
// with its package, --hlog/--hgrm write HdrHistogram's formats from a run
// JSON, and compare reads .hlog files. (Drawing: browser_test; agreement with
// HdrHistogram's Java library: hdr_interop_test.)
#include "storebench/testing/binary_test_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

namespace storebench::cli {
namespace {

namespace fs = std::filesystem;
using storebench::testing::Outcome;
using storebench::testing::Slurp;

class Report : public storebench::testing::BinaryTest {
 protected:
  fs::path NullRun(const std::string& name, const std::string& extra = "") {
    fs::path p = dir_ / name;
    Outcome o = Run("run --backend null --duration 300ms --interval 100ms --quiet --json " + p.string() + " " + extra);
    EXPECT_EQ(o.code, 0) << o.err;
    return p;
  }
  bool HaveChartJs() { return fs::exists("/usr/share/javascript/chart.js/chart.min.js"); }
};

TEST_F(Report, OneRunMakesASelfContainedPage) {
  if (!HaveChartJs()) GTEST_SKIP() << "libjs-chart.js is not installed (scripts/setup.sh installs it)";
  fs::path run = NullRun("a.json");
  Outcome o = Run("report " + run.string() + " -o " + (dir_ / "a.html").string());
  ASSERT_EQ(o.code, 0) << o.err;
  std::string html = Slurp(dir_ / "a.html");
  EXPECT_NE(html.find("Chart.js v3"), std::string::npos) << "Chart.js is inlined";
  EXPECT_NE(html.find("id=\"sb-data\""), std::string::npos);
  // Nothing is fetched when the page opens: no external script, style or image.
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(<(script|link|img)[^>]+(src|href)=)")));
  // The data carries the run's figures: its throughput and the exact job.
  auto doc = nlohmann::json::parse(Slurp(run));
  std::string data = html.substr(html.find("id=\"sb-data\">") + 13);
  auto model = nlohmann::json::parse(data.substr(0, data.find("</script>")));
  const auto& r = model["series"][0]["runs"][0];
  EXPECT_DOUBLE_EQ(r["phases"][0]["ops_per_sec"].get<double>(), doc["throughput"]["ops_per_sec"].get<double>());
  // Every interval is drawn but a last one cut short by the end of the run.
  EXPECT_EQ(r["phases"][0]["t"].size() + r["phases"][0]["short_intervals_left_out"].get<size_t>(),
            doc["intervals"].size());
  EXPECT_LE(r["phases"][0]["short_intervals_left_out"].get<size_t>(), 1u);
  EXPECT_NE(r["command_line"].get<std::string>().find("--backend null"), std::string::npos);
  EXPECT_NE(model["summary"].get<std::string>().find("ops/s"), std::string::npos);
}

TEST_F(Report, MissingChartJsIsNamedWithItsPackage) {
  fs::path run = NullRun("a.json");
  Outcome o = Run("report --chart-js /nonexistent/chart.min.js " + run.string() + " -o " + (dir_ / "a.html").string());
  EXPECT_EQ(o.code, 2);  // a flag naming a file that is not there: bad input
  EXPECT_EQ(o.err.rfind("storebench: --chart-js: cannot read '/nonexistent/chart.min.js'", 0), 0u) << o.err;
  EXPECT_NE(o.err.find("libjs-chart.js"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "a.html"));
}

TEST_F(Report, BadInputExitsTwoNamingTheFile) {
  std::ofstream(dir_ / "junk.json") << "{\"schema\": \"other\"}";
  Outcome o = Run("report " + (dir_ / "junk.json").string() + " -o " + (dir_ / "a.html").string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("junk.json"), std::string::npos) << o.err;
  o = Run("report --hgrm x.hgrm --hgrm-unit parsecs " + (dir_ / "junk.json").string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--hgrm-unit"), std::string::npos) << o.err;
}

TEST_F(Report, HlogAndHgrmFromARunCarryItsCounts) {
  fs::path run = NullRun("a.json");
  Outcome o = Run("report --hlog " + (dir_ / "a.hlog").string() + " --hgrm " + (dir_ / "a.hgrm").string() + " " +
                  run.string());
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "report.html"));
  auto doc = nlohmann::json::parse(Slurp(run));
  std::string hlog = Slurp(dir_ / "a.hlog"), hgrm = Slurp(dir_ / "a.hgrm");
  // The untagged line (every op: what HdrHistogram's tools read by default) comes first.
  EXPECT_NE(hlog.find("_Histogram\"\n0.000,"), std::string::npos) << hlog;
  EXPECT_NE(hlog.find("\nTag=op,0.000,"), std::string::npos) << hlog;
  EXPECT_NE(hlog.find("\nTag=op.service,0.000,"), std::string::npos) << hlog;
  uint64_t count = doc["latency"]["response"]["count"].get<uint64_t>();
  EXPECT_NE(hgrm.find(fmt::format("Total count    = {:>12}]", count)), std::string::npos) << hgrm;
  EXPECT_EQ(hgrm.rfind("       Value     Percentile TotalCount 1/(1-Percentile)\n\n", 0), 0u);

  // compare reads the log back: the same p99 as the run document, within the histogram's precision.
  o = Run("compare " + (dir_ / "a.hlog").string() + " " + run.string() + " --json " + (dir_ / "c.json").string());
  ASSERT_EQ(o.code, 0) << o.err;
  auto cmp = nlohmann::json::parse(Slurp(dir_ / "c.json"));
  double from_log = cmp["comparisons"][0]["latency"]["p99"]["baseline_ns"].get<double>();
  double from_json = doc["latency"]["response"]["p99_ns"].get<double>();
  EXPECT_NEAR(from_log, from_json, from_json / 1024.0 + 1);
}

// A run that went wrong says so at the top of its page, in one sentence with
// its numbers; a run that did not says nothing there.
TEST_F(Report, VerdictSentenceNamesWhatWentWrongWithItsNumbers) {
  if (!HaveChartJs()) GTEST_SKIP() << "libjs-chart.js is not installed (scripts/setup.sh installs it)";
  fs::path run = NullRun("a.json");
  ASSERT_EQ(Run("report " + run.string() + " -o " + (dir_ / "ok.html").string()).code, 0);
  EXPECT_EQ(Slurp(dir_ / "ok.html").find("id=\"sb-verdict\""), std::string::npos);
  auto doc = nlohmann::json::parse(Slurp(run));
  doc["schedule"]["open_loop"] = true;
  doc["schedule"]["sustained"] = false;
  doc["schedule"]["offered_ops_per_sec"] = 50000.0;
  doc["schedule"]["achieved_ops_per_sec"] = 23242.0;
  doc["schedule"]["achieved_fraction"] = 23242.0 / 50000.0;
  doc["schedule"]["end_backlog_ops"] = 80750;
  doc["totals"]["interrupted"] = true;
  doc["totals"]["ops"] = 186000;
  doc["totals"]["errors"] = 12;
  doc["totals"]["elapsed_s"] = 3.2;
  doc["config"]["duration"] = "8s";
  std::ofstream(dir_ / "bad.json") << doc.dump();
  Outcome o = Run("report " + (dir_ / "bad.json").string() + " -o " + (dir_ / "bad.html").string());
  ASSERT_EQ(o.code, 0) << o.err;
  std::string html = Slurp(dir_ / "bad.html");
  EXPECT_NE(html.find("<p class=\"verdict\" id=\"sb-verdict\">This run did not keep up with its offered rate "
                      "(offered 50,000 ops/s, achieved 23,242 ops/s, 46%; 80,750 arrivals still waiting at the end), "
                      "was interrupted (after 3.2 s of 8s; the figures cover the 186,000 ops measured before the stop) "
                      "and had errors (12 of 186,000 ops failed, 0.0065%).</p>"),
            std::string::npos)
      << html.substr(html.find("<header>"), 800);
}

TEST_F(Report, HlogInputIsDrawnTagByTag) {
  if (!HaveChartJs()) GTEST_SKIP() << "libjs-chart.js is not installed (scripts/setup.sh installs it)";
  fs::path run = NullRun("a.json");
  ASSERT_EQ(Run("report --hlog " + (dir_ / "a.hlog").string() + " " + run.string()).code, 0);
  Outcome o = Run("report " + (dir_ / "a.hlog").string() + " -o " + (dir_ / "h.html").string());
  ASSERT_EQ(o.code, 0) << o.err;
  std::string html = Slurp(dir_ / "h.html");
  EXPECT_NE(html.find("\"label\":\"op.service\""), std::string::npos);
  EXPECT_NE(html.find("HdrHistogram log: 1 intervals, tags (untagged), op, op.service"), std::string::npos);
  // Every op once: the untagged line, not it and its breakdowns.
  auto doc = nlohmann::json::parse(Slurp(run));
  EXPECT_NE(html.find(fmt::format("op.service: {} values", doc["totals"]["ops"].get<uint64_t>())), std::string::npos);
}

// One rule decides which intervals count (driver/interval_rule.h): the run's
// JSON and CSV, the HTML page and compare show the same ones. A run whose
// length is not a whole number of intervals has its remainder folded into
// the last interval when under half of one (1.2 s at 500 ms: 0.5 + 0.7 s);
// a file that still ends in a short interval (an older version's) has it left
// out by the page and by compare alike.
TEST_F(Report, EveryOutputCountsTheSameIntervals) {
  if (!HaveChartJs()) GTEST_SKIP() << "libjs-chart.js is not installed (scripts/setup.sh installs it)";
  auto html_intervals = [&](const fs::path& run) {
    const fs::path page = dir_ / (run.stem().string() + ".html");
    Outcome o = Run("report " + run.string() + " -o " + page.string());
    EXPECT_EQ(o.code, 0) << o.err;
    std::string data = Slurp(page);
    data = data.substr(data.find("id=\"sb-data\">") + 13);
    return nlohmann::json::parse(data.substr(0, data.find("</script>")))["series"][0]["runs"][0]["phases"][0]["t"].size();
  };
  auto compare_intervals = [&](const fs::path& run, const fs::path& other) {
    Outcome o = Run("compare " + run.string() + " " + other.string() + " --json " + (dir_ / "cmp.json").string());
    EXPECT_EQ(o.code, 0) << o.err;
    return nlohmann::json::parse(Slurp(dir_ / "cmp.json"))["comparisons"][0]["throughput"]["n_baseline"].get<size_t>();
  };
  for (const auto& [duration, want] : {std::pair{"1200ms", 2u}, std::pair{"1300ms", 3u}}) {
    SCOPED_TRACE(duration);
    const fs::path run = dir_ / "r.json", csv = dir_ / "r.csv", other = dir_ / "o.json";
    Outcome o = Run(fmt::format("run --backend null --duration {} --warmup 0s --interval 500ms --quiet --json {} --csv {}",
                                duration, run.string(), csv.string()));
    ASSERT_EQ(o.code, 0) << o.err;
    ASSERT_EQ(Run("run --backend null --duration 600ms --interval 200ms --quiet --json " + other.string()).code, 0);
    const auto doc = nlohmann::json::parse(Slurp(run));
    const size_t n = doc["intervals"].size();
    EXPECT_EQ(n, want);  // 0.5 + 0.7 s; 0.5 + 0.5 + 0.3 s
    for (const auto& i : doc["intervals"]) EXPECT_GE(i["length_s"].get<double>(), 0.25);
    const std::string lines = Slurp(csv);
    EXPECT_EQ(static_cast<size_t>(std::count(lines.begin(), lines.end(), '\n')), n + 1) << lines;  // header + rows
    EXPECT_EQ(html_intervals(run), n);
    EXPECT_EQ(compare_intervals(run, other), n);
  }
  // A file ending in a short interval, as an older version wrote it.
  auto doc = nlohmann::json::parse(Slurp(dir_ / "r.json"));
  auto last = doc["intervals"].back();
  last["length_s"] = 0.1;
  doc["intervals"].push_back(last);
  std::ofstream(dir_ / "old.json") << doc.dump();
  const size_t counted = doc["intervals"].size() - 1;
  EXPECT_EQ(html_intervals(dir_ / "old.json"), counted);
  EXPECT_EQ(compare_intervals(dir_ / "old.json", dir_ / "o.json"), counted);
}

}  // namespace
}  // namespace storebench::cli
