// A run served live, scraped as Prometheus scrapes it: promtool checks the
// page, and Debian's prometheus server scrapes a run and answers
// histogram_quantile() over it, which must agree with the result's p99
// within one bucket. Skips (saying why) where promtool or prometheus is
// missing (scripts/setup.sh --test installs them).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
    // While measuring: a page with the phase on.
    WaitUntil(pid, [&] { return Get(port, "/metrics").find("storebench_interval_end_seconds") != std::string::npos; },
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
}

TEST_F(LiveE2E, PrometheusScrapesARunAndItsHistogramQuantileIsTheResultsP99WithinABucket) {
  if (std::system("command -v prometheus >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "prometheus is not installed (apt-get install prometheus; scripts/setup.sh --test)";
  const int web = FreePort();
  ASSERT_GT(web, 0);
  pid_t prometheus = -1;
  double quantile = NAN, ops_seen = NAN;
  std::string last_answer;
  Outcome o = ServedRun([&](pid_t pid, int port) {
    std::ofstream(dir_ / "prometheus.yml") << "global:\n  scrape_interval: 200ms\n  scrape_timeout: 150ms\n"
                                              "scrape_configs:\n  - job_name: storebench\n    static_configs:\n"
                                              "      - targets: ['127.0.0.1:" << port << "']\n";
    prometheus = fork();
    if (prometheus == 0) {
      const std::string log = (dir_ / "prometheus.log").string();
      freopen(log.c_str(), "w", stdout);
      freopen(log.c_str(), "a", stderr);
      const std::string config = "--config.file=" + (dir_ / "prometheus.yml").string();
      const std::string storage = "--storage.tsdb.path=" + (dir_ / "tsdb").string();
      const std::string listen = "--web.listen-address=127.0.0.1:" + std::to_string(web);
      execlp("prometheus", "prometheus", config.c_str(), storage.c_str(), listen.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
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
    kill(pid, SIGINT);
    waitpid(pid, &status, 0);
    return status;
  });
  if (prometheus > 0) {
    kill(prometheus, SIGTERM);
    int st = 0;
    WaitExit(prometheus, std::chrono::seconds(30), &st) || (kill(prometheus, SIGKILL), waitpid(prometheus, &st, 0));
  }
  ASSERT_EQ(o.code, 0) << o.err;
  const auto doc = nlohmann::json::parse(Slurp(dir_ / "r.json"));
  ASSERT_EQ(ops_seen, doc["totals"]["ops"].get<double>()) << last_answer << "\n" << Slurp(dir_ / "prometheus.log");
  const double p99 = doc["latency"]["response"]["p99_ns"].get<double>() / 1e9;
  const auto [lo, hi] = BucketOf(p99);
  std::printf("histogram_quantile(0.99) %.6g s; the result's p99 %.6g s, in the bucket (%.6g, %.6g] s\n", quantile, p99,
              lo, hi);
  EXPECT_GE(quantile, lo) << "result p99 " << p99 << " s; " << last_answer;
  EXPECT_LE(quantile, hi) << "result p99 " << p99 << " s; " << last_answer;
}

}  // namespace
}  // namespace storebench::testing
