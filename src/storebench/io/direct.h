// O_DIRECT support: opening a file for reading, with or without O_DIRECT, and
// the alignment rules a direct read must follow.
//
// The alignment comes from statx(STATX_DIOALIGN) when the filesystem reports it,
// else from the device's logical block size (BLKSSZGET on a block device, sysfs
// for a regular file's device), else st_blksize. A filesystem that cannot do
// direct I/O (tmpfs, ramfs, or one that rejects O_DIRECT at open) is refused
// when the file is opened, never with a bare EINVAL in the middle of a run.
// Thread-safety: free functions without shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "storebench/base/status.h"

namespace storebench::io {

// Alignment in bytes a direct read needs; 1/1 for buffered files.
struct DirectAlignment {
  uint32_t memory = 1;  // buffer address multiple
  uint32_t offset = 1;  // file offset and length multiple
  const char* source = "buffered";  // "statx", "logical block size", "st_blksize"
};

// An open file as a read method sees it.
struct OpenedFile {
  int fd = -1;
  uint64_t size = 0;
  bool direct = false;
  DirectAlignment alignment;
  std::string path;
};

// Opens `path` read-only (O_DIRECT when `direct`) and learns its size and, for
// direct, its alignment; refuses filesystems without real direct I/O.
StatusOr<OpenedFile> OpenForRead(const std::string& path, bool direct);

// Ok when a read of `length` bytes at `offset` into `buf` meets `file`'s
// alignment; else InvalidArgument naming the required alignment.
Status CheckDirectRead(const OpenedFile& file, uint64_t offset, size_t length, const void* buf);

// Alignment of `fd` (opened on `path`) for direct reads, or NotSupported.
StatusOr<DirectAlignment> QueryDirectAlignment(int fd, const std::string& path);

}  // namespace storebench::io
