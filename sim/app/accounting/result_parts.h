// Pieces shared by the accounting results: the parameter and weight sections and their notes.
#ifndef INFERGRID_SIM_APP_ACCOUNTING_RESULT_PARTS_H_
#define INFERGRID_SIM_APP_ACCOUNTING_RESULT_PARTS_H_

#include <string>

#include "google/protobuf/repeated_ptr_field.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/results/accounting_results.pb.h"

namespace infergrid {

WeightStorage BuildWeightStorage(const AccountingSetup& setup);
// "8.00e9 (nominal; exact from the architecture: 8,030,261,248)"
std::string ParameterLine(const ParameterCounts& parameters);
// "bf16, 2 B/param" (+ "raw 4-bit floor" where it applies)
std::string WeightLine(const WeightStorage& weights);
void AddParameterNotes(const AccountingSetup& setup, google::protobuf::RepeatedPtrField<std::string>* notes);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_ACCOUNTING_RESULT_PARTS_H_
