// Helpers shared by the serving model's and the engine's test files (the sim_engine_test binary):
// a linear test cost model whose iteration times are known in closed form, a recording sink,
// sequences and a scheduler fixture. (simulation_test.cc runs every engine in a forked child.)
#ifndef INFERGRID_TESTS_SERVING_HELPERS_H_
#define INFERGRID_TESTS_SERVING_HELPERS_H_

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <sstream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "hardware/topology.h"
#include "sim/core/engine/platform.h"
#include "sim/core/engine/run_ahead_clock.h"
#include "sim/core/engine/simulation.h"
#include "sim/core/metrics/latency_stats.h"
#include "sim/core/metrics/log_histogram.h"
#include "sim/core/serving/admission.h"
#include "sim/core/serving/block_manager.h"
#include "sim/core/serving/front_end.h"
#include "sim/core/serving/iteration_pricer.h"
#include "sim/core/serving/replica.h"
#include "sim/core/serving/router.h"
#include "sim/core/serving/scheduler.h"
#include "sim/core/serving/sequence_pool.h"

namespace infergrid {

// Runs `body` in a forked child and returns what it wrote, so each test gets its own engine.
inline std::string InChild(const std::function<std::string()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string text;
    try {
      text = body();
    } catch (const std::exception& e) {
      text = absl::StrCat("exception: ", e.what());
    }
    size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = write(fds[1], text.data() + written, text.size() - written);
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
}

// duration = 1 ms + 10 us per new token + 10 ns per cached context token.
class LinearCostModel final : public IterationCostModel {
 public:
  IterationCost Cost(const BatchShape& batch) const override {
    IterationCost cost;
    double context = 0;
    for (const PrefillChunk& c : batch.prefill) context += static_cast<double>(c.context_tokens);
    for (int64_t c : batch.decode_context_tokens) context += static_cast<double>(c);
    cost.duration_s = Seconds(batch.TotalNewTokens(), context);
    cost.hbm_bytes = 1e9;
    cost.hbm_bound_s = cost.duration_s / 2;
    cost.binding = Resource::kHbm;
    return cost;
  }
  absl::string_view Description() const override { return "linear test model"; }
  static double Seconds(int64_t new_tokens, double context) {
    return 1e-3 + 1e-5 * static_cast<double>(new_tokens) + 1e-8 * context;
  }
};

class RecordingSink final : public IterationSink {
 public:
  void OnIteration(const IterationRecord& r) override { records.push_back(r); }
  std::vector<IterationRecord> records;
};

inline Sequence* NewSeq(int64_t record, int32_t prompt, int32_t output) {
  auto* seq = new Sequence;
  seq->record = record;
  seq->prompt_tokens = prompt;
  seq->output_tokens = output;
  return seq;
}

// A sequence owned by `pool`, for a replica (which gives it back when it finishes).
inline Sequence* PooledSeq(SequencePool& pool, int64_t record, int32_t prompt, int32_t output) {
  Sequence seq;
  seq.record = record;
  seq.prompt_tokens = prompt;
  seq.output_tokens = output;
  return pool.Acquire(std::move(seq));
}

// A first pool of 100 blocks and a 128-token window pool of 10 blocks of 32 tokens: a sequence
// holding g blocks of the first pool holds min(g, 4) of the window pool.
inline BlockManagerOptions TwoPools() {
  BlockManagerOptions options{.num_gpu_blocks = 100, .block_size = 32, .watermark = 0};
  KvWindowPool window;
  window.window_tokens = 128;
  window.num_blocks = 10;
  options.window_pools.push_back(window);
  return options;
}

// ---------------------------------------------------------------- schedulers

struct SchedulerFixture {
  explicit SchedulerFixture(const std::string& name, int64_t blocks = 1000, SchedulerLimits limits = SchedulerLimits{},
                            int64_t cpu_blocks = 0, int block_size = 16)
      : manager({.num_gpu_blocks = blocks, .block_size = block_size, .watermark = 0.01, .num_cpu_blocks = cpu_blocks}),
        scheduler(MakeScheduler(*ParseEnumName(kSchedulerNames, name), limits)) {}
  ~SchedulerFixture() {
    for (auto* q : {&queues.waiting, &queues.swapped})
      for (Sequence* s : *q) delete s;
    for (Sequence* s : queues.running) delete s;
  }
  // Plans, then applies the planned tokens as the replica does.
  ScheduledBatch Step() {
    ScheduledBatch scheduled;
    scheduler->Schedule(queues, manager, scheduled);
    for (const ScheduledWork& w : scheduled.work) {
      w.seq->computed += w.new_tokens;
      if (w.seq->computed == w.seq->TotalTokens()) ++w.seq->generated;
    }
    std::vector<Sequence*> released;
    scheduler->Retire(queues, manager, released);
    for (Sequence* s : released) delete s;
    return scheduled;
  }
  BlockManager manager;
  std::unique_ptr<Scheduler> scheduler;
  ReplicaQueues queues;
};

}  // namespace infergrid

#endif  // INFERGRID_TESTS_SERVING_HELPERS_H_
