#include "storebench/workload/db_bench_key.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace storebench::workload {

void EncodeDbBenchKey(uint64_t index, size_t key_size, char* out) {
  const size_t bytes = std::min<size_t>(key_size, 8);
  for (size_t i = 0; i < bytes; ++i) {
    out[i] = static_cast<char>((index >> ((bytes - i - 1) * 8)) & 0xff);
  }
  if (key_size > bytes) std::memset(out + bytes, '0', key_size - bytes);
}

std::string DbBenchKey(uint64_t index, size_t key_size) {
  std::string key(key_size, '\0');
  EncodeDbBenchKey(index, key_size, key.data());
  return key;
}

StatusOr<uint64_t> DecodeDbBenchKey(std::string_view key) {
  const size_t bytes = std::min<size_t>(key.size(), 8);
  uint64_t index = 0;
  for (size_t i = 0; i < bytes; ++i) index = (index << 8) | static_cast<unsigned char>(key[i]);
  if (key.find_first_not_of('0', bytes) != std::string_view::npos) {
    return Status::Corruption(
        fmt::format("key of {} bytes is not a db_bench key: bytes after the 8-byte index must be '0'", key.size()));
  }
  return index;
}

uint64_t DbBenchKeySpace(size_t key_size) {
  if (key_size >= 8) return std::numeric_limits<uint64_t>::max();
  return uint64_t{1} << (8 * key_size);
}

}  // namespace storebench::workload
