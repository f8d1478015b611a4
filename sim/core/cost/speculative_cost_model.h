// The time of one speculative-decoding step: the proposer drafts k tokens for every decode
// sequence, then the target verifies them in one forward pass. Wraps the target's GPU cost model
// and, for a draft model or an EAGLE/MTP head, the proposer's (priced by the same kind of model
// for the draft's own ModelSpec; a head is the target's spec cut to one decoder layer, so one
// pass is one layer of the target's width plus embedding, LM head and sampling).
//
// For a batch with BatchShape::speculative_tokens = k > 0:
//   proposer  k sequential passes over the decode sequences (pass i at contexts c + i, one new
//             token each, replayed from a CUDA graph), the first also over the batch's prefill
//             chunks (the draft builds its own KV of the prompt); n-gram lookup instead costs
//             `ngram_host_s_per_sequence` per decode sequence on the host, no GPU time;
//   verify    the target's forward with every decode sequence as a chunk of k + 1 new tokens
//             after its context (prefill chunks unchanged), launched as the batch says.
// duration = proposer + verification; every demand (FLOPs, bytes, bounds) is the sum of both
// and draft_s the proposer's share. The LM head and sampler of the verification run on one row
// per sequence (the kernel builder samples each chunk's last position), not k + 1: left out.
// A batch with speculative_tokens = 0 is the target's price, unchanged.
#ifndef INFERGRID_SIM_CORE_COST_SPECULATIVE_COST_MODEL_H_
#define INFERGRID_SIM_CORE_COST_SPECULATIVE_COST_MODEL_H_

#include <memory>
#include <string>

#include "sim/core/cost/iteration_cost.h"

namespace infergrid {

struct SpeculativeCostOptions {
  std::string proposer = "n-gram lookup";  // for the description: "llama-3-8b draft", "eagle head"

  // n-gram proposer (no draft model): host time per decode sequence per step.
  double ngram_host_s_per_sequence = 0;
};

class SpeculativeCostModel final : public IterationCostModel {
 public:
  // `draft` null: an n-gram proposer.
  SpeculativeCostModel(std::unique_ptr<IterationCostModel> target, std::unique_ptr<IterationCostModel> draft,
                       const SpeculativeCostOptions& options);

  IterationCost Cost(const BatchShape& batch) const override;
  absl::string_view Description() const override { return description_; }

  // The parts of Cost, for tests: the proposer's passes alone, and the target's verification.
  IterationCost DraftCost(const BatchShape& batch) const;
  IterationCost VerifyCost(const BatchShape& batch) const;

 private:
  std::unique_ptr<IterationCostModel> target_;
  std::unique_ptr<IterationCostModel> draft_;
  SpeculativeCostOptions options_;
  std::string description_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_COST_SPECULATIVE_COST_MODEL_H_
