#include "storebench/driver/interval_rule.h"

#include <algorithm>

namespace storebench::driver {

bool LastIntervalCounts(double length_s, double nominal_s, size_t before) {
  return before == 0 || length_s >= kCompleteShare * nominal_s;
}

size_t CountedIntervals(const std::vector<double>& lengths_s, double nominal_s) {
  const size_t n = lengths_s.size();
  if (n < 2) return n;
  if (nominal_s <= 0) {
    std::vector<double> others(lengths_s.begin(), lengths_s.end() - 1);
    const auto mid = others.begin() + static_cast<std::ptrdiff_t>(others.size() / 2);
    std::nth_element(others.begin(), mid, others.end());
    nominal_s = *mid;
  }
  return LastIntervalCounts(lengths_s.back(), nominal_s, n - 1) ? n : n - 1;
}

}  // namespace storebench::driver
