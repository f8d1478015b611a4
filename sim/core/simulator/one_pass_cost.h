// One forward pass of a resolved setup priced by the calibrated cost model, with and without
// CUDA graphs: what `infergrid roofline` prints next to its peak-based bounds. The kernels run
// in the setup's weight, KV and compute dtypes, activations in the model's half-precision
// dtype (fp16 for an fp16 model, else bf16; the compute dtype when it is a half type).
#ifndef INFERGRID_SIM_CORE_SIMULATOR_ONE_PASS_COST_H_
#define INFERGRID_SIM_CORE_SIMULATOR_ONE_PASS_COST_H_

#include "absl/status/statusor.h"
#include "calibration/calibration.pb.h"
#include "models/iteration_kernels.h"
#include "sim/core/cost/iteration_cost.h"
#include "sim/core/simulator/accounting_setup.h"

namespace infergrid {

struct OnePassCost {
  IterationCost graphs;  // launched as CUDA graphs
  double eager_duration_s = 0;  // launched kernel by kernel
};

// Errors when the model cannot be laid out as kernels (never for catalog models).
absl::StatusOr<OnePassCost> PriceOnePass(const AccountingSetup& setup, const BatchShape& batch,
                                         const Calibration& calibration);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SIMULATOR_ONE_PASS_COST_H_
