// SGLang's scheduler (0.4, without --enable-mixed-chunk), from managers/scheduler.py and
// schedule_policy.py (PrefillAdder):
//   - Prefills first: an iteration is a prefill batch whenever a prompt is under way or one can
//     be admitted, else one decode step of every running sequence.
//   - A prefill batch holds at most chunk_size new tokens (chunked_prefill_size): the prompt
//     under way goes first (add_being_chunked_req), then waiting prompts in FCFS order; the one
//     that does not fit is cut to what is left and goes on first in the next iteration. With
//     chunking off (whole_prompts) nothing is cut: prompts join while they fit chunk_size
//     (max_prefill_tokens), and a longer one runs alone.
//   - Admission reserves KV for outputs still to come: the free tokens less, for every running
//     sequence, min(output left, 4096) x new_token_ratio; a prompt is admitted only while its
//     whole input + min(output, 4096) is less than what remains, and each admitted prompt takes
//     its input (and, once its last chunk is in, its output estimate) off the remainder.
//   - new_token_ratio starts at 0.7, falls by (0.7 - 0.098) / 600 after every decode step to
//     0.098, rises to (tokens decoded + 20 per request) / outputs of the running requests when a
//     decode step runs out of KV, and returns to 0.7 when the engine is idle.
//   - When a decode step does not fit the free KV, requests are retracted
//     (ScheduleBatch.retract_decode): the decoding requests with the fewest outputs go first
//     (the longest input first among equal outputs, then the most recently admitted), at
//     least one and then until the free KV holds 20 more tokens (RETRACT_DECODE_STEPS) for
//     every request left; each is freed, to be prefilled again with its outputs so far, and
//     joins the back of the waiting queue.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/core/serving/schedulers.h"

namespace infergrid {
namespace {

constexpr double kInitNewTokenRatio = 0.7;  // default_init_new_token_ratio
constexpr double kMinNewTokenRatio = kInitNewTokenRatio * 0.14;  // default_min_new_token_ratio_factor
constexpr double kNewTokenRatioDecay = (kInitNewTokenRatio - kMinNewTokenRatio) / 600;
constexpr int64_t kClipMaxNewTokens = 4096;  // CLIP_MAX_NEW_TOKENS_ESTIMATION
constexpr int64_t kRetractDecodeSteps = 20;  // RETRACT_DECODE_STEPS

int64_t OutputEstimate(const Sequence& seq) {
  return std::min<int64_t>(seq.output_tokens - seq.generated, kClipMaxNewTokens);
}

class SglangScheduler final : public Scheduler {
 public:
  explicit SglangScheduler(const SchedulerLimits& limits)
      : limits_(limits), chunk_(std::max<int64_t>(1, limits.chunk_size)), whole_prompts_(limits.whole_prompts) {}

  // SGLang has no swap: every preemption is a retraction, prefilled again later (simulate
  // refuses --preemption-mode=swap with this scheduler).
  void Schedule(ReplicaQueues& queues, BlockManager& blocks, ScheduledBatch& scheduled) override {
    if (queues.running.empty()) new_token_ratio_ = kInitNewTokenRatio;
    SchedulePrefill(queues, blocks, scheduled);
    if (!scheduled.work.empty()) return;
    if (!DecodeStepFits(queues, blocks)) Retract(queues, blocks, scheduled);
    // Retraction leaves room for this step; with blocks of several tokens a sequence may still
    // need one more, and the last admitted gives it up.
    scheduling::ScheduleDecodes(queues, blocks, PreemptionMode::kRecompute, limits_.max_num_batched_tokens, scheduled,
                                limits_.lookahead_slots);
    if (scheduled.preempted_recompute == 0) {
      new_token_ratio_ = std::max(new_token_ratio_ - kNewTokenRatioDecay, kMinNewTokenRatio);
    } else {
      RaiseRatioAfterRetraction(queues);
    }
  }

 private:
  void SchedulePrefill(ReplicaQueues& queues, BlockManager& blocks, ScheduledBatch& scheduled) {
    // KV left for new prompts, counted only when one waits (most iterations decode).
    double rem_total = queues.waiting.empty() ? 0 : UnreservedTokens(queues, blocks);
    // The prompt under way, then new ones.
    int64_t tokens = 0;
    for (Sequence* seq : queues.running) {
      if (seq->InDecode() || tokens >= chunk_) continue;
      const int64_t left = seq->Remaining();
      if (!scheduling::ContinuePrefill(*seq, blocks, chunk_ - tokens, scheduled)) continue;
      const int64_t n = scheduled.work.back().new_tokens;
      tokens += n;
      rem_total -= static_cast<double>(n + (n == left ? OutputEstimate(*seq) : 0));
    }
    while (!queues.waiting.empty() && tokens < chunk_ &&
           static_cast<int64_t>(queues.running.size()) < limits_.max_num_seqs) {
      const Sequence& front = *queues.waiting.front();
      if (static_cast<double>(front.Remaining() + OutputEstimate(front)) >= rem_total) break;
      int64_t room = chunk_ - tokens;
      if (whole_prompts_ && tokens == 0) room = std::max(room, front.Remaining());  // a long prompt alone
      if (!scheduling::AdmitFront(queues, blocks, room, /*allow_partial=*/!whole_prompts_, scheduled)) break;
      const ScheduledWork& w = scheduled.work.back();
      tokens += w.new_tokens;
      const bool whole = w.new_tokens == w.seq->Remaining();
      rem_total -= static_cast<double>(w.new_tokens + (whole ? OutputEstimate(*w.seq) : 0));
    }
  }

  // The free tokens less the running requests' outputs still to come x new_token_ratio.
  double UnreservedTokens(const ReplicaQueues& queues, const BlockManager& blocks) const {
    double unreserved = static_cast<double>(blocks.free_blocks() * blocks.block_size());
    for (const Sequence* seq : queues.running) {
      if (seq->InDecode()) unreserved -= static_cast<double>(OutputEstimate(*seq)) * new_token_ratio_;
    }
    return unreserved;
  }

  bool DecodeStepFits(const ReplicaQueues& queues, const BlockManager& blocks) const {
    int64_t needed = 0;
    for (const Sequence* seq : queues.running) {
      if (seq->InDecode()) needed += blocks.Needed(*seq, seq->computed + 1 + limits_.lookahead_slots);
    }
    return blocks.CanGrow(needed);
  }

  // ScheduleBatch.retract_decode's order and stopping rule (see the top of the file).
  void Retract(ReplicaQueues& queues, BlockManager& blocks, ScheduledBatch& scheduled) {
    victims_.clear();
    for (Sequence* seq : queues.running) {
      if (seq->InDecode()) victims_.push_back(seq);
    }
    // Retracted from the back: most outputs first, then the shortest input; stable, so among
    // equal keys the most recently admitted is last.
    std::stable_sort(victims_.begin(), victims_.end(), [](const Sequence* a, const Sequence* b) {
      if (a->generated != b->generated) return a->generated > b->generated;
      return a->prompt_tokens < b->prompt_tokens;
    });
    bool first = true;
    while (victims_.size() > 1 && (first || blocks.free_blocks() * blocks.block_size() <
                                                static_cast<int64_t>(victims_.size()) * kRetractDecodeSteps)) {
      first = false;
      Sequence* victim = victims_.back();
      victims_.pop_back();
      queues.running.erase(std::find(queues.running.begin(), queues.running.end(), victim));
      scheduling::ReleaseForRecompute(*victim, blocks, scheduled);
      queues.waiting.push_back(victim);
    }
  }

  // ScheduleBatch.retract_decode: the ratio the remaining requests have shown so far, with
  // RETRACT_DECODE_STEPS more tokens each.
  void RaiseRatioAfterRetraction(const ReplicaQueues& queues) {
    int64_t decoded = 0, outputs = 0, n = 0;
    for (const Sequence* seq : queues.running) {
      decoded += seq->generated;
      outputs += seq->output_tokens;
      ++n;
    }
    if (outputs > 0) {
      new_token_ratio_ = std::min(1.0, static_cast<double>(decoded + kRetractDecodeSteps * n) / outputs);
    }
  }

  SchedulerLimits limits_;
  int64_t chunk_;  // new tokens of one prefill iteration (chunked_prefill_size)
  bool whole_prompts_;
  double new_token_ratio_ = kInitNewTokenRatio;
  std::vector<Sequence*> victims_;  // Retract's candidates, kept to reuse the allocation
};

}  // namespace

std::unique_ptr<Scheduler> MakeSglangScheduler(const SchedulerLimits& limits) {
  return std::make_unique<SglangScheduler>(limits);
}

}  // namespace infergrid
