#include "storebench/backend/file/workloads.h"

#include <algorithm>

#include "storebench/backend/file/file_worker.h"

namespace storebench::backend::file {

io::MethodOptions WorkerMethodOptions(const FileShared& shared, unsigned depth) {
  io::MethodOptions m = shared.options.method_options;
  m.pool = shared.pool;
  m.queue_depth = std::max(2u, depth);
  m.max_in_flight = std::max(2u, depth);
  return m;
}

StatusOr<std::unique_ptr<Worker>> NewFileWorker(const FileShared& shared, const WorkerContext& context) {
  const FileOptions& o = shared.options;
  const size_t columns = static_cast<size_t>(std::min<uint64_t>(o.columns, shared.dataset.files));
  if (o.workload == Workload::kColumns && o.sequential_columns) {
    std::vector<uint32_t> files(columns);
    for (size_t i = 0; i < columns; ++i) files[i] = static_cast<uint32_t>(i);
    return NewScanWorker(shared, context, std::move(files), true);
  }
  if (o.workload == Workload::kColumns) return NewColumnsWorker(shared, context, columns);
  if (o.workload == Workload::kSeqRead && context.queue_depth <= 1) return NewScanWorker(shared, context, {}, false);
  return NewBlockWorker(shared, context);
}

}  // namespace storebench::backend::file
