// The reference of the run result document's keys (schema storebench.run/2):
// one table, printed as docs/json.md by `storebench help --markdown keys`,
// and the matcher a test uses to check that every key the result writer
// emits is in it (cli/docs_test.cc).
//
// A pattern is a dotted path: `*` stands for one key of a map (a kind's or a
// group's name), `[]` ends an array's name (`intervals[].ops`: the key of each
// element), and a key of shape kSection covers everything below it (figures
// with their own reference). `two_phase.phase1` holds a phase with the
// top level's run keys, so paths under it are matched as the top level's.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace storebench::report {

enum class KeyShape {
  kValue,        // the key itself
  kLatency,      // a latency object: count, min/mean/stddev, percentiles, saturated, histogram
  kPercentiles,  // p50_ns, p90_ns, p99_ns, p999_ns, p9999_ns, max_ns
  kCauses,       // a tail's causes: queueing, engine, client, platform, largest, cpu_wait, ideal_ns, observed_ns
  kCpuHeld,      // who held the CPU: workers_ns, engine_ns, engine_threads.*, client_ns, others_ns, …
  kOutcomes,     // ops per outcome name: ok, not_found, error:…
  kSection,      // everything below: figures with their own reference
};

struct ResultKey {
  const char* pattern;
  KeyShape shape;
  const char* meaning;
};

std::span<const ResultKey> ResultKeys();

// The entry that describes `path` (dotted, arrays as `name[]`), or nullptr.
const ResultKey* DescribingKey(std::string_view path);

// docs/json.md.
std::string ResultKeysMarkdown();

}  // namespace storebench::report
