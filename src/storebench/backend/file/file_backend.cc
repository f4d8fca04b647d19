#include "storebench/backend/file/file_backend.h"

#include <algorithm>

#include <fmt/format.h>

#include "storebench/backend/file/accounting.h"
#include "storebench/backend/file/cache_state.h"
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
    shared_.options = std::move(options);
    shared_.accounting = &accounting_;
    shared_.total_threads = common.threads;
  }

  uint32_t capabilities() const override { return kCanPrepare | kAsync | kNeedsData; }

  Status Prepare() override {
    const FileOptions& o = shared_.options;
    if (o.data.empty()) return Status::InvalidArgument("--data: give the directory for the data set, e.g. --data /mnt/sb");
    bool created = false;
    auto d = PrepareDataset(o.data, o.files ? o.files : 4, o.file_size ? o.file_size : uint64_t{256} << 20,
                            common_.seed, &created);
    if (!d.ok()) return d.status();
    prepare_line_ = fmt::format("file: {} in {} {}", d->Describe(), d->dir,
                                created ? "prepared (every 4 KiB block stamped; manifest written last)"
                                        : "already prepared and matching: nothing to do");
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
    STOREBENCH_RETURN_IF_ERROR(ApplyCacheState(shared_.options.cache, shared_.dataset.paths));
    accounting_.Begin(shared_.dataset);
    shared_.start_ns = measure::Clock::Default().NowNs();
    return Status::Ok();
  }

  void MeasureStarted() override { accounting_.MeasureStarted(); }

  Status AfterRun() override { return accounting_.End(shared_.dataset); }

  nlohmann::json Results() const override { return accounting_.Json(shared_.dataset, shared_.options); }

  std::vector<std::string> SummaryLines() const override {
    if (!prepare_line_.empty()) return {prepare_line_};
    return accounting_.Lines(shared_.options);
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
    const bool async = m.Has(io::kCapAsync);
    if (common_.queue_depth > 1 && !async) {
      return Status::InvalidArgument(fmt::format(
          "--iodepth {}: method {} finishes each read before returning; use io_uring or pread_threadpool for more "
          "than one read in flight per worker",
          common_.queue_depth, o.method));
    }
    if (o.workload == Workload::kColumns && common_.queue_depth > 1) {
      return Status::InvalidArgument("--iodepth: a columns query's parallelism is its --columns reads; leave --iodepth "
                                     "at 1");
    }
    if (o.prefetch && common_.queue_depth > 1) {
      return Status::InvalidArgument("--prefetch: double buffering is for --iodepth 1; deeper queues already read "
                                     "ahead");
    }
    return Status::Ok();
  }

  CommonOptions common_;
  FileShared shared_;
  RunAccounting accounting_;
  std::unique_ptr<io::ThreadPool> pool_;
  std::string prepare_line_;
};

}  // namespace
}  // namespace file

BackendInfo FileBackendInfo() {
  BackendInfo info;
  info.name = "file";
  info.description = "raw read methods over stamped files: read, pread, pread_threadpool, mmap, io_uring";
  info.capabilities = kCanPrepare | kAsync | kNeedsData;
  info.options = file::FileOptionSpecs();
  info.create = [](const OptionValues& values, const CommonOptions& common) -> StatusOr<std::unique_ptr<Backend>> {
    auto o = file::ParseFileOptions(values);
    if (!o.ok()) return o.status();
    return std::unique_ptr<Backend>(new file::FileBackend(std::move(*o), common));
  };
  return info;
}

}  // namespace storebench::backend
