// timeline.json: the run as a Chrome/Perfetto trace (JSON trace-event format; open it in
// ui.perfetto.dev or chrome://tracing). One process per replica with an "iterations" track
// (each iteration a slice named by its batch: "prefill 3 (4,096 tok)", "decode 32",
// "mixed ..."; args: batch composition, KV use, binding resource) and counters "queue"
// (waiting, running, swapped) and "kv_blocks" (used). Timestamps in microseconds. Streamed;
// at most `max_iterations` iterations are written (a note in summary.json says when the
// timeline stops early).
#ifndef INFERGRID_SIM_OUTPUT_TIMELINE_H_
#define INFERGRID_SIM_OUTPUT_TIMELINE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sim/metrics/iteration_record.h"
#include "sim/output/buffered_file.h"

namespace infergrid {

class Timeline final : public IterationSink {
 public:
  static absl::StatusOr<std::unique_ptr<Timeline>> Open(const std::string& path, int num_replicas,
                                                        int64_t max_iterations);
  void OnIteration(const IterationRecord& r) override;
  // Ends the JSON, flushes and closes; reports any write error.
  absl::Status Close();
  bool truncated() const { return written_ >= max_iterations_ && dropped_ > 0; }
  int64_t written() const { return written_; }

 private:
  Timeline(BufferedFile file, int64_t max_iterations)
      : file_(std::move(file)), max_iterations_(max_iterations) {}

  BufferedFile file_;
  int64_t max_iterations_;
  int64_t written_ = 0;
  int64_t dropped_ = 0;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_OUTPUT_TIMELINE_H_
