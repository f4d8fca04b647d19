#include "storebench/report/files.h"

#include <nlohmann/json.hpp>
#include <cerrno>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace storebench::report {

StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoStatus("open", path, errno);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

StatusOr<nlohmann::json> ReadJsonFile(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  auto doc = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::Corruption(fmt::format("{}: not valid JSON", path));
  return doc;
}

}  // namespace storebench::report
