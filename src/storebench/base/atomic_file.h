// One way to write a file that a reader must never see half-written: result
// documents, CSV timelines and every data set's manifest. The text goes to a
// temporary file beside the path (write loop, fsync), which is renamed over
// the path, and the directory is fsynced so the rename survives a crash.
// A path that names a device or a FIFO is written through instead (replacing
// /dev/null with a regular file would be data loss); a symbolic link is
// followed, and its target replaced.
// Thread-safety: free functions without shared state.
#pragma once

#include <string>
#include <string_view>

#include "storebench/base/status.h"

namespace storebench {

Status WriteFileAtomically(const std::string& path, std::string_view text);

// Where WriteFileAtomically writes through `path`: a symbolic link's target
// (a dangling one's too), else `path` itself.
std::string ResolveOutputLink(const std::string& path);
// The temporary file WriteFileAtomically writes before renaming it over
// `resolved` (ResolveOutputLink's answer): output_path.h proves it can be made.
std::string AtomicTempPath(const std::string& resolved);
// The directory part of a path ("." for a bare name).
std::string DirectoryOf(const std::string& path);

}  // namespace storebench
