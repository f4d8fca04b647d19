// The `null` backend: ops that do nothing, or wait a known time, so the driver
// and the measurement core can be tested and measured on their own (fio's
// null engine). Optional injected stalls pause every worker at once for a
// fixed time once per period, like a storage device that hiccups — the case
// that shows coordinated omission. With --null-async ops complete through
// Reap() after their service time, exercising queue depth > 1.
#pragma once

#include "storebench/backend/backend.h"

namespace storebench::backend {

BackendInfo NullBackendInfo();

// Parsed null-backend options (exposed for tests).
struct NullOptions {
  enum class Service { kZero, kSpin, kSleep } service = Service::kZero;
  uint64_t service_ns = 0;
  uint64_t stall_ns = 0;         // 0 = no stalls
  uint64_t stall_period_ns = 0;  // a stall of stall_ns ends every period
  int stall_worker = -1;         // the worker (index over the run) that stalls; -1 = every worker
  bool async = false;
  uint64_t fail_every = 0;       // every Nth op of a worker fails (outcome "error"); 0 = none
};
// The null backend's options, declared once.
const OptionTable<NullOptions>& NullOptionTable();

}  // namespace storebench::backend
