// Engine memory plans (sim/core/memory_plan): the five reference startup logs reproduced within 1%
// in tokens (typed in here, and read from ../shared/data/measurements/kv_capacity_reference.csv
// when it is present), each term against its logged value, the version- and deployment-
// dependent rules, the errors, a sweep over configurations no log covers, and the
// `infergrid memory --engine` command.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "nlohmann/json.hpp"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/memory_plan/memory_plan_detail.h"
#include "sim/core/personality/personality_catalog.h"
#include "tests/catalog_model.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;
using testing::RunInfergrid;

constexpr double kGiB = 1073741824.0;

GpuSpec Gpu(const std::string& name) {
  absl::StatusOr<GpuSpec> gpu = ResolveGpu(name);
  EXPECT_TRUE(gpu.ok()) << gpu.status();
  return gpu.ok() ? *gpu : GpuSpec();
}

// The RTX 5090 of reference row TRT-02 (not in the catalog): 32,607 MiB, torch reads 31.84 GiB.
GpuSpec Rtx5090() {
  GpuSpec gpu;
  gpu.set_name("rtx-5090");
  gpu.set_display_name("NVIDIA GeForce RTX 5090");
  gpu.set_reported_name("NVIDIA GeForce RTX 5090");
  gpu.set_reported_total_mib(32607);
  gpu.set_framework_total_gib(31.84);
  gpu.mutable_tensor_peaks()->set_fp16_flops(209.5e12);
  gpu.set_hbm_bytes_per_s(1.792e12);
  return gpu;
}

WeightFormat Weights(const std::string& name) {
  absl::StatusOr<WeightFormat> format = ParseWeightFormat(name);
  EXPECT_TRUE(format.ok()) << format.status();
  return format.ok() ? *format : WeightFormat();
}

MemoryPlanRequest Request(const std::string& engine, const std::string& model, const std::string& weights,
                          const GpuSpec& gpu, int tp = 1) {
  MemoryPlanRequest r;
  r.engine = engine;
  r.model = testing::CatalogModel(model);
  r.gpu = gpu;
  r.weights = Weights(weights);
  r.kv_dtype = DType::BF16;
  r.tensor_parallel = tp;
  r.block_size = 0;  // the engine's default
  return r;
}

MemoryPlanDetail Explain(const MemoryPlanRequest& request) {
  absl::StatusOr<MemoryPlanDetail> detail = ExplainEngineMemory(request);
  EXPECT_TRUE(detail.ok()) << detail.status();
  return detail.ok() ? *detail : MemoryPlanDetail();
}

// ---------------------------------------------------------------------------------------------
// The five reference startup logs, typed in (kv_capacity_reference.csv, see README).

struct ReferenceCase {
  const char* id;
  const char* engine;
  const char* model;
  const char* weights;
  DType kv_dtype;
  double total_gib;  // the total the engine read (its GPU); 0: the H100 catalog entry
  int tp;
  double fraction;
  int64_t max_model_len;  // 0: the model's
  int block_size;
  double logged_tokens;  // V0-01 logs GiB only: 53.29 GiB / 131,072 B
  double logged_weights_gib;
  double logged_activation_gib;  // < 0: not logged
  double logged_kv_gib;
};

const ReferenceCase kReference[] = {
    {"V19-01", "vllm-v1@0.19", "llama-3.1-8b", "bf16", DType::BF16, 79.19, 1, 0.95, 8192, 16, 476016, 14.99, 1.89,
     58.11},
    {"V19-14", "vllm-v1@0.19", "llama-3.3-70b", "fp8", DType::BF16, 79.19, 2, 0.95, 8192, 16, 244304, 33.88, 1.96,
     37.28},
    {"V0-01", "vllm-v0@0.6.5", "llama-3-8b", "bf16", DType::BF16, 79.22, 1, 0.90, 8192, 16, 53.29 * 8192, 14.96, 1.26,
     53.29},
    // SGLang's GPU is not printed: the H100 total is assumed (78.81 GiB free at load = 79.19 - 0.38).
    {"SG-01", "sglang@0.4.1", "llama-3.1-8b", "bf16", DType::BF16, 0, 1, 0.88, 131072, 1, 444500, 15.09, -1, 54.26},
    {"TRT-02", "trtllm@pytorch", "llama-3.1-8b", "fp8", DType::FP8_E4M3, 31.84, 1, 0.90, 0, 32, 263008, -1, -1, 16.05},
};

MemoryPlanRequest ReferenceRequest(const ReferenceCase& c) {
  GpuSpec gpu = c.total_gib == 31.84 ? Rtx5090() : Gpu("h100-sxm");
  if (c.total_gib > 0) gpu.set_framework_total_gib(c.total_gib);
  MemoryPlanRequest r = Request(c.engine, c.model, c.weights, gpu, c.tp);
  r.kv_dtype = c.kv_dtype;
  if (absl::StartsWith(c.engine, "vllm")) r.gpu_memory_utilization = c.fraction;
  if (absl::StartsWith(c.engine, "sglang")) r.mem_fraction_static = c.fraction;
  if (absl::StartsWith(c.engine, "trtllm")) r.free_gpu_memory_fraction = c.fraction;
  r.max_model_len = c.max_model_len;
  r.block_size = c.block_size;
  return r;
}

TEST(ReferenceLogs, EveryCaseWithinOnePercentInTokens) {
  for (const ReferenceCase& c : kReference) {
    SCOPED_TRACE(c.id);
    absl::StatusOr<MemoryPlan> plan = PlanEngineMemory(ReferenceRequest(c));
    ASSERT_TRUE(plan.ok()) << plan.status();
    const double error = (static_cast<double>(plan->kv_tokens) - c.logged_tokens) / c.logged_tokens;
    EXPECT_LT(std::abs(error), 0.01) << plan->kv_tokens << " tokens predicted, " << c.logged_tokens << " logged";
    // Tighter than the requirement: the fit leaves < 0.1% on every row; a regression shows here.
    EXPECT_LT(std::abs(error), 0.001) << plan->kv_tokens << " vs " << c.logged_tokens;
    EXPECT_NEAR(plan->kv_cache_bytes / kGiB, c.logged_kv_gib, 0.03);
    if (c.logged_weights_gib > 0) {
      EXPECT_NEAR(plan->weight_bytes / kGiB, c.logged_weights_gib, 0.015);
    }
    if (c.logged_activation_gib > 0) {
      EXPECT_NEAR(plan->activation_peak_bytes / kGiB, c.logged_activation_gib, 0.015);
    }
  }
}

TEST(ReferenceLogs, LoggedBlockCountsAndTermsOfTheVllmRows) {
  // V19-01: 29,751 blocks logged; V19-14: 15,269. "Identical runs can differ by one block";
  // the rounding of the logged inputs to 0.01 GiB moves a few more.
  const MemoryPlanDetail v19_01 = Explain(ReferenceRequest(kReference[0]));
  EXPECT_NEAR(static_cast<double>(v19_01.plan.num_blocks), 29751, 10);
  EXPECT_EQ(v19_01.plan.kv_bytes_per_token, 131072);
  EXPECT_NEAR(v19_01.plan.non_torch_bytes / kGiB, 0.25, 1e-9);
  EXPECT_NEAR(v19_01.plan.budget_bytes / kGiB, 75.23, 0.005);  // "requested=75.23 GiB"
  EXPECT_NEAR(v19_01.plan.cuda_graph_bytes / kGiB, 0.84, 0.005);
  EXPECT_FALSE(v19_01.cuda_graph_subtracted);
  EXPECT_EQ(v19_01.max_num_batched_tokens, 8192);
  EXPECT_EQ(v19_01.max_num_seqs, 1024);

  const MemoryPlanDetail v19_14 = Explain(ReferenceRequest(kReference[1]));
  EXPECT_NEAR(static_cast<double>(v19_14.plan.num_blocks), 15269, 10);
  EXPECT_EQ(v19_14.plan.kv_bytes_per_token, 163840);  // 80 layers x 2 x 4 KV heads x 128 x 2 B
  EXPECT_NEAR(v19_14.plan.non_torch_bytes / kGiB, 2.1, 1e-9);
  EXPECT_NEAR(v19_14.plan.cuda_graph_bytes / kGiB, 1.82, 0.005);
}

TEST(ReferenceLogs, SglangAndTensorRtTermsAsLogged) {
  const MemoryPlanDetail sg = Explain(ReferenceRequest(kReference[3]));
  // "Load weight begin. avail mem=78.81 GB", "Load weight end ... avail mem=63.72 GB".
  EXPECT_NEAR(sg.stages[0].free_before_weights_bytes / kGiB, 78.81, 0.005);
  EXPECT_NEAR((sg.stages[0].free_before_weights_bytes - sg.plan.weight_bytes) / kGiB, 63.72, 0.01);
  EXPECT_EQ(sg.plan.block_size, 1);
  EXPECT_EQ(sg.plan.kv_tokens, sg.plan.num_blocks);

  const MemoryPlanDetail trt = Explain(ReferenceRequest(kReference[4]));
  EXPECT_NEAR(trt.stages[0].available_bytes / kGiB, 17.83, 0.015);  // "available: 17.83 GiB"
  EXPECT_NEAR(static_cast<double>(trt.plan.num_blocks), 8219, 10);  // "primary pool: 8219"
  EXPECT_EQ(trt.plan.kv_bytes_per_token, 65536);  // fp8 KV
  EXPECT_EQ(trt.plan.block_size, 32);
  EXPECT_EQ(trt.max_num_batched_tokens, 8192);
  EXPECT_EQ(trt.max_num_seqs, 2048);
}

// ---------------------------------------------------------------------------------------------
// The same five cases read from the shared reference file, as its columns say.

std::vector<std::vector<std::string>> ReadCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field.push_back(ch);
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (ch == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
    } else if (ch != '\r') {
      field.push_back(ch);
    }
  }
  if (!field.empty() || !rows.back().empty()) rows.back().push_back(field);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

// The leading number of a cell such as "0.90 (default)" or "8192 (model default)".
std::optional<double> LeadingNumber(const std::string& cell) {
  size_t end = 0;
  while (end < cell.size() && (std::isdigit(static_cast<unsigned char>(cell[end])) || cell[end] == '.')) ++end;
  double value = 0;
  if (end == 0 || !absl::SimpleAtod(cell.substr(0, end), &value)) return std::nullopt;
  return value;
}

TEST(ReferenceLogs, SharedReferenceFileWithinOnePercent) {
  const std::string path = testing::SourcePath("../shared/data/measurements/kv_capacity_reference.csv");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not present";
  const std::vector<std::vector<std::string>> rows = ReadCsv(testing::ReadAll(path));
  ASSERT_GE(rows.size(), 6u);
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < rows[0].size(); ++i) column[rows[0][i]] = i;
  for (const char* name :
       {"case_id", "engine", "model_hf_id", "weight_dtype_quant", "kv_cache_dtype", "gpu_model", "tp",
        "mem_param_value", "max_model_len", "block_size", "kv_cache_tokens", "kv_cache_gib", "total_gpu_mem_gib"}) {
    ASSERT_TRUE(column.count(name)) << "column " << name << " missing";
  }
  int checked = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string>& row = rows[i];
    auto cell = [&](const char* name) { return row[column[name]]; };
    SCOPED_TRACE(cell("case_id"));
    const std::string engine_cell = cell("engine");
    const std::string engine = absl::StrContains(engine_cell, "V1")       ? "vllm-v1@0.19"
                               : absl::StrContains(engine_cell, "V0")     ? "vllm-v0@0.6.5"
                               : absl::StrContains(engine_cell, "SGLang") ? "sglang@0.4.1"
                                                                          : "trtllm@pytorch";
    const std::string hf = cell("model_hf_id");
    const std::string model = absl::StrContains(hf, "70B")   ? "llama-3.3-70b"
                              : absl::StrContains(hf, "3.1") ? "llama-3.1-8b"
                                                             : "llama-3-8b";
    const std::string weights =
        absl::StrContains(absl::AsciiStrToLower(cell("weight_dtype_quant")), "fp8") ? "fp8" : "bf16";
    const bool rtx = absl::StrContains(cell("gpu_model"), "5090");
    GpuSpec gpu = rtx ? Rtx5090() : Gpu("h100-sxm");
    // SGLang's total column is the memory free at load, not the device total: keep the catalog's.
    if (engine != "sglang@0.4.1") gpu.set_framework_total_gib(*LeadingNumber(cell("total_gpu_mem_gib")));
    MemoryPlanRequest r = Request(engine, model, weights, gpu, static_cast<int>(*LeadingNumber(cell("tp"))));
    r.kv_dtype = absl::StartsWith(cell("kv_cache_dtype"), "fp8") ? DType::FP8_E4M3 : DType::BF16;
    const double fraction = *LeadingNumber(cell("mem_param_value"));
    if (absl::StartsWith(engine, "vllm")) r.gpu_memory_utilization = fraction;
    if (absl::StartsWith(engine, "sglang")) r.mem_fraction_static = fraction;
    if (absl::StartsWith(engine, "trtllm")) r.free_gpu_memory_fraction = fraction;
    r.max_model_len = static_cast<int64_t>(LeadingNumber(cell("max_model_len")).value_or(0));
    r.block_size = static_cast<int>(*LeadingNumber(cell("block_size")));
    absl::StatusOr<MemoryPlan> plan = PlanEngineMemory(r);
    ASSERT_TRUE(plan.ok()) << plan.status();
    // V0-01 logs the KV cache in GiB only.
    const std::optional<double> tokens = LeadingNumber(cell("kv_cache_tokens"));
    const double logged =
        tokens ? *tokens : *LeadingNumber(cell("kv_cache_gib")) * kGiB / static_cast<double>(plan->kv_bytes_per_token);
    EXPECT_NEAR(static_cast<double>(plan->kv_tokens), logged, 0.01 * logged);
    ++checked;
  }
  EXPECT_EQ(checked, 5);
}

// ---------------------------------------------------------------------------------------------
// Terms and rules.

TEST(EngineWeights, CountedAsTheEnginesLoadThem) {
  // 8,030,261,248 params x 2 B + the 131,072 x 128 bf16 rotary cache = 14.9888 GiB ("14.9888 GB"
  // in vLLM 0.6.4 logs of Llama-3.1-8B).
  const MemoryPlanDetail bf16 = Explain(Request("vllm-v1@0.19", "llama-3.1-8b", "bf16", Gpu("h100-sxm")));
  EXPECT_NEAR(bf16.plan.weight_bytes, 8030261248.0 * 2 + 131072.0 * 128 * 2, 1);
  // fp8 keeps embedding and LM head (2 x 525,336,576) in bf16.
  const MemoryPlanDetail fp8 = Explain(Request("vllm-v1@0.19", "llama-3.1-8b", "fp8", Gpu("h100-sxm")));
  EXPECT_GT(fp8.stages[0].weights.embedding, 525336576.0 * 2 - 1);
  EXPECT_NEAR(fp8.plan.weight_bytes / kGiB, 8.49, 0.01);
  // awq: int4 with an fp16 scale + 4-bit zero per 128 weights on the linears only.
  const MemoryPlanDetail awq = Explain(Request("vllm-v1@0.19", "llama-3.1-8b", "awq", Gpu("h100-sxm")));
  const double linear_params = 8030261248.0 - 2 * 525336576.0 - (32 * 2 + 1) * 4096.0;
  EXPECT_NEAR(awq.stages[0].weights.linear, linear_params * (0.5 + 2.5 / 128), 1e3);
  // TP2 halves the shards but not the rotary cache.
  const MemoryPlanDetail tp2 = Explain(Request("vllm-v1@0.19", "llama-3.1-8b", "bf16", Gpu("h100-sxm"), 2));
  EXPECT_NEAR(tp2.stages[0].weights.linear, bf16.stages[0].weights.linear / 2, 1);
  EXPECT_DOUBLE_EQ(tp2.stages[0].weights.rope_cache, bf16.stages[0].weights.rope_cache);
}

TEST(EngineKvBytes, PerGpuHeadsLayersAndDtype) {
  MemoryPlanRequest r = Request("vllm-v1@0.19", "llama-3.3-70b", "fp8", Gpu("h200-sxm"), 1);
  r.max_model_len = 8192;
  EXPECT_EQ(Explain(r).plan.kv_bytes_per_token, 327680);
  r.tensor_parallel = 2;
  EXPECT_EQ(Explain(r).plan.kv_bytes_per_token, 163840);
  r.kv_dtype = DType::FP8_E4M3;
  EXPECT_EQ(Explain(r).plan.kv_bytes_per_token, 81920);
  // TP16 > 8 KV heads: each GPU holds one replicated head.
  r.tensor_parallel = 16;
  r.kv_dtype = DType::BF16;
  EXPECT_EQ(Explain(r).plan.kv_bytes_per_token, 80 * 2 * 1 * 128 * 2);
}

// Latent attention: one replicated latent per token and layer; vLLM's FlashMLA backend forces
// 64-token blocks; V0's cache engine pads each entry to 256 B counted in the model dtype
// (576 x 2 B = 1,152 B -> 1,280 B; with an fp8 cache, 640 elements of 1 B).
TEST(EngineKvBytes, LatentAttentionPerEngine) {
  MemoryPlanRequest r = Request("vllm-v1@0.21", "deepseek-v3", "fp8", Gpu("h200-sxm"), 8);
  r.max_model_len = 8192;
  const MemoryPlanDetail v1 = Explain(r);
  EXPECT_EQ(v1.plan.kv_bytes_per_token, 61 * 576 * 2);
  EXPECT_EQ(v1.plan.block_size, 64);
  r.block_size = 32;  // a size the user gives is kept
  EXPECT_EQ(Explain(r).plan.block_size, 32);
  r.block_size = 0;
  r.engine = "vllm-v0@0.6.5";
  EXPECT_EQ(Explain(r).plan.kv_bytes_per_token, 61 * 1280);
  r.kv_dtype = DType::FP8_E4M3;
  EXPECT_EQ(Explain(r).plan.kv_bytes_per_token, 61 * 640);
  r.kv_dtype = DType::BF16;
  r.engine = "sglang@0.4.9";
  EXPECT_EQ(Explain(r).plan.kv_bytes_per_token, 61 * 576 * 2);
  // The release before latent attention support cached full heads: refused, not mispriced.
  r.engine = "vllm-v0@0.5.3";
  absl::StatusOr<MemoryPlanDetail> old = ExplainEngineMemory(r);
  ASSERT_FALSE(old.ok());
  EXPECT_THAT(old.status().message(), HasSubstr("predates multi-head latent attention"));
}

// DeepSeek-V3 at TP8 in fp8: q_a and kv_a replicated, the rest sharded; three dense layers and
// 58 of 257 experts each a 1/8 shard, with one fp32 scale per output channel.
TEST(EngineWeights, LatentAttentionAndDenseLeadingLayers) {
  MemoryPlanRequest r = Request("vllm-v1@0.21", "deepseek-v3", "fp8", Gpu("h200-sxm"), 8);
  r.max_model_len = 8192;
  const MemoryPlanDetail plan = Explain(r);
  const double d = 7168, heads = 128 / 8;
  const double attention = d * 1536 + 1536 * heads * 192 + d * 576 + 512 * heads * 256 + heads * 128 * d;
  const double attention_rows = 1536 + heads * 192 + 576 + heads * 256 + d;
  const double dense = 3 * d * 18432 / 8, dense_rows = 2 * 18432 / 8 + d;
  const double experts = 257 * 3 * d * 2048 / 8, expert_rows = 257 * (2 * 2048 / 8 + d);
  const double linear = 61 * attention + 3 * dense + 58 * experts;
  const double rows = 61 * attention_rows + 3 * dense_rows + 58 * expert_rows;
  EXPECT_NEAR(plan.stages[0].weights.linear, linear * 1 + rows * 4, 1);
  // Norms (two per layer and two latent ones) and 58 routers stay in bf16.
  EXPECT_NEAR(plan.stages[0].weights.replicated, (61 * (2 * d + 1536 + 512) + 58 * d * 256 + d) * 2, 1);
  // Pipeline stages of 31 and 30 layers: the first holds the three dense layers, so the second
  // holds 30 expert layers to the first's 28.
  r.tensor_parallel = 4;
  r.pipeline_parallel = 2;
  const MemoryPlanDetail pp = Explain(r);
  ASSERT_EQ(pp.stages.size(), 2u);
  const double attention4 =
      d * 1536 + 1536 * 32 * 192 + d * 576 + 512 * 32 * 256 + 32 * 128 * d + 4 * (1536 + 32 * 192 + 576 + 32 * 256 + d);
  const double dense4 = 3 * d * 18432 / 4 + 4 * (2 * 18432 / 4 + d);
  const double experts4 = 257 * 3 * d * 2048 / 4 + 4 * 257 * (2 * 2048 / 4 + d);
  EXPECT_NEAR(pp.stages[0].weights.linear, 31 * attention4 + 3 * dense4 + 28 * experts4, 1);
  EXPECT_NEAR(pp.stages[1].weights.linear, 30 * (attention4 + experts4), 1);
}

// Expert parallelism at TP8: 32 whole routed experts per GPU (the same parameters as 1/8 of
// each of 256) but fewer output channels to scale, the shared expert still a 1/8 shard; experts
// that do not split evenly are refused.
TEST(EngineWeights, ExpertParallelPlacesWholeExperts) {
  MemoryPlanRequest r = Request("vllm-v1@0.21", "deepseek-v3", "fp8", Gpu("h200-sxm"), 8);
  r.max_model_len = 8192;
  const MemoryPlanDetail tp = Explain(r);
  r.expert_parallel = true;
  const MemoryPlanDetail ep = Explain(r);
  const double d = 7168;
  // Output channels of the experts of one layer: 257 shards of (2 x 256 + 7168) rows under TP;
  // 32 whole experts of (2 x 2048 + 7168) rows plus the shared shard under EP; 4 B each.
  const double tp_rows = 257 * (2 * 2048 / 8 + d), ep_rows = 32 * (2 * 2048 + d) + (2 * 2048 / 8 + d);
  EXPECT_NEAR(tp.stages[0].weights.linear - ep.stages[0].weights.linear, 58 * (tp_rows - ep_rows) * 4, 1);
  r.tensor_parallel = 16;
  r.model = testing::CatalogModel("mixtral-8x7b");
  r.weights = Weights("bf16");
  absl::StatusOr<MemoryPlanDetail> uneven = ExplainEngineMemory(r);
  ASSERT_FALSE(uneven.ok());
  EXPECT_THAT(uneven.status().message(),
              HasSubstr("--enable-expert-parallel: the 8 experts of mixtral-8x7b do not split evenly"));
}

// Attention data parallelism over 4 GPUs (TensorRT-LLM's enable_attention_dp at TP4): each GPU
// holds its rank's whole attention and dense weights and a quarter of the routed experts, so
// it holds exactly the TP1 weights less 3/4 of the experts, more than plain TP4 (attention a
// quarter each), and its KV cache is its own rank's (per-rank tokens fewer than TP4's pooled
// ones). 128 experts do not split over 3 x 1 GPUs.
TEST(EngineWeights, AttentionDataParallelReplicatesAttentionAndSpreadsExperts) {
  MemoryPlanRequest r = Request("trtllm@pytorch", "qwen3-30b-a3b", "bf16", Gpu("h100-sxm"), 1);
  r.max_model_len = 4096;
  r.expert_parallel = true;
  const MemoryPlanDetail tp1 = Explain(r);
  r.attention_data_parallel = 4;
  const MemoryPlanDetail dp4 = Explain(r);
  r.attention_data_parallel = 1;
  r.tensor_parallel = 4;
  const MemoryPlanDetail tp4 = Explain(r);
  // Routed experts of one layer: 128 x 3 matrices of 2048 x 768, bf16; 48 layers.
  const double experts = 48.0 * 128 * 3 * 2048 * 768 * 2;
  EXPECT_NEAR(tp1.stages[0].weights.linear - dp4.stages[0].weights.linear, experts * 3 / 4, 1);
  EXPECT_GT(dp4.plan.weight_bytes, tp4.plan.weight_bytes);
  EXPECT_LT(dp4.plan.kv_tokens, tp4.plan.kv_tokens);
  EXPECT_GT(dp4.plan.kv_tokens, tp1.plan.kv_tokens);
  r.tensor_parallel = 1;
  r.attention_data_parallel = 3;
  absl::StatusOr<MemoryPlanDetail> uneven = ExplainEngineMemory(r);
  ASSERT_FALSE(uneven.ok());
  EXPECT_THAT(uneven.status().message(), HasSubstr("128 experts of qwen3-30b-a3b do not split evenly over 3 GPUs"));
}

TEST(EngineActivation, V1PeakIsTheSamplerAndIgnoresMaxModelLen) {
  MemoryPlanRequest r = Request("vllm-v1@0.19", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  r.max_model_len = 8192;
  const MemoryPlanDetail at_8k = Explain(r);
  r.max_model_len = 32768;
  const MemoryPlanDetail at_32k = Explain(r);
  EXPECT_DOUBLE_EQ(at_8k.plan.activation_peak_bytes, at_32k.plan.activation_peak_bytes);
  // 64 MiB of retained hidden states + 3.735 x 1024 rows x 128,256 x 4 B.
  EXPECT_NEAR(at_8k.plan.activation_peak_bytes, 8192.0 * 4096 * 2 + 3.735 * 1024 * 128256 * 4, 1);
  // A larger dummy batch makes the forward pass the peak.
  r.max_num_batched_tokens = 32768;
  const MemoryPlanDetail big = Explain(r);
  EXPECT_GT(big.stages[0].activation.forward, big.stages[0].activation.retained + big.stages[0].activation.logits);
  EXPECT_DOUBLE_EQ(big.plan.activation_peak_bytes, big.stages[0].activation.forward);
  // The 0.11 profile sampled with top-k/top-p: 4.76 GiB for the same model and batch.
  r.max_num_batched_tokens = 0;
  r.engine = "vllm-v1@0.11";
  r.max_model_len = 8192;
  EXPECT_NEAR(Explain(r).plan.activation_peak_bytes / kGiB, 4.76, 0.01);
}

TEST(EngineActivation, V0PeakGrowsWithMaxModelLenUntilChunkedPrefill) {
  MemoryPlanRequest r = Request("vllm-v0@0.6.5", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  r.max_model_len = 8192;
  const MemoryPlanDetail at_8k = Explain(r);
  r.max_model_len = 16384;
  const MemoryPlanDetail at_16k = Explain(r);
  EXPECT_EQ(at_8k.max_num_batched_tokens, 8192);
  EXPECT_EQ(at_16k.max_num_batched_tokens, 16384);
  EXPECT_NEAR(at_16k.plan.activation_peak_bytes / at_8k.plan.activation_peak_bytes, 2.0, 1e-9);
  r.max_model_len = 65536;  // > 32,768: chunked prefill, 2,048-token steps (PR #10544)
  const MemoryPlanDetail chunked = Explain(r);
  EXPECT_EQ(chunked.max_num_batched_tokens, 2048);
  EXPECT_NEAR(chunked.plan.activation_peak_bytes / at_8k.plan.activation_peak_bytes, 0.25, 1e-9);
  r.engine = "vllm-v0@0.6.3";  // before PR #10544: 512-token steps
  const MemoryPlanDetail before = Explain(r);
  EXPECT_EQ(before.max_num_batched_tokens, 512);
  EXPECT_LT(before.plan.activation_peak_bytes, chunked.plan.activation_peak_bytes / 2);
}

TEST(EngineCudaGraphs, SubtractedFromVllm021Only) {
  MemoryPlanRequest r = Request("vllm-v1@0.19", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  r.max_model_len = 8192;
  const MemoryPlanDetail v19 = Explain(r);
  r.engine = "vllm-v1@0.21";
  const MemoryPlanDetail v21 = Explain(r);
  EXPECT_TRUE(v21.cuda_graph_subtracted);
  EXPECT_NEAR(v19.plan.kv_cache_bytes - v21.plan.kv_cache_bytes, v19.plan.cuda_graph_bytes, 1);
  r.enable_cuda_graphs = false;  // --enforce-eager
  EXPECT_NEAR(Explain(r).plan.kv_cache_bytes, v19.plan.kv_cache_bytes, 1);
  EXPECT_EQ(Explain(r).plan.cuda_graph_bytes, 0);
}

TEST(EngineDefaults, VllmBatchLimitsByGpu) {
  MemoryPlanRequest r = Request("vllm-v1@0.19", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  r.max_model_len = 8192;
  EXPECT_EQ(Explain(r).max_num_seqs, 1024);
  r.gpu = Gpu("a100-80gb");  // >= 70 GiB but an A100: the small defaults
  EXPECT_EQ(Explain(r).max_num_batched_tokens, 2048);
  EXPECT_EQ(Explain(r).max_num_seqs, 256);
  EXPECT_NEAR(Explain(r).plan.total_bytes / kGiB, 79.15, 1e-9);
}

// vLLM's offline LLM class (what `vllm bench latency/throughput` build) gets larger batch
// defaults than the server (EngineArgs.get_batch_defaults: UsageContext.LLM_CLASS); V0 has one
// set for both. The larger token budget also raises the profiled activation peak.
TEST(EngineDefaults, VllmOfflineClassBatchesMore) {
  MemoryPlanRequest r = Request("vllm-v1@0.21", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  r.max_model_len = 8192;
  const MemoryPlanDetail server = Explain(r);
  r.offline = true;
  const MemoryPlanDetail offline = Explain(r);
  EXPECT_EQ(server.max_num_batched_tokens, 8192);
  EXPECT_EQ(offline.max_num_batched_tokens, 16384);
  EXPECT_EQ(offline.max_num_seqs, 1024);
  EXPECT_LT(offline.plan.kv_cache_bytes, server.plan.kv_cache_bytes);
  r.gpu = Gpu("a100-80gb");
  EXPECT_EQ(Explain(r).max_num_batched_tokens, 8192);
  EXPECT_EQ(Explain(r).max_num_seqs, 256);
  r.max_num_batched_tokens = 4096;  // a given value stands
  EXPECT_EQ(Explain(r).max_num_batched_tokens, 4096);
  r = Request("vllm-v0@0.6.5", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  r.max_model_len = 8192;
  const int64_t v0_server = Explain(r).max_num_batched_tokens;
  r.offline = true;
  EXPECT_EQ(Explain(r).max_num_batched_tokens, v0_server);
}

// SGLang's chunked_prefill_size by GPU memory (server_args.py): 8192 on an H100 or H200 and
// 16,384 on a B200 (0.4.9; 8192 on 0.4.1, whose tiers stop at 25,000 MiB).
TEST(EngineDefaults, SglangChunkedPrefillSizeFollowsGpuMemory) {
  MemoryPlanRequest r = Request("sglang@0.4.9", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  r.max_model_len = 8192;
  EXPECT_EQ(Explain(r).max_num_batched_tokens, 8192);
  r.gpu = Gpu("h200-sxm");
  EXPECT_EQ(Explain(r).max_num_batched_tokens, 8192);
  r.gpu = Gpu("b200");
  EXPECT_EQ(Explain(r).max_num_batched_tokens, 16384);
  r.engine = "sglang@0.4.1";
  EXPECT_EQ(Explain(r).max_num_batched_tokens, 8192);
}

TEST(EngineDefaults, SglangFractions) {
  MemoryPlanRequest r = Request("sglang@0.4.1", "llama-3.1-8b", "bf16", Gpu("h100-sxm"), 2);
  EXPECT_DOUBLE_EQ(Explain(r).fraction, 0.87);
  r.tensor_parallel = 8;
  EXPECT_DOUBLE_EQ(Explain(r).fraction, 0.81);
  // Reserve rule: H100 (81,559 MiB) TP1 reserves 10 GiB; H200 (143,771 MiB) TP2 reserves 13 GiB.
  r.engine = "sglang@0.4.9";
  r.tensor_parallel = 1;
  EXPECT_DOUBLE_EQ(Explain(r).fraction, 0.874);
  r.gpu = Gpu("h200-sxm");
  r.tensor_parallel = 2;
  EXPECT_DOUBLE_EQ(Explain(r).fraction, 0.907);
  // L40S is in no reserve class: the old table.
  r.gpu = Gpu("l40s");
  r.model = testing::CatalogModel("llama-3.1-8b");
  EXPECT_DOUBLE_EQ(Explain(r).fraction, 0.87);
  // The newer rule takes the request pool off the KV share: (2048 + 1) x (131,072 + 4) x 4 B.
  r.gpu = Gpu("h100-sxm");
  r.tensor_parallel = 1;
  EXPECT_DOUBLE_EQ(Explain(r).stages[0].req_to_token_bytes, 2049.0 * 131076 * 4);
  EXPECT_EQ(Explain(r).max_num_seqs, 2048);
  r.max_num_seqs = 512;  // --max-running-requests
  EXPECT_DOUBLE_EQ(Explain(r).stages[0].req_to_token_bytes, 513.0 * 131076 * 4);
}

// SGLang 0.5.3's reserve: 512 + 1.5 x max(chunk, 2048) + 2 x cuda_graph_max_bs + 128 x TP x PP
// MiB, at least 10 GiB above 60 GiB; fraction = round((M - reserve) / M, 3).
TEST(EngineDefaults, Sglang053ReservesByChunkGraphBatchAndGpus) {
  MemoryPlanRequest r = Request("sglang@0.5.3", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  // H100 (81,559 MiB), TP1: 512 + 1.5 x 8192 + 2 x 256 + 128 = 13,440 MiB -> 0.8352.
  EXPECT_DOUBLE_EQ(Explain(r).fraction, 0.835);
  // H200 (143,771 MiB), TP1: the same 13,440 MiB -> 0.9065; TP4: 512 + 12,288 + 2 x 512 + 512
  // = 14,336 MiB -> 0.9003.
  r.gpu = Gpu("h200-sxm");
  EXPECT_DOUBLE_EQ(Explain(r).fraction, 0.907);
  r.tensor_parallel = 4;
  r.model = testing::CatalogModel("llama-3.1-70b");
  EXPECT_DOUBLE_EQ(Explain(r).fraction, 0.9);
  // L40S (46,068 MiB) chunks at 4096: 512 + 6144 + 512 + 128 = 7,296 MiB, no 10 GiB floor below
  // 60 GiB -> 0.8416.
  r = Request("sglang@0.5.3", "llama-3.1-8b", "bf16", Gpu("l40s"));
  EXPECT_EQ(Explain(r).max_num_batched_tokens, 4096);
  EXPECT_DOUBLE_EQ(Explain(r).fraction, 0.842);
  // 0.4.9 chunks 8192 there and keeps its own table.
  r.engine = "sglang@0.4.9";
  EXPECT_EQ(Explain(r).max_num_batched_tokens, 8192);
}

TEST(EngineFractions, TensorRtFractionAppliesToWhatRemains) {
  MemoryPlanRequest r = Request("trtllm", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  const MemoryPlanDetail full = Explain(r);
  EXPECT_EQ(full.plan.engine, "trtllm@pytorch");
  EXPECT_DOUBLE_EQ(full.fraction, 0.9);
  r.free_gpu_memory_fraction = 0.45;
  const MemoryPlanDetail half = Explain(r);
  EXPECT_NEAR(half.plan.kv_cache_bytes, full.plan.kv_cache_bytes / 2, 1);
  // ...whereas vLLM's is a share of the whole card: halving it loses more than half.
  MemoryPlanRequest v = Request("vllm-v1", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  v.gpu_memory_utilization = 0.45;
  EXPECT_LT(Explain(v).plan.kv_cache_bytes,
            Explain(Request("vllm-v1", "llama-3.1-8b", "bf16", Gpu("h100-sxm"))).plan.kv_cache_bytes / 2);
}

TEST(EngineOverrides, BlocksAndKvMemory) {
  MemoryPlanRequest r = Request("vllm-v1@0.19", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  r.max_model_len = 8192;
  r.num_gpu_blocks_override = 1000;  // vLLM uses it as is
  EXPECT_EQ(Explain(r).plan.num_blocks, 1000);
  EXPECT_EQ(Explain(r).plan.kv_tokens, 16000);
  r.num_gpu_blocks_override = 0;
  r.kv_cache_memory_bytes = 10 * kGiB;  // 10 GiB / (16 x 131,072 B) = 5,120 blocks
  EXPECT_EQ(Explain(r).plan.num_blocks, 5120);
  // TensorRT-LLM's max_tokens and SGLang's max_total_tokens only ever lower the count: a larger
  // override, which the engine would ignore, is refused rather than dropped.
  MemoryPlanRequest t = Request("trtllm", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  const int64_t computed = Explain(t).plan.num_blocks;
  t.num_gpu_blocks_override = computed;
  EXPECT_EQ(Explain(t).plan.num_blocks, computed);
  t.num_gpu_blocks_override = computed + 1;
  const absl::StatusOr<MemoryPlanDetail> ignored = ExplainEngineMemory(t);
  ASSERT_FALSE(ignored.ok());
  EXPECT_THAT(ignored.status().message(),
              HasSubstr(absl::StrCat("--num-gpu-blocks-override=", computed + 1, " is more than the ", computed,
                                     " blocks trtllm@pytorch computes; its cap (max_tokens) only lowers the count")));
  t.num_gpu_blocks_override = 100;
  EXPECT_EQ(Explain(t).plan.num_blocks, 100);
}

// KV overrides no GPU holds are refused: vLLM would fail to allocate them (and 2^31 blocks of 16
// tokens printed a negative int32 capacity).
TEST(EngineOverrides, KvLargerThanTheGpuIsRefused) {
  MemoryPlanRequest r = Request("vllm-v1@0.19", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  r.num_gpu_blocks_override = (int64_t{1} << 31) - 1;
  absl::StatusOr<MemoryPlanDetail> blocks = ExplainEngineMemory(r);
  ASSERT_FALSE(blocks.ok());
  EXPECT_THAT(blocks.status().message(),
              HasSubstr("--num-gpu-blocks-override=2147483647: that many blocks of 16 tokens x 131072 B take "
                        "4194304.00 GiB per GPU, more than the GPU's 79.19 GiB (h100-sxm)"));
  r.num_gpu_blocks_override = 0;
  r.kv_cache_memory_bytes = 80 * kGiB;
  absl::StatusOr<MemoryPlanDetail> bytes = ExplainEngineMemory(r);
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(bytes.status().message(), HasSubstr("--kv-cache-memory=80.00 GiB is more than the GPU's 79.19 GiB"));
  r.kv_cache_memory_bytes = 79 * kGiB;  // within the GPU: as given
  r.max_model_len = 8192;
  EXPECT_EQ(Explain(r).plan.kv_cache_bytes, 79 * kGiB);
}

TEST(EnginePipeline, SmallestStageWins) {
  MemoryPlanRequest r = Request("vllm-v1@0.19", "llama-3.3-70b", "fp8", Gpu("h100-sxm"), 2);
  r.max_model_len = 8192;
  r.pipeline_parallel = 3;
  const MemoryPlanDetail d = Explain(r);
  ASSERT_EQ(d.stages.size(), 3u);
  EXPECT_EQ(d.stages[0].layers, 27);
  EXPECT_EQ(d.stages[1].layers, 27);
  EXPECT_EQ(d.stages[2].layers, 26);
  int64_t fewest = d.stages[0].num_blocks;
  for (const StagePlan& s : d.stages) fewest = std::min(fewest, s.num_blocks);
  EXPECT_EQ(d.plan.num_blocks, fewest);
  EXPECT_EQ(d.plan.kv_bytes_per_token, d.stages[static_cast<size_t>(d.limiting_stage)].kv_bytes_per_token);
}

TEST(EnginePersonalities, WatermarkMustBeASmallFraction) {
  EnginePersonality p = *ResolveEnginePersonality("vllm-v0");
  EXPECT_TRUE(ValidateEnginePersonality(p, "x").ok());
  for (double bad : {-0.01, 0.5, std::nan("")}) {
    p.set_watermark_fraction(bad);
    EXPECT_THAT(ValidateEnginePersonality(p, "x.textproto").message(), HasSubstr("x.textproto: watermark_fraction"))
        << bad;
  }
}

TEST(EnginePersonalities, VersionsResolve) {
  EXPECT_THAT(EnginePersonalityNames(),
              ::testing::IsSupersetOf({"vllm-v1@0.11", "vllm-v1@0.19", "vllm-v1@0.21", "vllm-v0@0.6.5", "sglang@0.4.1",
                                       "sglang@0.4.9", "sglang@0.5.3", "trtllm@pytorch", "trtllm@cpp"}));
  EXPECT_EQ(PersonalityName(*ResolveEnginePersonality("vllm-v1")), "vllm-v1@0.21");
  EXPECT_EQ(PersonalityName(*ResolveEnginePersonality("VLLM-V0")), "vllm-v0@0.6.5");
  EXPECT_EQ(PersonalityName(*ResolveEnginePersonality("sglang")), "sglang@0.4.9");
  EXPECT_EQ(PersonalityName(*ResolveEnginePersonality("trtllm@cpp")), "trtllm@cpp");
  for (const char* bad : {"vllm-v2", "vllm-v1@0.5", "tgi"}) {
    absl::StatusOr<EnginePersonality> p = ResolveEnginePersonality(bad);
    EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(p.status().message(), HasSubstr("vllm-v1@0.19"));
  }
  // The C++ runtime differs from the PyTorch backend in its block size.
  EXPECT_EQ(Explain(Request("trtllm@cpp", "llama-3.1-8b", "bf16", Gpu("h100-sxm"))).plan.block_size, 64);
}

// A version without a personality of its own runs on the newest one at or below it (versions
// compared number by number: 0.9 < 0.11 < 0.13.2), one past them all on the newest, with a
// note naming the personality; the named versions run as themselves, without one.
TEST(EnginePersonalities, AVersionBetweenPersonalitiesRunsOnTheNewestBelowIt) {
  const auto resolves = [](const char* name, const char* personality, const char* note) {
    absl::StatusOr<ResolvedEngine> r = ResolveEngine(name);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status();
    EXPECT_EQ(PersonalityName(r->personality), personality) << name;
    EXPECT_EQ(r->note, note) << name;
  };
  resolves("vllm-v1@0.13.2", "vllm-v1@0.11",
           "vllm-v1@0.13.2 runs on personality vllm-v1@0.11 (the newest at or below 0.13.2)");
  // The version the vllm_v1_under_load.csv runs most likely used.
  resolves("vllm-v1@0.15.1", "vllm-v1@0.15",
           "vllm-v1@0.15.1 runs on personality vllm-v1@0.15 (the newest at or below 0.15.1)");
  resolves("vllm-v1@0.20.1", "vllm-v1@0.19",
           "vllm-v1@0.20.1 runs on personality vllm-v1@0.19 (the newest at or below 0.20.1)");
  resolves("VLLM-V0@0.6.4", "vllm-v0@0.6.3",
           "vllm-v0@0.6.4 runs on personality vllm-v0@0.6.3 (the newest at or below 0.6.4)");
  resolves("sglang@0.5.0", "sglang@0.4.9",
           "sglang@0.5.0 runs on personality sglang@0.4.9 (the newest at or below 0.5.0)");
  // Past the newest: the newest.
  resolves("vllm-v1@0.99", "vllm-v1@0.21",
           "vllm-v1@0.99 runs on personality vllm-v1@0.21 (the newest vllm-v1 "
           "personality; 0.99 is past it)");
  // Named versions, spelled with or without a trailing .0, and names without one: no note.
  resolves("vllm-v1@0.19", "vllm-v1@0.19", "");
  resolves("vllm-v1@0.19.0", "vllm-v1@0.19", "");
  resolves("vllm-v1", "vllm-v1@0.21", "");
  resolves("trtllm@pytorch", "trtllm@pytorch", "");
  EXPECT_EQ(PersonalityName(*ResolveEnginePersonality("vllm-v1@0.13.2")), "vllm-v1@0.11");
}

TEST(EnginePersonalities, VersionsBelowTheOldestOrOfAnotherMajorAreRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {"vllm-v1@0.9", "'vllm-v1@0.9' is older than the oldest vllm-v1 personality, vllm-v1@0.11"},
      {"sglang@0.3.6", "older than the oldest sglang personality, sglang@0.4.1"},
      {"vllm-v1@1.2", "no personality of major version 1 (known: vllm-v1@0.11, "},
      {"vllm-v1@abc", "unknown engine 'vllm-v1@abc'"},
      {"vllm-v1@0.15.x", "unknown engine 'vllm-v1@0.15.x'"},
      {"vllm-v1@0..15", "unknown engine 'vllm-v1@0..15'"},
      {"trtllm@1.0", "unknown engine 'trtllm@1.0'"},  // its personalities are not numbered
      {"trtllm@torch", "unknown engine 'trtllm@torch'"},
  };
  for (const auto& [name, message] : cases) {
    absl::StatusOr<ResolvedEngine> r = ResolveEngine(name);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_THAT(r.status().message(), HasSubstr(message)) << name;
    EXPECT_THAT(r.status().message(), HasSubstr(absl::StrContains(name, "trtllm") ? "trtllm@cpp" : "@0.")) << name;
  }
}

// ---------------------------------------------------------------------------------------------
// Errors.

TEST(EngineErrors, FractionsOutsideZeroOne) {
  MemoryPlanRequest r = Request("vllm-v1", "llama-3.1-8b", "bf16", Gpu("h100-sxm"));
  for (double bad : {0.0, -0.1, 1.5}) {
    r.gpu_memory_utilization = bad;
    absl::StatusOr<MemoryPlan> plan = PlanEngineMemory(r);
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(plan.status().message(), HasSubstr("--gpu-memory-utilization"));
  }
  r.gpu_memory_utilization = 1.0;  // (0, 1] includes 1
  r.max_model_len = 8192;
  EXPECT_TRUE(PlanEngineMemory(r).ok());
  r.mem_fraction_static = 1.2;
  EXPECT_THAT(PlanEngineMemory(r).status().message(), HasSubstr("--mem-fraction-static=1.2 is outside (0, 1]"));
  r.mem_fraction_static = 0;
  r.free_gpu_memory_fraction = -0.5;
  EXPECT_THAT(PlanEngineMemory(r).status().message(), HasSubstr("--free-gpu-memory-fraction"));
}

TEST(EngineErrors, TensorParallelMustShardTheHeads) {
  MemoryPlanRequest r = Request("vllm-v1", "llama-3.1-8b", "bf16", Gpu("h100-sxm"), 3);
  absl::StatusOr<MemoryPlan> plan = PlanEngineMemory(r);
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(plan.status().message(), HasSubstr("--tensor-parallel-size=3 does not divide the 32 attention heads"));
  // Qwen2.5-7B: 28 query heads, 4 KV heads; TP 7 divides 28 but neither divides nor is a multiple of 4.
  r = Request("vllm-v1", "qwen2.5-7b", "bf16", Gpu("h100-sxm"), 7);
  EXPECT_THAT(PlanEngineMemory(r).status().message(), HasSubstr("cannot shard the 4 KV heads"));
  r.tensor_parallel = 0;
  EXPECT_EQ(PlanEngineMemory(r).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(EngineErrors, ModelThatDoesNotFitSaysByHowMuch) {
  // Llama-3.3-70B bf16 on one H100: 131.5 GiB of weights against 0.9 x 79.19 = 71.27 GiB.
  MemoryPlanRequest r = Request("vllm-v1", "llama-3.3-70b", "bf16", Gpu("h100-sxm"));
  absl::StatusOr<MemoryPlanDetail> d = ExplainEngineMemory(r);
  ASSERT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(d.status().message(), HasSubstr("does not fit"));
  const double weights_gib = (static_cast<double>(CountParameters(r.model).Total()) * 2 + 131072.0 * 128 * 2) / kGiB;
  EXPECT_THAT(d.status().message(), HasSubstr(absl::StrFormat("%.2f GiB more than", weights_gib - 0.9 * 79.19)));
  for (const char* engine : {"sglang", "trtllm", "vllm-v0"}) {
    r.engine = engine;
    EXPECT_EQ(PlanEngineMemory(r).status().code(), absl::StatusCode::kFailedPrecondition) << engine;
    EXPECT_THAT(PlanEngineMemory(r).status().message(), HasSubstr("GiB")) << engine;
  }
  // Fits, but the cache cannot hold one 131,072-token request: vLLM refuses to start.
  r = Request("vllm-v1@0.19", "llama-3.3-70b", "fp8", Gpu("h100-sxm"));
  d = ExplainEngineMemory(r);
  ASSERT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(d.status().message(), HasSubstr("max_model_len 131072"));
}

// ---------------------------------------------------------------------------------------------
// Configurations no reference log covers: every catalog model, TP 1/2/4, bf16/fp8/awq weights,
// bf16/fp8 KV, every engine. Each plan either stands or fails with the documented error, and
// the plans relate as the rules say.

TEST(EngineSweep, UnseenConfigurationsBehave) {
  int planned = 0;
  for (const std::string& model : ModelCatalogNames()) {
    for (const std::string& engine : EnginePersonalityNames()) {
      for (int tp : {1, 2, 4}) {
        for (const char* weights : {"bf16", "fp8", "awq"}) {
          MemoryPlanRequest r = Request(engine, model, weights, Gpu("h100-sxm"), tp);
          r.max_model_len = 4096;
          absl::StatusOr<MemoryPlanDetail> bf16_kv = ExplainEngineMemory(r);
          if (!bf16_kv.ok()) {
            const absl::StatusCode code = bf16_kv.status().code();
            EXPECT_TRUE(code == absl::StatusCode::kInvalidArgument || code == absl::StatusCode::kFailedPrecondition)
                << model << " " << engine << " TP" << tp << " " << weights << ": " << bf16_kv.status();
            if (code == absl::StatusCode::kFailedPrecondition) {
              EXPECT_THAT(bf16_kv.status().message(), HasSubstr("GiB"));
            }
            continue;
          }
          ++planned;
          const MemoryPlan& plan = bf16_kv->plan;
          SCOPED_TRACE(absl::StrCat(model, " ", engine, " TP", tp, " ", weights));
          EXPECT_GT(plan.kv_tokens, 0);
          EXPECT_EQ(plan.kv_tokens, plan.num_blocks / plan.kv_groups.groups() * plan.block_size);
          EXPECT_LE(static_cast<double>(plan.num_blocks * plan.block_size * plan.kv_bytes_per_token),
                    plan.kv_cache_bytes + 1);
          EXPECT_LT(plan.weight_bytes + plan.kv_cache_bytes, plan.total_bytes);
          EXPECT_EQ(plan.log_lines.empty(), false);
          // fp8 KV leaves every other term alone and halves the bytes per token.
          r.kv_dtype = DType::FP8_E4M3;
          absl::StatusOr<MemoryPlan> fp8_kv = PlanEngineMemory(r);
          ASSERT_TRUE(fp8_kv.ok()) << fp8_kv.status();
          EXPECT_EQ(fp8_kv->kv_bytes_per_token * 2, plan.kv_bytes_per_token);
          EXPECT_GE(fp8_kv->kv_tokens, 2 * plan.kv_tokens - 2 * plan.block_size);
        }
      }
    }
  }
  EXPECT_GT(planned, 200);
}

TEST(EngineSweep, MoreTensorParallelismMoreTokensPerReplica) {
  for (const char* engine : {"vllm-v1", "vllm-v0", "sglang", "trtllm"}) {
    MemoryPlanRequest r = Request(engine, "llama-3.3-70b", "fp8", Gpu("h100-sxm"), 2);
    r.max_model_len = 8192;
    const int64_t tp2 = Explain(r).plan.kv_tokens;
    r.tensor_parallel = 4;
    const int64_t tp4 = Explain(r).plan.kv_tokens;
    EXPECT_GT(tp4, tp2 * 2) << engine;  // twice the GPUs, and each carries half the weights
  }
}

// ---------------------------------------------------------------------------------------------
// `infergrid memory --engine=...`

constexpr char kV19Args[] =
    "memory --engine=vllm-v1@0.19 --model=llama-3.1-8b --gpu=h100-sxm --gpu-memory-utilization=0.95 "
    "--max-model-len=8192";

TEST(MemoryEngineCli, TablePrintsTermsAndTheEngineLog) {
  const testing::CommandResult r = RunInfergrid(kV19Args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const MemoryPlan plan = Explain(ReferenceRequest(kReference[0])).plan;
  EXPECT_THAT(r.out, HasSubstr("as vllm-v1@0.19"));
  EXPECT_THAT(r.out, HasSubstr("budget = total x 0.95"));
  EXPECT_THAT(r.out, HasSubstr("- activation peak (profile run)"));
  EXPECT_THAT(r.out, HasSubstr("CUDA-graph estimate (not subtracted)"));
  EXPECT_THAT(r.out, HasSubstr("Model loading took 14.99 GiB memory"));
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("GPU KV cache size: ", plan.kv_tokens / 1000, ",")));
  EXPECT_THAT(r.out, HasSubstr("Maximum concurrency for 8,192 tokens per request: 58.1"));
  EXPECT_EQ(r.err, "");
}

TEST(MemoryEngineCli, JsonHasCapacityInBytesTokensAndBlocks) {
  const testing::CommandResult r = RunInfergrid(std::string(kV19Args) + " --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "vllm-v1@0.19");
  ASSERT_TRUE(j["kv_cache"]["tokens"].is_number());
  ASSERT_TRUE(j["kv_cache"]["blocks"].is_number());
  ASSERT_TRUE(j["kv_cache"]["bytes"].is_number());
  EXPECT_NEAR(j["kv_cache"]["tokens"].get<double>(), 476016, 4760);
  EXPECT_EQ(j["kv_cache"]["tokens"].get<int64_t>(), j["kv_cache"]["blocks"].get<int64_t>() * 16);
  EXPECT_NEAR(j["kv_cache"]["bytes"].get<double>() / kGiB, 58.11, 0.03);
  EXPECT_DOUBLE_EQ(j["kv_cache"]["bytes_per_token"].get<double>(), 131072);
  EXPECT_NEAR(j["activation_peak_bytes"].get<double>() / kGiB, 1.89, 0.01);
  EXPECT_EQ(j["fraction_flag"], "gpu_memory_utilization");
  EXPECT_FALSE(j["log_lines"].empty());
}

// A capacity past 2^31 tokens (a one-layer model of 4 bytes a token) is counted in 64 bits in
// memory --engine and in simulate's summary: the int32 fields wrapped it (to 1,827,022,672 here,
// negative for other sizes).
TEST(MemoryEngineCli, CapacitiesPastInt32AreExact) {
  const std::string config = testing::WriteFile(testing::TestDir() / "tiny" / "config.json", R"({"model_type": "llama",
      "hidden_size": 64, "intermediate_size": 64, "num_attention_heads": 64, "num_key_value_heads": 1,
      "num_hidden_layers": 1, "vocab_size": 100, "max_position_embeddings": 8192})");
  const testing::CommandResult r = RunInfergrid("memory --engine=vllm-v1 --format=json --model=" + config);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["kv_cache"]["tokens"].is_number());
  EXPECT_EQ(j["kv_cache"]["tokens"].get<int64_t>(), j["kv_cache"]["blocks"].get<int64_t>() * 16);
  EXPECT_GT(j["kv_cache"]["tokens"].get<int64_t>(), int64_t{1} << 34);
  const std::string tokens = absl::StrCat(j["kv_cache"]["tokens"].get<int64_t>());
  const testing::CommandResult summary =
      RunInfergrid("simulate --max-requests=3 --format=json --record-wall-time=false --model=" + config);
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  const nlohmann::json memory = nlohmann::json::parse(summary.out)["memory"];
  EXPECT_EQ(absl::StrCat(memory["kv_tokens"].get<int64_t>()), tokens);
  EXPECT_EQ(memory["kv_tokens"].get<int64_t>(), memory["num_gpu_blocks"].get<int64_t>() * 16);
}

TEST(MemoryEngineCli, EachEngineWithItsOwnFlags) {
  testing::CommandResult r =
      RunInfergrid("memory --engine=sglang@0.4.1 --model=llama-3.1-8b --mem-fraction-static=0.88 --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(nlohmann::json::parse(r.out)["kv_cache"]["tokens"].get<double>(), 444500, 4445);

  const std::string gpu = testing::WriteFile(testing::TestDir() / "rtx-5090.textproto", R"(
name: "rtx-5090" display_name: "NVIDIA GeForce RTX 5090" reported_total_mib: 32607
framework_total_gib: 31.84 tensor_peaks { fp16_flops: 209.5e12 } hbm_bytes_per_s: 1.792e12)");
  r = RunInfergrid(
      "memory --engine=trtllm --model=llama-3.1-8b --quantization=fp8 --kv-cache-dtype=fp8 "
      "--block-size=32 --free-gpu-memory-fraction=0.9 --gpu=" +
      gpu);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(
      r.out,
      HasSubstr("Memory usage when calculating max tokens in paged kv cache: total: 31.84 GiB, available: 17.8"));
  EXPECT_THAT(r.out, HasSubstr("Number of tokens per block: 32."));

  r = RunInfergrid(
      "memory --engine=vllm-v0 --model=llama-3-8b --tensor-parallel-size=2 --max-num-seqs=128 "
      "--kv-cache-dtype=fp8 --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tensor_parallel"], 2);
  EXPECT_EQ(j["max_num_seqs"], 128);
  EXPECT_DOUBLE_EQ(j["kv_cache"]["bytes_per_token"].get<double>(), 32 * 2 * 4 * 128 * 1);

  r = RunInfergrid(
      "memory --engine=vllm-v1 --model=llama-3.1-8b --kv-cache-memory=10GiB --max-model-len=8192 --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kv_cache"]["tokens"], 81920);

  r = RunInfergrid(
      "memory --engine=vllm-v1 --model=llama-3.1-8b --num-gpu-blocks-override=2048 --max-model-len=8192 --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kv_cache"]["blocks"], 2048);

  r = RunInfergrid(
      "memory --engine=vllm-v1 --model=llama-3.3-70b --quantization=fp8 --pipeline-parallel-size=2 "
      "--tensor-parallel-size=2 --max-model-len=8192");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("pipeline stages (layers: blocks): 40: "));
}

TEST(MemoryEngineCli, BadInputIsAClearError) {
  const testing::CliErrorCase cases[] = {
      {"memory --engine=vllm-v1 --gpu-memory-utilization=1.5", 2, "--gpu-memory-utilization=1.5 is outside (0, 1]"},
      {"memory --engine=vllm-v1 --gpu-memory-utilization=0", 2, "--gpu-memory-utilization=0 is outside (0, 1]"},
      {"memory --engine=sglang --mem-fraction-static=2", 2, "--mem-fraction-static=2 is outside (0, 1]"},
      {"memory --engine=trtllm --free-gpu-memory-fraction=-1", 2, "--free-gpu-memory-fraction=-1 is outside (0, 1]"},
      {"memory --engine=vllm-v1 --mem-fraction-static=0.8", 2,
       "not a vllm-v1 flag; its fraction is --gpu-memory-utilization"},
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --tensor-parallel-size=3", 2,
       "does not divide the 32 attention heads"},
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --pipeline-parallel-size=33", 2, "--pipeline-parallel-size=33"},
      {"memory --engine=vllm-v2", 2, "--engine: unknown engine 'vllm-v2'"},
      {"memory --engine=vllm-v1 --kv-cache-memory=lots", 2, "--kv-cache-memory"},
      {"memory --tensor-parallel-size=2", 2, "--tensor-parallel-size is an engine flag"},
      {"memory --engine=sglang@0.5.3 --swa-full-tokens-ratio=1.5", 2, "--swa-full-tokens-ratio=1.5 is outside (0, 1]"},
      {"memory --engine=sglang@0.4.9 --swa-full-tokens-ratio=0.5", 2, "sglang@0.4.9 does not have (sglang@0.5.3 does)"},
      {"memory --swa-full-tokens-ratio=0.5", 2, "--swa-full-tokens-ratio is an engine flag"},
      {"memory --engine=vllm-v1 --model=llama-3.3-70b", 1, "does not fit"},
      {"memory --engine=sglang --model=llama-3.3-70b", 1, "exceed mem_fraction_static"},
      {"memory --engine=vllm-v1@0.19 --model=llama-3.3-70b --quantization=fp8", 1, "lower --max-model-len"},
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --num-gpu-blocks-override=100", 1, "it holds 1600 tokens"},
      // Overrides checked against the device and the engine (a flag the engine would ignore).
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --num-gpu-blocks-override=2147483647", 2,
       "take 4194304.00 GiB per GPU, more than the GPU's 79.19 GiB"},
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --kv-cache-memory=1e15", 2,
       "--kv-cache-memory=931322.57 GiB is more than the GPU's 79.19 GiB"},
      {"memory --engine=sglang --model=llama-3.1-8b --num-gpu-blocks-override=1000000000", 2,
       "blocks sglang@0.4.9 computes; its cap (--max-total-tokens) only lowers the count"},
      {"simulate --engine=trtllm --num-gpu-blocks-override=1000000000", 1,
       "its cap (max_tokens) only lowers the count"},
      // One range per flag: the command line's, however far past it the value is.
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --pipeline-parallel-size=2000", 2,
       "--pipeline-parallel-size=2000 is out of range (1..1024)"},
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --pipeline-parallel-size=33", 2,
       "--pipeline-parallel-size=33 is more than the 32 layers of llama-3.1-8b"},
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --num-gpu-blocks-override=2147483648", 2,
       "--num-gpu-blocks-override=2147483648 is out of range (0..2147483647)"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
}

}  // namespace
}  // namespace infergrid
