// Test helpers for io/: a temporary directory on the real disk (O_DIRECT and
// the page cache need one; tmpfs has neither) and files of known content.
#pragma once

#include <sys/statfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "storebench/io/read_method.h"

namespace storebench::io::testing {

// Byte `off` of test file `seed`: varies with both so a wrong offset or file shows.
inline char PatternByte(uint64_t seed, uint64_t off) {
  uint64_t x = (off + 1) * 0x9E3779B97F4A7C15ull ^ (seed + 1) * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<char>(x & 0xff);
}

inline std::vector<char> Pattern(uint64_t seed, uint64_t off, size_t len) {
  std::vector<char> v(len);
  for (size_t i = 0; i < len; ++i) v[i] = PatternByte(seed, off + i);
  return v;
}

inline bool OnTmpfs(const std::string& path) {
  struct statfs fs {};
  return statfs(path.c_str(), &fs) == 0 && (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
}

class TempDir {
 public:
  explicit TempDir(const char* base = nullptr) {
    const char* env = std::getenv("TMPDIR");
    std::string tmpl = std::string(base != nullptr ? base : (env != nullptr && *env ? env : "/tmp")) + "/sb-io-XXXXXX";
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

  // Writes a file of `size` pattern bytes and returns its path.
  std::string WriteFile(const std::string& name, uint64_t size, uint64_t seed) const {
    const std::string p = path_ + "/" + name;
    const std::vector<char> data = Pattern(seed, 0, size);
    std::ofstream(p, std::ios::binary).write(data.data(), static_cast<std::streamsize>(data.size()));
    return p;
  }

 private:
  std::string path_;
};

// A fixture holding one method object with one pattern file open. OpenWith
// marks the test skipped when the kernel or filesystem lacks the feature.
template <typename Param>
class MethodFixture : public ::testing::TestWithParam<Param> {
 protected:
  void OpenWith(const char* name, const MethodOptions& options, uint64_t size, uint64_t seed) {
    path_ = dir_.WriteFile("data", size, seed);
    StatusOr<std::unique_ptr<ReadMethod>> m = CreateReadMethod(name, options);
    Status st = m.status();
    if (m.ok()) {
      method_ = std::move(*m);
      StatusOr<int> f = method_->Open(path_);
      st = f.status();
      if (f.ok()) file_ = *f;
    }
    if (st.code() == Status::Code::kNotSupported) GTEST_SKIP() << st.message();
    ASSERT_TRUE(st.ok()) << st.message();
  }

  TempDir dir_;
  std::string path_;
  std::unique_ptr<ReadMethod> method_;
  int file_ = -1;
};

}  // namespace storebench::io::testing
