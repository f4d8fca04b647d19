// A run's typed result as one exact JSON value — histograms in their lossless
// encoding, counters as integers, metrics with their kind, unit and merge
// rule — so that another process (an MPI rank) can send it and the receiver
// can rebuild and merge it: the merge of two results is exactly the result of
// one run over both (counters add, histograms merge, ratios are recomputed).
// Thread-safety: free functions without shared state.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "storebench/base/status.h"
#include "storebench/driver/runner.h"
#include "storebench/measure/metrics.h"

namespace storebench::job {

nlohmann::json EncodeMetrics(const measure::MetricSet& set);
StatusOr<measure::MetricSet> DecodeMetrics(const nlohmann::json& j);

// Who held the CPU (driver/cpu_account.h), as the result JSON and the MPI
// merge carry it: one encoding for both.
nlohmann::json EncodeCpuHeld(const driver::CpuHeld& c);
driver::CpuHeld DecodeCpuHeld(const nlohmann::json& j);
nlohmann::json EncodeRunResult(const driver::RunResult& r);
StatusOr<driver::RunResult> DecodeRunResult(const nlohmann::json& j);

// Adds `other` — the same job measured over the same window by another
// process — into `into`: samples and interval histograms merge, counts add,
// the elapsed time is the longer one, metrics merge by their rules.
// InvalidArgument when the layouts differ.
Status MergeRunResults(driver::RunResult* into, const driver::RunResult& other);

}  // namespace storebench::job
