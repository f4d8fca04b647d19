// Whether a run result stored by an earlier invocation can stand for a run
// that is asked for again: the one rule that a resumed matrix and a resumed
// search (and any experiment that stores its runs in a directory) follow.
//
// A stored run is reused when its file is a whole run result by the rule
// `report` and `compare` read them with (job::CheckRunDocument) whose totals
// say it was not interrupted; anything else (no file, a torn, foreign or
// malformed file, an interrupted run) is run again. When the
// caller knows the job the run must have been (`config`), a whole run of
// another job is an error rather than a rerun: the directory belongs to
// another experiment, and overwriting it would lose that one's results.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "storebench/base/status.h"

namespace storebench::experiment {

// The stored run at `path` if it can be reused, nullopt if it must run
// (again). InvalidArgument naming --out when `config` is given and the whole
// run stored there is of another job.
StatusOr<std::optional<nlohmann::json>> ReusableRun(const std::filesystem::path& path,
                                                    const nlohmann::json* config = nullptr);

// Whether an experiment may resume in the directory whose manifest is at
// `path`: yes when there is none yet (a new directory), or when it has
// `wanted`'s "schema" and the same value at each key of `same`. Otherwise
// InvalidArgument naming --out: the directory is another experiment's, and
// resuming there would file this one's runs under its settings. `what` names
// the experiment in the message ("matrix", "search").
Status CheckResumableManifest(const std::filesystem::path& path, const nlohmann::json& wanted,
                              const std::vector<std::string>& same, const std::string& what);

}  // namespace storebench::experiment
