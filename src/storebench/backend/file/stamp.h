// Block stamps: the verifiable content of a `file` data set.
//
// Every 4 KiB stamp block of every file begins with a 32-byte header — magic,
// file id, offset in the file, checksum of the rest — followed by
// pseudo-random payload derived from (seed, file id, offset). A whole block
// checks itself (header fields and checksum); a read that covers part of a
// block is compared with the regenerated content. Either way a mismatch names
// the file and the block's offset.
// Thread-safety: StampBlock/VerifyRead are reentrant; a BlockVerifier is a
// per-thread object (it owns scratch space).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "storebench/base/status.h"
#include "storebench/io/aligned_buffer.h"

namespace storebench::backend::file {

inline constexpr size_t kStampBlock = 4096;
inline constexpr uint64_t kStampMagic = 0x3130454c49464253ULL;  // "SBFILE01" little-endian

// Writes the stamped content of the block at `offset` (a multiple of kStampBlock) of file `file_id` into `out`.
void StampBlock(uint64_t seed, uint32_t file_id, uint64_t offset, std::span<char, kStampBlock> out);

// Checks bytes read from one file of the data set against their stamps.
class BlockVerifier {
 public:
  explicit BlockVerifier(uint64_t seed) : seed_(seed), scratch_(kStampBlock, 64) {}
  // Ok when `data` equals the content at `offset` of file `file_id`; else
  // Corruption "verify: corrupted block in <path> (file N) at offset X: <why>".
  Status Check(uint32_t file_id, const std::string& path, uint64_t offset, std::span<const char> data);

 private:
  uint64_t seed_;
  io::AlignedBuffer scratch_;
};

}  // namespace storebench::backend::file
