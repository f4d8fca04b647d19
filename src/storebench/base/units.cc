#include "storebench/base/units.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

namespace storebench {
namespace {

// The length of the decimal number leading `text`: [+-] digits [. digits]
// [e|E [+-] digits], at least one digit before the exponent; 0 when none
// leads. The one number form every parser here accepts: no hexadecimal
// ("0x10"), no "inf" or "nan", no leading blanks (strtod takes them all).
size_t DecimalPrefix(std::string_view text) {
  size_t i = 0, digits = 0;
  auto is_digit = [&](size_t at) { return at < text.size() && text[at] >= '0' && text[at] <= '9'; };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  for (; is_digit(i); ++i) ++digits;
  if (i < text.size() && text[i] == '.')
    for (++i; is_digit(i); ++i) ++digits;
  if (digits == 0) return 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    if (is_digit(j)) {
      for (i = j; is_digit(i); ++i) {
      }
    }
  }
  // "0x…": a hexadecimal number is not a decimal one followed by a suffix.
  if (i < text.size() && (text[i] == 'x' || text[i] == 'X')) return 0;
  return i;
}

enum class Parsed { kOk, kMalformed, kTooLarge };

// Splits "12.5ms" into 12.5 and "ms".
Parsed SplitNumber(std::string_view text, double* value, std::string_view* suffix) {
  const size_t n = DecimalPrefix(text);
  if (n == 0) return Parsed::kMalformed;
  const std::string number(text.substr(0, n));
  errno = 0;
  const double v = std::strtod(number.c_str(), nullptr);
  // ERANGE is also an underflow (1e-400 reads as 0 or a denormal): that value
  // stands, and each caller's range says whether it is too small.
  if (!std::isfinite(v)) return Parsed::kTooLarge;
  *value = v;
  *suffix = text.substr(n);
  return Parsed::kOk;
}

Status Bad(std::string_view flag, std::string_view text, std::string_view form) {
  return Status::InvalidArgument(fmt::format("{}: invalid value '{}'; expected {}", flag, text, form));
}

Status TooLarge(std::string_view flag, std::string_view text, std::string_view form) {
  return Status::InvalidArgument(fmt::format("{}: '{}' is too large; expected {}", flag, text, form));
}

// The error for a value that did not split: malformed or too large.
Status NotANumber(Parsed why, std::string_view flag, std::string_view text, std::string_view form) {
  return why == Parsed::kTooLarge ? TooLarge(flag, text, form) : Bad(flag, text, form);
}

// "", "k"/"K", "M", "G": decimal multiples for rates and counts.
bool DecimalMultiplier(std::string_view suffix, double* mult) {
  if (suffix.empty()) *mult = 1;
  else if (suffix == "k" || suffix == "K") *mult = 1e3;
  else if (suffix == "M") *mult = 1e6;
  else if (suffix == "G") *mult = 1e9;
  else return false;
  return true;
}

}  // namespace

StatusOr<std::vector<std::string>> SplitShellWords(std::string_view text, std::string_view flag) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  auto bad = [&](const char* why) {
    return Status::InvalidArgument(
        fmt::format("{}: {} in '{}'; quote as a shell does, e.g. \"env FOO='a b' mpirun -n 2\"", flag, why, text));
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const size_t end = text.find('\'', i + 1);
      if (end == std::string_view::npos) return bad("unterminated single quote");
      word.append(text.substr(i + 1, end - i - 1));
      i = end;
    } else if (c == '"') {
      for (++i;; ++i) {
        if (i >= text.size()) return bad("unterminated double quote");
        if (text[i] == '"') break;
        if (text[i] == '\\' && i + 1 < text.size() && std::string_view("\"\\$`").find(text[i + 1]) != std::string_view::npos)
          ++i;
        word.push_back(text[i]);
      }
    } else if (c == '\\') {
      if (i + 1 >= text.size()) return bad("trailing backslash");
      word.push_back(text[++i]);
    } else {
      word.push_back(c);
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(text.substr(start));
      return out;
    }
    out.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

bool NumberTooLarge(std::string_view text) {
  double v = 0;
  std::string_view suffix;
  return SplitNumber(text, &v, &suffix) == Parsed::kTooLarge;
}

StatusOr<uint64_t> ParseDurationNs(std::string_view text, std::string_view flag) {
  constexpr std::string_view kForm = "a positive duration such as 500ms, 10s, 2m, 1h (units ns, us, ms, s, m, h)";
  double v = 0;
  std::string_view suf;
  if (Parsed why = SplitNumber(text, &v, &suf); why != Parsed::kOk) return NotANumber(why, flag, text, kForm);
  if (v < 0) return Bad(flag, text, kForm);
  double mult;
  if (suf.empty() || suf == "s" || suf == "sec") mult = 1e9;
  else if (suf == "ns") mult = 1;
  else if (suf == "us") mult = 1e3;
  else if (suf == "ms") mult = 1e6;
  else if (suf == "m" || suf == "min") mult = 60e9;
  else if (suf == "h") mult = 3600e9;
  else return Bad(flag, text, kForm);
  double ns = v * mult;
  if (ns > 1e18) return TooLarge(flag, text, kForm);
  return static_cast<uint64_t>(std::llround(ns));
}

StatusOr<uint64_t> ParseSize(std::string_view text, std::string_view flag) {
  constexpr std::string_view kForm = "a size in bytes such as 4096, 4k, 8KiB, 64M, 2G";
  double v = 0;
  std::string_view suf;
  if (Parsed why = SplitNumber(text, &v, &suf); why != Parsed::kOk) return NotANumber(why, flag, text, kForm);
  if (v < 0) return Bad(flag, text, kForm);
  std::string s(suf);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.size() > 1 && s.back() == 'b') s.pop_back();
  if (s.size() > 1 && s.back() == 'i') s.pop_back();
  double mult;
  if (s.empty() || s == "b") mult = 1;
  else if (s == "k") mult = 1024.0;
  else if (s == "m") mult = 1024.0 * 1024;
  else if (s == "g") mult = 1024.0 * 1024 * 1024;
  else if (s == "t") mult = 1024.0 * 1024 * 1024 * 1024;
  else return Bad(flag, text, kForm);
  double bytes = v * mult;
  if (bytes > 9e18) return TooLarge(flag, text, kForm);
  if (bytes != std::floor(bytes)) return Bad(flag, text, kForm);
  return static_cast<uint64_t>(bytes);
}

StatusOr<double> ParseRate(std::string_view text, std::string_view flag) {
  constexpr std::string_view kForm = "a positive rate such as 1000, 50k/s, 1.5M/s";
  double v = 0;
  std::string_view suf;
  if (Parsed why = SplitNumber(text, &v, &suf); why != Parsed::kOk) return NotANumber(why, flag, text, kForm);
  if (suf.size() >= 2 && suf.substr(suf.size() - 2) == "/s") suf.remove_suffix(2);
  double mult;
  if (!DecimalMultiplier(suf, &mult)) return Bad(flag, text, kForm);
  double rate = v * mult;
  if (!std::isfinite(rate)) return TooLarge(flag, text, kForm);
  if (!(rate > 0)) return Bad(flag, text, kForm);
  return rate;
}

StatusOr<uint64_t> ParseCount(std::string_view text, std::string_view flag) {
  constexpr std::string_view kForm = "a whole number such as 1000, 10k, 5e6, 2M";
  double v = 0;
  std::string_view suf;
  if (Parsed why = SplitNumber(text, &v, &suf); why != Parsed::kOk) return NotANumber(why, flag, text, kForm);
  if (v < 0) return Bad(flag, text, kForm);
  double mult;
  if (!DecimalMultiplier(suf, &mult)) return Bad(flag, text, kForm);
  double n = v * mult;
  if (n > 9e18) return TooLarge(flag, text, kForm);
  if (n != std::floor(n)) return Bad(flag, text, kForm);
  return static_cast<uint64_t>(n);
}

StatusOr<double> ParseDouble(std::string_view text, std::string_view flag) {
  constexpr std::string_view kForm = "a number such as 0.8 or -2.917";
  double v = 0;
  std::string_view suf;
  if (Parsed why = SplitNumber(text, &v, &suf); why != Parsed::kOk) return NotANumber(why, flag, text, kForm);
  if (!suf.empty()) return Bad(flag, text, kForm);
  return v;
}

std::string FormatDurationNs(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.2f} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

std::string FormatCount(double value) {
  std::string digits = fmt::format("{:.0f}", std::fabs(value));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (value <= -0.5 ? "-" : "") + out;
}

std::string FormatCompactCount(double v, std::string_view unit) {
  if (unit == "bytes") return FormatBytes(v);
  if (v >= 1e9) return fmt::format("{:.2f}G", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.2f}M", v / 1e6);
  if (v >= 10e3) return fmt::format("{:.1f}k", v / 1e3);
  if (v < 10 && v != std::floor(v)) return fmt::format("{:.1f}", v);
  return fmt::format("{:.0f}", v);
}

std::string JoinComma(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, units[u]);
}

}  // namespace storebench
