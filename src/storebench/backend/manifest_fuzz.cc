// libFuzzer target for the data-set manifest parsers (built with
// -DSTOREBENCH_FUZZ=ON, clang). The first byte picks the parser (file,
// whisper, rocksdb), the rest is the manifest text. A broken promise traps so
// that libFuzzer records the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "storebench/backend/manifest_fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto kinds = storebench::backend::ManifestKinds();
  const auto kind = kinds[data[0] % kinds.size()];
  std::string problem = storebench::backend::CheckManifestBytes(kind, data + 1, size - 1);
  if (!problem.empty()) {
    std::fprintf(stderr, "manifest check failed (parser %d): %s\n", static_cast<int>(kind), problem.c_str());
    __builtin_trap();
  }
  return 0;
}
