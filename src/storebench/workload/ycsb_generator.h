// YCSB CoreWorkload's choices: which operation, which record, how long a
// scan, and which record a load or a run-time insert writes, as CoreWorkload
// makes them (its init and doTransaction*, YCSB 0.17):
//
// * operation: drawn in proportion to the five proportions, in YCSB's order
//   (read, update, insert, scan, read-modify-write);
// * record of a read, update, scan or read-modify-write (nextKeynum):
//   - uniform: uniform over [insertstart, insertstart + insertcount − 1];
//   - zipfian: the scrambled zipfian over insertcount + 2 × the inserts the
//     run expects (operationcount × insertproportion), so the hot set does not
//     move as inserts grow the table; a draw beyond the last acknowledged
//     insert is drawn again;
//   - latest: last − rank, the rank zipfian over `last` items, where last is
//     the highest key number below which every insert has been acknowledged
//     (so a read never asks for a record whose insert has not completed);
//   - hotspot: hotspotopnfraction of the draws uniform over the first
//     hotspotdatafraction of the keys, the rest uniform over the others;
//   - sequential: insertstart, insertstart + 1, … cycling over insertcount;
//   - exponential: last − an exponential draw (its percentile of
//     recordcount × frac), drawn again while below 0;
//   a draw above the last acknowledged insert is drawn again (all but latest
//   and exponential);
// * scan length: uniform or zipfian over [minscanlength, maxscanlength];
// * insert: the next number of a counter that starts at recordcount (run) or
//   insertstart (load), acknowledged once the insert completed.
//
// Random draws use storebench's generator, not Java's, so single draws differ
// from YCSB's; the distributions are YCSB's (ycsb_generator_test.cc).
// Thread-safety: YcsbInsertCounter is shared by the workers and thread-safe;
// a YcsbGenerator belongs to one worker.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "storebench/workload/random.h"
#include "storebench/workload/ycsb_properties.h"
#include "storebench/workload/zipfian.h"

namespace storebench::workload {

enum class YcsbOp : uint8_t { kRead, kUpdate, kInsert, kScan, kReadModifyWrite };
// "READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE": YCSB's output names.
const char* YcsbOpName(YcsbOp op);

// YCSB's AcknowledgedCounterGenerator: hands out insert key numbers from
// `start` and tracks which inserts have completed; Last() is the highest
// number below which every one handed out has been acknowledged (start − 1
// before any). Acknowledgements may come in any order.
class YcsbInsertCounter {
 public:
  explicit YcsbInsertCounter(uint64_t start);
  uint64_t Next() { return next_.fetch_add(1, std::memory_order_relaxed); }
  void Acknowledge(uint64_t keynum);
  // -1 as a signed value when nothing below start exists (start 0).
  int64_t Last() const { return last_.load(std::memory_order_acquire); }

 private:
  std::atomic<uint64_t> next_;
  std::atomic<int64_t> last_;
  std::mutex mu_;
  std::vector<uint8_t> done_;  // a window of acknowledgements above last_
};

struct YcsbDraw {
  YcsbOp op = YcsbOp::kRead;
  uint64_t keynum = 0;       // the record's number (YcsbKeyName makes its key)
  uint32_t scan_length = 0;  // kScan only
};

class YcsbGenerator {
 public:
  // `w` as YcsbWorkloadOf made it; `inserts` shared by every worker of the run.
  YcsbGenerator(const YcsbWorkload& w, YcsbInsertCounter* inserts, uint64_t seed);

  // The next run-phase operation. For kInsert, keynum comes from the counter:
  // acknowledge it once the insert completed.
  YcsbDraw Next();
  // The record of one read, update, scan or read-modify-write (nextKeynum).
  uint64_t NextKeynum();
  uint32_t NextScanLength();

 private:
  YcsbOp NextOp();
  uint64_t DrawKey();

  YcsbWorkload w_;
  YcsbInsertCounter* inserts_;
  Random rng_;
  double weights_[5];
  double shares_[5];  // weights_ over their sum, in YCSB's order
  uint64_t insertcount_;
  std::unique_ptr<ScrambledZipfianDistribution> scrambled_;
  std::unique_ptr<ZipfianGenerator> ranks_;  // latest's, grown with last
  std::unique_ptr<ZipfianGenerator> scan_zipf_;
  uint64_t sequence_ = 0;
  double exp_gamma_ = 0;
};

}  // namespace storebench::workload
