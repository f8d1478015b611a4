// `infergrid memory --engine=...`: the engine's KV-cache plan as a result (EngineMemoryResult
// in sim/app/results/accounting_results.proto, bytes and tokens) and as a terminal table, term
// by term in GiB the way the engine logs it, followed by the predicted startup-log lines.
#ifndef INFERGRID_SIM_APP_ACCOUNTING_ENGINE_MEMORY_RESULT_H_
#define INFERGRID_SIM_APP_ACCOUNTING_ENGINE_MEMORY_RESULT_H_

#include <string>

#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/memory_plan/memory_plan_detail.h"
#include "sim/app/results/accounting_results.pb.h"

namespace infergrid {

EngineMemoryResult BuildEngineMemoryResult(const MemoryPlanRequest& request, const MemoryPlanDetail& detail);
std::string RenderEngineMemoryTable(const EngineMemoryResult& result, const ModelSpec& model, const GpuSpec& gpu);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_ACCOUNTING_ENGINE_MEMORY_RESULT_H_
