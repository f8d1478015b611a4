// `infergrid roofline`: FLOPs and nominal HBM payload of one prefill pass or one decode step
// (the accounting lesson's formulas), their ratio, and the two lower bounds on time from
// datasheet peaks, with the larger one named. Bounds, not predictions: a kernel reaches
// neither ceiling, and which one binds is for measured or calibrated times to settle.
#ifndef INFERGRID_SIM_APP_ACCOUNTING_ROOFLINE_RESULT_H_
#define INFERGRID_SIM_APP_ACCOUNTING_ROOFLINE_RESULT_H_

#include <cstdint>
#include <string>

#include "sim/app/cli/accounting_setup.h"
#include "sim/app/results/accounting_results.pb.h"

namespace infergrid {

struct RooflineQuery {
  bool prefill = false;
  int64_t prompt_tokens = 0;  // prefill
  int64_t context_tokens = 0;  // decode
  int64_t batch = 1;
  bool causal = false;  // total uses the causal-halved attention term
};

RooflineResult BuildRooflineResult(const AccountingSetup& setup, const RooflineQuery& query);
std::string RenderRooflineTable(const RooflineResult& result, const AccountingSetup& setup);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_ACCOUNTING_ROOFLINE_RESULT_H_
