// The three sizing equations (vLLM profile, SGLang static fraction, TensorRT-LLM free
// fraction), each filling the per-stage KV budget of a MemoryPlanDetail whose deployment
// (personality, total, batch limits, stages, weights, bytes per token) memory_plan.cc has
// already resolved, and each writing the startup-log lines of its engine. Internal to
// sim/core/memory_plan.
#ifndef INFERGRID_SIM_CORE_MEMORY_PLAN_ENGINE_RULES_H_
#define INFERGRID_SIM_CORE_MEMORY_PLAN_ENGINE_RULES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "base/units.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/memory_plan/memory_plan_detail.h"

namespace infergrid::memory_plan_internal {

// Fills each stage's activation, non-torch, CUDA-graph and KV terms and the fraction; fails
// (FailedPrecondition, by how many GiB) when a stage has nothing left for KV.
absl::Status ApplyVllmRule(const MemoryPlanRequest& request, MemoryPlanDetail* detail);
absl::Status ApplySglangRule(const MemoryPlanRequest& request, MemoryPlanDetail* detail);
absl::Status ApplyTrtllmRule(const MemoryPlanRequest& request, MemoryPlanDetail* detail);

// The engine's startup-log lines for the finished plan (blocks and tokens known).
void WriteVllmLog(const MemoryPlanRequest& request, MemoryPlanDetail* detail);
void WriteSglangLog(const MemoryPlanRequest& request, MemoryPlanDetail* detail);
void WriteTrtllmLog(const MemoryPlanRequest& request, MemoryPlanDetail* detail);

// Blocks one max_model_len request needs at most under vLLM's hybrid manager
// (max_memory_usage_bytes): ceil(L / B) in each full group, ceil(min(W - 1 + max_num_batched_tokens,
// L) / B) + 1 in each window group, a prefill chunk being allocated before the window trims it,
// and one in each linear-attention state group.
int64_t HybridBlocksPerRequest(const MemoryPlanDetail& detail);
// "12.34" (GiB, two decimals, as the engines print) and "476,016".
std::string Gib(double bytes);
std::string Thousands(int64_t value);

// Non-torch memory for this TP degree from the personality.
double NonTorchBytes(const EnginePersonality& personality, int tensor_parallel);

// The terms of the profiling forward pass that vLLM and TensorRT-LLM (PyTorch backend) run
// before sizing KV: each stage's activation peak (a dummy batch of max_num_batched_tokens
// tokens sampling min(max_num_seqs, max_num_batched_tokens) rows, logits on the last stage
// only) and its non-torch memory. SGLang runs no such pass.
void FillProfileRunTerms(const MemoryPlanRequest& request, MemoryPlanDetail* detail);

}  // namespace infergrid::memory_plan_internal

#endif  // INFERGRID_SIM_CORE_MEMORY_PLAN_ENGINE_RULES_H_
