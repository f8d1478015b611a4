#include "sim/core/memory_plan/trtllm_bench_tuning.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/units.h"
#include "models/parameter_count.h"

namespace infergrid {
namespace {

std::string Info(absl::string_view line) { return absl::StrCat("[TRT-LLM] [I] ", line); }
std::string Warning(absl::string_view line) { return absl::StrCat("[TRT-LLM] [W] ", line); }

// BYTES_PER_ELEM of tuning.py for the checkpoint's quant_algo; 0 where trtllm-bench does not
// tune it (TUNED_QUANTS in bench/build/build.py). Early releases: 1 for FP8, else 2, FP8 tuned.
double WeightBytes(const WeightFormat& w, bool early) {
  switch (w.dtype) {
    case DType::FP32:
    case DType::FP16:
    case DType::BF16: return 2.0;  // NO_QUANT (and None)
    case DType::FP8_E4M3: return 1.0;  // FP8, FP8_BLOCK_SCALES
    case DType::FP4_E2M1:
      // NVFP4 (16-value blocks) is tuned from the release that added it; MXFP4 never.
      return !early && w.group_size == 16 && !w.experts_only ? 0.5 : 0.0;
    default: return 0.0;  // int8, int4 (AWQ, GPTQ), fp8_e5m2: untuned
  }
}

// finetune_setting: round the raw estimate up to the sizes trtllm-bench builds with.
int64_t RoundBatchSize(double raw_bs) {
  if (raw_bs < 256) return std::max<int64_t>(64, 32 * static_cast<int64_t>(std::ceil(raw_bs / 32)));
  if (raw_bs < 1024) return 128 * static_cast<int64_t>(std::ceil(raw_bs / 128));
  return 256 * static_cast<int64_t>(std::ceil(raw_bs / 256));
}

int64_t RoundNumTokens(double raw_tokens) {
  if (raw_tokens < 4096) return std::max<int64_t>(2048, 256 * static_cast<int64_t>(std::ceil(raw_tokens / 256)));
  if (raw_tokens < 8192) return 512 * static_cast<int64_t>(std::ceil(raw_tokens / 512));
  return 1024 * static_cast<int64_t>(std::ceil(raw_tokens / 1024));
}

// tuning.py's estimate for a tuned quantization: the KV memory left after the weights, the
// requests of the dataset's mean length it holds, and the limits rounded from them.
void EstimateTunedLimits(const BenchTuning& rule, const TrtllmBenchTuningRequest& request, double weight_bytes,
                         TrtllmBenchChoice& c) {
  const bool early = rule.weights_in_decimal_gb();
  const TrtllmBenchDataset& d = request.dataset;
  const ModelSpec& m = request.model;
  const int tp = request.tensor_parallel, pp = request.pipeline_parallel;
  const double kv_bytes = request.kv_dtype == DType::FP8_E4M3 || request.kv_dtype == DType::FP8_E5M2 ? 1.0 : 2.0;
  const double gb_per_token = 2.0 * m.num_layers() * std::max(tp, m.num_kv_heads()) * m.head_dim() * kv_bytes / kGiB;
  const double params = static_cast<double>(CountParameters(m).Total());
  c.tuned = true;
  c.engine_size_gb = early ? params / 1e9 * weight_bytes : params * weight_bytes / kGiB;
  // get_device_memory(): NVML's total, which nvidia-smi prints as memory.total in MiB.
  c.total_gb = static_cast<double>(request.gpu.reported_total_mib()) / 1024.0 * tp * pp;
  c.available_gb = c.total_gb - c.engine_size_gb;
  c.fraction = rule.fraction_from_flag() && request.user_fraction > 0 ? request.user_fraction : rule.kv_fraction();
  c.cache_gb = c.available_gb * c.fraction;
  c.kv_max_tokens = c.cache_gb / gb_per_token;
  c.kv_max_requests = c.cache_gb / (gb_per_token * static_cast<double>(d.avg_isl + d.avg_osl));
  const double raw_bs = std::min<double>(c.kv_max_requests, rule.max_batch_size_cap()) / pp;
  const double raw_tokens = std::min<double>(
      raw_bs * (1.0 + static_cast<double>(d.avg_isl) / static_cast<double>(d.avg_osl)), rule.max_num_tokens_cap());
  c.max_batch_size = RoundBatchSize(raw_bs);
  c.max_num_tokens = RoundNumTokens(raw_tokens);
}

// tuning.py's log of the estimate (early releases log fewer lines at info level), its refusals
// and its warnings.
absl::Status LogTunedLimits(bool early, int64_t n_gpus, int num_layers, TrtllmBenchChoice& c) {
  if (!early) {
    c.log_lines.push_back(Info(absl::StrCat("Number of attention layers: ", num_layers)));
    c.log_lines.push_back(Info(absl::StrFormat("Estimated engine size: %.2f GB", c.engine_size_gb)));
  }
  c.log_lines.push_back(
      Info(absl::StrFormat("Estimated total available memory for KV cache: %.2f GB", c.available_gb)));
  c.log_lines.push_back(Info(absl::StrFormat("Estimated total KV cache memory: %.2f GB", c.cache_gb)));
  if (!early) c.log_lines.push_back(Info(absl::StrFormat("Estimated kv cache max tokens: %.2f", c.kv_max_tokens)));
  c.log_lines.push_back(
      Info(absl::StrFormat("Estimated max number of requests in KV cache memory: %.2f", c.kv_max_requests)));
  if (!early) {  // early releases log these two at debug level
    c.log_lines.push_back(Info(absl::StrCat("Estimated max batch size (after fine-tune): ", c.max_batch_size)));
    c.log_lines.push_back(Info(absl::StrCat("Estimated max num tokens (after fine-tune): ", c.max_num_tokens)));
  }
  if (c.total_gb < c.engine_size_gb) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "trtllm-bench: The model requires at least: %.2f GB, the total GPU memory of %.2f is insufficient.",
        c.engine_size_gb, c.total_gb));
  }
  if (c.kv_max_requests < 1) {
    return absl::FailedPreconditionError(
        "trtllm-bench: The amount of KV cache memory is insufficient to run this model. Please try with more GPUs.");
  }
  if (c.cache_gb / static_cast<double>(n_gpus) < 10.0) {
    c.log_lines.push_back(
        Warning("The KV cache memory per GPU is less than 10 GB. Performance may be undesirable. Please consider using "
                "a different mapping or more GPUs."));
  }
  if (c.kv_max_requests < 32) {
    c.log_lines.push_back(
        Warning("The maximum number of requests in the KV cache is too small. Performance may be undesirable. Please "
                "consider using more GPUs or a different mapping to process more concurrent requests."));
  }
  return absl::OkStatus();
}

// get_settings: the line that reports the settings, and (with chunked prefill off) the token
// budget raised to the longest prompt plus the batch.
void LogSettings(const BenchTuning& rule, const TrtllmBenchTuningRequest& request, TrtllmBenchChoice& c) {
  if (!rule.max_input_floor()) {
    c.log_lines.push_back(
        Info("Max batch size and max num tokens are not provided, use tuning heuristics or pre-defined setting from "
             "trtllm-bench."));
    return;
  }
  c.log_lines.push_back(Info(absl::StrCat(
      "Max batch size and max num tokens not provided. Using heuristics or pre-defined settings: max_batch_size=",
      c.max_batch_size, ", max_num_tokens=", c.max_num_tokens, ".")));
  if (request.chunked_prefill) return;
  // get_settings logs this whenever chunking is off, whether or not it raises anything.
  const int64_t max_isl = request.dataset.max_isl;
  c.log_lines.push_back(Warning(absl::StrCat("Chunked prefill is disabled, but max_num_tokens (", c.max_num_tokens,
                                             ") is less than the max ISL (", max_isl, "). Forcing max_num_tokens to ",
                                             max_isl + c.max_batch_size, ".")));
  c.max_num_tokens = std::max(c.max_num_tokens, max_isl + c.max_batch_size);
}

}  // namespace

absl::StatusOr<TrtllmBenchChoice> ChooseTrtllmBenchSettings(const BenchTuning& rule,
                                                            const TrtllmBenchTuningRequest& request,
                                                            int64_t fallback_batch_size, int64_t fallback_num_tokens) {
  if (!(rule.kv_fraction() > 0 && rule.kv_fraction() <= 1) || rule.max_batch_size_cap() <= 0 ||
      rule.max_num_tokens_cap() <= 0) {
    return absl::InternalError("the personality's bench_tuning needs kv_fraction in (0, 1] and positive caps");
  }
  const bool early = rule.weights_in_decimal_gb();
  const TrtllmBenchDataset& d = request.dataset;
  if (d.avg_isl <= 0 || d.avg_osl <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("trtllm-bench tuning needs a mean input and output length of at "
                     "least one token (got ",
                     d.avg_isl, " and ", d.avg_osl, ")"));
  }
  TrtllmBenchChoice c;
  const double weight_bytes = WeightBytes(request.weights, early);
  if (weight_bytes == 0) {
    c.max_batch_size = fallback_batch_size;
    c.max_num_tokens = fallback_num_tokens;
    c.log_lines.push_back(Warning(
        absl::StrCat("Using default settings because quant_algo not supported. max_batch_size: ", c.max_batch_size,
                     ", max_num_tokens: ", c.max_num_tokens, ".")));
  } else {
    EstimateTunedLimits(rule, request, weight_bytes, c);
    const absl::Status logged =
        LogTunedLimits(early, static_cast<int64_t>(request.tensor_parallel) * request.pipeline_parallel,
                       request.model.num_layers(), c);
    if (!logged.ok()) return logged;
  }
  LogSettings(rule, request, c);
  return c;
}

}  // namespace infergrid
