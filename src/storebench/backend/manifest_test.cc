// Every data-set manifest parser (file, whisper, rocksdb) on hand-made bad
// manifests: each is a Corruption naming the file and the field, through the
// same check the fuzz target (manifest_fuzz.cc) runs.
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storebench/backend/file/dataset.h"
#include "storebench/backend/manifest_fields.h"
#include "storebench/backend/manifest_fuzz_entry.h"
#include "storebench/backend/whisper/dataset.h"
#if STOREBENCH_HAVE_ROCKSDB
#include "storebench/backend/rocksdb/dataset.h"
#endif

namespace storebench::backend {
namespace {

struct ManifestCase {
  ManifestKind kind;
  std::string text;
  std::string field;  // named in the error; "" for a valid manifest
};

const char* kFileGood = R"({"format":1,"files":2,"file_size":65536,"stamp_block":4096,"seed":1,"complete":true})";
const char* kWhisperGood =
    R"({"format":1,"metrics":10,"retention":"60:1440","archives":[[60,1440]],"aggregation":"average","xff":0.5,)"
    R"("sparse":true,"start":1600000000,"metrics_per_dir":256,"file_bytes":17308,"complete":true})";
const char* kRocksdbGood =
    R"({"tool":"storebench","num":1000,"key_size":16,"value_size":100,"fill":"random","seed":1,"compression":"snappy"})";

// `good` with field `key` set to `value` (raw JSON text).
std::string With(const char* good, const std::string& key, const std::string& value) {
  nlohmann::json j = nlohmann::json::parse(good);
  j[key] = nlohmann::json::parse(value);
  return j.dump();
}

std::vector<ManifestCase> Corpus() {
  std::vector<ManifestCase> c = {
      {ManifestKind::kFile, kFileGood, ""},
      {ManifestKind::kWhisper, kWhisperGood, ""},
      {ManifestKind::kFile, "", "not a JSON object"},
      {ManifestKind::kFile, "[1,2]", "not a JSON object"},
      {ManifestKind::kWhisper, "null", "not a JSON object"},
      {ManifestKind::kFile, With(kFileGood, "files", "0"), "'files'"},
      {ManifestKind::kFile, With(kFileGood, "files", "-1"), "'files'"},
      {ManifestKind::kFile, With(kFileGood, "files", "1e8"), "'files'"},
      {ManifestKind::kFile, With(kFileGood, "files", "100000000"), "'files'"},
      {ManifestKind::kFile, With(kFileGood, "files", "\"2\""), "'files'"},
      {ManifestKind::kFile, With(kFileGood, "files", "null"), "'files'"},
      {ManifestKind::kFile, With(kFileGood, "file_size", "1000"), "'file_size'"},
      {ManifestKind::kFile, With(kFileGood, "file_size", "1e30"), "'file_size'"},
      {ManifestKind::kFile, With(kFileGood, "seed", "-1"), "'seed'"},
      {ManifestKind::kFile, With(kFileGood, "complete", "false"), "'complete'"},
      {ManifestKind::kFile, With(kFileGood, "format", "2"), "'format'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "metrics", "1e13"), "'metrics'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "metrics", "10000000000000"), "'metrics'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "metrics", "-1"), "'metrics'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "metrics", "\"ten\""), "'metrics'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "archives", "[]"), "'archives'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "archives", "[[60]]"), "'archives'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "archives", "[[60,-5]]"), "'archives'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "archives", "[[60,1440],[60,10]]"), "'archives'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "archives", "\"60:1440\""), "'archives'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "aggregation", "\"median\""), "'aggregation'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "aggregation", "3"), "'aggregation'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "xff", "1.5"), "'xff'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "xff", "null"), "'xff'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "sparse", "1"), "'sparse'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "start", "-1"), "'start'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "start", "1e30"), "'start'"},
      {ManifestKind::kWhisper, With(kWhisperGood, "complete", "false"), "'complete'"},
  };
#if STOREBENCH_HAVE_ROCKSDB
  for (ManifestCase r : std::vector<ManifestCase>{
           {ManifestKind::kRocksdb, kRocksdbGood, ""},
           {ManifestKind::kRocksdb, With(kRocksdbGood, "num", "0"), "'num'"},
           {ManifestKind::kRocksdb, With(kRocksdbGood, "num", "1e30"), "'num'"},
           {ManifestKind::kRocksdb, With(kRocksdbGood, "value_size", "-1"), "'value_size'"},
           {ManifestKind::kRocksdb, With(kRocksdbGood, "value_size", "1e11"), "'value_size'"},
           {ManifestKind::kRocksdb, With(kRocksdbGood, "value_size", "100000000000"), "'value_size'"},
           {ManifestKind::kRocksdb, With(kRocksdbGood, "key_size", "\"16\""), "'key_size'"},
           {ManifestKind::kRocksdb, With(kRocksdbGood, "fill", "\"zigzag\""), "'fill'"},
           {ManifestKind::kRocksdb, With(kRocksdbGood, "compression", "7"), "'compression'"},
           {ManifestKind::kRocksdb, With(kRocksdbGood, "complete", "\"yes\""), "'complete'"},
       })
    c.push_back(r);
#endif
  return c;
}

TEST(ManifestCorpus, FuzzCheckHoldsOnEveryCase) {
  for (const ManifestCase& c : Corpus())
    EXPECT_EQ(CheckManifestBytes(c.kind, reinterpret_cast<const uint8_t*>(c.text.data()), c.text.size()), "")
        << c.text;
}

// The error names the manifest file and the field.
TEST(ManifestCorpus, BadFieldsAreCorruptionNamingFileAndField) {
  for (const ManifestCase& c : Corpus()) {
    auto j = ParseManifestText(c.text, "/d/m.json");
    Status s = j.status();
    if (j.ok()) {
      switch (c.kind) {
        case ManifestKind::kFile: s = file::ParseManifest(*j, "/d").status(); break;
        case ManifestKind::kWhisper: s = wsp::ParseManifest(*j, "/d").status(); break;
        case ManifestKind::kRocksdb:
#if STOREBENCH_HAVE_ROCKSDB
          s = rocksdb_backend::ParseManifest(*j, "/d/m.json").status();
#endif
          break;
      }
    }
    if (c.field.empty()) {
      EXPECT_TRUE(s.ok()) << c.text << ": " << s.message();
      continue;
    }
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << c.text;
    EXPECT_NE(s.message().find("/d/"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(c.field), std::string::npos) << c.text << ": " << s.message();
    EXPECT_NE(s.message().find("corrupt manifest"), std::string::npos) << s.message();
  }
}

// Bytes no one wrote on purpose: the check holds for every prefix of the valid manifests and for junk.
TEST(ManifestCorpus, TruncatedAndJunkInputs) {
  for (ManifestKind k : ManifestKinds()) {
    std::string good = k == ManifestKind::kFile ? kFileGood : k == ManifestKind::kWhisper ? kWhisperGood : kRocksdbGood;
    for (size_t n = 0; n <= good.size(); ++n)
      EXPECT_EQ(CheckManifestBytes(k, reinterpret_cast<const uint8_t*>(good.data()), n), "") << good.substr(0, n);
    for (std::string junk : {std::string("\0\xff{", 3), std::string(10000, '['), std::string("{\"files\":1e400}")})
      EXPECT_EQ(CheckManifestBytes(k, reinterpret_cast<const uint8_t*>(junk.data()), junk.size()), "");
  }
}

}  // namespace
}  // namespace storebench::backend
