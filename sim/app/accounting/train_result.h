// `infergrid train`: training FLOPs by the 6*N*D rule, the Chinchilla compute-optimal token
// count (an assumption: ~20 tokens per parameter), and the wall time on G GPUs of a catalog
// kind at an MFU or an effective per-GPU rate; with --target-days, what one change (GPU count,
// rate, tokens, FLOPs per parameter-token) would make the run take that long.
#ifndef INFERGRID_SIM_APP_ACCOUNTING_TRAIN_RESULT_H_
#define INFERGRID_SIM_APP_ACCOUNTING_TRAIN_RESULT_H_

#include <string>

#include "hardware/hardware_spec.pb.h"
#include "models/model_spec.pb.h"
#include "sim/app/results/train_result.pb.h"

namespace infergrid {

struct TrainingQuery {
  // N and its description; the model (empty name when N came from --params-count).
  ModelSpec model;
  double parameters = 0;
  double total_parameters = 0;
  std::string parameters_source;
  double tokens = 0;  // 0: compute-optimal
  double tokens_per_parameter = 20;  // the Chinchilla assumption
  GpuSpec gpu;
  int num_gpus = 1;
  double mfu = 0;  // one of these two is > 0
  double effective_flops_per_gpu = 0;
  double target_days = 0;  // 0: none
  int sequence_length = 0;  // 0: no attention add-on
};

TrainingResult BuildTrainingResult(const TrainingQuery& query);
std::string RenderTrainingTable(const TrainingResult& result, const GpuSpec& gpu);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_ACCOUNTING_TRAIN_RESULT_H_
