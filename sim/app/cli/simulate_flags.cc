#include "sim/app/cli/simulate_flags.h"

#include "absl/flags/flag.h"
#include "hardware/topology.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/speculative_options.h"
#include "sim/app/cli/trace_flags.h"

ABSL_FLAG(std::string, scheduler, "",
          "batching policy: vllm (continuous, prefill first), sglang (prefill first, prompts chunked), sarathi "
          "(chunked prefill, decodes first), orca "
          "(iteration-level, KV reserved), static (static batches); default: the engine's");
ABSL_FLAG(int64_t, chunk_size, 0,
          "sarathi: prefill chunk / token budget per iteration; sglang: new tokens per prefill iteration "
          "(SGLang's --chunked-prefill-size) (0: --max-num-batched-tokens)");
ABSL_FLAG(int64_t, chunked_prefill_size, 0,
          "SGLang: new tokens per prefill iteration (-1: whole prompts, no chunking; 0: the engine's default for the GPU)");
ABSL_FLAG(std::string, capacity_scheduler_policy, "",
          "TensorRT-LLM: guaranteed_no_evict (a request starts only when its whole length fits; the default) or "
          "max_utilization (KV paged, the last started request paused when it runs out)");
ABSL_FLAG(int32_t, num_scheduler_steps, 0,
          "vLLM 0.6 multi-step scheduling: decode steps per scheduler call (0: the engine's default, 1)");
ABSL_FLAG(bool, multi_step_stream_outputs, true,
          "vLLM multi-step: stream each step's tokens (false: a group's tokens leave together at its end)");
ABSL_FLAG(bool, disable_async_output_proc, false, "vLLM V0 0.6: process outputs on the step's critical path");
ABSL_FLAG(bool, no_async_scheduling, false, "vLLM V1: schedule and prepare inputs before each forward");
ABSL_FLAG(bool, disable_overlap_schedule, false, "SGLang: run the scheduler after each batch, not under it");
ABSL_FLAG(bool, disable_overlap_scheduler, false, "TensorRT-LLM PyTorch backend: no overlap scheduler");
ABSL_FLAG(bool, disable_custom_all_reduce, false,
          "tensor-parallel all-reduces through NCCL only, not the engine's own one-shot/two-shot kernels");
ABSL_FLAG(double, cpu_speed, 1,
          "host CPU speed relative to the host of the host-time calibration (an A100 server of 2023-24; "
          "2 = twice as fast)");
ABSL_FLAG(bool, front_end, true,
          "model the serving front end (HTTP, tokenization, detokenization, streaming; the engine's processes "
          "and their CPU time, docs/engines.md#front-end); false: requests reach the engine when sent and "
          "tokens the client when produced. bench latency and throughput run the offline engine without one");
ABSL_FLAG(std::string, front_end_file, "",
          "a FrontEndModel textproto (the processes and their CPU costs, as in the engine personalities' "
          "execution.front_end) to use instead of the engine's front end");
ABSL_FLAG(bool, noise, false,
          "run-to-run variation: each iteration's time times a seeded lognormal factor (--iteration-noise) and "
          "each request sent a seeded random moment late (--send-jitter); same seed, same bytes. Default: on for "
          "bench serve, off otherwise");
ABSL_FLAG(double, iteration_noise, 0.01,
          "with --noise: the standard deviation of the log of each iteration's time factor (0.01: the spread of "
          "vLLM CI's repeated latency runs)");
ABSL_FLAG(double, send_jitter, 1e-3,
          "with --noise: the client's mean delay in sending a request, seconds (exponential)");
ABSL_FLAG(int32_t, api_server_count, 0,
          "vLLM V1: API server processes in front of the engine (0: the engine's default, 1)");
ABSL_FLAG(std::string, preemption_mode, "recompute",
          "when KV blocks run out: recompute (drop and re-prefill) or swap (to host memory over PCIe)");
ABSL_FLAG(double, swap_space, 4, "host memory for swapped-out KV blocks, GiB per GPU (vLLM's --swap-space)");
ABSL_FLAG(bool, enable_prefix_caching, false,
          "reuse KV blocks of identical prompt prefixes (needs block hashes, e.g. Mooncake traces)");
ABSL_FLAG(bool, enable_cuda_graphs, true, "CUDA graphs for decode (--noenable-cuda-graphs = eager launches)");
ABSL_FLAG(int64_t, max_concurrency, 0,
          "a closed-loop client: at most this many requests in flight, the next sent when one "
          "finishes (0: open loop, every request at its arrival time)");
ABSL_FLAG(int32_t, num_replicas, 1, "model replicas (each on --tensor-parallel-size GPUs)");
ABSL_FLAG(std::string, router, "round-robin", "request routing: round-robin, least-outstanding or least-kv");
ABSL_FLAG(std::string, pd, "",
          "prefill/decode disaggregation as xPyD: x prefill-only and y decode-only replicas (e.g. 2P6D; "
          "--num-replicas is then x + y); empty: every replica does both");
ABSL_FLAG(double, kv_transfer_latency, 0,
          "with --pd: seconds added to each KV transfer (the connector's handshake, RDMA setup, the "
          "network's latency); links carry bandwidth only");
ABSL_FLAG(double, fabric_bandwidth, 50e9,
          "inter-node network bandwidth per GPU, each way, in B/s (50e9: one 400 Gb/s NIC per GPU; "
          "InfiniBand or RoCE)");
ABSL_FLAG(double, fabric_latency, infergrid::kFabricLatencyS,
          "seconds added to a transfer that crosses the inter-node network (5e-6: an RDMA read "
          "through one InfiniBand or RoCE switch)");
ABSL_FLAG(std::string, decode_router, "least-kv",
          "with --pd: which decode replica a finished prefill's KV goes to (round-robin, "
          "least-outstanding or least-kv)");
ABSL_FLAG(std::string, cost_model, "auto",
          "iteration cost model: auto (calibrated when a profile exists for the GPU, else roofline), "
          "roofline or calibrated");
ABSL_FLAG(std::string, workload, "azure-conv",
          "synthetic workload preset when no --trace is given (azure-conv, azure-code, "
          "mooncake-conv, sharegpt, arxiv)");
ABSL_FLAG(std::string, arrival, "poisson", "synthetic arrivals: poisson or gamma (with --cv)");
ABSL_FLAG(double, rate, 0,
          "requests per second: the synthetic arrival rate (0: 5 req/s), or with --trace the mean "
          "rate to rescale the trace to (0: as recorded)");
ABSL_FLAG(double, cv, 1, "coefficient of variation of gamma inter-arrival times");
ABSL_FLAG(double, time_scale, 1, "--trace: multiply every arrival time by this (0.1 = ten times the rate)");
ABSL_FLAG(int64_t, max_requests, 0,
          "requests to simulate: the synthetic count (0: 1000), or the trace's first N (0: all)");
ABSL_FLAG(uint64_t, seed, 0, "seed of every random stream (synthetic workload)");
ABSL_FLAG(std::string, out, "",
          "simulate: write summary.json, requests.csv, iterations.csv and timeline.pftrace into this "
          "folder; compare: comparison.json into this folder; report, calibrate: the file to write; "
          "sweep: the sweep's folder (sweep merge: where to write the merged results)");
ABSL_FLAG(std::string, outputs, "summary,requests,iterations,timeline",
          "with --out: the files to write, a comma list of summary, requests, iterations and "
          "timeline (a sweep that needs only the metrics: --outputs=summary)");
ABSL_FLAG(std::string, timeline_format, "perfetto",
          "with --out: the timeline's format: perfetto (timeline.pftrace, Perfetto's protobuf trace) or "
          "json (timeline.json, Chrome trace-event JSON); both open in ui.perfetto.dev");
ABSL_FLAG(std::string, compress, "none",
          "with --out: none, or zstd to write requests.csv.zst and iterations.csv.zst (the same text, "
          "compressed; pandas.read_csv and `zstd -d` read them)");
ABSL_FLAG(bool, quiet, false, "no progress line on stderr");
ABSL_FLAG(bool, coalesce, true,
          "execute runs of uninterruptible iterations as one SimGrid activity (same times, faster)");
ABSL_FLAG(int32_t, cost_stride, 1,
          "price every Nth step of an unchanged decode batch with the cost model and interpolate "
          "the steps between (1: price every iteration)");
ABSL_FLAG(int64_t, timeline_max_iterations, 200000, "iterations written to the timeline at most");
ABSL_FLAG(bool, record_wall_time, true,
          "put wall-clock time and events/s in summary.json (the only non-deterministic fields)");
ABSL_FLAG(std::string, report, "",
          "simulate: also write an HTML report of the run (charts, self-contained) to this file, all or "
          "nothing with --out's files (docs/report.md)");

namespace infergrid::cli {

const std::vector<absl::string_view>& SimulateFlagNames() {
  static const std::vector<absl::string_view>* names = [] {
    auto* list = new std::vector<absl::string_view>(AccountingFlagNames());
    for (absl::string_view name : EngineFlagNames()) list->push_back(name);
    for (absl::string_view name : TraceFlagNames()) list->push_back(name);
    for (absl::string_view name : SpeculativeFlagNames()) list->push_back(name);
    for (absl::string_view name :
         {"slo_ttft", "slo_tpot", "calibration", "scheduler", "chunk_size", "chunked_prefill_size",
          "capacity_scheduler_policy", "num_scheduler_steps",
          "multi_step_stream_outputs", "disable_async_output_proc", "no_async_scheduling", "disable_overlap_schedule",
          "disable_overlap_scheduler", "disable_custom_all_reduce", "cpu_speed", "front_end", "front_end_file", "api_server_count", "noise", "iteration_noise", "send_jitter", "max_concurrency", "preemption_mode", "swap_space",
          "enable_prefix_caching", "enable_cuda_graphs", "num_replicas", "router", "pd", "decode_router", "kv_transfer_latency", "fabric_bandwidth", "fabric_latency", "cost_model",
          "workload", "arrival", "rate", "cv", "time_scale", "max_requests", "seed", "out", "outputs", "timeline_format", "compress", "quiet",
          "coalesce", "cost_stride", "timeline_max_iterations", "record_wall_time"}) {
      list->push_back(name);
    }
    return list;
  }();
  return *names;
}

}  // namespace infergrid::cli
