#include "sim/app/run/simulation_run.h"

#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "models/attention_layout.h"
#include "sim/app/run/child_process.h"
#include "sim/app/format/json_output.h"
#include "sim/app/output/background_sink.h"
#include "sim/app/output/fleet_csv.h"
#include "sim/app/output/iterations_csv.h"
#include "sim/app/output/progress_line.h"
#include "sim/app/output/requests_csv.h"
#include "sim/app/output/summary_builder.h"
#include "sim/app/output/timeline.h"
#include "sim/core/simulator/simulate.h"
#include "sim/core/simulator/workload_source.h"

namespace infergrid {
namespace {

// The summary's note on a model with windowed or chunked layers: which, and how the engine's
// KV cache holds them. Empty for full attention.
std::vector<std::string> AttentionNotes(const ModelSpec& model, const MemoryPlan& memory) {
  const AttentionLayerCounts kinds = CountAttentionLayers(model);
  if (kinds.window == 0 && kinds.chunked == 0 && kinds.linear == 0) return {};
  const KvCacheGroups& groups = memory.kv_groups;
  std::string held;
  if (memory.swa_pool_tokens > 0) {
    held = absl::StrCat("held in two pools (SGLang's hybrid SWA pool): ", memory.full_pool_tokens,
                        " tokens of the full-attention layers and ", memory.swa_pool_tokens, " of the ",
                        memory.swa_pool_layers, " chunked ones, a running sequence's token taking a slot in both");
  } else if (memory.state_pool_slots > 0) {
    held = absl::StrCat(
        "for the full-attention layers in a token pool, the linear layers' states in SGLang's Mamba "
        "pool of ",
        memory.state_pool_slots, " slots (one per running request)");
  } else if (!memory.window_pools.empty()) {
    std::vector<std::string> pools;
    for (const KvWindowPool& pool : memory.window_pools) {
      pools.push_back(
          absl::StrCat(pool.num_blocks, " blocks for the ", pool.layers, " layers of window ", pool.window_tokens));
    }
    held = absl::StrCat("held in TensorRT-LLM's pools per max_attention_window (", absl::StrJoin(pools, ", "),
                        "; a sequence holds ceil(min(tokens, window) / ", memory.block_size,
                        ") blocks of each, and KV usage reports the fullest pool)");
  } else if (groups.hybrid()) {
    held =
        absl::StrCat("held in ", groups.Describe(),
                     " (window groups free the blocks the window has left, a state group holds one block per sequence",
                     kinds.chunked > 0 ? "; chunked layers keep every token)" : ")");
  } else {
    held = "allocated as full attention by this engine";
  }
  return {absl::StrCat("attention: ", DescribeAttentionLayout(model),
                       "; windowed and chunked layers read only their window or chunk, linear ones their state; KV ",
                       held)};
}

// The trace's reading for the summary (null for a synthetic workload). For a length table given
// as --trace, the reader's "no timestamps" warning becomes what was done about it: the arrival
// process its rows were given.
const TraceReadStats* TraceStatsForSummary(const WorkloadSettings& w, uint64_t seed, TraceReadStats& stats) {
  if (w.trace.empty()) return nullptr;
  if (!w.trace_without_times) return &stats;
  for (std::string& warning : stats.warnings) {
    if (!absl::StartsWith(warning, kNoTimestampsWarning)) continue;
    const SyntheticWorkloadSpec& spec = w.synthetic;
    warning = absl::StrCat(kNoTimestampsWarning, ": its rows arrive as a ", spec.arrival,
                           spec.arrival == "gamma" ? absl::StrCat(" (cv ", spec.cv, ")") : "", " process at ",
                           spec.rate_per_s, " req/s, seed ", seed, " (--arrival, --rate, --cv, --seed)");
  }
  return &stats;
}

// The files that record iterations, opened under --out: each is formatted and written on a
// thread of its own, beside the simulation (iterations.csv and the timeline each take about as
// long as the simulation); fleet.csv's windows are only summed there, and written after the run.
struct IterationOutputs {
  std::unique_ptr<IterationsCsv> iterations_csv;
  std::unique_ptr<Timeline> timeline;
  std::unique_ptr<FleetSeries> fleet;
  std::vector<IterationSink*> sinks;  // those of the three that are written
};

absl::Status OpenIterationOutputs(const ResolvedSimulation& resolved, OutputDir& out, IterationOutputs& files) {
  const cli::SimulateOptions& o = resolved.options;
  const Compression compression = o.outputs.zstd ? Compression::kZstd : Compression::kNone;
  if (o.outputs.iterations) {
    absl::StatusOr<std::unique_ptr<IterationsCsv>> csv =
        IterationsCsv::Open(out.TempPath(o.outputs.IterationsFile()), o.speculative.enabled(), compression);
    if (!csv.ok()) return csv.status();
    files.iterations_csv = *std::move(csv);
    files.sinks.push_back(files.iterations_csv.get());
  }
  if (o.outputs.timeline) {
    absl::StatusOr<std::unique_ptr<Timeline>> t =
        OpenTimeline(o.outputs.timeline_json ? TimelineFormat::kJson : TimelineFormat::kPerfetto,
                     out.TempPath(o.outputs.TimelineFile()), resolved.setup.engine.ranks(), o.timeline_max_iterations);
    if (!t.ok()) return t.status();
    files.timeline = *std::move(t);
    files.sinks.push_back(files.timeline.get());
  }
  if (o.outputs.fleet) {
    files.fleet = std::make_unique<FleetSeries>(o.fleet_window_s, resolved.setup.engine.ranks());
    files.sinks.push_back(files.fleet.get());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SimulationSummary> ExecuteSimulation(const ResolvedSimulation& resolved, uint64_t seed, OutputDir* out) {
  const cli::SimulateOptions& o = resolved.options;
  TraceReadStats trace_stats;
  absl::StatusOr<std::unique_ptr<RequestSource>> source = OpenWorkload(o.workload, seed, &trace_stats);
  if (!source.ok()) return source.status();

  IterationOutputs files;
  if (out != nullptr) {
    if (absl::Status s = OpenIterationOutputs(resolved, *out, files); !s.ok()) return s;
  }
  const Compression compression = o.outputs.zstd ? Compression::kZstd : Compression::kNone;
  std::optional<BackgroundSink> writers;
  if (!files.sinks.empty()) writers.emplace(files.sinks);
  std::optional<ProgressLine> progress_line;  // on a terminal, not --quiet
  RunRecording recording;
  recording.sink = writers ? &*writers : nullptr;
  if (o.progress) recording.on_progress = progress_line.emplace().Callback();
  absl::StatusOr<SimulationRun> run = Simulate(resolved.setup, seed, **source, recording);
  if (!run.ok()) return run.status();
  const SimulationResult* result = &run->result;
  // requests.csv is written beside the writers' last records, the closing of the other files
  // and the summary's statistics (all of them only read the result).
  std::future<absl::Status> requests_written;
  if (out != nullptr && o.outputs.requests) {
    requests_written = std::async(std::launch::async, [result, path = out->TempPath(o.outputs.RequestsFile()),
                                                       disaggregated = o.prefill_replicas > 0, compression] {
      return WriteRequestsCsv(result->log, path, disaggregated, compression);
    });
  }
  if (writers) writers->Finish();

  SummaryContext context;
  context.config = resolved.config;
  context.config.set_seed(seed);
  context.engine = &resolved.setup.engine;
  context.memory_plan = &resolved.setup.memory_plan;
  context.cost_model = &run->cost;
  context.slo_ttft_s = o.slo_ttft_s;
  context.slo_tpot_s = o.slo_tpot_s;
  context.record_wall_time = o.record_wall_time;
  context.trace_stats = TraceStatsForSummary(o.workload, seed, trace_stats);
  context.model_notes = AttentionNotes(o.setup.model, resolved.setup.memory_plan);
  context.engine_note = resolved.setup.engine_note;
  if (files.iterations_csv) {
    if (absl::Status s = files.iterations_csv->Close(); !s.ok()) return s;
  }
  if (files.timeline) {
    if (absl::Status s = files.timeline->Close(); !s.ok()) return s;
    if (files.timeline->truncated()) {
      context.timeline_file = o.outputs.TimelineFile();
      context.timeline_written = files.timeline->written();
    }
  }
  SimulationSummary summary = BuildSummary(*result, context);
  if (files.fleet) {
    if (absl::Status s = files.fleet->Write(result->log, result->duration_s, out->TempPath("fleet.csv")); !s.ok())
      return s;
  }
  if (requests_written.valid()) {
    if (absl::Status s = requests_written.get(); !s.ok()) return s;
  }
  if (out != nullptr && o.outputs.summary) {
    if (absl::Status s = out->WriteFile("summary.json", format::ToJson(summary)); !s.ok()) return s;
  }
  return summary;
}

absl::StatusOr<SimulationSummary> ExecuteSimulationInChild(const ResolvedSimulation& resolved, uint64_t seed) {
  absl::StatusOr<std::string> bytes = RunInChildProcess([&]() -> absl::StatusOr<std::string> {
    absl::StatusOr<SimulationSummary> summary = ExecuteSimulation(resolved, seed, nullptr);
    if (!summary.ok()) return summary.status();
    return summary->SerializeAsString();
  });
  if (!bytes.ok()) return bytes.status();
  SimulationSummary summary;
  if (!summary.ParseFromString(*bytes)) return absl::InternalError("unreadable result from a simulation process");
  return summary;
}

}  // namespace infergrid
