#include "sim/app/cli/accounting_setup.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "base/decimal_number.h"
#include "hardware/gpu_catalog.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "models/safetensors_header.h"
#include "sim/app/cli/command_line.h"
#include "sim/core/personality/personality_catalog.h"

namespace infergrid::cli {

const FlagGroup<AccountingFlags>& AccountingFlagGroup() {
  static const FlagGroup<AccountingFlags>* group =
      &(*new FlagGroup<AccountingFlags>())
           .Add("model", &AccountingFlags::model,
                "catalog model name or Hugging Face id (meta-llama/Llama-3.1-70B-Instruct), or a path to a "
                "Hugging Face config.json or a ModelSpec .textproto")
           .Add("gpu", &AccountingFlags::gpu,
                "catalog GPU name, the name the device reports (\"NVIDIA H200\") or its family (H100), or a "
                "path to a GpuSpec .textproto")
           .Add("weight_dtype", &AccountingFlags::weight_dtype,
                "weight format: fp32, fp16, bf16, fp8, int8, int4 (raw floor), int4-g<N>, awq, gptq, "
                "nvfp4, mxfp4 (default: the model's dtype)")
           .Add("dtype", &AccountingFlags::dtype,
                "vLLM's --dtype: the unquantized weight dtype (auto, bf16, fp16, fp32)")
           .Add("quantization", &AccountingFlags::quantization,
                "vLLM's --quantization: fp8, awq, gptq, modelopt_fp4 (NVFP4) or mxfp4")
           .Add("kv_cache_dtype", &AccountingFlags::kv_cache_dtype,
                "KV cache dtype: auto (the model's dtype), fp16, bf16, fp8 (= fp8_e4m3), fp8_e4m3, "
                "fp8_e5m2, int8, int4")
           .Add("params", &AccountingFlags::params,
                "parameter count: exact (from the architecture), nominal (the published round figure), "
                "or checkpoint (from --safetensors)")
           .Add("safetensors", &AccountingFlags::safetensors,
                "a .safetensors file (or a folder of them): count parameters from its header")
           .Add("format", &AccountingFlags::format, "output: table or json")
           .Add("context", &AccountingFlags::context, "context length S in tokens (KV cache held per sequence)")
           .Add("batch", &AccountingFlags::batch, "number of sequences B")
           .Add("prompt", &AccountingFlags::prompt, "prompt length P in tokens (prefill)")
           .Add("calibration", &AccountingFlags::calibration,
                "a calibration profile .textproto (default: the bundled profile of --gpu)");
  return *group;
}

const FlagGroup<EngineFlags>& EngineFlagGroup() {
  static const FlagGroup<EngineFlags>* group =
      &(*new FlagGroup<EngineFlags>())
           .Add("engine", &EngineFlags::engine,
                "serving engine: vllm-v1, vllm-v0, sglang or trtllm, "
                "optionally @version (vllm-v1@0.19, sglang@0.4.1, trtllm@cpp)")
           .Add("gpu_memory_utilization", &EngineFlags::gpu_memory_utilization,
                "vLLM: share of the whole GPU the engine may use")
           .Add("mem_fraction_static", &EngineFlags::mem_fraction_static,
                "SGLang: share of free memory for weights + KV (0: the version's default)")
           .Add("swa_full_tokens_ratio", &EngineFlags::swa_full_tokens_ratio,
                "SGLang with its hybrid SWA pool (0.5.3, Llama-4): SWA pool tokens / full pool tokens (0: default 0.8)")
           .Add(
               "max_attention_window", &EngineFlags::max_attention_window,
               "TensorRT-LLM: each layer's KV window in tokens, comma-separated and repeated over the layers when "
               "shorter (kv_cache_config.max_attention_window; e.g. 128,131072 for gpt-oss); each distinct window gets "
               "a pool of its own. Empty: every layer keeps max_model_len tokens in one pool")
           .Add("free_gpu_memory_fraction", &EngineFlags::free_gpu_memory_fraction,
                "TensorRT-LLM: share of the memory left after weights and buffers for KV (0: default 0.9)")
           .Add("max_num_batched_tokens", &EngineFlags::max_num_batched_tokens,
                "tokens one iteration may schedule, prompt chunks and decodes together, and the memory "
                "profile run's batch (TensorRT-LLM max_num_tokens; 0: engine default)")
           .Add("max_num_seqs", &EngineFlags::max_num_seqs,
                "sequences per batch (TensorRT-LLM max_batch_size; 0: engine default)")
           .Add("max_model_len", &EngineFlags::max_model_len,
                "context length served (0: the model's max_position_embeddings)")
           .Add("block_size", &EngineFlags::block_size,
                "tokens per KV block (0: engine default: vLLM 16, SGLang 1, TensorRT-LLM 32/64)")
           .Add("tensor_parallel_size", &EngineFlags::tensor_parallel_size, "tensor-parallel GPUs per replica")
           .Add("pipeline_parallel_size", &EngineFlags::pipeline_parallel_size, "pipeline stages per replica")
           .Add("num_gpu_blocks_override", &EngineFlags::num_gpu_blocks_override,
                "use this many KV blocks (vLLM's flag; 0: computed)")
           .Add("kv_cache_memory", &EngineFlags::kv_cache_memory,
                "KV bytes per GPU as the server reports them, skipping the profile (8GiB, 8.5e9, 8G)")
           .Add("enforce_eager", &EngineFlags::enforce_eager, "no CUDA graphs (vLLM's --enforce-eager)")
           .Add("enable_expert_parallel", &EngineFlags::enable_expert_parallel,
                "experts placed whole, num_experts / TP per GPU, instead of sharded by tensor parallelism "
                "(vLLM's --enable-expert-parallel; EP size = TP)")
           .Add("data_parallel_size", &EngineFlags::data_parallel_size,
                "vLLM's --data-parallel-size for a MoE model: this many attention ranks of --tensor-parallel-size "
                "GPUs each, with their own KV cache and batch, stepping together; experts over all their GPUs")
           .Add("enable_attention_dp", &EngineFlags::enable_attention_dp,
                "TensorRT-LLM's enable_attention_dp: --tensor-parallel-size attention ranks of one GPU each, "
                "with their own KV cache and batch; experts over all of them")
           .Add("enable_dp_attention", &EngineFlags::enable_dp_attention,
                "SGLang's --enable-dp-attention: --dp-size attention ranks of TP / dp-size GPUs each; experts "
                "over all TP GPUs")
           .Add("dp_size", &EngineFlags::dp_size, "SGLang's --dp-size, with --enable-dp-attention")
           .Add("expert_dispatch", &EngineFlags::expert_dispatch,
                "with --enable-expert-parallel: all-reduce (every GPU has every token, vLLM without data "
                "parallelism), all-to-all (dispatch and combine, as DeepEP) or all-gather (attention data-parallel "
                "ranks' tokens gathered, outputs reduce-scattered: the engines' default with ranks)")
           .Add("expert_imbalance", &EngineFlags::expert_imbalance,
                "with --enable-expert-parallel: routed rows on the busiest GPU over the mean (1: uniform)");
  return *group;
}

namespace {

// Unknown names are usage errors; a path that exists but does not parse is bad input.
absl::Status AsFlagError(absl::string_view flag, absl::string_view value, const absl::Status& status) {
  std::error_code error;
  if (!std::filesystem::exists(std::string(value), error)) {
    return UsageError(absl::StrCat("--", flag, ": ", status.message()));
  }
  return status;
}

absl::StatusOr<WeightFormat> ResolveWeightFormat(const FlagValues& flags, const ModelSpec& model) {
  const AccountingFlags accounting_flags = AccountingFlagGroup().Read(flags);
  const std::string weight_dtype = accounting_flags.weight_dtype;
  const std::string vllm_dtype = accounting_flags.dtype;
  const std::string quantization = accounting_flags.quantization;
  const int given = !weight_dtype.empty() + !(vllm_dtype.empty() || vllm_dtype == "auto") + !quantization.empty();
  if (given > 1) {
    return UsageError("give the weight format once: --weight-dtype, --dtype or --quantization");
  }
  // A checkpoint that ships quantized (config.json quantization_config) loads as such unless a
  // flag says otherwise, as the engines load it.
  absl::string_view name =
      model.checkpoint_quantization().empty() ? DTypeName(model.dtype()) : model.checkpoint_quantization();
  absl::string_view flag = "weight-dtype";
  if (!weight_dtype.empty()) name = weight_dtype;
  if (!vllm_dtype.empty() && vllm_dtype != "auto") {
    name = vllm_dtype;
    flag = "dtype";
  }
  if (!quantization.empty()) {
    const std::string q = absl::AsciiStrToLower(quantization);
    if (q != "fp8" && q != "awq" && q != "gptq" && q != "modelopt_fp4" && q != "nvfp4" && q != "mxfp4") {
      return UsageError(absl::StrCat("--quantization: unknown method '", quantization,
                                     "' (expected fp8, awq, gptq, modelopt_fp4, nvfp4 or mxfp4)"));
    }
    name = quantization;
    flag = "quantization";
  }
  absl::StatusOr<WeightFormat> format = ParseWeightFormat(name);
  if (!format.ok()) return UsageError(absl::StrCat("--", flag, ": ", format.status().message()));
  // The checkpoint's own format keeps its scope: gpt-oss quantizes only the experts, whether
  // the format is implied or named again (vLLM reads modules_to_not_convert either way).
  format->experts_only =
      model.checkpoint_quantizes_experts_only() && absl::AsciiStrToLower(name) == model.checkpoint_quantization();
  return format;
}

}  // namespace

const std::vector<absl::string_view>& AccountingFlagNames() {
  static const std::vector<absl::string_view> names = {
      "model", "gpu", "weight_dtype", "dtype", "quantization", "kv_cache_dtype", "params", "safetensors", "format"};
  return names;
}

absl::StatusOr<bool> WantJson(const FlagValues& flags) {
  const AccountingFlags accounting_flags = AccountingFlagGroup().Read(flags);
  const std::string format = accounting_flags.format;
  if (format == "json") return true;
  if (format == "table") return false;
  return UsageError(absl::StrCat("--format: expected table or json, got '", format, "'"));
}

std::vector<std::string> EngineFlagsGiven(const FlagValues& flags) {
  std::vector<std::string> given;
  for (const FlagSpec& spec : EngineFlagGroup().specs()) {
    if (spec.name == "engine") continue;  // names the engine, not one of its settings
    const std::string* text = flags.Given(spec.name);
    if (text != nullptr && *text != spec.default_text) given.push_back(absl::StrReplaceAll(spec.name, {{"_", "-"}}));
  }
  return given;
}

namespace {

// "8GiB", "512MiB", "8GB", "8.5e9", and vLLM's "8G" (binary) / "8g" (decimal).
absl::StatusOr<double> ParseByteSize(absl::string_view text) {
  const std::pair<absl::string_view, double> suffixes[] = {
      {"GiB", 1073741824.0}, {"MiB", 1048576.0}, {"KiB", 1024.0}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3},
      {"G", 1073741824.0},   {"M", 1048576.0},   {"K", 1024.0},   {"g", 1e9},  {"m", 1e6},  {"k", 1e3}};
  double scale = 1;
  absl::string_view number = text;
  for (const auto& [suffix, factor] : suffixes) {
    if (absl::EndsWith(text, suffix)) {
      number = text.substr(0, text.size() - suffix.size());
      scale = factor;
      break;
    }
  }
  double value = 0;
  if (!ParseDecimal(number, &value) || !(value > 0) || value * scale > 1e15) {
    return UsageError(
        absl::StrCat("--kv-cache-memory: expected a positive size such as 8GiB, "
                     "8.5e9 or 8G, got '",
                     text, "'"));
  }
  return value * scale;
}

// "128,131072": positive decimal integers, comma-separated.
absl::StatusOr<std::vector<int64_t>> ParseWindowList(absl::string_view text) {
  std::vector<int64_t> windows;
  if (text.empty()) return windows;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    int64_t window = 0;
    if (!IsDecimalNumber(part, false) || !absl::SimpleAtoi(part, &window) || window < 1 ||
        window >= (int64_t{1} << 31)) {
      return UsageError(
          absl::StrCat("--max-attention-window: expected window sizes in tokens separated by commas "
                       "(128,131072), got '",
                       text, "'"));
    }
    windows.push_back(window);
  }
  return windows;
}

absl::Status CheckFractionFlag(absl::string_view flag, double value, bool zero_is_default) {
  if ((zero_is_default && value == 0) || (value > 0 && value <= 1)) return absl::OkStatus();
  return UsageError(absl::StrCat("--", flag, "=", value, " is outside (0, 1]"));
}

// The engines' three spellings of attention data parallelism as ranks x GPUs per rank: vLLM's
// --data-parallel-size (ranks of TP GPUs), TensorRT-LLM's enable_attention_dp (TP ranks of one
// GPU) and SGLang's --enable-dp-attention --dp-size (dp-size ranks of TP / dp-size GPUs). Only
// MoE models synchronise their ranks; a dense model's ranks are independent replicas.
absl::Status ResolveAttentionDataParallel(const EngineFlags& f, const ModelSpec& model, MemoryPlanRequest* request) {
  const int spellings = (f.data_parallel_size != 1) + f.enable_attention_dp + f.enable_dp_attention;
  if (spellings > 1) {
    return UsageError(
        "--data-parallel-size, --enable-attention-dp and --enable-dp-attention are three engines' "
        "spellings of attention data parallelism: give one");
  }
  if (absl::Status s = CheckRange("data_parallel_size", f.data_parallel_size, 1, 1024); !s.ok()) return s;
  if (absl::Status s = CheckRange("dp_size", f.dp_size, 1, 1024); !s.ok()) return s;
  if (f.dp_size != 1 && !f.enable_dp_attention) {
    return UsageError("--dp-size without --enable-dp-attention runs independent replicas: use --num-replicas");
  }
  const int tp = request->tensor_parallel;
  int ranks = 1, rank_tp = tp;
  if (f.data_parallel_size > 1) {
    ranks = f.data_parallel_size;
  } else if (f.enable_attention_dp) {
    ranks = tp;
    rank_tp = 1;
  } else if (f.enable_dp_attention) {
    if (f.dp_size < 1 || tp % f.dp_size != 0) {
      return UsageError(absl::StrCat("--dp-size=", f.dp_size, " must divide --tensor-parallel-size=", tp,
                                     " (SGLang's attention ranks split the TP GPUs)"));
    }
    ranks = f.dp_size;
    rank_tp = tp / f.dp_size;
  }
  if (ranks > 1 && !model.has_moe()) {
    return UsageError(absl::StrCat("attention data parallelism: ", model.name(), " has no experts, so its ", ranks,
                                   " data-parallel ranks run independently: use --num-replicas"));
  }
  request->attention_data_parallel = ranks;
  request->tensor_parallel = rank_tp;
  return absl::OkStatus();
}

// The memory fractions, each in range and only the engine's own given (the others' would be
// silently ignored).
absl::Status ReadFractions(const EngineFlags& engine_flags, const EnginePersonality& personality,
                           MemoryPlanRequest& request) {
  request.gpu_memory_utilization = engine_flags.gpu_memory_utilization;
  request.mem_fraction_static = engine_flags.mem_fraction_static;
  request.free_gpu_memory_fraction = engine_flags.free_gpu_memory_fraction;
  if (absl::Status s = CheckFractionFlag("gpu-memory-utilization", request.gpu_memory_utilization, false); !s.ok())
    return s;
  if (absl::Status s = CheckFractionFlag("mem-fraction-static", request.mem_fraction_static, true); !s.ok()) return s;
  if (absl::Status s = CheckFractionFlag("free-gpu-memory-fraction", request.free_gpu_memory_fraction, true); !s.ok())
    return s;
  // Each engine has its own fraction; the others' would be silently ignored.
  const absl::string_view own = personality.fraction_flag();
  const std::pair<absl::string_view, bool> fraction_flags[] = {
      {"gpu_memory_utilization", request.gpu_memory_utilization != kDefaultGpuMemoryUtilization},
      {"mem_fraction_static", request.mem_fraction_static != 0},
      {"free_gpu_memory_fraction", request.free_gpu_memory_fraction != 0}};
  for (const auto& [flag, given] : fraction_flags) {
    if (given && flag != own) {
      return UsageError(absl::StrCat(DashedFlag(flag), " is not a ", personality.engine(), " flag; its fraction is ",
                                     DashedFlag(own)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MemoryPlanRequest> ResolveMemoryPlanRequest(const FlagValues& flags, const AccountingSetup& setup,
                                                           absl::string_view default_engine) {
  const EngineFlags engine_flags = EngineFlagGroup().Read(flags);
  MemoryPlanRequest request;
  request.model = setup.model;
  request.gpu = setup.gpu;
  request.weights = setup.weights;
  request.kv_dtype = setup.kv_dtype;
  std::string engine = engine_flags.engine;
  if (engine.empty()) engine = std::string(default_engine);
  absl::StatusOr<EnginePersonality> personality = ResolveEnginePersonality(engine);
  if (!personality.ok()) return UsageError(absl::StrCat("--engine: ", personality.status().message()));
  request.engine = engine;

  if (absl::Status s = ReadFractions(engine_flags, *personality, request); !s.ok()) return s;

  request.swa_full_tokens_ratio = engine_flags.swa_full_tokens_ratio;
  if (absl::Status s = CheckFractionFlag("swa-full-tokens-ratio", request.swa_full_tokens_ratio, true); !s.ok())
    return s;
  if (request.swa_full_tokens_ratio != 0 && personality->windowed_kv_cache() != SGLANG_HYBRID_SWA_POOL) {
    return UsageError(absl::StrCat("--swa-full-tokens-ratio is a flag of SGLang's hybrid SWA pool, which --engine=",
                                   PersonalityName(*personality), " does not have (sglang@0.5.3 does)"));
  }
  absl::StatusOr<std::vector<int64_t>> windows = ParseWindowList(engine_flags.max_attention_window);
  if (!windows.ok()) return windows.status();
  request.max_attention_window = *std::move(windows);
  if (!request.max_attention_window.empty() && personality->max_attention_window_source().empty()) {
    return UsageError(
        absl::StrCat("--max-attention-window is TensorRT-LLM's kv_cache_config.max_attention_window; "
                     "--engine=",
                     PersonalityName(*personality), " has no such setting"));
  }
  request.max_num_batched_tokens = engine_flags.max_num_batched_tokens;
  request.max_num_seqs = engine_flags.max_num_seqs;
  request.max_model_len = engine_flags.max_model_len;
  request.num_gpu_blocks_override = engine_flags.num_gpu_blocks_override;
  for (const auto& [flag, value] :
       {std::pair<absl::string_view, int64_t>{"max_num_batched_tokens", request.max_num_batched_tokens},
        {"max_num_seqs", request.max_num_seqs},
        {"max_model_len", request.max_model_len},
        {"num_gpu_blocks_override", request.num_gpu_blocks_override}}) {
    if (absl::Status s = CheckRange(flag, value, 0, kMaxEngineCount); !s.ok()) return s;
  }
  request.block_size = engine_flags.block_size;
  if (absl::Status s = CheckRange("block_size", request.block_size, 0, kMaxBlockSize); !s.ok()) return s;
  request.tensor_parallel = engine_flags.tensor_parallel_size;
  request.pipeline_parallel = engine_flags.pipeline_parallel_size;
  for (const auto& [flag, value] :
       {std::pair<absl::string_view, int64_t>{"tensor_parallel_size", request.tensor_parallel},
        {"pipeline_parallel_size", request.pipeline_parallel}}) {
    if (absl::Status s = CheckRange(flag, value, 1, kMaxParallelSize); !s.ok()) return s;
  }
  request.enable_cuda_graphs = !engine_flags.enforce_eager;
  request.expert_parallel = engine_flags.enable_expert_parallel;
  if (absl::Status s = ResolveAttentionDataParallel(engine_flags, setup.model, &request); !s.ok()) return s;
  const std::string kv_memory = engine_flags.kv_cache_memory;
  if (!kv_memory.empty()) {
    absl::StatusOr<double> bytes = ParseByteSize(kv_memory);
    if (!bytes.ok()) return bytes.status();
    request.kv_cache_memory_bytes = *bytes;
  }
  return request;
}

absl::StatusOr<AccountingSetup> ResolveAccountingSetup(const FlagValues& flags) {
  const AccountingFlags accounting_flags = AccountingFlagGroup().Read(flags);
  AccountingSetup setup;
  const std::string model_name = accounting_flags.model;
  absl::StatusOr<ModelSpec> model = ResolveModel(model_name);
  if (!model.ok()) return AsFlagError("model", model_name, model.status());
  setup.model = *std::move(model);

  const std::string gpu_name = accounting_flags.gpu;
  absl::StatusOr<GpuSpec> gpu = ResolveGpu(gpu_name);
  if (!gpu.ok()) return AsFlagError("gpu", gpu_name, gpu.status());
  setup.gpu = *std::move(gpu);

  absl::StatusOr<WeightFormat> weights = ResolveWeightFormat(flags, setup.model);
  if (!weights.ok()) return weights.status();
  setup.weights = *weights;
  setup.compute_dtype = ComputeDType(*weights, setup.gpu);

  const std::string kv = accounting_flags.kv_cache_dtype;
  if (kv == "auto") {
    setup.kv_dtype = setup.model.dtype();
  } else {
    absl::StatusOr<DType> kv_dtype = ParseDType(kv);
    if (!kv_dtype.ok()) return UsageError(absl::StrCat("--kv-cache-dtype: ", kv_dtype.status().message()));
    setup.kv_dtype = *kv_dtype;
  }

  ParameterCounts& params = setup.parameters;
  params.set_exact(static_cast<double>(CountParameters(setup.model).Total()));
  params.set_nominal(setup.model.nominal_parameters());
  params.set_active_per_token(static_cast<double>(ActiveParametersPerToken(setup.model)));
  const std::string safetensors = accounting_flags.safetensors;
  if (!safetensors.empty()) {
    absl::StatusOr<SafetensorsSummary> summary = ReadSafetensorsHeader(safetensors);
    if (!summary.ok()) return summary.status();
    params.set_checkpoint(static_cast<double>(summary->elements));
    setup.checkpoint_bytes = static_cast<double>(summary->bytes);
  }
  const std::string mode = accounting_flags.params;
  params.set_used(mode);
  if (mode == "exact") {
    params.set_count(params.exact());
  } else if (mode == "nominal") {
    if (params.nominal() <= 0) {
      return UsageError(
          absl::StrCat("--params=nominal: model '", setup.model.name(), "' has no nominal parameter count; use exact"));
    }
    params.set_count(params.nominal());
  } else if (mode == "checkpoint") {
    if (safetensors.empty()) return UsageError("--params=checkpoint needs --safetensors=FILE");
    params.set_count(params.checkpoint());
  } else {
    return UsageError(absl::StrCat("--params: expected exact, nominal or checkpoint, got '", mode, "'"));
  }
  // FLOPs use the parameters one token passes through, scaled like the count in use.
  if (mode != "exact" && params.exact() > 0) {
    params.set_active_per_token(params.active_per_token() * params.count() / params.exact());
  }
  setup.weight_bytes = WeightBytes(setup);
  return setup;
}

}  // namespace infergrid::cli
