// A GoogleTest fixture for end-to-end tests under Open MPI: skips visibly
// without mpirun or without the Open MPI mode, runs `mpirun -n N storebench
// ARGS` as root where needed, and checks that a result's merged figures are
// exactly those of the union of its ranks. Used by the one-host tests
// (job/mpi_test.cc) and the test across network namespaces.
#pragma once

#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "storebench/measure/histogram.h"
#include "storebench/testing/binary_test_fixture.h"

namespace storebench::testing {

// Under the ASan preset: Open MPI's plugins allocate at start-up and are
// unloaded (dlclose) at exit, so LeakSanitizer reports their memory with no
// module to attribute or suppress it by. Leak checking stays on for every
// single-process test (which runs the same job code); only the processes
// mpirun starts go without it. AddressSanitizer's other checks stay on.
inline std::string NoMpiLeakCheck() {
  const char* asan = std::getenv("ASAN_OPTIONS");
  if (!asan) return "";
  return "ASAN_OPTIONS=" + std::string(asan) + ":detect_leaks=0 ";
}

class MpiTest : public BinaryTest {
 protected:
  void SetUp() override {
    BinaryTest::SetUp();
    if (std::system("command -v mpirun >/dev/null 2>&1") != 0) GTEST_SKIP() << "mpirun is missing (apt-get install openmpi-bin)";
    Outcome v = Run("--version");
    if (v.out.find("Open MPI mode: absent") != std::string::npos)
      GTEST_SKIP() << "this storebench was built without Open MPI: " << v.out;
  }
  // mpirun -n N [MCA] storebench ARGS, as root where needed.
  Outcome Mpirun(int n, const std::string& args, const std::string& mca = "") {
    std::string env = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 " +
                      NoMpiLeakCheck();
    std::string cmd = env + "timeout -s KILL 120 mpirun -n " + std::to_string(n) + " --oversubscribe " + mca + " " +
                      StorebenchBinary() + " " + args;
    std::string out = (dir_ / "out").string(), err = (dir_ / "err").string();
    int rc = std::system((cmd + " > " + out + " 2> " + err).c_str());
    return Outcome{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, Slurp(out), Slurp(err)};
  }

  // The result's merged figures equal those of the union of the ranks.
  void ExpectExactMerge(const nlohmann::json& doc, int ranks) {
    ASSERT_EQ(doc["mpi"]["ranks"], ranks);
    ASSERT_EQ(doc["ranks"].size(), static_cast<size_t>(ranks));
    uint64_t ops = 0;
    measure::Histogram all;
    bool first = true;
    for (const auto& r : doc["ranks"]) {
      ops += r["ops"].get<uint64_t>();
      auto h = measure::Histogram::Decode(r["response_histogram"].get<std::string>());
      ASSERT_TRUE(h.ok());
      if (first) {
        all = *h;
        first = false;
      } else {
        ASSERT_TRUE(all.Merge(*h).ok());
      }
    }
    EXPECT_EQ(doc["totals"]["ops"].get<uint64_t>(), ops);
    const auto& lat = doc["latency"]["response"];
    EXPECT_EQ(lat["count"].get<uint64_t>(), all.count());
    EXPECT_EQ(lat["p50_ns"].get<uint64_t>(), all.ValueAtPercentile(50));
    EXPECT_EQ(lat["p99_ns"].get<uint64_t>(), all.ValueAtPercentile(99));
    EXPECT_EQ(lat["p999_ns"].get<uint64_t>(), all.ValueAtPercentile(99.9));
    EXPECT_EQ(lat["max_ns"].get<uint64_t>(), all.max());
    // Each merged interval's ops are the sum over the ranks' same interval.
    const auto& intervals = doc["intervals"];
    for (size_t i = 0; i < intervals.size(); ++i) {
      uint64_t sum = 0;
      for (const auto& r : doc["ranks"])
        if (i < r["interval_ops"].size()) sum += r["interval_ops"][i].get<uint64_t>();
      EXPECT_EQ(intervals[i]["ops"].get<uint64_t>(), sum) << "interval " << i;
    }
  }
};


}  // namespace storebench::testing
