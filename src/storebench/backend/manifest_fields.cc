#include "storebench/backend/manifest_fields.h"

#include <nlohmann/json.hpp>
#include <cmath>
#include <fmt/format.h>

#include "storebench/base/json_file.h"

namespace storebench::backend {
namespace {

std::string Shown(const nlohmann::json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 40) + "…" : s;
}

}  // namespace

ManifestFields::ManifestFields(std::string path, const nlohmann::json& doc) : path_(std::move(path)), doc_(doc) {}

void ManifestFields::Fail(const char* field, std::string_view why) {
  if (!status_.ok()) return;
  status_ = Status::Corruption(fmt::format("{}: corrupt manifest: field '{}' {}; prepare the data set again (or "
                                           "remove the directory)",
                                           path_, field, why));
}

void ManifestFields::RequireComplete() {
  if (!Flag("complete")) Fail("complete", "is not true: the prepare that wrote it did not finish");
}

bool ManifestFields::Has(const char* field) const { return doc_.is_object() && doc_.contains(field); }

const nlohmann::json* ManifestFields::Get(const char* field) {
  if (!status_.ok()) return nullptr;
  if (!Has(field)) {
    Fail(field, "is missing");
    return nullptr;
  }
  return &doc_[field];
}

uint64_t ManifestFields::Count(const char* field, uint64_t lo, uint64_t hi) {
  const nlohmann::json* v = Get(field);
  if (!v) return lo;
  if (v->is_number_unsigned() && v->get<uint64_t>() >= lo && v->get<uint64_t>() <= hi) return v->get<uint64_t>();
  Fail(field, fmt::format("must be a whole number from {} to {}; it is {}", lo, hi, Shown(*v)));
  return lo;
}

int64_t ManifestFields::Integer(const char* field, int64_t lo, int64_t hi) {
  const nlohmann::json* v = Get(field);
  if (!v) return lo;
  if (v->is_number_integer() && !(v->is_number_unsigned() && v->get<uint64_t>() > uint64_t{INT64_MAX})) {
    const int64_t x = v->get<int64_t>();
    if (x >= lo && x <= hi) return x;
  }
  Fail(field, fmt::format("must be a whole number from {} to {}; it is {}", lo, hi, Shown(*v)));
  return lo;
}

double ManifestFields::Number(const char* field, double lo, double hi) {
  const nlohmann::json* v = Get(field);
  if (!v) return lo;
  if (v->is_number()) {
    const double x = v->get<double>();
    if (std::isfinite(x) && x >= lo && x <= hi) return x;
  }
  Fail(field, fmt::format("must be a number from {} to {}; it is {}", lo, hi, Shown(*v)));
  return lo;
}

std::string ManifestFields::Choice(const char* field, std::initializer_list<std::string_view> choices) {
  const nlohmann::json* v = Get(field);
  std::string list;
  for (std::string_view c : choices) {
    if (v && v->is_string() && v->get_ref<const std::string&>() == c) return std::string(c);
    list += fmt::format("{}{}", list.empty() ? "" : ", ", c);
  }
  if (v) Fail(field, fmt::format("must be one of {}; it is {}", list, Shown(*v)));
  return choices.size() ? std::string(*choices.begin()) : std::string();
}

bool ManifestFields::Flag(const char* field) {
  const nlohmann::json* v = Get(field);
  if (!v) return false;
  if (v->is_boolean()) return v->get<bool>();
  Fail(field, fmt::format("must be true or false; it is {}", Shown(*v)));
  return false;
}

std::vector<std::pair<uint64_t, uint64_t>> ManifestFields::Pairs(const char* field, uint64_t hi, size_t max_items) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  const nlohmann::json* v = Get(field);
  if (!v) return out;
  const std::string form = fmt::format("must be a list of 1 to {} pairs [a, b] of whole numbers from 1 to {}", max_items, hi);
  if (!v->is_array() || v->empty() || v->size() > max_items) {
    Fail(field, fmt::format("{}; it is {}", form, Shown(*v)));
    return {};
  }
  for (const nlohmann::json& p : *v) {
    auto ok = [hi](const nlohmann::json& x) {
      return x.is_number_unsigned() && x.get<uint64_t>() >= 1 && x.get<uint64_t>() <= hi;
    };
    if (!p.is_array() || p.size() != 2 || !ok(p[0]) || !ok(p[1])) {
      Fail(field, fmt::format("{}; one is {}", form, Shown(p)));
      return {};
    }
    out.emplace_back(p[0].get<uint64_t>(), p[1].get<uint64_t>());
  }
  return out;
}

StatusOr<nlohmann::json> ParseManifestText(std::string_view text, const std::string& path) {
  auto parsed = ParseJson(text, path);
  if (!parsed.ok() || !parsed->is_object())
    return Status::Corruption(fmt::format("{}: corrupt manifest: not a JSON object; prepare the data set again (or "
                                          "remove the directory)",
                                          path));
  return std::move(*parsed);
}

StatusOr<nlohmann::json> ReadManifestFile(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text.ok() && text.status().code() == Status::Code::kNotFound)
    return Status::NotFound(fmt::format("open {}: no such file", path));
  if (!text.ok()) return text.status();
  return ParseManifestText(*text, path);
}

}  // namespace storebench::backend
