#include "storebench/workload/mixgraph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

#include <fmt/format.h>

namespace storebench::workload {
namespace {

// db_bench converts doubles with static_cast<int64_t>(ceil(x)). Out of range
// (only u → 0 with a heavy tail) that is undefined behaviour; on x86-64, where
// db_bench runs, cvttsd2si yields INT64_MIN. We return the same value, defined.
int64_t CeilToInt64(double x) {
  const double c = std::ceil(x);
  constexpr double kTwo63 = 9223372036854775808.0;
  if (!(c >= -kTwo63 && c < kTwo63)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(c);
}

// The generalized Pareto inverse CDF db_bench calls ParetoCdfInversion.
int64_t ParetoInverse(double u, double theta, double k, double sigma) {
  const double v = k == 0.0 ? theta - sigma * std::log(u) : theta + sigma * (std::pow(u, -k) - 1) / k;
  return CeilToInt64(v);
}

Status BadFlag(std::string_view flag, std::string_view why) {
  return Status::InvalidArgument(fmt::format("--{}: {}", flag, why));
}

}  // namespace

uint64_t Mt19937_64FirstOutput(uint64_t seed) {
  // std::mt19937_64 seeds x[i] = f·(x[i−1] ⊕ (x[i−1] >> 62)) + i, then its first
  // output twists x[0] with x[1] and x[156] and tempers the result.
  constexpr uint64_t kF = 6364136223846793005ULL;
  constexpr uint64_t kUpper = ~uint64_t{0} << 31;
  uint64_t x = seed;
  const uint64_t x0 = x;
  uint64_t x1 = 0;
  for (uint64_t i = 1; i <= 156; ++i) {
    x = kF * (x ^ (x >> 62)) + i;
    if (i == 1) x1 = x;
  }
  const uint64_t y = (x0 & kUpper) | (x1 & ~kUpper);
  uint64_t z = x ^ (y >> 1) ^ ((y & 1) ? 0xb5026f5aa96619e9ULL : 0);
  z ^= (z >> 29) & 0x5555555555555555ULL;
  z ^= (z << 17) & 0x71d67fffeda60000ULL;
  z ^= (z << 37) & 0xfff7eee000000000ULL;
  z ^= z >> 43;
  return z;
}

StatusOr<Mixgraph> Mixgraph::Create(const MixgraphConfig& config, uint64_t num) {
  Mixgraph m;
  m.config_ = config;
  m.num_ = num;
  if (num == 0 || num > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return BadFlag("num", "must be in [1, 2^63)");
  }
  const std::array<double, 3> ratios{config.mix_get_ratio, config.mix_put_ratio, config.mix_seek_ratio};
  double sum = 0;
  for (double r : ratios) {
    if (!(r >= 0 && std::isfinite(r))) return BadFlag("mix_get_ratio", "ratios must be finite and >= 0");
    sum += r;
  }
  if (!(sum > 0)) return BadFlag("mix_get_ratio", "mix_get_ratio + mix_put_ratio + mix_seek_ratio must be > 0");
  int64_t total = 0;
  for (size_t i = 0; i < ratios.size(); ++i) {
    total += static_cast<int64_t>(std::ceil(1000 * (ratios[i] / sum)));
    m.thresholds_[i] = total;
  }
  m.read_fraction_ = (ratios[0] + ratios[2]) / sum;
  if (config.mix_max_scan_len < 1) return BadFlag("mix_max_scan_len", "must be >= 1");
  if (config.mix_max_value_size < 1) return BadFlag("mix_max_value_size", "must be >= 1");
  m.value_max_ = std::min<int64_t>(int64_t{1} << 20, config.mix_max_value_size);
  if (config.keyrange_num < 1) return BadFlag("keyrange_num", "must be >= 1");
  if (config.sine_mix_rate_noise < 0 || config.sine_mix_rate_noise > 1) {
    return BadFlag("sine_mix_rate_noise", "must be in [0, 1]");
  }
  m.power_keys_ = config.key_dist_a != 0 && config.key_dist_b != 0;
  if (m.power_keys_ && !(config.key_dist_a > 0)) {
    return BadFlag("key_dist_a", "must be > 0 (the power model y = a·x^b) or 0 for uniform keys");
  }
  const bool ranges = config.keyrange_dist_a != 0 || config.keyrange_dist_b != 0 || config.keyrange_dist_c != 0 ||
                      config.keyrange_dist_d != 0;
  // db_bench builds the ranges whenever a keyrange_dist flag is set but uses
  // them only with the power model; without it keys are uniform (r mod num).
  if (ranges && m.power_keys_) STOREBENCH_RETURN_IF_ERROR(m.BuildKeyRanges());
  return m;
}

Status Mixgraph::BuildKeyRanges() {
  const int64_t count = config_.keyrange_num;
  range_size_ = static_cast<int64_t>(num_) / count;
  if (range_size_ < 1) return BadFlag("keyrange_num", fmt::format("{} ranges exceed the {} keys", count, num_));
  // Hotness is evaluated from the last range to the first, as db_bench does;
  // amplify comes from the first positive hotness met in that order.
  int64_t amplify = 0;
  int64_t start = 0;
  ranges_.clear();
  ranges_.reserve(static_cast<size_t>(count));
  for (int64_t x = count; x >= 1; --x) {
    const double xd = static_cast<double>(x);
    double p = config_.keyrange_dist_a * std::exp(config_.keyrange_dist_b * xd) +
               config_.keyrange_dist_c * std::exp(config_.keyrange_dist_d * xd);
    if (!(p >= 1e-16)) p = 0;
    if (amplify == 0 && p > 0) amplify = static_cast<int64_t>(std::floor(1 / p)) + 1;
    const double slots = p > 0 ? std::floor(static_cast<double>(amplify) * p) : 0;
    if (slots > static_cast<double>(int64_t{1} << 62) / static_cast<double>(count)) {
      return BadFlag("keyrange_dist_a", "key-range hotness a·e^(b·x) + c·e^(d·x) spans too many orders of magnitude");
    }
    ranges_.push_back({start, static_cast<int64_t>(slots)});
    start += static_cast<int64_t>(slots);
  }
  range_slot_total_ = start;
  if (range_slot_total_ <= 0) {
    return BadFlag("keyrange_dist_a", "a·e^(b·x) + c·e^(d·x) is not positive for any key range");
  }
  // db_bench's Random64 is std::mt19937_64; seeding it with the slot total
  // makes the shuffle a function of the hotness parameters alone.
  std::mt19937_64 shuffle(static_cast<uint64_t>(range_slot_total_));
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t pos = shuffle() % static_cast<uint64_t>(count);
    std::swap(ranges_[static_cast<size_t>(i)], ranges_[pos]);
  }
  int64_t offset = 0;
  for (KeyRange& range : ranges_) {
    range.start = offset;
    offset += range.slots;
  }
  return Status::Ok();
}

MixgraphOpType Mixgraph::OpType(uint64_t rand_v) const {
  const int64_t pos = static_cast<int64_t>(rand_v % static_cast<uint64_t>(thresholds_[2]));
  for (size_t i = 0; i < thresholds_.size(); ++i) {
    if (pos < thresholds_[i]) return static_cast<MixgraphOpType>(i);
  }
  return MixgraphOpType::kGet;
}

uint64_t Mixgraph::PowerSeed(double u) const {
  const int64_t seed = CeilToInt64(std::pow(u / config_.key_dist_a, 1 / config_.key_dist_b));
  return static_cast<uint64_t>(seed);
}

uint64_t Mixgraph::PowerKey(double u, uint64_t modulus) const {
  return Mt19937_64FirstOutput(PowerSeed(u)) % modulus;
}

uint64_t Mixgraph::Key(uint64_t ini_rand) const {
  if (!power_keys_) return ini_rand;
  if (ranges_.empty()) return PowerKey(static_cast<double>(ini_rand) / static_cast<double>(num_), num_);
  const int64_t slot = static_cast<int64_t>(ini_rand % static_cast<uint64_t>(range_slot_total_));
  // The last range whose first slot is ≤ slot: db_bench's binary search, which
  // skips ranges with no slots because they share their start with the next.
  const auto it = std::upper_bound(ranges_.begin(), ranges_.end(), slot,
                                   [](int64_t s, const KeyRange& range) { return s < range.start; });
  const auto index = static_cast<uint64_t>(it - ranges_.begin() - 1);
  const auto size = static_cast<uint64_t>(range_size_);
  const double u = static_cast<double>(ini_rand % size) / static_cast<double>(size);
  return size * index + PowerKey(u, size);
}

uint64_t Mixgraph::ValueSize(double u) const {
  int64_t v = ParetoInverse(u, config_.value_theta, config_.value_k, config_.value_sigma);
  if (v < 10) {
    v = 10;
  } else if (v > value_max_) {
    v %= value_max_;
  }
  return static_cast<uint64_t>(v);
}

uint64_t Mixgraph::ScanLength(double u) const {
  const int64_t len = ParetoInverse(u, config_.iter_theta, config_.iter_k, config_.iter_sigma) %
                      config_.mix_max_scan_len;
  // A negative length makes db_bench's `j < scan_length` loop run zero times.
  return len < 0 ? 0 : static_cast<uint64_t>(len);
}

MixgraphOp Mixgraph::Draw(uint64_t r) const {
  const uint64_t ini_rand = r % num_;
  const double u = static_cast<double>(ini_rand) / static_cast<double>(num_);
  MixgraphOp op;
  op.type = OpType(ini_rand);
  op.key = Key(ini_rand);
  if (op.type == MixgraphOpType::kPut) op.value_size = ValueSize(u);
  if (op.type == MixgraphOpType::kSeek) op.scan_length = ScanLength(u);
  return op;
}

double Mixgraph::SineRate(double seconds) const {
  return config_.sine_a * std::sin(config_.sine_b * seconds + config_.sine_c) + config_.sine_d;
}

double Mixgraph::AddNoise(double rate, uint64_t noise_draw) const {
  const double noise = config_.sine_mix_rate_noise;
  if (noise < 0 || noise > 1) return rate;
  const double a = std::clamp(config_.sine_a, -9e18, 9e18);
  const auto band = static_cast<int64_t>(a);
  if (band == 0) return rate;
  const auto magnitude = static_cast<uint64_t>(band < 0 ? -band : band);
  const auto rem = static_cast<int64_t>(noise_draw % magnitude);
  const double delta = static_cast<double>(rem - band / 2) * noise;
  return rate + delta < 0 ? rate : rate + delta;
}

std::vector<int64_t> Mixgraph::KeyRangeSlots() const {
  std::vector<int64_t> slots;
  slots.reserve(ranges_.size());
  for (const KeyRange& range : ranges_) slots.push_back(range.slots);
  return slots;
}

}  // namespace storebench::workload
