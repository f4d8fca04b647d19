// Sample: everything measured over one interval (or a whole run) — per op kind
// a response-time and a service-time histogram, a count per outcome and the
// bytes moved — plus the open-loop start-lag histogram.
//
// Response time runs from the intended start (open loop) to completion;
// service time from the actual start. In a closed loop the two coincide.
// Thread-safety: none; a Sample is owned by one thread at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storebench/measure/histogram.h"

namespace storebench::measure {

// What a run records: its op kinds and its outcomes. Fixed before the run.
struct RecorderLayout {
  std::vector<std::string> kinds{"op"};
  // Outcome 0 is success. An outcome whose name starts with "error" counts as an error.
  std::vector<std::string> outcomes{"ok", "error"};
  HistogramOptions histogram;

  bool IsError(size_t outcome) const { return outcomes[outcome].rfind("error", 0) == 0; }
};

struct KindSample {
  explicit KindSample(const RecorderLayout& layout)
      : response(layout.histogram), service(layout.histogram), outcomes(layout.outcomes.size(), 0) {}
  Histogram response;
  Histogram service;
  std::vector<uint64_t> outcomes;
  uint64_t bytes = 0;
};

class Sample {
 public:
  explicit Sample(const RecorderLayout& layout);

  void Record(uint32_t kind, uint32_t outcome, uint64_t intended_ns, uint64_t start_ns, uint64_t end_ns,
              uint64_t bytes) {
    KindSample& k = kinds_[kind];
    k.response.Record(end_ns - intended_ns);
    k.service.Record(end_ns - start_ns);
    k.outcomes[outcome]++;
    k.bytes += bytes;
    start_lag_.Record(start_ns - intended_ns);
  }

  // A closed-loop op: intended start = actual start, so only service time is
  // kept; the reader copies it into response time (CopyServiceToResponse).
  void RecordClosed(uint32_t kind, uint32_t outcome, uint64_t start_ns, uint64_t end_ns, uint64_t bytes) {
    KindSample& k = kinds_[kind];
    k.service.Record(end_ns - start_ns);
    k.outcomes[outcome]++;
    k.bytes += bytes;
  }
  // Records `n` closed-loop ops of one kind and outcome at once: their service
  // times and their bytes in all. The same as n RecordClosed() calls.
  void RecordClosedBatch(uint32_t kind, uint32_t outcome, const uint64_t* service_ns, size_t n, uint64_t bytes) {
    KindSample& k = kinds_[kind];
    k.service.RecordBatch(service_ns, n);
    k.outcomes[outcome] += n;
    k.bytes += bytes;
  }
  // For a kind recorded with RecordClosed(): response time := service time.
  void CopyServiceToResponse(uint32_t kind) { kinds_[kind].response = kinds_[kind].service; }

  // Adds `other` (same layout) into this sample.
  void Merge(const Sample& other);
  void Reset();

  // Completed ops across all kinds and outcomes.
  uint64_t ops() const;
  uint64_t errors() const;
  uint64_t bytes() const;
  // Histograms merged across kinds (allocates; not for the hot path).
  Histogram AllResponse() const;
  Histogram AllService() const;

  const std::vector<KindSample>& kinds() const { return kinds_; }
  const Histogram& start_lag() const { return start_lag_; }
  // For rebuilding a sample from its encoding (another process's result).
  std::vector<KindSample>& mutable_kinds() { return kinds_; }
  Histogram& mutable_start_lag() { return start_lag_; }
  const RecorderLayout& layout() const { return layout_; }

 private:
  RecorderLayout layout_;
  std::vector<KindSample> kinds_;
  Histogram start_lag_;
};

}  // namespace storebench::measure
