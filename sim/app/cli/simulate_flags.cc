#include "sim/app/cli/simulate_flags.h"

#include "hardware/topology.h"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/serving/router.h"
#include "sim/core/serving/scheduler.h"
#include "sim/core/simulator/simulation_settings.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/slo_flags.h"
#include "sim/app/cli/speculative_options.h"
#include "sim/app/cli/trace_flags.h"

namespace infergrid::cli {

namespace {

// The engine's batching policy and what its host does per iteration.
void AddSchedulingFlags(FlagGroup<SimulateFlags>& group) {
  group
      .AddEnum("scheduler", &SimulationSettings::scheduler, kSchedulerNames,
               "batching policy: vllm (continuous, prefill first), sglang (prefill first, prompts chunked), sarathi "
               "(chunked prefill, decodes first), orca "
               "(iteration-level, KV reserved), static (static batches); default: the engine's")
      .Add("chunk_size", &SimulationSettings::chunk_size,
           "sarathi: prefill chunk / token budget per iteration; sglang: new tokens per prefill iteration "
           "(SGLang's --chunked-prefill-size) (0: --max-num-batched-tokens)")
      .Within(0, int64_t{1} << 30)
      .Add("chunked_prefill_size", &SimulationSettings::chunked_prefill_size,
           "SGLang: new tokens per prefill iteration (-1: whole prompts, no chunking; 0: the engine's default for the "
           "GPU)")
      .Within(-1, int64_t{1} << 30)
      .Add("capacity_scheduler_policy", &SimulateFlags::capacity_scheduler_policy,
           "TensorRT-LLM: guaranteed_no_evict (a request starts only when its whole length fits; the default) or "
           "max_utilization (KV paged, the last started request paused when it runs out)")
      .Add("num_scheduler_steps", &SimulationSettings::num_scheduler_steps,
           "vLLM 0.6 multi-step scheduling: decode steps per scheduler call (0: the engine's default, 1)")
      .Within(0, 1024)
      .Add("multi_step_stream_outputs", &SimulationSettings::multi_step_stream_outputs,
           "vLLM multi-step: stream each step's tokens as it ends, as vLLM does when its CPU runs ahead of the "
           "GPU (false, the default: a group's tokens reach the client together at its end, as served under load)")
      .Add("stream_interval", &SimulationSettings::stream_interval,
           "tokens per streamed message (vLLM V1's and SGLang's --stream-interval, TensorRT-LLM's stream_interval): "
           "the first token is sent at once, then K at a time by the engine's rule (0: the engine's default, 1)")
      .Within(1, 1 << 20)
      .Add("disable_async_output_proc", &SimulateFlags::disable_async_output_proc,
           "vLLM V0 0.6: process outputs on the step's critical path")
      .Add("no_async_scheduling", &SimulateFlags::no_async_scheduling,
           "vLLM V1: schedule and prepare inputs before each forward")
      .Add("disable_overlap_schedule", &SimulateFlags::disable_overlap_schedule,
           "SGLang: run the scheduler after each batch, not under it")
      .Add("disable_overlap_scheduler", &SimulateFlags::disable_overlap_scheduler,
           "TensorRT-LLM PyTorch backend: no overlap scheduler")
      .Add("disable_custom_all_reduce", &SimulateFlags::disable_custom_all_reduce,
           "tensor-parallel all-reduces through NCCL only, not the engine's own one-shot/two-shot kernels")
      .Add("cpu_speed", &SimulationSettings::cpu_speed,
           "host CPU speed relative to the host of the host-time calibration (an A100 server of 2023-24; "
           "2 = twice as fast)")
      .Within(0.01, 100);
}

// The front end, noise, preemption, caching and the client's concurrency.
void AddServingFlags(FlagGroup<SimulateFlags>& group) {
  group
      .Add("front_end", &SimulationSettings::front_end,
           "model the serving front end (HTTP, tokenization, detokenization, streaming; the engine's processes "
           "and their CPU time, docs/engines.md#front-end); false: requests reach the engine when sent and "
           "tokens the client when produced. bench latency and throughput run the offline engine without one")
      .Add("front_end_file", &SimulationSettings::front_end_file,
           "a FrontEndModel textproto (the processes and their CPU costs, as in the engine personalities' "
           "execution.front_end) to use instead of the engine's front end")
      .Add("noise", &SimulationSettings::noise,
           "run-to-run variation: each iteration's time times a seeded lognormal factor (--iteration-noise) and "
           "each request sent a seeded random moment late (--send-jitter); same seed, same bytes. Default: on for "
           "bench serve, off otherwise")
      .Add("iteration_noise", &SimulationSettings::iteration_noise,
           "the standard deviation of the log of each iteration's time factor (0.01: the spread of "
           "vLLM CI's repeated latency runs); given without --noise, turns the noise on")
      .Within(0, 1)
      .Add("send_jitter", &SimulationSettings::send_jitter_s,
           "the client's mean delay in sending a request, seconds (exponential); given without --noise, turns the "
           "noise on")
      .Within(0, 60)
      .Add("api_server_count", &SimulationSettings::api_server_count,
           "vLLM V1: API server processes in front of the engine (0: the engine's default, 1)")
      .Within(0, 1024)
      .AddEnum("preemption_mode", &SimulationSettings::preemption, kPreemptionModeNames,
               "when KV blocks run out: recompute (drop and re-prefill) or swap (to host memory over PCIe)")
      .Add("swap_space", &SimulationSettings::swap_space_gib,
           "host memory for swapped-out KV blocks, GiB per GPU (vLLM's --swap-space)")
      .Within(0, 1e6)
      .Add("enable_prefix_caching", &SimulationSettings::prefix_caching,
           "reuse KV blocks of identical prompt prefixes (needs block hashes, e.g. Mooncake traces)")
      .Add("enable_cuda_graphs", &SimulationSettings::cuda_graphs,
           "CUDA graphs for decode (--noenable-cuda-graphs = eager launches)")
      .Add("max_concurrency", &SimulationSettings::max_concurrency,
           "a closed-loop client: at most this many requests in flight, the next sent when one "
           "finishes (0: open loop, every request at its arrival time)")
      .Within(0, int64_t{1} << 30);
}

// Autoscaling between --min-replicas and --num-replicas (docs/simulation.md#autoscaling).
void AddAutoscaleFlags(FlagGroup<SimulateFlags>& group) {
  group
      .Add("autoscale", &SimulationSettings::autoscale,
           "turn replicas on and off by a target, METRIC:TARGET: utilization:U (engine-busy fraction per "
           "active replica, U in (0, 1]) or queue:Q (requests waiting or running per active replica); "
           "empty: every replica serves the whole run")
      .Add("min_replicas", &SimulationSettings::min_replicas,
           "with --autoscale: replicas on at the start and at least (the most: --num-replicas)")
      .Within(1, kMaxSimulatedGpus)
      .Add("autoscale_interval", &SimulationSettings::autoscale_interval_s,
           "with --autoscale: seconds between the autoscaler's decisions")
      .Within(0.001, 86400)
      .Add("scale_down_delay", &SimulationSettings::scale_down_delay_s,
           "with --autoscale: seconds every decision must want fewer replicas before they are removed "
           "(Kubernetes HPA's scale-down stabilisation window)")
      .Within(0, 86400)
      .Add("replica_startup", &SimulationSettings::replica_startup_s,
           "with --autoscale: seconds from a scale-up to the new replica taking requests (empty: the "
           "weights per GPU read at 2 GB/s plus 30 s of engine start and CUDA-graph capture)")
      .Within(0, 86400);
}

// Replicas, routing, prefill/decode disaggregation and the cost model.
void AddDeploymentFlags(FlagGroup<SimulateFlags>& group) {
  group.Add("num_replicas", &SimulationSettings::num_replicas, "model replicas (each on --tensor-parallel-size GPUs)")
      .Within(1, kMaxSimulatedGpus)
      .AddEnum("router", &SimulationSettings::router, kRouterNames,
               "request routing: round-robin, least-outstanding or least-kv")
      .Add("pd", &SimulateFlags::pd,
           "prefill/decode disaggregation as xPyD: x prefill-only and y decode-only replicas (e.g. 2P6D; "
           "--num-replicas is then x + y); empty: every replica does both")
      .Add("kv_transfer_latency", &SimulationSettings::kv_transfer_latency_s,
           "with --pd: seconds added to each KV transfer (the connector's handshake, RDMA setup, the "
           "network's latency); links carry bandwidth only")
      .Within(0, 60)
      .Add("fabric_bandwidth", &SimulationSettings::fabric_bytes_per_s,
           "inter-node network bandwidth per GPU, each way, in B/s (50e9: one 400 Gb/s NIC per GPU; "
           "InfiniBand or RoCE)")
      .Within(1e6, 1e15)
      .Add("fabric_latency", &SimulationSettings::fabric_latency_s,
           "seconds added to a transfer that crosses the inter-node network (5e-6: an RDMA read "
           "through one InfiniBand or RoCE switch)")
      .Within(0, 1)
      .AddEnum("decode_router", &SimulationSettings::decode_router, kRouterNames,
               "with --pd: which decode replica a finished prefill's KV goes to (round-robin, "
               "least-outstanding or least-kv)")
      .AddEnum("cost_model", &SimulationSettings::cost_model, kCostModelNames,
               "iteration cost model: auto (calibrated when a profile exists for the GPU, else roofline), "
               "roofline or calibrated");
  AddAutoscaleFlags(group);
}

// The synthetic workload and the seed.
void AddWorkloadFlags(FlagGroup<SimulateFlags>& group) {
  group
      .Add("workload", &SimulateFlags::workload_preset,
           "synthetic workload preset when no --trace is given (azure-conv, azure-code, "
           "mooncake-conv, sharegpt, arxiv)")
      .Add("arrival", &SimulateFlags::arrival,
           "arrivals of a synthetic workload or a length table: poisson, gamma (with --cv) or constant "
           "(evenly spaced)")
      .Add("rate", &SimulateFlags::rate,
           "requests per second: the synthetic arrival rate (0: 5 req/s), or with --trace the mean "
           "rate to rescale the trace to (0: as recorded)")
      .Add("cv", &SimulateFlags::cv,
           "coefficient of variation of gamma inter-arrival times (other than 1 without --arrival: gamma)")
      .Add("rate_schedule", &SimulateFlags::rate_schedule,
           "arrivals that follow a curve (a Poisson process whose rate changes): DURATION_S:RATE,... "
           "repeated, e.g. a day as 21600:2,21600:6,21600:10,21600:6; with --rate the rates are the "
           "shape, scaled to that mean")
      .Add("input_len", &SimulateFlags::input_len,
           "synthetic prompt tokens: N, or fixed:N, uniform:LO:HI, lognormal:MU:SIGMA, zipf:S:MAX "
           "(replaces the preset's)")
      .Add("output_len", &SimulateFlags::output_len, "synthetic output tokens, as --input-len (replaces the preset's)")
      .Add("range_ratio", &SimulateFlags::range_ratio,
           "an integer --input-len/--output-len L drawn uniform on [floor(L(1-r)), ceil(L(1+r))], r in [0, 1) "
           "(vLLM's --random-range-ratio)")
      .Add("lengths", &SimulateFlags::lengths,
           "synthetic (input, output) pairs resampled from this length table or trace (arrivals from "
           "--arrival and --rate)")
      .Add("time_scale", &SimulateFlags::time_scale,
           "--trace: multiply every arrival time by this (0.1 = ten times the rate)")
      .Add("max_requests", &SimulateFlags::max_requests,
           "requests to simulate: the synthetic count (0: 1000), or the trace's first N (0: all)")
      .Add("seed", &SimulateFlags::seed, "seed of every random stream (synthetic workload)");
}

// What is written, and how the run is executed.
void AddOutputFlags(FlagGroup<SimulateFlags>& group) {
  group
      .Add("out", &SimulateOptions::out_dir,
           "write summary.json, requests.csv, iterations.csv and timeline.pftrace into this folder")
      .Add("outputs", &SimulateFlags::output_list,
           "with --out: the files to write, a comma list of summary, requests, iterations, timeline and "
           "fleet (fleet.csv, written only when listed; a sweep that needs only the metrics: --outputs=summary)")
      .Add("timeline_format", &SimulateFlags::timeline_format,
           "with --out: the timeline's format: perfetto (timeline.pftrace, Perfetto's protobuf trace) or "
           "json (timeline.json, Chrome trace-event JSON); both open in ui.perfetto.dev")
      .Add("compress", &SimulateFlags::compress,
           "with --out: none, or zstd to write requests.csv.zst and iterations.csv.zst (the same text, "
           "compressed; pandas.read_csv and `zstd -d` read them)")
      .Add("quiet", &SimulateFlags::quiet, "no progress line on stderr")
      .Add("coalesce", &SimulationSettings::coalesce,
           "execute runs of uninterruptible iterations as one SimGrid activity (same times, faster)")
      .Add("fleet_run_ahead", &SimulationSettings::fleet_run_ahead,
           "with several replicas: a replica's run ends at its own next arrival under --router=round-robin, "
           "not the next arrival anywhere, and replicas wait on one clock, not a SimGrid task each (same times "
           "to 1 ns as =false, 5-15x faster at 16-64 replicas; iterations.csv rows in another order)")
      .Add("cost_stride", &SimulationSettings::cost_stride,
           "price every Nth step of an unchanged decode batch with the cost model and interpolate "
           "the steps between (1: price every iteration)")
      .Within(1, 4096)
      .Add("timeline_max_iterations", &SimulateOptions::timeline_max_iterations,
           "iterations written to the timeline at most")
      .Within(0, int64_t{1} << 40)
      .Add("fleet_window", &SimulateOptions::fleet_window_s,
           "with --outputs listing fleet: fleet.csv's window, seconds of simulated time (one row each)")
      .Within(0.1, 1e6)
      .Add("record_wall_time", &SimulateOptions::record_wall_time,
           "put wall-clock time and events/s in summary.json (the only non-deterministic fields)")
      .Add("report", &SimulateOptions::report_path,
           "also write an HTML report of the run (charts, self-contained) to this file, all or "
           "nothing with --out's files (docs/report.md)");
}

}  // namespace

const FlagGroup<SimulateFlags>& SimulateFlagGroup() {
  static const FlagGroup<SimulateFlags>* group = [] {
    auto* declared = new FlagGroup<SimulateFlags>();
    AddSchedulingFlags(*declared);
    AddServingFlags(*declared);
    AddDeploymentFlags(*declared);
    AddWorkloadFlags(*declared);
    AddOutputFlags(*declared);
    return declared;
  }();
  return *group;
}

const CommandFlags& SimulationFlags() {
  static const CommandFlags* flags = [] {
    auto* taken = new CommandFlags();
    taken->Take(AccountingFlagGroup(), AccountingFlagNames())
        .Take(EngineFlagGroup())
        .Take(TraceFlagGroup())
        .Take(SpeculativeFlagGroup())
        .Take(SloFlagGroup())
        .Take(AccountingFlagGroup(), {"calibration"});
    // Simulate's own flags but its HTML report, which only `simulate` writes.
    std::vector<absl::string_view> own;
    for (const FlagSpec& spec : SimulateFlagGroup().specs()) {
      if (spec.name != "report") own.push_back(spec.name);
    }
    taken->Take(SimulateFlagGroup(), own);
    // TensorRT-LLM's spellings (trtllm-serve, trtllm-build, Triton's engine): the build's
    // max_batch_size is --max-num-seqs, its max_num_tokens --max-num-batched-tokens.
    taken->Alias({"max_batch_size", "max_num_seqs"}).Alias({"max_num_tokens", "max_num_batched_tokens"});
    // What the engine is for here: it runs (memory's prints its plan).
    taken->Help("engine",
                "serving engine to simulate: vllm-v1, vllm-v0, sglang or trtllm, optionally @version "
                "(vllm-v1@0.19, sglang@0.4.1, trtllm@cpp); its personality sets the defaults below");
    return taken;
  }();
  return *flags;
}

const std::vector<absl::string_view>& SimulationFileFlags() {
  static const std::vector<absl::string_view> names = {
      "out", "outputs", "timeline_format", "compress", "timeline_max_iterations", "fleet_window"};
  return names;
}

}  // namespace infergrid::cli
