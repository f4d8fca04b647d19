#include "storebench/cli/exit_code.h"

#include <gtest/gtest.h>

namespace storebench::cli {
namespace {

TEST(ExitCode, EachFailureHasOneExitCode) {
  EXPECT_EQ(ExitCodeOf(Status::Ok()), kExitOk);
  for (const Status& bad : {Status::InvalidArgument("x"), Status::NotFound("x"), Status::Corruption("x"),
                            Status::NotSupported("x")})
    EXPECT_EQ(ExitCodeOf(bad), kExitBadInput) << bad.ToString();
  EXPECT_EQ(ExitCodeOf(Status::IOError("x")), kExitRunFailed);
  EXPECT_EQ(ExitCodeOf(Status::Interrupted("x")), kExitInterrupted);
  // A child's code keeps its meaning as this process's.
  for (int code : {int{kExitRunFailed}, int{kExitBadInput}, int{kExitInterrupted}, 134})
    EXPECT_EQ(ExitCodeOf(ChildFailure(code, "run")), code == 134 ? kExitRunFailed : code) << code;
  EXPECT_EQ(ChildFailure(2, "matrix: run a #1").message(), "matrix: run a #1 failed with exit code 2");
}

}  // namespace
}  // namespace storebench::cli
