// libFuzzer target for the header parser (built with -DSTOREBENCH_FUZZ=ON, clang).
// A broken promise traps so that libFuzzer records the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "storebench/whisper/header_fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string problem = storebench::whisper::CheckHeaderBytes(data, size);
  if (!problem.empty()) {
    std::fprintf(stderr, "header check failed: %s\n", problem.c_str());
    __builtin_trap();
  }
  return 0;
}
