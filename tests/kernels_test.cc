// Tests of the host side of kernels/ (no GPU needed): the GEMM shape table against the model
// catalog, the sweep plan and its budget, the number formats the kernels read, the CPU
// attention references the startup checks trust, and the textproto writer, whose output must
// parse as calibration/measurements.proto.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/textproto.h"
#include "calibration/measurements.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/attention_reference.h"
#include "kernels/gemm_shapes.h"
#include "kernels/measurement_types.h"
#include "kernels/numeric_formats.h"
#include "kernels/sweep_plan.h"
#include "kernels/textproto_writer.h"
#include "models/model_spec.pb.h"
#include "tests/test_files.h"

namespace infergrid::calib {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---------------------------------------------------------------------------------------------
// GEMM shapes

TEST(GemmShapes, ModelTableMatchesTheCatalog) {
  for (const ModelDims& m : CalibrationModels()) {
    SCOPED_TRACE(m.name);
    ModelSpec spec;
    const std::string path = std::string(INFERGRID_SOURCE_DIR) + "/models/catalog/" + m.name + ".textproto";
    ASSERT_TRUE(ReadTextProtoFile(path, &spec).ok()) << path;
    EXPECT_EQ(m.hidden_size, spec.hidden_size());
    EXPECT_EQ(m.num_attention_heads, spec.num_attention_heads());
    EXPECT_EQ(m.num_kv_heads, spec.num_kv_heads());
    EXPECT_EQ(m.head_dim, spec.head_dim());
    const int64_t ffn =
        spec.has_moe() && spec.moe().expert_ffn_dim() > 0 ? spec.moe().expert_ffn_dim() : spec.ffn_dim();
    EXPECT_EQ(m.ffn_dim, ffn);
    EXPECT_EQ(m.vocab_size, spec.vocab_size());
  }
}

const ModelDims& Model(const std::string& name) {
  for (const ModelDims& m : CalibrationModels()) {
    if (name == m.name) return m;
  }
  throw std::runtime_error("no model " + name);
}

std::vector<std::pair<int64_t, int64_t>> NK(const std::vector<ProjectionShape>& shapes) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const ProjectionShape& s : shapes) out.emplace_back(s.n, s.k);
  return out;
}

TEST(GemmShapes, Llama3_8bAtTp1AndTp8) {
  // qkv (32 + 2*8) * 128 = 6144; gate_up 2 * 14336; down K = 14336; lm_head 128256.
  EXPECT_THAT(NK(ModelProjections(Model("llama-3-8b"), 1)),
              ElementsAre(std::pair<int64_t, int64_t>{6144, 4096}, std::pair<int64_t, int64_t>{4096, 4096},
                          std::pair<int64_t, int64_t>{28672, 4096}, std::pair<int64_t, int64_t>{4096, 14336},
                          std::pair<int64_t, int64_t>{128256, 4096}));
  // TP8: 4 query heads and 1 KV head per rank: (4 + 2) * 128 = 768; o K = 512.
  EXPECT_THAT(NK(ModelProjections(Model("llama-3-8b"), 8)),
              ElementsAre(std::pair<int64_t, int64_t>{768, 4096}, std::pair<int64_t, int64_t>{4096, 512},
                          std::pair<int64_t, int64_t>{3584, 4096}, std::pair<int64_t, int64_t>{4096, 1792},
                          std::pair<int64_t, int64_t>{16032, 4096}));
}

TEST(GemmShapes, KvHeadsAreReplicatedAndIndivisibleTpIsLeftOut) {
  // qwen2.5-7b: 28 heads, 4 KV heads. TP4: 7 query heads, 1 KV head -> (7 + 2) * 128.
  const auto tp4 = ModelProjections(Model("qwen2.5-7b"), 4);
  ASSERT_EQ(tp4.size(), 5u);
  EXPECT_EQ(tp4[0].n, 1152);
  EXPECT_EQ(tp4[0].k, 3584);
  EXPECT_EQ(tp4[3].k, 18944 / 4);
  // 28 heads do not split 8 ways.
  EXPECT_TRUE(ModelProjections(Model("qwen2.5-7b"), 8).empty());
  // llama-3-70b TP8: 8 query heads, 1 KV head: (8 + 2) * 128 = 1280.
  EXPECT_EQ(ModelProjections(Model("llama-3-70b"), 8)[0].n, 1280);
}

TEST(GemmShapes, DistinctShapesWithTheirSources) {
  const std::vector<GemmShape> shapes = CalibrationGemmShapes();
  std::set<std::pair<int64_t, int64_t>> seen;
  for (const GemmShape& s : shapes) {
    EXPECT_TRUE(seen.insert({s.n, s.k}).second) << s.n << "x" << s.k << " twice";
    // fp8 cuBLASLt GEMMs need N and K multiples of 16; every catalog shape has them.
    EXPECT_EQ(s.n % 16, 0) << s.n;
    EXPECT_EQ(s.k % 16, 0) << s.k;
    EXPECT_FALSE(s.sources.empty());
  }
  // Mistral-7B, Mixtral and Llama-3-8B share their attention and MLP shapes.
  for (const GemmShape& s : shapes) {
    if (s.n == 6144 && s.k == 4096) {
      EXPECT_THAT(s.sources, Contains("llama-3-8b qkv tp1"));
      EXPECT_THAT(s.sources, Contains("mistral-7b qkv tp1"));
      EXPECT_THAT(s.sources, Contains("mixtral-8x7b qkv tp1"));
    }
  }
  EXPECT_EQ(shapes.size(), 71u);  // regression: the sweep's size depends on it
}

TEST(GemmShapes, MValues) {
  EXPECT_THAT(GemmMValues(false), ElementsAre(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192));
  EXPECT_THAT(GemmMValues(true), ElementsAre(1, 4, 16, 64, 256, 1024, 4096, 8192));
}

// ---------------------------------------------------------------------------------------------
// Sweep plan

TEST(SweepPlan, DefaultFitsTheBudgetAndCoversEverySection) {
  SweepOptions options;  // 540 s
  DeviceAssumptions device;
  std::string error;
  const SweepPlan plan = MakeSweepPlan(options, device, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_LT(plan.estimated_seconds, options.budget_seconds);
  EXPECT_EQ(plan.gemm.size(), 71u * 14 * 2);
  EXPECT_EQ(plan.hbm.size(), 3u * 21);  // 4 KiB .. 4 GiB, doubling
  ASSERT_NE(plan.Section("gemm"), nullptr);
  EXPECT_EQ(plan.Section("gemm")->iterations, 10);
  EXPECT_EQ(plan.flush_bytes, int64_t{256} << 20);  // max(4 x 60 MiB, 256 MiB)
  // One GPU: no all-reduce configurations, and a note that says so.
  EXPECT_TRUE(plan.all_reduce.empty());
  EXPECT_THAT(plan.notes, Contains(HasSubstr("one GPU visible")));
  EXPECT_THAT(FormatPlan(plan, options.budget_seconds), HasSubstr("total estimate"));
}

TEST(SweepPlan, DecodeLeavesOutCachesOverTheCap) {
  std::string error;
  const SweepPlan plan = MakeSweepPlan(SweepOptions{}, DeviceAssumptions{}, &error);
  bool has_16x128k = false;
  for (const DecodeConfig& c : plan.decode) {
    EXPECT_LE(DecodeKvBytes(c), plan.max_kv_cache_bytes);
    // 256 x 128K with 8 KV heads would be 128 GiB of bf16 KV (1 KV head: 16 GiB, kept).
    EXPECT_FALSE(c.batch == 256 && c.context_tokens == 131072 && c.kv_heads == 8);
    if (c.batch == 16 && c.context_tokens == 131072 && c.q_heads == 32) has_16x128k = true;
  }
  // 16 x 128K tokens x 8 KV heads x 128 x 2 (K, V) x 2 bytes = 8 GiB: kept.
  EXPECT_TRUE(has_16x128k);
  const DecodeConfig llama{16, 131072, 32, 8, 128, DType::kBf16, 16};
  EXPECT_EQ(DecodeKvBytes(llama), int64_t{8} << 30);
}

TEST(SweepPlan, TightBudgetCutsIterationsToTheMinimumAndSaysSo) {
  SweepOptions options;
  options.budget_seconds = 20;
  std::string error;
  const SweepPlan plan = MakeSweepPlan(options, DeviceAssumptions{}, &error);
  ASSERT_NE(plan.Section("gemm"), nullptr);
  EXPECT_EQ(plan.Section("gemm")->iterations, 3);
  EXPECT_THAT(plan.notes, Contains(HasSubstr("iterations reduced")));
  EXPECT_THAT(plan.notes, Contains(HasSubstr("still exceeds the budget")));
}

TEST(SweepPlan, QuickIsSmallerAndSectionsFilter) {
  std::string error;
  SweepOptions quick;
  quick.quick = true;
  const SweepPlan full = MakeSweepPlan(SweepOptions{}, DeviceAssumptions{}, &error);
  const SweepPlan small = MakeSweepPlan(quick, DeviceAssumptions{}, &error);
  EXPECT_LT(small.estimated_seconds, full.estimated_seconds);
  EXPECT_EQ(small.gemm.size(), 71u * 8 * 2);

  SweepOptions only;
  only.sections = {"hbm", "l2"};
  const SweepPlan two = MakeSweepPlan(only, DeviceAssumptions{}, &error);
  EXPECT_TRUE(error.empty());
  EXPECT_TRUE(two.gemm.empty());
  ASSERT_EQ(two.sections.size(), 2u);
  EXPECT_EQ(two.sections[0].name, "hbm");
  EXPECT_EQ(two.sections[1].name, "l2");
  // L2 footprints straddle the (assumed 60 MiB) L2.
  EXPECT_LT(two.l2.front().footprint_bytes, int64_t{2} << 20);
  EXPECT_GT(two.l2.back().footprint_bytes, int64_t{240} << 20);

  only.sections = {"hbm", "tensorcores"};
  MakeSweepPlan(only, DeviceAssumptions{}, &error);
  EXPECT_THAT(error, HasSubstr("unknown section 'tensorcores'"));
}

TEST(SweepPlan, AllReduceWithSeveralGpus) {
  DeviceAssumptions device;
  device.gpu_count = 8;
  device.have_nccl = true;
  std::string error;
  SweepOptions options;
  options.sections = {"allreduce"};
  const SweepPlan plan = MakeSweepPlan(options, device, &error);
  std::set<int> ranks;
  for (const AllReduceConfig& c : plan.all_reduce) ranks.insert(c.ranks);
  EXPECT_THAT(ranks, ElementsAre(2, 4, 8));
}

TEST(Summarize, MedianMinMax) {
  const TimingStats odd = Summarize({3.0, 1.0, 2.0}, true);
  EXPECT_DOUBLE_EQ(odd.median_seconds, 2.0);
  EXPECT_DOUBLE_EQ(odd.min_seconds, 1.0);
  EXPECT_DOUBLE_EQ(odd.max_seconds, 3.0);
  EXPECT_EQ(odd.iterations, 3);
  EXPECT_TRUE(odd.l2_flushed);
  EXPECT_DOUBLE_EQ(Summarize({4.0, 1.0, 2.0, 3.0}, false).median_seconds, 2.5);
}

// ---------------------------------------------------------------------------------------------
// Number formats

TEST(NumericFormats, Bf16RoundsToNearestEven) {
  EXPECT_EQ(FloatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBf16(-2.0f), 0xC000);
  EXPECT_EQ(FloatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);  // tie -> even
  EXPECT_EQ(FloatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);  // tie -> even (up)
  EXPECT_FLOAT_EQ(Bf16ToFloat(0x3FC0), 1.5f);
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const float f = Bf16ToFloat(static_cast<uint16_t>(bits));
    if (std::isfinite(f)) {
      ASSERT_EQ(FloatToBf16(f), bits) << bits;
    }
  }
}

TEST(NumericFormats, Fp16) {
  EXPECT_EQ(FloatToFp16(1.0f), 0x3C00);
  EXPECT_EQ(FloatToFp16(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToFp16(70000.0f), 0x7C00);  // overflow -> infinity
  EXPECT_EQ(FloatToFp16(1e-7f), 0x0002);  // subnormal: 1e-7 / 2^-24 = 1.68 -> 2
  EXPECT_EQ(FloatToFp16(-0.0f), 0x8000);
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const float f = Fp16ToFloat(static_cast<uint16_t>(bits));
    if (std::isfinite(f)) {
      ASSERT_EQ(FloatToFp16(f), bits) << bits;
    }
  }
}

TEST(NumericFormats, Fp8E4M3SaturatesAndRounds) {
  EXPECT_EQ(FloatToFp8E4M3(1.0f), 0x38);
  EXPECT_EQ(FloatToFp8E4M3(-2.0f), 0xC0);
  EXPECT_EQ(FloatToFp8E4M3(448.0f), 0x7E);
  EXPECT_EQ(FloatToFp8E4M3(1000.0f), 0x7E);  // saturates: E4M3FN has no infinity
  EXPECT_EQ(FloatToFp8E4M3(0.3f), 0x2A);  // 0.3 -> 1.25 * 2^-2 = 0.3125
  EXPECT_EQ(FloatToFp8E4M3(std::ldexp(1.0f, -9)), 0x01);  // smallest subnormal
  EXPECT_FLOAT_EQ(Fp8E4M3ToFloat(0x7E), 448.0f);
  EXPECT_TRUE(std::isnan(Fp8E4M3ToFloat(0x7F)));
  for (uint32_t bits = 0; bits < 0x100; ++bits) {
    const float f = Fp8E4M3ToFloat(static_cast<uint8_t>(bits));
    if (!std::isnan(f)) {
      ASSERT_EQ(FloatToFp8E4M3(f), bits) << bits;
    }
  }
}

TEST(NumericFormats, HashGivesUniformValuesInRange) {
  double sum = 0;
  for (uint64_t i = 0; i < 100000; ++i) {
    const float u = UniformFromHash(HashIndex(7, i));
    ASSERT_GE(u, -1.0f);
    ASSERT_LT(u, 1.0f);
    sum += u;
  }
  EXPECT_NEAR(sum / 100000, 0.0, 0.01);
  EXPECT_NE(HashIndex(7, 1), HashIndex(8, 1));
}

// ---------------------------------------------------------------------------------------------
// Attention references

TEST(AttentionReference, DecodeByHand) {
  // One sequence, two tokens, head_dim 2: q = (1, 0), k0 = (1, 0), k1 = (0, 0), scale 1.
  // Weights softmax(1, 0) = (e, 1) / (e + 1); v0 = (1, 2), v1 = (3, 4).
  PagedDecodeProblem p;
  p.batch = 1;
  p.q_heads = 1;
  p.kv_heads = 1;
  p.head_dim = 2;
  p.block_size = 1;
  p.max_blocks_per_seq = 2;
  p.q = {1, 0};
  p.k_cache = {1, 0, 0, 0};
  p.v_cache = {1, 2, 3, 4};
  p.block_table = {0, 1};
  p.context_lens = {2};
  const double e = std::exp(1.0);
  const std::vector<double> out = PagedDecodeAttentionReference(p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0], (e * 1 + 3) / (e + 1), 1e-12);
  EXPECT_NEAR(out[1], (e * 2 + 4) / (e + 1), 1e-12);
  // Swapping the physical blocks (and the table) gives the same result.
  p.k_cache = {0, 0, 1, 0};
  p.v_cache = {3, 4, 1, 2};
  p.block_table = {1, 0};
  EXPECT_EQ(PagedDecodeAttentionReference(p), out);
  // Only the sequence's tokens count: with context 1 the output is v0.
  p.context_lens = {1};
  EXPECT_THAT(PagedDecodeAttentionReference(p), ElementsAre(1.0, 2.0));
}

TEST(AttentionReference, GqaMapsQueryHeadsToTheirKvHead) {
  // 4 query heads, 2 KV heads, one token: output of head h is v of KV head h / 2.
  PagedDecodeProblem p;
  p.batch = 1;
  p.q_heads = 4;
  p.kv_heads = 2;
  p.head_dim = 1;
  p.block_size = 1;
  p.max_blocks_per_seq = 1;
  p.q = {1, 2, 3, 4};
  p.k_cache = {1, 1};
  p.v_cache = {10, 20};
  p.block_table = {0};
  p.context_lens = {1};
  EXPECT_THAT(PagedDecodeAttentionReference(p), ElementsAre(10, 10, 20, 20));
}

TEST(AttentionReference, PrefillLastRowEqualsDecodeAndFirstRowSeesOnlyItsPrefix) {
  // Random data: the last query of a causal prefill with context c sees all c + n keys, as a
  // decode step over the same cache does.
  const int n = 5, context = 3, q_heads = 4, kv_heads = 2, hd = 8;
  const int keys = context + n;
  PrefillProblem pre;
  pre.batch = 1;
  pre.query_tokens = n;
  pre.context_tokens = context;
  pre.q_heads = q_heads;
  pre.kv_heads = kv_heads;
  pre.head_dim = hd;
  pre.scale = 0.35f;
  auto fill = [](std::vector<float>& v, size_t count, uint64_t seed) {
    v.resize(count);
    for (size_t i = 0; i < count; ++i) v[i] = UniformFromHash(HashIndex(seed, i));
  };
  fill(pre.q, static_cast<size_t>(n) * q_heads * hd, 1);
  fill(pre.k, static_cast<size_t>(keys) * kv_heads * hd, 2);
  fill(pre.v, static_cast<size_t>(keys) * kv_heads * hd, 3);
  const std::vector<double> prefill = PrefillAttentionReference(pre);

  // The same cache as one block of `keys` tokens: [block][kv_head][token][d].
  PagedDecodeProblem dec;
  dec.batch = 1;
  dec.q_heads = q_heads;
  dec.kv_heads = kv_heads;
  dec.head_dim = hd;
  dec.block_size = keys;
  dec.max_blocks_per_seq = 1;
  dec.scale = pre.scale;
  dec.q.assign(pre.q.end() - q_heads * hd, pre.q.end());
  dec.k_cache.resize(pre.k.size());
  dec.v_cache.resize(pre.v.size());
  for (int j = 0; j < keys; ++j) {
    for (int h = 0; h < kv_heads; ++h) {
      for (int d = 0; d < hd; ++d) {
        dec.k_cache[(h * keys + j) * hd + d] = pre.k[(j * kv_heads + h) * hd + d];
        dec.v_cache[(h * keys + j) * hd + d] = pre.v[(j * kv_heads + h) * hd + d];
      }
    }
  }
  dec.block_table = {0};
  dec.context_lens = {keys};
  const std::vector<double> decode = PagedDecodeAttentionReference(dec);
  for (int i = 0; i < q_heads * hd; ++i) {
    EXPECT_NEAR(prefill[(n - 1) * q_heads * hd + i], decode[i], 1e-12);
  }
  // Non-causal: every row sees every key, so rows differ only through their queries; with a
  // zero scale all rows are the plain mean of V.
  pre.causal = false;
  pre.scale = 0;
  const std::vector<double> flat = PrefillAttentionReference(pre);
  double mean0 = 0;
  for (int j = 0; j < keys; ++j) mean0 += pre.v[(j * kv_heads + 0) * hd + 0];
  mean0 /= keys;
  EXPECT_NEAR(flat[0], mean0, 1e-12);
  EXPECT_NEAR(flat[(n - 1) * q_heads * hd], mean0, 1e-12);
}

TEST(AttentionReference, RelativeErrorAndPairs) {
  EXPECT_DOUBLE_EQ(RelativeError({1.0f, 0.0f}, {1.0, 0.0}), 0.0);
  EXPECT_NEAR(RelativeError({1.1f, 0.0f}, {1.0, 0.0}), 0.1, 1e-6);
  EXPECT_TRUE(std::isinf(RelativeError({NAN, 0.0f}, {1.0, 0.0})));
  EXPECT_TRUE(std::isinf(RelativeError({1.0f}, {1.0, 0.0})));
  // 4 new tokens after 2 cached: 4*2 + 4*5/2 = 18 causal pairs, 4*6 = 24 without the mask.
  EXPECT_DOUBLE_EQ(AttendedPairs(4, 2, true), 18);
  EXPECT_DOUBLE_EQ(AttendedPairs(4, 2, false), 24);
}

// ---------------------------------------------------------------------------------------------
// Textproto writer

MeasurementSet SampleSet() {
  MeasurementSet m;
  Provenance& p = m.provenance;
  p.gpu_name = "NVIDIA H200";
  p.gpu_uuid = "GPU-00112233-4455-6677-8899-aabbccddeeff";
  p.driver_version = "580.159.04";
  p.cuda_runtime_version = 13000;
  p.cublaslt_version = 130000;
  p.sm_count = 132;
  p.memory_total_mib = 143771;
  p.l2_bytes = 62914560;
  p.sm_clock_max_mhz = 1980;
  p.date_utc = "2026-11-20T14:03:11Z";
  p.host = "gpu \"box\"\n\xc3\xa9";  // quote, newline and non-ASCII survive
  p.notes = {"first note", "second\tnote"};
  p.budget_seconds = 300;
  p.quick = true;
  m.checks.push_back({"decode attention BF16", true, 3.2e-3, 1e-2});
  HbmSample h;
  h.kind = HbmKind::kRead;
  h.buffer_bytes = int64_t{4} << 30;
  h.moved_bytes = h.buffer_bytes;
  h.timing = Summarize({1.1e-3, 1.0e-3, 1.2e-3}, true);
  h.bytes_per_second = h.moved_bytes / h.timing.median_seconds;
  m.hbm.push_back(h);
  L2Sample l2;
  l2.footprint_bytes = 16 << 20;
  l2.passes = 256;
  l2.moved_bytes = l2.footprint_bytes * l2.passes;
  l2.timing = Summarize({5e-4}, false);
  l2.read_bytes_per_second = 8.5e12;
  m.l2.push_back(l2);
  GemmSample g;
  g.m = 1;
  g.n = 6144;
  g.k = 4096;
  g.dtype = DType::kFp8E4M3;
  g.timing = Summarize({1.5e-5, 1.6e-5}, true);
  g.flops = 2.0 * 6144 * 4096;
  g.flops_per_second = g.flops / g.timing.median_seconds;
  g.algorithm_id = 66;
  g.tile_id = 21;
  g.fp8_fast_accum = true;
  g.sources = {"llama-3-8b qkv tp1", "mistral-7b qkv tp1"};
  m.gemm.push_back(g);
  DecodeAttentionSample d;
  d.batch = 16;
  d.context_tokens = 131072;
  d.q_heads = 32;
  d.kv_heads = 8;
  d.head_dim = 128;
  d.kv_dtype = DType::kFp16;
  d.query_dtype = DType::kFp16;
  d.block_size_tokens = 16;
  d.timing = Summarize({2e-3}, true);
  d.kv_bytes = int64_t{8} << 30;
  d.kernel = "infergrid-paged-split512-v1";
  m.decode_attention.push_back(d);
  PrefillAttentionSample pf;
  pf.query_tokens = 2048;
  pf.context_tokens = 8192;
  pf.batch = 1;
  pf.causal = true;
  pf.timing = Summarize({1e-3}, true);
  m.prefill_attention.push_back(pf);
  LaunchOverheadSample lo;
  lo.kind = LaunchKind::kGraphReplay;
  lo.kernels_per_measurement = 1000;
  lo.timing = Summarize({1.2e-3}, false);
  lo.seconds_per_kernel = 1.2e-6;
  m.launch_overhead.push_back(lo);
  AllReduceSample ar;
  ar.buffer_bytes = 1 << 20;
  ar.ranks = 8;
  ar.timing = Summarize({3e-5}, false);
  ar.bus_bytes_per_second = std::numeric_limits<double>::infinity();
  m.all_reduce.push_back(ar);
  return m;
}

TEST(TextprotoWriter, OutputParsesAsTheMeasurementsProto) {
  const MeasurementSet set = SampleSet();
  const std::string text = ToTextProto(set);
  Measurements parsed;
  const absl::Status status = ParseTextProto(text, "sample.textproto", &parsed);
  ASSERT_TRUE(status.ok()) << status << "\n" << text;

  EXPECT_EQ(parsed.provenance().gpu_name(), "NVIDIA H200");
  EXPECT_EQ(parsed.provenance().host(), set.provenance.host);
  EXPECT_THAT(parsed.provenance().notes(), ElementsAre("first note", "second\tnote"));
  EXPECT_EQ(parsed.provenance().sm_count(), 132);
  EXPECT_EQ(parsed.provenance().memory_total_mib(), 143771);
  EXPECT_TRUE(parsed.provenance().quick());
  EXPECT_DOUBLE_EQ(parsed.provenance().budget_seconds(), 300);
  ASSERT_EQ(parsed.checks_size(), 1);
  EXPECT_TRUE(parsed.checks(0).passed());
  EXPECT_DOUBLE_EQ(parsed.checks(0).relative_error(), 3.2e-3);

  ASSERT_EQ(parsed.hbm_size(), 1);
  EXPECT_EQ(parsed.hbm(0).kind(), HbmSample_Kind_READ);
  EXPECT_EQ(parsed.hbm(0).buffer_bytes(), int64_t{4} << 30);
  EXPECT_DOUBLE_EQ(parsed.hbm(0).timing().median_seconds(), 1.1e-3);  // exact round trip
  EXPECT_EQ(parsed.hbm(0).timing().iterations(), 3);
  EXPECT_TRUE(parsed.hbm(0).timing().l2_flushed());
  EXPECT_DOUBLE_EQ(parsed.hbm(0).bytes_per_second(), set.hbm[0].bytes_per_second);

  ASSERT_EQ(parsed.l2_size(), 1);
  EXPECT_EQ(parsed.l2(0).passes(), 256);
  EXPECT_FALSE(parsed.l2(0).timing().l2_flushed());

  ASSERT_EQ(parsed.gemm_size(), 1);
  const auto& g = parsed.gemm(0);
  EXPECT_EQ(g.m(), 1);
  EXPECT_EQ(g.n(), 6144);
  EXPECT_EQ(g.dtype(), infergrid::FP8_E4M3);
  EXPECT_EQ(g.output_dtype(), infergrid::BF16);
  EXPECT_EQ(g.layout(), "TN");
  EXPECT_EQ(g.algorithm_id(), 66);
  EXPECT_TRUE(g.fp8_fast_accum());
  EXPECT_THAT(g.sources(), ElementsAre("llama-3-8b qkv tp1", "mistral-7b qkv tp1"));
  EXPECT_DOUBLE_EQ(g.timing().median_seconds(), 1.55e-5);

  ASSERT_EQ(parsed.decode_attention_size(), 1);
  EXPECT_EQ(parsed.decode_attention(0).kv_dtype(), infergrid::FP16);
  EXPECT_EQ(parsed.decode_attention(0).context_tokens(), 131072);
  EXPECT_EQ(parsed.decode_attention(0).kernel(), "infergrid-paged-split512-v1");
  ASSERT_EQ(parsed.prefill_attention_size(), 1);
  EXPECT_EQ(parsed.prefill_attention(0).context_tokens(), 8192);
  EXPECT_EQ(parsed.prefill_attention(0).dtype(), infergrid::BF16);
  ASSERT_EQ(parsed.launch_overhead_size(), 1);
  EXPECT_EQ(parsed.launch_overhead(0).kind(), LaunchOverheadSample_Kind_GRAPH_REPLAY);
  EXPECT_DOUBLE_EQ(parsed.launch_overhead(0).seconds_per_kernel(), 1.2e-6);
  ASSERT_EQ(parsed.all_reduce_size(), 1);
  EXPECT_EQ(parsed.all_reduce(0).ranks(), 8);
  EXPECT_TRUE(std::isinf(parsed.all_reduce(0).bus_bytes_per_second()));
}

// Every field of every message set to a non-zero value (so none is left out), then a second
// element of each repeated message with its scalars at their defaults (left out), except the
// second check's relative error: a negative zero, which is written.
MeasurementSet FullSet() {
  MeasurementSet m;
  Provenance& p = m.provenance;
  p.gpu_name = "NVIDIA H200";
  p.gpu_uuid = "GPU-0";
  p.driver_version = "580.159.04";
  p.cuda_driver_api_version = 13000;
  p.cuda_runtime_version = 13001;
  p.cublaslt_version = 130002;
  p.nccl_version = 22703;
  p.compute_capability_major = 9;
  p.compute_capability_minor = 1;
  p.sm_count = 132;
  p.memory_total_mib = 143771;
  p.l2_bytes = 62914560;
  p.shared_memory_per_sm_bytes = 233472;
  p.memory_bus_width_bits = 6144;
  p.sm_clock_max_mhz = 1980;
  p.memory_clock_max_mhz = 3201.5;
  p.sm_clock_start_mhz = 1755;
  p.sm_clock_end_mhz = 1740.25;
  p.memory_clock_start_mhz = 3201;
  p.power_limit_watts = 700;
  p.gpu_count = 8;
  p.date_utc = "2026-11-20T14:03:11Z";
  p.tool_version = "infergrid-calibrate 1";
  p.host = "gpu \"box\"\n\xc3\xa9";
  p.command_line = "infergrid-calibrate --quick";
  p.quick = true;
  p.budget_seconds = 300;
  p.wall_seconds = 287.125;
  p.notes = {"n1", "n2"};
  m.checks.push_back({"gemm FP16", true, 1.5e-4, 1e-2});
  m.checks.push_back({"prefill attention BF16", false, -0.0, 0});
  HbmSample h;
  h.kind = HbmKind::kCopy;
  h.buffer_bytes = 1 << 30;
  h.moved_bytes = int64_t{2} << 30;
  h.timing = Summarize({1e-3, 3e-3, 2e-3}, true);
  h.bytes_per_second = 1.0737e12;
  HbmSample h_zero;
  h_zero.kind = HbmKind::kWrite;
  m.hbm = {h, h_zero};
  L2Sample l2;
  l2.footprint_bytes = 8 << 20;
  l2.passes = 64;
  l2.moved_bytes = int64_t{512} << 20;
  l2.timing = Summarize({2.5e-4, 2.25e-4}, false);
  l2.read_bytes_per_second = 2.2e12;
  m.l2 = {l2, L2Sample{}};
  GemmSample g;
  g.m = 128;
  g.n = 6144;
  g.k = 4096;
  g.dtype = DType::kFp8E4M3;
  g.output_dtype = DType::kFp16;
  g.layout = "NT";
  g.timing = Summarize({1.5e-5}, true);
  g.flops = 6.4e9;
  g.flops_per_second = 4.3e14;
  g.algorithm_id = 66;
  g.tile_id = 21;
  g.stages_id = 3;
  g.splitk = 2;
  g.workspace_bytes = 1 << 22;
  g.fp8_fast_accum = true;
  g.min_moved_bytes = 25952256;
  g.sources = {"a", "b"};
  m.gemm = {g, GemmSample{}};
  DecodeAttentionSample d;
  d.batch = 16;
  d.context_tokens = 131072;
  d.q_heads = 32;
  d.kv_heads = 8;
  d.head_dim = 128;
  d.kv_dtype = DType::kFp8E4M3;
  d.query_dtype = DType::kBf16;
  d.block_size_tokens = 16;
  d.timing = Summarize({2e-3}, true);
  d.kv_bytes = int64_t{8} << 30;
  d.moved_bytes = (int64_t{8} << 30) + 4096;
  d.bytes_per_second = 4.29e12;
  d.flops = 2.7e11;
  d.kernel = "infergrid-paged-split512-v1";
  m.decode_attention = {d, DecodeAttentionSample{}};
  PrefillAttentionSample pf;
  pf.batch = 2;
  pf.query_tokens = 2048;
  pf.context_tokens = 8192;
  pf.q_heads = 32;
  pf.kv_heads = 8;
  pf.head_dim = 128;
  pf.causal = true;
  pf.dtype = DType::kFp16;
  pf.timing = Summarize({1e-3}, true);
  pf.flops = 1.2e13;
  pf.flops_per_second = 5.5e14;
  pf.moved_bytes = 123456789;
  pf.kernel = "infergrid-wmma-fa2-v1";
  PrefillAttentionSample pf_zero;
  pf_zero.causal = false;
  m.prefill_attention = {pf, pf_zero};
  LaunchOverheadSample lo;
  lo.kind = LaunchKind::kSyncLaunch;
  lo.kernels_per_measurement = 1000;
  lo.timing = Summarize({1.2e-3}, false);
  lo.seconds_per_kernel = 1.2e-6;
  m.launch_overhead = {lo, LaunchOverheadSample{}};
  AllReduceSample ar;
  ar.buffer_bytes = 1 << 20;
  ar.ranks = 8;
  ar.dtype = DType::kFp16;
  ar.timing = Summarize({3e-5}, false);
  ar.algorithm_bytes_per_second = 3.5e10;
  ar.bus_bytes_per_second = -std::numeric_limits<double>::infinity();
  m.all_reduce = {ar, AllReduceSample{}};
  return m;
}

// The exact text, written by the field-by-field writer before its messages shared helpers:
// any change to the output (order, omitted zeros, number or string format) shows here.
TEST(TextprotoWriter, EveryFieldByteForByte) {
  const std::string expected = R"text(# proto-file: calibration/measurements.proto
# proto-message: infergrid.Measurements
# Written by infergrid-calibrate (kernels/). Raw samples; see the proto for units.
provenance {
  gpu_name: "NVIDIA H200"
  gpu_uuid: "GPU-0"
  driver_version: "580.159.04"
  cuda_driver_api_version: 13000
  cuda_runtime_version: 13001
  cublaslt_version: 130002
  nccl_version: 22703
  compute_capability_major: 9
  compute_capability_minor: 1
  sm_count: 132
  memory_total_mib: 143771
  l2_bytes: 62914560
  shared_memory_per_sm_bytes: 233472
  memory_bus_width_bits: 6144
  sm_clock_max_mhz: 1980
  memory_clock_max_mhz: 3201.5
  sm_clock_start_mhz: 1755
  sm_clock_end_mhz: 1740.25
  memory_clock_start_mhz: 3201
  power_limit_watts: 700
  gpu_count: 8
  date_utc: "2026-11-20T14:03:11Z"
  tool_version: "infergrid-calibrate 1"
  host: "gpu \"box\"\n\303\251"
  command_line: "infergrid-calibrate --quick"
  quick: true
  budget_seconds: 300
  wall_seconds: 287.125
  notes: "n1"
  notes: "n2"
}
checks {
  name: "gemm FP16"
  passed: true
  relative_error: 0.00015
  tolerance: 0.01
}
checks {
  name: "prefill attention BF16"
  relative_error: -0
}
hbm {
  kind: COPY
  buffer_bytes: 1073741824
  moved_bytes: 2147483648
  timing {
    median_seconds: 0.002
    min_seconds: 0.001
    max_seconds: 0.003
    iterations: 3
    l2_flushed: true
  }
  bytes_per_second: 1.0737e+12
}
hbm {
  kind: WRITE
  timing {
  }
}
l2 {
  footprint_bytes: 8388608
  passes: 64
  moved_bytes: 536870912
  timing {
    median_seconds: 0.0002375
    min_seconds: 0.000225
    max_seconds: 0.00025
    iterations: 2
  }
  read_bytes_per_second: 2.2e+12
}
l2 {
  timing {
  }
}
gemm {
  m: 128
  n: 6144
  k: 4096
  dtype: FP8_E4M3
  output_dtype: FP16
  layout: "NT"
  timing {
    median_seconds: 1.5e-05
    min_seconds: 1.5e-05
    max_seconds: 1.5e-05
    iterations: 1
    l2_flushed: true
  }
  flops: 6.4e+09
  flops_per_second: 4.3e+14
  algorithm_id: 66
  tile_id: 21
  stages_id: 3
  splitk: 2
  workspace_bytes: 4194304
  fp8_fast_accum: true
  min_moved_bytes: 25952256
  sources: "a"
  sources: "b"
}
gemm {
  dtype: BF16
  output_dtype: BF16
  layout: "TN"
  timing {
  }
}
decode_attention {
  batch: 16
  context_tokens: 131072
  q_heads: 32
  kv_heads: 8
  head_dim: 128
  kv_dtype: FP8_E4M3
  query_dtype: BF16
  block_size_tokens: 16
  timing {
    median_seconds: 0.002
    min_seconds: 0.002
    max_seconds: 0.002
    iterations: 1
    l2_flushed: true
  }
  kv_bytes: 8589934592
  moved_bytes: 8589938688
  bytes_per_second: 4.29e+12
  flops: 2.7e+11
  kernel: "infergrid-paged-split512-v1"
}
decode_attention {
  kv_dtype: BF16
  query_dtype: BF16
  timing {
  }
}
prefill_attention {
  batch: 2
  query_tokens: 2048
  context_tokens: 8192
  q_heads: 32
  kv_heads: 8
  head_dim: 128
  causal: true
  dtype: FP16
  timing {
    median_seconds: 0.001
    min_seconds: 0.001
    max_seconds: 0.001
    iterations: 1
    l2_flushed: true
  }
  flops: 1.2e+13
  flops_per_second: 5.5e+14
  moved_bytes: 123456789
  kernel: "infergrid-wmma-fa2-v1"
}
prefill_attention {
  dtype: BF16
  timing {
  }
}
launch_overhead {
  kind: SYNC_LAUNCH
  kernels_per_measurement: 1000
  timing {
    median_seconds: 0.0012
    min_seconds: 0.0012
    max_seconds: 0.0012
    iterations: 1
  }
  seconds_per_kernel: 1.2e-06
}
launch_overhead {
  kind: STREAM_LAUNCH
  timing {
  }
}
all_reduce {
  buffer_bytes: 1048576
  ranks: 8
  dtype: FP16
  timing {
    median_seconds: 3e-05
    min_seconds: 3e-05
    max_seconds: 3e-05
    iterations: 1
  }
  algorithm_bytes_per_second: 3.5e+10
  bus_bytes_per_second: -inf
}
all_reduce {
  dtype: BF16
  timing {
  }
}
)text";
  EXPECT_EQ(ToTextProto(FullSet()), expected);
  Measurements parsed;
  EXPECT_TRUE(ParseTextProto(expected, "full.textproto", &parsed).ok());
}

TEST(TextprotoWriter, EmptySetAndFormatting) {
  Measurements parsed;
  EXPECT_TRUE(ParseTextProto(ToTextProto(MeasurementSet{}), "empty", &parsed).ok());
  EXPECT_EQ(FormatTextProtoDouble(0.1), "0.1");
  EXPECT_EQ(FormatTextProtoDouble(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(FormatTextProtoDouble(std::nan("")), "nan");
  EXPECT_EQ(QuoteTextProtoString("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
}

TEST(TextprotoWriter, WritesAtomically) {
  const std::filesystem::path dir = testing::TestDir();
  const std::string path = (dir / "m.textproto").string();
  ASSERT_EQ(WriteFileAtomically(path, "provenance { gpu_name: \"x\" }\n"), "");
  std::ifstream in(path);
  std::stringstream contents;
  contents << in.rdbuf();
  EXPECT_EQ(contents.str(), "provenance { gpu_name: \"x\" }\n");
  // Only the final file is left behind.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
  const std::string error = WriteFileAtomically((dir / "no/such/dir/m.textproto").string(), "x");
  EXPECT_THAT(error, HasSubstr("no/such/dir/m.textproto"));
}

}  // namespace
}  // namespace infergrid::calib
