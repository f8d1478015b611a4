// The flags shared by the accounting commands (memory, roofline) and their resolution into a
// model, a GPU, a weight format, a KV cache dtype and the parameter count to use. Flags are
// named as vLLM names them where vLLM has the concept.
#ifndef INFERGRID_SIM_APP_CLI_ACCOUNTING_SETUP_H_
#define INFERGRID_SIM_APP_CLI_ACCOUNTING_SETUP_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "sim/app/cli/flag_group.h"
#include "absl/status/statusor.h"
#include "base/dtype.h"
#include "hardware/hardware_spec.pb.h"
#include "models/model_spec.pb.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/number_flags.h"  // CheckRange, for the commands that read these flags
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/app/results/accounting_results.pb.h"
#include "sim/core/simulator/accounting_setup.h"

namespace infergrid::cli {

// The model, GPU, weight and KV formats and shape flags of the accounting commands.
struct AccountingFlags {
  std::string model = "llama-3-8b";
  std::string gpu = "h100-sxm";
  std::string weight_dtype;
  std::string dtype;
  std::string quantization;
  std::string kv_cache_dtype = "auto";
  std::string params = "exact";
  std::string safetensors;
  std::string format = "table";
  int64_t context = 8192;
  int64_t batch = 1;
  int64_t prompt = 2048;
  std::string calibration;
};
const FlagGroup<AccountingFlags>& AccountingFlagGroup();

// The serving engine's memory and parallelism flags, spelled as the engines spell them.
struct EngineFlags {
  std::string engine;
  double gpu_memory_utilization = kDefaultGpuMemoryUtilization;
  double mem_fraction_static = 0;
  double swa_full_tokens_ratio = 0;
  std::string max_attention_window;
  double free_gpu_memory_fraction = 0;
  int64_t max_num_batched_tokens = 0;
  int64_t max_num_seqs = 0;
  int64_t max_model_len = 0;
  int32_t block_size = 0;
  int32_t tensor_parallel_size = 1;
  int32_t pipeline_parallel_size = 1;
  int64_t num_gpu_blocks_override = 0;
  std::string kv_cache_memory;
  bool enforce_eager = false;
  bool enable_expert_parallel = false;
  // Attention data parallelism, in each engine's spelling (docs/engines.md#moe-with-attention-data-parallelism).
  int32_t data_parallel_size = 1;  // vLLM: ranks of --tensor-parallel-size GPUs each
  bool enable_attention_dp = false;  // TensorRT-LLM: --tensor-parallel-size ranks of one GPU
  bool enable_dp_attention = false;  // SGLang, with --dp-size ranks of TP / dp-size GPUs
  int32_t dp_size = 1;
  std::string expert_dispatch = "all-reduce";
  double expert_imbalance = 1.0;
};
const FlagGroup<EngineFlags>& EngineFlagGroup();

// The flags every accounting command takes.
const std::vector<absl::string_view>& AccountingFlagNames();

// Resolves the flags; errors are usage errors (exit 2) for bad flag values and input errors
// (exit 1) for unreadable or malformed files.
absl::StatusOr<AccountingSetup> ResolveAccountingSetup(const FlagValues& flags);

// --format: "table" or "json".
absl::StatusOr<bool> WantJson(const FlagValues& flags);

// The engine flags given with a value other than their default ("gpu-memory-utilization", ...),
// in declaration order; --engine itself is not one.
std::vector<std::string> EngineFlagsGiven(const FlagValues& flags);

// The engine flags plus a resolved setup as a memory-plan request; an empty --engine means
// `default_engine`. Usage errors name the flag: a fraction outside (0, 1], another engine's
// fraction flag, an unknown --engine, a malformed --kv-cache-memory.
absl::StatusOr<MemoryPlanRequest> ResolveMemoryPlanRequest(const FlagValues& flags, const AccountingSetup& setup,
                                                           absl::string_view default_engine = "vllm-v1");

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_ACCOUNTING_SETUP_H_
