// Backend: the one plug-in point between the driver and a storage engine.
//
// A backend is one folder with a BackendInfo (its name and the option table
// it owns, as fio's engine table), listed explicitly in registry.cc. The job
// layer builds a Backend from the parsed option values, calls Prepare() for
// `storebench prepare` or Open() for `run`, and
// the driver asks it for one Worker per thread. A Worker generates its own ops
// (the driver knows nothing of keys, files or metrics) and executes them under
// one submit contract for synchronous and asynchronous engines alike:
// Submit() either completes the op, queues it (its completion comes from
// Reap()) or reports that the worker is busy.
// Thread-safety: Backend methods are called from the main thread only, except
// NewWorker(), which each worker thread calls once for itself; a Worker is
// used by the thread that made it.
#pragma once

#include <atomic>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storebench/base/option_table.h"
#include "storebench/base/status.h"
#include "storebench/measure/metrics.h"
#include "storebench/measure/op_policy.h"
#include "storebench/measure/sample.h"

namespace storebench::backend {

using storebench::OptionSpec;
using storebench::OptionValue;
using storebench::OptionValues;

// What a backend can do (BackendInfo::capabilities; a read method's are io::MethodCapability).
enum BackendCapability : uint32_t {
  kCanPrepare = 1u << 0,  // `storebench prepare` makes its data set
  kNeedsData = 1u << 2,   // reads a data set: the job layer requires --data and takes the
                          // data set's page-cache residency and cache state (DataPaths())
};

// Settings shared by every backend, fixed by the job layer before the run.
struct CommonOptions {
  uint64_t seed = 1;
  int threads = 1;  // total worker threads across groups
  // Set when the user asks to stop (SIGINT/SIGTERM): Prepare() checks it
  // between writes and returns Status::Interrupted. May be null.
  const std::atomic<bool>* stop = nullptr;
};

// One worker group's settings, as the job layer planned them, for CheckGroup().
struct GroupSettings {
  std::string name;
  std::string role;
  int threads = 1;
  int queue_depth = 1;
  int priority = 0;
};

// How far a long Prepare() is, for the CLI to show (backends print nothing).
struct PrepareProgress {
  std::string_view step;  // "writing", "flushing", "compacting"
  uint64_t done = 0;
  uint64_t total = 0;     // 0: not known (e.g. waiting for compactions)
  std::string_view unit;  // "bytes", "files", "metrics", "keys"
};
using PrepareProgressFn = std::function<void(const PrepareProgress&)>;

// What `prepare` did, for the CLI to render.
struct PrepareReport {

  std::string description;  // e.g. "4 files of 256 MiB"
  std::string where;        // the data set's directory
  bool created = false;     // false: a matching data set was there already
  std::string how;          // how it was made, e.g. "every 4 KiB block stamped; manifest written last"
  // Set by the caller before Prepare() (may be empty): called on the preparing
  // thread as work is done, as often as once per write; the caller throttles.
  PrepareProgressFn progress;
};

// One finished op (a read method's finished read is io::ReadCompletion).
struct Completion {
  uint64_t tag = 0;      // the tag given to Submit()
  uint32_t kind = 0;     // index into the layout's kinds
  uint32_t outcome = 0;  // index into the layout's outcomes (0 = ok)
  uint64_t bytes = 0;    // payload bytes moved by the op
};

// What Worker::Submit() did with an op (io::ReadSubmitResult is the read methods').
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
  // The closed loop at queue depth 1, run by the worker itself under the
  // driver's per-op policy (measure/op_policy.h: Start(), the op, Done()) for
  // a worker whose op is one synchronous call: no virtual call per op.
  // Returns false, having run no op, when it does not (the driver then submits
  // op by op). The policy calls MeasureStarted() as the driver would.
  virtual bool RunClosed(measure::OpPolicy& policy) {
    (void)policy;
    return false;
  }
  // Called once on the worker's thread before it submits the first op of the
  // measured window (the first whose intended start is at or after the end of
  // the warm-up). Ops submitted before are warm-up and left out of the results,
  // so counters a worker keeps for the backend's Figures() restart here: they then cover
  // exactly the ops the driver reports.
  virtual void MeasureStarted() {}
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual uint32_t capabilities() const = 0;
  // Refuses (InvalidArgument naming the flag) a group this backend, as
  // configured, cannot run as asked — e.g. a queue depth its read method cannot
  // keep in flight. Called by the job layer for every group before anything
  // is opened. The default accepts queue depth 1 only.
  virtual Status CheckGroup(const GroupSettings& group) const;
  // Makes the data set; an existing matching data set is left as it is.
  virtual Status Prepare(PrepareReport* report) {
    (void)report;
    return Status::NotSupported("this backend has no data set to prepare");
  }
  // Opens and checks the data set for a run.
  virtual Status Open() { return Status::Ok(); }
  // The files of the opened data set (kNeedsData): their page-cache state is
  // set and their residency measured by the job layer, around the run.
  // Only the files the backend reads as data: never an engine's lock or
  // control files (io/page_cache.h says why). Called before and after a run.
  virtual std::vector<std::string> DataPaths() const { return {}; }
  // True when a run, as configured, writes into the data set (the workload's
  // updates, or the engine's own files as it opens): the job layer then holds
  // the data set's lock exclusively for the run (shared otherwise) and proves
  // the directory writable first (a read-only mount is refused before the
  // run, not counted as failed ops).
  virtual bool WritesData() const { return false; }
  // The data set's directory (for the environment's filesystem facts); empty = none.
  virtual std::string DataDir() const { return ""; }
  // Op kinds and outcomes recorded by this backend's workers.
  virtual measure::RecorderLayout Layout() const { return {}; }
  // Makes the worker for one thread; called on that thread.
  virtual StatusOr<std::unique_ptr<Worker>> NewWorker(const WorkerContext& context) = 0;
  // Brackets the run. BeforeRun() comes before the warm-up, AfterRun() after the last op.
  virtual Status BeforeRun() { return Status::Ok(); }
  // Called on the main thread when the warm-up ends (at the start of the run
  // when there is none): counters restarted here leave the warm-up out, as
  // Worker::MeasureStarted() does per worker.
  virtual void MeasureStarted() {}
  virtual Status AfterRun() { return Status::Ok(); }
  // The backend's figures for the run, under its own name (e.g. ["rocksdb",
  // "found"]), or under "io" for what the read path counted (syscalls, bytes
  // requested). Typed; report/ renders them.
  virtual void Figures(measure::MetricSet* out) const { (void)out; }
  // The backend's figures for one interval of the timeline (e.g. write
  // stalls), paths relative to the interval's "backend" object. Called by the
  // reporter thread while workers run: must be thread-safe.
  virtual void IntervalFigures(measure::MetricSet* out) { (void)out; }
  // Worker groups the backend's workload needs beside the main one (e.g. the
  // writer of readwhilewriting), added by the job layer. Known once the
  // backend is made (options parsed), before Open().
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
  BackendFactory create;            // parses the options (no I/O) and makes the backend
};

// A BackendInfo whose factory fills the backend's option struct from `table`
// and hands it to `make`: a backend declares its options and writes no parsing code.
template <typename Options>
BackendInfo MakeBackendInfo(
    std::string name, std::string description, uint32_t capabilities, OptionTable<Options> table,
    std::function<StatusOr<std::unique_ptr<Backend>>(Options, const CommonOptions&)> make) {
  BackendInfo info;
  info.name = std::move(name);
  info.description = std::move(description);
  info.capabilities = capabilities;
  info.options = table.Specs();
  info.create = [table = std::move(table), make = std::move(make)](
                    const OptionValues& values, const CommonOptions& common) -> StatusOr<std::unique_ptr<Backend>> {
    auto options = table.Parse(values);
    if (!options.ok()) return options.status();
    return make(std::move(*options), common);
  };
  return info;
}

// The backends compiled into this binary, by name. Built once, read-only after.
const std::vector<BackendInfo>& Backends();
const BackendInfo* FindBackend(std::string_view name);

}  // namespace storebench::backend
