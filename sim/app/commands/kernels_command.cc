// `infergrid kernels --gpu=G [--calibration=FILE]`: predicted time of single kernels read from
// standard input, one per line:
//   gemm M N K DTYPE        D[M,N] = X[M,K] W[N,K]^T in DTYPE (bf16, fp16, fp8)
// and for each, one output line: the input fields as given, the predicted time in microseconds,
// the binding resource, then the lower bounds in microseconds (HBM bytes / datasheet peak,
// tensor FLOPs / datasheet peak). No header. Blank lines and lines starting with '#' are
// skipped (no output). Errors name the line ("stdin:3: ...") and print nothing else.
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/dtype.h"
#include "calibration/profile_catalog.h"
#include "hardware/gpu_catalog.h"
#include "hardware/lower_bounds.h"
#include "hardware/resource_model.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/commands/command.h"
#include "sim/app/format/units.h"

namespace infergrid {
namespace {

absl::Status LineError(int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("stdin:", line, ": ", what));
}

absl::StatusOr<int64_t> Dimension(int line, absl::string_view name, absl::string_view text) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(text, &value) || value <= 0 || value > (int64_t{1} << 40)) {
    return LineError(line, absl::StrCat(name, " must be a positive integer, got '", text, "'"));
  }
  return value;
}

absl::StatusOr<std::string> GemmLine(const ResourceModel& model, int line,
                                     const std::vector<absl::string_view>& fields) {
  if (fields.size() != 5) {
    return LineError(line, absl::StrCat("expected 'gemm M N K DTYPE', got ", fields.size(), " fields"));
  }
  int64_t dims[3];
  const char* names[3] = {"M", "N", "K"};
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<int64_t> d = Dimension(line, names[i], fields[static_cast<size_t>(i) + 1]);
    if (!d.ok()) return d.status();
    dims[i] = *d;
  }
  absl::StatusOr<DType> dtype = ParseDType(fields[4]);
  if (!dtype.ok()) return LineError(line, dtype.status().message());
  if (*dtype != DType::BF16 && *dtype != DType::FP16 && *dtype != DType::FP8_E4M3 && *dtype != DType::FP8_E5M2) {
    return LineError(line, absl::StrCat("gemm dtype must be bf16, fp16 or fp8, got '", fields[4], "'"));
  }
  const bool fp8 = *dtype == DType::FP8_E4M3 || *dtype == DType::FP8_E5M2;
  if (fp8 && model.gpu().tensor_peaks().fp8_flops() <= 0) {
    return LineError(line, absl::StrCat(model.gpu().name(), " has no fp8 tensor cores"));
  }
  Kernel k;
  k.kind = KernelKind::kGemm;
  k.name = "gemm";
  k.m = dims[0];
  k.n = dims[1];
  k.k = dims[2];
  k.tensor_dtype = *dtype;
  k.weight_bytes_per_element = fp8 ? 1 : 2;
  k.activation_bytes_per_element = fp8 ? 1 : 2;
  const double m = static_cast<double>(k.m), n = static_cast<double>(k.n), kk = static_cast<double>(k.k);
  k.tensor_flops = 2 * m * n * kk;
  // Inputs once in the input dtype, the output once in 16 bits.
  k.hbm_bytes = (m * kk + n * kk) * k.weight_bytes_per_element + m * n * 2;
  const KernelTime t = model.Time(k);
  const LowerBounds lb = ComputeLowerBounds(model.gpu(), *dtype, k.tensor_flops, k.hbm_bytes);
  return absl::StrCat(absl::StrJoin(fields, " "), " ", format::Fixed(t.seconds * 1e6, 2), " ", ResourceName(t.binding),
                      " ", format::Fixed(lb.hbm_s * 1e6, 2), " ", format::Fixed(lb.compute_s * 1e6, 2), "\n");
}

absl::Status RunKernels(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  const cli::FlagValues& flags = command_line.flags;
  const cli::AccountingFlags accounting_flags = cli::AccountingFlagGroup().Read(flags);
  const std::vector<std::string>& positional = command_line.positional;
  if (!positional.empty()) {
    return cli::UsageError(
        absl::StrCat("kernels takes no arguments (kernels come on standard input), got '", positional[0], "'"));
  }
  absl::StatusOr<GpuSpec> gpu = ResolveGpu(accounting_flags.gpu);
  if (!gpu.ok()) return cli::UsageError(absl::StrCat("--gpu: ", gpu.status().message()));
  absl::StatusOr<Calibration> profile = ResolveCalibration(*gpu, accounting_flags.calibration);
  if (!profile.ok()) return profile.status();
  absl::StatusOr<ResourceModel> model = ResourceModel::Create(*gpu, ResourcesOf(*profile));
  if (!model.ok()) return model.status();
  // Standard output carries one line per kernel and nothing else; the note goes to stderr.
  if (profile->extrapolated()) {
    std::cerr << "infergrid kernels: note: calibration " << CalibrationLabel(*profile) << "\n";
  }
  std::string text;
  int line = 0;
  while (std::getline(std::cin, text)) {
    ++line;
    const absl::string_view stripped = absl::StripAsciiWhitespace(text);
    if (stripped.empty() || stripped[0] == '#') continue;
    const std::vector<absl::string_view> fields = absl::StrSplit(stripped, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (fields[0] == "gemm") {
      absl::StatusOr<std::string> result = GemmLine(*model, line, fields);
      if (!result.ok()) return result.status();
      out << *result;
    } else {
      return LineError(line, absl::StrCat("unknown kernel kind '", fields[0], "' (expected gemm)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

const Command& KernelsCommand() {
  static const Command* command =
      new Command{"kernels", "predicted time of kernels read from stdin ('gemm M N K DTYPE'), one line each",
                  cli::CommandFlags().Take(cli::AccountingFlagGroup(), {"gpu", "calibration"}), &RunKernels};
  return *command;
}

}  // namespace infergrid
