#include "storebench/io/direct.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <fmt/format.h>

namespace storebench::io {
namespace {

// Logical block size of the device holding a regular file, read from sysfs
// because BLKSSZGET needs a descriptor of the device itself. 0 if unknown.
uint32_t SysfsLogicalBlockSize(dev_t dev) {
  for (const char* suffix : {"queue/logical_block_size", "../queue/logical_block_size"}) {
    const std::string p = fmt::format("/sys/dev/block/{}:{}/{}", major(dev), minor(dev), suffix);
    if (FILE* f = std::fopen(p.c_str(), "re")) {
      unsigned v = 0;
      const int n = std::fscanf(f, "%u", &v);
      std::fclose(f);
      if (n == 1 && v > 0) return v;
    }
  }
  return 0;
}

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

StatusOr<DirectAlignment> QueryDirectAlignment(int fd, const std::string& path) {
  struct statfs fs {};
  if (fstatfs(fd, &fs) != 0) return ErrnoStatus("fstatfs", path, errno);
  // tmpfs accepts O_DIRECT since Linux 6.6 but serves it from memory, so a "direct"
  // measurement there would silently be a page-cache one.
  if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) {
    return Status::NotSupported(fmt::format(
        "direct I/O on {}: the filesystem is tmpfs/ramfs, which has no device to read from; "
        "put the data set on a disk filesystem (ext4, xfs) or drop --direct",
        path));
  }
  DirectAlignment a;
  struct statx sx {};
  if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN) != 0) {
    if (sx.stx_dio_offset_align == 0) {
      return Status::NotSupported(
          fmt::format("direct I/O on {}: the filesystem reports no O_DIRECT support (statx STATX_DIOALIGN)", path));
    }
    a.memory = sx.stx_dio_mem_align;
    a.offset = sx.stx_dio_offset_align;
    a.source = "statx";
    return a;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) return ErrnoStatus("fstat", path, errno);
  uint32_t block = 0;
  if (S_ISBLK(st.st_mode)) {
    int lbs = 0;
    if (ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > 0) block = static_cast<uint32_t>(lbs);
  } else {
    block = SysfsLogicalBlockSize(st.st_dev);
  }
  if (block != 0) {
    a.source = "logical block size";
  } else {
    block = static_cast<uint32_t>(st.st_blksize);
    a.source = "st_blksize";
  }
  if (!IsPowerOfTwo(block)) block = 4096;
  a.memory = block;
  a.offset = block;
  return a;
}

StatusOr<OpenedFile> OpenForRead(const std::string& path, bool direct) {
  OpenedFile f;
  f.path = path;
  f.direct = direct;
  f.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
  if (f.fd < 0) {
    const int err = errno;
    if (direct && err == EINVAL) {
      return Status::NotSupported(fmt::format("open {} with O_DIRECT: the filesystem does not support direct I/O", path));
    }
    return ErrnoStatus("open", path, err);
  }
  struct stat st {};
  if (fstat(f.fd, &st) != 0) {
    const int err = errno;
    close(f.fd);
    return ErrnoStatus("fstat", path, err);
  }
  f.size = static_cast<uint64_t>(st.st_size);
  if (direct) {
    StatusOr<DirectAlignment> a = QueryDirectAlignment(f.fd, path);
    if (!a.ok()) {
      close(f.fd);
      return a.status();
    }
    f.alignment = *a;
  }
  return f;
}

Status CheckDirectRead(const OpenedFile& file, uint64_t offset, size_t length, const void* buf) {
  if (!file.direct) return Status::Ok();
  const DirectAlignment& a = file.alignment;
  const auto addr = reinterpret_cast<uintptr_t>(buf);
  if (offset % a.offset == 0 && length % a.offset == 0 && addr % a.memory == 0) return Status::Ok();
  return Status::InvalidArgument(fmt::format(
      "direct read of {} bytes at offset {} of {} into buffer {}: O_DIRECT here needs offset and length "
      "multiples of {} bytes and a buffer address multiple of {} bytes (from {})",
      length, offset, file.path, buf, a.offset, a.memory, a.source));
}

}  // namespace storebench::io
