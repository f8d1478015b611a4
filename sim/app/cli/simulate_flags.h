// The flags of `simulate` and `compare` beyond the accounting and engine-memory flags they share
// with `memory` (accounting_setup.h), the trace flags (trace_flags.h) and the SLO flags
// (slo_flags.h). Named as vLLM names them where vLLM has the concept.
#ifndef INFERGRID_SIM_APP_CLI_SIMULATE_FLAGS_H_
#define INFERGRID_SIM_APP_CLI_SIMULATE_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/strings/string_view.h"

ABSL_DECLARE_FLAG(std::string, scheduler);
ABSL_DECLARE_FLAG(int64_t, chunk_size);
ABSL_DECLARE_FLAG(int64_t, chunked_prefill_size);
ABSL_DECLARE_FLAG(std::string, capacity_scheduler_policy);
ABSL_DECLARE_FLAG(int32_t, num_scheduler_steps);
ABSL_DECLARE_FLAG(bool, multi_step_stream_outputs);
ABSL_DECLARE_FLAG(bool, disable_async_output_proc);
ABSL_DECLARE_FLAG(bool, no_async_scheduling);
ABSL_DECLARE_FLAG(bool, disable_overlap_schedule);
ABSL_DECLARE_FLAG(bool, disable_overlap_scheduler);
ABSL_DECLARE_FLAG(bool, disable_custom_all_reduce);
ABSL_DECLARE_FLAG(double, cpu_speed);
ABSL_DECLARE_FLAG(bool, front_end);
ABSL_DECLARE_FLAG(bool, noise);
ABSL_DECLARE_FLAG(double, iteration_noise);
ABSL_DECLARE_FLAG(double, send_jitter);
ABSL_DECLARE_FLAG(std::string, front_end_file);
ABSL_DECLARE_FLAG(int32_t, api_server_count);
ABSL_DECLARE_FLAG(std::string, preemption_mode);
ABSL_DECLARE_FLAG(double, swap_space);
ABSL_DECLARE_FLAG(bool, enable_prefix_caching);
ABSL_DECLARE_FLAG(bool, enable_cuda_graphs);
ABSL_DECLARE_FLAG(int64_t, max_concurrency);
ABSL_DECLARE_FLAG(int32_t, num_replicas);
ABSL_DECLARE_FLAG(std::string, router);
ABSL_DECLARE_FLAG(std::string, pd);
ABSL_DECLARE_FLAG(std::string, decode_router);
ABSL_DECLARE_FLAG(double, kv_transfer_latency);
ABSL_DECLARE_FLAG(double, fabric_bandwidth);
ABSL_DECLARE_FLAG(double, fabric_latency);
ABSL_DECLARE_FLAG(std::string, cost_model);
ABSL_DECLARE_FLAG(std::string, workload);
ABSL_DECLARE_FLAG(std::string, arrival);
ABSL_DECLARE_FLAG(double, rate);
ABSL_DECLARE_FLAG(double, cv);
ABSL_DECLARE_FLAG(double, time_scale);
ABSL_DECLARE_FLAG(int64_t, max_requests);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(std::string, out);
ABSL_DECLARE_FLAG(std::string, outputs);
ABSL_DECLARE_FLAG(std::string, timeline_format);
ABSL_DECLARE_FLAG(std::string, compress);
ABSL_DECLARE_FLAG(bool, quiet);
ABSL_DECLARE_FLAG(bool, coalesce);
ABSL_DECLARE_FLAG(int32_t, cost_stride);
ABSL_DECLARE_FLAG(int64_t, timeline_max_iterations);
ABSL_DECLARE_FLAG(bool, record_wall_time);
ABSL_DECLARE_FLAG(std::string, report);

namespace infergrid::cli {

// Every flag `simulate` accepts (accounting, engine memory, trace, SLO and the ones above).
const std::vector<absl::string_view>& SimulateFlagNames();

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_SIMULATE_FLAGS_H_
