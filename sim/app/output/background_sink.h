// An IterationSink that hands iterations to other sinks on threads of their own, so that
// formatting and writing the output files (iterations.csv, the timeline) runs beside the
// simulation instead of inside it.
//
// Each record is copied once, into a ring of kRingRecords slots allocated (and touched, in
// huge pages where the kernel gives them) up front, which every writer thread reads at its own
// pace: the simulation's thread neither allocates nor faults pages per record. The copy uses
// streaming stores where the CPU has them (SSE2): a slot's cache lines were last read by a
// writer on another core, and an ordinary store would first fetch each line back (measured on
// the Azure trace with writers that only read the records: 0.21 s of simulation with ordinary
// stores, 0.19 s streamed, 0.18 s when nothing reads).
//
// Records are published kPublishRecords at a time by one atomic store: the simulation's thread
// makes no system call while the writers keep up. A writer that has caught up sleeps for
// kWriterPoll and looks again, rather than being woken: on the Azure trace, waking a sleeping
// writer on another CPU (a futex call and an inter-processor interrupt) once per chunk took
// about 5% of the simulation thread's samples. The ring holds about 15 ms of records at the
// rate the simulation makes them (two or three per microsecond), which covers a writer's
// stalls in the file system (a few milliseconds) and its polls. A simulation that fills the
// ring before its slowest writer has read the oldest chunk waits for it (then the writer wakes
// it), so memory stays bounded however long the run.
//
// There are at most as many writer threads as CPUs beside the simulation's (WriterThreadsFor):
// a third runnable thread on two CPUs took the simulation's CPU for milliseconds at a time
// (the scheduler lets a running thread finish its slice). Target k is written by thread
// k mod threads, each target's records in order.
//
// Contract: the targets are touched only by the writer threads between construction and
// Finish(); after Finish() returns, every target has been handed every record, in the order
// OnIteration saw them, and the caller may use the targets again (close their files). The
// destructor finishes too.
#ifndef INFERGRID_SIM_APP_OUTPUT_BACKGROUND_SINK_H_
#define INFERGRID_SIM_APP_OUTPUT_BACKGROUND_SINK_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/core/metrics/iteration_record.h"

namespace infergrid {

class BackgroundSink final : public IterationSink {
 public:
  static constexpr uint64_t kRingRecords = 32768;  // a power of two: 8 MiB of slots
  static constexpr uint64_t kPublishRecords = 512;
  static constexpr std::chrono::microseconds kWriterPoll{1000};
  static_assert(kRingRecords % kPublishRecords == 0 && kRingRecords / kPublishRecords >= 2);

  // The writer threads for `targets` files on this machine: one per target, but no more than
  // the CPUs this process may run on less the simulation's one (and at least one).
  static size_t WriterThreadsFor(size_t targets);

  // Starts `threads` writer threads (0: WriterThreadsFor(targets.size())), at most one per
  // target.
  explicit BackgroundSink(std::vector<IterationSink*> targets, size_t threads = 0);
  BackgroundSink(const BackgroundSink&) = delete;
  BackgroundSink& operator=(const BackgroundSink&) = delete;
  ~BackgroundSink() override;

  void OnIteration(const IterationRecord& record) override {
    StreamCopy(ring_[written_ & (kRingRecords - 1)].record, record);
    if (++written_ == next_publish_) Publish();
  }
  // Hands over what is still unpublished and waits for every writer thread to end.
  void Finish();
  size_t writer_threads() const { return read_.size(); }

 private:
  // A slot is whole cache lines, so that a record's copy writes complete lines.
  struct alignas(64) Slot {
    IterationRecord record;
  };
  static_assert(sizeof(Slot) % 64 == 0);
  struct FreeRing {
    void operator()(Slot* ring) const;
  };
  static std::unique_ptr<Slot[], FreeRing> AllocateRing();

  // Makes the records written so far readable, then waits until the slots of the next chunk
  // have been read by every writer thread.
  void Publish();
  void WriterLoop(size_t thread);
  uint64_t SlowestRead() const;

  static void StreamCopy(IterationRecord& to, const IterationRecord& from) {
#if defined(__SSE2__)
    static_assert(sizeof(IterationRecord) % 16 == 0);
    auto* dst = reinterpret_cast<__m128i*>(&to);
    const auto* src = reinterpret_cast<const __m128i*>(&from);
    for (size_t i = 0; i < sizeof(IterationRecord) / 16; ++i) _mm_stream_si128(dst + i, _mm_loadu_si128(src + i));
#else
    to = from;
#endif
  }

  std::vector<IterationSink*> targets_;
  std::unique_ptr<Slot[], FreeRing> ring_;
  uint64_t written_ = 0;  // records copied in (the simulation's thread only)
  uint64_t next_publish_ = kPublishRecords;
  // Records below published_ are readable (a release store after the copies are visible).
  alignas(64) std::atomic<uint64_t> published_{0};
  // Per writer thread: the records it has handed to all its targets, on a cache line of its
  // own (its thread stores it; the simulation loads it once per chunk).
  struct alignas(64) ReadCount {
    std::atomic<uint64_t> value{0};
  };
  std::vector<ReadCount> read_;
  std::atomic<bool> producer_waiting_{false};
  std::mutex mutex_;  // for the two waits below
  std::condition_variable finished_;  // wakes the writers at Finish()
  std::condition_variable read_changed_;  // wakes a simulation waiting on a full ring
  bool done_ = false;  // guarded by mutex_
  std::vector<std::thread> writers_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_BACKGROUND_SINK_H_
