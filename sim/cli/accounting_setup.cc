#include "sim/cli/accounting_setup.h"

#include <filesystem>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "hardware/gpu_catalog.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "models/safetensors_header.h"
#include "sim/cli/command_line.h"

ABSL_FLAG(std::string, model, "llama-3-8b",
          "catalog model name, or a path to a Hugging Face config.json or a ModelSpec .textproto");
ABSL_FLAG(std::string, gpu, "h100-sxm", "catalog GPU name, or a path to a GpuSpec .textproto");
ABSL_FLAG(std::string, weight_dtype, "",
          "weight format: fp32, fp16, bf16, fp8, int8, int4 (raw floor), int4-g<N>, awq, gptq "
          "(default: the model's dtype)");
ABSL_FLAG(std::string, dtype, "", "vLLM's --dtype: the unquantized weight dtype (auto, bf16, fp16, fp32)");
ABSL_FLAG(std::string, quantization, "", "vLLM's --quantization: fp8, awq or gptq");
ABSL_FLAG(std::string, kv_cache_dtype, "auto",
          "KV cache dtype: auto (the model's dtype), fp16, bf16, fp8 (= fp8_e4m3), fp8_e4m3, "
          "fp8_e5m2, int8, int4");
ABSL_FLAG(std::string, params, "exact",
          "parameter count: exact (from the architecture), nominal (the published round figure), "
          "or checkpoint (from --safetensors)");
ABSL_FLAG(std::string, safetensors, "",
          "a .safetensors file (or a folder of them): count parameters from its header");
ABSL_FLAG(int64_t, context, 8192, "context length S in tokens (KV cache held per sequence)");
ABSL_FLAG(int64_t, batch, 1, "number of sequences B");
ABSL_FLAG(int64_t, prompt, 2048, "prompt length P in tokens (prefill)");
ABSL_FLAG(std::string, format, "table", "output: table or json");

namespace infergrid::cli {
namespace {

// Unknown names are usage errors; a path that exists but does not parse is bad input.
absl::Status AsFlagError(absl::string_view flag, absl::string_view value, const absl::Status& status) {
  std::error_code error;
  if (!std::filesystem::exists(std::string(value), error)) {
    return UsageError(absl::StrCat("--", flag, ": ", status.message()));
  }
  return status;
}

absl::StatusOr<WeightFormat> ResolveWeightFormat(const ModelSpec& model) {
  const std::string weight_dtype = absl::GetFlag(FLAGS_weight_dtype);
  const std::string vllm_dtype = absl::GetFlag(FLAGS_dtype);
  const std::string quantization = absl::GetFlag(FLAGS_quantization);
  const int given = !weight_dtype.empty() + !(vllm_dtype.empty() || vllm_dtype == "auto") +
                    !quantization.empty();
  if (given > 1) {
    return UsageError("give the weight format once: --weight-dtype, --dtype or --quantization");
  }
  absl::string_view name = DTypeName(model.dtype());
  absl::string_view flag = "weight-dtype";
  if (!weight_dtype.empty()) name = weight_dtype;
  if (!vllm_dtype.empty() && vllm_dtype != "auto") {
    name = vllm_dtype;
    flag = "dtype";
  }
  if (!quantization.empty()) {
    const std::string q = absl::AsciiStrToLower(quantization);
    if (q != "fp8" && q != "awq" && q != "gptq") {
      return UsageError(absl::StrCat("--quantization: unknown method '", quantization,
                                     "' (expected fp8, awq or gptq)"));
    }
    name = quantization;
    flag = "quantization";
  }
  absl::StatusOr<WeightFormat> format = ParseWeightFormat(name);
  if (!format.ok()) return UsageError(absl::StrCat("--", flag, ": ", format.status().message()));
  return format;
}

}  // namespace

const std::vector<absl::string_view>& AccountingFlagNames() {
  static const std::vector<absl::string_view> names = {
      "model", "gpu", "weight_dtype", "dtype", "quantization", "kv_cache_dtype", "params",
      "safetensors", "format"};
  return names;
}

absl::Status CheckRange(absl::string_view flag, int64_t value, int64_t minimum, int64_t maximum) {
  if (value >= minimum && value <= maximum) return absl::OkStatus();
  std::string dashed(flag);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  return UsageError(absl::StrCat("--", dashed, "=", value, " is out of range (", minimum, "..",
                                 maximum, ")"));
}

absl::StatusOr<bool> WantJson() {
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format == "json") return true;
  if (format == "table") return false;
  return UsageError(absl::StrCat("--format: expected table or json, got '", format, "'"));
}

absl::StatusOr<AccountingSetup> ResolveAccountingSetup() {
  AccountingSetup setup;
  const std::string model_name = absl::GetFlag(FLAGS_model);
  absl::StatusOr<ModelSpec> model = ResolveModel(model_name);
  if (!model.ok()) return AsFlagError("model", model_name, model.status());
  setup.model = *std::move(model);

  const std::string gpu_name = absl::GetFlag(FLAGS_gpu);
  absl::StatusOr<GpuSpec> gpu = ResolveGpu(gpu_name);
  if (!gpu.ok()) return AsFlagError("gpu", gpu_name, gpu.status());
  setup.gpu = *std::move(gpu);

  absl::StatusOr<WeightFormat> weights = ResolveWeightFormat(setup.model);
  if (!weights.ok()) return weights.status();
  setup.weights = *weights;
  setup.compute_dtype =
      (weights->dtype == DType::FP8_E4M3 || weights->dtype == DType::FP8_E5M2) ? DType::FP8_E4M3
      : weights->dtype == DType::FP32                                          ? DType::FP32
                                                                               : DType::BF16;

  const std::string kv = absl::GetFlag(FLAGS_kv_cache_dtype);
  if (kv == "auto") {
    setup.kv_dtype = setup.model.dtype();
  } else {
    absl::StatusOr<DType> kv_dtype = ParseDType(kv);
    if (!kv_dtype.ok()) return UsageError(absl::StrCat("--kv-cache-dtype: ", kv_dtype.status().message()));
    setup.kv_dtype = *kv_dtype;
  }

  ParameterReport& params = setup.parameters;
  params.set_exact(static_cast<double>(CountParameters(setup.model).Total()));
  params.set_nominal(setup.model.nominal_parameters());
  params.set_active_per_token(static_cast<double>(ActiveParametersPerToken(setup.model)));
  const std::string safetensors = absl::GetFlag(FLAGS_safetensors);
  if (!safetensors.empty()) {
    absl::StatusOr<SafetensorsSummary> summary = ReadSafetensorsHeader(safetensors);
    if (!summary.ok()) return summary.status();
    params.set_checkpoint(static_cast<double>(summary->elements));
    setup.checkpoint_bytes = static_cast<double>(summary->bytes);
  }
  const std::string mode = absl::GetFlag(FLAGS_params);
  params.set_used(mode);
  if (mode == "exact") {
    params.set_count(params.exact());
  } else if (mode == "nominal") {
    if (params.nominal() <= 0) {
      return UsageError(absl::StrCat("--params=nominal: model '", setup.model.name(),
                                     "' has no nominal parameter count; use exact"));
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
  // A checkpoint's bytes are known exactly (packed int4, scales and all); else count x format.
  setup.weight_bytes = mode == "checkpoint" ? setup.checkpoint_bytes
                                            : params.count() * setup.weights.BytesPerParameter();
  return setup;
}

}  // namespace infergrid::cli
