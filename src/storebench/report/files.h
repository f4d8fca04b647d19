// Reading the documents reports are made from: whole text files and JSON.
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "storebench/base/status.h"

namespace storebench::report {

// The file's bytes; IOError/NotFound name the path and the errno text.
StatusOr<std::string> ReadTextFile(const std::string& path);
// The file parsed as JSON; Corruption names the path when it is not JSON.
StatusOr<nlohmann::json> ReadJsonFile(const std::string& path);

}  // namespace storebench::report
