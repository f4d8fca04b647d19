#include "storebench/base/option_table.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace storebench {

std::string OptionSpec::Help() const {
  std::string h = help;
  if (!choices.empty()) h += fmt::format(": {}", fmt::join(choices, " | "));
  if (!form.empty()) h += fmt::format(" ({})", form);
  if (!range.empty()) h += fmt::format(" [{}]", range);
  return h;
}

bool OptionSpec::empty_ok() const { return std::find(choices.begin(), choices.end(), "") != choices.end(); }

namespace {

// What a value of `spec` looks like, for a message.
std::string FormOf(const OptionSpec& spec) {
  if (!spec.choices.empty()) return fmt::format("{}", fmt::join(spec.choices, " | "));
  if (!spec.form.empty()) return spec.form;
  switch (spec.type) {
    case OptionType::kCount: return "a whole number such as 1000 or 10k";
    case OptionType::kSize: return "a size such as 4096 or 4k";
    case OptionType::kDuration: return "a duration such as 500ms or 10s";
    case OptionType::kRate: return "a rate such as 50k/s";
    case OptionType::kFlag: return "no value (1 or 0 in job files)";
    case OptionType::kPath: return "a path";
    default: return spec.range.empty() ? "a value" : spec.range;
  }
}

}  // namespace

std::string EmptyValueReason(const OptionSpec& spec) {
  return fmt::format("an empty value means nothing here; give {} or leave the flag out", FormOf(spec));
}

Status EmptyValue(const OptionSpec& spec) {
  return Status::InvalidArgument(fmt::format("--{}: {}", spec.name, EmptyValueReason(spec)));
}

Status UnknownOption(const std::string& name, const std::string& owner, const std::vector<OptionSpec>& specs) {
  std::string names;
  for (const OptionSpec& s : specs) names += (names.empty() ? "--" : ", --") + s.name;
  return Status::InvalidArgument(fmt::format("--{}: not an option of {} (its options: {})", name, owner,
                                             names.empty() ? std::string("none") : names));
}

Status SetFlag(bool* out, const std::string& text, std::string_view flag) {
  if (text != "1" && text != "0" && text != "true" && text != "false")
    return Status::InvalidArgument(
        fmt::format("{}: an on/off flag takes no value (1 or 0 in job files); got '{}'", flag, text));
  *out = text == "1" || text == "true";
  return Status::Ok();
}

StatusOr<int64_t> ParseInteger(std::string_view text, std::string_view flag, int64_t lo, int64_t hi) {
  int64_t n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec == std::errc::result_out_of_range && p == text.data() + text.size())
    return Status::InvalidArgument(fmt::format("{}: '{}' is too {}; expected a whole number from {} to {}", flag, text,
                                               text.starts_with('-') ? "small" : "large", lo, hi));
  if (ec != std::errc() || p != text.data() + text.size() || n < lo || n > hi)
    return Status::InvalidArgument(fmt::format("{}: expected a whole number from {} to {}; got '{}'", flag, lo, hi, text));
  return n;
}

std::string RangeText(int64_t lo, int64_t hi, OptionType type) {
  const bool open_top = hi == INT64_MAX;
  if (lo <= 0 && open_top && type != OptionType::kInteger) return "";
  auto show = [type](int64_t v) {
    if (type == OptionType::kSize) return FormatBytes(static_cast<double>(v));
    if (type == OptionType::kDuration) return FormatDurationNs(static_cast<double>(v));
    return fmt::format("{}", v);
  };
  if (open_top) return fmt::format("at least {}", show(lo));
  return fmt::format("{} to {}", show(lo), show(hi));
}

std::string FormatNumberRange(double lo, double hi) { return fmt::format("{:g} to {:g}", lo, hi); }

Status OutOfRange(const std::string& flag, const std::string& range, const std::string& got) {
  return Status::InvalidArgument(fmt::format("{}: expected {}; got '{}'", flag, range, got));
}

Status BadChoice(const std::string& flag, const std::vector<std::string>& words, const std::string& got) {
  return Status::InvalidArgument(fmt::format("{}: expected {}; got '{}'", flag, fmt::join(words, " | "), got));
}

}  // namespace storebench
