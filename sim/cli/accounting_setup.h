// The flags shared by the accounting commands (memory, roofline) and their resolution into a
// model, a GPU, a weight format, a KV cache dtype and the parameter count to use. Flags are
// named as vLLM names them where vLLM has the concept.
#ifndef INFERGRID_SIM_CLI_ACCOUNTING_SETUP_H_
#define INFERGRID_SIM_CLI_ACCOUNTING_SETUP_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "hardware/hardware_spec.pb.h"
#include "models/dtype.h"
#include "models/model_spec.pb.h"
#include "sim/reports.pb.h"

ABSL_DECLARE_FLAG(std::string, model);
ABSL_DECLARE_FLAG(std::string, gpu);
ABSL_DECLARE_FLAG(std::string, weight_dtype);
ABSL_DECLARE_FLAG(std::string, dtype);
ABSL_DECLARE_FLAG(std::string, quantization);
ABSL_DECLARE_FLAG(std::string, kv_cache_dtype);
ABSL_DECLARE_FLAG(std::string, params);
ABSL_DECLARE_FLAG(std::string, safetensors);
ABSL_DECLARE_FLAG(int64_t, context);
ABSL_DECLARE_FLAG(int64_t, batch);
ABSL_DECLARE_FLAG(int64_t, prompt);
ABSL_DECLARE_FLAG(std::string, format);

namespace infergrid::cli {

struct AccountingSetup {
  ModelSpec model;
  GpuSpec gpu;
  WeightFormat weights;
  DType kv_dtype = DType::BF16;
  DType compute_dtype = DType::BF16;  // tensor-core math: fp8 for fp8 weights, else bf16/fp16
  ParameterReport parameters;         // counts, and which one is used
  double weight_bytes = 0;
  double checkpoint_bytes = 0;        // payload bytes in --safetensors (0: none)
};

// The flags every accounting command takes.
const std::vector<absl::string_view>& AccountingFlagNames();

// Resolves the flags; errors are usage errors (exit 2) for bad flag values and input errors
// (exit 1) for unreadable or malformed files.
absl::StatusOr<AccountingSetup> ResolveAccountingSetup();

// Checks a size flag is in [minimum, maximum]; a usage error names the flag otherwise.
absl::Status CheckRange(absl::string_view flag, int64_t value, int64_t minimum, int64_t maximum);

// --format: "table" or "json".
absl::StatusOr<bool> WantJson();

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_CLI_ACCOUNTING_SETUP_H_
