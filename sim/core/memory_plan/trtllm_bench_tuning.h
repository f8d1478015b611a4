// trtllm-bench's own max_batch_size and max_num_tokens: when a `trtllm-bench throughput` (or
// `trtllm-bench build --dataset`) user gives neither, it estimates how many requests of the
// dataset's mean length fit the KV cache and rounds that up "slightly optimistically"
// (tensorrt_llm/bench/build/tuning.py, calc_engine_setting and finetune_setting):
//
//   bytes/token  = 2 x layers x max(TP, kv_heads) x head_dim x KV bytes      (the whole model)
//   weights      = parameters x weight bytes                    (GiB; early releases: decimal GB)
//   requests     = fraction x (NVML total GiB x TP x PP - weights) / (bytes/token x (ISL + OSL))
//   raw_bs       = min(requests, 4096) / PP;  raw_tokens = min(raw_bs x (1 + ISL / OSL), 32768)
//   max_batch_size = raw_bs < 256: max(64, 32-multiple up); < 1024: 128-multiple up; else 256-multiple up
//   max_num_tokens = raw_tokens < 4096: max(2048, 256-multiple up); < 8192: 512-multiple up; else 1024-multiple up
//
// ISL and OSL are the dataset's means truncated to integers (DatasetMetadata.avg_isl/avg_osl).
// The PyTorch flow then raises max_num_tokens to the longest prompt + max_batch_size unless
// chunked prefill is on. What differs by release (the fraction and where it comes from, the
// weights' unit, that floor) is the personality's BenchTuning. The estimate knows nothing of
// activations, CUDA graphs or the runtime's own KV plan: the engine then plans its memory with
// the limits chosen here, as it would with a user's.
#ifndef INFERGRID_SIM_CORE_MEMORY_PLAN_TRTLLM_BENCH_TUNING_H_
#define INFERGRID_SIM_CORE_MEMORY_PLAN_TRTLLM_BENCH_TUNING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/dtype.h"
#include "hardware/hardware_spec.pb.h"
#include "models/model_spec.pb.h"
#include "sim/core/personality/engine_personality.pb.h"

namespace infergrid {

struct TrtllmBenchDataset {
  int64_t avg_isl = 0;  // mean prompt tokens, truncated as int(isl_stats.average)
  int64_t avg_osl = 0;  // mean output tokens, truncated
  int64_t max_isl = 0;  // longest prompt
};

struct TrtllmBenchTuningRequest {
  ModelSpec model;
  GpuSpec gpu;
  WeightFormat weights;
  DType kv_dtype = DType::BF16;
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  double user_fraction = 0;  // --kv_cache_free_gpu_mem_fraction as given; 0: none
  bool chunked_prefill = false;  // --enable-chunked-prefill: no max-ISL floor
  TrtllmBenchDataset dataset;
};

struct TrtllmBenchChoice {
  // False where trtllm-bench does not tune the quantization (int8/int4 weights, MXFP4; early
  // releases also NVFP4): BuildConfig's defaults, the personality's batch defaults, apply.
  bool tuned = false;
  int64_t max_batch_size = 0;
  int64_t max_num_tokens = 0;
  // The estimate, in the units trtllm-bench prints ("GB" that are GiB, but for early releases'
  // weights): for the report and the tests.
  double fraction = 0;
  double engine_size_gb = 0;
  double total_gb = 0;  // NVML's total over the GPUs
  double available_gb = 0;
  double cache_gb = 0;
  double kv_max_tokens = 0;
  double kv_max_requests = 0;
  std::vector<std::string> log_lines;  // as trtllm-bench logs them, warnings included
};

// The settings trtllm-bench would choose. `fallback_batch_size` and `fallback_num_tokens` are
// BuildConfig's defaults for an untuned quantization. FailedPrecondition, with trtllm-bench's
// message, when the weights exceed the memory or not one request fits.
absl::StatusOr<TrtllmBenchChoice> ChooseTrtllmBenchSettings(const BenchTuning& rule,
                                                            const TrtllmBenchTuningRequest& request,
                                                            int64_t fallback_batch_size, int64_t fallback_num_tokens);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_MEMORY_PLAN_TRTLLM_BENCH_TUNING_H_
