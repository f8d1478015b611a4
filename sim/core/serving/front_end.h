// The serving front end between the client and the engine's scheduler: the processes a
// request passes on its way in (HTTP and JSON parsing, chat template, tokenization, the hop to
// the engine's process) and its tokens pass on their way out (the engine's outputs received,
// incremental detokenization, SSE framing), each a FIFO of `servers` identical CPUs (one for
// a Python process: its event loop and the GIL serialize everything it does). Work queues:
// a front end whose work per second exceeds one CPU falls behind, and what waits behind it
// (requests not yet in the engine, tokens not yet streamed) waits longer and longer.
//
// Per-token work is aggregated per engine step and process: an engine step's outputs travel
// as one message (vLLM's EngineCoreOutputs, SGLang's BatchTokenIDOut, Triton's response batch)
// and are one job of step_s + output_token_s x tokens, so the front end costs O(1) per step.
//
// A request goes through the processes in the listed order (skipping those with no inbound
// cost) and its tokens back through them in reverse order (skipping those with no outbound
// cost). Departure times follow Lindley's recursion per server in the order jobs are handed
// in; the engine hands in each step's outputs when it completes the step, which may run ahead
// of the arrival actor by at most one step (docs/engines.md#front-end).
#ifndef INFERGRID_SIM_CORE_SERVING_FRONT_END_H_
#define INFERGRID_SIM_CORE_SERVING_FRONT_END_H_

#include <cstdint>
#include <string>
#include <vector>

namespace infergrid {

struct FrontEndProcess {
  std::string name;  // "api_server", "tokenizer_manager", "detokenizer"
  int servers = 1;  // identical CPUs serving its queue (--api-server-count)
  double request_s = 0;  // inbound, per request: HTTP/JSON, template, admission IPC
  double prompt_token_s = 0;  // inbound, per prompt token: tokenization
  double step_s = 0;  // outbound, per engine step whose outputs pass through
  double output_token_s = 0;  // outbound, per output token: detokenization, SSE framing
  bool inbound() const { return request_s > 0 || prompt_token_s > 0; }
  bool outbound() const { return step_s > 0 || output_token_s > 0; }
};

struct FrontEndSpec {
  std::vector<FrontEndProcess> processes;  // in the order a request passes them
  // The front end runs in the engine's own process and thread (vLLM V0's AsyncLLMEngine: the
  // API server's coroutines and the engine step share one event loop): its CPU time also
  // delays the engine's next step.
  bool in_engine_process = false;
  bool enabled() const { return !processes.empty(); }
};

class FrontEnd {
 public:
  explicit FrontEnd(const FrontEndSpec& spec);

  // When a request sent at `time_s` with `prompt_tokens` tokens reaches the engine's queue.
  double Inbound(double time_s, int64_t prompt_tokens);
  // When `tokens` output tokens an engine step emitted at `time_s` reach the client.
  double Outbound(double time_s, int64_t tokens);
  // In-engine-process front ends: the CPU seconds spent since the last call, which the
  // engine's next step waits for; 0 otherwise.
  double TakeEngineWork();
  // CPU seconds of front-end work so far, over all processes.
  double busy_s() const { return busy_s_; }

 private:
  // Serves a job of `work_s` ready at `ready_s` on process `p`'s earliest free server.
  double Serve(size_t p, double ready_s, double work_s);

  FrontEndSpec spec_;
  std::vector<std::vector<double>> free_at_;  // per process, per server: when it is next free
  double busy_s_ = 0;
  double engine_work_s_ = 0;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_FRONT_END_H_
