// Opening the database for a run, with the cause of a refusal named.
//
// RocksDB rotates its info LOG (LOG -> LOG.old.*) before it takes DIR/LOCK,
// so a DB::Open that fails on a database another process holds has already
// written into the directory. What can be checked without writing is checked
// first: the LOCK's holder (F_GETLK) and the OPTIONS file (parsed read-only).
// Thread-safety: free functions; call from the main thread.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <string>

#include "storebench/base/status.h"

namespace storebench::backend::rocksdb_backend {

// Opens `dir`. InvalidArgument (exit 2) naming the process when another one
// holds the database's LOCK, Corruption naming the file for a corrupt OPTIONS
// file or a database RocksDB calls corrupt, IOError for an I/O failure.
StatusOr<rocksdb::DB*> OpenDatabase(const rocksdb::Options& options, const std::string& dir);

}  // namespace storebench::backend::rocksdb_backend
