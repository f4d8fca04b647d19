#include "storebench/backend/file/options.h"

#include <fmt/format.h>

#include "storebench/workload/key_distribution.h"

namespace storebench::backend::file {
namespace {

const std::vector<std::pair<std::string, Workload>> kWorkloads = {
    {"randread", Workload::kRandRead}, {"seqread", Workload::kSeqRead}, {"columns", Workload::kColumns}};

std::vector<std::pair<std::string, std::string>> MethodChoices() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const io::MethodInfo& m : io::ReadMethods()) out.emplace_back(std::string(m.name), std::string(m.name));
  return out;
}

// Checks across options, before the data set is touched.
Status CheckFileOptions(const FileOptions& o) {
  if (o.prefetch && o.workload == Workload::kRandRead)
    return Status::InvalidArgument("--prefetch: applies to sequential scans (--workload seqread, or columns with "
                                   "--offset-dist sequential), not to randread");
  if (o.prefetch && o.workload == Workload::kColumns && !o.sequential_columns)
    return Status::InvalidArgument("--prefetch: with --workload columns it needs --offset-dist sequential (a scan)");
  if (o.fixed_buffers && o.workload == Workload::kColumns)
    return Status::InvalidArgument("--fixed-buffers: supported by randread and seqread only");
  if ((o.sqpoll || o.register_files || o.fixed_buffers) && o.method != "io_uring")
    return Status::InvalidArgument(fmt::format("--{}: an io_uring option; --method is {}",
                                               o.sqpoll ? "sqpoll" : o.register_files ? "register-files" : "fixed-buffers",
                                               o.method));
  if (o.madvise != io::Madvise::kNormal && o.method != "mmap")
    return Status::InvalidArgument(fmt::format("--madvise: an mmap option; --method is {}", o.method));
  return Status::Ok();
}

}  // namespace

std::string_view WorkloadName(Workload w) {
  for (const auto& [name, value] : kWorkloads)
    if (value == w) return name;
  return "?";
}

io::MethodOptions FileOptions::MethodOptions() const {
  io::MethodOptions m;
  m.direct = direct;
  m.buffer_size = static_cast<size_t>(buffer);
  m.pool_threads = static_cast<unsigned>(pool_threads);
  m.madvise = madvise;
  m.sqpoll = sqpoll;
  m.register_files = register_files;
  m.nowait_probe = !no_nowait;
  return m;
}

const OptionTable<FileOptions>& FileOptionTable() {
  static const OptionTable<FileOptions> table = [] {
    OptionTable<FileOptions> t("backend 'file'");
    t.Path("data", &FileOptions::data, "data directory (file: the data set's files and manifest)")
        .Count("files", &FileOptions::files, "file: number of files (prepare default 4; run default: as the data set)",
               "", 1, 1'000'000)
        .Size("file-size", &FileOptions::file_size,
              "file: bytes per file, a multiple of 4k (prepare default 256M; run default: as the data set)", "", 4096)
        .Enum("workload", &FileOptions::workload, kWorkloads, "workload (file)", "randread")
        .Size("block-size", &FileOptions::block_size, "file: bytes per read request, e.g. 4k, 1M", "4k", 1,
              uint64_t{1} << 30)
        .Size("align", &FileOptions::align, "file randread: offset alignment (default: the block size)", "", 1,
              uint64_t{1} << 30)
        .Enum("method", &FileOptions::method, MethodChoices(), "file: read method", "pread")
        .Flag("direct", &FileOptions::direct, "file: O_DIRECT (pread, pread_threadpool, io_uring); alignment from statx")
        .Flag("prefetch", &FileOptions::prefetch,
              "file: double-buffered scans (seqread; columns with --offset-dist sequential)")
        .Flag("verify", &FileOptions::verify,
              "file: check every block read against its stamp (file id, offset, checksum)")
        .Custom({"offset-dist", OptionType::kText, "file: which blocks randread/columns read", "uniform", {}, "",
                 "uniform | zipfian[:THETA] | hotspot:KEYS,OPS | sequential | …"},
                [](FileOptions& o, const std::string& v) -> Status {
                  // Checked over one item, so a bad spec fails before the data set is touched.
                  auto dist = workload::MakeKeyDistribution(v, 1, "--offset-dist");
                  if (!dist.ok()) return dist.status();
                  o.offset_dist = v;
                  o.sequential_columns = v == "sequential";
                  return Status::Ok();
                })
        .Count("columns", &FileOptions::columns, "file columns: column files one query reads together", "4", 1, 4096)
        .Flag("serial-columns", &FileOptions::serial_columns,
              "file columns: read a query's columns one by one instead of together")
        .Size("buffer", &FileOptions::buffer, "file --method read: user-space buffer (0 = exact-size unbuffered reads)",
              "8k", 0, uint64_t{1} << 30)
        .Count("pool-threads", &FileOptions::pool_threads,
               "file pread_threadpool/prefetch: threads of the pool shared by all workers", "4", 1, 1024)
        .Flag("no-nowait", &FileOptions::no_nowait,
              "file pread_threadpool: skip the inline preadv2(RWF_NOWAIT) probe (every read to the pool)")
        .Enum("madvise", &FileOptions::madvise,
              std::vector<std::pair<std::string, io::Madvise>>{{"normal", io::Madvise::kNormal},
                                                               {"random", io::Madvise::kRandom},
                                                               {"sequential", io::Madvise::kSequential},
                                                               {"willneed", io::Madvise::kWillNeed}},
              "file --method mmap", "normal")
        .Flag("sqpoll", &FileOptions::sqpoll, "file io_uring: kernel submission-queue polling thread")
        .Flag("register-files", &FileOptions::register_files, "file io_uring: registered files")
        .Flag("fixed-buffers", &FileOptions::fixed_buffers, "file io_uring: registered (fixed) buffers for randread/seqread")
        .Require(CheckFileOptions);
    return t;
  }();
  return table;
}

}  // namespace storebench::backend::file
