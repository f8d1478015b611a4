// timeline.json: the timeline (sim/app/output/timeline.h) as a Chrome trace-event JSON document
// (ui.perfetto.dev, chrome://tracing). One process per replica (pid = replica), a complete
// ("X") event per iteration on thread 0 "iterations", and counter ("C") events "queue",
// "kv_blocks" and "resources" whose args become the counter tracks "queue waiting", ... .
// Timestamps in microseconds with three decimals (nanoseconds).
#ifndef INFERGRID_SIM_APP_OUTPUT_JSON_TIMELINE_H_
#define INFERGRID_SIM_APP_OUTPUT_JSON_TIMELINE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "sim/app/output/buffered_file.h"
#include "sim/app/output/timeline.h"

namespace infergrid {

class JsonTimeline final : public Timeline {
 public:
  static absl::StatusOr<std::unique_ptr<Timeline>> Open(const std::string& path, int num_replicas,
                                                        int64_t max_iterations);
  absl::Status Close() override;

 private:
  JsonTimeline(BufferedFile file, int64_t max_iterations) : Timeline(max_iterations), file_(std::move(file)) {}
  void Write(const IterationRecord& r) override;

  BufferedFile file_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_JSON_TIMELINE_H_
