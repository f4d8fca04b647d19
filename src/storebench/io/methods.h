// Internal: the registry's view of each read method (one .cc file per method).
#pragma once

#include <memory>

#include "storebench/io/read_method.h"

namespace storebench::io {

extern const MethodInfo kBufferedReadInfo;
extern const MethodInfo kPreadInfo;
extern const MethodInfo kPreadThreadPoolInfo;
extern const MethodInfo kMmapInfo;
extern const MethodInfo kIoUringInfo;

std::unique_ptr<ReadMethod> NewBufferedRead(const MethodOptions& options);
std::unique_ptr<ReadMethod> NewPread(const MethodOptions& options);
std::unique_ptr<ReadMethod> NewPreadThreadPool(const MethodOptions& options);
std::unique_ptr<ReadMethod> NewMmap(const MethodOptions& options);
std::unique_ptr<ReadMethod> NewIoUring(const MethodOptions& options);

// Fills a completion for a finished request.
inline ReadCompletion MakeCompletion(const ReadRequest& req, size_t bytes, int error) {
  return ReadCompletion{req.tag, req.file, req.offset, req.length, bytes, error};
}

}  // namespace storebench::io
