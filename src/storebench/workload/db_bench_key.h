// db_bench's key encoding, so a data set filled by either db_bench or
// storebench is read by the other with the same found ratio.
//
// db_bench's GenerateKeyFromInt (keys_per_prefix = 0) writes the key index as
// min(key_size, 8) big-endian bytes and pads with '0' (0x30) to key_size. With
// key_size < 8 only the low key_size bytes of the index are kept, so indexes
// that agree modulo 256^key_size map to the same key — DbBenchKeySpace() says
// how many distinct keys a key size can hold. Pure functions, thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "storebench/base/status.h"

namespace storebench::workload {

// Writes the key for `index` into out[0, key_size) exactly as db_bench does; no allocation.
void EncodeDbBenchKey(uint64_t index, size_t key_size, char* out);

// Rewrites only the index bytes of a key `EncodeDbBenchKey` wrote into `out`
// before (any index, the same key_size): the '0' padding stays, so a hot loop
// pays for 8 bytes, not the whole key.
inline void ReencodeDbBenchKey(uint64_t index, size_t key_size, char* out) {
  if (key_size < 8) return EncodeDbBenchKey(index, key_size, out);
  const uint64_t big_endian = __builtin_bswap64(index);
  std::memcpy(out, &big_endian, 8);
}

// The key for `index` as a string of key_size bytes (allocates; not for hot paths).
std::string DbBenchKey(uint64_t index, size_t key_size);

// The index a db_bench key encodes (its first min(size, 8) bytes, big-endian);
// Corruption when the padding after them is not all '0'.
StatusOr<uint64_t> DecodeDbBenchKey(std::string_view key);

// Distinct indexes a key of key_size bytes can encode: 256^key_size below 8
// bytes, else 2^64 (reported as UINT64_MAX).
uint64_t DbBenchKeySpace(size_t key_size);

}  // namespace storebench::workload
