#include "storebench/backend/whisper/whisper_backend.h"

#include <fmt/format.h>

#include "storebench/backend/file/cache_state.h"
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

  Status Prepare() override {
    bool created = false;
    auto d = PrepareDataset(shared_.options, common_.seed, &created);
    if (!d.ok()) return d.status();
    prepare_line_ = fmt::format("whisper: {} in {} {}", d->Describe(), d->dir,
                                created ? "prepared (archives aged per metric; manifest written last)"
                                        : "already prepared and matching: nothing to do");
    return Status::Ok();
  }

  Status Open() override {
    auto d = OpenDataset(shared_.options);
    if (!d.ok()) return d.status();
    shared_.dataset = std::move(*d);
    if (static_cast<uint64_t>(common_.threads) > shared_.dataset.metrics) {
      return Status::InvalidArgument(fmt::format("--threads {}: more workers than metrics ({}); each worker owns its "
                                                 "own metrics, as carbon's writers do",
                                                 common_.threads, shared_.dataset.metrics));
    }
    if (common_.queue_depth > 1)
      return Status::InvalidArgument("--iodepth: whisper ops are synchronous; leave --iodepth at 1");
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
    STOREBENCH_RETURN_IF_ERROR(file::ApplyCacheState(shared_.options.cache, shared_.dataset.paths));
    accounting_.Begin(shared_.dataset);
    return Status::Ok();
  }

  void MeasureStarted() override { accounting_.MeasureStarted(); }

  Status AfterRun() override { return accounting_.End(shared_.dataset); }

  nlohmann::json Results() const override { return accounting_.Json(shared_.dataset, shared_.options); }

  std::vector<std::string> SummaryLines() const override {
    if (!prepare_line_.empty()) return {prepare_line_};
    return accounting_.Lines(shared_.dataset, shared_.options);
  }

 private:
  CommonOptions common_;
  whisper::HeaderCache header_cache_;
  WhisperShared shared_;
  RunAccounting accounting_;
  std::string prepare_line_;
};

}  // namespace
}  // namespace wsp

BackendInfo WhisperBackendInfo() {
  BackendInfo info;
  info.name = "whisper";
  info.description = "Graphite whisper files: carbon-style update_many and fetch, exact-size or buffered I/O";
  info.capabilities = kCanPrepare | kNeedsData;
  info.options = wsp::WhisperOptionSpecs();
  info.create = [](const OptionValues& values, const CommonOptions& common) -> StatusOr<std::unique_ptr<Backend>> {
    auto o = wsp::ParseWhisperOptions(values);
    if (!o.ok()) return o.status();
    return std::unique_ptr<Backend>(new wsp::WhisperBackend(std::move(*o), common));
  };
  return info;
}

}  // namespace storebench::backend
