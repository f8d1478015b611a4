#include "kernels/sweep_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "kernels/attention_reference.h"
#include "kernels/gemm_shapes.h"

namespace infergrid::calib {
namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;
constexpr int64_t kGiB = 1024 * kMiB;

bool Selected(const SweepOptions& options, const std::string& name) {
  return options.sections.empty() ||
         std::find(options.sections.begin(), options.sections.end(), name) != options.sections.end();
}

double FlushSeconds(int64_t flush_bytes, const DeviceAssumptions& d) {
  return 2.0 * static_cast<double>(flush_bytes) / d.hbm_bytes_per_s;  // write, then read
}

// Per-section warm-up/iteration counts, minimum iterations under budget pressure, and a
// function estimating one run of config i.
struct SectionSpec {
  std::string name;
  int configs;
  int warmup;
  int iterations;
  int min_iterations;
  std::function<double(int)> run_seconds;
};

void BuildHbm(bool quick, SweepPlan& plan) {
  const int64_t step = quick ? 4 : 2;
  for (HbmKind kind : {HbmKind::kCopy, HbmKind::kRead, HbmKind::kWrite}) {
    for (int64_t bytes = 4 * kKiB; bytes <= 4 * kGiB; bytes *= step) {
      plan.hbm.push_back({kind, bytes});
    }
  }
}

void BuildL2(bool quick, int64_t l2_bytes, SweepPlan& plan) {
  // Footprints as fractions of the L2 size (eighths around it, where the rate falls off),
  // rounded to 64 KiB; passes so that each launch reads about 4 GiB.
  const std::vector<double> full = {1.0 / 64, 1.0 / 32, 1.0 / 16, 1.0 / 8, 0.25, 0.375, 0.5, 0.625, 0.75,
                                    0.875,    1.0,      1.125,    1.25,    1.5,  2.0,   3.0, 4.0,   8.0};
  const std::vector<double> brief = {1.0 / 32, 0.125, 0.25, 0.5, 0.75, 1.0, 1.25, 2.0, 4.0};
  for (double f : quick ? brief : full) {
    int64_t footprint = static_cast<int64_t>(f * static_cast<double>(l2_bytes)) / (64 * kKiB) * (64 * kKiB);
    footprint = std::max<int64_t>(footprint, 64 * kKiB);
    const int64_t passes = std::clamp<int64_t>(4 * kGiB / footprint, 4, 4096);
    plan.l2.push_back({footprint, static_cast<int32_t>(passes)});
  }
}

void BuildGemm(bool quick, SweepPlan& plan) {
  const std::vector<int64_t> ms = GemmMValues(quick);
  for (DType dtype : {DType::kBf16, DType::kFp8E4M3}) {
    for (const GemmShape& shape : CalibrationGemmShapes()) {
      for (int64_t m : ms) plan.gemm.push_back({m, shape.n, shape.k, dtype, shape.sources});
    }
  }
}

void BuildDecode(bool quick, SweepPlan& plan) {
  const std::vector<int64_t> contexts = quick ? std::vector<int64_t>{128, 2048, 32768, 131072}
                                              : std::vector<int64_t>{128, 512, 2048, 8192, 32768, 131072};
  const std::vector<int32_t> batches =
      quick ? std::vector<int32_t>{1, 16, 256} : std::vector<int32_t>{1, 4, 16, 64, 256};
  struct Heads {
    int32_t q, kv;
    bool all_dtypes;
  };
  // Per-GPU heads: llama-3-8b / mistral at TP1 (32/8, GQA 4) in every KV dtype; llama-3-70b
  // at TP1 (64/8, GQA 8) and TP8 (8/1), and qwen2.5-7b at TP1 (28/4, GQA 7) in bf16.
  const std::vector<Heads> heads =
      quick ? std::vector<Heads>{{32, 8, true}, {8, 1, false}}
            : std::vector<Heads>{{32, 8, true}, {64, 8, false}, {8, 1, false}, {28, 4, false}};
  for (const Heads& h : heads) {
    std::vector<DType> dtypes = {DType::kBf16};
    if (h.all_dtypes) dtypes = {DType::kBf16, DType::kFp16, DType::kFp8E4M3};
    for (DType dtype : dtypes) {
      for (int32_t batch : batches) {
        for (int64_t ctx : contexts) {
          DecodeConfig c{batch, ctx, h.q, h.kv, 128, dtype, 16};
          if (DecodeKvBytes(c) > plan.max_kv_cache_bytes) continue;
          plan.decode.push_back(c);
        }
      }
    }
  }
}

void BuildPrefill(bool quick, SweepPlan& plan) {
  auto add = [&](int32_t batch, int64_t n, int64_t ctx, int32_t q, int32_t kv, DType dtype) {
    plan.prefill.push_back({batch, n, ctx, q, kv, 128, true, dtype});
  };
  const std::vector<int64_t> lengths =
      quick ? std::vector<int64_t>{512, 2048, 8192} : std::vector<int64_t>{256, 512, 1024, 2048, 4096, 8192, 16384};
  for (int64_t n : lengths) add(1, n, 0, 32, 8, DType::kBf16);
  // Chunked prefill: a chunk of new tokens after a cached prefix.
  const std::vector<int64_t> chunk = quick ? std::vector<int64_t>{2048} : std::vector<int64_t>{512, 2048};
  const std::vector<int64_t> prefix = quick ? std::vector<int64_t>{8192} : std::vector<int64_t>{2048, 8192, 32768};
  for (int64_t n : chunk) {
    for (int64_t ctx : prefix) add(1, n, ctx, 32, 8, DType::kBf16);
  }
  if (!quick) {
    add(8, 1024, 0, 32, 8, DType::kBf16);
    add(1, 2048, 0, 32, 8, DType::kFp16);
    add(1, 8192, 0, 32, 8, DType::kFp16);
    add(1, 2048, 0, 64, 8, DType::kBf16);
    add(1, 8192, 0, 64, 8, DType::kBf16);
    add(1, 2048, 0, 8, 1, DType::kBf16);
    add(1, 8192, 0, 8, 1, DType::kBf16);
  }
}

void BuildLaunch(SweepPlan& plan) {
  plan.launch.push_back({LaunchKind::kStreamLaunch, 1000});
  plan.launch.push_back({LaunchKind::kSyncLaunch, 1});
  for (int32_t k : {1, 10, 100, 1000}) plan.launch.push_back({LaunchKind::kGraphReplay, k});
}

void BuildAllReduce(bool quick, const DeviceAssumptions& d, SweepPlan& plan) {
  if (d.gpu_count < 2 || !d.have_nccl) return;
  std::vector<int32_t> ranks;
  for (int32_t r = 2; r <= d.gpu_count; r *= 2) ranks.push_back(r);
  if (ranks.back() != d.gpu_count) ranks.push_back(d.gpu_count);
  for (int32_t r : ranks) {
    for (int64_t bytes = 4 * kKiB; bytes <= kGiB; bytes *= (quick ? 16 : 4)) {
      plan.all_reduce.push_back({bytes, r});
    }
  }
}

}  // namespace

const SectionPlan* SweepPlan::Section(const std::string& name) const {
  for (const SectionPlan& s : sections) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const std::vector<std::string>& AllSectionNames() {
  static const std::vector<std::string> kNames = {"launch", "hbm", "l2", "gemm", "decode", "prefill", "allreduce"};
  return kNames;
}

int64_t DecodeKvBytes(const DecodeConfig& c) {
  return 2 * int64_t{c.batch} * c.context_tokens * c.kv_heads * c.head_dim * DTypeBytes(c.kv_dtype);
}

double EstimateGemmRunSeconds(const GemmConfig& c, const DeviceAssumptions& d, bool flushed, int64_t flush_bytes) {
  const double flops = 2.0 * static_cast<double>(c.m) * c.n * c.k;
  const double elem = DTypeBytes(c.dtype);
  const double bytes =
      elem * (static_cast<double>(c.m) * c.k + static_cast<double>(c.n) * c.k) + 2.0 * static_cast<double>(c.m) * c.n;
  const double peak = c.dtype == DType::kFp8E4M3 ? d.fp8_flops : d.bf16_flops;
  return std::max(flops / peak, bytes / d.hbm_bytes_per_s) + d.launch_s + d.run_overhead_s +
         (flushed ? FlushSeconds(flush_bytes, d) : 0.0);
}

double EstimateDecodeRunSeconds(const DecodeConfig& c, const DeviceAssumptions& d, int64_t flush_bytes) {
  // Two kernels (partitions, then their reduction); KV bytes at the HBM rate.
  return static_cast<double>(DecodeKvBytes(c)) / d.hbm_bytes_per_s + 2 * d.launch_s + d.run_overhead_s +
         FlushSeconds(flush_bytes, d);
}

double EstimatePrefillRunSeconds(const PrefillConfig& c, const DeviceAssumptions& d, int64_t flush_bytes) {
  const double flops =
      4.0 * c.head_dim * c.q_heads * c.batch * AttendedPairs(c.query_tokens, c.context_tokens, c.causal);
  return flops / d.attention_flops + d.launch_s + d.run_overhead_s + FlushSeconds(flush_bytes, d);
}

SweepPlan MakeSweepPlan(const SweepOptions& options, const DeviceAssumptions& d, std::string* error) {
  SweepPlan plan;
  for (const std::string& name : options.sections) {
    const auto& all = AllSectionNames();
    if (std::find(all.begin(), all.end(), name) == all.end()) {
      *error = "unknown section '" + name + "' (known: launch, hbm, l2, gemm, decode, " + "prefill, allreduce)";
      return plan;
    }
  }
  const bool quick = options.quick;
  plan.flush_bytes = std::max<int64_t>(4 * d.l2_bytes, 256 * kMiB);
  plan.max_kv_cache_bytes = 32 * kGiB;
  if (Selected(options, "hbm")) BuildHbm(quick, plan);
  if (Selected(options, "l2")) BuildL2(quick, d.l2_bytes, plan);
  if (Selected(options, "gemm")) BuildGemm(quick, plan);
  if (Selected(options, "decode")) BuildDecode(quick, plan);
  if (Selected(options, "prefill")) BuildPrefill(quick, plan);
  if (Selected(options, "launch")) BuildLaunch(plan);
  if (Selected(options, "allreduce")) {
    BuildAllReduce(quick, d, plan);
    if (plan.all_reduce.empty()) {
      plan.notes.push_back(d.gpu_count < 2 ? "allreduce: one GPU visible, NCCL all-reduce not measured"
                                           : "allreduce: built without NCCL, all-reduce not measured");
    }
  }

  const int64_t flush = plan.flush_bytes;
  std::vector<SectionSpec> specs;
  specs.push_back({"launch", static_cast<int>(plan.launch.size()), 3, quick ? 10 : 20, 5, [&plan, &d](int i) {
                     const LaunchConfig& c = plan.launch[i];
                     // The sync round trip is measured 100 times per iteration.
                     const int launches = c.kind == LaunchKind::kSyncLaunch ? 100 : c.kernels_per_measurement;
                     return launches * 5e-6 + d.run_overhead_s;
                   }});
  specs.push_back({"hbm", static_cast<int>(plan.hbm.size()), 3, quick ? 10 : 20, 5, [&plan, &d, flush](int i) {
                     const HbmConfig& c = plan.hbm[i];
                     const double moved = (c.kind == HbmKind::kCopy ? 2.0 : 1.0) * static_cast<double>(c.buffer_bytes);
                     return moved / d.hbm_bytes_per_s + d.launch_s + d.run_overhead_s + FlushSeconds(flush, d);
                   }});
  specs.push_back({"l2", static_cast<int>(plan.l2.size()), 2, quick ? 5 : 10, 3, [&plan, &d](int i) {
                     const L2Config& c = plan.l2[i];
                     const double rate = c.footprint_bytes <= d.l2_bytes ? d.l2_bytes_per_s : d.hbm_bytes_per_s;
                     return static_cast<double>(c.footprint_bytes) * c.passes / rate + d.launch_s + d.run_overhead_s;
                   }});
  specs.push_back({"gemm", static_cast<int>(plan.gemm.size()), quick ? 1 : 2, quick ? 5 : 10, 3,
                   [&plan, &d, flush](int i) { return EstimateGemmRunSeconds(plan.gemm[i], d, true, flush); }});
  specs.push_back({"decode", static_cast<int>(plan.decode.size()), quick ? 1 : 2, quick ? 5 : 10, 3,
                   [&plan, &d, flush](int i) { return EstimateDecodeRunSeconds(plan.decode[i], d, flush); }});
  specs.push_back({"prefill", static_cast<int>(plan.prefill.size()), quick ? 1 : 2, quick ? 5 : 10, 3,
                   [&plan, &d, flush](int i) { return EstimatePrefillRunSeconds(plan.prefill[i], d, flush); }});
  specs.push_back({"allreduce", static_cast<int>(plan.all_reduce.size()), 5, quick ? 10 : 20, 5, [&plan, &d](int i) {
                     // Ring all-reduce moves 2(n-1)/n of the buffer per rank at ~150 GB/s.
                     const AllReduceConfig& c = plan.all_reduce[i];
                     return 2.0 * static_cast<double>(c.buffer_bytes) / 150e9 + 20e-6 + d.run_overhead_s;
                   }});

  // Start-up (context, cuBLASLt handle), correctness checks, buffer fills, one cuBLASLt
  // heuristic query per GEMM configuration, NCCL communicator set-up.
  plan.fixed_overhead_seconds =
      15.0 + 1e-3 * static_cast<double>(plan.gemm.size()) + (plan.all_reduce.empty() ? 0.0 : 10.0);

  auto estimate = [&](const SectionSpec& s, int iterations) {
    double one_each = 0;
    for (int i = 0; i < s.configs; ++i) one_each += s.run_seconds(i);
    return one_each * (s.warmup + iterations);
  };
  double total = plan.fixed_overhead_seconds;
  for (const SectionSpec& s : specs) {
    if (Selected(options, s.name)) total += estimate(s, s.iterations);
  }
  double scale = 1.0;
  if (total > options.budget_seconds && total > plan.fixed_overhead_seconds) {
    scale = std::max(0.0, options.budget_seconds - plan.fixed_overhead_seconds) / (total - plan.fixed_overhead_seconds);
  }
  plan.estimated_seconds = plan.fixed_overhead_seconds;
  for (const SectionSpec& s : specs) {
    if (!Selected(options, s.name)) continue;
    SectionPlan section;
    section.name = s.name;
    section.configs = s.configs;
    section.warmup = s.warmup;
    section.iterations = s.iterations;
    if (scale < 1.0) {
      // Fewer timed runs first: the (warmup + iterations) factor shrinks by `scale`.
      const double target = (s.warmup + s.iterations) * scale - s.warmup;
      section.iterations = std::max(s.min_iterations, static_cast<int>(std::floor(target)));
    }
    section.estimated_seconds = estimate(s, section.iterations);
    plan.estimated_seconds += section.estimated_seconds;
    plan.sections.push_back(section);
  }
  if (scale < 1.0) {
    char buf[200];
    std::snprintf(buf, sizeof(buf),
                  "budget: full iteration counts need an estimated %.0f s over the %.0f s "
                  "budget; iterations reduced",
                  total, options.budget_seconds);
    plan.notes.push_back(buf);
  }
  if (plan.estimated_seconds > options.budget_seconds) {
    plan.notes.push_back(
        "budget: the estimate still exceeds the budget at minimum iterations; sections stop "
        "at their deadlines and the skipped configurations are noted");
  }
  return plan;
}

std::string FormatPlan(const SweepPlan& plan, double budget_seconds) {
  std::string out = "section     configs  warm-up  timed  estimate\n";
  char line[160];
  for (const SectionPlan& s : plan.sections) {
    std::snprintf(line, sizeof(line), "%-10s %8d %8d %6d %8.1f s\n", s.name.c_str(), s.configs, s.warmup, s.iterations,
                  s.estimated_seconds);
    out += line;
  }
  std::snprintf(line, sizeof(line), "%-10s %8s %8s %6s %8.1f s\n", "fixed", "", "", "", plan.fixed_overhead_seconds);
  out += line;
  std::snprintf(line, sizeof(line), "total estimate %.1f s of a %.0f s budget (L2 flush %.0f MiB)\n",
                plan.estimated_seconds, budget_seconds,
                static_cast<double>(plan.flush_bytes) / static_cast<double>(kMiB));
  out += line;
  for (const std::string& note : plan.notes) out += "note: " + note + "\n";
  return out;
}

}  // namespace infergrid::calib
