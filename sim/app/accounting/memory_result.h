// `infergrid memory`: the payload accounting of weights and KV cache against the capacity the
// device reports, and the arithmetic remainder (an upper bound on everything else, not free
// memory and not a capacity plan; engine capacity plans are a separate, later step).
#ifndef INFERGRID_SIM_APP_ACCOUNTING_MEMORY_RESULT_H_
#define INFERGRID_SIM_APP_ACCOUNTING_MEMORY_RESULT_H_

#include <cstdint>
#include <string>

#include "sim/app/cli/accounting_setup.h"
#include "sim/app/results/accounting_results.pb.h"

namespace infergrid {

MemoryResult BuildMemoryResult(const AccountingSetup& setup, int64_t context_tokens, int64_t batch);
std::string RenderMemoryTable(const MemoryResult& result, const AccountingSetup& setup);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_ACCOUNTING_MEMORY_RESULT_H_
