// LiveMerge: the MPI ranks' measured intervals merged during the run (the
// one progress line at rank 0) and the stonewall. Internal to job/mpi.cc;
// built only with Open MPI.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "storebench/driver/runner.h"
#include "storebench/job/interval_message.h"
#include "storebench/job/mpi_transport.h"
#include "storebench/measure/histogram.h"

namespace storebench::job::mpi_internal {

// The ranks' measured intervals during the run, merged along the binomial
// tree of interval_message.h: each rank adds its children's parts of an
// interval to its own and sends one part up as soon as it has them all, so
// rank 0 prints the merge of every rank's interval (the one progress line)
// after ceil(log2(size)) messages. Messages are taken at each interval and at
// each of the driver's wakes (every 20 ms at most), so a part climbs the tree
// within about 20 ms a level. A rank that finished tells its parent ("done")
// once all its subtree's parts went up. Also the stonewall: a rank that
// finished tells rank 0, which tells every rank to stop.
class LiveMerge {
 public:
  LiveMerge(int rank, int size, const measure::HistogramOptions& options, const driver::ProgressFn& progress,
            bool stonewall)
      : rank_(rank),
        size_(size),
        options_(options),
        progress_(progress),
        stonewall_(stonewall),
        children_(TreeChildren(rank, size)),
        child_received_(children_.size(), 0),
        child_done_(children_.size(), false) {}

  std::atomic<bool>* stonewall_flag() { return &stonewall_flag_; }

  // This rank's progress hook: warm-up ticks are local only; measured
  // intervals are merged up the tree.
  void OnInterval(const driver::IntervalStats& st) {
    if (st.folded) return;  // its ops belong to the last interval this rank sent; the ranks fold differently
    if (st.warmup) {
      if (rank_ == 0 && progress_) progress_(st);
      return;
    }
    const uint64_t t0 = ThreadCpuNs();
    Keep(PartAt(own_count_).AddOwn(st));
    ++own_count_;
    measured_s_ = st.t_s;
    TakeWaiting();
    Forward();
    cpu_ns_ += ThreadCpuNs() - t0;
  }

  // The driver's wake: take what arrived, send up what is complete.
  void OnWake() {
    const uint64_t t0 = ThreadCpuNs();
    TakeWaiting();
    Forward();
    cpu_ns_ += ThreadCpuNs() - t0;
  }

  // After this rank's run: waits for its subtree's last parts and sends them
  // up, then "done"; with the stonewall, also the finish and stop messages.
  Status Finish() {
    const uint64_t t0 = ThreadCpuNs(), printed = progress_cpu_ns_;
    own_done_ = true;
    if (stonewall_) {
      if (rank_ == 0) StopAll();
      else sender_.Send(std::string(), 0, kTagFinished);
    }
    Forward();
    while (!Settled()) {
      MPI_Status st;
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (!flag) {
        usleep(1000);  // as WaitPolitely: the other ranks may still be measuring
        continue;
      }
      Take(st);
      Forward();
    }
    if (rank_ != 0) sender_.Send("D", TreeParent(rank_), kTagUp);
    sender_.Finish();
    // Every rank has finished its run before any enters the final gather (a
    // blocking collective, which would poll).
    MPI_Request all_finished;
    MPI_Ibarrier(MPI_COMM_WORLD, &all_finished);
    WaitPolitely(&all_finished);
    finish_cpu_ns_ = ThreadCpuNs() - t0 - (progress_cpu_ns_ - printed);
    progress_cpu_ns_ = printed;
    return error_;
  }

  // This rank's side of the figures (GatherOutcomes carries them to rank 0).
  nlohmann::json OwnFigures() const {
    return {{"intervals", own_count_},
            {"cpu_ns", cpu_ns_ - progress_cpu_ns_},
            {"finish_cpu_ns", finish_cpu_ns_},
            {"messages_sent", sender_.messages()},
            {"bytes_sent", sender_.bytes()},
            {"messages_received", messages_received_},
            {"bytes_received", bytes_received_},
            {"measured_s", measured_s_}};
  }

  // What the live merge cost: rank 0's CPU (on its reporter thread, not
  // counting the progress line's printing) and messages, per interval, and
  // the bytes each other rank sent up per interval (mean and largest).
  nlohmann::json Figures(const std::vector<nlohmann::json>& ranks) const {
    const nlohmann::json mine = OwnFigures();
    const uint64_t n = own_count_, cpu = mine["cpu_ns"].get<uint64_t>();
    double sent_sum = 0, sent_max = 0;
    for (size_t k = 1; k < ranks.size(); ++k) {
      const uint64_t intervals = ranks[k]["intervals"].get<uint64_t>();
      const double per = intervals ? ranks[k]["bytes_sent"].get<double>() / static_cast<double>(intervals) : 0;
      sent_sum += per;
      sent_max = std::max(sent_max, per);
    }
    return {{"intervals", n},
            {"merged_intervals", merged_},
            {"tree_children", children_.size()},
            {"messages_received", messages_received_},
            {"bytes_received", bytes_received_},
            {"messages_per_interval", n ? static_cast<double>(messages_received_) / static_cast<double>(n) : 0},
            {"cpu_ns", cpu},
            {"cpu_ns_per_interval", n ? cpu / n : 0},
            {"cpu_share", measured_s_ > 0 ? static_cast<double>(cpu) / (measured_s_ * 1e9) : 0},
            {"finish_cpu_ns", finish_cpu_ns_},
            {"bytes_per_rank_interval", ranks.size() > 1 ? sent_sum / static_cast<double>(ranks.size() - 1) : 0},
            {"max_bytes_per_rank_interval", sent_max}};
  }

 private:
  IntervalPart& PartAt(uint64_t index) {
    auto it = pending_.find(index);
    if (it != pending_.end()) return *it->second;
    std::unique_ptr<IntervalPart> part;
    if (pool_.empty()) {
      part = std::make_unique<IntervalPart>(options_);
    } else {
      part = std::move(pool_.back());
      pool_.pop_back();
    }
    part->index = index;
    return *pending_.emplace(index, std::move(part)).first->second;
  }

  void Keep(const Status& s) {
    if (error_.ok() && !s.ok()) error_ = s;
  }

  void TakeWaiting() {
    for (;;) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (!flag) return;
      Take(st);
    }
  }

  // Receives the probed message and acts on it.
  void Take(const MPI_Status& st) {
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    buffer_.resize(static_cast<size_t>(n));
    MPI_Recv(buffer_.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ++messages_received_;
    bytes_received_ += static_cast<uint64_t>(n);
    if (st.MPI_TAG == kTagFinished && rank_ == 0) {
      ++finished_;
      StopAll();
    } else if (st.MPI_TAG == kTagStop && rank_ != 0) {
      got_stop_ = true;
      stonewall_flag_.store(true);
    } else if (st.MPI_TAG == kTagUp) {
      TakeUp(st.MPI_SOURCE);
    } else {
      Keep(Status::IOError(fmt::format("MPI: unexpected message with tag {} from rank {}", st.MPI_TAG, st.MPI_SOURCE)));
    }
  }

  // A child's interval part or its "done"; a child's messages arrive in the order it sent them.
  void TakeUp(int source) {
    const auto it = std::find(children_.begin(), children_.end(), source);
    const size_t c = static_cast<size_t>(it - children_.begin());
    if (it == children_.end() || buffer_.empty() || child_done_[c]) {
      Keep(Status::IOError(fmt::format("MPI: an unexpected interval message from rank {}", source)));
    } else if (buffer_[0] == 'D') {
      child_done_[c] = true;
    } else {
      auto index = PartIndex(buffer_, 1);
      if (!index.ok() || *index != child_received_[c]) {
        Keep(index.ok() ? Status::IOError(fmt::format("MPI: rank {} sent interval {} out of order", source, *index))
                        : index.status());
        return;
      }
      size_t pos = 1;
      Keep(PartAt(*index).MergeFrom(buffer_, &pos));
      child_received_[c] = *index + 1;
    }
  }

  // Interval i has all its parts here once this rank and every child either sent it or finished.
  bool Complete(uint64_t i) const {
    if (!own_done_ && own_count_ <= i) return false;
    for (size_t c = 0; c < children_.size(); ++c)
      if (!child_done_[c] && child_received_[c] <= i) return false;
    return true;
  }

  // Sends up (rank 0: prints) every interval that is complete, in order.
  void Forward() {
    while (Complete(next_)) {
      auto it = pending_.find(next_);
      if (it == pending_.end()) return;  // no rank of the subtree has this interval: all are done
      IntervalPart& part = *it->second;
      if (rank_ != 0) {
        std::string message = "I";
        part.AppendTo(&message);
        sender_.Send(std::move(message), TreeParent(rank_), kTagUp);
      } else if (part.ranks == static_cast<uint64_t>(size_)) {
        // An interval some rank never had (it ended earlier) has no merged line.
        ++merged_;
        if (progress_) {
          const uint64_t t0 = ThreadCpuNs();
          progress_(part.Stats());
          progress_cpu_ns_ += ThreadCpuNs() - t0;
        }
      }
      part.Reset();
      pool_.push_back(std::move(it->second));
      pending_.erase(it);
      ++next_;
    }
  }

  // Stonewall, rank 0: every rank stops (once).
  void StopAll() {
    if (stop_sent_) return;
    stop_sent_ = true;
    stonewall_flag_.store(true);
    for (int k = 1; k < size_; ++k) sender_.Send(std::string(), k, kTagStop);
  }

  // Finish() can return: every child is done, every part went up, and with the
  // stonewall, rank 0 heard every rank finish and every rank heard the stop.
  bool Settled() const {
    for (bool done : child_done_)
      if (!done) return false;
    if (!pending_.empty()) return false;
    if (!stonewall_) return true;
    return rank_ == 0 ? finished_ + 1 == static_cast<size_t>(size_) : got_stop_;
  }

  const int rank_, size_;
  const measure::HistogramOptions options_;
  const driver::ProgressFn& progress_;
  const bool stonewall_;
  const std::vector<int> children_;
  std::vector<uint64_t> child_received_;  // per child: intervals received (the next index it sends)
  std::vector<bool> child_done_;
  std::atomic<bool> stonewall_flag_{false};
  uint64_t own_count_ = 0, next_ = 0;  // this rank's intervals; the next index to send up
  bool own_done_ = false, stop_sent_ = false, got_stop_ = false;
  size_t finished_ = 0;  // rank 0, stonewall: ranks that finished
  std::map<uint64_t, std::unique_ptr<IntervalPart>> pending_;
  std::vector<std::unique_ptr<IntervalPart>> pool_;  // parts sent, kept for their histograms' memory
  std::string buffer_;
  Sender sender_;
  Status error_;
  uint64_t merged_ = 0, messages_received_ = 0, bytes_received_ = 0;
  uint64_t cpu_ns_ = 0, progress_cpu_ns_ = 0;  // measured window: merging and sending, and printing (rank 0)
  uint64_t finish_cpu_ns_ = 0;                  // after the run: the subtree's last parts, the barrier
  double measured_s_ = 0;
};

}  // namespace storebench::job::mpi_internal
