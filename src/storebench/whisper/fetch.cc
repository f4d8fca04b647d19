// fetch() with whisper.py 1.1.4's range clamping, archive choice and time info.
#include <fmt/format.h>

#include "storebench/whisper/whisper.h"

namespace storebench::whisper {
namespace {

// __archive_fetch(): the checks on the range happened above, so the read may wrap
// and return points older than the archive's retention (they read as null).
StatusOr<FetchResult> ArchiveFetch(WhisperFile& f, const ArchiveInfo& archive, int64_t from, int64_t until) {
  const int64_t step = archive.seconds_per_point;
  FetchResult r;
  r.step = step;
  r.from = AlignDown(from, archive.seconds_per_point) + step;
  r.until = AlignDown(until, archive.seconds_per_point) + step;
  if (r.from == r.until) r.until += step;  // a zero-length range still returns the next point

  uint8_t base_buf[kPointSize];
  STOREBENCH_RETURN_IF_ERROR(f.ReadAt(archive.offset, base_buf, sizeof(base_buf)));
  const Point base = DecodePoint(base_buf);
  if (base.timestamp == 0) {
    r.values.assign(static_cast<size_t>(FloorDiv(r.until - r.from, step)), std::nullopt);
    return r;
  }
  const uint64_t from_offset = SlotOffset(archive, base.timestamp, r.from);
  const uint64_t until_offset = SlotOffset(archive, base.timestamp, r.until);
  std::vector<uint8_t> series;
  if (from_offset < until_offset) {
    series.resize(until_offset - from_offset);
    STOREBENCH_RETURN_IF_ERROR(f.ReadAt(from_offset, series.data(), series.size()));
  } else {
    const uint64_t head = archive.end() - from_offset;
    series.resize(head + (until_offset - archive.offset));
    STOREBENCH_RETURN_IF_ERROR(f.ReadAt(from_offset, series.data(), head));
    STOREBENCH_RETURN_IF_ERROR(f.ReadAt(archive.offset, series.data() + head, until_offset - archive.offset));
  }
  const size_t n = series.size() / kPointSize;
  r.values.assign(n, std::nullopt);
  int64_t interval = r.from;
  for (size_t i = 0; i < n; ++i, interval += step) {
    Point p = DecodePoint(series.data() + i * kPointSize);
    if (p.timestamp == interval) r.values[i] = p.value;
  }
  return r;
}

StatusOr<std::optional<FetchResult>> ChooseArchiveAndFetch(WhisperFile& f, int64_t from, int64_t until, int64_t now,
                                                  std::optional<uint32_t> seconds_per_point) {
  StatusOr<Header> header = f.ReadHeader();
  if (!header.ok()) return header.status();
  if (from > until) {
    return Status::InvalidArgument(fmt::format(
        "fetch whisper file {}: Invalid time interval: from time '{}' is after until time '{}'", f.path(), from,
        until));
  }
  const int64_t oldest = now - int64_t{header->max_retention};
  if (from > now || until < oldest) return std::optional<FetchResult>();
  from = std::max(from, oldest);
  until = std::min(until, now);
  const int64_t diff = now - from;

  // Without a match the loop variable of whisper.py is left on the last archive.
  const ArchiveInfo* chosen = &header->archives.back();
  for (const ArchiveInfo& a : header->archives) {
    if (seconds_per_point ? a.seconds_per_point == *seconds_per_point : static_cast<int64_t>(a.retention()) >= diff) {
      chosen = &a;
      break;
    }
    if (seconds_per_point && &a == &header->archives.back()) {
      return Status::InvalidArgument(
          fmt::format("fetch whisper file {}: Invalid granularity: {}", f.path(), *seconds_per_point));
    }
  }
  StatusOr<FetchResult> r = ArchiveFetch(f, *chosen, from, until);
  if (!r.ok()) return r.status();
  return std::optional<FetchResult>(std::move(*r));
}

}  // namespace

StatusOr<std::optional<FetchResult>> FetchFile(WhisperFile& f, int64_t from, int64_t until, int64_t now,
                                               std::optional<uint32_t> seconds_per_point) {
  StatusOr<std::optional<FetchResult>> r = ChooseArchiveAndFetch(f, from, until, now, seconds_per_point);
  Status forgotten = f.Flush();  // kMinimal: the next fetch on this handle reads the file afresh
  if (r.ok() && !forgotten.ok()) return forgotten;
  return r;
}

StatusOr<std::optional<FetchResult>> Fetch(const std::string& path, int64_t from, int64_t until, int64_t now,
                                           const IoOptions& io, SyscallCounters* counters,
                                           std::optional<uint32_t> seconds_per_point) {
  StatusOr<std::unique_ptr<WhisperFile>> f = WhisperFile::Open(path, OpenMode::kRead, io, counters);
  if (!f.ok()) return f.status();
  StatusOr<std::optional<FetchResult>> r = FetchFile(**f, from, until, now, seconds_per_point);
  Status closed = (*f)->Close();
  if (r.ok() && !closed.ok()) return closed;
  return r;
}

}  // namespace storebench::whisper
