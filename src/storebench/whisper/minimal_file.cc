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

void WhisperFile::Extent::MarkDirty(uint64_t b, uint64_t e) {
  if (b == e) return;
  const bool clean = dirty_begin == dirty_end;
  dirty_begin = clean ? b : std::min(dirty_begin, b);
  dirty_end = clean ? e : std::max(dirty_end, e);
}

void WhisperFile::Merge(uint64_t offset, const uint8_t* data, size_t n, bool overwrite, bool dirty) {
  if (n == 0) return;
  if (extents_.empty()) extents_.reserve(8), arena_.reserve(1024);
  uint64_t begin = offset, end = offset + n;
  // Extents that overlap or touch [begin, end) are folded into one.
  size_t first = 0;
  while (first < extents_.size() && extents_[first].end < begin) ++first;
  size_t last = first;
  for (; last < extents_.size() && extents_[last].begin <= end; ++last) {
    begin = std::min(begin, extents_[last].begin), end = std::max(end, extents_[last].end);
  }
  if (last == first + 1) {
    Extent& e = extents_[first];
    const bool inside = e.begin == begin && e.end == end;
    const bool at_arena_end = e.at + (e.end - e.begin) == arena_.size();
    if (inside || (e.begin == begin && at_arena_end)) {
      // In place: a write into held bytes, or an extent that grows at the arena's
      // end (sequential writes, a read that extends a range), so that writing a
      // file piecewise stays linear.
      const uint64_t old_end = e.end;
      if (!inside) arena_.resize(e.at + (end - begin));
      e.end = end;
      const uint64_t from = overwrite ? offset : std::max(offset, old_end);
      if (offset + n > from) std::memcpy(arena_.data() + e.at + (from - begin), data + (from - offset), offset + n - from);
      if (dirty) e.MarkDirty(offset, offset + n);
      return;
    }
  }
  Extent merged{begin, end, arena_.size(), begin, begin};
  arena_.resize(arena_.size() + (end - begin));
  uint8_t* out = arena_.data() + merged.at;
  if (!overwrite) std::memcpy(out + (offset - begin), data, n);
  for (size_t i = first; i < last; ++i) {
    const Extent& e = extents_[i];
    std::memcpy(out + (e.begin - begin), arena_.data() + e.at, e.end - e.begin);
    merged.MarkDirty(e.dirty_begin, e.dirty_end);
  }
  if (overwrite) std::memcpy(out + (offset - begin), data, n);
  if (dirty) merged.MarkDirty(offset, offset + n);
  extents_.erase(extents_.begin() + static_cast<ptrdiff_t>(first), extents_.begin() + static_cast<ptrdiff_t>(last));
  extents_.insert(extents_.begin() + static_cast<ptrdiff_t>(first), merged);
}

std::optional<std::pair<uint64_t, uint64_t>> WhisperFile::Missing(uint64_t offset, size_t n) const {
  const uint64_t end = offset + n;
  std::optional<uint64_t> lo;
  uint64_t hi = 0;
  uint64_t at = offset;  // bytes before `at` are in the image or already counted missing
  for (const Extent& e : extents_) {
    if (e.end <= at) continue;
    if (e.begin >= end) break;
    if (e.begin > at) {
      if (!lo) lo = at;
      hi = e.begin;
    }
    at = e.end;
  }
  if (at < end) {
    if (!lo) lo = at;
    hi = end;
  }
  if (!lo) return std::nullopt;
  return std::pair{*lo, hi};
}

Status WhisperFile::Prefetch(uint64_t offset, size_t n) {
  if (!plans_reads()) return Status::Ok();
  std::optional<std::pair<uint64_t, uint64_t>> missing = Missing(offset, n);
  if (!missing) return Status::Ok();
  scratch_.resize(missing->second - missing->first);
  StatusOr<size_t> got = SysPread(missing->first, scratch_.data(), scratch_.size());
  if (!got.ok()) return got.status();
  Merge(missing->first, scratch_.data(), *got, false, false);
  return Status::Ok();
}

Status WhisperFile::ImageRead(uint64_t offset, void* buf, size_t n) {
  STOREBENCH_RETURN_IF_ERROR(Prefetch(offset, n));
  if (n == 0) return Status::Ok();
  for (const Extent& e : extents_) {
    if (e.end <= offset) continue;
    if (e.begin <= offset && e.end >= offset + n) {
      std::memcpy(buf, arena_.data() + e.at + (offset - e.begin), n);
      return Status::Ok();
    }
    // Only a short pread leaves bytes missing: the file ends first.
    return Status::Corruption(fmt::format("read whisper file {}: file ends before byte {} (read {} of {} at {})",
                                          path_, offset + n, e.begin <= offset ? e.end - offset : 0, n, offset));
  }
  return Status::Corruption(
      fmt::format("read whisper file {}: file ends before byte {} (read 0 of {} at {})", path_, offset + n, n, offset));
}

Status WhisperFile::PeekAt(uint64_t offset, void* buf, size_t n) {
  if (!plans_reads()) return Status::InvalidArgument("PeekAt is for kMinimal's planning only");
  return ImageRead(offset, buf, n);
}

Status WhisperFile::Flush() {
  if (!plans_reads()) return Status::Ok();
  Status st;
  for (const Extent& e : extents_) {
    if (e.dirty_begin == e.dirty_end || !st.ok()) continue;
    st = SysPwriteAll(e.dirty_begin, arena_.data() + e.at + (e.dirty_begin - e.begin), e.dirty_end - e.dirty_begin);
  }
  extents_.clear();
  arena_.clear();
  return st;
}

}  // namespace storebench::whisper
