// The flags of `simulate` and `compare` beyond the accounting and engine-memory flags they share
// with `memory` (accounting_setup.h), the trace flags (trace_flags.h) and the SLO flags
// (slo_flags.h). Named as vLLM names them where vLLM has the concept.
#ifndef INFERGRID_SIM_APP_CLI_SIMULATE_FLAGS_H_
#define INFERGRID_SIM_APP_CLI_SIMULATE_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "hardware/topology.h"
#include "sim/app/cli/flag_group.h"
#include "sim/app/cli/simulate_options.h"

namespace infergrid::cli {

// The flags of the simulation beyond the accounting, engine, trace, speculative and SLO groups.
// Most bind a member of SimulateOptions directly (a setting of SimulationSettings, or a product
// option: files, the report): its default is that member's initializer and its range is
// declared with it (simulate_flags.cc). The members below are the flags whose text is
// translated into settings by ReadSimulateOptions (simulate_options.cc): one flag that sets
// two settings (--pd), flags that switch one behaviour off in each engine's spelling, the
// workload's flags (which mean different things with and without --trace) and the file list.
struct SimulateFlags : SimulateOptions {
  std::string capacity_scheduler_policy;  // guaranteed_no_evict
  // Each switches an overlap off: overlap_disabled_by.
  bool disable_async_output_proc = false;
  bool no_async_scheduling = false;
  bool disable_overlap_schedule = false;
  bool disable_overlap_scheduler = false;
  bool disable_custom_all_reduce = false;  // custom_all_reduce
  std::string pd;  // xPyD: prefill_replicas and num_replicas
  // The workload (workload_options.cc).
  std::string workload_preset = "azure-conv";  // --workload
  std::string arrival = "poisson";
  double rate = 0;
  double cv = 1;
  std::string rate_schedule;
  std::string input_len;
  std::string output_len;
  double range_ratio = 0;
  std::string lengths;
  double time_scale = 1;
  int64_t max_requests = 0;
  uint64_t seed = 0;
  // The files (outputs).
  std::string output_list = "summary,requests,iterations,timeline";  // --outputs
  std::string timeline_format = "perfetto";
  std::string compress = "none";
  bool quiet = false;  // progress
};
const FlagGroup<SimulateFlags>& SimulateFlagGroup();

// The flags of every command that runs simulations (simulate, compare, plan, a sweep's points):
// accounting, engine memory, trace, speculative, SLO and SimulateFlags but --report.
const CommandFlags& SimulationFlags();

// The SimulationFlags about simulate's files (--out and what it writes there: --outputs,
// --timeline-format, --compress, --timeline-max-iterations): compare and plan leave them out,
// since their simulations write no files (their own --out is another flag).
const std::vector<absl::string_view>& SimulationFileFlags();

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_SIMULATE_FLAGS_H_
