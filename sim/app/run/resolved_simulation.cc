#include "sim/app/run/resolved_simulation.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/enum_names.h"
#include "sim/core/personality/personality_catalog.h"

namespace infergrid {
namespace {

// Everything needed to rerun the simulation, as summary.json echoes it.
// "tokenizer_manager x1 + detokenizer x1", or "off".
std::string DescribeFrontEnd(const FrontEndSpec& f) {
  if (!f.enabled()) return "off";
  std::string out;
  for (const FrontEndProcess& p : f.processes) {
    absl::StrAppend(&out, out.empty() ? "" : " + ", p.name, " x", p.servers);
  }
  if (f.in_engine_process) absl::StrAppend(&out, " (in the engine's process)");
  return out;
}

SimulationConfig BuildConfigEcho(const cli::SimulateOptions& o, const EngineConfig& e) {
  const WorkloadSettings& w = o.workload;
  const bool synthetic = w.trace.empty();
  SimulationConfig k;
  k.set_command_line(o.command_line);
  k.set_model(o.setup.model.name());
  k.set_gpu(o.setup.gpu.name());
  k.set_weight_dtype(o.setup.weights.label.empty() ? std::string(DTypeName(o.setup.weights.dtype))
                                                   : o.setup.weights.label);
  k.set_kv_cache_dtype(std::string(DTypeName(o.setup.kv_dtype)));
  k.set_num_replicas(o.num_replicas);
  k.set_tensor_parallel_size(o.memory.tensor_parallel);
  k.set_attention_data_parallel(o.memory.attention_data_parallel);
  k.set_router(std::string(NameOf(kRouterNames, o.router)));
  k.set_scheduler(std::string(NameOf(kSchedulerNames, e.scheduler)));
  k.set_max_num_seqs(static_cast<int32_t>(e.limits.max_num_seqs));
  k.set_max_num_batched_tokens(static_cast<int32_t>(e.limits.max_num_batched_tokens));
  k.set_chunk_size(static_cast<int32_t>(e.limits.chunk_size));
  k.set_block_size(e.blocks.block_size);
  k.set_gpu_memory_utilization(o.memory.gpu_memory_utilization);
  k.set_max_model_len(static_cast<int32_t>(e.max_model_len));
  k.set_enable_cuda_graphs(o.cuda_graphs);
  k.set_enable_prefix_caching(o.prefix_caching);
  k.set_preemption_mode(std::string(NameOf(kPreemptionModeNames, o.preemption)));
  k.set_swap_space_gib(o.swap_space_gib);
  k.set_cost_model(std::string(NameOf(kCostModelNames, o.cost_model)));
  const SyntheticWorkloadSpec& spec = w.synthetic;
  const bool preset_unused =
      !spec.lengths_trace.empty() || (!spec.input_lengths.empty() && !spec.output_lengths.empty());
  k.set_workload(!synthetic ? "trace" : preset_unused ? "lengths" : spec.preset);
  k.set_trace(w.trace);
  k.set_trace_format(w.trace_options.format);
  // A length table given as --trace takes the synthetic arrival process.
  const bool generated_arrivals = synthetic || w.trace_without_times;
  k.set_arrival(generated_arrivals ? spec.arrival : "");
  k.set_rate(generated_arrivals ? spec.rate_per_s : w.trace_rate);
  k.set_cv(generated_arrivals ? spec.cv : 0);
  if (synthetic) {
    k.set_input_lengths(spec.input_lengths);
    k.set_output_lengths(spec.output_lengths);
    k.set_lengths(spec.lengths_trace);
  }
  k.set_time_scale(w.time_scale);
  k.set_max_requests(static_cast<int32_t>(synthetic ? w.synthetic.num_requests : w.max_requests));
  k.set_seed(w.synthetic.seed);
  k.set_slo_ttft_s(o.slo_ttft_s);
  k.set_slo_tpot_s(o.slo_tpot_s);
  k.set_coalesce(o.coalesce);
  k.set_cost_stride(o.cost_stride);
  k.set_max_concurrency(static_cast<int32_t>(o.max_concurrency));
  k.set_front_end(DescribeFrontEnd(e.front_end));
  k.set_iteration_noise(e.noise.iteration_sigma);
  k.set_send_jitter_s(e.noise.send_jitter_s);
  return k;
}

}  // namespace

absl::StatusOr<ResolvedSimulation> ResolveSimulationOptions(const cli::SimulateOptions& options) {
  absl::StatusOr<SimulationSetup> setup = ResolveSimulation(options);
  if (!setup.ok()) return setup.status();
  ResolvedSimulation resolved;
  resolved.options = options;
  resolved.setup = *std::move(setup);
  resolved.config = BuildConfigEcho(options, resolved.setup.engine);
  resolved.config.set_engine(PersonalityName(resolved.setup.personality));
  resolved.config.set_engine_requested(options.memory.engine);
  return resolved;
}

}  // namespace infergrid
