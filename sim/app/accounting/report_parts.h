// Pieces shared by the accounting reports: the parameter and weight sections and their notes.
#ifndef INFERGRID_SIM_APP_ACCOUNTING_REPORT_PARTS_H_
#define INFERGRID_SIM_APP_ACCOUNTING_REPORT_PARTS_H_

#include <string>

#include "google/protobuf/repeated_ptr_field.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/results/accounting_reports.pb.h"

namespace infergrid {

WeightReport BuildWeightReport(const AccountingSetup& setup);
// "8.00e9 (nominal; exact from the architecture: 8,030,261,248)"
std::string ParameterLine(const ParameterReport& parameters);
// "bf16, 2 B/param" (+ "raw 4-bit floor" where it applies)
std::string WeightLine(const WeightReport& weights);
void AddParameterNotes(const AccountingSetup& setup, google::protobuf::RepeatedPtrField<std::string>* notes);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_ACCOUNTING_REPORT_PARTS_H_
