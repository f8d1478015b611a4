// hardware/resource_model.h: a kernel's time from a profile: wave quantization, tiles, the L2
// rules, the GEMM cache and tile search, streaming rates, collectives, incomplete profiles.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cost_model_helpers.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// A profile with round numbers for rule tests: one tile (256 x 128), no split-K below 1e9
// elements, flat HBM and L2 rates, no fixed costs.
Calibration RoundProfile(const GpuSpec& gpu) {
  Calibration p = PriorProfile(gpu);
  GemmModel* g = p.mutable_gemm();
  g->clear_tiles();
  GemmTile* t = g->add_tiles();
  t->set_bm(256);
  t->set_bn(128);
  g->set_peak_fraction(1.0);
  g->set_k_overhead(0);
  g->set_tile_penalty(0);
  g->set_overlap_penalty(0);
  g->set_per_sm_bytes_per_s(1e12);
  g->set_min_split_k(1 << 30);
  p.mutable_hbm()->clear_points();
  for (double s : {1e3, 1e12}) {
    RatePoint* pt = p.mutable_hbm()->add_points();
    pt->set_bytes(s);
    pt->set_bytes_per_s(gpu.hbm_bytes_per_s());
  }
  for (RatePoint& pt : *p.mutable_l2()->mutable_points()) pt.set_bytes_per_s(1e15);
  for (KernelClassCalibration& c : *p.mutable_kernel_classes()) {
    c.set_fixed_s(0);
    c.set_bandwidth_fraction(1);
  }
  return p;
}

// ---------------------------------------------------------------- resource model rules

TEST(ResourceModel, WaveQuantizationStepsWhenTilesSpillIntoANewWave) {
  const GpuSpec h100 = Gpu("h100-sxm");
  const ResourceModel r = Resources(h100, RoundProfile(h100));
  // N = 4096 in 128-wide tiles = 32 columns; 256-row tiles: M = 1024 -> 4 x 32 = 128 tiles
  // (one wave of 132 SMs), M = 1025 -> 5 x 32 = 160 tiles (two waves).
  const KernelTime full = r.Time(Gemm(1024, 4096, 8192));
  const KernelTime spill = r.Time(Gemm(1025, 4096, 8192));
  EXPECT_EQ(full.waves, 1);
  EXPECT_EQ(spill.waves, 2);
  EXPECT_EQ(full.binding, Resource::kCompute);
  EXPECT_NEAR(spill.tensor_s / full.tensor_s, 2.0, 1e-12);
  // One wave of 128 tiles of 256 x 128 x 8192 at the per-SM peak.
  EXPECT_NEAR(full.tensor_s, 2.0 * 256 * 128 * 8192 / (h100.tensor_peaks().fp16_flops() / 132), 1e-15);
  // Filling the rest of the second wave costs nothing more: M = 2048 -> 256 tiles, 2 waves.
  EXPECT_NEAR(r.Time(Gemm(2048, 4096, 8192)).tensor_s, spill.tensor_s, 1e-15);
}

// The partial last wave costs 1 - discount x (its idle share) of a full one, never less than
// one min_split_k slice; the pipeline fill/drain adds fill_drain_k K elements of one tile once.
// Both at 0 are the model above.
TEST(ResourceModel, PartialWaveDiscountAndFillDrain) {
  const GpuSpec h100 = Gpu("h100-sxm");
  Calibration p = RoundProfile(h100);
  p.mutable_gemm()->set_min_split_k(256);
  p.mutable_gemm()->set_partial_wave_discount(0.5);
  p.mutable_gemm()->set_fill_drain_k(100);
  const double tile_s = 2.0 * 256 * 128 / (h100.tensor_peaks().fp16_flops() / 132);
  // 10 x 10 = 100 tiles of 256 x 128 on 132 SMs: no split-K (132 / 100 < 2), one wave filled
  // to 100/132.
  const KernelTime t = Resources(h100, p).Time(Gemm(2560, 1280, 4096));
  EXPECT_EQ(t.waves, 1);
  EXPECT_EQ(t.split_k, 1);
  EXPECT_NEAR(t.tensor_s, tile_s * ((1 - 0.5 * (1 - 100.0 / 132)) * 4096 + 100), 1e-15);
  // A short K loop: the last wave costs at least one 256-element slice of it (here all of it).
  EXPECT_NEAR(Resources(h100, p).Time(Gemm(2560, 1280, 256)).tensor_s, tile_s * (256 + 100), 1e-15);
  p.mutable_gemm()->set_partial_wave_discount(0);
  p.mutable_gemm()->set_fill_drain_k(0);
  EXPECT_NEAR(Resources(h100, p).Time(Gemm(2560, 1280, 4096)).tensor_s, tile_s * 4096, 1e-15);
  p.mutable_gemm()->set_partial_wave_discount(1.5);
  EXPECT_FALSE(ResourceModel::Create(h100, ResourcesOf(p)).ok());
}

// Tensor work of a kernel class without a compute_fraction runs at the GEMM model's best tile
// (peak_fraction x that tile's efficiency), not at peak_fraction, which the fit may push above
// 1 when the tile penalty is large.
TEST(ResourceModel, ClassTensorWorkDefaultsToTheBestTile) {
  const GpuSpec h100 = Gpu("h100-sxm");
  Calibration p = RoundProfile(h100);
  p.mutable_gemm()->set_peak_fraction(2.0);
  p.mutable_gemm()->set_tile_penalty(85.3333333333333333);  // 256 x 128: efficiency 1/2
  Kernel k;
  k.kind = KernelKind::kAttentionDecode;
  k.name = "decode";
  k.tensor_flops = 1e12;
  k.hbm_bytes = 1;
  const KernelTime t = Resources(h100, p).Time(k);
  EXPECT_NEAR(t.tensor_s, 1e12 / h100.tensor_peaks().fp16_flops(), 1e-12);
}

TEST(ResourceModel, GemmTileRereadsHitL2WhenTheWaveFits) {
  const GpuSpec h100 = Gpu("h100-sxm");
  const ResourceModel r = Resources(h100, RoundProfile(h100));
  // Small K: a wave's panels (about 11.5 x (256 + 128) x K x 2 bytes) fit in 25 MB.
  const Kernel small = Gemm(4096, 4096, 1024);
  const KernelTime t = r.Time(small);
  // Loads: X once per N-tile (32), W once per M-tile (16), D once.
  const double loads = 2.0 * (4096.0 * 1024 * 32 + 4096.0 * 1024 * 16 + 4096.0 * 4096);
  EXPECT_DOUBLE_EQ(t.l2_bytes, loads);
  EXPECT_DOUBLE_EQ(t.hbm_bytes, small.hbm_bytes - 0);  // resident_input_bytes = 0 here
  // Large K: X and W (268 MB) exceed the usable L2, so each of the 4 waves (512 tiles over
  // 132 SMs) fetches its own panels: sqrt(132) row panels of X (256 x 16384) and as many
  // column panels of W (128 x 16384), plus the output once.
  const Kernel big = Gemm(4096, 4096, 16384);
  const KernelTime tb = r.Time(big);
  const double side = std::sqrt(132.0);
  const double wave_panels = side * 256 * 16384 * 2 + side * 128 * 16384 * 2;
  EXPECT_EQ(tb.waves, 4);
  EXPECT_NEAR(tb.hbm_bytes, 4 * wave_panels + 4096.0 * 4096 * 2, 1.0);
  EXPECT_GT(tb.hbm_bytes, big.hbm_bytes);  // more than the compulsory bytes
  EXPECT_LT(tb.hbm_bytes, tb.l2_bytes);  // far less than every tile load
}

// GEMM times are cached per thread: a hit must be exactly what the model computes, for this
// model and this kernel only.
TEST(ResourceModel, CachedGemmTimesBelongToTheirModelAndKernel) {
  const GpuSpec h100 = Gpu("h100-sxm");
  const Calibration base = RoundProfile(h100);
  Calibration slower = base;
  slower.mutable_gemm()->set_peak_fraction(base.gemm().peak_fraction() / 2);
  const ResourceModel a = Resources(h100, base);
  const ResourceModel b = Resources(h100, slower);
  const Kernel big = Gemm(4096, 4096, 4096);  // compute-bound: the peak fraction shows
  const double first = a.Time(big).seconds;
  const double other = b.Time(big).seconds;  // same kernel, another model: not a's entry
  EXPECT_GT(other, 1.5 * first);
  EXPECT_EQ(a.Time(big).seconds, first);
  // A copy is the same model and may share entries; a new model of the same profile must agree.
  const ResourceModel copy = a;
  EXPECT_EQ(copy.Time(big).seconds, first);
  EXPECT_EQ(Resources(h100, base).Time(big).seconds, first);
  // Kernels that differ only in a demand the shape does not show (here the CUDA-core FLOPs of
  // dequantizing int4 weights) get their own times.
  Kernel small = Gemm(16, 4096, 4096);
  const double plain = a.Time(small).seconds;
  small.cuda_flops = 1e12;
  const double dequantized = a.Time(small).seconds;
  EXPECT_GT(dequantized, 10 * plain);
  EXPECT_EQ(dequantized, Resources(h100, base).Time(small).seconds);
}

// The tile search returns the tile with the least busy time (the first on a tie) as timing
// each tile alone gives: its early exit (a tile whose tensor time alone reaches the best so far
// skips its memory terms) never drops the winner. From one row to compute-bound, with and
// without CUDA-core work.
TEST(ResourceModel, TileSearchPicksTheFastestTileAsEachAloneTimesIt) {
  const GpuSpec h100 = Gpu("h100-sxm");
  const Calibration all = PriorProfile(h100);
  ASSERT_GT(all.gemm().tiles_size(), 2);
  ASSERT_GE(all.gemm().overlap_penalty(), 0);
  const ResourceModel full = Resources(h100, all);
  std::vector<ResourceModel> alone;
  for (const GemmTile& tile : all.gemm().tiles()) {
    Calibration one = all;
    one.mutable_gemm()->clear_tiles();
    *one.mutable_gemm()->add_tiles() = tile;
    alone.push_back(Resources(h100, one));
  }
  int compute_bound = 0;
  for (const int64_t m : {1, 7, 64, 300, 1024, 4097, 16384}) {
    for (const int64_t n : {1024, 4096, 14336}) {
      for (const int64_t k : {512, 4096}) {
        for (const double cuda_flops : {0.0, 1e11}) {
          Kernel g = Gemm(m, n, k);
          g.cuda_flops = cuda_flops;
          const KernelTime searched = full.Time(g);
          KernelTime best;
          best.busy_s = std::numeric_limits<double>::infinity();
          for (const ResourceModel& one : alone) {
            const KernelTime t = one.Time(g);
            if (t.busy_s < best.busy_s) best = t;
          }
          ASSERT_EQ(searched.busy_s, best.busy_s) << m << " x " << n << " x " << k;
          EXPECT_EQ(searched.seconds, best.seconds);
          EXPECT_EQ(searched.tile_m, best.tile_m);
          EXPECT_EQ(searched.tile_n, best.tile_n);
          EXPECT_EQ(searched.hbm_bytes, best.hbm_bytes);
          compute_bound += searched.binding == Resource::kCompute ? 1 : 0;
        }
      }
    }
  }
  EXPECT_GT(compute_bound, 10);  // where tiles are skipped
}

TEST(ResourceModel, SmallWorkingSetsAreReadFromL2) {
  const GpuSpec h100 = Gpu("h100-sxm");
  const ResourceModel r = Resources(h100, RoundProfile(h100));
  const ModelSpec llama = Model("llama-3-8b");
  // Decode of 8 sequences: the norm's input (8 x 4096 x 2 bytes) was just written.
  const IterationKernels decode = Build(llama, Decode(8, 100));
  const Kernel* norm = Find(decode, "input_norm");
  const KernelTime t = r.Time(*norm);
  EXPECT_DOUBLE_EQ(t.hbm_bytes, norm->hbm_bytes - 8.0 * 4096 * 2);
  EXPECT_DOUBLE_EQ(t.l2_bytes, norm->hbm_bytes);
  // A prefill of 16384 tokens: the 134 MB input does not fit; only the usable L2's worth
  // (0.5 x 50 MiB, the most recently written part) is served from L2.
  BatchShape prefill;
  prefill.prefill = {{16384, 0}};
  const IterationKernels prefill_kernels = Build(llama, prefill);
  const Kernel* big = Find(prefill_kernels, "input_norm");
  EXPECT_DOUBLE_EQ(r.Time(*big).hbm_bytes, big->hbm_bytes - 0.5 * 52428800);
}

TEST(ResourceModel, GqaQueryHeadsShareTheirKvHeadThroughL2) {
  const GpuSpec h100 = Gpu("h100-sxm");
  const ResourceModel r = Resources(h100, RoundProfile(h100));
  const ModelSpec llama = Model("llama-3-8b");  // 32 query heads over 8 KV heads: groups of 4
  IterationKernelOptions per_head;
  per_head.decode_groups_query_heads = false;
  const IterationKernels short_kernels = Build(llama, Decode(16, 4095), per_head);
  const Kernel* a = Find(short_kernels, "attention_decode");
  const double kv = 16.0 * 4096 * 2 * 8 * 128 * 2;  // one layer
  EXPECT_DOUBLE_EQ(a->reread_bytes, 3 * kv);
  const KernelTime t = r.Time(*a);
  // One sequence's K/V of a layer (16 MiB) fits in the usable 25 MB: the 3 re-reads per KV
  // head are L2 hits, HBM sees the KV once (and Q, just written by RoPE, comes from L2).
  EXPECT_NEAR(t.hbm_bytes, a->hbm_bytes - a->resident_input_bytes, 1.0);
  EXPECT_NEAR(t.l2_bytes, a->hbm_bytes + 3 * kv, 1.0);
  // At 32K tokens one sequence's K/V (134 MB) does not fit: most re-reads go to HBM.
  const IterationKernels long_kernels = Build(llama, Decode(2, 32767), per_head);
  const Kernel* longer = Find(long_kernels, "attention_decode");
  const KernelTime tl = r.Time(*longer);
  const double kv_long = 2.0 * 32768 * 2 * 8 * 128 * 2;
  const double footprint = 32768.0 * 2 * 8 * 128 * 2;
  EXPECT_NEAR(tl.hbm_bytes,
              longer->hbm_bytes - longer->resident_input_bytes + 3 * kv_long * (1 - 0.5 * 52428800 / footprint), 1.0);
  // Grouped kernels (the default) load each KV head once for its query heads: no re-reads.
  const IterationKernels grouped = Build(llama, Decode(16, 4095));
  EXPECT_EQ(Find(grouped, "attention_decode")->reread_bytes, 0);
}

TEST(ResourceModel, FewWorkItemsLimitTheStreamingRate) {
  const GpuSpec h100 = Gpu("h100-sxm");
  Calibration p = RoundProfile(h100);
  p.mutable_gemm()->set_per_sm_bytes_per_s(10e9);
  const ResourceModel r = Resources(h100, p);
  Kernel k;
  k.kind = KernelKind::kAttentionDecode;
  k.name = "attention_decode";
  k.hbm_bytes = 1e6;
  k.parallel_work_items = 8;  // 8 blocks at 10 GB/s each
  EXPECT_NEAR(r.Time(k).hbm_s, 1e6 / 80e9, 1e-15);
  k.parallel_work_items = 100;  // 1 TB/s, below the HBM rate
  EXPECT_NEAR(r.Time(k).hbm_s, 1e6 / 1e12, 1e-15);
  k.parallel_work_items = 1000;  // 10 TB/s: HBM (3.35 TB/s here) binds
  EXPECT_NEAR(r.Time(k).hbm_s, 1e6 / 3.35e12, 1e-15);
  // GEMMs run one CTA per SM: at most 132 stream at once.
  const KernelTime g = r.Time(Gemm(1, 1 << 20, 256));
  EXPECT_EQ(g.split_k, 1);
  EXPECT_NEAR(g.hbm_s, g.hbm_bytes / (132 * 10e9), 1e-12);
}

TEST(ResourceModel, CollectivesComeFromTheMeasuredTable) {
  const GpuSpec h100 = Gpu("h100-sxm");
  Calibration p = RoundProfile(h100);
  CollectiveTable* t = p.add_collectives();
  t->set_collective("all_reduce");
  t->set_ranks(2);
  for (auto [b, s] : {std::pair{1e3, 10e-6}, {1e6, 20e-6}, {2e6, 30e-6}}) {
    CollectivePoint* pt = t->add_points();
    pt->set_bytes(b);
    pt->set_seconds(s);
  }
  const ResourceModel r = Resources(h100, p);
  EXPECT_DOUBLE_EQ(r.CollectiveSeconds(KernelKind::kAllReduce, 2, 500), 10e-6);
  EXPECT_DOUBLE_EQ(r.CollectiveSeconds(KernelKind::kAllReduce, 2, 1.5e6), 25e-6);
  EXPECT_DOUBLE_EQ(r.CollectiveSeconds(KernelKind::kAllReduce, 2, 3e6), 40e-6);  // last slope
  EXPECT_DOUBLE_EQ(r.CollectiveSeconds(KernelKind::kAllGather, 2, 0.75e6), 0.5 * 25e-6);
  EXPECT_EQ(r.CollectiveSeconds(KernelKind::kAllReduce, 1, 1e6), 0);
}

TEST(ResourceModel, AllToAllIsTheAllReduceOfHalfTheBytes) {
  const GpuSpec h100 = Gpu("h100-sxm");
  absl::StatusOr<Calibration> profile = ResolveCalibration(h100, "");
  ASSERT_TRUE(profile.ok()) << profile.status();
  const ResourceModel r = Resources(h100, *profile);
  for (double bytes : {1e4, 1e6, 1e8}) {
    EXPECT_DOUBLE_EQ(r.CollectiveSeconds(KernelKind::kAllToAll, 8, bytes),
                     r.CollectiveSeconds(KernelKind::kAllReduce, 8, bytes / 2));
  }
  EXPECT_GT(r.CollectiveSeconds(KernelKind::kAllToAll, 8, 1e8), r.CollectiveSeconds(KernelKind::kAllToAll, 8, 1e6));
  EXPECT_DOUBLE_EQ(r.CollectiveSeconds(KernelKind::kAllToAll, 1, 1e8), 0);
}

TEST(ResourceModel, RejectsIncompleteProfiles) {
  const GpuSpec h100 = Gpu("h100-sxm");
  Calibration p = RoundProfile(h100);
  p.mutable_gemm()->clear_tiles();
  EXPECT_THAT(ResourceModel::Create(h100, ResourcesOf(p)).status().message(), HasSubstr("at least one tile"));
  p = RoundProfile(h100);
  p.mutable_kernel_classes()->RemoveLast();
  EXPECT_THAT(ResourceModel::Create(h100, ResourcesOf(p)).status().message(), HasSubstr("no kernel class"));
  p = RoundProfile(h100);
  p.mutable_hbm()->mutable_points(1)->set_bytes(1);
  EXPECT_THAT(ResourceModel::Create(h100, ResourcesOf(p)).status().message(), HasSubstr("increasing"));
}

}  // namespace
}  // namespace infergrid
