// mixgraph: the workload model of Cao et al. (FAST'20) exactly as RocksDB's
// db_bench 7.x applies it (--benchmarks=mixgraph), with db_bench's flag names.
//
// db_bench takes one 64-bit draw r per operation; r mod num feeds the op type,
// the key, the value size and the scan length, so they are correlated (a hot
// key tends to come with a given value size). Mixgraph::Draw(r) reproduces that
// mapping: for the same r, num and flags it yields the key db_bench would use,
// including the key-range shuffle and the per-key generator, which db_bench
// seeds into std::mt19937_64 (its Random64) — reproduced bit for bit here.
//
// One deliberate difference: without key ranges db_bench computes
// `static_cast<int64_t>(Random64(seed).Next()) % num`, which is negative for
// half of the seeds and yields keys outside [0, num). storebench reduces the
// unsigned value instead (as db_bench itself does inside key ranges), so every
// key exists; keys with a non-negative db_bench result are identical.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/base/status.h"

namespace storebench::workload {

// db_bench's mixgraph flags, same names and defaults. A plain value, built once by the CLI.
struct MixgraphConfig {
  double mix_get_ratio = 1.0;
  double mix_put_ratio = 0.0;
  double mix_seek_ratio = 0.0;
  int64_t mix_max_scan_len = 10000;
  int64_t mix_max_value_size = 1024;
  double key_dist_a = 0.0;
  double key_dist_b = 0.0;
  double keyrange_dist_a = 0.0;
  double keyrange_dist_b = 0.0;
  double keyrange_dist_c = 0.0;
  double keyrange_dist_d = 0.0;
  int64_t keyrange_num = 1;
  double value_theta = 0.0;
  double value_k = 0.2615;
  double value_sigma = 25.45;
  double iter_theta = 0.0;
  double iter_k = 2.517;
  double iter_sigma = 14.236;
  double sine_a = 1.0;
  double sine_b = 1.0;
  double sine_c = 0.0;
  double sine_d = 1.0;
  bool sine_mix_rate = false;
  uint64_t sine_mix_rate_interval_milliseconds = 10000;
  double sine_mix_rate_noise = 0.0;
};

// The flag names ParseMixgraphFlags() accepts, without dashes, in db_bench's spelling.
std::span<const std::string_view> MixgraphFlagNames();

// True when `name` (without dashes) is one of MixgraphFlagNames().
bool IsMixgraphFlag(std::string_view name);

// Sets one flag by name (without dashes) from its text; InvalidArgument naming
// "--<name>" and the accepted form for unknown names or bad values.
Status SetMixgraphFlag(std::string_view name, std::string_view value, MixgraphConfig* config);

// Parses db_bench-style arguments ("--name=value", "--name value", "-name=value";
// booleans also bare "--sine_mix_rate" or "--nosine_mix_rate") into *config.
// Arguments that are not mixgraph flags are appended to *rest when it is given
// and are an InvalidArgument otherwise.
Status ParseMixgraphFlags(std::span<const std::string_view> args, MixgraphConfig* config,
                          std::vector<std::string_view>* rest = nullptr);

// The flags as "--name=value" tokens, in MixgraphFlagNames() order: for the run's JSON and for replay.
std::vector<std::string> FormatMixgraphFlags(const MixgraphConfig& config);

enum class MixgraphOpType : uint8_t { kGet = 0, kPut = 1, kSeek = 2 };

// One operation: type, key index in [0, num), value size in bytes (puts only,
// else 0) and the number of Next() calls after the Seek (seeks only, else 0).
struct MixgraphOp {
  MixgraphOpType type = MixgraphOpType::kGet;
  uint64_t key = 0;
  uint64_t value_size = 0;
  uint64_t scan_length = 0;
};

// The first output of std::mt19937_64 seeded with `seed`, computed from the
// 157 state words it depends on instead of all 312 (≈3× cheaper, no 2.5 KB state).
uint64_t Mt19937_64FirstOutput(uint64_t seed);

// The mixgraph model for one key space: op mix, key mapping, value sizes,
// scan lengths and the sine rate, all precomputed from a MixgraphConfig.
// Thread-safety: immutable after Create(); Draw and the other const methods
// may be called from any number of threads on one shared object.
class Mixgraph {
 public:
  // The model for the db_bench defaults over one key; use Create() for a real one.
  Mixgraph() = default;

  // Validates `config` for a key space of `num` keys and precomputes the op
  // thresholds and key ranges (O(keyrange_num)); InvalidArgument naming the flag on bad input.
  static StatusOr<Mixgraph> Create(const MixgraphConfig& config, uint64_t num);

  // The operation db_bench performs for the raw 64-bit draw r. O(log keyrange_num), no allocation.
  MixgraphOp Draw(uint64_t r) const;
  // Draw() fed from any 64-bit generator (storebench's Random, std::mt19937_64 for db_bench's stream).
  template <typename Rng>
  MixgraphOp Next(Rng& rng) const {
    return Draw(rng());
  }

  // The op type for r mod num: the first i with (r mod num) mod T_last < T_i.
  MixgraphOpType OpType(uint64_t rand_v) const;
  // The key index for ini_rand = r mod num.
  uint64_t Key(uint64_t ini_rand) const;
  // ceil((u/a)^(1/b)): the power model's seed for u in [0, 1).
  uint64_t PowerSeed(double u) const;
  // The value size for u: the generalized Pareto inverse, < 10 → 10, > value_max → mod value_max.
  uint64_t ValueSize(double u) const;
  // The scan length for u: the generalized Pareto inverse with the iter_ parameters, mod mix_max_scan_len.
  uint64_t ScanLength(double u) const;

  // A·sin(B·t + C) + D ops/s at t seconds since the start.
  double SineRate(double seconds) const;
  // db_bench's AddNoise: rate + ((noise_draw mod ⌊A⌋) − ⌊A⌋/2)·noise, unchanged when that
  // would go below 0 or noise is outside [0, 1]; noise_draw replaces db_bench's rand().
  double AddNoise(double rate, uint64_t noise_draw) const;
  // Fraction of operations that read (get + seek) and that write (put); db_bench splits the rate so.
  double read_fraction() const { return read_fraction_; }
  double write_fraction() const { return 1.0 - read_fraction_; }

  // Cumulative thresholds T_get, T_put, T_seek (T_seek = T_last ≤ 1003).
  const std::array<int64_t, 3>& thresholds() const { return thresholds_; }
  // True when the keyrange_dist_* flags select the key-range (prefix) model.
  bool uses_key_ranges() const { return !ranges_.empty(); }
  // For each key range in key order: its number of slots out of key_range_slot_total().
  std::vector<int64_t> KeyRangeSlots() const;
  int64_t key_range_slot_total() const { return range_slot_total_; }
  int64_t key_range_size() const { return range_size_; }
  uint64_t num() const { return num_; }
  const MixgraphConfig& config() const { return config_; }

 private:
  // A key range as db_bench's KeyrangeUnit; its index in ranges_ (after the
  // shuffle) is its position in the key space: keys [index·size, (index+1)·size).
  struct KeyRange {
    int64_t start = 0;  // first slot of this range in [0, range_slot_total_)
    int64_t slots = 0;  // floor(amplify · hotness)
  };
  Status BuildKeyRanges();
  uint64_t PowerKey(double u, uint64_t modulus) const;

  MixgraphConfig config_;
  uint64_t num_ = 1;
  std::array<int64_t, 3> thresholds_{1000, 1000, 1000};
  double read_fraction_ = 1.0;
  int64_t value_max_ = 1024;
  bool power_keys_ = false;  // key_dist_a and key_dist_b both non-zero
  std::vector<KeyRange> ranges_;  // shuffled order, as db_bench's keyrange_set_
  int64_t range_slot_total_ = 0;
  int64_t range_size_ = 0;
};

}  // namespace storebench::workload
