// infergrid-calibrate: runs the calibration micro-benchmarks on one GPU and writes the raw
// samples as an `infergrid.Measurements` textproto (calibration/measurements.proto).
//
//   infergrid-calibrate --out=FILE [--quick] [--budget-seconds=S] [--sections=a,b,...]
//                       [--device=N] [--seed=N] [--plan-only]
//
// The plan (sections, configurations, iterations, estimated time) is printed first; with
// --plan-only nothing else happens and no GPU is needed. Correctness checks (our kernels and
// cuBLASLt against CPU references) run before the sweeps; a section whose check fails is not
// timed, the output is still written, and the exit status is 3. Usage errors exit 2, CUDA
// errors 1 (with file:line).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernels/benchmarks.h"
#include "kernels/measurement_types.h"
#include "kernels/sweep_plan.h"
#include "kernels/textproto_writer.h"

namespace infergrid::calib {
namespace {

constexpr const char* kToolVersion = "infergrid-calibrate 1";

struct Flags {
  std::string out;
  bool quick = false;
  bool plan_only = false;
  double budget_seconds = 540;
  std::vector<std::string> sections;
  int device = 0;
  uint64_t seed = 1;
  std::string command_line;
};

[[noreturn]] void Usage(const std::string& error) {
  std::fprintf(stderr,
               "infergrid-calibrate: %s\n"
               "usage: infergrid-calibrate --out=FILE [--quick] [--budget-seconds=S]\n"
               "       [--sections=launch,hbm,l2,gemm,decode,prefill,allreduce] [--device=N]\n"
               "       [--seed=N] [--plan-only]\n",
               error.c_str());
  std::exit(2);
}

bool ParseDouble(const std::string& text, double* value) {
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return !text.empty() && end != nullptr && *end == '\0';
}

bool ParseInt(const std::string& text, long long* value) {
  char* end = nullptr;
  *value = std::strtoll(text.c_str(), &end, 10);
  return !text.empty() && end != nullptr && *end == '\0';
}

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  flags.command_line = "infergrid-calibrate";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    flags.command_line += " " + arg;
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    const bool has_value = eq != std::string::npos;
    if (name == "--out" && has_value && !value.empty()) {
      flags.out = value;
    } else if (name == "--quick" && !has_value) {
      flags.quick = true;
    } else if (name == "--plan-only" && !has_value) {
      flags.plan_only = true;
    } else if (name == "--budget-seconds" && has_value) {
      if (!ParseDouble(value, &flags.budget_seconds) || flags.budget_seconds <= 0) {
        Usage("--budget-seconds wants a positive number of seconds, got '" + value + "'");
      }
    } else if (name == "--sections" && has_value) {
      size_t start = 0;
      while (start <= value.size()) {
        const size_t comma = value.find(',', start);
        const std::string section = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!section.empty()) flags.sections.push_back(section);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      if (flags.sections.empty()) Usage("--sections is empty");
    } else if (name == "--device" && has_value) {
      long long device = 0;
      if (!ParseInt(value, &device) || device < 0) Usage("--device wants a device index");
      flags.device = static_cast<int>(device);
    } else if (name == "--seed" && has_value) {
      long long seed = 0;
      if (!ParseInt(value, &seed) || seed < 0) Usage("--seed wants a non-negative integer");
      flags.seed = static_cast<uint64_t>(seed);
    } else if (name == "--help" || name == "-h") {
      Usage("runs the GPU calibration sweep");
    } else {
      Usage("unknown or malformed flag '" + arg + "'");
    }
  }
  if (flags.out.empty() && !flags.plan_only) Usage("--out=FILE is required");
  return flags;
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "";
  return buf;
}

void PrintCheck(const CorrectnessCheck& c) {
  std::printf("check %-4s rel.err %.2e (tol %.0e)  %s\n", c.passed ? "ok" : "FAIL", c.relative_error, c.tolerance,
              c.name.c_str());
}

// One line per section after it ran: what it found, in the units people quote.
void PrintHeadline(const std::string& section, const MeasurementSet& m, double seconds) {
  char line[256] = {0};
  if (section == "launch" && !m.launch_overhead.empty()) {
    double stream = 0, graph = 0;
    for (const auto& s : m.launch_overhead) {
      if (s.kind == LaunchKind::kStreamLaunch) stream = s.seconds_per_kernel;
      if (s.kind == LaunchKind::kGraphReplay) graph = s.seconds_per_kernel;  // the largest graph
    }
    std::snprintf(line, sizeof(line), "launch: %.2f us/kernel on a stream, %.2f us in a graph", stream * 1e6,
                  graph * 1e6);
  } else if (section == "hbm" && !m.hbm.empty()) {
    std::map<HbmKind, double> best;
    for (const auto& s : m.hbm) best[s.kind] = std::max(best[s.kind], s.bytes_per_second);
    std::snprintf(line, sizeof(line), "hbm: copy %.0f GB/s, read %.0f GB/s, write %.0f GB/s (best)",
                  best[HbmKind::kCopy] / 1e9, best[HbmKind::kRead] / 1e9, best[HbmKind::kWrite] / 1e9);
  } else if (section == "l2" && !m.l2.empty()) {
    double best = 0;
    for (const auto& s : m.l2) best = std::max(best, s.read_bytes_per_second);
    std::snprintf(line, sizeof(line), "l2: best %.0f GB/s, %.0f GB/s at %.0f MiB", best / 1e9,
                  m.l2.back().read_bytes_per_second / 1e9,
                  static_cast<double>(m.l2.back().footprint_bytes) / (1 << 20));
  } else if (section == "gemm" && !m.gemm.empty()) {
    double bf16 = 0, fp8 = 0;
    for (const auto& s : m.gemm) {
      double& best = s.dtype == DType::kFp8E4M3 ? fp8 : bf16;
      best = std::max(best, s.flops_per_second);
    }
    std::snprintf(line, sizeof(line), "gemm: best bf16 %.0f TFLOP/s, fp8 %.0f TFLOP/s (%zu shapes)", bf16 / 1e12,
                  fp8 / 1e12, m.gemm.size());
  } else if (section == "decode" && !m.decode_attention.empty()) {
    double best = 0;
    for (const auto& s : m.decode_attention) best = std::max(best, s.bytes_per_second);
    std::snprintf(line, sizeof(line), "decode: best %.0f GB/s (%zu configurations)", best / 1e9,
                  m.decode_attention.size());
  } else if (section == "prefill" && !m.prefill_attention.empty()) {
    double best = 0;
    for (const auto& s : m.prefill_attention) best = std::max(best, s.flops_per_second);
    std::snprintf(line, sizeof(line), "prefill: best %.0f TFLOP/s (%zu configurations)", best / 1e12,
                  m.prefill_attention.size());
  } else if (section == "allreduce" && !m.all_reduce.empty()) {
    double best = 0;
    for (const auto& s : m.all_reduce) best = std::max(best, s.bus_bytes_per_second);
    std::snprintf(line, sizeof(line), "allreduce: best bus bandwidth %.0f GB/s", best / 1e9);
  } else {
    std::snprintf(line, sizeof(line), "%s: no samples", section.c_str());
  }
  std::printf("%s  [%.1f s]\n", line, seconds);
  std::fflush(stdout);
}

int Run(const Flags& flags) {
  const double start = NowSeconds();
  DeviceAssumptions assumptions;
  assumptions.have_nccl = HaveNccl();
  MeasurementSet m;
  if (flags.plan_only) {
    assumptions.gpu_count = std::max(1, VisibleDeviceCount());
  } else {
    m.provenance = ReadProvenance(flags.device);
    assumptions.l2_bytes = m.provenance.l2_bytes;
    assumptions.gpu_count = m.provenance.gpu_count;
    std::printf(
        "device %d: %s, %d SMs, %lld MiB, L2 %lld MiB, CUDA %d (driver API %d), "
        "driver %s\n",
        flags.device, m.provenance.gpu_name.c_str(), m.provenance.sm_count,
        static_cast<long long>(m.provenance.memory_total_mib), static_cast<long long>(m.provenance.l2_bytes >> 20),
        m.provenance.cuda_runtime_version, m.provenance.cuda_driver_api_version,
        m.provenance.driver_version.empty() ? "?" : m.provenance.driver_version.c_str());
  }
  SweepOptions options;
  options.quick = flags.quick;
  options.budget_seconds = flags.budget_seconds;
  options.sections = flags.sections;
  std::string error;
  const SweepPlan plan = MakeSweepPlan(options, assumptions, &error);
  if (!error.empty()) Usage("--sections: " + error);
  std::printf("%s", FormatPlan(plan, flags.budget_seconds).c_str());
  std::fflush(stdout);
  if (flags.plan_only) return 0;

  BenchContext base;
  base.device = flags.device;
  base.sm_count = m.provenance.sm_count;
  base.l2_bytes = m.provenance.l2_bytes;
  base.flush_bytes = plan.flush_bytes;
  base.seed = flags.seed;

  // Correctness first; a failed check keeps its section from being timed.
  std::set<std::string> failed;
  auto record = [&](const std::string& section, const CorrectnessCheck& c) {
    PrintCheck(c);
    m.checks.push_back(c);
    if (!c.passed) failed.insert(section);
  };
  if (plan.Section("gemm") != nullptr) {
    record("gemm", CheckGemm(DType::kBf16, base));
    record("gemm", CheckGemm(DType::kFp8E4M3, base));
  }
  if (plan.Section("decode") != nullptr) {
    for (DType dtype : {DType::kBf16, DType::kFp16, DType::kFp8E4M3}) {
      record("decode", CheckDecodeAttention(dtype, 8, 2, base));
    }
    record("decode", CheckDecodeAttention(DType::kBf16, 14, 2, base));  // GQA 7
    record("decode", CheckDecodeAttention(DType::kBf16, 8, 1, base));  // GQA 8
  }
  if (plan.Section("prefill") != nullptr) {
    record("prefill", CheckPrefillAttention(DType::kBf16, base));
    record("prefill", CheckPrefillAttention(DType::kFp16, base));
  }
  std::fflush(stdout);

  std::vector<std::string> notes = plan.notes;
  double cumulative = plan.fixed_overhead_seconds;
  for (const SectionPlan& section : plan.sections) {
    cumulative += section.estimated_seconds;
    BenchContext ctx = base;
    ctx.warmup = section.warmup;
    ctx.iterations = section.iterations;
    // Each section may run until its share of the budget, counted from the start, is spent;
    // time a section leaves unused passes to the next.
    ctx.deadline = start + flags.budget_seconds * cumulative / std::max(plan.estimated_seconds, 1e-9);
    if (failed.count(section.name) != 0) {
      notes.push_back(section.name + ": correctness check failed; not timed");
      std::printf("%s: correctness check failed, not timed\n", section.name.c_str());
      continue;
    }
    const double t0 = NowSeconds();
    const std::string& s = section.name;
    if (s == "launch") m.launch_overhead = RunLaunchSweep(plan.launch, ctx, &notes);
    if (s == "hbm") m.hbm = RunHbmSweep(plan.hbm, ctx, &notes);
    if (s == "l2") m.l2 = RunL2Sweep(plan.l2, ctx, &notes);
    if (s == "gemm") m.gemm = RunGemmSweep(plan.gemm, ctx, &notes);
    if (s == "decode") m.decode_attention = RunDecodeSweep(plan.decode, ctx, &notes);
    if (s == "prefill") m.prefill_attention = RunPrefillSweep(plan.prefill, ctx, &notes);
    if (s == "allreduce") m.all_reduce = RunAllReduceSweep(plan.all_reduce, ctx, &notes);
    PrintHeadline(s, m, NowSeconds() - t0);
  }

  Provenance& p = m.provenance;
  p.sm_clock_end_mhz = CurrentSmClockMhz(flags.device);
  p.date_utc = UtcNow();
  p.tool_version = kToolVersion;
  p.host = HostName();
  p.command_line = flags.command_line;
  p.quick = flags.quick;
  p.budget_seconds = flags.budget_seconds;
  p.wall_seconds = NowSeconds() - start;
  p.notes.insert(p.notes.end(), notes.begin(), notes.end());
  const std::string write_error = WriteFileAtomically(flags.out, ToTextProto(m));
  if (!write_error.empty()) {
    std::fprintf(stderr, "infergrid-calibrate: %s\n", write_error.c_str());
    return 1;
  }
  for (const std::string& note : notes) std::printf("note: %s\n", note.c_str());
  std::printf("wrote %s (%.1f s)\n", flags.out.c_str(), p.wall_seconds);
  if (!failed.empty()) {
    std::fprintf(stderr, "infergrid-calibrate: %zu section(s) failed their correctness check\n", failed.size());
    return 3;
  }
  return 0;
}

}  // namespace
}  // namespace infergrid::calib

int main(int argc, char** argv) { return infergrid::calib::Run(infergrid::calib::ParseFlags(argc, argv)); }
