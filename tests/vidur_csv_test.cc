// calibration/vidur_csv.h: the GEMM shapes of vidur's per-op tables.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cost_model_helpers.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

const KernelSample* FindSample(const std::vector<KernelSample>& samples, absl::string_view op, int tp) {
  for (const KernelSample& s : samples) {
    if (s.op == op && s.tensor_parallel == tp) return &s;
  }
  return nullptr;
}

// GEMM shapes per TP degree for the three layouts of the shared H100 tables: GQA (CodeLlama-34B,
// 64 query / 8 KV heads), MHA (InternLM-20B, 40 heads) and phi-2's parallel block with a
// non-gated GELU MLP (head_dim 80).
TEST(VidurOps, DerivesGemmShapesForGqaMhaAndNonGatedModels) {
  const std::filesystem::path dir = testing::TestDir();
  auto one = [](const std::string&, int, int64_t) { return 1e-5; };
  absl::StatusOr<VidurOpsTable> codellama = ReadVidurOpsCsv(testing::WriteFile(
      dir / "codellama-34b_mlp_ops.csv", VidurTable(64, 8, 8192, 22016, 32768, true, {1, 8}, {512}, one)));
  ASSERT_TRUE(codellama.ok()) << codellama.status();
  EXPECT_EQ(codellama->model, "codellama-34b");
  absl::StatusOr<std::vector<KernelSample>> s = SamplesFromVidurOps(*codellama);
  ASSERT_TRUE(s.ok()) << s.status();
  struct Shape {
    const char* op;
    int tp;
    int64_t n, k;
  };
  for (const Shape& e : {Shape{"attn_pre_proj", 1, (64 + 2 * 8) * 128, 8192},
                         {"attn_pre_proj", 8, (8 + 2) * 128, 8192},
                         {"attn_post_proj", 8, 8192, 1024},
                         {"mlp_up_proj", 1, 44032, 8192},
                         {"mlp_up_proj", 8, 5504, 8192},
                         {"mlp_down_proj", 8, 8192, 2752}}) {
    const KernelSample* k = FindSample(*s, e.op, e.tp);
    ASSERT_NE(k, nullptr) << e.op << " tp" << e.tp;
    EXPECT_EQ(k->kernel.m, 512);
    EXPECT_EQ(k->kernel.n, e.n) << e.op << " tp" << e.tp;
    EXPECT_EQ(k->kernel.k, e.k) << e.op << " tp" << e.tp;
    EXPECT_EQ(k->model, "codellama-34b");
  }
  // A gated MLP's down_proj multiplies zeros in vidur's profiler (dummy weights underflow).
  EXPECT_TRUE(FindSample(*s, "mlp_down_proj", 1)->zero_input);
  EXPECT_FALSE(FindSample(*s, "mlp_up_proj", 1)->zero_input);

  absl::StatusOr<VidurOpsTable> internlm = ReadVidurOpsCsv(testing::WriteFile(
      dir / "internlm-20b_mlp_ops.csv", VidurTable(40, 40, 5120, 13824, 103168, true, {8}, {64}, one)));
  ASSERT_TRUE(internlm.ok()) << internlm.status();
  s = SamplesFromVidurOps(*internlm);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(FindSample(*s, "attn_pre_proj", 8)->kernel.n, 3 * 5 * 128);
  EXPECT_EQ(FindSample(*s, "attn_post_proj", 8)->kernel.k, 640);
  EXPECT_EQ(FindSample(*s, "mlp_up_proj", 8)->kernel.n, 2 * 1728);

  absl::StatusOr<VidurOpsTable> phi = ReadVidurOpsCsv(
      testing::WriteFile(dir / "phi-2_mlp_ops.csv", VidurTable(32, 32, 2560, 10240, 51200, false, {1}, {4096}, one)));
  ASSERT_TRUE(phi.ok()) << phi.status();
  std::vector<std::string> skipped;
  s = SamplesFromVidurOps(*phi, &skipped);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(FindSample(*s, "attn_pre_proj", 1)->kernel.n, 3 * 2560);  // 32 heads of 80
  EXPECT_EQ(FindSample(*s, "attn_pre_proj", 1)->kernel.k, 2560);
  EXPECT_EQ(FindSample(*s, "mlp_up_proj", 1)->kernel.n, 10240);  // up only, no gate
  EXPECT_STREQ(FindSample(*s, "mlp_up_proj", 1)->kernel.name, "up_proj");
  EXPECT_EQ(FindSample(*s, "mlp_down_proj", 1)->kernel.k, 10240);
  EXPECT_FALSE(FindSample(*s, "mlp_down_proj", 1)->zero_input);  // GELU(up) is not zero
  // Attention output + MLP output + residual: two adds. LayerNorm and GELU are not the kernels
  // the simulator prices: left out, and said so.
  EXPECT_EQ(FindSample(*s, "add", 1)->launches, 2);
  EXPECT_EQ(FindSample(*s, "input_layernorm", 1), nullptr);
  EXPECT_EQ(FindSample(*s, "mlp_act", 1), nullptr);
  EXPECT_EQ(skipped.size(), 2u);
  EXPECT_EQ(s->size(), 7u);  // emb, qkv, rope, o, up, down, add
}

}  // namespace
}  // namespace infergrid
