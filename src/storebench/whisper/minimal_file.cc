// WhisperFile's kMinimal mode: an in-memory image of the byte ranges one
// operation reads or writes. A read of bytes the image lacks loads them with
// one pread (from the first missing byte to the last, so a range read in
// pieces by whisper's algorithm costs one syscall once prefetched); a write
// changes the image only; Flush() writes each extent's changed span with one
// pwrite. Bytes already in the image always win over bytes read later: they
// are what the file holds once the operation's writes land.
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "storebench/whisper/file.h"

namespace storebench::whisper {

void WhisperFile::Extent::MarkDirty(uint64_t begin, uint64_t end) {
  if (begin == end) return;
  const bool clean = dirty_begin == dirty_end;
  dirty_begin = clean ? begin : std::min(dirty_begin, begin);
  dirty_end = clean ? end : std::max(dirty_end, end);
}

void WhisperFile::Merge(uint64_t offset, const uint8_t* data, size_t n, bool overwrite, bool dirty) {
  if (n == 0) return;
  uint64_t begin = offset, end = offset + n;
  // Extents that overlap or touch [begin, end) are folded into one.
  auto first = image_.upper_bound(begin);
  if (first != image_.begin() && std::prev(first)->first + std::prev(first)->second.bytes.size() >= begin) --first;
  auto last = first;
  while (last != image_.end() && last->first <= end) {
    begin = std::min(begin, last->first);
    end = std::max(end, last->first + last->second.bytes.size());
    ++last;
  }
  if (first != last && std::next(first) == last && first->first == begin) {
    // One extent grows (sequential writes, a read that extends a range): in place,
    // so that writing a file piecewise stays linear.
    Extent& e = first->second;
    const uint64_t old_end = begin + e.bytes.size();
    e.bytes.resize(end - begin);
    const uint64_t from = overwrite ? offset : std::max(offset, old_end);
    if (offset + n > from) std::memcpy(e.bytes.data() + (from - begin), data + (from - offset), offset + n - from);
    if (dirty) e.MarkDirty(offset, offset + n);
    return;
  }
  Extent merged;
  merged.bytes.resize(end - begin);
  merged.dirty_begin = merged.dirty_end = begin;
  if (!overwrite) std::memcpy(merged.bytes.data() + (offset - begin), data, n);
  for (auto it = first; it != last; ++it) {
    const Extent& e = it->second;
    std::memcpy(merged.bytes.data() + (it->first - begin), e.bytes.data(), e.bytes.size());
    merged.MarkDirty(e.dirty_begin, e.dirty_end);
  }
  if (overwrite) std::memcpy(merged.bytes.data() + (offset - begin), data, n);
  if (dirty) merged.MarkDirty(offset, offset + n);
  image_.erase(first, last);
  image_.emplace(begin, std::move(merged));
}

std::optional<std::pair<uint64_t, uint64_t>> WhisperFile::Missing(uint64_t offset, size_t n) const {
  const uint64_t end = offset + n;
  std::optional<uint64_t> lo;
  uint64_t hi = 0;
  uint64_t at = offset;  // bytes before `at` are in the image or already counted missing
  auto it = image_.upper_bound(offset);
  if (it != image_.begin()) at = std::max(at, std::prev(it)->first + std::prev(it)->second.bytes.size());
  for (; at < end; ++it) {
    const bool gap_to_end = it == image_.end() || it->first >= end;
    const uint64_t gap_end = gap_to_end ? end : it->first;
    if (gap_end > at) {
      if (!lo) lo = at;
      hi = gap_end;
    }
    if (gap_to_end) break;
    at = it->first + it->second.bytes.size();
  }
  if (!lo) return std::nullopt;
  return std::pair{*lo, hi};
}

Status WhisperFile::Prefetch(uint64_t offset, size_t n) {
  if (!plans_reads()) return Status::Ok();
  std::optional<std::pair<uint64_t, uint64_t>> missing = Missing(offset, n);
  if (!missing) return Status::Ok();
  std::vector<uint8_t> bytes(missing->second - missing->first);
  StatusOr<size_t> got = SysPread(missing->first, bytes.data(), bytes.size());
  if (!got.ok()) return got.status();
  Merge(missing->first, bytes.data(), *got, false, false);
  return Status::Ok();
}

Status WhisperFile::ImageRead(uint64_t offset, void* buf, size_t n) {
  STOREBENCH_RETURN_IF_ERROR(Prefetch(offset, n));
  if (n == 0) return Status::Ok();
  auto it = image_.upper_bound(offset);
  const Extent* e = nullptr;
  uint64_t have = 0;  // bytes the image holds from `offset` on
  if (it != image_.begin()) {
    --it;
    e = &it->second;
    have = it->first + e->bytes.size() > offset ? it->first + e->bytes.size() - offset : 0;
  }
  if (have < n) {
    // Only a short pread leaves bytes missing: the file ends first.
    return Status::Corruption(fmt::format("read whisper file {}: file ends before byte {} (read {} of {} at {})",
                                          path_, offset + n, have, n, offset));
  }
  std::memcpy(buf, e->bytes.data() + (offset - it->first), n);
  return Status::Ok();
}

Status WhisperFile::PeekAt(uint64_t offset, void* buf, size_t n) {
  if (!plans_reads()) return Status::InvalidArgument("PeekAt is for kMinimal's planning only");
  return ImageRead(offset, buf, n);
}

Status WhisperFile::Flush() {
  if (!plans_reads()) return Status::Ok();
  Status st;
  for (const auto& [begin, e] : image_) {
    if (e.dirty_begin == e.dirty_end || !st.ok()) continue;
    const uint8_t* p = e.bytes.data() + (e.dirty_begin - begin);
    const size_t n = e.dirty_end - e.dirty_begin;
    st = SysPwriteAll(e.dirty_begin, p, n);
  }
  image_.clear();
  return st;
}

}  // namespace storebench::whisper
