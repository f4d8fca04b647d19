// OptionTable<T>: a plug-in's options, each declared once — name, type,
// range, choices, default, help and the member of the plug-in's own struct
// the value goes to — as fio's `struct fio_option` tables do. One generic
// parser fills the struct from text values; the CLI's --help, the job files
// and `matrix`'s checks are all generated from the same table, so no plug-in
// parses text itself.
//
// Values travel as text (OptionValues: name -> text, as a user writes them),
// which is what a job file stores; Apply() turns them into the typed struct,
// with one error line naming the flag and the accepted form.
// Thread-safety: a table is built once and read-only afterwards.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/base/units.h"

namespace storebench {

// Option values as given (text), by option name without dashes.
using OptionValues = std::map<std::string, std::string>;

// The value of option `name`, empty when it was neither given nor defaulted.
inline std::string OptionValue(const OptionValues& values, const std::string& name) {
  auto it = values.find(name);
  return it == values.end() ? std::string() : it->second;
}

enum class OptionType { kInteger, kCount, kSize, kDuration, kRate, kNumber, kEnum, kFlag, kPath, kText };

// One option as the CLI, --help, job files and matrix see it (type-erased).
struct OptionSpec {
  std::string name;            // without dashes, e.g. "block-size"
  OptionType type = OptionType::kText;
  std::string help;            // one line; choices and range are added by Help()
  std::string default_value;   // empty = none
  std::vector<std::string> choices;  // kEnum: the accepted words
  std::string range;           // e.g. "1 to 4096"; empty = any
  std::string form;            // accepted form for kText/kPath options with a grammar, e.g. "spin:DURATION"

  bool is_flag() const { return type == OptionType::kFlag; }
  // Whether an empty value means something: only where "" is one of the
  // choices. Elsewhere a given empty value is refused, never read as absent.
  bool empty_ok() const;
  // The help line with choices, range and form.
  std::string Help() const;
};

// Refuses a name that no spec has: one line listing the owner's options.
Status UnknownOption(const std::string& name, const std::string& owner, const std::vector<OptionSpec>& specs);

// Helpers shared by every table (option_table.cc).
// An on/off value: "1"/"true" on, "0"/"false" off.
Status SetFlag(bool* out, const std::string& text, std::string_view flag);
StatusOr<int64_t> ParseInteger(std::string_view text, std::string_view flag, int64_t lo, int64_t hi);
std::string RangeText(int64_t lo, int64_t hi, OptionType type = OptionType::kInteger);
std::string FormatNumberRange(double lo, double hi);
Status OutOfRange(const std::string& flag, const std::string& range, const std::string& got);
Status BadChoice(const std::string& flag, const std::vector<std::string>& words, const std::string& got);
// The one refusal of a given empty value, for tables and the command line
// alike: EmptyValue() is "--NAME: " and EmptyValueReason().
Status EmptyValue(const OptionSpec& spec);
std::string EmptyValueReason(const OptionSpec& spec);


template <typename T>
class OptionTable {
 public:
  using Setter = std::function<Status(T&, const std::string&)>;
  // Runs after every value is set: checks across options, and values made from several options.
  using Check = std::function<Status(T&)>;

  explicit OptionTable(std::string owner) : owner_(std::move(owner)) {}

  // Whole numbers, e.g. "8", within [lo, hi].
  template <typename I>
  OptionTable& Integer(std::string name, I T::*field, std::string help, std::string def, int64_t lo, int64_t hi) {
    std::string flag = "--" + name;
    return Add({name, OptionType::kInteger, std::move(help), std::move(def), {}, RangeText(lo, hi), ""},
               [field, flag, lo, hi](T& t, const std::string& v) -> Status {
                 auto n = ParseInteger(v, flag, lo, hi);
                 if (!n.ok()) return n.status();
                 t.*field = static_cast<I>(*n);
                 return Status::Ok();
               });
  }
  // Counts with decimal suffixes ("5e6", "10k"), within [lo, hi].
  template <typename I>
  OptionTable& Count(std::string name, I T::*field, std::string help, std::string def, uint64_t lo = 0,
                     uint64_t hi = std::numeric_limits<uint64_t>::max()) {
    return Numeric(OptionType::kCount, std::move(name), field, std::move(help), std::move(def), lo, hi, &ParseCount);
  }
  // Sizes with binary suffixes ("4k", "1M"), within [lo, hi] bytes.
  template <typename I>
  OptionTable& Size(std::string name, I T::*field, std::string help, std::string def, uint64_t lo = 0,
                    uint64_t hi = std::numeric_limits<uint64_t>::max()) {
    return Numeric(OptionType::kSize, std::move(name), field, std::move(help), std::move(def), lo, hi, &ParseSize);
  }
  // Durations ("10s", "250ms") in nanoseconds, within [lo, hi].
  OptionTable& Duration(std::string name, uint64_t T::*field, std::string help, std::string def, uint64_t lo = 0,
                        uint64_t hi = std::numeric_limits<uint64_t>::max()) {
    return Numeric(OptionType::kDuration, std::move(name), field, std::move(help), std::move(def), lo, hi,
                   &ParseDurationNs);
  }
  // Rates ("50k/s") in ops/s; "0" is accepted when `zero_ok` (it then means "no limit").
  OptionTable& Rate(std::string name, double T::*field, std::string help, std::string def, bool zero_ok) {
    std::string flag = "--" + name;
    return Add({name, OptionType::kRate, std::move(help), std::move(def), {}, zero_ok ? "0 = unthrottled" : "", ""},
               [field, flag, zero_ok](T& t, const std::string& v) -> Status {
                 if (zero_ok && v == "0") {
                   t.*field = 0;
                   return Status::Ok();
                 }
                 auto r = ParseRate(v, flag);
                 if (!r.ok()) return r.status();
                 t.*field = *r;
                 return Status::Ok();
               });
  }
  // Plain numbers ("0.8") within [lo, hi].
  OptionTable& Number(std::string name, double T::*field, std::string help, std::string def, double lo, double hi) {
    std::string flag = "--" + name;
    std::string range = FormatNumberRange(lo, hi);
    return Add({name, OptionType::kNumber, std::move(help), std::move(def), {}, range, ""},
               [field, flag, lo, hi, range](T& t, const std::string& v) -> Status {
                 auto d = ParseDouble(v, flag);
                 if (!d.ok()) return d.status();
                 if (!(*d >= lo && *d <= hi)) return OutOfRange(flag, range, v);
                 t.*field = *d;
                 return Status::Ok();
               });
  }
  // One word of `choices` (several words may map to one value: aliases).
  template <typename E>
  OptionTable& Enum(std::string name, E T::*field, std::vector<std::pair<std::string, E>> choices, std::string help,
                    std::string def) {
    OptionSpec spec{name, OptionType::kEnum, std::move(help), std::move(def), {}, "", ""};
    for (const auto& [word, value] : choices) spec.choices.push_back(word);
    std::string flag = "--" + name;
    std::vector<std::string> words = spec.choices;
    return Add(std::move(spec), [field, flag, choices, words](T& t, const std::string& v) -> Status {
      for (const auto& [word, value] : choices) {
        if (v == word) {
          t.*field = value;
          return Status::Ok();
        }
      }
      return BadChoice(flag, words, v);
    });
  }
  // On/off: present = "1"; "0" is off (job files, matrix).
  OptionTable& Flag(std::string name, bool T::*field, std::string help) {
    std::string flag = "--" + name;
    return Add({name, OptionType::kFlag, std::move(help), "", {}, "", ""},
               [field, flag](T& t, const std::string& v) { return SetFlag(&(t.*field), v, flag); });
  }
  // A file or directory path (not checked here: opening it is the plug-in's job).
  OptionTable& Path(std::string name, std::string T::*field, std::string help) {
    return Add({name, OptionType::kPath, std::move(help), "", {}, "", ""}, [field](T& t, const std::string& v) {
      t.*field = v;
      return Status::Ok();
    });
  }
  // Text with a grammar of its own, checked by `check` (may be empty).
  OptionTable& Text(std::string name, std::string T::*field, std::string help, std::string def, std::string form,
                    std::function<Status(const std::string&)> check = {}) {
    return Add({name, OptionType::kText, std::move(help), std::move(def), {}, "", std::move(form)},
               [field, check](T& t, const std::string& v) -> Status {
                 if (check) STOREBENCH_RETURN_IF_ERROR(check(v));
                 t.*field = v;
                 return Status::Ok();
               });
  }
  // Text with a grammar of its own, parsed once by `parse` into a typed member
  // (V or std::optional<V>): what is checked is what is kept.
  // `parse` takes the text and returns a StatusOr of the member's value.
  template <typename M, typename Parse>
  OptionTable& Parsed(std::string name, M T::*field, std::string help, std::string def, std::string form,
                      Parse parse) {
    return Add({name, OptionType::kText, std::move(help), std::move(def), {}, "", std::move(form)},
               [field, parse](T& t, const std::string& v) -> Status {
                 auto parsed = parse(v);
                 if (!parsed.ok()) return parsed.status();
                 t.*field = std::move(*parsed);
                 return Status::Ok();
               });
  }
  // An option whose value is parsed into several members, or into an optional:
  // `set` gets the text. The spec still declares type, form and default.
  OptionTable& Custom(OptionSpec spec, Setter set) { return Add(std::move(spec), std::move(set)); }

  // A check across options (or a value made from several), run after every value is set.
  OptionTable& Require(Check check) {
    checks_.push_back(std::move(check));
    return *this;
  }

  const std::vector<OptionSpec>& Specs() const { return specs_; }
  const std::string& owner() const { return owner_; }

  // Defaults first, then `values`; a name the table lacks is refused, and so
  // is an empty value given for an option where "" means nothing.
  Status Apply(const OptionValues& values, T* out) const {
    for (size_t i = 0; i < specs_.size(); ++i) {
      auto it = values.find(specs_[i].name);
      if (it != values.end() && it->second.empty() && !specs_[i].empty_ok()) return EmptyValue(specs_[i]);
      const std::string& text = it != values.end() ? it->second : specs_[i].default_value;
      if (text.empty()) continue;
      STOREBENCH_RETURN_IF_ERROR(setters_[i](*out, text));
    }
    for (const auto& [name, text] : values) {
      if (!Find(name)) return UnknownOption(name, owner_, specs_);
    }
    for (const Check& c : checks_) STOREBENCH_RETURN_IF_ERROR(c(*out));
    return Status::Ok();
  }

  StatusOr<T> Parse(const OptionValues& values) const {
    T t{};
    STOREBENCH_RETURN_IF_ERROR(Apply(values, &t));
    return t;
  }

  const OptionSpec* Find(const std::string& name) const {
    for (const OptionSpec& s : specs_)
      if (s.name == name) return &s;
    return nullptr;
  }

  // `values` with every default filled in (what a resolved job records).
  OptionValues WithDefaults(const OptionValues& values) const {
    OptionValues out;
    for (const OptionSpec& s : specs_)
      if (!s.default_value.empty()) out[s.name] = s.default_value;
    for (const auto& [k, v] : values) out[k] = v;
    return out;
  }

 private:
  OptionTable& Add(OptionSpec spec, Setter set) {
    specs_.push_back(std::move(spec));
    setters_.push_back(std::move(set));
    return *this;
  }

  template <typename I>
  OptionTable& Numeric(OptionType type, std::string name, I T::*field, std::string help, std::string def, uint64_t lo,
                       uint64_t hi, StatusOr<uint64_t> (*parse)(std::string_view, std::string_view)) {
    std::string flag = "--" + name;
    std::string range = RangeText(static_cast<int64_t>(std::min<uint64_t>(lo, INT64_MAX)),
                                  static_cast<int64_t>(std::min<uint64_t>(hi, INT64_MAX)), type);
    return Add({name, type, std::move(help), std::move(def), {}, range, ""},
               [field, flag, lo, hi, range, parse](T& t, const std::string& v) -> Status {
                 auto n = parse(v, flag);
                 if (!n.ok()) return n.status();
                 if (*n < lo || *n > hi) return OutOfRange(flag, range, v);
                 if constexpr (std::is_same_v<I, std::optional<uint64_t>>) {
                   t.*field = *n;
                 } else {
                   t.*field = static_cast<I>(*n);
                 }
                 return Status::Ok();
               });
  }

  std::string owner_;
  std::vector<OptionSpec> specs_;
  std::vector<Setter> setters_;
  std::vector<Check> checks_;
};

}  // namespace storebench
