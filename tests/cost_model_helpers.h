// Helpers shared by the cost model's test files (the cost_model_test binary): catalog lookups,
// kernel lists, a round-number profile and a resource model from it, a GEMM kernel, batches.
#ifndef INFERGRID_TESTS_COST_MODEL_HELPERS_H_
#define INFERGRID_TESTS_COST_MODEL_HELPERS_H_

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "calibration/cross_validation.h"
#include "calibration/extrapolate.h"
#include "calibration/measurements.pb.h"
#include "calibration/profile_catalog.h"
#include "calibration/profile_fit.h"
#include "calibration/roofline_baseline.h"
#include "calibration/vidur_csv.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "hardware/resource_model.h"
#include "models/iteration_kernels.h"
#include "models/kv_cache_size.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "models/pass_accounting.h"
#include "sim/core/cost/calibrated_cost_model.h"
#include "sim/core/cost/roofline_cost_model.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {

inline ModelSpec Model(const std::string& name) {
  absl::StatusOr<ModelSpec> m = ResolveModel(name);
  EXPECT_TRUE(m.ok()) << m.status();
  return *m;
}

inline GpuSpec Gpu(const std::string& name) {
  absl::StatusOr<GpuSpec> g = ResolveGpu(name);
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

inline IterationKernels Build(const ModelSpec& model, const BatchShape& batch, IterationKernelOptions options = {}) {
  absl::StatusOr<IterationKernelBuilder> b = IterationKernelBuilder::Create(model, options);
  EXPECT_TRUE(b.ok()) << b.status();
  IterationKernels kernels;
  b->Build(batch, &kernels);
  return kernels;
}

inline const Kernel* Find(const IterationKernels& kernels, absl::string_view name) {
  for (const Kernel& k : kernels) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

// How many times the kernels of `name` run in the list (their repeats summed).
inline int CountNamed(const IterationKernels& kernels, absl::string_view name) {
  int n = 0;
  for (const Kernel& k : kernels) n += k.name == name ? k.repeat : 0;
  return n;
}

// The kernel points into `kernels`: a temporary would leave it dangling (ASan found two).
const Kernel* Find(IterationKernels&& kernels, absl::string_view name) = delete;

inline BatchShape Decode(int sequences, int64_t context = 1000) {
  BatchShape b;
  b.decode_context_tokens.assign(static_cast<size_t>(sequences), context);
  return b;
}

inline ResourceModel Resources(const GpuSpec& gpu, const Calibration& p) {
  absl::StatusOr<ResourceModel> m = ResourceModel::Create(gpu, ResourcesOf(p));
  EXPECT_TRUE(m.ok()) << m.status();
  return *m;
}

inline Kernel Gemm(int64_t m, int64_t n, int64_t k) {
  Kernel g;
  g.kind = KernelKind::kGemm;
  g.name = "gemm";
  g.m = m;
  g.n = n;
  g.k = k;
  g.tensor_flops = 2.0 * m * n * k;
  g.hbm_bytes = 2.0 * (m * k + n * k + m * n);
  return g;
}

// A batch of `contexts` decoding, with `padding` graph rows and the launch mode `launch`.
inline BatchShape DecodeOf(std::vector<int64_t> contexts, int64_t padding = 0, LaunchMode launch = LaunchMode::kGraph) {
  BatchShape b;
  b.decode_context_tokens = std::move(contexts);
  b.padding_rows = padding;
  b.launch = launch;
  return b;
}

// A vidur per-op table of one layer shape, as the profiler writes it (every op vidur times for
// that block; a parallel block has no post-attention norm), with times from `time_s`.
inline std::string VidurTable(int heads, int kv_heads, int64_t hidden, int64_t ffn, int64_t vocab, bool gated,
                              const std::vector<int>& tps, const std::vector<int64_t>& tokens,
                              const std::function<double(const std::string& op, int tp, int64_t m)>& time_s) {
  std::vector<std::string> ops = {"emb", "input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj"};
  if (gated) ops.push_back("post_attention_layernorm");
  for (const char* op : {"mlp_up_proj", "mlp_act", "mlp_down_proj", "add"}) ops.push_back(op);
  std::string csv;
  for (const std::string& op : ops) {
    for (const char* stat : {"min", "max", "mean", "median", "std"})
      absl::StrAppend(&csv, "time_stats.", op, ".", stat, ",");
  }
  absl::StrAppend(&csv,
                  "n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,num_tokens,"
                  "num_tensor_parallel_workers\n");
  for (int tp : tps) {
    for (int64_t m : tokens) {
      for (const std::string& op : ops) {
        const double ms = time_s(op, tp, m) * 1e3;
        absl::StrAppend(&csv, ms, ",", ms, ",", ms, ",", ms, ",0,");
      }
      absl::StrAppend(&csv, heads, ",", kv_heads, ",", hidden, ",", ffn, ",", vocab, ",", gated ? "True" : "False", ",",
                      m, ",", tp, "\n");
    }
  }
  return csv;
}

inline std::vector<std::string> SharedH100Tables() {
  std::vector<std::string> paths;
  for (const char* model : {"llama-2-7b", "codellama-34b", "internlm-20b", "phi-2"}) {
    paths.push_back(testing::SourcePath(absl::StrCat("../shared/data/measurements/h100/", model, "_mlp_ops.csv")));
  }
  return paths;
}

}  // namespace infergrid

#endif  // INFERGRID_TESTS_COST_MODEL_HELPERS_H_
