// An IterationSink that hands iterations to other sinks on a thread of their own, so that
// formatting and writing the output files (iterations.csv, the timeline) runs beside the
// simulation instead of inside it. Records are copied into batches of kBatchRecords; a full
// batch goes to the writer thread, which calls the target sink for each record in order. At
// most kMaxPendingBatches wait at once: a simulation that outruns its writer waits for it, so
// memory stays bounded however long the run.
//
// Contract: the target is touched only by the writer thread between construction and Finish();
// after Finish() returns, every record has been delivered, in the order OnIteration saw them,
// and the caller may use the target again (close its files). The destructor finishes too.
#ifndef INFERGRID_SIM_APP_OUTPUT_BACKGROUND_SINK_H_
#define INFERGRID_SIM_APP_OUTPUT_BACKGROUND_SINK_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/core/metrics/iteration_record.h"

namespace infergrid {

class BackgroundSink final : public IterationSink {
 public:
  static constexpr size_t kBatchRecords = 4096;
  static constexpr size_t kMaxPendingBatches = 4;

  explicit BackgroundSink(IterationSink* target);
  BackgroundSink(const BackgroundSink&) = delete;
  BackgroundSink& operator=(const BackgroundSink&) = delete;
  ~BackgroundSink() override;

  void OnIteration(const IterationRecord& record) override;
  // Delivers what is still batched and waits for the writer thread to end.
  void Finish();

 private:
  using Batch = std::vector<IterationRecord>;
  void Hand(Batch batch);  // to the writer; blocks while kMaxPendingBatches wait
  Batch SpareBatch();      // an emptied batch back from the writer, or a new one
  void WriterLoop();

  IterationSink* target_;
  Batch filling_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> pending_;  // guarded by mutex_
  std::vector<Batch> spare_;   // guarded by mutex_
  bool done_ = false;          // guarded by mutex_
  std::thread writer_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_BACKGROUND_SINK_H_
