#include "storebench/workload/zipfian.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace storebench::workload {
namespace {

constexpr uint64_t kExactZetaLimit = 65536;
constexpr uint64_t kZetaHead = 4096;
constexpr uint64_t kIncrementalLimit = 4096;

// Σ_{i=from+1..to} i^−θ, summed from the small terms up so rounding stays low.
double ZetaTerms(uint64_t from, uint64_t to, double theta) {
  double sum = 0;
  for (uint64_t i = to; i > from; --i) sum += std::pow(static_cast<double>(i), -theta);
  return sum;
}

}  // namespace

double Zeta(uint64_t n, double theta) {
  if (n <= kExactZetaLimit) return ZetaTerms(0, n, theta);
  // Euler–Maclaurin for Σ_{i=m+1..n} f(i), f(x) = x^−θ: the integral, the
  // endpoint correction and the B2, B4 terms. With m = 4,096 the remainder is
  // of order f⁽⁵⁾(m)/30240 ≈ 1e-24, far below double precision of the sum.
  const double m = static_cast<double>(kZetaHead);
  const double x = static_cast<double>(n);
  const double t = theta;
  auto f = [t](double v) { return std::pow(v, -t); };
  auto f1 = [t](double v) { return -t * std::pow(v, -t - 1); };
  auto f3 = [t](double v) { return -t * (t + 1) * (t + 2) * std::pow(v, -t - 3); };
  const double integral = (std::pow(x, 1 - t) - std::pow(m, 1 - t)) / (1 - t);
  const double tail =
      integral + (f(x) - f(m)) / 2 + (f1(x) - f1(m)) / 12 - (f3(x) - f3(m)) / 720;
  return ZetaTerms(0, kZetaHead, theta) + tail;
}

uint64_t FnvHash64(uint64_t v) {
  constexpr uint64_t kOffsetBasis = 0xCBF29CE484222325ULL;
  constexpr uint64_t kPrime = 1099511628211ULL;
  uint64_t hash = kOffsetBasis;
  for (int i = 0; i < 8; ++i) {
    hash ^= v & 0xff;
    v >>= 8;
    hash *= kPrime;
  }
  // Java's Math.abs on the signed value; 2^63 (Long.MIN_VALUE) stays 2^63.
  return static_cast<int64_t>(hash) < 0 ? 0 - hash : hash;
}

ZipfianGenerator::ZipfianGenerator(uint64_t items, double theta)
    : ZipfianGenerator(items, theta, Zeta(items, theta)) {}

ZipfianGenerator::ZipfianGenerator(uint64_t items, double theta, double zetan)
    : items_(items), theta_(theta), zetan_(zetan) {
  Derive();
}

void ZipfianGenerator::Derive() {
  const double zeta2 = 1 + std::pow(0.5, theta_);
  alpha_ = 1 / (1 - theta_);
  eta_ = (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / (1 - zeta2 / zetan_);
  rank1_bound_ = zeta2;
}

uint64_t ZipfianGenerator::RankFor(double u) const {
  const double uz = u * zetan_;
  if (uz < 1) return 0;
  if (uz < rank1_bound_) return 1;
  const double rank = static_cast<double>(items_) * std::pow(eta_ * u - eta_ + 1, alpha_);
  // The approximation can round to items_ for u close to 1; YCSB would return
  // an out-of-range rank there, this keeps the contract instead.
  if (!(rank < static_cast<double>(items_))) return items_ - 1;
  return static_cast<uint64_t>(rank);
}

void ZipfianGenerator::SetItemCount(uint64_t items) {
  if (items == items_) return;
  if (items > items_ && items - items_ <= kIncrementalLimit) {
    zetan_ += ZetaTerms(items_, items, theta_);
  } else {
    zetan_ = Zeta(items, theta_);
  }
  items_ = items;
  Derive();
}

std::string ZipfianDistribution::Describe() const {
  return fmt::format("zipfian-unscrambled:{}", gen_.theta());
}

ScrambledZipfianDistribution::ScrambledZipfianDistribution(uint64_t items, double theta)
    : KeyDistribution(items),
      gen_(kRankSpace, theta,
           theta == ZipfianGenerator::kDefaultTheta ? kZetaDefaultTheta : Zeta(kRankSpace, theta)) {}

std::string ScrambledZipfianDistribution::Describe() const {
  return fmt::format("zipfian:{}", gen_.theta());
}

std::string LatestDistribution::Describe() const { return fmt::format("latest:{}", gen_.theta()); }

}  // namespace storebench::workload
