// Reading whole files and JSON documents: every JSON file storebench reads
// (job files, results, manifests, matrix and search directories) goes
// through here, so each is read and parsed one way, with one message form.
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "storebench/base/status.h"

namespace storebench {

// The file's bytes; IOError/NotFound (ErrnoStatus: "open PATH: strerror").
StatusOr<std::string> ReadTextFile(const std::string& path);

// Whether a key given twice in one object is refused (a job file: which of
// the two the author meant is unknown) or, as JSON allows, the last one kept.
enum class DuplicateKeys { kKeepLast, kRefuse };

// `text` parsed as JSON; Corruption "WHERE: not valid JSON", or with kRefuse
// InvalidArgument "WHERE: the key "K" is given twice in one object; give each setting once".
StatusOr<nlohmann::json> ParseJson(std::string_view text, std::string_view where,
                                   DuplicateKeys duplicates = DuplicateKeys::kKeepLast);

// The file parsed as JSON; the messages name the path.
StatusOr<nlohmann::json> ReadJsonFile(const std::string& path, DuplicateKeys duplicates = DuplicateKeys::kKeepLast);

}  // namespace storebench
