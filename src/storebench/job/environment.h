// Facts about the machine a run happened on, for the result document and for
// `compare` to warn when two runs come from different environments.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace storebench::job {

// kernel, cpu_model, cpus, memory_bytes, hostname, clock source, and the
// filesystem type of `data_path` when given. Reads /proc and uname; never fails
// (unknown facts are empty strings).
nlohmann::json DescribeEnvironment(const std::string& data_path);

}  // namespace storebench::job
