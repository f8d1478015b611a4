// calibration/profile_fit.h: fitting profiles from vidur tables and Measurements files, and the
// four shared H100 tables together.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cost_model_helpers.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// ---------------------------------------------------------------- fitting

// Rows generated from a known profile, written as a vidur table, fitted back.
TEST(Fitting, RecoversTimesOfASyntheticVidurTable) {
  const GpuSpec h100 = Gpu("h100-sxm");
  const ResourceModel truth = Resources(h100, *ResolveCalibration(h100, ""));
  std::string csv;
  const char* ops[] = {"attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj", "add"};
  for (const char* op : ops) absl::StrAppend(&csv, "time_stats.", op, ".median,");
  absl::StrAppend(&csv,
                  "n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,num_tokens,"
                  "num_tensor_parallel_workers\n");
  VidurOpsTable table;
  for (int tp : {1, 2, 4}) {
    for (int64_t m : {1, 4, 16, 64, 128, 256, 512, 1024, 1536, 2048, 3072, 4096}) {
      VidurOpsRow row;
      row.n_head = 32;
      row.n_kv_head = 8;
      row.n_embd = 4096;
      row.n_expanded_embd = 14336;
      row.vocab_size = 32000;
      row.num_tokens = m;
      row.tensor_parallel = tp;
      row.line = 2;
      for (const char* op : ops) row.median_s.emplace_back(op, 1.0);
      table.rows = {row};
      absl::StatusOr<std::vector<KernelSample>> s = SamplesFromVidurOps(table);
      ASSERT_TRUE(s.ok());
      for (const char* op : ops) {
        for (const KernelSample& k : *s) {
          if (k.op == op) absl::StrAppend(&csv, truth.Time(k.kernel).seconds * 1e3, ",");
        }
      }
      absl::StrAppend(&csv, "32,8,4096,14336,32000,True,", m, ",", tp, "\n");
    }
  }
  const std::string path = testing::WriteFile(testing::TestDir() / "ops.csv", csv);
  absl::StatusOr<Calibration> fitted = FitProfile(h100, {path}, "test");
  ASSERT_TRUE(fitted.ok()) << fitted.status();
  for (const FitQuality& q : fitted->fit_quality()) {
    EXPECT_LT(q.mape(), 0.05) << q.op();
  }
  EXPECT_EQ(fitted->provenance().inputs(0).kind(), "vidur-ops-csv");
  EXPECT_EQ(fitted->provenance().inputs(0).rows(), 36);
}

// A raw sweep as kernels/ writes it: GEMM times generated from the bundled profile, an L2
// working-set sweep, launch overhead and an all-reduce table.
TEST(Fitting, MeasurementsFromKernelsReplaceThePriors) {
  const GpuSpec h100 = Gpu("h100-sxm");
  const ResourceModel truth = Resources(h100, *ResolveCalibration(h100, ""));
  Measurements m;
  MeasurementProvenance* p = m.mutable_provenance();
  p->set_gpu_name("NVIDIA H100 80GB HBM3");
  p->set_driver_version("580.1");
  p->set_sm_count(132);
  p->set_date_utc("2026-11-20T14:03:11Z");
  p->set_tool_version("infergrid-calibrate test");
  for (int64_t n : {4096, 14336}) {
    for (int64_t k : {4096, 14336}) {
      for (int64_t mm : {1, 8, 64, 256, 1024, 4096}) {
        GemmSample* g = m.add_gemm();
        g->set_m(mm);
        g->set_n(n);
        g->set_k(k);
        g->set_dtype(DType::BF16);
        g->mutable_timing()->set_median_seconds(truth.Time(Gemm(mm, n, k)).seconds);
      }
    }
  }
  for (double footprint : {1e6, 2e7, 1e8}) {
    L2Sample* l2 = m.add_l2();
    l2->set_footprint_bytes(static_cast<int64_t>(footprint));
    l2->set_read_bytes_per_second(footprint < 5e7 ? 9e12 : 3e12);
  }
  LaunchOverheadSample* launch = m.add_launch_overhead();
  launch->set_kind(LaunchOverheadSample::GRAPH_REPLAY);
  launch->set_seconds_per_kernel(1.7e-6);
  for (double bytes : {1e4, 1e6, 1e8}) {
    AllReduceSample* a = m.add_all_reduce();
    a->set_ranks(2);
    a->set_buffer_bytes(static_cast<int64_t>(bytes));
    a->mutable_timing()->set_median_seconds(5e-6 + bytes / 3e11);
  }
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(m, &text));
  const std::string path = testing::WriteFile(testing::TestDir() / "sweep.textproto", text);
  absl::StatusOr<Calibration> fitted = FitProfile(h100, {path}, "test");
  ASSERT_TRUE(fitted.ok()) << fitted.status();
  EXPECT_EQ(fitted->provenance().inputs(0).kind(), "measurements-textproto");
  EXPECT_EQ(fitted->provenance().gpu_reported_name(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(fitted->provenance().driver(), "580.1");
  EXPECT_EQ(fitted->provenance().date(), "2026-11-20T14:03:11Z");
  ASSERT_EQ(fitted->l2().points_size(), 3);
  EXPECT_EQ(fitted->l2().points(2).bytes_per_s(), 3e12);
  EXPECT_EQ(fitted->launch().graph_s(), 1.7e-6);
  ASSERT_EQ(fitted->collectives_size(), 1);
  EXPECT_EQ(fitted->collectives(0).ranks(), 2);
  bool gemm_quality = false;
  for (const FitQuality& q : fitted->fit_quality()) {
    if (q.op() != "gemm bf16") continue;
    gemm_quality = true;
    EXPECT_LT(q.mape(), 0.06);
  }
  EXPECT_TRUE(gemm_quality);
  // A sweep from another GPU is refused.
  p->set_sm_count(108);
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(m, &text));
  const std::string other = testing::WriteFile(testing::TestDir() / "a100.textproto", text);
  EXPECT_THAT(FitProfile(h100, {other}, "test").status().message(), HasSubstr("with 108 SMs"));
}

TEST(Fitting, VidurCsvErrorsNameTheFileAndLine) {
  const std::filesystem::path dir = testing::TestDir();
  const std::string header =
      "time_stats.add.median,n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,"
      "num_tokens,num_tensor_parallel_workers\n";
  std::string path = testing::WriteFile(dir / "a.csv", header + "0.01,32,8,4096,14336,32000,True,-4,1\n");
  EXPECT_THAT(ReadVidurOpsCsv(path).status().message(), HasSubstr("a.csv:2: column 'num_tokens'"));
  path = testing::WriteFile(dir / "b.csv", header + "0.01,32,8,4096,14336,32000,True,4,1\nx,1\n");
  EXPECT_THAT(ReadVidurOpsCsv(path).status().message(), HasSubstr("b.csv:3: expected 9 fields"));
  path = testing::WriteFile(dir / "c.csv", header + "abc,32,8,4096,14336,32000,True,4,1\n");
  EXPECT_THAT(ReadVidurOpsCsv(path).status().message(), HasSubstr("c.csv:2: column 'time_stats.add.median'"));
  path = testing::WriteFile(dir / "d.csv", "a,b\n1,2\n");
  EXPECT_THAT(ReadVidurOpsCsv(path).status().message(), HasSubstr("d.csv:1: not a vidur per-op table"));
}

// The bundled H100 fit reads all four per-op tables of the shared data together.
TEST(Fitting, FitsAllFourH100TablesTogether) {
  const std::vector<std::string> paths = SharedH100Tables();
  for (const std::string& p : paths) {
    if (!std::filesystem::exists(p)) GTEST_SKIP() << "no shared data at " << p;
  }
  absl::StatusOr<Calibration> fitted = FitProfile(Gpu("h100-sxm"), paths, "test");
  ASSERT_TRUE(fitted.ok()) << fitted.status();
  ASSERT_EQ(fitted->provenance().inputs_size(), 4);
  const int rows[] = {1044, 1044, 1044, 261};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(fitted->provenance().inputs(i).kind(), "vidur-ops-csv");
    EXPECT_EQ(fitted->provenance().inputs(i).rows(), rows[i]) << paths[static_cast<size_t>(i)];
  }
  EXPECT_THAT(fitted->provenance().inputs(3).description(), HasSubstr("not fitted: input_layernorm"));
  bool gemms = false;
  for (const FitQuality& q : fitted->fit_quality()) {
    if (q.op() != "all GEMMs") continue;
    gemms = true;
    EXPECT_EQ(q.rows(), 3 * 4176 + 1044);
    EXPECT_LT(q.mape(), 0.08);
  }
  EXPECT_TRUE(gemms);
  EXPECT_GT(fitted->gemm().partial_wave_discount(), 0);
  EXPECT_GT(fitted->zero_input_tensor_gain(), 0);  // zeros run faster
}

}  // namespace
}  // namespace infergrid
