#include "storebench/backend/file/options.h"

#include <fmt/format.h>

#include "storebench/base/units.h"
#include "storebench/workload/key_distribution.h"

namespace storebench::backend::file {
namespace {

// Size flags: empty keeps `*out`.
Status SizeFlag(const OptionValues& v, const char* name, uint64_t* out) {
  const std::string text = OptionValue(v, name);
  if (text.empty()) return Status::Ok();
  StatusOr<uint64_t> n = ParseSize(text, fmt::format("--{}", name));
  if (!n.ok()) return n.status();
  *out = *n;
  return Status::Ok();
}

Status CountFlag(const OptionValues& v, const char* name, uint64_t* out) {
  const std::string text = OptionValue(v, name);
  if (text.empty()) return Status::Ok();
  StatusOr<uint64_t> n = ParseCount(text, fmt::format("--{}", name));
  if (!n.ok()) return n.status();
  *out = *n;
  return Status::Ok();
}

// Looks `text` up in {name, value} pairs; InvalidArgument listing the names otherwise.
template <typename T, size_t N>
StatusOr<T> Choice(const std::pair<const char*, T> (&table)[N], const std::string& text, const char* flag) {
  std::string names;
  for (const auto& [name, value] : table) {
    if (text == name) return value;
    names += names.empty() ? name : fmt::format(" | {}", name);
  }
  return Status::InvalidArgument(fmt::format("--{}: expected {}; got '{}'", flag, names, text));
}

constexpr std::pair<const char*, Workload> kWorkloads[] = {
    {"randread", Workload::kRandRead}, {"seqread", Workload::kSeqRead}, {"columns", Workload::kColumns}};
constexpr std::pair<const char*, CacheState> kCacheStates[] = {
    {"asis", CacheState::kAsIs}, {"warm", CacheState::kWarm}, {"cold", CacheState::kCold}, {"drop", CacheState::kDrop}};
constexpr std::pair<const char*, io::Madvise> kMadvise[] = {{"normal", io::Madvise::kNormal},
                                                            {"random", io::Madvise::kRandom},
                                                            {"sequential", io::Madvise::kSequential},
                                                            {"willneed", io::Madvise::kWillNeed}};

}  // namespace

std::string_view WorkloadName(Workload w) {
  for (const auto& [name, value] : kWorkloads)
    if (value == w) return name;
  return "?";
}

std::string_view CacheStateName(CacheState c) {
  for (const auto& [name, value] : kCacheStates)
    if (value == c) return name;
  return "?";
}

StatusOr<FileOptions> ParseFileOptions(const OptionValues& v) {
  FileOptions o;
  o.data = OptionValue(v, "data");
  STOREBENCH_RETURN_IF_ERROR(CountFlag(v, "files", &o.files));
  STOREBENCH_RETURN_IF_ERROR(SizeFlag(v, "file-size", &o.file_size));
  STOREBENCH_RETURN_IF_ERROR(SizeFlag(v, "block-size", &o.block_size));
  STOREBENCH_RETURN_IF_ERROR(SizeFlag(v, "align", &o.align));
  STOREBENCH_RETURN_IF_ERROR(CountFlag(v, "columns", &o.columns));
  if (o.block_size == 0) return Status::InvalidArgument("--block-size: must be positive, e.g. 4k");
  if (o.align == 0) o.align = o.block_size;
  if (o.columns == 0) return Status::InvalidArgument("--columns: must be at least 1");

  if (std::string w = OptionValue(v, "workload"); !w.empty()) {
    auto r = Choice(kWorkloads, w, "workload");
    if (!r.ok()) return r.status();
    o.workload = *r;
  }
  if (std::string c = OptionValue(v, "cache"); !c.empty()) {
    auto r = Choice(kCacheStates, c, "cache");
    if (!r.ok()) return r.status();
    o.cache = *r;
  }
  if (std::string m = OptionValue(v, "madvise"); !m.empty()) {
    auto r = Choice(kMadvise, m, "madvise");
    if (!r.ok()) return r.status();
    o.method_options.madvise = *r;
  }
  if (std::string m = OptionValue(v, "method"); !m.empty()) o.method = m;
  if (std::string d = OptionValue(v, "offset-dist"); !d.empty()) o.offset_dist = d;
  // Checked here, over one item, so a bad spec fails before the data set is touched.
  auto dist = workload::MakeKeyDistribution(o.offset_dist, 1, "--offset-dist");
  if (!dist.ok()) return dist.status();
  o.sequential_columns = o.offset_dist == "sequential";

  o.direct = OptionValue(v, "direct") == "1";
  o.prefetch = OptionValue(v, "prefetch") == "1";
  o.verify = OptionValue(v, "verify") == "1";
  o.serial_columns = OptionValue(v, "serial-columns") == "1";
  o.fixed_buffers = OptionValue(v, "fixed-buffers") == "1";

  io::MethodOptions& m = o.method_options;
  m.direct = o.direct;
  uint64_t buffer = m.buffer_size;
  STOREBENCH_RETURN_IF_ERROR(SizeFlag(v, "buffer", &buffer));
  m.buffer_size = static_cast<size_t>(buffer);
  uint64_t pool_threads = m.pool_threads;
  STOREBENCH_RETURN_IF_ERROR(CountFlag(v, "pool-threads", &pool_threads));
  if (pool_threads < 1 || pool_threads > 1024) return Status::InvalidArgument("--pool-threads: expected 1 to 1024");
  m.pool_threads = static_cast<unsigned>(pool_threads);
  m.sqpoll = OptionValue(v, "sqpoll") == "1";
  m.register_files = OptionValue(v, "register-files") == "1";
  m.nowait_probe = OptionValue(v, "no-nowait") != "1";

  if (o.prefetch && o.workload == Workload::kRandRead)
    return Status::InvalidArgument("--prefetch: applies to sequential scans (--workload seqread, or columns with "
                                   "--offset-dist sequential), not to randread");
  if (o.prefetch && o.workload == Workload::kColumns && !o.sequential_columns)
    return Status::InvalidArgument("--prefetch: with --workload columns it needs --offset-dist sequential (a scan)");
  if (o.fixed_buffers && o.workload == Workload::kColumns)
    return Status::InvalidArgument("--fixed-buffers: supported by randread and seqread only");
  return o;
}

std::vector<OptionSpec> FileOptionSpecs() {
  return {
      {"data", "data directory (file: the data set's files and manifest)", "", false},
      {"files", "file: number of files (prepare default 4; run default: as the data set)", "", false},
      {"file-size", "file: bytes per file, a multiple of 4k (prepare default 256M; run default: as the data set)", "",
       false},
      {"workload", "workload (file: randread | seqread | columns)", "", false},
      {"block-size", "file: bytes per read request, e.g. 4k, 1M", "4k", false},
      {"align", "file randread: offset alignment (default: the block size)", "", false},
      {"method", "file: read | pread | pread_threadpool | mmap | io_uring", "pread", false},
      {"direct", "file: O_DIRECT (pread, pread_threadpool, io_uring); alignment from statx", "", true},
      {"prefetch", "file: double-buffered scans (seqread; columns with --offset-dist sequential)", "", true},
      {"cache", "file: page-cache state before the run: warm | cold (fadvise) | drop (drop_caches, root) | asis",
       "asis", false},
      {"verify", "file: check every block read against its stamp (file id, offset, checksum)", "", true},
      {"offset-dist", "file: which blocks randread/columns read: uniform | zipfian[:θ] | hotspot:a,b | sequential | …",
       "", false},
      {"columns", "file columns: column files one query reads together", "4", false},
      {"serial-columns", "file columns: read a query's columns one by one instead of together", "", true},
      {"buffer", "file --method read: user-space buffer (0 = exact-size unbuffered reads)", "8k", false},
      {"pool-threads", "file pread_threadpool/prefetch: threads of the pool shared by all workers", "4", false},
      {"no-nowait", "file pread_threadpool: skip the inline preadv2(RWF_NOWAIT) probe (every read to the pool)", "",
       true},
      {"madvise", "file --method mmap: normal | random | sequential | willneed", "normal", false},
      {"sqpoll", "file io_uring: kernel submission-queue polling thread", "", true},
      {"register-files", "file io_uring: registered files", "", true},
      {"fixed-buffers", "file io_uring: registered (fixed) buffers for randread/seqread", "", true},
  };
}

}  // namespace storebench::backend::file
