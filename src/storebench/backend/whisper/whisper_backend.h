// The `whisper` backend: Graphite's whisper files under a carbon-like load —
// how many syscalls and bytes each update_many costs with exact-size pread/
// pwrite, with Python's 4 KiB / 8 KiB buffered file object, or as whisper.py
// 1.1.4 does it, and what that does to the page cache (DESIGN.md, problem 2).
//
//   storebench prepare --backend whisper --data DIR --metrics 100k --retention 60s:1d,5m:30d,1h:5y --sparse
//   storebench run --backend whisper --data DIR --workload update --points-per-update 10 --buffer 8k
//
// Parts: options.h (flags), dataset.h (prepare, manifest, the metric tree),
// workloads.h (the worker: carbon flushes and fetches), accounting.h (results).
// Thread-safety: as every Backend (backend.h); the optional header cache is
// shared by all workers and is thread-safe.
#pragma once

#include "storebench/backend/backend.h"

namespace storebench::backend {

BackendInfo WhisperBackendInfo();

}  // namespace storebench::backend
