// Scale-out under Open MPI: `mpirun -n N storebench run …` gives one result
// whose totals, percentiles and intervals are exactly those of the union of
// the ranks. Needs mpirun (Debian openmpi-bin); skips visibly without it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "storebench/testing/mpi_test_fixture.h"

namespace {

namespace fs = std::filesystem;
using storebench::testing::Outcome;
using storebench::testing::Slurp;
using storebench::testing::NoMpiLeakCheck;
using storebench::testing::StorebenchBinary;

using Mpi = storebench::testing::MpiTest;

TEST_F(Mpi, ClosedAndOpenLoopsMergeExactly) {
  auto closed = dir_ / "closed.json", open = dir_ / "open.json";
  Outcome o = Mpirun(4, "run --backend null --service-time spin:2us --duration 1s --interval 250ms --quiet --json " +
                            closed.string());
  ASSERT_EQ(o.code, 0) << o.err;
  ExpectExactMerge(nlohmann::json::parse(Slurp(closed)), 4);

  o = Mpirun(4, "run --backend null --schedule constant:20000 --duration 1s --interval 250ms --quiet --json " +
                    open.string());
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(Slurp(open));
  ExpectExactMerge(doc, 4);
  // The rate is the job's total, split over the ranks: 20,000 arrivals in 1 s.
  const double arrived = doc["totals"]["ops"].get<double>() + doc["totals"]["unstarted"].get<double>();
  EXPECT_NEAR(arrived, 20000.0, 200.0);
  EXPECT_LT(doc["mpi"]["start_skew_ns"].get<uint64_t>(), 50'000'000u);
}

// Five ranks, not a power of two: the binomial tree gives rank 0 three
// children (ranks 1, 2 and 4; rank 3 reports through rank 2), each sending
// one part per interval and "done"; the merge stays exact.
TEST_F(Mpi, FiveRanksMergeAlongTheTreeExactly) {
  auto json = dir_ / "five.json";
  Outcome o = Mpirun(5, "run --backend null --schedule constant:5000 --duration 1s --interval 200ms --quiet --json " +
                            json.string());
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(Slurp(json));
  ExpectExactMerge(doc, 5);
  const auto& live = doc["mpi"]["live_merge"];
  EXPECT_EQ(live["tree_children"].get<int>(), 3);
  const uint64_t merged = live["merged_intervals"].get<uint64_t>();
  EXPECT_GE(merged, 4u);
  EXPECT_LE(merged, doc["intervals"].size());
  EXPECT_GE(live["messages_received"].get<uint64_t>(), 3 * (merged + 1));
  EXPECT_GT(live["bytes_per_rank_interval"].get<double>(), 0.0);
  EXPECT_GE(live["max_bytes_per_rank_interval"].get<double>(), live["bytes_per_rank_interval"].get<double>());
  EXPECT_GT(live["cpu_ns"].get<uint64_t>(), 0u);
}

TEST_F(Mpi, OverTcpOnly) {
  auto json = dir_ / "tcp.json";
  Outcome o = Mpirun(2, "run --backend null --ops 200k --interval 100ms --quiet --json " + json.string(),
                     "--mca btl tcp,self");
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(Slurp(json));
  ExpectExactMerge(doc, 2);
  EXPECT_EQ(doc["totals"]["ops"], 200000);
}

TEST_F(Mpi, PerRankDataSetsArePreparedAndRun) {
  const std::string data = (dir_ / "data-{rank}").string();
  Outcome o = Mpirun(2, "prepare --backend file --data '" + data + "' --files 1 --file-size 4M");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("rank 0 on"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("rank 1 on"), std::string::npos) << o.out;
  EXPECT_TRUE(fs::exists(dir_ / "data-0" / "storebench-file.json"));
  EXPECT_TRUE(fs::exists(dir_ / "data-1" / "storebench-file.json"));
  auto json = dir_ / "file.json";
  o = Mpirun(2, "run --backend file --data '" + data + "' --ops 20k --quiet --json " + json.string());
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(Slurp(json));
  ExpectExactMerge(doc, 2);
  // The config reruns the job on every rank: the template, not rank 0's data set.
  EXPECT_EQ(doc["config"]["backend_options"]["data"], data);
  EXPECT_NE(doc["command"].dump().find("{rank}"), std::string::npos);
  EXPECT_EQ(doc["io"]["ops"], 20000);
  EXPECT_EQ(doc["cache"]["dataset_bytes"], 2 * 4 * 1024 * 1024);
}

TEST_F(Mpi, ARankWithoutItsDataSetStopsEveryRankWithOneLine) {
  const std::string data = (dir_ / "d{rank}").string();
  ASSERT_EQ(Run("prepare --backend file --data " + (dir_ / "d0").string() + " --files 1 --file-size 4M").code, 0);
  auto json = dir_ / "never.json";
  Outcome o = Mpirun(2, "run --backend file --data '" + data + "' --duration 1s --json " + json.string());
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.err.find("rank 1 on"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("rank 0 on"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(json));
}

TEST_F(Mpi, ASearchUnderMpirunIsRefusedOnce) {
  const std::string out = (dir_ / "steps").string();
  Outcome o = Mpirun(2, "search --slo 'p99<=1s' --max-rate 2k --step-duration 50ms --out " + out +
                            " -- --backend null");
  EXPECT_EQ(o.code, 2) << o.err;
  const std::string line = "storebench: search: not under mpirun";
  const size_t first = o.err.find(line);
  EXPECT_NE(first, std::string::npos) << o.err;
  EXPECT_EQ(o.err.find(line, first + 1), std::string::npos) << "said once, by rank 0: " << o.err;
  EXPECT_FALSE(fs::exists(out)) << "refused before any step";
}

TEST_F(Mpi, RanksStartedWithOtherFlagsAreRefused) {
  // mpirun's MPMD form: rank 1 runs another command line than rank 0.
  Outcome o = Mpirun(1, "run --backend null --ops 1000 --quiet : -n 1 " + StorebenchBinary() +
                            " run --backend null --ops 1000 --threads 2 --quiet");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("storebench: rank 1 on "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("started with other run flags than rank 0 (threads differs)"), std::string::npos) << o.err;
}

TEST_F(Mpi, ABadJobIsRefusedOnceByRankZero) {
  Outcome o = Mpirun(3, "run --backend null --duration 1s --threads 0");
  EXPECT_EQ(o.code, 2) << o.err;
  size_t lines = 0;
  for (size_t p = o.err.find("--threads"); p != std::string::npos; p = o.err.find("--threads", p + 1)) ++lines;
  EXPECT_EQ(lines, 1u) << o.err;
}

TEST_F(Mpi, StonewallStopsEveryRankWhenTheFirstFinishes) {
  auto json = dir_ / "wall.json";
  // Whichever rank finishes its share first stops the other at its next interval.
  Outcome o = Mpirun(2, "run --backend null --service-time sleep:100us --ops 20k --stonewall --interval 100ms --quiet "
                        "--json " + json.string());
  ASSERT_EQ(o.code, 0) << o.err;
  auto doc = nlohmann::json::parse(Slurp(json));
  EXPECT_TRUE(doc["mpi"]["stonewall"].get<bool>());
  ExpectExactMerge(doc, 2);
}

// mpirun tears a job down itself on SIGINT; SIGUSR1, which it forwards to
// every rank, ends the run gracefully: results written, marked interrupted.
TEST_F(Mpi, SigusrToMpirunEndsTheRunWithResults) {
  auto json = dir_ / "sig.json";
  std::string cmd =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + NoMpiLeakCheck() +
      "timeout -s KILL 60 mpirun -n 2 --oversubscribe " +
      StorebenchBinary() + " run --backend null --duration 30s --quiet --json " + json.string() +
      " > /dev/null 2>&1 & pid=$!; sleep 3; pkill -USR1 -P $pid mpirun; wait $pid";
  std::system(cmd.c_str());
  ASSERT_TRUE(fs::exists(json));
  auto doc = nlohmann::json::parse(Slurp(json));
  EXPECT_TRUE(doc["totals"]["interrupted"].get<bool>());
  EXPECT_LT(doc["totals"]["elapsed_s"].get<double>(), 25.0);
  ExpectExactMerge(doc, 2);
}

// A rank killed during the measured window: mpirun ends the whole job long
// before the run's 30 s, names the lost rank, and nothing is written — the
// result is the exact merge of every rank's histograms, and the lost rank's
// are gone (docs/scale-out.md, "Faults").
TEST_F(Mpi, ARankLostMidRunEndsTheJobWithNothingWritten) {
  auto json = dir_ / "lost.json";
  const std::string mark = "SB_LOST_RANK_TEST=" + std::to_string(getpid());
  std::string cmd = mark + " OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + NoMpiLeakCheck() +
                    "timeout -s KILL 90 mpirun -n 3 --oversubscribe " + StorebenchBinary() +
                    " run --backend null --schedule constant:3000 --duration 30s --interval 500ms --quiet --json " +
                    json.string() + " > " + (dir_ / "out").string() + " 2> " + (dir_ / "err").string() +
                    " & pid=$!; sleep 5; "
                    // rank 2 of this test's job, by its environment
                    "for p in $(pgrep -x storebench); do "
                    "  e=$(tr '\\0' '\\n' < /proc/$p/environ 2>/dev/null) || continue; "
                    "  echo \"$e\" | grep -qx '" + mark + "' && echo \"$e\" | grep -qx OMPI_COMM_WORLD_RANK=2 && kill -9 $p; "
                    "done; "
                    "start=$(date +%s); wait $pid; rc=$?; echo $rc $(( $(date +%s) - start )) > " +
                    (dir_ / "rc").string();
  std::system(cmd.c_str());
  std::istringstream rc(Slurp(dir_ / "rc"));
  int code = -1, waited_s = -1;
  rc >> code >> waited_s;
  const std::string err = Slurp(dir_ / "err");
  EXPECT_NE(code, 0) << err;
  // (mpirun's own exit code is the lost rank's, 128 + 9: no sign of a hang;
  // the time it took after the kill is.)
  EXPECT_LT(waited_s, 20) << "the job outlived its lost rank: " << err;
  EXPECT_NE(err.find("rank 2"), std::string::npos) << err;
  EXPECT_NE(err.find("signal 9"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(json));
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find("lost.json"), std::string::npos) << "left behind: " << e.path();
}

// Rank 0 alone serves and pushes the merged intervals live: a Graphite
// listener gets one connection, and its ops/s points are the result's
// merged intervals; the page was served (live.prometheus in the result).
TEST_F(Mpi, RankZeroAlonePushesTheMergedIntervals) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(fd, 8), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  int connections = 0;
  std::string received;
  std::thread server([&] {
    // Until the listening socket is shut down: accept and read every connection.
    std::vector<int> open;
    for (;;) {
      std::vector<pollfd> fds{{fd, POLLIN, 0}};
      for (int c : open) fds.push_back({c, POLLIN, 0});
      if (poll(fds.data(), fds.size(), -1) < 0) break;
      if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) break;
      if (fds[0].revents & POLLIN) {
        const int c = accept(fd, nullptr, nullptr);
        if (c < 0) break;
        open.push_back(c);
        ++connections;
      }
      for (size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
        char buf[65536];
        const ssize_t n = read(fds[i].fd, buf, sizeof buf);
        if (n > 0) received.append(buf, static_cast<size_t>(n));
        if (n <= 0) open.erase(std::find(open.begin(), open.end(), fds[i].fd)), close(fds[i].fd);
      }
    }
    for (int c : open) close(c);
  });
  const fs::path json = dir_ / "r.json";
  Outcome o = Mpirun(2, "run --backend null --schedule constant:4000 --duration 2s --interval 500ms --quiet "
                        "--metrics-listen 127.0.0.1:0 --graphite 127.0.0.1:" + std::to_string(ntohs(a.sin_port)) +
                        "/m --json " + json.string());
  shutdown(fd, SHUT_RDWR);
  server.join();
  close(fd);
  ASSERT_EQ(o.code, 0) << o.err;
  const auto doc = nlohmann::json::parse(Slurp(json));
  EXPECT_TRUE(doc["live"]["prometheus"].contains("url")) << doc["live"];
  EXPECT_EQ(doc["live"]["graphite"]["points_dropped"], 0) << doc["live"];
  EXPECT_EQ(connections, 1) << "only rank 0 pushes";
  std::vector<double> pushed, merged;
  std::istringstream in(received);
  std::string path;
  double value = 0;
  long long ts = 0;
  while (in >> path >> value >> ts)
    if (path == "m.ops_per_sec") pushed.push_back(value);
  for (const auto& i : doc["intervals"]) merged.push_back(i["ops_per_sec"].get<double>());
  ASSERT_GE(merged.size(), 3u);
  // The live stream has every merged interval (its values to the 17 digits a
  // double prints with; the result's intervals are the same merged ones).
  ASSERT_EQ(pushed.size(), merged.size()) << received;
  for (size_t k = 0; k < merged.size(); ++k) EXPECT_NEAR(pushed[k], merged[k], merged[k] * 1e-9) << k;
}

}  // namespace
