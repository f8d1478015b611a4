// Speculative decoding (docs/speculative.md): the acceptance model against its closed form, the
// price of a step (proposer passes + the target's verification of k + 1 tokens per sequence),
// tokens arriving in bursts and never past a request's output length, where speculation stops
// paying as the batch grows, and the flags' errors.
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "models/kv_cache_size.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "nlohmann/json.hpp"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/cost/speculative_cost_model.h"
#include "sim/core/memory_plan/speculative_memory.h"
#include "sim/core/metrics/request_log.h"
#include "sim/core/serving/replica.h"
#include "sim/core/serving/scheduler.h"
#include "sim/core/serving/speculation.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// ------------------------------------------------------------------ acceptance model

// Tokens per step T = 1 + J, J the leading accepted run of k draws: P(T = t) = a^(t-1) (1 - a)
// for t <= k, P(T = k + 1) = a^k. The mean of N draws has standard deviation sqrt(Var T / N);
// the test allows 5 of them (a false failure once in 1.7 million seeds; the seed is fixed).
TEST(Speculation, AcceptedTokensPerStepMatchTheFormulaOverManyDraws) {
  constexpr int kDraws = 200000;
  for (const auto& [a, k] : std::vector<std::pair<double, int>>{{0.8, 4}, {0.5, 3}, {0.95, 7}, {0.3, 1}}) {
    double mean = 0, second = 0;
    for (int t = 1; t <= k + 1; ++t) {
      const double p = t <= k ? std::pow(a, t - 1) * (1 - a) : std::pow(a, k);
      mean += p * t;
      second += p * t * t;
    }
    ASSERT_NEAR(mean, ExpectedTokensPerStep(a, k), 1e-12);
    const double tolerance = 5 * std::sqrt((second - mean * mean) / kDraws);
    uint64_t state = SpeculationStream::Seed(42, 7);
    double sum = 0;
    for (int i = 0; i < kDraws; ++i) sum += 1 + SpeculationStream::AcceptedDrafts(a, k, state);
    EXPECT_NEAR(sum / kDraws, mean, tolerance) << "a=" << a << " k=" << k;
  }
  EXPECT_DOUBLE_EQ(ExpectedTokensPerStep(0.8, 4), (1 - std::pow(0.8, 5)) / 0.2);  // 3.3616
  uint64_t state = 1;
  EXPECT_EQ(SpeculationStream::AcceptedDrafts(0, 4, state), 0);
  EXPECT_EQ(SpeculationStream::AcceptedDrafts(1, 4, state), 4);
}

// Per-request rates from Beta(alpha, beta): their mean within 5 standard errors of
// alpha / (alpha + beta); the same seed and index give the same rate.
TEST(Speculation, PerRequestRatesFollowTheBetaDistributionReproducibly) {
  const AcceptanceModel m = *ParseAcceptanceModel("speculative-acceptance", "beta:8,2");
  constexpr int kRequests = 20000;
  double sum = 0;
  for (int i = 0; i < kRequests; ++i) {
    uint64_t state = SpeculationStream::Seed(3, i);
    const double rate = SpeculationStream::DrawRate(m, state);
    ASSERT_GE(rate, 0);
    ASSERT_LE(rate, 1);
    sum += rate;
  }
  const double a = 8, b = 2;
  const double sd = std::sqrt(a * b / ((a + b) * (a + b) * (a + b + 1)) / kRequests);
  EXPECT_NEAR(sum / kRequests, 0.8, 5 * sd);
  uint64_t s1 = SpeculationStream::Seed(3, 11), s2 = SpeculationStream::Seed(3, 11),
           s3 = SpeculationStream::Seed(4, 11);
  const double r1 = SpeculationStream::DrawRate(m, s1);
  EXPECT_EQ(r1, SpeculationStream::DrawRate(m, s2));
  EXPECT_NE(r1, SpeculationStream::DrawRate(m, s3));
  EXPECT_FALSE(ParseAcceptanceModel("speculative-acceptance", "1.5").ok());
  EXPECT_FALSE(ParseAcceptanceModel("speculative-acceptance", "-0.1").ok());
  EXPECT_FALSE(ParseAcceptanceModel("speculative-acceptance", "beta:0,2").ok());
  EXPECT_DOUBLE_EQ(ParseAcceptanceModel("speculative-acceptance", "0.6")->rate, 0.6);
}

// ------------------------------------------------------------------ the price of a step

CostModelRequest RooflineRequest(const std::string& target, const std::string& draft, bool ngram = false) {
  CostModelRequest r;
  r.kind = CostModelKind::kRoofline;
  r.model = *ResolveModel(target);
  r.gpu = *ResolveGpu("h100-sxm");
  const double params = static_cast<double>(CountParameters(r.model).Total());
  r.weight_bytes_per_gpu = 2 * params;
  r.kv = {DType::BF16, 16, KvBytesPerToken(r.model, DType::BF16), 1 << 20};
  r.active_parameters = static_cast<double>(ActiveParametersPerToken(r.model));
  if (ngram || !draft.empty()) {
    SpeculativeCostRequest s;
    if (!ngram) {
      s.draft = *ResolveModel(draft);
      s.draft_weight_bytes_per_gpu = 2 * static_cast<double>(CountParameters(*s.draft).Total());
      s.draft_kv_bytes_per_token = KvBytesPerToken(*s.draft, DType::BF16);
      s.draft_active_parameters = static_cast<double>(ActiveParametersPerToken(*s.draft));
    } else {
      s.ngram_host_s_per_sequence = 10e-6;
    }
    r.speculation = s;
  }
  return r;
}

BatchShape DecodeBatch(int sequences, int64_t context, int k) {
  BatchShape b;
  b.decode_context_tokens.assign(static_cast<size_t>(sequences), context);
  b.speculative_tokens = k;
  return b;
}

TEST(SpeculativeCost, StepIsKDraftPassesPlusTheVerificationOfKPlusOneTokens) {
  const CostModelChoice plain = *MakeCostModel(RooflineRequest("llama-3-70b", ""));
  const CostModelChoice draft_only = *MakeCostModel(RooflineRequest("llama-3-8b", ""));
  const CostModelChoice spec = *MakeCostModel(RooflineRequest("llama-3-70b", "llama-3-8b"));
  constexpr int kK = 3;
  const BatchShape batch = DecodeBatch(4, 1000, kK);
  // Verification: the target with every sequence as a chunk of k + 1 tokens after its context.
  BatchShape verify;
  for (int i = 0; i < 4; ++i) verify.prefill.push_back({kK + 1, 1000});
  const IterationCost v = plain.model->Cost(verify);
  // Draft: k passes at contexts c, c + 1, c + 2, without the roofline's fixed step overhead.
  double draft_s = 0;
  for (int i = 0; i < kK; ++i) {
    draft_s += draft_only.model->Cost(DecodeBatch(4, 1000 + i, 0)).duration_s - draft_only.overhead_s;
  }
  const IterationCost c = spec.model->Cost(batch);
  EXPECT_NEAR(c.draft_s, draft_s, 1e-12);
  EXPECT_NEAR(c.duration_s, draft_s + v.duration_s, 1e-12);
  EXPECT_GT(c.flops, v.flops);  // the draft's FLOPs are in the step's demands
  // k = 0 is the target's plain price.
  EXPECT_EQ(spec.model->Cost(DecodeBatch(4, 1000, 0)).duration_s,
            plain.model->Cost(DecodeBatch(4, 1000, 0)).duration_s);

  // n-gram lookup: no GPU work beyond the verification, 10 us of host per sequence.
  const CostModelChoice ngram = *MakeCostModel(RooflineRequest("llama-3-70b", "", /*ngram=*/true));
  const IterationCost n = ngram.model->Cost(batch);
  EXPECT_NEAR(n.draft_s, 4 * 10e-6, 1e-15);
  EXPECT_NEAR(n.duration_s, v.duration_s + 4 * 10e-6, 1e-12);
  EXPECT_EQ(n.flops, v.flops);
  EXPECT_EQ(n.hbm_bytes, v.hbm_bytes);
}

// TPOT of a decode batch: the step's time over the tokens a step yields (1 without speculation).
// Llama-3-70B drafted by Llama-3-8B on one H100 (roofline), contexts of 1,000 tokens, a = 0.8,
// k = 4 (3.36 tokens a step): at batch 1 the step is weight-bound, verifying 5 tokens costs what
// decoding 1 does, and speculation cuts TPOT 2.34x (2.13x at batch 64); as the batch grows the
// verification's 5x FLOPs turn compute-bound and speculation loses: 1.42x at 128, 0.94x at 256,
// 0.67x at 512. The crossover is at batch 231.
TEST(SpeculativeCost, SpeculationPaysAtBatchOneAndLosesAtLargeBatches) {
  const CostModelChoice plain = *MakeCostModel(RooflineRequest("llama-3-70b", ""));
  const CostModelChoice spec = *MakeCostModel(RooflineRequest("llama-3-70b", "llama-3-8b"));
  const double tokens = ExpectedTokensPerStep(0.8, 4);
  auto speedup = [&](int batch) {
    const double plain_tpot = plain.model->Cost(DecodeBatch(batch, 1000, 0)).duration_s;
    const double spec_tpot = spec.model->Cost(DecodeBatch(batch, 1000, 4)).duration_s / tokens;
    return plain_tpot / spec_tpot;
  };
  EXPECT_GT(speedup(1), 2.0);
  EXPECT_LT(speedup(512), 0.8);
  int crossover = 0;
  for (int batch = 1; batch <= 512; ++batch) {
    if (speedup(batch) < 1) {
      crossover = batch;
      break;
    }
  }
  EXPECT_GT(crossover, 128);
  EXPECT_LT(crossover, 384);
  ::testing::Test::RecordProperty("crossover_batch", crossover);
}

// ------------------------------------------------------------------ tokens of a request

class CountingSink final : public IterationSink {
 public:
  void OnIteration(const IterationRecord& r) override {
    emitted += r.emitted_tokens;
    steps += r.speculative_seqs;
    if (r.prefill_seqs > 0) ++prefills;
  }
  int64_t emitted = 0, steps = 0, prefills = 0;
};

TEST(SpeculativeReplica, RequestsFinishAtTheirOutputLengthWithTokensInBursts) {
  const CostModelChoice cost = *MakeCostModel(RooflineRequest("llama-3-70b", "llama-3-8b"));
  ExecutionPolicy policy;
  policy.speculation.num_speculative_tokens = 4;
  policy.speculation.acceptance.rate = 0.8;
  policy.speculation.seed = 5;
  SchedulerLimits limits;
  limits.lookahead_slots = 4;
  RequestLog log;
  log.KeepChunkTimes();
  CountingSink sink;
  SequencePool sequences;
  Replica replica(0, MakeScheduler(SchedulerKind::kSarathi, limits),
                  BlockManagerOptions{.num_gpu_blocks = 1000, .block_size = 16}, *cost.model, log, sink, sequences, 1,
                  &policy);
  const std::vector<int32_t> outputs = {1, 2, 5, 37, 100};
  for (size_t i = 0; i < outputs.size(); ++i) {
    log.Add({});
    Sequence seq;
    seq.record = static_cast<int64_t>(i);
    seq.prompt_tokens = 50;
    seq.output_tokens = outputs[i];
    replica.Enqueue(sequences.Acquire(std::move(seq)));
  }
  double t = 0;
  int iterations = 0;
  while (replica.HasWork() && iterations < 1000) {
    ASSERT_TRUE(replica.Schedule(t));
    const double end = t + replica.cost().duration_s;
    replica.Complete(t, end, 0);
    t = end;
    ++iterations;
  }
  int64_t total = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const RequestRecord& r = log.records()[i];
    EXPECT_EQ(r.outcome, RequestOutcome::kFinished) << i;
    total += outputs[i];
  }
  // Every output token was emitted once: the prefills' first tokens plus the steps' bursts.
  EXPECT_EQ(sink.emitted + static_cast<int64_t>(outputs.size()), total);
  // One inter-token gap per chunk the client receives (a step's accepted drafts ride with its
  // token), as the benchmark client counts them.
  int64_t gaps = 0;
  for (size_t i = 0; i < outputs.size(); ++i)
    gaps += static_cast<int64_t>(log.chunk_times(static_cast<int64_t>(i)).size()) - 1;
  EXPECT_EQ(log.itl().count(), gaps);
  EXPECT_LT(log.itl().count(), total - static_cast<int64_t>(outputs.size()));
  // The 100-token request got its tokens in fewer chunks than tokens (bursts of up to 5),
  // and no more than a quarter of its tokens' worth of steps at a = 0.8 (3.36 a step).
  const size_t chunks = log.chunk_times(4).size();
  EXPECT_LT(chunks, 45u);
  EXPECT_GT(chunks, 20u);  // 99 tokens at most 5 a step
  EXPECT_LT(iterations, 60);
}

// ------------------------------------------------------------------ memory and lookahead slots

// The draft's weights leave the KV budget and its KV per token joins every block's.
TEST(SpeculativeMemory, DraftWeightsLeaveTheBudgetAndItsKvJoinsEveryBlock) {
  MemoryPlan plan;
  plan.block_size = 16;
  plan.kv_bytes_per_token = 131072;
  plan.kv_cache_bytes = 10.0 * (1 << 30);
  plan.weight_bytes = 16e9;
  const DraftMemory draft{
      .weight_bytes = 1.0 * (1 << 30), .pass_weight_bytes = 1.0 * (1 << 30), .kv_bytes_per_token = 32768};
  const MemoryPlanRequest request;
  ASSERT_TRUE(AddDraftToPlan(draft, request, plan).ok());
  EXPECT_EQ(plan.kv_cache_bytes, 9.0 * (1 << 30));
  EXPECT_EQ(plan.weight_bytes, 16e9 + (1 << 30));
  EXPECT_EQ(plan.num_blocks, static_cast<int64_t>(9.0 * (1 << 30) / (16 * (131072 + 32768))));  // 3,686
  EXPECT_EQ(plan.kv_tokens, plan.num_blocks * 16);
  MemoryPlan tiny = plan;
  tiny.kv_cache_bytes = 1e6;
  EXPECT_EQ(AddDraftToPlan(draft, request, tiny).code(), absl::StatusCode::kFailedPrecondition);
}

// A decode step reserves KV for its own token and the k drafts it verifies, and counts them
// against the token budget.
TEST(SpeculativeScheduling, DecodesReserveLookaheadSlots) {
  for (const int lookahead : {0, 4}) {
    BlockManager blocks(BlockManagerOptions{.num_gpu_blocks = 10, .block_size = 16});
    ReplicaQueues queues;
    Sequence seq;
    seq.prompt_tokens = 15;
    seq.output_tokens = 10;
    seq.generated = 1;
    seq.computed = 15;  // in decode: the sampled token is next
    seq.status = SequenceStatus::kRunning;
    blocks.Grow(seq, 1);
    queues.running.push_back(&seq);
    ScheduledBatch scheduled;
    const int64_t tokens =
        scheduling::ScheduleDecodes(queues, blocks, PreemptionMode::kRecompute, 100, scheduled, lookahead);
    EXPECT_EQ(tokens, 1 + lookahead);
    EXPECT_EQ(seq.gpu_blocks, lookahead == 0 ? 1 : 2) << lookahead;  // 16 or 20 tokens of 16-token blocks
    blocks.Release(seq);
  }
}

// ------------------------------------------------------------------ the command

// `flags` on top of 40 requests at 4 req/s (a --max-requests of its own replaces the 40).
nlohmann::json Simulate(const std::string& flags) {
  const std::string count = absl::StrContains(flags, "--max-requests=") ? "" : "--max-requests=40 ";
  const testing::CommandResult r =
      testing::RunInfergrid("simulate --format=json --record-wall-time=false --rate=4 --quiet " + count + flags);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(SpeculativeCli, SummaryReportsTheAcceptanceSeenAndOffIsUnchanged) {
  const nlohmann::json off = Simulate("");
  EXPECT_FALSE(off.contains("speculation"));
  const nlohmann::json eagle =
      Simulate("--speculative-method=eagle --num-speculative-tokens=4 --speculative-acceptance=0.8");
  const nlohmann::json& s = eagle["speculation"];
  EXPECT_EQ(s["method"], "eagle");
  EXPECT_NEAR(s["expected_tokens_per_step"].get<double>(), 3.3616, 1e-9);
  EXPECT_NEAR(s["mean_tokens_per_step"].get<double>(), 3.36, 0.25);
  EXPECT_GT(s["draft_s"].get<double>(), 0);
  EXPECT_EQ(eagle["completed"], 40);
  EXPECT_EQ(eagle["output_tokens"], off["output_tokens"]);  // no token past any output length
  EXPECT_LT(eagle["iterations"]["iterations"].get<int>(), off["iterations"]["iterations"].get<int>());
  EXPECT_GT(s["draft_weight_bytes"].get<double>(), 0);  // one layer's weights, from the KV budget
  EXPECT_LT(eagle["memory"]["num_gpu_blocks"].get<int>(), off["memory"]["num_gpu_blocks"].get<int>());
  const nlohmann::json ngram =
      Simulate("--speculative-model=[ngram] --num-speculative-tokens=3 --speculative-acceptance=0.5");
  EXPECT_EQ(ngram["speculation"]["method"], "ngram");
  EXPECT_EQ(ngram["speculation"]["draft_weight_bytes"], 0);
}

// A draft from a Hugging Face config.json (Llama-3.2-1B's architecture, Llama-3's vocabulary).
TEST(SpeculativeCli, ADraftModelFromConfigJson) {
  const std::string path = testing::WriteFile(
      testing::TestDir() / "llama-3.2-1b/config.json",
      R"({"model_type": "llama", "num_hidden_layers": 16, "hidden_size": 2048, "intermediate_size": 8192,
          "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
          "tie_word_embeddings": true, "torch_dtype": "bfloat16"})");
  const nlohmann::json s = Simulate("--max-requests=10 --num-speculative-tokens=4 --speculative-model=" + path);
  EXPECT_EQ(s["speculation"]["method"], "draft_model");
  EXPECT_EQ(s["speculation"]["draft_model"], "llama-3.2-1b");
  // 16 layers x 8 KV heads x 64 x 2 (K and V) x 2 B.
  EXPECT_EQ(s["speculation"]["draft_kv_bytes_per_token"], 32768);
  EXPECT_EQ(s["completed"], 10);
}

TEST(SpeculativeCli, BadValuesAreOneErrorNamingTheFlagAndNoOutput) {
  const std::string out = (std::filesystem::path(::testing::TempDir()) / "spec_bad_values").string();
  const std::vector<testing::CliErrorCase> cases = {
      {"simulate --num-speculative-tokens=-1 --speculative-method=ngram --out=" + out, 2,
       "--num-speculative-tokens=-1"},
      {"simulate --num-speculative-tokens=3 --speculative-method=ngram --speculative-acceptance=1.5 --out=" + out, 2,
       "--speculative-acceptance=1.5"},
      {"simulate --num-speculative-tokens=3 --speculative-model=no-such-model --out=" + out, 2,
       "--speculative-model=no-such-model"},
      {"simulate --num-speculative-tokens=3 --speculative-model=qwen2.5-0.5b --out=" + out, 2, "vocabulary"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(SpeculativeCli, BadCombinationsAreOneErrorNamingTheFlagAndNoOutput) {
  const std::string out = (std::filesystem::path(::testing::TempDir()) / "spec_bad_combinations").string();
  const std::vector<testing::CliErrorCase> cases = {
      {"simulate --num-speculative-tokens=3 --out=" + out, 2, "needs a proposer"},
      {"simulate --speculative-method=eagle --out=" + out, 2, "--num-speculative-tokens"},
      {"simulate --num-speculative-tokens=3 --speculative-method=eagle --scheduler=orca --out=" + out, 2,
       "--num-speculative-tokens"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace infergrid
