#include "storebench/report/ycsb_text.h"

#include <gtest/gtest.h>

namespace storebench::report {
namespace {

// Java's Double.toString forms, as YCSB's lines show them: the shortest
// digits that read back as the same double (Java 19 and later; older JDKs
// printed one digit more for some values, e.g. 574.1411290322581 for the
// double whose shortest form is 574.141129032258: both read back the same).
TEST(YcsbText, DoublesPrintAsJavaPrintsThem) {
  EXPECT_EQ(JavaDouble(98.91196834817013), "98.91196834817013");
  EXPECT_EQ(JavaDouble(574.1411290322581), "574.141129032258");
  EXPECT_EQ(std::stod(JavaDouble(574.1411290322581)), 574.1411290322581);
  EXPECT_EQ(JavaDouble(2.0), "2.0");
  EXPECT_EQ(JavaDouble(0.0), "0.0");
  EXPECT_EQ(JavaDouble(std::nan("")), "NaN");
  EXPECT_EQ(JavaDouble(1.0e7), "1.0E7");
  EXPECT_EQ(JavaDouble(12345678.5), "1.23456785E7");
  EXPECT_EQ(JavaDouble(3e-4), "3.0E-4");
  EXPECT_EQ(JavaDouble(9.223372036854776e18), "9.223372036854776E18");
}

// The lines of one operation, worked out by hand from four latencies of 186,
// 500, 944 and 35,935 µs (as ns): average 9,391.25 µs; p95 and p99 are the
// fourth value (rank ceil(0.95 · 4) = 4).
TEST(YcsbText, LinesAreYcsbsForOneOperation) {
  measure::Histogram h(measure::HistogramOptions{});
  for (uint64_t us : {186, 500, 944, 35935}) h.Record(us * 1000);
  const std::string s = YcsbText(10110, 98.91196834817013,
                                 {{"READ", &h, {{"OK", 3}, {"NOT_FOUND", 1}, {"ERROR", 0}}},
                                  {"UPDATE", nullptr, {}}});
  // HdrHistogram's 3 significant digits: 35,935,000 ns is kept as the highest
  // value of its bucket, 35,946,495 ns, and so prints 35946 µs.
  const std::string max = std::to_string(h.max() / 1000), p = std::to_string(h.ValueAtPercentile(95) / 1000);
  EXPECT_EQ(s,
            "[OVERALL], RunTime(ms), 10110\n"
            "[OVERALL], Throughput(ops/sec), 98.91196834817013\n"
            "[READ], Operations, 4\n"
            "[READ], AverageLatency(us), " + JavaDouble(h.mean() / 1000) + "\n"
            "[READ], MinLatency(us), 186\n"
            "[READ], MaxLatency(us), " + max + "\n"
            "[READ], 95thPercentileLatency(us), " + p + "\n"
            "[READ], 99thPercentileLatency(us), " + p + "\n"
            "[READ], Return=OK, 3\n"
            "[READ], Return=NOT_FOUND, 1\n");
  EXPECT_NEAR(h.mean() / 1000, 9391.25, 9391.25 * 1e-3);
  EXPECT_NEAR(static_cast<double>(h.max()) / 1000, 35935, 35935 * 1e-3);
}

}  // namespace
}  // namespace storebench::report
