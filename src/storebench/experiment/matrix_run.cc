#include "storebench/experiment/matrix_run.h"

#include <chrono>
#include <filesystem>
#include <fmt/format.h>

#include "storebench/experiment/spawn.h"

namespace storebench::experiment {
namespace {

Status ResetCache(const std::string& reset) {
  if (reset.empty()) return Status::Ok();
  auto rc = SpawnAndWait({"/bin/sh", "-c", reset}, /*quiet=*/false);
  if (!rc.ok()) return rc.status();
  if (*rc != 0) return Status::IOError(fmt::format("--cache-reset: '{}' exited with {}", reset, *rc));
  return Status::Ok();
}

}  // namespace

StatusOr<GridEnd> RunGridChildren(const std::vector<MatrixVariant>& variants, const GridOrder& order,
                                  const GridRunSettings& settings, const std::atomic<bool>* stop,
                                  const GridWatch& watch) {
  GridEnd end;
  for (size_t i = 0; i < order.todo.size(); ++i) {
    if (stop->load()) {
      end.interrupted = true;
      return end;
    }
    GridChild child;
    child.index = i;
    child.variant = order.todo[i].first;
    child.repeat = order.todo[i].second;
    const MatrixVariant& v = variants[child.variant];
    child.path = (std::filesystem::path(settings.out_dir) / RunFileName(v, child.repeat)).string();
    STOREBENCH_RETURN_IF_ERROR(ResetCache(settings.cache_reset));
    child.argv = settings.command(v, child.path);
    if (watch.before) watch.before(&child);
    const auto start = std::chrono::steady_clock::now();
    std::function<void()> tick;
    if (watch.tick) tick = [&] { watch.tick(child); };
    auto rc = SpawnAndWait(child.argv, /*quiet=*/true, tick, child.stderr_fd);
    if (watch.after)
      watch.after(child, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!rc.ok()) return rc.status();
    if (*rc != 0) {
      end.failed_exit_code = *rc;
      end.failed = fmt::format("{} #{}", v.name, child.repeat);
      return end;
    }
    if (stop->load()) {
      end.interrupted = true;
      return end;
    }
    auto run = report::LoadRun(child.path);
    if (!run.ok()) return run.status();
    if (watch.stored) watch.stored(child, *run);
  }
  return end;
}

}  // namespace storebench::experiment
