// ManifestFields: reads a data set's manifest (JSON) field by field, checking
// each for type and range. The manifest is input like any flag: a field of
// the wrong type, out of range or missing is reported as a corrupt manifest
// naming the file and the field (Status::Corruption, exit 2), never as an
// exception, a crash or an allocation sized by whatever the file says.
// The first problem is kept; later reads return defaults, so a parser reads
// every field and checks status() once.
// Thread-safety: one object per parse, used by one thread.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "storebench/base/status.h"

namespace storebench::backend {

class ManifestFields {
 public:
  // `doc` must outlive this object; `path` names the manifest in messages.
  ManifestFields(std::string path, const nlohmann::json& doc);

  // A whole number from lo to hi.
  uint64_t Count(const char* field, uint64_t lo, uint64_t hi);
  // A signed whole number from lo to hi.
  int64_t Integer(const char* field, int64_t lo, int64_t hi);
  // A finite number from lo to hi.
  double Number(const char* field, double lo, double hi);
  // One of `choices`.
  std::string Choice(const char* field, std::initializer_list<std::string_view> choices);
  bool Flag(const char* field);
  // An array of [a, b] pairs of whole numbers from 1 to hi, at most max_items of them.
  std::vector<std::pair<uint64_t, uint64_t>> Pairs(const char* field, uint64_t hi, size_t max_items);
  // "complete": true, which a prepare writes last; false or missing means it did not finish.
  void RequireComplete();
  // The field is there (any type).
  bool Has(const char* field) const;
  // Records a problem with `field` found by the caller (e.g. a cross-field check).
  void Fail(const char* field, std::string_view why);

  const Status& status() const { return status_; }

 private:
  const nlohmann::json* Get(const char* field);  // nullptr (and a failure) when missing

  std::string path_;
  const nlohmann::json& doc_;
  Status status_;
};

// Parses `text` as a manifest document: Corruption naming `path` unless it is a JSON object.
StatusOr<nlohmann::json> ParseManifestText(std::string_view text, const std::string& path);

// Reads and parses the manifest at `path`: NotFound when there is none.
StatusOr<nlohmann::json> ReadManifestFile(const std::string& path);

}  // namespace storebench::backend
