#include "sim/app/output/timeline.h"

#include "sim/app/output/csv_append.h"
#include "sim/app/output/json_timeline.h"
#include "sim/app/output/perfetto_timeline.h"

namespace infergrid {

absl::StatusOr<std::unique_ptr<Timeline>> OpenTimeline(TimelineFormat format, const std::string& path, int num_replicas,
                                                       int64_t max_iterations) {
  if (format == TimelineFormat::kJson) return JsonTimeline::Open(path, num_replicas, max_iterations);
  return PerfettoTimeline::Open(path, num_replicas, max_iterations);
}

void AppendSliceName(std::string* out, const IterationRecord& r) {
  const int64_t decodes = r.decode_seqs + r.padding_seqs;
  if (r.prefill_seqs > 0 && decodes > 0) {
    out->append("mixed ");
    AppendIntText(out, r.prefill_seqs);
    out->push_back('+');
    AppendIntText(out, decodes);
    out->append(" (");
    AppendIntText(out, r.new_tokens());
    out->append(" tok)");
  } else if (r.prefill_seqs > 0) {
    out->append("prefill ");
    AppendIntText(out, r.prefill_seqs);
    out->append(" (");
    AppendIntText(out, r.prefill_tokens);
    out->append(" tok)");
  } else {
    out->append("decode ");
    AppendIntText(out, decodes);
  }
}

ResourceShares SharesOf(const IterationRecord& r) {
  const double duration = r.end_s - r.start_s;
  ResourceShares s;
  s.tensor = r.compute_fraction;
  s.hbm = r.hbm_fraction;
  if (duration > 0) {
    s.network = r.communication_s / duration;
    s.host = r.host_s / duration;
  }
  return s;
}

}  // namespace infergrid
