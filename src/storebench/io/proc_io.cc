#include "storebench/io/proc_io.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace storebench::io {
namespace {

struct Field {
  const char* name;
  uint64_t ProcIo::*member;
};
constexpr Field kFields[] = {
    {"rchar", &ProcIo::rchar},           {"wchar", &ProcIo::wchar},
    {"syscr", &ProcIo::syscr},           {"syscw", &ProcIo::syscw},
    {"read_bytes", &ProcIo::read_bytes}, {"write_bytes", &ProcIo::write_bytes},
    {"cancelled_write_bytes", &ProcIo::cancelled_write_bytes},
};

}  // namespace

ProcIo& ProcIo::operator-=(const ProcIo& o) {
  for (const Field& f : kFields) this->*f.member -= o.*f.member;
  return *this;
}

StatusOr<ProcIo> ReadProcIo(const char* path) {
  FILE* f = std::fopen(path, "re");
  if (f == nullptr) {
    const int err = errno;
    if (err == ENOENT) {
      return Status::NotSupported(std::string("open ") + path +
                                  ": missing (kernel built without CONFIG_TASK_IO_ACCOUNTING)");
    }
    return ErrnoStatus("open", path, err);
  }
  ProcIo io;
  int found = 0;
  char name[64];
  unsigned long long value = 0;
  while (std::fscanf(f, "%63[^:]: %llu\n", name, &value) == 2) {
    for (const Field& field : kFields) {
      if (std::strcmp(name, field.name) == 0) {
        io.*field.member = value;
        ++found;
      }
    }
  }
  std::fclose(f);
  if (found != static_cast<int>(std::size(kFields))) {
    return Status::IOError(std::string("parse ") + path + ": expected 7 fields (rchar … cancelled_write_bytes)");
  }
  return io;
}

ResourceUsage& ResourceUsage::operator-=(const ResourceUsage& o) {
  user_ns -= o.user_ns;
  system_ns -= o.system_ns;
  voluntary_switches -= o.voluntary_switches;
  involuntary_switches -= o.involuntary_switches;
  major_faults -= o.major_faults;
  minor_faults -= o.minor_faults;
  return *this;
}

StatusOr<ResourceUsage> ReadResourceUsage(bool thread) {
  rusage ru{};
  if (getrusage(thread ? RUSAGE_THREAD : RUSAGE_SELF, &ru) != 0) return ErrnoStatus("getrusage", "", errno);
  ResourceUsage u;
  u.user_ns = TimevalNs(ru.ru_utime);
  u.system_ns = TimevalNs(ru.ru_stime);
  u.voluntary_switches = static_cast<uint64_t>(ru.ru_nvcsw);
  u.involuntary_switches = static_cast<uint64_t>(ru.ru_nivcsw);
  u.major_faults = static_cast<uint64_t>(ru.ru_majflt);
  u.minor_faults = static_cast<uint64_t>(ru.ru_minflt);
  return u;
}

}  // namespace storebench::io
