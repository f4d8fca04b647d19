// Proof, before any work, that a command's outputs can be written where it
// was asked to write them. A run of hours whose result is lost at the end
// (a name the file system cannot hold, a directory under /proc, a read-only
// mount, a full disk) costs the whole run; every command that writes checks
// each output here first, through CommandFiles::Check() (file_identity.h).
//
// For a file: not empty, not a directory; a device or FIFO is accepted when
// writable (it is written through); otherwise its name and the temporary
// name WriteFileAtomically makes beside it fit the file system (pathconf
// NAME_MAX and PATH_MAX), the directory exists and is on no pseudo file
// system (proc, sysfs, devpts, cgroup, debugfs, …), is not mounted
// read-only, and a sibling temporary file can be created, written (one
// block: a full disk fails here) and removed.
// For a directory the command makes (--out, a data set's --data): the same
// checks on the directory itself if it exists, else on its nearest existing
// ancestor, with every name still to be made checked against NAME_MAX.
//
// Errors are InvalidArgument (exit 2), one line naming the flag, the path
// as given and why.
// Thread-safety: free functions without shared state.
#pragma once

#include <string>
#include <string_view>

#include "storebench/base/status.h"

namespace storebench {

Status CheckOutputPath(const std::string& path, std::string_view flag);
Status CheckOutputDirectory(const std::string& dir, std::string_view flag);
// For a data set a run writes into: only that it is on no pseudo file system
// and not mounted read-only (a missing directory passes: the backend names it). A full disk is not
// refused: updates in place need no room, and writes that fail are counted
// as the run's failed ops (ENOSPC is an outcome, docs/reliability.md).
Status CheckDataDirectoryWritable(const std::string& dir, std::string_view flag);

}  // namespace storebench
