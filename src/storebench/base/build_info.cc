#include "storebench/base/build_info.h"

#include "storebench_git_commit.h"

namespace storebench {

const BuildInfo& GetBuildInfo() {
  static const BuildInfo info{STOREBENCH_VERSION, STOREBENCH_GIT_COMMIT, STOREBENCH_BUILD_TYPE,
                              STOREBENCH_COMPILER, STOREBENCH_ROCKSDB_VERSION, STOREBENCH_LIBURING_VERSION, STOREBENCH_MPI_VERSION,
                              STOREBENCH_SANITIZERS};
  return info;
}

}  // namespace storebench
