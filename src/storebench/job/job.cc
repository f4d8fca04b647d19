#include "storebench/job/job.h"

#include <nlohmann/json.hpp>
#include <fmt/format.h>
#include <filesystem>

#include "storebench/base/json_file.h"
#include "storebench/driver/schedule.h"
#include "storebench/driver/threads.h"
#include "storebench/job/result_document.h"

namespace storebench::job {
namespace {

// The JSON key of option NAME: dashes become underscores (what `compare` turns back into flags).
std::string Key(std::string name) {
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

std::string Name(std::string key) {
  for (char& c : key)
    if (c == '_') c = '-';
  return key;
}

StatusOr<std::string> ValueText(const nlohmann::json& v, const std::string& where) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  if (v.is_boolean()) return std::string(v.get<bool>() ? "1" : "0");
  return Status::InvalidArgument(fmt::format("{}: expected a string or a number", where));
}

// --hiccup-period: "auto" (driver::RunConfig::kHiccupAuto), "off" (0) or a
// duration from 100us to 1s.
StatusOr<uint64_t> ParseHiccupPeriod(const std::string& text) {
  if (text == "auto") return driver::RunConfig::kHiccupAuto;
  if (text == "off") return uint64_t{0};
  auto ns = ParseDurationNs(text, "--hiccup-period");
  if (!ns.ok() || *ns < 100'000 || *ns > 1'000'000'000)
    return Status::InvalidArgument(
        fmt::format("--hiccup-period: '{}' is not auto, off or a duration from 100us to 1s (e.g. 1ms)", text));
  return *ns;
}

constexpr const char* kTwoPhaseForm = "a fraction of the measured capacity in (0, 2] such as 0.8, or a rate such as 40000/s";

Status BadTwoPhase(const std::string& text, std::string_view why) {
  return Status::InvalidArgument(fmt::format("--two-phase: '{}' {}; expected {}", text, why, kTwoPhaseForm));
}

// A fraction (a plain number) or a rate (ending in /s); each wrong form says what is wrong with it.
StatusOr<TwoPhase> ParseTwoPhase(const std::string& text) {
  TwoPhase t;
  t.on = true;
  const bool rate = text.size() > 2 && text.ends_with("/s");
  if (NumberTooLarge(text)) return BadTwoPhase(text, "is too large");
  if (rate) {
    auto r = ParseRate(text, "--two-phase");
    if (!r.ok()) return BadTwoPhase(text, "is not a positive rate");
    t.rate = *r;
    return t;
  }
  auto v = ParseDouble(text, "--two-phase");
  if (!v.ok()) {
    if (ParseRate(text, "--two-phase").ok()) return BadTwoPhase(text, "is a rate without /s (a rate ends in /s)");
    return BadTwoPhase(text, "is neither a fraction nor a rate");
  }
  if (!(*v > 0) || *v > 2) return BadTwoPhase(text, "is a fraction outside (0, 2]");
  t.fraction = *v;
  return t;
}

// Phase 2's rate is known only after phase 1; what can be refused before is a
// given rate, or a fraction, too small for the run to hold one arrival even
// at the fastest capacity a schedule can express (driver::kMaxRatePerSec).
Status CheckTwoPhaseFitsRun(const CoreOptions& o) {
  if (!o.two_phase.on) return Status::Ok();
  const bool given_rate = o.two_phase.rate > 0;
  driver::ScheduleSpec phase2 = *driver::ParseSchedule("constant:1");
  phase2.rate = given_rate ? o.two_phase.rate : o.two_phase.fraction * driver::kMaxRatePerSec;
  const uint64_t run_ns = o.duration_ns ? o.warmup_ns + o.duration_ns : 0;
  if (driver::CheckScheduleFitsRun(phase2, run_ns, o.ops, "--two-phase").ok()) return Status::Ok();
  const std::string value = given_rate ? fmt::format("{:g}/s", o.two_phase.rate) : fmt::format("{:g}", o.two_phase.fraction);
  return BadTwoPhase(value, fmt::format("is too small: phase 2 would have fewer than one arrival in {}{}",
                                        run_ns ? "--warmup and --duration" : "the 146 years --ops may take",
                                        given_rate ? "" : " even at the fastest capacity a schedule can express (1e9/s)"));
}

}  // namespace

const OptionTable<CoreOptions>& CoreOptionTable() {
  static const OptionTable<CoreOptions> table = [] {
    OptionTable<CoreOptions> t("run");
    t.Integer("threads", &CoreOptions::threads, "worker threads (closed loop) or arrival streams (open loop)", "1", 1,
              4096)
        .Integer("iodepth", &CoreOptions::iodepth, "ops in flight per worker (async backends and read methods)", "1", 1,
                 65536)
        .Duration("duration", &CoreOptions::duration_ns, "measured time after warm-up, e.g. 10s, 2m; a run needs --duration or --ops (with both, whichever limit comes first ends it)", "", 1)
        .Count("ops", &CoreOptions::ops, "measured ops in total over every group and thread, e.g. 1M; a run needs --ops or --duration (with both, whichever comes first)", "",
               1)
        .Duration("warmup", &CoreOptions::warmup_ns, "time before measuring, excluded from results, e.g. 2s", "0")
        .Count("max-errors", &CoreOptions::max_errors,
               "end the run once this many measured ops have failed (exit 1, results written); 0 = never", "0")
        .Number("max-error-ratio", &CoreOptions::max_error_ratio,
                "the run fails (exit 1, results written) when more than this share of its measured ops failed; "
                "1 = never",
                "0.01", 0, 1)
        .Parsed("schedule", &CoreOptions::schedule, "arrivals", "",
                "closed | constant:RATE | poisson:RATE | sine:A,B,C,D | steps:DUR@RATE,... | trace:FILE",
                [](const std::string& v) { return driver::ParseSchedule(v, "--schedule"); })
        .Parsed("two-phase", &CoreOptions::two_phase,
                "measure closed-loop capacity, then run open loop at this fraction of it or at this rate", "",
                "a fraction in (0, 2] such as 0.8, or a rate such as 40k/s", &ParseTwoPhase)
        .Duration("interval", &CoreOptions::interval_ns, "reporting interval, e.g. 1s, 500ms", "1s", 1'000'000)
        .Integer("seed", &CoreOptions::seed, "seed for every random draw", "1", 0, INT64_MAX)
        .Integer("histogram-digits", &CoreOptions::histogram_digits, "significant digits of latency histograms", "3",
                 1, 5)
        .Enum("cache", &CoreOptions::cache,
              {{"asis", io::CacheState::kAsIs},
               {"warm", io::CacheState::kWarm},
               {"cold", io::CacheState::kCold},
               {"drop", io::CacheState::kDrop}},
              "page-cache state of the backend's data set before each run: warm (read through), cold (fsync + "
              "fadvise), drop (drop_caches, root), asis",
              "asis")
        .Enum("dispatch", &CoreOptions::dispatch,
              {{"shared", driver::Dispatch::kShared}, {"partitioned", driver::Dispatch::kPartitioned}},
              "open loop: shared = any free worker takes the group's next due arrival (a server's threads); "
              "partitioned = each worker owns 1/N of the arrivals (one connection each)",
              "shared")
        .Enum("wait", &CoreOptions::wait,
              {{"adaptive", driver::WaitMode::kAdaptive},
               {"sleep", driver::WaitMode::kSleep},
               {"spin", driver::WaitMode::kSpin}},
              "open loop: how a worker waits for its next arrival (adaptive sleeps unless it is closer than the "
              "measured wake-up latency and never spins with as many workers as CPUs)",
              "adaptive")
        .Parsed("cpus", &CoreOptions::cpus, "pin workers to these CPUs (the reporter and hiccup meter to the others)",
                "", "CPU list, e.g. 0-1 or 0,2", [](const std::string& v) { return driver::ParseCpuList(v); })
        .Parsed("hiccup-period", &CoreOptions::hiccup_period_ns,
                "how often the platform hiccup meter wakes: auto = 1ms when it has a CPU the workers do not use, "
                "10ms when it must preempt a worker",
                "auto", "auto, off or a duration such as 1ms", &ParseHiccupPeriod)
        .Flag("stonewall", &CoreOptions::stonewall,
              "under mpirun with --ops: the first rank to finish stops every rank (as IOR's stonewalling)")
        .Require(&CheckTwoPhaseFitsRun);
    return t;
  }();
  return table;
}

nlohmann::json Job::ToJson() const {
  nlohmann::json j;
  j["job_schema"] = kJobSchema;
  j["backend"] = backend;
  const OptionTable<CoreOptions>& table = CoreOptionTable();
  OptionValues core = table.WithDefaults(options);
  for (const OptionSpec& s : table.Specs()) {
    const std::string v = OptionValue(core, s.name);
    if (s.type == OptionType::kInteger && !v.empty()) {
      auto n = ParseInteger(v, s.name, INT64_MIN, INT64_MAX);
      j[Key(s.name)] = n.ok() ? nlohmann::json(*n) : nlohmann::json(v);
    } else {
      j[Key(s.name)] = v;
    }
  }
  if (!classes.empty()) j["classes"] = classes;
  nlohmann::json b = nlohmann::json::object();
  for (const auto& [k, v] : backend_options) b[k] = v;
  j["backend_options"] = b;
  return j;
}

StatusOr<Job> Job::FromJson(const nlohmann::json& doc, const std::string& source) {
  const nlohmann::json* config = &doc;
  if (doc.is_object() && doc.contains("schema")) {
    // A stored result: accepted exactly when report and compare accept it.
    if (Status s = CheckRunDocument(doc, source); !s.ok()) return Status::InvalidArgument("--job " + s.message());
    config = &doc["config"];
  }
  if (!config->is_object())
    return Status::InvalidArgument(fmt::format("--job {}: expected a job (JSON object) or a run result", source));
  Job job;
  job.options.clear();
  const OptionTable<CoreOptions>& table = CoreOptionTable();
  for (auto it = config->begin(); it != config->end(); ++it) {
    const std::string& key = it.key();
    const std::string where = fmt::format("--job {}: {}", source, key);
    if (key == "job_schema") {
      if (!it->is_string() || it->get<std::string>() != kJobSchema)
        return Status::InvalidArgument(fmt::format("{}: expected \"{}\"", where, kJobSchema));
    } else if (key == "backend") {
      if (!it->is_string()) return Status::InvalidArgument(where + ": expected a backend name");
      job.backend = it->get<std::string>();
    } else if (key == "classes") {
      if (!it->is_array()) return Status::InvalidArgument(where + ": expected an array of NAME:key=value,... strings");
      for (const auto& c : *it) {
        if (!c.is_string()) return Status::InvalidArgument(where + ": expected strings");
        job.classes.push_back(c.get<std::string>());
      }
    } else if (key == "backend_options") {
      if (!it->is_object()) return Status::InvalidArgument(where + ": expected an object of option: value");
      for (auto b = it->begin(); b != it->end(); ++b) {
        auto v = ValueText(*b, where + "." + b.key());
        if (!v.ok()) return v.status();
        job.backend_options[b.key()] = *v;
      }
    } else {
      const std::string name = Name(key);
      if (!table.Find(name))
        return Status::InvalidArgument(fmt::format("{}: not a job key (keys: the `run` options with _ for -, "
                                                   "backend, classes, backend_options)",
                                                   where));
      auto v = ValueText(*it, where);
      if (!v.ok()) return v.status();
      if (!v->empty()) job.options[name] = *v;
    }
  }
  return job;
}

StatusOr<Job> Job::Load(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Status::InvalidArgument(fmt::format("--job {}: is a directory; give a job or result JSON file", path));
  auto text = ReadTextFile(path);
  if (!text.ok()) {
    // "open PATH: strerror" as "--job PATH: cannot read it: strerror".
    const std::string opened = "open " + path + ": ";
    std::string why = text.status().message();
    if (why.rfind(opened, 0) == 0) why = why.substr(opened.size());
    return Status::InvalidArgument(fmt::format("--job {}: cannot read it: {}", path, why));
  }
  // A key given twice would silently keep its last value: which one the author meant is unknown.
  auto doc = ParseJson(*text, "--job " + path, DuplicateKeys::kRefuse);
  if (!doc.ok()) return Status::InvalidArgument(doc.status().message());
  return FromJson(*doc, path);
}

void Job::Override(const Job& over, bool backend_given) {
  if (backend_given && over.backend != backend) {
    backend = over.backend;
    backend_options.clear();  // the file's options belong to another backend
  }
  for (const auto& [k, v] : over.options) options[k] = v;
  for (const auto& [k, v] : over.backend_options) backend_options[k] = v;
  if (!over.classes.empty()) classes = over.classes;
  outputs = over.outputs;
}

}  // namespace storebench::job
