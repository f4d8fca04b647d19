#include "storebench/workload/key_distribution.h"

#include <array>
#include <vector>

#include <fmt/format.h>

#include "storebench/base/units.h"
#include "storebench/workload/zipfian.h"

namespace storebench::workload {
namespace {

using MakeResult = StatusOr<std::unique_ptr<KeyDistribution>>;

Status NoParams(std::span<const double> params, std::string_view flag, std::string_view spec,
                std::string_view form) {
  if (!params.empty()) return BadKeyDistributionSpec(flag, spec, "takes no parameters", form);
  return Status::Ok();
}

// Reads the optional θ shared by the zipfian family; YCSB's algorithm needs 0 < θ < 1.
StatusOr<double> Theta(std::span<const double> params, std::string_view flag, std::string_view spec,
                       std::string_view form) {
  if (params.size() > 1) return BadKeyDistributionSpec(flag, spec, "takes at most one parameter", form);
  const double theta = params.empty() ? ZipfianGenerator::kDefaultTheta : params[0];
  if (!(theta > 0 && theta < 1)) return BadKeyDistributionSpec(flag, spec, "THETA must be in (0, 1)", form);
  return theta;
}

constexpr std::string_view kUniformForm = "uniform";
constexpr std::string_view kZipfianForm = "zipfian[:THETA] (0<THETA<1, default 0.99)";
constexpr std::string_view kUnscrambledForm = "zipfian-unscrambled[:THETA]";
constexpr std::string_view kLatestForm = "latest[:THETA]";
constexpr std::string_view kHotspotForm = "hotspot[:HOT_KEYS,HOT_OPS] (fractions in [0,1], default 0.2,0.8)";
constexpr std::string_view kSequentialForm = "sequential";

MakeResult MakeUniform(std::span<const double> p, uint64_t items, std::string_view flag, std::string_view spec) {
  STOREBENCH_RETURN_IF_ERROR(NoParams(p, flag, spec, kUniformForm));
  return MakeResult(std::make_unique<UniformDistribution>(items));
}

template <typename Dist>
MakeResult MakeZipfLike(std::span<const double> p, uint64_t items, std::string_view flag, std::string_view spec,
                        std::string_view form) {
  StatusOr<double> theta = Theta(p, flag, spec, form);
  if (!theta.ok()) return theta.status();
  return MakeResult(std::make_unique<Dist>(items, *theta));
}

MakeResult MakeZipfian(std::span<const double> p, uint64_t items, std::string_view flag, std::string_view spec) {
  return MakeZipfLike<ScrambledZipfianDistribution>(p, items, flag, spec, kZipfianForm);
}

MakeResult MakeUnscrambled(std::span<const double> p, uint64_t items, std::string_view flag,
                           std::string_view spec) {
  return MakeZipfLike<ZipfianDistribution>(p, items, flag, spec, kUnscrambledForm);
}

MakeResult MakeLatest(std::span<const double> p, uint64_t items, std::string_view flag, std::string_view spec) {
  return MakeZipfLike<LatestDistribution>(p, items, flag, spec, kLatestForm);
}

MakeResult MakeHotspot(std::span<const double> p, uint64_t items, std::string_view flag, std::string_view spec) {
  if (p.size() != 0 && p.size() != 2) {
    return BadKeyDistributionSpec(flag, spec, "takes two parameters or none", kHotspotForm);
  }
  const double hot_keys = p.empty() ? 0.2 : p[0];
  const double hot_ops = p.empty() ? 0.8 : p[1];
  if (!(hot_keys >= 0 && hot_keys <= 1 && hot_ops >= 0 && hot_ops <= 1)) {
    return BadKeyDistributionSpec(flag, spec, "fractions must be in [0, 1]", kHotspotForm);
  }
  return MakeResult(std::make_unique<HotspotDistribution>(items, hot_keys, hot_ops));
}

MakeResult MakeSequential(std::span<const double> p, uint64_t items, std::string_view flag,
                          std::string_view spec) {
  STOREBENCH_RETURN_IF_ERROR(NoParams(p, flag, spec, kSequentialForm));
  return MakeResult(std::make_unique<SequentialDistribution>(items));
}

constexpr std::array<KeyDistributionInfo, 6> kRegistry{{
    {"uniform", kUniformForm, "every key equally likely", MakeUniform},
    {"zipfian", kZipfianForm, "YCSB scrambled zipfian: hot keys spread by FNV hash", MakeZipfian},
    {"zipfian-unscrambled", kUnscrambledForm, "YCSB zipfian: key 0 hottest, hot keys adjacent", MakeUnscrambled},
    {"latest", kLatestForm, "YCSB latest: the most recently inserted keys hottest", MakeLatest},
    {"hotspot", kHotspotForm, "a fraction of the keys gets a fraction of the operations", MakeHotspot},
    {"sequential", kSequentialForm, "0, 1, ..., n-1 and wrap", MakeSequential},
}};

}  // namespace

std::span<const KeyDistributionInfo> KeyDistributionRegistry() { return kRegistry; }

std::string KeyDistributionForms() {
  std::string out;
  for (const KeyDistributionInfo& info : kRegistry) {
    if (!out.empty()) out += " | ";
    out += info.form;
  }
  return out;
}

Status BadKeyDistributionSpec(std::string_view flag, std::string_view spec, std::string_view why,
                              std::string_view form) {
  return Status::InvalidArgument(fmt::format("{}: bad value '{}': {}; accepted: {}", flag, spec, why, form));
}

StatusOr<std::unique_ptr<KeyDistribution>> MakeKeyDistribution(std::string_view spec, uint64_t items,
                                                               std::string_view flag) {
  const size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  const KeyDistributionInfo* info = nullptr;
  for (const KeyDistributionInfo& candidate : kRegistry) {
    if (candidate.name == name) info = &candidate;
  }
  if (info == nullptr) {
    return BadKeyDistributionSpec(flag, spec, "unknown distribution", KeyDistributionForms());
  }
  if (items == 0) return BadKeyDistributionSpec(flag, spec, "the key space is empty (0 keys)", info->form);
  std::vector<double> params;
  if (colon != std::string_view::npos) {
    for (std::string_view part : Split(spec.substr(colon + 1), ',')) {
      StatusOr<double> value = ParseDouble(part, flag);
      if (!value.ok()) return BadKeyDistributionSpec(flag, spec, "parameters must be numbers", info->form);
      params.push_back(*value);
    }
  }
  return info->make(params, items, flag, spec);
}

HotspotDistribution::HotspotDistribution(uint64_t items, double hot_keys, double hot_ops)
    : KeyDistribution(items), hot_keys_(hot_keys), hot_ops_(hot_ops) {
  SetItemCount(items);
}

void HotspotDistribution::SetItemCount(uint64_t n) {
  items_ = n;
  hot_ = static_cast<uint64_t>(static_cast<double>(n) * hot_keys_);
  if (hot_ > n) hot_ = n;
}

uint64_t HotspotDistribution::Next(Random& rng) {
  const uint64_t cold = items_ - hot_;
  // An empty part cannot take its share of operations; the other part takes all.
  const bool hot = hot_ != 0 && (cold == 0 || rng.Bernoulli(hot_ops_));
  return hot ? rng.Uniform(hot_) : hot_ + rng.Uniform(cold);
}

std::string HotspotDistribution::Describe() const { return fmt::format("hotspot:{},{}", hot_keys_, hot_ops_); }

uint64_t SequentialDistribution::Next(Random& /*rng*/) {
  const uint64_t key = next_;
  next_ = next_ + 1 == items_ ? 0 : next_ + 1;
  return key;
}

void SequentialDistribution::SetItemCount(uint64_t n) {
  items_ = n;
  if (next_ >= n) next_ = 0;
}

}  // namespace storebench::workload
