// update() and update_many() with whisper.py 1.1.4's semantics, step for step:
// the same archive choice, the same runs of contiguous points, the same
// wrap-around writes and the same propagation reads, so that files come out
// byte-identical and the Python I/O modes issue whisper.py's syscalls.
#include <algorithm>

#include <fmt/format.h>

#include "storebench/whisper/python_compat.h"
#include "storebench/whisper/whisper.h"

namespace storebench::whisper {
namespace {

Status CheckStorable(const WhisperFile& f, int64_t interval) {
  // struct.pack('!L') refuses these in whisper.py as well.
  if (interval < 0 || interval > int64_t{UINT32_MAX}) {
    return Status::InvalidArgument(
        fmt::format("update whisper file {}: timestamp {} does not fit 32 bits", f.path(), interval));
  }
  return Status::Ok();
}

StatusOr<Point> ReadPoint(WhisperFile& f, uint64_t offset) {
  uint8_t buf[kPointSize];
  STOREBENCH_RETURN_IF_ERROR(f.ReadAt(offset, buf, sizeof(buf)));
  return DecodePoint(buf);
}

// Writes `point` into the slot of its interval: the archive's first slot when the
// archive is still empty (base timestamp 0), else relative to the base point.
Status WriteSlot(WhisperFile& f, const ArchiveInfo& archive, const Point& point) {
  StatusOr<Point> base = ReadPoint(f, archive.offset);
  if (!base.ok()) return base.status();
  uint64_t at = base->timestamp == 0 ? archive.offset : SlotOffset(archive, base->timestamp, point.timestamp);
  uint8_t buf[kPointSize];
  EncodePoint(point, buf);
  return f.WriteAt(at, buf, sizeof(buf));
}

// The range of `higher` that Propagate() reads for the `lower` interval starting at
// `lower_start`, as an offset from higher.offset and a length (it may wrap).
std::pair<uint64_t, uint64_t> SpanOf(const ArchiveInfo& higher, uint32_t base, const ArchiveInfo& lower,
                                     int64_t lower_start) {
  const uint64_t first = base == 0 ? higher.offset : SlotOffset(higher, base, lower_start);
  const uint64_t span = uint64_t{lower.seconds_per_point / higher.seconds_per_point} * kPointSize;
  return {first - higher.offset, span};
}

// Two reads become one when at most this many bytes lie between them: copying
// them costs less than another pread (they are in the page cache or on the
// same pages as the bytes read anyway).
bool Joinable(uint64_t end, uint64_t next_begin) {
  constexpr uint64_t kMaxGap = 512;
  return next_begin <= end + kMaxGap;
}

// kMinimal only: loads every range of `higher` that propagating `intervals` into
// `lower` will read, one pread per contiguous range (see Joinable), plus
// lower's base point when it can join one of them; so that Propagate() reads each
// byte once, whatever the number of intervals.
Status PrefetchSpans(WhisperFile& f, const ArchiveInfo& higher, const ArchiveInfo& lower,
                     const std::vector<int64_t>& intervals) {
  if (!f.plans_reads() || intervals.empty()) return Status::Ok();
  uint8_t buf[kPointSize];
  STOREBENCH_RETURN_IF_ERROR(f.PeekAt(higher.offset, buf, sizeof(buf)));
  const uint32_t base = DecodePoint(buf).timestamp;
  std::vector<std::pair<uint64_t, uint64_t>> pieces;  // [begin, end) file offsets
  pieces.reserve(intervals.size() + 2);
  for (int64_t lower_start : intervals) {
    auto [at, len] = SpanOf(higher, base, lower, lower_start);
    len = std::min(len, higher.size_bytes());
    const uint64_t head = std::min(len, higher.size_bytes() - at);
    pieces.push_back({higher.offset + at, higher.offset + at + head});
    if (head < len) pieces.push_back({higher.offset, higher.offset + (len - head)});
  }
  std::sort(pieces.begin(), pieces.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged = {pieces.front()};
  for (const auto& p : pieces) {
    if (Joinable(merged.back().second, p.first)) {
      merged.back().second = std::max(merged.back().second, p.second);
    } else {
      merged.push_back(p);
    }
  }
  // Lower's base point follows higher's last byte in the file (ParseHeader checks
  // the archives are in file order).
  for (auto& [begin, end] : merged) {
    if (lower.offset >= end && Joinable(end, lower.offset)) end = lower.offset + kPointSize;
    STOREBENCH_RETURN_IF_ERROR(f.Prefetch(begin, end - begin));
  }
  return Status::Ok();
}

// __propagate(): aggregates the `higher` points covering the `lower` interval of
// `timestamp` into `lower` when at least xFilesFactor of them are known.
StatusOr<bool> Propagate(WhisperFile& f, const Header& header, int64_t timestamp, const ArchiveInfo& higher,
                         const ArchiveInfo& lower) {
  const int64_t lower_start = AlignDown(timestamp, lower.seconds_per_point);
  StatusOr<Point> base = ReadPoint(f, higher.offset);
  if (!base.ok()) return base.status();
  const auto [at, span] = SpanOf(higher, base->timestamp, lower, lower_start);
  const uint64_t first = higher.offset + at;
  const uint64_t last = (at + span) % higher.size_bytes() + higher.offset;
  std::vector<uint8_t> series;
  if (first < last) {
    series.resize(last - first);
    STOREBENCH_RETURN_IF_ERROR(f.ReadAt(first, series.data(), series.size()));
  } else {
    series.resize(higher.end() - first + (last - higher.offset));
    STOREBENCH_RETURN_IF_ERROR(f.ReadAt(first, series.data(), higher.end() - first));
    STOREBENCH_RETURN_IF_ERROR(
        f.ReadAt(higher.offset, series.data() + (higher.end() - first), last - higher.offset));
  }
  const size_t n = series.size() / kPointSize;
  std::vector<std::optional<double>> neighbors(n);
  std::vector<double> known;
  int64_t interval = lower_start;
  for (size_t i = 0; i < n; ++i, interval += higher.seconds_per_point) {
    Point p = DecodePoint(series.data() + i * kPointSize);
    if (p.timestamp == interval) {
      neighbors[i] = p.value;
      known.push_back(p.value);
    }
  }
  if (known.empty()) return false;
  const double known_fraction = static_cast<double>(known.size()) / static_cast<double>(n);
  if (!(known_fraction >= static_cast<double>(header.x_files_factor))) return false;
  STOREBENCH_RETURN_IF_ERROR(CheckStorable(f, lower_start));
  Point out{static_cast<uint32_t>(lower_start), Aggregate(header.aggregation, known, neighbors)};
  STOREBENCH_RETURN_IF_ERROR(WriteSlot(f, lower, out));
  return true;
}

// A run of points for consecutive intervals, written with one write (two on wrap).
struct Run {
  int64_t start = 0;
  std::vector<uint8_t> bytes;
};

// __archive_update_many(): `points` are in chronological order (ties keep the
// reversed input order, so that whisper.py's "last of a run" picks the same one).
Status ArchiveUpdateMany(WhisperFile& f, const Header& header, size_t archive_index,
                         const std::vector<TimedValue>& points) {
  const ArchiveInfo& archive = header.archives[archive_index];
  const int64_t step = archive.seconds_per_point;
  std::vector<TimedValue> aligned;
  aligned.reserve(points.size());
  for (const TimedValue& p : points) aligned.push_back({AlignDown(p.timestamp, archive.seconds_per_point), p.value});

  std::vector<Run> runs;
  Run current;
  std::optional<int64_t> previous;
  auto close_run = [&] {
    const auto count = static_cast<int64_t>(current.bytes.size() / kPointSize);
    current.start = *previous - step * (count - 1);
    runs.push_back(std::move(current));
    current = Run{};
  };
  for (size_t i = 0; i < aligned.size(); ++i) {
    if (i + 1 < aligned.size() && aligned[i].timestamp == aligned[i + 1].timestamp) continue;
    const auto [interval, value] = aligned[i];
    STOREBENCH_RETURN_IF_ERROR(CheckStorable(f, interval));
    // whisper.py tests `not previousInterval`, so an interval of 0 starts no new run.
    if (previous && *previous != 0 && interval != *previous + step) close_run();
    uint8_t buf[kPointSize];
    EncodePoint({static_cast<uint32_t>(interval), value}, buf);
    current.bytes.insert(current.bytes.end(), buf, buf + kPointSize);
    previous = interval;
  }
  if (!current.bytes.empty()) close_run();

  StatusOr<Point> base_point = ReadPoint(f, archive.offset);
  if (!base_point.ok()) return base_point.status();
  const int64_t base = base_point->timestamp != 0 ? int64_t{base_point->timestamp} : runs.front().start;
  for (const Run& run : runs) {
    const uint64_t at = SlotOffset(archive, base, run.start);
    const uint64_t end = at + run.bytes.size();
    if (end > archive.end()) {
      // Wraps: the tail goes to the archive's start. A run longer than the archive
      // (only possible with points from the future) spills past it, as in whisper.py.
      const size_t head = archive.end() - at;
      STOREBENCH_RETURN_IF_ERROR(f.WriteAt(at, run.bytes.data(), head));
      STOREBENCH_RETURN_IF_ERROR(f.PythonTell());  // whisper.py's assert fh.tell() == archiveEnd
      STOREBENCH_RETURN_IF_ERROR(f.WriteAt(archive.offset, run.bytes.data() + head, run.bytes.size() - head));
    } else {
      STOREBENCH_RETURN_IF_ERROR(f.WriteAt(at, run.bytes.data(), run.bytes.size()));
    }
  }

  const ArchiveInfo* higher = &archive;
  for (const ArchiveInfo& lower : header.archives) {
    if (lower.seconds_per_point <= archive.seconds_per_point) continue;
    std::vector<int64_t> intervals;
    intervals.reserve(aligned.size());
    for (const TimedValue& p : aligned) intervals.push_back(AlignDown(p.timestamp, lower.seconds_per_point));
    bool further = false;
    const std::vector<int64_t> ordered = CPythonSetOrder(intervals);
    STOREBENCH_RETURN_IF_ERROR(PrefetchSpans(f, *higher, lower, ordered));
    for (int64_t interval : ordered) {
      StatusOr<bool> done = Propagate(f, header, interval, *higher, lower);
      if (!done.ok()) return done.status();
      further = further || *done;
    }
    if (!further) break;
    higher = &lower;
  }
  return Status::Ok();
}

template <typename Op>
Status WithFile(const std::string& path, const IoOptions& io, SyscallCounters* counters, Op op) {
  StatusOr<std::unique_ptr<WhisperFile>> f = WhisperFile::Open(path, OpenMode::kReadWrite, io, counters);
  if (!f.ok()) return f.status();
  Status st = op(**f);
  Status closed = (*f)->Close();
  return st.ok() ? closed : st;
}

// Runs `op` and then writes what kMinimal holds, also after a failure: whisper.py
// has written everything before the failing step by then.
template <typename Op>
Status ThenFlush(WhisperFile& f, Op op) {
  Status st = op();
  Status flushed = f.Flush();
  return st.ok() ? flushed : st;
}

Status UpdateOne(WhisperFile& f, double value, std::optional<int64_t> timestamp, int64_t now) {
  StatusOr<Header> header = f.ReadHeader();
  if (!header.ok()) return header.status();
  const int64_t t = timestamp.value_or(now);
  const int64_t diff = now - t;
  if (!(diff < int64_t{header->max_retention} && diff >= 0)) {
    return Status::InvalidArgument(fmt::format(
        "update whisper file {}: Timestamp not covered by any archives in this database.", f.path()));
  }
  const auto& archives = header->archives;
  auto it = std::find_if(archives.begin(), archives.end(),
                         [diff](const ArchiveInfo& a) { return static_cast<int64_t>(a.retention()) >= diff; });
  if (it == archives.end()) {
    return Status::Corruption(fmt::format("update whisper file {}: maxRetention {} exceeds every archive's retention",
                                          f.path(), header->max_retention));
  }
  const int64_t interval = AlignDown(t, it->seconds_per_point);
  STOREBENCH_RETURN_IF_ERROR(CheckStorable(f, interval));
  STOREBENCH_RETURN_IF_ERROR(WriteSlot(f, *it, {static_cast<uint32_t>(interval), value}));
  for (auto higher = it; higher + 1 != archives.end(); ++higher) {
    StatusOr<bool> done = Propagate(f, *header, interval, *higher, *(higher + 1));
    if (!done.ok()) return done.status();
    if (!*done) break;
  }
  return Status::Ok();
}

Status UpdateManyPoints(WhisperFile& f, std::vector<TimedValue> points, int64_t now) {
  if (points.empty()) return Status::Ok();
  // Newest first; equal timestamps keep their input order, as Python's stable sort does.
  std::stable_sort(points.begin(), points.end(),
                   [](const TimedValue& a, const TimedValue& b) { return a.timestamp > b.timestamp; });
  StatusOr<Header> header = f.ReadHeader();
  if (!header.ok()) return header.status();
  const size_t count = header->archives.size();
  size_t archive = 0;
  std::vector<TimedValue> current;
  auto commit = [&]() -> Status {
    std::reverse(current.begin(), current.end());
    Status st = ArchiveUpdateMany(f, *header, archive, current);
    current.clear();
    return st;
  };
  for (const TimedValue& p : points) {
    const int64_t age = now - p.timestamp;
    while (archive < count && static_cast<int64_t>(header->archives[archive].retention()) < age) {
      if (!current.empty()) STOREBENCH_RETURN_IF_ERROR(commit());
      ++archive;
    }
    if (archive == count) break;  // the rest is older than every archive: dropped
    current.push_back(p);
  }
  if (archive < count && !current.empty()) STOREBENCH_RETURN_IF_ERROR(commit());
  return Status::Ok();
}

}  // namespace

Status UpdateFile(WhisperFile& f, double value, std::optional<int64_t> timestamp, int64_t now) {
  return ThenFlush(f, [&] { return UpdateOne(f, value, timestamp, now); });
}

Status UpdateManyFile(WhisperFile& f, std::vector<TimedValue> points, int64_t now) {
  return ThenFlush(f, [&] { return UpdateManyPoints(f, std::move(points), now); });
}

Status Update(const std::string& path, double value, std::optional<int64_t> timestamp, int64_t now,
              const IoOptions& io, SyscallCounters* counters) {
  return WithFile(path, io, counters, [&](WhisperFile& f) { return UpdateFile(f, value, timestamp, now); });
}

Status UpdateMany(const std::string& path, std::vector<TimedValue> points, int64_t now, const IoOptions& io,
                  SyscallCounters* counters) {
  if (points.empty()) return Status::Ok();  // whisper.py does not even open the file
  return WithFile(path, io, counters,
                  [&](WhisperFile& f) { return UpdateManyFile(f, std::move(points), now); });
}

}  // namespace storebench::whisper
