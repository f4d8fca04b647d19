// What this binary is: version, the commit it was built from, build type,
// compiler and the versions of the libraries it was built with. Printed by
// `storebench --version` and recorded in every result's `tool` object.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace storebench {

struct BuildInfo {
  std::string version;
  std::string git_commit;
  std::string build_type;
  std::string compiler;
  std::string rocksdb;   // "absent" when built without librocksdb
  std::string liburing;  // "absent" when built without liburing
  std::string mpi;       // "absent" when built without Open MPI (no MPI mode)
  std::string sanitizers;
};

const BuildInfo& GetBuildInfo();

}  // namespace storebench
