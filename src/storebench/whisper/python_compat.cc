#include "storebench/whisper/python_compat.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace storebench::whisper {
namespace {

constexpr size_t kMinSize = 8;       // PySet_MINSIZE
constexpr size_t kLinearProbes = 9;  // LINEAR_PROBES
constexpr int kPerturbShift = 5;     // PERTURB_SHIFT

using Table = std::vector<std::optional<int64_t>>;

// set_insert_clean(); with `dedupe` it is set_add_entry()'s probe sequence,
// which visits the same slots and stops early on an equal key.
bool Insert(Table& table, int64_t key, bool dedupe) {
  const size_t mask = table.size() - 1;
  size_t perturb = static_cast<size_t>(key);
  size_t i = static_cast<size_t>(key) & mask;
  for (;;) {
    const size_t probes = i + kLinearProbes <= mask ? kLinearProbes : 0;
    for (size_t j = 0; j <= probes; ++j) {
      std::optional<int64_t>& slot = table[i + j];
      if (!slot) {
        slot = key;
        return true;
      }
      if (dedupe && *slot == key) return false;
    }
    perturb >>= kPerturbShift;
    i = (i * 5 + 1 + perturb) & mask;
  }
}

}  // namespace

std::vector<int64_t> CPythonSetOrder(const std::vector<int64_t>& values) {
  Table table(kMinSize);
  size_t used = 0;
  for (int64_t v : values) {
    if (!Insert(table, v, true)) continue;
    ++used;  // no deletions, so fill == used
    const size_t mask = table.size() - 1;
    if (used * 5 < mask * 3) continue;
    // set_table_resize(used * 4): old entries are re-inserted in table order.
    size_t new_size = kMinSize;
    const size_t min_used = used > 50000 ? used * 2 : used * 4;
    while (new_size <= min_used) new_size <<= 1;
    Table old(new_size);
    old.swap(table);
    for (const std::optional<int64_t>& e : old) {
      if (e) Insert(table, *e, false);
    }
  }
  std::vector<int64_t> out;
  out.reserve(used);
  for (const std::optional<int64_t>& e : table) {
    if (e) out.push_back(*e);
  }
  return out;
}

std::string PyFloatRepr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  // Shortest digits in scientific form, then laid out as float_repr_style 'short' does.
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(end - buf));
  std::string sign;
  if (s.front() == '-') sign = "-", s.remove_prefix(1);
  size_t e = s.find('e');
  int exp10 = std::atoi(std::string(s.substr(e + 1)).c_str());
  std::string digits;
  for (char c : s.substr(0, e)) {
    if (c != '.') digits += c;
  }
  const int decpt = exp10 + 1;  // position of the decimal point relative to the digits
  if (decpt > -4 && decpt <= 16) {
    std::string out;
    if (decpt <= 0) {
      out = "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
    } else if (static_cast<size_t>(decpt) >= digits.size()) {
      out = digits + std::string(static_cast<size_t>(decpt) - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(decpt)) + "." + digits.substr(static_cast<size_t>(decpt));
    }
    return sign + out;
  }
  std::string mant = digits.size() > 1 ? digits.substr(0, 1) + "." + digits.substr(1) : digits;
  char ebuf[16];
  std::snprintf(ebuf, sizeof(ebuf), "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
  return sign + mant + ebuf;
}

}  // namespace storebench::whisper
