#include "sim/app/run/bench_run.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "sim/app/run/child_process.h"
#include "sim/core/engine/simulation.h"
#include "sim/core/simulator/simulate.h"
#include "traces/request.h"
#include "traces/shared_prefix.h"

namespace infergrid {
namespace {

absl::StatusOr<bench::ClientRun> RunInThisProcess(const ResolvedSimulation& resolved,
                                                  const std::vector<bench::BenchRequest>& requests,
                                                  const std::vector<double>& send_times, int64_t copies) {
  bench::ClientRun run;
  run.set_title(resolved.setup.title);
  const int64_t max_model_len = resolved.setup.engine.max_model_len;
  // Requests the engine serves, in send order, and which outcome each fills.
  std::vector<Request> served;
  std::vector<int> outcome_of;
  for (size_t i = 0; i < requests.size(); ++i) {
    const bench::BenchRequest& r = requests[i];
    const int64_t server_tokens = int64_t{r.prompt_len} + r.server_extra;
    for (int64_t copy = 0; copy < copies; ++copy) {
      bench::ClientRequestOutcome* outcome = run.add_requests();
      outcome->set_prompt_len(r.prompt_len);
      outcome->set_start_time(send_times[i]);
      if (server_tokens + r.output_len > max_model_len) {
        outcome->set_error(absl::StrCat("This model's maximum context length is ", max_model_len,
                                        " tokens. However, you requested ", server_tokens + r.output_len, " tokens (",
                                        server_tokens, " in the messages, ", r.output_len, " in the completion)."));
        continue;
      }
      Request request;
      request.id = static_cast<int64_t>(served.size());
      request.arrival_s = send_times[i];
      request.input_tokens = static_cast<int32_t>(server_tokens);
      request.output_tokens = std::max(1, r.output_len);  // SGLang's client may ask for 0
      request.prefix_block_hashes = SharedPrefixHashes(static_cast<uint64_t>(r.prefix_group), r.shared_prefix_len);
      request.tokens_per_hash = kSharedPrefixHashTokens;
      served.push_back(request);
      outcome_of.push_back(run.requests_size() - 1);
    }
  }
  double duration = send_times.empty() ? 0 : *std::max_element(send_times.begin(), send_times.end());
  if (!served.empty()) {
    VectorRequestSource source(std::move(served));
    RunRecording recording;
    recording.record_chunk_times = true;  // the client's inter-token latencies
    absl::StatusOr<SimulationRun> simulated =
        Simulate(resolved.setup, resolved.options.workload.synthetic.seed, source, recording);
    if (!simulated.ok()) return simulated.status();
    const SimulationResult* result = &simulated->result;
    const std::vector<RequestRecord>& records = result->log.records();
    for (size_t k = 0; k < records.size(); ++k) {
      const RequestRecord& record = records[k];
      bench::ClientRequestOutcome& outcome = *run.mutable_requests(outcome_of[k]);
      // Under a concurrency limit the request went out when a slot freed.
      outcome.set_queue_time(record.arrival_s - outcome.start_time());
      outcome.set_start_time(record.arrival_s);
      if (record.outcome != RequestOutcome::kFinished) {
        outcome.set_error("not served: the request does not fit the KV cache");
        duration = std::max(duration, record.arrival_s);
        continue;
      }
      outcome.set_success(true);
      run.set_prompt_tokens(run.prompt_tokens() + record.input_tokens);
      run.set_cached_prompt_tokens(run.cached_prompt_tokens() + record.cached_tokens);
      outcome.set_output_tokens(record.output_tokens);
      outcome.set_ttft(record.first_token_s - record.arrival_s);
      outcome.set_latency(record.finish_s - record.arrival_s);
      const std::vector<double>& chunks = result->log.chunk_times(static_cast<int64_t>(k));
      for (size_t c = 1; c < chunks.size(); ++c) outcome.add_itl(chunks[c] - chunks[c - 1]);
      duration = std::max(duration, record.finish_s);
    }
  }
  run.set_duration_s(duration);
  return run;
}

}  // namespace

absl::StatusOr<bench::ClientRun> SimulateClientRun(const ResolvedSimulation& resolved,
                                                   const std::vector<bench::BenchRequest>& requests,
                                                   const std::vector<double>& send_times, int64_t copies) {
  absl::StatusOr<std::string> bytes = RunInChildProcess([&]() -> absl::StatusOr<std::string> {
    absl::StatusOr<bench::ClientRun> run = RunInThisProcess(resolved, requests, send_times, copies);
    if (!run.ok()) return run.status();
    return run->SerializeAsString();
  });
  if (!bytes.ok()) return bytes.status();
  bench::ClientRun run;
  if (!run.ParseFromString(*bytes)) return absl::InternalError("bench: the simulation's result did not parse");
  return run;
}

}  // namespace infergrid
