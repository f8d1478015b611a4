#include "sim/app/output/background_sink.h"

#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "base/prefault.h"

namespace infergrid {
namespace {

// CPUs this process may run on (its affinity mask: a Slurm job's or a container's cpuset),
// else what the standard library reports.
size_t UsableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return static_cast<size_t>(std::max(CPU_COUNT(&set), 1));
  return std::max<size_t>(std::thread::hardware_concurrency(), 1);
}

constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

size_t BackgroundSink::WriterThreadsFor(size_t targets) {
  const size_t cpus = UsableCpus();
  return std::min(targets, cpus > 1 ? cpus - 1 : 1);
}

void BackgroundSink::FreeRing::operator()(Slot* ring) const { std::free(ring); }

// The ring in 2 MiB-aligned memory the kernel is asked to back with huge pages, its pages
// faulted in by one system call (MADV_POPULATE_WRITE, Linux 5.14): touched one page at a time
// instead, 8 MiB of 4 KiB pages is two thousand traps on the simulation's thread. The slots'
// contents are never read before they are written, so their initial bytes do not matter.
std::unique_ptr<BackgroundSink::Slot[], BackgroundSink::FreeRing> BackgroundSink::AllocateRing() {
  constexpr size_t kBytes = kRingRecords * sizeof(Slot);
  static_assert(kBytes % kHugePage == 0);
  void* memory = std::aligned_alloc(kHugePage, kBytes);
  if (memory == nullptr) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  madvise(memory, kBytes, MADV_HUGEPAGE);  // advice only: a kernel without it leaves 4 KiB pages
#endif
  if (!PrefaultPages(memory, kBytes)) std::memset(memory, 0, kBytes);  // else touched page by page
  return std::unique_ptr<Slot[], FreeRing>(static_cast<Slot*>(memory));
}

BackgroundSink::BackgroundSink(std::vector<IterationSink*> targets, size_t threads)
    : targets_(std::move(targets)),
      ring_(AllocateRing()),
      read_(std::min(threads > 0 ? threads : WriterThreadsFor(targets_.size()), targets_.size())) {
  writers_.reserve(read_.size());
  for (size_t t = 0; t < read_.size(); ++t) writers_.emplace_back([this, t] { WriterLoop(t); });
}

BackgroundSink::~BackgroundSink() { Finish(); }

uint64_t BackgroundSink::SlowestRead() const {
  uint64_t slowest = published_.load(std::memory_order_relaxed);
  for (const ReadCount& read : read_) slowest = std::min(slowest, read.value.load(std::memory_order_seq_cst));
  return slowest;
}

void BackgroundSink::Publish() {
#if defined(__SSE2__)
  _mm_sfence();  // the streamed copies are visible before the records are published
#endif
  published_.store(written_, std::memory_order_release);
  next_publish_ = written_ + kPublishRecords;
  // The next chunk reuses the slots of records written kRingRecords earlier.
  const uint64_t must_be_read = next_publish_ > kRingRecords ? next_publish_ - kRingRecords : 0;
  if (SlowestRead() >= must_be_read) return;
  // A full ring: wait for the slowest writer. The flag is stored before the counts are read
  // again (both sequentially consistent), so a writer that stores its count after that read
  // sees the flag and wakes this thread.
  std::unique_lock<std::mutex> lock(mutex_);
  producer_waiting_.store(true, std::memory_order_seq_cst);
  read_changed_.wait(lock, [&] { return SlowestRead() >= must_be_read; });
  producer_waiting_.store(false, std::memory_order_relaxed);
}

void BackgroundSink::Finish() {
  if (writers_.empty()) return;
#if defined(__SSE2__)
  _mm_sfence();
#endif
  published_.store(written_, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  finished_.notify_all();
  for (std::thread& writer : writers_) writer.join();
  writers_.clear();
}

void BackgroundSink::WriterLoop(size_t thread) {
  std::vector<IterationSink*> mine;
  for (size_t k = thread; k < targets_.size(); k += read_.size()) mine.push_back(targets_[k]);
  std::atomic<uint64_t>& read = read_[thread].value;
  uint64_t from = 0;
  for (;;) {
    const uint64_t to = published_.load(std::memory_order_acquire);
    if (to == from) {
      // Caught up: sleep a poll (Finish() wakes it early), unless everything has been read.
      std::unique_lock<std::mutex> lock(mutex_);
      if (done_ && published_.load(std::memory_order_acquire) == from) return;
      finished_.wait_for(lock, kWriterPoll, [&] { return done_; });
      continue;
    }
    for (IterationSink* sink : mine) {
      for (uint64_t i = from; i < to; ++i) sink->OnIteration(ring_[i & (kRingRecords - 1)].record);
    }
    from = to;
    read.store(to, std::memory_order_seq_cst);
    if (producer_waiting_.load(std::memory_order_seq_cst)) {
      std::lock_guard<std::mutex> lock(mutex_);
      read_changed_.notify_one();
    }
  }
}

}  // namespace infergrid
