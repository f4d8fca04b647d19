#include "storebench/backend/file/stamp.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "storebench/workload/random.h"

namespace storebench::backend::file {
namespace {

struct Header {
  uint64_t magic;
  uint32_t file_id;
  uint32_t block_size;
  uint64_t offset;
  uint64_t checksum;  // of the payload
};
static_assert(sizeof(Header) == 32);
constexpr size_t kPayloadWords = (kStampBlock - sizeof(Header)) / 8;

// A multiply-xor hash over 64-bit words: cheap (the verify path runs it per read) and order-sensitive.
uint64_t Checksum(const char* payload) {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (size_t i = 0; i < kPayloadWords; ++i) {
    uint64_t w;
    std::memcpy(&w, payload + i * 8, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 29;
  }
  return h;
}

}  // namespace

void StampBlock(uint64_t seed, uint32_t file_id, uint64_t offset, std::span<char, kStampBlock> out) {
  uint64_t state = seed ^ (uint64_t{file_id} << 40) ^ (offset / kStampBlock) * 0x2545f4914f6cdd1dULL;
  char* payload = out.data() + sizeof(Header);
  for (size_t i = 0; i < kPayloadWords; ++i) {
    const uint64_t w = workload::SplitMix64(&state);
    std::memcpy(payload + i * 8, &w, 8);
  }
  const Header h{kStampMagic, file_id, static_cast<uint32_t>(kStampBlock), offset, Checksum(payload)};
  std::memcpy(out.data(), &h, sizeof h);
}

Status BlockVerifier::Check(uint32_t file_id, const std::string& path, uint64_t offset, std::span<const char> data) {
  uint64_t pos = offset;
  size_t done = 0;
  while (done < data.size()) {
    const uint64_t block = pos - pos % kStampBlock;
    const size_t in_block = static_cast<size_t>(pos - block);
    const size_t n = std::min(kStampBlock - in_block, data.size() - done);
    const char* got = data.data() + done;
    const char* why = nullptr;
    std::string detail;
    if (n == kStampBlock) {
      Header h;
      std::memcpy(&h, got, sizeof h);
      if (h.magic != kStampMagic) {
        why = "no stamp (the block was never written by prepare, or was overwritten)";
      } else if (h.file_id != file_id || h.offset != block) {
        detail = fmt::format("stamped as file {} offset {} (a misplaced read or write)", h.file_id, h.offset);
      } else if (h.checksum != Checksum(got + sizeof(Header))) {
        why = "payload checksum mismatch";
      }
    } else {
      StampBlock(seed_, file_id, block, std::span<char, kStampBlock>(scratch_.data(), kStampBlock));
      if (std::memcmp(got, scratch_.data() + in_block, n) != 0) why = "bytes differ from the stamped content";
    }
    if (why != nullptr || !detail.empty()) {
      return Status::Corruption(fmt::format("verify: corrupted block in {} (file {}) at offset {}: {} (read of {} "
                                            "bytes at offset {})",
                                            path, file_id, block, why != nullptr ? why : detail, data.size(), offset));
    }
    pos += n;
    done += n;
  }
  return Status::Ok();
}

}  // namespace storebench::backend::file
