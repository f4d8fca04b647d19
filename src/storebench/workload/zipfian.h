// YCSB's zipfian family: the rank generator of Gray et al. ("Quickly
// generating billion-record synthetic databases", SIGMOD'94) as YCSB's
// ZipfianGenerator implements it, and the three key distributions built on it.
//
// Rank i (0-based) is drawn with probability close to (i+1)^−θ / ζ(n, θ):
// exactly for ranks 0 and 1, by a continuous approximation beyond — the same
// approximation YCSB makes, so results are comparable with YCSB's.
#pragma once

#include <cstdint>
#include <string>

#include "storebench/workload/key_distribution.h"
#include "storebench/workload/random.h"

namespace storebench::workload {

// ζ(n, θ) = Σ_{i=1..n} i^−θ: exact for n ≤ 65,536, otherwise exact head of
// 4,096 terms plus an Euler–Maclaurin tail (relative error < 1e-12).
double Zeta(uint64_t n, double theta);

// YCSB's fnvhash64: FNV-1 over the 8 little-endian bytes of v, made non-negative as Java's Math.abs does.
uint64_t FnvHash64(uint64_t v);

// The zipfian rank generator: ranks in [0, items), rank 0 the most popular.
// Thread-safety: Next() is const and may be called concurrently;
// SetItemCount() must not race with anything.
class ZipfianGenerator {
 public:
  // YCSB's constant for the default θ = 0.99.
  static constexpr double kDefaultTheta = 0.99;

  // Precomputes ζ(items, θ); requires items ≥ 1 and 0 < θ < 1.
  ZipfianGenerator(uint64_t items, double theta);
  // As above with ζ(items, θ) supplied (YCSB's ScrambledZipfian passes a constant).
  ZipfianGenerator(uint64_t items, double theta, double zetan);

  // Draws a rank in [0, items()) from one uniform double of rng.
  uint64_t Next(Random& rng) const { return RankFor(rng.NextDouble()); }
  // The rank the generator returns for the uniform draw u in [0, 1).
  uint64_t RankFor(double u) const;

  // Changes the number of items, updating ζ incrementally when it grows a little.
  void SetItemCount(uint64_t items);

  uint64_t items() const { return items_; }
  double theta() const { return theta_; }
  double zetan() const { return zetan_; }

 private:
  void Derive();
  uint64_t items_;
  double theta_;
  double zetan_;
  double alpha_ = 0;
  double eta_ = 0;
  double rank1_bound_ = 0;  // 1 + 0.5^θ: u·ζ below it means rank 1
};

// The common part of the distributions whose ranks span the whole key space
// (zipfian-unscrambled, latest): resizing resizes the rank generator.
class RankedKeyDistribution : public KeyDistribution {
 public:
  void SetItemCount(uint64_t n) override {
    items_ = n;
    gen_.SetItemCount(n);
  }
  const ZipfianGenerator& generator() const { return gen_; }

 protected:
  RankedKeyDistribution(uint64_t items, double theta) : KeyDistribution(items), gen_(items, theta) {}
  ZipfianGenerator gen_;
};

// `zipfian-unscrambled:θ`: key = rank, so key 0 is the hottest and hot keys are adjacent.
class ZipfianDistribution final : public RankedKeyDistribution {
 public:
  ZipfianDistribution(uint64_t items, double theta) : RankedKeyDistribution(items, theta) {}
  uint64_t Next(Random& rng) override { return gen_.Next(rng); }
  std::string Describe() const override;
};

// `zipfian:θ` (YCSB's ScrambledZipfianGenerator): a rank drawn over YCSB's
// fixed 10^10 items, hashed with FnvHash64 and reduced mod n, so hot keys are
// spread over the key space and the popularity order does not depend on n.
// For θ = 0.99 ζ is YCSB's constant; otherwise it is computed (O(4,096)).
class ScrambledZipfianDistribution final : public KeyDistribution {
 public:
  static constexpr uint64_t kRankSpace = 10'000'000'000ULL;
  static constexpr double kZetaDefaultTheta = 26.46902820178302;

  ScrambledZipfianDistribution(uint64_t items, double theta);
  uint64_t Next(Random& rng) override { return FnvHash64(gen_.Next(rng)) % items_; }
  void SetItemCount(uint64_t n) override { items_ = n; }
  std::string Describe() const override;
  const ZipfianGenerator& generator() const { return gen_; }

 private:
  ZipfianGenerator gen_;
};

// `latest:θ` (YCSB's SkewedLatestGenerator): the newest keys are the hottest;
// key = (n − 1) − rank over the n keys inserted so far. Call SetItemCount /
// AddItems as inserts complete so the hot spot follows them.
class LatestDistribution final : public RankedKeyDistribution {
 public:
  LatestDistribution(uint64_t items, double theta) : RankedKeyDistribution(items, theta) {}
  uint64_t Next(Random& rng) override { return items_ - 1 - gen_.Next(rng); }
  std::string Describe() const override;
};

}  // namespace storebench::workload
