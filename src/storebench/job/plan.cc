#include "storebench/job/plan.h"

#include <filesystem>

#include <fmt/format.h>
#include <set>

#include "storebench/base/units.h"

namespace storebench::job {
namespace {

// One --class: NAME:threads=2,schedule=constant:100,priority=0,role=writer,iodepth=1,ops=1000.
// What a class does not give is the core options' (ParseClass).
struct ClassOptions {
  int threads{};
  int iodepth{};
  int priority{};
  uint64_t ops{};
  driver::ScheduleSpec schedule;
  std::string role;
};

const OptionTable<ClassOptions>& ClassOptionTable() {
  static const OptionTable<ClassOptions> table = [] {
    OptionTable<ClassOptions> t("--class");
    t.Integer("threads", &ClassOptions::threads, "workers of the class", "", 1, 4096)
        .Integer("iodepth", &ClassOptions::iodepth, "ops in flight per worker", "", 1, 65536)
        .Integer("priority", &ClassOptions::priority, "read priority (lower = more urgent)", "", -1000, 1000)
        .Count("ops", &ClassOptions::ops, "measured ops of the class", "", 1)
        .Parsed("schedule", &ClassOptions::schedule, "arrivals of the class", "", "as --schedule",
                [](const std::string& v) { return driver::ParseSchedule(v, "--class schedule"); })
        .Enum("role", &ClassOptions::role, std::vector<std::pair<std::string, std::string>>{{"", ""}, {"writer", "writer"}},
              "what the class does beside the main workload", "");
    return t;
  }();
  return table;
}

driver::ScheduleSpec ClosedSchedule() { return *driver::ParseSchedule("closed"); }

constexpr const char* kClassForm =
    "--class: expected NAME:key=value,... with keys threads, schedule, priority, role, iodepth, ops "
    "(e.g. high:threads=1,priority=0,schedule=closed)";

StatusOr<driver::WorkerGroup> ParseClass(const std::string& text, const CoreOptions& core) {
  auto split = SplitClass(text);
  if (!split.ok()) return split.status();
  const std::string& name = split->name;
  OptionValues values;
  for (const auto& [k, v] : split->settings) {
    if (!ClassOptionTable().Find(k)) return Status::InvalidArgument(fmt::format("{}; unknown key '{}'", kClassForm, k));
    if (!values.emplace(k, v).second)
      return Status::InvalidArgument(fmt::format("--class {}: key '{}' is given twice", name, k));
  }
  ClassOptions c;
  c.threads = core.threads;
  c.iodepth = core.iodepth;
  c.schedule = core.schedule.value_or(ClosedSchedule());
  auto applied = ClassOptionTable().Apply(values, &c);
  if (!applied.ok()) return Status::InvalidArgument(fmt::format("--class {}: {}", name, applied.message()));
  driver::WorkerGroup g;
  g.name = name;
  g.threads = c.threads;
  g.queue_depth = c.iodepth;
  g.priority = c.priority;
  g.role = c.role;
  g.ops = c.ops;
  g.schedule = std::move(c.schedule);
  return g;
}

// Splits `ops` over groups that set none of their own, in proportion to their threads.
void SplitOps(uint64_t ops, driver::RunConfig* c) {
  int threads = 0;
  for (const auto& g : c->groups)
    if (g.ops == 0) threads += g.threads;
  uint64_t left = ops;
  int seen = 0;
  for (auto& g : c->groups) {
    if (g.ops != 0) continue;
    seen += g.threads;
    uint64_t share = seen == threads ? left : ops * static_cast<uint64_t>(g.threads) / static_cast<uint64_t>(threads);
    g.ops = share;
    left -= share;
  }
}

// The driver's settings of the core options, groups aside.
driver::RunConfig RunSettings(const CoreOptions& core) {
  driver::RunConfig c;
  c.histogram.significant_digits = core.histogram_digits;
  c.duration_ns = core.duration_ns;
  c.warmup_ns = core.warmup_ns;
  c.interval_ns = core.interval_ns;
  c.seed = core.seed;
  c.max_errors = core.max_errors;
  c.cache = core.cache;
  c.dispatch = core.dispatch;
  c.wait = core.wait;
  c.hiccup_period_ns = core.hiccup_period_ns;
  c.cpus = core.cpus;
  return c;
}

// The groups the job gives: one from the core options, or one per --class.
StatusOr<std::vector<driver::WorkerGroup>> GivenGroups(const std::vector<std::string>& classes,
                                                       const CoreOptions& core) {
  std::vector<driver::WorkerGroup> groups;
  if (classes.empty()) {
    driver::WorkerGroup g;
    g.threads = core.threads;
    g.queue_depth = core.iodepth;
    g.schedule = core.schedule.value_or(ClosedSchedule());
    groups.push_back(std::move(g));
    return groups;
  }
  std::set<std::string> names;
  for (const std::string& text : classes) {
    auto g = ParseClass(text, core);
    if (!g.ok()) return g.status();
    if (!names.insert(g->name).second)
      return Status::InvalidArgument(fmt::format("--class: the name '{}' is used twice", g->name));
    groups.push_back(std::move(*g));
  }
  return groups;
}

// What the backend's workload implies: its schedule (when none is given) and its extra groups.
Status AddWorkloadGroups(const backend::Backend& b, const Job& job, const CoreOptions& core, driver::RunConfig* c) {
  const std::string implied = b.DefaultSchedule();
  if (!core.schedule && !implied.empty() && job.classes.empty()) {
    auto spec = driver::ParseSchedule(implied, "--schedule (from the workload's flags)");
    if (!spec.ok()) return spec.status();
    c->groups[0].schedule = *spec;
  }
  for (const backend::ExtraGroup& e : b.ExtraGroups()) {
    driver::WorkerGroup g;
    g.name = e.name;
    g.role = e.role;
    g.threads = e.threads;
    if (e.rate > 0) {
      g.schedule.kind = driver::ScheduleSpec::Kind::kConstant;
      g.schedule.rate = e.rate;
      g.schedule.text = fmt::format("constant:{}", e.rate);
    }
    c->groups.push_back(g);
  }
  return Status::Ok();
}

// The run ends, every group has an op per thread, the backend can run each group, at most 4096 workers.
Status CheckGroups(const backend::Backend& b, const driver::RunConfig& c) {
  if (!c.bounded()) return Status::InvalidArgument("--duration: give --duration or --ops (e.g. --duration 10s)");
  for (const auto& g : c.groups) {
    if (g.ops && g.ops < static_cast<uint64_t>(g.threads))
      return Status::InvalidArgument(fmt::format("--ops {}: fewer ops than the {} threads of group '{}'; give at least "
                                                 "one op per thread",
                                                 g.ops, g.threads, g.name));
    Status ok = b.CheckGroup({g.name, g.role, g.threads, g.queue_depth, g.priority});
    if (!ok.ok()) {
      if (c.groups.size() == 1) return ok;
      return Status::InvalidArgument(fmt::format("{} (group '{}')", ok.message(), g.name));
    }
  }
  const int total = c.total_threads();
  if (total > 4096) return Status::InvalidArgument(fmt::format("--threads: {} workers in total; at most 4096", total));
  return Status::Ok();
}

// Every open-loop group's schedule can hold an arrival in the run (driver::CheckScheduleFitsRun).
Status CheckSchedulesFit(const Job& job, const driver::RunConfig& c) {
  const uint64_t run_ns = c.duration_ns ? c.warmup_ns + c.duration_ns : 0;
  for (size_t i = 0; i < c.groups.size(); ++i) {
    const driver::WorkerGroup& g = c.groups[i];
    const std::string flag = i < job.classes.size() ? fmt::format("--class {}: schedule", g.name)
                             : i == 0               ? std::string("--schedule")
                                                    : fmt::format("--schedule of group '{}'", g.name);
    STOREBENCH_RETURN_IF_ERROR(driver::CheckScheduleFitsRun(g.schedule, run_ns, g.ops, flag));
  }
  return Status::Ok();
}

// `job` with every default filled in and its path options absolute.
Job ResolvedJob(const Job& job, const backend::BackendInfo& info) {
  Job resolved = job;
  resolved.options = CoreOptionTable().WithDefaults(job.options);
  OptionValues backend_options;
  for (const OptionSpec& s : info.options)
    if (!s.default_value.empty()) backend_options[s.name] = s.default_value;
  for (const auto& [k, v] : job.backend_options) backend_options[k] = v;
  resolved.backend_options = AbsolutePathOptions(info, std::move(backend_options));
  return resolved;
}

}  // namespace

const std::vector<OptionSpec>& ClassOptionSpecs() { return ClassOptionTable().Specs(); }

StatusOr<ClassText> SplitClass(const std::string& text) {
  auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0) return Status::InvalidArgument(fmt::format("{}; got '{}'", kClassForm, text));
  ClassText out;
  out.name = text.substr(0, colon);
  // Values may contain commas (sine:A,B,C,D; steps:…,…): a piece without '=' continues the previous value.
  for (std::string_view piece : Split(std::string_view(text).substr(colon + 1), ',')) {
    auto eq = piece.find('=');
    if (eq == std::string_view::npos) {
      if (out.settings.empty()) return Status::InvalidArgument(fmt::format("{}; got '{}'", kClassForm, text));
      out.settings.back().second += "," + std::string(piece);
    } else {
      out.settings.emplace_back(std::string(piece.substr(0, eq)), std::string(piece.substr(eq + 1)));
    }
  }
  return out;
}

std::string ClassText::ToText() const {
  std::string out = name + ":";
  for (size_t i = 0; i < settings.size(); ++i) out += (i ? "," : "") + settings[i].first + "=" + settings[i].second;
  return out;
}

Status UnknownBackend(const std::string& name) {
  std::string names;
  for (const auto& b : backend::Backends()) names += (names.empty() ? "" : ", ") + b.name;
  if (name == "rocksdb") {
    return Status::InvalidArgument(fmt::format(
        "--backend: 'rocksdb' is not in this binary: librocksdb-dev was missing when it was built (apt-get install "
        "librocksdb-dev, then rebuild); this binary has: {}",
        names));
  }
  return Status::InvalidArgument(fmt::format("--backend: unknown backend '{}'; expected one of: {}", name, names));
}

StatusOr<Plan> MakePlan(const Job& job) {
  Plan plan;
  plan.info = backend::FindBackend(job.backend);
  if (!plan.info) return UnknownBackend(job.backend);
  STOREBENCH_RETURN_IF_ERROR(CoreOptionTable().Apply(job.options, &plan.core));
  plan.config = RunSettings(plan.core);
  auto groups = GivenGroups(job.classes, plan.core);
  if (!groups.ok()) return groups.status();
  plan.config.groups = std::move(*groups);
  if (plan.core.two_phase.on && (plan.config.groups.size() > 1 || plan.config.groups[0].schedule.open_loop()))
    return Status::InvalidArgument(
        "--two-phase: measures a closed loop first; do not combine it with --schedule or --class");
  backend::CommonOptions common;
  common.seed = plan.core.seed;
  common.threads = plan.config.total_threads();
  auto made = plan.info->create(job.backend_options, common);
  if (!made.ok()) return made.status();
  plan.backend = std::move(*made);
  STOREBENCH_RETURN_IF_ERROR(AddWorkloadGroups(*plan.backend, job, plan.core, &plan.config));
  if (plan.core.ops) SplitOps(plan.core.ops, &plan.config);
  STOREBENCH_RETURN_IF_ERROR(CheckGroups(*plan.backend, plan.config));
  STOREBENCH_RETURN_IF_ERROR(CheckSchedulesFit(job, plan.config));
  if (plan.core.cache != io::CacheState::kAsIs && !(plan.info->capabilities & backend::kNeedsData))
    return Status::InvalidArgument(fmt::format("--cache: backend '{}' has no data set", job.backend));
  plan.job = ResolvedJob(job, *plan.info);
  return plan;
}

OptionValues AbsolutePathOptions(const backend::BackendInfo& info, OptionValues options) {
  for (const OptionSpec& s : info.options) {
    auto it = options.find(s.name);
    if (s.type != OptionType::kPath || it == options.end() || it->second.empty()) continue;
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(it->second, ec);
    if (!ec) it->second = abs.lexically_normal().string();
  }
  return options;
}

}  // namespace storebench::job
