// The `file` backend: raw read methods over a data set of stamped files —
// ClickHouse's "which read method, with or without prefetch, with which
// priorities, on this disk" as a repeatable command, with the accounting that
// explains each result (syscalls, bytes asked vs moved vs read from the
// device, page-cache residency before and after, CPU and context switches).
//
//   storebench prepare --backend file --data DIR --files 4 --file-size 256M
//   storebench run --backend file --data DIR --workload randread --method io_uring --iodepth 32 --cache cold
//
// Parts: options.h (flags), dataset.h + stamp.h (prepare, manifest, verifiable
// content), workloads.h (workers), accounting.h (figures).
// Thread-safety: as every Backend (backend.h); one thread pool is shared by all
// workers so that query classes' priorities order the same queue.
#pragma once

#include "storebench/backend/backend.h"

namespace storebench::backend {

BackendInfo FileBackendInfo();

}  // namespace storebench::backend
