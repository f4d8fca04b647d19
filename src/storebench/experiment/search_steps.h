// The runs of a rate search (experiment/search.h): each repeat of a step is
// one job through job::MakePlan and job::RunPlan, in this process, with a
// fresh plan and backend (opened and closed per step, as `run` does), so the
// typed result comes back without a subprocess, SIGINT reaches the running
// step directly, and each step's document is the same `storebench.run/2` a
// `run --json` writes.
//
// With an output directory every run's document is stored there
// (closed-<rep>.json, rate-<R>-<rep>.json, confirm-<R>-<i>.json,
// above-<R>-<i>.json); a rerun of the same search reuses each stored run
// (experiment::ReusableRun) instead of running it again, and judges it
// exactly as before.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "storebench/experiment/search.h"

namespace storebench::experiment {

class SearchSteps {
 public:
  SearchSteps(const SearchRequest& request, const std::atomic<bool>* stop) : request_(request), stop_(stop) {}

  // The step at `rate` ops/s (0 = the closed loop), judged.
  StatusOr<report::SearchStep> Run(double rate);

  // A confirmation round: `confirm` runs at `rate` interleaved with as many
  // at `above`, each set judged together.
  StatusOr<report::ConfirmRound> Confirm(double rate, double above);

 private:
  Status Add(double rate, int seed_offset, const std::string& file, report::SearchStep* step,
             std::vector<nlohmann::json>* docs);
  Status Judge(double rate, std::vector<nlohmann::json> docs, bool across_runs, report::SearchStep* step);
  StatusOr<nlohmann::json> RunOne(double rate, int rep, const std::string& file, bool* stored);
  void Settle() const;

  const SearchRequest& request_;
  const std::atomic<bool>* stop_;
  bool ran_any_ = false;
};

}  // namespace storebench::experiment
