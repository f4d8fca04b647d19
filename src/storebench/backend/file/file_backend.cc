#include "storebench/backend/file/file_backend.h"

#include <algorithm>

#include <fmt/format.h>

#include "storebench/backend/file/accounting.h"
#include "storebench/backend/file/dataset.h"
#include "storebench/backend/file/options.h"
#include "storebench/backend/file/workloads.h"
#include "storebench/base/units.h"
#include "storebench/io/read_method.h"
#include "storebench/io/thread_pool.h"
#include "storebench/measure/clock.h"

namespace storebench::backend {
namespace file {
namespace {

class FileBackend final : public Backend {
 public:
  FileBackend(FileOptions options, const CommonOptions& common) : common_(common) {
    if (options.align == 0) options.align = options.block_size;
    options.method_options = options.MethodOptions();
    shared_.options = std::move(options);
    shared_.accounting = &accounting_;
    shared_.total_threads = common.threads;
  }

  uint32_t capabilities() const override { return kCanPrepare | kNeedsData; }

  // Whether reads can be in flight together is the read method's property.
  Status CheckGroup(const GroupSettings& g) const override {
    const FileOptions& o = shared_.options;
    if (g.queue_depth <= 1) return Status::Ok();
    const io::MethodInfo* info = nullptr;
    for (const io::MethodInfo& m : io::ReadMethods())
      if (m.name == o.method) info = &m;
    if (!info || !(info->capabilities & io::kCapAsync)) {
      return Status::InvalidArgument(fmt::format(
          "--iodepth {}: method {} finishes each read before returning; use io_uring or pread_threadpool for more "
          "than one read in flight per worker",
          g.queue_depth, o.method));
    }
    if (o.workload == Workload::kColumns)
      return Status::InvalidArgument("--iodepth: a columns query's parallelism is its --columns reads; leave --iodepth "
                                     "at 1");
    if (o.prefetch)
      return Status::InvalidArgument("--prefetch: double buffering is for --iodepth 1; deeper queues already read "
                                     "ahead");
    return Status::Ok();
  }

  std::vector<std::string> DataPaths() const override { return shared_.dataset.paths; }
  std::string DataDir() const override { return shared_.options.data; }

  Status Prepare(PrepareReport* report) override {
    const FileOptions& o = shared_.options;
    if (o.data.empty()) return Status::InvalidArgument("--data: give the directory for the data set, e.g. --data /mnt/sb");
    bool created = false;
    auto d = PrepareDataset(o.data, o.files ? o.files : 4, o.file_size ? o.file_size : uint64_t{256} << 20,
                            common_.seed, &created, report->progress, common_.stop);
    if (!d.ok()) return d.status();
    std::string description = d->Describe();
    // The set is kept as it is (runs verify with the manifest's seed), but a different --seed is said.
    if (!created && d->seed != common_.seed)
      description += fmt::format(" — this set has another seed (made with --seed {}, not {}); kept as it is", d->seed,
                                 common_.seed);
    *report = {description, d->dir, created, "every 4 KiB block stamped; manifest written last", report->progress};
    return Status::Ok();
  }

  Status Open() override {
    FileOptions& o = shared_.options;
    auto d = OpenDataset(o.data, o.files, o.file_size);
    if (!d.ok()) return d.status();
    shared_.dataset = std::move(*d);
    STOREBENCH_RETURN_IF_ERROR(CheckConfiguration());
    if (NeedsPool()) {
      pool_ = std::make_unique<io::ThreadPool>(o.method_options.pool_threads);
      shared_.pool = pool_.get();
    }
    return Status::Ok();
  }

  measure::RecorderLayout Layout() const override {
    measure::RecorderLayout l;
    l.kinds = {std::string(WorkloadName(shared_.options.workload))};
    l.outcomes = {"ok", "error:io", "error:verify"};
    return l;
  }

  StatusOr<std::unique_ptr<Worker>> NewWorker(const WorkerContext& context) override {
    return NewFileWorker(shared_, context);
  }

  Status BeforeRun() override {
    accounting_.Begin();
    shared_.start_ns = measure::Clock::Default().NowNs();
    return Status::Ok();
  }

  // A failed read (EIO, a file cut short or removed during the run) is an
  // outcome counted per kind, not a reason to lose the run: the first one's
  // message is a figure (file.first_error) and --max-error-ratio decides
  // whether the run failed, as for whisper. A block that fails --verify
  // still ends the run with its error.
  Status AfterRun() override { return accounting_.End(); }

  void Figures(measure::MetricSet* out) const override {
    accounting_.Figures(shared_.dataset, shared_.options, out);
  }

 private:
  bool NeedsPool() const {
    const FileOptions& o = shared_.options;
    if (o.method == "pread_threadpool") return true;
    // Sync methods prefetch by running the next read on the pool.
    auto info = std::find_if(io::ReadMethods().begin(), io::ReadMethods().end(),
                             [&](const io::MethodInfo& m) { return m.name == o.method; });
    const bool scans = o.workload == Workload::kSeqRead || (o.workload == Workload::kColumns && o.sequential_columns);
    return o.prefetch && scans && info != io::ReadMethods().end() && !(info->capabilities & io::kCapAsync);
  }

  // Refuses, before any thread starts, what a worker would otherwise fail on mid-run.
  Status CheckConfiguration() {
    const FileOptions& o = shared_.options;
    const Dataset& d = shared_.dataset;
    if (o.block_size > d.file_size) {
      return Status::InvalidArgument(fmt::format("--block-size {}: larger than the data set's files ({} bytes)",
                                                 o.block_size, d.file_size));
    }
    if (o.workload == Workload::kColumns && o.columns > d.files) {
      return Status::InvalidArgument(fmt::format("--columns {}: the data set has {} files, one column each; give "
                                                 "--columns {} or fewer, or prepare more --files",
                                                 o.columns, d.files, d.files));
    }
    auto probe = io::CreateReadMethod(o.method, o.method_options);
    if (!probe.ok()) return Status::InvalidArgument(fmt::format("--method {}: {}", o.method, probe.status().message()));
    io::ReadMethod& m = **probe;
    auto f = m.Open(d.paths[0]);
    if (!f.ok() && o.direct) return Status::InvalidArgument("--direct: " + f.status().message());
    if (!f.ok()) return f.status();
    const io::DirectAlignment a = m.alignment(*f);
    if (o.direct && (o.block_size % a.offset != 0 || o.align % a.offset != 0)) {
      return Status::InvalidArgument(fmt::format(
          "--block-size {} / --align {} with --direct: O_DIRECT on {} needs offsets and lengths in multiples of {} "
          "bytes (from {})",
          o.block_size, o.align, d.paths[0], a.offset, a.source));
    }
    if (o.fixed_buffers && !m.Has(io::kCapFixedBuffers))
      return Status::InvalidArgument(fmt::format("--fixed-buffers: method {} has no registered buffers (io_uring has)",
                                                 o.method));
    return Status::Ok();
  }

  CommonOptions common_;
  FileShared shared_;
  FileAccounting accounting_;
  std::unique_ptr<io::ThreadPool> pool_;
};

}  // namespace
}  // namespace file

BackendInfo FileBackendInfo() {
  return MakeBackendInfo<file::FileOptions>(
      "file", "raw read methods over stamped files: read, pread, pread_threadpool, mmap, io_uring",
      kCanPrepare | kNeedsData, file::FileOptionTable(),
      [](file::FileOptions o, const CommonOptions& common) -> StatusOr<std::unique_ptr<Backend>> {
        return std::unique_ptr<Backend>(new file::FileBackend(std::move(o), common));
      });
}

}  // namespace storebench::backend
