// The one verdict on a stored run result (a `--json` document): `run --job`,
// `report` and `compare` all accept exactly the documents CheckRunDocument
// accepts, so a file one of them refuses is refused by each (issue 51: run
// --job took an unknown schema or a corrupted histogram that the others refused).
// Thread-safety: pure functions over values.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "storebench/base/status.h"

namespace storebench::job {

// run/2 (this version): backend figures are typed metrics; `file.groups` is an
// object keyed by group index (an array in run/1); `config` is the job as
// given (run/1 overwrote config.schedule with the schedule run, now
// `schedule.effective`). Both are read.
inline constexpr const char* kRunSchema = "storebench.run/2";
inline constexpr const char* kRunSchemaV1 = "storebench.run/1";

// Whether `doc` claims to be a run result this version reads (run/2 or run/1).
bool IsRunDocument(const nlohmann::json& doc);

// Corruption naming `path` and the field when `doc` is not a run result this
// version reads: another schema, a config that is no object, a throughput or
// an interval rate that is negative or not finite, latency histograms
// (response and service) missing or not decodable.
Status CheckRunDocument(const nlohmann::json& doc, const std::string& path);

}  // namespace storebench::job
