// The run as a timeline for ui.perfetto.dev, in one of two formats with the same content:
//   - kPerfetto (timeline.pftrace, the default): Perfetto's own protobuf trace
//     (sim/app/output/perfetto_timeline.h), about a third of the JSON's size and faster to load;
//   - kJson (timeline.json): the Chrome trace-event JSON that chrome://tracing and scripts
//     read (sim/app/output/json_timeline.h).
// Per replica: a process "replica R" with a track "iterations" (each iteration a slice named
// by its batch: "prefill 3 (4096 tok)", "decode 32", "mixed 1+31 (543 tok)"; args: iteration,
// batch composition, KV blocks, preemptions, compute and communication ms, binding resource)
// and counter tracks at each iteration's start: "queue waiting", "queue running", "queue
// swapped", "kv_blocks used", and the share of the iteration each resource took: "resources
// tensor" (achieved fraction of the tensor peak), "resources hbm" (of the HBM bandwidth),
// "resources network" (communication time / iteration time) and "resources host" (host time
// on the critical path / iteration time). Timestamps in simulated time from 0. Streamed; at
// most `max_iterations` iterations are written (a note in summary.json says when it stops early).
#ifndef INFERGRID_SIM_APP_OUTPUT_TIMELINE_H_
#define INFERGRID_SIM_APP_OUTPUT_TIMELINE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sim/core/metrics/iteration_record.h"

namespace infergrid {

// The file names are the caller's (cli::OutputSelection::TimelineFile).
enum class TimelineFormat { kPerfetto, kJson };

class Timeline : public IterationSink {
 public:
  // Writes the first `max_iterations` records (later ones are counted, not written).
  void OnIteration(const IterationRecord& r) final {
    if (written_ >= max_iterations_) {
      ++dropped_;
      return;
    }
    ++written_;
    Write(r);
  }
  // Ends the document, flushes and closes; reports any write error naming the file.
  virtual absl::Status Close() = 0;
  bool truncated() const { return dropped_ > 0; }
  int64_t written() const { return written_; }

 protected:
  explicit Timeline(int64_t max_iterations) : max_iterations_(max_iterations) {}
  virtual void Write(const IterationRecord& r) = 0;

 private:
  int64_t max_iterations_;
  int64_t written_ = 0;
  int64_t dropped_ = 0;
};

absl::StatusOr<std::unique_ptr<Timeline>> OpenTimeline(TimelineFormat format, const std::string& path, int num_replicas,
                                                       int64_t max_iterations);

// What both formats show of an iteration.
// The slice's name: "prefill P (T tok)", "decode D" or "mixed P+D (T tok)".
void AppendSliceName(std::string* out, const IterationRecord& r);
// The "resources ..." counter tracks' values.
struct ResourceShares {
  double tensor = 0;
  double hbm = 0;
  double network = 0;
  double host = 0;
};
ResourceShares SharesOf(const IterationRecord& r);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_TIMELINE_H_
