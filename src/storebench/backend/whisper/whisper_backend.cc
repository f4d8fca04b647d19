#include "storebench/backend/whisper/whisper_backend.h"

#include <fmt/format.h>

#include "storebench/backend/whisper/accounting.h"
#include "storebench/backend/whisper/dataset.h"
#include "storebench/backend/whisper/options.h"
#include "storebench/backend/whisper/workloads.h"

namespace storebench::backend {
namespace wsp {
namespace {

class WhisperBackend final : public Backend {
 public:
  WhisperBackend(WhisperOptions options, const CommonOptions& common) : common_(common) {
    shared_.options = std::move(options);
    shared_.accounting = &accounting_;
    shared_.total_threads = common.threads;
    if (shared_.options.header_cache) shared_.options.io.header_cache = &header_cache_;
  }

  uint32_t capabilities() const override { return kCanPrepare | kNeedsData; }

  Status Prepare(PrepareReport* report) override {
    bool created = false;
    auto d = PrepareDataset(shared_.options, common_.seed, &created, report->progress, common_.stop);
    if (!d.ok()) return d.status();
    *report = {d->Describe(), d->dir, created, "archives aged per metric; manifest written last", report->progress};
    return Status::Ok();
  }

  std::vector<std::string> DataPaths() const override { return shared_.dataset.paths; }
  std::string DataDir() const override { return shared_.options.data; }
  bool WritesDataDir() const override { return shared_.options.workload != Workload::kFetch; }

  Status Open() override {
    auto d = OpenDataset(shared_.options);
    if (!d.ok()) return d.status();
    shared_.dataset = std::move(*d);
    if (static_cast<uint64_t>(common_.threads) > shared_.dataset.metrics) {
      return Status::InvalidArgument(fmt::format("--threads {}: more workers than metrics ({}); each worker owns its "
                                                 "own metrics, as carbon's writers do",
                                                 common_.threads, shared_.dataset.metrics));
    }
    return Status::Ok();
  }

  measure::RecorderLayout Layout() const override {
    measure::RecorderLayout l;
    l.kinds = {"update", "fetch"};
    l.outcomes = {"ok", "error"};
    return l;
  }

  StatusOr<std::unique_ptr<Worker>> NewWorker(const WorkerContext& context) override {
    return NewWhisperWorker(shared_, context);
  }

  Status BeforeRun() override {
    accounting_.Begin(shared_.dataset);
    return Status::Ok();
  }

  // A failed op (ENOSPC, EIO) is an outcome counted in the result, not a
  // reason to lose it: the first one's message is a figure (whisper.first_error)
  // and --max-error-ratio decides whether the run failed.
  Status AfterRun() override {
    (void)accounting_.End();
    return Status::Ok();
  }

  void Figures(measure::MetricSet* out) const override { accounting_.Figures(shared_.dataset, shared_.options, out); }

 private:
  CommonOptions common_;
  whisper::HeaderCache header_cache_;
  WhisperShared shared_;
  WhisperAccounting accounting_;
};

}  // namespace
}  // namespace wsp

BackendInfo WhisperBackendInfo() {
  return MakeBackendInfo<wsp::WhisperOptions>(
      "whisper", "Graphite whisper files: carbon-style update_many and fetch, exact-size or buffered I/O",
      kCanPrepare | kNeedsData, wsp::WhisperOptionTable(),
      [](wsp::WhisperOptions o, const CommonOptions& common) -> StatusOr<std::unique_ptr<Backend>> {
        return std::unique_ptr<Backend>(new wsp::WhisperBackend(std::move(o), common));
      });
}

}  // namespace storebench::backend
