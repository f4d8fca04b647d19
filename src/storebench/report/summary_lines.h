// The reference of the human summary's lines: one table, printed into
// docs/reading-results.md by `storebench help --markdown summary`, and read
// by a test that checks every line a run prints is in it (cli/docs_test.cc).
#pragma once

#include <span>
#include <string>

namespace storebench::report {

enum class SummaryLineKind {
  kNamed,         // a line whose first word is `name` (latency, response, platform, …)
  kTotals,        // "N ops in T s: …"
  kNotSustained,  // "NOT SUSTAINED: …"
  kBackend,       // a backend's own line, named after it (rocksdb, file, whisper, null)
  kKind,          // one line per op kind, named after the kind
};

struct SummaryLine {
  SummaryLineKind kind;
  const char* name;    // the first word, for kNamed and kNotSustained
  bool open_loop;      // printed only for open loops
  const char* heading;  // markdown, shown in bold
  const char* meaning;  // markdown
};

std::span<const SummaryLine> SummaryLines();

// The "Lines of every run" and "Lines of an open loop" sections of
// docs/reading-results.md.
std::string SummaryLinesMarkdown();

}  // namespace storebench::report
