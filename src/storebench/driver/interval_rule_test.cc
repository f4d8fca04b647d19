#include "storebench/driver/interval_rule.h"

#include <gtest/gtest.h>

namespace storebench::driver {
namespace {

TEST(IntervalRule, AShortLastIntervalDoesNotCountAgainstTheNominalLength) {
  EXPECT_EQ(CountedIntervals({1.0, 1.0, 0.49}, 1.0), 2u);
  EXPECT_EQ(CountedIntervals({1.0, 1.0, 0.5}, 1.0), 3u);
  // Only the last: a short one in the middle is a real row (1 ms intervals vary).
  EXPECT_EQ(CountedIntervals({1.0, 0.2, 1.0}, 1.0), 3u);
}

TEST(IntervalRule, WithoutANominalLengthTheMedianOfTheOthersStandsForIt) {
  EXPECT_EQ(CountedIntervals({2.0, 2.1, 1.9, 0.9}, 0), 3u);
  EXPECT_EQ(CountedIntervals({2.0, 2.1, 1.9, 1.0}, 0), 4u);
  // One long outlier does not move the median (the longest would have).
  EXPECT_EQ(CountedIntervals({1.0, 1.0, 9.0, 0.6}, 0), 4u);
}

TEST(IntervalRule, TheOnlyIntervalIsTheWholeRunAndCounts) {
  EXPECT_EQ(CountedIntervals({0.01}, 1.0), 1u);
  EXPECT_EQ(CountedIntervals({}, 1.0), 0u);
  EXPECT_TRUE(LastIntervalCounts(0.01, 1.0, 0));
  EXPECT_FALSE(LastIntervalCounts(0.01, 1.0, 3));
}

}  // namespace
}  // namespace storebench::driver
