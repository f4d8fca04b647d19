// A run served live, scraped as Prometheus scrapes it: promtool checks the
// page, and Debian's prometheus server scrapes a run and answers
// histogram_quantile() over it, which must agree with the result's p99
// within one bucket. And a run pushed to Debian's carbon-cache, whose whisper
// files storebench's own reader reads back. Skips (saying why) where
// promtool, prometheus or carbon-cache is missing (scripts/setup.sh --test
// installs them).
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "storebench/live/exposition.h"
#include "storebench/testing/binary_test_fixture.h"
#include "storebench/testing/process_wait.h"

namespace storebench::testing {
namespace {

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

// The port a run printed on stderr ("metrics: serving http://127.0.0.1:PORT/metrics"), 0 before.
int ServedPort(const std::filesystem::path& err) {
  std::smatch m;
  const std::string text = Slurp(err);
  static const std::regex kServing("serving http://127\\.0\\.0\\.1:([0-9]+)/metrics");
  return std::regex_search(text, m, kServing) ? std::stoi(m[1]) : 0;
}

bool Lingering(const std::filesystem::path& err) { return Slurp(err).find("the run ended;") != std::string::npos; }

std::string Get(int port, const std::string& path, const httplib::Params& params = {}) {
  httplib::Client c("127.0.0.1", port);
  auto res = c.Get(path, params, httplib::Headers{});
  return res && res->status == 200 ? res->body : std::string();
}

// The `le` bound (s) of the bucket that holds `seconds`.
std::pair<double, double> BucketOf(double seconds) {
  const std::vector<uint64_t> b = live::LatencyBounds(3'600'000'000'000);
  const double ns = seconds * 1e9;
  const auto it = std::lower_bound(b.begin(), b.end(), static_cast<uint64_t>(std::ceil(ns)));
  return {it == b.begin() ? 0 : static_cast<double>(*(it - 1)) / 1e9, static_cast<double>(*it) / 1e9};
}

// Starts `argv` (argv[0] found on PATH) with stdout and stderr in `log`; its pid.
pid_t Spawn(const std::vector<std::string>& argv, const std::filesystem::path& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1), dup2(fd, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  return pid;
}

// SIGTERM, and SIGKILL when it has not ended 30 s later.
void Stop(pid_t pid) {
  kill(pid, SIGTERM);
  int status = 0;
  if (!WaitExit(pid, std::chrono::seconds(30), &status)) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
}

// Asks `answers` (series in the answer, -1 for an error) every query of
// contrib/grafana/storebench.json, with Grafana's variables filled in; what is
// wrong with it, one line per problem (none: every query is valid and every
// panel has a query that answers).
std::vector<std::string> DashboardAnswers(const std::function<int(const std::string&)>& answers) {
  std::vector<std::string> problems;
  const char* src = std::getenv("STOREBENCH_SOURCE_DIR");
  if (!src) return {"STOREBENCH_SOURCE_DIR is not set (ctest sets it)"};
  const auto d = nlohmann::json::parse(Slurp(std::filesystem::path(src) / "contrib" / "grafana" / "storebench.json"),
                                       nullptr, false);
  if (d.is_discarded() || !d.contains("panels")) return {"contrib/grafana/storebench.json is not a dashboard"};
  for (const auto& panel : d["panels"]) {
    int answered = 0;
    for (const auto& target : panel["targets"]) {
      std::string q = target["expr"].get<std::string>();
      for (auto [var, value] : {std::pair{std::string("$__rate_interval"), std::string("5s")},
                                std::pair{std::string("$job"), std::string(".*")}})
        for (size_t at = q.find(var); at != std::string::npos; at = q.find(var, at)) q.replace(at, var.size(), value);
      const int n = answers(q);
      if (n < 0) problems.push_back(panel["title"].get<std::string>() + ": Prometheus refused " + q);
      answered += n > 0;
    }
    if (!answered) problems.push_back(panel["title"].get<std::string>() + ": no query has an answer for this run");
  }
  return problems;
}

class LiveE2E : public BinaryTest {
 protected:
  // An open-loop null run served on a free port, lingering until signalled;
  // `during(pid, port)` runs once the run serves, and returns the run's status.
  Outcome ServedRun(const std::function<int(pid_t, int)>& during) {
    return RunDoing({"run", "--backend", "null", "--service-time", "work:20us", "--schedule", "constant:4000",
                     "--duration", "3s", "--warmup", "0.5s", "--interval", "500ms", "--metrics-listen",
                     "127.0.0.1:0", "--metrics-linger", "60s", "--json", (dir_ / "r.json").string()},
                    [&](pid_t pid) {
                      int status = 0;
                      if (WaitUntil(pid, [&] { return ServedPort(dir_ / "err") > 0; }, std::chrono::seconds(60),
                                    &status) == WaitEnd::kExited)
                        return status;
                      return during(pid, ServedPort(dir_ / "err"));
                    });
  }
};

TEST_F(LiveE2E, AScrapeDuringTheRunPassesPromtoolAndTheFinalPageIsTheResults) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "promtool is not installed (apt-get install prometheus; scripts/setup.sh --test)";
  std::string during_run, final_page;
  Outcome o = ServedRun([&](pid_t pid, int port) {
    int status = 0;
    // While measuring: a page with the phase on, and the ideal client's replay already in it.
    WaitUntil(pid, [&] { return Get(port, "/metrics").find("storebench_ideal_latency_seconds_count") != std::string::npos; },
              std::chrono::seconds(60), &status);
    during_run = Get(port, "/metrics");
    if (WaitUntil(pid, [&] { return Lingering(dir_ / "err"); }, std::chrono::seconds(120), &status) ==
        WaitEnd::kExited)
      return status;
    final_page = Get(port, "/metrics");
    kill(pid, SIGINT);
    waitpid(pid, &status, 0);
    return status;
  });
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(during_run.find("storebench_phase{phase=\"run\"} 1"), std::string::npos) << during_run;
  std::ofstream(dir_ / "page.txt") << during_run;
  EXPECT_EQ(std::system(("promtool check metrics < " + (dir_ / "page.txt").string() + " > " +
                         (dir_ / "promtool.txt").string() + " 2>&1").c_str()),
            0)
      << Slurp(dir_ / "promtool.txt");
  // The final page holds every measured op of the result, and no phase runs.
  const auto doc = nlohmann::json::parse(Slurp(dir_ / "r.json"));
  const uint64_t ops = doc["totals"]["ops"].get<uint64_t>();
  EXPECT_NE(final_page.find("storebench_ops_total{phase=\"run\"} " + std::to_string(ops) + "\n"), std::string::npos)
      << "result ops " << ops << "\n" << final_page;
  EXPECT_NE(final_page.find("storebench_op_latency_seconds_count{phase=\"run\",op=\"op\",timing=\"response\"} " +
                            std::to_string(ops) + "\n"),
            std::string::npos);
  EXPECT_EQ(final_page.find("storebench_phase{"), std::string::npos) << final_page;
  // The causes of the tail, as the result gives them.
  for (const char* tail : {"p99", "max"})
    for (const char* cause : {"queueing", "engine", "client", "platform"}) {
      const std::string key = std::string("storebench_tail_cause_ratio{phase=\"run\",tail=\"") + tail +
                              "\",cause=\"" + cause + "\"} ";
      const size_t at = final_page.find(key);
      ASSERT_NE(at, std::string::npos) << key << "\n" << final_page;
      EXPECT_DOUBLE_EQ(std::stod(final_page.substr(at + key.size())), doc["causes"][tail][cause].get<double>()) << key;
    }
  // The whole replay at the end: every measured op of the open loop.
  EXPECT_NE(final_page.find("storebench_ideal_latency_seconds_count{phase=\"run\"} " +
                            std::to_string(doc["latency"]["ideal"]["count"].get<uint64_t>()) + "\n"),
            std::string::npos);
}

TEST_F(LiveE2E, PrometheusScrapesARunAndItsHistogramQuantileIsTheResultsP99WithinABucket) {
  if (std::system("command -v prometheus >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "prometheus is not installed (apt-get install prometheus; scripts/setup.sh --test)";
  const int web = FreePort();
  ASSERT_GT(web, 0);
  pid_t prometheus = -1;
  double quantile = NAN, ops_seen = NAN;
  std::vector<std::string> dashboard;
  std::string last_answer;
  Outcome o = ServedRun([&](pid_t pid, int port) {
    std::ofstream(dir_ / "prometheus.yml") << "global:\n  scrape_interval: 200ms\n  scrape_timeout: 150ms\n"
                                              "scrape_configs:\n  - job_name: storebench\n    static_configs:\n"
                                              "      - targets: ['127.0.0.1:" << port << "']\n";
    prometheus = Spawn({"prometheus", "--config.file=" + (dir_ / "prometheus.yml").string(),
                        "--storage.tsdb.path=" + (dir_ / "tsdb").string(),
                        "--web.listen-address=127.0.0.1:" + std::to_string(web)},
                       dir_ / "prometheus.log");
    int status = 0;
    if (WaitUntil(pid, [&] { return Lingering(dir_ / "err"); }, std::chrono::seconds(120), &status) ==
        WaitEnd::kExited)
      return status;
    const auto doc = nlohmann::json::parse(Slurp(dir_ / "r.json"));
    const double ops = doc["totals"]["ops"].get<double>();
    // Until Prometheus has scraped the final page (the lingering run serves it).
    auto query = [&](const std::string& q) -> double {
      const std::string body = Get(web, "/api/v1/query", {{"query", q}});
      last_answer = body;
      if (body.empty()) return NAN;
      const auto j = nlohmann::json::parse(body, nullptr, false);
      if (j.is_discarded() || j["data"]["result"].empty()) return NAN;
      return std::stod(j["data"]["result"][0]["value"][1].get<std::string>());
    };
    WaitUntil(prometheus, [&] { return (ops_seen = query("storebench_ops_total")) == ops; }, std::chrono::seconds(60),
              &status);
    quantile = query("histogram_quantile(0.99, storebench_op_latency_seconds_bucket{timing=\"response\"})");
    // rate() over the dashboard's window needs samples of the final page: a few scrapes more.
    WaitUntil(prometheus, [&] { return query("count_over_time(storebench_ops_total[5s])") >= 3; },
              std::chrono::seconds(60), &status);
    dashboard = DashboardAnswers([&](const std::string& q) {
      const std::string body = Get(web, "/api/v1/query", {{"query", q}});
      const auto j = nlohmann::json::parse(body, nullptr, false);
      if (j.is_discarded() || j["status"] != "success") return -1;
      return static_cast<int>(j["data"]["result"].size());
    });
    kill(pid, SIGINT);
    waitpid(pid, &status, 0);
    return status;
  });
  if (prometheus > 0) Stop(prometheus);
  ASSERT_EQ(o.code, 0) << o.err;
  const auto doc = nlohmann::json::parse(Slurp(dir_ / "r.json"));
  ASSERT_EQ(ops_seen, doc["totals"]["ops"].get<double>()) << last_answer << "\n" << Slurp(dir_ / "prometheus.log");
  const double p99 = doc["latency"]["response"]["p99_ns"].get<double>() / 1e9;
  const auto [lo, hi] = BucketOf(p99);
  std::printf("histogram_quantile(0.99) %.6g s; the result's p99 %.6g s, in the bucket (%.6g, %.6g] s\n", quantile, p99,
              lo, hi);
  // contrib/grafana's dashboard: every query is valid PromQL, and every panel draws something of this run.
  for (const std::string& problem : dashboard) ADD_FAILURE() << problem;
  EXPECT_GE(quantile, lo) << "result p99 " << p99 << " s; " << last_answer;
  EXPECT_LE(quantile, hi) << "result p99 " << p99 << " s; " << last_answer;
}

// The sorted values of a whisper file's points in [from, until], read by storebench's own reader.
std::vector<double> WhisperValues(const std::filesystem::path& file, int64_t from, int64_t until,
                                  const std::filesystem::path& scratch) {
  const std::string cmd = StorebenchBinary() + " whisper fetch --json --from " + std::to_string(from) + " --until " +
                          std::to_string(until) + " " + file.string() + " > " + scratch.string() + " 2>/dev/null";
  std::vector<double> v;
  if (std::system(cmd.c_str()) != 0) return v;
  const auto j = nlohmann::json::parse(Slurp(scratch), nullptr, false);
  if (j.is_discarded()) return v;
  for (const auto& x : j["values"])
    if (!x.is_null()) v.push_back(x.get<double>());
  std::sort(v.begin(), v.end());
  return v;
}

TEST_F(LiveE2E, CarbonCacheWritesThePushedIntervalsAndOurWhisperReaderReadsThemBack) {
  if (std::system("command -v carbon-cache >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "carbon-cache is not installed (apt-get install graphite-carbon; scripts/setup.sh --test)";
  const int line = FreePort(), pickle = FreePort(), query = FreePort();
  ASSERT_TRUE(line > 0 && pickle > 0 && query > 0);
  const std::string d = dir_.string();
  std::filesystem::create_directories(dir_ / "whisper");
  std::ofstream(dir_ / "carbon.conf") << "[cache]\nSTORAGE_DIR = " << d << "/\nLOCAL_DATA_DIR = " << d
                                      << "/whisper/\nCONF_DIR = " << d << "/\nLOG_DIR = " << d << "/\nPID_DIR = " << d
                                      << "/\nDATABASE = whisper\nENABLE_LOGROTATION = False\nMAX_CACHE_SIZE = inf\n"
                                         "MAX_UPDATES_PER_SECOND = inf\nMAX_CREATES_PER_MINUTE = inf\n"
                                         "WHISPER_AUTOFLUSH = True\nENABLE_UDP_LISTENER = False\n"
                                         "LINE_RECEIVER_INTERFACE = 127.0.0.1\nLINE_RECEIVER_PORT = "
                                      << line << "\nPICKLE_RECEIVER_INTERFACE = 127.0.0.1\nPICKLE_RECEIVER_PORT = "
                                      << pickle << "\nCACHE_QUERY_INTERFACE = 127.0.0.1\nCACHE_QUERY_PORT = " << query
                                      << "\n";
  std::ofstream(dir_ / "storage-schemas.conf") << "[all]\npattern = .*\nretentions = 1s:1d\n";
  const pid_t carbon = Spawn({"carbon-cache", "--config=" + (dir_ / "carbon.conf").string(),
                              "--pidfile=" + (dir_ / "carbon.pid").string(), "--logdir=" + d, "--nodaemon", "start"},
                             dir_ / "carbon.log");
  auto stop_carbon = [&] { Stop(carbon); };
  int status = 0;
  auto accepting = [&] {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(line));
    const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(fd);
    return ok;
  };
  if (WaitUntil(carbon, accepting, std::chrono::seconds(60), &status) != WaitEnd::kReady) {
    stop_carbon();
    FAIL() << "carbon-cache did not listen: " << Slurp(dir_ / "carbon.log");
  }
  const int64_t from = time(nullptr) - 5;
  Outcome o = Run("run --backend null --service-time work:20us --schedule constant:2000 --duration 6s --warmup 0.5s "
                  "--interval 2s --quiet --graphite 127.0.0.1:" + std::to_string(line) + "/sbtest --json " +
                  (dir_ / "r.json").string());
  const int64_t until = time(nullptr) + 5;
  ASSERT_EQ(o.code, 0) << o.err;
  const auto doc = nlohmann::json::parse(Slurp(dir_ / "r.json"));
  const auto& g = doc["live"]["graphite"];
  EXPECT_EQ(g["points_dropped"], 0) << g;
  EXPECT_EQ(g["points_sent"], g["points_pushed"]) << g;
  std::vector<double> ops, p99;
  for (const auto& i : doc["intervals"]) {
    ops.push_back(i["ops_per_sec"].get<double>());
    p99.push_back(i["response"]["p99_ns"].get<double>() / 1e9);
  }
  ASSERT_GE(ops.size(), 3u) << "a 6 s run of 2 s intervals";
  std::sort(ops.begin(), ops.end());
  std::sort(p99.begin(), p99.end());
  // carbon writes its cache to the files in its own time: until every interval is there.
  const auto ops_file = dir_ / "whisper" / "sbtest" / "ops_per_sec.wsp";
  const auto p99_file = dir_ / "whisper" / "sbtest" / "response" / "p99.wsp";
  std::vector<double> got_ops, got_p99;
  WaitUntil(carbon,
            [&] {
              got_ops = WhisperValues(ops_file, from, until, dir_ / "fetch.json");
              got_p99 = WhisperValues(p99_file, from, until, dir_ / "fetch.json");
              return got_ops.size() >= ops.size() && got_p99.size() >= p99.size();
            },
            std::chrono::seconds(60), &status);
  stop_carbon();
  ASSERT_EQ(got_ops.size(), ops.size()) << Slurp(dir_ / "carbon.log");
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_DOUBLE_EQ(got_ops[i], ops[i]) << i;
    EXPECT_DOUBLE_EQ(got_p99[i], p99[i]) << i;
  }
}

TEST_F(LiveE2E, AGraphiteServerThatIsDownCostsTheRunNothingButItsPoints) {
  const int port = FreePort();  // nothing listens there
  Outcome o = Run("run --backend null --duration 1s --warmup 0s --interval 100ms --graphite 127.0.0.1:" + std::to_string(port) +
                  " --json " + (dir_ / "r.json").string());
  ASSERT_EQ(o.code, 0) << o.err;
  const auto g = nlohmann::json::parse(Slurp(dir_ / "r.json"))["live"]["graphite"];
  EXPECT_GT(g["points_pushed"].get<uint64_t>(), 0u) << g;
  EXPECT_EQ(g["points_dropped"], g["points_pushed"]) << g;
  EXPECT_GE(g["connect_failures"].get<uint64_t>(), 1u) << g;
  EXPECT_NE(o.err.find("graphite: " + std::to_string(g["points_dropped"].get<uint64_t>()) + " of"), std::string::npos)
      << o.err;
}

}  // namespace
}  // namespace storebench::testing
