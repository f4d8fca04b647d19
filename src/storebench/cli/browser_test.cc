// The HTML report in a real browser: headless Chromium (Debian's chromium)
// opens reports of a null run, a two-phase run, an open loop that fell
// behind (verdict, offered rate, ideal client), three runs overlaid, a
// matrix directory and an .hlog (alone and beside a run). A page fails on any
// JavaScript error and on any chart drawn without data (the page's #sb-ready
// marker says both); a screenshot of each is kept in the build tree
// (report-screenshots/). Skips visibly where Chromium is missing or cannot start.
#include "storebench/testing/binary_test_fixture.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

namespace storebench::cli {
namespace {

namespace fs = std::filesystem;
using storebench::testing::Outcome;
using storebench::testing::Slurp;

struct Page {
  int charts = -1, errors = -1;
  std::string empty, error_text, dom;
  std::string lines;  // each chart's caption and line labels (the marker's data-lines)
};

class Browser : public storebench::testing::BinaryTest {
 protected:
  void SetUp() override {
    BinaryTest::SetUp();
    if (!fs::exists("/usr/share/javascript/chart.js/chart.min.js"))
      GTEST_SKIP() << "libjs-chart.js is not installed (scripts/setup.sh installs it)";
    if (std::system("command -v chromium > /dev/null 2>&1") != 0)
      GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs Debian's chromium)";
    std::ofstream(dir_ / "probe.html") << "<p id=probe>chromium-started</p>";
    std::string dom = Chromium("--dump-dom file://" + (dir_ / "probe.html").string(), "probe.dom");
    if (dom.find("chromium-started") == std::string::npos)
      GTEST_SKIP() << "Chromium cannot start here: " << Slurp(dir_ / "chromium.err").substr(0, 400);
  }

  // Runs headless Chromium with its own profile; returns its stdout.
  std::string Chromium(const std::string& args, const std::string& out_name) {
    std::string cmd = "timeout 60 chromium --headless --disable-gpu --no-sandbox --hide-scrollbars "
                      "--no-first-run --user-data-dir=" + (dir_ / "profile").string() + " " + args + " > " +
                      (dir_ / out_name).string() + " 2> " + (dir_ / "chromium.err").string();
    (void)std::system(cmd.c_str());
    return Slurp(dir_ / out_name);
  }

  // Opens the page, lets its scripts run, and reads the marker; keeps a screenshot.
  Page Open(const fs::path& html, const std::string& name, int height) {
    Page p;
    p.dom = Chromium("--virtual-time-budget=10000 --dump-dom file://" + html.string(), name + ".dom");
    std::smatch m;
    std::regex ready(R"re(<div id="sb-ready"[^>]*data-charts="(\d+)" data-empty="([^"]*)" data-errors="(\d+)")re");
    if (std::regex_search(p.dom, m, ready)) {
      p.charts = std::stoi(m[1]);
      p.empty = m[2];
      p.errors = std::stoi(m[3]);
    }
    std::regex lines(R"re(<div id="sb-ready"[^>]* data-lines="([^"]*)")re");
    if (std::regex_search(p.dom, m, lines)) p.lines = m[1];
    std::regex errors(R"re(<pre id="sb-errors"[^>]*>([^<]*)</pre>)re");
    if (std::regex_search(p.dom, m, errors)) p.error_text = m[1];
    fs::path shots = fs::current_path() / "report-screenshots";
    fs::create_directories(shots);
    fs::remove(shots / (name + ".png"));
    Chromium("--virtual-time-budget=10000 --window-size=1400," + std::to_string(height) + " --screenshot=" +
                 (shots / (name + ".png")).string() + " file://" + html.string(),
             name + ".shot");
    EXPECT_TRUE(fs::exists(shots / (name + ".png"))) << Slurp(dir_ / "chromium.err").substr(0, 400);
    return p;
  }

  void ExpectDrawn(const Page& p, int min_charts) {
    ASSERT_GE(p.charts, 0) << "the page never set its #sb-ready marker (a script failed before the end?)\n"
                           << p.error_text << p.dom.substr(0, 300);
    EXPECT_GE(p.charts, min_charts);
    EXPECT_EQ(p.errors, 0) << p.error_text;
    EXPECT_EQ(p.error_text, "");
    EXPECT_EQ(p.empty, "") << "charts without data";
  }

  fs::path Report(const std::string& inputs, const std::string& name) {
    fs::path html = dir_ / (name + ".html");
    Outcome o = Run("report " + inputs + " -o " + html.string());
    EXPECT_EQ(o.code, 0) << o.err;
    return html;
  }

  std::string NullRun(const std::string& name, const std::string& args) {
    fs::path p = dir_ / (name + ".json");
    Outcome o = Run("run --backend null --quiet --json " + p.string() + " " + args);
    EXPECT_EQ(o.code, 0) << o.err;
    return p.string();
  }
};

TEST_F(Browser, NullRunDrawsEveryChart) {
  fs::path html = Report(NullRun("null", "--duration 2s --interval 250ms --warmup 500ms"), "null-run");
  // throughput, response, service, platform speed, spectrum, backlog/lag.
  Page p = Open(html, "null-run", 2600);
  ExpectDrawn(p, 6);
  EXPECT_NE(p.dom.find("Platform speed per interval"), std::string::npos);
}

TEST_F(Browser, TwoPhaseRunDrawsBothPhases) {
  fs::path html = Report(NullRun("tp", "--duration 1s --interval 250ms --two-phase 0.8"), "two-phase");
  Page p = Open(html, "two-phase", 3800);
  ExpectDrawn(p, 10);
  EXPECT_NE(p.dom.find("phase 1: closed loop"), std::string::npos);
  EXPECT_NE(p.dom.find("phase 2: open loop at"), std::string::npos);
}

// An open loop that fell behind: offered far more than the null backend
// serves. The result is given the open-loop verdict keys by hand (as the
// driver writes them); the page says at the top that the run did not keep up,
// with its numbers, draws the offered rate on the throughput chart and the
// ideal client's p99 beside the observed one, and names its charts in words.
TEST_F(Browser, RunThatFellBehindSaysSoAndDrawsItsTarget) {
  const std::string plain = NullRun("behind", "--schedule constant:100000 --service-time spin:20us --duration 1s "
                                              "--interval 250ms");
  auto doc = nlohmann::json::parse(Slurp(plain));
  const double achieved = doc["throughput"]["ops_per_sec"].get<double>();
  ASSERT_LT(achieved, 0.9e5) << "one worker at 20 us per op cannot keep up with 100k/s";
  ASSERT_GT(achieved, 0);
  doc["schedule"]["sustained"] = false;
  doc["schedule"]["offered_ops_per_sec"] = 1e5;
  doc["schedule"]["achieved_ops_per_sec"] = achieved;
  doc["schedule"]["achieved_fraction"] = achieved / 1e5;
  doc["schedule"]["end_backlog_ops"] = doc["intervals"].back()["backlog"];
  for (auto& i : doc["intervals"]) {
    i["offered_ops_per_sec"] = 1e5;
    nlohmann::json ideal = i["response"];
    for (auto it = ideal.begin(); it != ideal.end(); ++it) it.value() = it.value().get<double>() / 2;
    i["ideal"] = ideal;
    i["client_added_p99_ns"] = i["response"]["p99_ns"].get<double>() - ideal["p99_ns"].get<double>();
  }
  doc["latency"]["ideal"] = doc["latency"]["response"];
  doc["latency"]["client_added"] = {{"p50_ns", 0}, {"p99_ns", 0}, {"p999_ns", 0}, {"max_ns", 0}};
  const fs::path keyed = dir_ / "behind-keyed.json";
  std::ofstream(keyed) << doc.dump();

  Page p = Open(Report(keyed.string(), "fell-behind"), "fell-behind", 2600);
  ExpectDrawn(p, 5);
  EXPECT_TRUE(std::regex_search(p.dom, std::regex(R"(<p class="verdict" id="sb-verdict">This run did not keep up with )"
                                                  R"(its offered rate \(offered 100,000 ops/s, achieved [0-9,]+ ops/s, )"
                                                  R"(\d+%; [0-9,]+ arrivals still waiting at the end\)\.</p>)")))
      << p.dom.substr(0, 1500);
  EXPECT_NE(p.lines.find("Throughput per interval, ops/s: achieved, all ops|offered rate (target)"), std::string::npos)
      << p.lines;
  EXPECT_NE(p.lines.find("p99|p99 of an ideal client|p99.9"), std::string::npos) << p.lines;
  EXPECT_NE(p.lines.find("Client's share of the p99 per interval"), std::string::npos) << p.lines;
  EXPECT_TRUE(std::regex_search(p.lines, std::regex(R"(Worst hiccup per interval, (ns|µs|ms|s):)"))) << p.lines;
  for (const char* raw : {"hiccup_max_ns", "max_lag_ns", "(ns)"})
    EXPECT_EQ(p.lines.find(raw), std::string::npos) << raw << " in " << p.lines;

  // The same run as an older result without those keys: no verdict to give,
  // but the offered rate still comes from its --schedule.
  nlohmann::json old_doc = nlohmann::json::parse(Slurp(plain));
  for (const char* k : {"sustained", "offered_ops_per_sec", "achieved_ops_per_sec", "achieved_fraction", "end_backlog_ops"})
    old_doc["schedule"].erase(k);
  for (auto& i : old_doc["intervals"])
    for (const char* k : {"offered_ops_per_sec", "ideal", "client_added_p99_ns"}) i.erase(k);
  for (const char* k : {"ideal", "client_added"}) old_doc["latency"].erase(k);
  const fs::path older_file = dir_ / "behind-older.json";
  std::ofstream(older_file) << old_doc.dump();
  Page older = Open(Report(older_file.string(), "fell-behind-older"), "fell-behind-older", 2600);
  ExpectDrawn(older, 5);
  EXPECT_EQ(older.dom.find("id=\"sb-verdict\""), std::string::npos);
  EXPECT_NE(older.lines.find("offered rate (target)"), std::string::npos) << older.lines;
}

// An open loop behind an engine's burning threads: the page names the tail's
// causes at the top and draws who held the CPU and the p99's causes per interval.
TEST_F(Browser, OpenLoopDrawsWhoHeldTheCpuAndTheTailsCauses) {
  const std::string run = NullRun("burn", "--service-time spin:20us --threads 1 --cpus 0 --schedule constant:20000 "
                                          "--duration 1s --interval 250ms --burn 40ms/40ms --burn-threads 2");
  Page p = Open(Report(run, "causes"), "causes", 3000);
  ExpectDrawn(p, 7);
  EXPECT_TRUE(std::regex_search(p.dom, std::regex(R"(<p class="causes" id="sb-causes">The response tail's causes: at )"
                                                  R"(the p99 \([^)]+\) the largest is )")))
      << p.dom.substr(0, 1500);
  EXPECT_TRUE(std::regex_search(p.lines, std::regex(R"(Who held the CPU per interval, CPU time in (ns|µs|ms|s): )"
                                                    R"(the workers\|the engine's threads\|)")))
      << p.lines;
  EXPECT_NE(p.lines.find("Causes of the response p99 per interval, % of it: queueing behind the engine|"
                         "the engine's threads holding the CPU|the client's own threads|the platform"),
            std::string::npos)
      << p.lines;
}

TEST_F(Browser, ThreeRunsOverlaid) {
  std::string runs;
  for (const char* st : {"0", "spin:1us", "spin:2us"})
    runs += NullRun(std::string("r-") + (st[0] == '0' ? "zero" : st + 5), "--duration 500ms --interval 100ms --service-time " +
                                                                        std::string(st)) + " ";
  Page p = Open(Report(runs, "three-runs"), "three-runs", 2000);
  ExpectDrawn(p, 5);
  EXPECT_NE(p.dom.find("Comparison"), std::string::npos);
}

TEST_F(Browser, MatrixDirectory) {
  fs::path m = dir_ / "m";
  Outcome o = Run("matrix --out " + m.string() +
                  " --repeat 2 --vary service-time=spin:1us,spin:2us -- --backend null --duration 1s --interval 250ms");
  ASSERT_EQ(o.code, 0) << o.err;
  Page p = Open(Report(m.string(), "matrix"), "matrix", 2400);
  ExpectDrawn(p, 5);
  EXPECT_NE(p.dom.find("service-time=spin:2us vs service-time=spin:1us"), std::string::npos);
}

TEST_F(Browser, HlogInputAndHlogsOverlaid) {
  std::string run = NullRun("h", "--duration 500ms --interval 100ms");
  fs::path hlog = dir_ / "h.hlog";
  Outcome o = Run("report --hlog " + hlog.string() + " " + run);
  ASSERT_EQ(o.code, 0) << o.err;
  // throughput, response and service over time, spectrum (no schedule in a log).
  ExpectDrawn(Open(Report(hlog.string(), "hlog"), "hlog", 1600), 4);
  ExpectDrawn(Open(Report(hlog.string() + " " + run, "hlog-and-run"), "hlog-and-run", 2000), 4);
}

}  // namespace
}  // namespace storebench::cli
