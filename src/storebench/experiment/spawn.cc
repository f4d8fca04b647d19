#include "storebench/experiment/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

extern char** environ;

namespace storebench::experiment {

StatusOr<int> SpawnAndWait(const std::vector<std::string>& argv, bool quiet, const std::function<void()>& tick,
                           int stderr_fd) {
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  if (stderr_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stderr_fd, STDERR_FILENO);
  // The child gets SIGPIPE's default back (this process ignores it) and no
  // blocked signals (this process blocks its stop signals: base/stop_signal.h).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  int err = posix_spawnp(&pid, argv[0].c_str(), &actions, &attr, cargv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) return ErrnoStatus("posix_spawn", argv[0], err);
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, tick ? WNOHANG : 0);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return ErrnoStatus("waitpid", argv[0], errno);
    if (r == 0) {
      tick();
      const timespec pause{0, 100'000'000};
      nanosleep(&pause, nullptr);
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

}  // namespace storebench::experiment
