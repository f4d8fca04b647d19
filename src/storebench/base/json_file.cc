#include "storebench/base/json_file.h"

#include <nlohmann/json.hpp>
#include <cerrno>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

namespace storebench {

StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoStatus("open", path, errno);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

StatusOr<nlohmann::json> ParseJson(std::string_view text, std::string_view where, DuplicateKeys duplicates) {
  std::vector<std::set<std::string>> keys;  // of each object being read
  std::string duplicate;
  auto note_keys = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end && !keys.empty()) keys.pop_back();
    if (event == E::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second && duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  nlohmann::json doc = duplicates == DuplicateKeys::kRefuse
                           ? nlohmann::json::parse(text, note_keys, /*allow_exceptions=*/false)
                           : nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::Corruption(fmt::format("{}: not valid JSON", where));
  if (!duplicate.empty())
    return Status::InvalidArgument(
        fmt::format("{}: the key \"{}\" is given twice in one object; give each setting once", where, duplicate));
  return doc;
}

StatusOr<nlohmann::json> ReadJsonFile(const std::string& path, DuplicateKeys duplicates) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseJson(*text, path, duplicates);
}

}  // namespace storebench
