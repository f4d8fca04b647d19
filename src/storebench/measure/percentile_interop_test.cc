// The percentile rank against HdrHistogram's own Java library (Debian's
// libhdrhistogram-java): on the same histogram, Histogram::ValueAtPercentile
// and getValueAtPercentile give the same value, over many counts and
// percentiles and at every whole p * n / 100 of them. Each case is a
// histogram of three values, 100 x (rank - 1), 200 x 1 and 300 x (n - rank),
// so the answer is 200 exactly when the rank is right and 100 or 300 when it
// is one off. Where n passes 10^10 HdrHistogram's double arithmetic can
// answer one rank low; there only storebench's exactness is required. Skips
// visibly without java/javac or the library.
#include "storebench/measure/histogram.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace storebench::measure {
namespace {

__extension__ using u128 = unsigned __int128;

namespace fs = std::filesystem;

struct Case {
  uint64_t low = 0, mid = 0, high = 0;
  double p = 0;
  bool whole = false;  // p * n / 100 is a whole number: the rank is known by construction
};

// Percentile t / 10^d as a double: the one the decimal text reads as (division is correctly rounded).
double Percent(uint64_t t, int d) {
  double scale = 1;
  for (int i = 0; i < d; ++i) scale *= 10;
  return static_cast<double>(t) / scale;
}

std::string Shortest(double p) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, p);
  return std::string(buf, r.ptr);
}

// n observations whose p-th percentile is the `rank`-th.
Case Around(uint64_t n, uint64_t rank, double p, bool whole) { return {rank - 1, 1, n - rank, p, whole}; }

std::vector<Case> Cases() {
  std::vector<Case> cases;
  // p = t / 10^d with t * n divisible by 10^(d+2): the rank is exactly t * n / 10^(d+2).
  // Its neighbours n - 1 and n + 1 have the ranks k and k + 1 (0 < p < 100).
  auto whole = [&](uint64_t t, int d, uint64_t n) {
    u128 den = 100;
    for (int i = 0; i < d; ++i) den *= 10;
    const auto k = static_cast<uint64_t>(static_cast<u128>(t) * n / den);
    const double p = Percent(t, d);
    cases.push_back(Around(n, k, p, true));
    if (n > 1 && k >= 1) cases.push_back(Around(n - 1, k, p, true));
    cases.push_back(Around(n + 1, k + 1, p, true));
  };
  for (uint64_t t = 1; t < 1000; ++t)  // every one-decimal percentile, every whole count up to 3000
    for (uint64_t step = 1000 / std::gcd(t, uint64_t{1000}), n = step; n <= 3000; n += step) whole(t, 1, n);
  for (uint64_t t : {9999, 9995, 9990, 9950, 5000, 2500, 1, 2345, 7777})  // two decimals
    for (uint64_t step = 10000 / std::gcd(t, uint64_t{10000}), n = step; n <= 30000; n += step) whole(t, 2, n);
  for (uint64_t t : {99999, 99990, 99950, 99900, 1, 50000, 33333, 66667})  // three decimals
    for (uint64_t step = 100000 / std::gcd(t, uint64_t{100000}), n = step; n <= 300'000; n += step * 7) whole(t, 3, n);
  // Large counts (to 2^53, where a double still holds every count exactly): 10^k and random multiples.
  std::mt19937_64 rng(30);
  for (uint64_t t : {999, 990, 500, 1})
    for (uint64_t n = 1000; n <= 1'000'000'000'000'000; n *= 10) whole(t, 1, n);
  for (int i = 0; i < 20000; ++i) {
    const int d = std::uniform_int_distribution<int>(0, 4)(rng);
    uint64_t scale = 1;
    for (int k = 0; k < d; ++k) scale *= 10;
    const uint64_t t = std::uniform_int_distribution<uint64_t>(1, 100 * scale - 1)(rng);
    const uint64_t step = 100 * scale / std::gcd(t, 100 * scale);
    const uint64_t n = step * std::uniform_int_distribution<uint64_t>(1, (uint64_t{1} << 53) / step / 2)(rng);
    whole(t, d, n);
  }
  // Products that are not whole: random counts and percentiles (decimal ones and arbitrary doubles).
  for (int i = 0; i < 20000; ++i) {
    const uint64_t n = std::uniform_int_distribution<uint64_t>(1, i % 2 ? 100000 : uint64_t{1} << 40)(rng);
    const double p = i % 3 ? Percent(std::uniform_int_distribution<uint64_t>(1, 99999)(rng), 3)
                           : std::uniform_real_distribution<double>(0, 100)(rng);
    cases.push_back(Around(n, PercentileRank(p, n), p, false));
  }
  for (double p : {0.0, 100.0}) cases.push_back(Around(1000, PercentileRank(p, 1000), p, false));
  return cases;
}

TEST(PercentileInterop, ValueAtPercentileIsHdrHistogramsOnTheSameHistogram) {
  for (const char* tool : {"java", "javac"})
    if (std::system((std::string("command -v ") + tool + " > /dev/null 2>&1").c_str()) != 0)
      GTEST_SKIP() << tool << " is missing (scripts/setup.sh --test installs default-jdk-headless)";
  std::string jar;
  for (const char* j : {"/usr/share/java/HdrHistogram.jar", "/usr/share/java/hdrhistogram.jar"})
    if (fs::exists(j)) jar = j;
  if (jar.empty()) GTEST_SKIP() << "HdrHistogram's Java library is missing (apt-get install libhdrhistogram-java)";
  const char* src = std::getenv("STOREBENCH_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "STOREBENCH_SOURCE_DIR is set by CTest";
  const fs::path dir = fs::temp_directory_path() / ("sb-percentile-interop-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string javac = "javac -d " + dir.string() + " -cp " + jar + " " + src +
                            "/src/storebench/measure/interop/PercentileAt.java 2> " + (dir / "javac.err").string();
  ASSERT_EQ(std::system(javac.c_str()), 0);

  const std::vector<Case> cases = Cases();
  {
    std::ofstream in(dir / "cases.txt");
    for (const Case& c : cases) in << c.low << ' ' << c.mid << ' ' << c.high << ' ' << Shortest(c.p) << '\n';
  }
  const std::string java = "java -cp " + dir.string() + ":" + jar + " PercentileAt < " + (dir / "cases.txt").string() +
                           " > " + (dir / "java.out").string();
  ASSERT_EQ(std::system(java.c_str()), 0);
  std::ifstream answers(dir / "java.out");
  // HdrHistogram ranks in double arithmetic (ceil of (p - 1 ulp) / 100 * n): its
  // error, below 5e-16 * n, stays under the 10^-5 step of a three-decimal
  // percentile's p * n / 100 up to n = 10^10, where both must agree exactly.
  // Beyond it HdrHistogram can answer one rank low (first seen here at n =
  // 8.9e11); storebench's integer rank stays exact, as the whole cases check.
  constexpr uint64_t kDoubleIsExactBelow = 10'000'000'000;
  size_t checked = 0, whole = 0, mismatches = 0, beyond = 0, theirs_low = 0;
  Histogram h({3, 10000});
  for (const Case& c : cases) {
    uint64_t theirs = 0;
    ASSERT_TRUE(answers >> theirs) << "HdrHistogram answered " << checked << " of " << cases.size() << " cases";
    h.Reset();
    if (c.low) h.Record(100, c.low);
    h.Record(200, c.mid);
    if (c.high) h.Record(300, c.high);
    const uint64_t ours = h.ValueAtPercentile(c.p);
    const uint64_t n = c.low + c.mid + c.high;
    if (n <= kDoubleIsExactBelow) {
      if (ours != theirs && ++mismatches <= 20)
        ADD_FAILURE() << "p=" << Shortest(c.p) << " n=" << n << ": storebench " << ours << ", HdrHistogram " << theirs;
    } else if (ours != theirs) {
      ++beyond;
      theirs_low += theirs < ours;
    }
    if (c.whole) {
      EXPECT_EQ(ours, 200u) << "p=" << Shortest(c.p) << " n=" << n << ": the rank is " << c.low + 1;
      ++whole;
    }
    ++checked;
  }
  EXPECT_EQ(mismatches, 0u) << "of " << checked << " cases up to n = " << kDoubleIsExactBelow;
  EXPECT_EQ(theirs_low, beyond) << "beyond n = 10^10 HdrHistogram differs only by answering one rank low";
  EXPECT_GT(whole, 50000u);
  RecordProperty("cases", static_cast<int>(checked));
  RecordProperty("hdrhistogram_one_rank_low_beyond_1e10", static_cast<int>(beyond));
  std::printf("%zu cases (%zu with a whole p*n/100); beyond n = 10^10 HdrHistogram answered one rank low in %zu\n",
              checked, whole, beyond);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace storebench::measure
