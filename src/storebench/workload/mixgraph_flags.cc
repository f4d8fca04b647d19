// db_bench's mixgraph flag names: parsing "--name=value" / "--name value"
// arguments into a MixgraphConfig and formatting one back.
#include <array>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "storebench/base/units.h"
#include "storebench/workload/mixgraph.h"

namespace storebench::workload {
namespace {

// One flag: its name and the config member it sets (exactly one pointer is set).
struct FlagField {
  std::string_view name;
  double MixgraphConfig::*real = nullptr;
  int64_t MixgraphConfig::*integer = nullptr;
  uint64_t MixgraphConfig::*unsigned_integer = nullptr;
  bool MixgraphConfig::*boolean = nullptr;
};

constexpr FlagField Real(std::string_view n, double MixgraphConfig::*m) { return {n, m, nullptr, nullptr, nullptr}; }
constexpr FlagField Int(std::string_view n, int64_t MixgraphConfig::*m) { return {n, nullptr, m, nullptr, nullptr}; }

using C = MixgraphConfig;
constexpr std::array<FlagField, 25> kFields{{
    Real("mix_get_ratio", &C::mix_get_ratio),
    Real("mix_put_ratio", &C::mix_put_ratio),
    Real("mix_seek_ratio", &C::mix_seek_ratio),
    Int("mix_max_scan_len", &C::mix_max_scan_len),
    Int("mix_max_value_size", &C::mix_max_value_size),
    Real("key_dist_a", &C::key_dist_a),
    Real("key_dist_b", &C::key_dist_b),
    Real("keyrange_dist_a", &C::keyrange_dist_a),
    Real("keyrange_dist_b", &C::keyrange_dist_b),
    Real("keyrange_dist_c", &C::keyrange_dist_c),
    Real("keyrange_dist_d", &C::keyrange_dist_d),
    Int("keyrange_num", &C::keyrange_num),
    Real("value_theta", &C::value_theta),
    Real("value_k", &C::value_k),
    Real("value_sigma", &C::value_sigma),
    Real("iter_theta", &C::iter_theta),
    Real("iter_k", &C::iter_k),
    Real("iter_sigma", &C::iter_sigma),
    Real("sine_a", &C::sine_a),
    Real("sine_b", &C::sine_b),
    Real("sine_c", &C::sine_c),
    Real("sine_d", &C::sine_d),
    {"sine_mix_rate", nullptr, nullptr, nullptr, &C::sine_mix_rate},
    {"sine_mix_rate_interval_milliseconds", nullptr, nullptr, &C::sine_mix_rate_interval_milliseconds, nullptr},
    Real("sine_mix_rate_noise", &C::sine_mix_rate_noise),
}};

constexpr std::array<std::string_view, kFields.size()> kNames = [] {
  std::array<std::string_view, kFields.size()> names{};
  for (size_t i = 0; i < kFields.size(); ++i) names[i] = kFields[i].name;
  return names;
}();

const FlagField* Find(std::string_view name) {
  for (const FlagField& field : kFields) {
    if (field.name == name) return &field;
  }
  return nullptr;
}

// gflags' boolean spellings; *ok is false when `text` is none of them.
bool ParseBool(std::string_view text, bool* ok) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  *ok = true;
  if (lower == "true" || lower == "t" || lower == "yes" || lower == "y" || lower == "1") return true;
  if (lower == "false" || lower == "f" || lower == "no" || lower == "n" || lower == "0") return false;
  *ok = false;
  return false;
}

}  // namespace

std::span<const std::string_view> MixgraphFlagNames() { return kNames; }

bool IsMixgraphFlag(std::string_view name) { return Find(name) != nullptr; }

Status SetMixgraphFlag(std::string_view name, std::string_view value, MixgraphConfig* config) {
  const FlagField* field = Find(name);
  const std::string flag = fmt::format("--{}", name);
  if (field == nullptr) {
    return Status::InvalidArgument(
        fmt::format("{}: not a mixgraph flag; accepted: --{}", flag, fmt::join(kNames, ", --")));
  }
  if (field->real != nullptr) {
    StatusOr<double> v = ParseDouble(value, flag);
    if (!v.ok()) return v.status();
    config->*field->real = *v;
  } else if (field->integer != nullptr || field->unsigned_integer != nullptr) {
    StatusOr<uint64_t> v = ParseCount(value, flag);
    if (!v.ok()) return v.status();
    if (field->integer != nullptr) {
      if (*v > static_cast<uint64_t>(INT64_MAX)) {
        return Status::InvalidArgument(fmt::format("{}: '{}' is out of range", flag, value));
      }
      config->*field->integer = static_cast<int64_t>(*v);
    } else {
      config->*field->unsigned_integer = *v;
    }
  } else {
    bool ok = false;
    const bool b = ParseBool(value, &ok);
    if (!ok) return Status::InvalidArgument(fmt::format("{}: bad value '{}'; accepted: true or false", flag, value));
    config->*field->boolean = b;
  }
  return Status::Ok();
}

Status ParseMixgraphFlags(std::span<const std::string_view> args, MixgraphConfig* config,
                          std::vector<std::string_view>* rest) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    std::string_view body = arg;
    if (body.starts_with("--")) {
      body.remove_prefix(2);
    } else if (body.starts_with("-")) {
      body.remove_prefix(1);
    } else {
      body = {};
    }
    const size_t eq = body.find('=');
    std::string_view name = body.substr(0, eq);
    const FlagField* field = body.empty() ? nullptr : Find(name);
    // gflags' negated boolean: --nosine_mix_rate.
    if (field == nullptr && eq == std::string_view::npos && name.starts_with("no")) {
      const FlagField* negated = Find(name.substr(2));
      if (negated != nullptr && negated->boolean != nullptr) {
        config->*negated->boolean = false;
        continue;
      }
    }
    if (field == nullptr) {
      if (rest == nullptr) {
        if (body.empty()) return Status::InvalidArgument(fmt::format("unexpected argument '{}'", arg));
        return SetMixgraphFlag(name, "", config);
      }
      rest->push_back(arg);
      continue;
    }
    if (eq != std::string_view::npos) {
      STOREBENCH_RETURN_IF_ERROR(SetMixgraphFlag(name, body.substr(eq + 1), config));
    } else if (field->boolean != nullptr) {
      // A bare boolean is true; a following true/false literal is its value.
      bool ok = false;
      const bool b = i + 1 < args.size() ? ParseBool(args[i + 1], &ok) : false;
      config->*field->boolean = ok ? b : true;
      if (ok) ++i;
    } else {
      if (i + 1 >= args.size()) {
        return Status::InvalidArgument(fmt::format("--{}: missing value; accepted: --{}=VALUE or --{} VALUE",
                                                   name, name, name));
      }
      STOREBENCH_RETURN_IF_ERROR(SetMixgraphFlag(name, args[++i], config));
    }
  }
  return Status::Ok();
}

std::vector<std::string> FormatMixgraphFlags(const MixgraphConfig& config) {
  std::vector<std::string> out;
  out.reserve(kFields.size());
  for (const FlagField& f : kFields) {
    if (f.real != nullptr) {
      out.push_back(fmt::format("--{}={}", f.name, config.*f.real));
    } else if (f.integer != nullptr) {
      out.push_back(fmt::format("--{}={}", f.name, config.*f.integer));
    } else if (f.unsigned_integer != nullptr) {
      out.push_back(fmt::format("--{}={}", f.name, config.*f.unsigned_integer));
    } else {
      out.push_back(fmt::format("--{}={}", f.name, config.*f.boolean));
    }
  }
  return out;
}

}  // namespace storebench::workload
