#include "storebench/backend/file/dataset.h"

#include "storebench/base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <fmt/format.h>

#include "storebench/backend/file/stamp.h"
#include "storebench/backend/manifest_fields.h"
#include "storebench/base/units.h"
#include "storebench/io/aligned_buffer.h"
#include "storebench/io/fd.h"

namespace storebench::backend::file {
namespace {

constexpr int kFormat = 1;
constexpr size_t kWriteChunk = 1 << 20;

using Fd = io::UniqueFd;

std::string ManifestPath(const std::string& dir) { return dir + "/" + kManifestName; }

std::string PrepareHint(const std::string& dir, uint64_t files, uint64_t file_size) {
  return fmt::format("storebench prepare --backend file --data {} --files {} --file-size {}", dir, files,
                     file_size % (1 << 20) == 0 ? fmt::format("{}M", file_size >> 20) : std::to_string(file_size));
}

// The manifest of `dir`; NotFound when there is none.
StatusOr<Dataset> ReadManifest(const std::string& dir) {
  auto j = ReadManifestFile(ManifestPath(dir));
  if (!j.ok()) return j.status();
  return ParseManifest(*j, dir);
}

// Writes the manifest atomically and durably (the data files were fsynced as they were written).
Status WriteManifest(const Dataset& d) {
  const std::string path = ManifestPath(d.dir);
  const std::string text = nlohmann::json{{"format", kFormat},
                                          {"files", d.files},
                                          {"file_size", d.file_size},
                                          {"stamp_block", kStampBlock},
                                          {"seed", d.seed},
                                          {"complete", true}}
                               .dump(1) +
                           "\n";
  return WriteFileAtomically(path, text);
}

Status WriteError(const char* op, const std::string& path, int err, uint64_t need) {
  Status st = ErrnoStatus(op, path, err);
  if (err == ENOSPC || err == EDQUOT) {
    return Status::IOError(fmt::format("{} (the data set needs {}; its files were removed, nothing was left "
                                       "behind that could pass for a complete data set)",
                                       st.message(), FormatBytes(static_cast<double>(need))));
  }
  return st;
}

// Writes one stamped file; space is reserved first so ENOSPC comes at once.
Status WriteFile(const Dataset& d, uint64_t i, io::AlignedBuffer& chunk, const PrepareProgressFn& progress,
                 const std::atomic<bool>* stop) {
  const std::string& path = d.paths[i];
  Fd f(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (f.fd < 0) return ErrnoStatus("create", path, errno);
  if (d.file_size > 0) {
    const int rc = posix_fallocate(f.fd, 0, static_cast<off_t>(d.file_size));
    if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) return WriteError("fallocate", path, rc, d.total_bytes());
  }
  for (uint64_t off = 0; off < d.file_size; off += kWriteChunk) {
    if (stop && stop->load(std::memory_order_relaxed))
      return Status::Interrupted(fmt::format("prepare interrupted in {}; run the same prepare again to finish it",
                                             d.dir));
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kWriteChunk, d.file_size - off));
    for (size_t b = 0; b < n; b += kStampBlock) {
      StampBlock(d.seed, static_cast<uint32_t>(i), off + b, std::span<char, kStampBlock>(chunk.data() + b, kStampBlock));
    }
    size_t done = 0;
    while (done < n) {
      const ssize_t w = pwrite(f.fd, chunk.data() + done, n - done, static_cast<off_t>(off + done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return WriteError("write", path, errno, d.total_bytes());
      done += static_cast<size_t>(w);
    }
    if (progress) progress({"writing", i * d.file_size + off + n, d.total_bytes(), "bytes"});
  }
  if (fsync(f.fd) != 0) return WriteError("fsync", path, errno, d.total_bytes());
  return Status::Ok();
}

}  // namespace

std::string Dataset::Describe() const {
  return fmt::format("{} files of {} ({})", files, FormatBytes(static_cast<double>(file_size)),
                     FormatBytes(static_cast<double>(total_bytes())));
}

StatusOr<Dataset> ParseManifest(const nlohmann::json& j, const std::string& dir) {
  ManifestFields m(ManifestPath(dir), j);
  Dataset d;
  d.dir = dir;
  m.Count("format", kFormat, kFormat);
  d.files = m.Count("files", 1, kMaxFiles);
  d.file_size = m.Count("file_size", kStampBlock, kMaxFileSize);
  if (d.file_size % kStampBlock != 0) m.Fail("file_size", fmt::format("must be a multiple of {}", kStampBlock));
  d.seed = m.Count("seed", 0, UINT64_MAX);
  m.RequireComplete();
  if (!m.status().ok()) return m.status();
  for (uint64_t i = 0; i < d.files; ++i) d.paths.push_back(DataFilePath(dir, i));
  return d;
}

std::string DataFilePath(const std::string& dir, uint64_t i) { return fmt::format("{}/data-{:05}.bin", dir, i); }

StatusOr<Dataset> PrepareDataset(const std::string& dir, uint64_t files, uint64_t file_size, uint64_t seed,
                                 bool* created, const PrepareProgressFn& progress, const std::atomic<bool>* stop) {
  *created = false;
  if (files == 0 || files > kMaxFiles) return Status::InvalidArgument(fmt::format("--files: expected 1 to {}", kMaxFiles));
  if (file_size == 0 || file_size % kStampBlock != 0)
    return Status::InvalidArgument(fmt::format("--file-size: expected a positive multiple of {} bytes (e.g. 256M); "
                                               "got {}",
                                               kStampBlock, file_size));
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoStatus("mkdir", dir, errno);
  StatusOr<Dataset> existing = ReadManifest(dir);
  if (existing.ok()) {
    if (existing->files == files && existing->file_size == file_size) return existing;
    return Status::InvalidArgument(fmt::format(
        "--data {}: already holds a different file data set ({}); asked for {} files of {}. Choose another "
        "directory, or remove {}/data-*.bin and {}/{} first",
        dir, existing->Describe(), files, FormatBytes(static_cast<double>(file_size)), dir, dir, kManifestName));
  }
  if (existing.status().code() != Status::Code::kNotFound) return existing.status();

  Dataset d;
  d.dir = dir;
  d.files = files;
  d.file_size = file_size;
  d.seed = seed;
  for (uint64_t i = 0; i < files; ++i) d.paths.push_back(DataFilePath(dir, i));
  io::AlignedBuffer chunk(kWriteChunk, 4096);
  if (chunk.empty()) return Status::IOError("prepare: out of memory for the write buffer");
  auto remove_files = [&d](uint64_t upto) {
    for (uint64_t k = 0; k < upto; ++k) unlink(d.paths[k].c_str());
  };
  for (uint64_t i = 0; i < files; ++i) {
    Status st = WriteFile(d, i, chunk, progress, stop);
    if (!st.ok()) {
      // An interrupted prepare keeps what it wrote (without a manifest it cannot pass for complete, and a re-run
      // rewrites it); a failed one removes it, to give the space back.
      if (st.code() != Status::Code::kInterrupted) remove_files(i + 1);
      return st;
    }
  }
  if (Status st = WriteManifest(d); !st.ok()) {
    remove_files(files);
    return Status::IOError(fmt::format("{} (writing the manifest; the data files were removed)", st.message()));
  }
  *created = true;
  return d;
}

StatusOr<Dataset> OpenDataset(const std::string& dir, uint64_t files, uint64_t file_size) {
  const uint64_t want_files = files ? files : 4;
  const uint64_t want_size = file_size ? file_size : uint64_t{256} << 20;
  if (dir.empty()) {
    return Status::InvalidArgument(
        fmt::format("--data: the file backend needs a data set directory; make one with `{}`",
                    PrepareHint("DIR", want_files, want_size)));
  }
  StatusOr<Dataset> d = ReadManifest(dir);
  if (!d.ok()) {
    if (d.status().code() != Status::Code::kNotFound) return d.status();
    return Status::NotFound(fmt::format("--data {}: no complete file data set there ({} is missing); make one with "
                                        "`{}`",
                                        dir, kManifestName, PrepareHint(dir, want_files, want_size)));
  }
  if ((files && d->files != files) || (file_size && d->file_size != file_size)) {
    return Status::InvalidArgument(fmt::format(
        "--data {}: the data set there has {}, but this run asks for {} files of {}; drop --files/--file-size to use "
        "it as it is, or make a matching one in another directory with `{}`",
        dir, d->Describe(), files ? files : d->files,
        FormatBytes(static_cast<double>(file_size ? file_size : d->file_size)),
        PrepareHint("OTHER_DIR", files ? files : d->files, file_size ? file_size : d->file_size)));
  }
  for (const std::string& p : d->paths) {
    struct stat st {};
    if (stat(p.c_str(), &st) != 0) {
      return Status::Corruption(fmt::format("--data {}: {} is listed in the manifest but missing ({}); prepare the "
                                            "data set again",
                                            dir, p, std::strerror(errno)));
    }
    if (static_cast<uint64_t>(st.st_size) != d->file_size) {
      return Status::Corruption(fmt::format("--data {}: {} has {} bytes, the manifest says {}; prepare the data set "
                                            "again",
                                            dir, p, st.st_size, d->file_size));
    }
  }
  return d;
}

}  // namespace storebench::backend::file
