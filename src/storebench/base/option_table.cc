#include "storebench/base/option_table.h"

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
