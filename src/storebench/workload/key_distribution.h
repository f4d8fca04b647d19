// Key distributions: which key index an operation touches, for every backend
// (RocksDB key numbers, file block numbers, whisper metric ids).
//
// A KeyDistribution maps draws from a caller-owned Random to key indexes in
// [0, item_count()). Distributions are built from a spec string by
// MakeKeyDistribution() ("zipfian:0.99", "hotspot:0.2,0.8", …); the registry
// below lists every accepted name with its form, for help text and errors.
//
// Costs: Next() is O(1) and allocates nothing for every distribution.
// Construction is O(1) except for zipfian-unscrambled/latest over n keys, which
// compute ζ(n, θ) exactly in O(n) for n ≤ 65,536 and otherwise in O(4,096) by
// exact summation of the head plus an Euler–Maclaurin tail (relative error
// below 1e-12). SetItemCount() growing by ≤ 4,096 keys adds the new terms
// exactly (O(Δ)); larger jumps recompute as at construction.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "storebench/base/status.h"
#include "storebench/workload/random.h"

namespace storebench::workload {

// The interface every key distribution implements.
// Thread-safety: a distribution is a per-thread object (sequential and latest
// keep state that Next/SetItemCount change); distinct objects are independent.
class KeyDistribution {
 public:
  virtual ~KeyDistribution() = default;

  // Draws the next key index, in [0, item_count()), consuming draws from rng.
  virtual uint64_t Next(Random& rng) = 0;

  // Resizes the key space to n ≥ 1 keys, e.g. after inserts; for `latest` this
  // is the insert counter (the newest key is n − 1).
  virtual void SetItemCount(uint64_t n) = 0;

  // The canonical spec that rebuilds this distribution ("zipfian:0.99").
  virtual std::string Describe() const = 0;

  // The current size of the key space.
  uint64_t item_count() const { return items_; }

  // Grows the key space by `count` inserted keys.
  void AddItems(uint64_t count) { SetItemCount(items_ + count); }

 protected:
  explicit KeyDistribution(uint64_t items) : items_(items) {}
  uint64_t items_;
};

// One entry of the registry: a distribution name, its accepted spec form and
// what it draws. `make` receives the parsed numeric parameters (possibly none).
struct KeyDistributionInfo {
  std::string_view name;
  std::string_view form;
  std::string_view summary;
  StatusOr<std::unique_ptr<KeyDistribution>> (*make)(std::span<const double> params, uint64_t items,
                                                     std::string_view flag, std::string_view spec);
};

// Every registered distribution, in help-text order.
std::span<const KeyDistributionInfo> KeyDistributionRegistry();

// Builds the distribution described by `spec` ("name[:p1[,p2]]") over `items`
// keys; InvalidArgument naming `flag` and the accepted forms on bad input.
StatusOr<std::unique_ptr<KeyDistribution>> MakeKeyDistribution(std::string_view spec, uint64_t items,
                                                               std::string_view flag = "--key-dist");

// "uniform | zipfian[:THETA] | …": the accepted forms, for help and error text.
std::string KeyDistributionForms();

// The InvalidArgument every spec error uses: "<flag>: bad value '<spec>': <why>; accepted: <form>".
Status BadKeyDistributionSpec(std::string_view flag, std::string_view spec, std::string_view why,
                              std::string_view form);

// Uniform over [0, n): every key equally likely.
class UniformDistribution final : public KeyDistribution {
 public:
  explicit UniformDistribution(uint64_t items) : KeyDistribution(items) {}
  uint64_t Next(Random& rng) override { return rng.Uniform(items_); }
  void SetItemCount(uint64_t n) override { items_ = n; }
  std::string Describe() const override { return "uniform"; }
};

// YCSB's hotspot: a fraction `hot_keys` of the key space (the lowest indexes)
// receives a fraction `hot_ops` of the operations, uniformly inside each part.
class HotspotDistribution final : public KeyDistribution {
 public:
  HotspotDistribution(uint64_t items, double hot_keys, double hot_ops);
  uint64_t Next(Random& rng) override;
  void SetItemCount(uint64_t n) override;
  std::string Describe() const override;
  // Number of keys in the hot set, [0, hot_count()).
  uint64_t hot_count() const { return hot_; }

 private:
  double hot_keys_;
  double hot_ops_;
  uint64_t hot_ = 0;
};

// 0, 1, …, n − 1, 0, 1, …: a wrapping scan of the key space.
class SequentialDistribution final : public KeyDistribution {
 public:
  explicit SequentialDistribution(uint64_t items) : KeyDistribution(items) {}
  uint64_t Next(Random& rng) override;
  void SetItemCount(uint64_t n) override;
  std::string Describe() const override { return "sequential"; }

 private:
  uint64_t next_ = 0;
};

}  // namespace storebench::workload
