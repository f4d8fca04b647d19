#include "storebench/io/read_method.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "storebench/io/test_util.h"

namespace storebench::io {
namespace {

using testing::Pattern;
using testing::TempDir;

constexpr uint64_t kFileSize = 300001;  // odd on purpose: the last page is partial

struct Variant {
  const char* label;
  const char* method;
  MethodOptions options;
};
// GoogleTest prints a parameter in the test's listed name; without this, the
// struct's bytes, which change from build to build.
void PrintTo(const Variant& v, std::ostream* os) { *os << v.label; }

MethodOptions With(void (*edit)(MethodOptions&)) {
  MethodOptions o;
  edit(o);
  return o;
}

std::vector<Variant> Variants() {
  return {
      {"read_unbuffered", "read", With([](MethodOptions& o) { o.buffer_size = 0; })},
      {"read_8k", "read", With([](MethodOptions& o) { o.buffer_size = 8192; })},
      {"read_1000", "read", With([](MethodOptions& o) { o.buffer_size = 1000; })},
      {"pread", "pread", MethodOptions{}},
      {"pread_threadpool", "pread_threadpool", MethodOptions{}},
      {"pread_threadpool_no_probe", "pread_threadpool", With([](MethodOptions& o) {
         o.nowait_probe = false;
         o.pool_threads = 2;
         o.max_in_flight = 4;
       })},
      {"mmap_normal", "mmap", MethodOptions{}},
      {"mmap_random", "mmap", With([](MethodOptions& o) { o.madvise = Madvise::kRandom; })},
      {"mmap_willneed", "mmap", With([](MethodOptions& o) { o.madvise = Madvise::kWillNeed; })},
      {"io_uring", "io_uring", With([](MethodOptions& o) { o.queue_depth = 4; })},
      {"io_uring_fixed", "io_uring", With([](MethodOptions& o) {
         o.queue_depth = 8;
         o.register_files = true;
         o.fixed_buffers = 2;
         o.fixed_buffer_size = 1 << 17;
       })},
      {"io_uring_sqpoll", "io_uring", With([](MethodOptions& o) { o.sqpoll = true; })},
  };
}

// Reads (offset, length) covering small, unaligned, large, EOF-crossing and past-EOF requests.
const std::vector<std::pair<uint64_t, size_t>> kReads = {
    {0, 16},     {16, 12},     {28, 12},  {5000, 8192}, {4096, 4096}, {1, 70000}, {70001, 3},
    {299990, 100}, {400000, 10}, {150000, 1000}, {149000, 500}, {0, 0},  {100, 20000}, {kFileSize - 1, 1},
};

std::vector<char> Expected(uint64_t off, size_t len) {
  if (off >= kFileSize) return {};
  return Pattern(1, off, static_cast<size_t>(std::min<uint64_t>(len, kFileSize - off)));
}

class MethodTest : public testing::MethodFixture<Variant> {
 protected:
  void SetUp() override { OpenWith(GetParam().method, GetParam().options, kFileSize, 1); }
};

TEST_P(MethodTest, SynchronousReadsReturnTheFileBytes) {
  for (const auto& [off, len] : kReads) {
    std::vector<char> buf(len + 1, '\x5a');
    StatusOr<size_t> n = method_->Read(file_, off, len, buf.data());
    ASSERT_TRUE(n.ok()) << n.status().message();
    const std::vector<char> want = Expected(off, len);
    ASSERT_EQ(*n, want.size()) << "offset " << off << " length " << len;
    EXPECT_TRUE(std::equal(want.begin(), want.end(), buf.begin())) << "offset " << off;
    EXPECT_EQ(buf[*n], '\x5a') << "wrote past the returned bytes at offset " << off;
  }
  const IoCounters& c = method_->counters();
  EXPECT_EQ(c.requests, kReads.size());
  EXPECT_EQ(c.completions, kReads.size());
  EXPECT_EQ(c.errors, 0u);
  uint64_t requested = 0, returned = 0;
  for (const auto& [off, len] : kReads) {
    requested += len;
    returned += Expected(off, len).size();
  }
  EXPECT_EQ(c.bytes_requested, requested);
  EXPECT_EQ(c.bytes_returned, returned);
  EXPECT_EQ(method_->in_flight(), 0u);
}

// The plain path (ReadPlain) reads the same bytes and leaves every counter
// where the Submit path leaves it, for every method that offers it.
TEST_P(MethodTest, PlainReadsMatchSubmittedReadsByteAndCounter) {
  const std::string m = GetParam().method;
  const bool expect_plain = m == "pread" || m == "read" || m == "mmap" || (m == "io_uring" && !GetParam().options.sqpoll);
  ASSERT_EQ(method_->PlainReads(file_), expect_plain) << m;
  if (!expect_plain) return;  // asynchronous only: callers must take the Submit path
  StatusOr<std::unique_ptr<ReadMethod>> other = CreateReadMethod(m, GetParam().options);
  ASSERT_TRUE(other.ok()) << other.status().message();
  StatusOr<int> of = (*other)->Open(path_);
  ASSERT_TRUE(of.ok()) << of.status().message();
  method_->set_timing(true);
  for (const auto& [off, len] : kReads) {
    std::vector<char> plain(len + 1, '\x5a'), submitted(len + 1, '\x5a');
    const ReadOutcome r = method_->ReadPlain(file_, off, len, plain.data());
    StatusOr<size_t> n = (*other)->Read(*of, off, len, submitted.data());
    ASSERT_TRUE(n.ok()) << n.status().message();
    EXPECT_EQ(r.error, 0) << "offset " << off;
    ASSERT_EQ(r.bytes, *n) << "offset " << off << " length " << len;
    EXPECT_EQ(plain, submitted) << "offset " << off << " length " << len;
  }
  IoCounters a = method_->counters(), b = (*other)->counters();
  EXPECT_EQ(a.timed_calls, kReads.size());  // timing covers plain reads too
  a.timed_calls = a.timed_ns = b.timed_calls = b.timed_ns = 0;
  if (m == "io_uring") {
    // Submit costs an io_uring_enter to submit and another to wait when the read
    // did not finish inline; the plain read one that does both per SQE.
    uint64_t sqes = a.resubmissions;
    for (const auto& [off, len] : kReads) sqes += len > 0;
    EXPECT_EQ(a.Of(Syscall::kIoUringEnter), sqes);
    EXPECT_LE(a.Of(Syscall::kIoUringEnter), b.Of(Syscall::kIoUringEnter));
    a.syscalls[static_cast<size_t>(Syscall::kIoUringEnter)] = b.Of(Syscall::kIoUringEnter);
  }
  EXPECT_TRUE(a == b) << "the plain path's counters differ from Submit's";
  EXPECT_EQ(method_->in_flight(), 0u);
}

TEST_P(MethodTest, BatchedReadsOfSeveralFilesCompleteWithTheirTags) {
  std::vector<int> files = {file_};
  for (uint64_t seed = 2; seed <= 3; ++seed) {
    StatusOr<int> f = method_->Open(dir_.WriteFile("col" + std::to_string(seed), kFileSize, seed));
    ASSERT_TRUE(f.ok()) << f.status().message();
    files.push_back(*f);
  }
  // "The same range of K column files together", then a second range.
  std::vector<ReadRequest> reqs;
  std::vector<std::vector<char>> bufs(2 * files.size(), std::vector<char>(4000));
  for (size_t i = 0; i < bufs.size(); ++i) {
    ReadRequest r;
    r.file = files[i % files.size()];
    r.offset = i < files.size() ? 1000 : 296001;  // the second range ends at EOF
    r.length = 4000;
    r.buf = bufs[i].data();
    r.tag = 100 + i;
    reqs.push_back(r);
  }
  std::map<uint64_t, ReadCompletion> got;
  std::vector<ReadCompletion> done(reqs.size());
  size_t next = 0;
  while (got.size() < reqs.size()) {
    size_t n_done = 0;
    StatusOr<size_t> acc =
        method_->SubmitBatch(std::span<const ReadRequest>(reqs).subspan(next), done.data(), &n_done);
    ASSERT_TRUE(acc.ok()) << acc.status().message();
    next += *acc;
    for (size_t i = 0; i < n_done; ++i) got[done[i].tag] = done[i];
    StatusOr<size_t> reaped = method_->Reap(1, done.size(), done.data());
    ASSERT_TRUE(reaped.ok()) << reaped.status().message();
    for (size_t i = 0; i < *reaped; ++i) got[done[i].tag] = done[i];
  }
  for (size_t i = 0; i < reqs.size(); ++i) {
    const ReadCompletion& c = got.at(100 + i);
    ASSERT_EQ(c.error, 0) << method_->ErrorStatus(c).message();
    const std::vector<char> want = Pattern(static_cast<uint64_t>(c.file) + 1, c.offset, 4000);
    EXPECT_EQ(c.bytes, 4000u);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), bufs[i].begin())) << "tag " << c.tag;
  }
  EXPECT_EQ(method_->in_flight(), 0u);
}

INSTANTIATE_TEST_SUITE_P(AllMethods, MethodTest, ::testing::ValuesIn(Variants()),
                         [](const ::testing::TestParamInfo<Variant>& p) { return std::string(p.param.label); });

std::unique_ptr<ReadMethod> MustCreate(const char* name, const MethodOptions& o = {}) {
  StatusOr<std::unique_ptr<ReadMethod>> m = CreateReadMethod(name, o);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : nullptr;
}

TEST(ReadMethodRegistry, ListsMethodsWithCapabilities) {
  std::map<std::string, uint32_t> caps;
  for (const MethodInfo& m : ReadMethods()) caps[std::string(m.name)] = m.capabilities;
  ASSERT_EQ(caps.size(), 5u);
  EXPECT_TRUE(caps.at("io_uring") & kCapAsync);
  EXPECT_TRUE(caps.at("pread_threadpool") & kCapPriorities);
  EXPECT_FALSE(caps.at("pread") & kCapAsync);
  EXPECT_FALSE(caps.at("mmap") & kCapDirect);
  EXPECT_TRUE(caps.at("read") & kCapUserBuffer);
}

TEST(ReadMethodRegistry, RefusesUnknownNamesAndDirectWhereImpossible) {
  StatusOr<std::unique_ptr<ReadMethod>> m = CreateReadMethod("aio", {});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("pread_threadpool"), std::string::npos) << m.status().message();
  MethodOptions direct;
  direct.direct = true;
  for (const char* name : {"mmap", "read"}) {
    m = CreateReadMethod(name, direct);
    ASSERT_FALSE(m.ok()) << name;
    EXPECT_EQ(m.status().code(), Status::Code::kInvalidArgument);
  }
}

TEST(ReadMethodSubmit, RefusesUnopenedFileAndMissingFile) {
  std::unique_ptr<ReadMethod> m = MustCreate("pread");
  char buf[8];
  ReadRequest r;
  r.file = 3;
  r.length = 8;
  r.buf = buf;
  ReadCompletion c;
  EXPECT_EQ(m->Submit(r, &c).status().code(), Status::Code::kInvalidArgument);
  StatusOr<int> f = m->Open("/nonexistent/storebench/file");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("/nonexistent/storebench/file"), std::string::npos);
}

TEST(ReadMethodCounters, PreadCountsSyscallsAndBytes) {
  TempDir dir;
  std::unique_ptr<ReadMethod> m = MustCreate("pread");
  const int f = *m->Open(dir.WriteFile("d", 10000, 1));
  const IoCounters setup = m->counters();
  char buf[4096];
  for (uint64_t off : {0, 100, 5000}) ASSERT_EQ(*m->Read(f, off, 100, buf), 100u);
  // Crossing EOF: the short read is continued once and returns 0 (end of file).
  ASSERT_EQ(*m->Read(f, 9900, 4096, buf), 100u);
  const IoCounters c = m->counters() - setup;
  EXPECT_EQ(c.Of(Syscall::kPread), 5u);
  EXPECT_EQ(c.DataSyscalls(), 5u);
  EXPECT_EQ(c.bytes_requested, 3 * 100u + 4096u);
  EXPECT_EQ(c.bytes_returned, 400u);
  EXPECT_EQ(c.bytes_transferred, 400u);
  EXPECT_EQ(c.resubmissions, 1u);
  EXPECT_EQ(setup.Of(Syscall::kOpen), 1u);
}

TEST(ReadMethodCounters, TimingCoversOnlyTheCallsMadeWhileOn) {
  TempDir dir;
  for (const char* name : {"pread", "io_uring"}) {
    StatusOr<std::unique_ptr<ReadMethod>> made = CreateReadMethod(name, MethodOptions{});
    if (made.status().code() == Status::Code::kNotSupported) continue;  // io_uring missing: pread still checks
    ASSERT_TRUE(made.ok()) << made.status().message();
    ReadMethod& m = **made;
    const int f = *m.Open(dir.WriteFile(std::string("t_") + name, 10000, 1));
    char buf[4096];
    ASSERT_EQ(*m.Read(f, 0, 100, buf), 100u);
    EXPECT_EQ(m.counters().timed_calls, 0u) << name;
    EXPECT_EQ(m.counters().timed_ns, 0u) << name;
    m.set_timing(true);
    ASSERT_EQ(*m.Read(f, 4096, 100, buf), 100u);
    m.set_timing(false);
    // pread: one DoSubmit; io_uring: a DoSubmit and at least one DoReap.
    const uint64_t timed = m.counters().timed_calls;
    EXPECT_GE(timed, std::string_view(name) == "pread" ? 1u : 2u) << name;
    EXPECT_GT(m.counters().timed_ns, 0u) << name;
    ASSERT_EQ(*m.Read(f, 8192, 100, buf), 100u);
    EXPECT_EQ(m.counters().timed_calls, timed) << name;
  }
}

// Counters after reading (offset, length) pairs of a 100000-byte file with method "read".
IoCounters CountBufferedReads(size_t buffer_size, std::initializer_list<std::pair<uint64_t, size_t>> reads) {
  TempDir dir;
  MethodOptions o;
  o.buffer_size = buffer_size;
  std::unique_ptr<ReadMethod> m = MustCreate("read", o);
  const int f = *m->Open(dir.WriteFile("d", 100000, 1));
  std::vector<char> buf(20000);
  for (const auto& [off, len] : reads) EXPECT_EQ(*m->Read(f, off, len, buf.data()), len) << "offset " << off;
  return m->counters();
}

TEST(ReadMethodCounters, BufferedReadMimicsPythonBufferedReader) {
  // whisper: a 16-byte header then 12-byte points, all inside the first buffer;
  // a seek inside the buffer costs no syscall.
  IoCounters c = CountBufferedReads(8192, {{0, 16}, {16, 12}, {4000, 12}});
  EXPECT_EQ(c.Of(Syscall::kRead), 1u);
  EXPECT_EQ(c.Of(Syscall::kLseek), 0u);
  EXPECT_EQ(c.bytes_transferred, 8192u);
  // A seek outside the buffer costs an lseek and a refill.
  c = CountBufferedReads(8192, {{0, 16}, {16, 12}, {4000, 12}, {50000, 10}});
  EXPECT_EQ(c.Of(Syscall::kRead), 2u);
  EXPECT_EQ(c.Of(Syscall::kLseek), 1u);
  // 20000 bytes from 60000: 16384 straight into the caller's buffer, then one refill.
  c = CountBufferedReads(8192, {{0, 16}, {16, 12}, {4000, 12}, {50000, 10}, {60000, 20000}});
  EXPECT_EQ(c.Of(Syscall::kRead), 4u);
  EXPECT_EQ(c.Of(Syscall::kLseek), 2u);
  EXPECT_EQ(c.bytes_transferred, 3 * 8192u + 16384u);
  EXPECT_EQ(c.bytes_returned, 16u + 12 + 12 + 10 + 20000);
}

TEST(ReadMethodCounters, UnbufferedReadIsOneSyscallPerRequest) {
  // Sequential reads need no lseek; the jump to 4000 needs one.
  const IoCounters c = CountBufferedReads(0, {{0, 16}, {16, 12}, {4000, 12}});
  EXPECT_EQ(c.Of(Syscall::kRead), 3u);
  EXPECT_EQ(c.Of(Syscall::kLseek), 1u);
  EXPECT_EQ(c.bytes_transferred, 40u);
}

// Reads submitted back to back wait in the ring until the next Reap, which
// submits them all with the io_uring_enter that waits: no syscall per read.
TEST(IoUring, ReadsSubmittedBackToBackShareOneEnter) {
  TempDir dir;
  MethodOptions o;
  o.queue_depth = 8;
  StatusOr<std::unique_ptr<ReadMethod>> m = CreateReadMethod("io_uring", o);
  if (m.status().code() == Status::Code::kNotSupported) GTEST_SKIP() << m.status().message();
  ASSERT_TRUE(m.ok()) << m.status().message();
  ReadMethod& method = **m;
  const int f = *method.Open(dir.WriteFile("d", 8 * 4096, 9));
  std::vector<std::vector<char>> bufs(8, std::vector<char>(4096));
  ReadCompletion c;
  for (uint64_t i = 0; i < 8; ++i) {
    ReadRequest r{.file = f, .offset = i * 4096, .length = 4096, .buf = bufs[i].data(), .tag = i};
    ASSERT_EQ(*method.Submit(r, &c), ReadSubmitResult::kQueued);
  }
  EXPECT_EQ(method.counters().Of(Syscall::kIoUringEnter), 0u) << "a queued read cost a syscall";
  ReadRequest extra{.file = f, .offset = 0, .length = 4096, .buf = bufs[0].data(), .tag = 9};
  EXPECT_EQ(*method.Submit(extra, &c), ReadSubmitResult::kBusy);  // the ring is full
  std::vector<ReadCompletion> out(8);
  size_t got = 0;
  while (got < 8) got += *method.Reap(1, 8 - got, out.data() + got);
  EXPECT_GE(method.counters().Of(Syscall::kIoUringEnter), 1u);
  EXPECT_LE(method.counters().Of(Syscall::kIoUringEnter), 8u);
  for (const ReadCompletion& done : out) {
    EXPECT_EQ(done.error, 0);
    ASSERT_EQ(done.bytes, 4096u);
    const std::vector<char> want = Pattern(9, done.tag * 4096, 4096);
    EXPECT_EQ(bufs[done.tag], want) << "read " << done.tag;
  }
  EXPECT_EQ(method.in_flight(), 0u);
}

TEST(IoUring, ShortReadAtEndOfFileIsContinuedAndFixedBuffersWork) {
  TempDir dir;
  MethodOptions o;
  o.register_files = true;
  o.fixed_buffers = 1;
  o.fixed_buffer_size = 8192;
  StatusOr<std::unique_ptr<ReadMethod>> m = CreateReadMethod("io_uring", o);
  if (m.status().code() == Status::Code::kNotSupported) GTEST_SKIP() << m.status().message();
  ASSERT_TRUE(m.ok()) << m.status().message();
  ReadMethod& method = **m;
  const int f = *method.Open(dir.WriteFile("d", 10000, 5));
  const std::span<char> buf = method.fixed_buffer(0);
  ReadRequest r{.file = f, .offset = 9000, .length = 4096, .buf = buf.data(), .tag = 1, .fixed_buffer = 0};
  ReadCompletion c;
  ASSERT_EQ(*method.Submit(r, &c), ReadSubmitResult::kQueued);
  ASSERT_EQ(*method.Reap(1, 1, &c), 1u);
  EXPECT_EQ(c.error, 0);
  EXPECT_EQ(c.bytes, 1000u);
  // The first read returns the 1000 bytes left; its continuation finds end of file.
  EXPECT_EQ(method.counters().resubmissions, 1u);
  EXPECT_EQ(method.counters().bytes_transferred, 1000u);
  const std::vector<char> want = Pattern(5, 9000, 1000);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), buf.begin()));
  r.buf = buf.data() + 8000;  // 4096 bytes do not fit in the 8192-byte fixed buffer from there
  EXPECT_EQ(method.Submit(r, &c).status().code(), Status::Code::kInvalidArgument);
}

TEST(ReadMethodCounters, SumAcrossObjects) {
  IoCounters a, b;
  a.Count(Syscall::kPread, 3);
  a.bytes_requested = 10;
  b.Count(Syscall::kPread, 2);
  b.Count(Syscall::kRead);
  b.bytes_requested = 5;
  const IoCounters s = a + b;
  EXPECT_EQ(s.Of(Syscall::kPread), 5u);
  EXPECT_EQ(s.TotalSyscalls(), 6u);
  EXPECT_EQ(s.bytes_requested, 15u);
  EXPECT_EQ(SyscallName(Syscall::kIoUringEnter), "io_uring_enter");
}

TEST(ReadMethodSubmit, AsyncMethodsReportBusyAtTheirLimit) {
  TempDir dir;
  const std::string path = dir.WriteFile("d", 65536, 1);
  MethodOptions o;
  o.queue_depth = 2;
  o.max_in_flight = 2;
  o.nowait_probe = false;
  o.pool_threads = 1;
  for (const char* name : {"io_uring", "pread_threadpool"}) {
    StatusOr<std::unique_ptr<ReadMethod>> m = CreateReadMethod(name, o);
    if (m.status().code() == Status::Code::kNotSupported) continue;
    ASSERT_TRUE(m.ok()) << m.status().message();
    const int f = *(*m)->Open(path);
    char bufs[3][512];
    ReadCompletion c[3];
    size_t completed = 0;
    std::vector<ReadSubmitResult> results;
    for (int i = 0; i < 3; ++i) {
      ReadRequest r{.file = f, .offset = 512u * i, .length = 512, .buf = bufs[i], .tag = uint64_t(i)};
      StatusOr<ReadSubmitResult> s = (*m)->Submit(r, &c[completed]);
      ASSERT_TRUE(s.ok());
      results.push_back(*s);
    }
    EXPECT_EQ(results[0], ReadSubmitResult::kQueued) << name;
    EXPECT_EQ(results[1], ReadSubmitResult::kQueued) << name;
    EXPECT_EQ(results[2], ReadSubmitResult::kBusy) << name;
    StatusOr<size_t> n = (*m)->Reap(2, 3, c);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 2u) << name;
  }
}

}  // namespace
}  // namespace storebench::io
