// Backend: the one plug-in point between the driver and a storage engine.
//
// A backend is registered by name with the options it owns (fio's engine
// table, one folder per backend). The CLI builds a Backend from parsed option
// values, calls Prepare() for `storebench prepare` or Open() for `run`, and
// the driver asks it for one Worker per thread. A Worker generates its own ops
// (the driver knows nothing of keys, files or metrics) and executes them under
// one submit contract for synchronous and asynchronous engines alike:
// Submit() either completes the op, queues it (its completion comes from
// Reap()) or reports that the worker is busy.
// Thread-safety: Backend methods are called from the main thread only, except
// NewWorker(), which each worker thread calls once for itself; a Worker is
// used by the thread that made it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "storebench/base/status.h"
#include "storebench/measure/sample.h"

namespace storebench::backend {

// One option a backend owns, shown in --help and passed through as text.
struct OptionSpec {
  std::string name;           // without dashes, e.g. "block-size"
  std::string help;           // one line, includes the accepted form
  std::string default_value;  // empty = no default
  bool is_flag = false;       // takes no value; present = "1"
};

// Option values as given on the command line (defaults filled in), by name.
using OptionValues = std::map<std::string, std::string>;

// The value of option `name`, empty when it was neither given nor defaulted.
inline std::string OptionValue(const OptionValues& values, const std::string& name) {
  auto it = values.find(name);
  return it == values.end() ? std::string() : it->second;
}

enum Capability : uint32_t {
  kCanPrepare = 1u << 0,  // `storebench prepare` makes its data set
  kAsync = 1u << 1,       // a worker may keep several ops in flight (queue depth > 1)
  kNeedsData = 1u << 2,   // needs --data
};

// Settings shared by every backend, fixed by the CLI before the run.
struct CommonOptions {
  uint64_t seed = 1;
  int threads = 1;      // total worker threads across groups
  int queue_depth = 1;  // per worker
};

struct Completion {
  uint64_t tag = 0;      // the tag given to Submit()
  uint32_t kind = 0;     // index into the layout's kinds
  uint32_t outcome = 0;  // index into the layout's outcomes (0 = ok)
  uint64_t bytes = 0;    // payload bytes moved by the op
};

enum class SubmitResult { kCompleted, kQueued, kBusy };

// Identifies a worker: its place among all workers and in its group.
struct WorkerContext {
  int index = 0;           // 0..threads-1 over the whole run
  int group = 0;           // worker group (query class)
  int index_in_group = 0;
  int group_threads = 1;
  std::string role;        // group role, e.g. "writer"; empty = the main workload
  int priority = 0;        // group read priority (lower = more urgent)
  int queue_depth = 1;
  uint64_t seed = 1;       // distinct per worker
};

// A worker group a backend asks for beside the main one.
struct ExtraGroup {
  std::string name;
  std::string role;
  int threads = 1;
  double rate = 0;  // ops/s for the whole group; 0 = closed loop
};

class Worker {
 public:
  virtual ~Worker() = default;
  // Starts one op tagged `tag`. kCompleted: done, *out filled. kQueued: the
  // completion will come from Reap(). kBusy: nothing started; reap first.
  virtual SubmitResult Submit(uint64_t tag, Completion* out) = 0;
  // Waits for at least `min` completions (0 = only poll), stores up to out.size(), returns how many.
  virtual size_t Reap(size_t min, std::span<Completion> out) {
    (void)min;
    (void)out;
    return 0;
  }
  // Called once on the worker's thread before it submits the first op of the
  // measured window (the first whose intended start is at or after the end of
  // the warm-up). Ops submitted before are warm-up and left out of the results,
  // so counters a worker keeps for Results() restart here: they then cover
  // exactly the ops the driver reports.
  virtual void MeasureStarted() {}
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual uint32_t capabilities() const = 0;
  // Makes the data set; an existing matching data set is left as it is.
  virtual Status Prepare() { return Status::NotSupported("this backend has no data set to prepare"); }
  // Opens and checks the data set for a run.
  virtual Status Open() { return Status::Ok(); }
  // Op kinds and outcomes recorded by this backend's workers.
  virtual measure::RecorderLayout Layout() const { return {}; }
  // Makes the worker for one thread; called on that thread.
  virtual StatusOr<std::unique_ptr<Worker>> NewWorker(const WorkerContext& context) = 0;
  // Brackets the run (cache state, accounting snapshots). BeforeRun() comes
  // before the warm-up, AfterRun() after the last op.
  virtual Status BeforeRun() { return Status::Ok(); }
  // Called on the main thread when the warm-up ends (at the start of the run
  // when there is none): process-wide snapshots (/proc/self/io, rusage) taken
  // here leave the warm-up out, as Worker::MeasureStarted() does per worker.
  virtual void MeasureStarted() {}
  virtual Status AfterRun() { return Status::Ok(); }
  // Backend results for the JSON document, merged at top level (e.g. {"io": {...}, "cache": {...}}).
  virtual nlohmann::json Results() const { return nlohmann::json::object(); }
  // A few lines for the human summary.
  virtual std::vector<std::string> SummaryLines() const { return {}; }
  // Backend figures for one interval of the timeline (e.g. write stalls),
  // called by the reporter thread while workers run: must be thread-safe.
  virtual nlohmann::json IntervalSnapshot() { return nullptr; }
  // Worker groups the backend's workload needs beside the main one (e.g. the
  // writer of readwhilewriting), added by the CLI.
  virtual std::vector<ExtraGroup> ExtraGroups() const { return {}; }
  // The arrival schedule the workload implies when --schedule is not given
  // (e.g. mixgraph's sine_a..d with sine_mix_rate), in --schedule syntax.
  virtual std::string DefaultSchedule() const { return ""; }
};

using BackendFactory =
    std::function<StatusOr<std::unique_ptr<Backend>>(const OptionValues& options, const CommonOptions& common)>;

struct BackendInfo {
  std::string name;
  std::string description;
  uint32_t capabilities = 0;
  std::vector<OptionSpec> options;  // for both prepare and run
  BackendFactory create;
};

// The backends compiled into this binary, by name. Built once, read-only after.
const std::vector<BackendInfo>& Backends();
const BackendInfo* FindBackend(std::string_view name);

}  // namespace storebench::backend
