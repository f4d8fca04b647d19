#include "storebench/backend/rocksdb/workloads.h"

#include <rocksdb/iterator.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include <charconv>
#include <vector>

#include "storebench/workload/db_bench_key.h"
#include "storebench/workload/key_distribution.h"
#include "storebench/workload/random.h"

namespace storebench::backend::rocksdb_backend {
namespace {

// "a = 1, b = 2, …" (PerfContext::ToString) into *sums; pieces that are not "name = integer" are skipped.
void AddPerfCounters(const std::string& text, std::map<std::string, uint64_t>* sums) {
  ForEachNameValue(text, ", ", " = ", [sums](std::string_view name, std::string_view num) {
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (ec == std::errc() && p == num.data() + num.size()) (*sums)[std::string(name)] += v;
  });
}

// What every workload's worker has: its generator, key buffer and counters.
class RocksdbWorker : public Worker {
 public:
  RocksdbWorker(RunState* state, const WorkerContext& context)
      : state_(state),
        db_(state->db),
        cf_(state->db->DefaultColumnFamily()),
        rng_(context.seed),
        key_size_(state->config.key_size_or_default()) {
    key_.resize(key_size_);
    workload::EncodeDbBenchKey(0, key_size_, key_.data());  // the padding, once: ops rewrite the index only
    // Always set, as db_bench does (--perf_level 1): RocksDB's thread-local default is
    // kEnableCount, which counts comparisons and block reads inside every Get.
    rocksdb::SetPerfLevel(PerfCounting() ? static_cast<rocksdb::PerfLevel>(state->config.perf_level)
                                         : rocksdb::kDisable);
    if (PerfCounting()) rocksdb::get_perf_context()->Reset();
  }
  // Runs on the worker's thread: folds the thread-local perf context with the counters.
  ~RocksdbWorker() override {
    if (PerfCounting()) {
      AddPerfCounters(rocksdb::get_perf_context()->ToString(true), &totals_.perf);
      rocksdb::SetPerfLevel(rocksdb::kDisable);
    }
    state_->Fold(totals_);
  }

  // The warm-up's reads are left out, as the driver leaves their latencies out.
  void MeasureStarted() override {
    totals_ = RunTotals();
    if (PerfCounting()) rocksdb::get_perf_context()->Reset();
  }

  Status Init() {
    auto d = workload::MakeKeyDistribution(state_->config.key_dist, state_->config.num_or_default());
    if (!d.ok()) return d.status();
    dist_ = std::move(*d);
    return Status::Ok();
  }

 protected:
  // --perf-level 2..5: the perf context counts (0 and 1 are kDisable).
  bool PerfCounting() const { return state_->config.perf_level > rocksdb::kDisable; }
  // Encodes the next key from the key distribution into key_.
  rocksdb::Slice NextKey() { return KeyFor(dist_->Next(rng_)); }
  rocksdb::Slice KeyFor(uint64_t index) {
    workload::ReencodeDbBenchKey(index, key_size_, key_.data());
    return rocksdb::Slice(key_.data(), key_size_);
  }
  rocksdb::Slice NextValue(uint64_t size) {
    std::string_view v = state_->values->Next(size, &value_cursor_);
    return rocksdb::Slice(v.data(), v.size());
  }
  // Counts a read's result and returns its outcome.
  uint32_t CountRead(const rocksdb::Status& s) {
    uint32_t o = OutcomeOf(s);
    if (o == kOk) totals_.found++;
    else if (o == kNotFound) totals_.not_found++;
    else totals_.errors++;
    return o;
  }
  uint32_t CountWrite(const rocksdb::Status& s) {
    uint32_t o = OutcomeOf(s);
    if (o != kOk) totals_.errors++;
    return o;
  }
  static SubmitResult Done(Completion* out, uint64_t tag, uint32_t kind, uint32_t outcome, uint64_t bytes) {
    *out = Completion{tag, kind, outcome, bytes};
    return SubmitResult::kCompleted;
  }

  // Get of `key`; the outcome, with *bytes = key + value size when found.
  uint32_t DoGet(rocksdb::Slice key, uint64_t* bytes) {
    value_.Reset();
    // The overload DBImpl implements (db_bench's call): the 4-argument one only forwards to it.
    rocksdb::Status s = db_->Get(state_->read, cf_, key, &value_, nullptr);
    uint32_t o = CountRead(s);
    *bytes = o == kOk ? key.size() + value_.size() : 0;
    return o;
  }
  uint32_t DoPut(rocksdb::Slice key, uint64_t value_size, uint64_t* bytes) {
    rocksdb::Slice v = NextValue(value_size);
    *bytes = key.size() + v.size();
    return CountWrite(db_->Put(state_->write, key, v));
  }
  // Seek to `key`, then up to `nexts` entries read and stepped over (db_bench's seek + Next loop).
  uint32_t DoSeek(rocksdb::Slice key, uint64_t nexts, uint64_t* bytes) {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(state_->read));
    it->Seek(key);
    bool found = it->Valid();
    uint64_t b = 0;
    for (uint64_t j = 0; j < nexts && it->Valid(); ++j) {
      b += it->key().size() + it->value().size();
      it->Next();
    }
    *bytes = b;
    rocksdb::Status s = it->status();
    if (!s.ok()) return CountRead(s);
    return CountRead(found ? rocksdb::Status::OK() : rocksdb::Status::NotFound());
  }

  RunState* state_;
  rocksdb::DB* db_;
  rocksdb::ColumnFamilyHandle* cf_;  // the default column family, looked up once
  workload::Random rng_;
  std::unique_ptr<workload::KeyDistribution> dist_;
  const size_t key_size_;
  std::string key_;
  rocksdb::PinnableSlice value_;
  uint64_t value_cursor_ = 0;
  RunTotals totals_;
};

// One key per op: a Get (readrandom, readwhilewriting's readers) or a Put
// (overwrite, readwhilewriting's writer), recorded as op kind `kind`.
class KeyWorker final : public RocksdbWorker {
 public:
  KeyWorker(RunState* s, const WorkerContext& c, uint32_t kind, bool write)
      : RocksdbWorker(s, c), kind_(kind), write_(write) {}
  SubmitResult Submit(uint64_t tag, Completion* out) override {
    uint64_t bytes = 0;
    rocksdb::Slice key = NextKey();
    uint32_t o = write_ ? DoPut(key, state_->config.value_size_or_default(), &bytes) : DoGet(key, &bytes);
    return Done(out, tag, kind_, o, bytes);
  }

 private:
  uint32_t kind_;
  bool write_;
};

// updaterandom: read-modify-write of one key; the outcome is the read's unless the write fails.
class UpdateWorker final : public RocksdbWorker {
 public:
  using RocksdbWorker::RocksdbWorker;
  SubmitResult Submit(uint64_t tag, Completion* out) override {
    rocksdb::Slice key = NextKey();
    uint64_t read_bytes = 0, write_bytes = 0;
    uint32_t o = DoGet(key, &read_bytes);
    uint32_t w = DoPut(key, state_->config.value_size_or_default(), &write_bytes);
    return Done(out, tag, 0, w != kOk ? w : o, read_bytes + write_bytes);
  }
};

class DeleteWorker final : public RocksdbWorker {
 public:
  using RocksdbWorker::RocksdbWorker;
  SubmitResult Submit(uint64_t tag, Completion* out) override {
    rocksdb::Slice key = NextKey();
    return Done(out, tag, 0, CountWrite(db_->Delete(state_->write, key)), key.size());
  }
};

class ScanWorker final : public RocksdbWorker {
 public:
  using RocksdbWorker::RocksdbWorker;
  SubmitResult Submit(uint64_t tag, Completion* out) override {
    uint64_t bytes = 0;
    uint32_t o = DoSeek(NextKey(), state_->config.scan_length, &bytes);
    return Done(out, tag, 0, o, bytes);
  }
};

// One MultiGet of batch_size keys per op. Outcome: the first error, else
// not_found when any key is missing, else ok; found/not_found count keys.
class MultiGetWorker final : public RocksdbWorker {
 public:
  MultiGetWorker(RunState* s, const WorkerContext& c)
      : RocksdbWorker(s, c), n_(s->config.batch_size), keys_(n_ * key_size_), slices_(n_), values_(n_), statuses_(n_) {
    for (size_t i = 0; i < n_; ++i) workload::EncodeDbBenchKey(0, key_size_, keys_.data() + i * key_size_);
  }
  SubmitResult Submit(uint64_t tag, Completion* out) override {
    for (size_t i = 0; i < n_; ++i) {
      char* k = keys_.data() + i * key_size_;
      workload::ReencodeDbBenchKey(dist_->Next(rng_), key_size_, k);
      slices_[i] = rocksdb::Slice(k, key_size_);
      values_[i].Reset();
    }
    db_->MultiGet(state_->read, cf_, n_, slices_.data(), values_.data(), statuses_.data(),
                  false);
    uint32_t outcome = kOk;
    uint64_t bytes = 0;
    for (size_t i = 0; i < n_; ++i) {
      uint32_t o = CountRead(statuses_[i]);
      if (o == kOk) bytes += key_size_ + values_[i].size();
      if (o > outcome && outcome <= kNotFound) outcome = o;
    }
    return Done(out, tag, 0, outcome, bytes);
  }

 private:
  size_t n_;
  std::vector<char> keys_;
  std::vector<rocksdb::Slice> slices_;
  std::vector<rocksdb::PinnableSlice> values_;
  std::vector<rocksdb::Status> statuses_;
};

// mixgraph: one 64-bit draw per op picks type, key, value size and scan length (workload/mixgraph.h).
class MixgraphWorker final : public RocksdbWorker {
 public:
  using RocksdbWorker::RocksdbWorker;
  SubmitResult Submit(uint64_t tag, Completion* out) override {
    workload::MixgraphOp op = state_->mixgraph.Next(rng_);
    rocksdb::Slice key = KeyFor(op.key);
    uint64_t bytes = 0;
    switch (op.type) {
      case workload::MixgraphOpType::kGet:
        return Done(out, tag, 0, DoGet(key, &bytes), bytes);
      case workload::MixgraphOpType::kPut:
        return Done(out, tag, 1, DoPut(key, op.value_size, &bytes), bytes);
      case workload::MixgraphOpType::kSeek:
        break;
    }
    return Done(out, tag, 2, DoSeek(key, op.scan_length, &bytes), bytes);
  }
};

}  // namespace

uint32_t OutcomeOf(const rocksdb::Status& s) {
  if (s.ok()) return kOk;
  if (s.IsNotFound()) return kNotFound;
  if (s.IsIOError()) return kErrorIO;
  if (s.IsCorruption()) return kErrorCorruption;
  if (s.IsBusy()) return kErrorBusy;
  if (s.IsTimedOut()) return kErrorTimedOut;
  if (s.IsIncomplete()) return kErrorIncomplete;
  if (s.IsAborted()) return kErrorAborted;
  return kErrorOther;
}

measure::RecorderLayout WorkloadLayout(Workload w) {
  measure::RecorderLayout layout;
  layout.outcomes = {"ok",           "not_found",        "error:IOError",    "error:Corruption", "error:Busy",
                     "error:TimedOut", "error:Incomplete", "error:Aborted", "error:other"};
  switch (w) {
    case Workload::kReadRandom: layout.kinds = {"get"}; break;
    case Workload::kMultiGet: layout.kinds = {"multiget"}; break;
    case Workload::kOverwrite: layout.kinds = {"put"}; break;
    case Workload::kUpdateRandom: layout.kinds = {"update"}; break;
    case Workload::kDelete: layout.kinds = {"delete"}; break;
    case Workload::kScan: layout.kinds = {"scan"}; break;
    case Workload::kReadWhileWriting: layout.kinds = {"get", "put"}; break;
    case Workload::kMixgraph: layout.kinds = {"get", "put", "seek"}; break;
  }
  return layout;
}

void RunState::Fold(const RunTotals& w) {
  std::lock_guard<std::mutex> lock(mu_);
  totals_.found += w.found;
  totals_.not_found += w.not_found;
  totals_.errors += w.errors;
  for (const auto& [k, v] : w.perf) totals_.perf[k] += v;
}

RunTotals RunState::Totals() const {
  std::lock_guard<std::mutex> lock(mu_);
  return totals_;
}

void RunState::ResetTotals() {
  std::lock_guard<std::mutex> lock(mu_);
  totals_ = RunTotals();
}

StatusOr<std::unique_ptr<Worker>> MakeRocksdbWorker(RunState* state, const WorkerContext& context) {
  std::unique_ptr<RocksdbWorker> w;
  switch (state->config.workload) {
    case Workload::kReadRandom: w = std::make_unique<KeyWorker>(state, context, 0, false); break;
    case Workload::kMultiGet: w = std::make_unique<MultiGetWorker>(state, context); break;
    case Workload::kOverwrite: w = std::make_unique<KeyWorker>(state, context, 0, true); break;
    case Workload::kUpdateRandom: w = std::make_unique<UpdateWorker>(state, context); break;
    case Workload::kDelete: w = std::make_unique<DeleteWorker>(state, context); break;
    case Workload::kScan: w = std::make_unique<ScanWorker>(state, context); break;
    case Workload::kReadWhileWriting:
      if (context.role == "writer") w = std::make_unique<KeyWorker>(state, context, 1, true);
      else w = std::make_unique<KeyWorker>(state, context, 0, false);
      break;
    case Workload::kMixgraph: w = std::make_unique<MixgraphWorker>(state, context); break;
  }
  STOREBENCH_RETURN_IF_ERROR(w->Init());
  return std::unique_ptr<Worker>(std::move(w));
}

}  // namespace storebench::backend::rocksdb_backend
