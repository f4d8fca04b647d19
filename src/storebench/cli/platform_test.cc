// The platform meter end to end: every run carries it, and a pause of the
// whole process (SIGSTOP/SIGCONT, what a VM pause looks like from inside)
// lands on the platform, not on queueing behind the engine.
#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <thread>

#include "storebench/testing/binary_test_fixture.h"

namespace storebench {
namespace {

using testing::Outcome;
using testing::Slurp;

class PlatformCli : public testing::BinaryTest {};

// Stops the process `pauses` times for `pause_ms`, the first `first_ms` after
// its start and then every `every_ms`, and waits for its end: its status.
int PauseAndWait(pid_t pid, int pauses, int first_ms, int every_ms, int pause_ms) {
  for (int k = 0; k < pauses; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(k == 0 ? first_ms : every_ms));
    kill(pid, SIGSTOP);
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    kill(pid, SIGCONT);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST_F(PlatformCli, EveryRunCarriesTheMeterAndTheKernelSources) {
  const auto json = dir_ / "r.json", csv = dir_ / "r.csv";
  Outcome o = Run("run --backend null --threads 1 --duration 1s --interval 250ms --json " + json.string() + " --csv " +
                  csv.string());
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(Slurp(json));
  const auto& p = doc.at("platform");
  EXPECT_GT(p.at("meter").at("cpu_ns").get<uint64_t>(), 0u) << p.dump();
  EXPECT_GT(p.at("meter").at("ticks").get<uint64_t>(), 0u);
  EXPECT_GT(p.at("speed").at("span_ns").get<uint64_t>(), 0u);
  EXPECT_TRUE(p.at("unsteady").is_boolean());
  ASSERT_FALSE(doc.at("intervals").empty());
  for (const auto& i : doc.at("intervals")) EXPECT_TRUE(i.at("platform").at("speed").is_number()) << i.dump();
  EXPECT_NE(o.out.find("\n  speed     platform speed mean "), std::string::npos) << o.out;
  EXPECT_NE(Slurp(csv).find(",platform_speed,platform_speed_min,"), std::string::npos);
  // Each source this machine lacks is named, never reported as 0.
  if (!p.at("kernel").contains("psi_cpu_some_ns")) {
    EXPECT_NE(p.at("kernel").at("missing").get<std::string>().find("PSI"), std::string::npos);
  }
}

// The process stopped for 300 ms one second into an open loop: the meter
// sees the stop, and the ops in flight and queued behind it are the
// platform's tail, whatever else held the CPU meanwhile.
TEST_F(PlatformCli, APauseOfTheWholeProcessIsThePlatformsTail) {
  const auto json = dir_ / "pause.json";
  Outcome o = RunDoing({"run", "--backend", "null", "--service-time", "spin:20us", "--threads", "1", "--schedule",
                        "constant:2000", "--duration", "3s", "--json", json.string()},
                       [](pid_t pid) { return PauseAndWait(pid, 1, 1200, 0, 300); });
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(Slurp(json));
  const auto& p = doc.at("platform");
  const double cpus = p.at("meter").at("cpus").get<double>();
  EXPECT_GE(p.at("speed").at("stopped_ns").get<double>() / cpus, 150e6) << p.dump();
  // The max is an op queued behind the pause (or in flight through it): the
  // platform's either way — by the steady client when its service time was
  // stretched, by the CPU time the meter saw the platform take when it started late.
  const auto& max = doc.at("causes").at("max");
  EXPECT_EQ(max.at("largest"), "platform") << doc.at("causes").dump();
  EXPECT_GT(max.at("platform").get<double>(), 0.5) << max.dump();
  EXPECT_LE(max.at("steady_ns").get<double>(), max.at("ideal_ns").get<double>()) << max.dump();
}

// Three 100 ms pauses of the whole process while its one worker mostly waits,
// awake (5 µs ops at 20,000/s, --wait spin: a 60 µs window over 50 µs gaps):
// a pause that lands between ops is not in any service time, so neither the
// ideal client nor the steady one sees it. The worker does: its wait's last
// gap, which no run-queue wait explains, is the platform's stop
// (OpRecord::stopped_ns), and the ideal client with the stops reproduces the
// queue behind it. A pause inside an op (one chance in ten each) is the
// steady client's instead; the platform's either way.
TEST_F(PlatformCli, APauseBetweenOpsIsSeenByTheWaitingWorker) {
  const auto json = dir_ / "between.json";
  Outcome o = RunDoing({"run", "--backend", "null", "--service-time", "spin:5us", "--threads", "1", "--schedule",
                        "constant:20000", "--wait", "spin", "--duration", "3s", "--json", json.string()},
                       [](pid_t pid) { return PauseAndWait(pid, 3, 1100, 600, 100); });
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(Slurp(json));
  const auto& held = doc.at("platform").at("cpu_held");
  EXPECT_GE(held.at("stopped_between_ops_ns").get<double>(), 50e6) << held.dump();
  const auto& lat = doc.at("latency");
  ASSERT_TRUE(lat.contains("with_stops")) << lat.dump().substr(0, 300);
  EXPECT_GE(lat.at("with_stops").at("max_ns").get<double>(), 50e6);
  EXPECT_GE(lat.at("with_stops").at("max_ns").get<double>(), lat.at("ideal").at("max_ns").get<double>());
  const auto& max = doc.at("causes").at("max");
  EXPECT_EQ(max.at("largest"), "platform") << doc.at("causes").dump();
  EXPECT_GT(max.at("platform").get<double>(), 0.5) << max.dump();
  EXPECT_NE(o.out.find(" between ops, seen by the workers)"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace storebench
