// create(), info() and set_aggregation(): the operations that write or read
// only the header (create also lays out the archives).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "storebench/whisper/whisper.h"

namespace storebench::whisper {
namespace {

Status CheckXFilesFactor(double xff) {
  // whisper.py lets NaN through and then cannot read the file back; refuse it.
  if (!(xff >= 0 && xff <= 1)) {
    return Status::InvalidArgument(fmt::format("Invalid xFilesFactor {}, not between 0 and 1", xff));
  }
  return Status::Ok();
}

Status WriteArchives(WhisperFile& f, const Header& header, Allocation allocation) {
  std::string head = SerializeHeader(header);
  STOREBENCH_RETURN_IF_ERROR(f.WriteAt(0, head.data(), head.size()));
  const uint64_t end = header.archives.back().end();
  const uint64_t header_size = head.size();
  switch (allocation) {
    case Allocation::kFallocate:
      return f.Allocate(header_size, end - header_size);
    case Allocation::kSparse: {
      const uint8_t zero = 0;
      return f.WriteAt(end - 1, &zero, 1);
    }
    case Allocation::kZeroFill: {
      // The same 16 KiB chunks as whisper.py.
      static const std::string kZeroes(16384, '\0');
      // kMinimal writes what it holds with one pwrite; flushing every MiB bounds what it holds
      // (a larger image costs more in page faults and copies than the pwrites it saves).
      constexpr uint64_t kFlushEvery = uint64_t{1} << 20;  // a multiple of the chunk
      for (uint64_t at = header_size; at < end; at += kZeroes.size()) {
        STOREBENCH_RETURN_IF_ERROR(f.WriteAt(at, kZeroes.data(), std::min<uint64_t>(kZeroes.size(), end - at)));
        if ((at - header_size + kZeroes.size()) % kFlushEvery == 0) STOREBENCH_RETURN_IF_ERROR(f.Flush());
      }
      return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace

Status Create(const std::string& path, std::vector<ArchiveSpec> archives, const CreateOptions& options,
              const IoOptions& io, SyscallCounters* counters) {
  STOREBENCH_RETURN_IF_ERROR(ValidateArchiveList(archives));
  STOREBENCH_RETURN_IF_ERROR(CheckXFilesFactor(options.x_files_factor));
  Header header;
  header.aggregation = options.aggregation;
  header.x_files_factor = static_cast<float>(options.x_files_factor);
  uint64_t offset = kMetadataSize + kArchiveInfoSize * archives.size();
  for (const ArchiveSpec& a : archives) {
    if (offset + uint64_t{a.points} * kPointSize > UINT32_MAX) {
      return Status::InvalidArgument(
          fmt::format("create whisper file {}: archives need more than 4 GiB, beyond 32-bit offsets", path));
    }
    header.archives.push_back(ArchiveInfo{static_cast<uint32_t>(offset), a.seconds_per_point, a.points});
    header.max_retention = std::max<uint32_t>(header.max_retention, a.seconds_per_point * a.points);
    offset += uint64_t{a.points} * kPointSize;
  }
  StatusOr<std::unique_ptr<WhisperFile>> f = WhisperFile::Open(path, OpenMode::kCreate, io, counters);
  if (!f.ok()) return f.status();
  Status st = (*f)->Lock();
  if (st.ok()) st = WriteArchives(**f, header, options.allocation);
  if (st.ok()) st = (*f)->Close();
  if (!st.ok()) {
    (void)(*f)->Close();  // the first failure is the one to report; the file goes anyway
    ::unlink(path.c_str());  // half a file is worse than none, as whisper.py says
    return st;
  }
  (*f)->InvalidateCachedHeader();
  return Status::Ok();
}

StatusOr<Header> Info(const std::string& path, const IoOptions& io, SyscallCounters* counters) {
  StatusOr<std::unique_ptr<WhisperFile>> f = WhisperFile::Open(path, OpenMode::kRead, io, counters);
  if (!f.ok()) return f.status();
  StatusOr<Header> h = (*f)->ReadHeader();
  Status closed = (*f)->Close();
  if (h.ok() && !closed.ok()) return closed;
  return h;
}

StatusOr<AggregationSetting> SetAggregation(const std::string& path, std::optional<AggregationMethod> method,
                                            std::optional<double> x_files_factor, const IoOptions& io,
                                            SyscallCounters* counters) {
  StatusOr<std::unique_ptr<WhisperFile>> f = WhisperFile::Open(path, OpenMode::kReadWrite, io, counters);
  if (!f.ok()) return f.status();
  StatusOr<Header> h = (*f)->ReadHeader();
  if (!h.ok()) return h.status();
  AggregationSetting old{h->aggregation, h->x_files_factor};
  const double xff = x_files_factor.value_or(h->x_files_factor);
  STOREBENCH_RETURN_IF_ERROR(CheckXFilesFactor(xff));
  std::string meta = EncodeMetadata(method.value_or(h->aggregation), h->max_retention, static_cast<float>(xff),
                                    static_cast<uint32_t>(h->archives.size()));
  STOREBENCH_RETURN_IF_ERROR((*f)->WriteAt(0, meta.data(), meta.size()));
  STOREBENCH_RETURN_IF_ERROR((*f)->Close());
  (*f)->InvalidateCachedHeader();
  return old;
}

}  // namespace storebench::whisper
