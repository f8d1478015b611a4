// Per-request records of a run (arrival, first scheduling, first token, finish, tokens,
// preemptions, replica) and the inter-token latency histogram, fed by the replicas as tokens
// are produced. Times are seconds from the run's origin. Definitions (README "Simulation"):
// TTFT = first token - arrival; TPOT = (finish - first token) / (output tokens - 1);
// ITL = every gap between consecutive chunks of a request, as the benchmark clients measure it:
// tokens that reach the client at the same instant (a multi-step group, a stream interval's
// message, accepted draft tokens) are one streamed chunk and one gap; queueing = first
// scheduled - arrival.
#ifndef INFERGRID_SIM_CORE_METRICS_REQUEST_LOG_H_
#define INFERGRID_SIM_CORE_METRICS_REQUEST_LOG_H_

#include <cstdint>
#include <vector>

#include "sim/core/metrics/log_histogram.h"

namespace infergrid {

enum class RequestOutcome : uint8_t { kPending, kFinished, kRejected };

// Why admission refused a request (sim/core/serving/admission.h); kNone unless rejected. These are
// the only two refusals the engines make: nothing in the model caps the waiting queue.
enum class RejectReason : uint8_t { kNone, kPromptTooLong, kKvCacheTooSmall };
inline constexpr RejectReason kRejectReasons[] = {RejectReason::kPromptTooLong, RejectReason::kKvCacheTooSmall};

// The reason's name in requests.csv and summary.json ("" for kNone).
inline const char* RejectReasonName(RejectReason reason) {
  switch (reason) {
    case RejectReason::kPromptTooLong: return "prompt_too_long";
    case RejectReason::kKvCacheTooSmall: return "kv_cache_too_small";
    case RejectReason::kNone: break;
  }
  return "";
}

struct RequestRecord {
  double arrival_s = 0;
  double scheduled_s = -1;  // first time any of its tokens entered a batch
  double first_token_s = -1;
  double last_token_s = -1;
  double finish_s = -1;
  int32_t input_tokens = 0;
  int32_t output_tokens = 0;  // tokens it is served (the trace's, cut at max_model_len)
  int32_t cached_tokens = 0;  // prompt tokens found in the prefix cache
  int32_t preemptions = 0;
  int32_t replica = -1;
  RequestOutcome outcome = RequestOutcome::kPending;
  RejectReason reject_reason = RejectReason::kNone;
  bool truncated = false;  // output cut so that prompt + output <= max_model_len
  double kv_transfer_s = -1;  // disaggregation: prefill end -> KV on the decode replica
  int32_t prefill_replica = -1;  // disaggregation: the replica that ran its prefill
};

class RequestLog {
 public:
  int64_t Add(const RequestRecord& record) {
    records_.push_back(record);
    if (keep_chunk_times_) chunk_times_.emplace_back();
    return static_cast<int64_t>(records_.size()) - 1;
  }
  // Opt-in (before the first Add): keep every distinct time each request's tokens reached the
  // client. Tokens delivered at the same instant arrive as one streamed chunk, so a benchmark
  // client sees one inter-token gap per chunk (bench's exact ITL lists need them).
  void KeepChunkTimes() { keep_chunk_times_ = true; }
  const std::vector<double>& chunk_times(int64_t index) const { return chunk_times_[static_cast<size_t>(index)]; }
  RequestRecord& at(int64_t index) { return records_[static_cast<size_t>(index)]; }
  const std::vector<RequestRecord>& records() const { return records_; }

  void OnScheduled(int64_t index, double time_s) {
    RequestRecord& r = at(index);
    if (r.scheduled_s < 0) r.scheduled_s = time_s;
  }
  void OnToken(int64_t index, double time_s) {
    RequestRecord& r = at(index);
    if (r.first_token_s < 0) {
      r.first_token_s = time_s;
    } else if (time_s > r.last_token_s) {  // a later token of the same chunk adds no gap
      AddGap(time_s - r.last_token_s);
    }
    r.last_token_s = time_s;
    if (keep_chunk_times_) {
      std::vector<double>& chunks = chunk_times_[static_cast<size_t>(index)];
      if (chunks.empty() || time_s > chunks.back()) chunks.push_back(time_s);
    }
  }
  void OnFinished(int64_t index, double time_s, int32_t preemptions, int64_t cached_tokens) {
    RequestRecord& r = at(index);
    r.finish_s = time_s;
    r.preemptions = preemptions;
    r.cached_tokens = static_cast<int32_t>(cached_tokens);
    r.outcome = RequestOutcome::kFinished;
    finish_times_.push_back(time_s);
  }
  const LogHistogram& itl() const {
    FlushGaps();
    return itl_;
  }
  // When each finished request's last token reached the client, in the order they were
  // recorded (a closed-loop client sends its next request then).
  const std::vector<double>& finish_times() const { return finish_times_; }

 private:
  // The sequences of one decode step share their gap since the step before: equal gaps in a
  // row go into the histogram together (LogHistogram::AddRepeated, the same as one by one).
  void AddGap(double gap) {
    if (gap == run_gap_) {
      ++run_length_;
      return;
    }
    FlushGaps();
    run_gap_ = gap;
    run_length_ = 1;
  }
  void FlushGaps() const {
    itl_.AddRepeated(run_gap_, run_length_);
    run_length_ = 0;
  }

  std::vector<RequestRecord> records_;
  mutable LogHistogram itl_;
  mutable int64_t run_length_ = 0;  // gaps equal to run_gap_ not yet in itl_
  double run_gap_ = 0;
  std::vector<double> finish_times_;
  bool keep_chunk_times_ = false;
  std::vector<std::vector<double>> chunk_times_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_METRICS_REQUEST_LOG_H_
