// The five whisper-* commands. Option handling follows optparse: options may be
// mixed with positional arguments, "--opt value" and "--opt=value", "--" ends them.
#include "storebench/whisper/tools.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "storebench/base/units.h"
#include "storebench/whisper/tools_output.h"
#include "storebench/whisper/whisper.h"

namespace storebench::whisper {
namespace {

struct OptionSpec {
  std::string name;        // "--from"
  std::string alias;       // "-t" or empty
  std::string value_form;  // empty: a flag; else the accepted form, for messages
};

struct Parsed {
  std::map<std::string, std::string> values;  // by OptionSpec::name; flags map to ""
  std::vector<std::string> args;
  bool help = false;  // -h/--help was given: the help went to stdout, exit 0
  bool Has(const std::string& name) const { return values.count(name) != 0; }
  const std::string* Get(const std::string& name) const {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
  }
};

struct Usage {
  std::ostream& err;
  std::string tool;
  std::string synopsis;       // "Usage: storebench whisper create path …"
  std::ostream* out = nullptr;  // where -h/--help prints
  int Fail(const std::string& message) const {
    err << tool << ": error: " << message << "\n";
    return 2;
  }
};

// Returns false after reporting a bad option on `usage`.
bool ParseOptions(const std::vector<std::string>& words, const std::vector<OptionSpec>& specs, const Usage& usage,
                  Parsed& out) {
  bool options_done = false;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (options_done || w.size() < 2 || w[0] != '-') {
      out.args.push_back(w);
      continue;
    }
    if (w == "--") {
      options_done = true;
      continue;
    }
    if (w == "-h" || w == "--help") {
      if (usage.out) {
        *usage.out << usage.synopsis << "\nOptions:\n  -h, --help  show this help and exit\n";
        for (const OptionSpec& spec : specs)
          *usage.out << "  " << (spec.alias.empty() ? "" : spec.alias + ", ") << spec.name
                     << (spec.value_form.empty() ? "" : " " + spec.value_form) << "\n";
      }
      out.help = true;
      return false;
    }
    std::string name = w, value;
    bool inline_value = false;
    if (size_t eq = w.find('='); w.starts_with("--") && eq != std::string::npos) {
      name = w.substr(0, eq), value = w.substr(eq + 1), inline_value = true;
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs) {
      if (s.name == name || (!s.alias.empty() && s.alias == name)) spec = &s;
    }
    if (spec == nullptr) {
      usage.Fail(fmt::format("no such option: {}", name));
      return false;
    }
    if (spec->value_form.empty()) {
      if (inline_value) {
        usage.Fail(fmt::format("{} option does not take a value", spec->name));
        return false;
      }
      out.values[spec->name] = "";
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= words.size()) {
        usage.Fail(fmt::format("{} option requires an argument: {} {}", name, spec->name, spec->value_form));
        return false;
      }
      value = words[++i];
    }
    out.values[spec->name] = value;
  }
  return true;
}

int64_t WallNow() { return static_cast<int64_t>(std::time(nullptr)); }

// int() of a decimal string, as optparse's type='int' and whisper-update accept it.
std::optional<int64_t> ParseInt(const std::string& s) {
  try {
    size_t used = 0;
    long long v = std::stoll(s, &used, 10);
    if (used != s.size()) return std::nullopt;
    return static_cast<int64_t>(v);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// float() of a string, as whisper-update and whisper-create's --xFilesFactor
// take it: surrounding spaces, any case of nan/inf/infinity with a sign, and
// a decimal out of double's range as inf or 0 (float('1e400') is inf).
std::optional<double> ParseFloat(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string::npos) return std::nullopt;
  const size_t last = text.find_last_not_of(" \t\n\r\f\v");
  std::string s = text.substr(first, last - first + 1);
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool negative = lower[0] == '-';
  const std::string bare = lower[0] == '-' || lower[0] == '+' ? lower.substr(1) : lower;
  if (bare == "nan") return negative ? -std::nan("") : std::nan("");
  if (bare == "inf" || bare == "infinity")
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  // Digits, one point, one exponent: what float() reads and strtod would widen (hex, "nan(...)") is refused.
  if (bare.empty() || bare.find_first_not_of("0123456789.e+-") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;  // ERANGE: ±inf or a value rounded toward 0, as Python gives
}

// --io exact|minimal|python (create, update, fetch): how the tool moves bytes;
// files and output are the same with each.
const OptionSpec kIoOption{"--io", "", "exact|minimal|python"};

bool ParseIo(const Parsed& p, const Usage& usage, IoOptions& io) {
  io.mode = IoMode::kMinimal;
  const std::string* v = p.Get(kIoOption.name);
  if (v == nullptr) return true;
  for (IoMode mode : {IoMode::kExact, IoMode::kMinimal, IoMode::kPythonUnbuffered}) {
    if (*v == IoModeName(mode)) {
      io.mode = mode;
      return true;
    }
  }
  usage.Fail(fmt::format("option --io: invalid choice: '{}' (choose from exact, minimal, python)", *v));
  return false;
}

int Error(std::ostream& err, const Status& st) {
  err << "[ERROR] " << st.message() << "\n";
  return 1;
}

// whisper-create.py --estimate: the file size of the archives `args` define
// (one argument each, or one comma-separated list) and for thousands of metrics.
int Estimate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> defs = args;
  if (defs.size() == 1 && defs[0].find(',') != std::string::npos && defs[0].find(',') > 0) {
    defs.clear();
    for (std::string_view d : Split(args[0], ',')) defs.emplace_back(d);
  }
  uint64_t archives = 0, total_points = 0;
  for (const std::string& d : defs) {
    StatusOr<ArchiveSpec> a = ParseRetentionDef(d);
    if (!a.ok()) return Error(err, a.status());
    out << fmt::format("Archive {}: {} points of {}s precision\n", archives++, a->points, a->seconds_per_point);
    total_points += a->points;
  }
  const uint64_t size = 16 + archives * 12 + total_points * 12;
  const auto disk = static_cast<uint64_t>(std::ceil(static_cast<double>(size) / 4096.0) * 4096);
  out << fmt::format("\nEstimated Whisper DB Size: {} ({} bytes on disk with 4k blocks)\n\n",
                     tools::ByteFormat(static_cast<double>(size)), disk);
  for (int x : {1, 5, 10, 50, 100, 500}) {
    out << fmt::format("Estimated storage requirement for {}k metrics: {}\n", x,
                       tools::ByteFormat(static_cast<double>(x) * 1000 * static_cast<double>(disk)));
  }
  return 0;
}

int Create(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  Usage usage{err, "whisper create", "Usage: storebench whisper create [options] path timePerPoint:timeToStore [timePerPoint:timeToStore]*", &out};
  Parsed p;
  if (!ParseOptions(words,
                    {{"--xFilesFactor", "", "FLOAT between 0 and 1"},
                     {"--aggregationMethod", "", "one of: " + AggregationNames()},
                     {"--overwrite", "", ""},
                     {"--estimate", "", ""},
                     {"--sparse", "", ""},
                     {"--fallocate", "", ""},
                     kIoOption},
                    usage, p)) {
    return p.help ? 0 : 2;
  }
  IoOptions io;
  if (!ParseIo(p, usage, io)) return 2;
  static const char* kUsage = "Usage: storebench whisper create path timePerPoint:timeToStore [timePerPoint:timeToStore]*\n";
  CreateOptions options;
  if (const std::string* x = p.Get("--xFilesFactor")) {
    std::optional<double> v = ParseFloat(*x);
    if (!v) return usage.Fail(fmt::format("option --xFilesFactor: invalid floating-point value: '{}'", *x));
    options.x_files_factor = *v;
  }
  if (p.Has("--estimate")) {
    if (p.args.empty()) {
      out << kUsage;
      return 1;
    }
    return Estimate(p.args, out, err);
  }
  if (p.args.size() < 2) {
    out << kUsage;
    return 1;
  }
  const std::string& path = p.args[0];
  std::vector<ArchiveSpec> archives;
  for (size_t i = 1; i < p.args.size(); ++i) {
    StatusOr<ArchiveSpec> a = ParseRetentionDef(p.args[i]);
    if (!a.ok()) return Error(err, a.status());
    archives.push_back(*a);
  }
  if (const std::string* m = p.Get("--aggregationMethod")) {
    StatusOr<AggregationMethod> method = ParseAggregation(*m);
    if (!method.ok()) return Error(err, method.status());
    options.aggregation = *method;
  }
  if (p.Has("--fallocate")) {
    options.allocation = Allocation::kFallocate;
  } else if (p.Has("--sparse")) {
    options.allocation = Allocation::kSparse;
  }
  struct stat st;
  if (p.Has("--overwrite") && ::stat(path.c_str(), &st) == 0) {
    out << "Overwriting existing file: " << path << "\n";
    // An immutable file (EPERM) or a directory (EISDIR) stays: say why, not "already exists".
    if (::unlink(path.c_str()) != 0) return Error(err, ErrnoStatus("remove the existing", path, errno));
  }
  Status s = whisper::Create(path, archives, options, io);
  if (!s.ok()) return Error(err, s);
  if (::stat(path.c_str(), &st) != 0) return Error(err, ErrnoStatus("stat", path, errno));
  out << fmt::format("Created: {} ({} bytes)\n", path, st.st_size);
  return 0;
}

int Update(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  Usage usage{err, "whisper update", "Usage: storebench whisper update [options] path timestamp:value [timestamp:value]*", &out};
  Parsed p;
  IoOptions io;
  if (!ParseOptions(words, {kIoOption}, usage, p)) return p.help ? 0 : 2;
  if (!ParseIo(p, usage, io)) return 2;
  if (p.args.size() < 2) {
    out << "Usage: storebench whisper update [options] path timestamp:value [timestamp:value]*\n";
    return 1;
  }
  const int64_t now = WallNow();
  std::vector<TimedValue> points;
  for (size_t i = 1; i < p.args.size(); ++i) {
    std::string text = p.args[i];
    if (text.starts_with("N:")) text = std::to_string(now) + text.substr(1);
    std::vector<std::string_view> parts = Split(text, ':');
    std::optional<int64_t> t = parts.size() == 2 ? ParseInt(std::string(parts[0])) : std::nullopt;
    std::optional<double> v = parts.size() == 2 ? ParseFloat(std::string(parts[1])) : std::nullopt;
    if (!t || !v) {
      return usage.Fail(fmt::format("invalid point '{}': expected timestamp:value, e.g. 1700000000:1.5 or N:1.5",
                                    p.args[i]));
    }
    points.push_back({*t, *v});
  }
  Status s = points.size() == 1 ? whisper::Update(p.args[0], points[0].value, points[0].timestamp, now, io)
                                : whisper::UpdateMany(p.args[0], points, now, io);
  return s.ok() ? 0 : Error(err, s);
}

int Fetch(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  Usage usage{err, "whisper fetch", "Usage: storebench whisper fetch [options] path", &out};
  Parsed p;
  if (!ParseOptions(words,
                    {{"--from", "", "UNIX_TIME"},
                     {"--until", "", "UNIX_TIME"},
                     {"--json", "", ""},
                     {"--pretty", "", ""},
                     {"--time-format", "-t", "STRFTIME_FORMAT"},
                     {"--drop", "", "nulls|zeroes|empty"},
                     kIoOption},
                    usage, p)) {
    return p.help ? 0 : 2;
  }
  IoOptions io;
  if (!ParseIo(p, usage, io)) return 2;
  const int64_t now = WallNow();
  int64_t from = now - 86400, until = now;
  for (auto [flag, target] : {std::pair{"--from", &from}, std::pair{"--until", &until}}) {
    if (const std::string* v = p.Get(flag)) {
      std::optional<int64_t> t = ParseInt(*v);
      if (!t) return usage.Fail(fmt::format("option {}: invalid integer value: '{}' (expected UNIX_TIME)", flag, *v));
      *target = *t;
    }
  }
  const std::string* drop = p.Get("--drop");
  if (drop != nullptr && *drop != "nulls" && *drop != "zeroes" && *drop != "empty") {
    return usage.Fail(fmt::format("option --drop: invalid choice: '{}' (choose from nulls, zeroes, empty)", *drop));
  }
  if (p.args.size() != 1) {
    out << "Usage: storebench whisper fetch [options] path\n";
    return 1;
  }
  StatusOr<std::optional<FetchResult>> r = whisper::Fetch(p.args[0], from, until, now, io);
  if (!r.ok()) return Error(err, r.status());
  if (!r->has_value()) {
    err << "No data in selected timerange\n";
    return 1;
  }
  FetchResult& data = **r;
  if (drop != nullptr) {
    std::vector<std::optional<double>> kept;
    for (const std::optional<double>& v : data.values) {
      bool keep = *drop == "nulls" ? v.has_value() : *drop == "zeroes" ? (!v || *v != 0) : (v && *v != 0);
      if (keep) kept.push_back(v);
    }
    data.values = std::move(kept);
  }
  if (p.Has("--json")) {
    out << fmt::format("{{\n    \"start\" : {},\n    \"end\" : {},\n    \"step\" : {},\n    \"values\" : {}\n  }}\n",
                       data.from, data.until, data.step, tools::PyListJson(data.values));
    return 0;
  }
  int64_t t = data.from;
  for (const std::optional<double>& v : data.values) {
    std::string time = p.Has("--pretty") ? tools::FormatTime(t, p.Get("--time-format")) : std::to_string(t);
    std::string value = !v ? "None" : std::isnan(*v) ? "nan" : fmt::format("{:f}", *v);
    out << time << "\t" << value << "\n";
    t += data.step;
  }
  return 0;
}

int Info(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  Usage usage{err, "whisper info", "Usage: storebench whisper info [options] path [field]", &out};
  Parsed p;
  if (!ParseOptions(words, {{"--json", "", ""}}, usage, p)) return p.help ? 0 : 2;
  if (p.args.empty()) {
    out << "Usage: storebench whisper info [options] path [field]\n";
    return 1;
  }
  const std::string& path = p.args[0];
  StatusOr<Header> h = whisper::Info(path);
  if (!h.ok()) return Error(err, h.status());
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Error(err, ErrnoStatus("stat", path, errno));
  const auto size = static_cast<uint64_t>(st.st_size);
  if (p.args.size() > 1) {
    std::optional<std::string> v = tools::InfoField(*h, size, p.args[1]);
    if (!v) {
      out << fmt::format("Unknown field \"{}\". Valid fields are {}\n", p.args[1], tools::InfoFieldNames());
      return 1;
    }
    out << *v << "\n";
    return 0;
  }
  out << (p.Has("--json") ? tools::InfoJson(*h, size) : tools::InfoText(*h, size));
  return 0;
}

int Dump(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  Usage usage{err, "whisper dump", "Usage: storebench whisper dump [options] path", &out};
  Parsed p;
  if (!ParseOptions(words, {{"--pretty", "", ""}, {"--time-format", "-t", "STRFTIME_FORMAT"}}, usage, p))
    return p.help ? 0 : 2;
  if (p.args.size() != 1) return usage.Fail("require one input file name");
  const std::string& path = p.args[0];
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    err << fmt::format("[ERROR] File \"{}\" does not exist!\n", path);
    return 1;
  }
  StatusOr<std::unique_ptr<WhisperFile>> f = WhisperFile::Open(path, OpenMode::kRead, IoOptions{});
  if (!f.ok()) return Error(err, f.status());
  StatusOr<Header> h = (*f)->ReadHeader();
  if (!h.ok()) return Error(err, h.status());
  out << tools::DumpHeaderText(*h);
  for (size_t i = 0; i < h->archives.size(); ++i) {
    const ArchiveInfo& a = h->archives[i];
    std::vector<uint8_t> bytes(a.size_bytes());
    Status s = (*f)->ReadAt(a.offset, bytes.data(), bytes.size());
    if (!s.ok()) return Error(err, s);
    out << "Archive " << i << " data:\n";
    for (uint32_t j = 0; j < a.points; ++j) {
      Point pt = DecodePoint(bytes.data() + size_t{j} * kPointSize);
      std::string time = p.Has("--pretty") ? tools::FormatTime(pt.timestamp, p.Get("--time-format"))
                                           : std::to_string(pt.timestamp);
      out << tools::DumpPointLine(j, time, pt.value);
    }
  }
  return 0;
}

}  // namespace

int RunWhisperTool(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  static const std::map<std::string, int (*)(const std::vector<std::string>&, std::ostream&, std::ostream&)>
      kTools = {{"create", Create}, {"update", Update}, {"fetch", Fetch}, {"info", Info}, {"dump", Dump}};
  auto it = args.empty() ? kTools.end() : kTools.find(args[0]);
  if (it == kTools.end()) {
    err << "whisper: error: expected a command: create|update|fetch|info|dump\n";
    return 2;
  }
  return it->second(args, out, err);
}

}  // namespace storebench::whisper
